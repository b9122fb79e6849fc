"""Objective evaluation shared by every algorithm: solvers never report their own objective."""
import numpy as np
from numba import njit

from privcd.kernels.dispatch import loss_derivative, loss_value, penalty_value
from privcd.losses import logistic, squared


@njit(cache=True, error_model="numpy")
def data_fit_value(loss_code, z, y):
    """``(1/n) sum_i l(z_i, y_i)``, summed in index order.

    The losses go into a buffer first, so that the loop over samples vectorises (the sum over
    the buffer does not need to); for the logistic and squared losses it calls their value
    functions directly (the logistic one inlined). On 45,312 samples: 0.22 ms instead of 0.90
    (the objective at every checkpoint of every tuning run).
    """
    values = np.empty_like(z)
    if loss_code == logistic.CODE:
        for i in range(z.shape[0]):
            values[i] = logistic.value(z[i], y[i])
    elif loss_code == squared.CODE:
        for i in range(z.shape[0]):
            values[i] = squared.value(z[i], y[i])
    else:
        for i in range(z.shape[0]):
            values[i] = loss_value(loss_code, z[i], y[i])
    total = 0.0
    for i in range(z.shape[0]):
        total += values[i]
    return total / z.shape[0]


@njit(cache=True, error_model="numpy")
def clipped_data_fit_value(loss_code, z, y, bound):
    """``(1/n) sum_i min(l(z_i, y_i), bound)``: the data fit with every loss clipped to ``bound`` (a NaN
    loss, from margins that overflow, counts as ``bound``), whose replace-one sensitivity is
    ``bound / n`` (losses are >= 0)."""
    total = 0.0
    for i in range(z.shape[0]):
        value = loss_value(loss_code, z[i], y[i])
        total += value if value < bound else bound
    return total / z.shape[0]


@njit(cache=True)
def penalty_sum(penalty_code, w, lam):
    """``psi(w) = sum_j psi_j(w_j)``."""
    total = 0.0
    for j in range(w.shape[0]):
        total += penalty_value(penalty_code, w[j], lam)
    return total


@njit(cache=True)
def loss_derivatives(loss_code, z, y):
    """The vector ``l'(z_i, y_i)``."""
    out = np.empty_like(z)
    loss_derivatives_into(loss_code, z, y, out)
    return out


@njit(cache=True)
def loss_derivatives_into(loss_code, z, y, out):
    """``out_i = l'(z_i, y_i)`` in place, SIMD-vectorised for the logistic and squared losses.

    One copy of the loop per loss (inlined by numba), with the loss code a constant, so LLVM folds
    the loss dispatch (it does not hoist it out of the loop by itself, and the loop then stays
    scalar).
    """
    if loss_code == logistic.CODE:
        _loss_derivative_loop(logistic.CODE, z, y, out)
    elif loss_code == squared.CODE:
        _loss_derivative_loop(squared.CODE, z, y, out)
    else:
        _loss_derivative_loop(loss_code, z, y, out)


@njit(inline="always")
def _loss_derivative_loop(loss_code, z, y, out):
    for i in range(z.shape[0]):
        out[i] = loss_derivative(loss_code, z[i], y[i])
