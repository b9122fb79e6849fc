"""Results per number of passes (dp-cd Appendix G: Table 2 errors, Table 3 running times).

Table 2: for each problem, algorithm and number of passes, the configuration with the lowest mean
final objective over its tuning runs (step size and clipping tuned, :func:`select_best`), its
relative error at the last checkpoint summarised by mean and standard deviation over the runs
(:func:`best_per_passes`). Table 3: the same configurations run again, each timed alone
(:mod:`privcd.tuning.timing`), their seconds summarised the same way (:func:`mean_times`).
"""
from privcd.results.analysis import final_checkpoints, select_best
from privcd.results.table import check_columns

KEYS = ["paper", "problem", "algorithm", "param_passes"]


def best_per_passes(tuning):
    """Mean and std over runs of the relative error of the best configuration of each number of passes.

    Parameters
    ----------
    tuning : pandas.DataFrame
        Aggregated tuning runs (``results/aggregate/<paper>/tuning.parquet``).

    Returns
    -------
    pandas.DataFrame
        Columns paper, problem, algorithm, param_passes, mean, std (0 for one run), runs: the input
        of :func:`privcd.plotting.error_table` with ``by=("passes",)``.
    """
    check_columns(tuning, ("paper", "problem", "algorithm", "configuration", "param_passes", "metric_relative_error"))
    best = select_best(tuning, by=["param_passes"])[["paper", "problem", "algorithm", "configuration"]]
    runs = final_checkpoints(tuning).merge(best, on=["paper", "problem", "algorithm", "configuration"])
    return _summary(runs, "metric_relative_error")


def mean_times(timing):
    """Mean and std over runs of ``seconds`` per (paper, problem, algorithm, passes) of the timed runs
    (``results/aggregate/<paper>/timing.parquet``, :data:`privcd.tuning.timing.TIMING_COLUMNS`);
    columns as :func:`best_per_passes`."""
    check_columns(timing, (*KEYS, "seconds"))
    return _summary(timing, "seconds")


def _summary(runs, value):
    table = runs.groupby(KEYS, sort=False)[value].agg(mean="mean", std="std", runs="size").reset_index()
    table["std"] = table["std"].fillna(0.0)
    return table
