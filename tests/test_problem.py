"""Problem: objective, gradient, smoothness constants and input validation."""
import numpy as np
import pytest
import scipy.sparse as sp

import privcd
from conftest import make_problem
from privcd.kernels import spectral


@pytest.mark.parametrize("loss,penalty", [("logistic", "l2"), ("squared", "l1"), ("squared", None)])
def test_objective_matches_numpy(loss, penalty, storage):
    problem = make_problem(loss, penalty, 0.05, sparse=storage == "sparse")
    X = problem.X.toarray() if problem.is_sparse else problem.X
    w = np.random.default_rng(1).normal(size=problem.n_features)
    z = X @ w
    data = np.mean(np.logaddexp(0, -problem.y * z)) if loss == "logistic" else np.mean((z - problem.y) ** 2)
    reg = {None: 0.0, "l1": 0.05 * np.abs(w).sum(), "l2": 0.025 * w @ w}[penalty]
    assert problem.objective(w) == pytest.approx(data + reg, rel=1e-12)


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_gradient_matches_finite_differences(loss):
    problem = make_problem(loss, None, 0.0)
    w = np.random.default_rng(2).normal(size=problem.n_features) * 0.1
    h = 1e-6
    numeric = [(problem.objective(w + h * e) - problem.objective(w - h * e)) / (2 * h)
               for e in np.eye(problem.n_features)]
    np.testing.assert_allclose(problem.gradient(w), numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_smoothness_constants_bound_curvature(loss, storage):
    """M_j bounds the second derivative along coordinate j; beta bounds it along any direction."""
    problem = make_problem(loss, None, 0.0, sparse=storage == "sparse")
    X = problem.X.toarray() if problem.is_sparse else problem.X
    curvature = problem.loss.curvature
    np.testing.assert_allclose(problem.M, curvature * (X ** 2).sum(axis=0) / problem.n_samples, rtol=1e-12)
    assert problem.beta == pytest.approx(curvature * np.linalg.norm(X, 2) ** 2 / problem.n_samples, rel=1e-8)
    w = np.zeros(problem.n_features)
    h = 1e-2  # exact for the quadratic; O(h^2) for the logistic, whose curvature is smaller than M_j anyway
    for j in range(problem.n_features):
        e = np.eye(problem.n_features)[j]
        second = (problem.objective(w + h * e) - 2 * problem.objective(w) + problem.objective(w - h * e)) / h**2
        assert second <= problem.M[j] * (1 + 1e-6)


def test_dense_and_sparse_agree_bitwise():
    dense = make_problem("logistic", "l1", 0.1)
    sparse = privcd.Problem(sp.csr_matrix(dense.X), dense.y, "logistic", "l1", 0.1)
    w = np.random.default_rng(3).normal(size=dense.n_features)
    assert dense.objective(w) == sparse.objective(w)
    assert np.array_equal(dense.M, sparse.M)
    assert dense.beta == pytest.approx(sparse.beta, rel=1e-12)  # beta: a bound, equal within its margin
    assert np.array_equal(dense.row_norms, sparse.row_norms)


def spectrum_matrix(shape, spectrum, seed=0):
    """Random normal X, or X = U diag(s) V^T with crowded top singular values s_i = 1 - 1e-4 i."""
    rng = np.random.default_rng(seed)
    if spectrum == "random":
        return rng.normal(size=shape)
    n, p = shape
    k = min(n, p)
    U = np.linalg.qr(rng.normal(size=(n, k)))[0]
    V = np.linalg.qr(rng.normal(size=(p, k)))[0]
    return (U * (1 - 1e-4 * np.arange(k))) @ V.T


@pytest.mark.parametrize("shape", [(400, 30), (30, 400)], ids=["tall", "wide"])
@pytest.mark.parametrize("spectrum", ["random", "crowded"])
@pytest.mark.parametrize("method", ["gram", "lanczos"])
def test_beta_is_a_tight_upper_bound(shape, spectrum, method, storage, monkeypatch):
    """beta >= curvature ||X||_2^2 / n (a safe step size), and within 1e-8 relative of it."""
    if method == "lanczos":
        monkeypatch.setattr(spectral, "GRAM_LIMIT", 10)
    X = spectrum_matrix(shape, spectrum)
    y = np.where(np.random.default_rng(1).normal(size=shape[0]) > 0, 1.0, -1.0)
    problem = privcd.Problem(sp.csr_matrix(X) if storage == "sparse" else X, y, "logistic")
    true = problem.loss.curvature * np.linalg.norm(X, 2) ** 2 / shape[0]
    assert true <= problem.beta <= true * (1 + 1e-8)


@pytest.mark.parametrize("X,y,loss,match", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), [1, -1], "logistic", "X contains NaN or inf"),
    (np.array([[1.0, np.inf], [0.0, 1.0]]), [1, -1], "logistic", "X contains NaN or inf"),
    (np.eye(2), [1.0, np.nan], "squared", "y contains NaN or inf"),
    (np.eye(2), [0, 1], "logistic", "labels must lie in"),
    (np.eye(2), [1, -1, 1], "logistic", r"y has shape \(3,\); expected \(2,\)"),
    (np.ones(3), [1, -1, 1], "logistic", "X must be 2-D"),
    (np.eye(2), [1, -1], "hinge2", "loss='hinge2'"),
])
def test_bad_input_is_named(X, y, loss, match):
    with pytest.raises(ValueError, match=match):
        privcd.Problem(X, y, loss)


def test_sparse_nan_is_rejected():
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]))
    X.data[1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        privcd.Problem(X, [1.0, 2.0], "squared")


@pytest.mark.parametrize("penalty,lam,match", [("l3", 0.1, "penalty='l3'"), ("l1", -1.0, "lam=-1.0"),
                                               ("l1", np.nan, "lam=nan")])
def test_bad_penalty_is_named(penalty, lam, match):
    with pytest.raises(ValueError, match=match):
        privcd.Problem(np.eye(2), [1.0, 2.0], "squared", penalty, lam)
