"""Tight accounting of DP-GCD: T Laplace releases and T report-noisy-max selections, composed by PLD.

DP-GCD (dp-gcd Algorithm 1, :mod:`privcd.algorithms.dp_gcd`) runs, at each of its T iterations,

- a selection by report-noisy-max, an ``epsilon'``-DP mechanism (dp-gcd Section 4.2; the Laplace
  scale privcd uses for it is argued in :mod:`privcd.algorithms.dp_gcd`), and
- the release of one gradient entry with Laplace noise of scale ``b = Delta / epsilon'``, whose
  outputs on neighbouring datasets are ``Lap(g, b)`` and ``Lap(g', b)`` with ``|g - g'| <= Delta``.

The paper composes these 2T ``epsilon'``-DP mechanisms by advanced composition (dp-gcd eq. (2),
:mod:`privcd.privacy.composition`), which is loose (1.3-3.9x the noise needed, worst at small T).
Here the composition is that of privacy loss distributions (Koskela et al. 2020; dp-accounting):

- a selection is any ``epsilon'``-DP mechanism, so its privacy loss distribution is dominated by
  that of the pure-DP pair ``(e^eps' / (1 + e^eps'), 1 / (1 + e^eps'))`` on two points
  (``from_privacy_parameters``; Kairouz, Oh and Viswanath 2015, Theorem 3.3: composing these pairs
  gives their optimal composition theorem exactly, up to the grid's pessimistic rounding);
- a release is the Laplace mechanism, dominated by ``Lap(0, b)`` against ``Lap(Delta, b)``
  (``from_laplace_mechanism`` with parameter ``b / Delta = 1 / epsilon'``), which is tighter than
  treating it as a generic ``epsilon'``-DP mechanism.

The T-fold self-compositions of the two are composed; the result is pessimistic (an upper bound on
the true epsilon) and at least as tight as optimal composition of 2T ``epsilon'``-DP mechanisms.
:func:`greedy_epsilon_per_step` finds the largest ``epsilon'`` meeting a target (epsilon, delta).

A release (:func:`grid_release_noise`) replaces each Laplace release by the integer
``rint(fl(g / h)) + Z``, ``h = Delta / K`` and ``Z`` the discrete Laplace of integer scale ``t``
(:func:`privcd.kernels.discrete_noise.discrete_laplace`): the integers of neighbours are at most
``S`` apart (:func:`privcd.privacy.grid_gaussian.sensitivity_units`, the floating-point sums'
errors included), so each release is ``S / t``-DP (the geometric mechanism, Ghosh, Roughgarden and
Sundararajan 2012), its pair dominated by the discrete Laplace at shifts 0 and ``S`` (a location
family with monotone likelihood ratio, as for the discrete Gaussian). Its PLD
(``from_discrete_laplace_mechanism``) replaces the continuous one in the composition, and ``t``
starts at ``ceil(S / epsilon')`` and grows until the composition is within the calibrated epsilon.

A release's selections are on the same grid (:func:`privcd.kernels.dp_gcd.select_on_grid`). Each
coordinate's score is an integer computed from ``U_j = rint(fl(g_j / h_j))`` and public values, in
units of ``h_j / sqrt(M_j)`` (``2 clip / (n K sqrt(tr M))`` for every j, as the continuous scores'
sensitivity ``Delta_j / sqrt(M_j)`` is the same for every j), and moves by at most
``S' = S + 1`` between neighbours (``S`` for ``U_j``, one more for the floor of the GS-r and GS-q
scores under L2; :func:`privcd.kernels.dp_gcd.grid_score`). Adding independent discrete Laplace
integers of scale ``t'`` and taking the first index of the largest sum (Algorithm 1: of the
largest ``|U_j + R_j + Z_j|``), coordinate i wins, for fixed other draws, exactly when ``Z_i`` lies
in a tail (two disjoint tails for Algorithm 1) whose end is the largest other score minus
coordinate i's: it moves by at most ``2 S'`` between neighbours, and a discrete Laplace tail
``P(Z >= a)`` changes by at most ``exp(2 S' / t')`` when ``a`` moves by ``2 S'``. Averaged over
the other draws, each selection is ``2 S' / t'``-DP, the report-noisy-max argument of
:mod:`privcd.algorithms.dp_gcd` in integers; ``t' = ceil(2 S' / epsilon')`` makes it
``epsilon'``-DP, as the composition above assumes. Ties have positive probability here and are
part of the argument: the first index wins them, so each winning set is still a tail.
"""
import functools
import math
from dataclasses import dataclass

import scipy.optimize
from dp_accounting.pld.common import DifferentialPrivacyParameters
from dp_accounting.pld import privacy_loss_distribution

from privcd.privacy.composition import advanced_composition_epsilon_per_step
from privcd.privacy.grid_gaussian import FINEST_RATIO, GROWTH, sensitivity_units
from privcd.validation import check_number, check_positive, check_positive_int

GRID_POINTS_PER_STEP = 64  # the PLD grid step is epsilon' / 64 (see greedy_epsilon)
RELATIVE_TOLERANCE = 1e-3  # on epsilon'


@dataclass(frozen=True)
class GridLaplaceNoise:
    """A release's grid noise for DP-GCD: grid ratio ``K``, sensitivity ``S`` and Laplace scale ``t``
    of the released entries in grid units, the selections' Laplace scale ``t'`` in score units, and
    the epsilon of the composition with them (module docstring)."""

    grid_ratio: int
    sensitivity_units: int
    scale_units: int
    selection_units: int
    epsilon: float


@functools.lru_cache(maxsize=4096)
def greedy_epsilon(epsilon_step, delta, iterations, grid_points=GRID_POINTS_PER_STEP, release_grid=None):
    """Epsilon at ``delta`` of ``iterations`` DP-GCD iterations, each an ``epsilon_step``-DP selection
    and an ``epsilon_step``-DP Laplace release (module docstring).

    Parameters
    ----------
    epsilon_step : float
        ``epsilon' >= 0`` of each mechanism (``inf`` gives ``inf``, 0 gives 0).
    delta : float
        In ``(0, 1)``.
    iterations : int
        T >= 1.
    grid_points : int
        The PLD grid step is ``epsilon' / grid_points``: the selection's losses ``+-epsilon'`` lie
        on the grid (no rounding), the Laplace losses in ``[-epsilon', epsilon']`` round up by
        less than a step, and the grid spans ``2 T grid_points`` steps whatever ``epsilon'`` is
        (a fixed step of 1e-4 rounded the losses of a small ``epsilon'`` up to 4x, and took 12 s
        for T = 1000 at a large one).
    release_grid : (t, S) or None
        A release's discrete Laplace releases of scale ``t`` and sensitivity ``S`` in grid units
        (module docstring); None: the continuous Laplace releases of an experiment.
    """
    epsilon_step = check_number("epsilon_step", epsilon_step, low=0.0, low_open=False, allow_inf=True)
    delta = check_number("delta", delta, low=0.0, high=1.0)
    iterations = check_positive_int("iterations", iterations)
    if math.isinf(epsilon_step):
        return math.inf
    if epsilon_step == 0:
        return 0.0
    return greedy_pld(epsilon_step, iterations, grid_points, release_grid).get_epsilon_for_delta(delta)


def greedy_pld(epsilon_step, iterations, grid_points=GRID_POINTS_PER_STEP, release_grid=None):
    """The pessimistic privacy loss distribution of ``iterations`` DP-GCD iterations at ``epsilon' > 0``
    (:func:`greedy_epsilon`'s arguments): the T-fold compositions of the selections' pure-DP pair and
    of the releases' Laplace (or discrete Laplace) pair, composed."""
    discretization = epsilon_step / grid_points
    selection = privacy_loss_distribution.from_privacy_parameters(
        DifferentialPrivacyParameters(epsilon_step, 0.0), value_discretization_interval=discretization)
    if release_grid is None:
        release = privacy_loss_distribution.from_laplace_mechanism(
            parameter=1.0 / epsilon_step, sensitivity=1.0, value_discretization_interval=discretization)
    else:
        scale, sensitivity = release_grid
        release = privacy_loss_distribution.from_discrete_laplace_mechanism(
            parameter=1.0 / scale, sensitivity=sensitivity, value_discretization_interval=discretization,
            use_connect_dots=True)  # pessimistic too (Doroshenko et al. 2022), and tighter on its S + 1 losses
    return selection.self_compose(iterations).compose(release.self_compose(iterations))


def greedy_epsilon_per_step(epsilon, delta, iterations):
    """The largest ``epsilon'`` (within :data:`RELATIVE_TOLERANCE`) whose :func:`greedy_epsilon` is
    ``<= epsilon``: Brent's method on ``log greedy_epsilon - log epsilon`` between the advanced
    composition's ``epsilon'`` (dp-gcd eq. (2), always feasible here: the PLD composition is at
    least as tight) and ``epsilon`` (one mechanism alone spends it), then lowered until feasible.
    """
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    delta = check_number("delta", delta, low=0.0, high=1.0)
    iterations = check_positive_int("iterations", iterations)
    if math.isinf(epsilon):
        return math.inf
    lower = advanced_composition_epsilon_per_step(epsilon, delta, 2 * iterations)
    upper = epsilon
    if greedy_epsilon(lower, delta, iterations) > epsilon:  # the grid's rounding at tiny epsilon'
        lower = _halve_until_feasible(lower, epsilon, delta, iterations)
    if greedy_epsilon(upper, delta, iterations) <= epsilon:
        return upper
    xtol = RELATIVE_TOLERANCE * lower
    root = scipy.optimize.brentq(lambda x: math.log(greedy_epsilon(x, delta, iterations) / epsilon), lower, upper,
                                 xtol=xtol)
    while greedy_epsilon(root, delta, iterations) > epsilon:
        root = max(lower, root - xtol)
    return root


def _halve_until_feasible(value, epsilon, delta, iterations):
    while greedy_epsilon(value, delta, iterations) > epsilon:
        value /= 2
    return value


def grid_release_noise(epsilon_step, *, n_terms, iterations, epsilon, delta):
    """The :class:`GridLaplaceNoise` of a release of ``iterations`` DP-GCD iterations whose
    continuous calibration is ``epsilon_step`` per mechanism and ``epsilon`` in all, each released
    entry a sum of ``n_terms`` clipped terms (module docstring)."""
    sensitivity = sensitivity_units(n_terms, FINEST_RATIO)
    selection = grid_selection_units(epsilon_step, sensitivity)
    scale = math.ceil(sensitivity / epsilon_step)
    while True:
        achieved = greedy_epsilon(epsilon_step, delta, iterations, release_grid=(scale, sensitivity))
        if achieved <= epsilon:
            return GridLaplaceNoise(FINEST_RATIO, sensitivity, scale, selection, achieved)
        scale = math.ceil(scale * GROWTH)


def grid_selection_units(epsilon_step, sensitivity):
    """``t' = ceil(2 (S + 1) / epsilon')``: the discrete Laplace scale of a release's selections,
    each then ``epsilon'``-DP for integer scores that move by at most ``S + 1`` (module docstring)."""
    epsilon_step = check_positive("epsilon_step", epsilon_step)
    sensitivity = check_positive_int("sensitivity", sensitivity)
    return math.ceil(2 * (sensitivity + 1) / epsilon_step)
