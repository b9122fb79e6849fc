"""Logistic loss ``l(z, y) = log(1 + exp(-y z))`` for labels ``y`` in {-1, 1}.

dp-cd Section 6 (footnote 5) and dp-gcd Section 5. ``d^2 l / dz^2 = s (1 - s) <= 1/4`` with
``s = sigmoid(y z)``, so the curvature is 1/4.
"""
import math

from numba import njit

from privcd.losses.base import LossSpec

CODE = 0
SPEC = LossSpec(name="logistic", code=CODE, curvature=0.25, labels=(-1.0, 1.0))


@njit(cache=True)
def value(z, y):
    """``log(1 + exp(-y z))``, computed without overflow."""
    t = -y * z
    if t > 0.0:
        return t + math.log1p(math.exp(-t))
    return math.log1p(math.exp(t))


@njit(cache=True)
def derivative(z, y):
    """``dl/dz = -y / (1 + exp(y z))``, computed without overflow."""
    t = y * z
    if t > 0.0:
        e = math.exp(-t)
        return -y * e / (1.0 + e)
    return -y / (1.0 + math.exp(t))


@njit(cache=True)
def second_derivative(z, y):
    """``d^2 l / dz^2 = s (1 - s)`` with ``s = sigmoid(y z)``; depends on ``|z|`` only for ``|y| = 1``."""
    e = math.exp(-abs(z))
    return e / ((1.0 + e) * (1.0 + e))


@njit(cache=True)
def conjugate(u, y):
    """``l*(u) = t log t + (1 - t) log(1 - t)`` with ``t = -u y`` in [0, 1], ``inf`` elsewhere."""
    t = -u * y
    if t < 0.0 or t > 1.0:
        return math.inf
    out = 0.0
    if t > 0.0:
        out += t * math.log(t)
    if t < 1.0:
        out += (1.0 - t) * math.log1p(-t)
    return out
