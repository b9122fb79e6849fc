"""Sums over samples in one fixed order that SIMD loops and threads reach without fast-math.

The samples are cut into row blocks (:func:`block_rows`): one block when n < 8,192, else 8 blocks
of equal size (a multiple of 32; the last one shorter), so that threads can sum the blocks side by
side. ``sum_{i < n} t_i`` is ``((0 + T_0) + T_1) + ...``, the block totals added in block order,
and a block's total ``T_b`` is the pairwise combination (:func:`combine`) of its partial sums

    S_r = (((0 + t_r) + t_{r+32}) + t_{r+64}) + ...,    r < 32, i in the block, increasing

(``i`` counted from the block's first row, a multiple of 32), every operation an IEEE addition in an
order the source fixes. With one block, the sum is ``0 + T_0 = T_0``. The blocks depend on n only,
never on the number of threads. A fast-math (``reassoc``) reduction
leaves the order to LLVM, which chose it differently for the same function compiled in this
process and loaded from numba's disk cache (the linked copy of a callee is optimised again inside
each caller's module, and which copy runs depended on what the process had loaded first): DP-CD's
squared-loss runs then differed in the last bits between a fresh and a warm cache. With the order
in the source, no compiler, vector width or inlining context can change a bit.

A row that a sparse column does not store has the term ``+-0``, which leaves every S_r unchanged
(S_r starts at +0 and an exact sum is never -0), so a sparse column, each stored term added to
``partials[i % 32]`` and the partial sums combined and added to the total where its rows cross
into a later block (a block with no stored entry adds ``T_b = +0``, which changes nothing),
sums to the bits of its dense twin.

Dense loops write ``ring[i + 32] = ring[i] + t_i`` after ``ring[:32] = 0``: a dependence at
distance 32, which LLVM vectorises like an elementwise loop (4 lanes apart by 8 vectors), and
afterwards ``ring[n + k]`` holds ``S_{(n + k) mod 32}``. The ring costs one store a term, and LLVM
runs the loop one vector at a time (a reduction it interleaved four deep), a cost the same bits on
every path are worth (benchmarks/README.md, *Measurements behind the kernels' design*).

The fixed order exists for the same bits on every path; the row blocks also buy speed, since a
single fit sums them on numba's threads. On a machine whose cores another process holds, numba's
threads can instead stall by orders of magnitude: ``numba.set_num_threads(1)`` there, as the
workflow's jobs set their ``threads``.
"""
import numpy as np
from numba import njit

PARTIALS = 32
ROW_BLOCKS = 8  # blocks of a sum over at least BLOCKED_FROM samples
BLOCKED_FROM = 8192


@njit(cache=True)
def block_rows(n):
    """Rows of a sum's blocks over n samples (module docstring): n below :data:`BLOCKED_FROM`, else
    ``ceil(n / 8)`` rounded up to a multiple of 32."""
    if n < BLOCKED_FROM:
        return n
    return PARTIALS * -(-n // (ROW_BLOCKS * PARTIALS))


@njit(inline="always")
def block_count(n):
    """The number of row blocks of a sum over n samples."""
    return -(-n // max(1, block_rows(n)))


@njit(inline="always")
def block_span(n, b):
    """``(first, stop)``: the rows ``first .. stop - 1`` of block b of a sum over n samples."""
    size = block_rows(n)
    return b * size, min(n, (b + 1) * size)


@njit(cache=True)
def scratch(n):
    """Work space for a sum over n samples: for each block a ring (its rows ``+ 32``) and 32 partial
    sums, side by side (:func:`block_ring`), then the block totals."""
    return np.empty(block_count(n) * (max(1, block_rows(n)) + 2 * PARTIALS + 1))


@njit(inline="always")
def block_ring(work, n, b):
    """Block b's ring and partial sums in ``work`` (:func:`scratch`)."""
    size = block_rows(n)
    return work[b * (size + 2 * PARTIALS):(b + 1) * (size + 2 * PARTIALS)]


@njit(inline="always")
def block_totals(work, n):
    """The slots of the block totals in ``work`` (:func:`scratch`)."""
    return work[work.shape[0] - block_count(n):]


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
