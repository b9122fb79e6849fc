"""Weighted logistic loss: the label carries the record's weight, ``l(z, y) = |y| log(1 + exp(-s z))``
with ``s = sign(y)`` (+1 at 0) and ``|y|`` in [0, 1].

The weighted objective ``(1/n) sum_i r_i log(1 + exp(-y_i z_i))`` of labels ``y_i`` in {-1, 1} and
weights ``r_i`` in [0, 1] is this loss at the labels ``r_i y_i``, so every kernel takes weights
through its loss code, without a weight array. The derivative is ``|y|`` times the logistic's, so
a record's gradient norm stays within ``||x||`` (the sensitivity of the unweighted loss holds,
dp-cd Lemma 4.1's clipping aside) and the curvature within 1/4 (the smoothness constants hold).
Fenchel conjugate: ``(r l)*(u) = r l*(u / r)``; at ``r = 0`` the loss is 0 and its conjugate is 0 at
``u = 0``, ``inf`` elsewhere.
"""
import math

from numba import njit

from privcd.losses import logistic
from privcd.losses.base import LossSpec

CODE = 4
SPEC = LossSpec(name="weighted-logistic", code=CODE, curvature=0.25, labels=None,
                gradient_bound=1.0, start_gradient_bound=0.5, utility="accuracy", display="Logistic (weighted)",
                solver="newton", zero_at_label=False, unattained_on_separable=True, weighted=None)


@njit(cache=True, inline="always")
def label_sign(y):
    """The label of a weighted label: +1 for ``y >= 0``, -1 otherwise."""
    return 1.0 if y >= 0.0 else -1.0


@njit(cache=True)
def value(z, y):
    """``|y| log(1 + exp(-sign(y) z))``."""
    return abs(y) * logistic.value(z, label_sign(y))


@njit(cache=True)
def derivative(z, y):
    """``dl/dz = |y|`` times the logistic's derivative at the label ``sign(y)``."""
    return abs(y) * logistic.derivative(z, label_sign(y))


@njit(cache=True)
def second_derivative(z, y):
    """``d^2 l / dz^2 = |y| s (1 - s)``, ``s = sigmoid(z)``."""
    return abs(y) * logistic.second_derivative(z, label_sign(y))


@njit(cache=True)
def conjugate(u, y):
    """``|y| l*(u / |y|)`` of the logistic loss at the label ``sign(y)``; at ``y = 0``, 0 for ``u = 0``."""
    weight = abs(y)
    if weight == 0.0:
        return 0.0 if u == 0.0 else math.inf
    return weight * logistic.conjugate(u / weight, label_sign(y))
