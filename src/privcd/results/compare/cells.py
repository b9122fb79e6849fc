"""Our numbers beside the papers' cell by cell, as ratios: dp-cd Table 2 and dp-gcd Table 3.

Every cell gets ``ratio = ours / paper`` and ``factor = max(ratio, 1 / ratio)`` (how many times off,
either way; ``inf`` when ours is 0 and the paper's is not). A cell is *within 1.25x* when
``factor <= 1.25`` and *within 2x* when ``factor <= 2``; a cell more than 2x off carries the reason
of its values file (:func:`privcd.results.compare.values.reason_for`). Cells without a ratio: the
paper's value is 0 (the ratio is undefined; the cell says so, and where ours is not 0 the cell is
flagged with a reason as one more than 2x off) or we have no result (``not run``).
"""
import math

import pandas as pd

from privcd.results.compare.values import EVIDENCE, evidence_for, reason_for

WITHIN = (1.25, 2.0)  # the bands counted by ratio_counts; a factor above the last needs a reason
NOT_RUN = "the problem did not run here (results/data/notes.md) or its grid lacks this cell"
PAPER_ZERO = "undefined: the paper's value is 0"


def ratio(ours, paper):
    """``(ours / paper, max(r, 1 / r))``, or ``(nan, nan)`` when ``paper`` is 0 or ``ours`` is missing
    (None or NaN); a diverged ``ours`` (inf) or ``ours = 0`` is ``inf`` times off."""
    if ours is None or math.isnan(ours) or paper == 0:
        return math.nan, math.nan
    if paper < 0 or ours < 0:
        raise ValueError(f"ratios compare non-negative values; got ours={ours!r}, paper={paper!r}")
    value = ours / paper
    return value, (math.inf if value == 0 else max(value, 1 / value))


def compare_per_passes(best, values):
    """dp-cd Table 2 cell by cell.

    ``best`` is :func:`privcd.results.per_passes.best_per_passes` of the relative error; ``values``
    a loaded values file whose cells are ``[[mean, spread] per column]`` under ``columns`` (passes).
    Returns one row per cell of the paper: problem, algorithm, passes, ours, ours_spread, paper,
    paper_spread, ratio, factor, reason.
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
                cell = {"problem": problem, "algorithm": algorithm, "passes": passes}
                rows.append(_row(values, cell, mean, spread, float(paper), float(paper_spread)))
    return pd.DataFrame(rows)


def compare_support(recovery, values):
    """dp-gcd Table 3 cell by cell: for each problem and algorithm three rows (``quantity`` correct,
    incorrect, relative gap; the paper states its floors on the relative gap). ``recovery`` has the
    rows of :func:`privcd.results.support.support_recovery`; the paper prints no spread (NaN here)."""
    ours = {(row["problem"], row["algorithm"]): row for row in recovery.to_dict("records")}
    quantities = (("correct", "correct"), ("incorrect", "incorrect"), ("relative gap", "relative_error"))
    rows = []
    for problem, algorithms in values["cells"].items():
        for algorithm, cells in algorithms.items():
            result = ours.get((problem, algorithm))
            for (quantity, column), printed in zip(quantities, cells):
                mean = None if result is None else float(result[column])
                spread = 0.0 if result is None else float(result[f"{column}_std"])
                cell = {"problem": problem, "algorithm": algorithm, "quantity": quantity}
                rows.append(_row(values, cell, mean, spread, float(printed), math.nan))
    return pd.DataFrame(rows)


def _row(values, cell, mean, spread, paper, paper_spread):
    value, factor = ratio(mean, paper)
    reason = ""
    if mean is None or math.isnan(mean):
        reason = NOT_RUN
    elif factor > WITHIN[-1] or (paper == 0 and mean != 0):  # a paper 0 that ours is not: flagged
        reason = reason_for(values["reasons"], cell)
    evidence, choices = evidence_for(values.get("fitted", []), cell)
    return {**cell, "ours": mean, "ours_spread": spread, "paper": paper, "paper_spread": paper_spread,
            "ratio": value, "factor": factor, "reason": reason, "evidence": evidence, "choices": "; ".join(choices)}


def evidence_counts(comparison):
    """Cells with a ratio by kind of evidence (:func:`privcd.results.compare.values.evidence_for`):
    ``evidence``, ``with ratio``, ``within 1.25x``, ``within 2x``, one row per kind present."""
    rated = comparison[comparison["factor"].notna()]
    rows = []
    for kind in EVIDENCE:
        part = rated[rated["evidence"] == kind]
        if len(part):
            rows.append({"evidence": kind, "with ratio": len(part),
                         **{f"within {bound:g}x": int((part["factor"] <= bound).sum()) for bound in WITHIN}})
    return pd.DataFrame(rows, columns=["evidence", "with ratio"] + [f"within {bound:g}x" for bound in WITHIN])


def evidence_line(comparison):
    """``"independent (no fitted choice shapes them): within 2x 15/15, within 1.25x 11/15; tested
    (...): ...; fitted (...): ..."``: each kind of :func:`evidence_counts` present."""
    names = {"independent": "independent (no fitted choice shapes them)",
             "tested": "tested (a fitted choice shapes them, not fitted on them)",
             "fitted": "fitted (a choice was fitted on them: agreement by construction)"}
    counts = evidence_counts(comparison)
    return "; ".join(f"{names[row['evidence']]}: within 2x {row['within 2x']}/{row['with ratio']}, within 1.25x "
                     f"{row['within 1.25x']}/{row['with ratio']}" for row in counts.to_dict("records"))


def ratio_counts(comparison, by=()):
    """Cells per group of ``by`` (none: one row for the whole table): ``cells``, ``with ratio`` (ran,
    paper value not 0), ``within 1.25x``, ``within 2x`` (counted among those with a ratio),
    ``paper 0`` (ratio undefined), ``paper 0, ours not`` (those flagged with a reason) and ``not run``."""
    ran = comparison["ours"].notna()
    frame = comparison.assign(**{
        "with ratio": comparison["factor"].notna(),
        **{f"within {bound:g}x": comparison["factor"] <= bound for bound in WITHIN},
        "paper 0": ran & (comparison["paper"] == 0),
        "paper 0, ours not": ran & (comparison["paper"] == 0) & (comparison["ours"] != 0), "not run": ~ran})
    columns = ["with ratio"] + [f"within {bound:g}x" for bound in WITHIN] + ["paper 0", "paper 0, ours not", "not run"]
    if not by:
        counts = frame[columns].sum().astype(int).to_frame().T
        return counts.assign(cells=len(frame))[["cells"] + columns]
    counts = frame.groupby(list(by), sort=False)[columns].sum().astype(int)
    counts.insert(0, "cells", frame.groupby(list(by), sort=False).size())
    return counts.reset_index()


def summary_line(counts):
    """``"within 1.25x: 25/50, within 2x: 40/50 (cells with a ratio; ...)"`` from one row of
    :func:`ratio_counts`."""
    row = counts.iloc[0]
    text = ", ".join(f"within {bound:g}x: {row[f'within {bound:g}x']}/{row['with ratio']}" for bound in WITHIN)
    extra = [f"{row['paper 0']} with the paper's value 0, no ratio"] if row["paper 0"] else []
    if row["paper 0, ours not"]:
        extra[-1] += f", {row['paper 0, ours not']} of them not 0 here (flagged with a reason)"
    extra += [f"{row['not run']} not run"] if row["not run"] else []
    return text + (f" ({'; '.join(extra)})" if extra else "")


def display(comparison):
    """The cell table of the report: the key columns, ours and paper as ``"mean ± spread"`` (without
    spread where the paper prints none), ratio (3 significant digits, or why there is none), reason."""
    def number(mean, spread):
        if mean is None or math.isnan(mean):
            return ""
        return f"{mean:.4g}" if math.isnan(spread) else f"{mean:.4g} ± {spread:.0e}"

    def ratio_text(value, ours, paper):
        if ours is None or math.isnan(ours):
            return "not run"
        return PAPER_ZERO if paper == 0 else f"{value:.3g}"

    keys = [column for column in ("problem", "algorithm", "passes", "quantity") if column in comparison]
    shown = comparison[keys].copy()
    shown["ours"] = [number(m, s) for m, s in zip(comparison["ours"], comparison["ours_spread"])]
    shown["paper"] = [number(m, s) for m, s in zip(comparison["paper"], comparison["paper_spread"])]
    shown["ratio"] = [ratio_text(*row) for row in zip(comparison["ratio"], comparison["ours"], comparison["paper"])]
    shown["reason"] = comparison["reason"]
    shown["evidence"] = [kind if not choices else f"{kind}: {choices}"
                         for kind, choices in zip(comparison["evidence"], comparison["choices"])]
    return shown
