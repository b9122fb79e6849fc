"""Rule dataset_table: dp-gcd Table 1, records and features of each dataset beside the paper's."""
import json
import logging
from pathlib import Path

from privcd.plotting import to_latex, to_markdown
from privcd.results import write_text
from privcd.results.dataset_sizes import dataset_sizes
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
table = dataset_sizes([json.loads(Path(path).read_text()) for path in snakemake.input],
                      originals=snakemake.params.originals)
write_text(to_markdown(table.astype(str).replace("<NA>", "")), snakemake.output.md)
write_text(to_latex(table.astype(str).replace("<NA>", ""), caption=snakemake.params.caption), snakemake.output.tex)
logging.info("%d datasets", len(table))
