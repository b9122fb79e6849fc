"""The certified SVM optimum (privcd.optimum.hinge via solve_nonprivate), against scikit-learn."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

import privcd
from privcd.optimum.hinge import gap_of, primal_of
from privcd.optimum import HINGE_TOL, duality_gap, solve_nonprivate


def svm_problem(n=300, p=6, lam=1e-2, seed=0, sparse=False, duplicates=0):
    """Unit-norm rows (as dp-scd), noisy labels; ``duplicates`` repeated records (degenerate dual)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=p) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    if duplicates:
        X, y = np.vstack([X, X[:duplicates]]), np.concatenate([y, y[:duplicates]])
    return privcd.Problem(sp.csr_matrix(X) if sparse else X, y, "hinge", "l2", lam)


def sklearn_svm(problem):
    """LinearSVC minimises ||w||^2 / 2 + C sum_i hinge_i = F / lam with C = 1 / (lam n)."""
    model = LinearSVC(C=1.0 / (problem.lam * problem.n_samples), loss="hinge", dual=True,
                      fit_intercept=False, tol=1e-10, max_iter=1_000_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(problem.X, problem.y)
    return model.coef_.ravel()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("lam", [1e-1, 1e-3])
def test_svm_optimum_is_certified_and_no_worse_than_liblinear(sparse, lam):
    problem = svm_problem(lam=lam, sparse=sparse)
    result = solve_nonprivate(problem)
    assert result.method == "svm-dual-cd"
    assert result.f_star == problem.objective(result.w_star)
    assert result.gap <= HINGE_TOL * result.f_star
    reference = problem.objective(sklearn_svm(problem))
    # F* lies in [f_star - gap, f_star], and scikit-learn's objective cannot be below F*
    assert reference >= result.f_star - result.gap
    assert result.f_star <= reference + result.gap
    np.testing.assert_allclose(result.w_star, sklearn_svm(problem), atol=1e-3)


def test_a_tight_tolerance_is_reached_on_non_degenerate_data():
    problem = svm_problem(n=200, p=5, lam=1e-2)
    result = solve_nonprivate(problem, tol=1e-11)
    assert result.gap <= 1e-11 * result.f_star


def test_degenerate_data_with_duplicate_records_are_certified():
    problem = svm_problem(n=300, p=6, lam=1e-3, duplicates=100)
    result = solve_nonprivate(problem)
    assert result.gap <= HINGE_TOL * result.f_star


def test_the_gap_bounds_the_suboptimality_of_any_point():
    problem = svm_problem()
    result = solve_nonprivate(problem)
    rng = np.random.default_rng(1)
    for _ in range(20):
        w = result.w_star + rng.normal(scale=0.3, size=problem.n_features)
        assert problem.objective(w) >= result.f_star - result.gap
        assert problem.objective(w) - (result.f_star - result.gap) <= duality_gap(problem, w) + 1e-12


def test_weak_duality_holds_for_any_box_point():
    problem = svm_problem(n=80)
    rng = np.random.default_rng(2)
    alpha = rng.random(problem.n_samples)
    assert gap_of(problem, primal_of(problem, alpha), alpha) >= 0.0
    f_star = solve_nonprivate(problem).f_star
    dual = alpha.sum() / problem.n_samples - 0.5 * problem.lam * np.sum(primal_of(problem, alpha) ** 2)
    assert dual <= f_star + 1e-12


def test_same_problem_same_bits():
    first, second = solve_nonprivate(svm_problem()), solve_nonprivate(svm_problem())
    assert first.w_star.tobytes() == second.w_star.tobytes()


@pytest.mark.parametrize("penalty, lam", [("l1", 0.1), (None, 0.0), ("l2", 0.0)])
def test_the_svm_needs_a_positive_l2_penalty(penalty, lam):
    problem = svm_problem()
    problem = privcd.Problem(problem.X, problem.y, "hinge", penalty, lam)
    with pytest.raises(NotImplementedError, match="hinge.*l2"):
        solve_nonprivate(problem)
