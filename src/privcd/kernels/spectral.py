"""Norms and the top eigenvalue of X^T X, computed by the same loops for dense and sparse X.

The smoothness constants feed step sizes and clipping thresholds, so they must not depend on
the storage format: every quantity here sums stored entries in the same order for both layouts.
"""
import math

import numpy as np
from numba import njit

from privcd.kernels.linalg import add_scaled_column


@njit(cache=True)
def column_sq_norms(is_sparse, Xf, data, indices, indptr, p):
    """``||X_{:,j}||_2^2`` for every column j (column layout)."""
    out = np.zeros(p)
    for j in range(p):
        total = 0.0
        if is_sparse:
            for k in range(indptr[j], indptr[j + 1]):
                total += data[k] * data[k]
        else:
            for i in range(Xf.shape[0]):
                total += Xf[i, j] * Xf[i, j]
        out[j] = total
    return out


@njit(cache=True)
def row_sq_norms(is_sparse, Xc, data, indices, indptr, n):
    """``||x_i||_2^2`` for every row i (row layout)."""
    out = np.zeros(n)
    for i in range(n):
        total = 0.0
        if is_sparse:
            for k in range(indptr[i], indptr[i + 1]):
                total += data[k] * data[k]
        else:
            for j in range(Xc.shape[1]):
                total += Xc[i, j] * Xc[i, j]
        out[i] = total
    return out


@njit(cache=True)
def top_gram_eigenvalue(is_sparse, Xf, data, indices, indptr, n, p, rtol, max_iter):
    """Largest eigenvalue of ``X^T X`` (``||X||_2^2``) by power iteration from the all-ones vector.

    Stops when the Rayleigh quotient changes by less than ``rtol`` (relative) between iterations.
    """
    v = np.full(p, 1.0 / math.sqrt(p))
    value = 0.0
    for _ in range(max_iter):
        u = np.zeros(n)
        for j in range(p):
            if v[j] != 0.0:
                add_scaled_column(is_sparse, Xf, data, indices, indptr, j, v[j], u)
        new_value = 0.0
        for i in range(n):
            new_value += u[i] * u[i]
        if new_value == 0.0:
            return 0.0
        # v <- X^T u / ||X^T u||
        norm = 0.0
        for j in range(p):
            total = 0.0
            if is_sparse:
                for k in range(indptr[j], indptr[j + 1]):
                    total += data[k] * u[indices[k]]
            else:
                for i in range(n):
                    total += Xf[i, j] * u[i]
            v[j] = total
            norm += total * total
        norm = math.sqrt(norm)
        for j in range(p):
            v[j] /= norm
        if abs(new_value - value) <= rtol * new_value:
            return new_value
        value = new_value
    return value
