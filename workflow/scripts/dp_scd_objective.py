"""Rule dp_scd_objective: dp-scd Figure 2 (training objective against epochs, epsilon 0.1 and 1)."""
import logging

import pandas as pd

from privcd.plotting import save
from privcd.plotting.draw_utility import objective_figure
from privcd.plotting.utility import figure_epsilons, objective_curves
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
params = snakemake.params
final = pd.read_parquet(snakemake.input[0])
epsilons = figure_epsilons(params.epsilons, final["param_epsilon"].unique())
curves = objective_curves(final, epsilons)
save(objective_figure(curves, titles=params.titles, names=params.names, missing=params.missing,
                     title=params.title),
     snakemake.output.pdf, snakemake.output.png)
logging.info("epsilons %s, %d curve points", epsilons, len(curves))
