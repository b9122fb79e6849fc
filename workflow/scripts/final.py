"""Rule final: the selected configuration(s) run ``runs.final`` times, objective at every checkpoint."""
import json
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
selection = json.loads(Path(snakemake.input.selection).read_text())
configurations = [entry["configuration_params"] for entry in selection]
problem = load_problem(snakemake.input.data, study.problem)
frame = run_chunk(problem, study.algorithm, configurations, base_seed=snakemake.params.base_seed,
                  repetitions=study.final_runs, stage="final", paper=study.problem.paper,
                  problem_name=study.problem.name, label=study.name, checkpoints=study.final_checkpoints,
                  calibrations=CalibrationStore.from_json(Path(snakemake.input.calibration).read_text()),
                  progress=logging.info, held_out=load_held_out(snakemake.input.data))
write_parquet(frame, snakemake.output[0])
