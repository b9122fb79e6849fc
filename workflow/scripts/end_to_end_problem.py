"""Rule end_to_end_problem: the three protocols of the end-to-end study on one problem, per algorithm."""
import json
import logging
import time
from pathlib import Path

from privcd.results import write_parquet
from privcd.results.datafiles import load_problem
from privcd.results.joblog import log_to
from privcd.tuning import resolve_delta
from privcd.tuning.end_to_end import COLUMNS, end_to_end_rows

import pandas as pd

log_to(snakemake.log[0])
params = snakemake.params
start = time.perf_counter()
problem = load_problem(snakemake.input.data, params.spec)
f_star = json.loads(Path(snakemake.input.optimum).read_text())["f_star"]
study = params.study
rows = [row for algorithm, grid, defaults, problems in study.algorithms if params.spec.key in problems
        for row in end_to_end_rows(problem, f_star, name=params.spec.key, algorithm=algorithm, grid=grid,
                                   defaults=defaults, epsilons=study.epsilons,
                                   delta=resolve_delta(study.delta, problem.n_samples), runs=study.runs,
                                   mean_candidates=study.mean_candidates, base_seed=params.base_seed,
                                   score_clip=study.score_clip)]
write_parquet(pd.DataFrame(rows, columns=COLUMNS), snakemake.output[0])
logging.info("%s: %d rows in %.1f s", params.spec.key, len(rows), time.perf_counter() - start)
