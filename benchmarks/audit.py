"""Audit: the wall time and the bound of ``privcd.audit`` for DP-CD and full-batch DP-SGD at
(epsilon, delta) = (2, 1e-5) with the default runs (issue 21: epsilon_lower >= 1.0 within 2 minutes
on 2 cores), each in a fresh process after one that warms numba's disk cache."""
from benchmarks.harness import run_python

CODE = """
import json, time
import privcd
start = time.perf_counter()
result = privcd.audit({algorithm!r}, epsilon=2.0, delta=1e-5, runs={runs})
print(json.dumps({{"seconds": time.perf_counter() - start, "epsilon_lower": result.epsilon_lower,
                  "epsilon": result.epsilon, "runs": result.runs}}))
"""
ALGORITHMS = ("dp-cd", "dp-sgd")
FLOORS = {"epsilon_lower": 1.0, "seconds": 120.0}


def run(quick):
    """One audit each (``quick``: 10,000 runs a side, not the default, so no floor applies)."""
    runs = 10_000 if quick else None
    out = {}
    for algorithm in ALGORITHMS:
        run_python(CODE.format(algorithm=algorithm, runs=100))  # warms numba's cache and the calibration code
        out[algorithm] = run_python(CODE.format(algorithm=algorithm, runs=runs))
    return {"audits": out, "floors": FLOORS, "quick": quick}


def markdown(r):
    lines = ["| algorithm | runs a side | epsilon (claim) | epsilon_lower | ratio | seconds | floors met |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for algorithm, a in r["audits"].items():
        met = "n/a (--quick)" if r["quick"] else (
            "yes" if a["epsilon_lower"] >= r["floors"]["epsilon_lower"] and a["seconds"] <= r["floors"]["seconds"]
            else "NO")
        lines.append(f"| {algorithm} | {a['runs']:,} | {a['epsilon']:.4f} | {a['epsilon_lower']:.3f} | "
                     f"{a['epsilon_lower'] / a['epsilon']:.3f} | {a['seconds']:.1f} | {met} |")
    return ("Floors (issue 21): epsilon_lower >= 1.0 at epsilon = 2, delta = 1e-5, within 120 s.\n\n"
            + "\n".join(lines))
