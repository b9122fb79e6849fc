"""Rule dp_scd_batch_size: dp-scd Figure 3 (DP-SCD's test utility against the mini-batch size)."""
import logging

import pandas as pd

from privcd.plotting import save
from privcd.plotting.draw_utility import batch_size_figure
from privcd.plotting.utility import batch_size_points
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
params = snakemake.params
points = batch_size_points(pd.read_parquet(snakemake.input[0]), params.losses)
save(batch_size_figure(points, titles=params.titles, missing=params.missing, title=params.title),
     snakemake.output.pdf, snakemake.output.png)
logging.info("%d points", len(points))
