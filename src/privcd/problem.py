"""The composite ERM problem of the papers (dp-cd eq. (1), dp-gcd eq. (1)):

    F(w) = f(w) + psi(w),   f(w) = (1/n) sum_i l(<w, x_i>, y_i),

with ``l`` a registered loss and ``psi`` a separable penalty times ``lam``.
"""
import copy
import math
from functools import cached_property

import numpy as np

from privcd.kernels.linalg import matvec_columns
from privcd.kernels.layout import column_arrays, row_arrays
from privcd.kernels.spectral import column_sq_norms, row_sq_norms, top_gram_eigenvalue_bound
from privcd.kernels.evaluate import data_fit_value, loss_derivatives, penalty_sum
from privcd.losses import get_loss
from privcd.penalties import get_penalty
from privcd.validation import (check_choice, check_labels, check_matrix, check_number, check_positive, check_vector,
                               is_sparse_matrix, ordered_copy, read_only)


CONSTANTS = (None, "data")
ROW_NORM_TOLERANCE = 1e-12  # relative: rows scaled to norm R may come out a few ulps above it


class DataDependentConstantsWarning(UserWarning):
    """A private fit steps with smoothness constants computed from X without noise and not declared
    public (:class:`Problem`'s ``constants`` and ``row_norm_bound``)."""


class DataDependentBoundsWarning(UserWarning):
    """A private fit reads per-feature bounds off X (DP-CD-P without ``feature_bound``) and publishes
    them, outside the guarantee."""


class Problem:
    """A linear model's private ERM problem.

    Parameters
    ----------
    X : ndarray of shape (n, p) or scipy sparse matrix
        Features, one row per record. The Problem keeps its own read-only float64 copy
        (:func:`privcd.validation.check_matrix`: Fortran-ordered when dense; CSR or CSC with
        duplicates summed, indices sorted and explicit zeros removed when sparse), so changing the
        caller's X afterwards changes nothing, and every norm is that of the dense equivalent.
    y : ndarray of shape (n,)
        Labels: in {-1, 1} for ``"logistic"``, real for ``"squared"``; copied read-only as X.
    loss : str
        A name registered in :data:`privcd.losses.LOSSES`.
    penalty : None, "l1" or "l2"
        ``psi = lam ||w||_1`` or ``(lam / 2) ||w||_2^2``.
    lam : float
        Regularisation strength, ``>= 0``.
    constants : None or "data"
        Where the smoothness constants :attr:`M` and :attr:`beta` come from, which set the step
        sizes and clipping thresholds of the primal methods (dp-cd Sections 5.1 and 6, Appendix
        G.1), DP-GCD's selection and DP-SkGD's sketch probabilities. ``"data"``: computed from X
        and declared public by the user, the papers' assumption (dp-cd Sections 5.1 and 5.3,
        Appendix G.1). ``None`` (default): computed from X the same way, but undeclared: a private
        fit that uses them warns (:class:`DataDependentConstantsWarning`), since they are
        released without noise and the (epsilon, delta) guarantee does not cover them.
    row_norm_bound : float, optional
        A public bound R on every record's L2 norm, instead of ``constants``: the constants are
        then the data-independent ``M_j = beta = curvature R^2``, which bound those of any dataset
        whose rows have norm <= R (``||X_{:,j}||^2 <= ||X||_F^2 <= n R^2`` and
        ``||X||_2^2 <= ||X||_F^2``), so they reveal nothing about X. Every row of X is checked
        (``ValueError`` naming the largest row otherwise; an excess below a relative
        ``ROW_NORM_TOLERANCE``, the rounding of a normalisation, passes).
        (DP-CD can also estimate the M_j privately: ``smoothness="private"``, dp-cd Section 5.3.)
    feature_bound : float or array of shape (p,), optional
        Public bounds ``|x_ij| <= B_j`` on every feature (a scalar bounds them all), instead of
        ``constants`` and beside ``row_norm_bound`` or alone: the constants are then the
        data-independent ``M_j = curvature min(B_j^2, R^2)`` (``(1/n) sum_i x_ij^2 <= B_j^2``) and
        ``beta = curvature min(R^2, sum_j B_j^2)`` (``||X||_2^2 <= ||X||_F^2 <= n sum_j B_j^2``),
        tighter per coordinate than R alone when the features have different ranges. Every entry
        of X is checked (``ValueError`` naming the first entry out of bounds).
    """

    def __init__(self, X, y, loss, penalty=None, lam=0.0, *, constants=None, row_norm_bound=None,
                 feature_bound=None):
        self.loss = get_loss(loss)
        self.penalty = get_penalty(penalty)
        self.lam = check_number("lam", lam, low=0.0, low_open=False)
        self.constants = check_choice("constants", constants, CONSTANTS)
        for name, bound in (("row_norm_bound", row_norm_bound), ("feature_bound", feature_bound)):
            if bound is not None and constants is not None:
                raise ValueError(f"constants={constants!r} and {name}={bound!r}: give one source of the "
                                 "smoothness constants, not both")
        if row_norm_bound is not None:
            row_norm_bound = check_positive("row_norm_bound", row_norm_bound)
        self.row_norm_bound = row_norm_bound
        self.X = check_matrix(X)
        self.y = check_labels(y, self.X.shape[0], self.loss.labels)
        self.is_sparse = is_sparse_matrix(self.X)
        self.feature_bound = None if feature_bound is None else self._feature_bounds(feature_bound)
        if row_norm_bound is not None:
            self._check_row_norm_bound()

    @property
    def public_constants(self):
        """The smoothness constants are public: declared so (``constants="data"``) or data-independent
        (``row_norm_bound``)."""
        return self.constants == "data" or self.row_norm_bound is not None or self.feature_bound is not None

    def with_penalty(self, penalty, lam):
        """The same problem (the same read-only X and y, shared, and the same constants) with
        another penalty."""
        other = copy.copy(self)
        other.penalty = get_penalty(penalty)
        other.lam = check_number("lam", lam, low=0.0, low_open=False)
        return other

    @property
    def n_samples(self):
        return self.X.shape[0]

    @property
    def n_features(self):
        return self.X.shape[1]

    def __repr__(self):
        kind = "sparse" if self.is_sparse else "dense"
        return (f"Problem(n={self.n_samples}, p={self.n_features}, {kind}, loss={self.loss.name!r}, "
                f"penalty={self.penalty.name!r}, lam={self.lam:g})")

    # -- storage the kernels read: columns for coordinate methods, rows for sample methods --
    @cached_property
    def columns(self):
        """X laid out for column access, read-only: Fortran-ordered dense array or canonical CSC
        (``X`` itself unless X is CSR)."""
        if self.is_sparse:
            return self.X if self.X.format == "csc" else _canonical(self.X.tocsc())
        return self.X

    @cached_property
    def rows(self):
        """X laid out for row access, read-only: C-ordered dense array or canonical CSR
        (``X`` itself when X is CSR; a second copy otherwise, made on first use by a sample method)."""
        if self.is_sparse:
            return self.X if self.X.format == "csr" else _canonical(self.X.tocsr())
        return read_only(ordered_copy(self.X, "C"))

    # -- objective --
    def linear_predictor(self, w):
        """``Xw``, summed column by column in the same order for dense and sparse storage."""
        return matvec_columns(*column_arrays(self), self._check_w(w), self.n_samples)

    def objective(self, w):
        """``F(w) = (1/n) sum_i l(<w, x_i>, y_i) + psi(w)``."""
        w = self._check_w(w)
        z = self.linear_predictor(w)
        return data_fit_value(self.loss.code, z, self.y) + penalty_sum(self.penalty.code, w, self.lam)

    def gradient(self, w):
        """Gradient of the data-fitting part, ``grad f(w) = (1/n) X^T l'(Xw, y)`` (psi excluded)."""
        z = self.linear_predictor(w)
        return np.asarray(self.X.T @ loss_derivatives(self.loss.code, z, self.y), dtype=np.float64).ravel() / self.n_samples

    # -- smoothness --
    @cached_property
    def column_sq_norms(self):
        """``||X_{:,j}||_2^2`` for every feature j."""
        return column_sq_norms(*column_arrays(self), self.n_features)

    @cached_property
    def row_norms(self):
        """``||x_i||_2`` for every record i."""
        return np.sqrt(row_sq_norms(*row_arrays(self), self.n_samples))

    @cached_property
    def M(self):
        """Coordinate-wise smoothness constants of f, ``M_j = curvature ||X_{:,j}||^2 / n`` (dp-cd
        Section 5.3), or with public bounds ``curvature min(B_j^2, R^2)`` (``feature_bound = B``,
        ``row_norm_bound = R``; either alone gives its own term)."""
        bound = self._public_sq_bounds()
        if bound is not None:
            return self._curvature() * bound
        return self._curvature() * self.column_sq_norms / self.n_samples

    @cached_property
    def beta(self):
        """Global smoothness constant of f, ``curvature * ||X||_2^2 / n`` (dp-cd Appendix G.1).

        ``||X||_2^2`` is a guaranteed upper bound on the top eigenvalue of ``X^T X``, within about
        ``(n + p) u ||X||_F^2`` of it (u the unit roundoff;
        :func:`privcd.kernels.spectral.top_gram_eigenvalue_bound`), so ``step / beta`` never
        exceeds the step the true constant allows. Dense and sparse storage of the same X agree
        to within that margin (no longer bit for bit). With ``row_norm_bound = R``: ``curvature R^2``.
        """
        curvature = self._curvature()
        if self.row_norm_bound is not None or self.feature_bound is not None:
            row = math.inf if self.row_norm_bound is None else self.row_norm_bound**2
            features = math.inf if self.feature_bound is None else float(np.sum(self.feature_bound**2))
            return curvature * min(row, features)
        top = top_gram_eigenvalue_bound(self.columns, float(self.column_sq_norms.sum()))
        return curvature * top / self.n_samples

    def _curvature(self):
        """The loss's curvature; ``ValueError`` for a non-smooth loss, whose M and beta do not exist."""
        if not np.isfinite(self.loss.curvature):
            raise ValueError(f"loss={self.loss.name!r} is not smooth (infinite curvature): the smoothness "
                             "constants M and beta that primal methods (dp-cd, dp-sgd, ...) step with do "
                             "not exist; use a dual method such as 'dp-scd'")
        return self.loss.curvature

    def _public_sq_bounds(self):
        """``min(B_j^2, R^2)`` per feature from the public bounds given, or ``None`` without any."""
        if self.row_norm_bound is None and self.feature_bound is None:
            return None
        row = np.full(self.n_features, np.inf if self.row_norm_bound is None else self.row_norm_bound**2)
        return row if self.feature_bound is None else np.minimum(row, self.feature_bound**2)

    def _feature_bounds(self, feature_bound):
        """``feature_bound`` as a read-only array of p positive bounds, checked against every entry of X."""
        bound = np.asarray(feature_bound, dtype=np.float64)
        if bound.ndim == 0:
            bound = np.full(self.n_features, float(bound))
        if bound.shape != (self.n_features,) or not np.all(np.isfinite(bound)) or np.any(bound <= 0):
            raise ValueError(f"feature_bound={feature_bound!r}: expected a positive finite number or {self.n_features} "
                             "of them, one per feature")
        largest = np.abs(self.X).max(axis=0)
        largest = np.asarray(largest.toarray() if hasattr(largest, "toarray") else largest, dtype=np.float64).ravel()
        over = np.flatnonzero(largest > bound * (1 + ROW_NORM_TOLERANCE))
        if over.size:
            j = int(over[0])
            raise ValueError(f"feature_bound is exceeded: feature {j} of X reaches |x_ij| = {float(largest[j])!r} "
                             f"above its bound {float(bound[j])!r}; every |x_ij| must be <= feature_bound[j]")
        return read_only(bound)

    def _check_row_norm_bound(self):
        largest = int(np.argmax(self.row_norms))
        if self.row_norms[largest] > self.row_norm_bound * (1 + ROW_NORM_TOLERANCE):
            raise ValueError(f"row_norm_bound={self.row_norm_bound!r} is exceeded: row {largest} of X has L2 norm "
                             f"{float(self.row_norms[largest])!r}; every row must have norm <= row_norm_bound")

    def _check_w(self, w):
        return check_vector("w", w, self.n_features)


def _canonical(X):
    """The Problem's canonical sparse X converted to the other format (CSR <-> CSC): no duplicates
    or zeros to start with; indices sorted, arrays read-only."""
    X.sort_indices()
    return read_only(X)
