"""Squared loss ``l(z, y) = (z - y)^2`` (no 1/2), as in dp-cd Section 6 (footnote 4) and dp-gcd.

``d^2 l / dz^2 = 2``, so the curvature is 2.
"""
from numba import njit

from privcd.losses.base import LossSpec

CODE = 1
SPEC = LossSpec(name="squared", code=CODE, curvature=2.0, labels=None,
                gradient_bound=2.0, start_gradient_bound=2.0, utility="mse", display="LeastSquares",
                solver="newton", zero_at_label=True, unattained_on_separable=False, weighted=None)


@njit(cache=True)
def value(z, y):
    """``(z - y)^2``."""
    r = z - y
    return r * r


@njit(cache=True)
def derivative(z, y):
    """``dl/dz = 2 (z - y)``."""
    return 2.0 * (z - y)


@njit(cache=True)
def second_derivative(z, y):
    """``d^2 l / dz^2 = 2``."""
    return 2.0


@njit(cache=True)
def conjugate(u, y):
    """``l*(u) = u^2 / 4 + u y``."""
    return 0.25 * u * u + u * y
