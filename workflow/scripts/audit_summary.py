"""Rule audit_summary: every audit in one table and one figure."""
import logging

import pandas as pd

from privcd.auditing.study import summary_table
from privcd.plotting import save, to_markdown
from privcd.plotting.audit import audit_figure
from privcd.results import write_parquet, write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
table = pd.concat([pd.read_parquet(path) for path in snakemake.input], ignore_index=True)
write_parquet(table, snakemake.output.parquet)
write_text(to_markdown(summary_table(table)), snakemake.output.md)
save(audit_figure(table, title=snakemake.params.title), snakemake.output.pdf, snakemake.output.png)
logging.info("%d audits of %d variants", len(table), table["variant"].nunique())
