"""Timing helpers: medians of repeated wall-clock measurements, the hardware bound, fresh processes."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT.parent / "shared" / "datasets"  # the offline dataset copies beside the checkout


def median_seconds(function, repeats, *, minimum_seconds=0.0):
    """Median wall time of ``function()`` over ``repeats`` calls (at least ``minimum_seconds`` in total)."""
    times = []
    start = time.perf_counter()
    while len(times) < repeats or time.perf_counter() - start < minimum_seconds:
        t0 = time.perf_counter()
        function()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def hardware_bound_seconds(problem, repeats=50):
    """Median times of one ``X.T @ r`` over the same X (reading X once): ``(one_thread, best)``.

    Dense X: BLAS limited to one thread and with all threads; ``best`` is the faster of the two
    (the hardware bound; on a loaded machine multi-threaded BLAS can stall by orders of magnitude,
    which would flatter every ratio); ``one_thread`` is the bound of a single-threaded kernel.
    Sparse X: scipy's (single-threaded) product with X in CSC and in CSR, the faster of the two
    for both numbers.
    """
    r = np.random.default_rng(0).normal(size=problem.n_samples)
    if sp.issparse(problem.X):
        best = min(median_seconds(lambda: X.T @ r, repeats, minimum_seconds=0.2)
                   for X in (problem.columns, problem.rows))
        return best, best
    X = problem.X
    timings = []
    for threads in (1, None):
        with threadpool_limits(limits=threads, user_api="blas"):
            timings.append(median_seconds(lambda: X.T @ r, repeats, minimum_seconds=0.2))
    return timings[0], min(timings)


def run_python(code, *, env=None, arguments=()):
    """Run ``code`` in a fresh interpreter from the repository root (``src`` on the path), with
    ``arguments`` as its ``sys.argv[1:]``; return the JSON object its last stdout line prints."""
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), str(ROOT),
                                                              os.environ.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", code, *arguments], check=True, capture_output=True, text=True,
                         cwd=ROOT, env=environment)
    return json.loads(out.stdout.strip().splitlines()[-1])


def lowest_mean_error(problem, algorithm, runs, f_star):
    """The runs (keyword arguments of :func:`privcd.fit`, seeds included) made by
    :func:`privcd.fit_many` and grouped by ``(passes, step, clip)``: that of the group with the lowest
    mean final relative error ``(F - F*) / F*`` (the first on a tie), and the group's errors."""
    import privcd

    errors = {}
    for run in privcd.fit_many(problem, algorithm, runs):
        key = (run.settings["passes"], run.settings["step"], run.settings["clip"])
        errors.setdefault(key, []).append((run.objective - f_star) / f_star)
    best = min(errors, key=lambda key: np.mean(errors[key]))
    return best, np.asarray(errors[best])
