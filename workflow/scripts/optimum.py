"""Rule optimum: the certified non-private optimum (w*, F*) of one problem."""
import json
import logging

import numpy as np

from privcd.optimum import solve_nonprivate
from privcd.results import write_text
from privcd.results.datafiles import load_problem
from privcd.results.io import write_array
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
spec = snakemake.params.problem
problem = load_problem(snakemake.input.data, spec)
optimum = solve_nonprivate(problem)
logging.info("%s: F* = %.17g, gap %.3g, %d %s steps", spec.key, optimum.f_star, optimum.gap,
             optimum.iterations, optimum.method)
summary = {"paper": spec.paper, "problem": spec.name, "f_star": optimum.f_star, "gap": optimum.gap,
           "iterations": optimum.iterations, "method": optimum.method,
           "n_samples": problem.n_samples, "n_features": problem.n_features,
           "nonzeros": int(np.count_nonzero(optimum.w_star))}
write_text(json.dumps(summary, indent=1) + "\n", snakemake.output.json)
write_array(optimum.w_star, snakemake.output.w_star)
