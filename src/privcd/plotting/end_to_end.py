"""The end-to-end figure and table: relative error against the total epsilon, per problem, algorithm and protocol."""
import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from privcd.algorithms import get_algorithm  # noqa: E402
from privcd.plotting.styles import figure_styles  # noqa: E402

# Each algorithm keeps its colour of every other figure (privcd.plotting.styles); the protocol
# (privcd.tuning.end_to_end.PROTOCOLS) sets the line style and the marker.
PROTOCOL_LINES = {"papers": ("o", "--", "papers' protocol (tuning not counted)"),
                  "private": ("s", "-", "private tuning (counted)"),
                  "defaults": ("^", ":", "data-independent defaults")}


def end_to_end_figure(table, *, titles, title):
    """One panel per problem: mean relative error (log) against epsilon (log), min-max band, one
    colour per algorithm and one line style per protocol."""
    problems = list(dict.fromkeys(table["problem"]))
    algorithms = list(dict.fromkeys(table["algorithm"]))
    colours = {algorithm: style.color for algorithm, style in figure_styles(algorithms).items()}
    columns = min(3, len(problems))
    rows = math.ceil(len(problems) / columns)
    legend_columns = min(3, columns)  # a single panel is too narrow for three labels side by side
    entries = len(table[["algorithm", "protocol"]].drop_duplicates())
    legend_inches = 0.2 * math.ceil(entries / legend_columns) + 0.2
    title_lines = textwrap.wrap(title, width=int(11 * 4.2 * columns))  # about 11 characters an inch
    title_inches = 0.2 * len(title_lines) + 0.1
    height = 3.3 * rows + legend_inches + title_inches
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, height), squeeze=False)
    for axis, problem in zip(axes.flat, problems):
        for algorithm in algorithms:
            for protocol, (marker, linestyle, label) in PROTOCOL_LINES.items():
                rows_ = table[(table["problem"] == problem) & (table["algorithm"] == algorithm)
                              & (table["protocol"] == protocol)].sort_values("epsilon")
                if rows_.empty:
                    continue
                axis.plot(rows_["epsilon"], rows_["error_mean"], color=colours[algorithm], marker=marker,
                          linestyle=linestyle, markersize=4, label=f"{get_algorithm(algorithm).DISPLAY}, {label}")
                axis.fill_between(rows_["epsilon"], rows_["error_min"], rows_["error_max"], color=colours[algorithm],
                                  alpha=0.08)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(titles.get(problem, problem), fontsize=9)
        axis.set_xlabel("total epsilon")
        axis.set_ylabel("relative error (F - F*) / F*")
        axis.grid(alpha=0.3)
    for axis in list(axes.flat)[len(problems):]:
        axis.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=legend_columns, fontsize=8)
    figure.suptitle("\n".join(title_lines), fontsize=10)
    figure.tight_layout(rect=(0, legend_inches / height, 1, 1 - title_inches / height))
    return figure


def end_to_end_table(table, *, titles):
    """Rows (problem, algorithm, protocol), one column per epsilon: mean relative error [min, max]."""
    cells = table.assign(problem=table["problem"].map(lambda key: titles.get(key, key)),
                         algorithm=table["algorithm"].map(lambda name: get_algorithm(name).DISPLAY),
                         cell=[f"{m:.3g} [{lo:.3g}, {hi:.3g}]" for m, lo, hi in
                               zip(table["error_mean"], table["error_min"], table["error_max"])])
    pivot = cells.pivot_table(index=["problem", "algorithm", "protocol"], columns="epsilon", values="cell", aggfunc="first",
                              sort=False)
    pivot.columns = [f"eps {epsilon:g}" for epsilon in pivot.columns]
    return pd.DataFrame(pivot).reset_index()
