"""Private selection among candidates whose training composes sampled Gaussians, accounted by RDP.

:func:`privcd.tune_private` runs the best of K candidates (Papernot and Steinke 2022, Theorem 2),
which needs each candidate's Rényi DP at every order. DP-CD's and DP-SkGD's training is exactly a
Gaussian mechanism (:mod:`privcd.tuning.private`); DP-SGD's and DP-SCD's (noise on every dual)
is T steps of a Gaussian sum over a batch sampled without replacement, whose RDP privcd reads from
Wang, Balle and Kasiviswanathan (2019, Theorem 27; :mod:`privcd.privacy.replace_one_rdp`);
DP-GCD's is 2T epsilon'-DP mechanisms, read as randomized responses
(:class:`~privcd.privacy.mechanisms.PureDpComposition`), whose ``z`` is ``sqrt(2) / epsilon'``.

The candidate. It draws a configuration c uniformly from the grid (independently of the data),
trains family ``F_c`` (:mod:`privcd.privacy.mechanisms`: e.g. T_c steps, batch b_c of n) at noise
multiplier ``z_c`` and scores the model with ``N(0, (score_clip / (n mu_s))^2)`` noise (mu_s-GDP,
RDP ``lambda mu_s^2 / 2``). A data-independent mixture of mechanisms has Rényi divergences at most
the largest of its components' (joint quasi-convexity, van Erven and Harremoës 2014, Theorem 13),
and the score composes, so at every order

    rho(lambda) = max_F rho_F(lambda; z_F) + lambda mu_s^2 / 2,

``rho_F`` the RDP of ``F(z_F)``. Theorem 2 turns rho into the selection's RDP
(:func:`privcd.privacy.selection.selection_rdp`) and dp-accounting's conversion into epsilon.

The noise. One knob z: ``z_F = z sqrt(T_F / T_max)``, so that every family's training costs about
the same (a composition of T Gaussians costs as one of multiplier ``z / sqrt(T)``), a
data-independent choice; z is the smallest (to 1e-3 relative, bisection) whose selection epsilon
is at most the target. Each family's runs then calibrate at the epsilon of ``F(z_F)`` at
``TRAINING_DELTA`` with the RDP accountant, read from a :class:`~privcd.privacy.CalibrationStore`
that holds ``z_F`` itself.
"""
import math
from dataclasses import dataclass

import numpy as np
from dp_accounting.rdp import rdp_privacy_accountant

from privcd.fit import prepare
from privcd.privacy.replace_one_rdp import ReplaceOneRdpAccountant
from privcd.privacy.reuse import CalibrationStore
from privcd.privacy.selection import selection_rdp

ACCOUNTANT = "rdp"
RELATIVE_TOLERANCE = 1e-3  # on the knob z


def family_rdp(family, noise_multiplier, orders):
    """The RDP of ``family(noise_multiplier)`` at ``orders`` (replace-one, privcd's RDP accountant)."""
    return np.asarray(ReplaceOneRdpAccountant(orders=list(orders)).compose(family(noise_multiplier)).rdp)


@dataclass(frozen=True)
class RdpCandidates:
    """The calibrated candidates: each family's noise, the store their runs read it from, the
    selection's epsilon and the candidate's RDP.

    Attributes
    ----------
    knob : float
        z of the module docstring.
    multipliers : dict
        family -> ``z_F``.
    epsilons : dict
        family -> the epsilon of ``F(z_F)`` at ``training_delta`` (what its runs are planned at).
    store : CalibrationStore
        Holds each family's calibration, so that planning reads ``z_F``.
    rdp : ndarray
        rho at the orders.
    epsilon : float
        The selection's epsilon at its delta.
    """

    knob: float
    multipliers: dict
    epsilons: dict
    store: CalibrationStore
    rdp: np.ndarray
    epsilon: float


def families(problem, algorithm, configurations, options):
    """``{configuration index: family}``: the mechanism family each configuration trains (planned
    without noise, so nothing is calibrated); ``ValueError`` when the RDP accountant cannot read one."""
    found = {}
    for index, configuration in enumerate(configurations):
        _, _, _, plan = prepare(problem, algorithm, epsilon=math.inf, **configuration, **options)
        family = plan.calibration.mechanism
        family.check_accountant(ACCOUNTANT)
        found[index] = family
    return found


def _scaled(knob, distinct):
    longest = max(family.steps for family in distinct)
    return {family: knob * math.sqrt(family.steps / longest) for family in distinct}


def calibrate_candidates(distinct, *, mu_score, epsilon, delta, shape, gamma, orders, training_delta):
    """The :class:`RdpCandidates` of the families ``distinct`` for a total ``epsilon`` at ``delta``
    (module docstring); ``ValueError`` when even noiseless training would not fit the score alone."""
    distinct = sorted(set(distinct), key=lambda family: CalibrationStore.key(family, 0.0, 0.0, ACCOUNTANT))
    cache = {}

    def candidate_rdp(knob):
        scaled = _scaled(knob, distinct)
        curves = []
        for family, multiplier in scaled.items():
            if (family, multiplier) not in cache:
                cache[family, multiplier] = family_rdp(family, multiplier, orders)
            curves.append(cache[family, multiplier])
        return np.max(curves, axis=0) + orders * mu_score**2 / 2.0

    def selection_epsilon(knob):
        rdp = selection_rdp(orders, candidate_rdp(knob), shape, gamma)
        return rdp_privacy_accountant.compute_epsilon(orders, rdp, delta)[0]

    low, high = 1.0, 1.0
    while selection_epsilon(high) > epsilon:
        low, high = high, 2.0 * high
        if high > 1e8:
            raise ValueError(f"epsilon={epsilon!r} is below what selecting among this many candidates costs with "
                             "this score's noise; lower mean_candidates or score_share, or raise epsilon")
    while low == high or selection_epsilon(low) <= epsilon:
        low /= 2.0
    while high / low > 1.0 + RELATIVE_TOLERANCE:
        middle = math.sqrt(low * high)
        if selection_epsilon(middle) <= epsilon:
            high = middle
        else:
            low = middle
    multipliers = _scaled(high, distinct)
    store, epsilons = CalibrationStore(), {}
    for family, multiplier in multipliers.items():
        curve = cache.get((family, multiplier))
        curve = family_rdp(family, multiplier, orders) if curve is None else curve
        epsilons[family] = float(rdp_privacy_accountant.compute_epsilon(orders, curve, training_delta)[0])
        store.entries[store.key(family, epsilons[family], training_delta, ACCOUNTANT)] = {
            "noise_multiplier": multiplier, "epsilon": epsilons[family], "delta": training_delta,
            "accountant": ACCOUNTANT}
    rdp = candidate_rdp(high)
    return RdpCandidates(high, multipliers, epsilons, store, rdp, float(selection_epsilon(high)))
