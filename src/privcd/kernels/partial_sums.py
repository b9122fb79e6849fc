"""Sums over samples in one fixed order that SIMD loops reach without fast-math: 32 partial sums.

``sum_{i < n} t_i`` is the pairwise combination (:func:`combine`) of the partial sums

    S_r = (((0 + t_r) + t_{r+32}) + t_{r+64}) + ...,    r < 32, i increasing,

every operation an IEEE addition in an order the source fixes. A fast-math (``reassoc``) reduction
leaves the order to LLVM, which chose it differently for the same function compiled in this
process and loaded from numba's disk cache (the linked copy of a callee is optimised again inside
each caller's module, and which copy runs depended on what the process had loaded first): DP-CD's
squared-loss runs then differed in the last bits between a fresh and a warm cache. With the order
in the source, no compiler, vector width or inlining context can change a bit.

A row that a sparse column does not store has the term ``+-0``, which leaves every S_r unchanged
(S_r starts at +0 and an exact sum is never -0), so a sparse column, each stored term added to
``partials[i % 32]``, sums to the bits of its dense twin.

Dense loops write ``ring[i + 32] = ring[i] + t_i`` after ``ring[:32] = 0``: a dependence at
distance 32, which LLVM vectorises like an elementwise loop (4 lanes apart by 8 vectors), and
afterwards ``ring[n + k]`` holds ``S_{(n + k) mod 32}``. The ring costs one store a term, and LLVM
runs the loop one vector at a time (a reduction it interleaved four deep): DP-CD's lagged clipped
sum (``benchmarks/bounds.py``, one run each, 2026-11-24) went from 0.50 to 0.65 ns a sample on
20,640 x 8 and from 0.35 to 0.61 on 1,000 x 1,000 for the squared loss, from 2.44 to 2.99 and 2.51
to 3.09 for the logistic loss.
"""
import numpy as np
from numba import njit

PARTIALS = 32


@njit(cache=True)
def scratch(n):
    """Work space for a sum over n samples: the ring (``n + 32``) and 32 partial sums."""
    return np.empty(n + 2 * PARTIALS)


@njit(inline="always")
def start_ring(ring):
    """``ring[:32] = 0``: the partial sums before the first term."""
    for r in range(PARTIALS):
        ring[r] = 0.0


@njit(inline="always")
def ring_total(ring, n):
    """The sum of the n terms a dense loop added into ``ring`` (module docstring): the partial
    sums gathered into residue order in ``ring[n + 32:n + 64]``, then combined."""
    partials = ring[n + PARTIALS:n + 2 * PARTIALS]
    for r in range(PARTIALS):
        partials[r] = ring[n + (r - n) % PARTIALS]
    return combine(partials)


@njit(inline="always")
def start_partials(partials):
    """``partials[:32] = 0``: before the first term of a sparse sum."""
    for r in range(PARTIALS):
        partials[r] = 0.0


@njit(inline="always")
def combine(partials):
    """``S_0 + ... + S_31`` as a balanced tree, ``S_r += S_{r + h}`` for h = 16, 8, 4, 2, 1
    (in place: ``partials`` is spent)."""
    half = PARTIALS // 2
    while half > 0:
        for r in range(half):
            partials[r] += partials[r + half]
        half //= 2
    return partials[0]


@njit(inline="always")
def combine_columns(partials, totals):
    """:func:`combine` of every column of ``partials`` (32 rows, one column a sum) into ``totals``,
    the same tree, each level one loop over the columns (in place: ``partials`` is spent)."""
    half = PARTIALS // 2
    while half > 0:
        for r in range(half):
            row, other = partials[r], partials[r + half]
            for k in range(row.shape[0]):
                row[k] += other[k]
        half //= 2
    totals[:] = partials[0]
