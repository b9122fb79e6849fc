"""Rule per_passes_vs_paper: dp-cd Table 2 beside our best relative error per number of passes, a table and a figure."""
import logging

import pandas as pd

from privcd.plotting import save, to_markdown
from privcd.plotting.beside_paper import beside_paper_figure, beside_paper_table
from privcd.results import write_text
from privcd.results.compare.values import load_values
from privcd.results.joblog import log_to
from privcd.results.per_passes import best_per_passes

log_to(snakemake.log[0])
best = best_per_passes(pd.read_parquet(snakemake.input.tuning))
values = load_values(snakemake.input.values)
params = snakemake.params
table = beside_paper_table(best, values, params.algorithm_of, legend=params.legend)
write_text(to_markdown(table), snakemake.output.md)
save(beside_paper_figure(best, values, legend=params.legend, titles=params.titles, title=params.title),
     snakemake.output.pdf, snakemake.output.png)
logging.info("%d rows", len(table))
