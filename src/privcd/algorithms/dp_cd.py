"""DP-CD: differentially private proximal coordinate descent (dp-cd Algorithm 1), and DP-CD-P.

Step sizes ``gamma_j = step / M_j`` (dp-cd Section 6), clipping thresholds
``C_j = sqrt(M_j / tr(M)) * clip`` (Section 5.1). Each of the ``T K`` iterations releases one
clipped coordinate gradient ``(1/n) sum_i clip(grad_j l, C_j)`` whose replace-one sensitivity is
``2 C_j / n``; its Gaussian noise has standard deviation ``sigma_j = z * 2 C_j / n`` with one
noise multiplier z for all coordinates, calibrated numerically for ``T K`` composed Gaussian
releases (Theorem 3.1 and Appendix B, tighter numerical RDP as in Remark 3.2; ``"exact"`` uses
that ``T K`` Gaussians of multiplier z are exactly one Gaussian of multiplier ``z / sqrt(TK)``).
One pass is p iterations.

DP-CD-P (``smoothness="private"``, Section 5.2, Appendix F, Section 6.1): a share epsilon' =
``smoothness_budget * epsilon`` estimates the M_j with the Laplace mechanism of eq. (126)
(:mod:`privcd.algorithms.private_smoothness`), which then set the step sizes and clipping
thresholds; z is calibrated for the rest, ``epsilon - epsilon'`` with the same delta. By basic
composition the run is ``(epsilon' + epsilon_opt, delta)``-DP, ``epsilon_opt <= epsilon - epsilon'``
being the optimisation's achieved epsilon: ``Run.epsilon`` is that sum, and ``Run.info`` holds
``smoothness_epsilon`` (epsilon'), ``optimisation_epsilon`` (epsilon_opt), ``M_private`` and the
Laplace scales. The Laplace noise depends on the run's seed, so :func:`run` draws it and returns
the estimates (and the thresholds and noise scales derived from them) as run-time facts. Runs of
one :class:`~privcd.privacy.joint.JointRelease` (one-vs-rest models on the same records) share one
release of the constants, which do not depend on the labels: the whole release is then
``(epsilon' + epsilon_opt, delta)``-DP, epsilon_opt the joint optimisations', and every run reports it.

Options
-------
inner_iterations : int or None
    K of Algorithm 1: average the iterates every K steps; ``None`` (default) returns the last
    iterate. The iteration count is rounded up to a multiple of K.
accountant : {"exact", "rdp", "pld"}
    ``"exact"`` (default: the T K Gaussian releases are exactly one Gaussian, the tightest
    accounting), ``"rdp"`` (the paper's, Appendix B: 5-14% more noise) or ``"pld"``.
checkpoints : int or None
    Number of evenly spaced checkpoints in the history (default: one per pass).
smoothness : {"public", "private"}
    ``"public"`` (default) uses :attr:`Problem.M`; ``"private"`` is DP-CD-P.
smoothness_budget : float in (0, 1)
    The share of epsilon spent on the private M_j (default 0.1, the paper's); DP-CD-P only.
coordinate_order : {"uniform", "permutation", "cyclic"}
    Which coordinate each iteration updates: ``"uniform"`` (default, Algorithm 1: i.i.d. uniform
    on [p]), ``"permutation"`` (a fresh uniformly random permutation of [p] every p iterations,
    so each pass visits every coordinate once) or ``"cyclic"`` (0, 1, ..., p - 1, 0, ...). The
    accounting is the same for all three: Theorem 3.1 composes the T K releases, each a Gaussian
    mechanism of multiplier z on its coordinate's clipped gradient, whichever coordinate it takes,
    and claims no amplification from the random choice; the order never depends on the data.

Runs that differ only in ``step`` and ``clip`` (``SHARED_DRAWS``) visit the same coordinates with
the same normals for the same seed (and, DP-CD-P, draw the same private M_j); without averaging,
:func:`run_many` makes them in one call of :func:`~privcd.kernels.dp_cd_many.dp_cd_many`
(:func:`privcd.fit_many`).
"""
import dataclasses
import math

import numba
import numpy as np

from privcd import privacy
from privcd.algorithms.base import (
    MAX_GROUP_BYTES, Plan, check_checkpoints, checkpoints_for, coordinate_step_sizes, coordinate_thresholds, iterations_for, kernel_rng,
)
from privcd.algorithms.kernel_clock import launch
from privcd.algorithms.private_smoothness import private_smoothness, smoothness_mechanism, split_budget
from privcd.kernels.dispatch import loss_variant
from privcd.kernels.dp_cd import ORDER_CYCLIC, ORDER_PERMUTATION, ORDER_UNIFORM, dp_cd, step_variant
from privcd.kernels.dp_cd_many import dp_cd_many, storage_variant
from privcd.kernels.layout import column_arrays, objective_codes
from privcd.privacy.grid_gaussian import grid_noise, grid_spacings
from privcd.privacy.joint import JointRelease
from privcd.privacy.mechanisms import check_accountant
from privcd.randomness import ReleaseSeed
from privcd.validation import check_choice, check_number, check_positive_int

NAME = "dp-cd"
DISPLAY = "DP-CD"  # its name in figures and tables
OPTIONS = {"inner_iterations": None, "accountant": "exact", "checkpoints": None, "smoothness": "public",
           "smoothness_budget": 0.1, "coordinate_order": "uniform"}
JOINT_RELEASE = True  # the optimisation's Gaussian releases (DP-CD-P's constants are its own Laplace release)
NOISE_KEY = ("noise_multiplier", 1)  # plan.kernel entry the noise is proportional to (privcd.audit's mutants)
TUNING_ACCOUNTANT = "exact"  # training is exactly a Gaussian mechanism
ESTIMATOR_CLIP = "worst-case"  # the estimators clip at the loss's gradient bound times the row bound
THEORY_PASSES = True  # the estimators' default passes: DP-CD's convex rate (privcd.estimators.defaults)
SMOOTHNESS_FROM_PROBLEM = {"smoothness": "public"}  # DP-CD-P ("private") estimates its own M_j
SMOOTHNESS = ("public", "private")
SHARED_DRAWS = ("step", "clip")  # hyperparameters the random draws do not depend on
COORDINATE_ORDERS = {"uniform": ORDER_UNIFORM, "permutation": ORDER_PERMUTATION, "cyclic": ORDER_CYCLIC}


def coordinate_order_code(options):
    """The kernel's ``ORDER_*`` code of the option ``coordinate_order`` (validated)."""
    return COORDINATE_ORDERS[check_choice("coordinate_order", options["coordinate_order"], list(COORDINATE_ORDERS))]


def check_options(options):
    """The checks of the options that need no data (:func:`privcd.fit` and the workflow's config
    reader run them before any plan): ``ValueError`` naming a bad value."""
    coordinate_order_code(options)
    check_accountant(options["accountant"])
    check_checkpoints(options)
    if options["inner_iterations"] is not None:
        check_positive_int("inner_iterations", options["inner_iterations"])
    check_choice("smoothness", options["smoothness"], SMOOTHNESS)
    check_number("smoothness_budget", options["smoothness_budget"], low=0.0, high=1.0)


def iterations_per_pass(problem, options):
    """p coordinate updates make one pass."""
    return float(problem.n_features)


def iteration_count(passes, per_pass, inner_iterations):
    """``(T, K)``: iterations for ``passes`` rounded up to a multiple of K, and K (0: no averaging)."""
    n_iterations = iterations_for(passes, per_pass)
    if inner_iterations is None:
        return n_iterations, 0
    inner = check_positive_int("inner_iterations", inner_iterations)
    return math.ceil(n_iterations / inner) * inner, inner


def calibrate_releases(n_iterations, *, epsilon, delta, accountant, store=None):
    """Noise multiplier z of ``n_iterations`` composed Gaussian releases for (epsilon, delta)."""
    return privacy.calibrate(privacy.GaussianComposition(n_iterations), epsilon=epsilon, delta=delta,
                             accountant=accountant, store=store)


def coordinate_parameters(M, step, clip, noise_multiplier, n_samples):
    """``(gamma_j, C_j, sigma_j)`` from the smoothness constants: step sizes, clipping thresholds and
    the noise standard deviations ``sigma_j = z 2 C_j / n`` (zero when ``z = 0``: no privacy)."""
    thresholds = coordinate_thresholds(M, clip)
    noise_std = np.zeros_like(M)
    if noise_multiplier > 0:
        noise_std = noise_multiplier * 2.0 * thresholds / n_samples
    return coordinate_step_sizes(M, step), thresholds, noise_std


def plan(problem, settings, options):
    """Calibrate the noise multiplier and record the kernel's settings, scalars only
    (:func:`kernel_parameters` builds the arrays when the run starts); see the module docstring."""
    per_pass = iterations_per_pass(problem, options)
    n_iterations, inner = iteration_count(settings.passes, per_pass, options["inner_iterations"])
    smoothness = check_choice("smoothness", options["smoothness"], SMOOTHNESS)
    share = check_number("smoothness_budget", options["smoothness_budget"], low=0.0, high=1.0)
    epsilon = settings.epsilon
    if smoothness == "private":
        smoothness_epsilon, epsilon = split_budget(settings.epsilon, share)
    calibration = calibrate_releases(n_iterations, epsilon=epsilon, delta=settings.delta,
                                     accountant=options["accountant"], store=settings.calibrations)
    kernel = dict(step=settings.step, clip=settings.clip, noise_multiplier=calibration.noise_multiplier, inner=inner,
                  order=coordinate_order_code(options))
    info = {}
    if smoothness == "private":
        mechanism = smoothness_mechanism(problem, smoothness_epsilon)
        kernel["smoothness"] = mechanism
        if isinstance(settings.calibrations, JointRelease):  # one release of the constants for all the runs
            kernel["joint"] = settings.calibrations
        info = {"smoothness_epsilon": smoothness_epsilon, "optimisation_epsilon": calibration.epsilon,
                "smoothness_bounds": mechanism.bounds, "laplace_scale": mechanism.scale}
        calibration = dataclasses.replace(calibration, epsilon=smoothness_epsilon + calibration.epsilon)
    return Plan(
        n_iterations=n_iterations,
        iterations_per_pass=per_pass,
        checkpoints=checkpoints_for(options, settings.passes, n_iterations),
        calibration=calibration,
        kernel=kernel,
        info=info,
    )


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_cd.dp_cd` kernel from w = 0.

    A private release (``seed`` a :class:`~privcd.randomness.ReleaseSeed`) adds discrete Gaussian
    noise on a grid instead of floating-point normals (:func:`release_noise`). Returns
    ``(w, snapshots, facts)``: ``facts`` holds the thresholds and noise scales, DP-CD-P's private
    constants (see :func:`kernel_parameters`); a release's ``noise_std`` is ``h_j s``, with its
    ``grid_spacing`` ``h_j`` and ``grid_noise`` (K, S, s and the discrete accounting's epsilon).
    """
    step_sizes, thresholds, noise_std, facts = kernel_parameters(problem, plan, seed)
    sigma_units = 0
    if isinstance(seed, ReleaseSeed) and plan.kernel["noise_multiplier"] > 0:
        noise_std, noise = release_noise(problem, plan, thresholds)
        sigma_units = noise.sigma_units
        facts.update(noise_std=noise_std * sigma_units, grid_spacing=noise_std, grid_noise=dataclasses.asdict(noise))
    w, snapshots = launch(dp_cd, column_arrays(problem), problem.y, objective_codes(problem),
                         (step_sizes, thresholds, noise_std), plan.n_iterations, plan.kernel["inner"],
                         plan.checkpoints, kernel_rng(seed), np.zeros(problem.n_features), plan.kernel["order"],
                         sigma_units,  # get_num_threads also starts numba's threading layer, which threads need
                         *step_variant(problem.is_sparse, problem.n_samples, numba.get_num_threads()),
                         *loss_variant(problem.loss.code))
    return w, snapshots, facts


def release_noise(problem, plan, thresholds, block=1):
    """``(h, noise)``: a release's grid spacings ``h_j = fl(fl(2 C_j / n) / K)`` and its
    :class:`~privcd.privacy.grid_gaussian.GridNoise`, whose discrete accounting of the plan's
    releases (all the runs of a joint release) is within the optimisation's calibrated epsilon
    (:mod:`privcd.privacy.grid_gaussian`).

    ``block = tau`` coordinates per step, each with multiplier ``z sqrt(tau)`` (DP-SkGD's block
    sketches, :func:`privcd.algorithms.dp_skgd.block_release_noise`): the T steps are ``T tau``
    such releases, together the T Gaussians of multiplier z the plan is calibrated for."""
    calibration = plan.calibration
    noise = grid_noise(plan.kernel["noise_multiplier"] * math.sqrt(block), n_terms=problem.n_samples,
                       steps=calibration.mechanism.steps * block,
                       epsilon=plan.info.get("optimisation_epsilon", calibration.epsilon), delta=calibration.delta)
    return grid_spacings(thresholds, problem.n_samples, noise.grid_ratio), noise


def batch_key(plan):
    """What runs of one seed must share to share their draws: iterations, checkpoints, averaging,
    coordinate order."""
    return plan.n_iterations, plan.checkpoints.tobytes(), plan.kernel["inner"], plan.kernel["order"]


def group_size(problem, plan):
    """Runs a :func:`run_many` call may hold: :data:`~privcd.algorithms.base.MAX_GROUP_BYTES` of
    iterates, snapshots, coordinate parameters and residuals; 1 with averaging (run alone)."""
    if plan.kernel["inner"]:
        return 1
    per_run = 8 * (problem.n_features * (len(plan.checkpoints) + 4) + problem.n_samples)
    return max(1, MAX_GROUP_BYTES // per_run)


def run_many(problem, plans, seed):
    """``[run(problem, plan, seed) for plan in plans]`` for plans without averaging and with one
    :func:`batch_key`, the same bits, in one :func:`privcd.kernels.dp_cd_many.dp_cd_many` call
    (a private release: one :func:`run` after the other, each with its grid noise)."""
    first = plans[0]
    if isinstance(seed, ReleaseSeed) and first.kernel["noise_multiplier"] > 0:
        return [run(problem, plan, seed) for plan in plans]
    parameters = [kernel_parameters(problem, plan, seed) for plan in plans]
    step_sizes, thresholds, noise_std = (np.stack([entry[i] for entry in parameters], axis=1) for i in range(3))
    W, snapshots = launch(dp_cd_many, *column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code,
                              problem.lam, step_sizes, thresholds, noise_std, first.n_iterations, first.checkpoints,
                              kernel_rng(seed), np.zeros((len(plans), problem.n_features)), first.kernel["order"],
                              *storage_variant(problem.is_sparse), *loss_variant(problem.loss.code))
    return [(w, snapshot, entry[3]) for w, snapshot, entry in zip(W, snapshots, parameters)]


def kernel_parameters(problem, plan, seed):
    """``(gamma_j, C_j, sigma_j, facts)`` of the run with this seed, built when the run starts (a
    plan holds the scalars they come from, so a chunk's thousands of plans stay small on a wide X).

    From the problem's ``M_j`` (public smoothness) or from the private ``M_j`` drawn from ``seed``
    (DP-CD-P); ``facts = {"thresholds", "noise_std"}`` for the Run's ``info``, with ``"M_private"``
    for DP-CD-P.
    """
    k = plan.kernel
    if "joint" in k:
        M = k["joint"].shared_smoothness(k["smoothness"], lambda: private_smoothness(k["smoothness"], seed))
    elif "smoothness" in k:
        M = private_smoothness(k["smoothness"], seed)
    else:
        M = problem.M
    step_sizes, thresholds, noise_std = coordinate_parameters(M, k["step"], k["clip"], k["noise_multiplier"],
                                                              problem.n_samples)
    facts = {"thresholds": thresholds, "noise_std": noise_std}
    if "smoothness" in k:
        facts["M_private"] = M
    return step_sizes, thresholds, noise_std, facts


def estimator_options(n_samples, row_norm):
    """The options privcd's estimators run it with (:mod:`privcd.estimators.base`): DP-CD-P, its
    constants estimated privately within the public bounds (dp-cd Section 5.2)."""
    return {"smoothness": "private"}
