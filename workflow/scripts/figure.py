"""Rule figure: relative error against passes (or seconds), min/mean/max over the final runs."""
import logging

import pandas as pd

from privcd.plotting import convergence_curves, convergence_figure, save
from privcd.plotting.panels import legend_labels
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
curves = legend_labels(convergence_curves(pd.read_parquet(snakemake.input[0]), by=snakemake.params.label_by),
                       snakemake.params.names)
figure = convergence_figure(curves, x=snakemake.wildcards.x, title=snakemake.params.title,
                            titles=snakemake.params.titles)
save(figure, snakemake.output.pdf, snakemake.output.png)
logging.info("%d curves, %d points", curves.groupby(["problem", "label"]).ngroups, len(curves))
