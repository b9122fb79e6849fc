"""Rule data: load one (dataset, preprocessing) from the mirror or its source; store it."""
import logging

from privcd.data import load_dataset
from privcd.results.datafiles import save_dataset
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
dataset = load_dataset(
    snakemake.wildcards.dataset,
    preprocessing=snakemake.wildcards.preprocessing,
    mirror=snakemake.params.mirror,
    cache=snakemake.params.cache,
    download=snakemake.params.download,
)
logging.info("%r", dataset)
logging.info("origin: %s", dataset.meta.origin)
save_dataset(dataset, snakemake.output.npz, snakemake.output.meta)
