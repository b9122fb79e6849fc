"""Private selection: the Rényi DP of running a private candidate a random number of times and
keeping the best (Papernot and Steinke, "Hyperparameter tuning with Renyi differential privacy",
ICLR 2022, Theorem 2).

A candidate Q (a training run and its private score, on hyperparameters drawn from a grid
independently of the data) is run K times, K drawn from the truncated negative binomial
TNB(eta, gamma) on {1, 2, ...}:

    P[K = k] = (1 - gamma)^k / (gamma^-eta - 1) * prod_{l=0}^{k-1} (l + eta) / (l + 1)    (eta > 0),
    P[K = k] = (1 - gamma)^k / (k log(1 / gamma))                                          (eta = 0,
                                                                                     logarithmic),

and the candidate with the best score is returned (eta = 1: the geometric law gamma (1 - gamma)^{k-1}).
If Q is (lambda, eps(lambda))-RDP at every order, the selection is (lambda, eps'(lambda))-RDP with

    eps'(lambda) = eps(lambda) + (1 + eta) min_{lambda_hat} [(1 - 1/lambda_hat) eps(lambda_hat)
                   + log(1/gamma) / lambda_hat] + log(E[K]) / (lambda - 1),

    E[K] = eta (1 - gamma) / (gamma (1 - gamma^eta))  (eta > 0),  (1/gamma - 1) / log(1/gamma)  (eta = 0).

:func:`selection_rdp` evaluates it on a grid of orders (the minimum over lambda_hat on the same
grid); dp-accounting computes the same bound for its ``RepeatAndSelectDpEvent``, against which
``tests/test_private_tuning.py`` checks this one, and against the closed form for a Gaussian
candidate. A hard cap on K (:func:`candidate_cap`) changes the law; the capped mechanism differs
from the analysed one only when K exceeds the cap, so it is (eps, delta + (1 + e^eps) P[K > cap])-DP
when the uncapped one is (eps, delta)-DP.
"""
import math

import numpy as np
from scipy import optimize, stats

from privcd.validation import check_number


def tnb_gamma(shape, mean):
    """gamma of TNB(shape, gamma) with expectation ``mean`` (> 1), by root finding on E[K]."""
    shape = check_number("shape", shape, low=0.0, low_open=False)
    mean = check_number("mean", mean, low=1.0)
    return optimize.brentq(lambda gamma: tnb_mean(shape, gamma) - mean, 1e-15, 1.0 - 1e-15, xtol=1e-15, rtol=1e-14)


def tnb_mean(shape, gamma):
    """E[K] under TNB(shape, gamma) (module docstring)."""
    if shape == 0.0:
        return (1.0 / gamma - 1.0) / math.log(1.0 / gamma)
    return shape * (1.0 - gamma) / (gamma * (1.0 - gamma**shape))


def tnb_tail(shape, gamma, k):
    """P[K > k] under TNB(shape, gamma)."""
    if shape == 0.0:
        return float(stats.logser.sf(k, 1.0 - gamma))
    return float(stats.nbinom.sf(k, shape, gamma) / (1.0 - gamma**shape))


def sample_tnb(shape, gamma, rng):
    """One draw of K ~ TNB(shape, gamma): a negative binomial (logarithmic for shape 0) draw,
    redrawn while it is 0."""
    if shape == 0.0:
        return int(rng.logseries(1.0 - gamma))
    while True:
        k = int(rng.negative_binomial(shape, gamma))
        if k >= 1:
            return k


def selection_rdp(orders, rdp, shape, gamma):
    """eps'(lambda) of Theorem 2 at every order > 1 of ``orders`` for a candidate with RDP ``rdp``
    (infinite at orders <= 1, where the theorem says nothing)."""
    orders, rdp = np.asarray(orders, dtype=float), np.asarray(rdp, dtype=float)
    constant = (1.0 + shape) * np.min((1.0 - 1.0 / orders) * rdp + math.log(1.0 / gamma) / orders)
    log_mean = math.log(tnb_mean(shape, gamma))
    with np.errstate(divide="ignore"):
        return np.where(orders > 1.0, rdp + constant + log_mean / (orders - 1.0), np.inf)


def candidate_cap(shape, gamma, epsilon, tail_delta):
    """The smallest cap k with ``(1 + e^epsilon) P[K > k] <= tail_delta`` (module docstring)."""
    k = 1
    while (1.0 + math.exp(epsilon)) * tnb_tail(shape, gamma, k) > tail_delta:
        k *= 2
    low, high = k // 2, k
    while high - low > 1:
        middle = (low + high) // 2
        if (1.0 + math.exp(epsilon)) * tnb_tail(shape, gamma, middle) > tail_delta:
            low = middle
        else:
            high = middle
    return max(high, 1)
