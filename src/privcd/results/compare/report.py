"""The Markdown sections of ``results/compare/papers.md``, one per values file, and the section of
tuned values at the edge of their grid."""
import json
import math

from privcd.results.analysis import select_best
from privcd.results.compare.cells import (compare_per_passes, compare_support, display, evidence_line, ratio_counts,
                                          summary_line)
from privcd.results.compare.grids import compare_hyperparameters, edge_table, steps_summary
from privcd.results.compare.times import compare_times
from privcd.results.compare.winners import agreement_line, winners
from privcd.results.per_passes import best_per_passes
from privcd.results.text_tables import to_markdown

NOT_IN_CONFIG = "Not in this run's config.\n"


def heading(values):
    return f"## {values['paper']} {values['table']}\n\n"


def per_passes_section(tuning, values):
    """dp-cd Table 2: counts (table, per algorithm), winners per (problem, passes), each algorithm's
    best number of passes, the cells. ``tuning`` is ``results/aggregate/dp-cd/tuning.parquet``."""
    comparison = compare_per_passes(best_per_passes(tuning), values)
    won = winners(comparison, by=("problem", "passes"))
    passes = winners(comparison, by=("problem", "algorithm"), over="passes")
    return (heading(values) + f"Ratios ours / paper: {summary_line(ratio_counts(comparison))}.\n\n"
            f"By evidence: {evidence_line(comparison)}.\n\n"
            f"Per algorithm:\n\n{to_markdown(ratio_counts(comparison, by=('algorithm',)))}\n"
            f"Lowest error per problem and number of passes: the winner {agreement_line(won, '(problem, passes)')}.\n\n"
            f"{to_markdown(won)}\n"
            f"Best number of passes per problem and algorithm: {agreement_line(passes, '(problem, algorithm)')}.\n\n"
            f"{to_markdown(passes)}\nCell by cell:\n\n{to_markdown(display(comparison))}")


def support_section(recovery, values, gap="relative gap"):
    """dp-gcd Table 3: counts (all rows, per quantity, per algorithm on the gaps), the winner per
    problem on the relative gap, the cells. ``recovery`` is ``support_recovery.parquet``."""
    comparison = compare_support(recovery, values)
    gaps = comparison[comparison["quantity"] == gap]
    won = winners(gaps, by=("problem",))
    return (heading(values) + f"Ratios ours / paper, {gap} rows (where the paper states its floors): "
            f"{summary_line(ratio_counts(gaps))}. All rows: {summary_line(ratio_counts(comparison))}.\n\n"
            f"By evidence, {gap} rows: {evidence_line(gaps)}. All rows: {evidence_line(comparison)}.\n\n"
            f"Per quantity:\n\n{to_markdown(ratio_counts(comparison, by=('quantity',)))}\n"
            f"Per algorithm ({gap} rows):\n\n{to_markdown(ratio_counts(gaps, by=('algorithm',)))}\n"
            f"Lowest {gap} per problem: the winner {agreement_line(won, 'problems')}.\n\n{to_markdown(won)}\n"
            f"Cell by cell:\n\n{to_markdown(display(comparison))}")


def hyperparameters_section(selections, values):
    """dp-gcd Table 4 beside our selected configurations, with the distance in grid steps."""
    comparison = compare_hyperparameters(selections, values)
    names = values["columns"]
    shown = comparison[["problem", "algorithm"]].copy()
    for name in names:
        shown[f"{name} (ours / paper)"] = [
            "not run" if math.isnan(mine) else f"{mine:.3g} / {paper:.3g}"
            for mine, paper in zip(comparison[f"{name} ours"], comparison[f"{name} paper"])]
        shown[f"{name} steps"] = ["" if math.isnan(steps) else f"{steps:+.3g}" for steps in comparison[f"{name} steps"]]
    shown["at edge"] = comparison["at edge"]
    return (heading(values) + "Our selected configuration (results/select/) beside the paper's; steps: ours minus "
            "the paper's in steps of our grid (index difference on the grid, else log10 difference over the "
            f"grid's log step). {steps_summary(comparison, names)}.\n\n{to_markdown(shown)}")


def times_section(timing, values):
    """dp-cd Table 3 as speed ratios (:func:`privcd.results.compare.times.compare_times`)."""
    comparison = compare_times(timing, values)
    top, bottom = values["ratio"]
    shown = comparison[["problem", "passes"]].copy()
    for name in (top, bottom):
        shown[f"{name} s (ours)"] = [_number(value) for value in comparison[f"{name} s"]]
    shown["runs"] = comparison["runs"]
    shown[f"{top} / {bottom} (ours)"] = [_number(value) for value in comparison["ours"]]
    shown[f"{top} / {bottom} (paper)"] = [_number(value) for value in comparison["paper"]]
    shown["ratio"] = [_number(value, "not run") for value in comparison["ratio"]]
    shown["reason"] = comparison["reason"]
    return (heading(values) + f"Time of {top} over time of {bottom} per problem and number of passes (absolute "
            "times on other hardware do not compare; mean over the timed runs), ours beside the paper's; "
            f"ratio = ours / paper: {summary_line(ratio_counts(comparison))}.\n\n{to_markdown(shown)}")


def edge_section(selections, per_passes=()):
    """Tuned step sizes and clipping thresholds at the first or last value of their grid: the
    selected configurations, and dp-cd Table 2's best configuration per number of passes
    (``per_passes``: selections built by :func:`per_passes_selections`)."""
    tables = [edge_table(selections, "results/select"), edge_table(per_passes, "Table 2 (best per passes)")]
    flagged = sum(len(table) for table in tables)
    total = len(selections) + len(per_passes)
    body = "".join(to_markdown(table) + "\n" for table in tables if len(table))
    return ("## Tuned values at the edge of their grid\n\ndp-cd footnote 7: the best step size always lies "
            "strictly inside the interval. Here, step or clip at the first or last value of its grid: "
            f"{flagged} of {total} selected configurations.\n\n{body}")


def per_passes_selections(tuning, grids):
    """dp-cd Table 2's best configuration of each (paper, problem, algorithm, passes) as selections
    (:mod:`privcd.results.compare.grids`); ``grids`` maps (paper, problem, algorithm) to the grid."""
    best = select_best(tuning, by=["param_passes"])
    return [{"paper": row.paper, "problem": row.problem, "algorithm": row.algorithm,
             "params": json.loads(row.params), "grid": grids[(row.paper, row.problem, row.algorithm)]}
            for row in best.itertuples(index=False) if (row.paper, row.problem, row.algorithm) in grids]


def _number(value, missing=""):
    """``value`` to 3 significant digits, ``missing`` for NaN."""
    return missing if math.isnan(value) else f"{value:.3g}"


SECTIONS = {"per_passes": per_passes_section, "support": support_section, "times": times_section}
