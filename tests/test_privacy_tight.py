"""The tightest accountants: sampling without replacement by its symmetrised pair (PLD), DP-GCD's
Laplace and report-noisy-max steps by PLD, and DP-SCD's revealed batches by a binomial mixture.

Checked against independent computations only: hockey-stick divergences by quadrature, privacy
random variables written here for prv-accountant, Kairouz-Oh-Viswanath's optimal composition
formula, and sums of binomial terms with mpmath. The cases are not the ones the code was tuned on.
"""
import math

import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.optimize
import scipy.stats
from prv_accountant import PRVAccountant
from prv_accountant.privacy_random_variables import PrivacyRandomVariable

from privcd import privacy
from privcd.privacy.revealed_batches import mixture_delta

pytestmark = pytest.mark.slow  # the slow tier: python -m pytest -m slow (.ci/run)

norm = scipy.stats.norm


# -- independent computations ----------------------------------------------------------------------

def hockey_stick(log_p, log_q, epsilon, lo=-40.0, hi=40.0):
    """delta_{P||Q}(epsilon) = int max(0, p - e^eps q) by quadrature (densities on the real line)."""
    value, _ = scipy.integrate.quad(lambda x: max(0.0, math.exp(log_p(x)) - math.exp(epsilon + log_q(x))),
                                    lo, hi, limit=400, epsabs=1e-14, epsrel=1e-10)
    return value


def mixture(q, s, a, b):
    """log density of (1-q) N(a, s^2) + q N(b, s^2)."""
    return lambda x: np.logaddexp(math.log1p(-q) + norm.logpdf(x, a, s), math.log(q) + norm.logpdf(x, b, s))


def pair_delta(q, s, epsilon):
    """One step of the pair N(0, s^2) / (1-q) N(0, s^2) + q N(1, s^2) (distance 1), worse order."""
    gauss = lambda x: norm.logpdf(x, 0.0, s)  # noqa: E731
    mixed = mixture(q, s, 0.0, 1.0)
    return max(hockey_stick(mixed, gauss, epsilon), hockey_stick(gauss, mixed, epsilon))


class PairLoss(PrivacyRandomVariable):
    """Privacy loss log(P/Q)(X), X ~ P, of the pair, in order ``"remove"``: P = (1-q) N(0, s^2) +
    q N(1, s^2), Q = N(0, s^2), or ``"add"``: P = N(0, s^2), Q = the mixture. With
    r(x) = log(1 - q + q exp((2x - 1) / (2 s^2))), increasing, whose inverse is
    x(t) = s^2 log((e^t - 1 + q) / q) + 1/2 for e^t > 1 - q."""

    def __init__(self, q, s, order):
        self.q, self.s, self.order = q, s, order

    def _inverse(self, t):
        q, s = self.q, self.s
        inside = np.maximum(np.exp(t) - 1 + q, 1e-300)
        return s**2 * np.log(inside / q) + 0.5

    def cdf(self, t):
        q, s = self.q, self.s
        t = np.asarray(t, dtype=np.float64)
        if self.order == "remove":
            x = self._inverse(t)
            value = (1 - q) * norm.cdf(x / s) + q * norm.cdf((x - 1) / s)
            return np.where(t <= math.log1p(-q), 0.0, value)
        x = self._inverse(-t)
        return np.where(-t <= math.log1p(-q), 1.0, norm.sf(x / s))


class SymmetrisedPairLoss(PairLoss):
    """Privacy loss of the symmetrised pair (P*, Q*): under P*, the pair's loss where it is positive
    (mixture against N(0, s^2)), its mirror image with Q's mass where it is negative, the rest at 0.
    CDF: 1 - P(L > t) for t >= 0 and Q(L >= -t) = Q(X >= x(-t)) for t < 0, Q = N(0, s^2)."""

    def __init__(self, q, s):
        super().__init__(q, s, "remove")

    def cdf(self, t):
        t = np.asarray(t, dtype=np.float64)
        below = norm.sf(self._inverse(np.abs(t)) / self.s)
        return np.where(t >= 0, super().cdf(t), below)


def prv_epsilon_bounds(q, z, steps, delta, eps_error=0.005, pair="two-orders"):
    """prv-accountant's (low, up) for ``steps`` compositions of the pair: ``"two-orders"``, each
    order composed alone, the worse kept; ``"symmetrised"``, the symmetrised pair."""
    losses = ([PairLoss(q, z, order) for order in ("remove", "add")] if pair == "two-orders"
              else [SymmetrisedPairLoss(q, z)])
    lows, ups = [], []
    for loss in losses:
        low, _, up = PRVAccountant(prvs=[loss], max_self_compositions=[steps], eps_error=eps_error,
                                   delta_error=delta / 1000, eps_max=30.0).compute_epsilon(delta, [steps])
        lows.append(low)
        ups.append(up)
    return max(lows), max(ups)


def kov_delta(epsilon_step, k, epsilon):
    """Optimal composition of k epsilon_step-DP mechanisms (Kairouz, Oh and Viswanath 2015, Theorem 3.3;
    Murtagh and Vadhan 2016): delta = sum_l C(k, l) max(0, e^{(k-l) e0} - e^{eps + l e0}) / (1 + e^e0)^k."""
    mpmath.mp.dps = 50
    e0 = mpmath.mpf(epsilon_step)
    total = mpmath.mpf(0)
    for l in range(k + 1):
        term = mpmath.exp((k - l) * e0) - mpmath.exp(epsilon + l * e0)
        if term > 0:
            total += mpmath.binomial(k, l) * term
    return float(total / (1 + mpmath.exp(e0))**k)


def kov_epsilon(epsilon_step, k, delta):
    upper = k * epsilon_step
    if kov_delta(epsilon_step, k, 0.0) <= delta:
        return 0.0
    return scipy.optimize.brentq(lambda e: kov_delta(epsilon_step, k, e) - delta, 0.0, upper, xtol=1e-12)


# -- sampling without replacement: the dominating pair -----------------------------------------------

@pytest.mark.parametrize("q, s, epsilon", [(0.1, 0.8, 0.3), (0.3, 1.5, 0.1), (0.05, 0.5, 1.0)])
def test_pair_dominates_every_triple_of_the_coupling(q, s, epsilon):
    """(1-q) N(a) + q N(b) against (1-q) N(a) + q N(b'), with a, b, b' the sums of records of norm
    <= 1/2 (distance <= 1), never exceeds the pair's delta; g'_i = g_k attains it."""
    bound = pair_delta(q, s, epsilon)
    points = np.linspace(-0.5, 0.5, 5)
    worst = max(hockey_stick(mixture(q, s, a, b), mixture(q, s, a, b2), epsilon)
                for a in points for b in points for b2 in points)
    assert worst <= bound * (1 + 1e-6)
    assert worst >= bound * (1 - 1e-6)


@pytest.mark.parametrize("q, s, epsilon", [(0.1, 0.8, 0.3), (0.3, 1.5, 0.1), (0.05, 0.5, 1.0)])
def test_symmetrised_pair_dominates_every_triple_at_every_order(q, s, epsilon):
    """At the order a = e^-epsilon < 1, the symmetrised pair's divergence is 1 - a + a H_{1/a}(mixture ||
    N(0)), and every triple stays below it; the mixture pair alone (the two-order reading) does not:
    the triple g_i = g_k is N(0) against the mixture, above the mixture pair at a < 1."""
    a = math.exp(-epsilon)
    gauss, mixed = (lambda x: norm.logpdf(x, 0.0, s)), mixture(q, s, 0.0, 1.0)  # noqa: E731
    symmetrised = 1 - a + a * hockey_stick(mixed, gauss, epsilon)
    points = np.linspace(-0.5, 0.5, 5)
    worst = max(hockey_stick(mixture(q, s, c, b), mixture(q, s, c, b2), -epsilon)
                for c in points for b in points for b2 in points)
    assert worst <= symmetrised * (1 + 1e-6)
    mixture_pair = hockey_stick(mixed, gauss, -epsilon)
    assert hockey_stick(gauss, mixed, -epsilon) > mixture_pair * (1 + 1e-3)


@pytest.mark.parametrize("accountant", ["pld", "pld-two-orders"])
@pytest.mark.parametrize("q, s, epsilon", [(0.2, 1.0, 0.2), (0.02, 0.6, 0.5)])
def test_pld_reads_one_step_without_replacement_as_the_pair(accountant, q, s, epsilon):
    """One step: both readings give the mixture pair's worse order (the symmetrised pair's profile
    on epsilon >= 0 is the mixture's)."""
    n, batch_size = 1000, int(q * 1000)
    event = privacy.subsampled_gaussian_event(s, 1, batch_size=batch_size, n=n, sampling="without-replacement")
    delta = privacy.make_accountant(accountant, 1e-5).compose(event).get_delta(epsilon)
    exact = pair_delta(q, s, epsilon)
    assert delta >= exact * (1 - 1e-9)  # pessimistic
    assert delta == pytest.approx(exact, rel=2e-3)


@pytest.mark.filterwarnings("ignore:Assuming that true epsilon")
@pytest.mark.parametrize("accountant, pair", [("pld", "symmetrised"), ("pld-two-orders", "two-orders")])
@pytest.mark.parametrize("z, batch_size, n, steps", [(1.1, 50, 2000, 400), (3.0, 7, 700, 900), (0.9, 200, 1000, 60)])
def test_pld_without_replacement_agrees_with_prv_accountant(accountant, pair, z, batch_size, n, steps):
    """Each reading against prv-accountant's composition of the pair written here."""
    delta = 1e-6
    low, up = prv_epsilon_bounds(batch_size / n, z, steps, delta, pair=pair)
    event = privacy.subsampled_gaussian_event(z, steps, batch_size=batch_size, n=n, sampling="without-replacement")
    ours = privacy.epsilon_of(event, delta, accountant)
    assert low <= ours <= up + 0.01 * ours


@pytest.mark.filterwarnings("ignore:Assuming that true epsilon")
@pytest.mark.parametrize("z, batch_size, n, steps", [(1.0, 10, 1000, 1000), (1.1, 50, 2000, 400)])
def test_symmetrised_pair_costs_more_than_the_two_order_reading(z, batch_size, n, steps):
    """The price of soundness: 1.05-1.3 times the two-order reading's epsilon, still below RDP's."""
    event = privacy.subsampled_gaussian_event(z, steps, batch_size=batch_size, n=n, sampling="without-replacement")
    sound, two_orders, rdp = (privacy.epsilon_of(event, 1e-5, name) for name in ("pld", "pld-two-orders", "rdp"))
    assert 1.05 * two_orders < sound < 1.3 * two_orders
    assert sound < rdp


@pytest.mark.filterwarnings("ignore:Assuming that true epsilon")
@pytest.mark.parametrize("epsilon, batch_size, n, steps", [(0.3, 20, 2000, 500), (2.0, 100, 3000, 300),
                                                           (4.0, 300, 5000, 50)])
def test_calibrated_noise_without_replacement_is_tight_and_never_above_target(epsilon, batch_size, n, steps):
    """The calibrated z meets the target for prv-accountant's symmetrised pair too, is within 5% of
    the smallest z prv-accountant's upper bound certifies, and below the RDP accountant's z."""
    delta = 1e-6
    calibration = privacy.calibrate_subsampled(steps, batch_size=batch_size, n=n, sampling="without-replacement",
                                               epsilon=epsilon, delta=delta, accountant="pld")
    z = calibration.noise_multiplier
    assert calibration.accountant == "pld" and calibration.epsilon <= epsilon
    low, _ = prv_epsilon_bounds(batch_size / n, z, steps, delta, pair="symmetrised")
    assert low <= epsilon
    # The smallest z whose prv-accountant upper bound meets the target is above z / 1.05.
    assert prv_epsilon_bounds(batch_size / n, z / 1.05, steps, delta, pair="symmetrised")[1] > epsilon
    rdp = privacy.calibrate_subsampled(steps, batch_size=batch_size, n=n, sampling="without-replacement",
                                       epsilon=epsilon, delta=delta, accountant="rdp")
    assert z < rdp.noise_multiplier


# -- DP-GCD: Laplace releases and report-noisy-max selections ----------------------------------------

@pytest.mark.parametrize("epsilon_step, iterations, delta", [(0.3, 3, 1e-5), (0.05, 40, 1e-6), (1.0, 8, 1e-3)])
def test_greedy_composition_is_at_least_as_tight_as_optimal_composition(epsilon_step, iterations, delta):
    ours = privacy.greedy_epsilon(epsilon_step, delta, iterations)
    optimal = kov_epsilon(epsilon_step, 2 * iterations, delta)
    assert ours <= optimal * (1 + 1e-9)
    # The selections alone are the pure-DP pairs: the Laplace releases are what makes it tighter.
    selections_only = kov_epsilon(epsilon_step, iterations, delta)
    assert ours > selections_only


@pytest.mark.parametrize("epsilon, iterations", [(0.2, 1), (0.7, 25), (5.0, 200)])
def test_greedy_calibration_meets_target_and_beats_advanced_composition(epsilon, iterations):
    delta = 1e-5
    step = privacy.greedy_epsilon_per_step(epsilon, delta, iterations)
    assert privacy.greedy_epsilon(step, delta, iterations) <= epsilon
    assert privacy.greedy_epsilon(step * 1.01, delta, iterations) > epsilon * (1 - 1e-3)
    assert step > privacy.advanced_composition_epsilon_per_step(epsilon, delta, 2 * iterations)
    # Within 5% of the epsilon' that a four times finer grid certifies (the best bound computed here).
    finer = scipy.optimize.brentq(lambda x: privacy.greedy_epsilon(x, delta, iterations, 256) - epsilon,
                                  step / 2, min(epsilon, 2 * step) if iterations > 1 else epsilon, xtol=1e-6 * step) \
        if privacy.greedy_epsilon(epsilon, delta, iterations, 256) > epsilon else epsilon
    assert step >= finer / 1.05


def test_dp_gcd_defaults_to_pld_and_keeps_the_papers_accountant_by_name():
    import privcd
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 6))
    problem = privcd.Problem(X, np.sign(X[:, 0] + 0.1), "logistic", constants="data")
    tight = privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-5, passes=10, step=0.5, clip=1.0)
    paper = privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-5, passes=10, step=0.5, clip=1.0,
                       accountant="advanced-composition")
    assert (tight.accountant, paper.accountant) == ("pld", "advanced-composition")
    assert tight.epsilon <= 1.0 and paper.epsilon <= 1.0
    assert tight.noise_multiplier < paper.noise_multiplier / 1.3


# -- DP-SCD's revealed batches -----------------------------------------------------------------------

@pytest.mark.parametrize("z, steps, q, epsilon", [(2.0, 6, 0.3, 0.5), (0.7, 9, 0.1, 2.0), (5.0, 4, 0.9, 0.05)])
def test_revealed_batch_delta_is_the_binomial_mixture(z, steps, q, epsilon):
    mpmath.mp.dps = 40
    expected = mpmath.mpf(0)
    for m in range(1, steps + 1):
        mu = mpmath.sqrt(m) / z
        term = mpmath.ncdf(-epsilon / mu + mu / 2) - mpmath.exp(epsilon) * mpmath.ncdf(-epsilon / mu - mu / 2)
        expected += mpmath.binomial(steps, m) * mpmath.mpf(q)**m * (1 - mpmath.mpf(q))**(steps - m) * term
    assert mixture_delta(epsilon, z, steps, q) == pytest.approx(float(expected), rel=1e-9)


def test_revealed_batches_at_full_batch_are_the_exact_gaussian_composition():
    z, steps, n, delta = 3.0, 40, 50, 1e-5
    revealed = privacy.epsilon_of(privacy.revealed_batch_gaussian_event(z, steps, batch_size=n, n=n), delta, "exact")
    composed = privacy.epsilon_of(privacy.gaussian_composition_event(z, steps), delta, "exact")
    assert revealed == pytest.approx(composed, rel=1e-9)


def test_revealed_batches_need_more_noise_than_hidden_ones():
    steps, batch_size, n, epsilon, delta = 1000, 100, 10_000, 1.0, 1e-5
    revealed = privacy.calibrate(privacy.RevealedBatchGaussian(steps, batch_size, n), epsilon=epsilon, delta=delta,
                                 accountant="exact")
    assert mixture_delta(revealed.epsilon, revealed.noise_multiplier, steps, batch_size / n) <= delta
    hidden = privacy.calibrate_subsampled(steps, batch_size=batch_size, n=n, sampling="without-replacement",
                                          epsilon=epsilon, delta=delta, accountant="pld")
    assert revealed.noise_multiplier > 5 * hidden.noise_multiplier


@pytest.mark.parametrize("epsilon, delta, iterations", [(0.5, 1e-6, 5), (2.0, 1e-5, 50), (8.0, 1e-6, 200)])
def test_a_releases_discrete_laplace_keeps_the_calibrated_epsilon(epsilon, delta, iterations):
    """DP-GCD's release noise on a grid (privcd.privacy.greedy_composition.grid_release_noise): its
    composition is within the continuous calibration's epsilon, each release is pure (S / t)-DP with
    S / t <= epsilon', and the noise is at most 1% above the continuous Laplace's."""
    step = privacy.greedy_epsilon_per_step(epsilon, delta, iterations)
    calibrated = privacy.greedy_epsilon(step, delta, iterations)
    noise = privacy.grid_release_noise(step, n_terms=1000, iterations=iterations, epsilon=calibrated, delta=delta)
    assert noise.epsilon <= calibrated
    assert noise.sensitivity_units / noise.scale_units <= step
    grid_scale = noise.scale_units / noise.grid_ratio  # in units of the sensitivity Delta
    assert 1.0 / step < grid_scale <= 1.01 / step
