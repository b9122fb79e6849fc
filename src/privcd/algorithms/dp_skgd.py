"""DP-SkGD: differentially private sketched (random block) coordinate descent (dp-skgd Algorithm 1).

Each iteration draws a block S from a sketch distribution with inclusion probabilities
``p_j = P(j in S)``, releases the block's clipped gradient entries with Gaussian noise and steps
``w <- w - Gamma C (g + eta)`` on S, with ``Gamma = step P M^-1`` (Theorems 8-9 scaled by
``step``) and ``C = P^-1`` on S (Definition 6): coordinate j of S moves by ``step / M_j`` times
its noisy gradient entry, as in DP-CD, and separable penalties take the coordinate-wise prox (the
paper treats smooth f only). Clipping thresholds are DP-CD's ``C_j = sqrt(M_j / tr M) * clip``
(dp-cd Section 5.1).

Step sizes: Theorems 8-9 assume the global inequality
``f(w) <= f(v) + <grad f(v), w - v> + ||w - v||_M^2 / 2`` (dp-skgd Assumption 4). The coordinate-wise
constants :attr:`Problem.M` give it along single coordinates only; for blocks of several
coordinates it holds for ``c M`` with ``c = lambda_max(M^-1/2 grad^2 f M^-1/2) <= |S|``, so blocks
of correlated features need ``step <= 1 / c`` (the full sketch on identical columns needs
``step <= 1 / p``).

Privacy (Theorem 7, calibrated numerically): replacing one record moves each clipped entry
``(1/n) sum_i clip(grad_j l_i, C_j)`` by at most ``Delta_j = 2 C_j / n``, so the release of block
S has L2 sensitivity ``Delta_S = sqrt(sum_{j in S} Delta_j^2)``. Two noise models (option
``noise``), both exactly a Gaussian mechanism of noise multiplier z per iteration whatever S:

* ``"isotropic"`` (Theorem 7): ``eta ~ N(0, (z Delta_S)^2 I)`` on S;
* ``"coordinate"``: ``eta_j ~ N(0, (z sqrt(|S|) Delta_j)^2)``, the Gaussian mechanism of multiplier
  z on the release rescaled by the data-independent ``diag(1 / Delta_j)`` (whose L2 sensitivity is
  ``sqrt(|S|)``). Its noise term ``E ||C eta||^2_{P M^-1}`` of Lemma 17 is never larger than the
  isotropic one (Cauchy-Schwarz, equal when ``C_j^2 / M_j`` is constant on S, which DP-CD's
  thresholds make it), so it is the better choice; ``"isotropic"`` stays the default as the
  paper's.

For single coordinates both are DP-CD's ``sigma_j = z 2 C_j / n``. The T iterations are T
adaptively composed Gaussian mechanisms of multiplier z (an empty block of the importance sketch
releases nothing: T is an upper bound), calibrated with :func:`privcd.privacy.calibrate` exactly
as DP-CD with T steps. No amplification is claimed: S samples coordinates, not records, so every
record enters every release. One pass is ``p / E|S|`` iterations (p coordinate updates in
expectation).

Options
-------
sketch : {"uniform", "tau-nice", "importance", "full"}
    ``"uniform"`` (default): one coordinate uniformly at random, exactly DP-CD (same seed, same
    bits). ``"tau-nice"``: tau distinct coordinates uniformly at random (``p_j = tau / p``).
    ``"importance"``: each coordinate independently with probability ``p_j`` (S may be empty).
    ``"full"``: all coordinates (full-batch gradient descent with coordinate-wise steps).
tau : int or None
    Block size of ``"tau-nice"``, and expected block size for ``probabilities="smoothness"``;
    1 <= tau <= p.
probabilities : array of shape (p,), "smoothness" or None
    ``"importance"`` only: the ``p_j`` in (0, 1], or ``"smoothness"`` for
    ``p_j = min(1, c M_j)`` with c such that ``sum_j p_j = tau`` (water-filling: coordinates
    whose ``c M_j`` would exceed 1 are capped at 1 and c is raised for the others); features with
    ``M_j = 0`` (all-zero columns, which never move) get ``p_j = 0``.
noise : {"isotropic", "coordinate"}
    The noise model above (default ``"isotropic"``).
inner_iterations : int or None
    K of Algorithm 1: average the iterates every K steps; ``None`` (default) returns the last
    iterate. The iteration count is rounded up to a multiple of K.
accountant : {"exact", "rdp", "pld"}
    As for DP-CD (default ``"exact"``, the tightest).
checkpoints : int or None
    Number of evenly spaced checkpoints in the history (default: one per pass).
coordinate_order : {"uniform", "permutation", "cyclic"}
    The uniform sketch only (one coordinate an iteration, DP-CD): the order of its coordinates, as
    DP-CD's option of that name (default ``"uniform"``, the sketch itself); the accounting is the
    same (Theorem 7 composes the T releases whichever coordinate each takes). The other sketches
    draw their blocks from their distribution and accept only ``"uniform"``.
"""
import dataclasses
from dataclasses import dataclass

import numba
import numpy as np

from privcd.algorithms.base import Plan, check_checkpoints, checkpoints_for, kernel_rng
from privcd.privacy.mechanisms import check_accountant
from privcd.algorithms.kernel_clock import launch
from privcd.algorithms.dp_cd import (calibrate_releases, coordinate_order_code, coordinate_parameters, iteration_count,
                                    release_noise)
from privcd.kernels.dispatch import loss_variant
from privcd.kernels.dp_cd import ORDER_UNIFORM, dp_cd, step_variant
from privcd.kernels.dp_skgd import SKETCH_FULL, SKETCH_IMPORTANCE, SKETCH_TAU_NICE, SKETCH_UNIFORM, dp_skgd
from privcd.kernels.layout import column_arrays, objective_codes
from privcd.randomness import ReleaseSeed
from privcd.validation import check_choice, check_positive_int

NAME = "dp-skgd"
DISPLAY = "DP-SkGD"  # its name in figures and tables
OPTIONS = {"sketch": "uniform", "tau": None, "probabilities": None, "noise": "isotropic",
           "inner_iterations": None, "accountant": "exact", "checkpoints": None, "coordinate_order": "uniform"}
JOINT_RELEASE = True
NOISE_KEY = ("noise_multiplier", 1)  # plan.kernel entry the noise is proportional to
TUNING_ACCOUNTANT = "exact"  # training is exactly a Gaussian mechanism
ESTIMATOR_CLIP = "worst-case"  # the estimators clip at the loss's gradient bound times the row bound
THEORY_PASSES = True  # the estimators' default passes: DP-CD's convex rate
SMOOTHNESS_FROM_PROBLEM = {}  # M_j: step sizes, clipping thresholds, importance sketch probabilities
SKETCHES = {"uniform": SKETCH_UNIFORM, "tau-nice": SKETCH_TAU_NICE, "importance": SKETCH_IMPORTANCE,
            "full": SKETCH_FULL}
# Option sets that run other kernels than the default's (python -m privcd.warmup compiles each).
WARMUP_OPTIONS = ({}, {"sketch": "tau-nice", "tau": 2, "noise": "coordinate"},
                  {"sketch": "importance", "probabilities": "smoothness", "tau": 1}, {"sketch": "full", "noise": "coordinate"})
NOISE_MODELS = ("isotropic", "coordinate")


@dataclass(frozen=True)
class Sketch:
    """A validated sketch distribution.

    Attributes
    ----------
    name : str
    code : int
        The kernel's ``SKETCH_*`` code.
    tau : int
        Block size of ``"tau-nice"`` (0 otherwise).
    probabilities : ndarray of shape (p,)
        Inclusion probabilities ``p_j = P(j in S)`` (the diagonal of P).
    expected_size : float
        ``E|S| = sum_j p_j``.
    """

    name: str
    code: int
    tau: int
    probabilities: np.ndarray
    expected_size: float


def iterations_per_pass(problem, options):
    """``p / E|S|`` iterations make one pass (p coordinate updates in expectation)."""
    return problem.n_features / sketch_of(problem, options).expected_size


def check_options(options):
    """The checks of the options that need no data (as :func:`privcd.algorithms.dp_cd.check_options`):
    those of ``tau`` and ``probabilities`` that need p are left to the plan."""
    check_choice("sketch", options["sketch"], list(SKETCHES))
    if options["tau"] is not None:
        check_positive_int("tau", options["tau"])
    check_choice("noise", options["noise"], NOISE_MODELS)
    check_accountant(options["accountant"])
    coordinate_order_code(options)
    if options["inner_iterations"] is not None:
        check_positive_int("inner_iterations", options["inner_iterations"])
    check_checkpoints(options)


def sketch_of(problem, options):
    """Validate ``sketch``, ``tau`` and ``probabilities`` and return the :class:`Sketch`."""
    name = check_choice("sketch", options["sketch"], list(SKETCHES))
    tau, probabilities = options["tau"], options["probabilities"]
    p = problem.n_features
    uses_tau = name == "tau-nice" or (name == "importance" and _is_smoothness(probabilities))
    if tau is not None and not uses_tau:
        raise ValueError(f"tau={tau!r} is not used with sketch={name!r}; tau is the block size of "
                         "sketch='tau-nice' and the expected block size of sketch='importance' with "
                         "probabilities='smoothness'")
    if uses_tau:
        tau = _block_size(tau, p)
    if probabilities is not None and name != "importance":
        raise ValueError(f"probabilities= is only used with sketch='importance', not sketch={name!r}")
    if name == "uniform":
        return Sketch(name, SKETCH_UNIFORM, 0, np.full(p, 1.0 / p), 1.0)
    if name == "tau-nice":
        return Sketch(name, SKETCH_TAU_NICE, tau, np.full(p, tau / p), float(tau))
    if name == "full":
        return Sketch(name, SKETCH_FULL, 0, np.ones(p), float(p))
    if probabilities is None:
        raise ValueError("sketch='importance' needs probabilities=: an array of p inclusion "
                         "probabilities in (0, 1], or 'smoothness' with tau=")
    if _is_smoothness(probabilities):
        probabilities = smoothness_probabilities(problem.M, tau)
    else:
        probabilities = _probability_array(probabilities, p)
    return Sketch(name, SKETCH_IMPORTANCE, 0, probabilities, float(probabilities.sum()))


def smoothness_probabilities(M, tau):
    """``p_j = min(1, c M_j)`` with ``sum_j p_j = tau`` (water-filling over the largest M_j).

    For k = 0, 1, ... cap the k largest M_j at 1 and set ``c = (tau - k) / sum(other M_j)``; stop at
    the first k for which the largest uncapped ``c M_j`` is at most 1. ``M_j = 0`` gives ``p_j = 0``.
    """
    positive = int(np.count_nonzero(M > 0))
    if positive < tau:
        raise ValueError(f"tau={tau} exceeds the {positive} features with M_j > 0; probabilities "
                         "proportional to M_j cannot have that expected block size")
    order = np.argsort(-M, kind="stable")
    probabilities = np.zeros_like(M)
    for k in range(tau):
        rest = order[k:positive]
        c = (tau - k) / M[rest].sum()
        if c * M[rest[0]] <= 1.0:
            break
    probabilities[order[:k]] = 1.0
    probabilities[rest] = np.minimum(1.0, c * M[rest])
    return probabilities


def plan(problem, settings, options):
    """Validate the sketch, calibrate z and record the kernel's settings (scalars, and the inclusion
    probabilities of the importance sketch; :func:`kernel_arrays` builds the per-coordinate arrays
    when the run starts); see the module docstring."""
    sketch = sketch_of(problem, options)
    noise = check_choice("noise", options["noise"], NOISE_MODELS)
    order = coordinate_order_code(options)
    if order != ORDER_UNIFORM and sketch.code != SKETCH_UNIFORM:
        raise ValueError(f"coordinate_order={options['coordinate_order']!r} applies to sketch='uniform' only "
                         f"(one coordinate an iteration); sketch={sketch.name!r} draws its blocks from its "
                         "distribution: use coordinate_order='uniform'")
    per_pass = problem.n_features / sketch.expected_size
    n_iterations, inner = iteration_count(settings.passes, per_pass, options["inner_iterations"])
    calibration = calibrate_releases(n_iterations, epsilon=settings.epsilon, delta=settings.delta,
                                     accountant=options["accountant"], store=settings.calibrations)
    return Plan(
        n_iterations=n_iterations,
        iterations_per_pass=per_pass,
        checkpoints=checkpoints_for(options, settings.passes, n_iterations),
        calibration=calibration,
        kernel=dict(sketch=sketch.code, tau=sketch.tau,
                    probabilities=sketch.probabilities if sketch.code == SKETCH_IMPORTANCE else np.empty(0),
                    step=settings.step, clip=settings.clip, noise_multiplier=calibration.noise_multiplier,
                    noise=noise, inner=inner, order=order),
        info={"sketch": sketch.name, "expected_block_size": sketch.expected_size, "noise": noise},
    )


def kernel_arrays(problem, plan):
    """The run's per-coordinate arrays ``(step_sizes, thresholds, noise_std, noise_weights)``, built
    when the run starts (the plan holds the scalars they come from, so a chunk's thousands of plans
    stay small): dp-cd's ``gamma_j``, ``C_j`` and ``sigma_j = z 2 C_j / n`` with unit weights, or for
    the isotropic noise of a block sketch ``sigma_j = z 2 / n`` and weights ``C_j^2``, so that the
    noise of block S has ``sigma_S = z (2 / n) sqrt(sum_{k in S} C_k^2)`` on each of its coordinates."""
    k = plan.kernel
    z = k["noise_multiplier"]
    step_sizes, thresholds, noise_std = coordinate_parameters(problem.M, k["step"], k["clip"], z, problem.n_samples)
    noise_weights = np.ones(problem.n_features)
    if z > 0 and k["noise"] == "isotropic" and k["sketch"] != SKETCH_UNIFORM:
        noise_std = np.full(problem.n_features, z * 2.0 / problem.n_samples)
        noise_weights = thresholds**2
    return step_sizes, thresholds, noise_std, noise_weights


def block_release_noise(problem, plan, thresholds):
    """``(h, noise)`` of a private release of a block sketch: grid spacings ``h_j`` and the
    :class:`~privcd.privacy.grid_gaussian.GridNoise` of a discrete Gaussian integer per block entry.

    Under ``noise="coordinate"`` a block of ``tau`` coordinates is ``tau`` independent Gaussian
    releases of multiplier ``z sqrt(tau)`` (each entry's sensitivity ``Delta_j`` over its noise
    ``z sqrt(tau) Delta_j``), so the T iterations are ``T tau`` such releases, together exactly the
    T Gaussians of multiplier z the run is calibrated for. On the grid each is DP-CD's release
    (:mod:`privcd.privacy.grid_gaussian`): ``rint(fl(g_j / h_j)) + Z_j``, ``Z_j ~ N_Z(0, s^2)``
    independent, whose product has the privacy loss of ``T tau`` composed pairs
    ``(N_Z(0, s^2), N_Z(S, s^2))``, and ``s`` grows from ``z sqrt(tau) S`` until their discrete
    accounting is within the calibrated epsilon. The block must have a fixed size (tau-nice, full):
    the importance sketch's varies. The isotropic model's noise, common to a block whose entries
    have different sensitivities, has no such product form; the coordinate model is never noisier
    (module docstring).
    """
    k = plan.kernel
    if k["sketch"] == SKETCH_IMPORTANCE or k["noise"] != "coordinate":
        raise ValueError(
            f"a private release (no seed) of DP-SkGD with sketch={plan.info['sketch']!r} and noise={k['noise']!r} "
            "would add floating-point Gaussian noise, which is not private as IEEE floats (Mironov 2012); "
            "releases of block sketches need a fixed block size and noise='coordinate' (sketch='tau-nice' or "
            "'full'; never more noise than 'isotropic'), or sketch='uniform'; give a seed to run an experiment")
    return release_noise(problem, plan, thresholds, block=round(plan.info["expected_block_size"]))


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_skgd.dp_skgd` kernel from w = 0; the uniform sketch runs
    :func:`privcd.kernels.dp_cd.dp_cd` itself (the same compiled loop, so DP-CD's bits by construction,
    and as a private release DP-CD's grid noise, :func:`privcd.algorithms.dp_cd.release_noise`); a
    private release of a block sketch adds discrete Gaussian integers on a grid
    (:func:`block_release_noise`).

    Returns ``(w, snapshots, facts)``, ``facts`` the arrays of :func:`kernel_arrays` but the step
    sizes and the inclusion probabilities p_j (``E|S| / p`` each but for the importance sketch),
    for the Run's ``info``."""
    k = plan.kernel
    p = problem.n_features
    step_sizes, thresholds, noise_std, noise_weights = kernel_arrays(problem, plan)
    probabilities = (k["probabilities"] if k["sketch"] == SKETCH_IMPORTANCE
                     else np.full(p, plan.info["expected_block_size"] / p))
    facts = {"thresholds": thresholds, "noise_std": noise_std, "noise_weights": noise_weights,
             "probabilities": probabilities}
    if k["sketch"] == SKETCH_UNIFORM:
        sigma_units = 0  # an experiment's normals
        if isinstance(seed, ReleaseSeed) and k["noise_multiplier"] > 0:  # a release: DP-CD's grid noise
            noise_std, noise = release_noise(problem, plan, thresholds)
            sigma_units = noise.sigma_units
            facts.update(noise_std=noise_std * sigma_units, grid_spacing=noise_std,
                         grid_noise=dataclasses.asdict(noise))
        w, snapshots = launch(dp_cd, column_arrays(problem), problem.y, objective_codes(problem),
                             (step_sizes, thresholds, noise_std), plan.n_iterations, k["inner"],
                             plan.checkpoints, kernel_rng(seed), np.zeros(problem.n_features), k["order"],
                             sigma_units,  # get_num_threads also starts numba's threading layer
                             *step_variant(problem.is_sparse, problem.n_samples, numba.get_num_threads()),
                             *loss_variant(problem.loss.code))
    else:
        sigma_units = 0  # an experiment's normals
        if isinstance(seed, ReleaseSeed) and k["noise_multiplier"] > 0:
            noise_std, noise = block_release_noise(problem, plan, thresholds)
            sigma_units = noise.sigma_units
            facts.update(noise_std=noise_std * sigma_units, grid_spacing=noise_std,
                         grid_noise=dataclasses.asdict(noise))
        w, snapshots = launch(dp_skgd, *column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code,
                               problem.lam, k["sketch"], k["tau"], k["probabilities"], step_sizes, thresholds,
                               noise_std, noise_weights, plan.n_iterations, k["inner"], plan.checkpoints,
                               kernel_rng(seed), np.zeros(problem.n_features), sigma_units)
    return w, snapshots, facts


def _is_smoothness(probabilities):
    return isinstance(probabilities, str) and probabilities == "smoothness"


def _block_size(tau, p):
    if tau is None:
        raise ValueError("tau is required (an integer block size between 1 and p) with this sketch")
    tau = check_positive_int("tau", tau)
    if tau > p:
        raise ValueError(f"tau={tau} exceeds the number of features p={p}; expected 1 <= tau <= p")
    return tau


def _probability_array(probabilities, p):
    if isinstance(probabilities, str):
        raise ValueError(f"probabilities={probabilities!r} is not accepted; expected an array of p "
                         "inclusion probabilities in (0, 1] or 'smoothness'")
    try:
        probabilities = np.array(probabilities, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("probabilities must be an array of p numbers in (0, 1] or 'smoothness'") from None
    if probabilities.shape != (p,):
        raise ValueError(f"probabilities has shape {probabilities.shape}; expected ({p},), one "
                         "inclusion probability per feature")
    bad = ~((probabilities > 0) & (probabilities <= 1))
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"probabilities[{j}]={float(probabilities[j])!r} is outside (0, 1]; every inclusion "
                         "probability must lie in (0, 1]")
    return probabilities


def estimator_options(n_samples, row_norm):
    """The options privcd's estimators run it with (:mod:`privcd.estimators.base`): its defaults."""
    return {}
