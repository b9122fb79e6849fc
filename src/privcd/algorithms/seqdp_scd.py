"""SEQDP-SCD: DP-SCD with sequential updates inside a mini-batch (dp-scd Algorithm 3, a baseline).

Same problem, sampling, scaling, accounting and checks as :mod:`privcd.algorithms.dp_scd`; the
records of a mini-batch are updated one after the other (Algorithm 3 lines 5-10), each against the
``alpha`` and ``v`` left by the previous ones. Each update solves eq. (7) with the plain SDCA
scaling sigma' = 1 instead of L: the updates do not have to be safe to add up, as they see each
other (Algorithm 3 reuses the symbol ``G*_j``; sigma' = 1 is the natural SCD it describes, and the
authors' code).

Sensitivity. Replacing one record changes its own update by up to 2C (in ``alpha`` and, with
``||x|| <= 1``, in ``v``) and, through ``v``, every later update of the batch by up to 2C too:
``||Delta alpha||^2 <= 4 C^2 L`` and ``||Delta v|| <= 2 C L``, so the replace-one sensitivity of
``[alpha_B; v]`` is ``2 C sqrt(L (L + 1))``, dp-scd Lemma 3's bound. (Algorithm 3's noise
``sigma^2 (4 L^2 - 2) C^2`` is the same count for a zeroed record, whose own update moves by C.)
It is ``sqrt(L (L + 1) / 2)`` times DP-SCD's ``2 sqrt(2) C``: equal for L = 1, larger beyond.

Privacy: as DP-SCD's (``noise``, ``accountant``). With noise on every dual, the release of a batch
is no sum of per-record vectors, but the argument of :mod:`privcd.privacy.replace_one_pld` needs
only that putting another record in one slot of the batch, or replacing the record, moves the
noiseless release by at most the sensitivity, which Lemma 3's bound gives for any slot.

Options: as :mod:`privcd.algorithms.dp_scd`.
"""
import math

from privcd.algorithms import dp_scd

NAME = "seqdp-scd"
DISPLAY = "SEQDP-SCD"  # its name in figures and tables
OPTIONS = dict(dp_scd.OPTIONS)
JOINT_RELEASE = True  # DP-SCD's plan
NOISE_KEY = dp_scd.NOISE_KEY  # DP-SCD's plan
TUNING_ACCOUNTANT, ESTIMATOR_CLIP, THEORY_PASSES = dp_scd.TUNING_ACCOUNTANT, dp_scd.ESTIMATOR_CLIP, dp_scd.THEORY_PASSES
estimator_options = dp_scd.estimator_options  # as DP-SCD
SMOOTHNESS_FROM_PROBLEM = None  # as DP-SCD
ACCOUNTANTS = dp_scd.ACCOUNTANTS  # as DP-SCD (its noise models and accountants)
check_options = dp_scd.check_options  # as DP-SCD


def sensitivity(clip, batch_size):
    """Replace-one L2 sensitivity of one mini-batch release ``[alpha_B; v]``: ``2 C sqrt(L (L + 1))``."""
    return 2.0 * clip * math.sqrt(batch_size * (batch_size + 1.0))


def iterations_per_pass(problem, options):
    """N / L mini-batches make one pass."""
    return dp_scd.iterations_per_pass(problem, options)


def plan(problem, settings, options):
    """As DP-SCD's plan, with sequential updates and Lemma 3's sensitivity."""
    return dp_scd.dual_plan(problem, settings, options, sensitivity=sensitivity, sequential=True)


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_scd.dp_scd` kernel in sequential mode; ``w = theta``."""
    return dp_scd.run_dual(problem, plan, seed)
