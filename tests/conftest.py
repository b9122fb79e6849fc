"""Shared fixtures: small seeded problems, dense and sparse."""
import os
from pathlib import Path

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

import privcd
from privcd.losses import LOSSES

SHARED_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts) distributes the default tier only: the slow tier's workflows
    and audits use every core themselves, so any other selection runs in this process."""
    if config.option.markexpr.strip() != "not slow":
        return 0
    return None  # pytest-xdist's own count (the cores), capped by --maxprocesses


def pytest_configure(config):
    # Most tests fit privately on Problems built with the default constants=None, which warns at every
    # such fit (privcd.DataDependentConstantsWarning): silenced here; tests/test_constants.py checks
    # when it is and is not emitted (pytest.warns records it whatever this filter says).
    config.addinivalue_line("filterwarnings", "ignore::privcd.DataDependentConstantsWarning")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:  # the workers share the cores: numba's parallel kernels get their share in each
        numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS // workers))


def make_problem(loss, penalty, lam, *, n=120, p=15, density=0.4, sparse=False, seed=0, unit_rows=False):
    """A small problem with imbalanced columns and some exact zeros; with ``unit_rows`` every
    non-zero row is then scaled to unit L2 norm (as DP-SCD requires)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.lognormal(sigma=1.0, size=p)
    X[rng.random((n, p)) > density] = 0.0
    if unit_rows:
        norms = np.linalg.norm(X, axis=1)
        X[norms > 0] /= norms[norms > 0, None]
    w_true = rng.normal(size=p)
    if LOSSES[loss].utility == "accuracy":  # class labels; a weighted loss's carry weights in [0.2, 1]
        y = np.where(X @ w_true + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
        if LOSSES[loss].labels is None:
            y *= rng.uniform(0.2, 1.0, size=n)
    else:
        y = X @ w_true + 0.1 * rng.normal(size=n)
    return privcd.Problem(sp.csc_matrix(X) if sparse else X, y, loss, penalty, lam)


def fresh_assembly(dispatcher, *args):
    """x86 assembly of a fresh, uncached compilation of a numba function with its own options
    (numba does not disassemble code loaded from its disk cache)."""
    options = {k: v for k, v in dispatcher.targetoptions.items() if k != "cache"}
    fresh = njit(**options)(dispatcher.py_func)
    fresh(*args)
    return next(iter(fresh.inspect_asm().values()))


@pytest.fixture(params=["dense", "sparse"])
def storage(request):
    return request.param


@pytest.fixture
def shared_datasets():
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"shared datasets not found at {SHARED_DATASETS}")
    return SHARED_DATASETS
