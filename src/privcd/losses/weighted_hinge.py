"""Weighted hinge loss: the label carries the record's weight, ``l(z, y) = |y| max(0, 1 - s z)`` with
``s = sign(y)`` (+1 at 0) and ``|y|`` in [0, 1] (as :mod:`privcd.losses.weighted_logistic` for the
logistic loss: the weighted SVM of labels ``y_i`` and weights ``r_i`` is this loss at ``r_i y_i``).

Its subgradient is ``|y|`` times the hinge's, so a record's gradient norm stays within ``||x||``.
Not smooth, as the hinge loss. It has no non-private solver (``solver="none"``: the hinge loss's
dual coordinate descent takes unit labels).
"""
import math

from numba import njit

from privcd.losses import hinge
from privcd.losses.base import LossSpec
from privcd.losses.weighted_logistic import label_sign

CODE = 5
SPEC = LossSpec(name="weighted-hinge", code=CODE, curvature=math.inf, labels=None,
                gradient_bound=1.0, start_gradient_bound=1.0, utility="accuracy", display="Hinge (weighted)",
                solver="none", zero_at_label=False, unattained_on_separable=False, weighted=None)


@njit(cache=True)
def value(z, y):
    """``|y| max(0, 1 - sign(y) z)``."""
    return abs(y) * hinge.value(z, label_sign(y))


@njit(cache=True)
def derivative(z, y):
    """``|y|`` times the hinge's subgradient at the label ``sign(y)``."""
    return abs(y) * hinge.derivative(z, label_sign(y))


@njit(cache=True)
def second_derivative(z, y):
    """Undefined, as the hinge's: NaN."""
    return math.nan


@njit(cache=True)
def conjugate(u, y):
    """``|y| l*(u / |y|)`` of the hinge loss at the label ``sign(y)``; at ``y = 0``, 0 for ``u = 0``."""
    weight = abs(y)
    if weight == 0.0:
        return 0.0 if u == 0.0 else math.inf
    return weight * hinge.conjugate(u / weight, label_sign(y))
