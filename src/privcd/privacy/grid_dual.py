"""DP-SCD's release on grids: the dual and shared vectors kept as integers, plus discrete Gaussians.

An experiment's DP-SCD step (:mod:`privcd.algorithms.dp_scd`, ``noise="all-duals"``) adds
``N(0, s^2)`` in floating point to every dual variable and to every entry of ``v``; the floats it
can output depend on the data (Mironov 2012). A release
(:func:`privcd.kernels.dp_scd_grid.dp_scd_on_grid`) keeps the state as integers, ``alpha =
h_a A`` and ``v = h_v V``, and releases at every step

    A <- A + rint(fl(zeta_B / h_a)) + Z_a,    V <- V + rint(fl(G / h_v)) + Z_v,

``zeta_B`` the batch's scaled updates (one per member, in its coordinate), ``G = sum_{k in B}
fl(zeta_k x_k)`` summed in batch order, ``Z_a ~ N_Z(0, s_a^2)^N`` and ``Z_v ~ N_Z(0, s_v^2)^p`` exact
discrete Gaussians (:mod:`privcd.kernels.discrete_noise`), with ``h_a = 2 C / K_a`` and ``h_v = 2 C /
K_v`` exact (powers of two ``K``). Every update is computed from the released integers and the data:
the floats are post-processing.

Sensitivity in grid units (replace-one; the neighbours share the state, the batch and every other
record's bits):

* duals: only the replaced record's coordinate moves. ``|zeta| <= C`` exactly (a clamp), so
  ``fl(zeta / h_a)`` lies in ``[-K_a / 2, K_a / 2]`` (``fl`` is monotone and ``K_a / 2`` a float), and
  so does its nearest integer: ``S_a = K_a``;
* ``v``: the terms are ``fl(zeta_k x'_kj)`` with ``|zeta_k| <= C`` and rows ``x' = fl(x / R)`` of
  norm at most ``1 + 1e-12`` as checked (``ROW_NORM_TOLERANCE``), so each computed term has norm at
  most ``C (1 + 1e-12) (1 + (p + 8) u)``, and :func:`privcd.privacy.grid_sum.sum_sensitivity_units`'s
  argument (Higham's summation bound, the division by ``h_v``, the rounding's ``sqrt(p)``) gives
  ``S_v``, with ``K_v >= max(1024, 64 sqrt(p))`` (:func:`~privcd.privacy.grid_sum.sum_grid_ratio`).

Privacy of the eager mechanism, where every coordinate of ``A`` takes its discrete Gaussian at every
step. For an integer shift, ``N_Z(d, s^2)`` against ``N_Z(0, s^2)`` has Renyi divergence at most
``alpha d^2 / (2 s^2)`` (Canonne, Kamath and Steinke 2020, Proposition 5), and divergences of
independent coordinates add, so a step on a fixed batch is within ``alpha (S_a^2 / s_a^2 + S_v^2 /
s_v^2) / 2``: the continuous Gaussian's RDP at multiplier ``z_eff = (S_a^2 / s_a^2 + S_v^2 /
s_v^2)^(-1/2)``. The batch's order only mixes such steps with the same weights on both sides
(Renyi divergence is jointly quasi-convex). Wang, Balle and Kasiviswanathan (2019), Theorem 27, takes
nothing else from the base mechanism, so the RDP accountant of sampling without replacement
(``accountant="rdp"``) at ``z_eff`` bounds the release. :func:`dual_grid_noise` calibrates ``z`` to
the run's epsilon and takes ``s_a = ceil(sqrt(2) z S_a)`` and ``s_v = ceil(sqrt(2) z S_v)``, so
``z_eff >= z``; the epsilon recorded is that of ``z_eff``.

Lazy noise. A record's dual is read only when the record is in a batch, so the kernel adds, at each
read, the noise of the ``g`` steps since its last read in one draw of ``N_Z(0, g s_a^2)``
(:func:`~privcd.kernels.discrete_noise.discrete_gaussian_of_variance`) instead of ``g`` draws of
``N_Z(0, s_a^2)``: O(L) draws a step instead of O(N). Discrete Gaussians do not sum to discrete
Gaussians, but nearly: for independent ``X ~ N_Z(0, a)`` and ``Y ~ N_Z(0, b)``, completing the
square gives ``P(X + Y = z) = exp(-z^2 / (2 (a + b))) theta(c z) / (Z_a Z_b)`` with ``theta(mu) =
sum_x exp(-(x - mu)^2 / (2 rho))``, ``rho = a b / (a + b)``, and by Poisson summation ``theta(mu) =
sqrt(2 pi rho) sum_k exp(-2 pi^2 rho k^2) cos(2 pi k mu)``, within a factor ``1 +- eta``, ``eta = 2
sum_{k >= 1} exp(-2 pi^2 rho k^2)``, of a constant. So ``P(X + Y = z)`` is within a factor ``r =
(1 + eta) / (1 - eta)`` of ``N_Z(0, a + b)``'s, and by induction (``rho >= s_a^2 / 2`` at every
step) ``g`` summed draws are within ``r^(g - 1)`` of ``N_Z(0, g s_a^2)``, pointwise. The lazy
kernel's reads are independent given the batches, as the eager kernel's sums are, so the laws of
everything the two kernels output are within a factor ``exp(lam)``, ``lam = N T log r``, both ways,
and the release is ``(epsilon + 2 lam, exp(lam) delta)``-DP. With ``s_a >= 8`` (required),
``log r < 5 exp(-64 pi^2) < 10^-270``: :attr:`DualGridNoise.lazy_excess` records ``lam``'s bound,
which is added to the epsilon recorded.

Range. The sampler takes variances up to ``MAX_VARIANCE``: ``(T - 1) s_a^2`` must stay below it
(a record's gap is at most ``T - 1`` steps). :func:`dual_grid_ratio` takes the largest ``K_a <=
1024`` that allows it; the duals' grid is fine against their noise at any ``K_a`` (``s_a`` units).
"""
import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from privcd.kernels.discrete_noise import MAX_SIGMA, MAX_VARIANCE
from privcd.privacy.grid_gaussian import FINEST_RATIO, largest_fitting_ratio
from privcd.privacy.grid_sum import sum_grid_ratio, sum_sensitivity_units
from privcd.validation import check_positive_int

SMALLEST_DUAL_SIGMA = 8  # s_a below it would make the lazy sums' excess count (module docstring)


@dataclass(frozen=True)
class DualGridNoise:
    """A DP-SCD release's grids and noise (module docstring): ``K_a``, ``S_a``, ``s_a`` for the duals,
    ``K_v``, ``S_v``, ``s_v`` for ``v``, the RDP noise multiplier calibrated and the effective one,
    the lazy sums' excess bound and the epsilon certified at the run's delta."""

    dual_ratio: int
    dual_sensitivity_units: int
    dual_sigma_units: int
    shared_ratio: int
    shared_sensitivity_units: int
    shared_sigma_units: int
    rdp_noise_multiplier: float
    effective_noise_multiplier: float
    lazy_excess: float
    epsilon: float


def dual_sigma(noise_multiplier, ratio):
    """``s_a = ceil(sqrt(2) z K_a)`` (``S_a = K_a``), at least :data:`SMALLEST_DUAL_SIGMA`."""
    return max(SMALLEST_DUAL_SIGMA, math.ceil(math.sqrt(2.0) * noise_multiplier * ratio))


def dual_grid_ratio(noise_multiplier, steps):
    """``K_a``: the largest power of two at most 1,024 with ``(T - 1) s_a^2 <= MAX_VARIANCE``."""
    check_positive_int("steps", steps)

    def fits(ratio):
        return max(steps - 1, 1) * dual_sigma(noise_multiplier, ratio) ** 2 <= MAX_VARIANCE
    ratio = largest_fitting_ratio(FINEST_RATIO, fits)
    if fits(ratio):
        return ratio
    raise ValueError(f"a DP-SCD release of {steps} steps at noise multiplier {noise_multiplier:.4g} would need lazily "
                     f"summed dual noise of variance above {MAX_VARIANCE} grid units; lower the noise (a larger "
                     "epsilon) or run fewer steps (fewer passes or larger batches)")


def lazy_excess(sigma_units, n, steps):
    """``lam``: ``N T log r`` with ``r = (1 + eta) / (1 - eta)``, ``eta = 2 sum_k exp(-pi^2 s_a^2 k^2)``
    (``rho >= s_a^2 / 2``; module docstring), bounded above in floating point."""
    exponent = math.pi**2 * sigma_units**2
    eta = 2.0 * math.exp(-exponent) / (1.0 - math.exp(-exponent))
    return n * steps * 2.5 * eta  # log((1 + eta) / (1 - eta)) <= 2.5 eta for eta <= 0.1


@functools.lru_cache(maxsize=256)
def dual_grid_noise(steps, *, batch_size, n, n_features, row_tolerance, epsilon, delta):
    """The :class:`DualGridNoise` of a DP-SCD release of ``steps`` mini-batches of ``batch_size`` of
    ``n`` records drawn without replacement, on ``p = n_features`` and rows of norm at most ``1 +
    row_tolerance``, within ``epsilon`` at ``delta``."""
    from privcd.privacy.calibration import calibrate_subsampled
    from privcd.privacy.events import subsampled_gaussian_event
    from privcd.privacy.search import epsilon_of

    calibration = calibrate_subsampled(steps, batch_size=batch_size, n=n, sampling="without-replacement",
                                       epsilon=epsilon, delta=delta, accountant="rdp")
    z = calibration.noise_multiplier
    dual_ratio = dual_grid_ratio(z, steps)
    dual_sigma_units = dual_sigma(z, dual_ratio)
    shared_ratio = sum_grid_ratio(n_features, math.sqrt(2.0) * z)
    shared_sensitivity = sum_sensitivity_units(batch_size, n_features, shared_ratio,
                                               1 + Fraction(row_tolerance))
    shared_sigma_units = max(1, math.ceil(math.sqrt(2.0) * z * shared_sensitivity))
    if shared_sigma_units > MAX_SIGMA:
        raise ValueError(f"a DP-SCD release would need a discrete Gaussian of sigma {shared_sigma_units} > {MAX_SIGMA} "
                         f"grid units (noise multiplier {z:.4g}); lower the noise (a larger epsilon or fewer passes)")
    effective = 1.0 / math.sqrt((dual_ratio / dual_sigma_units) ** 2
                                + (shared_sensitivity / shared_sigma_units) ** 2)
    event = subsampled_gaussian_event(effective, steps, batch_size=batch_size, n=n, sampling="without-replacement")
    excess = lazy_excess(dual_sigma_units, n, steps)
    achieved = epsilon_of(event, delta * math.exp(-excess), "rdp") + 2.0 * excess
    return DualGridNoise(dual_ratio, dual_ratio, dual_sigma_units, shared_ratio, shared_sensitivity,
                         shared_sigma_units, z, effective, excess, float(achieved))
