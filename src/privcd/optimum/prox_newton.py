"""Proximal Newton with working sets for non-smooth separable penalties (``"l1"``; skglm's ``ProxNewton``).

Each iteration takes the support plus the coordinates that most violate their optimality
condition, minimises the quadratic model of f plus psi on them by coordinate descent on the k x k
Hessian (for L1, a few CD passes then feature-sign search (Lee, Battle, Raina, Ng 2007), which
solves the model exactly whatever its conditioning), and backtracks on F with the line search of
:mod:`privcd.optimum.newton`.
"""
import numpy as np
import scipy.linalg as sla

from privcd.kernels.cd_solver import model_decrease, penalized_quadratic_cd, prox_gradient_scores
from privcd.optimum.newton import _MAX_ROUNDING_STEPS, _Solver, _weighted_gram

_INITIAL_WS = 10         # initial working-set size of the proximal Newton solver
_CD_WORK = 2e8           # budget of multiply-adds for CD on one working-set model
_CD_MAX_EPOCHS = 20_000
_CD_GUESS_EPOCHS = 20    # CD passes that guess the L1 model's sign pattern
_FS_STEPS_PER_COORDINATE = 20  # budget of feature-sign steps, per working-set coordinate


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


# -- the working-set model: coordinate descent, feature-sign search -------------------------------

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
