"""Registry of penalties: name -> :class:`~privcd.penalties.base.PenaltySpec` (``None`` = no penalty).

Adding a penalty is one module (interface in :mod:`privcd.penalties.base`), one entry in
``PENALTY_MODULES`` and one branch per function in :mod:`privcd.kernels.dispatch`.
"""
from privcd.penalties import l1, l2, none
from privcd.penalties.base import PenaltySpec

PENALTY_MODULES = (none, l1, l2)
PENALTIES: dict[str | None, PenaltySpec] = {module.SPEC.name: module.SPEC for module in PENALTY_MODULES}
MODULES_BY_NAME = {module.SPEC.name: module for module in PENALTY_MODULES}


def get_penalty(name) -> PenaltySpec:
    """The :class:`PenaltySpec` registered as ``name``; ``ValueError`` naming the choices otherwise."""
    try:
        return PENALTIES[name]
    except (KeyError, TypeError):
        choices = [None] + sorted(k for k in PENALTIES if k is not None)
        raise ValueError(f"penalty={name!r} is not a known penalty; expected one of {choices}") from None
