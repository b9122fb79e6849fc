"""Rule figure: relative error against passes (or seconds), min/mean/max over the final runs."""
import logging

import pandas as pd

from privcd.plotting import convergence_curves, convergence_figure, save

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
curves = convergence_curves(pd.read_parquet(snakemake.input[0]), by=snakemake.params.label_by)
figure = convergence_figure(curves, x=snakemake.wildcards.x, title=snakemake.params.title)
save(figure, snakemake.output.pdf, snakemake.output.png)
logging.info("%d curves, %d points", curves.groupby(["problem", "label"]).ngroups, len(curves))
