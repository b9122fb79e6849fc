"""Plain numpy SEQDP-SCD: the loop of :mod:`numpy_reference.dp_scd` in sequential mode
(the plan of :mod:`privcd.algorithms.seqdp_scd` sets ``sequential``)."""
from .dp_scd import run

__all__ = ["run"]
