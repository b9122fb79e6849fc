"""Our selected hyperparameters beside the papers' (dp-gcd Table 4), in steps of our grid, and the
tuned values that sit at an edge of their grid (dp-cd footnote 7: the best step always lies
strictly inside the interval).

A *selection* is a dict with ``paper``, ``problem``, ``algorithm``, ``params`` (the selected
configuration: ``passes``, ``step``, ``clip``, ...) and ``grid`` (parameter -> the sorted values
our grid tried, e.g. ``{"step": [0.01, ..., 10.0]}``).

Distance in grid steps, ours minus the paper's (positive: ours is larger): the difference of the
two values' indices in our grid when both are on it (equal up to :data:`RTOL`, the rounding of
three printed digits); otherwise, when our grid is log-spaced (constant ratio), the difference of
their log10 divided by the grid's log10 step; otherwise undefined (NaN).
"""
import math

import pandas as pd

RTOL = 5e-3
EDGE_PARAMETERS = ("step", "clip")


def grid_index(value, axis):
    """The index of ``value`` in ``axis`` (relative tolerance :data:`RTOL`), or None."""
    for index, point in enumerate(axis):
        if math.isclose(float(value), float(point), rel_tol=RTOL):
            return index
    return None


def log_step(axis):
    """The log10 ratio of consecutive values of ``axis`` when it is constant (a log-spaced grid of
    at least 2 positive values), else None."""
    if len(axis) < 2 or min(axis) <= 0:
        return None
    logs = [math.log10(value) for value in sorted(axis)]
    steps = [b - a for a, b in zip(logs, logs[1:])]
    return steps[0] if all(math.isclose(step, steps[0], rel_tol=1e-6) for step in steps) else None


def grid_steps(ours, paper, axis):
    """Distance of ``ours`` from ``paper`` in steps of ``axis`` (module docstring)."""
    mine, theirs = grid_index(ours, axis), grid_index(paper, axis)
    if mine is not None and theirs is not None:
        return float(mine - theirs)
    step = log_step(axis)
    if step is None or ours <= 0 or paper <= 0:
        return math.nan
    return (math.log10(ours) - math.log10(paper)) / step


def edge_flags(params, grid, parameters=EDGE_PARAMETERS):
    """``"step = 10 (last of 10)"``-style flags for each of ``parameters`` whose selected value is the
    first or last value of its grid axis (axes of one value are not tuned: never flagged)."""
    flags = []
    for name in parameters:
        axis = sorted(grid.get(name, ()))
        if len(axis) < 2 or name not in params:
            continue
        index = grid_index(params[name], axis)
        if index in (0, len(axis) - 1):
            flags.append(f"{name} = {params[name]:.3g} ({'first' if index == 0 else 'last'} of {len(axis)})")
    return flags


def edge_table(selections, source):
    """One row per selection with an edge flag: paper, problem, algorithm, passes, step, clip,
    ``at edge`` (:func:`edge_flags`), ``selected by`` (``source``)."""
    rows = []
    for entry in selections:
        flags = edge_flags(entry["params"], entry["grid"])
        if flags:
            params = entry["params"]
            rows.append({"paper": entry["paper"], "problem": entry["problem"], "algorithm": entry["algorithm"],
                         "passes": f"{params['passes']:g}", "step": f"{params['step']:.3g}",
                         "clip": f"{params['clip']:.3g}", "at edge": "; ".join(flags), "selected by": source})
    return pd.DataFrame(rows, columns=["paper", "problem", "algorithm", "passes", "step", "clip", "at edge",
                                       "selected by"])


def compare_hyperparameters(selections, values):
    """dp-gcd Table 4 beside our selections.

    ``values`` is a loaded values file with ``columns`` (parameter names, e.g. ``[passes, clip,
    step]``) and ``cells`` problem -> algorithm -> the printed values. Returns one row per cell of
    the paper: problem, algorithm, then per parameter ``<name> ours``, ``<name> paper`` (floats; ours
    NaN when not run) and ``<name> steps`` (:func:`grid_steps`), and ``at edge``.
    """
    ours = {(entry["problem"], entry["algorithm"]): entry for entry in selections}
    rows = []
    for problem, algorithms in values["cells"].items():
        for algorithm, printed in algorithms.items():
            if len(printed) != len(values["columns"]):
                raise ValueError(f"{values['paper']} {problem}/{algorithm}: {len(printed)} values for "
                                 f"columns {values['columns']}")
            entry = ours.get((problem, algorithm))
            row = {"problem": problem, "algorithm": algorithm}
            for name, paper in zip(values["columns"], printed):
                mine = math.nan if entry is None else float(entry["params"][name])
                axis = [] if entry is None else sorted(entry["grid"][name])
                row.update({f"{name} ours": mine, f"{name} paper": float(paper),
                            f"{name} steps": math.nan if entry is None else grid_steps(mine, float(paper), axis)})
            row["at edge"] = "" if entry is None else "; ".join(edge_flags(entry["params"], entry["grid"]))
            rows.append(row)
    return pd.DataFrame(rows)


def steps_summary(comparison, parameters):
    """Per parameter: ``"step: 5 equal, 9 within 1 grid step of 24"`` (cells we ran, with a distance)."""
    parts = []
    for name in parameters:
        steps = comparison[f"{name} steps"].dropna().abs()
        parts.append(f"{name}: {int((steps == 0).sum())} equal, {int((steps <= 1).sum())} within 1 grid step "
                     f"of {len(steps)}")
    return "; ".join(parts)
