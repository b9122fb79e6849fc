"""dp-accounting's RDP accountant, reading Gaussian events as documented under replace-one neighbours.

:class:`dp_accounting.GaussianDpEvent` defines ``noise_multiplier = s / C`` for a sum of values
of norm ``<= C`` (one per record) plus ``N(0, s^2 I)``. Under replace-one neighbours a value ``v``
can become ``-v``, so neighbouring outputs are up to ``Delta = 2 C`` apart. dp-accounting 0.6.0's
PLD accountant follows that definition (``GaussianPrivacyLoss`` with ``AdjacencyType.REPLACE``
compares ``mu(x + 1)`` with ``mu(x - 1)``), but its RDP accountant does not:

- ``RdpAccountant._maybe_compose`` adds ``alpha / (2 z^2)`` for a ``GaussianDpEvent`` whatever the
  neighbouring relation (``_compute_rdp_poisson_subsampled_gaussian(q=1.0, ...)``), the RDP of
  two Gaussians ``z`` standard deviations apart, i.e. it reads ``z`` as ``s / Delta``;
- for ``SampledWithoutReplacementDpEvent`` (REPLACE_ONE only) it evaluates Theorem 27 of Wang,
  Balle and Kasiviswanathan (2019) with the base Gaussian's RDP ``alpha / (2 z^2)``
  (``_compute_rdp_sample_wor_gaussian_scalar`` returns exactly that at ``q = 1``, and
  ``_compute_rdp_sample_wor_gaussian_int`` uses the cumulant ``x (x + 1) / (2 z^2)``), again
  ``z = s / Delta`` with Delta the replace-one distance, as in that paper.

Fed an event built as documented, the RDP accountant therefore under-states the RDP by a factor
of four (google/differential-privacy issue #378, unreleased fix in pull request #464).
:class:`ReplaceOneRdpAccountant` halves every Gaussian noise multiplier before the base class
reads it, so that one event means the same mechanism for every accountant of privcd. It accepts
only the events whose reading it has checked (Gaussian, sampled-without-replacement Gaussian,
randomized response, which dp-accounting reads under REPLACE_ONE as the pair its docstring writes
(:func:`privcd.privacy.events.pure_dp_composition_event`), their compositions, no-op and
non-private events); :func:`check_base_reads_distance` verifies at
first use that the installed dp-accounting still reads Gaussians as distance-multipliers, so an
upstream fix cannot silently make privcd halve twice.
"""
import functools

import attr
import numpy as np
from dp_accounting import dp_event, rdp

from privcd.privacy.events import DISTANCE_PER_NORM_BOUND, REPLACE_ONE

_PASSED_THROUGH = (dp_event.NoOpDpEvent, dp_event.NonPrivateDpEvent, dp_event.SelfComposedDpEvent,
                   dp_event.ComposedDpEvent, dp_event.PoissonSampledDpEvent, dp_event.RandomizedResponseDpEvent)


@functools.lru_cache(maxsize=None)
def check_base_reads_distance():
    """Raise ``RuntimeError`` unless dp-accounting's RDP accountant, under REPLACE_ONE, gives
    ``alpha / 2`` for ``GaussianDpEvent(1)`` alone and sampled without replacement at rate 1."""
    unit = dp_event.GaussianDpEvent(1.0)
    for event in (unit, dp_event.SampledWithoutReplacementDpEvent(1, 1, unit)):
        base = rdp.RdpAccountant(neighboring_relation=REPLACE_ONE).compose(event)
        if not np.allclose(base.rdp, base.orders / 2, rtol=1e-12, atol=0):
            raise RuntimeError(
                f"dp-accounting's RdpAccountant no longer reads {type(event).__name__} as "
                "noise std / replace-one distance; privcd.privacy.replace_one_rdp halves the "
                "multiplier on that assumption and must be re-verified for this version")


def _to_distance_multipliers(event):
    """``event`` with every ``GaussianDpEvent(z)`` inside compositions replaced by ``z / 2``."""
    if isinstance(event, dp_event.GaussianDpEvent):
        return dp_event.GaussianDpEvent(event.noise_multiplier / DISTANCE_PER_NORM_BOUND)
    if isinstance(event, dp_event.SelfComposedDpEvent):
        return attr.evolve(event, event=_to_distance_multipliers(event.event))
    if isinstance(event, dp_event.ComposedDpEvent):
        return attr.evolve(event, events=[_to_distance_multipliers(inner) for inner in event.events])
    return event


def _has_noiseless(event):
    """Whether a composition of Gaussians holds a ``GaussianDpEvent`` of multiplier 0."""
    if isinstance(event, dp_event.GaussianDpEvent):
        return event.noise_multiplier == 0
    if isinstance(event, dp_event.SelfComposedDpEvent):
        return _has_noiseless(event.event)
    if isinstance(event, dp_event.ComposedDpEvent):
        return any(_has_noiseless(inner) for inner in event.events)
    return False


class ReplaceOneRdpAccountant(rdp.RdpAccountant):
    """RDP accountant under replace-one neighbours with ``GaussianDpEvent`` read as documented.

    Parameters
    ----------
    orders : sequence of float or None
        RDP orders; dp-accounting's defaults when ``None``.
    """

    def __init__(self, orders=None):
        check_base_reads_distance()
        super().__init__(orders=orders, neighboring_relation=REPLACE_ONE)

    def _maybe_compose(self, event, count, do_compose):
        # The base class recurses through compositions by calling this method again, so each
        # Gaussian leaf is converted exactly once; a sampled event hands its inner event to the
        # base class directly, so that inner event is converted here as a whole.
        if isinstance(event, dp_event.GaussianDpEvent):
            event = _to_distance_multipliers(event)
        elif isinstance(event, dp_event.SampledWithoutReplacementDpEvent):
            inner = _to_distance_multipliers(event.event)
            # Without noise the sampled release is not private (the base class would divide by 0).
            event = dp_event.NonPrivateDpEvent() if _has_noiseless(inner) else attr.evolve(event, event=inner)
        elif not isinstance(event, _PASSED_THROUGH):
            return self.CompositionErrorDetails(
                invalid_event=event,
                error_message="privcd's replace-one RDP accountant accepts Gaussian, "
                              "sampled-without-replacement Gaussian and randomized-response events only; other "
                              "events are not verified under replace-one neighbours")
        return super()._maybe_compose(event, count, do_compose)
