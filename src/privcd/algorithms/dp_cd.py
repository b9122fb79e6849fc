"""DP-CD: differentially private proximal coordinate descent (dp-cd Algorithm 1).

Step sizes ``gamma_j = step / M_j`` (dp-cd Section 6), clipping thresholds
``C_j = sqrt(M_j / tr(M)) * clip`` (Section 5.1). Each of the ``T K`` iterations releases one
clipped coordinate gradient ``(1/n) sum_i clip(grad_j l, C_j)`` whose replace-one sensitivity is
``2 C_j / n``; its Gaussian noise has standard deviation ``sigma_j = z * 2 C_j / n`` with one
noise multiplier z for all coordinates, calibrated numerically for ``T K`` composed Gaussian
releases (Theorem 3.1 and Appendix B, tighter numerical RDP as in Remark 3.2; ``"exact"`` uses
that ``T K`` Gaussians of multiplier z are exactly one Gaussian of multiplier ``z / sqrt(TK)``).
One pass is p iterations.

Options
-------
inner_iterations : int or None
    K of Algorithm 1: average the iterates every K steps; ``None`` (default) returns the last
    iterate. The iteration count is rounded up to a multiple of K.
accountant : {"rdp", "exact", "pld"}
    ``"rdp"`` (default, the paper's choice), ``"exact"`` or ``"pld"``.
checkpoints : int or None
    Number of evenly spaced checkpoints in the history (default: one per pass).
"""
import math

import numpy as np

from privcd import privacy
from privcd.algorithms.base import (
    Plan, checkpoint_schedule, coordinate_step_sizes, coordinate_thresholds,
    default_checkpoint_count, iterations_for,
)
from privcd.kernels.dp_cd import dp_cd
from privcd.kernels.layout import column_arrays
from privcd.validation import check_positive_int

NAME = "dp-cd"
OPTIONS = {"inner_iterations": None, "accountant": "rdp", "checkpoints": None}


def iterations_per_pass(problem, options):
    """p coordinate updates make one pass."""
    return float(problem.n_features)


def plan(problem, settings, options):
    """Calibrate sigma_j and build the kernel arguments; see the module docstring."""
    per_pass = iterations_per_pass(problem, options)
    n_iterations = iterations_for(settings.passes, per_pass)
    inner = options["inner_iterations"]
    if inner is not None:
        inner = check_positive_int("inner_iterations", inner)
        n_iterations = math.ceil(n_iterations / inner) * inner
    M = problem.M
    thresholds = coordinate_thresholds(M, settings.clip)
    calibration = privacy.calibrate(
        lambda z: privacy.gaussian_composition_event(z, n_iterations),
        epsilon=settings.epsilon, delta=settings.delta, accountant=options["accountant"])
    noise_std = np.zeros_like(M)
    if settings.private:
        noise_std = calibration.noise_multiplier * 2.0 * thresholds / problem.n_samples
    count = options["checkpoints"] or default_checkpoint_count(settings.passes, n_iterations)
    return Plan(
        n_iterations=n_iterations,
        iterations_per_pass=per_pass,
        checkpoints=checkpoint_schedule(n_iterations, count),
        calibration=calibration,
        kernel=dict(step_sizes=coordinate_step_sizes(M, settings.step), thresholds=thresholds,
                    noise_std=noise_std, inner=inner or 0),
        info={"thresholds": thresholds, "noise_std": noise_std},
    )


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_cd.dp_cd` kernel from w = 0."""
    return dp_cd(*column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code,
                 problem.lam, plan.kernel["step_sizes"], plan.kernel["thresholds"],
                 plan.kernel["noise_std"], plan.n_iterations, plan.kernel["inner"], plan.checkpoints,
                 seed, np.zeros(problem.n_features))
