"""Rule final_iterates: the final runs' output w again (same identities, same seeds, same bits)."""
import io
import json
import logging
from pathlib import Path

import numba
import numpy as np

from privcd.privacy.reuse import CalibrationStore
from privcd.results.datafiles import load_problem
from privcd.results.io import write_bytes
from privcd.tuning.iterates import final_iterates
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
numba.set_num_threads(snakemake.threads)  # the kernels' prange: the job's cores, no more
study = snakemake.params.study
selection = json.loads(Path(snakemake.input.selection).read_text())
problem = load_problem(snakemake.input.data, study.problem)
iterates = final_iterates(problem, study.algorithm, [entry["configuration_params"] for entry in selection],
                          base_seed=snakemake.params.base_seed, repetitions=study.final_runs,
                          paper=study.problem.paper, problem_name=study.problem.name, label=study.name,
                          checkpoints=study.final_checkpoints,
                          calibrations=CalibrationStore.from_json(Path(snakemake.input.calibration).read_text()))
buffer = io.BytesIO()
np.savez(buffer, **iterates)
write_bytes(buffer.getvalue(), snakemake.output[0])
logging.info("%s %s: %d runs, non-zeros %s", study.problem.key, study.name, len(iterates["objective"]),
             [int(np.count_nonzero(w)) for w in iterates["w"]])
