"""``python -m privcd.warmup``: compile privcd's numba kernels ahead, so that no later fit waits for them.

numba compiles a kernel the first time it runs with new argument types and keeps the machine code
in its disk cache (:mod:`privcd.numba_cache`): a fresh environment's first fit of each algorithm
compiles for seconds. This runs a tiny fit of every algorithm on every loss and penalty it takes,
on dense and sparse X, as an experiment and as a release, and one fit of every estimator, so the
cache holds what a fit needs. Prints each algorithm's seconds and the total.
"""
import argparse
import itertools
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

import privcd
from privcd.algorithms import ALGORITHMS
from privcd.losses import LOSSES
from privcd.penalties import PENALTIES

ARGUMENTS = dict(epsilon=1.0, delta=1e-5, passes=2, step=0.5, clip=1.0)


def tiny_problems(loss, penalty):
    """The same 256 x 4 problem with dense and with sparse X (rows of unit norm, public bounds; more
    records than DP-SCD's default batch)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(256, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X[:, 0] + 0.1) if LOSSES[loss].labels is not None else X[:, 0]
    lam = 0.0 if penalty is None else 1e-3
    return [privcd.Problem(data, y, loss, penalty, lam, row_norm_bound=1.0, feature_bound=1.0)
            for data in (X, sp.csr_matrix(X))]


def warm_algorithm(name):
    """Fit ``name`` on every (loss, penalty, storage) it takes, as an experiment and as a release,
    and two runs that share their draws (:func:`privcd.fit_many`, the tuning's lockstep kernels),
    with each option set of the module's ``WARMUP_OPTIONS`` (default: its defaults alone); returns
    the number of fits."""
    fits = 0
    for options in getattr(ALGORITHMS[name], "WARMUP_OPTIONS", ({},)):
        for loss, penalty in itertools.product(sorted(LOSSES), PENALTIES):
            for problem in tiny_problems(loss, penalty):
                try:
                    privcd.fit(problem, name, seed=0, **ARGUMENTS, **options)
                except ValueError:  # a combination the algorithm does not take
                    break
                fits += 1
                try:
                    privcd.fit(problem, name, seed=None, **ARGUMENTS, **options)
                    fits += 1
                except ValueError:  # a release the options refuse (DP-SkGD's importance sketch, SEQDP-SCD)
                    pass
                runs = [{**ARGUMENTS, **options, "seed": 0, "step": step} for step in (0.5, 1.0)]
                fits += len(list(privcd.fit_many(problem, name, runs)))
    return fits


def warm_estimators():
    """One fit of every estimator with its defaults (public bounds and label set given)."""
    X = np.random.default_rng(1).uniform(-1, 1, size=(64, 3))
    labels = (X[:, 0] > 0).astype(int)
    for estimator in (privcd.DPLogisticRegression(bounds=(-1, 1), classes=[0, 1]),
                      privcd.DPLinearSVC(bounds=(-1, 1), classes=[0, 1])):
        estimator.fit(X, labels)
    for estimator in (privcd.DPLinearRegression(bounds=(-1, 1), y_bound=1.0), privcd.DPLasso(bounds=(-1, 1), y_bound=1.0),
                      privcd.DPHuberRegressor(bounds=(-1, 1))):
        estimator.fit(X, X[:, 0])


def main(argv=None):
    command = argparse.ArgumentParser(prog="python -m privcd.warmup", description=__doc__.splitlines()[0])
    command.add_argument("--algorithms", nargs="+", default=sorted(ALGORITHMS), choices=sorted(ALGORITHMS),
                         metavar="ALGORITHM", help="algorithms to compile (default: all)")
    args = command.parse_args(argv)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny problems: divergence and leak warnings say nothing here
        for name in args.algorithms:
            began = time.perf_counter()
            fits = warm_algorithm(name)
            print(f"{name}: {fits} fits in {time.perf_counter() - began:.1f} s", file=sys.stderr)
        began = time.perf_counter()
        warm_estimators()
        print(f"estimators: {time.perf_counter() - began:.1f} s", file=sys.stderr)
    print(f"privcd's kernels are compiled and cached ({time.perf_counter() - start:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
