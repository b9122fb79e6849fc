"""Public bounds on the features: what makes an estimator's constants independent of the data.

Every primal method steps with smoothness constants and clips with thresholds derived from them
(dp-cd Sections 5.1 and 6); computed from X they leak, since they are released without noise
(:class:`privcd.problem.DataDependentConstantsWarning`). An estimator therefore works from public
bounds that the user gives, as diffprivlib does (``data_norm=`` of its ``LogisticRegression``,
``bounds=`` of its other models):

* ``bounds = (lower, upper)``, per feature or for all: every entry is clipped into its interval,
  so ``|x_ij| <= B_j = max(|lower_j|, |upper_j|)``;
* ``data_norm = R``: every row is then scaled down to L2 norm at most R.

Both are record-by-record maps fixed before the data are seen, so neighbouring datasets stay
neighbours and the guarantee is unchanged (the model is that of the clipped records). Without
either, the bounds are read off the data (per-feature minimum and maximum, largest row norm), and
a :class:`PrivacyLeakWarning` says so and how to avoid it.
"""
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse


class PrivacyLeakWarning(UserWarning):
    """An estimator read something from the private data that its (epsilon, delta) does not cover."""


@dataclass(frozen=True)
class PublicBounds:
    """The bounds a fit works with: ``feature`` (B_j, shape (p,)) and ``row_norm`` (R)."""

    feature: np.ndarray
    row_norm: float


def check_bounds(bounds, n_features):
    """``(lower, upper)`` as two float arrays of shape (p,), with ``lower_j < upper_j``, finite."""
    try:
        lower, upper = bounds
        lower = np.broadcast_to(np.asarray(lower, dtype=np.float64), (n_features,)).copy()
        upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), (n_features,)).copy()
    except (TypeError, ValueError):
        raise ValueError(f"bounds={bounds!r}: expected (lower, upper), each a number or {n_features} numbers, "
                         "one per feature") from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))) or np.any(lower >= upper):
        raise ValueError(f"bounds={bounds!r}: expected finite lower < upper for every feature")
    return lower, upper


def check_data_norm(data_norm):
    """``data_norm`` as a positive finite float."""
    if isinstance(data_norm, bool) or not isinstance(data_norm, (int, float, np.integer, np.floating)) \
            or not np.isfinite(data_norm) or data_norm <= 0:
        raise ValueError(f"data_norm={data_norm!r}: expected a positive finite number, a public bound on "
                         "every record's L2 norm")
    return float(data_norm)


def clip_features(X, lower, upper):
    """``X`` with every entry clipped into ``[lower_j, upper_j]`` (a new array or sparse matrix).

    Sparse X keeps its zeros, so its intervals must contain 0."""
    if not scipy.sparse.issparse(X):
        return np.clip(X, lower, upper)
    if np.any(lower > 0) or np.any(upper < 0):
        raise ValueError("bounds must contain 0 for every feature of a sparse X (its zeros are not stored "
                         "and cannot be clipped)")
    X = scipy.sparse.csc_matrix(X, dtype=np.float64, copy=True)
    column = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
    X.data = np.clip(X.data, lower[column], upper[column])
    return X


def row_norms(X):
    """The rows' L2 norms ``||x_i||`` of a dense array or sparse matrix, shape (n,)."""
    if scipy.sparse.issparse(X):
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return np.sqrt(np.einsum("ij,ij->i", X, X))


def clip_rows(X, data_norm):
    """``X`` with every row scaled down to L2 norm at most ``data_norm`` (a new array or matrix)."""
    scale = np.minimum(1.0, data_norm / np.maximum(row_norms(X), np.finfo(np.float64).tiny))
    if scipy.sparse.issparse(X):
        return scipy.sparse.diags(scale) @ X
    return X * scale[:, None]


def apply_public_bounds(X, *, bounds, data_norm, owner):
    """Clip X to the public bounds given and return ``(X, PublicBounds)``.

    Without ``bounds`` and ``data_norm``, warns (:class:`PrivacyLeakWarning`, naming ``owner``) and
    reads the bounds off X: the largest ``|x_ij|`` per feature and the largest row norm.
    """
    n_features = X.shape[1]
    if bounds is None and data_norm is None:
        warnings.warn(
            f"{owner}: neither bounds= nor data_norm= was given, so the features' bounds and the largest "
            "row norm are read from the data; they set the step sizes and clipping thresholds, are not "
            "covered by epsilon, and leak. Give public bounds (bounds=(lower, upper) per feature, or "
            "data_norm=R for the rows' L2 norms), e.g. from the features' documented ranges",
            PrivacyLeakWarning, stacklevel=5)
        largest = abs(X).max(axis=0)
        feature = np.asarray(largest.toarray() if scipy.sparse.issparse(largest) else largest,
                             dtype=np.float64).ravel()
        feature = np.where(feature > 0, feature, 1.0)  # an all-zero feature never moves; any bound holds
        return X, PublicBounds(feature, max(float(row_norms(X).max()), np.finfo(np.float64).tiny))
    feature = np.full(n_features, np.inf)
    if bounds is not None:
        lower, upper = check_bounds(bounds, n_features)
        X = clip_features(X, lower, upper)
        feature = np.maximum(np.abs(lower), np.abs(upper))
    if data_norm is not None:
        data_norm = check_data_norm(data_norm)
        X = clip_rows(X, data_norm)
        feature = np.minimum(feature, data_norm)
    row_norm = data_norm if data_norm is not None else float(np.sqrt(np.sum(feature**2)))
    return X, PublicBounds(feature, row_norm)


def with_intercept(X, bounds, scaling):
    """``[X, scaling]``: the intercept as a constant feature (as liblinear's ``intercept_scaling``),
    with bounds ``B_{p+1} = scaling`` and ``R' = sqrt(R^2 + scaling^2)``."""
    column = np.full((X.shape[0], 1), scaling)
    X = scipy.sparse.hstack([X, column], format="csc") if scipy.sparse.issparse(X) else np.hstack([X, column])
    return X, PublicBounds(np.append(bounds.feature, scaling), float(np.hypot(bounds.row_norm, scaling)))
