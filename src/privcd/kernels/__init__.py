"""Module-level ``@njit(cache=True)`` kernels: they know nothing of accounting or workflows.

Randomness and vectorisation. DP-SGD, DP-SCD and SEQDP-SCD draw from counter-based streams
(`streams.py`: SplitMix64 words as a pure function of a key and a counter, so draws can be filled in
SIMD loops, ahead of the steps that use them, and replayed by numpy twins) with Box-Muller normals
(`gaussian.py`, on the branch-free `log`, `sin`/`cos` of `numerics/elementary.py`); DP-SGD draws the
normals of wide rows (p >= 255) for a block of steps with all of numba's threads (the same bits
whatever their number; `numba.set_num_threads` limits them, as the workflow's jobs do to their
`threads`). DP-CD, DP-GCD
and DP-SkGD still draw from the run's numpy `Generator` (PCG64). The logistic loss uses the branch-
free `exp` of `numerics/elementary.py` (within 1 ulp), so the per-sample loops vectorise;
`numerics/bits.py` holds the float/integer bit casts these need. The coordinate methods' sums over
samples (DP-CD, DP-SkGD; `partial_sums.py`) run in one order fixed in the source: from 8,192 samples
on, 8 row blocks whose totals are added in block order (one block below), in a block 32 partial sums
by row modulo 32 combined by a fixed tree, in a SIMD loop without fast-math. The blocks depend on n
only, so a single DP-CD or DP-SkGD fit on dense X of 8,192 samples or more sums them on all of
numba's threads with the same bits, and DP-GCD's fit shares each iteration's derivatives and
gradient columns among them (timings: benchmarks/README.md, *Measurements behind the kernels'
design*). A run has the same bits dense or sparse, alone or in lockstep, on any
number of threads, and compiled in its process or loaded from numba's disk cache (no fast-math sum,
whose order LLVM would choose again in each caller's module; `tests/test_algorithms.py` runs every
algorithm from both).
"""
