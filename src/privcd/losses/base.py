"""The interface every loss of privcd implements.

A loss is a function ``l(z, y)`` of the linear predictor ``z = <w, x>`` and the label ``y``; the
data-fitting part of the papers' objective is ``f(w) = (1/n) sum_i l(<w, x_i>, y_i)``
(dp-cd eq. (1), dp-gcd eq. (1)). A loss module defines, as module-level ``@njit(cache=True)``
functions of two floats:

``value(z, y)``
    ``l(z, y)``.
``derivative(z, y)``
    ``dl/dz (z, y)``; the per-sample gradient is ``derivative(<w, x_i>, y_i) * x_i``.
``second_derivative(z, y)``
    ``d^2 l / dz^2 (z, y)`` (NaN where it does not exist), used by the Newton steps of the
    non-private solver.
``conjugate(u, y)``
    the Fenchel conjugate ``l*(u, y) = sup_z u z - l(z, y)`` (``inf`` outside its domain),
    used for the duality gap that certifies the non-private optimum.

and a :class:`LossSpec` named ``SPEC`` with the constants the Python side needs.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class LossSpec:
    """Static description of a loss.

    Attributes
    ----------
    name : str
        Registry name (``"logistic"``, ``"squared"``, ...).
    code : int
        Integer the numba kernels dispatch on (``kernels.dispatch``); unique per loss.
    curvature : float
        ``sup_z d^2 l / dz^2``; the coordinate-wise smoothness constants of ``f`` are
        ``M_j = curvature * ||X_{:,j}||^2 / n`` (dp-cd Section 5.3).
    labels : tuple or None
        The accepted label set (``(-1.0, 1.0)`` for classification), ``None`` for any real.
    gradient_bound : float
        ``sup |dl/dz|`` over predictions and labels in ``[-1, 1]``: a record's gradient norm is at
        most ``gradient_bound * ||x||`` (the estimators' default clip).
    utility : str
        The held-out metric of a run (:mod:`privcd.results.utility`): ``"accuracy"`` or ``"mse"``.
    display : str
        The loss's name in tables (dp-gcd Table 4: ``"Logistic"``, ``"LeastSquares"``).
    """

    name: str
    code: int
    curvature: float
    labels: tuple | None
    gradient_bound: float
    utility: str
    display: str
