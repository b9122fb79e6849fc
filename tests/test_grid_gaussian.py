"""DP-CD's release noise (privcd.privacy.grid_gaussian): the grid's sensitivity with floating-point
sums, the discrete accounting against the continuous calibration, and the released values on the
grid."""
import math
from fractions import Fraction

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution

import privcd
from privcd.kernels.discrete_noise import noisy_value
from privcd.privacy import calibrate
from privcd.privacy.grid_gaussian import (FINEST_RATIO, LARGEST_SIGMA, discrete_epsilon, grid_noise, grid_ratio,
                                          sensitivity_units)
from privcd.privacy.mechanisms import GaussianComposition


def test_the_sensitivity_is_one_more_than_the_ratio_until_floating_point_errors_reach_a_grid_step():
    assert sensitivity_units(1000, 1024) == 1025
    assert sensitivity_units(1_000_000, 1024) == 1025  # n^2 K u = 0.11 < 1
    assert sensitivity_units(10**8, 1024) > 1025  # n^2 K u = 1,137
    grown = [sensitivity_units(n, 64) for n in (10, 10**6, 10**7, 10**8, 10**9)]
    assert grown == sorted(grown) and grown[0] == 65


@pytest.mark.parametrize("n", [50, 1000, 20_000])
def test_neighbouring_floating_point_sums_round_at_most_the_sensitivity_apart(n):
    """Adversarial sums: every term at +-C (the largest rounding errors), the replaced record from +C to
    -C, summed in three orders (sequential, numpy's pairwise, reversed): the integers
    ``rint(fl(g / h))`` of neighbours stay within S, and the exact sensitivity K is reached."""
    rng = np.random.default_rng(n)
    clip, ratio = 0.37, 1024
    h = 2.0 * clip / n / ratio
    bound = sensitivity_units(n, ratio)
    widest = 0
    for _ in range(20):
        terms = clip * rng.choice([-1.0, 1.0, 1.0 - 2.0**-30], size=n)
        terms[0] = clip
        other = terms.copy()
        other[0] = -clip
        for order in (lambda v: np.cumsum(v)[-1], np.sum, lambda v: np.cumsum(v[::-1])[-1]):
            a, b = np.rint(order(terms) / n / h), np.rint(order(other) / n / h)
            widest = max(widest, abs(a - b))
    assert ratio <= widest <= bound


def test_the_grid_ratio_keeps_sigma_below_its_limit():
    assert grid_ratio(1.0) == FINEST_RATIO
    assert grid_ratio(100.0) == 256 and 100 * 257 <= LARGEST_SIGMA
    assert grid_ratio(1e6) == 1


@pytest.mark.parametrize("z, steps", [(0.8, 60), (20.0, 2000), (300.0, 5000)])
def test_the_discrete_accounting_stays_within_the_continuous_calibration(z, steps):
    """The grid noise's epsilon (dp-accounting's discrete Gaussian PLD) is at most the continuous
    calibration's and within 0.5% of it, at about (1 + 1/K) times the noise."""
    delta = 1e-6
    epsilon = privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=z, use_connect_dots=True, value_discretization_interval=1e-3).self_compose(
        steps).get_epsilon_for_delta(delta)
    noise = grid_noise(z, n_terms=500, steps=steps, epsilon=epsilon, delta=delta)
    assert noise.epsilon <= epsilon and noise.epsilon >= 0.995 * epsilon
    assert noise.sigma_units >= z * noise.sensitivity_units
    assert noise.sigma_units / noise.sensitivity_units <= z * (1 + 2.0**-9)
    relative_noise = noise.sigma_units / (z * noise.grid_ratio)
    assert 1.0 < relative_noise <= (noise.grid_ratio + 1) / noise.grid_ratio * (1 + 2.0**-9)


def test_the_discrete_accounting_is_the_pld_of_the_shifted_pair():
    """An independent computation: the hockey-stick divergence of (N_Z(0, s^2), N_Z(S, s^2)) composed
    twice, summed over the integers exactly, against ``discrete_epsilon``'s delta."""
    s, shift = 3, 2
    support = np.arange(-60, 61)
    base = np.exp(-support.astype(float) ** 2 / (2 * s * s))
    base /= base.sum()
    p = np.convolve(base, base)  # the sum of two draws centred at 0
    q = np.convolve(np.roll(base, shift), np.roll(base, shift))  # ... at 2 S
    epsilon = discrete_epsilon(s, shift, 2, 1e-3)
    delta = np.clip(p - math.exp(epsilon) * q, 0, None).sum()
    assert delta <= 1e-3 * (1 + 1e-6)
    delta_smaller = np.clip(p - math.exp(0.98 * epsilon) * q, 0, None).sum()
    assert delta_smaller > 1e-3


def test_released_gradients_are_integer_multiples_of_the_grid():
    h = 2.0**-20 * 3
    for gradient, draw in [(0.123456789, 17.0), (-3e-4, -4096.0), (0.0, 0.0)]:
        released = noisy_value(gradient, h, draw, True)
        units = Fraction(released) / Fraction(h)
        assert units.denominator == 1 and units == round(gradient / h) + int(draw)
    assert noisy_value(0.25, 0.0, 5.0, True) == 0.25  # a zero threshold's gradient, as it is
    assert noisy_value(0.25, 0.5, 2.0, False) == 1.25  # an experiment: g + sigma N


def test_a_dp_cd_release_uses_the_grid_noise_within_its_epsilon():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X[:, 0] + 0.1 * rng.normal(size=400))
    problem = privcd.Problem(X, y, "logistic", "l2", 1e-3, row_norm_bound=1.0)
    arguments = dict(epsilon=1.0, delta=1e-6, passes=3, step=0.5, clip=1.0)
    release = privcd.fit(problem, "dp-cd", **arguments)
    experiment = privcd.fit(problem, "dp-cd", seed=3, **arguments)
    noise = release.info["grid_noise"]
    assert "grid_noise" not in experiment.info
    assert noise["epsilon"] <= release.epsilon == experiment.epsilon
    ratio = release.info["noise_std"] / experiment.info["noise_std"]
    assert np.all((ratio > 1.0) & (ratio < 1.0 + 2.0 / noise["grid_ratio"]))
    assert np.array_equal(release.info["grid_spacing"],
                          2.0 * release.info["thresholds"] / problem.n_samples / noise["grid_ratio"])
    calibration = calibrate(GaussianComposition(3 * 5), epsilon=1.0, delta=1e-6, accountant="exact")
    assert release.noise_multiplier == calibration.noise_multiplier


def test_dp_skgds_uniform_sketch_releases_with_dp_cds_grid_noise():
    """The uniform sketch is DP-CD (the same kernel): a release gets the same grid noise."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    problem = privcd.Problem(X, np.sign(X[:, 0]), "logistic", "l2", 1e-3, row_norm_bound=1.0)
    arguments = dict(epsilon=1.0, delta=1e-6, passes=2, step=0.5, clip=1.0)
    sketched = privcd.fit(problem, "dp-skgd", **arguments)
    coordinate = privcd.fit(problem, "dp-cd", **arguments)
    assert sketched.info["grid_noise"] == coordinate.info["grid_noise"]
    assert np.array_equal(sketched.info["grid_spacing"], coordinate.info["grid_spacing"])
    assert "grid_noise" not in privcd.fit(problem, "dp-skgd", sketch="full", seed=0, **arguments).info


@pytest.mark.parametrize("sketch, tau", [("tau-nice", 2), ("full", None)])
def test_a_block_sketchs_release_adds_discrete_gaussians_accounted_per_entry(sketch, tau):
    """A block of tau entries is tau discrete Gaussian releases of multiplier z sqrt(tau): T tau of
    them composed stay within the calibrated epsilon, at about (K + 1) / K times the noise."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    problem = privcd.Problem(X, np.sign(X[:, 0]), "logistic", "l2", 1e-3, row_norm_bound=1.0)
    arguments = dict(epsilon=1.0, delta=1e-6, passes=2, step=0.3, clip=1.0, sketch=sketch, tau=tau, noise="coordinate")
    release = privcd.fit(problem, "dp-skgd", **arguments)
    experiment = privcd.fit(problem, "dp-skgd", seed=4, **arguments)
    block = 2 if sketch == "tau-nice" else problem.n_features
    noise = release.info["grid_noise"]
    steps = 2 * problem.n_features  # T tau: 2 passes of p coordinate updates
    assert noise["epsilon"] == discrete_epsilon(noise["sigma_units"], noise["sensitivity_units"], steps, 1e-6)
    assert noise["epsilon"] <= release.epsilon == experiment.epsilon
    assert noise["sigma_units"] >= release.noise_multiplier * math.sqrt(block) * noise["sensitivity_units"]
    ratio = release.info["noise_std"] / (experiment.info["noise_std"] * math.sqrt(block))
    assert np.all((ratio > 1.0) & (ratio < 1.0 + 2.0 / noise["grid_ratio"]))
    assert np.isfinite(release.w).all() and not np.array_equal(release.w, experiment.w)


@pytest.mark.parametrize("options, named", [(dict(sketch="tau-nice", tau=2), "noise='isotropic'"),
                                            (dict(sketch="importance", probabilities="smoothness", tau=2,
                                                  noise="coordinate"), "sketch='importance'")])
def test_a_release_without_a_grid_sampler_is_refused_with_the_alternatives(options, named):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    problem = privcd.Problem(X, np.sign(X[:, 0]), "logistic", "l2", 1e-3, row_norm_bound=1.0)
    arguments = dict(epsilon=1.0, delta=1e-6, passes=1, step=0.3, clip=1.0, **options)
    with pytest.raises(ValueError, match=f"{named}.*Mironov 2012.*noise='coordinate'.*give a seed"):
        privcd.fit(problem, "dp-skgd", **arguments)
    assert np.isfinite(privcd.fit(problem, "dp-skgd", seed=0, **arguments).w).all()


def test_beyond_the_pld_steps_the_accounting_is_concentrated_dp_between_two_independent_bounds():
    """The conversion of T S^2 / (2 s^2)-zCDP: at least the exact epsilon of the Gaussian with that
    RDP curve (mu = sqrt(2 rho)), which the conversion must cover, at most Bun and Steinke's
    rho + 2 sqrt(rho log(1 / delta)), and within 10% of the Gaussian's."""
    import dp_accounting

    from privcd.privacy.grid_gaussian import PLD_STEPS

    steps, sigma, sensitivity, delta = 4 * PLD_STEPS, 300_000, 1025, 1e-6
    rho = steps * sensitivity**2 / (2.0 * sigma**2)
    ours = discrete_epsilon(sigma, sensitivity, steps, delta)
    gaussian = dp_accounting.get_epsilon_gaussian(1.0 / math.sqrt(2 * rho), delta)
    assert gaussian < ours < rho + 2 * math.sqrt(rho * math.log(1 / delta))
    assert ours < 1.1 * gaussian


def test_a_wide_problems_release_noise_is_found_fast_and_within_its_epsilon():
    """500,000 steps (5 passes of p = 100,000): concentrated DP, K raised back, about 1.08x the noise."""
    calibration = calibrate(GaussianComposition(500_000), epsilon=1.0, delta=1e-6, accountant="exact")
    noise = grid_noise(calibration.noise_multiplier, n_terms=800, steps=500_000, epsilon=calibration.epsilon, delta=1e-6)
    assert noise.epsilon <= calibration.epsilon and noise.grid_ratio >= 64
    assert 1.0 < noise.sigma_units / (calibration.noise_multiplier * noise.grid_ratio) < 1.1
