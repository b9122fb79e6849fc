"""Rule per_passes_table: dp-cd Table 2 (relative error) or Table 3 (running time) per number of passes."""
import logging

import pandas as pd

from privcd.plotting import to_latex, to_markdown
from privcd.plotting.paper_tables import per_passes_table
from privcd.results import write_text
from privcd.results.joblog import log_to
from privcd.results.per_passes import best_per_passes, mean_times

log_to(snakemake.log[0])
summary = best_per_passes if snakemake.params.table == "2" else mean_times
best = summary(pd.read_parquet(snakemake.input[0]))
table = per_passes_table(best, snakemake.params.problems, star=snakemake.params.star, legend=snakemake.params.legend)
write_text(to_markdown(table), snakemake.output.md)
write_text(to_latex(table, caption=snakemake.params.caption), snakemake.output.tex)
logging.info("table %s: %d rows", snakemake.params.table, len(table))
