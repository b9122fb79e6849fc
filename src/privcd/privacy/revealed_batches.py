"""The privacy of Gaussian releases over batches that the output reveals: no amplification by sampling.

dp-scd Algorithm 1 adds noise to the dual coordinates of the mini-batch only (line 13), and its
output is the sequence of states ``[alpha; v]`` (Section 3.1), whose changed coordinates name the
batch B of every step. Once B is public there is no amplification by subsampling; what remains
is, for the replaced record i, the adaptive composition of the ``m`` Gaussian releases of the
steps whose batch holds i, and ``m ~ Binomial(T, q)`` with ``q = L / N`` (a batch of L distinct
records drawn uniformly and independently at each of the T steps). With releases of replace-one
sensitivity ``Delta`` and noise ``z Delta``, ``m`` releases compose to one Gaussian mechanism with
``mu = sqrt(m) / z`` (Dong, Roth and Su 2022, Corollary 3.3), and since the batches do not depend
on the data, the mechanism is a mixture over them of such mechanisms, so (Balle and Wang 2018,
Theorem 8, for each term)

    delta(epsilon) = sum_m Binomial(m; T, q) delta_mu(epsilon),   mu = sqrt(m) / z,
    delta_mu(epsilon) = Phi(-epsilon / mu + mu / 2) - exp(epsilon) Phi(-epsilon / mu - mu / 2),

an upper bound for every record (each is in a binomial number of batches), tight for the worst
pair of neighbours. Further Gaussian releases of the same run (multiplier ``z_k``) add
``1 / z_k^2`` to ``mu^2`` in every term. :func:`mixture_delta` evaluates it over all ``m`` in
``[0, T]``; :func:`mixture_epsilon` inverts it by Brent's method, rounding up.
"""
import math

import numpy as np
import scipy.optimize
import scipy.special
import scipy.stats

_EPSILON_CEILING = 1e4  # epsilon beyond which a mixture is reported as infinite


def gaussian_delta(epsilon, mu):
    """``delta_mu(epsilon)`` of a ``mu``-GDP mechanism (array ``mu >= 0``; 0 where ``mu = 0``)."""
    mu = np.asarray(mu, dtype=np.float64)
    out = np.zeros_like(mu)
    positive = mu > 0
    m = mu[positive]
    upper = scipy.special.log_ndtr(-epsilon / m + m / 2)
    lower = scipy.special.log_ndtr(-epsilon / m - m / 2) + epsilon
    out[positive] = np.exp(upper) * -np.expm1(np.minimum(lower - upper, 0.0))
    return out


def mixture_delta(epsilon, noise_multiplier, steps, sampling_probability, extra_mu_squared=0.0):
    """``delta(epsilon)`` of the module docstring for multiplier ``z = noise_multiplier``."""
    m = np.arange(steps + 1)
    weights = scipy.stats.binom.pmf(m, steps, sampling_probability)
    mu = np.sqrt(m / noise_multiplier**2 + extra_mu_squared)
    return float(np.dot(weights, gaussian_delta(epsilon, mu)))


def mixture_epsilon(delta, noise_multiplier, steps, sampling_probability, extra_mu_squared=0.0):
    """The smallest epsilon (to 1e-12 relative, rounded up) with ``mixture_delta(epsilon) <= delta``."""
    def excess(epsilon):
        return mixture_delta(epsilon, noise_multiplier, steps, sampling_probability, extra_mu_squared) - delta
    if excess(0.0) <= 0:
        return 0.0
    if excess(_EPSILON_CEILING) > 0:
        return math.inf
    upper = 1.0
    while excess(upper) > 0:
        upper *= 2
    root = scipy.optimize.brentq(excess, 0.0, upper, xtol=1e-14, rtol=1e-12)
    while excess(root) > 0:
        root = math.nextafter(root, math.inf) * (1 + 1e-12)
    return root
