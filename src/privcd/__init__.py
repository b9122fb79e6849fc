"""privcd: differentially private coordinate methods for linear models on one numba core."""
from privcd.problem import Problem

__all__ = ["Problem"]
__version__ = "0.1.0"
