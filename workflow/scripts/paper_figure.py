"""Rule paper_figure: one of a paper's own figures (config papers.<paper>.figures.<name>)."""
import logging

import pandas as pd

from privcd.plotting import convergence_figure, save
from privcd.plotting.panels import figure_curves
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
spec = snakemake.params.spec
curves = figure_curves(pd.read_parquet(snakemake.input[0]), problems=list(spec.problems),
                       algorithms=spec.algorithms and list(spec.algorithms), legend=spec.legend)
figure = convergence_figure(curves, x=spec.x, title=spec.full_title, titles=snakemake.params.titles)
save(figure, snakemake.output.pdf, snakemake.output.png)
logging.info("%s: %d panels, %d curves", spec.name, len(spec.problems), curves.groupby(["problem", "label"]).ngroups)
