"""Gaussian noise that stays private as IEEE floats: the discrete Gaussian on a grid (release mode).

An experiment's kernel releases ``fl(g + fl(sigma N))`` with ``N`` a standard normal computed in
floating point; the set of floats it can output depends on ``g``, so a neighbour's ``g'`` may be
unable to produce an observed output (Mironov 2012), which no epsilon allows. A release's kernel
never rounds a noisy value. For a value ``g`` (a clipped gradient entry, sum of ``n`` terms of
magnitude at most ``C`` over ``n``) whose replace-one sensitivity is ``Delta = 2 C / n``, it releases
the integer

    m = rint(fl(g / h)) + Z,    h = fl(Delta / K),    Z ~ N_Z(0, s^2),

``Z`` the discrete Gaussian sampled exactly from uniform integers
(:func:`privcd.kernels.discrete_noise.discrete_gaussian`), and steps with ``h m``: post-processing.
``|rint(g / h)| <= n K / 2`` and ``Z`` are integers far below 2^53, so ``m`` is exact in float64.

Sensitivity in grid units (:func:`sensitivity_units`). In exact arithmetic ``g / h`` moves by at
most ``K`` between neighbours. In floating point, the sum of the ``n`` terms is within
``gamma_{n-1} n C`` of its exact value (``gamma_k = k u / (1 - k u)``, ``u = 2^-53``, any order of
summation; Higham 2002, *Accuracy and Stability of Numerical Algorithms*, eq. (4.4)); the records
both datasets share give the same terms bit for bit (the same iterate, residual and row), so only
the replaced record's term and the roundings differ. With the division by ``n`` and by ``h``
(relative error ``u`` each) and ``h >= (2 C / (n K)) (1 - u)^3``, the two values of ``fl(g / h)`` are
at most ``K (1 - u)^-3 (1 + n (gamma_{n-1} + 2 u (1 + gamma_{n-1})))`` apart, and rounding each to
the nearest integer adds at most 1: the integers differ by at most

    S = floor(K (1 - u)^-3 (1 + n (gamma_{n-1} + 2 u (1 + gamma_{n-1}))) + 1),

``K + 1`` for ``n`` up to about ``sqrt(1 / (K u))`` (3 million at K = 1,024), computed exactly in
rationals.

Privacy. ``N_Z(d, s^2)`` has a monotone likelihood ratio in ``d`` and is stochastically increasing,
so its Neyman-Pearson tests are threshold tests and the pair at the largest shift ``S`` has the
lowest trade-off curve: every step is dominated by ``(N_Z(0, s^2), N_Z(S, s^2))``. ``T`` adaptively
composed steps are accounted by dp-accounting's privacy loss distribution of that pair
(``from_discrete_gaussian_mechanism``, pessimistic estimate, composed ``T`` times), the discrete
Gaussian's own, not the continuous one's (Canonne, Kamath and Steinke 2020 show the two nearly
equal). Beyond :data:`PLD_STEPS` steps (wide problems: DP-CD's T is passes times p) each step's
losses are a small fraction of the PLD's grid, whose pessimistic rounding then dominates and whose
composition takes minutes; there the steps are accounted by concentrated DP instead:
``N_Z(0, s^2)`` against ``N_Z(S, s^2)`` has Rényi divergence at most ``alpha S^2 / (2 s^2)`` at every
order for an integer S (Canonne, Kamath and Steinke 2020, Proposition 5), so T steps are
``T S^2 / (2 s^2)``-zCDP, converted to (epsilon, delta) by dp-accounting's RDP conversion (sound,
a few percent more noise than the PLD would need). :func:`grid_noise` takes the continuous calibration of
the run, noise multiplier ``z`` and achieved epsilon, and returns the smallest ``s >= z S`` (up
by factors of ``1 + 2^-10``) whose discrete accounting is within that epsilon: the release keeps
its calibrated (epsilon, delta), with noise ``S / K`` (about ``1 + 1 / K``) times the continuous
one's.

Grid ratio ``K`` (:func:`grid_ratio`): a power of two, 1,024 unless the noise is so large that
``s`` would pass 2^15 (the accounting's cost grows with ``s``): ``K = 2^floor(log2(2^15 / z))``,
at least 1.
"""
import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privcd.kernels.discrete_noise import MAX_SIGMA
from privcd.validation import check_number, check_positive_int

ROUNDING = Fraction(1, 2**53)  # u, the unit roundoff of float64
FINEST_RATIO = 1024  # K when the noise allows it
LARGEST_SIGMA = 2**15  # s above which K is lowered (the PLD's cost grows with s)
GROWTH = 1 + 2.0**-10  # the factor s grows by until the discrete accounting is within the target
PLD_STEPS = 20_000  # above it, discrete_epsilon accounts by concentrated DP (module docstring)
ZCDP_LARGEST_SIGMA = MAX_SIGMA // 2  # s above which K is lowered there (room for s to grow to the sampler's limit)


@dataclass(frozen=True)
class GridNoise:
    """A release's grid noise: grid ratio ``K``, sensitivity ``S`` and standard deviation ``s`` in
    grid units, and the epsilon of the steps' discrete accounting at the run's delta."""

    grid_ratio: int
    sensitivity_units: int
    sigma_units: int
    epsilon: float


def largest_fitting_ratio(wanted, fits):
    """The largest power of two ``K <= wanted`` (itself a power of two) with ``fits(K)``, halving from
    ``wanted``; 1 when none does (the callers' noise limits: every grid module picks its K so)."""
    ratio = wanted
    while ratio > 1 and not fits(ratio):
        ratio //= 2
    return ratio


def grid_ratio(noise_multiplier, largest_sigma=LARGEST_SIGMA):
    """``K``: 1,024, or the power of two that keeps ``s = z K`` within ``largest_sigma`` (module
    docstring; :data:`ZCDP_LARGEST_SIGMA` where the steps are accounted by concentrated DP, whose
    cost does not grow with s)."""
    z = check_number("noise_multiplier", noise_multiplier, low=0.0)
    return largest_fitting_ratio(FINEST_RATIO, lambda ratio: z * ratio <= largest_sigma)


def summation_gamma(n_terms):
    """``gamma_{n-1} = (n - 1) u / (1 - (n - 1) u)``, exactly: a float64 sum of ``n`` terms, in any order,
    is within ``gamma_{n-1}`` times the sum of their magnitudes of the exact sum (Higham 2002, *Accuracy
    and Stability of Numerical Algorithms*, eq. (4.4))."""
    return (n_terms - 1) * ROUNDING / (1 - (n_terms - 1) * ROUNDING)


def sensitivity_units(n_terms, ratio):
    """``S``: the most two neighbours' rounded ``g / h`` can differ by (module docstring), exactly."""
    n = check_positive_int("n_terms", n_terms)
    k = check_positive_int("ratio", ratio)
    gamma = summation_gamma(n)
    spread = Fraction(k) / (1 - ROUNDING) ** 3 * (1 + n * (gamma + 2 * ROUNDING * (1 + gamma)))
    return math.floor(spread + 1)


def grid_spacings(bounds, n_terms, ratio):
    """``h_j = fl(fl(2 C_j / n) / K)``: the grid spacing of values that sum ``n_terms`` terms of
    magnitude at most ``bounds`` (``C_j``) over ``n``, at grid ratio ``K`` (module docstring).
    The release's kernels and :func:`sensitivity_units` rest on this order of operations."""
    return 2.0 * bounds / n_terms / ratio


@functools.lru_cache(maxsize=256)
def discrete_epsilon(sigma_units, sensitivity, steps, delta):
    """Epsilon at ``delta`` of ``steps`` composed discrete Gaussian steps: dp-accounting's PLD of
    ``(N_Z(0, s^2), N_Z(S, s^2))``, pessimistic, connected dots, up to :data:`PLD_STEPS` steps; their
    concentrated DP beyond (module docstring)."""
    from dp_accounting.pld import privacy_loss_distribution
    from dp_accounting.rdp import rdp_privacy_accountant

    if steps > PLD_STEPS:
        orders = np.asarray(rdp_privacy_accountant.DEFAULT_RDP_ORDERS, dtype=float)
        rho = steps * float(sensitivity) ** 2 / (2.0 * float(sigma_units) ** 2)
        return float(rdp_privacy_accountant.compute_epsilon(orders, orders * rho, delta)[0])

    pld = privacy_loss_distribution.from_discrete_gaussian_mechanism(
        sigma=float(sigma_units), sensitivity=int(sensitivity), pessimistic_estimate=True,
        value_discretization_interval=1e-3, use_connect_dots=True)
    return float(pld.self_compose(int(steps)).get_epsilon_for_delta(delta))


def grid_noise(noise_multiplier, *, n_terms, steps, epsilon, delta):
    """The :class:`GridNoise` of ``steps`` releases calibrated (continuous) at ``noise_multiplier`` to
    ``epsilon`` at ``delta``, each a sum of ``n_terms`` clipped terms (module docstring)."""
    ratio = grid_ratio(noise_multiplier, ZCDP_LARGEST_SIGMA if steps > PLD_STEPS else LARGEST_SIGMA)
    sensitivity = sensitivity_units(n_terms, ratio)
    sigma = max(1, math.ceil(noise_multiplier * sensitivity))
    while True:
        if sigma > MAX_SIGMA:
            raise ValueError(f"noise_multiplier={noise_multiplier!r}: the release's grid noise would need a discrete "
                             f"Gaussian of sigma {sigma} > {MAX_SIGMA} grid units; lower the noise (a larger epsilon "
                             "or fewer passes)")
        achieved = discrete_epsilon(sigma, sensitivity, steps, delta)
        if achieved <= epsilon:
            return GridNoise(ratio, sensitivity, sigma, achieved)
        sigma = math.ceil(sigma * GROWTH)
