"""Exact dual coordinate ascent for the L2-regularised hinge SVM (Hsieh et al., ICML 2008), the
last stage of :mod:`privcd.optimum.hinge`'s certified solver. Here, in ``kernels/``, so that
:mod:`privcd.numba_cache` keys the compiled code on its source and its callees'.
"""
from numba import njit

from privcd.kernels.linalg import add_scaled_row, row_dot


@njit(cache=True)
def hinge_dual_cd(is_sparse, Xc, data, indices, indptr, y, row_sq_norms, lam_n, alpha, v, epochs, rng):
    """``epochs`` passes of exact dual coordinate ascent (Hsieh et al. 2008), in place.

    Each pass visits the records in a fresh random order; record i moves ``alpha_i`` to the
    maximiser of D along it, ``clip(alpha_i + (1 - y_i <x_i, v> / (lam n)) lam n / ||x_i||^2, 0, 1)``,
    and keeps ``v = X^T (alpha * y)``.
    """
    n = y.shape[0]
    for _ in range(epochs):
        order = rng.permutation(n)
        for k in range(n):
            i = order[k]
            if row_sq_norms[i] == 0.0:
                continue
            margin = y[i] * row_dot(is_sparse, Xc, data, indices, indptr, i, v) / lam_n
            new = min(1.0, max(0.0, alpha[i] + (1.0 - margin) * lam_n / row_sq_norms[i]))
            if new != alpha[i]:
                add_scaled_row(is_sparse, Xc, data, indices, indptr, i, (new - alpha[i]) * y[i], v)
                alpha[i] = new
