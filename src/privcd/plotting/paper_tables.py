"""Paper-layout tables built on :func:`privcd.plotting.error_table` (dp-cd Tables 2 and 3)."""
from privcd.plotting.tables import error_table


def privacy_label(epsilon, delta):
    """``"ε = 1, δ = 1/n^2"``: the privacy line under each problem of dp-cd Tables 2 and 3."""
    epsilons = ", ".join(f"{value:g}" for value in epsilon)
    return f"ε = {epsilons}, δ = {delta if isinstance(delta, str) else format(delta, 'g')}"


def per_passes_table(best, problems, star=True, legend=None):
    """dp-cd Table 2 (``star``) or Table 3 (no star): rows (problem title, privacy, algorithm), one
    column per number of passes, cells ``"mean ± std"``.

    Parameters
    ----------
    best : pandas.DataFrame
        :func:`privcd.results.per_passes.best_per_passes`.
    problems : dict
        Problem name -> ``(title, privacy label)``, in the table's row order (problems missing from
        ``best`` are left out).
    legend : dict, optional
        Algorithm entry -> name in the table (``"DP-CD"``).
    """
    table = error_table(best, by=("passes",), star=star)
    order = {name: index for index, name in enumerate(problems)}
    unknown = sorted(set(table["problem"]) - set(order))
    if unknown:
        raise ValueError(f"problems {unknown} have results but no title; titles given for {list(order)}")
    table = table.sort_values("problem", key=lambda column: column.map(order), kind="stable")
    table.insert(2, "privacy", [problems[name][1] for name in table["problem"]])
    table["problem"] = [problems[name][0] for name in table["problem"]]
    table["algorithm"] = table["algorithm"].map(lambda name: (legend or {}).get(name, name))
    return table.drop(columns="paper").reset_index(drop=True)
