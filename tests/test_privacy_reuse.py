"""privcd.privacy.reuse: a stored calibration is the very calibration a fresh call gives, survives
JSON, is computed once per distinct setting, and reaches the plans through ``fit(calibrations=)``."""
import math

import numpy as np
import pytest

import privcd
from privcd import privacy
from privcd.privacy.reuse import CalibrationStore


def test_stored_answers_equal_fresh_calibrations_and_survive_json():
    mechanism = privacy.GaussianComposition(200)
    store = CalibrationStore()
    first = privacy.calibrate(mechanism, epsilon=1.0, delta=1e-6, accountant="rdp", store=store)
    loaded = CalibrationStore.from_json(store.to_json())
    again = privacy.calibrate(mechanism, epsilon=1.0, delta=1e-6, accountant="rdp", store=loaded)
    fresh = privacy.search.find_noise_multiplier(mechanism, 1.0, 1e-6, "rdp")
    for calibration in (first, again):
        assert (calibration.noise_multiplier, calibration.epsilon) == fresh
        assert calibration.accountant == "rdp" and calibration.delta == 1e-6
        assert calibration.event == mechanism(fresh[0])
    assert (store.computed, store.reused, loaded.computed, loaded.reused) == (1, 0, 0, 1)


def test_keys_separate_settings_and_infinite_epsilon_needs_no_entry():
    store = CalibrationStore()
    for steps in (100, 200, 100):
        for epsilon in (1.0, 2.0, math.inf):
            privacy.calibrate(privacy.GaussianComposition(steps), epsilon=epsilon, delta=1e-6, accountant="rdp",
                              store=store)
        privacy.calibrate(privacy.SubsampledGaussian(steps, 10, 1000, "poisson"), epsilon=1.0, delta=1e-6,
                          accountant="pld", store=store)
    assert store.computed == 6 and store.reused == 3 and len(store.entries) == 6


def test_fit_reads_and_fills_the_store_and_gives_the_same_bits():
    X = np.random.default_rng(1).normal(size=(60, 4))
    problem = privcd.Problem(X, np.sign(X[:, 0] + 0.1), "logistic", "l2", 1e-2)
    arguments = dict(epsilon=1.0, delta=1e-5, passes=2, step=0.5, clip=1.0, seed=3)
    for algorithm in ("dp-cd", "dp-sgd"):
        plain = privcd.fit(problem, algorithm, **arguments)
        store = CalibrationStore()
        filled = privcd.fit(problem, algorithm, calibrations=store, **arguments)
        reused = privcd.fit(problem, algorithm, calibrations=CalibrationStore.from_json(store.to_json()),
                            **arguments)
        assert store.computed == 1 and len(store.entries) == 1
        for run in (filled, reused):
            assert run.w.tobytes() == plain.w.tobytes()
            assert (run.noise_multiplier, run.epsilon) == (plain.noise_multiplier, plain.epsilon)


def test_fit_refuses_a_store_of_the_wrong_type():
    X = np.random.default_rng(1).normal(size=(20, 3))
    problem = privcd.Problem(X, X[:, 0], "squared")
    with pytest.raises(ValueError, match="calibrations must be a privcd.privacy.CalibrationStore, a privcd.privacy.JointRelease or None; got dict"):
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0, calibrations={})
