"""Tables of final relative errors as Markdown and LaTeX, in dp-cd Table 2's layout: one row per
problem (and algorithm, when results are grouped), a star on the lowest mean error of each row."""
import re


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


def to_markdown(table):
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    def row(values):
        return "| " + " | ".join(str(value).replace("|", "\\|") for value in values) + " |"
    lines = [row(table.columns), row(["---"] * len(table.columns))]
    lines += [row(values) for values in table.itertuples(index=False)]
    return "\n".join(lines) + "\n"


LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "±": r"$\pm$", "*": r"$^*$"}
LATEX_PATTERN = re.compile("|".join(re.escape(char) for char in LATEX_SPECIALS))


def to_latex(table, caption=""):
    """A LaTeX ``table`` with a booktabs ``tabular``; special characters escaped, ``±`` and ``*`` typeset."""
    def escape(value):
        return LATEX_PATTERN.sub(lambda match: LATEX_SPECIALS[match.group()], str(value))
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{" + "l" * len(table.columns) + "}",
             r"\toprule", " & ".join(escape(column) for column in table.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(escape(value) for value in values) + r" \\" for values in table.itertuples(index=False)]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        lines.append(r"\caption{" + escape(caption) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
