"""DP-SCD's audit pair with noise on every dual (privcd.auditing.canaries.hidden_dual_pair, issue 35):
the kernel does what the score's model says, and the score is the model's likelihood ratio."""
import itertools
import math

import numpy as np
import pytest

from privcd.algorithms import dp_scd
from privcd.auditing.canaries import canary_pair, dual_log_likelihoods
from privcd.fit import prepare


def brute_force_log_ratio(releases, alpha, clip, sigma, q):
    """``log P_D / P_D'`` of the observations, summing every draw sequence with full normalisations."""
    T = releases.size

    def density(x, mean, spread):
        return math.exp(-0.5 * ((x - mean) / spread) ** 2) / (spread * math.sqrt(2.0 * math.pi))
    inside = outside = 0.0
    for draws in itertools.product((0, 1), repeat=T):
        count = sum(draws)
        weight = q**count * (1.0 - q) ** (T - count)
        duals = density(alpha[1], -clip * (T - count), math.sqrt(T) * sigma)
        inside += (weight * duals * density(alpha[0], clip * count, math.sqrt(T) * sigma)
                   * math.prod(density(x, clip if drawn else -clip, sigma) for x, drawn in zip(releases, draws)))
        outside += (weight * duals * density(alpha[0], -clip * count, math.sqrt(T) * sigma)
                    * math.prod(density(x, -clip, sigma) for x in releases))
    return math.log(inside / outside)


@pytest.mark.parametrize("steps", [1, 3, 4, 6])
def test_the_score_is_the_likelihood_ratio_of_every_draw_sequence(steps):
    rng = np.random.default_rng(steps)
    for q in (0.5, 0.2):
        releases, alpha = rng.normal(size=steps), rng.normal(size=2)
        inside, outside = dual_log_likelihoods(releases, alpha, 0.3, 0.7, q=q)
        assert inside - outside == pytest.approx(brute_force_log_ratio(releases, alpha, 0.3, 0.7, q), abs=1e-9)


@pytest.mark.parametrize("algorithm", ["dp-scd", "seqdp-scd"])
def test_without_noise_each_step_moves_v_and_the_drawn_records_dual_by_its_saturated_update(algorithm):
    """The model of the score: at epsilon = inf a step adds ``+C`` (D's canary) or ``-C`` (D''s canary,
    or the other record) to v and to the drawn record's dual, and nothing else."""
    pair = canary_pair(algorithm, {})
    for problem, canary_update in ((pair.inside, 1.0), (pair.outside, -1.0)):
        module, _, _, plan = prepare(problem, algorithm, epsilon=math.inf, delta=1e-5, **pair.arguments)
        clip = plan.kernel["clip"]
        _, path, alpha, v = dp_scd.run_kernel(problem, plan, 5)
        releases = np.diff(path[:, 0]) * problem.lam * problem.n_samples
        assert releases.size == plan.n_iterations == 4
        canary_draws = round((alpha[0] / clip) / canary_update)
        assert 0 < canary_draws < releases.size  # seed 5 draws both records
        assert alpha[1] == pytest.approx(-clip * (releases.size - canary_draws), abs=1e-12)
        expected = sorted([canary_update * clip] * canary_draws + [-clip] * (releases.size - canary_draws))
        assert np.sort(releases) == pytest.approx(expected, abs=1e-12)
        assert v[0] == pytest.approx(releases.sum(), abs=1e-12)
