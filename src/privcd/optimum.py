"""The certified non-private optimum ``F* = inf_w F(w)`` every relative error of privcd is measured against.

``solve_nonprivate(problem)`` returns ``w_star`` with ``F(w_star) - F* <= gap <= tol |F(w_star)|``,
where ``gap`` is a Fenchel duality gap (celer/skglm style). With ``u_i = l'(<w, x_i>, y_i)`` and
``v = -(1/n) X^T u``, the dual point ``s u`` (``s`` = the penalty's ``dual_scaling(v, lam)``, which
makes ``psi*(s v)`` finite) has the dual value

    D = -(1/n) sum_i l*(s u_i, y_i) - psi*(s v),

and weak duality gives ``D <= F*``, so ``gap = F(w) - D`` (plus 16 ulps of rounding allowance)
bounds the suboptimality. For the L2 penalty this gap equals ``||grad F(w)||^2 / (2 lam)``, the
strong-convexity bound. Without a penalty ``psi*`` is the indicator of ``{0}``; the dual point is
then ``u`` projected on the null space of ``X^T`` (least squares: the normal-equations
certificate). Unpenalised problems can lack a usable optimum: logistic regression on
(quasi-)separable data has no minimiser (:class:`NoMinimizerError`), least squares with
rank X = n has ``F* = 0`` (:class:`ZeroOptimumError`).

Methods (all deterministic; products with X by numpy/scipy with one BLAS thread, everything
per-record or per-coordinate in the numba kernels of :mod:`privcd.kernels.cd_solver`):

* smooth penalty (``"l2"``, ``None``): damped Newton with Armijo backtracking. The Newton system is
  solved in the smaller of the two spaces: ``p x p`` Cholesky when ``p <= n``, the ``n x n``
  Woodbury form when ``p > n``, conjugate gradients when both exceed ``_DIRECT_CAP``. Newton is
  invariant to feature scaling, so raw, badly scaled features (electricity, madelon) cost no more
  than standardised ones.
* non-smooth penalty (``"l1"``): proximal Newton on a working set (skglm's ``ProxNewton``): each
  iteration takes the support plus the coordinates that most violate their optimality condition,
  minimises the quadratic model of f plus psi on them by coordinate descent on the k x k Hessian
  (for L1, a few CD passes then feature-sign search, which solves the model exactly whatever its
  conditioning), and backtracks on F.

* hinge loss with the L2 penalty (the SVM of dp-scd): liblinear, an active-set polish and dual
  coordinate descent certified by the SVM duality gap (:mod:`privcd.hinge_optimum`). Dual CD
  converges sublinearly on degenerate data (adult has duplicate records), so the hinge loss's
  default precision is :data:`HINGE_TOL` = 1e-6 (measured: 51 s on adult, lam = 1e-5), not 1e-9.

Once the predicted decrease of a step drops below the rounding noise of F, F cannot judge steps
any more: full steps are then taken and the gap alone decides (a few such steps without
certification are a stall, reported as :class:`OptimumNotCertifiedError`).
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from privcd.hinge_optimum import hinge_gap, solve_hinge
from privcd.kernels.cd_solver import (loss_derivatives_and_curvatures, mean_loss_along, mean_loss_conjugate, model_decrease,
                                      penalized_quadratic_cd, prox_gradient_scores,
                                      restore_dual_feasibility)
from privcd.kernels.dispatch import loss_second_derivative
from privcd.kernels.evaluate import data_fit_value, loss_derivatives, penalty_sum
from privcd.penalties import MODULES_BY_NAME
from privcd.validation import check_number, check_positive_int

DEFAULT_TOL = 1e-9
HINGE_TOL = 1e-6         # default relative gap for the hinge loss (module docstring)
HINGE_MAX_EPOCHS = 20_000
_ARMIJO = 1e-4           # sufficient-decrease constant of the backtracking line search
_MAX_HALVINGS = 60       # step sizes down to 2^-60 before a line search is declared stalled
_DIRECT_CAP = 4000       # largest min(n, p) for which the Newton system is factorised
_INITIAL_WS = 10         # initial working-set size of the proximal Newton solver
_CD_WORK = 2e8           # budget of multiply-adds for CD on one working-set model
_CD_MAX_EPOCHS = 20_000
_ROUNDING = 16 * np.finfo(np.float64).eps  # allowance for rounding in F - D
_NOISE = 64 * np.finfo(np.float64).eps     # relative rounding noise of an evaluation of F
_MAX_ROUNDING_STEPS = 5  # consecutive steps below that noise before the solver declares a stall
_DENSE_GRAM = 0.05       # densify sparse columns above this fill before forming a Hessian
_CD_GUESS_EPOCHS = 20    # CD passes that guess the L1 model's sign pattern
_FS_STEPS_PER_COORDINATE = 20  # budget of feature-sign steps, per working-set coordinate


class OptimumNotCertifiedError(RuntimeError):
    """The solver could not prove the requested precision within its budget."""


class NoMinimizerError(ValueError):
    """``F`` has no minimiser (unpenalised logistic regression on separable data)."""


class ZeroOptimumError(ValueError):
    """``F* = 0`` (unpenalised least squares that interpolates): relative errors are undefined."""


@dataclass(frozen=True, eq=False)
class NonPrivateOptimum:
    """A certified minimiser of ``F``; unpacks as ``w_star, f_star = result``.

    Attributes
    ----------
    w_star : ndarray of shape (p,)
        The minimiser found.
    f_star : float
        ``F(w_star)``, computed by :meth:`Problem.objective` (the shared evaluator).
    gap : float
        Duality gap at ``w_star``: ``f_star - gap <= F* <= f_star``.
    iterations : int
        (Proximal) Newton steps taken.
    method : str
        ``"newton"``, ``"newton-woodbury"``, ``"newton-cg"``, ``"prox-newton"`` or
        ``"svm-dual-cd"`` (hinge loss; ``iterations`` then counts dual CD epochs).
    """

    w_star: np.ndarray
    f_star: float
    gap: float
    iterations: int
    method: str

    def __iter__(self):
        yield self.w_star
        yield self.f_star

    @property
    def relative_gap(self):
        """``gap / |f_star|``, an upper bound on the relative suboptimality ``(F(w) - F*) / F(w)``."""
        return self.gap / abs(self.f_star) if self.f_star != 0.0 else (0.0 if self.gap == 0.0 else np.inf)


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
    hinge = problem.loss.name == "hinge"
    tol = check_number("tol", (HINGE_TOL if hinge else DEFAULT_TOL) if tol is None else tol, low=0.0, high=1.0)
    max_iter = check_positive_int("max_iter", max_iter)
    if hinge:
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


def duality_gap(problem, w):
    """The certificate of any ``w``: a number ``>= F(w) - F*`` (``inf`` if the dual point is infeasible)."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (problem.n_features,):
        raise ValueError(f"w has shape {w.shape}; expected ({problem.n_features},)")
    if problem.loss.name == "hinge":
        return float(hinge_gap(problem, w))
    _check_supported(problem)
    problem = _without_void_penalty(problem)
    state = _State(problem)
    state.evaluate(w)
    return float(state.gap())


def _solve_hinge(problem, tol):
    """The SVM optimum (:mod:`privcd.hinge_optimum`) as a :class:`NonPrivateOptimum`."""
    with threadpool_limits(limits=1):
        w, f_star, gap, epochs = solve_hinge(problem, tol, HINGE_MAX_EPOCHS)
    if gap > tol * abs(f_star):
        raise OptimumNotCertifiedError(
            f"solve_nonprivate could not certify {problem!r}: {HINGE_MAX_EPOCHS} dual coordinate descent "
            f"epochs reached a relative gap of {gap / abs(f_star):.3g} > tol={tol:g}; raise tol")
    return NonPrivateOptimum(w, f_star, gap, epochs, "svm-dual-cd")


# -- checks --------------------------------------------------------------------------------------

def _without_void_penalty(problem):
    """``lam = 0`` makes any penalty 0; its dual (a box or ball of radius 0) is the unpenalised one."""
    if problem.penalty.name is None or problem.lam > 0.0:
        return problem
    return problem.with_penalty(None, 0.0)


def _check_supported(problem):
    if np.isnan(loss_second_derivative(problem.loss.code, 0.0, 1.0)):
        raise NotImplementedError(f"solve_nonprivate has no second derivative for loss "
                                  f"{problem.loss.name!r}; "
                                  "give the loss a second_derivative (privcd.losses.base)")
    if problem.penalty.smooth and problem.penalty.name not in (None, "l2"):
        raise NotImplementedError(f"solve_nonprivate has no Hessian for smooth penalty "
                                  f"{problem.penalty.name!r}")


def _may_lack_minimizer(problem):
    """Unpenalised logistic regression: F has no minimiser when the data are (quasi-)separable."""
    return problem.penalty.name is None and problem.loss.name == "logistic"


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


def _separation_message(problem, separated):
    count = int(np.sum(separated))
    kind = "linearly separable" if count == problem.n_samples else "quasi-separable"
    return (f"logistic loss without penalty has no minimiser on these data: a direction d has "
            f"y_i <x_i, d> >= 0 for every record and > 0 for {count} of {problem.n_samples} (the data "
            f"are {kind}), so F(t d) decreases towards its infimum as t grows; use penalty='l2' or "
            "'l1' with lam > 0")


# -- shared state: z, u, h, gradient, objective and certificate at the current w -----------------

class _State:
    """Quantities at the current iterate; X products by numpy/scipy on ``problem.columns``."""

    def __init__(self, problem):
        self.problem = problem
        self.X = problem.columns
        self.n, self.p = problem.n_samples, problem.n_features
        self.loss_code, self.penalty_code = problem.loss.code, problem.penalty.code
        self.lam = problem.lam
        self.u = np.empty(self.n)
        self.h = np.empty(self.n)
        self._range_basis = None

    def evaluate(self, w):
        problem = self.problem
        self.w = w
        self.z = problem.linear_predictor(w)
        loss_derivatives_and_curvatures(self.loss_code, self.z, problem.y, self.u, self.h)
        self.grad = np.asarray(self.X.T @ self.u, dtype=np.float64).ravel() / self.n
        self.F = (data_fit_value(self.loss_code, self.z, problem.y)
                  + penalty_sum(self.penalty_code, w, self.lam))

    def objective_along(self, w, d, dz, t):
        """``F(w + t d)`` from ``z + t dz``."""
        return (mean_loss_along(self.loss_code, self.z, dz, t, self.problem.y)
                + penalty_sum(self.penalty_code, w + t * d, self.lam))

    def gap(self):
        """``F(w) - D(theta)`` for the dual point built from ``u`` (module docstring)."""
        problem = self.problem
        name = problem.penalty.name
        if name is None:
            theta = self._project_null_xt(self.u)
            moved = restore_dual_feasibility(self.loss_code, theta, self.u, problem.y)
            if moved > 1e-10 * np.max(np.abs(self.u), initial=0.0):
                return np.inf  # not a rounding artefact: theta is not a dual point with X^T theta = 0
            # X^T theta = 0 only up to rounding: charge |<X^T theta, w>| / n, the first-order
            # effect of that residual, to the gap
            residual = abs(float(np.asarray(self.X.T @ theta).ravel() @ self.w)) / self.n
            dual = -mean_loss_conjugate(self.loss_code, theta, 1.0, problem.y) - residual
        else:
            module = MODULES_BY_NAME[name]
            v = -self.grad
            s = module.dual_scaling(v, self.lam)
            dual = (-mean_loss_conjugate(self.loss_code, self.u, s, problem.y)
                    - module.conjugate(s * v, self.lam))
        if not np.isfinite(dual):
            return np.inf
        # F and D are sums of rounded terms: add a rounding allowance so the bound stays a bound
        return max(self.F - dual, 0.0) + _ROUNDING * max(abs(self.F), abs(dual))

    def range_basis(self):
        """Orthonormal basis of range(X) (computed once)."""
        if self._range_basis is None:
            self._range_basis = _range_basis(self.X, self.problem.is_sparse)
        return self._range_basis

    def _project_null_xt(self, u):
        """``u`` minus its orthogonal projection on range(X): a vector theta with ``X^T theta = 0``."""
        basis = self.range_basis()
        if basis.shape[1] == self.n:
            return np.zeros_like(u)
        return u - basis @ (basis.T @ u)


def _range_basis(X, is_sparse):
    """Orthonormal basis (n, r) of the column space of X, from an SVD (or the Gram of the smaller side)."""
    n, p = X.shape
    if min(n, p) > _DIRECT_CAP:
        raise NotImplementedError(f"the certificate for penalty=None needs a factorisation of X; "
                                  f"min(n, p) = {min(n, p)} exceeds {_DIRECT_CAP}")
    eps = np.finfo(np.float64).eps
    if not is_sparse:
        left, singular, _ = np.linalg.svd(X, full_matrices=False)
        rank = int(np.sum(singular > singular[0] * max(n, p) * eps)) if singular.size else 0
        return np.ascontiguousarray(left[:, :rank])
    if n <= p:
        values, vectors = np.linalg.eigh((X @ X.T).toarray())
        keep = values > values[-1] * max(n, p) * eps * 1e3
        return np.ascontiguousarray(vectors[:, keep])
    values, vectors = np.linalg.eigh((X.T @ X).toarray())
    keep = values > values[-1] * max(n, p) * eps * 1e3
    left = np.asarray(X @ (vectors[:, keep] / np.sqrt(values[keep])))
    q, _ = np.linalg.qr(left)  # re-orthonormalise what squaring the condition number blurred
    return np.ascontiguousarray(q)


# -- the two solvers ------------------------------------------------------------------------------

class _Solver:
    method = ""

    def __init__(self, problem):
        self.problem = problem
        self.state = _State(problem)
        self.rounding_steps = 0
        self.f_zero = np.nan

    def watch(self):
        """Unpenalised problems: stop when the iterate shows that F* is not a usable reference."""
        problem, state = self.problem, self.state
        if problem.penalty.name is not None:
            return
        if problem.loss.name == "logistic":
            margins = problem.y * state.z
            if margins.min() >= 0.0 and margins.max() > 0.0:  # w itself separates the data
                raise NoMinimizerError(_separation_message(problem, margins > 0.0))
        elif problem.loss.name == "squared" and state.F <= _NOISE ** 2 * self.f_zero:
            raise ZeroOptimumError(
                f"least squares without penalty fits these data exactly (F(w) = {state.F:.3g}, "
                f"F(0) = {self.f_zero:.3g}): F* = 0 up to rounding and relative errors to it are "
                "undefined; use penalty='l2' or 'l1' with lam > 0")

    def run(self, tol, max_iter):
        problem, state = self.problem, self.state
        w = np.zeros(problem.n_features)
        best = np.inf
        stalled = None
        for iteration in range(max_iter + 1):
            state.evaluate(w)
            if iteration == 0:
                self.f_zero = state.F
            self.watch()
            gap = state.gap()
            relative = gap / abs(state.F) if state.F != 0.0 else (0.0 if gap == 0.0 else np.inf)
            if relative < 0.8 * best:
                self.rounding_steps = 0  # steps below F's noise still shrink the gap: not a stall
            best = min(best, relative)
            if gap <= tol * abs(state.F):
                f_star = problem.objective(w)  # the shared evaluator; the gap is relative to state.F
                gap = float(gap + max(f_star - state.F, 0.0))
                return NonPrivateOptimum(w, f_star, gap, iteration, self.method)
            if iteration == max_iter:
                break
            w_next = self.step(w)
            if w_next is None:
                stalled = iteration
                break
            w = w_next
        if stalled is not None:
            where, advice = f"progress stalled at rounding level after {stalled} steps", "raise tol"
        else:
            where, advice = f"the budget of max_iter={max_iter} steps ran out", "raise max_iter or tol"
        raise OptimumNotCertifiedError(
            f"solve_nonprivate could not certify {problem!r}: {where}; the best certified relative "
            f"gap is {best:.3g} > tol={tol:g} (F(w) = {state.F:.17g}); {advice}")

    def line_search(self, w, d, dz, slope):
        """``w + t d`` with the largest ``t = 2^-k`` passing Armijo's test, or None if none does.

        ``slope`` is the predicted decrease (directional derivative, or the model decrease for the
        proximal step). Once it is below the rounding noise of F, F can no longer tell a good step
        from a bad one; the full (proximal) Newton step is then taken if F does not rise above that
        noise, and the certificate at the next iterate decides whether it helped. More than
        ``_MAX_ROUNDING_STEPS`` such steps without the gap shrinking by 20% (``run`` resets the
        count) mean the gap sits at its rounding floor: a stall.
        """
        state = self.state
        noise = _NOISE * abs(state.F)
        if abs(slope) <= noise:
            self.rounding_steps += 1
            if self.rounding_steps > _MAX_ROUNDING_STEPS:
                return None
            return w + d if state.objective_along(w, d, dz, 1.0) <= state.F + noise else None
        self.rounding_steps = 0
        if not slope < 0.0:
            return None
        t = 1.0
        for _ in range(_MAX_HALVINGS):
            if state.objective_along(w, d, dz, t) <= state.F + _ARMIJO * t * slope:
                return w + t * d
            t *= 0.5
        return None


class _NewtonSolver(_Solver):
    """Damped Newton for smooth penalties (``"l2"``: Hessian ``+ lam I``; None: pseudo-inverse)."""

    def __init__(self, problem):
        super().__init__(problem)
        n, p = problem.n_samples, problem.n_features
        self.ridge = problem.lam if problem.penalty.name == "l2" else 0.0
        if problem.penalty.name is None and problem.loss.name == "squared":
            rank = self.state.range_basis().shape[1]
            if rank == n:
                raise ZeroOptimumError(
                    f"least squares without penalty interpolates these data (rank X = n = {n}), so "
                    "F* = 0 and relative errors to it are undefined; use penalty='l2' or 'l1' with lam > 0")
        if p <= n and p <= _DIRECT_CAP:
            self.method = "newton"
        elif n < p and n <= _DIRECT_CAP:
            self.method = "newton-woodbury"
            X = problem.columns
            outer = X @ X.T
            self.outer = outer.toarray() if sp.issparse(outer) else np.asarray(outer)
        else:
            self.method = "newton-cg"

    def step(self, w):
        state = self.state
        rhs = -(state.grad + self.ridge * w)
        d = self.direction(rhs)
        if not np.all(np.isfinite(d)):
            return None
        dz = self.problem.linear_predictor(d)
        return self.line_search(w, d, dz, -float(rhs @ d))

    def direction(self, rhs):
        """Solve ``(X^T diag(h) X / n + ridge I) d = rhs`` (least-norm solution when singular)."""
        state, X, n = self.state, self.state.X, self.state.n
        h, ridge = state.h, self.ridge
        if self.method == "newton":
            hessian = _weighted_gram(X, h) / n
            hessian[np.diag_indices_from(hessian)] += ridge
            return _solve_psd(hessian, rhs)
        if self.method == "newton-woodbury":
            root = np.sqrt(h)
            kernel = root[:, None] * self.outer * root[None, :] / n
            if ridge > 0.0:
                # (B^T B + ridge I)^-1 = (I - B^T (ridge I + B B^T)^-1 B) / ridge,
                # B = diag(sqrt h) X / sqrt n
                kernel[np.diag_indices_from(kernel)] += ridge
                b = root * np.asarray(X @ rhs).ravel() / n
                a = _solve_psd(kernel, b)
                return (rhs - np.asarray(X.T @ (root * a)).ravel()) / ridge
            # no ridge: rhs = -X^T u / n; least-norm d = -X^T D^1/2 K^+ D^-1/2 u with K = D^1/2 X X^T D^1/2
            b = -state.u / np.where(root > 0.0, root, 1.0)
            a = _solve_psd(kernel, b / n)
            return np.asarray(X.T @ (root * a)).ravel()

        def hess_vec(v):
            return np.asarray(X.T @ (h * np.asarray(X @ v).ravel())).ravel() / n + ridge * v

        operator = spla.LinearOperator((state.p, state.p), matvec=hess_vec, dtype=np.float64)
        d, _ = spla.cg(operator, rhs, rtol=1e-12, maxiter=10 * state.p)
        return d


class _ProxNewtonSolver(_Solver):
    """Proximal Newton with working sets for non-smooth separable penalties (skglm's ProxNewton)."""

    method = "prox-newton"

    def __init__(self, problem):
        super().__init__(problem)
        self.ws_size = min(problem.n_features, _INITIAL_WS)
        self.lipschitz = problem.M
        self.scores = np.empty(problem.n_features)

    def step(self, w):
        p = self.problem.n_features
        while True:
            ws, complete = self.working_set(w)
            w_next = self.model_step(w, ws)
            if w_next is not None or complete or self.rounding_steps > _MAX_ROUNDING_STEPS:
                return w_next
            self.ws_size = min(p, 2 * self.ws_size)  # no progress on this working set: widen it

    def working_set(self, w):
        """The support plus the worst violators, ``ws_size`` in all; and whether every violator is in."""
        problem, state = self.problem, self.state
        prox_gradient_scores(problem.penalty.code, problem.lam, w, state.grad, self.lipschitz, self.scores)
        support = np.flatnonzero(w)
        self.ws_size = min(problem.n_features, max(self.ws_size, 2 * support.size))
        order = np.argsort(-self.scores, kind="stable")
        order = order[self.scores[order] > 0.0]
        violators = order[w[order] == 0.0]
        room = max(self.ws_size - support.size, 0)
        return np.union1d(support, violators[:room]), violators.size <= room

    def model_step(self, w, ws):
        """One proximal Newton step restricted to the coordinates ``ws``."""
        problem, state = self.problem, self.state
        if ws.size == 0:
            return None
        X_ws = state.X[:, ws]
        hessian = np.ascontiguousarray(_weighted_gram(X_ws, state.h) / state.n)
        g, w0 = state.grad[ws], w[ws]
        v = _solve_model(problem.penalty, problem.lam, hessian, g, w0, 1e-10 * np.sqrt(abs(state.F)))
        d_ws = v - w0
        if not np.any(d_ws):
            return None
        dz = np.asarray(X_ws @ d_ws, dtype=np.float64).ravel()
        d = np.zeros_like(w)
        d[ws] = d_ws
        slope = model_decrease(problem.penalty.code, problem.lam, g, w0, v)
        return self.line_search(w, d, dz, slope)


# -- linear algebra helpers -----------------------------------------------------------------------

def _weighted_gram(X, h):
    """``X^T diag(h) X`` as a dense symmetric array (X dense or sparse).

    A sparse X denser than ``_DENSE_GRAM`` is densified first: BLAS then beats sparse products by
    an order of magnitude (measured: 0.34 s against 0.018 s for a 1171 x 590 matrix 70% full).
    """
    if sp.issparse(X) and X.nnz > _DENSE_GRAM * X.shape[0] * X.shape[1]:
        X = X.toarray()
    if sp.issparse(X):
        gram = (X.T @ X.multiply(h[:, None]).tocsc()).toarray()
    else:
        gram = X.T @ (X * h[:, None])
    return (gram + gram.T) / 2.0


def _face_direction(kind, block, active, signs, new, g, hessian, w0, v, lam):
    """A direction (zero off the active set) for one feature-sign step, or None.

    ``"newton"``: towards the minimiser of q on the orthant face of ``signs`` (None when ``H_AA`` is
    not positive definite). ``"null"``: the eigenvector of the smallest eigenvalue of ``H_AA``, along
    which the smooth part is (nearly) flat, oriented so the L1 term does not grow: ``s . d <= 0``,
    or, when coordinate ``new`` (currently 0) joins with sign ``s_new``, ``d_new s_new > 0`` (with the
    support optimal, the L1 term then changes at rate ``|d_new| (lam - |grad_new|) < 0``).
    """
    direction = np.zeros_like(v)
    if kind == "newton":
        try:
            factor = sla.cho_factor(block, lower=False, check_finite=False)
        except (sla.LinAlgError, ValueError):
            return None
        rest = np.flatnonzero(signs == 0.0)
        rhs = -g[active] - lam * signs[active] + hessian[np.ix_(active, rest)] @ w0[rest]
        step = w0[active] + sla.cho_solve(factor, rhs, check_finite=False) - v[active]
        if not np.all(np.isfinite(step)):
            return None
        direction[active] = step
        return direction
    null = np.linalg.eigh(block)[1][:, 0]
    direction[active] = null
    if new >= 0 and abs(direction[new]) > 1e-8:
        flip = direction[new] * signs[new] < 0.0
    else:
        flip = signs[active] @ null > 0.0
    return -direction if flip else direction


def _best_on_segment(kind, v, direction, grad, hessian, lam, value):
    """The best point ``v + t d`` among t = 1 (Newton only) and the zero crossings (``(None, value,
    False)`` if none lowers q; a null step may also keep q while zeroing a coordinate).

    Returns ``(point, q(point), full)``, ``full`` when the point is the face minimiser (t = 1).
    Along the segment ``q(v + t d) - q(v) = t <grad, d> + t^2 d^T H d / 2 + lam (||v + t d||_1 - ||v||_1)``.
    """
    # zero crossings t_j = -v_j / d_j: within the segment (t <= 1) for Newton, anywhere for null
    towards_zero = (v != 0.0) & (v * direction < 0.0)
    crossing = np.flatnonzero(towards_zero)
    steps = -v[crossing] / direction[crossing]
    if kind == "newton":
        keep = steps <= 1.0
        candidates = [(1.0, -1)] + list(zip(steps[keep].tolist(), crossing[keep].tolist()))
    else:  # a null direction: only up to the first zero crossing
        candidates = [min(zip(steps.tolist(), crossing.tolist()))] if crossing.size else []
    slope, curvature = float(grad @ direction), float(direction @ (hessian @ direction))
    scale = abs(value) + lam * np.abs(v).sum()
    best, best_value, full = None, value, False
    for t, j in candidates:
        point = v + t * direction
        if j >= 0:
            point[j] = 0.0
        # the L1 change summed as differences, which stay exact where no sign changes: near the
        # optimum the decrease is far below the rounding of lam ||v||_1 itself
        change = t * slope + 0.5 * t * t * curvature + lam * float(np.sum(np.abs(point) - np.abs(v)))
        keeps = kind == "null" and change <= 1e-15 * scale
        if (change < 0.0 or keeps) and (best is None or value + change < best_value):
            best, best_value, full = point, value + change, j < 0
    return best, best_value, full


def _solve_psd(matrix, rhs):
    """Solve a symmetric positive semi-definite system: Cholesky, else least-norm least squares."""
    try:
        factor = sla.cho_factor(matrix, lower=False, check_finite=False)
        solution = sla.cho_solve(factor, rhs, check_finite=False)
        if np.all(np.isfinite(solution)):
            return solution
    except (sla.LinAlgError, ValueError):
        pass
    return sla.lstsq(matrix, rhs, lapack_driver="gelsd", check_finite=False)[0]


def _solve_model(penalty, lam, hessian, g, w0, cd_tol):
    """Minimise the working-set model ``q(v) = <g, v - w0> + (v - w0)^T H (v - w0) / 2 + psi(v)``.

    Coordinate descent (exact coordinate minimisation) for any penalty. It slows down when the
    model is badly conditioned (raw madelon columns are all close to 480 times the constant vector),
    so for L1 a few CD passes only guess the sign pattern, and feature-sign search finishes.
    """
    k = g.shape[0]
    v = w0.copy()
    if penalty.name != "l1":
        epochs = int(min(_CD_MAX_EPOCHS, max(50, _CD_WORK / (k * k))))
        penalized_quadratic_cd(penalty.code, lam, hessian, g, w0, v, epochs, cd_tol)
        return v
    penalized_quadratic_cd(penalty.code, lam, hessian, g, w0, v, _CD_GUESS_EPOCHS, cd_tol)
    return _feature_sign(penalty.code, hessian, g, w0, v, lam, cd_tol)


def _model_value(hessian, g, w0, v, lam):
    """``<g, v - w0> + (v - w0)^T H (v - w0) / 2 + lam ||v||_1``."""
    shift = v - w0
    return float(g @ shift + 0.5 * shift @ (hessian @ shift) + lam * np.abs(v).sum())


def _feature_sign(code, hessian, g, w0, v, lam, cd_tol):
    """Feature-sign search (Lee, Battle, Raina, Ng 2007) on the L1 model, from ``v``.

    With the active set A (support of v, plus the worst violator of ``|grad_j| <= lam`` once v is
    optimal on its support) and signs s, the model restricted to that orthant is a quadratic whose
    minimiser solves ``H_AA (x_A - w0_A) = -g_A - lam s_A + H_{A,T} w0_T`` (x = 0 off A). The step
    goes to the best of that minimiser and the points where a coordinate of the segment towards it
    changes sign (that coordinate set to 0). q decreases strictly, so no sign pattern repeats and
    the search ends, at the exact minimiser, in finitely many steps (within rounding).

    When ``H_AA`` is singular (more active coordinates than records, duplicate columns) the face
    has no unique minimiser: the step then follows a null direction of ``H_AA``, along which the
    smooth part is flat, oriented so the L1 term does not grow, to the first coordinate that
    reaches 0 (as LARS does), so the active set shrinks without q growing. CD passes are the
    fallback when rounding stops the decrease.
    """
    k = g.shape[0]
    value = _model_value(hessian, g, w0, v, lam)
    exact = False  # v minimises q on the orthant face of its sign pattern
    for _ in range(_FS_STEPS_PER_COORDINATE * k + 10):
        grad = g + hessian @ (v - w0)
        signs = np.sign(v)
        new = -1
        if exact:
            off = np.flatnonzero(v == 0.0)
            violation = np.abs(grad[off]) - lam
            if off.size == 0 or violation.max() <= 1e-12 * lam:
                return v
            new = off[np.argmax(violation)]
            signs[new] = -np.sign(grad[new])
        active = np.flatnonzero(signs)
        block = hessian[np.ix_(active, active)]
        best, best_value, full = None, value, False
        for kind in ("newton", "null"):
            direction = _face_direction(kind, block, active, signs, new, g, hessian, w0, v, lam)
            if direction is None:
                continue
            best, best_value, full = _best_on_segment(kind, v, direction, grad, hessian, lam, value)
            if best is not None:
                break
        if best is None:  # rounding: let CD try, stop if it cannot improve either
            penalized_quadratic_cd(code, lam, hessian, g, w0, v, _CD_GUESS_EPOCHS, cd_tol)
            new_value = _model_value(hessian, g, w0, v, lam)
            if not new_value < value:
                return v
            value, exact = new_value, False
            continue
        exact = full and bool(np.all(np.sign(best[active]) == signs[active]))
        v, value = best, _model_value(hessian, g, w0, best, lam)
    return v
