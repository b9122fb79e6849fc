"""What :func:`~privcd.optimum.solve_nonprivate` returns (:class:`NonPrivateOptimum`) and raises.

Unpenalised problems can lack a usable optimum: logistic regression on (quasi-)separable data has
no minimiser (:class:`NoMinimizerError`, its message from :func:`_separation_message`), least
squares with rank X = n has ``F* = 0`` (:class:`ZeroOptimumError`). :class:`OptimumNotCertifiedError`
reports a solver that could not prove the requested precision.
"""
from dataclasses import dataclass

import numpy as np


class OptimumNotCertifiedError(RuntimeError):
    """The solver could not prove the requested precision within its budget."""


class NoMinimizerError(ValueError):
    """``F`` has no minimiser (unpenalised logistic regression on separable data)."""


class ZeroOptimumError(ValueError):
    """``F* = 0`` (unpenalised least squares that interpolates): relative errors are undefined."""


@dataclass(frozen=True, eq=False)
class NonPrivateOptimum:
    """A certified minimiser of ``F``; unpacks as ``w_star, f_star = result``.

    Attributes
    ----------
    w_star : ndarray of shape (p,)
        The minimiser found.
    f_star : float
        ``F(w_star)``, computed by :meth:`Problem.objective` (the shared evaluator).
    gap : float
        Duality gap at ``w_star``: ``f_star - gap <= F* <= f_star``.
    iterations : int
        (Proximal) Newton steps taken.
    method : str
        ``"newton"``, ``"newton-woodbury"``, ``"newton-cg"``, ``"prox-newton"`` or
        ``"svm-dual-cd"`` (hinge loss; ``iterations`` then counts dual CD epochs).
    """

    w_star: np.ndarray
    f_star: float
    gap: float
    iterations: int
    method: str

    def __iter__(self):
        yield self.w_star
        yield self.f_star

    @property
    def relative_gap(self):
        """``gap / |f_star|``, an upper bound on the relative suboptimality ``(F(w) - F*) / F(w)``."""
        return self.gap / abs(self.f_star) if self.f_star != 0.0 else (0.0 if self.gap == 0.0 else np.inf)


def _separation_message(problem, separated):
    count = int(np.sum(separated))
    kind = "linearly separable" if count == problem.n_samples else "quasi-separable"
    return (f"logistic loss without penalty has no minimiser on these data: a direction d has "
            f"y_i <x_i, d> >= 0 for every record and > 0 for {count} of {problem.n_samples} (the data "
            f"are {kind}), so F(t d) decreases towards its infimum as t grows; use penalty='l2' or "
            "'l1' with lam > 0")
