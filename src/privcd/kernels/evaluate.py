"""Objective evaluation shared by every algorithm: solvers never report their own objective."""
import numpy as np
from numba import njit

from privcd.kernels.dispatch import loss_derivative, loss_value, penalty_value


@njit(cache=True)
def data_fit_value(loss_code, z, y):
    """``(1/n) sum_i l(z_i, y_i)``."""
    total = 0.0
    for i in range(z.shape[0]):
        total += loss_value(loss_code, z[i], y[i])
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
    for i in range(z.shape[0]):
        out[i] = loss_derivative(loss_code, z[i], y[i])
    return out
