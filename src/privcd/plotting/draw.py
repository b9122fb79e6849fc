"""Drawing with matplotlib (Agg): convergence figures saved as PDF and PNG."""
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after selecting the non-interactive backend)

# Relative errors at or below this are drawn at it: the log axis cannot show 0 and the optimum
# is certified only to a relative duality gap of about 1e-9 (privcd.optimum.DEFAULT_TOL).
LOG_FLOOR = 1e-10
PANEL_TITLE_WIDTH = 40  # characters of a panel title's line: longer titles wrap inside the panel


def set_panel_title(axis, text, **options):
    """``axis.set_title(text)`` wrapped at :data:`PANEL_TITLE_WIDTH` characters (a substituted
    dataset's label, "dorothea [dorothea-valid instead of dorothea]", overran its neighbour)."""
    axis.set_title(textwrap.fill(text, PANEL_TITLE_WIDTH), **options)


def convergence_figure(curves, *, x="passes", title=None, titles=None):
    """One panel per problem of ``curves``: mean relative error against ``x``, min-max band, log y.

    Parameters
    ----------
    curves : pandas.DataFrame
        Output of :func:`privcd.plotting.convergence_curves`.
    x : {"passes", "seconds"}
        Horizontal axis: passes on the data (the papers' main figures) or running time (dp-cd
        Figure 3, dp-gcd Figure 4).
    title : str, optional
    titles : dict, optional
        Problem name -> panel title (e.g. naming a substitute dataset); default the name.

    Returns
    -------
    matplotlib.figure.Figure
    """
    problems = list(dict.fromkeys(curves["problem"]))
    columns = min(3, max(1, len(problems)))
    rows = -(-len(problems) // columns) if problems else 1
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    for axis, problem in zip(axes.flat, problems):
        for label, curve in curves[curves["problem"] == problem].groupby("label", sort=True):
            curve = curve.sort_values("checkpoint")
            line, = axis.plot(curve[x], curve["mean"].clip(lower=LOG_FLOOR), label=label)
            axis.fill_between(curve[x], curve["min"].clip(lower=LOG_FLOOR),
                              curve["max"].clip(lower=LOG_FLOOR), color=line.get_color(), alpha=0.25)
        axis.set_yscale("log")
        set_panel_title(axis, (titles or {}).get(problem, problem))
        axis.set_xlabel("passes on the data" if x == "passes" else "seconds")
        axis.set_ylabel("relative error (F - F*) / F*")
        axis.legend(fontsize="small")
    for axis in list(axes.flat)[len(problems):]:
        axis.set_visible(False)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def save(figure, pdf_path, png_path, *, dpi=150):
    """Save ``figure`` as PDF and PNG (parent directories created) and close it."""
    for path in (pdf_path, png_path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(pdf_path)
    figure.savefig(png_path, dpi=dpi)
    plt.close(figure)
