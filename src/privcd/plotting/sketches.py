"""Plot data of the dp-skgd comparison of sketch distributions (the paper has no experiments).

Each algorithm entry of the dp-skgd config is one sketch of dp-skgd Algorithm 1 (a single uniform
coordinate, which is DP-CD; tau-nice blocks; independent coordinates with probabilities
proportional to M_j; the full set). :func:`sketch_points` gives, per problem and entry, the
relative error (F - F*) / F* at the last checkpoint of the final runs of the selected
configuration (mean, min and max over runs, as the convergence figures), with the sketch's
label, its expected block size and the selected hyperparameters: the cells of the table and the
points of the figure.
"""
import json

import numpy as np
import pandas as pd

from privcd.results.analysis import final_checkpoints
from privcd.results.table import check_columns

SKETCH_COLUMNS = ("problem", "algorithm", "sketch", "block", "passes", "step", "clip",
                  "mean", "min", "max", "runs")


def sketch_label(params):
    """``(label, expected block size)`` of a configuration's sketch (``params``: a dict).

    The block size is ``"p"`` for the full sketch (all coordinates), else a number: 1 for a single
    coordinate (``"uniform"`` and DP-CD), tau for tau-nice and for importance sampling (its
    expected size).
    """
    sketch = params.get("sketch", "uniform")
    tau = params.get("tau")
    if sketch == "uniform":
        return "uniform (1 coordinate)", "1"
    if sketch == "tau-nice":
        return f"tau-nice, tau={tau}", str(tau)
    if sketch == "importance":
        source = params.get("probabilities")
        weights = "p_j ~ M_j" if source == "smoothness" else "given p_j"
        return f"importance ({weights}), E|S|={tau}", str(tau)
    if sketch == "full":
        return "full (all coordinates)", "p"
    raise ValueError(f"sketch={sketch!r} is not a sketch of dp-skgd; expected uniform, tau-nice, importance or full")


def sketch_points(final):
    """One row per (problem, entry): columns :data:`SKETCH_COLUMNS`, sorted by problem then mean error."""
    check_columns(final, ("problem", "algorithm", "params", "param_passes", "param_step", "param_clip",
                          "metric_relative_error"))
    last = final_checkpoints(final)
    rows = []
    for (problem, algorithm, params), runs in last.groupby(["problem", "algorithm", "params"], sort=True):
        label, block = sketch_label(json.loads(params))
        errors = runs["metric_relative_error"].to_numpy(dtype=float)
        rows.append((problem, algorithm, label, block, float(runs["param_passes"].iloc[0]),
                     float(runs["param_step"].iloc[0]), float(runs["param_clip"].iloc[0]),
                     float(np.mean(errors)), float(np.min(errors)), float(np.max(errors)), len(errors)))
    points = pd.DataFrame(rows, columns=list(SKETCH_COLUMNS))
    return points.sort_values(["problem", "mean"], kind="stable").reset_index(drop=True)


def sketch_table(points, titles=None):
    """The table: one row per (problem, entry), relative error ``mean [min, max]`` and the selection."""
    titles = titles or {}
    return pd.DataFrame({
        "problem": points["problem"].map(lambda name: titles.get(name, name)),
        "entry": points["algorithm"], "sketch": points["sketch"], "E|S|": points["block"],
        "passes": points["passes"].map("{:g}".format), "step": points["step"].map("{:.3g}".format),
        "clip": points["clip"].map("{:.3g}".format),
        "relative error": [f"{mean:.4g} [{low:.3g}, {high:.3g}]"
                           for mean, low, high in zip(points["mean"], points["min"], points["max"])],
        "runs": points["runs"]})
