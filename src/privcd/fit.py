"""``privcd.fit``: run one private algorithm on one problem and evaluate it."""
import math
import warnings

import numpy as np

from privcd.algorithms import get_algorithm
from privcd.algorithms.base import Settings
from privcd.algorithms.kernel_clock import kernel_clock
from privcd.privacy.joint import JointRelease
from privcd.privacy.reuse import CalibrationStore
from privcd.problem import DataDependentConstantsWarning, Problem
from privcd.randomness import RELEASE, resolve_seed
from privcd.run import DivergenceWarning, Run
from privcd.validation import check_number, check_positive


def fit(problem, algorithm, *, epsilon, delta=None, passes, step, clip, seed=None, calibrations=None, **options):
    """Run ``algorithm`` on ``problem`` under (epsilon, delta)-DP (replace-one neighbours).

    Parameters
    ----------
    problem : Problem
    algorithm : str
        A name registered in :data:`privcd.algorithms.ALGORITHMS` (``"dp-cd"``, ``"dp-sgd"``, ...).
    epsilon : float
        Target epsilon, ``> 0``; ``inf`` runs without noise.
    delta : float
        Target delta in (0, 1); may be omitted only when ``epsilon = inf``.
    passes : float
        Passes on the data, ``> 0`` (the papers' x-axis: p iterations of DP-CD, n samples of DP-SGD).
    step : float
        Step-size hyperparameter, ``> 0`` (``gamma_j = step / M_j`` for coordinate methods,
        ``step / beta`` for DP-SGD).
    clip : float
        Clipping hyperparameter, ``> 0``; ``inf`` disables clipping (only without noise).
    seed : None, int or numpy.random.SeedSequence
        ``None`` (default): a private release, its generators seeded by 128 bits of secret OS
        entropy that are not kept (:mod:`privcd.randomness`); the Run holds no value computed from
        the data without noise. An integer in ``[0, 2**32)`` or a ``SeedSequence``: a reproducible
        experiment (same inputs and seed, same bits), not a private release, since whoever knows
        the seed can replay the noise. Runs with one seed share their random draws (whatever their
        step and clip, :func:`privcd.fit_many`): two such runs, set side by side, can cancel each
        other's noise.
    calibrations : privcd.privacy.CalibrationStore or privcd.privacy.JointRelease, optional
        Noise calibrations to reuse: the run's calibration is read from it when it holds it and
        recorded in it otherwise (:mod:`privcd.privacy.reuse`); the numbers are those of a fresh
        calibration either way. A ``JointRelease(k)`` calibrates the run as one of k released
        together (:mod:`privcd.privacy.joint`).
    **options
        Algorithm-specific options (see each algorithm module's ``OPTIONS``).

    Returns
    -------
    Run
        ``run.mode`` is ``"release"`` or ``"experiment"``.
    """
    module, settings, options, plan = prepare(problem, algorithm, epsilon=epsilon, delta=delta, passes=passes,
                                              step=step, clip=clip, calibrations=calibrations, **options)
    return run_planned(problem, module, settings, options, plan, resolve_seed(seed))


def run_planned(problem, module, settings, options, plan, randomness):
    """Run a planned fit (:func:`prepare`) with ``randomness``, ``(mode, seed)`` of
    :func:`privcd.randomness.resolve_seed`, and assemble its :class:`Run`."""
    # run returns (w, snapshots) or (w, snapshots, extra): extra is a dict of run-time facts
    # (e.g. DP-GCD's selected coordinates) merged into Run.info.
    with kernel_clock() as clock:
        w, snapshots, *extra = module.run(problem, plan, randomness[1])
    return assemble(problem, module, settings, options, plan, randomness, w, snapshots,
                    extra[0] if extra else {}, clock.seconds)


def prepare(problem, algorithm, *, epsilon, delta=None, passes, step, clip, calibrations=None, **options):
    """Validate the arguments of :func:`fit` (but the seed) and plan the run:
    ``(module, settings, options, plan)``."""
    if not isinstance(problem, Problem):
        raise ValueError(f"problem must be a privcd.Problem; got {type(problem).__name__}")
    check_scale(problem)
    module = get_algorithm(algorithm)
    settings = _settings(epsilon, delta, passes, step, clip, calibrations)
    unknown = sorted(set(options) - set(module.OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for algorithm {algorithm!r}; "
                         f"accepted options: {sorted(module.OPTIONS)}")
    options = {**module.OPTIONS, **options}
    module.check_options(options)
    warn_data_dependent_constants(problem, module, settings, options)
    return module, settings, options, module.plan(problem, settings, options)


def check_scale(problem):
    """``ValueError`` for an X with nothing to fit or beyond float64's range: ``sum_ij x_ij^2`` is 0
    (X is zero, or its entries are so small, below about 1e-154, that their squares underflow) or
    overflows. Either would make the smoothness constants, steps and thresholds 0, inf or NaN."""
    total = float(problem.column_sq_norms.sum())
    if total == 0.0 or not math.isfinite(total):
        largest = float(abs(problem.X).max())
        raise ValueError(f"X's squared entries sum to {total!r} (largest |x_ij| = {largest!r}): X is zero or its "
                         "scale is beyond float64's range for squares; rescale X (entries between about 1e-150 and "
                         "1e150)")


def warn_data_dependent_constants(problem, module, settings, options):
    """Warn (:class:`~privcd.problem.DataDependentConstantsWarning`) when a private run steps with
    smoothness constants computed from X and not declared public.

    Each algorithm module declares ``SMOOTHNESS_FROM_PROBLEM``: ``None`` when it never uses
    :attr:`Problem.M` or :attr:`Problem.beta`, otherwise the option values under which it does
    (``{}``: always; DP-CD: ``{"smoothness": "public"}``). A non-smooth loss has no such constants.
    """
    condition = module.SMOOTHNESS_FROM_PROBLEM
    if (condition is None or not settings.private or problem.public_constants
            or not np.isfinite(problem.loss.curvature)
            or any(options[name] != value for name, value in condition.items())):
        return
    warnings.warn(
        f"{module.NAME}: the smoothness constants M_j / beta are computed from X without noise and set "
        "step sizes and clipping thresholds (DP-GCD's selection, DP-SkGD's sketch probabilities); this is "
        "not covered by the (epsilon, delta) guarantee. Declare them public with "
        "Problem(..., constants='data') (the papers' assumption, dp-cd Section 5.1), use data-independent "
        "ones with Problem(..., row_norm_bound=R), or estimate them privately with dp-cd's "
        "smoothness='private'", DataDependentConstantsWarning, stacklevel=4)


def assemble(problem, module, settings, options, plan, randomness, w, snapshots, extra, seconds):
    """The :class:`Run` of a finished kernel call: the privacy facts of the plan, ``seconds``
    prorated over the checkpoints and, in an experiment, the objective at every checkpoint.

    ``randomness`` is ``(mode, seed)`` of :func:`privcd.randomness.resolve_seed`. A release keeps
    neither its seed nor, when private, the noise-free objective ``F(w; D)`` and the kernel's
    time, which the guarantee does not cover.
    """
    mode, seed = randomness
    if not np.all(np.isfinite(w)):
        warnings.warn(f"{module.NAME} diverged: its weights are not finite (step={settings.step!r}, clip={settings.clip!r}, "
                      f"{mode}); its objective is NaN or inf. Lower step", DivergenceWarning, stacklevel=3)
    iterations = plan.checkpoints
    trace = {"iteration": iterations, "passes": iterations / plan.iterations_per_pass}
    released = mode == RELEASE and settings.private  # epsilon = inf: no guarantee to keep anything out of
    if released:
        seconds = None  # the kernel's time depends on the data: a side channel outside the guarantee
    else:
        trace["seconds"] = seconds * iterations / plan.n_iterations
        trace["objective"] = np.array([problem.objective(snapshot) for snapshot in snapshots])
    calibration = plan.calibration
    return Run(
        w=w, trace=trace, noise_multiplier=calibration.noise_multiplier,
        epsilon=calibration.epsilon, delta=calibration.delta, accountant=calibration.accountant,
        seconds=seconds, algorithm=module.NAME, seed=None if mode == RELEASE else seed, mode=mode,
        settings={"passes": settings.passes, "step": settings.step, "clip": settings.clip, **options},
        info={**plan.info, **extra}, snapshots=snapshots,
    )


def _settings(epsilon, delta, passes, step, clip, calibrations):
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    if delta is None and math.isfinite(epsilon):
        raise ValueError("delta is required with a finite epsilon; expected a value in (0, 1)")
    if delta is not None:
        delta = check_number("delta", delta, low=0.0, high=1.0)
    clip = check_positive("clip", clip, allow_inf=True)
    if math.isfinite(epsilon) and math.isinf(clip):
        raise ValueError(f"clip=inf with epsilon={epsilon}: without clipping the sensitivity is "
                         "unbounded; give a finite clip or epsilon=inf")
    if calibrations is not None and not isinstance(calibrations, (CalibrationStore, JointRelease)):
        raise ValueError(f"calibrations must be a privcd.privacy.CalibrationStore, a privcd.privacy.JointRelease or None; "
                         f"got {type(calibrations).__name__}")
    return Settings(epsilon=epsilon, delta=delta, passes=check_positive("passes", passes),
                    step=check_positive("step", step), clip=clip, calibrations=calibrations)
