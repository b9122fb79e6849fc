"""dp-cd Table 2 beside our numbers: a table of ratios and a figure (one panel per problem).

Our values are :func:`privcd.results.per_passes.best_per_passes` (the best configuration of each
number of passes, mean and standard deviation over its tuning runs); the paper's are the cells of
``config/paper_values/dp-cd.yaml`` (Appendix G.1, Table 2, "mean ± spread" over 5 runs). Each of
our algorithm entries is compared with the paper's row of the algorithm it runs (the ablation of
DP-CD's coordinate order: every entry against the paper's DP-CD).
"""
import math

import numpy as np
import pandas as pd
from matplotlib.ticker import NullLocator

from privcd.plotting.draw import LOG_FLOOR, legend_below, plt, set_figure_title, set_panel_title
from privcd.plotting.styles import figure_styles


def beside_paper_table(best, values, algorithm_of, legend=None):
    """One row per (problem, passes) of the paper: the paper's value of every algorithm it reports,
    then ours of every entry with its ratio to the paper's value of the algorithm the entry runs.

    Parameters
    ----------
    best : pandas.DataFrame
        :func:`~privcd.results.per_passes.best_per_passes` (columns problem, algorithm,
        param_passes, mean, std).
    values : dict
        A paper values file (``columns``: the passes, ``cells``: problem -> algorithm -> [[mean,
        spread], ...]).
    algorithm_of : dict
        Our entry -> the registered algorithm it runs (its row of the paper); entries of an
        algorithm the paper's table does not report (dp-cd Table 2: DP-SCD) are left out.
    legend : dict, optional
        Entry -> display name (the paper's rows are named by their algorithm, ``"paper DP-CD"``).

    Returns
    -------
    pandas.DataFrame
        Columns problem, passes, ``paper <ALGORITHM>`` for each paper algorithm, then for each entry
        ``<name>`` (mean ± std) and ``<name> / paper`` (the ratio, 3 significant digits; undefined where the paper printed 0).
    """
    name = (legend or {}).get
    ours = {(row.problem, row.algorithm, float(row.param_passes)): (row.mean, row.std)
            for row in best.itertuples(index=False)}
    reported = {algorithm for cells in values["cells"].values() for algorithm in cells}
    entries = [entry for entry in algorithm_of
               if algorithm_of[entry] in reported and any(key[1] == entry for key in ours)]
    rows = []
    for problem, cells in values["cells"].items():
        for index, passes in enumerate(values["columns"]):
            row = {"problem": problem, "passes": passes}
            for algorithm, column in cells.items():
                row[f"paper {algorithm.upper()}"] = _cell(*column[index])
            for entry in entries:
                mean, std = ours.get((problem, entry, float(passes)), (math.nan, math.nan))
                paper = cells.get(algorithm_of[entry], [[math.nan, 0.0]] * len(values["columns"]))[index][0]
                row[name(entry, entry)] = _cell(mean, std)
                row[f"{name(entry, entry)} / paper"] = _ratio(mean, paper)
            rows.append(row)
    return pd.DataFrame(rows)


def beside_paper_figure(best, values, *, legend=None, titles=None, title=None):
    """One panel per problem of the paper that ran here: relative error against passes (log-log),
    ours (each entry, mean with ± std bars, in its colour and marker of :mod:`privcd.plotting.styles`)
    and the paper's (each algorithm, dashed, black and grey, with the hollow marker of the algorithm)."""
    problems = [problem for problem in values["cells"] if problem in set(best["problem"])]
    if not problems:
        raise ValueError(f"no result for any problem of {values['paper']} {values['table']} "
                         f"({list(values['cells'])}); results are for {sorted(set(best['problem']))}")
    columns = min(3, len(problems))
    rows = -(-len(problems) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), squeeze=False)
    name = (legend or {}).get
    styles = figure_styles(best["algorithm"])
    paper_styles = iter(("black", "dimgrey", "darkgrey"))
    paper_colour = {algorithm: next(paper_styles) for algorithm in next(iter(values["cells"].values()))}
    paper_marker = {algorithm: style.marker for algorithm, style in figure_styles(paper_colour).items()}
    for axis, problem in zip(axes.flat, problems):
        for algorithm, cells in values["cells"][problem].items():
            means, spreads = np.array(cells, dtype=float).T
            axis.errorbar(values["columns"], np.maximum(means, LOG_FLOOR), yerr=spreads, color=paper_colour[algorithm],
                          linestyle="--", marker=paper_marker[algorithm], markerfacecolor="none", markersize=5, capsize=2,
                          label=f"paper: {algorithm.upper()}")
        for entry, group in best[best["problem"] == problem].groupby("algorithm", sort=True):
            group = group.sort_values("param_passes")
            axis.errorbar(group["param_passes"], np.maximum(group["mean"], LOG_FLOOR), yerr=group["std"],
                          capsize=2, label=name(entry, entry), **styles[entry].line())
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xticks(values["columns"], [str(passes) for passes in values["columns"]])
        axis.xaxis.set_minor_locator(NullLocator())  # the log axis's minor labels overlap the passes
        axis.set_xlabel("passes on the data")
        axis.set_ylabel("relative error (F - F*) / F*")
        set_panel_title(axis, (titles or {}).get(problem, problem))
    for axis in list(axes.flat)[len(problems):]:
        axis.set_visible(False)
    if title:
        set_figure_title(figure, title, columns)
    bottom = legend_below(figure, axes.flat)  # columns that fit the width (6 overflowed one panel)
    figure.tight_layout(rect=(0, bottom, 1, 1))
    return figure


def _ratio(ours, paper):
    """``ours / paper`` to 3 significant digits; empty without both values, and undefined for a paper value of 0."""
    if math.isnan(ours) or math.isnan(paper):
        return ""
    return "undefined: paper 0" if paper == 0 else f"{ours / paper:.3g}"


def _cell(mean, spread):
    return "" if math.isnan(mean) else f"{mean:.4g} ± {spread:.0e}"
