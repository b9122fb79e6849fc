"""Best result per number of passes (dp-cd Appendix G: Table 2 errors, Table 3 running times).

For each problem, algorithm and number of passes, the configuration with the lowest mean final
objective over its tuning runs is kept (step size and clipping tuned, :func:`select_best`), and
a value of its runs -- the relative error (Table 2) or the running time (Table 3) at the last
checkpoint -- is summarised by its mean and standard deviation over the runs.
"""
from privcd.results.analysis import final_checkpoints, select_best
from privcd.results.table import check_columns

VALUES = ("metric_relative_error", "seconds")


def best_per_passes(tuning, value="metric_relative_error"):
    """Mean and std over runs of ``value`` for the best configuration of each number of passes.

    Parameters
    ----------
    tuning : pandas.DataFrame
        Aggregated tuning runs (``results/aggregate/<paper>/tuning.parquet``).
    value : {"metric_relative_error", "seconds"}

    Returns
    -------
    pandas.DataFrame
        Columns paper, problem, algorithm, param_passes, mean, std (0 for one run), runs: the input
        of :func:`privcd.plotting.error_table` with ``by=("passes",)``.
    """
    if value not in VALUES:
        raise ValueError(f"value={value!r} is not accepted; expected one of {list(VALUES)}")
    check_columns(tuning, ("paper", "problem", "algorithm", "configuration", "param_passes", value))
    best = select_best(tuning, by=["param_passes"])[["paper", "problem", "algorithm", "configuration"]]
    runs = final_checkpoints(tuning).merge(best, on=["paper", "problem", "algorithm", "configuration"])
    keys = ["paper", "problem", "algorithm", "param_passes"]
    table = runs.groupby(keys, sort=False)[value].agg(mean="mean", std="std", runs="size").reset_index()
    table["std"] = table["std"].fillna(0.0)
    return table
