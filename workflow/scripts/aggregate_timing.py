"""Rule aggregate_timing: the paper's timed runs in one parquet (columns privcd.tuning.timing.TIMING_COLUMNS)."""
import logging

from privcd.results import read_parquets, write_parquet
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
timing = read_parquets(snakemake.input)
logging.info("%d timed runs", len(timing))
write_parquet(timing, snakemake.output[0])
