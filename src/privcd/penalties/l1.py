"""L1 penalty ``psi(w) = lam ||w||_1`` (dp-cd footnote 4: the LASSO; dp-gcd Appendix C)."""
import numpy as np
from numba import njit

from privcd.penalties.base import PenaltySpec

CODE = 1
SPEC = PenaltySpec(name="l1", code=CODE, smooth=False)


@njit(cache=True)
def value(w_j, lam):
    """``lam |w_j|``."""
    return lam * abs(w_j)


@njit(cache=True)
def prox(x, step, lam):
    """Soft thresholding ``sign(x) max(|x| - step lam, 0)``, as ``x - clip(x, -t, t)`` with
    ``t = step lam``: ``x - t`` above t, ``x + t`` below -t (the same roundings) and ``+0.0`` in
    between, with selects instead of branches (DP-GCD's GS-r scores soft-threshold every
    coordinate, and the branches mispredicted on gradients of random sign)."""
    t = step * lam
    return x - min(max(x, -t), t)


def conjugate(v, lam):
    """Indicator of the box ``||v||_inf <= lam``."""
    return 0.0 if np.max(np.abs(v), initial=0.0) <= lam * (1 + 1e-12) else np.inf


def dual_scaling(v, lam):
    """``min(1, lam / ||v||_inf)``: rescales ``v`` into the box."""
    top = np.max(np.abs(v), initial=0.0)
    return 1.0 if top <= lam else lam / top
