"""The accountant side of calibration (imports dp-accounting): the root search for the smallest
noise multiplier meeting a target (epsilon, delta), and the epsilon of an event.

:func:`privcd.privacy.calibrate` validates, caches and stores; it calls :func:`find_noise_multiplier`
on the first calibration of a process that needs one. The noise multiplier ``z`` of a mechanism
family ``mechanism(z)`` (:mod:`privcd.privacy.mechanisms`) is found by
:func:`dp_accounting.calibrate_dp_mechanism`, which returns a ``z`` within ``tol`` of the smallest
one and whose epsilon is ``<= target`` by construction. privcd first brackets the root by doubling
or halving ``z`` from 1 (by steps of 25% from the exact accountant's noise, a lower bound, for
compositions of Gaussians), then passes the bracket and ``tol`` = :data:`RELATIVE_TOLERANCE`
times its lower end: epsilon falls in ``z`` at least as fast as ``1 / z`` in the regimes of
privcd, so the achieved epsilon lies within a few tenths of a percent below the target (the
tests require 1%). (Brent's method would take fewer evaluations, but it would move the papers'
calibrations, and with them the reproductions' numbers, within that tolerance.)

For the PLD accountant, whose epsilon is looser on coarser grids, the calibration is repeated on
the finer grids of :data:`~privcd.privacy.accountants.PLD_DISCRETIZATIONS`, each bracketing
from the previous ``z`` by steps of 3% (a finer grid lowers epsilon, so ``z`` moves down, by
under 1% in the cases measured), until a finer grid would lower ``z`` by less than
:data:`~privcd.privacy.accountants.PLD_NOISE_TOLERANCE` (predicted from the epsilon it saves at
the current ``z`` and the slope of ``log epsilon`` against ``log z`` across the last bracket).
Measured on 2 cores, n = 20,000, delta = 1/n^2, Poisson sampling: batch 256 for 10 passes
(782 steps) calibrates in 0.08 s; batch 1 for 10 passes (200,000 steps) in 3 s at epsilon = 1
(noise 0.6% below that of the coarsest grid) and 2 s at epsilon = 0.1 (the coarsest grid alone
would have asked for 17 times more noise); batch 1 for 20 passes in 11 s.
"""
import math

import dp_accounting

from privcd.privacy.accountants import PLD_EPSILON_TOLERANCE, PLD_NOISE_TOLERANCE, discretizations, make_accountant
from privcd.privacy.events import describe
from privcd.privacy.mechanisms import ACCOUNTANTS, check_accountant, unsupported
from privcd.validation import check_number

RELATIVE_TOLERANCE = 1e-3  # on the noise multiplier
PROBE = 1.0  # noise multiplier the bracketing starts from
_FIRST_STEP = 2.0  # bracketing factor from z = 1
_FROM_EXACT_STEP = 1.25  # bracketing factor from the exact accountant's z (a lower bound)
_REFINE_STEP = 1.03  # bracketing factor from the previous discretisation level's z
_MAX_BRACKET_STEPS = 100


def _check_supported(event, accountant):
    """``ValueError`` naming the accountant and the event kind when ``accountant`` cannot read ``event``."""
    if make_accountant(accountant).supports(event):
        return
    raise unsupported(accountant, describe(event),
                      [name for name in ACCOUNTANTS if make_accountant(name).supports(event)])


class _EpsilonCurve:
    """``z -> epsilon(mechanism(z), delta)`` with one accountant setting, memoised."""

    def __init__(self, mechanism, delta, accountant, discretization):
        self.mechanism = mechanism
        self.delta = delta
        self.accountant = accountant
        self.discretization = discretization
        self._values = {}

    def fresh_accountant(self):
        return make_accountant(self.accountant, self.discretization)

    def __call__(self, z):
        if z not in self._values:
            self._values[z] = self.fresh_accountant().compose(self.mechanism(z)).get_epsilon(self.delta)
        return self._values[z]


def _bracket(curve, target, start, factor):
    """``(lower, upper)`` with ``curve(lower) > target >= curve(upper)`` and ``upper = factor lower``,
    stepping geometrically from ``start`` (upwards while the noise is too small, else downwards)."""
    z = start
    if curve(z) > target:
        for _ in range(_MAX_BRACKET_STEPS):
            lower, z = z, z * factor
            if curve(z) <= target:
                return lower, z
    else:
        for _ in range(_MAX_BRACKET_STEPS):
            upper, z = z, z / factor
            if curve(z) > target:
                return z, upper
    raise RuntimeError(f"no noise multiplier between {start / factor**_MAX_BRACKET_STEPS:g} and "
                       f"{start * factor**_MAX_BRACKET_STEPS:g} brackets epsilon={target}")


def _noise_saving(bracket, finer, found):
    """Relative noise a finer grid would save: the relative epsilon it saves at the current ``z``
    over the slope of ``log epsilon`` against ``log z`` across the coarser grid's ``bracket``."""
    coarse, lower, upper = bracket
    if coarse(upper) == 0:
        return 0.0
    slope = math.log(coarse(lower) / coarse(upper)) / math.log(upper / lower)
    z, achieved = found
    return math.log(achieved / finer(z)) / slope


def find_noise_multiplier(mechanism, epsilon, delta, accountant):
    """``(z, achieved epsilon)``: the smallest noise multiplier (within :data:`RELATIVE_TOLERANCE`)
    whose run ``mechanism(z)`` is (epsilon, delta)-DP for ``accountant``, and its epsilon
    (``<= epsilon``), computed by a fresh accountant (see the module docstring).

    ``mechanism`` is a family of :mod:`privcd.privacy.mechanisms`, already checked with the
    accountant; ``epsilon`` finite and ``delta`` in (0, 1), checked by the caller.
    """
    start, factor = PROBE, _FIRST_STEP
    if accountant != "exact" and "exact" in mechanism.accountants:
        # A composition of Gaussians: its exact epsilon is below every accountant's, so the exact
        # noise (milliseconds) is a lower bound to start from, and the PLD accountant is never
        # asked about the far lower noises where its grid is huge (minutes for 1e5 Gaussians).
        start, factor = find_noise_multiplier(mechanism, epsilon, delta, "exact")[0], _FROM_EXACT_STEP
    found = bracket = None
    for discretization in discretizations(accountant):
        curve = _EpsilonCurve(mechanism, delta, accountant, discretization)
        if found is not None:
            if _noise_saving(bracket, curve, found) <= PLD_NOISE_TOLERANCE:
                break
            start, factor = found[0], _REFINE_STEP
        lower, upper = _bracket(curve, epsilon, start, factor)
        bracket = (curve, lower, upper)
        z = dp_accounting.calibrate_dp_mechanism(
            curve.fresh_accountant, mechanism, epsilon, delta,
            bracket_interval=dp_accounting.ExplicitBracketInterval(lower, upper), tol=RELATIVE_TOLERANCE * lower)
        achieved = curve(z)
        if achieved > epsilon:  # calibrate_dp_mechanism's contract; the accountants are deterministic
            raise RuntimeError(f"calibrated z={z} gives epsilon={achieved} > target {epsilon}")
        found = (z, achieved)
    return found


def epsilon_of(event, delta, accountant):
    """Epsilon of ``event`` at ``delta`` with accountant ``accountant`` (replace-one neighbours).

    For the PLD accountant, the discretisation is refined until epsilon improves by less than
    :data:`~privcd.privacy.accountants.PLD_EPSILON_TOLERANCE`; the smallest value seen (each is
    an upper bound) is returned.
    """
    delta = check_number("delta", delta, low=0.0, high=1.0)
    check_accountant(accountant)
    _check_supported(event, accountant)
    best = math.inf
    for discretization in discretizations(accountant):
        value = make_accountant(accountant, discretization).compose(event).get_epsilon(delta)
        if math.isinf(value) or best - value <= PLD_EPSILON_TOLERANCE * value:
            return min(best, value)
        best = value
    return best
