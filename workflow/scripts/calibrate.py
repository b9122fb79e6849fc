"""Rule calibrate: the noise multiplier of every distinct privacy setting of one study, once."""
import logging

from privcd.results import write_text
from privcd.results.datafiles import load_problem
from privcd.results.joblog import log_to
from privcd.tuning import calibrate_study

log_to(snakemake.log[0])
study = snakemake.params.study
problem = load_problem(snakemake.input.data, study.problem)
store = calibrate_study(problem, study.algorithm, study.configurations)
logging.info("%s %s: %d configurations, %d distinct privacy settings calibrated",
             study.problem.key, study.name, len(study.configurations), store.computed)
for key, calibration in store.entries.items():
    logging.info("%s -> %s", key, calibration)
write_text(store.to_json(), snakemake.output[0])
