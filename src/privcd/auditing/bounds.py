"""Lower bounds on epsilon from the error rates of a test that tells two neighbouring datasets apart.

If a mechanism M is (epsilon, delta)-DP and D, D' are neighbours, every test that says "D" on a set
S of outputs has a false positive rate ``FPR = P(M(D') in S)`` and a false negative rate
``FNR = P(M(D) not in S)`` with (Kairouz, Oh and Viswanath 2015, Theorem 2.1)

    FPR + e^epsilon FNR >= 1 - delta    and    FNR + e^epsilon FPR >= 1 - delta,

so ``epsilon >= max(log((1 - delta - FPR) / FNR), log((1 - delta - FNR) / FPR))``. An audit
(Jagielski, Ullman and Oprea 2020, "Auditing differentially private machine learning: how private
is private SGD?", Section 3; Nasr et al. 2021, "Adversary instantiation", Section 4) estimates the
two rates from independent runs on D and on D' and puts in their one-sided Clopper-Pearson upper
bounds, each at level ``1 - alpha / 2``: with probability at least ``1 - alpha`` (union bound) both
hold, and then so does the bound on epsilon, which only grows as the rates shrink. The test's
threshold must not depend on the runs the bound uses: :func:`best_threshold` picks it on a
separate split.

Gaussian claims. A mechanism whose claim is a Gaussian trade-off curve, mu-GDP (Dong, Roth and Su
2022: every test has ``FNR >= Phi(Phi^-1(1 - FPR) - mu)``; DP-CD's T Gaussian releases, full-batch
DP-SGD's), is contradicted by a test whose rates give ``Phi^-1(1 - FPR) - Phi^-1(FNR) > mu``
(:func:`mu_from_rates`, symmetric in the two rates). With the rates' Clopper-Pearson upper bounds
this is a lower bound on mu with probability ``confidence`` (:func:`mu_lower_bound`), which
:func:`gaussian_epsilon` converts to epsilon at the claimed delta (the epsilon of a mu-GDP
mechanism, Dong, Roth and Su 2022, Corollary 2.13), as Nasr et al. 2023 ("Tight auditing of
differentially private machine learning", Section 4) do: one test at moderate rates then bounds
the whole curve, where the (epsilon, delta) bound above needs rates near delta.
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

# Candidate thresholds scanned on the selection split: evenly spaced quantiles of its scores.
CANDIDATE_THRESHOLDS = 2000


@dataclass(frozen=True)
class ErrorCounts:
    """The test "D if score > threshold" on ``inside_runs`` runs on D and ``outside_runs`` on D'."""

    threshold: float
    inside_runs: int
    outside_runs: int
    false_negatives: int  # runs on D scored <= threshold
    false_positives: int  # runs on D' scored > threshold


def clopper_pearson_upper(count, trials, level):
    """One-sided Clopper-Pearson upper bound at ``level`` on a binomial rate of ``count / trials``:
    the ``level`` quantile of Beta(count + 1, trials - count) (1 when every trial counts). Counts
    may be an array (then an array of bounds)."""
    count, trials = np.asarray(count), np.asarray(trials)
    upper = np.where(count >= trials, 1.0, stats.beta.ppf(level, count + 1, np.maximum(trials - count, 1)))
    return float(upper) if upper.ndim == 0 else upper


def epsilon_from_rates(false_positive_rate, false_negative_rate, delta):
    """The largest epsilon that the two rates contradict at ``delta`` (module docstring); 0 when they
    contradict none. Rates must be > 0 (upper confidence bounds are)."""
    bounds = [0.0]
    for numerator_rate, denominator_rate in ((false_positive_rate, false_negative_rate),
                                             (false_negative_rate, false_positive_rate)):
        numerator = 1.0 - delta - numerator_rate
        if numerator > 0.0:
            bounds.append(math.log(numerator / denominator_rate))
    return max(bounds)


def count_errors(inside, outside, threshold):
    """:class:`ErrorCounts` of the test "D if score > threshold" on the scores of runs on D
    (``inside``) and on D' (``outside``)."""
    inside, outside = np.asarray(inside), np.asarray(outside)
    return ErrorCounts(threshold=float(threshold), inside_runs=inside.size, outside_runs=outside.size,
                      false_negatives=int(np.count_nonzero(inside <= threshold)),
                      false_positives=int(np.count_nonzero(outside > threshold)))


def rate_bounds(counts, confidence):
    """``(FPR, FNR)`` upper bounds that hold together with probability ``confidence``: each rate's
    Clopper-Pearson upper bound at level ``1 - (1 - confidence) / 2`` (union bound)."""
    level = 1.0 - (1.0 - confidence) / 2.0
    return (clopper_pearson_upper(counts.false_positives, counts.outside_runs, level),
            clopper_pearson_upper(counts.false_negatives, counts.inside_runs, level))


def epsilon_lower_bound(counts, delta, confidence):
    """The lower bound on epsilon that ``counts`` give with probability ``confidence`` (:func:`rate_bounds`)."""
    return epsilon_from_rates(*rate_bounds(counts, confidence), delta)


def mu_from_rates(false_positive_rate, false_negative_rate):
    """The largest mu whose mu-GDP the two rates contradict (module docstring), 0 when none:
    ``Phi^-1(1 - FPR) - Phi^-1(FNR)`` (arrays allowed)."""
    mu = stats.norm.isf(false_positive_rate) - stats.norm.ppf(false_negative_rate)
    return np.maximum(mu, 0.0) if np.ndim(mu) else max(float(mu), 0.0)


def mu_lower_bound(counts, confidence):
    """The lower bound on mu that ``counts`` give with probability ``confidence`` (:func:`rate_bounds`)."""
    return mu_from_rates(*rate_bounds(counts, confidence))


def gaussian_epsilon(mu, delta):
    """The epsilon at ``delta`` of a mu-GDP mechanism (0 for mu = 0)."""
    if mu <= 0.0:
        return 0.0
    import dp_accounting
    return float(dp_accounting.get_epsilon_gaussian(1.0 / mu, delta))


def threshold_rates(inside, outside, confidence, count=CANDIDATE_THRESHOLDS, central=0.0):
    """``(candidates, FPR, FNR)``: ``count`` quantiles of the pooled scores, from ``central`` to ``1 -
    central``, and the Clopper-Pearson upper bounds (level ``1 - (1 - confidence) / 2``) of the test
    "D if score > threshold" at each."""
    inside, outside = np.sort(inside), np.sort(outside)
    levels = np.linspace(central, 1.0 - central, count)
    candidates = np.unique(np.quantile(np.concatenate([inside, outside]), levels))
    false_negatives = np.searchsorted(inside, candidates, side="right")
    false_positives = outside.size - np.searchsorted(outside, candidates, side="right")
    level = 1.0 - (1.0 - confidence) / 2.0
    return (candidates, clopper_pearson_upper(false_positives, outside.size, level),
            clopper_pearson_upper(false_negatives, inside.size, level))


def best_threshold(inside, outside, delta, confidence, gaussian=False, central=0.0):
    """The threshold whose test gives the largest :func:`epsilon_lower_bound` (``gaussian``: the
    largest :func:`mu_lower_bound`) on these scores, among :data:`CANDIDATE_THRESHOLDS` quantiles of
    them from ``central`` to ``1 - central`` (run it on a split the final bound does not use)."""
    candidates, fpr, fnr = threshold_rates(inside, outside, confidence, central=central)
    with np.errstate(divide="ignore", invalid="ignore"):
        if gaussian:
            scores = mu_from_rates(fpr, fnr)
        else:
            scores = np.fmax(np.log((1.0 - delta - fpr) / fnr), np.log((1.0 - delta - fnr) / fpr))
    return float(candidates[int(np.nanargmax(np.where(np.isfinite(scores), scores, -np.inf)))])
