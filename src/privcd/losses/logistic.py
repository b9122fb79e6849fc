"""Logistic loss ``l(z, y) = log(1 + exp(-y z))`` for labels ``y`` in {-1, 1}.

dp-cd Section 6 (footnote 5) and dp-gcd Section 5. ``d^2 l / dz^2 = s (1 - s) <= 1/4`` with
``s = sigmoid(y z)``, so the curvature is 1/4.

The derivative and second derivative, evaluated once per sample in the kernels' hot loops, use
the branch-free :func:`privcd.numerics.elementary.exp` (within 1 ulp of ``math.exp``) and
selects instead of branches, and numba's ``error_model="numpy"`` (a plain division: the default
"python" model guards every float division with a zero test and a jump, which alone stops
vectorisation; here the denominator ``1 + e`` is at least 1), so the loops over samples that call
them vectorise.
"""
import math

from numba import njit

from privcd.numerics.elementary import exp, log_positive
from privcd.losses.base import LossSpec

CODE = 0
SPEC = LossSpec(name="logistic", code=CODE, curvature=0.25, labels=(-1.0, 1.0),
                gradient_bound=1.0, start_gradient_bound=0.5, utility="accuracy", display="Logistic",
                solver="newton", zero_at_label=False, unattained_on_separable=True, weighted="weighted-logistic")


@njit(cache=True, error_model="numpy", inline="always")
def value(z, y):
    """``log(1 + exp(-y z)) = max(t, 0) + log1p(e)`` with ``t = -y z`` and ``e = exp(-|t|)`` in
    (0, 1], without overflow and without a branch, so the objective's loop over samples vectorises.

    ``log1p(e) = log(u) + (e - (u - 1)) / u`` with ``u = 1 + e`` rounded: ``e - (u - 1)`` is the
    rounding error of u, exactly, and the second term is the first-order correction of the log
    for it (``e`` itself when u rounds to 1). exp and log are :mod:`privcd.numerics.elementary`'s
    (within 1 ulp); against a 50-digit reference the value is within 1.33 eps everywhere
    (tests/test_losses.py checks 1.5). Inlined by numba: as an LLVM call it is too large for
    LLVM's inliner, and a loop around a call does not vectorise.
    """
    t = -y * z
    e = exp(-abs(t))
    u = 1.0 + e
    log1p_e = log_positive(u) + (e - (u - 1.0)) / u
    return max(t, 0.0) + log1p_e


@njit(cache=True, error_model="numpy")
def derivative(z, y):
    """``dl/dz = -y / (1 + exp(y z))``, without overflow and without a branch.

    With ``t = y z`` and ``e = exp(-|t|)`` in (0, 1]: ``-y e / (1 + e)`` if ``t > 0``, else
    ``-y / (1 + e)``; the select between ``e`` and 1 compiles to a blend, not a jump.
    """
    t = y * z
    e = exp(-abs(t))
    numerator = e if t > 0.0 else 1.0
    return -y * numerator / (1.0 + e)


@njit(cache=True, error_model="numpy")
def second_derivative(z, y):
    """``d^2 l / dz^2 = s (1 - s) = e / (1 + e)^2`` with ``s = sigmoid(y z)`` and ``e = exp(-|z|)``
    (for ``|y| = 1`` it depends on ``|z|`` only)."""
    e = exp(-abs(z))
    return e / ((1.0 + e) * (1.0 + e))


@njit(cache=True)
def conjugate(u, y):
    """``l*(u) = t log t + (1 - t) log(1 - t)`` with ``t = -u y`` in [0, 1], ``inf`` elsewhere."""
    t = -u * y
    if t < 0.0 or t > 1.0:
        return math.inf
    out = 0.0
    if t > 0.0:
        out += t * math.log(t)
    if t < 1.0:
        out += (1.0 - t) * math.log1p(-t)
    return out
