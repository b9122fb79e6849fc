"""privcd's mechanisms as dp-accounting events, and the sensitivity their noise is scaled by.

Convention (all algorithms)
---------------------------
Neighbouring datasets differ by replacing one record (replace-one), as in the papers. privcd's
noise multiplier ``z`` is the noise standard deviation over the replace-one L2 sensitivity of the
released quantity, ``Delta = sup ||f(D) - f(D')||`` over neighbours (dp-cd Lemma B.7): the kernel
adds ``N(0, (z Delta)^2 I)``. For a sum of one value of norm ``<= C`` per record (a clipped
gradient, a clipped gradient coordinate over ``n``), ``Delta = 2 C``: the replaced record's
value ``v`` may become ``-v`` (:func:`~privcd.privacy.mechanisms.gaussian_sensitivity`).

The events built here hold ``GaussianDpEvent(2 z)``: :class:`dp_accounting.GaussianDpEvent`
defines its multiplier as ``s / C`` with ``C`` the norm bound of one record's value, which is
``s / (Delta / 2) = 2 z``. Under replace-one neighbours (dp-accounting 0.6.0, read in its source):

- PLD accountant: ``GaussianDpEvent(w)`` and ``PoissonSampledDpEvent(q, GaussianDpEvent(w))`` go
  to ``from_gaussian_mechanism(standard_deviation=w, sensitivity=1, sampling_prob=q,
  neighboring_relation=REPLACE_ONE)``, i.e. ``GaussianPrivacyLoss(adjacency_type=REPLACE)``, whose
  pair is ``mu_upper(x) = q mu(x + 1) + (1 - q) mu(x)`` and ``mu_lower(x) = q mu(x - 1) +
  (1 - q) mu(x)`` (``AdditiveNoisePrivacyLoss`` docstring and ``mu_upper_cdf`` /
  ``mu_lower_log_cdf``): ``sensitivity`` is the norm bound ``C`` of one record's contribution and
  the two neighbouring outputs are ``2 C`` apart ("the privacy loss distribution for REPLACE
  adjacency corresponds to the same privacy loss distribution with twice the sensitivity").
  The PLD accountant reads the events of this module as documented.
- RDP accountant: reads the multiplier of a Gaussian, alone or sampled without replacement, as
  ``s / Delta``; :class:`privcd.privacy.replace_one_rdp.ReplaceOneRdpAccountant` halves it first,
  so the RDP accountant of privcd reads the same events as the same mechanisms.
- Exact accountant (:mod:`privcd.privacy.exact_gaussian`): reads them as documented.

So for every accountant and both samplings, the kernel's noise standard deviation is
``z * Delta``, with ``Delta`` from :func:`~privcd.privacy.mechanisms.gaussian_sensitivity` /
:func:`~privcd.privacy.mechanisms.subsampled_gaussian_sensitivity`. The mechanism families that map
``z`` to these events, without importing dp-accounting, are in :mod:`privcd.privacy.mechanisms`.
"""
import math

import attr
import dp_accounting
from dp_accounting import dp_event

from privcd.privacy.mechanisms import DISTANCE_PER_NORM_BOUND, check_subsampling
from privcd.validation import check_number, check_positive_int

REPLACE_ONE = dp_accounting.NeighboringRelation.REPLACE_ONE
ADD_OR_REMOVE_ONE = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
_SAMPLED_EVENTS = {dp_event.SampledWithoutReplacementDpEvent: "without-replacement",
                   dp_event.PoissonSampledDpEvent: "poisson"}


def _gaussian(noise_multiplier):
    """``GaussianDpEvent`` with dp-accounting's multiplier ``s / C = 2 z`` for privcd's ``z``."""
    z = check_number("noise_multiplier", noise_multiplier, low=0.0, low_open=False)
    return dp_event.GaussianDpEvent(DISTANCE_PER_NORM_BOUND * z)


def gaussian_composition_event(noise_multiplier, steps):
    """``steps`` adaptively composed Gaussian releases, no subsampling: DP-CD.

    dp-cd Algorithm 1 releases ``T K`` gradient coordinates, each with the Gaussian mechanism
    ``grad_j f(theta) + N(0, sigma_j^2)``, ``sigma_j = z Delta_j``; they compose adaptively
    (dp-cd Appendix B, Lemma B.9 and Theorem B.5), each being ``(alpha, alpha / (2 z^2))``-RDP
    (Lemma B.7) whatever the coordinate.

    Parameters
    ----------
    noise_multiplier : float
        ``z = sigma_j / Delta_j >= 0`` (0: no noise, epsilon = inf).
    steps : int
        Number of releases ``T K >= 1``.

    Returns
    -------
    dp_accounting.SelfComposedDpEvent
        ``steps`` times ``GaussianDpEvent(2 z)`` (dp-accounting's ``s / C``; module docstring).
    """
    return dp_event.SelfComposedDpEvent(_gaussian(noise_multiplier), check_positive_int("steps", steps))


def subsampled_gaussian_event(noise_multiplier, steps, *, batch_size, n, sampling):
    """``steps`` releases of a subsampled Gaussian sum: DP-SGD (dp-gcd Section 5).

    Each step sums the clipped per-sample gradients of a batch and adds ``N(0, (z 2 C)^2 I)``
    (:func:`~privcd.privacy.mechanisms.subsampled_gaussian_sensitivity`), with the batch drawn

    - ``"without-replacement"``: ``batch_size`` distinct records uniformly at random, independently
      across steps (``SampledWithoutReplacementDpEvent``; RDP accounting of Wang, Balle and
      Kasiviswanathan 2019, Theorem 27, as the dp-gcd experiments cite for DP-SGD, or PLD
      accounting of its dominating pair, :mod:`privcd.privacy.replace_one_pld`), or
    - ``"poisson"``: each record independently with probability ``q = batch_size / n``
      (``PoissonSampledDpEvent``; PLD accounting under replace-one).

    The kernel must draw batches exactly this way. Under replace-one, privcd reads the first with
    RDP or PLD and the second with PLD only; :func:`privcd.privacy.calibrate` names an unsupported
    pair.

    Parameters
    ----------
    noise_multiplier : float
        ``z = noise std / (2 C) >= 0``.
    steps : int
        Number of steps ``>= 1``.
    batch_size : int
        ``b`` with ``1 <= b <= n`` (the expected batch size for Poisson sampling).
    n : int
        Number of records.
    sampling : {"without-replacement", "poisson"}
    """
    steps, batch_size, n, sampling = check_subsampling(steps, batch_size, n, sampling)
    gaussian = _gaussian(noise_multiplier)
    if sampling == "poisson":
        sampled = dp_event.PoissonSampledDpEvent(sampling_probability=batch_size / n, event=gaussian)
    else:
        sampled = dp_event.SampledWithoutReplacementDpEvent(source_dataset_size=n, sample_size=batch_size,
                                                            event=gaussian)
    return dp_event.SelfComposedDpEvent(sampled, steps)


def pure_dp_composition_event(noise_multiplier, steps):
    """``steps`` adaptively composed ``epsilon'``-DP mechanisms, ``epsilon' = sqrt(2) / z``: DP-GCD's
    selections and releases (:class:`~privcd.privacy.mechanisms.PureDpComposition`).

    The pair of any ``epsilon'``-DP mechanism on neighbouring datasets is a post-processing of binary
    randomized response's, ``(e^eps' / (1 + e^eps'), 1 / (1 + e^eps'))`` against its mirror image
    (Kairouz, Oh and Viswanath 2015, Theorem 2.4: its trade-off curve is the lowest an
    ``epsilon'``-DP pair can have), so its Rényi divergences are at most randomized response's (data
    processing). dp-accounting's RDP accountant gives those for ``RandomizedResponseDpEvent(p, 2)``
    under REPLACE_ONE: outputs ``[1 - p / 2, p / 2]`` against ``[p / 2, 1 - p / 2]``, which is that pair
    for ``p = 2 / (1 + e^eps')``. A Laplace release is tighter alone (Mironov 2017, Proposition 6),
    but this bound holds for the exact discrete Laplace of a release as well.
    """
    z = check_number("noise_multiplier", noise_multiplier, low=0.0, low_open=False)
    steps = check_positive_int("steps", steps)
    if z == 0:
        return dp_event.SelfComposedDpEvent(dp_event.NonPrivateDpEvent(), steps)
    epsilon_step = math.sqrt(2.0) / z  # a Laplace variable of scale b has standard deviation sqrt(2) b
    response = dp_event.RandomizedResponseDpEvent(noise_parameter=2.0 / (1.0 + math.exp(epsilon_step)), num_buckets=2)
    return dp_event.SelfComposedDpEvent(response, steps)


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RevealedBatchGaussianDpEvent(dp_event.DpEvent):
    """``steps`` Gaussian releases over batches that the output reveals, each record in a batch with
    probability ``sampling_probability`` at each step (:mod:`privcd.privacy.revealed_batches`).

    ``noise_multiplier`` is dp-accounting's ``s / C`` (``2 z`` for privcd's ``z``), as for
    :class:`dp_accounting.GaussianDpEvent`. privcd's event; only the exact accountant reads it.
    """

    noise_multiplier: float
    steps: int
    sampling_probability: float


def revealed_batch_gaussian_event(noise_multiplier, steps, *, batch_size, n):
    """``steps`` Gaussian releases of multiplier ``z`` over revealed batches of ``batch_size`` of ``n``
    records drawn uniformly without replacement at each step: DP-SCD with noise on the batch's
    dual coordinates only (:mod:`privcd.algorithms.dp_scd`)."""
    steps, batch_size, n, _ = check_subsampling(steps, batch_size, n, "without-replacement")
    return RevealedBatchGaussianDpEvent(_gaussian(noise_multiplier).noise_multiplier, steps, batch_size / n)


def describe(event):
    """Short name of what ``event`` is made of, for error messages: the sampling of its first
    sampled sub-event (``"sampling='poisson'"``), else its class name."""
    pending = [event]
    while pending:
        current = pending.pop(0)
        if type(current) in _SAMPLED_EVENTS:
            return f"sampling={_SAMPLED_EVENTS[type(current)]!r}"
        if isinstance(current, dp_event.SelfComposedDpEvent):
            pending.append(current.event)
        elif isinstance(current, dp_event.ComposedDpEvent):
            pending.extend(current.events)
    return type(event).__name__
