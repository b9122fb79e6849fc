"""First fit in a fresh environment: the seconds a new process with an empty numba cache needs for its
first private fit, numba's compilation included, for :func:`privcd.fit` with DP-CD and DP-SGD and for
each scikit-learn estimator (one process each, its own empty cache directory; 500 x 5, epsilon 1)."""
import tempfile

from benchmarks.harness import run_python

CODE = """
import json, sys, time
import numpy as np, privcd
what = sys.argv[1]
X = np.random.default_rng(0).normal(size=(500, 5)); X /= np.linalg.norm(X, axis=1, keepdims=True)
labels = (X[:, 0] > 0).astype(int)
start = time.perf_counter()
if what.startswith("dp-"):
    problem = privcd.Problem(X, 2.0 * labels - 1.0, "logistic", "l2", 0.01, row_norm_bound=1.0)
    privcd.fit(problem, what, epsilon=1.0, delta=1e-5, passes=2, step=0.5, clip=1.0)
elif what in ("DPLogisticRegression", "DPLinearSVC"):
    getattr(privcd, what)(data_norm=1.0, classes=[0, 1]).fit(X, labels)
elif what == "DPHuberRegressor":
    privcd.DPHuberRegressor(data_norm=1.0).fit(X, X[:, 0])
else:
    getattr(privcd, what)(data_norm=1.0, y_bound=1.0).fit(X, X[:, 0])
print(json.dumps({"seconds": time.perf_counter() - start}))
"""
SUBJECTS = ("dp-cd", "dp-sgd", "DPLogisticRegression", "DPLinearSVC", "DPLinearRegression", "DPLasso",
            "DPHuberRegressor")
FLOOR = 10.0  # issue 36: the first fit in a fresh environment takes at most 10 s


def run(quick):
    """Seconds of each subject's first fit (``quick``: DP-CD's only)."""
    seconds = {}
    for subject in SUBJECTS[:1] if quick else SUBJECTS:
        with tempfile.TemporaryDirectory() as cache:
            seconds[subject] = run_python(CODE, env={"NUMBA_CACHE_DIR": cache}, arguments=(subject,))["seconds"]
    return {"seconds": seconds, "floor": FLOOR}


def markdown(r):
    rows = "\n".join(f"| {subject} | {value:.1f} | {'ok' if value <= r['floor'] else 'MISSED'} |"
                     for subject, value in r["seconds"].items())
    return ("| first fit of | seconds | floor <= 10 s |\n|---|---|---|\n" + rows + "\n\n"
            "A new process with an empty numba cache, 500 x 5, epsilon 1, a private release: numba's compilation "
            "is most of it (a second process loads the machine code from the cache: section `warm`). "
            "`python -m privcd.warmup` compiles everything ahead.")
