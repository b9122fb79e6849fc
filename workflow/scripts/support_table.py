"""Rule support_table: dp-gcd Table 3, support recovery and relative gap of the final iterates."""
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from privcd.plotting import to_latex, to_markdown
from privcd.results import write_parquet, write_text
from privcd.results.joblog import log_to
from privcd.results.support import support_recovery, support_table

log_to(snakemake.log[0])
rows, nonzeros = [], {}
for (problem, algorithm), iterates, optimum, w_star in zip(snakemake.params.cells, snakemake.input.iterates,
                                                           snakemake.input.optima, snakemake.input.solutions):
    w_star = np.load(w_star)
    nonzeros[problem] = int(np.count_nonzero(w_star))
    with np.load(iterates) as runs:
        rows.append(support_recovery(problem, algorithm, dict(runs), w_star,
                                     json.loads(Path(optimum).read_text())["f_star"]))
recovery = pd.DataFrame(rows)
table = support_table(recovery, nonzeros, titles=snakemake.params.titles, legend=snakemake.params.legend)
write_parquet(recovery, snakemake.output.parquet)
write_text(to_markdown(table), snakemake.output.md)
write_text(to_latex(table, caption=snakemake.params.caption), snakemake.output.tex)
logging.info("%d problems x %d algorithms", len(nonzeros), recovery["algorithm"].nunique())
