"""Grid throughput: configurations per second of a tuning chunk through
:func:`privcd.tuning.runner.run_chunk` against the same configurations and seeds one by one through
:func:`privcd.fit`. ``run_chunk`` shares one calibration store and makes the runs that share their
draws (DP-SGD: same seed, any step and clip) in one kernel call (:func:`privcd.fit_many`)."""
import sys
import time

import numpy as np

import privcd
from privcd.tuning import derive_seed, draws_identity, expand, fit_arguments, run_chunk
from benchmarks.shapes import make_problem, make_X

N, P = 20_640, 8
PASSES = 5
ALGORITHMS = ("dp-cd", "dp-sgd")  # the algorithms the papers tune most
IDENTITY = dict(base_seed=0, paper="bench", problem_name="grid")


def problem():
    return make_problem(make_X(N, P, None), "logistic", "l2", 1e-3, False)


def configurations(count, passes=PASSES):
    """``count`` configurations (20 steps x count/20 clipping thresholds), one privacy setting."""
    return expand({"epsilon": 1.0, "delta": "1/n^2", "passes": passes, "step": np.logspace(-2, 1, 20).tolist(),
                   "clip": np.logspace(-2, 2, count // 20).tolist()})


def one_by_one(data, algorithm, grid):
    for configuration in grid:
        seed = derive_seed(IDENTITY["base_seed"], f"{IDENTITY['paper']}/{IDENTITY['problem_name']}", algorithm,
                           draws_identity(algorithm, configuration), 0, "tune")
        privcd.fit(data, algorithm, seed=seed, **fit_arguments(configuration, data.n_samples))


def run(algorithms, quick):
    data = problem()
    grid = configurations(100 if quick else 1000)
    rows = []
    for algorithm in (name for name in ALGORITHMS if name in algorithms):
        run_chunk(data, algorithm, grid[:2], repetitions=1, **IDENTITY)  # compile, calibrate
        start = time.perf_counter()
        run_chunk(data, algorithm, grid, repetitions=1, **IDENTITY)
        chunk = time.perf_counter() - start
        start = time.perf_counter()
        one_by_one(data, algorithm, grid)
        loop = time.perf_counter() - start
        rows.append({"algorithm": algorithm, "n": N, "p": P, "configurations": len(grid),
                     "run_chunk_seconds": chunk, "fit_loop_seconds": loop,
                     "run_chunk_per_second": len(grid) / chunk, "fit_loop_per_second": len(grid) / loop,
                     "speedup": loop / chunk})
        print(f"grid {algorithm}: {len(grid) / chunk:.0f} configurations/s in run_chunk, "
              f"{len(grid) / loop:.0f} one by one", file=sys.stderr)
    return rows


def markdown(rows):
    lines = ["| algorithm | configurations | run_chunk s | configurations / s | one-by-one fit s | "
             "configurations / s | run_chunk speed-up |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['algorithm']} | {r['configurations']:,} | {r['run_chunk_seconds']:.2f} | "
                     f"{r['run_chunk_per_second']:.0f} | {r['fit_loop_seconds']:.2f} | "
                     f"{r['fit_loop_per_second']:.0f} | "
                     f"{r['speedup']:.2f}x |")
    lines += ["", f"One chunk of a step x clip grid (epsilon = 1, delta = 1/n^2, 5 passes, one run each) on "
              f"{N:,} x {P} logistic + L2, after a warm-up chunk (compilation, calibration); one by one: the "
              "same configurations and seeds through `privcd.fit` (the in-process calibration cache applies)."]
    return "\n".join(lines)
