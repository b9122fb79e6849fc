"""DP-GCD's release accounting against an independent, exact computation.

A release of DP-GCD composes T selections (each an epsilon'-DP mechanism, dominated by the two-point
pair of Kairouz, Oh and Viswanath) with T gradient entries released by the discrete Laplace of scale
t at sensitivity S in grid units (:func:`privcd.privacy.grid_release_noise`). Both pairs have finite
support, so their composition is computed here exactly in float64: the selections' losses are
``(2j - T) epsilon'`` with binomial masses, the releases' losses multiples of ``1 / t`` from a direct
convolution of the pair ``DLap(0, t)`` against ``DLap(S, t)``. No dp-accounting code is used.
"""
import math

import numpy as np
import pytest
import scipy.optimize
import scipy.special

from privcd import privacy
from privcd.privacy.greedy_composition import greedy_epsilon_per_step


def discrete_laplace_pair(scale, shift):
    """Privacy losses, in units of ``1 / scale``, and their masses under ``DLap(0, t)`` (``P(k)`` in
    proportion to ``exp(-|k| / t)``) against ``DLap(S, t)``: ``(|k - S| - |k|)``, i.e. ``S`` for
    ``k <= 0``, ``S - 2k`` for ``0 < k < S`` and ``-S`` for ``k >= S``."""
    r = math.exp(-1.0 / scale)
    k = np.arange(shift + 1)
    masses = (1 - r) / (1 + r) * r**k
    masses[0], masses[-1] = 1 / (1 + r), r**shift / (1 + r)
    return shift - 2 * k, masses


def exact_epsilon(epsilon_step, scale, shift, iterations, delta):
    """The epsilon at ``delta`` of T selections and T discrete Laplace releases, exactly."""
    losses, masses = discrete_laplace_pair(scale, shift)
    one = np.zeros(2 * shift + 1)
    one[losses + shift] = masses
    releases = np.array([1.0])
    for _ in range(iterations):
        releases = np.convolve(releases, one)
    release_losses = (np.arange(releases.size) - iterations * shift) / scale
    j = np.arange(iterations + 1)
    up = math.exp(epsilon_step) / (1 + math.exp(epsilon_step))
    selection_masses = scipy.special.comb(iterations, j) * up**j * (1 - up)**(iterations - j)
    selection_losses = (2 * j - iterations) * epsilon_step

    def delta_at(epsilon):
        return sum(mass * np.sum(releases * np.clip(-np.expm1(epsilon - loss - release_losses), 0.0, None))
                   for loss, mass in zip(selection_losses, selection_masses))

    if delta_at(0.0) <= delta:
        return 0.0
    return scipy.optimize.brentq(lambda e: delta_at(e) - delta, 0.0, 2 * iterations * epsilon_step + 1, xtol=1e-12)


@pytest.mark.parametrize("epsilon, iterations, n, delta", [(1.0, 5, 1000, 1e-5), (2.0, 10, 500, 1e-6),
                                                           (0.5, 3, 2000, 1e-5)])
def test_release_noise_is_within_its_epsilon_by_an_exact_composition(epsilon, iterations, n, delta):
    epsilon_step = greedy_epsilon_per_step(epsilon, delta, iterations)
    noise = privacy.grid_release_noise(epsilon_step, n_terms=n, iterations=iterations, epsilon=epsilon, delta=delta)
    exact = exact_epsilon(epsilon_step, noise.scale_units, noise.sensitivity_units, iterations, delta)
    assert exact <= noise.epsilon <= epsilon  # the accountant is pessimistic and within the target
    assert noise.epsilon == pytest.approx(exact, rel=1e-4)
    # The scale grows by factors of 1 + 2^-10, so the release spends all but 0.2% of its budget.
    assert exact >= epsilon * (1 - 2e-3)
