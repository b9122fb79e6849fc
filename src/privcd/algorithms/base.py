"""The interface every algorithm module of privcd implements (typed: :class:`privcd.algorithms.contract.
AlgorithmModule`), and the pieces they share.

An algorithm module defines

``NAME`` : str
    its registry name (``"dp-cd"``, ...).
``OPTIONS`` : dict
    the accepted ``**options`` of :func:`privcd.fit` with their defaults.
``SMOOTHNESS_FROM_PROBLEM`` : dict or None
    the option values under which it steps with :attr:`Problem.M` or :attr:`Problem.beta`
    (``{}``: always; ``None``: never), read by :func:`privcd.fit` to warn when a private run uses
    constants computed from X that the problem has not declared public.
``JOINT_RELEASE`` : bool
    whether its plan calibrates all its privacy through ``settings.calibrations`` (so that
    :class:`privcd.privacy.JointRelease` makes several of its runs one release, as the
    one-vs-rest estimators do; the others' runs are composed by their caller);
``NOISE_KEY`` : (str, int)
    the ``plan.kernel`` entry that sets the noise and its power: the noise scales as
    ``kernel[key] ** power`` (1: a noise multiplier or standard deviation; -1: a per-step epsilon),
    read by :func:`with_noise_factor` (the under-noised mutants of :func:`privcd.audit`);
``TUNING_ACCOUNTANT`` : str or None
    how :func:`privcd.tune_private` accounts its training: ``"exact"`` (exactly a Gaussian
    mechanism), ``"rdp"`` (its RDP, :mod:`privcd.tuning.rdp_candidates`) or None (not tunable);
``ESTIMATOR_CLIP`` : float, ``"worst-case"`` or ``"start"``
    the estimators' default clip: a number, or the public row bound times the loss's bound on
    ``|l'|`` over every prediction (``"worst-case"``: no record is ever clipped) or at ``w = 0``
    (``"start"``: no record is clipped at the start; ``LossSpec.start_gradient_bound``);
``THEORY_PASSES`` : bool
    whether the estimators' default passes follow DP-CD's convex rate
    (:func:`privcd.estimators.defaults.theory_passes`);
``estimator_options(n_samples, row_norm)`` -> dict
    the options the estimators run it with;
``check_options(options)``
    the checks of the option values that need no data (``ValueError`` naming a bad value), run by
    :func:`privcd.fit` before the plan and by the workflow's config reader on every grid value;
``iterations_per_pass(problem, options)`` -> float
    how many iterations make one pass on the data (the papers' x-axis: p for DP-CD, n / b for
    DP-SGD, 1 for DP-GCD).
``plan(problem, settings, options) -> Plan``
    validates what depends on the problem, calibrates the noise and returns everything the kernel needs.
``run(problem, plan, seed) -> (w, snapshots)``
    calls the numba kernel with the stream key :func:`kernel_key` ``(seed)`` (or the generator
    :func:`kernel_rng` ``(seed)``): the final iterate and the iterate at each checkpoint.

and may define, to make runs that share their random draws in one kernel call
(:func:`privcd.fit_many`):

``SHARED_DRAWS`` : tuple of str
    the hyperparameters its random draws do not depend on (the tuning runner derives seeds
    without them, so that runs differing only in those share draws);
``batch_key(plan)`` -> hashable
    what runs of one seed must also share to share their draws (e.g. the number of iterations);
``run_many(problem, plans, seed)`` -> list of ``(w, snapshots)``
    ``[run(problem, plan, seed) for plan in plans]``, the same bits, in one pass over the draws;
``group_size(problem, plan)`` -> int
    how many runs one ``run_many`` call may take (the memory of their outputs).

:func:`privcd.fit` does the rest (checks, timing, evaluation of the objective at checkpoints).
"""
from dataclasses import dataclass, field, replace

import numpy as np

from privcd.kernels.streams import random_bits
from privcd.randomness import child
from privcd.validation import check_positive_int

KEY_STREAMS = 2  # spawn key of the counter-based streams' keys under a SeedSequence seed (1: DP-CD-P's Laplace)

# The outputs of one ``run_many`` call (iterates, snapshots, per-run arrays): 128 MiB. A tuning
# chunk holds one call's runs per repetition at a time (its runs alternate repetitions), so about
# 0.6 GB with 5.
MAX_GROUP_BYTES = 2**27


@dataclass(frozen=True)
class Settings:
    """The arguments every algorithm takes, already validated by :func:`privcd.fit`.

    ``calibrations`` is the :class:`privcd.privacy.CalibrationStore` (or ``None``) the plan passes
    to :func:`privcd.privacy.calibrate` as ``store=``.
    """

    epsilon: float
    delta: float | None
    passes: float
    step: float
    clip: float
    calibrations: object = None

    @property
    def private(self):
        return np.isfinite(self.epsilon)


@dataclass(frozen=True)
class Plan:
    """What an algorithm decided before running.

    Attributes
    ----------
    n_iterations : int
        Kernel iterations in total.
    iterations_per_pass : float
        Iterations that make one pass on the data.
    checkpoints : int64 ndarray
        Iteration counts at which the iterate is recorded (0 first, ``n_iterations`` last).
    calibration : privcd.privacy.Calibration or None
        Noise multiplier and achieved (epsilon, delta); ``None`` when ``epsilon = inf``.
    kernel : dict
        Keyword arguments of the kernel call.
    info : dict
        Algorithm-specific facts to keep in the :class:`~privcd.run.Run` (e.g. a privacy split).
    """

    n_iterations: int
    iterations_per_pass: float
    checkpoints: np.ndarray
    calibration: object
    kernel: dict
    info: dict = field(default_factory=dict)


def kernel_rng(seed):
    """The generator the DP-CD, DP-GCD and DP-SkGD kernels draw from: ``np.random.default_rng(seed)``
    (PCG64); DP-SGD and DP-SCD draw from the counter-based stream :func:`kernel_key` ``(seed)``.

    Those kernels take it as an argument and call its methods inside numba, which draws from the
    same PCG64 stream numpy would: ``rng.standard_normal()``, ``rng.random()`` and
    ``rng.integers(low, high)`` (:func:`privcd.kernels.draws.bounded_integer`) give the numbers
    numpy's own ``Generator`` methods give when called in the same order, so a plain numpy
    replay of a kernel's random path starts from ``kernel_rng(seed)`` too. ``seed`` is an integer
    or a ``SeedSequence`` (:mod:`privcd.randomness`); the streams :func:`privcd.randomness.child`
    derives from it are independent of this one.
    """
    return np.random.default_rng(seed)


def kernel_key(seed, stream=0):
    """The key (uint64) of a run's counter-based stream number ``stream`` (:mod:`privcd.kernels.streams`).

    Output number ``stream`` of SplitMix64 seeded with ``seed`` (``bits(seed, stream)``; stream 0,
    the first output, is the usual way to turn a small integer into a well-mixed 64-bit state,
    Steele, Lea and Flood 2014): distinct (seed, stream) pairs give distinct, unrelated 64-bit keys
    (the streams' overlap argument in :mod:`privcd.kernels.streams` needs that), in a few
    microseconds (``np.random.SeedSequence`` alone takes 15-70 us here, and numba 50-100 us to
    unbox a ``Generator``). A kernel given the key draws word i of the stream at counter i, with
    no generator object to unbox; numpy code replays any draw with the ``_numpy`` twins of
    :mod:`privcd.kernels.streams` and :mod:`privcd.kernels.gaussian`. A kernel that draws two
    kinds of numbers whose positions should not depend on each other (DP-SGD: batches and noise)
    takes one stream for each. A kernel running many configurations (one ``prange`` iteration
    each) gives each its own key, derived here from that configuration's seed. A ``SeedSequence``
    seed (release mode, :mod:`privcd.randomness`) gives the first word of its sub-stream
    ``(KEY_STREAMS, stream)`` instead.
    """
    if isinstance(seed, np.random.SeedSequence):
        return child(seed, KEY_STREAMS, stream).generate_state(1, np.uint64)[0]
    return np.uint64(random_bits(np.uint64(seed), stream))


MAX_ITERATIONS = 10**11  # about a day of the fastest kernel's iterations; far beyond any paper's run


def iterations_for(passes, iterations_per_pass):
    """``max(1, round(passes * iterations_per_pass))``: at least one iteration, at most ``MAX_ITERATIONS``
    (``ValueError`` naming ``passes`` beyond it, before anything is allocated)."""
    iterations = passes * iterations_per_pass
    if iterations > MAX_ITERATIONS:
        raise ValueError(f"passes={passes!r} asks for {iterations:.3g} iterations ({iterations_per_pass:g} a pass); "
                         f"privcd runs at most {MAX_ITERATIONS:.0e}: lower passes")
    return max(1, int(round(iterations)))


def checkpoint_schedule(n_iterations, count):
    """``count + 1`` evenly spaced iteration counts from 0 to ``n_iterations`` (duplicates removed)."""
    count = check_positive_int("checkpoints", count)
    return np.unique(np.rint(np.linspace(0, n_iterations, count + 1)).astype(np.int64))


MAX_DEFAULT_CHECKPOINTS = 10_000


def default_checkpoint_count(passes, n_iterations):
    """One checkpoint per pass (at least one, at most one per iteration and ``MAX_DEFAULT_CHECKPOINTS``)."""
    return int(min(n_iterations, MAX_DEFAULT_CHECKPOINTS, max(1, np.ceil(passes))))


def check_checkpoints(options):
    """The option ``checkpoints``: ``None`` (one per pass) or an integer >= 1."""
    if options["checkpoints"] is not None:
        check_positive_int("checkpoints", options["checkpoints"])


def checkpoints_for(options, passes, n_iterations):
    """The checkpoint schedule of a run: ``options["checkpoints"]`` evenly spaced checkpoints, or
    one per pass when that option is ``None``."""
    count = options["checkpoints"]
    if count is None:
        count = default_checkpoint_count(passes, n_iterations)
    return checkpoint_schedule(n_iterations, count)


def coordinate_thresholds(M, clip):
    """Coordinate-wise clipping thresholds ``C_j = sqrt(M_j / tr(M)) * clip`` (dp-cd Section 5.1).

    With ``clip = inf`` every threshold is infinite (no clipping).
    """
    if np.isinf(clip):
        return np.full(M.shape, np.inf)
    return np.sqrt(M / M.sum()) * clip


def coordinate_step_sizes(M, step):
    """Coordinate-wise step sizes ``gamma_j = step / M_j`` (dp-cd Section 6); 0 where ``M_j = 0``.

    A feature that is zero in every record has ``M_j = 0``, a zero gradient and a zero clipping
    threshold: it never moves.
    """
    out = np.zeros_like(M)
    np.divide(step, M, out=out, where=M > 0)
    return out


def with_noise_factor(module, plan, factor):
    """``plan`` with its noise multiplied by ``factor`` (the module's ``NOISE_KEY``) and its claim, the
    calibration, unchanged: a mutant that :func:`privcd.audit` should catch when ``factor < 1``."""
    key, power = module.NOISE_KEY
    if key not in plan.kernel:
        raise ValueError(f"{module.NAME}: NOISE_KEY {key!r} is not in its plan's kernel settings {sorted(plan.kernel)}")
    return replace(plan, kernel={**plan.kernel, key: plan.kernel[key] * factor ** power})
