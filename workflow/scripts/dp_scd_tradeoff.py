"""Rule dp_scd_tradeoff: dp-scd Figure 1 (test utility against epsilon) and the table of its numbers."""
import logging

import pandas as pd

from privcd.plotting import save, to_latex, to_markdown
from privcd.plotting.draw_utility import tradeoff_figure
from privcd.plotting.utility import tradeoff_points, tradeoff_table
from privcd.results import write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
params = snakemake.params
points = tradeoff_points(pd.read_parquet(snakemake.input[0]), params.losses)
save(tradeoff_figure(points, titles=params.titles, names=params.names, missing=params.missing,
                     title=params.title),
     snakemake.output.pdf, snakemake.output.png)
table = tradeoff_table(points, titles=params.titles)
write_text(to_markdown(table), snakemake.output.md)
write_text(to_latex(table, caption=params.caption), snakemake.output.tex)
logging.info("%d points; missing: %s", len(points), params.missing)
