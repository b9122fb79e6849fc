"""The interface every separable penalty ``psi(w) = sum_j psi_j(w_j)`` of privcd implements.

A penalty module defines module-level ``@njit(cache=True)`` functions

``value(w_j, lam)``
    ``psi_j(w_j)``.
``prox(x, step, lam)``
    ``prox_{step psi_j}(x) = argmin_v (v - x)^2 / 2 + step psi_j(v)`` (dp-cd eq. (3)).

numpy functions on whole vectors, used for the duality gap of the non-private optimum,

``conjugate(v, lam)``
    ``psi*(v) = sup_w <v, w> - psi(w)`` (``inf`` outside its domain).
``dual_scaling(v, lam)``
    the largest ``s`` in (0, 1] such that ``psi*(s v) < inf`` (1 when the domain is everything),

and a :class:`PenaltySpec` named ``SPEC``.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class PenaltySpec:
    """Static description of a penalty.

    Attributes
    ----------
    name : str or None
        Registry name (``None``, ``"l1"``, ``"l2"``).
    code : int
        Integer the numba kernels dispatch on; unique per penalty.
    smooth : bool
        Whether ``psi`` is differentiable (then its gradient may be used instead of its prox).
    """

    name: str | None
    code: int
    smooth: bool
