"""DP-SGD on the hinge loss (dp-scd's SVM baseline): clipped subgradients, step = learning rate."""
import numpy as np

import privcd


def svm_problem(n=200, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=p) > 0, 1.0, -1.0)
    return privcd.Problem(X, y, "hinge", "l2", 1e-3)


def test_the_step_is_the_raw_learning_rate():
    run = privcd.fit(svm_problem(), "dp-sgd", epsilon=1.0, delta=1e-3, passes=1, step=0.05, clip=1.0)
    assert run.info["step_size"] == 0.05


def test_non_private_subgradient_descent_decreases_the_svm_objective():
    problem = svm_problem()
    run = privcd.fit(problem, "dp-sgd", epsilon=np.inf, passes=100, step=0.3, clip=np.inf, batch_size=10)
    f_star = privcd.solve_nonprivate(problem).f_star
    assert run.objective < problem.objective(np.zeros(problem.n_features))
    assert (run.objective - f_star) / f_star < 0.05


def test_one_subgradient_step_matches_the_formula():
    """Batch of the whole data, no noise, no clipping: w1 = prox(-eta * mean subgradient)."""
    problem = svm_problem(n=30)
    eta = 0.3
    run = privcd.fit(problem, "dp-sgd", epsilon=np.inf, passes=1, step=eta, clip=np.inf, batch_size=30)
    X, y = problem.X, problem.y
    subgradient = -(y[:, None] * X)[y * (X @ np.zeros(5)) < 1].sum(axis=0) / 30
    expected = -eta * subgradient / (1 + eta * problem.lam)  # prox of (lam/2)||w||^2
    np.testing.assert_allclose(run.w, expected, rtol=1e-12)


def test_same_seed_same_bits():
    problem = svm_problem()
    runs = [privcd.fit(problem, "dp-sgd", epsilon=0.5, delta=1e-3, passes=2, step=0.1, clip=0.5, seed=3)
            for _ in range(2)]
    assert runs[0].w.tobytes() == runs[1].w.tobytes()
    assert not np.array_equal(runs[0].w, np.zeros(5))
