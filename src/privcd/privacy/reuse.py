"""Reusing noise calibrations across runs and processes that share a privacy setting.

:func:`privcd.privacy.calibrate` is a deterministic function of the mechanism family
(:mod:`privcd.privacy.mechanisms`), the target (epsilon, delta) and the accountant. A tuning grid
runs hundreds of configurations that differ only in step size and clipping threshold, which (by
privcd's convention: noise multiplier = noise std / L2 sensitivity) never change the noise
multiplier; calibrating each of them anew repeats the same root search (about 15 s each with the
PLD accountant, ENVIRONMENT.md), in every workflow job.

A :class:`CalibrationStore` is passed explicitly down the calibration path
(``privcd.fit(..., calibrations=store)`` -> the algorithm's plan -> ``calibrate(..., store=store)``)
and remembers each calibration under the family's JSON key, epsilon, delta and the accountant.
Its answers are the very numbers a fresh calibration gives, so results do not change; it
serialises to JSON, so the workflow calibrates once per setting and every job reuses it without
importing dp-accounting.
"""
import json

from privcd.privacy.calibration import Calibration


class CalibrationStore:
    """Calibrations by key; counts what it computed and what it reused.

    Attributes
    ----------
    entries : dict
        key -> ``{"noise_multiplier", "epsilon", "delta", "accountant"}``.
    computed, reused : int
        Calibrations computed / answered from ``entries`` since creation.
    """

    def __init__(self, entries=None):
        self.entries = dict(entries or {})
        self.computed = 0
        self.reused = 0

    @staticmethod
    def key(mechanism, epsilon, delta, accountant):
        """The identity of a calibration request: JSON of the family's key, the (finite) targets and
        the accountant."""
        return json.dumps([mechanism.key, float(epsilon), float(delta), accountant], sort_keys=True)

    def calibrate(self, mechanism, epsilon, delta, accountant, *, compute):
        """The stored calibration of the request; ``compute(mechanism, epsilon, delta, accountant)``
        (then stored) when there is none. Arguments are checked by :func:`privcd.privacy.calibrate`."""
        key = self.key(mechanism, epsilon, delta, accountant)
        entry = self.entries.get(key)
        if entry is None:
            calibration = compute(mechanism, epsilon, delta, accountant)
            self.entries[key] = {"noise_multiplier": calibration.noise_multiplier, "epsilon": calibration.epsilon,
                                 "delta": calibration.delta, "accountant": calibration.accountant}
            self.computed += 1
            return calibration
        self.reused += 1
        return Calibration(entry["noise_multiplier"], entry["epsilon"], entry["delta"], entry["accountant"],
                           mechanism)

    def to_json(self):
        """The entries as JSON text."""
        return json.dumps(self.entries, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text):
        """A store holding the entries of :meth:`to_json`'s output."""
        return cls(json.loads(text))

