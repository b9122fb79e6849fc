"""Plot data of dp-scd's figures (Section 5), from tidy results: testable without matplotlib.

* :func:`tradeoff_points` -- Figure 1 (privacy-utility trade-off) and its table: per problem,
  algorithm and epsilon, the median over the final runs of the test utility (accuracy or MSE,
  :mod:`privcd.results.utility`) at the last checkpoint (dp-scd "We report the median result
  across 10 different runs"). Entries run at epsilon = inf (non-private SCD, SGD) are the
  reference lines.
* :func:`objective_curves` -- Figure 2: median primal objective F on the training part against
  epochs (passes), per problem, algorithm and epsilon.
* :func:`batch_size_points` -- Figure 3: for DP-SCD, per problem, epsilon and mini-batch size L,
  the configuration with the best mean validation utility over its tuning runs (the other
  hyperparameter, C, tuned as in Section 5.1) and the median of its test utility.
"""
import json

import numpy as np
import pandas as pd

from privcd.results.analysis import final_checkpoints, select_best
from privcd.results.table import check_columns
from privcd.results.utility import selection_score, utility_of

POINT_COLUMNS = ("problem", "algorithm", "epsilon", "metric", "median", "min", "max", "runs")
CURVE_COLUMNS = ("problem", "algorithm", "epsilon", "checkpoint", "passes", "median", "min", "max", "runs")
BATCH_COLUMNS = ("problem", "epsilon", "batch_size", "clip", "metric", "median", "runs")


def tradeoff_points(final, loss_by_problem):
    """Median, min and max over runs of the test utility at the last checkpoint (columns :data:`POINT_COLUMNS`)."""
    last = final_checkpoints(check_columns(final, ("problem", "algorithm", "param_epsilon", "checkpoint")))
    rows = []
    for (problem, algorithm, epsilon), runs in last.groupby(["problem", "algorithm", "param_epsilon"], sort=True):
        metric = utility_of(loss_by_problem[problem])
        values = runs[f"metric_test_{metric}"].to_numpy(dtype=float)
        rows.append((problem, algorithm, float(epsilon), metric, *_summary(values), len(values)))
    return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


def objective_curves(final, epsilons):
    """Median, min and max objective over runs per checkpoint, for ``epsilons`` and epsilon = inf."""
    check_columns(final, ("problem", "algorithm", "param_epsilon", "checkpoint", "passes", "metric_objective"))
    keep = final["param_epsilon"].isin(list(epsilons) + [np.inf])
    grouped = final[keep].groupby(["problem", "algorithm", "param_epsilon", "checkpoint"], sort=True)
    curves = grouped["metric_objective"].agg(median="median", min="min", max="max", runs="size")
    curves["passes"] = grouped["passes"].mean()
    curves = curves.reset_index().rename(columns={"param_epsilon": "epsilon"})
    return curves[list(CURVE_COLUMNS)]


def batch_size_points(tuning, loss_by_problem, algorithm="dp-scd"):
    """Best clip per (problem, epsilon, batch size) by validation utility; its median test utility."""
    check_columns(tuning, ("problem", "algorithm", "params", "param_epsilon", "param_clip"))
    frame = tuning[tuning["algorithm"] == algorithm]
    if frame.empty:
        return pd.DataFrame(columns=list(BATCH_COLUMNS))
    frame = frame.assign(param_batch_size=[float(json.loads(params)["batch_size"]) for params in frame["params"]])
    best = select_best(frame, by=["param_epsilon", "param_batch_size"], score=selection_score(frame, loss_by_problem))
    chosen = final_checkpoints(frame).merge(best[["problem", "configuration", "param_epsilon", "param_batch_size"]])
    rows = []
    for (problem, epsilon, batch_size), runs in chosen.groupby(["problem", "param_epsilon", "param_batch_size"], sort=True):
        metric = utility_of(loss_by_problem[problem])
        values = runs[f"metric_test_{metric}"].to_numpy(dtype=float)
        rows.append((problem, float(epsilon), int(batch_size), float(runs["param_clip"].iloc[0]), metric,
                     float(np.median(values)), len(values)))
    return pd.DataFrame(rows, columns=list(BATCH_COLUMNS))


def figure_epsilons(requested, available):
    """The finite epsilons of ``requested`` (Figure 2: 0.1 and 1) that ran, else every finite one that ran."""
    available = sorted(value for value in set(available) if np.isfinite(value))
    chosen = [value for value in requested if value in available]
    return chosen or available


def tradeoff_table(points, titles=None, names=None):
    """Figure 1's numbers: rows (problem, algorithm), one column per epsilon, cells ``median [min, max]``.

    ``titles`` maps problem names to titles, ``names`` algorithm entries to the paper's names.
    """
    titles, names = titles or {}, names or {}
    cells = points.assign(
        problem=points["problem"].map(lambda name: titles.get(name, name)),
        algorithm=points["algorithm"].map(lambda name: names.get(name, name)),
        column=points["epsilon"].map(lambda value: "non-private" if np.isinf(value) else f"epsilon={value:g}"),
        cell=[f"{median:.4f} [{low:.4f}, {high:.4f}]" for median, low, high in
              zip(points["median"], points["min"], points["max"])])
    order = sorted(cells["column"].unique(), key=lambda column: (column == "non-private", _epsilon_of(column)))
    table = (cells.pivot_table(index=["problem", "metric", "algorithm"], columns="column", values="cell",
                               aggfunc="first", sort=False)
             .reindex(columns=order).fillna(""))
    table.columns.name = None
    return table.reset_index()


def _epsilon_of(column):
    return float(column.split("=")[1]) if "=" in column else np.inf


def _summary(values):
    return float(np.median(values)), float(np.min(values)), float(np.max(values))
