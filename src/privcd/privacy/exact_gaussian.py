"""Exact accounting of adaptively composed Gaussian mechanisms under replace-one neighbours.

A Gaussian mechanism whose outputs on neighbouring datasets differ by at most ``Delta`` in L2
norm and whose noise has standard deviation ``s`` is ``mu``-Gaussian-DP with ``mu = Delta / s``,
and the adaptive composition of ``mu_k``-GDP mechanisms is exactly ``sqrt(sum_k mu_k^2)``-GDP
(Dong, Roth and Su, 2022, Corollary 3.3). So ``k`` Gaussian releases with distance-multipliers
``z_k = s_k / Delta_k`` compose to ONE Gaussian mechanism with multiplier
``(sum_k z_k^-2)^(-1/2)``, whose (epsilon, delta) curve is the analytic one of Balle and Wang
(2018, Theorem 8):

    delta(epsilon) = Phi(1 / (2 z) - epsilon z) - exp(epsilon) Phi(-1 / (2 z) - epsilon z),

solved for epsilon by :func:`dp_accounting.get_epsilon_gaussian`. No discretisation and no
conversion loss: this is the tight epsilon of DP-CD (dp-cd Algorithm 1, Appendix B), which the
RDP bound of dp-cd eq. (16) only upper-bounds.

``GaussianDpEvent.noise_multiplier`` is, as :class:`dp_accounting.GaussianDpEvent` documents it,
``s / C`` with ``C`` the norm bound of one record's contribution; under replace-one neighbours one
record's contribution ``v`` can become ``-v``, so ``Delta = 2 C`` and the distance-multiplier is
``noise_multiplier / 2`` (the reading of dp-accounting's PLD accountant, see
:mod:`privcd.privacy.accountants`).

It also reads one :class:`~privcd.privacy.events.RevealedBatchGaussianDpEvent` (with or without
further Gaussians): Gaussian releases over batches that the output reveals, a binomial mixture of
Gaussian mechanisms, exactly (:mod:`privcd.privacy.revealed_batches`).
"""
import math

import dp_accounting
import numpy as np
from dp_accounting import dp_event

from privcd.privacy.events import DISTANCE_PER_NORM_BOUND, REPLACE_ONE, RevealedBatchGaussianDpEvent
from privcd.privacy.revealed_batches import gaussian_delta, mixture_epsilon


class ExactGaussianAccountant(dp_accounting.PrivacyAccountant):
    """Accountant for compositions of Gaussian mechanisms, exact under replace-one neighbours.

    Supports ``GaussianDpEvent``, ``SelfComposedDpEvent`` and ``ComposedDpEvent`` of them,
    ``NoOpDpEvent``, ``NonPrivateDpEvent`` and one ``RevealedBatchGaussianDpEvent`` composed
    once; ``supports`` is false for any other event (subsampled mechanisms in particular: their
    composition is not Gaussian).
    """

    def __init__(self):
        super().__init__(REPLACE_ONE)
        self._mu_squared = 0.0  # sum_k (Delta_k / s_k)^2 of the Gaussians composed so far
        self._non_private = False
        self._revealed = None  # the RevealedBatchGaussianDpEvent composed, if any

    def _maybe_compose(self, event, count, do_compose):
        if isinstance(event, dp_event.NoOpDpEvent):
            return None
        if isinstance(event, dp_event.NonPrivateDpEvent):
            if do_compose:
                self._non_private = True
            return None
        if isinstance(event, dp_event.SelfComposedDpEvent):
            return self._maybe_compose(event.event, event.count * count, do_compose)
        if isinstance(event, dp_event.ComposedDpEvent):
            for inner in event.events:
                error = self._maybe_compose(inner, count, do_compose)
                if error is not None:
                    return error
            return None
        if isinstance(event, RevealedBatchGaussianDpEvent):
            if count > 1 or self._revealed is not None:
                return self.CompositionErrorDetails(
                    invalid_event=event, error_message="the exact accountant composes one revealed-batch event only")
            if do_compose:
                if event.noise_multiplier == 0:
                    self._non_private = True
                self._revealed = event
            return None
        if isinstance(event, dp_event.GaussianDpEvent):
            if do_compose:
                if event.noise_multiplier == 0:
                    self._non_private = True
                else:
                    distance_multiplier = event.noise_multiplier / DISTANCE_PER_NORM_BOUND
                    self._mu_squared += count / distance_multiplier**2
            return None
        return self.CompositionErrorDetails(
            invalid_event=event,
            error_message="the exact accountant composes Gaussian mechanisms only "
                          "(GaussianDpEvent and compositions of them)")

    def get_epsilon(self, target_delta):
        """Epsilon of the single Gaussian equivalent to everything composed so far."""
        if self._non_private:
            return math.inf
        if self._revealed is not None:
            z = self._revealed.noise_multiplier / DISTANCE_PER_NORM_BOUND
            return mixture_epsilon(target_delta, z, self._revealed.steps, self._revealed.sampling_probability,
                                   self._mu_squared)
        if self._mu_squared == 0:
            return 0.0
        mu = math.sqrt(self._mu_squared)
        epsilon = dp_accounting.get_epsilon_gaussian(1 / mu, target_delta)
        # dp-accounting's root search stops within its tolerance on either side (a delta 1.6e-13
        # above the target was seen): round up until delta is below the target with a margin.
        while gaussian_delta(epsilon, np.array([mu]))[0] > target_delta * (1 - 1e-9):
            epsilon = epsilon * (1 + 1e-9) + 1e-15
        return epsilon
