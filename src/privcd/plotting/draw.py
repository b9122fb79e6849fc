"""Drawing with matplotlib (Agg): convergence figures saved as PDF and PNG."""
import re
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after selecting the non-interactive backend)

import pandas as pd  # noqa: E402

from privcd.plotting.styles import figure_styles, group_styles  # noqa: E402

# Relative errors at or below this are drawn at it: the log axis cannot show 0 and the optimum
# is certified only to a relative duality gap of about 1e-9 (privcd.optimum.DEFAULT_TOL).
LOG_FLOOR = 1e-10
GROUP_PART = re.compile(r"[A-Za-z_]+=\S+")  # "epsilon=0.1" at the end of a label: a curve's group
PANEL_TITLE_WIDTH = 40  # characters of a panel title's line: longer titles wrap inside the panel
FIGURE_TITLE_WIDTH = 45  # characters of a figure title's line per column of 4.2-inch panels


def set_panel_title(axis, text, **options):
    """``axis.set_title(text)`` wrapped at :data:`PANEL_TITLE_WIDTH` characters (a substituted
    dataset's label, "dorothea [dorothea-valid instead of dorothea]", overran its neighbour)."""
    axis.set_title(textwrap.fill(text, PANEL_TITLE_WIDTH), **options)


def set_figure_title(figure, text, columns):
    """``figure.suptitle(text)`` wrapped at :data:`FIGURE_TITLE_WIDTH` characters a column of
    panels (4.2 inches each): a long title no longer runs off the figure's edges."""
    figure.suptitle(textwrap.fill(text, FIGURE_TITLE_WIDTH * columns))


def convergence_figure(curves, *, x="passes", title=None, titles=None):
    """One panel per problem of ``curves`` (per problem and group, see below): mean relative error
    against ``x``, min-max band, log y.

    Each algorithm entry (column ``algorithm``) has its colour and marker of
    :func:`privcd.plotting.styles.figure_styles` in every panel. Curves split by a parameter (labels
    ``"dp-scd, epsilon=0.1"``, ``by`` of :func:`~privcd.plotting.convergence_curves`, dp-scd's
    ``select_by: [epsilon]``) get one panel per (problem, value), the non-private references
    (``epsilon=inf``) drawn in every panel of their problem, as dp-scd Figure 2 (24 curves in one
    panel could not be read). One legend for the whole figure, below the panels, so that it covers
    neither curves nor titles.

    Parameters
    ----------
    curves : pandas.DataFrame
        Output of :func:`privcd.plotting.convergence_curves` (``label``: the legend's text).
    x : {"passes", "seconds"}
        Horizontal axis: passes on the data (the papers' main figures) or running time (dp-cd
        Figure 3, dp-gcd Figure 4), on a log scale: the algorithms' times differ by orders of
        magnitude, and a linear axis squeezed the fastest into its first 2% (the start, at 0 s,
        is not drawn).
    title : str, optional
    titles : dict, optional
        Problem name -> panel title (e.g. naming a substitute dataset); default the name.

    Returns
    -------
    matplotlib.figure.Figure
    """
    groups = curve_groups(curves)
    curves = curves.assign(group=groups, reference=groups.map(_is_reference))
    split = curves.loc[~curves["reference"], "group"].nunique() > 1
    panels = [(problem, group) for problem in dict.fromkeys(curves["problem"])
              for group in sorted(set(curves.loc[(curves["problem"] == problem) & ~curves["reference"], "group"])
                                  or {""}, key=_group_key)]
    if not split:
        panels = [(problem, None) for problem, _ in panels]
    per_problem = max([sum(key[0] == problem for key in panels) for problem, _ in panels] or [1])
    columns = min(4, per_problem) if split else min(3, max(1, len(panels)))  # split: a row per problem
    rows = -(-len(panels) // columns) if panels else 1
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    styles = figure_styles(curves["algorithm"]) if split else curve_styles(curves)
    for axis, (problem, group) in zip(axes.flat, panels):
        shown = curves[curves["problem"] == problem]
        if split:  # this group's curves and the references (epsilon=inf), named without the group
            shown = shown[(shown["group"] == group) | shown["reference"]]
        for (algorithm, label), curve in shown.groupby(["algorithm", "label"], sort=True):
            curve = curve.sort_values("checkpoint")
            style = styles[algorithm] if split else styles[label]
            group_of = curve["group"].iloc[0]
            name = label[:-len(group_of) - 2] if split and group_of else label  # the panel's title has the group
            axis.plot(curve[x], curve["mean"].clip(lower=LOG_FLOOR), label=name, **style.line(len(curve)))
            axis.fill_between(curve[x], curve["min"].clip(lower=LOG_FLOOR),
                              curve["max"].clip(lower=LOG_FLOOR), color=style.color, alpha=0.2, linewidth=0)
        axis.set_yscale("log")
        panel_title = (titles or {}).get(problem, problem)
        set_panel_title(axis, f"{panel_title}, {group}" if split and group else panel_title)
        axis.set_xlabel("passes on the data" if x == "passes" else "seconds (log scale)")
        if x == "seconds":
            axis.set_xscale("log")
        axis.set_ylabel("relative error (F - F*) / F*")
    for axis in list(axes.flat)[len(panels):]:
        axis.set_visible(False)
    if title:
        set_figure_title(figure, title, columns)
    bottom = legend_below(figure, axes.flat)
    figure.tight_layout(rect=(0, bottom, 1, 1))
    return figure


def curve_groups(curves):
    """The ``name=value`` parts that end each curve's label, joined (``"epsilon=0.1"`` of
    ``"dp-scd, epsilon=0.1"`` or of ``"DP-SCD (sound: all duals noised, PLD), epsilon=0.1"``:
    :func:`privcd.plotting.convergence_curves` with ``by``), ``""`` for a label without any."""
    groups = []
    for label in curves["label"]:
        parts = label.split(", ")
        count = 0
        while count < len(parts) - 1 and GROUP_PART.fullmatch(parts[-1 - count]):
            count += 1
        groups.append(", ".join(parts[len(parts) - count:]))
    return pd.Series(groups, index=curves.index, dtype=object)


def _is_reference(group):
    """A group whose every value is infinite (``epsilon=inf``: a non-private reference run)."""
    values = [part.partition("=")[2] for part in group.split(", ")] if group else []
    return bool(values) and all(value == "inf" for value in values)


def _group_key(group):
    """Sort groups by their values as numbers (``epsilon=2`` before ``epsilon=10``)."""
    key = []
    for part in group.split(", "):
        name, _, value = part.partition("=")
        try:
            key.append((name, float(value), ""))
        except ValueError:
            key.append((name, float("inf"), value))
    return tuple(key)


def curve_styles(curves):
    """``{label: Style}`` of the curves of a :func:`convergence_figure`: the entry's style
    (column ``algorithm``), one line style per label when an entry has several labels."""
    pairs = curves[["algorithm", "label"]].drop_duplicates()
    entries = figure_styles(pairs["algorithm"])
    styles = {}
    for algorithm, labels in pairs.groupby("algorithm", sort=True)["label"]:
        if labels.nunique() == 1:
            styles[labels.iloc[0]] = entries[algorithm]
        else:
            styles.update(group_styles(entries[algorithm], labels))
    return styles


def legend_below(figure, axes, *, reserve=0.0, max_columns=4):
    """One legend for ``figure`` below its panels: every label of ``axes`` once (first seen first).

    The figure grows by the legend's height so the panels keep their size; ``reserve`` inches are
    left free under the legend (a footnote). Returns the fraction of the figure's height under the
    panels, the bottom of ``tight_layout``'s ``rect``.
    """
    shown = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            shown.setdefault(label, handle)
    if not shown:
        return reserve / figure.get_figheight()
    longest = max(len(label) for label in shown)
    fits = int(figure.get_figwidth() / (0.075 * longest + 0.6))  # small font: about 0.075 inch a character
    ncol = max(1, min(len(shown), max_columns, fits))
    legend_height = 0.22 * -(-len(shown) // ncol) + 0.1
    height = figure.get_figheight() + legend_height
    figure.set_figheight(height)
    figure.legend(list(shown.values()), list(shown), loc="lower center", ncol=ncol, fontsize="small",
                  bbox_to_anchor=(0.5, reserve / height), frameon=False)
    return (legend_height + reserve) / height


def save(figure, pdf_path, png_path, *, dpi=150):
    """Save ``figure`` as PDF and PNG (parent directories created) and close it."""
    for path in (pdf_path, png_path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(pdf_path)
    figure.savefig(png_path, dpi=dpi)
    plt.close(figure)
