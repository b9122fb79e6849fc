"""DP-SGD's release on a grid: a batch's clipped gradient sum rounded to integers plus discrete Gaussians.

An experiment's DP-SGD step adds ``N(0, s^2 I_p)`` in floating point to the summed clipped
gradients ``G`` of a batch of ``m`` records; the floats it can output depend on ``G`` (Mironov 2012).
A release (:func:`privcd.kernels.dp_sgd_grid.dp_sgd_on_grid`) releases the integer vector

    v = rint(fl(G / h)) + Z,    h = 2 C / K,    Z ~ N_Z(0, s^2)^p,

``Z`` exact discrete Gaussians (:func:`privcd.kernels.discrete_noise.discrete_gaussian`), and steps
with ``h v``: post-processing. ``K`` is a power of two, so ``h`` is exact (:func:`sum_grid_ratio`).

L2 sensitivity in grid units (:func:`sum_sensitivity_units`). Neighbours (replace-one) share the
batch's indices and the iterate, so every shared record's term is the same bits and only the
replaced record's term differs. With ``u = 2^-53``:

* each computed term ``fl(c_i x_i)`` has norm at most ``C (1 + (p + 8) u)``: the clipping factor
  ``c_i`` divides by a row norm computed with relative error below ``(p / 2 + 2) u``, and
  three more roundings each give ``(1 + u)``;
* the batch sum is recursive, so each coordinate is within ``gamma_{m-1} sum_i |term_ij|`` of the
  exact sum of the computed terms (Higham 2002, eq. (4.4)), an error vector of norm at most
  ``gamma_{m-1} m C (1 + (p + 8) u)``;
* the division by ``h`` has relative error ``u`` per coordinate, at most ``u m K (1 + (p + 8) u)
  (1 + gamma_{m-1}) / 2`` in norm for each neighbour.

So the two ``fl(G / h)`` are at most ``D = K (1 + (p + 8) u) (1 + m gamma_{m-1}) + u m K (1 + (p + 8)
u) (1 + gamma_{m-1})`` apart, and rounding each coordinate to the nearest integer moves their
difference by at most 1 per coordinate, ``sqrt(p)`` in norm: ``S = floor(D) + isqrt(p) + 2``
bounds the integers' distance, computed exactly in rationals. ``K`` is taken large against
``sqrt(p)`` (at least ``64 sqrt(p)``), so that ``S / K`` stays near 1.

Privacy. For an integer shift ``v``, ``N_Z(v, s^2 I)`` against ``N_Z(0, s^2 I)`` has Renyi
divergence at most ``alpha ||v||^2 / (2 s^2)`` at every order (Canonne, Kamath and Steinke 2020,
Proposition 5 per coordinate, and divergences of products add), the continuous Gaussian's at
multiplier ``s / ||v||``. Theorem 27 of Wang, Balle and Kasiviswanathan (2019), the RDP of a
mechanism run on a batch drawn without replacement, takes nothing from the base mechanism but its
RDP curve, so the continuous accounting of ``accountant="rdp"``
(:class:`~privcd.privacy.replace_one_rdp.ReplaceOneRdpAccountant`) at noise multiplier
``s / S`` bounds the release: :func:`sampled_grid_noise` calibrates that multiplier ``z_rdp`` to
the run's epsilon and takes ``s = ceil(z_rdp S)``. The RDP route costs more noise than the PLD of an
experiment (``"pld"``, 1.1-2.2x); no dominating pair of the sampled discrete Gaussian sum is known
to privcd. Poisson sampling has no such general theorem here and is refused in a release
(:mod:`privcd.algorithms.dp_sgd`).
"""
import math
from dataclasses import dataclass
from fractions import Fraction

from privcd.kernels.discrete_noise import MAX_SIGMA
from privcd.privacy.grid_gaussian import FINEST_RATIO, ROUNDING, largest_fitting_ratio, summation_gamma
from privcd.validation import check_number, check_positive_int

ROUNDING_SHARE = 64  # K >= ROUNDING_SHARE sqrt(p): the rounding's sqrt(p) is at most 1/64 of the sensitivity


@dataclass(frozen=True)
class GridSumNoise:
    """A release's grid noise for DP-SGD: grid ratio ``K`` (``h = 2 C / K``), L2 sensitivity ``S`` and
    standard deviation ``s`` in grid units, the RDP noise multiplier calibrated, and the epsilon
    it certifies at the run's delta (module docstring)."""

    grid_ratio: int
    sensitivity_units: int
    sigma_units: int
    rdp_noise_multiplier: float
    epsilon: float


def sum_grid_ratio(n_features, noise_multiplier):
    """``K``: the smallest power of two at least ``max(1024, 64 sqrt(p))``, lowered (to at least 1)
    while ``s`` would pass half the sampler's limit ``MAX_SIGMA``."""
    p = check_positive_int("n_features", n_features)
    z = check_number("noise_multiplier", noise_multiplier, low=0.0)
    wanted = max(FINEST_RATIO, 2 ** math.ceil(math.log2(ROUNDING_SHARE * math.sqrt(p))))
    return largest_fitting_ratio(wanted, lambda ratio: 2.0 * z * (1.0 + ROUNDING_SHARE ** -1) * ratio <= MAX_SIGMA)


def sum_sensitivity_units(batch_size, n_features, ratio, term_bound=1):
    """``S``: the most two neighbours' ``rint(fl(G / h))`` can be apart in L2 (module docstring), exactly,
    for computed terms of norm at most ``C term_bound (1 + (p + 8) u)`` (``term_bound`` a rational >= 1:
    1 for DP-SGD's clipped gradients, the rows' checked bound for DP-SCD's :mod:`~privcd.privacy.grid_dual`)."""
    m = check_positive_int("batch_size", batch_size)
    p = check_positive_int("n_features", n_features)
    k = check_positive_int("ratio", ratio)
    gamma = summation_gamma(m)
    term = Fraction(term_bound) * (1 + (p + 8) * ROUNDING)
    spread = Fraction(k) * term * (1 + m * gamma) + ROUNDING * m * k * term * (1 + gamma)
    return math.floor(spread) + math.isqrt(p) + 2


def sampled_grid_noise(steps, *, batch_size, n, n_features, epsilon, delta):
    """The :class:`GridSumNoise` of a DP-SGD release of ``steps`` steps over batches of ``batch_size``
    of ``n`` records drawn without replacement, within ``epsilon`` at ``delta`` (module docstring)."""
    from privcd.privacy.calibration import calibrate_subsampled

    calibration = calibrate_subsampled(steps, batch_size=batch_size, n=n, sampling="without-replacement",
                                       epsilon=epsilon, delta=delta, accountant="rdp")
    z = calibration.noise_multiplier
    ratio = sum_grid_ratio(n_features, z)
    sensitivity = sum_sensitivity_units(batch_size, n_features, ratio)
    sigma = max(1, math.ceil(z * sensitivity))
    if sigma > MAX_SIGMA:
        raise ValueError(f"a DP-SGD release would need a discrete Gaussian of sigma {sigma} > {MAX_SIGMA} grid units "
                         f"(noise multiplier {z:.4g}); lower the noise (a larger epsilon or fewer passes)")
    return GridSumNoise(ratio, sensitivity, sigma, z, calibration.epsilon)
