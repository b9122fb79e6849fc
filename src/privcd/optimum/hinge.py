"""The certified optimum of the L2-regularised hinge-loss SVM (dp-scd Section 5, "SVMs (Adult)").

Primal (privcd's ``Problem(X, y, "hinge", "l2", lam)``)::

    F(w) = (1/n) sum_i max(0, 1 - y_i <x_i, w>) + (lam / 2) ||w||^2.

Dual (dp-scd eq. (3) with the hinge conjugate; Hsieh et al., ICML 2008, with ``C = 1 / (lam n)``)::

    D(alpha) = (1/n) sum_i alpha_i - (lam / 2) ||w(alpha)||^2,   alpha in [0, 1]^n,
    w(alpha) = X^T (alpha * y) / (lam n).

Weak duality gives ``D(alpha) <= F* <= F(w)`` for every ``alpha`` in the box and every ``w``, so
``F(w) - D(alpha)`` certifies ``w``. The hinge loss has no second derivative, so the Newton
solvers (:mod:`privcd.optimum.newton`, :mod:`privcd.optimum.prox_newton`) do not apply; instead:

1. liblinear's dual coordinate descent (``sklearn.svm.LinearSVC(loss="hinge", dual=True,
   fit_intercept=False, C=1/(lam n))``, the same minimiser since its objective is ``F / lam``)
   gives a starting ``w``.
2. Active-set polish (KKT system, :func:`dual_point`): for each margin tolerance tau of a ladder,
   the records with margin ``m_i = y_i <x_i, w> < 1 - tau`` get ``alpha_i = 1``, those with
   ``m_i > 1 + tau`` get 0, and those on the margin (E) the ``alpha_E`` in [0, 1] that put them on
   it, ``y_E X_E w(alpha) = 1``. At the optimum's partition this certifies to rounding (phishing,
   lam = 1e-4: 4e-15), but liblinear often stops short of that partition. The pair
   ``(w or w(alpha), alpha)`` with the smallest gap is kept.
3. Dual coordinate descent (:func:`hinge_dual_cd`) from the polished dual point, certified by
   ``F(w(alpha)) - D(alpha)`` every :data:`EPOCHS_PER_CHECK` epochs until the requested precision.
"""
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import lsq_linear
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from privcd.kernels.layout import row_arrays
from privcd.kernels.svm_dual_cd import hinge_dual_cd

ROUNDING = 16 * np.finfo(np.float64).eps   # allowance for rounding in F - D (as privcd.optimum.newton)
TAUS = np.logspace(-12, -2, 11)            # margin tolerances tried for the set E
LIBLINEAR_TOL = 1e-12
LIBLINEAR_MAX_ITER = 100_000
EPOCHS_PER_CHECK = 50                       # dual CD epochs between two certificates


def check_hinge_problem(problem):
    """The dual above needs the L2 penalty with ``lam > 0``; ``NotImplementedError`` otherwise."""
    if problem.penalty.name != "l2" or problem.lam <= 0.0:
        raise NotImplementedError(
            f"solve_nonprivate certifies the hinge loss only with penalty='l2' and lam > 0 (the SVM "
            f"dual, privcd.optimum.hinge); got penalty={problem.penalty.name!r}, lam={problem.lam!r}")


def solve_hinge(problem, tol, max_epochs):
    """``(w, F(w), gap, epochs)`` with ``gap <= tol |F(w)|``, or the best pair when ``max_epochs`` runs out.

    liblinear's ``w`` and its polished dual points (:func:`polish`) give the first certificate and
    the starting dual point; dual coordinate descent (:func:`hinge_dual_cd`) then continues from
    that point, certifying ``(w(alpha), alpha)`` every :data:`EPOCHS_PER_CHECK` epochs.
    """
    check_hinge_problem(problem)
    lam_n = problem.lam * problem.n_samples
    gap, w, alpha = min(polish(problem, _liblinear(problem)), key=lambda triple: triple[0])
    v = lam_n * primal_of(problem, alpha)
    rng = np.random.default_rng(0)
    epochs = 0
    while gap > tol * abs(problem.objective(w)) and epochs < max_epochs:
        hinge_dual_cd(*row_arrays(problem), problem.y, problem.row_norms ** 2, lam_n, alpha, v,
                      EPOCHS_PER_CHECK, rng)
        epochs += EPOCHS_PER_CHECK
        candidate = v / lam_n
        candidate_gap = gap_of(problem, candidate, alpha)
        if candidate_gap < gap:
            gap, w = candidate_gap, candidate
    return w, problem.objective(w), gap, epochs


def polish(problem, w):
    """``(gap, w', alpha)`` for the dual point alpha of each KKT partition of ``w`` and ``w'`` either
    ``w`` or ``w(alpha)`` (module docstring, step 2)."""
    triples = []
    for tau in TAUS:
        alpha = dual_point(problem, w, tau)
        for candidate in (w, primal_of(problem, alpha)):
            triples.append((gap_of(problem, candidate, alpha), candidate, alpha))
    return triples


def hinge_gap(problem, w):
    """The smallest certificate ``F(w) - D(alpha)`` over the dual points of :func:`dual_point`."""
    check_hinge_problem(problem)
    w = np.asarray(w, dtype=np.float64)
    return min(gap_of(problem, w, dual_point(problem, w, tau)) for tau in TAUS)


def gap_of(problem, w, alpha):
    """``F(w) - D(alpha)`` plus a rounding allowance (``alpha`` in the box, module docstring)."""
    n = problem.n_samples
    F = problem.objective(w)
    dual = float(alpha.sum()) / n - 0.5 * problem.lam * float(np.sum(primal_of(problem, alpha) ** 2))
    return max(F - dual, 0.0) + ROUNDING * max(abs(F), abs(dual))


def primal_of(problem, alpha):
    """``w(alpha) = X^T (alpha * y) / (lam n)``."""
    return np.asarray(problem.X.T @ (alpha * problem.y), dtype=np.float64).ravel() / (problem.lam * problem.n_samples)


def dual_point(problem, w, tau):
    """The box-feasible ``alpha`` of the KKT partition of ``w`` at margin tolerance ``tau``.

    ``alpha = 1`` where ``m_i < 1 - tau``, 0 where ``m_i > 1 + tau``; on the margin set E,
    ``w_E`` = the projection of ``w(alpha_L)`` on ``{v : y_i <x_i, v> = 1, i in E}`` (the minimiser of
    F on that face), then the ``alpha_E`` in [0, 1] whose ``w(alpha)`` is closest to ``w_E``
    (bounded least squares ``X_E^T Y alpha_E ~ lam n w_E - X_L^T y_L``, scipy's BVLS; zero residual
    at the optimum's partition). E is often rank deficient (adult has duplicate records): both
    steps are least-squares solves, never inverses of ``X_E X_E^T``.
    """
    y, lam_n = problem.y, problem.lam * problem.n_samples
    margins = y * problem.linear_predictor(w)
    alpha = (margins < 1.0 - tau).astype(np.float64)
    edge = np.flatnonzero(np.abs(margins - 1.0) <= tau)
    if edge.size:
        X_edge = problem.X[edge]
        signed = (X_edge.toarray() if sp.issparse(X_edge) else np.asarray(X_edge)) * y[edge, None]
        base = primal_of(problem, alpha)
        # w_E = base + S^T mu with S (base + S^T mu) = 1: least-norm correction onto the face
        correction = np.linalg.lstsq(signed, 1.0 - signed @ base, rcond=None)[0]
        target = lam_n * correction  # X_E^T Y alpha_E must equal lam n (w_E - base)
        alpha[edge] = lsq_linear(signed.T, target, bounds=(0.0, 1.0), method="bvls").x
    return alpha


def _liblinear(problem):
    """liblinear's dual coordinate descent (deterministic: ``random_state=0``)."""
    C = 1.0 / (problem.lam * problem.n_samples)
    model = LinearSVC(C=C, loss="hinge", dual=True, fit_intercept=False, tol=LIBLINEAR_TOL,
                      max_iter=LIBLINEAR_MAX_ITER, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the gap below decides, not liblinear
        model.fit(problem.X, problem.y)
    return np.ascontiguousarray(model.coef_.ravel(), dtype=np.float64)
