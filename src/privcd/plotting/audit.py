"""The audit figure: each variant's lower bound on epsilon against its claim, beside y = x."""
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from privcd.plotting.styles import figure_styles  # noqa: E402

# Panels by family: coordinate methods (primal, one coordinate or block a step) and the others.
PANELS = (("coordinate methods", ("dp-cd", "dp-gcd", "dp-skgd")),
          ("DP-SGD and dual methods", ("dp-sgd", "dp-scd", "seqdp-scd")))
LEGEND_FREE_HEIGHT = 3.6  # inches of the figure besides its legends (title, panels, axis labels)
LEGEND_ROW_HEIGHT = 0.2  # inches per legend entry (fontsize 7), so the legends never cover the axes


def audit_figure(table, *, title):
    """Two panels (:data:`PANELS`) of ``epsilon_lower`` against the target epsilon (log scale; the
    achieved epsilon, the claim, is at most the target), one line per variant, the line y = x (a
    point above it is a privacy violation; drawn over the claims' range widened by 1.5 on each
    side, so it shows with one claim too), unsound variants dashed with open markers, legends below
    the panels (the figure grows with the longer legend). An infinite
    bound (the floating-point attack's) is drawn at the top edge and named in the legend."""
    styles = figure_styles(table["variant"], dict(zip(table["variant"], table["algorithm"])))
    entries = max(table.loc[table["algorithm"].isin(families), "variant"].nunique() for _, families in PANELS)
    figure, axes = plt.subplots(1, len(PANELS), figsize=(11, LEGEND_FREE_HEIGHT + LEGEND_ROW_HEIGHT * (entries + 1)),
                                sharey=True)
    finite = np.isfinite(table["epsilon_lower"])
    top = max(table["epsilon"].max(), table.loc[finite, "epsilon_lower"].max()) * 1.05
    claims = sorted(table["target_epsilon"].unique())
    diagonal = np.geomspace(claims[0] / 1.5, claims[-1] * 1.5, 50)
    for axis, (name, families) in zip(axes, PANELS):
        axis.plot(diagonal, diagonal, color="black", linewidth=1, linestyle=":", label="y = x (the claim)")
        for variant, rows in table[table["algorithm"].isin(families)].groupby("variant", sort=False):
            rows = rows.sort_values("target_epsilon")
            style = styles[variant]
            sound = bool(rows["sound"].iloc[0])
            infinite = ~np.isfinite(rows["epsilon_lower"])
            axis.plot(rows["target_epsilon"], rows["epsilon_lower"].where(~infinite, top), color=style.color,
                      marker=style.marker, linestyle="-" if sound else "--", clip_on=False,
                      markerfacecolor=style.color if sound else "none",
                      label=rows["label"].iloc[0] + ("" if sound else " (unsound)")
                      + (" (infinite, at the top)" if infinite.any() else ""))
        axis.set_xscale("log", base=2)
        axis.set_xticks(claims, [f"{claim:g}" for claim in claims])
        axis.set_xlim(diagonal[0], diagonal[-1])
        axis.set_ylim(0, top)
        axis.set_xlabel("claimed epsilon")
        axis.set_title(name)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)  # below: the curves stay clear
    axes[0].set_ylabel("audited lower bound on epsilon (95%)")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure
