"""Elementary functions and bit casts for numba code, below both the losses and the kernels:
:mod:`~privcd.numerics.elementary` (vectorisable exp, log, sin/cos of turns) and
:mod:`~privcd.numerics.bits` (float/int bit casts)."""
