"""Rules final_table and tuning_table: final relative errors as Markdown and LaTeX tables.

For the tuning table the best configuration of each group (``params.by``) is selected first.
"""
import logging

import pandas as pd

from privcd.plotting import error_table, final_errors, to_latex, to_markdown
from privcd.results import select_best, write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
frame = pd.read_parquet(snakemake.input[0])
by = list(snakemake.params.by)
if frame["stage"].eq("tune").any():
    best = select_best(frame, by=[f"param_{name}" for name in by])
    frame = frame.merge(best[["paper", "problem", "algorithm", "configuration"]])
errors = final_errors(frame, by=by)
errors["problem"] = errors["problem"].map(snakemake.params.titles)  # names any substitute dataset
table = error_table(errors, by=by)
write_text(to_markdown(table), snakemake.output.md)
write_text(to_latex(table, caption=snakemake.params.caption), snakemake.output.tex)
logging.info("%d rows", len(table))
