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
(:func:`mu_from_rates`, symmetric in the two rates). The lower bound on mu (:func:`mu_lower_bound`)
tests "mu-GDP" with both counts at once: the statistic ``Phi^-1(1 - FPR~) - Phi^-1(FNR~)``
(:func:`probit_difference`), its exact binomial tail on the curve's boundary, maximised over a
confidence interval of the FPR (Berger and Boos 1994; :func:`gaussian_p_value`). Two separate
Clopper-Pearson bounds (:func:`rate_bounds`) would take about ``2 x 1.96`` standard errors off mu at
95%, the joint test about ``1.65 x sqrt(2)``: at DP-CD's mu at epsilon 0.5 with 90,000 runs a side,
0.93 of mu where the two bounds give 0.88. :func:`gaussian_epsilon` converts the bound to epsilon
at the claimed delta (the epsilon of a mu-GDP
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
# The Gaussian statistic's joint test (:func:`mu_lower_bound`).
NUISANCE_SHARE = 0.05  # share of 1 - confidence spent on the nuisance FPR's confidence interval
NUISANCE_POINTS = 33  # FPRs of that interval at which the p-value's supremum is taken
TAIL = 1e-12  # binomial tail mass of false positives counted as rejections outright
ROUNDING = 1e-9  # the largest count in the rejection set is rounded up by this much (never down)
MU_TOLERANCE = 1e-5  # bisection's width on mu
PROJECTION_LEVEL = 0.9  # rates a selection split projects onto the bound's split (:func:`threshold_rates`)


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


def probit_difference(false_positives, outside_runs, false_negatives, inside_runs):
    """The joint test's statistic ``S = Phi^-1(1 - FPR~) - Phi^-1(FNR~)`` of error counts, with the
    rates ``(count + 1/2) / (runs + 1)`` (finite at 0 and all errors; arrays allowed): decreasing in
    each count, it estimates mu of a Gaussian pair (:func:`mu_from_rates`)."""
    false_positive_rate = (np.asarray(false_positives) + 0.5) / (outside_runs + 1.0)
    false_negative_rate = (np.asarray(false_negatives) + 0.5) / (inside_runs + 1.0)
    return stats.norm.isf(false_positive_rate) - stats.norm.ppf(false_negative_rate)


def gaussian_tail(mu, false_positive_rate, counts, observed):
    """``P(S >= observed)`` (:func:`probit_difference`) when the test's rates are ``(a, b(a))`` with
    ``a = false_positive_rate`` and ``b(a) = Phi(Phi^-1(1 - a) - mu)`` on the mu-GDP curve: a sum
    over the false positives A ~ Bin(n', a) of ``P(A) P(B <= k(A))``, B ~ Bin(n, b(a)) and k(A) the
    largest count with ``S(A, B) >= observed``. The A outside the ``TAIL`` quantiles are counted as
    rejections (so the sum is an upper bound by at most ``2 TAIL``)."""
    outside_runs, inside_runs = counts.outside_runs, counts.inside_runs
    false_negative_rate = stats.norm.cdf(stats.norm.isf(false_positive_rate) - mu)
    low = max(int(stats.binom.ppf(TAIL, outside_runs, false_positive_rate)) - 1, 0)
    high = min(int(stats.binom.isf(TAIL, outside_runs, false_positive_rate)) + 1, outside_runs)
    false_positives = np.arange(low, high + 1)
    largest = (inside_runs + 1.0) * stats.norm.cdf(
        stats.norm.isf((false_positives + 0.5) / (outside_runs + 1.0)) - observed) - 0.5
    largest = np.floor(largest + ROUNDING)  # a count on the boundary belongs to the rejection set
    inside = stats.binom.cdf(largest, inside_runs, false_negative_rate)
    return float(np.sum(stats.binom.pmf(false_positives, outside_runs, false_positive_rate) * inside)) + 2 * TAIL


def gaussian_p_value(mu, counts, nuisance_level):
    """Berger and Boos's p-value of "the mechanism is mu-GDP" from the test's ``counts`` (Berger and
    Boos 1994, "P values maximized over a confidence set for the nuisance parameter", JASA 89,
    Section 2): the largest :func:`gaussian_tail` over FPRs ``a`` of the two-sided Clopper-Pearson
    interval at ``1 - nuisance_level`` of the observed FPR (:data:`NUISANCE_POINTS` evenly spaced
    points; 257 points move it by at most 3e-7, measured at mu 0.14-1 and 2,000-90,000 runs a
    side), plus ``nuisance_level``. Under mu-GDP the rates ``(a, b)`` satisfy ``b >= b(a)``, and
    ``P(S >= s)`` only grows as b falls to ``b(a)``, so the p-value is valid; it grows with mu (mu-GDP
    holds for every larger mu)."""
    observed = float(probit_difference(counts.false_positives, counts.outside_runs, counts.false_negatives,
                                       counts.inside_runs))
    count, runs = counts.false_positives, counts.outside_runs
    low = stats.beta.ppf(nuisance_level / 2.0, count, runs - count + 1) if count > 0 else 0.0
    high = stats.beta.ppf(1.0 - nuisance_level / 2.0, count + 1, runs - count) if count < runs else 1.0
    rates = np.linspace(max(low, 1.0 / (runs * runs)), min(high, 1.0 - 1.0 / (runs * runs)), NUISANCE_POINTS)
    return max(gaussian_tail(mu, rate, counts, observed) for rate in rates) + nuisance_level


def mu_lower_bound(counts, confidence):
    """The lower bound on mu that ``counts`` give with probability ``confidence``: the largest mu whose
    :func:`gaussian_p_value` (with a :data:`NUISANCE_SHARE` of ``1 - confidence`` for the nuisance
    FPR) is at most ``1 - confidence``, to :data:`MU_TOLERANCE` below (bisection; 0 when even mu = 0
    is not rejected). One joint test of both counts: where two Clopper-Pearson bounds at ``1 -
    alpha / 2`` each (:func:`rate_bounds`) take about ``2 x 1.96`` standard errors of ``Phi^-1`` of
    a rate off mu at 95%, this takes about ``1.65 x sqrt(2)``."""
    alpha = 1.0 - confidence
    nuisance_level = NUISANCE_SHARE * alpha

    def rejected(mu):
        return gaussian_p_value(mu, counts, nuisance_level) <= alpha

    if not rejected(0.0):
        return 0.0
    low = 0.0
    high = max(float(probit_difference(counts.false_positives, counts.outside_runs, counts.false_negatives,
                                       counts.inside_runs)), 0.0) + 1.0
    while rejected(high):
        low, high = high, 2.0 * high
    while high - low > MU_TOLERANCE:
        middle = (low + high) / 2.0
        low, high = (middle, high) if rejected(middle) else (low, middle)
    return low


def gaussian_epsilon(mu, delta):
    """The epsilon at ``delta`` of a mu-GDP mechanism (0 for mu = 0)."""
    if mu <= 0.0:
        return 0.0
    import dp_accounting
    return float(dp_accounting.get_epsilon_gaussian(1.0 / mu, delta))


def threshold_rates(inside, outside, confidence, count=CANDIDATE_THRESHOLDS, central=0.0, projected_runs=None):
    """``(candidates, FPR, FNR)``: ``count`` quantiles of the pooled scores, from ``central`` to ``1 -
    central``, and the Clopper-Pearson upper bounds (level ``1 - (1 - confidence) / 2``) of the test
    "D if score > threshold" at each: from these runs' error counts, or, with ``projected_runs``,
    from the counts that many runs a side would have at rates a little above these runs' (their
    Clopper-Pearson upper bounds at :data:`PROJECTION_LEVEL`): the bounds a threshold chosen here
    can expect on a bound split of that size. A small selection split's own bounds are looser at
    rare rates and so favour central thresholds; its rates themselves favour the rare thresholds
    that luck made look best."""
    inside, outside = np.sort(inside), np.sort(outside)
    levels = np.linspace(central, 1.0 - central, count)
    candidates = np.unique(np.quantile(np.concatenate([inside, outside]), levels))
    false_negatives = np.searchsorted(inside, candidates, side="right")
    false_positives = outside.size - np.searchsorted(outside, candidates, side="right")
    inside_runs, outside_runs = inside.size, outside.size
    if projected_runs is not None:
        false_negatives = np.round(clopper_pearson_upper(false_negatives, inside_runs, PROJECTION_LEVEL)
                                   * projected_runs)
        false_positives = np.round(clopper_pearson_upper(false_positives, outside_runs, PROJECTION_LEVEL)
                                   * projected_runs)
        inside_runs = outside_runs = projected_runs
    level = 1.0 - (1.0 - confidence) / 2.0
    return (candidates, clopper_pearson_upper(false_positives, outside_runs, level),
            clopper_pearson_upper(false_negatives, inside_runs, level))


def best_threshold(inside, outside, delta, confidence):
    """The threshold whose test gives the largest :func:`epsilon_lower_bound` on these scores, among
    :data:`CANDIDATE_THRESHOLDS` quantiles of them (run it on a split the final bound does not use)."""
    candidates, fpr, fnr = threshold_rates(inside, outside, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.fmax(np.log((1.0 - delta - fpr) / fnr), np.log((1.0 - delta - fnr) / fpr))
    return float(candidates[int(np.nanargmax(np.where(np.isfinite(scores), scores, -np.inf)))])
