"""Rule timing: the best configuration of each number of passes run ``runs.timing`` times, each timed alone."""
import logging
from pathlib import Path

import numba

from privcd.privacy.reuse import CalibrationStore
from privcd.results import read_parquets, write_parquet
from privcd.results.datafiles import load_problem
from privcd.results.joblog import log_to
from privcd.tuning.timing import timed_runs

log_to(snakemake.log[0])
numba.set_num_threads(snakemake.threads)
study = snakemake.params.study
problem = load_problem(snakemake.input.data, study.problem)
frame = timed_runs(problem, study.algorithm, read_parquets(snakemake.input.tune), repetitions=study.timing_runs,
                   base_seed=snakemake.params.base_seed, paper=study.problem.paper, problem_name=study.problem.name,
                   label=study.name,
                   calibrations=CalibrationStore.from_json(Path(snakemake.input.calibration).read_text()))
logging.info("%d timed runs, median %.4g s", len(frame), frame["seconds"].median())
write_parquet(frame, snakemake.output[0])
