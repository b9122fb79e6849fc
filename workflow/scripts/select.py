"""Rule select: the configuration(s) with the lowest mean final objective over the tuning runs."""
import json
import logging

from privcd.results import read_parquets, select_best, write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
tuning = read_parquets(snakemake.input)
best = select_best(tuning, by=[f"param_{name}" for name in snakemake.params.by])
for row in best.itertuples(index=False):
    logging.info("selected %s %s: mean final objective %.6g over %d runs, among %d configurations",
                 row.configuration, row.params, row.mean_objective, row.runs, row.candidates)
selection = [{**row, "configuration_params": json.loads(row["params"])} for row in best.to_dict("records")]
write_text(json.dumps(selection, indent=1) + "\n", snakemake.output[0])
