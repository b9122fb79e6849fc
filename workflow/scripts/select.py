"""Rule select: the configuration(s) with the lowest mean final objective over the tuning runs, or
with the best mean validation utility (``select_metric: validation``, dp-scd Section 5.1)."""
import json
import logging

from privcd.results import read_parquets, select_best, write_text
from privcd.results.joblog import log_to
from privcd.results.utility import selection_score

log_to(snakemake.log[0])
tuning = read_parquets(snakemake.input)
study = snakemake.params.study
score = None
if study.select_metric == "validation":
    score = selection_score(tuning, {study.problem.name: study.problem.loss})
best = select_best(tuning, by=[f"param_{name}" for name in study.select_by], score=score)
for row in best.itertuples(index=False):
    logging.info("selected %s %s: mean final objective %.6g, mean %s score %.6g over %d runs, among %d "
                 "configurations", row.configuration, row.params, row.mean_objective, study.select_metric,
                 row.mean_score, row.runs, row.candidates)
selection = [{**row, "configuration_params": json.loads(row["params"])} for row in best.to_dict("records")]
write_text(json.dumps(selection, indent=1) + "\n", snakemake.output[0])
