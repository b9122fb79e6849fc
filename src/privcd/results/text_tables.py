"""Tables as text: GitHub-flavoured Markdown and LaTeX (booktabs), for every table the workflow writes."""
import re


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
