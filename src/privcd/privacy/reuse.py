"""Reusing noise calibrations across runs that share a privacy setting.

:func:`privcd.privacy.calibrate` is a deterministic function of the mechanism family (the event
``make_event(z)`` as a function of the noise multiplier z), the target (epsilon, delta) and the
accountant. A tuning grid runs hundreds of configurations that differ only in step size and
clipping threshold, which (by privcd's convention: noise multiplier = noise std / L2 sensitivity)
never change the noise multiplier; calibrating each of them anew repeats the same root search
(about 15 s each with the PLD accountant, ENVIRONMENT.md).

:class:`CalibrationStore` remembers calibrations under a key made of the event at a fixed probe
multiplier (its ``repr``: the event class and every parameter, e.g. the number of composed
Gaussians or the sampling rate), epsilon, delta and the accountant. Inside ``with reusing(store):``
every call of ``privcd.privacy.calibrate`` (which the algorithms' ``plan`` functions make) is
answered from the store when it holds the key, and computed and stored otherwise. The answers are
the very numbers a fresh calibration gives, so results do not change; a store serialises to JSON,
so the workflow calibrates once per setting and every job reuses it.
"""
import json
import math
from contextlib import contextmanager

from privcd import privacy

PROBE = 1.0  # noise multiplier at which the event is described in the key


class CalibrationStore:
    """Calibrations by key; counts what it computed and what it reused.

    Attributes
    ----------
    entries : dict
        key -> ``{"noise_multiplier", "epsilon", "delta", "accountant"}``.
    computed, reused : int
        Calibrations computed by the accountant / answered from ``entries`` since creation.
    """

    def __init__(self, entries=None):
        self.entries = dict(entries or {})
        self.computed = 0
        self.reused = 0

    @staticmethod
    def key(make_event, epsilon, delta, accountant):
        """The identity of a calibration request (see the module docstring)."""
        return json.dumps([repr(make_event(PROBE)), _number(epsilon), _number(delta), str(accountant)])

    def calibrate(self, calibrate, make_event, *, epsilon, delta, accountant):
        """``calibrate(make_event, ...)`` once per key; the stored answer afterwards."""
        key = self.key(make_event, epsilon, delta, accountant)
        entry = self.entries.get(key)
        if entry is None:
            calibration = calibrate(make_event, epsilon=epsilon, delta=delta, accountant=accountant)
            self.entries[key] = {"noise_multiplier": calibration.noise_multiplier,
                                 "epsilon": calibration.epsilon, "delta": calibration.delta,
                                 "accountant": calibration.accountant}
            self.computed += 1
            return calibration
        self.reused += 1
        z = entry["noise_multiplier"]
        return privacy.Calibration(noise_multiplier=z, epsilon=entry["epsilon"], delta=entry["delta"],
                                   accountant=entry["accountant"], event=make_event(z))

    def to_json(self):
        """The entries as JSON text (``Infinity`` for infinite values)."""
        return json.dumps(self.entries, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text):
        """A store holding the entries of :meth:`to_json`'s output."""
        return cls(json.loads(text))


@contextmanager
def reusing(store):
    """Answer ``privcd.privacy.calibrate`` from ``store`` within the block (restored on exit)."""
    original = privacy.calibrate

    def calibrate(make_event, *, epsilon, delta, accountant):
        return store.calibrate(original, make_event, epsilon=epsilon, delta=delta, accountant=accountant)

    privacy.calibrate = calibrate
    try:
        yield store
    finally:
        privacy.calibrate = original


def _number(value):
    return None if value is None else (float(value) if math.isfinite(float(value)) else repr(float(value)))
