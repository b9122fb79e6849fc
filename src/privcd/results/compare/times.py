"""dp-cd Table 3 (running times) against ours, as speed ratios.

Absolute times on other hardware do not compare (the paper: C++ on a laptop's i7-10610U), so the
comparison is the ratio ``numerator time / denominator time`` per (problem, passes) -- DP-CD time
/ DP-SGD time, which the paper puts at about 1/4 to 1/5 (Appendix G.2) -- ours beside the paper's,
and ``ratio = ours / paper`` of the two, counted like the other cells
(:func:`privcd.results.compare.cells.ratio_counts`).
"""
import math

import pandas as pd

from privcd.results.compare.cells import WITHIN, ratio
from privcd.results.compare.values import reason_for
from privcd.results.per_passes import mean_times


def compare_times(timing, values):
    """Speed ratios per (problem, passes), ours beside the paper's.

    ``timing`` holds one row per timed run (``results/aggregate/dp-cd/timing.parquet``, averaged
    by :func:`privcd.results.per_passes.mean_times`). ``values`` is a loaded values file like dp-cd Table 2's (``columns`` = passes, cells ``[[mean,
    spread], ...]`` in seconds) with ``ratio: [numerator, denominator]`` algorithm names. Returns
    one row per (problem, passes) of the paper: problem, passes, ``<numerator> s`` and
    ``<denominator> s`` (our mean times), ``runs`` (the fewer of the two), ours (our time ratio),
    paper (the paper's), ratio and factor (:func:`privcd.results.compare.cells.ratio` of ours to
    the paper's), and reason (the values file's, :func:`privcd.results.compare.values.reason_for`,
    for a factor above 2; else empty); NaN where either algorithm did not run.
    """
    if len(values.get("ratio") or ()) != 2:
        raise ValueError(f"{values['paper']} {values['table']}: 'ratio' must name [numerator, denominator] "
                         f"algorithms; got {values.get('ratio')!r}")
    top, bottom = values["ratio"]
    means = {(row.problem, row.algorithm, float(row.param_passes)): (row.mean, row.runs)
             for row in mean_times(timing).itertuples(index=False)}
    rows = []
    for problem, algorithms in values["cells"].items():
        missing = [name for name in (top, bottom) if name not in algorithms]
        if missing:
            raise ValueError(f"{values['paper']} {problem}: no paper times for {missing}; it has {list(algorithms)}")
        for index, passes in enumerate(values["columns"]):
            mine = [means.get((problem, name, float(passes)), (math.nan, 0)) for name in (top, bottom)]
            ours = mine[0][0] / mine[1][0]
            paper = float(algorithms[top][index][0]) / float(algorithms[bottom][index][0])
            value, factor = ratio(ours, paper)
            reason = reason_for(values.get("reasons") or [], {"problem": problem, "passes": passes}) \
                if factor > WITHIN[-1] else ""
            rows.append({"problem": problem, "passes": passes, f"{top} s": mine[0][0], f"{bottom} s": mine[1][0],
                         "runs": min(mine[0][1], mine[1][1]), "ours": ours, "paper": paper, "ratio": value,
                         "factor": factor, "reason": reason})
    return pd.DataFrame(rows)
