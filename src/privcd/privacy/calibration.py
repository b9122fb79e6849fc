"""Noise calibration: :func:`calibrate` a mechanism family to a target (epsilon, delta).

A calibration is a deterministic function of the family (:mod:`privcd.privacy.mechanisms`), the
target (epsilon, delta) and the accountant, so it is computed once: per process (an in-memory
cache), and across processes through an explicit :class:`~privcd.privacy.reuse.CalibrationStore`
(``store=``) that the workflow fills once per privacy setting and every tuning job reads. Only a
calibration that is neither cached nor stored runs the root search of
:mod:`privcd.privacy.search`, the one place privcd imports dp-accounting (0.8 s); ``epsilon = inf``
needs no search at all.
"""
import functools
import math
from dataclasses import dataclass

from privcd import privacy
from privcd.privacy.mechanisms import Mechanism, SubsampledGaussian
from privcd.validation import check_number, check_positive


@dataclass(frozen=True)
class Calibration:
    """A calibrated noise multiplier and the privacy it achieves.

    Attributes
    ----------
    noise_multiplier : float
        ``z``: noise standard deviation over the replace-one L2 sensitivity of each release
        (:mod:`privcd.privacy.events`); 0 for ``epsilon = inf``.
    epsilon : float
        Achieved epsilon, ``<= target``, computed by a fresh accountant.
    delta : float or None
        ``None`` only for an uncalibrated ``epsilon = inf`` run without a delta.
    accountant : str or None
        Registry name of the accountant that certified ``epsilon``.
    mechanism : privcd.privacy.mechanisms.Mechanism or None
        The family calibrated; ``None`` for privacy not accounted by a family (DP-GCD's advanced
        composition).
    """

    noise_multiplier: float
    epsilon: float
    delta: float | None
    accountant: str | None
    mechanism: Mechanism | None = None

    @property
    def event(self):
        """The dp-accounting event of the whole run, ``mechanism(noise_multiplier)`` (built on access)."""
        return None if self.mechanism is None else self.mechanism(self.noise_multiplier)


def calibrate(mechanism, *, epsilon, delta, accountant, store=None):
    """The smallest noise multiplier whose run satisfies (epsilon, delta)-DP under replace-one neighbours.

    Parameters
    ----------
    mechanism : privcd.privacy.mechanisms.Mechanism
        The family ``z -> event``, e.g. ``GaussianComposition(steps)``; epsilon decreases in ``z``.
    epsilon : float
        Target, ``> 0``; ``inf`` gives ``noise_multiplier = 0`` (no privacy) without any search.
    delta : float or None
        In ``(0, 1)``; may be ``None`` only with ``epsilon = inf``.
    accountant : {"rdp", "pld", "exact"}
        See :mod:`privcd.privacy.accountants`; it must read the family (``ValueError`` otherwise,
        e.g. ``"rdp"`` with Poisson sampling).
    store : privcd.privacy.reuse.CalibrationStore, optional
        Answers the request when it holds it; records it otherwise.

    Returns
    -------
    Calibration
        ``epsilon`` is the achieved epsilon (``<= target``, within about 0.5% of it) computed by a
        fresh accountant (:func:`privcd.privacy.search.find_noise_multiplier`).
    """
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    if not (delta is None and math.isinf(epsilon)):
        delta = check_number("delta", delta, low=0.0, high=1.0)
    if not isinstance(mechanism, Mechanism):
        raise ValueError(f"mechanism={mechanism!r} is not a privcd mechanism family; expected one of "
                         "privcd.privacy.GaussianComposition, privcd.privacy.SubsampledGaussian, "
                         "privcd.privacy.RevealedBatchGaussian")
    mechanism.check_accountant(accountant)
    if math.isinf(epsilon):
        return Calibration(0.0, math.inf, delta, accountant, mechanism)
    if store is None:
        return _calibrate_cached(mechanism, epsilon, delta, accountant)
    return store.calibrate(mechanism, epsilon, delta, accountant, compute=_calibrate_cached)


def calibrate_subsampled(steps, *, batch_size, n, sampling, epsilon, delta, accountant, store=None):
    """:func:`calibrate` for ``steps`` releases of a Gaussian sum over batches of ``batch_size`` of
    ``n`` records drawn by ``sampling`` (:class:`~privcd.privacy.mechanisms.SubsampledGaussian`):
    DP-SGD (dp-gcd Section 5) and DP-SCD (dp-scd Algorithm 1)."""
    return calibrate(SubsampledGaussian(steps, batch_size, n, sampling), epsilon=epsilon, delta=delta,
                     accountant=accountant, store=store)


@functools.lru_cache(maxsize=1024)
def _calibrate_cached(mechanism, epsilon, delta, accountant):
    z, achieved = privacy.find_noise_multiplier(mechanism, epsilon, delta, accountant)
    return Calibration(z, achieved, delta, accountant, mechanism)
