"""The smoothness constants are an explicit choice of the Problem: declared public (constants="data"),
data-independent (row_norm_bound) or, by default, computed from X with a warning at every private fit
that uses them. Generic over the algorithm registry: each module's SMOOTHNESS_FROM_PROBLEM must say
truly whether a run reads Problem.M or Problem.beta."""
import warnings

import numpy as np
import pytest

import privcd
from privcd.algorithms import ALGORITHMS
from privcd.problem import Problem
from test_algorithms import CASES, HYPER, case

# Every algorithm with its default options, and DP-CD-P, which estimates its M_j privately.
RUNS = [(name, {}) for name in sorted(ALGORITHMS)] + [("dp-cd", {"smoothness": "private"})]
RUN_IDS = [name + ("-private-smoothness" if options else "") for name, options in RUNS]


def constants_read(problem, name, options, epsilon, monkeypatch):
    """Fit and return ``(the constants among M, beta the run read, the DataDependentConstantsWarnings)``;
    ``epsilon = inf`` runs without noise and clipping."""
    read = set()
    for attribute in ("M", "beta"):
        compute = getattr(Problem, attribute).func

        def recorded(self, attribute=attribute, compute=compute):
            read.add(attribute)
            return compute(self)
        monkeypatch.setattr(Problem, attribute, property(recorded))
    options = {**(CASES[name][3] if name in CASES else {}), **options}
    hyper = {**HYPER, "clip": np.inf} if np.isinf(epsilon) else HYPER
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        privcd.fit(problem, name, epsilon=epsilon, delta=1e-5, seed=0, **hyper, **options)
    return read, [w for w in caught if issubclass(w.category, privcd.DataDependentConstantsWarning)]


@pytest.mark.parametrize("name,options", RUNS, ids=RUN_IDS)
def test_a_private_fit_warns_exactly_when_it_reads_undeclared_constants(name, options, monkeypatch):
    problem, _ = case(name)
    undeclared = Problem(problem.X, problem.y, problem.loss.name, problem.penalty.name, problem.lam)
    read, warned = constants_read(undeclared, name, options, 1.0, monkeypatch)
    assert bool(warned) == bool(read), (read, [str(w.message) for w in warned])
    if warned:
        message = str(warned[0].message)
        assert "not covered by the (epsilon, delta) guarantee" in message
        assert "constants='data'" in message and "row_norm_bound" in message
        assert warned[0].filename == __file__  # points at the caller of privcd.fit


@pytest.mark.parametrize("name,options", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("public,epsilon", [("data", 1.0), ("bound", 1.0), (None, np.inf)])
def test_no_warning_with_public_constants_or_without_privacy(name, options, public, epsilon, monkeypatch):
    problem, _ = case(name)
    declared = {"data": {"constants": "data"}, "bound": {"row_norm_bound": float(problem.row_norms.max())},
                None: {}}[public]
    built = Problem(problem.X, problem.y, problem.loss.name, problem.penalty.name, problem.lam, **declared)
    _, warned = constants_read(built, name, options, epsilon, monkeypatch)
    assert not warned


def test_pytest_warns_sees_the_warning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    problem = privcd.Problem(X, np.where(X[:, 0] > 0, 1.0, -1.0), "logistic", "l2", 0.1)
    with pytest.warns(privcd.DataDependentConstantsWarning, match="M_j / beta are computed from X without noise"):
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0)
    with pytest.warns(privcd.DataDependentConstantsWarning):
        list(privcd.fit_many(problem, "dp-gcd", [dict(epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0)]))


def test_row_norm_bound_gives_data_independent_constants():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)  # rows of norm 1/2
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    bounded = privcd.Problem(X, y, "logistic", row_norm_bound=0.5)
    other = privcd.Problem(X[::-1] * 0.3, y, "logistic", row_norm_bound=0.5)
    from_data = privcd.Problem(X, y, "logistic")
    np.testing.assert_array_equal(bounded.M, np.full(4, 0.25 * 0.25))
    assert bounded.beta == 0.25 * 0.25
    np.testing.assert_array_equal(bounded.M, other.M)
    assert np.all(from_data.M <= bounded.M) and from_data.beta <= bounded.beta


@pytest.mark.parametrize("kwargs,match", [
    ({"row_norm_bound": 0.9}, r"row_norm_bound=0\.9 is exceeded: row 3 of X has L2 norm 2\.0"),
    ({"row_norm_bound": -1.0}, r"row_norm_bound=-1\.0 is outside"),
    ({"constants": "public"}, r"constants='public' is not accepted"),
    ({"constants": "data", "row_norm_bound": 3.0}, "give one source"),
])
def test_bad_constants_are_named(kwargs, match):
    X = np.array([[1.0, 0.0], [0.0, 0.5], [0.6, 0.8], [0.0, 2.0]])
    with pytest.raises(ValueError, match=match):
        privcd.Problem(X, [1.0, -1.0, 1.0, -1.0], "logistic", **kwargs)


def test_unit_rows_pass_a_unit_bound():
    X = np.random.default_rng(2).normal(size=(500, 7))
    X /= np.linalg.norm(X, axis=1, keepdims=True)  # some rows come out 1 + 2e-16
    privcd.Problem(X, np.ones(500), "squared", row_norm_bound=1.0)


def test_with_penalty_shares_data_and_constants():
    X = np.random.default_rng(3).normal(size=(30, 3))
    problem = privcd.Problem(X, np.ones(30), "squared", "l1", 0.1, constants="data")
    other = problem.with_penalty("l2", 0.5)
    assert other.X is problem.X and other.y is problem.y and other.public_constants
    assert (other.penalty.name, other.lam, problem.penalty.name, problem.lam) == ("l2", 0.5, "l1", 0.1)
