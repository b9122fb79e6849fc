"""One colour, marker and line style per algorithm entry, the same in every figure of every paper.

dp-cd's figures draw DP-CD blue with round marks, DP-CD-P green with + marks, DP-SGD orange with
triangles and DP-SCD red (captions of dp-cd Figures 1 and 3); every figure of privcd does the same
whatever the order in which its data list the entries (matplotlib's colour cycle gave the colours in
the order the labels sorted, so DP-SGD was green in one panel and orange in the next).

Entries of one family (a registered algorithm and its config variants) share a hue and differ by
shade, marker and line style: DP-CD's blues (``dp-cd``, ``dp-cd-permutation``, ``dp-cd-cyclic``;
``dp-cd-p`` is green as the paper draws it), DP-GCD's purples (its greedy rules), DP-SCD's reds,
DP-SkGD's browns and pink (its sketches); SEQDP-SCD is cyan. Non-private references (``scd``,
``sgd``) take a light shade of their private algorithm's hue and a broken line. Colours are
matplotlib's ``tab10`` and shades of it; hues that colour-blind readers confuse (DP-CD-P's green
and DP-SCD's red, in dp-cd Figure 1) always come with different markers and line styles.

An entry not in :data:`STYLES` gets, deterministically from the set of entries of the figure (never
from a hash or from the order of the data), the hue of the registered algorithm it runs
(``algorithm_of``, else the longest registered name it starts with: ``dp-skgd-tau-8`` is a
DP-SkGD sketch) or else the next colour of :data:`FALLBACK_COLORS`, with the first marker that no
other entry of the figure has in that colour. :func:`figure_styles` is the one entry point.
"""
from dataclasses import dataclass, replace

MARKEVERY_POINTS = 8  # about this many markers per curve: markers at checkpoints, not at every one


@dataclass(frozen=True)
class Style:
    """How one entry is drawn: ``color``, ``marker``, ``linestyle``."""

    color: str
    marker: str
    linestyle: str = "-"

    def line(self, points=None):
        """Keyword arguments of ``axis.plot`` / ``axis.errorbar``; ``points`` (the curve's length)
        spaces the markers to about :data:`MARKEVERY_POINTS` per curve."""
        options = {"color": self.color, "marker": self.marker, "linestyle": self.linestyle, "markersize": 5}
        if points is not None:
            options["markevery"] = markevery(points)
        return options


# tab10 and shades of it; one hue per family.
BLUE, ORANGE, GREEN, RED, PURPLE, BROWN, PINK, CYAN = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                       "#8c564b", "#e377c2", "#17becf")

STYLES = {
    # DP-CD (dp-cd, dp-skgd: the uniform sketch) and its variants: blues
    "dp-cd": Style(BLUE, "o"),
    "dp-cd-p": Style(GREEN, "+", "--"),  # DP-CD with private smoothness constants: dp-cd Figure 3's green, + marks
    "dp-cd-permutation": Style("#6baed6", "D", "-."),  # the coordinate-order ablation
    "dp-cd-cyclic": Style("#2171b5", "v", ":"),
    # DP-SGD and non-private SGD: oranges
    "dp-sgd": Style(ORANGE, "^"),
    "sgd": Style("#fdae6b", "x", ":"),
    # DP-GCD and its greedy rules (dp-gcd: GS-r is the entry "dp-gcd"): purples
    "dp-gcd": Style(PURPLE, "s"),
    "dp-gcd-gs-s": Style("#3f007d", "<", "--"),
    "dp-gcd-gs-q": Style("#b39ddb", ">", "-."),
    # DP-SCD (paper's accounting, sound accounting) and non-private SCD: reds; SEQDP-SCD cyan
    "dp-scd": Style(RED, "D"),
    "dp-scd-sound": Style("#67000d", "d", "--"),
    "scd": Style("#f08080", "+", "--"),
    "seqdp-scd": Style(CYAN, "v"),
    # DP-SkGD's sketches: browns and pink
    "dp-skgd": Style(BROWN, "P"),
    "dp-skgd-tau-2": Style("#b5651d", "p"),
    "dp-skgd-tau-4": Style("#c49c94", "X", "--"),
    "dp-skgd-importance": Style(PINK, "*", "-."),
    "dp-skgd-full": Style("#4e2a1e", "h", ":"),
}

# The hue of each registered algorithm (privcd.algorithms), for entries not in STYLES.
FAMILY_COLORS = {"dp-cd": BLUE, "dp-cd-p": GREEN, "dp-sgd": ORANGE, "dp-gcd": PURPLE, "dp-scd": RED,
                 "seqdp-scd": CYAN, "dp-skgd": BROWN}
# Entries of no known family: colours far from the families' hues, in this order.
FALLBACK_COLORS = ("#7f7f7f", "#bcbd22", "#000000", "#e6ab02", "#1b9e77", "#666666", "#dbdb8d", "#a6cee3")
MARKERS = ("o", "s", "^", "v", "D", "<", ">", "P", "X", "*", "h", "p", "d", "8", "H", "+", "x", "1", "2", "3")
GROUP_LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (1, 3)), (0, (3, 1, 1, 1, 1, 1)))


def figure_styles(entries, algorithm_of=None):
    """``{entry: Style}`` for the entries of one figure (any iterable, duplicates and order ignored).

    Known entries (:data:`STYLES`) keep their style; the others, in sorted order, get their family's
    hue (or the next unused :data:`FALLBACK_COLORS`) and the first marker of :data:`MARKERS` that no
    entry already styled has in that colour, so no two entries of a figure share colour and marker.

    Parameters
    ----------
    entries : iterable of str
        Config entry names (``"dp-cd"``, ``"dp-gcd-gs-s"``, ...).
    algorithm_of : dict, optional
        Entry -> registered algorithm it runs (``"dp-skgd-tau-8": "dp-skgd"``), for entries whose name
        starts with no family of :data:`FAMILY_COLORS` (a name that does keeps that family's hue:
        ``"dp-cd-p-experiment-floats"`` runs dp-cd and is drawn in DP-CD-P's green).
    """
    entries = sorted(set(entries))
    styles = {entry: STYLES[entry] for entry in entries if entry in STYLES}
    used_colors = {style.color for style in styles.values()}
    fallback = (color for color in FALLBACK_COLORS if color not in used_colors)
    for entry in (entry for entry in entries if entry not in STYLES):
        family = _family(entry) or (algorithm_of or {}).get(entry)
        color = FAMILY_COLORS.get(family) or next(fallback, None)
        if color is None:
            color = FALLBACK_COLORS[len(styles) % len(FALLBACK_COLORS)]
        taken = {style.marker for style in styles.values() if style.color == color}
        marker = next(marker for marker in MARKERS if marker not in taken)
        styles[entry] = Style(color, marker, "--" if family else "-")
    return styles


def group_styles(style, groups):
    """``{group: Style}``: the curves of one entry split by a parameter (``epsilon=0.1``, ...) keep the
    entry's colour and marker and take one line style per group, in the sorted order of ``groups``."""
    return {group: replace(style, linestyle=GROUP_LINESTYLES[index % len(GROUP_LINESTYLES)])
            for index, group in enumerate(sorted(set(groups)))}


def markevery(points):
    """Every how many points a marker goes so that a curve of ``points`` points has about
    :data:`MARKEVERY_POINTS` markers (every point for short curves)."""
    return max(1, -(-int(points) // MARKEVERY_POINTS))


def _family(entry):
    """The longest registered algorithm name that ``entry`` is or starts with (``name-``), else None."""
    names = [name for name in FAMILY_COLORS if entry == name or entry.startswith(name + "-")]
    return max(names, key=len) if names else None
