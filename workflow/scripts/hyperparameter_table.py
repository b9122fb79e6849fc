"""Rule hyperparameter_table: dp-gcd Table 4, the selected hyperparameters of every problem and algorithm."""
import json
import logging
from pathlib import Path

from privcd.plotting import to_latex, to_markdown
from privcd.results import write_text
from privcd.results.hyperparameters import hyperparameter_table
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
selections = [(*row, json.loads(Path(path).read_text())) for row, path in zip(snakemake.params.rows, snakemake.input)]
table = hyperparameter_table(selections)
write_text(to_markdown(table), snakemake.output.md)
write_text(to_latex(table, caption=snakemake.params.caption), snakemake.output.tex)
logging.info("%d rows", len(table))
