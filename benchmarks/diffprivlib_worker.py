"""diffprivlib's side of ``python -m benchmarks estimators``, run by the peer environment's Python
(diffprivlib 0.6.6 needs scikit-learn < 1.7; privcd's environment has a newer one).

``python diffprivlib_worker.py DATA.npz SPEC.json OUT.json``: for every (dataset, epsilon, seed) of
SPEC, fits diffprivlib's model on the training part and writes its test score and fit seconds.
Imports nothing of privcd.
"""
import json
import sys
import time
import warnings

import numpy as np


def fit_and_score(task, X, y, X_test, y_test, epsilon, seed, bounds_y):
    from diffprivlib.models import LinearRegression, LogisticRegression
    if task == "classification":
        model = LogisticRegression(epsilon=epsilon, data_norm=1.0, random_state=seed)
    else:
        model = LinearRegression(epsilon=epsilon, bounds_X=(-1.0, 1.0), bounds_y=tuple(bounds_y), random_state=seed)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return float(model.score(X_test, y_test)), seconds


def main(data_path, spec_path, out_path):
    warnings.simplefilter("ignore")  # diffprivlib warns about its own accuracy; nothing leaks here
    data = np.load(data_path)
    spec = json.loads(open(spec_path).read())
    rows = []
    for name, task in spec["datasets"].items():
        X, y, X_test, y_test = (data[f"{name}_{part}"] for part in ("X", "y", "X_test", "y_test"))
        fit_and_score(task, X, y, X_test, y_test, 1.0, 0, spec["bounds_y"])  # imports and first-call set-up
        for epsilon in spec["epsilons"]:
            for seed in spec["seeds"]:
                score, seconds = fit_and_score(task, X, y, X_test, y_test, epsilon, seed, spec["bounds_y"])
                rows.append({"dataset": name, "epsilon": epsilon, "seed": seed, "score": score, "seconds": seconds})
    import diffprivlib
    import sklearn
    json.dump({"versions": {"diffprivlib": diffprivlib.__version__, "scikit-learn": sklearn.__version__},
               "rows": rows}, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
