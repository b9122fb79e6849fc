"""Squared L2 penalty ``psi(w) = (lam / 2) ||w||_2^2`` (dp-cd footnote 5)."""
from numba import njit

from privcd.penalties.base import PenaltySpec

CODE = 2
SPEC = PenaltySpec(name="l2", code=CODE, smooth=True)


@njit(cache=True)
def value(w_j, lam):
    """``lam w_j^2 / 2``."""
    return 0.5 * lam * w_j * w_j


@njit(cache=True)
def prox(x, step, lam):
    """``x / (1 + step lam)``."""
    return x / (1.0 + step * lam)


def conjugate(v, lam):
    """``||v||^2 / (2 lam)``."""
    return float(v @ v) / (2.0 * lam)


def dual_scaling(v, lam):
    """The domain is everything."""
    return 1.0
