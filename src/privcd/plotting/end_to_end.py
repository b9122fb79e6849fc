"""The end-to-end figure and table: relative error against the total epsilon, per problem and protocol."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from privcd.plotting.styles import FALLBACK_COLORS  # noqa: E402

# One style per protocol (privcd.tuning.end_to_end.PROTOCOLS), in colours no algorithm family uses
# (privcd.plotting.styles.FALLBACK_COLORS): the figure shows one algorithm under three protocols.
PROTOCOL_STYLES = {"papers": (FALLBACK_COLORS[0], "o", "--", "papers' protocol (tuning not counted)"),
                   "private": (FALLBACK_COLORS[4], "s", "-", "private tuning (counted)"),
                   "defaults": (FALLBACK_COLORS[3], "^", "-.", "data-independent defaults")}


def end_to_end_figure(table, *, titles, title):
    """One panel per problem: mean relative error (log) against epsilon (log), min-max band."""
    problems = list(dict.fromkeys(table["problem"]))
    columns = min(3, len(problems))
    rows = math.ceil(len(problems) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.3 * rows), squeeze=False)
    for axis, problem in zip(axes.flat, problems):
        for protocol, (color, marker, linestyle, label) in PROTOCOL_STYLES.items():
            rows_ = table[(table["problem"] == problem) & (table["protocol"] == protocol)].sort_values("epsilon")
            if rows_.empty:
                continue
            axis.plot(rows_["epsilon"], rows_["error_mean"], color=color, marker=marker, linestyle=linestyle,
                      label=label)
            axis.fill_between(rows_["epsilon"], rows_["error_min"], rows_["error_max"], color=color, alpha=0.15)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(titles.get(problem, problem), fontsize=9)
        axis.set_xlabel("total epsilon")
        axis.set_ylabel("relative error (F - F*) / F*")
        axis.grid(alpha=0.3)
    for axis in list(axes.flat)[len(problems):]:
        axis.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout(rect=(0, 0.05, 1, 0.97))
    return figure


def end_to_end_table(table, *, titles):
    """Rows (problem, protocol), one column per epsilon: mean relative error [min, max]."""
    cells = table.assign(problem=table["problem"].map(lambda key: titles.get(key, key)),
                         cell=[f"{m:.3g} [{lo:.3g}, {hi:.3g}]" for m, lo, hi in
                               zip(table["error_mean"], table["error_min"], table["error_max"])])
    pivot = cells.pivot_table(index=["problem", "protocol"], columns="epsilon", values="cell", aggfunc="first",
                              sort=False)
    pivot.columns = [f"eps {epsilon:g}" for epsilon in pivot.columns]
    return pd.DataFrame(pivot).reset_index()
