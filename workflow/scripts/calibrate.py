"""Rule calibrate: the noise multiplier of every distinct privacy setting of one problem's studies, once."""
import logging

from privcd.privacy.reuse import CalibrationStore
from privcd.results import write_text
from privcd.results.datafiles import load_problem
from privcd.results.joblog import log_to
from privcd.tuning import calibrate_study

log_to(snakemake.log[0])
studies = snakemake.params.studies
problem = load_problem(snakemake.input.data, studies[0].problem)
store = CalibrationStore()
for study in studies:
    before = store.computed
    calibrate_study(problem, study.algorithm, study.configurations, store=store)
    logging.info("%s %s: %d configurations, %d privacy settings calibrated, the others already were",
                 study.problem.key, study.name, len(study.configurations), store.computed - before)
for key, calibration in store.entries.items():
    logging.info("%s -> %s", key, calibration)
write_text(store.to_json(), snakemake.output[0])
