"""The exact discrete Laplace on a power-of-two grid (privcd.privacy.grid_laplace): its law, its
privacy loss, and Mironov's reachability attack, which finds DP-CD-P's floating-point Laplace
(experiments) and not the grid mechanism (releases)."""
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

import privcd
from privcd.algorithms.private_smoothness import laplace_release, smoothness_mechanism
from privcd.auditing.reachability import numpy_laplace_release, reachable_numpy_laplace, reachable_on_grid
from privcd.privacy.grid_laplace import SLACK, bernoulli_exp, discrete_laplace, grid_release, grid_spacing
from privcd.randomness import ReleaseSeed


def seeded(seed):
    """A reproducible ``randbelow`` for the tests (releases use the OS's CSPRNG)."""
    return random.Random(seed).randrange


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_has_probability_exp_minus_gamma(gamma):
    draw = seeded(1)
    hits = sum(bernoulli_exp(gamma, draw) for _ in range(20_000))
    assert binomtest(hits, 20_000, math.exp(-gamma)).pvalue > 1e-4


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(3, 2), Fraction(10)])
def test_discrete_laplace_has_its_law(scale):
    """Chi-square of 40,000 draws against P(z) = (1 - q) / (1 + q) q^|z|, q = exp(-1 / scale); the
    same draws fail against a scale 10% larger (the test has power)."""
    draw = seeded(2)
    draws = np.array([discrete_laplace(scale, draw) for _ in range(40_000)])
    top = int(np.quantile(np.abs(draws), 0.99))
    support = np.arange(-top, top + 1)

    def expected(s):
        q = math.exp(-1 / float(s))
        pmf = (1 - q) / (1 + q) * q ** np.abs(support)
        tail = (1 - pmf.sum()) / 2
        return np.concatenate([[tail], pmf, [tail]]) * len(draws)

    observed = np.concatenate([[np.sum(draws < -top)], [np.sum(draws == z) for z in support], [np.sum(draws > top)]])
    assert chisquare(observed, expected(scale)).pvalue > 1e-4
    assert chisquare(observed, expected(scale * Fraction(11, 10))).pvalue < 1e-4


def test_grid_release_is_exact_grid_points_at_the_accounted_scale():
    values = np.array([0.3, -1.7e-3, 12.5, 0.0])
    scales = np.array([0.01, 0.002, 0.5, 0.0])
    released = grid_release(values, scales, 0.5, randbelow=seeded(3))
    assert released[3] == 0.0
    for j in range(3):
        spacing = grid_spacing(scales[j], 0.5, 3)
        assert spacing <= SLACK * 0.5 * scales[j] / 3 < 2 * spacing and math.log2(spacing).is_integer()
        assert reachable_on_grid(released[j], spacing)
    # the noise has the accounted scale (1 + SLACK) lambda: mean |noise| of the discrete Laplace
    draw, spacing = seeded(4), grid_spacing(0.01, 0.5, 1)
    noise = np.array([grid_release(np.zeros(1), np.array([0.01]), 0.5, randbelow=draw)[0] for _ in range(4_000)])
    q = math.exp(-spacing / (0.01 * (1 + SLACK)))
    assert np.mean(np.abs(noise)) == pytest.approx(spacing * 2 * q / (1 - q**2), rel=0.05)


def test_rounding_stays_inside_the_privacy_loss():
    """On neighbouring values the grid centres differ by at most (|Delta_j| + g_j) / g_j, and the
    discrete Laplace's loss sum_j |c_j - c'_j| g_j / ((1 + SLACK) lambda_j) stays within epsilon
    for the scales of a continuous mechanism that is epsilon-DP (here the L1 one, at its worst pair)."""
    rng = np.random.default_rng(5)
    epsilon, p = 0.3, 5
    scales = np.full(p, 2.0 / epsilon)  # L1 sensitivity 2: lambda = 2 / epsilon
    worst = 0.0
    for _ in range(2_000):
        values = rng.normal(size=p)
        change = rng.dirichlet(np.ones(p)) * 2.0 * rng.choice([-1, 1], size=p)  # ||Delta||_1 = 2
        spacings = np.array([grid_spacing(s, epsilon, p) for s in scales])
        centres = [np.round(v / spacings) for v in (values, values + change)]
        loss = np.sum(np.abs(centres[0] - centres[1]) * spacings / ((1 + SLACK) * scales))
        worst = max(worst, loss)
    assert epsilon * 0.99 < worst <= epsilon


def neighbouring_mechanisms(epsilon=1.0):
    """DP-CD-P's Laplace mechanism on two datasets that differ in their first record."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(80, 4))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(rng.random(80) < 0.5, 1.0, -1.0)
    other = X.copy()
    other[0] = -X[0][::-1]
    return [smoothness_mechanism(privcd.Problem(Z, y, "logistic", feature_bound=1.0, row_norm_bound=1.0), epsilon)
            for Z in (X, other)]


def test_the_forward_model_is_numpys_laplace_bit_for_bit():
    generator = np.random.default_rng(7)
    indices = generator.integers(1, 2**53, size=2_000, dtype=np.int64)
    loc, scale = 0.0123, 0.0371
    replayed = np.random.default_rng(np.random.PCG64(8))
    words = np.random.default_rng(np.random.PCG64(8)).bit_generator.random_raw(500) >> np.uint64(11)
    drawn = loc + replayed.laplace(0.0, 1.0, size=500) * scale
    forward = [numpy_laplace_release(int(word), loc, scale) for word in words]
    assert np.array_equal(drawn, forward)
    for index in indices[:200]:
        assert reachable_numpy_laplace(numpy_laplace_release(int(index), loc, scale), loc, scale)


def test_mironovs_attack_finds_the_floating_point_laplace_of_experiments():
    """Positive control: releases of DP-CD-P's constants in an experiment (numpy's Laplace in
    floating point) on D, a share of them unreachable from D': delta >= that share, at any epsilon."""
    first, second = neighbouring_mechanisms()
    assert not np.array_equal(first.clipped_mean, second.clipped_mean)
    np.testing.assert_array_equal(first.scale, second.scale)
    unreachable = 0
    for seed in range(2_000):
        released = laplace_release(first, seed)
        assert all(reachable_numpy_laplace(released[j], first.clipped_mean[j], first.scale[j]) for j in range(4))
        unreachable += not all(reachable_numpy_laplace(released[j], second.clipped_mean[j], second.scale[j])
                               for j in range(4))
    # 575 of 2,000 measured: delta >= 0.26 (Clopper-Pearson, 95%) where the mechanism claims 0
    assert binomtest(unreachable, 2_000).proportion_ci(0.95).low > 0.2


def test_mironovs_attack_finds_nothing_in_releases():
    """2,000 releases a side of DP-CD-P's constants in release mode: every one is a point of the
    grid, which the other dataset reaches too."""
    pair = neighbouring_mechanisms()
    for mechanism in pair:
        spacings = [grid_spacing(s, mechanism.epsilon, 4) for s in mechanism.scale]
        for _ in range(2_000):
            released = laplace_release(mechanism, ReleaseSeed())
            assert all(reachable_on_grid(released[j], spacings[j]) for j in range(4))


def test_the_audits_attack_on_dp_cd_p_catches_an_experiments_constants_and_not_a_releases():
    """``privcd.audit("dp-cd", smoothness="private", attack="floating-point")`` reads the constants the
    run publishes (``Run.info["M_private"]``): measured at (2, 1e-5), 262 of 500 experiments
    unreachable from D', none of 500 releases."""
    experiment = privcd.audit("dp-cd", epsilon=2.0, delta=1e-5, attack="floating-point", runs=500,
                              smoothness="private")
    assert experiment.epsilon_lower == math.inf and experiment.delta_lower > 0.3
    release = privcd.audit("dp-cd", epsilon=2.0, delta=1e-5, attack="floating-point", runs=300, release=True,
                           smoothness="private")
    assert release.epsilon_lower == 0.0 and release.counts.false_negatives == 300

