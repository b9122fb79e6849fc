"""Where a run's random numbers come from: a secret draw (release) or a given seed (experiment).

One switch, the ``seed`` of :func:`privcd.fit`, :func:`privcd.fit_many` and
:func:`privcd.tune_private` (the estimators' ``random_state``):

* **release**, ``seed=None`` (the default): a :class:`numpy.random.SeedSequence` of 128 bits of
  the operating system's entropy (``secrets.randbits``), drawn afresh for every run and never
  from numpy's or Python's global state, seeds every generator the run uses. It is not kept on
  the result, so nobody, the curator included, can replay the noise.
* **experiment**, an integer in ``[0, 2**32)`` or a ``SeedSequence``: the same seed gives the same
  bits. Whoever knows the seed can recompute the noise and subtract it, so an experiment's output
  is not a private release; the pipeline's runs are experiments (seeds derived from each run's
  identity, :mod:`privcd.tuning.seeds`).

Derived streams: :func:`child` gives the ``SeedSequence`` of a numbered sub-stream, for an integer
seed exactly ``SeedSequence(seed, spawn_key=keys)`` (the streams the experiments have always used),
for a ``SeedSequence`` its descendant with ``keys`` appended to its spawn key.

What release mode gives and does not yet give: no release samples noise in floating point (Mironov
2012). DP-CD's, DP-SkGD's, DP-SGD's and DP-SCD's Gaussian noise is the exact discrete Gaussian on a
grid (:mod:`privcd.privacy.grid_gaussian`, :mod:`privcd.privacy.grid_sum`,
:mod:`privcd.privacy.grid_dual`), DP-GCD's selections and released gradient entries and DP-CD-P's
Laplace release of its constants the exact discrete Laplace (:mod:`privcd.privacy.greedy_composition`,
:mod:`privcd.privacy.grid_laplace`), private tuning's scores a discrete Gaussian
(:mod:`privcd.privacy.grid_score`); options without a grid argument (DP-SGD's Poisson sampling,
SEQDP-SCD, DP-SCD's noise on the batch's duals only, DP-GCD's GS-q rule under L1) are refused in a
release, naming the alternatives. Every kernel's generator is a statistical one (PCG64, and
SplitMix64 with a 64-bit key, :mod:`privcd.kernels.streams`), not a cryptographic one. The
README's *Privacy guarantees* says what that leaves open.
"""
import numpy as np

from privcd.validation import check_seed

RELEASE = "release"
EXPERIMENT = "experiment"


class ReleaseSeed(np.random.SeedSequence):
    """The seed of a release: a ``SeedSequence`` of fresh OS entropy whose type tells the mechanisms
    to sample as a release must (noise on a grid, module docstring); its sub-streams
    (:func:`child`) are release seeds too."""


def resolve_seed(seed):
    """``(mode, seed)``: ``("release", ReleaseSeed())`` for ``None``, ``("experiment", seed)`` for an
    integer in ``[0, 2**32)`` or a :class:`numpy.random.SeedSequence`; ``ValueError`` otherwise."""
    if seed is None:
        return RELEASE, ReleaseSeed()
    if isinstance(seed, np.random.SeedSequence):
        return EXPERIMENT, seed
    try:
        return EXPERIMENT, check_seed(seed)
    except ValueError:
        raise ValueError(f"seed={seed!r}: expected None (a private release, seeded by the operating system's "
                         f"entropy), an integer in [0, 2**32) or a numpy.random.SeedSequence (a reproducible "
                         f"experiment)") from None


def child(seed, *keys):
    """The ``SeedSequence`` of sub-stream ``keys`` of ``seed`` (an integer or a ``SeedSequence``)."""
    if isinstance(seed, np.random.SeedSequence):
        return type(seed)(seed.entropy, spawn_key=(*seed.spawn_key, *keys), pool_size=seed.pool_size)
    return np.random.SeedSequence(seed, spawn_key=keys)



def seed_identity(seed):
    """A hashable value equal for two seeds exactly when they seed the same generators."""
    if isinstance(seed, np.random.SeedSequence):
        return (seed.entropy, seed.spawn_key, seed.pool_size)
    return seed
