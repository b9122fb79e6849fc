"""Plot data, separate from drawing (benchopt ``plotting/base.py``): testable without matplotlib.

:func:`convergence_curves` reduces aggregated runs to what a figure shows: per curve (problem,
algorithm and any selection group) and checkpoint, the min, mean and max of the relative error over
the runs (the papers' min/mean/max bands, dp-cd Figure 1, dp-gcd Figure 1). :func:`final_errors`
gives the cells of the papers' tables.
"""
from privcd.results.table import check_columns

CURVE_COLUMNS = ("paper", "problem", "algorithm", "label", "checkpoint", "passes", "seconds",
                 "min", "mean", "max", "runs")


def convergence_curves(frame, by=()):
    """Min/mean/max relative error over repetitions, per curve and checkpoint.

    Parameters
    ----------
    frame : pandas.DataFrame
        Aggregated runs (columns of :data:`privcd.results.AGGREGATED_COLUMNS`), e.g. the final runs.
    by : sequence of str
        Parameters (``"epsilon"``, ``"passes"``, ``"step"``, ``"clip"``; columns ``param_<name>``)
        that split an algorithm into several curves, shown in the label as ``name=value``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CURVE_COLUMNS`; ``passes`` and ``seconds`` are averaged over the runs (they
        agree up to timing noise); rows sorted by curve then checkpoint.
    """
    frame = _labelled(frame, by)
    grouped = frame.groupby(["paper", "problem", "algorithm", "label", "checkpoint"], sort=True)
    curves = grouped["metric_relative_error"].agg(["min", "mean", "max"])
    curves["runs"] = grouped.size()
    curves["passes"] = grouped["passes"].mean()
    curves["seconds"] = grouped["seconds"].mean()
    return curves.reset_index()[list(CURVE_COLUMNS)]


def final_errors(frame, by=()):
    """Mean and standard deviation over runs of the relative error at each run's last checkpoint.

    The cells of the papers' tables (dp-cd Table 2 writes them "0.1458 +- 6e-04").

    Returns
    -------
    pandas.DataFrame
        Columns paper, problem, algorithm, the ``param_<name>`` of ``by``, mean, std (0 for a single
        run), runs; one row per (paper, problem, algorithm, group).
    """
    frame = _labelled(frame, by)
    runs = ["paper", "problem", "algorithm", "configuration", "stage", "repetition"]
    last = frame[frame["checkpoint"] == frame.groupby(runs)["checkpoint"].transform("max")]
    keys = ["paper", "problem", "algorithm"] + [f"param_{name}" for name in by]
    table = (last.groupby(keys, sort=True)["metric_relative_error"]
             .agg(mean="mean", std="std", runs="size").reset_index())
    table["std"] = table["std"].fillna(0.0)
    return table


def _labelled(frame, by):
    """``frame`` with a ``label`` column: the algorithm, then ``name=value`` for each of ``by``."""
    columns = tuple(f"param_{name}" for name in by)
    check_columns(frame, ("paper", "problem", "algorithm", "configuration", "stage", "repetition",
                          "checkpoint", "passes", "seconds", "metric_relative_error") + columns)
    labels = frame["algorithm"].astype(str)
    for name, column in zip(by, columns):
        labels = labels + f", {name}=" + frame[column].map("{:g}".format)
    return frame.assign(label=labels)
