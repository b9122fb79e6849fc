"""Rule dp_skgd_sketches: final relative error of every sketch distribution, figure and table."""
import logging

import pandas as pd

from privcd.plotting import save, to_latex, to_markdown
from privcd.plotting.draw_utility import sketch_figure
from privcd.plotting.sketches import sketch_points, sketch_table
from privcd.results import write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
params = snakemake.params
points = sketch_points(pd.read_parquet(snakemake.input[0]))
save(sketch_figure(points, titles=params.titles, title=params.title), snakemake.output.pdf, snakemake.output.png)
table = sketch_table(points, titles=params.titles)
write_text(to_markdown(table), snakemake.output.md)
write_text(to_latex(table, caption=params.caption), snakemake.output.tex)
logging.info("%d sketches x problems", len(points))
