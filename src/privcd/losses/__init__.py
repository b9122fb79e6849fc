"""Registry of losses: name -> :class:`~privcd.losses.base.LossSpec`.

Adding a loss is one module (interface in :mod:`privcd.losses.base`), one entry in
``LOSS_MODULES`` and one branch per function in :mod:`privcd.kernels.dispatch`;
``tests/test_registry.py`` walks this registry and fails for a loss whose branch is missing.
"""
from privcd.losses import hinge, huber, logistic, squared, weighted_hinge, weighted_logistic
from privcd.losses.base import LossSpec

LOSS_MODULES = (logistic, squared, hinge, huber, weighted_logistic, weighted_hinge)
LOSSES: dict[str, LossSpec] = {module.SPEC.name: module.SPEC for module in LOSS_MODULES}


def get_loss(name) -> LossSpec:
    """The :class:`LossSpec` registered as ``name``; ``ValueError`` naming the choices otherwise."""
    try:
        return LOSSES[name]
    except (KeyError, TypeError):
        raise ValueError(f"loss={name!r} is not a known loss; expected one of {sorted(LOSSES)}") from None
