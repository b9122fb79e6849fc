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

Forward models (:data:`FORWARD_MODELS`) exist for the first step of DP-GCD (Laplace noise: the
experiment's floating-point sample, :func:`~privcd.auditing.reachability.reachable_dp_gcd_step`),
DP-CD and DP-SkGD's uniform sketch (which runs DP-CD's kernel) and DP-SGD, full-batch or sampled
(:data:`SAMPLED_SGD`: a step is reachable from either of a batch's possible sums) (Gaussian
noise: every double the sampler could return,
:func:`~privcd.auditing.reachability.reachable_gaussian_step`), and full-batch DP-SCD (its first
iterate ``v / (lam N)``, :func:`~privcd.auditing.reachability.reachable_dual_step`, on
:func:`dual_neighbours`); a release's grid step is
:func:`~privcd.auditing.reachability.reachable_grid_step` for each
(:func:`~privcd.auditing.reachability.reachable_dual_grid_step` for DP-SCD). DP-CD-P's Laplace
release of its smoothness constants is attacked where the run publishes them
(:func:`unreachable_constants`). The neighbours
(:func:`neighbours`) are one feature of ones and alternating labels, the first flipped, so the
clipped gradient at ``w = 0`` is a sum of ``+-1/2`` terms, exact in floating point.
"""
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats

from privcd.algorithms.base import coordinate_step_sizes
from privcd.auditing.canaries import LABEL
from privcd.auditing.bounds import ErrorCounts
from privcd.auditing.reachability import (reachable_dp_gcd_step, reachable_dual_grid_step, reachable_dual_step,
                                          reachable_gaussian_step, reachable_grid_step, reachable_numpy_laplace,
                                          reachable_on_grid)
from privcd.fit import fit, prepare
from privcd.privacy.grid_laplace import grid_spacing
from privcd.problem import Problem

RECORDS = 50  # n of the neighbours
DEFAULT_RUNS = 2000  # first steps on D: DP-GCD's experiment share (0.82) is bounded above 0.79 at 95%
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


def dual_neighbours(records=RECORDS):
    """DP-SCD's ``(D, D')``: one feature ``x_i = 1``, labels ``+-Y`` alternating from ``+Y`` (D) or ``-Y``
    (D') in record 0 (``Y`` the canaries' :data:`~privcd.auditing.canaries.LABEL`), the squared loss with
    ``lam = 1``: every dual update saturates at ``+-C``, so a full batch's sum is an exact integer."""
    problems = []
    for first_label in (1.0, -1.0):
        y = np.where(np.arange(records) % 2 == 0, LABEL, -LABEL)
        y[0] = first_label * LABEL
        problems.append(Problem(np.ones((records, 1)), y, "squared", "l2", 1.0, row_norm_bound=1.0))
    return tuple(problems)


def dual_sum(problem, run):
    """DP-SCD's one ``v`` after a full batch from ``alpha = 0``: ``sum_j zeta_j x_j`` with every ``zeta_j =
    C sign(y_j)`` (:func:`dual_neighbours`), exact in any order."""
    return (float(np.sum(np.sign(problem.y))) * ARGUMENTS["clip"],)


def dual_factor(problem, run):
    """DP-SCD's ``lam N``, the divisor of ``theta = v / (lam N)``."""
    return problem.lam * problem.n_samples


def gradient_sum(problem):
    """The kernels' clipped gradient sum at ``w = 0``: ``sum_i clip(-y_i / 2, C)`` in row order (each
    term is ``+-1/2`` and every partial sum exact)."""
    total = 0.0
    for label in problem.y:
        total += -label * 0.5
    return total


def first_gradient(problem, run):
    """The coordinate methods' clipped gradient at ``w = 0`` (:func:`gradient_sum` over n), the one
    value their first step can release before noise."""
    return (gradient_sum(problem) / problem.n_samples,)


def full_batch_sum(problem, run):
    """Full-batch DP-SGD's one value before noise: :func:`gradient_sum`."""
    return (gradient_sum(problem),)


def coordinate_factor(problem, run):
    """A coordinate method's step size on the one coordinate (public constants)."""
    return coordinate_step_sizes(problem.M, ARGUMENTS["step"])[0]


def full_batch_factor(problem, run):
    """Full-batch DP-SGD's ``step / b`` with ``b = n`` (:mod:`privcd.kernels.dp_sgd`)."""
    return run.info["step_size"] / problem.n_samples


SAMPLED_GRADIENT = 2.0**-5  # every other record's gradient at w = 0: a batch's sum small beside the noise, exact


def sampled_neighbours(records=RECORDS):
    """Sampled DP-SGD's ``(D, D')``: one feature ``x_i = 1``, the squared loss without a penalty, every
    label ``-g / 2`` (gradient ``g`` = :data:`SAMPLED_GRADIENT` at ``w = 0``) but D's record 0,
    labelled ``+Y`` (the canaries' :data:`~privcd.auditing.canaries.LABEL`, its gradient clipped to
    ``-C``): a batch of b records of D' sums to ``b g`` whatever it holds, one of D to ``(b - 1) g -
    C`` when it holds record 0 (probability ``q = b / n``), else to ``b g``; every sum is exact. The
    addition of a small nonzero ``b g`` to the noise leaves the gaps the attack finds. Measured at
    (2, 1e-5), batches of 25 of 50, 400 first steps on D: 38 unreachable from D' (19% of those whose
    batch held record 0); with D' sums of 0 (zero records) 5, and of ``b / 2`` (gradients of 1/2) 3."""
    problems = []
    for canary in (LABEL, -SAMPLED_GRADIENT / 2):
        y = np.full(records, -SAMPLED_GRADIENT / 2)
        y[0] = canary
        problems.append(Problem(np.ones((records, 1)), y, "squared", None, 0.0, constants="data"))
    return tuple(problems)


def sampled_sums(problem, run):
    """The clipped gradient sums a batch of :func:`sampled_neighbours` can have: ``b g`` without record
    0, and ``(b - 1) g`` plus record 0's clipped gradient with it."""
    batch, clip = run.settings["batch_size"], run.settings["clip"]
    first = float(np.clip(-2.0 * problem.y[0], -clip, clip))
    return (batch * SAMPLED_GRADIENT, (batch - 1) * SAMPLED_GRADIENT + first)


def sampled_factor(problem, run):
    """Sampled DP-SGD's ``step / b`` (:mod:`privcd.kernels.dp_sgd`)."""
    return run.info["step_size"] / run.settings["batch_size"]


@dataclass(frozen=True)
class ForwardModel:
    """How one algorithm's first step from ``w = 0`` is attacked: ``0 - a (v + s noise)``.

    Attributes
    ----------
    factor : callable ``(problem, run) -> a``
    values : callable ``(problem, run) -> (v, ...)``
        The values before noise the first step can release on ``problem`` (one, or a sampled
        batch's every possible sum).
    scale : callable ``run -> s``
        The experiment's noise scale on the coordinate, from the run's public ``info``.
    reachable : callable ``(observed, v, s, a) -> bool``
        Whether the experiment's floating-point noise can give ``observed``.
    options : dict
        The algorithm's options for the attacked run, over :data:`ARGUMENTS`.
    neighbours : callable ``() -> (D, D')``
    release_reachable : callable ``(observed, spacing, a) -> bool``
        Whether a release's grid step can give ``observed``.
    """

    factor: Callable
    values: Callable
    scale: Callable
    reachable: Callable
    options: dict = field(default_factory=dict)
    neighbours: Callable = neighbours
    release_reachable: Callable = reachable_grid_step


def noise_std(run):
    """The noise scale ``info["noise_std"]`` on the first coordinate."""
    return first_entry(run.info["noise_std"])


def release_scale(run):
    """DP-GCD's Laplace scale of its releases, ``info["release_scale"]``."""
    return first_entry(run.info["release_scale"])


def block_noise_std(run):
    """DP-SkGD's noise on the one coordinate's block ``{0}``: ``fl(sigma_0 sqrt(w_0))`` as
    :func:`privcd.kernels.dp_skgd.block_step` forms it (the uniform sketch's unit weight leaves
    ``sigma_0``, DP-CD's kernel)."""
    return noise_std(run) * math.sqrt(0.0 + first_entry(run.info["noise_weights"]))


FORWARD_MODELS = {
    "dp-gcd": ForwardModel(coordinate_factor, first_gradient, release_scale, reachable_dp_gcd_step),
    "dp-cd": ForwardModel(coordinate_factor, first_gradient, noise_std, reachable_gaussian_step),
    "dp-skgd": ForwardModel(coordinate_factor, first_gradient, block_noise_std, reachable_gaussian_step),
    "dp-sgd": ForwardModel(full_batch_factor, full_batch_sum, noise_std, reachable_gaussian_step,
                           {"batch_size": RECORDS}),
    "dp-scd": ForwardModel(dual_factor, dual_sum, noise_std, reachable_dual_step, {"batch_size": RECORDS},
                           dual_neighbours, reachable_dual_grid_step),
}
SAMPLED_BATCH = 25  # sampled DP-SGD's batch of the attack (q = 1/2): half of D's first steps carry the canary
SAMPLED_SGD = ForwardModel(sampled_factor, sampled_sums, noise_std, reachable_gaussian_step,
                           {"batch_size": SAMPLED_BATCH, "passes": SAMPLED_BATCH / RECORDS},  # one step
                           sampled_neighbours)


def forward_model(algorithm, options):
    """The :class:`ForwardModel` of ``algorithm`` with ``options``: :data:`SAMPLED_SGD` for DP-SGD with
    batches smaller than the neighbours' records, else :data:`FORWARD_MODELS`' entry."""
    if algorithm not in FORWARD_MODELS:
        raise ValueError(f"the floating-point audit has a forward model for {sorted(FORWARD_MODELS)}, not "
                         f"{algorithm!r}: its noisy step has no monotone model here")
    if algorithm == "dp-sgd" and options.get("batch_size", RECORDS) < RECORDS:
        return SAMPLED_SGD
    return FORWARD_MODELS[algorithm]


def first_entry(value):
    """The one coordinate's entry of a run's info value (an array per coordinate, or a number)."""
    return float(np.ravel(value)[0])


def smoothness_neighbours(records=RECORDS):
    """DP-CD-P's ``(D, D')``: two features, ``records`` rows of norm <= 1 drawn once (seed 0), the first
    ``(1, 0)`` in D and ``(0, 1)`` in D', labels ``+-1`` alternating, the logistic loss, public bounds
    ``feature_bound = row_norm_bound = 1``: the clipped means of the constants differ on both
    coordinates, their Laplace scales (from the bounds) do not."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(records, 2))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(np.arange(records) % 2 == 0, 1.0, -1.0)
    problems = []
    for first_row in ((1.0, 0.0), (0.0, 1.0)):
        rows = X.copy()
        rows[0] = first_row
        problems.append(Problem(rows, y, "logistic", feature_bound=1.0, row_norm_bound=1.0))
    return tuple(problems)


def unreachable_constants(*, epsilon, delta, runs, seed, release, options):
    """:func:`unreachable_share` for DP-CD-P's private smoothness constants (dp-cd eq. (126)), observed in
    ``Run.info["M_private"] = max(clipped mean + Lap(lambda), lambda)``: an experiment's Laplace is
    numpy's floating-point sample (:func:`~privcd.auditing.reachability.reachable_numpy_laplace` from
    D''s clipped mean), a release's a point of the public grid
    (:func:`~privcd.auditing.reachability.reachable_on_grid`); a constant floored at ``lambda`` is
    reachable from both."""
    inside, outside = smoothness_neighbours()
    arguments = {**ARGUMENTS, **options}
    mechanisms = [prepare(problem, "dp-cd", epsilon=epsilon, delta=delta, **arguments)[3].kernel["smoothness"]
                  for problem in (inside, outside)]
    scale = mechanisms[0].scale
    spacings = [grid_spacing(lam, mechanisms[0].epsilon, scale.size) for lam in scale]
    unreachable = 0
    for index in range(runs):
        run = fit(inside, "dp-cd", epsilon=epsilon, delta=delta, seed=None if release else seed + index, **arguments)
        constants = run.info["M_private"]
        if release:
            unreachable += not all(m == lam or reachable_on_grid(m, h) for m, lam, h in zip(constants, scale, spacings))
            continue

        def reached(mechanism):
            return all(m == lam or reachable_numpy_laplace(m, mean, lam)
                       for m, mean, lam in zip(constants, mechanism.clipped_mean, mechanism.scale))
        if not reached(mechanisms[0]):
            raise AssertionError("the forward model does not reproduce the constants' release: the attack "
                                 "would be void")
        unreachable += not reached(mechanisms[1])
    return unreachable, (run.epsilon, run.delta)


def unreachable_share(algorithm, *, epsilon, delta, runs, seed, release, options=None):
    """``(unreachable, claim)``: how many of ``runs`` first steps on D no input of D' reaches, and the
    runs' achieved (epsilon, delta). An experiment's run i has seed ``seed + i``; a release
    (``release=True``) draws OS entropy. ``options`` are the algorithm's, over the model's (e.g.
    DP-SkGD's ``sketch``; on one feature every sketch's block is ``{0}`` or empty). DP-CD-P
    (``smoothness="private"``) is attacked on its constants (:func:`unreachable_constants`)."""
    if algorithm == "dp-cd" and (options or {}).get("smoothness") == "private":
        return unreachable_constants(epsilon=epsilon, delta=delta, runs=runs, seed=seed, release=release,
                                     options=options)
    options = options or {}
    model = forward_model(algorithm, options)
    inside, outside = model.neighbours()
    unreachable = 0
    for index in range(runs):
        run = fit(inside, algorithm, epsilon=epsilon, delta=delta, seed=None if release else seed + index,
                  **{**ARGUMENTS, **model.options, **options})
        step, factor = run.w[0], model.factor(inside, run)
        if release:
            spacing = first_entry(run.info["grid_spacing"])  # public: the same grid under D' (the tests)
            unreachable += not model.release_reachable(step, spacing, factor)
        else:
            scale = model.scale(run)
            if not any(model.reachable(step, value, scale, factor) for value in model.values(inside, run)):
                raise AssertionError("the forward model does not reproduce the kernel's step: the attack would be void")
            unreachable += not any(model.reachable(step, value, scale, factor) for value in model.values(outside, run))
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
