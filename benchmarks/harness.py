"""Timing helpers: medians of repeated wall-clock measurements."""
import time

import numpy as np
from threadpoolctl import threadpool_limits


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
    """Median times of one BLAS/scipy ``X.T @ r`` over the same X (reading X once), with BLAS
    limited to one thread and with all threads: ``(one_thread, best)``.

    ``best`` is the faster of the two (the hardware bound; on a loaded machine multi-threaded BLAS
    can stall by orders of magnitude, which would flatter every ratio); ``one_thread`` is the
    bound of a single-threaded kernel.
    """
    r = np.random.default_rng(0).normal(size=problem.n_samples)
    X = problem.X
    timings = []
    for threads in (1, None):
        with threadpool_limits(limits=threads, user_api="blas"):
            timings.append(median_seconds(lambda: X.T @ r, repeats, minimum_seconds=0.2))
    return timings[0], min(timings)
