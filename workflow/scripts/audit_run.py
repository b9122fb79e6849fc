"""Rule audit_run: the privacy audit of one (variant, epsilon), one row of parquet."""
import logging

from privcd.auditing import VARIANTS, audit, default_workers
from privcd.auditing.study import frame, result_row
from privcd.results import write_parquet
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
params = snakemake.params
variant = VARIANTS[params.variant]
result = audit(variant.algorithm, epsilon=params.epsilon, delta=params.delta, runs=params.runs, seed=params.seed,
               check_confidence=params.check_confidence, workers=default_workers(params.runs, snakemake.threads),
               **variant.options)
write_parquet(frame([result_row(params.variant, params.epsilon, params.seed, result)]), snakemake.output[0])
logging.info("%s at epsilon %g: epsilon_lower %.4f (claim %.4f), %d runs a side, %.1f s", params.variant,
             params.epsilon, result.epsilon_lower, result.epsilon, result.runs, result.seconds)
