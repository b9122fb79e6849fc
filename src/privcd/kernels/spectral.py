"""Norms of X and an upper bound on the top eigenvalue of X^T X.

The smoothness constants feed step sizes and clipping thresholds, so they must not depend on
the storage format: the norms sum stored entries in the same order for both layouts (the same
bits); the eigenvalue bound holds for both and they agree to within its rounding margin.
"""
import numpy as np
from numba import njit

from privcd.validation import is_sparse_matrix

# Largest min(n, p) for which the top eigenvalue comes from the formed k x k Gram matrix: its
# dense symmetric eigensolver takes 0.3 s at k = 1,000, 1.1 s at 2,000 and 4.5 s at 3,000 on two
# cores, where Lanczos on dense random data (crowded top eigenvalues) took 10 s at 20,000 x 2,000.
# scipy is imported on first use (privcd.validation.is_sparse_matrix: a fit alone does not need it).
GRAM_LIMIT = 2048


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


def top_gram_eigenvalue_bound(X, sq_frobenius):
    """An upper bound on ``lambda_max(X^T X) = ||X||_2^2``, exceeding it by at most about
    ``(n + p) u ||X||_F^2`` (u = 2^-53, the unit roundoff), for dense or sparse ``X`` of shape (n, p).

    The Gram matrix of the shorter side, ``G = X^T X`` (p <= n) or ``X X^T`` (k = min(n, p)),
    has the same top eigenvalue. With ``k <= GRAM_LIMIT`` it is formed (BLAS ``syrk`` for dense X,
    a sparse product otherwise) and its top eigenvalue ``mu`` computed by LAPACK (``eigvalsh``);
    otherwise ``mu`` is the Ritz value of ARPACK's Lanczos (``eigsh``, ``which="LA"``) on
    ``v -> X^T (X v)`` from a seeded start vector ``v0``, plus the residual ``||G v - mu v||`` of its
    unit Ritz vector v. The returned bound is ``mu + (gamma_{n+p} + (k + 4) u) ||X||_F^2``,
    ``gamma_m = m u / (1 - m u)``:

    * each entry of the computed Gram matrix (or product ``G v``) is a sum of at most ``n + p``
      products, off by at most ``gamma_{n+p} (|X|^T |X|)_{jl}`` (Higham, *Accuracy and Stability
      of Numerical Algorithms*, 2nd ed., Section 3.5), and ``|| |X|^T |X| ||_2 <= ||X||_F^2``: by
      Weyl's inequality the top eigenvalue moves by at most ``gamma_{n+p} ||X||_F^2``;
    * the symmetric eigensolver is backward stable, its eigenvalues exact for a perturbation of
      norm ``c(k) u ||G||_2`` (LAPACK Users' Guide, Section 4.7), with ``c(k) = k`` taken for its
      "modest function" and ``||G||_2 <= ||X||_F^2``; the 4 more units cover the last roundings
      (the margin's sum, and the caller's product with the curvature and division by n);
    * Lanczos: for any unit v and scalar mu, some eigenvalue of G lies within ``||G v - mu v||``
      of mu (Parlett, *The Symmetric Eigenvalue Problem*, Theorem 4.5.1); it is the top one when
      Lanczos converged to it, which ``which="LA"`` with a random start gives except when ``v0``
      has (numerically) no component along the top eigenvector: the limit of this branch.

    ``sq_frobenius`` is ``||X||_F^2`` (the sum of the column norms the caller has already).
    """
    n, p = X.shape
    k = min(n, p)
    u = np.finfo(np.float64).eps / 2
    margin = ((n + p) * u / (1 - (n + p) * u) + (k + 4) * u) * sq_frobenius
    if k <= GRAM_LIMIT:
        return _gram_top_eigenvalue(X, transpose=p <= n) + margin
    return _lanczos_top_eigenvalue(X, transpose=p <= n) + margin


def _gram_top_eigenvalue(X, transpose):
    """Top eigenvalue of the formed ``X^T X`` (``transpose``) or ``X X^T`` (upper triangle read)."""
    from scipy.linalg import eigvalsh
    if is_sparse_matrix(X):
        gram = ((X.T @ X) if transpose else (X @ X.T)).toarray()
    else:
        from scipy.linalg.blas import dsyrk
        gram = dsyrk(1.0, X, trans=1 if transpose else 0)  # X Fortran-ordered: no copy
    k = gram.shape[0]
    return float(eigvalsh(gram, lower=False, subset_by_index=[k - 1, k - 1], check_finite=False)[0])


def _lanczos_top_eigenvalue(X, transpose):
    """Ritz value of Lanczos on ``v -> X^T (X v)`` (``transpose``) or ``X (X^T v)``, plus its residual."""
    from scipy.sparse.linalg import LinearOperator, eigsh
    k = min(X.shape)
    if transpose:
        def product(v):
            return np.asarray(X.T @ (X @ v)).ravel()
    else:
        def product(v):
            return np.asarray(X @ (X.T @ v)).ravel()
    operator = LinearOperator((k, k), matvec=product, dtype=np.float64)
    start = np.random.default_rng(0).standard_normal(k)
    values, vectors = eigsh(operator, k=1, which="LA", v0=start, tol=1e-10)
    value, vector = float(values[0]), vectors[:, 0]
    residual = np.linalg.norm(product(vector) - value * vector) / np.linalg.norm(vector)
    return value + float(residual)
