"""Our numbers beside the papers' (``results/compare/papers.md``): dp-cd Table 2 and dp-gcd Table 3.

The papers' values are transcribed in ``config/paper_values/*.yaml`` (page and table cited there).
Each cell gets a verdict (:func:`verdict`):

``within spread``
    ``|ours - paper| <= paper spread + our spread``: the two mean +- spread intervals overlap. A
    value printed without spread (dp-gcd Table 3) has half a unit of its last digit
    (:func:`printed_spread`), counts 0.5.
``same order of magnitude``
    both positive and ``|log10(ours / paper)| < 1``.
``off``
    anything else, with the problem's known reason from the values file, or "not explained yet".
``not run``
    no result of ours (the problem was skipped, e.g. its dataset is not in the mirror).

:func:`winners` compares which algorithm is best on each problem (the papers' conclusions).
"""
import math

import pandas as pd
import yaml

VERDICTS = ("within spread", "same order of magnitude", "off", "not run")
UNEXPLAINED = "not explained yet"
NOT_RUN = "no result here: the problem did not run (results/data/notes.md) or its grid lacks this cell"


def verdict(ours, ours_spread, paper, paper_spread):
    """One of :data:`VERDICTS` for our ``mean +- spread`` against the paper's (see module docstring)."""
    if ours is None or not math.isfinite(ours):
        return "not run" if ours is None or math.isnan(ours) else "off"
    if abs(ours - paper) <= paper_spread + ours_spread:
        return "within spread"
    if ours > 0 and paper > 0 and abs(math.log10(ours / paper)) < 1:
        return "same order of magnitude"
    return "off"


def printed_spread(text):
    """Half a unit of the last printed digit of ``text`` (``"0.020"`` -> 0.0005, ``"3"`` -> 0.5)."""
    text = str(text).strip().lower()
    float(text)  # a ValueError naming the text if it is not a number
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def load_values(path):
    """A ``config/paper_values/*.yaml`` file as a dict."""
    with open(path, encoding="utf-8") as handle:
        values = yaml.safe_load(handle)
    for key in ("paper", "table", "cells"):
        if key not in values:
            raise ValueError(f"{path} lacks the key {key!r}; a paper values file has paper, table, cells")
    return values


def compare_per_passes(best, values):
    """dp-cd Table 2 cell by cell.

    ``best`` is :func:`privcd.results.per_passes.best_per_passes` of the relative error. Returns
    one row per cell of the paper: problem, algorithm, passes, ours, ours_spread, paper,
    paper_spread, verdict, reason.
    """
    ours = {(row.problem, row.algorithm, float(row.param_passes)): (row.mean, row.std)
            for row in best.itertuples(index=False)}
    rows = []
    for problem, algorithms in values["cells"].items():
        for algorithm, cells in algorithms.items():
            if len(cells) != len(values["columns"]):
                raise ValueError(f"{values['paper']} {problem}/{algorithm}: {len(cells)} cells for "
                                 f"{len(values['columns'])} columns {values['columns']}")
            for passes, (paper, paper_spread) in zip(values["columns"], cells):
                mean, spread = ours.get((problem, algorithm, float(passes)), (None, 0.0))
                rows.append(_row(values, problem, algorithm, {"passes": passes}, mean, spread,
                                 float(paper), float(paper_spread)))
    return pd.DataFrame(rows)


def compare_support(recovery, values):
    """dp-gcd Table 3 cell by cell: for each problem and algorithm three rows (quantity ``correct``,
    ``incorrect``, ``relative gap``). ``recovery`` has the rows of
    :func:`privcd.results.support.support_recovery`."""
    ours = {(row["problem"], row["algorithm"]): row for row in recovery.to_dict("records")}
    quantities = (("correct", "correct"), ("incorrect", "incorrect"), ("relative gap", "relative_error"))
    rows = []
    for problem, algorithms in values["cells"].items():
        for algorithm, cells in algorithms.items():
            result = ours.get((problem, algorithm))
            for (quantity, column), printed in zip(quantities, cells):
                mean = None if result is None else float(result[column])
                spread = 0.0 if result is None else float(result[f"{column}_std"])
                rows.append(_row(values, problem, algorithm, {"quantity": quantity}, mean, spread,
                                 float(printed), printed_spread(printed)))
    return pd.DataFrame(rows)


def winners(comparison, value="relative gap"):
    """Per problem: the algorithm(s) with the lowest paper value and with our lowest value (ties
    joined by ``" = "``); ``agree`` is "yes" when the paper's best is among ours.

    For dp-cd Table 2 (rows with ``passes``) the minimum is over all numbers of passes; for dp-gcd
    Table 3 over the ``value`` rows. Columns problem, paper, ours, agree.
    """
    frame = comparison
    if "quantity" in frame:
        frame = frame[frame["quantity"] == value]
    rows = []
    for problem, group in frame.groupby("problem", sort=False):
        paper = _best(group, "paper")
        ours = _best(group.dropna(subset=["ours"]), "ours")
        rows.append({"problem": problem, "paper": " = ".join(paper), "ours": " = ".join(ours) or "(not run)",
                     "agree": "-" if not ours else ("yes" if set(paper) <= set(ours) else "no")})
    return pd.DataFrame(rows, columns=["problem", "paper", "ours", "agree"])


def _best(group, column):
    """The algorithms whose lowest ``column`` value is the group's lowest (ties kept, config order)."""
    if not len(group):
        return []
    lowest = group.groupby("algorithm", sort=False)[column].min()
    return [name for name, low in lowest.items() if low == lowest.min()]


def _row(values, problem, algorithm, where, mean, spread, paper, paper_spread):
    result = verdict(mean, spread, paper, paper_spread)
    reason = ""
    if result == "off":
        reason = values.get("reasons", {}).get(problem, UNEXPLAINED)
    elif result == "not run":
        reason = NOT_RUN
    return {"problem": problem, "algorithm": algorithm, **where, "ours": mean, "ours_spread": spread,
            "paper": paper, "paper_spread": paper_spread, "verdict": result, "reason": " ".join(reason.split())}


def display(comparison):
    """``comparison`` with ``ours`` and ``paper`` as ``"mean ± spread"`` text, for the report."""
    def cell(mean, spread):
        return "" if mean is None or (isinstance(mean, float) and math.isnan(mean)) else f"{mean:.4g} ± {spread:.0e}"
    shown = comparison.drop(columns=["ours_spread", "paper_spread"]).copy()
    shown["ours"] = [cell(m, s) for m, s in zip(comparison["ours"], comparison["ours_spread"])]
    shown["paper"] = [cell(m, s) for m, s in zip(comparison["paper"], comparison["paper_spread"])]
    return shown


def verdict_counts(comparison):
    """Number of cells per verdict, in the order of :data:`VERDICTS` (zeros included)."""
    counts = comparison["verdict"].value_counts()
    return {name: int(counts.get(name, 0)) for name in VERDICTS}
