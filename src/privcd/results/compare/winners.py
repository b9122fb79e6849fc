"""Which algorithm wins, and at which number of passes, in the paper and here.

Ties. In the paper: equal printed values (dp-cd Table 2's Sparse LASSO at 50 passes: DP-CD and
DP-SGD both 0.7551). Here: equal after rounding to :data:`DIGITS` significant digits, the precision
the papers print their four-decimal values with. ``agree`` is ``"yes"`` when the two sets of
winners are equal, ``"tie"`` when they differ but share a member (one side's tie contains the
other's winner: counted as agreement), ``"no"`` otherwise and ``"-"`` when we have no result.
"""
import pandas as pd

DIGITS = 4
AGREEMENTS = ("yes", "tie")


def rounded(value, digits=DIGITS):
    """``value`` rounded to ``digits`` significant digits (the tie rule for our values)."""
    return float(f"{value:.{digits}g}")


def winners(comparison, by=("problem", "passes"), over="algorithm"):
    """Per group of ``by``: the ``over`` values with the lowest paper value and with our lowest value.

    ``comparison`` is :func:`privcd.results.compare.cells.compare_per_passes` (or a subset of rows
    of :func:`~privcd.results.compare.cells.compare_support`). ``by=("problem", "passes")`` gives
    the winning algorithm per problem and number of passes; ``by=("problem", "algorithm"),
    over="passes"`` gives each algorithm's best number of passes. Returns the ``by`` columns, paper,
    ours (ties joined by ``" = "``, in table order) and agree (module docstring).
    """
    rows = []
    for keys, group in comparison.groupby(list(by), sort=False):
        paper = _lowest(group, over, group["paper"])
        ran = group.dropna(subset=["ours"])
        ours = _lowest(ran, over, ran["ours"].map(rounded))
        if not ours:
            agree = "-"
        else:
            agree = "yes" if set(paper) == set(ours) else ("tie" if set(paper) & set(ours) else "no")
        rows.append({**dict(zip(by, keys)), "paper": _join(paper), "ours": _join(ours) or "(not run)",
                     "agree": agree})
    return pd.DataFrame(rows, columns=[*by, "paper", "ours", "agree"])


def agreement_line(table, what):
    """``"agrees in 22/25 <what> (21 exactly, 1 through a tie)"`` for a :func:`winners` table."""
    ran = table[table["agree"] != "-"]
    exact, tied = int((ran["agree"] == "yes").sum()), int((ran["agree"] == "tie").sum())
    missing = len(table) - len(ran)
    return (f"agrees in {exact + tied}/{len(ran)} {what} ({exact} exactly, {tied} through a tie)"
            + (f"; {missing} not run" if missing else ""))


def _lowest(group, over, values):
    """The ``over`` values whose minimum of ``values`` is the group's minimum (table order)."""
    if not len(group):
        return []
    lowest = values.groupby(group[over], sort=False).min()
    return [name for name, low in lowest.items() if low == lowest.min()]


def _join(names):
    return " = ".join(f"{name:g}" if isinstance(name, float) else str(name) for name in names)
