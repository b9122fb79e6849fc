"""Tables of final relative errors, in dp-cd Table 2's layout: one row per problem (and algorithm,
when results are grouped), a star on the lowest mean error of each row; written as Markdown or
LaTeX by :mod:`privcd.results.text_tables` (re-exported here)."""
from privcd.results.text_tables import to_latex, to_markdown  # noqa: F401  (privcd.plotting's API)


def error_table(errors, by=(), star=True):
    """Pivot :func:`privcd.plotting.final_errors` into a table of ``"mean ± std"`` strings.

    Without ``by``: rows (paper, problem), one column per algorithm, in order of appearance. With
    ``by`` (e.g. ``("passes",)``): rows (paper, problem, algorithm), one column per value of the
    group (``"passes=2"``), in increasing order of the values, as dp-cd Table 2. The lowest mean of each row is starred (unless ``star`` is
    false: dp-cd Table 3's running times); cells without a result are empty.
    """
    errors = errors.copy()
    if by:
        rows = ["paper", "problem", "algorithm"]
        errors["column"] = [", ".join(f"{name}={value:g}" for name, value in zip(by, values))
                            for values in errors[[f"param_{name}" for name in by]].itertuples(index=False)]
    else:
        rows = ["paper", "problem"]
        errors["column"] = errors["algorithm"]
    errors["cell"] = [f"{mean:.4f} ± {std:.0e}" for mean, std in zip(errors["mean"], errors["std"])]
    if star:
        best = errors.groupby(rows)["mean"].transform("min")
        errors.loc[errors["mean"] == best, "cell"] += "*"
    ordered = errors.sort_values([f"param_{name}" for name in by], kind="stable") if by else errors
    order = list(dict.fromkeys(ordered["column"]))
    table = errors.pivot(index=rows, columns="column", values="cell").reindex(columns=order).fillna("")
    table.columns.name = None
    return table.reset_index()
