"""Selection of the best configuration and the relative error, on tidy results tables."""
import json

import numpy as np

from privcd.identity import tie_order_id

from privcd.results.table import GROUP_COLUMNS, check_columns


def final_checkpoints(frame):
    """The last checkpoint of every run (one row per run)."""
    check_columns(frame, ("checkpoint",) + GROUP_COLUMNS)
    runs = ["paper", "problem", "algorithm", "configuration", "stage", "repetition"]
    last = frame.groupby(runs, sort=False)["checkpoint"].transform("max")
    return frame[frame["checkpoint"] == last].reset_index(drop=True)


def select_best(frame, by=(), score=None):
    """The configuration with the lowest mean final objective (or ``score``) over its tuning runs.

    As in the papers (dp-cd Appendix G.1, dp-gcd Section 5): for each paper, problem, algorithm
    (and each value of the parameters ``by``, e.g. ``("param_passes",)`` for dp-cd Table 2),
    average ``metric_objective`` at the last checkpoint over the repetitions of each configuration
    and keep the smallest. A run whose objective is NaN or inf (diverged) counts as ``+inf``, so a
    configuration with a diverged run is never preferred to one without. Ties go to the smallest
    configuration id without the accountant (:func:`privcd.identity.tie_order_id`), then the
    smallest id, so the choice depends neither on row order nor on naming an accountant.

    ``score`` (one value per row of ``frame``, lower is better) replaces the objective as the
    criterion, e.g. :func:`privcd.results.utility.selection_score` (dp-scd Section 5.1: the best
    validation MSE or accuracy); NaN and inf count as ``+inf`` too.

    Returns
    -------
    pandas.DataFrame
        One row per group: the group columns, ``configuration``, ``params``, ``mean_objective``,
        ``mean_score`` (the criterion: equal to ``mean_objective`` without ``score``), ``runs``
        (tuning runs averaged) and ``candidates`` (configurations compared).
    """
    group = list(GROUP_COLUMNS) + list(by)
    frame = frame.assign(_score=frame["metric_objective"] if score is None else np.asarray(score, dtype=float))
    last = final_checkpoints(frame)
    finite = {column: last[column].astype(float) for column in ("metric_objective", "_score")}
    last = last.assign(**{column: values.where(np.isfinite(values), np.inf) for column, values in finite.items()})
    summary = (last.groupby(group + ["configuration", "params"], sort=False)
               .agg(mean_objective=("metric_objective", "mean"), mean_score=("_score", "mean"),
                    runs=("_score", "size")).reset_index())
    summary = summary.assign(_tie=[tie_order_id(json.loads(params)) for params in summary["params"]])
    summary = summary.sort_values(group + ["mean_score", "_tie", "configuration"], kind="stable").drop(columns="_tie")
    candidates = summary.groupby(group, sort=False)["configuration"].transform("size")
    best = summary.assign(candidates=candidates).groupby(group, sort=False).head(1)
    return best.sort_values(group, kind="stable").reset_index(drop=True)


def relative_error(objective, f_star):
    """``(F - F*) / F*``, the papers' relative error to the non-private optimum (dp-cd Section 6).

    ``F*`` must be positive (every loss of privcd is positive, so F* > 0 unless the data are fitted
    exactly); a non-positive ``F*`` raises ``ValueError`` instead of returning meaningless ratios.
    """
    f_star = np.asarray(f_star, dtype=float)
    if np.any(~(f_star > 0)):
        raise ValueError(f"relative error needs F* > 0; got F* = {np.unique(f_star[~(f_star > 0)])}")
    return (np.asarray(objective, dtype=float) - f_star) / f_star


def with_relative_error(frame, optima):
    """``frame`` joined with ``optima`` (columns paper, problem, f_star) and its relative error."""
    check_columns(optima, ("paper", "problem", "f_star"))
    joined = frame.merge(optima[["paper", "problem", "f_star"]], on=["paper", "problem"], how="left",
                         validate="many_to_one")
    if joined["f_star"].isna().any():
        missing = joined.loc[joined["f_star"].isna(), ["paper", "problem"]].drop_duplicates()
        raise ValueError(f"no optimum for {missing.to_dict('records')}")
    return joined.assign(metric_relative_error=relative_error(joined["metric_objective"], joined["f_star"]))
