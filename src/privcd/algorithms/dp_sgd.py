"""DP-SGD: clipped, sampled, proximal stochastic gradient descent (Abadi et al., 2016).

As in dp-cd Appendix G.1 and dp-gcd Section 5: per-sample gradients clipped to L2 norm ``clip``,
constant step size ``step / beta`` with beta the global smoothness constant of f, batch size 1 by
default, and a proximal step for the penalty. The hinge loss has no beta: its subgradient (0 at
the kink) is clipped like a gradient and the step size is ``step`` itself, the learning rate eta
of dp-scd's SGD baseline (dp-scd Section 2.2, tuned over 1e-8 .. 1e4 in Section 5). The noise on the summed batch gradient has standard
deviation ``z * Delta`` with Delta the replace-one sensitivity of that sum for the sampling
scheme, and z calibrated numerically for the sampled Gaussian mechanism composed over all steps:
by default with privacy loss distributions of the mechanism's dominating pair, the tightest
valid accounting (:mod:`privcd.privacy.replace_one_pld` for sampling without replacement,
dp-accounting's for Poisson sampling); the papers' RDP for sampling without replacement (Wang,
Balle and Kasiviswanathan 2019, Theorem 27) on request, 1.1-2.2x the noise. One pass is
n / batch_size steps.

Options
-------
batch_size : int
    b, between 1 and n (default 1).
accountant : {"pld", "rdp", "pld-two-orders"}
    ``"pld"`` (default, the tightest sound one), ``"rdp"`` (the papers' choice; sampling without
    replacement only) or ``"pld-two-orders"`` (sampling without replacement only, for comparison:
    no theorem covers it, :mod:`privcd.privacy.replace_one_pld`).
sampling : {"without-replacement", "poisson"}
    How batches are drawn (default ``"without-replacement"``, fixed-size batches as in the papers).
checkpoints : int or None
    Number of evenly spaced checkpoints in the history (default: one per pass).

A private release (no seed) sums each batch on a grid and adds exact discrete Gaussian integers
(:func:`release_noise`, :mod:`privcd.privacy.grid_sum`), accounted by the RDP of Wang, Balle and
Kasiviswanathan within the calibrated epsilon: more noise than the PLD of an experiment, none of
it floating point. Poisson sampling is refused there.

Runs that differ only in ``step`` and ``clip`` (``SHARED_DRAWS``) draw the same batches and normals
for the same seed; :func:`run_many` makes them in one call of
:func:`~privcd.kernels.dp_sgd_many.dp_sgd_many` (:func:`privcd.fit_many`).
"""
import dataclasses
import math

import numba
import numpy as np

from privcd import privacy
from privcd.algorithms.base import (
    MAX_GROUP_BYTES, Plan, check_checkpoints, checkpoints_for, iterations_for, kernel_key, kernel_rng,
)
from privcd.algorithms.kernel_clock import launch
from privcd.kernels.dp_sgd import SAMPLE_POISSON, SAMPLE_WITHOUT_REPLACEMENT, dp_sgd
from privcd.kernels.dp_sgd_grid import dp_sgd_on_grid
from privcd.kernels.dp_cd_many import storage_variant
from privcd.kernels.dp_sgd_many import dp_sgd_many
from privcd.kernels.layout import row_arrays
from privcd.kernels.streams import check_span
from privcd.randomness import ReleaseSeed
from privcd.validation import check_choice, check_positive_int

NAME = "dp-sgd"
DISPLAY = "DP-SGD"  # its name in figures and tables
OPTIONS = {"batch_size": 1, "accountant": "pld", "sampling": "without-replacement", "checkpoints": None}
JOINT_RELEASE = True
NOISE_KEY = ("noise_std", 1)  # plan.kernel entry the noise is proportional to
TUNING_ACCOUNTANT = "rdp"  # sampled Gaussians (without replacement): Wang-Balle-Kasiviswanathan's RDP
ESTIMATOR_CLIP = "start"  # the estimators clip at the largest gradient norm at w = 0 (LossSpec.start_gradient_bound)
THEORY_PASSES = True  # the estimators' default passes: DP-CD's convex rate
SMOOTHNESS_FROM_PROBLEM = {}  # beta: the step size step / beta (for a smooth loss)
SAMPLING_CODES = {"without-replacement": SAMPLE_WITHOUT_REPLACEMENT, "poisson": SAMPLE_POISSON}
ACCOUNTANTS = ("pld", "rdp", "pld-two-orders")
SHARED_DRAWS = ("step", "clip")  # hyperparameters the random draws do not depend on


def check_options(options):
    """The checks of the options that need no data (as :func:`privcd.algorithms.dp_cd.check_options`)."""
    check_positive_int("batch_size", options["batch_size"])
    check_choice("accountant", options["accountant"], ACCOUNTANTS)
    check_choice("sampling", options["sampling"], sorted(SAMPLING_CODES))
    check_checkpoints(options)


def iterations_per_pass(problem, options):
    """n / b steps make one pass."""
    return problem.n_samples / _batch_size(problem, options)


def plan(problem, settings, options):
    """Calibrate the noise and build the kernel arguments; see the module docstring."""
    batch_size = _batch_size(problem, options)
    accountant = check_choice("accountant", options["accountant"], ACCOUNTANTS)
    sampling = check_choice("sampling", options["sampling"], sorted(SAMPLING_CODES))
    per_pass = problem.n_samples / batch_size
    n_iterations = iterations_for(settings.passes, per_pass)
    calibration = privacy.calibrate_subsampled(
        n_iterations, batch_size=batch_size, n=problem.n_samples, sampling=sampling,
        epsilon=settings.epsilon, delta=settings.delta, accountant=accountant, store=settings.calibrations)
    noise_std = 0.0
    if settings.private:
        noise_std = calibration.noise_multiplier * privacy.subsampled_gaussian_sensitivity(
            settings.clip, sampling)
    return Plan(
        n_iterations=n_iterations,
        iterations_per_pass=per_pass,
        checkpoints=checkpoints_for(options, settings.passes, n_iterations),
        calibration=calibration,
        kernel=dict(step=settings.step / _step_unit(problem), clip=settings.clip, noise_std=noise_std,
                    batch_size=batch_size, sampling=SAMPLING_CODES[sampling]),
        info={"step_size": settings.step / _step_unit(problem), "noise_std": noise_std, "sampling": sampling},
    )


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_sgd.dp_sgd` kernel from w = 0 on the streams :func:`kernel_key`
    ``(seed, 0)`` (batches) and ``(seed, 1)`` (noise); a private release (``seed`` a
    :class:`~privcd.randomness.ReleaseSeed`) runs :func:`privcd.kernels.dp_sgd_grid.dp_sgd_on_grid`
    with :func:`release_noise` instead and returns its ``grid_noise`` and ``noise_std`` too."""
    k = plan.kernel
    check_span("n_samples", problem.n_samples)
    if isinstance(seed, ReleaseSeed) and k["noise_std"] > 0:
        noise = release_noise(problem, plan)
        spacing = privacy.subsampled_gaussian_sensitivity(k["clip"], plan.info["sampling"]) / noise.grid_ratio
        w, snapshots = launch(dp_sgd_on_grid, *row_arrays(problem), problem.y, problem.row_norms, problem.loss.code,
                              problem.penalty.code, problem.lam, k["step"], k["clip"], spacing, noise.sigma_units,
                              k["batch_size"], plan.n_iterations, plan.checkpoints, kernel_key(seed, 0),
                              kernel_rng(seed), np.zeros(problem.n_features))
        return w, snapshots, {"grid_noise": dataclasses.asdict(noise), "grid_spacing": spacing,
                              "noise_std": spacing * noise.sigma_units}
    numba.get_num_threads()  # starts numba's threading layer, which the kernel's normal draws need
    return launch(dp_sgd, *row_arrays(problem), problem.y, problem.row_norms, problem.loss.code,
                  problem.penalty.code, problem.lam, k["step"], k["clip"], k["noise_std"],
                  k["batch_size"], k["sampling"], plan.n_iterations, plan.checkpoints, kernel_key(seed, 0),
                  kernel_key(seed, 1), np.zeros(problem.n_features))


def release_noise(problem, plan):
    """The :class:`~privcd.privacy.grid_sum.GridSumNoise` of a private release: the batch sums on a grid
    with discrete Gaussian noise, accounted by RDP within the run's calibrated epsilon
    (:mod:`privcd.privacy.grid_sum`). Refused, naming the alternatives, for Poisson sampling, which
    that argument does not cover."""
    if plan.info["sampling"] != "without-replacement":
        raise ValueError(
            f"a private release (no seed) of DP-SGD with sampling={plan.info['sampling']!r} would add floating-point "
            "Gaussian noise, which is not private as IEEE floats (Mironov 2012), and privcd has no sound accounting of "
            "its grid noise; use sampling='without-replacement' (the default), or give a seed to run an experiment")
    return privacy.sampled_grid_noise(plan.n_iterations, batch_size=plan.kernel["batch_size"], n=problem.n_samples,
                                      n_features=problem.n_features, epsilon=plan.calibration.epsilon,
                                      delta=plan.calibration.delta)


def batch_key(plan):
    """What runs of one seed must share to share their draws: steps, checkpoints, batch size, sampling."""
    k = plan.kernel
    return plan.n_iterations, plan.checkpoints.tobytes(), k["batch_size"], k["sampling"]


def group_size(problem, plan):
    """Runs a :func:`run_many` call may hold: :data:`~privcd.algorithms.base.MAX_GROUP_BYTES` of
    iterates and snapshots, and on dense X a gradient per run (the sparse kernel keeps its
    gradients on the support of a block's records only)."""
    vectors_per_run = len(plan.checkpoints) + (1 if problem.is_sparse else 2)
    return max(1, MAX_GROUP_BYTES // (8 * problem.n_features * vectors_per_run))


def run_many(problem, plans, seed):
    """``[run(problem, plan, seed) for plan in plans]`` for plans with one :func:`batch_key`, the
    same bits, in one :func:`privcd.kernels.dp_sgd_many.dp_sgd_many` call."""
    check_span("n_samples", problem.n_samples)
    first = plans[0]
    k = first.kernel
    W, snapshots = launch(
        dp_sgd_many, *row_arrays(problem), problem.y, problem.row_norms, problem.loss.code, problem.penalty.code,
        problem.lam,
        np.array([plan.kernel["step"] for plan in plans]), np.array([plan.kernel["clip"] for plan in plans]),
        np.array([plan.kernel["noise_std"] for plan in plans]), k["batch_size"], k["sampling"], first.n_iterations,
        first.checkpoints, kernel_key(seed, 0), kernel_key(seed, 1), np.zeros((len(plans), problem.n_features)),
        *storage_variant(problem.is_sparse))
    return list(zip(W, snapshots))


def _step_unit(problem):
    """beta for a smooth loss; 1 for a non-smooth one (hinge), whose step is the raw learning rate."""
    return problem.beta if np.isfinite(problem.loss.curvature) else 1.0


def _batch_size(problem, options):
    batch_size = check_positive_int("batch_size", options["batch_size"])
    if batch_size > problem.n_samples:
        raise ValueError(f"batch_size={batch_size} exceeds the number of records n={problem.n_samples}")
    return batch_size


def estimator_options(n_samples, row_norm):
    """The options privcd's estimators run it with (:mod:`privcd.estimators.base`): batches of
    ``round(sqrt(n))`` records (a common rule of thumb, not a theorem), at least 1."""
    return {"batch_size": max(1, round(math.sqrt(n_samples)))}
