"""privcd's mechanism families as plain values: what is released, how often, which accountant reads it.

A mechanism family maps a noise multiplier ``z`` (noise standard deviation over the replace-one
L2 sensitivity of each release, :mod:`privcd.privacy.events`) to the dp-accounting event of a
whole run. privcd has four:

- :class:`GaussianComposition`: ``steps`` adaptively composed Gaussian releases (DP-CD, dp-cd
  Algorithm 1 and Appendix B; DP-SkGD);
- :class:`SubsampledGaussian`: ``steps`` releases of a Gaussian sum over a sampled batch (DP-SGD,
  dp-gcd Section 5; DP-SCD, dp-scd Algorithm 1, with noise on every dual coordinate);
- :class:`RevealedBatchGaussian`: ``steps`` Gaussian releases over sampled batches that the output
  reveals (DP-SCD with noise on the batch's dual coordinates only, dp-scd Algorithm 1 line 13);
- :class:`PureDpComposition`: ``steps`` adaptively composed pure-DP mechanisms (DP-GCD's
  selections and Laplace releases, dp-gcd Algorithm 1), whose ``z`` is a Laplace release's
  standard deviation over its sensitivity.

They are frozen dataclasses, so they are hashable, compare by value and serialise to a JSON key
(:attr:`key`): the identity under which a calibration is cached and stored
(:mod:`privcd.privacy.reuse`). Nothing here imports dp-accounting (0.8 s): calling a family,
``family(z)``, builds its event through :mod:`privcd.privacy.events`, which does, so a process
that never calibrates (``epsilon = inf``) or reuses stored calibrations never pays for it.

:attr:`accountants` lists the accountants of :mod:`privcd.privacy.accountants` that read the
family under replace-one neighbours with dp-accounting 0.6.0 (a test checks it against each
accountant's ``supports``), so an unsupported pair is refused before any import.
"""
import dataclasses
import importlib.metadata
from typing import ClassVar

from privcd import privacy
from privcd.validation import check_choice, check_positive, check_positive_int

ACCOUNTANTS = ("rdp", "pld", "pld-two-orders", "exact")
SAMPLINGS = ("without-replacement", "poisson")
DISTANCE_PER_NORM_BOUND = 2.0  # replace-one: two records of norm <= C are up to 2 C apart
# Accountants that read a sampled Gaussian under replace-one neighbours, by sampling.
_SAMPLED_ACCOUNTANTS = {"without-replacement": ("rdp", "pld", "pld-two-orders"), "poisson": ("pld", "pld-two-orders")}


def check_accountant(name):
    """``name`` if it is a registered accountant; ``ValueError`` naming it and the choices otherwise."""
    if not isinstance(name, str) or name not in ACCOUNTANTS:
        raise ValueError(f"accountant={name!r} is not a known accountant; expected one of {list(ACCOUNTANTS)}")
    return name


def unsupported(accountant, what, able):
    """The ``ValueError`` for an accountant that cannot read ``what`` (``able``: those that can)."""
    return ValueError(f"accountant={accountant!r} does not support {what} under replace-one neighbours "
                      f"(dp-accounting {importlib.metadata.version('dp-accounting')}); "
                      f"accountants that do: {list(able)}")


def gaussian_sensitivity(bound):
    """Replace-one L2 sensitivity of a sum with one value of norm ``<= bound`` per record.

    ``Delta = 2 bound``: replacing a record turns its value ``v`` into any ``v'`` with
    ``||v'|| <= bound``, and ``||v - v'|| <= 2 bound`` is attained at ``v' = -v``. DP-CD releases
    ``(1/n) sum_i clip(g_ij, C_j)`` (dp-cd Algorithm 1 line 7), so ``bound = C_j / n`` and
    ``Delta_j = 2 C_j / n`` (dp-cd Theorem 3.1's ``Delta(grad_j f) <= 2 L_j / n``). The kernel's
    noise standard deviation is ``noise_multiplier * Delta`` for :class:`GaussianComposition`.
    """
    return DISTANCE_PER_NORM_BOUND * check_positive("bound", bound)


def subsampled_gaussian_sensitivity(clip, sampling):
    """Replace-one L2 sensitivity of the summed clipped gradients of one batch: ``2 clip``.

    The same for both samplings: the batches of neighbouring datasets are coupled to hold the same
    positions, so the sums differ by ``g_i - g_i'`` (when position ``i`` is drawn), of norm at
    most ``2 clip``. The kernel's noise standard deviation is ``noise_multiplier * 2 clip`` for
    :class:`SubsampledGaussian`, and that is what its event tells each accountant: RDP (without
    replacement) reads ``noise std / (2 clip)`` after privcd's halving, PLD (Poisson) reads
    ``noise std / clip`` with neighbouring means ``+clip`` and ``-clip``, 2 clip apart (see
    :mod:`privcd.privacy.events` for the source lines).

    Parameters
    ----------
    clip : float
        Per-sample gradient clipping norm ``C > 0``.
    sampling : {"without-replacement", "poisson"}
        How batches are drawn (checked).
    """
    check_choice("sampling", sampling, SAMPLINGS)
    return gaussian_sensitivity(check_positive("clip", clip))


def check_subsampling(steps, batch_size, n, sampling):
    """``(steps, batch_size, n, sampling)`` checked: integers ``>= 1``, ``batch_size <= n``, a known
    sampling."""
    steps = check_positive_int("steps", steps)
    n = check_positive_int("n", n)
    batch_size = check_positive_int("batch_size", batch_size)
    if batch_size > n:
        raise ValueError(f"batch_size={batch_size} exceeds the number of records n={n}")
    check_choice("sampling", sampling, SAMPLINGS)
    return int(steps), int(batch_size), int(n), sampling


class Mechanism:
    """What the families share: the JSON key, the accountant check, ``family(z) -> event``."""

    KIND: ClassVar[str]

    @property
    def key(self):
        """``{"mechanism": KIND, <field>: <value>, ...}``: the family's identity in a calibration store."""
        return {"mechanism": self.KIND, **dataclasses.asdict(self)}

    def check_accountant(self, accountant):
        """``accountant`` if it reads this family; ``ValueError`` naming the pair otherwise."""
        if check_accountant(accountant) not in self.accountants:
            raise unsupported(accountant, self.description, self.accountants)
        return accountant


@dataclasses.dataclass(frozen=True)
class GaussianComposition(Mechanism):
    """``steps`` adaptively composed Gaussian releases of multiplier ``z`` (dp-cd Appendix B,
    Lemma B.9 and Theorem B.5): ``z -> privacy.gaussian_composition_event(z, steps)``."""

    steps: int
    KIND: ClassVar[str] = "gaussian-composition"
    accountants: ClassVar[tuple] = ACCOUNTANTS
    description: ClassVar[str] = "a composition of Gaussians"

    def __post_init__(self):
        object.__setattr__(self, "steps", int(check_positive_int("steps", self.steps)))

    def __call__(self, noise_multiplier):
        return privacy.gaussian_composition_event(noise_multiplier, self.steps)


@dataclasses.dataclass(frozen=True)
class SubsampledGaussian(Mechanism):
    """``steps`` releases of a Gaussian sum over a batch of ``batch_size`` of ``n`` records drawn
    by ``sampling`` (dp-gcd Section 5, dp-scd Algorithm 1):
    ``z -> privacy.subsampled_gaussian_event(z, steps, batch_size=, n=, sampling=)``."""

    steps: int
    batch_size: int
    n: int
    sampling: str
    KIND: ClassVar[str] = "subsampled-gaussian"

    def __post_init__(self):
        for name, value in zip(("steps", "batch_size", "n", "sampling"),
                               check_subsampling(self.steps, self.batch_size, self.n, self.sampling)):
            object.__setattr__(self, name, value)

    @property
    def accountants(self):
        return _SAMPLED_ACCOUNTANTS[self.sampling]

    @property
    def description(self):
        return f"sampling={self.sampling!r}"

    def __call__(self, noise_multiplier):
        return privacy.subsampled_gaussian_event(noise_multiplier, self.steps, batch_size=self.batch_size,
                                                 n=self.n, sampling=self.sampling)


@dataclasses.dataclass(frozen=True)
class RevealedBatchGaussian(Mechanism):
    """``steps`` Gaussian releases over batches of ``batch_size`` of ``n`` records, drawn uniformly
    without replacement at each step and revealed by the output: no amplification by sampling
    (:mod:`privcd.privacy.revealed_batches`):
    ``z -> privacy.revealed_batch_gaussian_event(z, steps, batch_size=, n=)``."""

    steps: int
    batch_size: int
    n: int
    KIND: ClassVar[str] = "revealed-batch-gaussian"
    accountants: ClassVar[tuple] = ("exact",)
    description: ClassVar[str] = "Gaussian releases over revealed batches"

    def __post_init__(self):
        steps, batch_size, n, _ = check_subsampling(self.steps, self.batch_size, self.n, "without-replacement")
        for name, value in zip(("steps", "batch_size", "n"), (steps, batch_size, n)):
            object.__setattr__(self, name, value)

    def __call__(self, noise_multiplier):
        return privacy.revealed_batch_gaussian_event(noise_multiplier, self.steps, batch_size=self.batch_size,
                                                     n=self.n)


@dataclasses.dataclass(frozen=True)
class PureDpComposition(Mechanism):
    """``steps`` adaptively composed ``epsilon'``-DP mechanisms with ``epsilon' = sqrt(2) / z`` (z: the
    standard deviation over the sensitivity of a Laplace release of scale ``Delta / epsilon'``,
    DP-GCD's ``Run.noise_multiplier``): ``z -> privacy.pure_dp_composition_event(z, steps)``, read
    by RDP only (:func:`privcd.privacy.events.pure_dp_composition_event`)."""

    steps: int
    KIND: ClassVar[str] = "pure-dp-composition"
    accountants: ClassVar[tuple] = ("rdp",)
    description: ClassVar[str] = "a composition of pure-DP mechanisms"

    def __post_init__(self):
        object.__setattr__(self, "steps", int(check_positive_int("steps", self.steps)))

    def __call__(self, noise_multiplier):
        return privacy.pure_dp_composition_event(noise_multiplier, self.steps)
