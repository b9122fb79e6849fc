"""privcd: differentially private coordinate methods for linear models on one numba core."""
from privcd import numba_cache  # noqa: F401  (first: sets numba's cache directory)
from privcd.data import dataset_table, load_dataset
from privcd.fit import fit
from privcd.optimum import solve_nonprivate
from privcd.problem import Problem
from privcd.run import Run

__all__ = ["Problem", "Run", "dataset_table", "fit", "load_dataset", "solve_nonprivate"]
__version__ = "0.1.0"
