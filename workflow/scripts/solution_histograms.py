"""Rule solution_histograms: dp-gcd Figure 2, histograms of |w*_j| with the alpha of (alpha, 5)-quasi-sparsity."""
import logging

import numpy as np

from privcd.plotting import save
from privcd.plotting.histograms import histogram_figure
from privcd.results.joblog import log_to
from privcd.results.quasi_sparsity import solution_histograms

log_to(snakemake.log[0])
solutions = {problem: np.load(path) for problem, path in zip(snakemake.params.problems, snakemake.input)}
histograms = solution_histograms(solutions, tau=snakemake.params.tau)
figure = histogram_figure(histograms, titles=snakemake.params.titles, title=snakemake.params.title)
save(figure, snakemake.output.pdf, snakemake.output.png)
for row in histograms.drop_duplicates("problem").itertuples(index=False):
    logging.info("%s: alpha = %.4g (tau = %d), %d non-zeros of %d", row.problem, row.alpha, row.tau,
                 row.nonzeros, row.features)
