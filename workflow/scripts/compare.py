"""Rule compare: results/compare/papers.md, our numbers beside dp-cd Table 2 and dp-gcd Table 3."""
import logging

import pandas as pd

from privcd.plotting import to_markdown
from privcd.results import write_text
from privcd.results.compare import (compare_per_passes, compare_support, display, load_values, verdict_counts,
                                    winners)
from privcd.results.joblog import log_to
from privcd.results.per_passes import best_per_passes

log_to(snakemake.log[0])
sections = [snakemake.params.preamble]
for kind, values_path, key in snakemake.params.sections:
    values = load_values(values_path)
    result_path = getattr(snakemake.input, key) if key else None
    if result_path is None:
        sections.append(f"## {values['paper']} {values['table']}\n\nNot in this run's config.\n")
        continue
    if kind == "per_passes":
        comparison = compare_per_passes(best_per_passes(pd.read_parquet(result_path)), values)
        best = winners(comparison)
    else:
        comparison = compare_support(pd.read_parquet(result_path), values)
        best = winners(comparison, value="relative gap")
    counts = ", ".join(f"{count} {name}" for name, count in verdict_counts(comparison).items())
    sections.append(f"## {values['paper']} {values['table']}\n\nCells: {counts}.\n\n"
                    f"Best algorithm per problem (lowest value; the papers' conclusions):\n\n{to_markdown(best)}\n"
                    f"Cell by cell:\n\n{to_markdown(display(comparison))}")
    logging.info("%s: %s", values["paper"], counts)
write_text("\n".join(sections), snakemake.output[0])
