"""``privcd.tune_private``: hyperparameter tuning whose privacy is counted (end-to-end epsilon).

The papers tune step, clipping and passes on the private data and report the best configuration's
error at "epsilon": the tuning spends privacy nobody counts. :func:`tune_private` runs private
selection (:mod:`privcd.privacy.selection`, Papernot and Steinke 2022, Theorem 2): it draws the
number of candidates K from a truncated negative binomial (geometric by default, mean
``mean_candidates``), capped; each candidate draws a configuration uniformly from the grid
(independently of the data), trains on it, and gets a private score; the candidate with the best
score is returned. Everything that touched the data is in the total (epsilon, delta):

* each candidate trains and is scored. The score is the regularised objective with every loss
  clipped to ``score_clip`` plus Gaussian noise of standard deviation ``score_clip / (n mu_s)``
  (replace-one sensitivity ``score_clip / n``): mu_s-GDP. A release ranks exact integers with
  discrete Gaussian noise instead, whose RDP is at most mu_s-GDP's
  (:mod:`privcd.privacy.grid_score`). The training is accounted as its module's
  ``TUNING_ACCOUNTANT`` says:

  - ``"exact"`` (DP-CD, DP-SkGD): compositions of Gaussian releases, exactly a mu_t-GDP Gaussian
    mechanism, so the candidate is mu-GDP with ``mu^2 = mu_t^2 + mu_s^2`` and
    (lambda, lambda mu^2 / 2)-RDP whatever configuration it draws (a data-independent mixture of
    such mechanisms is too);
  - ``"rdp"`` (DP-SGD, DP-SCD and SEQDP-SCD with noise on every dual, batches sampled without
    replacement; DP-GCD, 2T pure-DP mechanisms read as randomized responses,
    :class:`~privcd.privacy.mechanisms.PureDpComposition`): the largest RDP of the grid's training
    families, plus the score's (:mod:`privcd.tuning.rdp_candidates`);
* the selection over K candidates: Theorem 2's RDP, converted to (epsilon, delta_rdp)-DP by
  dp-accounting's conversion;
* the cap: ``(1 + e^epsilon) P[K > cap] <= delta_tail`` (:func:`privcd.privacy.selection.candidate_cap`).

Budget split (the rule): ``delta_tail = tail_share * delta`` and ``delta_rdp = delta - delta_tail``;
the score gets ``score_share`` of the candidate's ``mu^2`` (``mu_s^2 = score_share mu^2``); mu is the
largest for which the selection's epsilon is at most the target (bisection). Under ``"rdp"`` the
score keeps that mu_s and the training's noise is the smallest that meets the target with it.
"""
import dataclasses
import math

import dp_accounting
import numpy as np
from dp_accounting.rdp import rdp_privacy_accountant

from privcd.algorithms import ALGORITHMS
from privcd.fit import prepare, run_planned
from privcd.kernels.evaluate import clipped_data_fit_value, penalty_sum
from privcd.privacy.grid_score import noisy_score_units, score_grid
from privcd.privacy.selection import candidate_cap, sample_tnb, selection_rdp, tnb_gamma
from privcd.randomness import RELEASE, child, resolve_seed
from privcd.tuning.grid import expand
from privcd.tuning.rdp_candidates import calibrate_candidates, families
from privcd.tuning.seeds import derive_seed
from privcd.validation import check_number, check_positive

# The candidates' training targets (epsilon, TRAINING_DELTA) of the exact accountant, a point on the
# curve of the mu_train-GDP Gaussian: any delta names the same mechanism; a small one keeps epsilon > 0.
TRAINING_DELTA = 1e-10
CANDIDATE_STREAM = 3  # spawn key of the candidates' seeds under a SeedSequence seed (privcd.randomness.child)
ORDERS = np.array(rdp_privacy_accountant.DEFAULT_RDP_ORDERS + [2048.0, 4096.0])


def selection_epsilon(mu, *, delta, shape, gamma):
    """Epsilon at ``delta`` of the best of K ~ TNB(shape, gamma) runs of a mu-GDP candidate."""
    rdp = selection_rdp(ORDERS, ORDERS * mu**2 / 2.0, shape, gamma)
    return rdp_privacy_accountant.compute_epsilon(ORDERS, rdp, delta)[0]


def candidate_mu(epsilon, *, delta, shape, gamma):
    """The largest mu (to 1e-6 relative) whose :func:`selection_epsilon` is at most ``epsilon``."""
    floor = selection_epsilon(1e-9, delta=delta, shape=shape, gamma=gamma)
    if floor >= epsilon:
        raise ValueError(f"epsilon={epsilon!r} is below what selecting among this many candidates costs with "
                         f"no noise budget left for them ({floor:.3g} at delta={delta:g}); lower mean_candidates "
                         "or raise epsilon")
    low, high = 1e-9, 1.0
    while selection_epsilon(high, delta=delta, shape=shape, gamma=gamma) <= epsilon:
        low, high = high, 2.0 * high
    while high / low > 1.0 + 1e-6:
        middle = math.sqrt(low * high)
        if selection_epsilon(middle, delta=delta, shape=shape, gamma=gamma) <= epsilon:
            low = middle
        else:
            high = middle
    return low


def private_score(problem, w, *, bound, mu, rng, grid=None):
    """The objective with every loss clipped to ``bound``, plus N(0, (bound / (n mu))^2): mu-GDP.

    ``grid`` (a release's :class:`~privcd.privacy.grid_score.ScoreGrid` for ``bound``, n and mu): the
    score as an exact integer with discrete Gaussian noise instead
    (:func:`~privcd.privacy.grid_score.noisy_score_units`), at most mu-GDP's RDP.
    """
    data_fit = clipped_data_fit_value(problem.loss.code, problem.linear_predictor(w), problem.y, bound)
    penalty = penalty_sum(problem.penalty.code, w, problem.lam)
    if grid is not None:
        return noisy_score_units(data_fit, penalty, grid, rng)
    noise = rng.normal(0.0, bound / (problem.n_samples * mu))
    return data_fit + penalty + noise


def tunable_algorithms():
    """The algorithms whose training :func:`tune_private` accounts (their module's ``TUNING_ACCOUNTANT``)."""
    return sorted(name for name, module in ALGORITHMS.items() if module.TUNING_ACCOUNTANT)


def tune_private(problem, algorithm, grid, *, epsilon, delta, seed=None, mean_candidates=10.0, shape=1.0,
                 score_share=0.1, score_clip=1.0, tail_share=0.1, **options):
    """Private hyperparameter tuning: the best of a random number of private candidates, all counted.

    Parameters
    ----------
    problem : privcd.Problem
    algorithm : {"dp-cd", "dp-skgd", "dp-sgd", "dp-scd", "seqdp-scd", "dp-gcd"}
    grid : dict
        Hyperparameters (``passes``, ``step``, ``clip`` and any option) -> values, as in the
        workflow's grids (:func:`privcd.tuning.expand`); candidates draw from its product uniformly.
    epsilon, delta : float
        The total privacy of everything below.
    seed : None, int or numpy.random.SeedSequence
        Seeds the number of candidates, their configurations, their scores' noise and (derived)
        their runs. ``None`` (default): a private release (:mod:`privcd.randomness`), which
        returns the selected candidate only; an integer or a ``SeedSequence``: a reproducible
        experiment, which also returns every candidate's noisy score and their number K (outside
        Theorem 2's guarantee, which covers the selected candidate alone).
    mean_candidates : float > 1
        E[K]. shape : float >= 0: eta of the TNB (1: geometric; 0: logarithmic).
    score_share, tail_share : float in (0, 1)
        The budget split of the module docstring. score_clip : float > 0: losses above it count
        as it in the score; give a public bound of the losses (a clip below their range ranks
        models with many large residuals, such as w = 0, too well: on California's raw targets a
        clip of 10 ranked w = 0 above a model 500x closer to the optimum), at the price of a noise
        proportional to it.
    **options
        Options of the algorithm for every candidate (not ``accountant``: the module's
        ``TUNING_ACCOUNTANT`` is used).

    Returns
    -------
    Run
        The selected candidate's run, with ``epsilon`` and ``delta`` the totals and
        ``info["tuning"]``: the cap on K, the law of K (shape, gamma, mean), mu, mu_t, mu_s and the
        split, all public; an experiment adds the candidates (configuration, noisy score) and K.
    """
    supported = tunable_algorithms()
    if algorithm not in supported:
        raise ValueError(f"tune_private supports algorithm in {supported} (training it can account, the modules' "
                         f"TUNING_ACCOUNTANT); got {algorithm!r}")
    if "accountant" in options or options.get("smoothness", "public") != "public":
        raise ValueError("tune_private accounts every candidate's training itself (the module's TUNING_ACCOUNTANT): "
                         "do not pass accountant= or smoothness='private'")
    accountant = ALGORITHMS[algorithm].TUNING_ACCOUNTANT
    epsilon = check_positive("epsilon", epsilon)
    delta = check_number("delta", delta, low=0.0, high=1.0)
    mode, seed = resolve_seed(seed)
    mean_candidates = check_number("mean_candidates", mean_candidates, low=1.0)
    shape = check_number("shape", shape, low=0.0, low_open=False)
    score_share = check_number("score_share", score_share, low=0.0, high=1.0)
    tail_share = check_number("tail_share", tail_share, low=0.0, high=1.0)
    score_clip = check_positive("score_clip", score_clip)
    configurations = expand(grid)
    for configuration in configurations:
        missing = {"passes", "step", "clip"} - set(configuration)
        if missing:
            raise ValueError(f"grid must give passes, step and clip; missing {sorted(missing)}")
    gamma = tnb_gamma(shape, mean_candidates)
    delta_tail, delta_rdp = tail_share * delta, (1.0 - tail_share) * delta
    mu = candidate_mu(epsilon, delta=delta_rdp, shape=shape, gamma=gamma)
    mu_score, mu_train = math.sqrt(score_share) * mu, math.sqrt(1.0 - score_share) * mu
    cap = candidate_cap(shape, gamma, epsilon, delta_tail)
    if accountant == "exact":
        train_epsilon = dp_accounting.get_epsilon_gaussian(1.0 / mu_train, TRAINING_DELTA)
        achieved, store, extra = selection_epsilon(mu, delta=delta_rdp, shape=shape, gamma=gamma), None, {}
        planned_at = {index: train_epsilon for index in range(len(configurations))}
    else:
        family_of = families(problem, algorithm, configurations, options)
        calibrated = calibrate_candidates(family_of.values(), mu_score=mu_score, epsilon=epsilon, delta=delta_rdp,
                                          shape=shape, gamma=gamma, orders=ORDERS, training_delta=TRAINING_DELTA)
        achieved, store, train_epsilon = calibrated.epsilon, calibrated.store, max(calibrated.epsilons.values())
        planned_at = {index: calibrated.epsilons[family] for index, family in family_of.items()}
        extra = {"noise_knob": calibrated.knob}
        mu_train = None  # the training is not a Gaussian mechanism
    rng = np.random.default_rng(seed)
    grid = score_grid(score_clip, problem.n_samples, mu_score) if mode == RELEASE else None
    count = min(sample_tnb(shape, gamma, rng), cap)
    candidates, best = [], None
    for index in range(count):
        drawn = int(rng.integers(len(configurations)))
        configuration = configurations[drawn]
        candidate_seed = (derive_seed(seed, "tune_private", algorithm, str(index), 0) if isinstance(seed, int)
                          else child(seed, CANDIDATE_STREAM, index))
        run = run_planned(problem, *prepare(problem, algorithm, epsilon=planned_at[drawn], delta=TRAINING_DELTA,
                                            accountant=accountant, calibrations=store, **configuration, **options),
                          (mode, candidate_seed))
        score = private_score(problem, run.w, bound=score_clip, mu=mu_score, rng=rng, grid=grid)
        if mode != RELEASE:  # K and the others' scores: Theorem 2 covers the selected candidate only
            candidates.append({"configuration": configuration, "score": float(score)})
        if best is None or score < best[0]:
            best = (score, run)
    tuning = {"cap": cap, "shape": shape, "gamma": gamma,
              "mean_candidates": mean_candidates, "grid_size": len(configurations), "mu": mu, "mu_train": mu_train,
              "mu_score": mu_score, "train_epsilon": train_epsilon, "score_clip": score_clip,
              "delta_rdp": delta_rdp, "delta_tail": delta_tail, "selection_epsilon": achieved,
              "training_accountant": accountant, **extra}
    if mode != RELEASE:
        tuning.update(candidates=candidates, count=count)
    else:
        tuning.update(score_grid=dataclasses.asdict(grid))
    run = best[1]
    return dataclasses.replace(run, seed=None if mode == RELEASE else seed, epsilon=achieved, delta=delta,
                               accountant=("selection (Papernot-Steinke Thm 2) of exact Gaussians" if accountant == "exact"
                                           else "selection (Papernot-Steinke Thm 2) of RDP-accounted candidates"),
                               info={**run.info, "tuning": tuning})
