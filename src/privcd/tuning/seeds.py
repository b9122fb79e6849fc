"""Seeds derived from a run's identity, never from the order in which runs are made.

benchopt's ``get_seed`` convention: the seed of a run is a hash of what the run *is* (base seed,
problem, algorithm, configuration, stage, repetition), so splitting a grid into other chunks,
running it on other machines or re-running a subset reproduces every number bit for bit.

The configuration part of the identity leaves out the hyperparameters the algorithm's random
draws do not depend on (its ``SHARED_DRAWS``, :func:`draws_identity`): runs that differ only in
those share their draws (common random numbers) and run in one kernel call
(:func:`privcd.fit_many`). It also leaves out the ``accountant`` of every algorithm: an accountant
sets the noise's scale, never which numbers are drawn, so naming the papers' accountants in the
configs (where the library's default moved to the tightest) keeps the seeds, and the numbers, of
the reproductions.
"""
import hashlib
import numbers

from privcd.algorithms import get_algorithm
from privcd.identity import ACCOUNTING_OPTIONS, canonical_json, configuration_id

SEED_BOUND = 2**32  # numba's np.random.seed accepts [0, 2**32)
STAGES = ("tune", "final", "timing")


def derive_seed(base_seed, problem, algorithm, configuration_id, repetition, stage="tune"):
    """The kernel seed of one run: the first 4 bytes of sha256 of its identity, in [0, 2**32).

    Parameters
    ----------
    base_seed : int
        The experiment's base seed (config key ``base_seed``).
    problem : str
        Problem identity (``"<paper>/<problem>"``).
    algorithm : str
    configuration_id : str
        :func:`privcd.identity.configuration_id` of the hyperparameters.
    repetition : int
        Index of the run among the repetitions of that configuration, ``>= 0``.
    stage : {"tune", "final", "timing"}
        Part of the identity so the final runs of the selected configuration are fresh draws,
        not the tuning runs it was selected on (which would bias the reported error downwards).
    """
    if isinstance(base_seed, bool) or not isinstance(base_seed, numbers.Integral):
        raise ValueError(f"base_seed={base_seed!r} must be an integer")
    if isinstance(repetition, bool) or not isinstance(repetition, numbers.Integral) or repetition < 0:
        raise ValueError(f"repetition={repetition!r} must be an integer >= 0")
    if stage not in STAGES:
        raise ValueError(f"stage={stage!r} is not accepted; expected one of {list(STAGES)}")
    identity = canonical_json([int(base_seed), str(problem), str(algorithm), str(configuration_id),
                               stage, int(repetition)])
    return int.from_bytes(hashlib.sha256(identity.encode()).digest()[:4], "big") % SEED_BOUND


def draws_identity(algorithm, configuration):
    """:func:`~privcd.identity.configuration_id` of ``configuration`` without the hyperparameters
    in the ``SHARED_DRAWS`` of ``algorithm``'s module (DP-CD, DP-GCD, DP-SGD: step and clip) and
    :data:`ACCOUNTING_OPTIONS`: the configuration part of a run's seed identity."""
    shared = (*getattr(get_algorithm(algorithm), "SHARED_DRAWS", ()), *ACCOUNTING_OPTIONS)
    return configuration_id({key: value for key, value in configuration.items() if key not in shared})
