"""Mironov's attack as an audit mode: the share of released steps that a neighbour cannot produce.

A floating-point release is a deterministic function of the sampler's uniform number; where that
function is monotone, a binary search decides exactly whether an observed output is reachable
from a hypothesised input (:mod:`privcd.auditing.reachability`, Mironov 2012, Section 4). The test
"D when the output is unreachable from D'" never errs on D' (every output of D' is reachable from
D'), so its false positive rate is exactly 0, and the share u / N of D's outputs unreachable from
D' lower-bounds delta at every epsilon (Kairouz, Oh and Viswanath 2015, Theorem 2.1 with FPR = 0:
``delta >= 1 - FNR``). With the share's one-sided Clopper-Pearson lower bound ``delta_lower`` at
``confidence``, a claim (epsilon, delta) with ``delta < delta_lower`` is false at every epsilon: the
audit's bound on epsilon is then infinite, and 0 otherwise (the attack says nothing more).

Forward models exist for DP-GCD's first step (Laplace noise: the experiment's floating-point
sample, :func:`~privcd.auditing.reachability.reachable_dp_gcd_step`; a release's grid step,
:func:`~privcd.auditing.reachability.reachable_dp_gcd_grid_step`). The neighbours
(:func:`neighbours`) are one feature of ones and alternating labels, the first flipped, so the
clipped gradient at ``w = 0`` is a sum of ``+-1/2`` terms, exact in floating point.
"""
import math

import numpy as np
from scipy import stats

from privcd.algorithms.base import coordinate_step_sizes
from privcd.auditing.bounds import ErrorCounts
from privcd.auditing.reachability import reachable_dp_gcd_grid_step, reachable_dp_gcd_step
from privcd.fit import fit
from privcd.problem import Problem

RECORDS = 50  # n of the neighbours
DEFAULT_RUNS = 2000  # first steps on D: an experiment's share (0.82) is bounded above 0.79 at 95%
ATTACKED = ("dp-gcd",)  # algorithms with a forward model of their noisy step
ARGUMENTS = {"passes": 1, "step": 1.0, "clip": 1.0}  # one iteration: the step is the first release


def neighbours(records=RECORDS):
    """``(D, D')``: one feature ``x_i = 1``, labels alternating from ``+1`` (D) or ``-1`` (D') in record 0,
    the logistic loss without a penalty, the smoothness constants public (``constants="data"``)."""
    problems = []
    for first_label in (1.0, -1.0):
        y = np.where(np.arange(records) % 2 == 0, 1.0, -1.0)
        y[0] = first_label
        problems.append(Problem(np.ones((records, 1)), y, "logistic", None, 0.0, constants="data"))
    return tuple(problems)


def first_gradient(problem):
    """The kernel's clipped gradient at ``w = 0``: ``(1/n) sum_i clip(-y_i / 2, C)``, summed in row order
    (each term is ``+-1/2`` and every partial sum exact)."""
    total = 0.0
    for label in problem.y:
        total += -label * 0.5
    return total / problem.n_samples


def unreachable_share(algorithm, *, epsilon, delta, runs, seed, release):
    """``(unreachable, claim)``: how many of ``runs`` first steps on D no input of D' reaches, and the
    runs' achieved (epsilon, delta). An experiment's run i has seed ``seed + i``; a release
    (``release=True``) draws OS entropy."""
    if algorithm not in ATTACKED:
        raise ValueError(f"the floating-point audit has a forward model for {list(ATTACKED)}, not {algorithm!r}: "
                         "its noise sampler has no monotone model of its outputs here")
    inside, outside = neighbours()
    gamma = coordinate_step_sizes(inside.M, ARGUMENTS["step"])[0]
    gradient_inside, gradient_outside = first_gradient(inside), first_gradient(outside)
    unreachable = 0
    for index in range(runs):
        run = fit(inside, algorithm, epsilon=epsilon, delta=delta, seed=None if release else seed + index,
                  **ARGUMENTS)
        step = run.w[0]
        if release:
            spacing = run.info["grid_spacing"][0]  # public: the same grid under D' (tests/test_dp_gcd_reachability.py)
            unreachable += not reachable_dp_gcd_grid_step(step, spacing, gamma)
        else:
            scale = run.info["release_scale"][0]
            if not reachable_dp_gcd_step(step, gradient_inside, scale, gamma):
                raise AssertionError("the forward model does not reproduce the kernel's step: the attack would be void")
            unreachable += not reachable_dp_gcd_step(step, gradient_outside, scale, gamma)
    return unreachable, (run.epsilon, run.delta)


def delta_lower_bound(unreachable, runs, confidence):
    """One-sided Clopper-Pearson lower bound at ``confidence`` on the unreachable share (0 for none)."""
    if unreachable == 0:
        return 0.0
    return float(stats.beta.ppf(1.0 - confidence, unreachable, runs - unreachable + 1))


def floating_point_counts(unreachable, runs):
    """The attack as :class:`~privcd.auditing.bounds.ErrorCounts`: runs on D only, a false negative for
    every reachable step, no threshold (``nan``); D' is never mistaken, by construction."""
    return ErrorCounts(threshold=math.nan, inside_runs=runs, outside_runs=0, false_negatives=runs - unreachable,
                       false_positives=0)
