"""Private coordinate-wise smoothness constants for DP-CD-P (dp-cd Section 5.2, Appendix F, Section 6.1).

For a linear model the j-th coordinate-wise smoothness constant of ``l(<., x_i>, y_i)`` is
``M_j^(i) = curvature * x_ij^2`` (its second derivative along ``e_j`` is ``l'' x_ij^2``), and
``M_j = (1/n) sum_i M_j^(i)`` is :attr:`privcd.problem.Problem.M`. Following Section 6.1, the
crude per-feature bound is twice the largest absolute value of the feature,
``|x_ij| <= B_j = 2 max_i |x_ij|``, hence the per-sample bound ``b_j = curvature * B_j^2``. Each
``M_j^(i)`` is clipped to ``[0, b_j]`` and the mean released with the Laplace mechanism of
eq. (126):

    M_j^priv = (1/n) sum_i min(M_j^(i), b_j) + Lap(2 b_j p / (n eps')),

epsilon'/p-DP per feature (replace-one sensitivity ``2 b_j / n`` as in Appendix F; since
``M_j^(i) >= 0`` the true sensitivity is ``b_j / n``, so this is conservative by a factor 2), hence
epsilon'-DP for the p features by simple composition.

Assumption (as in the paper): the bounds ``B_j`` are public knowledge. A problem with public
feature bounds (:class:`~privcd.problem.Problem`'s ``feature_bound``, as privcd's estimators give
it) supplies them, ``b_j = curvature B_j^2``, and the release is then epsilon'-DP with nothing read
from the data outside it. Otherwise privcd reads them off the data (``2 max_i |x_ij|``), the paper's
experimental choice: a bound that depends on the data itself leaks and is not accounted for.

With a public bound R on the records' norms (``row_norm_bound``) the p releases are one vector
release, and its L1 sensitivity is far below the p-fold composition's: a record's vector
``(min(curvature x_ij^2, b_j))_j`` is non-negative with sum at most ``curvature ||x_i||^2 <=
curvature R^2``, so under replace-one the change ``u_j = n |Delta_j|`` satisfies ``0 <= u_j <= b_j``
and ``sum_j u_j <= 2 curvature R^2``. Independent Laplace noise of scales ``lambda_j`` has privacy
loss at most ``sum_j |Delta_j| / lambda_j`` (the ratio of the product densities; for equal scales
this is the Laplace mechanism of Dwork and Roth 2014, Theorem 3.6). With ``lambda_j = b_j S / (n
eps')`` the loss is ``eps' (sum_j u_j / b_j) / S``, at most eps' for

    S = max { sum_j u_j / b_j : 0 <= u_j <= b_j, sum_j u_j <= 2 curvature R^2 },

a fractional knapsack that the smallest b_j fill first (:func:`knapsack_ratio`); S <= p, and
with equal bounds ``b_j = curvature R^2`` S = 2, so ``lambda_j = 2 curvature R^2 / (n eps')``:
p times below eq. (126)'s. Without R privcd keeps eq. (126)'s scale, the paper's.

Floor: an estimate below the noise scale ``lambda_j = 2 b_j p / (n eps')`` (in particular any
estimate ``<= 0``) carries no usable information and would give a huge or negative step
``step / M_j``; it is raised to ``lambda_j``, which errs on the side of small steps (large M_j).
This is post-processing (no privacy cost) and ``lambda_j -> 0`` as ``eps' -> inf``, so the
estimate still tends to ``M_j``. A feature that is zero in every record has ``b_j = 0`` and keeps
``M_j = 0`` (it never moves, as with public constants).
"""
import warnings
from dataclasses import dataclass

import numpy as np

from privcd.privacy.grid_laplace import grid_release
from privcd.problem import DataDependentBoundsWarning
from privcd.randomness import ReleaseSeed, child

# Spawn key of the Laplace noise's generator: a stream independent of the kernel's
# (``kernel_rng(seed)``, the root SeedSequence(seed) with no spawn key).
_STREAM = 1


@dataclass(frozen=True)
class SmoothnessMechanism:
    """The Laplace mechanism of dp-cd eq. (126) for one problem and budget epsilon'.

    Attributes
    ----------
    epsilon : float
        epsilon' spent on all p constants (``inf``: no noise).
    bounds : ndarray of shape (p,)
        Per-sample bounds ``b_j = curvature (2 max_i |x_ij|)^2``.
    clipped_mean : ndarray of shape (p,)
        ``(1/n) sum_i min(curvature x_ij^2, b_j)``, the noiseless value released.
    scale : ndarray of shape (p,)
        Laplace scales ``lambda_j = 2 b_j p / (n epsilon')`` (eq. (126)), or ``b_j S / (n epsilon')``
        with a public row-norm bound (module docstring); 0 when ``epsilon' = inf``.
    """

    epsilon: float
    bounds: np.ndarray
    clipped_mean: np.ndarray
    scale: np.ndarray


def smoothness_mechanism(problem, epsilon):
    """Build the mechanism of eq. (126) for ``problem`` with budget ``epsilon`` (``inf`` allowed).

    Bounds read off the data (no ``feature_bound``, and constants not declared public) are not
    covered by the guarantee, and the Run publishes them (``smoothness_bounds``, ``laplace_scale``):
    a :class:`~privcd.problem.DataDependentBoundsWarning` says so.
    """
    curvature = problem.loss.curvature
    if problem.feature_bound is None and problem.constants != "data" and np.isfinite(epsilon):
        warnings.warn("DP-CD-P: no public feature bound, so the bounds b_j = curvature (2 max_i |x_ij|)^2 are read "
                      "from X (dp-cd Section 6.1's experimental choice); they set the Laplace scales and are "
                      "published in Run.info['smoothness_bounds'] and ['laplace_scale'], outside the (epsilon, delta) "
                      "guarantee. Give Problem(..., feature_bound=B) (the estimators' bounds=), or declare the "
                      "constants public with constants='data'", DataDependentBoundsWarning, stacklevel=5)
    X = problem.columns
    n, p = problem.n_samples, problem.n_features
    if problem.is_sparse:
        counts = np.diff(X.indptr)
        if problem.feature_bound is None:
            largest = np.zeros(p)
            np.maximum.at(largest, np.repeat(np.arange(p), counts), np.abs(X.data))
            bounds = curvature * (2.0 * largest) ** 2
        else:
            bounds = curvature * problem.feature_bound**2
        clipped = np.minimum(curvature * X.data**2, np.repeat(bounds, counts))
        sums = np.bincount(np.repeat(np.arange(p), counts), weights=clipped, minlength=p)
    else:
        largest = 2.0 * np.abs(X).max(axis=0) if problem.feature_bound is None else problem.feature_bound
        bounds = curvature * largest**2
        sums = np.minimum(curvature * X**2, bounds).sum(axis=0)
    if np.isinf(epsilon):
        scale = np.zeros(p)
    elif problem.row_norm_bound is None:
        scale = 2.0 * bounds * p / (n * epsilon)
    else:
        scale = bounds * knapsack_ratio(bounds, 2.0 * curvature * problem.row_norm_bound**2) / (n * epsilon)
    return SmoothnessMechanism(epsilon=epsilon, bounds=bounds, clipped_mean=sums / n, scale=scale)


def knapsack_ratio(bounds, budget):
    """``S = max sum_j u_j / b_j`` over ``0 <= u_j <= b_j``, ``sum_j u_j <= budget`` (b_j > 0 only).

    Each unit of ``u_j`` is worth ``1 / b_j``, so the optimum fills the smallest bounds first: the
    k smallest whole, where their sum stays within the budget, then the next one in part. The
    result is rounded up by a few ulps, so that the scales built on it never undercount.
    """
    positive = np.sort(bounds[bounds > 0])
    filled = np.cumsum(positive)
    whole = int(np.searchsorted(filled, budget, side="right"))
    ratio = float(whole)
    if whole < positive.size:
        ratio += (budget - (filled[whole - 1] if whole else 0.0)) / positive[whole]
    return ratio * (1.0 + 8.0 * np.finfo(np.float64).eps)


def laplace_release(mechanism, seed):
    """``clipped_mean + Lap(scale)``: the raw eq. (126) release. An experiment draws it in floating
    point from a stream derived from ``seed`` (its bits are the reproductions'); a release
    (:class:`~privcd.randomness.ReleaseSeed`) samples the exact discrete Laplace on a power-of-two
    grid from the OS's CSPRNG (:func:`privcd.privacy.grid_laplace.grid_release`: the same epsilon',
    no output a neighbour cannot reach)."""
    if isinstance(seed, ReleaseSeed) and np.isfinite(mechanism.epsilon):
        return grid_release(mechanism.clipped_mean, mechanism.scale, mechanism.epsilon)
    rng = np.random.default_rng(child(seed, _STREAM))
    return mechanism.clipped_mean + rng.laplace(0.0, 1.0, size=mechanism.scale.shape) * mechanism.scale


def private_smoothness(mechanism, seed):
    """The private constants ``max(M_j^priv, lambda_j)`` used by DP-CD-P (see the module docstring)."""
    return np.maximum(laplace_release(mechanism, seed), mechanism.scale)


def split_budget(epsilon, share):
    """``(epsilon', epsilon - epsilon')`` with ``epsilon' = share * epsilon``, their float sum ``<= epsilon``.

    Basic composition of the epsilon'-DP Laplace release and an ``(epsilon - epsilon', delta)``-DP
    optimisation is ``(epsilon, delta)``-DP. ``epsilon = inf`` (no privacy) gives ``(inf, inf)``.
    """
    if np.isinf(epsilon):
        return np.inf, np.inf
    smoothness = share * epsilon
    rest = epsilon - smoothness
    while smoothness + rest > epsilon:
        rest = np.nextafter(rest, 0.0)
    return smoothness, float(rest)
