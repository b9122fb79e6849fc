"""Release and experiment modes (privcd.randomness): secret OS entropy without a seed, the same bits
with one, and releases that hold nothing computed from the data without noise."""
import math
import random
import warnings

import numpy as np
import pytest

import privcd
from privcd.algorithms import ALGORITHMS
from privcd.estimators import DPLinearSVC, DPLogisticRegression, PrivacyLeakWarning
from privcd.randomness import EXPERIMENT, RELEASE, child, resolve_seed

ARGUMENTS = dict(epsilon=1.0, delta=1e-6, passes=2, step=0.5, clip=1.0)
GRID = {"passes": [1, 2], "step": [0.5, 1.0], "clip": [1.0]}


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X[:, 0] + 0.1 * rng.normal(size=300))
    return privcd.Problem(X, y, "logistic", "l2", 1e-3, row_norm_bound=1.0)


def numbers_in(value):
    """Every float a released object holds, however nested (arrays, dicts, lists, dataclass fields)."""
    if isinstance(value, (bool, str, type(None))):
        return []
    if isinstance(value, (int, float, np.number)):
        return [float(value)]
    if isinstance(value, np.ndarray):
        return value.astype(np.float64).ravel().tolist() if value.dtype.kind in "biuf" else []
    if isinstance(value, dict):
        return [number for item in value.values() for number in numbers_in(item)]
    if isinstance(value, (list, tuple)):
        return [number for item in value for number in numbers_in(item)]
    if hasattr(value, "__dict__"):
        return numbers_in(vars(value))
    return []


def assert_no_noise_free_objective(released, problem, iterates):
    """No number ``released`` holds equals F(w; D) at any of ``iterates`` to 1e-12 (relative)."""
    objectives = np.array([problem.objective(w) for w in iterates])
    found = np.array(numbers_in(released))
    for objective in objectives:
        close = np.isclose(found, objective, rtol=1e-12, atol=0.0)
        assert not close.any(), f"a released number equals F(w; D) = {objective!r}"


RELEASED = sorted(name for name in ALGORITHMS if name != "seqdp-scd")  # SEQDP-SCD's release is refused


@pytest.mark.parametrize("algorithm", RELEASED)
def test_a_release_differs_between_calls_even_after_seeding_the_global_generators(problem, algorithm):
    first = privcd.fit(problem, algorithm, **ARGUMENTS)
    np.random.seed(0)
    random.seed(0)
    second = privcd.fit(problem, algorithm, **ARGUMENTS)
    assert (first.mode, second.mode) == (RELEASE, RELEASE) and first.seed is None and second.seed is None
    assert not np.array_equal(first.w, second.w)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_an_experiment_is_reproducible_and_says_so(problem, algorithm):
    first = privcd.fit(problem, algorithm, seed=7, **ARGUMENTS)
    second = privcd.fit(problem, algorithm, seed=7, **ARGUMENTS)
    assert first.mode == EXPERIMENT and first.seed == 7
    assert np.array_equal(first.w, second.w) and first.objective == second.objective
    sequence = np.random.SeedSequence(2**100 + 5)
    assert np.array_equal(privcd.fit(problem, algorithm, seed=sequence, **ARGUMENTS).w,
                          privcd.fit(problem, algorithm, seed=np.random.SeedSequence(2**100 + 5), **ARGUMENTS).w)


@pytest.mark.parametrize("algorithm", RELEASED)
def test_a_release_holds_no_noise_free_objective(problem, algorithm):
    run = privcd.fit(problem, algorithm, **ARGUMENTS)
    assert "objective" not in run.trace and "objective" not in run.history.columns
    with pytest.raises(AttributeError, match="not covered by the .epsilon, delta. guarantee"):
        run.objective
    assert_no_noise_free_objective(run, problem, [run.w, *run.snapshots])


def test_the_check_catches_a_leaked_objective(problem):
    """Positive control: an experiment's Run holds F(w; D), and the check finds it."""
    run = privcd.fit(problem, "dp-cd", seed=1, **ARGUMENTS)
    with pytest.raises(AssertionError, match="equals F"):
        assert_no_noise_free_objective(run, problem, [run.w])


def test_private_tuning_releases_the_selected_candidate_only(problem):
    released = privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5)
    np.random.seed(0)
    again = privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5)
    assert released.mode == RELEASE and released.seed is None and not np.array_equal(released.w, again.w)
    assert not {"candidates", "count"} & set(released.info["tuning"])
    assert_no_noise_free_objective(released, problem, [released.w])
    experiment = privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5, seed=4)
    assert experiment.mode == EXPERIMENT and len(experiment.info["tuning"]["candidates"]) == \
        experiment.info["tuning"]["count"]
    assert np.array_equal(experiment.w, privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5, seed=4).w)


def test_fit_many_says_which_runs_share_their_draws(problem):
    runs = list(privcd.fit_many(problem, "dp-sgd", [dict(ARGUMENTS, clip=0.5, seed=3), dict(ARGUMENTS, seed=3),
                                                   dict(ARGUMENTS), dict(ARGUMENTS)]))
    assert [run.info.get("shared_draws") for run in runs] == [2, 2, None, None]
    assert [run.mode for run in runs] == [EXPERIMENT, EXPERIMENT, RELEASE, RELEASE]
    assert not np.array_equal(runs[2].w, runs[3].w)


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "3", True, np.random.default_rng(0)])
def test_a_bad_seed_is_an_error_naming_it(problem, seed):
    with pytest.raises(ValueError, match=r"seed=.*expected None .*an integer in \[0, 2\*\*32\) or a numpy"):
        privcd.fit(problem, "dp-cd", seed=seed, **ARGUMENTS)


def test_a_release_seed_has_128_bits_of_fresh_entropy():
    modes, seeds = zip(*(resolve_seed(None) for _ in range(4)))
    assert set(modes) == {RELEASE}
    entropies = {seed.entropy for seed in seeds}
    assert len(entropies) == 4 and max(entropy.bit_length() for entropy in entropies) > 64


def test_child_streams_of_an_integer_seed_are_numpys_spawn_keys():
    """The experiments' streams keep their bits: child(int, k) is SeedSequence(int, spawn_key=(k,))."""
    assert np.array_equal(child(5, 1).generate_state(4), np.random.SeedSequence(5, spawn_key=(1,)).generate_state(4))
    root = np.random.SeedSequence(11)
    assert np.array_equal(child(root, 2, 0).generate_state(4),
                          np.random.SeedSequence(11, spawn_key=(2, 0)).generate_state(4))


def classification(n=400, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1, 0)


@pytest.mark.parametrize("estimator", [DPLogisticRegression, DPLinearSVC])
def test_estimators_release_by_default_and_hold_no_objective(estimator):
    X, y = classification()
    first = estimator(data_norm=1.0, classes=[0, 1]).fit(X, y)
    np.random.seed(0)
    random.seed(0)
    second = estimator(data_norm=1.0, classes=[0, 1]).fit(X, y)
    assert not np.array_equal(first.coef_, second.coef_)
    seeded = [estimator(data_norm=1.0, classes=[0, 1], random_state=3).fit(X, y) for _ in range(2)]
    assert np.array_equal(seeded[0].coef_, seeded[1].coef_)
    bounded = X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    Xb = np.column_stack([bounded, np.ones(len(X))])
    for model in (first, second):
        w = np.append(model.coef_[0], model.intercept_[0])
        loss = {"DPLogisticRegression": "logistic", "DPLinearSVC": "hinge"}[estimator.__name__]
        problem = privcd.Problem(Xb, np.where(y == 1, 1.0, -1.0), loss, "l2", model.alpha)
        assert_no_noise_free_objective(model, problem, [w])


def test_the_label_set_is_public_or_a_warning_says_it_is_read_from_y():
    X, y = classification()
    with pytest.warns(PrivacyLeakWarning, match="classes=None, so the label set is read from y"):
        DPLogisticRegression(data_norm=1.0, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DPLogisticRegression(data_norm=1.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    # a record alone in class 2 neither changes the models' shape nor is needed to publish its label
    lonely = y.copy()
    lonely[0] = 2
    neighbour = DPLogisticRegression(data_norm=1.0, classes=[0, 1, 2], random_state=0).fit(X, lonely)
    assert model.coef_.shape == neighbour.coef_.shape == (3, X.shape[1])
    assert model.classes_.tolist() == neighbour.classes_.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match=r"classes=\[0, 1\] does not contain the label\(s\) \[2\] of y"):
        DPLogisticRegression(data_norm=1.0, classes=[0, 1]).fit(X, lonely)


def test_an_estimator_seeded_after_numpys_global_seed_is_not_predictable():
    """random_state=None no longer reads numpy's global RandomState."""
    X, y = classification()
    outputs = []
    for _ in range(2):
        np.random.seed(123)
        outputs.append(DPLogisticRegression(data_norm=1.0, classes=[0, 1]).fit(X, y).coef_)
    assert not np.array_equal(*outputs) and math.isfinite(outputs[0].sum())


@pytest.mark.parametrize("algorithm", ["dp-cd", "dp-gcd", "dp-sgd"])
def test_a_release_holds_no_kernel_time_and_an_experiment_does(problem, algorithm):
    release = privcd.fit(problem, algorithm, **ARGUMENTS)
    experiment = privcd.fit(problem, algorithm, seed=1, **ARGUMENTS)
    assert release.seconds is None and "seconds" not in release.history.columns
    assert experiment.seconds > 0 and "seconds" in experiment.history.columns


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_every_private_release_is_on_a_grid_or_refused(problem, algorithm):
    """No release samples floating-point noise (Mironov 2012): each algorithm's release records the
    grid its noise was drawn on, or is refused with an error that names a seed (an experiment) as the
    way to run it; the experiment runs."""
    loss = "hinge" if algorithm in ("dp-scd", "seqdp-scd") else "logistic"
    task = privcd.Problem(problem.X, problem.y, loss, "l2", 1e-3, row_norm_bound=1.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            release = privcd.fit(task, algorithm, **ARGUMENTS)
    except ValueError as error:
        assert "give a seed" in str(error) and "Mironov 2012" in str(error)
    else:
        assert release.mode == RELEASE and "grid_noise" in release.info
        assert release.info["grid_noise"]["epsilon"] <= release.epsilon
    assert np.all(np.isfinite(privcd.fit(task, algorithm, seed=0, **ARGUMENTS).w))
