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
        ``sup |dl/dz|`` over every prediction for a classification loss, over residuals
        ``|z - y| <= 1`` for a regression loss (targets scaled to a unit range, predictions near
        them; the Huber loss's slope never exceeds it): a record's gradient norm is then at most
        ``gradient_bound * ||x||``, the estimators' default clip, which bounds it beyond.
    start_gradient_bound : float
        ``sup_y |dl/dz|`` at ``z = 0`` (over the labels, or targets in [-1, 1]): every record's
        gradient norm at the start ``w = 0`` is at most ``start_gradient_bound * ||x||`` (1/2 for
        the logistic loss, ``|sigmoid(0)|``; the worst case ``gradient_bound`` for the others), the
        estimators' default clip of per-record clipping (:data:`privcd.algorithms.base`'s
        ``ESTIMATOR_CLIP = "start"``).
    utility : str
        The held-out metric of a run (:mod:`privcd.results.utility`): ``"accuracy"`` or ``"mse"``.
    display : str
        The loss's name in tables (dp-gcd Table 4: ``"Logistic"``, ``"LeastSquares"``).
    solver : str
        The non-private solver of :mod:`privcd.optimum`: ``"newton"`` (damped or proximal Newton on
        ``second_derivative``), ``"svm-dual-cd"`` (the hinge loss's dual coordinate descent) or
        ``"none"`` (``solve_nonprivate`` refuses the loss).
    weighted : str or None
        The registered loss whose label ``r y`` carries a record's weight ``r`` in [0, 1]
        (``|label| l(z, sign(label))``), for the estimators' ``sample_weight`` and ``class_weight``;
        None where weights fold into the record otherwise (the squared loss) or not at all.
    zero_at_label : bool
        ``l(y, y) = 0`` is the loss's minimum (regression losses): without a penalty, a ``w`` that
        interpolates the data has ``F* = 0``, where relative errors are undefined.
    unattained_on_separable : bool
        The loss's infimum is approached, not attained, as the margin ``y z`` grows (logistic):
        without a penalty, ``F`` has no minimiser on (quasi-)separable data.
    """

    name: str
    code: int
    curvature: float
    labels: tuple | None
    gradient_bound: float
    start_gradient_bound: float
    utility: str
    display: str
    solver: str
    zero_at_label: bool
    unattained_on_separable: bool
    weighted: str | None
