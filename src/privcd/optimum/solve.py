"""solve_nonprivate: the certified non-private optimum of a problem, and the checks around it.

``solve_nonprivate(problem)`` returns ``w_star`` with ``F(w_star) - F* <= gap <= tol |F(w_star)|``,
where ``gap`` is a Fenchel duality gap (:mod:`privcd.optimum.certificate`). Methods (all
deterministic):

* smooth penalty (``"l2"``, ``None``): damped Newton with Armijo backtracking
  (:mod:`privcd.optimum.newton`).
* non-smooth penalty (``"l1"``): proximal Newton on a working set, skglm's ``ProxNewton``
  (:mod:`privcd.optimum.prox_newton`).
* hinge loss with the L2 penalty (the SVM of dp-scd): liblinear, an active-set polish and dual
  coordinate descent certified by the SVM duality gap (:mod:`privcd.optimum.hinge`). Dual CD
  converges sublinearly on degenerate data (adult has duplicate records), so the hinge loss's
  default precision is :data:`HINGE_TOL` = 1e-6 (measured: 51 s on adult, lam = 1e-5), not 1e-9.

Unpenalised problems can lack a usable optimum: logistic regression on (quasi-)separable data has
no minimiser (:class:`~privcd.optimum.result.NoMinimizerError`; confirmed here by a linear
programme), least squares with rank X = n has ``F* = 0``
(:class:`~privcd.optimum.result.ZeroOptimumError`).
"""
import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from privcd.kernels.dispatch import loss_second_derivative
from privcd.kernels.evaluate import loss_derivatives
from privcd.optimum.hinge import solve_hinge
from privcd.optimum.newton import _NewtonSolver
from privcd.optimum.prox_newton import _ProxNewtonSolver
from privcd.optimum.result import NoMinimizerError, NonPrivateOptimum, OptimumNotCertifiedError, _separation_message
from privcd.validation import check_number, check_positive_int

DEFAULT_TOL = 1e-9
HINGE_TOL = 1e-6         # default relative gap for the hinge loss (module docstring)
HINGE_MAX_EPOCHS = 20_000


def solve_nonprivate(problem, *, tol=None, max_iter=200):
    """The non-private optimum of ``problem``, certified by a duality gap.

    Parameters
    ----------
    problem : Problem
        Any loss with a ``loss_second_derivative`` branch (logistic, squared) and any registered
        penalty (None, "l1", "l2"); the hinge loss with the L2 penalty and lam > 0.
    tol : float in (0, 1), optional
        Required bound on the relative suboptimality: stop once ``gap <= tol * |F(w)|``. Default
        :data:`DEFAULT_TOL` (1e-9), :data:`HINGE_TOL` (1e-6) for the hinge loss.
    max_iter : int
        Budget of (proximal) Newton steps (hinge loss: :data:`HINGE_MAX_EPOCHS` dual CD epochs).

    Returns
    -------
    NonPrivateOptimum
        ``w_star, f_star = solve_nonprivate(problem)``; also ``.gap``, ``.iterations``, ``.method``.

    Raises
    ------
    OptimumNotCertifiedError
        If ``gap <= tol |F|`` is not reached within ``max_iter`` steps, or progress stalls at
        rounding level first; the message gives the best relative gap reached.
    NoMinimizerError
        Logistic loss without penalty on (quasi-)separable data: F has no minimiser. Detected when
        an iterate separates the data, or by a linear programme when Newton fails to certify or
        some record's dual weight has all but vanished.
    NotImplementedError
        A loss or smooth penalty the solver has no second derivative for.
    """
    dual_cd = problem.loss.solver == "svm-dual-cd"
    tol = check_number("tol", (HINGE_TOL if dual_cd else DEFAULT_TOL) if tol is None else tol, low=0.0, high=1.0)
    max_iter = check_positive_int("max_iter", max_iter)
    if dual_cd:
        return _solve_hinge(problem, tol)
    _check_supported(problem)
    problem = _without_void_penalty(problem)
    # one BLAS thread: the factorisations here are small, and on a shared 2-core machine threaded
    # OpenBLAS makes them 5-15x slower (measured); one thread also fixes the summation order
    with threadpool_limits(limits=1):
        solver = _NewtonSolver(problem) if problem.penalty.smooth else _ProxNewtonSolver(problem)
        try:
            result = solver.run(tol, max_iter)
        except OptimumNotCertifiedError:
            if _may_lack_minimizer(problem):
                _check_minimizer_exists(problem)  # raises NoMinimizerError if that is the reason
            raise
        if _may_lack_minimizer(problem) and _looks_divergent(problem, result, tol):
            _check_minimizer_exists(problem)
        return result


def _solve_hinge(problem, tol):
    """The SVM optimum (:mod:`privcd.optimum.hinge`) as a :class:`NonPrivateOptimum`."""
    with threadpool_limits(limits=1):
        w, f_star, gap, epochs = solve_hinge(problem, tol, HINGE_MAX_EPOCHS)
    if gap > tol * abs(f_star):
        raise OptimumNotCertifiedError(
            f"solve_nonprivate could not certify {problem!r}: {HINGE_MAX_EPOCHS} dual coordinate descent "
            f"epochs reached a relative gap of {gap / abs(f_star):.3g} > tol={tol:g}; raise tol")
    return NonPrivateOptimum(w, f_star, gap, epochs, "svm-dual-cd")


# -- checks ---------------------------------------------------------------------------------------

def _without_void_penalty(problem):
    """``lam = 0`` makes any penalty 0; its dual (a box or ball of radius 0) is the unpenalised one."""
    if problem.penalty.name is None or problem.lam > 0.0:
        return problem
    return problem.with_penalty(None, 0.0)


def _check_supported(problem):
    if problem.loss.solver == "none":
        raise NotImplementedError(f"solve_nonprivate has no solver for loss {problem.loss.name!r} (its "
                                  "LossSpec.solver is 'none')")
    if np.isnan(loss_second_derivative(problem.loss.code, 0.0, 1.0)):
        raise NotImplementedError(f"solve_nonprivate has no second derivative for loss "
                                  f"{problem.loss.name!r}; "
                                  "give the loss a second_derivative (privcd.losses.base)")
    if problem.penalty.smooth and problem.penalty.name not in (None, "l2"):
        raise NotImplementedError(f"solve_nonprivate has no Hessian for smooth penalty "
                                  f"{problem.penalty.name!r}")


def _may_lack_minimizer(problem):
    """Unpenalised logistic regression (and any loss whose infimum is unattained on separable data):
    F has no minimiser when the data are (quasi-)separable."""
    return problem.penalty.name is None and problem.loss.unattained_on_separable


def _looks_divergent(problem, result, tol):
    """Whether some record is fitted so well that it may be separated by a direction along which F
    keeps decreasing: on quasi-separable data the gap to ``inf F`` closes while ``||w||`` grows,
    and those records' weights ``alpha_i = -y_i l'(z_i)`` shrink to about ``n tol F`` or below."""
    z = problem.linear_predictor(result.w_star)
    alpha = -problem.y * loss_derivatives(problem.loss.code, z, problem.y)
    return float(alpha.min()) < max(1e-6, 10.0 * problem.n_samples * tol * abs(result.f_star))


def _check_minimizer_exists(problem):
    """Raise :class:`NoMinimizerError` if some direction d separates the data (y_i <x_i, d> >= 0, not all 0).

    Then ``F(t d)`` decreases to ``inf F`` as ``t -> inf`` and the infimum is not attained. Linear
    programme: maximise ``sum_i y_i <x_i, d>`` subject to ``y_i <x_i, d> >= 0`` and ``|d_j| <= 1``; its
    value is 0 exactly when no such direction exists (Stiemke's alternative: then some alpha > 0 has
    ``sum_i alpha_i y_i x_i = 0``, which the optimum's ``alpha_i = sigmoid(-y_i z_i)`` provides).
    Degenerate and slow on big problems (16 s on madelon), so only run once Newton has failed.
    """
    X, y = problem.X, problem.y
    A = sp.csr_matrix(X).multiply(y[:, None]).tocsr() if problem.is_sparse else X * y[:, None]
    c = -np.asarray(A.sum(axis=0), dtype=np.float64).ravel()
    result = linprog(c, A_ub=-A, b_ub=np.zeros(problem.n_samples), bounds=(-1.0, 1.0), method="highs")
    if result.status != 0:
        return  # undecided: the caller's certificate error stands
    margins = np.asarray(A @ result.x, dtype=np.float64).ravel()
    # |margin_i| <= ||x_i||_1 when |d_j| <= 1; HiGHS meets constraints to about 1e-7
    row_scale = float(np.max(abs(A).sum(axis=1)))
    if margins.max() > 1e-6 * row_scale and margins.min() >= -1e-7 * row_scale:
        raise NoMinimizerError(_separation_message(problem, margins > 1e-7 * row_scale))
