"""dp-accounting's PLD accountant, extended to Gaussian sums over batches sampled without replacement.

dp-accounting 0.6.0's PLD accountant does not read ``SampledWithoutReplacementDpEvent``; its RDP
accountant does (Wang, Balle and Kasiviswanathan 2019), but RDP's conversion to (epsilon, delta)
costs 7-120% more noise than needed (measured: epsilon 0.1, q = 0.01, 500 steps asks z = 15.5
where 7.0 suffices). :class:`ReplaceOnePldAccountant` composes those events by privacy loss
distributions with the dominating pair of the mechanism.

The pair. One step releases ``sum_{k in B} g_k + N(0, s^2 I)``, ``B`` a uniform batch of ``b`` of
the ``n`` records, ``||g_k|| <= C``, ``q = b / n``. Let D, D' differ in record i. Couple the
batches of D and D' on the same positions, and a batch without i with one that holds i, by
swapping i for a uniform member k (both laws are uniform). Conditioned on the other ``b - 1``
members, with ``c`` their sum, the outputs on D and D' are

    P = (1 - q) N(c + g_k, s^2) + q N(c + g_i, s^2),   P' = (1 - q) N(c + g_k, s^2) + q N(c + g'_i, s^2),

three points at most ``Delta = 2 C`` apart. Write ``A = N(c + g_k)``, ``B = N(c + g_i)``,
``B' = N(c + g'_i)`` and ``H_a`` the hockey-stick divergence of order ``a = e^epsilon``. By the
advanced joint convexity of Balle, Barthe and Gaboardi (2018, "Privacy amplification by
subsampling: tight analyses via couplings and divergences", Theorem 2), with
``a' = 1 + q (a - 1)`` and ``b = a' / a``,

    H_a'(P || P') = q H_a(B || (1 - b) A + b B') <= q ((1 - b) H_a(B || A) + b H_a(B || B')),

and both divergences on the right are at most ``H_a(N(Delta) || N(0))``, so
``H_a'(P || P') <= q H_a(N(Delta) || N(0))``, which is the divergence of the pair

    (1 - q) N(0, s^2) + q N(Delta, s^2)   against   N(0, s^2)

(the case ``g'_i = g_k``), for every order ``a >= 1``; averaging over the coupling keeps the bound.
The pair is Zhu, Dong and Wang's (2022, "Optimal accounting of differential privacy via
characteristic function") for sampling without replacement under replace-one, and the same bound
holds with D and D' swapped.

What composes. The adaptive composition of T steps is bounded by the composition of per-step
pairs that dominate every order ``a > 0`` (Zhu, Dong and Wang 2022, Theorem 10), and
``H_a(P || P') = 1 - a + a H_{1/a}(P' || P)`` for ``a < 1``: a pair dominates every order iff both
its orders dominate the orders ``a >= 1`` of both orders of the mechanism. The pair above
dominates one order only, and the step's order is not fixed: the coupling's worst case may be
``g'_i = g_k`` at one step and ``g_i = g_k`` at the next, because the other records' gradients
change with the iterate. Composing the pair in each order and keeping the worse (dp-accounting's
add-or-remove reading, the ``"pld-two-orders"`` accountant) composes pairs that do not dominate
the mixed sequences: Lebeda, Regehr, Kamath and Steinke (2024, "Avoiding pitfalls for privacy
accounting of subsampled mechanisms under composition") show that a worst case per step need not
stay one under composition. No theorem privcd knows covers that reading, so it is kept by name only.

The symmetrised pair (the default, ``"pld"``). Let ``nu`` be the pessimistic PLD of the mixture
against ``N(0)`` restricted to positive losses: masses ``nu_l`` at grid losses ``l > 0`` with
``sum_{l > eps} nu_l (1 - e^{eps - l}) + nu_inf >= H_{e^eps}(mixture || N(0))`` for every
``eps >= 0`` (dp-accounting's connect-the-dots discretisation). Put mass ``nu_l`` at ``l``,
``e^{-l} nu_l`` at ``-l`` and the rest, ``m_0 = 1 - nu_inf - sum_l nu_l (1 + e^{-l})``, at 0. When
``m_0 >= 0`` this is the PLD of a pair (P*, Q*) with Q*'s masses ``e^{-l}`` times P*'s (a valid
pair) that is its own mirror image, so both its orders have the profile ``sum_{l > eps} nu_l
(1 - e^{eps - l}) + nu_inf``, which bounds both orders of the mechanism at every ``a >= 1``: the
pair dominates every order, and its T-fold composition bounds the run. ``m_0 >= 0`` holds
exactly: the mixture's loss is positive iff ``x > Delta / 2``, so ``P(L > 0) + Q(L > 0) =
q + 2 (1 - q) Phi(-Delta / (2 s)) <= 1``; the code checks the discretised masses too. The price
is the mixture's profile on both sides: measured, 1.10-1.21 times the two-order reading's epsilon
(``results/reference/README.md``). ``tests/test_privacy_tight.py`` checks the pair against
triples of the coupling and its composition against prv-accountant's, on the pair written there.

Events are read as in the rest of privcd (:mod:`privcd.privacy.events`): the inner
``GaussianDpEvent(w)`` has ``w = s / C = 2 z`` with ``z = s / Delta``.
"""
import numpy as np
from dp_accounting import dp_event, pld
from dp_accounting.pld import pld_pmf, privacy_loss_distribution

from privcd.privacy.events import ADD_OR_REMOVE_ONE, DISTANCE_PER_NORM_BOUND, REPLACE_ONE


def _mixture_pld(z, q, discretization):
    """dp-accounting's pessimistic PLD of ``(1 - q) N(0, z^2) + q N(1, z^2)`` against ``N(0, z^2)``
    (its ``remove`` order) and the reverse (its ``add`` order), in units of ``Delta``."""
    return privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=z, sensitivity=1.0, sampling_prob=q,
        value_discretization_interval=discretization, neighboring_relation=ADD_OR_REMOVE_ONE)


def symmetrised_pld(z, q, discretization):
    """The PLD of the symmetrised pair of one step sampled without replacement (module docstring).

    Parameters
    ----------
    z : float
        Noise standard deviation over the replace-one sensitivity ``Delta``, ``> 0``.
    q : float
        Sampling rate ``b / n`` in (0, 1].
    discretization : float
        The PLD grid step.

    Returns
    -------
    dp_accounting.pld.PrivacyLossDistribution
        Symmetric (one pmf for both orders), pessimistic.
    """
    mixture = _mixture_pld(z, q, discretization)._pmf_remove.to_dense_pmf()  # pylint: disable=protected-access
    losses = mixture._lower_loss + np.arange(mixture.size)  # pylint: disable=protected-access
    positive = losses > 0
    up, masses = losses[positive], mixture._probs[positive]  # pylint: disable=protected-access
    infinity = mixture._infinity_mass  # pylint: disable=protected-access
    mirrored = masses * np.exp(-up * discretization)
    zero = 1.0 - infinity - masses.sum() - mirrored.sum()
    if zero < 0.0:
        raise ArithmeticError(f"the symmetrised pair of z={z!r}, q={q!r} has negative mass {zero!r} at loss 0; "
                              f"its positive losses carry more than the two distributions hold")
    loss_probs = dict(zip((-up).tolist(), mirrored.tolist()))
    loss_probs.update(zip(up.tolist(), masses.tolist()))
    loss_probs[0] = zero
    return privacy_loss_distribution.PrivacyLossDistribution(
        pld_pmf.create_pmf(loss_probs, discretization, infinity, pessimistic_estimate=True))


class ReplaceOnePldAccountant(pld.PLDAccountant):
    """PLD accountant under replace-one neighbours that also reads sampled-without-replacement Gaussians.

    Parameters
    ----------
    value_discretization_interval : float
        The PLD grid step (dp-accounting's default 1e-4).
    two_orders : bool
        False (default): compose the symmetrised pair, which dominates every order of every step.
        True: compose the mixture pair in each order and keep the worse (``"pld-two-orders"``; no
        theorem covers it, module docstring).
    """

    def __init__(self, value_discretization_interval=1e-4, two_orders=False):
        super().__init__(neighboring_relation=REPLACE_ONE, value_discretization_interval=value_discretization_interval)
        self._two_orders = two_orders

    def _maybe_compose(self, event, count, do_compose):
        if not isinstance(event, dp_event.SampledWithoutReplacementDpEvent):
            return super()._maybe_compose(event, count, do_compose)
        if not isinstance(event.event, dp_event.GaussianDpEvent):
            return self.CompositionErrorDetails(
                invalid_event=event, error_message="privcd's PLD accountant samples Gaussian events only")
        if do_compose:
            z = event.event.noise_multiplier / DISTANCE_PER_NORM_BOUND
            q = event.sample_size / event.source_dataset_size
            if z == 0:
                self._contains_non_dp_event = True
            else:
                discretization = self._value_discretization_interval
                step = (_mixture_pld(z, q, discretization) if self._two_orders
                        else symmetrised_pld(z, q, discretization))
                self._pld = self._pld.compose(step.self_compose(count))
        return None
