"""Hinge loss ``l(z, y) = max(0, 1 - y z)`` for labels ``y`` in {-1, 1}: the SVM of dp-scd Section 5.

The hinge loss is not differentiable at ``y z = 1`` and not smooth: its curvature is infinite, so
the coordinate-wise smoothness constants of primal methods do not exist (``Problem.M`` and
``Problem.beta`` refuse it). Dual methods (``"dp-scd"``) only need its conjugate, whose domain is
the box ``-u y`` in [0, 1] (dp-scd eq. (3)).
"""
import math

from numba import njit

from privcd.losses.base import LossSpec

CODE = 2
SPEC = LossSpec(name="hinge", code=CODE, curvature=math.inf, labels=(-1.0, 1.0),
                gradient_bound=1.0, start_gradient_bound=1.0, utility="accuracy", display="Hinge",
                solver="svm-dual-cd", zero_at_label=True, unattained_on_separable=False, weighted="weighted-hinge")


@njit(cache=True)
def value(z, y):
    """``max(0, 1 - y z)``."""
    return max(0.0, 1.0 - y * z)


@njit(cache=True)
def derivative(z, y):
    """A subgradient: ``-y`` where ``y z < 1``, 0 where ``y z >= 1`` (the kink takes 0)."""
    if y * z < 1.0:
        return -y
    return 0.0


@njit(cache=True)
def second_derivative(z, y):
    """Undefined (a Dirac mass at the kink): NaN, so second-order solvers refuse the hinge loss."""
    return math.nan


@njit(cache=True)
def conjugate(u, y):
    """``l*(u) = u y`` for ``t = -u y`` in [0, 1], ``inf`` elsewhere.

    ``sup_z u z - max(0, 1 - y z)`` is bounded only if ``u = -t y`` with t in [0, 1]; the supremum
    is then attained at ``y z = 1``, giving ``-t = u y``.
    """
    t = -u * y
    if t < 0.0 or t > 1.0:
        return math.inf
    return u * y
