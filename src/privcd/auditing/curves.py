"""Audits against a privacy curve: the smallest noise multiplier a test's error rates contradict.

A claim computed by a privacy loss distribution is a whole privacy profile ``delta_z(epsilon)``, not
one (epsilon, delta). Two families are read (:func:`claimed_pld`): DP-SGD with sampled batches
(the symmetrised pair of :mod:`privcd.privacy.replace_one_pld`, T times), and DP-GCD (T pure-DP
selections and T Laplace releases at ``epsilon' = sqrt(2) / z``,
:func:`privcd.privacy.greedy_composition.greedy_pld`). A test with false positive and false negative rates
FPR and FNR contradicts the profile if, for some epsilon,

    max(1 - FNR - e^epsilon FPR, 1 - FPR - e^epsilon FNR) > delta_z(epsilon)

(Kairouz, Oh and Viswanath 2015, Theorem 2.1, at every epsilon: the mechanism is then not
``(epsilon, delta_z(epsilon))``-DP). The profiles of one mechanism family are ordered by the noise
multiplier (more noise, a smaller profile), so the multipliers a test contradicts form an interval
``[z_c, inf)``; :meth:`ProfileTable.smallest_contradicted_multiplier` finds ``z_c``, with each
profile the pessimistic PLD's (an upper bound on ``delta_z``, so a contradiction found is one of
the true profile) and the rates' Clopper-Pearson upper bounds; the search stays within 4x of the
claimed multiplier. If the audited mechanism's profile
is that of a family member, its multiplier is below ``z_c`` and its epsilon at the claimed delta is
at least ``epsilon_z_c(delta)``: the bound reported. :class:`ProfileTable` tabulates the profiles
once per audit, so the threshold can be chosen by the bound it gives. This is Nasr et al. 2023's reading of a test
through the claimed curve (their Gaussian case is :func:`privcd.auditing.bounds.mu_lower_bound`),
for the PLD families; one test at moderate rates then bounds the whole curve. A sound mechanism's
test stays under its own profile (with the rates' confidence), so ``z_c`` is above its
multiplier and the bound below its claim.
"""
import math

import numpy as np

from privcd.privacy.mechanisms import PureDpComposition, SubsampledGaussian

PROFILE_DISCRETIZATION = 1e-3  # the PLD grid of the profiles (pessimistic: coarser only lowers the bound)
PROFILE_POINTS = 200  # epsilons at which a profile is compared with the rates
SEARCH_RANGE = 4.0  # multipliers searched: the claimed z over and times this (below z / 4 the PLDs grow slow)
SEARCH_POINTS = 33  # profiles tabulated on a log grid of that range (9% apart)
REFINEMENT_STEPS = 12  # bisection steps inside the grid cell of the final bound
CANDIDATE_THRESHOLDS = 200  # thresholds the selection split tries (each against every tabulated profile)


def is_curve_claim(calibration):
    """True for a claim this module reads, accounted by privacy loss distributions (``"pld"``): Gaussian
    sums over batches drawn without replacement (fewer than every record), or DP-GCD's composition of
    pure-DP selections and Laplace releases."""
    mechanism = calibration.mechanism
    if calibration.accountant != "pld" or not calibration.noise_multiplier > 0:
        return False
    sampled = (isinstance(mechanism, SubsampledGaussian) and mechanism.sampling == "without-replacement"
               and mechanism.batch_size < mechanism.n)
    return sampled or isinstance(mechanism, PureDpComposition)


def epsilon_grid(claim_epsilon):
    """The epsilons at which profiles are compared: 0 to ``4 claim + 10``."""
    return np.linspace(0.0, 4.0 * claim_epsilon + 10.0, PROFILE_POINTS)


def claimed_pld(mechanism, noise_multiplier):
    """The pessimistic PLD of ``mechanism`` at multiplier ``z``: for sampled DP-SGD the symmetrised pair
    composed ``T`` times; for DP-GCD (``2 T`` pure-DP mechanisms) its accounting's composition at
    ``epsilon' = sqrt(2) / z``."""
    if isinstance(mechanism, PureDpComposition):
        from privcd.privacy.greedy_composition import greedy_pld

        return greedy_pld(math.sqrt(2.0) / noise_multiplier, mechanism.steps // 2)
    from privcd.privacy.replace_one_pld import symmetrised_pld

    step = symmetrised_pld(noise_multiplier, mechanism.batch_size / mechanism.n, PROFILE_DISCRETIZATION)
    return step.self_compose(mechanism.steps)


def claimed_profile(mechanism, noise_multiplier, epsilons):
    """``delta_z(epsilon)`` of ``mechanism`` at multiplier ``z`` (:func:`claimed_pld`)."""
    return privacy_profile(claimed_pld(mechanism, noise_multiplier), epsilons)


def privacy_profile(distribution, epsilons):
    """The hockey-stick divergence ``delta(epsilon)`` of a dp-accounting PLD at sorted ``epsilons``, the
    larger of its two orders: for losses ``l`` of mass ``p_l`` and ``p_inf`` at infinity,

        delta(epsilon) = p_inf + sum_{l > epsilon} p_l - e^epsilon sum_{l > epsilon} p_l e^-l,

    dp-accounting's ``get_delta_for_epsilon`` formula, its two sums taken here as suffix sums (one
    numpy pass) where dp-accounting loops over the losses in Python (20 s of a 50 s audit at epsilon
    8)."""
    orders = [distribution._pmf_remove]  # pylint: disable=protected-access
    if not distribution._symmetric:  # pylint: disable=protected-access
        orders.append(distribution._pmf_add)  # pylint: disable=protected-access
    return np.max([hockey_stick(order.to_dense_pmf(), np.asarray(epsilons, dtype=float)) for order in orders], axis=0)


def hockey_stick(dense, epsilons):
    """:func:`privacy_profile` of one order, a dp-accounting ``DensePLDPmf``."""
    # pylint: disable=protected-access
    losses = (np.arange(dense.size) + dense._lower_loss) * dense._discretization
    probs = dense._probs
    above = np.concatenate((np.cumsum(probs[::-1])[::-1], [0.0]))  # sum over losses[i:]
    below = np.concatenate((np.cumsum((probs * np.exp(-losses))[::-1])[::-1], [0.0]))
    first = np.searchsorted(losses, epsilons, side="right")  # the first loss above each epsilon
    return dense._infinity_mass + above[first] - np.exp(epsilons) * below[first]


def empirical_profile(false_positive_rate, false_negative_rate, epsilons):
    """The delta each epsilon needs to allow the rates (module docstring; arrays of rates broadcast
    against ``epsilons`` on a new last axis)."""
    fpr = np.asarray(false_positive_rate, dtype=float)[..., None]
    fnr = np.asarray(false_negative_rate, dtype=float)[..., None]
    growth = np.exp(epsilons)
    return np.maximum(1.0 - fnr - growth * fpr, 1.0 - fpr - growth * fnr)


class ProfileTable:
    """The claimed family's profiles at :data:`SEARCH_POINTS` multipliers, log-spaced within
    :data:`SEARCH_RANGE` of the claimed ``z``, on :func:`epsilon_grid` of the claim."""

    def __init__(self, mechanism, noise_multiplier, claim_epsilon):
        self.mechanism = mechanism
        self.epsilons = epsilon_grid(claim_epsilon)
        self.multipliers = noise_multiplier * np.geomspace(1.0 / SEARCH_RANGE, SEARCH_RANGE, SEARCH_POINTS)
        self.profiles = np.array([claimed_profile(mechanism, z, self.epsilons) for z in self.multipliers])

    def contradicted(self, false_positive_rate, false_negative_rate, profile):
        """Whether rates (arrays allowed) contradict one profile (module docstring)."""
        return self.excess(false_positive_rate, false_negative_rate, profile) > 0.0

    def excess(self, false_positive_rate, false_negative_rate, profile):
        """How far rates (arrays allowed) are from contradicting ``profile``: the largest excess of the
        delta they need over it (positive: contradicted)."""
        empirical = empirical_profile(false_positive_rate, false_negative_rate, self.epsilons)
        return np.max(empirical - profile, axis=-1)

    def smallest_contradicted_index(self, false_positive_rate, false_negative_rate):
        """Per rate pair, the index of the smallest tabulated multiplier contradicted (the family's
        ordering makes the contradicted ones a tail); ``SEARCH_POINTS`` when none is."""
        rates = np.broadcast(np.asarray(false_positive_rate), np.asarray(false_negative_rate)).shape
        index = np.full(rates, SEARCH_POINTS)
        for i in range(SEARCH_POINTS - 1, -1, -1):
            hit = self.contradicted(false_positive_rate, false_negative_rate, self.profiles[i])
            if not np.any(hit):
                break
            index = np.where(hit, i, index)
        return index

    def smallest_contradicted_multiplier(self, false_positive_rate, false_negative_rate):
        """``z_c`` of one rate pair: the tabulated cell, then :data:`REFINEMENT_STEPS` bisection steps on
        log z inside it; ``inf`` when no multiplier of the range is contradicted, the range's lowest
        when all are (a bound, then, capped at it)."""
        index = int(self.smallest_contradicted_index(false_positive_rate, false_negative_rate))
        if index >= SEARCH_POINTS:
            return math.inf
        if index == 0:
            return float(self.multipliers[0])
        low, high = math.log(self.multipliers[index - 1]), math.log(self.multipliers[index])
        for _ in range(REFINEMENT_STEPS):
            middle = (low + high) / 2.0
            profile = claimed_profile(self.mechanism, math.exp(middle), self.epsilons)
            if self.contradicted(false_positive_rate, false_negative_rate, profile):
                high = middle
            else:
                low = middle
        return math.exp(high)


def curve_epsilon(mechanism, noise_multiplier, delta):
    """Epsilon at ``delta`` of ``mechanism`` at multiplier ``z`` by the ``"pld"`` accountant, as its
    calibration computes it (0 for ``z = inf``)."""
    if math.isinf(noise_multiplier):
        return 0.0
    if isinstance(mechanism, PureDpComposition):
        from privcd.privacy.greedy_composition import greedy_epsilon

        return float(greedy_epsilon(math.sqrt(2.0) / noise_multiplier, delta, mechanism.steps // 2))
    from privcd.privacy.events import subsampled_gaussian_event
    from privcd.privacy.search import epsilon_of

    event = subsampled_gaussian_event(noise_multiplier, mechanism.steps, batch_size=mechanism.batch_size,
                                      n=mechanism.n, sampling=mechanism.sampling)
    return float(epsilon_of(event, delta, "pld"))
