"""solve_nonprivate: the certified optimum every relative error is measured against.

Modelled on celer's tests/test_lasso.py: compare with scikit-learn on the same objective, and check
the duality-gap certificate independently (the dual value is recomputed here with numpy from the
textbook conjugates, not with privcd's functions).
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.linear_model import Lasso, LogisticRegression, Ridge

import privcd
from privcd import optimum
from privcd.optimum import newton
from privcd.kernels.dispatch import loss_second_derivative
from privcd.kernels.dispatch import loss_derivative
from privcd.losses import LOSSES
from privcd.optimum import (NoMinimizerError, OptimumNotCertifiedError, ZeroOptimumError, duality_gap,
                            solve_nonprivate)
from privcd.penalties import PENALTIES

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
TOL = 1e-9


def make_problem(loss, penalty, lam, *, n=150, p=20, sparse=False, seed=0, noise=1.0, density=0.5):
    """Imbalanced columns (log-normal scales), exact zeros; labels with noise (not separable for n >> p)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.lognormal(sigma=1.0, size=p)
    X[rng.random((n, p)) > density] = 0.0
    w_true = rng.normal(size=p)
    if LOSSES[loss].utility == "accuracy":  # class labels; a weighted loss's carry weights in [0.2, 1]
        y = np.where(X @ w_true + noise * rng.normal(size=n) * np.std(X @ w_true) > 0, 1.0, -1.0)
        if LOSSES[loss].labels is None:
            y *= rng.uniform(0.2, 1.0, size=n)
    else:
        y = X @ w_true + 0.5 * noise * rng.normal(size=n)
    return privcd.Problem(sp.csc_matrix(X) if sparse else X, y, loss, penalty, lam)


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def reference_dual(problem, w):
    """The Fenchel dual value at the dual point built from w, from the textbook formulas.

    Computed in extended precision (``np.longdouble``, a 64-bit mantissa on x86-64): near the
    optimum F - D is about 1e-13 F, and in float64 this plain evaluation alone is off by about
    1e-14 F (measured on the squared + L1 problem), more than the slack the certificate check allows.
    """
    X, y, n = dense(problem.X).astype(np.longdouble), problem.y.astype(np.longdouble), problem.n_samples
    lam, w = np.longdouble(problem.lam), np.asarray(w, dtype=np.longdouble)
    z = X @ w
    if problem.loss.name == "logistic":
        u = -y / (1.0 + np.exp(y * z))

        def conjugate(a):
            t = -a * y
            assert np.all((t >= 0) & (t <= 1))
            return _xlogx(t) + _xlogx(1 - t)
    elif problem.loss.name in ("squared", "huber"):
        residual = z - y  # Huber: the squared loss's conjugate on its slope's range [-2, 2]
        u = 2.0 * (residual if problem.loss.name == "squared" else np.clip(residual, -1, 1))

        def conjugate(a):
            if problem.loss.name == "huber":  # projected duals may leave [-2, 2] by rounding only
                assert np.all(np.abs(a) <= 2 + 1e-9)
                a = np.clip(a, -2, 2)
            return a * a / 4 + a * y
    elif problem.loss.name == "weighted-logistic":  # weight r = |y|, label s = sign(y): r times the logistic's
        weight, sign = np.abs(y), np.where(y >= 0, 1.0, -1.0)
        u = -weight * sign / (1.0 + np.exp(sign * z))

        def conjugate(a):
            t = -a * sign / weight
            assert np.all((t >= -1e-12) & (t <= 1 + 1e-12))  # projected duals leave [0, 1] by rounding only
            t = np.clip(t, 0, 1)
            return weight * (_xlogx(t) + _xlogx(1 - t))
    else:
        raise NotImplementedError(f"no textbook dual for loss {problem.loss.name!r}: add it here")
    v = -X.T @ u / n
    if problem.penalty.name == "l1":
        s = min(1.0, lam / np.abs(v).max())
        return -np.mean(conjugate(s * u))
    if problem.penalty.name == "l2":
        return -np.mean(conjugate(u)) - v @ v / (2 * lam)
    coefficients = np.linalg.lstsq(X.astype(np.float64), u.astype(np.float64), rcond=None)[0]
    theta = u - X @ coefficients.astype(np.longdouble)  # X^T theta = 0
    return -np.mean(conjugate(theta))


def _xlogx(t):
    """``t log t`` with ``0 log 0 = 0``, in the precision of ``t`` (scipy's xlogy is float64 only)."""
    return np.where(t > 0, t * np.log(np.where(t > 0, t, 1)), 0)


def sklearn_solution(problem):
    """scikit-learn's minimiser of the same F, at its tightest tolerances."""
    X, y, n, lam = problem.X, problem.y, problem.n_samples, problem.lam
    loss, penalty = problem.loss.name, problem.penalty.name
    if loss == "squared" and penalty == "l1":  # sklearn: ||y - Xw||^2 / (2n) + alpha ||w||_1 = F / 2
        model = Lasso(alpha=lam / 2, fit_intercept=False, tol=1e-14, max_iter=10**6)
    elif loss == "squared" and penalty == "l2":  # ||y - Xw||^2 + alpha ||w||^2 = n F
        model = Ridge(alpha=n * lam / 2, fit_intercept=False, tol=1e-14)
    elif penalty == "l1":  # C sum_i l_i + ||w||_1 = C n F
        model = LogisticRegression(C=1 / (n * lam), l1_ratio=1.0, solver="liblinear", fit_intercept=False,
                                   tol=1e-12, max_iter=10**5)
    else:
        model = LogisticRegression(C=1 / (n * lam), l1_ratio=0.0, solver="newton-cholesky",
                                   fit_intercept=False, tol=1e-14, max_iter=1000)
    model.fit(X, y)
    return model.coef_.ravel()


def assert_certified(problem, result, tol=TOL):
    """gap is small, is at least F - D from the reference dual, and F(w_star) is the shared evaluator's."""
    assert result.f_star == problem.objective(result.w_star)
    assert result.gap <= tol * abs(result.f_star)
    plain_gap = result.f_star - reference_dual(problem, result.w_star)
    assert result.gap >= plain_gap - 1e-14 * abs(result.f_star)


# -- against scikit-learn ------------------------------------------------------------------------

@pytest.mark.parametrize("storage", ["dense", "sparse"])
@pytest.mark.parametrize("loss,penalty,lam", [("squared", "l1", 0.05), ("squared", "l2", 0.01),
                                              ("logistic", "l1", 0.02), ("logistic", "l2", 0.01)])
def test_matches_sklearn(loss, penalty, lam, storage):
    problem = make_problem(loss, penalty, lam, sparse=storage == "sparse")
    result = solve_nonprivate(problem)
    assert_certified(problem, result)
    w_sklearn = sklearn_solution(problem)
    f_sklearn = problem.objective(w_sklearn)
    # F(w_sklearn) >= F* >= f_star - gap: ours is never worse than sklearn's by more than the gap
    assert result.f_star <= f_sklearn + result.gap
    assert f_sklearn <= result.f_star + 1e-9 * abs(result.f_star)  # and sklearn is close too
    scale = max(1.0, np.abs(w_sklearn).max())
    np.testing.assert_allclose(result.w_star, w_sklearn, rtol=0, atol=1e-5 * scale)
    if penalty == "l1":
        assert 0 < np.count_nonzero(result.w_star) < problem.n_features  # the test problem is sparse


def test_unpenalised_least_squares_matches_lstsq():
    problem = make_problem("squared", None, 0.0, n=200, p=15)
    w_star, f_star = solve_nonprivate(problem)
    w_lstsq = np.linalg.lstsq(problem.X, problem.y, rcond=None)[0]
    np.testing.assert_allclose(w_star, w_lstsq, rtol=1e-8, atol=1e-10)
    assert_certified(problem, solve_nonprivate(problem))


def test_unpenalised_logistic_matches_sklearn():
    problem = make_problem("logistic", None, 0.0, n=600, p=6, noise=1.0, density=1.0)
    result = solve_nonprivate(problem)
    assert_certified(problem, result)
    model = LogisticRegression(C=np.inf, solver="newton-cholesky", fit_intercept=False, tol=1e-14,
                               max_iter=1000)
    w_sklearn = model.fit(problem.X, problem.y).coef_.ravel()
    assert result.f_star <= problem.objective(w_sklearn) + result.gap
    np.testing.assert_allclose(result.w_star, w_sklearn, rtol=1e-5, atol=1e-8)


# -- the certificate -----------------------------------------------------------------------------

def _loaded(name):
    path = DATASETS / name
    if not path.exists():
        pytest.skip(f"dataset {path} not found (see /work/shared/datasets/MANIFEST.md)")
    return pd.read_csv(path)


def _lam_max(X, y, loss):
    u = -y / 2 if loss == "logistic" else -2 * y  # l'(0, y)
    return np.abs(X.T @ u).max() / len(y)


def california():
    frame = _loaded("california.csv.gz")
    X, y = frame.drop(columns="target").to_numpy(float), frame["target"].to_numpy(float)
    return privcd.Problem(X, y, "squared", "l1", 0.01 * _lam_max(X, y, "squared"))


def electricity_raw():
    frame = _loaded("electricity.csv.gz")
    X = frame.drop(columns="target").to_numpy(float)  # the 8 columns before target, raw scales
    y = np.where(frame["target"] == "UP", 1.0, -1.0)
    return privcd.Problem(X, y, "logistic", "l2", 1.0 / len(y))


def madelon_raw():
    frame = _loaded("madelon.csv.gz")
    X, y = frame.drop(columns="target").to_numpy(float), frame["target"].to_numpy(float)
    return privcd.Problem(X, y, "logistic", "l1", 0.1 * _lam_max(X, y, "logistic"))


@pytest.mark.parametrize("build", [california, electricity_raw, madelon_raw])
def test_real_data_certified(build):
    problem = build()
    result = solve_nonprivate(problem)
    assert_certified(problem, result)
    if problem.penalty.name == "l1":
        assert 0 < np.count_nonzero(result.w_star) < problem.n_features
    if problem.n_features <= 10:  # an independent solution cannot beat the certified lower bound
        w_sklearn = sklearn_solution(problem)
        assert problem.objective(w_sklearn) >= result.f_star - result.gap


@pytest.mark.parametrize("loss,penalty,lam", [("squared", "l1", 0.05), ("logistic", "l1", 0.02),
                                              ("logistic", "l2", 1e-3), ("squared", None, 0.0)])
def test_gap_bounds_every_nearby_point(loss, penalty, lam):
    """No point near w_star (random, or proximal-gradient steps) goes below f_star - gap."""
    problem = make_problem(loss, penalty, lam, n=200, p=15)
    result = solve_nonprivate(problem)
    floor = result.f_star - result.gap
    rng = np.random.default_rng(3)
    for scale in np.logspace(-8, 0, 9):
        for _ in range(5):
            assert problem.objective(result.w_star + scale * rng.normal(size=problem.n_features)) >= floor
    grad = problem.gradient(result.w_star)
    for step in np.logspace(-6, 0, 7) / problem.beta:
        trial = result.w_star - step * grad
        if penalty == "l1":
            trial = np.sign(trial) * np.maximum(np.abs(trial) - step * lam, 0.0)
        elif penalty == "l2":
            trial = trial / (1 + step * lam)
        assert problem.objective(trial) >= floor


def test_duality_gap_of_any_point_is_a_bound():
    problem = make_problem("logistic", "l1", 0.02)
    w_star, f_star = solve_nonprivate(problem, tol=1e-12)
    w = np.random.default_rng(4).normal(size=problem.n_features)
    gap = duality_gap(problem, w)
    assert problem.objective(w) - f_star <= gap
    assert gap == pytest.approx(problem.objective(w) - reference_dual(problem, w), rel=1e-10)


# -- every registered loss and penalty, every storage and Newton path ----------------------------

# Losses without a second derivative: the Newton solvers refuse them; the hinge loss has its own
# solver for the L2 penalty only (tests/test_hinge_optimum.py). Any other loss must work.
UNSUPPORTED_LOSSES = {name for name, spec in LOSSES.items() if spec.solver != "newton"}


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_every_loss_has_a_second_derivative(loss):
    code = LOSSES[loss].code
    if loss in UNSUPPORTED_LOSSES:
        assert np.isnan(loss_second_derivative(code, 0.0, 1.0))
        with pytest.raises(NotImplementedError, match=loss):
            solve_nonprivate(make_problem(loss, "l1", 0.1))
        return
    h = 1e-6
    for z in (-30.0, -2.3, -0.1, 0.05, 0.7, 5.0):  # away from kinks (the Huber loss's at |z - y| = 1)
        for y in (-1.0, 1.0):
            numeric = (loss_derivative(code, z + h, y) - loss_derivative(code, z - h, y)) / (2 * h)
            assert loss_second_derivative(code, z, y) == pytest.approx(numeric, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("loss", sorted(set(LOSSES) - set(UNSUPPORTED_LOSSES)))
@pytest.mark.parametrize("penalty", sorted(PENALTIES, key=str))
def test_every_registered_combination_is_certified(loss, penalty):
    lam = 0.0 if penalty is None else 0.02
    problem = make_problem(loss, penalty, lam, n=400, p=8, density=1.0)  # n >> p: a minimiser exists
    assert_certified(problem, solve_nonprivate(problem))


@pytest.mark.parametrize("loss,penalty,lam", [("logistic", "l1", 0.02), ("logistic", "l2", 1e-3),
                                              ("squared", "l1", 0.05)])
def test_dense_and_sparse_agree(loss, penalty, lam):
    results = [solve_nonprivate(make_problem(loss, penalty, lam, sparse=sparse)) for sparse in (False, True)]
    dense_result, sparse_result = results
    assert abs(dense_result.f_star - sparse_result.f_star) <= dense_result.gap + sparse_result.gap
    np.testing.assert_allclose(dense_result.w_star, sparse_result.w_star, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(dense_result.w_star == 0, sparse_result.w_star == 0)


@pytest.mark.parametrize("n,p,method", [(40, 120, "newton-woodbury"), (120, 40, "newton-cg"),
                                        (40, 120, "newton-cg")])
@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_newton_paths_agree(n, p, method, loss, monkeypatch):
    """The n x n Woodbury solve (p > n) and matrix-free CG give the certified optimum of the p x p solve."""
    problem = make_problem(loss, "l2", 1e-3, n=n, p=p, sparse=True)
    reference = solve_nonprivate(make_problem(loss, "l2", 1e-3, n=n, p=p))
    if method == "newton-cg":  # both sides above the factorisation cap
        monkeypatch.setattr(newton, "_DIRECT_CAP", min(n, p) - 1)
    result = solve_nonprivate(problem)
    assert result.method == method
    assert_certified(problem, result)
    assert abs(result.f_star - reference.f_star) <= result.gap + reference.gap
    np.testing.assert_allclose(result.w_star, reference.w_star, rtol=0, atol=1e-5)


def test_deterministic():
    problem = make_problem("logistic", "l1", 0.02, sparse=True)
    first = solve_nonprivate(problem)
    again = solve_nonprivate(make_problem("logistic", "l1", 0.02, sparse=True))
    assert first.w_star.tobytes() == again.w_star.tobytes()
    assert (first.f_star, first.gap, first.iterations) == (again.f_star, again.gap, again.iterations)


def test_result_api():
    problem = make_problem("squared", "l1", 0.05)
    result = solve_nonprivate(problem)
    w_star, f_star = result
    assert w_star is result.w_star and f_star == result.f_star
    assert result.method == "prox-newton" and result.iterations >= 1
    assert result.relative_gap == result.gap / result.f_star


# -- errors --------------------------------------------------------------------------------------

def test_budget_too_small_raises():
    problem = make_problem("logistic", "l1", 0.02)
    with pytest.raises(OptimumNotCertifiedError, match=r"max_iter=1 steps ran out; the best certified"):
        solve_nonprivate(problem, max_iter=1)


def test_tolerance_below_rounding_raises():
    problem = make_problem("logistic", "l2", 0.01)
    with pytest.raises(OptimumNotCertifiedError, match="could not certify"):
        solve_nonprivate(problem, tol=1e-17)


def test_separable_logistic_without_penalty_has_no_minimiser():
    problem = make_problem("logistic", None, 0.0, n=30, p=40, noise=0.0)
    with pytest.raises(NoMinimizerError, match="no minimiser"):
        solve_nonprivate(problem)
    rng = np.random.default_rng(0)  # one record with a feature of its own: quasi-separable
    X = np.column_stack([rng.normal(size=200), np.eye(200)[0]])
    y = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    with pytest.raises(NoMinimizerError, match="quasi-separable"):
        solve_nonprivate(privcd.Problem(X, y, "logistic"))


def test_interpolating_least_squares_is_rejected():
    with pytest.raises(ZeroOptimumError, match="interpolates"):
        solve_nonprivate(make_problem("squared", None, 0.0, n=30, p=40, density=1.0))


@pytest.mark.parametrize("kwargs,match", [({"tol": 0.0}, "tol"), ({"tol": 1.5}, "tol"),
                                          ({"tol": "1e-9"}, "tol"), ({"max_iter": 0}, "max_iter"),
                                          ({"max_iter": 2.5}, "max_iter")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_nonprivate(make_problem("squared", "l2", 0.1), **kwargs)


def test_bad_input_is_rejected_by_problem():
    X = np.ones((5, 2))
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        privcd.Problem(X, np.ones(5), "squared", "l1", 0.1)


def test_working_set_model_is_solved_exactly_when_badly_conditioned():
    """Raw madelon-like columns (480 + small noise): CD alone crawls, the sign-pattern solve finishes."""
    rng = np.random.default_rng(5)
    A = 480.0 + rng.normal(size=(300, 40)) * rng.uniform(0.5, 20.0, size=40)
    hessian = np.ascontiguousarray(A.T @ A / 300)
    g = rng.normal(size=40) * 50.0
    lam = 10.0
    v = optimum._solve_model(PENALTIES["l1"], lam, hessian, g, np.zeros(40), 1e-12)
    model_grad = g + hessian @ v
    active = v != 0
    assert 0 < active.sum() < 40
    np.testing.assert_allclose(model_grad[active], -lam * np.sign(v[active]), rtol=0, atol=1e-9 * lam)
    assert np.all(np.abs(model_grad[~active]) <= lam * (1 + 1e-9))


def test_unpenalised_gap_stays_a_bound_without_minimiser():
    """Quasi-separable data: record 0 has a feature of its own, so F keeps decreasing along w_1."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200), np.eye(200)[0]])
    y = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    y[0] = 1.0
    problem = privcd.Problem(X, y, "logistic")
    for w0 in (-0.5, -0.23, 0.0, 0.1, 0.3):
        far = problem.objective(np.array([w0, 40.0]))
        for w1 in (2.0, 4.0, 8.0, 16.0):
            w = np.array([w0, w1])
            assert duality_gap(problem, w) >= problem.objective(w) - far


def test_coordinate_descent_model_path():
    """Penalties other than L1 solve the working-set model by CD alone: the ridge model in closed form."""
    rng = np.random.default_rng(6)
    A = rng.normal(size=(50, 8))
    hessian = np.ascontiguousarray(A.T @ A / 50)
    g, w0, lam = rng.normal(size=8), rng.normal(size=8), 0.3
    v = optimum._solve_model(PENALTIES["l2"], lam, hessian, g, w0, 1e-14)
    exact = np.linalg.solve(hessian + lam * np.eye(8), hessian @ w0 - g)
    np.testing.assert_allclose(v, exact, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_zero_lam_is_the_unpenalised_problem(loss):
    unpenalised = solve_nonprivate(make_problem(loss, None, 0.0, n=400, p=8, density=1.0))
    for penalty in ("l1", "l2"):
        problem = make_problem(loss, penalty, 0.0, n=400, p=8, density=1.0)
        result = solve_nonprivate(problem)
        assert result.gap <= TOL * result.f_star
        assert abs(result.f_star - unpenalised.f_star) <= result.gap + unpenalised.gap


def test_working_set_model_is_solved_exactly_when_singular():
    """More coordinates than records, and duplicated columns: singular faces, no unique minimiser."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(30, 80))
    A[:, 40:50] = A[:, :10]
    hessian = np.ascontiguousarray(A.T @ A / 30)
    g = A.T @ rng.normal(size=30) * 3.0  # in the range of the Hessian: the model is bounded below
    lam = 0.05
    v = optimum._solve_model(PENALTIES["l1"], lam, hessian, g, np.zeros(80), 1e-12)
    model_grad = g + hessian @ v
    active = v != 0
    assert 0 < active.sum() <= 30  # a vertex solution: at most rank-many non-zeros
    np.testing.assert_allclose(model_grad[active], -lam * np.sign(v[active]), rtol=0, atol=1e-9 * lam)
    assert np.all(np.abs(model_grad[~active]) <= lam * (1 + 1e-9))
