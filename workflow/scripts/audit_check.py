"""Rule audit_check: fail when a sound variant's lower bound exceeds its claim (a privacy bug)."""
import pandas as pd

from privcd.auditing.study import check_claims
from privcd.results import write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
table = pd.read_parquet(snakemake.input[0])
check_claims(table)
write_text(f"{int(table['sound'].sum())} audits of sound variants, every bound at the check confidence (1 - 0.05 / K) at or below its claim\n",
           snakemake.output[0])
