"""privcd.privacy.reuse: a stored calibration is the very calibration a fresh call gives, survives
JSON, and is computed once per distinct setting; the patch is undone on exit."""
import math

import pytest

from privcd import privacy
from privcd.privacy.reuse import CalibrationStore, reusing


def family(steps):
    return lambda z: privacy.gaussian_composition_event(z, steps)


def test_stored_answers_equal_fresh_calibrations_and_survive_json():
    store = CalibrationStore()
    first = store.calibrate(privacy.calibrate, family(200), epsilon=1.0, delta=1e-6, accountant="rdp")
    loaded = CalibrationStore.from_json(store.to_json())
    again = loaded.calibrate(privacy.calibrate, family(200), epsilon=1.0, delta=1e-6, accountant="rdp")
    fresh = privacy.calibrate(family(200), epsilon=1.0, delta=1e-6, accountant="rdp")
    for calibration in (first, again):
        assert calibration.noise_multiplier == fresh.noise_multiplier
        assert calibration.epsilon == fresh.epsilon and calibration.accountant == fresh.accountant
        assert calibration.event == fresh.event
    assert (store.computed, store.reused, loaded.computed, loaded.reused) == (1, 0, 0, 1)


def test_keys_separate_settings():
    store = CalibrationStore()
    with reusing(store):
        for steps in (100, 200, 100):
            for epsilon in (1.0, 2.0, math.inf):
                privacy.calibrate(family(steps), epsilon=epsilon, delta=1e-6, accountant="rdp")
    assert store.computed == 6 and store.reused == 3 and len(store.entries) == 6


def test_reusing_restores_calibrate_even_on_error():
    original = privacy.calibrate
    with pytest.raises(RuntimeError):
        with reusing(CalibrationStore()):
            assert privacy.calibrate is not original
            raise RuntimeError
    assert privacy.calibrate is original
