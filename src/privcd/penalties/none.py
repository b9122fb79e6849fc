"""No penalty: ``psi = 0``; its prox is the identity."""
import numpy as np
from numba import njit

from privcd.penalties.base import PenaltySpec

CODE = 0
SPEC = PenaltySpec(name=None, code=CODE, smooth=True)


@njit(cache=True)
def value(w_j, lam):
    """0."""
    return 0.0


@njit(cache=True)
def prox(x, step, lam):
    """The identity."""
    return x


def conjugate(v, lam):
    """Indicator of ``{0}``: 0 at ``v = 0``, ``inf`` elsewhere."""
    return 0.0 if not np.any(v) else np.inf


def dual_scaling(v, lam):
    """0 maps every ``v`` into the domain ``{0}``."""
    return 0.0
