"""dp-gcd Figure 2: histograms of ``|w*_j|`` with the alpha of (alpha, 5)-quasi-sparsity."""

from privcd.plotting.draw import plt, set_figure_title, set_panel_title

ALPHA_COLOR = "purple"  # dp-gcd Figure 2: "Purple line indicates the alpha ..."
BAR_COLOR = "#7f7f7f"  # grey: no algorithm (blue is DP-CD's in every other figure, privcd.plotting.styles)


def histogram_figure(histograms, *, titles=None, title=None):
    """One panel per problem of ``histograms``: bars of the number of coordinates per bin of
    ``|w*_j|`` (grey), logarithmic y axis, a purple vertical line at alpha, whose value the x label
    gives.

    Parameters
    ----------
    histograms : pandas.DataFrame
        :func:`privcd.results.quasi_sparsity.solution_histograms`.
    titles : dict, optional
        Problem -> panel title.
    title : str, optional
    """
    problems = list(dict.fromkeys(histograms["problem"]))
    columns = min(4, max(1, len(problems)))
    rows = -(-len(problems) // columns) if problems else 1
    figure, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 2.9 * rows), squeeze=False)
    for axis, problem in zip(axes.flat, problems):
        bins = histograms[histograms["problem"] == problem]
        axis.bar(bins["left"], bins["count"], width=bins["right"] - bins["left"], align="edge",
                 color=BAR_COLOR, edgecolor="white", linewidth=0.3)
        first = bins.iloc[0]
        alpha = f"α = {first['alpha']:.3g} (τ = {first['tau']})"
        axis.axvline(first["alpha"], color=ALPHA_COLOR, linewidth=1.5, label=alpha)
        axis.set_yscale("log")
        set_panel_title(axis, (titles or {}).get(problem, problem))
        axis.set_xlabel(f"|w*_j|;  purple: {alpha}")  # a legend in the panel covered the line (madelon (L2))
        axis.set_ylabel("number of coordinates")
    for axis in list(axes.flat)[len(problems):]:
        axis.set_visible(False)
    if title:
        set_figure_title(figure, title, columns)
    figure.tight_layout()
    return figure
