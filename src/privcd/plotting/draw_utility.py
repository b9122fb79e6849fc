"""Drawing dp-scd's Figures 1-3 (Section 5) from the plot data of :mod:`privcd.plotting.utility`.

Every figure has one panel per problem that ran, and a footnote naming the configured problems
that did not (dataset not in the mirror, e.g. YearPredictionMSD), so a figure built offline says
what it lacks.
"""
import numpy as np

from privcd.plotting.draw import legend_below, plt, set_figure_title, set_panel_title
from privcd.plotting.styles import STYLES, figure_styles

METRIC_LABELS = {"accuracy": "test accuracy", "mse": "test MSE"}
FOOTNOTE_INCHES = 0.3  # room under the legend for the footnote naming the problems that did not run


def display_name(algorithm, names=None):
    """The paper's name of an algorithm entry (``names`` first, else upper case: ``"DP-SCD"``)."""
    return (names or {}).get(algorithm, algorithm.upper())


def tradeoff_figure(points, *, titles=None, names=None, missing=(), title=None):
    """Figure 1: median test utility against epsilon, one line per private algorithm, min-max bars;
    non-private entries (epsilon = inf) as dashed horizontal lines."""
    figure, axes = _panels(list(dict.fromkeys(points["problem"])), titles, missing, title)
    styles = figure_styles(points["algorithm"])
    references = sorted(set(points.loc[np.isinf(points["epsilon"]), "algorithm"]))
    for axis, (problem, rows) in zip(axes, points.groupby("problem", sort=False)):
        for algorithm, line in rows.groupby("algorithm", sort=True):
            label, style = display_name(algorithm, names), styles[algorithm]
            if np.isinf(line["epsilon"]).all():  # a non-private reference: dashes that interleave with the
                # other references' (SCD and SGD often reach the same utility: one line hid the other)
                axis.axhline(line["median"].iloc[0], label=label, color=style.color, linewidth=1.8,
                             linestyle=(6 * references.index(algorithm), (6, 6 * len(references) - 6)))
                continue
            line = line.sort_values("epsilon")
            axis.errorbar(line["epsilon"], line["median"], yerr=[line["median"] - line["min"], line["max"] - line["median"]],
                          capsize=3, label=label, **style.line())
        epsilons = sorted(value for value in rows["epsilon"].unique() if np.isfinite(value))
        axis.set_xscale("log")
        axis.minorticks_off()  # only the epsilons of the grid are labelled
        axis.set_xticks(epsilons, [f"{value:g}" for value in epsilons])
        axis.set_xlabel("epsilon")
        axis.set_ylabel(METRIC_LABELS[rows["metric"].iloc[0]])
    return _finish(figure, axes, missing)


def objective_figure(curves, *, titles=None, names=None, missing=(), title=None):
    """Figure 2: median training objective against epochs; one panel per (problem, epsilon), the
    non-private runs drawn in every panel of their problem."""
    panels = [(problem, epsilon) for problem in dict.fromkeys(curves["problem"])
              for epsilon in sorted(curves.loc[curves["problem"] == problem, "epsilon"].unique()) if np.isfinite(epsilon)]
    labels = {key: f"{(titles or {}).get(key[0], key[0])}, epsilon={key[1]:g}" for key in panels}
    per_problem = max([sum(key[0] == problem for key in panels) for problem, _ in panels] or [1])
    figure, axes = _panels(panels, labels, missing, title, max_columns=min(4, per_problem))  # a row per problem
    styles = figure_styles(curves["algorithm"])
    for axis, (problem, epsilon) in zip(axes, panels):
        rows = curves[(curves["problem"] == problem) & (curves["epsilon"].isin([epsilon, np.inf]))]
        for (algorithm, run_epsilon), curve in rows.groupby(["algorithm", "epsilon"], sort=True):
            curve = curve.sort_values("checkpoint")
            style = styles[algorithm]
            axis.plot(curve["passes"], curve["median"], label=display_name(algorithm, names), **style.line(len(curve)))
            axis.fill_between(curve["passes"], curve["min"], curve["max"], color=style.color, alpha=0.15, linewidth=0)
        axis.set_yscale("log")
        axis.set_xlabel("epochs")
        axis.set_ylabel("objective F (training)")
    return _finish(figure, axes, missing)


def batch_size_figure(points, *, titles=None, missing=(), title=None):
    """Figure 3: DP-SCD's median test utility against the mini-batch size L, one line per epsilon."""
    figure, axes = _panels(list(dict.fromkeys(points["problem"])), titles, missing, title)
    epsilons = sorted(points["epsilon"].unique())
    shades = epsilon_shades(len(epsilons))
    for axis, (problem, rows) in zip(axes, points.groupby("problem", sort=False)):
        for epsilon, line in rows.groupby("epsilon", sort=True):
            line = line.sort_values("batch_size")
            color, marker = shades[epsilons.index(epsilon)]
            axis.plot(line["batch_size"], line["median"], color=color, marker=marker, markersize=5,
                      label=f"DP-SCD, epsilon={epsilon:g}")
        axis.set_xscale("log")
        axis.set_xlabel("mini-batch size L")
        axis.set_ylabel(METRIC_LABELS[rows["metric"].iloc[0]])
    return _finish(figure, axes, missing)


def epsilon_shades(count):
    """``count`` (colour, marker) pairs for the epsilons of DP-SCD's Figure 3, smallest first: DP-SCD's
    red (:data:`privcd.plotting.styles.STYLES`) from light to dark, a different marker each."""
    from matplotlib.colors import LinearSegmentedColormap

    dark = STYLES["dp-scd"].color
    ramp = LinearSegmentedColormap.from_list("dp-scd", ["#fcae91", dark, "#3f0007"])
    markers = ("o", "s", "^", "D", "v", "P", "X", "*")
    return [(ramp(index / max(1, count - 1) if count > 1 else 0.5), markers[index % len(markers)])
            for index in range(count)]


def _panels(keys, titles, missing, title, *, width=4.2, max_columns=3):
    """A figure with one axis per key (titled), a footnote naming the ``missing`` problems."""
    columns = min(max_columns, max(1, len(keys)))
    rows = -(-len(keys) // columns) if keys else 1
    figure, axes = plt.subplots(rows, columns, figsize=(width * columns, 3.4 * rows + 0.6), squeeze=False)
    axes = list(axes.flat)
    for axis, key in zip(axes, keys):
        set_panel_title(axis, (titles or {}).get(key, key), fontsize="medium")
    for axis in axes[len(keys):]:
        axis.set_visible(False)
    if not keys:
        axes[0].set_visible(True)
        axes[0].axis("off")
        axes[0].text(0.5, 0.5, "no problem could run", ha="center", va="center")
    if missing:
        figure.text(0.01, 0.005, "Not shown (dataset not available here): " + ", ".join(missing),
                    fontsize="small", color="darkred", va="bottom")
    if title:
        set_figure_title(figure, title, columns)
    return figure, axes[:len(keys)]


def _finish(figure, axes, missing):
    """The legend of the figure's panels below them (above the footnote, if any), then the layout."""
    bottom = legend_below(figure, axes, reserve=FOOTNOTE_INCHES if missing else 0.0)
    figure.tight_layout(rect=(0, max(bottom, 0.02), 1, 1))
    return figure


def sketch_figure(points, *, titles=None, title=None):
    """dp-skgd: final relative error of every sketch (mean, min-max bar), one panel per problem, log x."""
    figure, axes = _panels(list(dict.fromkeys(points["problem"])), titles, (), title, width=7.5, max_columns=2)
    for axis, (problem, rows) in zip(axes, points.groupby("problem", sort=False)):
        rows = rows.iloc[::-1]  # best at the top
        positions = np.arange(len(rows))
        floor = 1e-10  # as privcd.plotting.draw.LOG_FLOOR: the optimum is certified to ~1e-9
        mean, low, high = (rows[column].clip(lower=floor).to_numpy() for column in ("mean", "min", "max"))
        styles = figure_styles(points["algorithm"])
        for position, entry, value, below, above in zip(positions, rows["algorithm"], mean, mean - low, high - mean):
            style = styles[entry]
            axis.errorbar([value], [position], xerr=[[below], [above]], capsize=3, color=style.color,
                          marker=style.marker, markersize=7, linestyle="none")
        axis.set_yticks(positions, list(rows["sketch"]), fontsize="small")
        axis.set_xscale("log")
        axis.set_xlabel("relative error (F - F*) / F*")
    return _finish(figure, axes, ())
