"""Huber loss (Huber 1964) on the residual ``r = z - y``, with threshold 1 and privcd's squared-loss
scale (no 1/2)::

    l(z, y) = r^2            if |r| <= 1
              2 |r| - 1      otherwise.

Inside the threshold it is the squared loss of :mod:`privcd.losses.squared`; outside it grows
linearly, so an outlier's pull on ``w`` is bounded. Its derivative ``dl/dz = 2 clip(r, -1, 1)``
lies in [-2, 2] for every prediction and label, so a record's gradient norm is at most
``2 ||x||`` whatever ``y`` is: the loss of choice for private regression on heavy-tailed targets
(Avella-Medina 2021, "Privacy-preserving parametric inference: a case for robust statistics").

``d^2 l / dz^2`` is 2 inside the threshold and 0 outside, so the curvature is 2, as for the
squared loss, and the coordinate-wise smoothness constants are the same. At ``|r| = 1`` the second
derivative does not exist; the non-private solver's generalised Newton steps take 2 there.

Another threshold ``delta``: ``delta^2 l((z - y) / delta)`` is the Huber loss of threshold ``delta``,
so scaling the targets by ``1 / delta`` (and ``w`` with them) gives its minimiser with ``lam``
scaled by ``1 / delta^2``.

Fenchel conjugate: ``l*(u, y) = u y + u^2 / 4`` for ``|u| <= 2`` (the squared loss's), ``+inf``
outside, the range of the derivative.
"""
import math

from numba import njit

from privcd.losses.base import LossSpec

CODE = 3
SPEC = LossSpec(name="huber", code=CODE, curvature=2.0, labels=None,
                gradient_bound=2.0, start_gradient_bound=2.0, utility="mse", display="Huber",
                solver="newton", zero_at_label=True, unattained_on_separable=False, weighted=None)


@njit(cache=True)
def value(z, y):
    """``r^2`` for ``|r| <= 1``, ``2 |r| - 1`` beyond, with ``r = z - y``."""
    r = abs(z - y)
    return r * r if r <= 1.0 else 2.0 * r - 1.0


@njit(cache=True)
def derivative(z, y):
    """``dl/dz = 2 clip(z - y, -1, 1)``."""
    return 2.0 * min(max(z - y, -1.0), 1.0)


@njit(cache=True)
def second_derivative(z, y):
    """``d^2 l / dz^2``: 2 for ``|z - y| <= 1``, 0 beyond."""
    return 2.0 if abs(z - y) <= 1.0 else 0.0


@njit(cache=True)
def conjugate(u, y):
    """``l*(u) = u^2 / 4 + u y`` for ``|u| <= 2``, ``inf`` otherwise."""
    if abs(u) > 2.0:
        return math.inf
    return 0.25 * u * u + u * y
