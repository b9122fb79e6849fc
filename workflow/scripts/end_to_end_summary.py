"""Rule end_to_end_summary: the end-to-end study's table and figure."""
import logging

import pandas as pd

from privcd.plotting import save, to_markdown
from privcd.plotting.end_to_end import end_to_end_figure, end_to_end_table
from privcd.results import write_parquet, write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
table = pd.concat([pd.read_parquet(path) for path in snakemake.input], ignore_index=True)
titles = snakemake.params.titles
write_parquet(table, snakemake.output.parquet)
write_text(to_markdown(end_to_end_table(table, titles=titles)), snakemake.output.md)
save(end_to_end_figure(table, titles=titles, title=snakemake.params.title), snakemake.output.pdf, snakemake.output.png)
logging.info("%d rows, %d problems", len(table), table["problem"].nunique())
