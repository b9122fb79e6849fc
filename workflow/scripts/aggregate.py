"""Rule aggregate: one tidy parquet of final runs and one of tuning runs (last checkpoint), with
the relative error (F - F*) / F*."""
import json
import logging
from pathlib import Path

import pandas as pd

from privcd.results import final_checkpoints, merge, read_parquets, with_relative_error, write_parquet
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
optima = pd.DataFrame([json.loads(Path(path).read_text()) for path in snakemake.input.optima])
final = with_relative_error(merge([read_parquets(snakemake.input.final)]), optima)
tuning = with_relative_error(final_checkpoints(merge([read_parquets(snakemake.input.tune)])), optima)
write_parquet(final, snakemake.output.final)
write_parquet(tuning, snakemake.output.tuning)
logging.info("final: %d rows (%d runs); tuning: %d runs", len(final),
             final.groupby(["problem", "algorithm", "configuration", "repetition"]).ngroups, len(tuning))
