"""Integer-code dispatch from the kernels to the loss and penalty modules.

numba caches module-level functions on disk but not dispatchers passed as arguments or jitclasses
(numba issues 6522, 9659), so kernels receive integer codes and call these ``if``/``elif``
switches. ``tests/test_registry.py`` checks every registered code against its module.
"""
import math

from numba import njit

from privcd.losses import hinge, huber, logistic, squared, weighted_hinge, weighted_logistic
from privcd.penalties import l1, l2, none


def loss_variant(loss_code):
    """``(logistic, squared, other)`` for a kernel whose loss is ``loss_code``: True for its lane, None
    for the others.

    A kernel's per-sample loops take a literal loss code (a runtime code keeps the derivative an
    out-of-line call: :func:`privcd.kernels.linalg.lagged_clipped_gradient_sum`), one loop for the
    logistic loss, one for the squared loss and one for the others. numba prunes a branch on an
    argument's None-ness before it types the branch (as :func:`privcd.kernels.dp_cd.step_variant`),
    so a call compiles its loss's loop alone: the first compile of
    :func:`~privcd.kernels.dp_cd_many.dp_cd_many` on sparse X (logistic loss) took 82-90 s with the
    three loops, 25-37 s with one; DP-CD's first fit in an empty numba cache, 18 s and 14 s (two
    fits each, paired). Only the markers prune: numba types a True argument as a bool and keeps
    its branch, so every loop is guarded by its own marker.
    """
    if loss_code == logistic.CODE:
        return True, None, None
    if loss_code == squared.CODE:
        return None, True, None
    return None, None, True


@njit(cache=True)
def loss_value(code, z, y):
    """``l(z, y)`` of the loss with this code (NaN for an unknown code)."""
    if code == logistic.CODE:
        return logistic.value(z, y)
    if code == squared.CODE:
        return squared.value(z, y)
    if code == hinge.CODE:
        return hinge.value(z, y)
    if code == huber.CODE:
        return huber.value(z, y)
    if code == weighted_logistic.CODE:
        return weighted_logistic.value(z, y)
    if code == weighted_hinge.CODE:
        return weighted_hinge.value(z, y)
    return math.nan


@njit(cache=True, inline="always")
def loss_derivative(code, z, y):
    """``dl/dz (z, y)`` of the loss with this code (NaN for an unknown code). Inlined: a call left in a
    kernel's loop (the branch for codes the kernel does not specialise) keeps numba's reference
    counts of the loop's arrays, two atomic operations an array a step."""
    if code == logistic.CODE:
        return logistic.derivative(z, y)
    if code == squared.CODE:
        return squared.derivative(z, y)
    if code == hinge.CODE:
        return hinge.derivative(z, y)
    if code == huber.CODE:
        return huber.derivative(z, y)
    if code == weighted_logistic.CODE:
        return weighted_logistic.derivative(z, y)
    if code == weighted_hinge.CODE:
        return weighted_hinge.derivative(z, y)
    return math.nan


@njit(cache=True)
def loss_second_derivative(code, z, y):
    """``d^2 l / dz^2 (z, y)`` of the loss with this code (NaN for an unknown code)."""
    if code == logistic.CODE:
        return logistic.second_derivative(z, y)
    if code == squared.CODE:
        return squared.second_derivative(z, y)
    if code == hinge.CODE:
        return hinge.second_derivative(z, y)
    if code == huber.CODE:
        return huber.second_derivative(z, y)
    if code == weighted_logistic.CODE:
        return weighted_logistic.second_derivative(z, y)
    if code == weighted_hinge.CODE:
        return weighted_hinge.second_derivative(z, y)
    return math.nan


@njit(cache=True)
def loss_conjugate(code, u, y):
    """``l*(u, y)`` of the loss with this code (NaN for an unknown code)."""
    if code == logistic.CODE:
        return logistic.conjugate(u, y)
    if code == squared.CODE:
        return squared.conjugate(u, y)
    if code == hinge.CODE:
        return hinge.conjugate(u, y)
    if code == huber.CODE:
        return huber.conjugate(u, y)
    if code == weighted_logistic.CODE:
        return weighted_logistic.conjugate(u, y)
    if code == weighted_hinge.CODE:
        return weighted_hinge.conjugate(u, y)
    return math.nan


@njit(cache=True)
def penalty_value(code, w_j, lam):
    """``psi_j(w_j)`` of the penalty with this code (NaN for an unknown code)."""
    if code == none.CODE:
        return none.value(w_j, lam)
    if code == l1.CODE:
        return l1.value(w_j, lam)
    if code == l2.CODE:
        return l2.value(w_j, lam)
    return math.nan


@njit(cache=True)
def penalty_prox(code, x, step, lam):
    """``prox_{step psi_j}(x)`` of the penalty with this code (NaN for an unknown code)."""
    if code == none.CODE:
        return none.prox(x, step, lam)
    if code == l1.CODE:
        return l1.prox(x, step, lam)
    if code == l2.CODE:
        return l2.prox(x, step, lam)
    return math.nan
