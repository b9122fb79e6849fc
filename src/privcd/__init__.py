"""privcd: differentially private coordinate methods for linear models on one numba core."""
from privcd import numba_cache  # noqa: F401  (first: sets numba's cache directory)
from privcd import numba_inlining  # noqa: F401  (before any compile: numba's inliner copies each scope once)
from privcd.fit import fit
from privcd.fit_many import fit_many
from privcd.problem import DataDependentBoundsWarning, DataDependentConstantsWarning, Problem
from privcd.run import DivergenceWarning, Run

__all__ = ["DPHuberRegressor", "DPLasso", "DPLinearRegression", "DPLinearSVC", "DPLogisticRegression", "DataDependentBoundsWarning",
           "DataDependentConstantsWarning",
           "DivergenceWarning", "Problem", "Run", "audit", "dataset_table", "fit", "fit_many", "load_dataset", "solve_nonprivate", "tune_private"]
__version__ = "0.1.0"

# Loaded on first use so that a process that only fits starts quickly: the data loaders import
# scikit-learn (0.8 s), the certified solver scipy.optimize and scipy.linalg (0.3 s), the audit
# scipy.stats, the estimators scikit-learn's base classes. (The privacy package defers dp-accounting the same way: privcd.privacy.)
_LAZY = {"audit": "privcd.auditing", "tune_private": "privcd.tuning.private", "load_dataset": "privcd.data", "dataset_table": "privcd.data",
         "solve_nonprivate": "privcd.optimum", "DPHuberRegressor": "privcd.estimators", "DPLasso": "privcd.estimators", "DPLinearRegression": "privcd.estimators",
         "DPLinearSVC": "privcd.estimators", "DPLogisticRegression": "privcd.estimators"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'privcd' has no attribute {name!r}")
