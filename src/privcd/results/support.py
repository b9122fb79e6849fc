"""Support recovery of the private solutions (dp-gcd Appendix D, Table 3).

For an L1 problem with non-private optimum ``w*`` and a private output ``w``, a coordinate is
*correctly* non-zero if ``w_j != 0`` and ``w*_j != 0``, *incorrectly* non-zero if ``w_j != 0`` and
``w*_j = 0``. Table 3 gives both counts and the relative gap ``(F(w) - F*) / F*``, averaged over the
final runs, for every algorithm and problem, under a first row ``||w*||_0``.
"""
import numpy as np
import pandas as pd

from privcd.results.analysis import relative_error

RECOVERY_COLUMNS = ("problem", "algorithm", "correct", "incorrect", "relative_error", "correct_std",
                    "incorrect_std", "relative_error_std", "runs")


def support_counts(w, w_star):
    """``(correct, incorrect)``: non-zeros of ``w`` inside and outside the support of ``w_star``."""
    w, w_star = np.asarray(w), np.asarray(w_star)
    if w.shape != w_star.shape:
        raise ValueError(f"w has shape {w.shape} but w_star has shape {w_star.shape}; expected the same")
    nonzero = w != 0
    return int(np.count_nonzero(nonzero & (w_star != 0))), int(np.count_nonzero(nonzero & (w_star == 0)))


def support_recovery(problem, algorithm, iterates, w_star, f_star):
    """One row of :data:`RECOVERY_COLUMNS`: counts and relative gap, mean and std over the runs.

    ``iterates`` is the output of :func:`privcd.tuning.iterates.final_iterates` (``w`` of shape
    (runs, p), ``objective`` of shape (runs,)).
    """
    counts = np.array([support_counts(w, w_star) for w in iterates["w"]], dtype=float).reshape(-1, 2)
    if not len(counts):
        raise ValueError(f"{problem}/{algorithm}: no final run to count")
    gaps = relative_error(iterates["objective"], f_star)
    spread = (lambda values: float(np.std(values, ddof=1))) if len(counts) > 1 else (lambda values: 0.0)
    return {"problem": problem, "algorithm": algorithm, "correct": counts[:, 0].mean(),
            "incorrect": counts[:, 1].mean(), "relative_error": float(np.mean(gaps)),
            "correct_std": spread(counts[:, 0]), "incorrect_std": spread(counts[:, 1]),
            "relative_error_std": spread(gaps), "runs": len(counts)}


def support_table(recovery, nonzeros, titles=None, legend=None):
    """dp-gcd Table 3: first row ``||w*||_0``, then one row per algorithm, one column per problem;
    cells ``"correct / incorrect (gap)"`` (counts are means over runs, the gap to 2 significant
    digits as in the paper).

    Parameters
    ----------
    recovery : pandas.DataFrame
        Rows of :func:`support_recovery`, problems and algorithms in the table's order.
    nonzeros : dict
        Problem -> ``||w*||_0``.
    titles : dict, optional
        Problem -> column title.
    legend : dict, optional
        Algorithm entry -> row name (``"DP-GCD"``).
    """
    titles, legend = titles or {}, legend or {}
    problems = list(dict.fromkeys(recovery["problem"]))
    cells = recovery.assign(cell=[f"{_count(c)} / {_count(i)} ({g:.2g})" for c, i, g in
                                  zip(recovery["correct"], recovery["incorrect"], recovery["relative_error"])])
    table = cells.pivot(index="algorithm", columns="problem", values="cell")
    table = table.reindex(index=list(dict.fromkeys(recovery["algorithm"])), columns=problems).fillna("")
    first = pd.DataFrame([[str(nonzeros[problem]) for problem in problems]], columns=problems,
                         index=["||w*||_0"])
    table = pd.concat([first, table.rename(index=legend)])
    table.columns = [titles.get(problem, problem) for problem in problems]
    return table.rename_axis("").reset_index()


def _count(value):
    """A mean count: an integer when it is one, else one decimal."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
