"""Rule tune: one chunk of a study's grid, every configuration run ``runs.tune`` times."""
import logging
from pathlib import Path

import numba

from privcd.privacy.reuse import CalibrationStore
from privcd.results import write_parquet
from privcd.results.datafiles import load_problem
from privcd.results.joblog import log_to
from privcd.results.utility import load_held_out
from privcd.tuning import run_chunk

log_to(snakemake.log[0])
numba.set_num_threads(snakemake.threads)  # the kernels' prange: the job's cores, no more
study = snakemake.params.study
configurations = snakemake.params.configurations
logging.info("%s %s chunk %s: %d configurations x %d runs", study.problem.key, study.name,
             snakemake.wildcards.chunk, len(configurations), study.tune_runs)
problem = load_problem(snakemake.input.data, study.problem)
frame = run_chunk(problem, study.algorithm, configurations, base_seed=snakemake.params.base_seed,
                  repetitions=study.tune_runs, stage="tune", paper=study.problem.paper,
                  problem_name=study.problem.name, label=study.name, checkpoints=snakemake.params.checkpoints,
                  calibrations=CalibrationStore.from_json(Path(snakemake.input.calibration).read_text()),
                  progress=logging.info, held_out=load_held_out(snakemake.input.data))
write_parquet(frame, snakemake.output[0])
