"""Worst-case neighbouring datasets for auditing each algorithm, and the statistic that tells them apart.

Every pair has the same shape: n records, all zero but one, the canary, which is replaced between
D (``inside``) and D' (``outside``) -- privcd's neighbouring relation, replace-one. The loss is the
squared loss ``(<w, x> - y)^2`` (penalty L2 with ``lam = 0``: none; the dual methods need
``lam > 0`` and observe their duals, :func:`dual_pair`),
and the canary's label is ``+Y`` in D and ``-Y`` in D' with ``Y = 1e6``: its gradient
``2 (<w, x> - y) x`` is then so large that clipping saturates it at every step of every run, so the
canary contributes exactly ``-C`` (D) or ``+C`` (D') to each clipped sum it enters, the largest
change the clipping permits (the replace-one sensitivity ``2C``). Zero records contribute 0 on
every coordinate, so nothing else moves the model: each released noisy gradient is the canary's
``-/+ C / n`` plus noise, the model with ``lam = 0`` is minus the step sizes times the sum of those
releases, and its projection on the canary's direction (the step sizes are equal on every
coordinate) is the sum of all the releases that carry the canary's signal. For Gaussian noise of
equal scale at every step that sum is the likelihood ratio test of D against D' given the whole
transcript (it is a sufficient statistic), so no other observation of the run tells them apart
better: the audit is as tight as the mechanism allows, and equals the claim when the accounting
is exact (DP-CD and full-batch DP-SGD: T composed Gaussians are one Gaussian).

Where the pair is not worst case, and so the audit is looser than the claim by design:
DP-SkGD's selections (the canary's clipped gradients have the same magnitude on every coordinate,
so which block is taken leaks nothing); DP-GCD's selections, which the accounting bounds as any
``epsilon'``-DP mechanism (randomized response, a loss of ``+-epsilon'`` on every outcome) while
report-noisy-max's largest loss sits on one rare outcome (:func:`greedy_pair`: the pair's own
epsilon is 0.996 of the claim at (2, 1e-5), and the test reads it through the claimed curve at
rates that outcome makes rare); DP-CD-P's private
smoothness constants (D and D' have the same X, so the Laplace release of the M_j has the same law
under both); and the dual algorithms (DP-SCD, SEQDP-SCD), whose accounting is DP-SGD's while each
record's dual is its own coordinate, so D' cannot put its canary's update where another record's
goes (:func:`hidden_dual_pair`, read step by step). DP-SGD with sampled batches has its own pair, the
accounting's dominating one, observed at every step (:func:`sampled_sgd_pair`); so has DP-GCD, whose
selections leak too (:func:`greedy_pair`).

Smoothness constants come from the public ``row_norm_bound`` (the canary's norm), the same in D and
D', so the audit tests the algorithm's guarantee with public constants, the library's default.
"""
import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from privcd.algorithms import dp_scd
from privcd.algorithms.base import coordinate_step_sizes
from privcd.problem import Problem

LABEL = 1e6  # |y| of the canary: clipping saturates its gradient (2 |<w, x> - y| |x_j| >> C) in every run
RECORDS = 10  # n: records of each dataset (the canary and n - 1 zero records)
SAMPLED_PASSES = 1  # passes of a sampled DP-SGD pair (:func:`sampled_sgd_pair`): n / b steps
MAX_ITERATIONS = 1024  # checkpoints asked of a pair read step by step: every iteration of its short runs


@dataclass(frozen=True)
class CanaryPair:
    """Neighbouring datasets and the run that audits one algorithm.

    Attributes
    ----------
    inside, outside : Problem
        D (with the canary) and D' (the canary replaced by its mirror image).
    arguments : dict
        Keyword arguments of :func:`privcd.fit` besides epsilon, delta and seed (passes, step,
        clip and the algorithm's options).
    score : callable ``(module, problem, plan, seed) -> float``
        Runs the algorithm once and returns the statistic; larger means "D".
    why : str
        Why the pair is worst case and the score the right test (one sentence).
    """

    inside: Problem
    outside: Problem
    arguments: dict
    score: Callable
    why: str


def canary_problems(direction, *, loss="squared", penalty="l2", lam=0.0, label=LABEL, records=RECORDS):
    """``(D, D')``: ``records - 1`` zero rows and the canary row ``direction``, labelled ``+label`` in
    D and ``-label`` in D'; the smoothness constants from ``row_norm_bound = ||direction||``."""
    direction = np.asarray(direction, dtype=float)
    X = np.zeros((records, direction.size))
    X[0] = direction
    bound = float(np.linalg.norm(direction))
    problems = []
    for sign in (1.0, -1.0):
        y = np.zeros(records)
        y[0] = sign * label
        problems.append(Problem(X, y, loss, penalty, lam, row_norm_bound=bound))
    return tuple(problems)


def model_projection(direction):
    """Score: ``<w, direction>`` of the released model (D's canary pulls it towards ``+direction``)."""
    direction = np.asarray(direction, dtype=float)

    def score(module, problem, plan, seed):
        return float(module.run(problem, plan, seed)[0] @ direction)
    return score


def coordinate_pair(options, *, features=2, passes=2):
    """DP-CD, DP-CD-P, DP-GCD, DP-SkGD: the canary ``(1, ..., 1)`` has the same clipped gradient
    ``-/+ C_j`` on every coordinate (equal public ``M_j``, hence equal ``C_j``, steps and noise), so
    every step carries the full sensitivity ``2 C_j / n`` whichever coordinate or block it updates,
    as the accounting assumes; the model's sum ``<w, 1>`` is minus the step times the sum of every
    release."""
    direction = np.ones(features)
    inside, outside = canary_problems(direction)
    return CanaryPair(
        inside, outside, {"passes": passes, "step": 0.5, "clip": 1.0, **options}, model_projection(direction),
        "every coordinate gets the largest clipped change the thresholds allow at every step, and nothing "
        "else moves the model, so <w, 1> sums every release's signal")


def sketch_pair(options, *, features=4, passes=2):
    """DP-SkGD: :func:`coordinate_pair`'s canary ``(1, ..., 1)``, read step by step. Each iteration is a
    Gaussian mechanism of multiplier z whatever its block S (module docstring of
    :mod:`privcd.algorithms.dp_skgd`), and the canary moves every entry of S by the same amount, so the
    likelihood ratio test weighs every step alike: the score sums, over the iterations, the mean
    move of the block's entries (checkpoints at every iteration; an empty block releases nothing).
    The model's sum ``<w, 1>`` would weigh a step by its block's size, which costs the importance
    sketch's random sizes a fifth of mu^2 (``E|S|^2 / E|S^2| = 4 / 5`` for 4 coordinates kept with
    probability 1/2)."""
    direction = np.ones(features)
    inside, outside = canary_problems(direction)

    def score(module, problem, plan, seed):
        moves = np.diff(module.run(problem, plan, seed)[1], axis=0)
        sizes = np.count_nonzero(moves, axis=1)
        steps = sizes > 0
        return float(np.sum(moves[steps].sum(axis=1) / sizes[steps]))
    return CanaryPair(
        inside, outside, {"passes": passes, "step": 0.5, "clip": 1.0, **options, "checkpoints": MAX_ITERATIONS},
        score,
        "every coordinate gets the largest clipped change the thresholds allow at every step, and nothing else "
        "moves the model, so the sum over steps of each block's mean move is the likelihood ratio test")


def greedy_pair(options, *, features=10, passes=1, offsets=999):
    """DP-GCD: the canary moves its first gradient entry against all the others, so that the selection
    leaks as much as report-noisy-max can, and the adversary reads every iteration.

    ``p = features``; ``offsets`` records ``(1, ..., 1)`` labelled ``+Y`` and the canary ``(1, -1, ...,
    -1)`` labelled ``+Y`` in D and ``-Y`` in D'. Every clipped gradient saturates: the records give
    ``-C`` on every coordinate, the canary ``(-C, +C, ..., +C)`` in D and ``(+C, -C, ..., -C)`` in D',
    so with ``n = offsets + 1`` the gradient is ``-(k + 1, k - 1, ..., k - 1) C / n`` in D and ``-(k -
    1, k + 1, ..., k + 1) C / n`` in D' (``k = offsets``): each entry moves by ``Delta = 2 C / n``, as
    far as the sensitivity allows, and the first score ``|g_1| / sqrt(M_1)`` leads every other by
    ``Delta`` in D and trails each by ``Delta`` in D'. Report-noisy-max's chance of picking it then
    differs by a factor that tends to ``e^epsilon'`` as p grows, the accounting's bound for any
    ``epsilon'``-DP selection (dp-gcd Section 4.2); two coordinates reach about ``epsilon' / 2``. The
    offsets keep ``|g_j|`` far above the selection's noise (``k C / n >= 15 b'`` for ``epsilon' >=
    0.06``), so Algorithm 1's ``|g_j + chi_j|`` is ``|g_j| - chi_j`` but with chance below ``1e-7``.

    One pass (T = 1): the accounting composes its T selections as randomized response, whose loss is
    ``+-epsilon'`` on every outcome, while report-noisy-max's large loss sits on a rare outcome (the
    canary's coordinate picked: about 0.13 in D and 0.04 in D' per step at epsilon 2, p = 10); the
    fewer the steps, the likelier the test's rare outcome. Exact epsilon of this pair over the claim
    (quadrature, composed with the Laplace release), and the audit's expected share read through the
    claimed curve from 90,000 runs a side, at (2, 1e-5): p = 10, T = 1: 0.996 and 0.95, and 1.194 and
    1.09 with a sixth less noise; p = 2, T = 2 (the previous design): 0.749 and 0.79, 0.898 and 0.93
    (``results/reference/README.md``).

    Score: the log-likelihood ratio of the whole transcript at the claimed ``epsilon'`` (checkpoints at
    every iteration): the sum over iterations of the selection's log-odds
    (:func:`selection_log_ratios`) and of the release's ``(|r - g'_j| - |r - g_j|) / b``, ``r`` the
    released entry read from two consecutive iterates: the Neyman-Pearson test of D against D' (with
    the sign flips neglected)."""
    records = offsets + 1
    arguments = {"passes": passes, "step": 0.5, "clip": 1.0, **options, "checkpoints": MAX_ITERATIONS}
    X = np.ones((records, features))
    X[0, 1:] = -1.0
    inside, outside = (Problem(X, np.concatenate(([sign * LABEL], np.full(offsets, LABEL))), "squared", "l2", 0.0,
                               row_norm_bound=float(np.sqrt(features)))
                       for sign in (1.0, -1.0))
    shifts = np.full(features, offsets - 1.0)
    shifts[0] = offsets + 1.0

    def score(module, problem, plan, seed):
        _, path, extra = module.run(problem, plan, seed)
        epsilon_step = np.sqrt(2.0) / plan.calibration.noise_multiplier  # the claim's, not a mutant's
        threshold = extra["thresholds"][0]
        sensitivity = 2.0 * threshold / records
        gradient_inside = -shifts * threshold / records
        gradient_outside = -(2.0 * offsets - shifts) * threshold / records
        selected = extra["selected"]
        steps = coordinate_step_sizes(problem.M, plan.kernel["step"])[selected]
        iterations = np.arange(selected.size)
        releases = (path[iterations, selected] - path[iterations + 1, selected]) / steps
        scale = sensitivity / epsilon_step
        release_ratio = (np.abs(releases - gradient_outside[selected])
                         - np.abs(releases - gradient_inside[selected])) / scale
        picked, other = selection_log_ratios(epsilon_step, features)
        return float(np.sum(release_ratio) + np.sum(np.where(selected == 0, picked, other)))
    return CanaryPair(
        inside, outside, arguments, score,
        "the canary moves its first gradient entry against every other by the sensitivity, so both the "
        "selection and the release of every iteration carry its signal, and the transcript's likelihood "
        "ratio is the optimal test")


@functools.lru_cache(maxsize=256)
def selection_log_ratios(epsilon_step, features):
    """``(log(P / P'), log((1 - P) / (1 - P')))``: the log-likelihood ratios of D against D' when
    report-noisy-max over ``p = features`` scores with noise ``Lap(b')``, ``b' = 2 Delta / epsilon'``,
    picks the coordinate that leads every other by ``Delta`` in D (chance P) and trails each by
    ``Delta`` in D' (chance P'), and when it picks another (:func:`report_noisy_max_win`)."""
    lead = report_noisy_max_win(epsilon_step / 2.0, features)
    trail = report_noisy_max_win(-epsilon_step / 2.0, features)
    return float(np.log(lead / trail)), float(np.log1p(-lead) - np.log1p(-trail))


def report_noisy_max_win(shift, features):
    """The chance that a score ``shift`` above each of ``features - 1`` equal others (in units of the
    noise's scale) wins report-noisy-max with independent ``Lap(1)`` noise: ``int f(t) F(t +
    shift)^(p - 1) dt`` with f and F the density and distribution function of ``Lap(1)``, by
    quadrature (split at the kinks 0 and ``-shift``). For p = 2 it is the distribution function of the
    difference of two ``Lap(1)`` at ``shift``, ``1 - (1 + s / 2) e^-s / 2`` for ``s >= 0``."""
    from scipy import integrate

    def density(t):
        return 0.5 * math.exp(-abs(t))

    def distribution(t):
        return 0.5 * math.exp(t) if t < 0 else 1.0 - 0.5 * math.exp(-t)

    kinks = sorted({0.0, -shift})
    edges = [-60.0, *kinks, 60.0]
    return float(sum(integrate.quad(lambda t: density(t) * distribution(t + shift) ** (features - 1), a, b,
                                    epsabs=1e-14, epsrel=1e-12)[0]
                     for a, b in zip(edges[:-1], edges[1:])))


def sgd_pair(options, *, passes=4):
    """DP-SGD: one feature; the canary's per-sample gradient clipped to norm C is ``-/+ C``, the
    largest change of a batch's clipped sum. Full batches (``batch_size = n``, the default here)
    release it at every step: :func:`canary_problems` and the model's projection. Sampled batches:
    :func:`sampled_sgd_pair`."""
    arguments = {"passes": passes, "step": 0.5, "clip": 1.0, "batch_size": RECORDS, **options}
    if arguments["batch_size"] < RECORDS:
        return sampled_sgd_pair({**arguments, "passes": options.get("passes", SAMPLED_PASSES)})
    inside, outside = canary_problems([1.0])
    return CanaryPair(
        inside, outside, arguments, model_projection([1.0]),
        "the canary's clipped gradient is the largest change of each batch's sum it enters, and nothing else "
        "moves the model, so w sums every release's signal")


def sampled_sgd_pair(arguments):
    """DP-SGD with batches of b < n records drawn without replacement: the dominating pair, observed
    step by step (:data:`SAMPLED_PASSES` pass unless the options say otherwise).

    D' holds n copies of one record whose clipped gradient is ``+C``; D replaces one copy by the canary,
    whose clipped gradient is ``-C``. A batch's sum is ``b C`` on D' and, on D, ``(b - 2) C`` when it
    holds the canary (probability ``q = b / n``): after centring, ``N(0, s^2)`` against ``(1 - q) N(0,
    s^2) + q N(-2 C, s^2)``, the pair of :mod:`privcd.privacy.replace_one_pld` (the ``g'_i = g_k``
    case of its coupling). The adversary sees every iterate, as the guarantee allows (checkpoints at
    every step), reads each step's release ``x_t`` from two consecutive iterates, and sums the
    pair's log-likelihood ratios ``log((1 - q) + q exp(-2 C (x_t + C) / s^2))`` at the claimed ``s``:
    the Neyman-Pearson test of the composed pair.

    Large batches and few steps keep the claimed profile's tight part at rates 100,000 runs see. Read
    through the claimed profile at (2, 1e-5) with the Clopper-Pearson bounds of 90,000 runs at the
    best threshold (the pair's exact law, convolved): batches of 5 of 10 give 0.89 of the claim in 2
    steps and 0.91 in 20 (1.13 and 1.11 with a sixth less noise); batches of 2 of 10 in 20 steps give
    0.79 (1.00)."""
    n = RECORDS
    arguments = {**arguments, "checkpoints": MAX_ITERATIONS}
    X = np.ones((n, 1))
    outside_labels = np.full(n, -LABEL)
    inside_labels = outside_labels.copy()
    inside_labels[0] = LABEL
    inside, outside = (Problem(X, labels, "squared", "l2", 0.0, row_norm_bound=1.0)
                       for labels in (inside_labels, outside_labels))

    def score(module, problem, plan, seed):
        path = module.run(problem, plan, seed)[1][:, 0]
        clip, batch = plan.kernel["clip"], plan.kernel["batch_size"]
        releases = (path[:-1] - path[1:]) * batch / plan.kernel["step"] - batch * clip
        sigma = plan.calibration.noise_multiplier * 2.0 * clip  # the claim's, not a mutant's
        q = batch / problem.n_samples
        return float(np.sum(np.logaddexp(np.log1p(-q), np.log(q) - 2.0 * clip * (releases + clip) / sigma**2)))
    return CanaryPair(
        inside, outside, arguments, score,
        "the canary replaces a record whose clipped gradient is its opposite, the dominating pair of a step "
        "sampled without replacement, and the sum of each step's likelihood ratio is the optimal test")


def dual_pair(options, *, passes=2):
    """DP-SCD and SEQDP-SCD: :func:`hidden_dual_pair` with noise on every dual (the default);
    :func:`revealed_dual_pair` with noise on the batch's duals only (dp-scd Algorithm 1 as printed)."""
    if options.get("noise") == "batch-duals" or options.get("accountant") in ("paper", "exact"):
        return revealed_dual_pair(options)
    return hidden_dual_pair(options, passes=passes)


def hidden_dual_pair(options, *, passes=2):
    """DP-SCD with noise on every dual: two records and batches of one, the adversary reading every
    step's ``v`` and the final duals.

    Both records are ``x = 1`` (norm 1). The other record is labelled ``-Y``: its update saturates at
    ``-C`` whenever it is drawn. The canary is labelled ``+Y`` in D (update ``+C``) and ``-Y`` in D'
    (``-C``, a copy of the other). A step draws the canary with probability ``q = 1/2`` and adds to
    ``(alpha_canary, alpha_other, v)`` one of

        D:  (0, -C, -C) w.p. 1 - q,  (+C, 0, +C) w.p. q;    D':  (0, -C, -C) w.p. 1 - q,  (-C, 0, -C) w.p. q,

    plus ``N(0, s^2)`` on each: three points whose distances are ``sqrt(6) C``, ``sqrt(2) C`` and
    ``sqrt(8) C``, against the accounting's ``sqrt(8) C`` and 0 (:mod:`privcd.privacy.replace_one_pld`:
    a dual coordinate belongs to its record, so D' cannot put its canary's update where the other
    record's goes). ``v`` shows the draw in D only; the duals' counts show it in both.

    Score: the log-likelihood ratio of the observed ``v`` increments ``x_t`` (checkpoints at every
    iteration) and final duals ``(a_1, a_2)``, whose noise is ``N(0, T s^2)`` each, at the claimed s:
    with ``N`` the number of the canary's draws, ``Bin(T, q)``,

        D:  sum over draw sequences of prod_t phi(x_t -/+ C) phi(a_1 - C N) phi(a_2 + C (T - N)),
        D': prod_t phi(x_t + C) sum_N Bin(N) phi(a_1 + C N) phi(a_2 + C (T - N)),

    D's sum taken by a recursion over t on N (:func:`dual_log_likelihoods`)."""
    X = np.ones((2, 1))
    inside, outside = (Problem(X, np.array([sign * LABEL, -LABEL]), "squared", "l2", 1.0, row_norm_bound=1.0)
                       for sign in (1.0, -1.0))

    def score(module, problem, plan, seed):
        _, path, alpha, _ = dp_scd.run_kernel(problem, plan, seed)
        lam_n = problem.lam * problem.n_samples
        releases = np.diff(path[:, 0]) * lam_n
        sigma = plan.calibration.noise_multiplier * plan.info["sensitivity"]  # the claim's, not a mutant's
        q = plan.kernel["batch_size"] / problem.n_samples  # one of the two records a step
        inside_ll, outside_ll = dual_log_likelihoods(releases, alpha, plan.kernel["clip"], sigma, q=q)
        return float(inside_ll - outside_ll)
    return CanaryPair(
        inside, outside, {"passes": passes, "step": 1.0, "clip": 0.01, "batch_size": 1, **options,
                          "checkpoints": MAX_ITERATIONS}, score,
        "the canary's update goes to its own dual and to v, +C in D and -C in D' where the other record's goes "
        "to the other dual and to v, and the likelihood ratio of every step's v and the final duals is the test")


def dual_log_likelihoods(releases, alpha, clip, sigma, *, q):
    """Log-likelihoods, up to a common constant, of :func:`hidden_dual_pair`'s observations under D
    and D': ``releases`` the T increments of v, ``alpha`` the final duals (canary first)."""
    T = releases.size
    up = -0.5 * ((releases - clip) / sigma) ** 2 + math.log(q)
    down = -0.5 * ((releases + clip) / sigma) ** 2 + math.log1p(-q)
    log_paths = np.full(T + 1, -np.inf)  # log of the summed weights of the draw sequences with N canary draws
    log_paths[0] = 0.0
    for t in range(T):
        log_paths[1:t + 2] = np.logaddexp(log_paths[:t + 1] + up[t], log_paths[1:t + 2] + down[t])
        log_paths[0] += down[t]
    counts = np.arange(T + 1)
    spread = 2.0 * T * sigma**2
    other = -(alpha[1] + clip * (T - counts)) ** 2 / spread
    inside = np.logaddexp.reduce(log_paths - (alpha[0] - clip * counts) ** 2 / spread + other)
    outside = np.sum(down - math.log1p(-q)) + np.logaddexp.reduce(
        log_binomial(T, q) - (alpha[0] + clip * counts) ** 2 / spread + other)
    return inside, outside


@functools.lru_cache(maxsize=16)
def log_binomial(T, q):
    """``log P(N = k)``, k = 0..T, for N ~ Bin(T, q)."""
    return np.array([math.lgamma(T + 1) - math.lgamma(k + 1) - math.lgamma(T - k + 1)
                     + k * math.log(q) + (T - k) * math.log1p(-q) for k in range(T + 1)])


def revealed_dual_pair(options, *, passes=1):
    """DP-SCD with noise on the batch's duals only (``noise="batch-duals"``, dp-scd Algorithm 1 as
    printed): rows of norm <= 1, the canary ``e_1`` (x = 1), the others zero; its dual update, scaled
    to ``|zeta| <= C``, saturates at ``+C`` (D) or ``-C`` (D') whenever it is in the batch. The score
    is ``alpha_1``, which stays exactly 0 until the canary is in a batch and then carries its update
    under one step's noise: the batch is revealed, which the paper's accounting (amplification by
    sampling) assumes hidden."""
    inside, outside = canary_problems([1.0], lam=1.0, records=RECORDS * 10)

    def score(module, problem, plan, seed):
        _, _, alpha, _ = dp_scd.run_kernel(problem, plan, seed)
        return float(alpha[0])
    return CanaryPair(
        inside, outside, {"passes": passes, "step": 1.0, "clip": 0.01, "batch_size": 1, **options}, score,
        "the canary's dual update saturates at +/-C in every batch that holds it, and alpha_1 carries it "
        "whenever the canary was drawn")


# Algorithm name -> design of its pair from the audit's options (a registered algorithm without one
# fails tests/test_audit.py).
PAIRS = {
    "dp-cd": coordinate_pair,
    "dp-gcd": greedy_pair,
    "dp-skgd": sketch_pair,
    "dp-sgd": sgd_pair,
    "dp-scd": dual_pair,
    "seqdp-scd": dual_pair,
}


def canary_pair(algorithm, options):
    """The :class:`CanaryPair` of ``algorithm`` with the algorithm's ``options``."""
    if algorithm not in PAIRS:
        raise ValueError(f"no audit design for algorithm {algorithm!r}; expected one of {sorted(PAIRS)}")
    return PAIRS[algorithm](dict(options))
