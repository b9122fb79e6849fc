"""Regularisation strengths chosen by the support size of the optimum (dp-gcd Appendix D, Table 3).

The papers do not print their lambdas; for the L1 problems dp-gcd Table 3 prints instead
``||w*||_0`` of the non-private solution (square 7, california 3, dorothea 72, madelon 3).
:func:`lambda_for_support` recovers a lambda with that support size.

For ``F(w) = f(w) + lam ||w||_1`` with f convex and smooth, ``w = 0`` is optimal iff
``||grad f(0)||_inf <= lam`` (the optimality condition ``-grad f(0) in lam d||.||_1(0)``), so

    lambda_max = ||grad f(0)||_inf = ||(1/n) X^T l'(0, y)||_inf

is the smallest lambda with an empty support. Below it the support of the (certified) optimum
grows as lambda decreases -- along the LASSO path mostly one coordinate at a time, though not
monotonically in general -- so a bisection on ``log lambda`` in ``[lambda_max * low_ratio,
lambda_max]`` finds a lambda whose support has the target size when the path passes through it.
"""
import math
from dataclasses import dataclass

import numpy as np

from privcd.optimum import DEFAULT_TOL, solve_nonprivate
from privcd.problem import Problem
from privcd.validation import check_number, check_positive_int


@dataclass(frozen=True)
class SupportSearch:
    """Result of :func:`lambda_for_support`.

    Attributes
    ----------
    lam : float
        A lambda whose optimum has exactly ``target`` non-zero coordinates.
    target : int
    lambda_max : float
        ``||grad f(0)||_inf``: the smallest lambda with ``w* = 0``.
    w_star : ndarray
        The certified optimum at ``lam``.
    f_star : float
    path : tuple of (float, int)
        Every (lambda, ||w*||_0) evaluated, in order (the record of the search).
    """

    lam: float
    target: int
    lambda_max: float
    w_star: np.ndarray
    f_star: float
    path: tuple


def lambda_max(problem):
    """``||grad f(0)||_inf``, the smallest L1 strength for which ``w* = 0`` (see the module docstring)."""
    return float(np.max(np.abs(problem.gradient(np.zeros(problem.n_features)))))


def lambda_for_support(problem, target, *, low_ratio=1e-4, max_evaluations=40, tol=DEFAULT_TOL):
    """A lambda for which the L1 optimum of ``problem``'s data has exactly ``target`` non-zeros.

    Bisection on ``log lambda``: the bracket starts at ``[lambda_max * low_ratio, lambda_max]``
    (the lower end must give more than ``target`` non-zeros); each step solves the problem at the
    geometric midpoint with :func:`privcd.solve_nonprivate` (duality gap <= ``tol`` relative) and
    keeps the half where the support size crosses ``target``. Deterministic: same data, same lambda.

    Parameters
    ----------
    problem : privcd.Problem
        Its data, loss and penalty are used; the penalty must be ``"l1"`` (its ``lam`` is ignored).
    target : int
        Required ``||w*||_0``, in ``[1, p]``.
    low_ratio : float in (0, 1)
        Lower end of the bracket relative to ``lambda_max``.
    max_evaluations : int
        Budget of non-private solves.
    tol : float
        Relative duality gap of each solve.

    Returns
    -------
    SupportSearch

    Raises
    ------
    ValueError
        Bad arguments (penalty not L1, target outside ``[1, p]``), or the lower end of the bracket
        has at most ``target`` non-zeros (lower ``low_ratio``).
    RuntimeError
        No lambda with exactly ``target`` non-zeros found within ``max_evaluations`` (the path
        jumps over ``target``); the message gives the closest sizes seen on each side.
    """
    if problem.penalty.name != "l1":
        raise ValueError(f"penalty={problem.penalty.name!r}: lambda_for_support selects an L1 strength; "
                         "expected a problem with penalty 'l1'")
    target = check_positive_int("target", target)
    if target > problem.n_features:
        raise ValueError(f"target={target} exceeds the number of features p={problem.n_features}")
    low_ratio = check_number("low_ratio", low_ratio, low=0.0, high=1.0)
    max_evaluations = check_positive_int("max_evaluations", max_evaluations)
    top = lambda_max(problem)
    if not top > 0:
        raise ValueError("grad f(0) = 0: w = 0 is optimal for every lambda, no support to select")
    path = []

    def solve(lam):
        optimum = solve_nonprivate(Problem(problem.X, problem.y, problem.loss.name, "l1", lam), tol=tol)
        size = int(np.count_nonzero(optimum.w_star))
        path.append((lam, size))
        return optimum, size

    low, high = math.log(top * low_ratio), math.log(top)
    optimum, size = solve(math.exp(low))
    if size <= target:
        if size == target:
            return SupportSearch(math.exp(low), target, top, optimum.w_star, optimum.f_star, tuple(path))
        raise ValueError(f"lambda = {math.exp(low):.3g} (= lambda_max * low_ratio) gives only {size} "
                         f"non-zeros, fewer than target={target}; lower low_ratio={low_ratio:g}")
    while len(path) < max_evaluations:
        middle = 0.5 * (low + high)
        optimum, size = solve(math.exp(middle))
        if size == target:
            return SupportSearch(math.exp(middle), target, top, optimum.w_star, optimum.f_star, tuple(path))
        if size > target:
            low = middle
        else:
            high = middle
    above = min((s for _, s in path if s > target), default=None)
    below = max((s for _, s in path if s < target), default=0)
    raise RuntimeError(f"no lambda with ||w*||_0 = {target} in {max_evaluations} solves: sizes jump from "
                       f"{below} to {above} near lambda = {math.exp(high):.6g}")
