"""Privacy audits: an empirical lower bound on the epsilon of a private algorithm, from real runs
(:func:`audit`, also ``privcd.audit``).

The audit runs the algorithm many times on two neighbouring datasets built to be as distinguishable
as the mechanism allows (:mod:`privcd.auditing.canaries`), scores each released model, and turns the
error rates of the best threshold test into a lower bound on epsilon that holds with the given
confidence (:mod:`privcd.auditing.bounds`). A bound above the claimed epsilon is a privacy bug: the
noise the kernels really add, with the clipping they really apply, does not deliver the claim.

Where the claim is a Gaussian trade-off curve (:func:`claimed_mu`: T composed Gaussian releases,
DP-CD, DP-SkGD and full-batch DP-SGD), the test bounds mu instead, with one joint test of both
error counts at the median threshold (:func:`privcd.auditing.bounds.mu_lower_bound`), and the
bound on epsilon is that of the mu bound at the claimed delta (``statistic = "gaussian"``). Where
it is the profile of a PLD (DP-SGD with sampled batches, DP-GCD), the test bounds the noise
multiplier of the claimed family (:mod:`privcd.auditing.curves`, ``"curve"``). Elsewhere it bounds
epsilon at delta directly (``"approximate-dp"``).

A bound above the claim is a proof, with the given confidence, that the claim is false: the test's
rates lie outside the claimed trade-off curve (Gaussian, profile, or (epsilon, delta) region). Below
the claim, the Gaussian and curve statistics read the rates in the claimed family's units: the
epsilon of the weakest member the rates contradict, a lower bound on epsilon if the mechanism's
curve is that family's (Nasr et al. 2023). The approximate-dp bound needs no such assumption.

``attack="floating-point"`` replaces the statistical test by Mironov's attack on the noise as IEEE
floats (:mod:`privcd.auditing.floating_point`): it bounds delta at every epsilon.
"""
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from privcd.auditing.bounds import (ErrorCounts, best_threshold, count_errors, epsilon_lower_bound, gaussian_epsilon,
                                    mu_lower_bound, rate_bounds, threshold_rates)
from privcd.auditing import floating_point
from privcd.auditing.canaries import PAIRS, canary_pair
from privcd.auditing.curves import CANDIDATE_THRESHOLDS as CURVE_CANDIDATES, ProfileTable, curve_epsilon, is_curve_claim
from privcd.auditing.variants import SOUND, UNSOUND, VARIANTS, Variant
from privcd.auditing.workers import canary_plans, helpers as helper_processes, one_numba_thread, score_runs, shares
from privcd.privacy.mechanisms import GaussianComposition, SubsampledGaussian
from privcd.validation import check_number, check_positive, check_positive_int, check_seed

__all__ = ["PAIRS", "SOUND", "UNSOUND", "VARIANTS", "AuditResult", "ErrorCounts", "Variant", "audit", "default_workers"]

DEFAULT_RUNS = 100_000  # runs on each dataset: DP-CD and full-batch DP-SGD reach about 1.2 at (2, 1e-5)
# Share of the runs that chooses the threshold, per statistic; the bound uses the others. A Gaussian
# test's threshold is the median of the pooled selection scores (:func:`median_threshold`), which
# few runs place; the curve and (epsilon, delta) tests search for rates far from 1/2.
SELECTION_SHARE = {"gaussian": 0.02, "curve": 0.1, "approximate-dp": 0.1}
CURVE_CENTRAL = 0.02  # a curve audit's thresholds: pooled score quantiles from this to 1 - this
PARALLEL_RUNS = 10_000  # runs a side from which an audit shares its runs among processes by default (a helper
# process starts in about 2 s, untimed; 100,000 runs take 12-60 s on one)


@dataclass(frozen=True)
class AuditResult:
    """What an audit found.

    Attributes
    ----------
    algorithm : str
    options : dict
        The algorithm's options as audited.
    epsilon, delta : float
        The claim: the epsilon the run's calibration achieves (at most the target) and delta.
    epsilon_lower : float
        Lower bound on the true epsilon at ``delta``, valid with probability ``confidence``.
    confidence : float
    runs : int
        Runs on each of D and D' (selection and bound splits together).
    counts : ErrorCounts
        The test on the bound's split: its threshold, runs and errors.
    seconds : float
        Wall time of the audit's runs (on ``workers`` processes) and bounds, after one untimed run
        in each process that compiles the kernels (or loads them from numba's cache).
    statistic : {"gaussian", "curve", "approximate-dp", "floating-point"}
        What the test bounded: mu of a Gaussian claim, the multiplier of a PLD family's claim,
        epsilon at delta, or delta at every epsilon (the floating-point attack).
    mu, mu_lower : float or None
        A Gaussian claim's mu and the audit's lower bound on it (None for the others).
    epsilon_check : float or None
        The lower bound from the same test at ``check_confidence``, when asked.
    delta_lower : float or None
        The floating-point attack's lower bound on delta at every epsilon (None for the others).
    """

    algorithm: str
    options: dict
    epsilon: float
    delta: float
    epsilon_lower: float
    confidence: float
    runs: int
    counts: ErrorCounts
    seconds: float
    statistic: str = "approximate-dp"
    mu: float | None = None
    mu_lower: float | None = None
    epsilon_check: float | None = None
    delta_lower: float | None = None


def claimed_mu(calibration):
    """The mu of a Gaussian claim: ``sqrt(T) / z`` for T composed Gaussian releases of multiplier z
    (a :class:`~privcd.privacy.mechanisms.GaussianComposition`, or a subsampled Gaussian whose batch
    is every record), which is mu-GDP (Dong, Roth and Su 2022, Corollary 3.3); None otherwise."""
    mechanism = calibration.mechanism
    if calibration.noise_multiplier <= 0 or mechanism is None:
        return None
    full_batch = isinstance(mechanism, SubsampledGaussian) and mechanism.batch_size == mechanism.n
    if isinstance(mechanism, GaussianComposition) or full_batch:
        return math.sqrt(mechanism.steps) / calibration.noise_multiplier
    return None


def audit(algorithm, *, epsilon, delta, runs=None, seed=0, confidence=0.95, noise_factor=1.0, check_confidence=None,
          attack=None, release=False, workers=None, **options):
    """Audit ``algorithm`` at (epsilon, delta): run it ``runs`` times on each of D and D'
    (:func:`privcd.auditing.canaries.canary_pair`), choose the threshold of the test "D if score >
    threshold" on the first runs (:data:`SELECTION_SHARE` of them, by statistic), and bound epsilon
    from the test's errors on the others (:func:`lower_bounds`).

    Parameters
    ----------
    algorithm : str
        A name of :data:`privcd.algorithms.ALGORITHMS` with an audit design (:data:`PAIRS`).
    epsilon, delta : float
        The target privacy, as in :func:`privcd.fit`.
    runs : int, optional
        Runs on each dataset (default :data:`DEFAULT_RUNS`, at least 10).
    seed : int
        Seeds of the runs: run i on D has seed ``seed + 2 i``, on D' ``seed + 2 i + 1``.
    confidence : float in (0, 1)
        Probability with which ``epsilon_lower`` is a lower bound.
    noise_factor : float > 0
        Audit a mutant whose noise is ``noise_factor`` times the calibrated noise while its claim
        stays the calibrated (epsilon, delta) (:func:`privcd.algorithms.base.with_noise_factor`):
        below 1 an under-noised variant, which a strong enough audit catches (bound above claim).
    check_confidence : float in (0, 1), optional
        Also give the bound of the same test at this confidence (``epsilon_check``): a study of K
        audits checks its claims at ``1 - (1 - confidence) / K`` (:mod:`privcd.auditing.study`).
    attack : {None, "floating-point"}
        ``"floating-point"``: Mironov's attack on the noise as IEEE floats instead of the statistical
        test (:mod:`privcd.auditing.floating_point`; DP-GCD, DP-CD, DP-SkGD with the sketch given in
        ``options``, DP-SGD with full or sampled batches, and DP-SCD): ``runs`` (default 2,000) first
        steps on D, and an infinite bound when the share a neighbour cannot reach exceeds delta (with
        ``confidence``), else 0; ``release=True`` attacks private releases (OS entropy, no seed).
    workers : int, optional
        Processes that share the statistical test's runs (:mod:`privcd.auditing.workers`: the same
        bits with any number). Default: the cores this process may use when ``runs`` is at least
        :data:`PARALLEL_RUNS`, else 1.
    **options
        Options of the algorithm and of the audited run (``passes``, ``step``, ``clip``), over the
        design's defaults.

    Returns
    -------
    AuditResult
    """
    if release and attack is None:
        raise ValueError("release=True is the floating-point attack's mode; give attack='floating-point' (a "
                         "statistical audit runs seeded experiments)")
    if attack is not None:
        return floating_point_audit(algorithm, epsilon=epsilon, delta=delta, runs=runs, seed=seed,
                                    confidence=confidence, check_confidence=check_confidence, attack=attack,
                                    release=release, options=options)
    runs = DEFAULT_RUNS if runs is None else check_positive_int("runs", runs)
    if runs < 10:
        raise ValueError(f"runs={runs}: an audit needs at least 10 runs on each dataset")
    seed = check_seed(seed)
    confidence = check_number("confidence", confidence, low=0.0, high=1.0)
    noise_factor = check_positive("noise_factor", noise_factor)
    workers = default_workers(runs) if workers is None else check_positive_int("workers", workers)
    pair = canary_pair(algorithm, options)
    canary_scores(pair, algorithm, epsilon=epsilon, delta=delta, runs=1, seed=seed)  # compiles: not timed
    with helper_processes(workers - 1, algorithm, options, epsilon=epsilon, delta=delta,
                          noise_factor=noise_factor) as helpers:
        for helper in helpers:
            helper.wait_ready()  # each has compiled (or loaded) its kernels too
        start = time.perf_counter()
        inside, outside, plan = canary_scores(pair, algorithm, epsilon=epsilon, delta=delta, runs=runs, seed=seed,
                                              noise_factor=noise_factor, helpers=helpers)
    calibration = plan.calibration
    delta, mu = calibration.delta, claimed_mu(calibration)
    table = None
    statistic = "curve" if is_curve_claim(calibration) else "approximate-dp" if mu is None else "gaussian"
    selection = max(1, int(SELECTION_SHARE[statistic] * runs))
    if statistic == "curve":
        table = ProfileTable(calibration.mechanism, calibration.noise_multiplier, calibration.epsilon)
        threshold = curve_threshold(inside[:selection], outside[:selection], table, confidence, runs - selection)
    elif statistic == "approximate-dp":
        threshold = best_threshold(inside[:selection], outside[:selection], delta, confidence)
    else:
        threshold = median_threshold(inside[:selection], outside[:selection])
    counts = count_errors(inside[selection:], outside[selection:], threshold)
    epsilon_lower, mu_lower = lower_bounds(statistic, counts, calibration, table, confidence)
    epsilon_check = None
    if check_confidence is not None:
        check_confidence = check_number("check_confidence", check_confidence, low=0.0, high=1.0)
        epsilon_check = lower_bounds(statistic, counts, calibration, table, check_confidence)[0]
    return AuditResult(
        algorithm=algorithm, options={key: value for key, value in pair.arguments.items()},
        epsilon=calibration.epsilon, delta=delta, epsilon_lower=epsilon_lower, confidence=confidence,
        runs=runs, counts=counts, seconds=time.perf_counter() - start, statistic=statistic, mu=mu,
        mu_lower=mu_lower, epsilon_check=epsilon_check)


def default_workers(runs, cores=None):
    """The processes an audit of ``runs`` runs a side uses by default: ``cores`` (default: the cores
    this process may run on, its affinity) from :data:`PARALLEL_RUNS` runs, else 1."""
    if runs < PARALLEL_RUNS:
        return 1
    if cores is None:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return check_positive_int("cores", cores)


def canary_scores(pair, algorithm, *, epsilon, delta, runs, seed, noise_factor=1.0, helpers=()):
    """``(inside, outside, plan)``: the scores of ``runs`` runs on each of the pair's D and D' (run i
    on D has seed ``seed + 2 i``, on D' ``seed + 2 i + 1``) and the plan they ran (its calibration is
    the claim). With ``helpers`` (:class:`privcd.auditing.workers.Helper`, ready), each scores a
    share of the runs beside this process (the same scores)."""
    own, *theirs = shares(runs, 1 + len(helpers))
    for helper, (start, stop) in zip(helpers, theirs):
        helper.submit(seed, start, stop)
    with one_numba_thread():
        prepared = canary_plans(pair, algorithm, epsilon=epsilon, delta=delta, noise_factor=noise_factor)
        parts = [score_runs(pair, prepared, seed, *own)] + [helper.result() for helper in helpers]
    inside, outside = (np.concatenate([part[side] for part in parts]) for side in (0, 1))
    return inside, outside, prepared[1][2]


def floating_point_audit(algorithm, *, epsilon, delta, runs, seed, confidence, check_confidence, attack, release,
                         options):
    """:func:`audit` with ``attack="floating-point"`` (its docstring; :mod:`privcd.auditing.floating_point`):
    ``statistic = "floating-point"``, ``delta_lower`` the unreachable share's lower bound."""
    if attack != "floating-point":
        raise ValueError(f"attack={attack!r}: expected None or 'floating-point'")
    runs = floating_point.DEFAULT_RUNS if runs is None else check_positive_int("runs", runs)
    seed = check_seed(seed)
    confidence = check_number("confidence", confidence, low=0.0, high=1.0)
    floating_point.unreachable_share(algorithm, epsilon=epsilon, delta=delta, runs=1, seed=seed,
                                     release=bool(release), options=options)  # compiles: not timed
    start = time.perf_counter()
    unreachable, (claim, claimed_delta) = floating_point.unreachable_share(
        algorithm, epsilon=epsilon, delta=delta, runs=runs, seed=seed, release=bool(release), options=options)
    delta_lower = floating_point.delta_lower_bound(unreachable, runs, confidence)
    epsilon_check = None
    if check_confidence is not None:
        check_confidence = check_number("check_confidence", check_confidence, low=0.0, high=1.0)
        check_delta = floating_point.delta_lower_bound(unreachable, runs, check_confidence)
        epsilon_check = math.inf if check_delta > claimed_delta else 0.0
    return AuditResult(
        algorithm=algorithm, epsilon=claim, options={**floating_point.ARGUMENTS,
                                                     **floating_point.forward_model(algorithm, options).options,
                                                     **options, "release": bool(release)},
        delta=claimed_delta, epsilon_lower=math.inf if delta_lower > claimed_delta else 0.0, confidence=confidence,
        runs=runs, counts=floating_point.floating_point_counts(unreachable, runs),
        seconds=time.perf_counter() - start, statistic="floating-point", epsilon_check=epsilon_check,
        delta_lower=delta_lower)


def lower_bounds(statistic, counts, calibration, table, confidence):
    """``(epsilon_lower, mu_lower)`` that the test's ``counts`` give with probability ``confidence``
    under ``statistic`` (``mu_lower`` None but for ``"gaussian"``; ``table`` the curve's profiles)."""
    if statistic == "curve":
        return curve_epsilon_lower_bound(counts, table, calibration, confidence), None
    if statistic == "gaussian":
        mu_lower = mu_lower_bound(counts, confidence)
        return gaussian_epsilon(mu_lower, calibration.delta), mu_lower
    return epsilon_lower_bound(counts, calibration.delta, confidence), None


def median_threshold(inside, outside):
    """A Gaussian test's threshold: the median of the pooled scores of runs on D and D' (run it on a
    split the final bound does not use). On a mu-Gaussian pair every threshold's rates lie on the
    same curve, and the median, where FPR = FNR near 1/2, gives ``Phi^-1`` of the rates their least
    variance (``r (1 - r) / phi(Phi^-1(r))^2``). Measured with the joint bound, 100,000 runs a side
    at epsilon 0.5 and 1 (3-6 seeds each, mean share of the claim): DP-CD 0.941 and 0.968,
    full-batch DP-SGD 0.967 and 0.986, DP-SkGD (importance) 0.886 and 0.923, where the best of 2,000
    central thresholds on a tenth of the runs gave 0.924 and 0.958, 0.939 and 0.969, 0.875 and
    0.918 (``results/reference/README.md``)."""
    return float(np.median(np.concatenate([inside, outside])))


def curve_threshold(inside, outside, table, confidence, bound_runs):
    """The threshold whose rates contradict the smallest multiplier of the claimed family
    (:class:`privcd.auditing.curves.ProfileTable`), among quantiles of the scores (run it on a split
    the final bound does not use), each judged by the Clopper-Pearson upper bounds its rates can
    expect on the bound's split of ``bound_runs`` runs a side (``projected_runs`` of
    :func:`~privcd.auditing.bounds.threshold_rates`); among thresholds that contradict the same
    tabulated multiplier, the one that comes closest to contradicting the next smaller. The
    candidates are the central quantiles (from :data:`CURVE_CENTRAL` to ``1 - CURVE_CENTRAL``):
    beyond, the selection split's few errors make lucky thresholds that the bound's split does not
    confirm (measured at (1, 1e-5), 100,000 runs a side: 0.88 of the claim for an under-noised
    mutant with every quantile, 0.99 without the tails). Over 17 audits (DP-GCD, sampled DP-SGD,
    DP-SCD and SEQDP-SCD, sound and mutants, epsilon 0.5-8), this choice gave 0.934 of the claim
    on average where the selection split's own bounds gave 0.904 (DP-GCD at (2, 1e-5): 0.950 and
    0.824), and the projected rates without the margin 0.924 (``results/reference/README.md``)."""
    candidates, false_positive_rate, false_negative_rate = threshold_rates(
        inside, outside, confidence, CURVE_CANDIDATES, central=CURVE_CENTRAL, projected_runs=bound_runs)
    index = table.smallest_contradicted_index(false_positive_rate, false_negative_rate)
    tied = np.flatnonzero(index == index.min())
    if index.min() >= len(table.multipliers) or index.min() == 0 or tied.size == 1:
        return float(candidates[tied[0]])
    margin = table.excess(false_positive_rate[tied], false_negative_rate[tied], table.profiles[index.min() - 1])
    return float(candidates[tied[int(np.argmax(margin))]])


def curve_epsilon_lower_bound(counts, table, calibration, confidence):
    """Epsilon at the claimed delta of the smallest multiplier the rates' Clopper-Pearson upper bounds
    contradict (:mod:`privcd.auditing.curves`): a lower bound with probability ``confidence`` on the
    epsilon of a mechanism of the claimed family."""
    multiplier = table.smallest_contradicted_multiplier(*rate_bounds(counts, confidence))
    return curve_epsilon(calibration.mechanism, multiplier, calibration.delta)
