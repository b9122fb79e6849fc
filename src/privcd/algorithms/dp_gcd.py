"""DP-GCD: differentially private greedy coordinate descent (dp-gcd Algorithm 1; proximal Algorithm 2).

From w = 0, each of the T iterations computes the full clipped gradient
``g_j = (1/n) sum_i clip(l'(<w, x_i>, y_i) X_ij, C_j)`` with ``C_j = sqrt(M_j / tr(M)) * clip``
(dp-cd Section 5.1), picks one coordinate by report-noisy-max and takes the step
``w_j <- prox_{gamma_j psi_j}(w_j - gamma_j (g_j + eta_j))``, ``eta_j ~ Lap(b_j)``, with
``gamma_j = step / M_j`` (Algorithm 1 line 4 when ``psi = 0``; Algorithm 2 line 4). One pass is one
iteration (dp-gcd Appendix D): ``T = max(1, round(passes))``. The iterates start at 0 and change
one coordinate at a time, so they are sparse; ``Run.info["selected"]`` holds the coordinate of
every iteration and ``Run.info["updated"]`` which coordinates were ever selected.

Selection (option ``rule``)
---------------------------
``None`` (default)
    Algorithm 1's rule ``argmax_j |grad_j F(w) + chi_j| / sqrt(M_j)``, ``chi_j ~ Lap(b'_j)``, when the
    penalty is smooth (``grad F = g + grad psi``; the step applies psi through its prox, which has
    the same fixed points as a gradient step on F and needs no step size for psi's curvature);
    ``"gs-r"`` when it is not (the rule of dp-gcd Section 5's figures).
``"gs-s"``, ``"gs-r"``, ``"gs-q"``
    The proximal rules of Appendix C: ``argmax_j score_j + Lap(b'_j / sqrt(M_j))`` with the scores of
    :func:`privcd.kernels.dp_gcd.rule_score` (GS-s: distance of ``-g_j`` to ``d psi_j(w_j)`` over
    ``sqrt(M_j)``; GS-r: ``sqrt(M_j)`` times the length of the prox step with step ``1 / M_j``;
    GS-q: ``sqrt(2 q_j)`` with ``q_j`` the decrease of the coordinate's quadratic model). The paper
    writes the noise inside the GS-s and GS-r scores; with a non-smooth psi those scores are flat on
    whole intervals (the L1 dead zone ``|g_j| <= lam`` at ``w_j = 0``), ties get positive
    probability and the report-noisy-max argument no longer applies (the chance that every
    coordinate sits in its dead zone is a product over all p coordinates, whose ratio between
    neighbouring datasets grows like ``exp(p epsilon' / 2)``). Adding the noise to scores that are
    ``(1/sqrt(M_j))``-Lipschitz in ``g_j`` keeps each selection a textbook report-noisy-max.

Privacy (dp-gcd Section 4.2 and Appendix A, replace-one neighbours)
-------------------------------------------------------------------
Replacing one record changes ``g_j`` by at most ``Delta_j = 2 C_j / n``. Each iteration runs two
``epsilon'``-DP mechanisms:

* the release of ``g_j + eta_j``: the Laplace mechanism, ``b_j = Delta_j / epsilon'``;
* the selection: report-noisy-max over scores whose sensitivity is ``Delta_j / sqrt(M_j) =
  2 clip / (n sqrt(tr M))``, the same for every j. The gradient entries of neighbouring datasets
  move in arbitrary directions, not all up or all down as the counting queries of Dwork and Roth
  (2014, Claim 3.9, noise ``Lap(1/epsilon)``), so the Laplace scale is ``b'_j = 2 Delta_j /
  epsilon'``: fixing the other draws, coordinate j wins when its noise lies in a set (one tail for
  a score plus noise; two tails for Algorithm 1's ``|g_j + chi_j|``) whose boundary moves by at most
  ``2 Delta_j`` between neighbours, which changes its probability by at most ``exp(epsilon')``.
  The paper's ``b'_j = Delta_j / epsilon'`` makes a selection only ``2 epsilon'``-DP
  (``tests/test_dp_gcd.py`` computes a pair of neighbouring gradients where it fails).

The 2T mechanisms compose, by default (``accountant="pld"``), by privacy loss distributions
(:mod:`privcd.privacy.greedy_composition`: the releases as Laplace mechanisms, the selections as
``epsilon'``-DP mechanisms; at least as tight as the optimal composition theorem of Kairouz, Oh
and Viswanath 2015), solved numerically for the largest ``epsilon'`` meeting the target. The paper
composes them by the advanced composition theorem, dp-gcd eq. (2):
``epsilon = sqrt(4 T log(1/delta)) epsilon' + 2 T epsilon' (exp(epsilon') - 1)``
(``accountant="advanced-composition"``, kept for the reproduction of dp-gcd; it needs 1.3x to
5x the noise, most at small T). ``Run.noise_multiplier`` is the release's
``std / sensitivity = sqrt(2) / epsilon'``.

A private release (no seed) samples both mechanisms exactly on a grid, with discrete Laplace
integers (:func:`release_noise`, :mod:`privcd.privacy.greedy_composition`): the same
``epsilon'``-DP pairs, with no floating-point noise for Mironov's attack to read. GS-q under L1
has no integer score and is refused there.

Options
-------
rule : {None, "gs-s", "gs-r", "gs-q"}
    The selection rule (see above).
accountant : {"pld", "rdp", "advanced-composition"}
    How the 2T mechanisms compose (see above); default ``"pld"``. ``"rdp"`` reads each as
    randomized response's Rényi divergences (:class:`~privcd.privacy.mechanisms.PureDpComposition`):
    looser than the PLD, and what :func:`privcd.tune_private` composes with its selection.
checkpoints : int or None
    Number of evenly spaced checkpoints in the history (default: one per pass).

Runs that differ only in ``step`` and ``clip`` (``SHARED_DRAWS``) make the same Laplace draws for
the same seed; :func:`run_many` makes them in one call of
:func:`~privcd.kernels.dp_gcd.dp_gcd_many` (:func:`privcd.fit_many`).
"""
import dataclasses
import math

import numpy as np

from privcd import privacy
from privcd.algorithms.base import (
    MAX_GROUP_BYTES, Plan, check_checkpoints, checkpoints_for, coordinate_step_sizes, coordinate_thresholds, iterations_for, kernel_rng,
)
from privcd.algorithms.kernel_clock import launch
from privcd.kernels.dp_gcd import RULE_ALGORITHM_1, RULE_GS_Q, RULE_GS_R, RULE_GS_S, dp_gcd, dp_gcd_many, has_grid_score
from privcd.kernels.layout import column_arrays
from privcd.randomness import ReleaseSeed
from privcd.validation import check_choice

NAME = "dp-gcd"
DISPLAY = "DP-GCD"  # its name in figures and tables
OPTIONS = {"rule": None, "accountant": "pld", "checkpoints": None}
JOINT_RELEASE = False  # its per-step budget comes from a composition theorem, not a store
NOISE_KEY = ("epsilon_per_mechanism", -1)  # the Laplace scales are inversely proportional to it
TUNING_ACCOUNTANT = "rdp"  # 2T pure-DP mechanisms: randomized response's RDP (PureDpComposition)
ESTIMATOR_CLIP = "worst-case"  # the estimators clip at the loss's gradient bound times the row bound
THEORY_PASSES = True  # the estimators' default passes: DP-CD's convex rate
SMOOTHNESS_FROM_PROBLEM = {}  # M_j: step sizes, clipping thresholds, greedy selection
RULES = {"algorithm-1": RULE_ALGORITHM_1, "gs-s": RULE_GS_S, "gs-r": RULE_GS_R, "gs-q": RULE_GS_Q}
ACCOUNTANTS = ("pld", "rdp", "advanced-composition")
SHARED_DRAWS = ("step", "clip")  # hyperparameters the random draws do not depend on
SCALES = ("step_sizes", "thresholds", "selection_scale", "release_scale")  # a run's arrays of the kernel


def check_options(options):
    """The checks of the options that need no data (as :func:`privcd.algorithms.dp_cd.check_options`)."""
    check_choice("rule", options["rule"], [None, "gs-s", "gs-r", "gs-q"])
    check_choice("accountant", options["accountant"], ACCOUNTANTS)
    check_checkpoints(options)


def iterations_per_pass(problem, options):
    """One iteration (a full gradient) makes one pass."""
    return 1.0


def selection_rule(problem, rule):
    """The rule actually used: ``rule``, or Algorithm 1's for a smooth penalty and GS-r otherwise."""
    check_choice("rule", rule, [None, "gs-s", "gs-r", "gs-q"])
    if rule is not None:
        return rule
    return "algorithm-1" if problem.penalty.smooth else "gs-r"


def laplace_scales(thresholds, n_samples, epsilon_per_mechanism):
    """``(b', b)``: Laplace scales of the selection and of the release, ``2 Delta / epsilon'`` and ``Delta / epsilon'``.

    ``Delta_j = 2 C_j / n`` is the replace-one sensitivity of the clipped gradient entry; see the
    module docstring.
    """
    sensitivity = 2.0 * thresholds / n_samples
    return 2.0 * sensitivity / epsilon_per_mechanism, sensitivity / epsilon_per_mechanism


def plan(problem, settings, options):
    """Calibrate epsilon' and record the kernel's settings; see the module docstring. The plan holds
    scalars only (:func:`kernel_arrays` builds the per-coordinate arrays when the run starts), so
    a chunk's thousands of plans stay small on a wide X."""
    rule = selection_rule(problem, options["rule"])
    accountant = check_choice("accountant", options["accountant"], ACCOUNTANTS)
    n_iterations = iterations_for(settings.passes, 1.0)
    mechanisms = 2 * n_iterations
    family = privacy.PureDpComposition(mechanisms)
    if accountant == "rdp":
        calibration = privacy.calibrate(family, epsilon=settings.epsilon, delta=settings.delta, accountant="rdp",
                                        store=settings.calibrations)
        epsilon_step = math.sqrt(2.0) / calibration.noise_multiplier if settings.private else math.inf
    elif settings.private:
        epsilon_step, epsilon = _compose(accountant, settings.epsilon, settings.delta, n_iterations)
        calibration = privacy.Calibration(noise_multiplier=math.sqrt(2.0) / epsilon_step, epsilon=epsilon,
                                          delta=settings.delta, accountant=accountant, mechanism=family)
    else:
        epsilon_step = math.inf
        calibration = privacy.Calibration(noise_multiplier=0.0, epsilon=math.inf, delta=settings.delta,
                                          accountant=None, mechanism=family)
    return Plan(
        n_iterations=n_iterations,
        iterations_per_pass=1.0,
        checkpoints=checkpoints_for(options, settings.passes, n_iterations),
        calibration=calibration,
        kernel=dict(step=settings.step, clip=settings.clip, epsilon_per_mechanism=epsilon_step, rule=RULES[rule]),
        info={"rule": rule, "mechanisms": mechanisms, "epsilon_per_mechanism": epsilon_step},
    )


def _compose(accountant, epsilon, delta, iterations):
    """``(epsilon', achieved epsilon)`` of ``iterations`` DP-GCD iterations under ``accountant``."""
    if accountant == "pld":
        epsilon_step = privacy.greedy_epsilon_per_step(epsilon, delta, iterations)
        return epsilon_step, privacy.greedy_epsilon(epsilon_step, delta, iterations)
    epsilon_step = privacy.advanced_composition_epsilon_per_step(epsilon, delta, 2 * iterations)
    return epsilon_step, privacy.advanced_composition_epsilon(epsilon_step, delta, 2 * iterations)


def kernel_arrays(problem, plan):
    """The run's per-coordinate arrays :data:`SCALES`, as a dict: step sizes ``gamma_j = step / M_j``,
    thresholds ``C_j`` and the Laplace scales of the selection and the release (:func:`laplace_scales`;
    zero without privacy). The scales and thresholds also go to ``Run.info``."""
    k = plan.kernel
    M = problem.M
    thresholds = coordinate_thresholds(M, k["clip"])
    if math.isfinite(k["epsilon_per_mechanism"]):
        selection_scale, release_scale = laplace_scales(thresholds, problem.n_samples, k["epsilon_per_mechanism"])
    else:
        selection_scale = release_scale = np.zeros_like(M)
    return {"step_sizes": coordinate_step_sizes(M, k["step"]), "thresholds": thresholds,
            "selection_scale": selection_scale, "release_scale": release_scale}


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_gcd.dp_gcd` kernel from w = 0.

    A private release (``seed`` a :class:`~privcd.randomness.ReleaseSeed`) samples no floating-point
    noise (:func:`release_noise`): it releases each gradient entry with the discrete Laplace on a
    grid and selects by report-noisy-max over integer scores with discrete Laplace integers
    (:mod:`privcd.privacy.greedy_composition`). Returns ``(w, snapshots, extra)`` with ``extra``
    the thresholds and Laplace scales (:func:`kernel_arrays`; a release's ``release_scale`` is
    ``h_j t`` and its ``selection_scale`` ``h_j t'``, with its ``grid_spacing`` ``h_j`` and
    ``grid_noise``), ``"selected"`` (int64 array of the coordinate of each iteration) and
    ``"updated"`` (bool array of the coordinates ever selected).
    """
    arrays = kernel_arrays(problem, plan)
    p = problem.n_features
    release_units = selection_units = 0
    facts = {}
    if isinstance(seed, ReleaseSeed) and math.isfinite(plan.kernel["epsilon_per_mechanism"]):
        spacing, noise = release_noise(problem, plan, arrays["thresholds"])
        arrays = {**arrays, "release_scale": spacing}
        release_units, selection_units = noise.scale_units, noise.selection_units
        facts = {"release_scale": spacing * release_units, "selection_scale": spacing * selection_units,
                 "grid_spacing": spacing, "grid_noise": dataclasses.asdict(noise)}
    w, snapshots, selected = launch(
        dp_gcd, *column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code, problem.lam,
        problem.M, *(arrays[name] for name in SCALES), plan.kernel["rule"], plan.n_iterations, plan.checkpoints,
        kernel_rng(seed), np.zeros(p), release_units, selection_units)
    return w, snapshots, {**_run_facts(arrays, selected, p), **facts}


def release_noise(problem, plan, thresholds):
    """``(h, noise)`` of a private release: the grid spacings ``h_j`` of the released entries and
    selection scores, and the :class:`~privcd.privacy.greedy_composition.GridLaplaceNoise`.

    Refused, naming the alternatives, for a rule with no integer score under the problem's penalty
    (:func:`privcd.kernels.dp_gcd.has_grid_score`: GS-q with L1), which would select with
    floating-point noise.
    """
    if not has_grid_score(plan.kernel["rule"], problem.penalty.code):
        raise ValueError(
            f"a private release (no seed) of DP-GCD with rule={plan.info['rule']!r} and the {problem.penalty.name!r} "
            "penalty would select with floating-point Laplace noise, which is not private as IEEE floats (Mironov 2012): "
            "this rule has no integer score for this penalty; use rule='gs-s' or 'gs-r', or give a seed to run an "
            "experiment")
    noise = privacy.grid_release_noise(plan.kernel["epsilon_per_mechanism"], n_terms=problem.n_samples,
                                       iterations=plan.n_iterations, epsilon=plan.calibration.epsilon,
                                       delta=plan.calibration.delta)
    return privacy.grid_spacings(thresholds, problem.n_samples, noise.grid_ratio), noise


def batch_key(plan):
    """What runs of one seed must share to share their draws: iterations, checkpoints, rule."""
    return plan.n_iterations, plan.checkpoints.tobytes(), plan.kernel["rule"]


def group_size(problem, plan):
    """Runs a :func:`run_many` call may hold: :data:`~privcd.algorithms.base.MAX_GROUP_BYTES` of
    iterates, snapshots, scales, scratch arrays and residuals."""
    per_run = 8 * (problem.n_features * (len(plan.checkpoints) + 6) + 2 * problem.n_samples + plan.n_iterations)
    return max(1, MAX_GROUP_BYTES // per_run)


def run_many(problem, plans, seed):
    """``[run(problem, plan, seed) for plan in plans]`` for plans with one :func:`batch_key`, the
    same bits, in one :func:`privcd.kernels.dp_gcd.dp_gcd_many` call (a private release: one
    :func:`run` after the other, each with its grid noise)."""
    first = plans[0]
    if isinstance(seed, ReleaseSeed) and math.isfinite(first.kernel["epsilon_per_mechanism"]):
        return [run(problem, plan, seed) for plan in plans]
    p = problem.n_features
    arrays = [kernel_arrays(problem, plan) for plan in plans]
    scales = [np.stack([entry[name] for entry in arrays]) for name in SCALES]
    W, snapshots, selected = launch(
        dp_gcd_many, *column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code, problem.lam,
        problem.M, *scales, first.kernel["rule"], first.n_iterations, first.checkpoints, kernel_rng(seed),
        np.zeros((len(plans), p)))
    return [(W[k], snapshots[k], _run_facts(arrays[k], selected[k], p)) for k in range(len(plans))]


def _run_facts(arrays, selected, p):
    """``Run.info`` entries of a finished run: its thresholds and Laplace scales, ``"selected"`` (the
    coordinate of each iteration) and ``"updated"`` (which coordinates were ever selected)."""
    updated = np.zeros(p, dtype=bool)
    updated[selected[selected >= 0]] = True
    return {"thresholds": arrays["thresholds"], "selection_scale": arrays["selection_scale"],
            "release_scale": arrays["release_scale"], "selected": selected, "updated": updated}


def estimator_options(n_samples, row_norm):
    """The options privcd's estimators run it with (:mod:`privcd.estimators.base`): its defaults."""
    return {}
