"""Rule compare: results/compare/papers.md, our numbers beside the papers' tables (ratios ours / paper)."""
import json
from pathlib import Path

import pandas as pd

from privcd.results import write_text
from privcd.results.compare.report import (NOT_IN_CONFIG, SECTIONS, edge_section, heading, hyperparameters_section,
                                           per_passes_selections)
from privcd.results.compare.values import load_values
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
selections = [{**entry, "params": selected["configuration_params"]} for entry in snakemake.params.selections
              for selected in json.loads(Path(entry["path"]).read_text())]
grids = {(entry["paper"], entry["problem"], entry["algorithm"]): entry["grid"] for entry in snakemake.params.selections}
sections, per_passes = [snakemake.params.preamble], []
for kind, values_path, key in snakemake.params.sections:
    values = load_values(values_path)
    if kind == "hyperparameters":
        chosen = [entry for entry in selections if entry["paper"] == values["paper"]]
        sections.append(hyperparameters_section(chosen, values) if chosen else heading(values) + NOT_IN_CONFIG)
    elif key is None:
        sections.append(heading(values) + NOT_IN_CONFIG)
    else:
        result = pd.read_parquet(getattr(snakemake.input, key))
        sections.append(SECTIONS[kind](result, values))
        per_passes += per_passes_selections(result, grids) if kind == "per_passes" else []
sections.append(edge_section(selections, per_passes))
write_text("\n".join(sections), snakemake.output[0])
