"""Rule data_notes: one Markdown page on the datasets used, and on those skipped or substituted."""
import json
import logging

from privcd.results import write_text
from privcd.results.joblog import log_to

log_to(snakemake.log[0])
lines = ["# Datasets", "", "| dataset | preprocessing | source | shape | parts | origin | note |",
         "| --- | --- | --- | --- | --- | --- | --- |"]
for path in snakemake.input:
    with open(path) as handle:
        meta = json.load(handle)
    cells = [meta["name"], meta["preprocessing"], meta["source"], " x ".join(map(str, meta["shape"])),
             ", ".join(f"{k} {v}" for k, v in meta["parts"].items()), meta["origin"], meta["note"]]
    lines.append("| " + " | ".join(str(cell).replace("|", "\\|").replace("\n", " ") for cell in cells) + " |")
lines += ["", "## Skipped or substituted", ""] + [f"- {note}" for note in snakemake.params.notes or ["none"]]
write_text("\n".join(lines) + "\n", snakemake.output[0])
logging.info("%d datasets, %d notes", len(snakemake.input), len(snakemake.params.notes))
