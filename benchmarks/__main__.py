"""Benchmark every registered algorithm: seconds per pass against the hardware bound (one
``X.T @ r`` over the same X) and against a plain numpy implementation, measured in one run.

Usage: ``python -m benchmarks [--quick] [--output results/benchmarks]``. Writes
``benchmarks.md`` and ``benchmarks.json`` there and prints the Markdown table.
"""
import argparse
import importlib
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import privcd
from privcd.algorithms import ALGORITHMS
from privcd.algorithms.base import Settings
from benchmarks.harness import hardware_bound_seconds, median_seconds

SHAPES = [(20_000, 8), (1_000, 1_000)]
# Products with X a pass needs at the least: one X.T @ r, but two (X @ w and X.T @ r) for an
# iteration of DP-GCD, which recomputes the full gradient (dp-gcd Section 4.6).
BOUND_PRODUCTS = {"dp-gcd": 2}
SETTINGS = Settings(epsilon=1.0, delta=1e-6, passes=5.0, step=0.5, clip=1.0)
# Problems each algorithm benchmarks on: (loss, penalty, lam, rows scaled to unit norm).
PROBLEMS = {
    "default": [("squared", "l1", 1e-3, False), ("logistic", "l2", 1e-3, False)],
    "dp-scd": [("squared", "l2", 1e-3, True), ("logistic", "l2", 1e-3, True)],
    "seqdp-scd": [("squared", "l2", 1e-3, True)],
}


def make_problem(n, p, loss, penalty, lam, unit_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if unit_rows:
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    score = X @ rng.normal(size=p)
    y = np.where(score > 0, 1.0, -1.0) if loss == "logistic" else score + rng.normal(size=n)
    return privcd.Problem(X, y, loss, penalty, lam)


def numpy_reference(module_name):
    try:
        return importlib.import_module(f"benchmarks.numpy_reference.{module_name}")
    except ModuleNotFoundError:
        return None


def benchmark(name, module, problem, quick):
    plan = module.plan(problem, SETTINGS, {**module.OPTIONS})
    module.run(problem, plan, 0)  # compile or load from cache
    passes = plan.n_iterations / plan.iterations_per_pass
    kernel = median_seconds(lambda: module.run(problem, plan, 0), 3 if quick else 7) / passes
    one_thread, best = (BOUND_PRODUCTS.get(name, 1) * t for t in hardware_bound_seconds(problem))
    row = {"algorithm": name, "n": problem.n_samples, "p": problem.n_features, "loss": problem.loss.name,
           "penalty": problem.penalty.name, "seconds_per_pass": kernel, "bound_seconds": best,
           "ratio_to_bound": kernel / best, "one_thread_bound_seconds": one_thread,
           "ratio_to_one_thread_bound": kernel / one_thread}
    reference = numpy_reference(module.__name__.rsplit(".", 1)[-1])
    if reference is not None:
        # Time a fraction of a pass of the slow reference and scale to one pass.
        fraction = min(1.0, 0.05 if quick else 0.2)
        small = module.plan(problem, Settings(**{**SETTINGS.__dict__, "passes": fraction}), {**module.OPTIONS})
        seconds = median_seconds(lambda: reference.run(problem, small, 0), 1 if quick else 3)
        per_pass = seconds / (small.n_iterations / small.iterations_per_pass)
        row.update(numpy_seconds_per_pass=per_pass, speedup_vs_numpy=per_pass / kernel)
    return row


WARM_START_SCRIPT = """
import json, time
t = time.perf_counter()
import numpy as np, privcd
out = {"import": time.perf_counter() - t}
X = np.random.default_rng(0).normal(size=(200, 5)); X /= np.linalg.norm(X, axis=1, keepdims=True)
problem = privcd.Problem(X, np.where(X[:, 0] > 0, 1.0, -1.0), "logistic", "l2", 0.1)
for name in sorted(privcd.algorithms.ALGORITHMS):
    t = time.perf_counter()
    privcd.fit(problem, name, epsilon=float("inf"), passes=1, step=0.5, clip=float("inf"))
    out[name] = time.perf_counter() - t
print(json.dumps(out))
"""


def warm_start_seconds():
    """Seconds a second process needs to import privcd and to run each algorithm's first fit
    (noise-free, so no calibration) on a tiny problem once numba's disk cache is warm."""
    subprocess.run([sys.executable, "-c", WARM_START_SCRIPT], check=True, capture_output=True)
    out = subprocess.run([sys.executable, "-c", WARM_START_SCRIPT], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def markdown(rows, warm):
    lines = ["| algorithm | n x p | loss + penalty | ms / pass | bound ms | ratio to bound | ratio to 1-thread bound | numpy ms / pass | speed-up vs numpy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        numpy_ms = f"{r['numpy_seconds_per_pass'] * 1e3:.1f}" if "numpy_seconds_per_pass" in r else "-"
        speedup = f"{r['speedup_vs_numpy']:.0f}x" if "speedup_vs_numpy" in r else "-"
        lines.append(f"| {r['algorithm']} | {r['n']:,} x {r['p']:,} | {r['loss']} + {r['penalty']} | "
                     f"{r['seconds_per_pass'] * 1e3:.3f} | {r['bound_seconds'] * 1e3:.3f} | "
                     f"{r['ratio_to_bound']:.1f} | {r['ratio_to_one_thread_bound']:.1f} | {numpy_ms} | {speedup} |")
    lines.append("")
    lines.append("Bound: one BLAS `X.T @ r` over the same X (two products for DP-GCD, whose pass is one "
                 "full-gradient iteration), best of 1 and all BLAS threads; the 1-thread bound is the one a "
                 "single-threaded kernel can reach.")
    first_fits = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in warm.items() if name != "import")
    lines.append(f"Warm second process: `import privcd` {warm['import']:.2f} s; first fit (cache loaded, "
                 f"no calibration): {first_fits}.")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (for CI smoke checks)")
    parser.add_argument("--output", type=Path, default=Path("results/benchmarks"))
    parser.add_argument("--algorithms", nargs="*", default=sorted(ALGORITHMS))
    args = parser.parse_args(argv)
    rows = []
    for n, p in SHAPES:
        for name in args.algorithms:
            module = ALGORITHMS[name]
            for loss, penalty, lam, unit_rows in PROBLEMS.get(name, PROBLEMS["default"]):
                problem = make_problem(n, p, loss, penalty, lam, unit_rows)
                rows.append(benchmark(name, module, problem, args.quick))
                print(f"{name} {n}x{p} {loss}: {rows[-1]['seconds_per_pass'] * 1e3:.3f} ms/pass", file=sys.stderr)
    warm = warm_start_seconds()
    table = markdown(rows, warm)
    args.output.mkdir(parents=True, exist_ok=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": platform.platform(), "python": platform.python_version(),
            "settings": SETTINGS.__dict__}
    (args.output / "benchmarks.json").write_text(json.dumps({"meta": meta, "rows": rows, "warm_start_seconds": warm}, indent=2))
    (args.output / "benchmarks.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
