"""Standard normal draws from a counter-based stream (:mod:`privcd.kernels.streams`), in one
vectorised loop.

Box and Muller (*A note on the generation of random normal deviates*, Ann. Math. Statist. 1958):
for independent uniforms ``u1`` in (0, 1] and ``u2``,

    g1 = sqrt(-2 log u1) cos(2 pi u2),    g2 = sqrt(-2 log u1) sin(2 pi u2)

are independent standard normals. Pair k of a draw of m normals starting at stream position c
takes ``u1 = uniform_fine(key, c + 2k)`` and ``u2 = uniform(key, c + 2k + 1)``; with ``h = ceil(m / 2)``
pairs, ``out[k] = g1`` of pair k (k < h) and ``out[h + k] = g2`` of pair k (k < m - h): contiguous
stores, and for odd m the sine of the last pair is not used. The draw consumes ``2 h`` words.

Never inf or NaN: ``u1 >= 2**-65`` (:func:`~privcd.kernels.streams.uniform_fine`, never 0), so
``-2 log u1`` is in ``[0, 130 log 2]`` and ``|g| <= sqrt(130 log 2) = 9.49``. The sampler is exact
Box-Muller with ``u1`` conditioned on ``u1 >= 2**-65`` (up to the rounding of floating point): a
run of N pairs is within total variation ``N 2**-65`` (N = 10**10 pairs: 2.7e-10) of one with
unconditioned u1, so a mechanism calibrated to (epsilon, delta) for exact Gaussian noise is
(epsilon, delta + (1 + e**epsilon) N 2**-65)-DP with these draws. With ``uniform`` (2**-52) that
term would be 8192 times larger, comparable to delta = 1/n**2 for the largest runs. ``log`` and ``sin``/``cos`` are :mod:`privcd.numerics.elementary`'s (under 1 and 2 ulp),
``sqrt`` is IEEE's, so the loop vectorises and its numpy twin gives the same bits.
"""
import numpy as np
from numba import njit, prange

from privcd.numerics.elementary import log_positive, log_positive_numpy, sincos_turns, sincos_turns_numpy, sqrt
from privcd.kernels.streams import uniform, uniform_fine, uniform_fine_numpy, uniform_numpy

PIECE_PAIRS = 4096  # normal pairs a thread draws at a time (fill_standard_normal_parallel)


@njit(cache=True, inline="always")
def box_muller(key, counter):
    """``(g1, g2)`` of the pair that starts at word ``counter`` (module docstring).

    Inlined by numba (``inline="always"``): as an LLVM call it is too large for LLVM's inliner,
    and a loop around a call does not vectorise.
    """
    radius = sqrt(-2.0 * log_positive(uniform_fine(key, counter)))
    sin, cos = sincos_turns(uniform(key, counter + 1))
    return radius * cos, radius * sin


@njit(cache=True, inline="always")
def fill_pairs(key, position, cosines, sines):
    """``cosines[k], sines[k] = g1, g2`` of the pair at word ``position + 2 k`` for ``k < len(sines)``,
    then ``cosines[k] = g1`` alone up to ``len(cosines)`` (the unused sine of an odd draw's last pair)."""
    for k in range(sines.shape[0]):
        g1, g2 = box_muller(key, position + 2 * k)
        cosines[k] = g1
        sines[k] = g2
    for k in range(sines.shape[0], cosines.shape[0]):
        cosines[k] = box_muller(key, position + 2 * k)[0]


@njit(cache=True)
def fill_standard_normal(key, position, out):
    """Fill ``out`` (float64, 1-D) with standard normals from stream ``key`` at ``position``; return
    the next position (``position + 2 ceil(len(out) / 2)``)."""
    h = (out.shape[0] + 1) // 2
    fill_pairs(key, position, out[:h], out[h:])
    return position + 2 * h


@njit(cache=True, parallel=True)
def fill_standard_normal_parallel(key, position, out):
    """Fill each row s of ``out`` (float64, 2-D) as ``fill_standard_normal(key, position + 2 s h,
    out[s])`` would (h = ceil(p / 2) pairs a row), the same bits, with the rows cut into pieces of
    :data:`PIECE_PAIRS` pairs that a ``prange`` shares among numba's threads (a stream word is a
    function of its counter, so any piece can be drawn first). Returns the next position.

    For a block of wide rows: 32 rows of 1,000 normals here took 69 us with 2 threads, 132 us
    with one (a launch costs about 2 us).

    A kernel compiled without ``parallel=True`` that calls this one must run in a process whose
    threading layer has started (``numba.get_num_threads()``): numba starts it when a parallel
    function's own dispatcher compiles or loads, and the cache entry of a kernel compiled against
    this function loaded from the cache does not say that it needs it. Loaded so into a fresh
    process, DP-SGD's solo kernel jumped to address 0 (:func:`privcd.algorithms.dp_sgd.run`
    starts the layer first).
    """
    rows, m = out.shape
    h = (m + 1) // 2
    pieces = (h + PIECE_PAIRS - 1) // PIECE_PAIRS
    for q in prange(rows * pieces):
        s, first = q // pieces, (q % pieces) * PIECE_PAIRS
        last = min(h, first + PIECE_PAIRS)
        fill_pairs(key, position + 2 * (s * h + first), out[s, first:last], out[s, h + first:h + min(last, m - h)])
    return position + 2 * rows * h


@njit(cache=True)
def fill_standard_normal_rows(key, position, out, cosines, sines):
    """Fill each row s of ``out`` (float64, 2-D, C order) as ``fill_standard_normal(key, position
    + 2 s h, out[s])`` would (h = ceil(p / 2) pairs a row): the same bits, in one vectorised loop
    over every pair of the block (the pairs of consecutive rows are consecutive in the stream),
    then a copy into place. For short rows this is several times faster than a call per row, whose
    single vector iteration waits on the latency of the log and the sine. ``cosines`` and
    ``sines`` are scratch arrays of at least ``len(out) * h`` elements. Returns the next position.
    """
    rows, m = out.shape
    if rows == 1:  # long rows: no gain from the block, and the copy would cost a pass over memory
        return fill_standard_normal(key, position, out[0])
    h = (m + 1) // 2
    pairs = rows * h
    fill_pairs(key, position, cosines[:pairs], sines[:pairs])
    for s in range(rows):
        for k in range(h):
            out[s, k] = cosines[s * h + k]
        for k in range(m - h):
            out[s, h + k] = sines[s * h + k]
    return position + 2 * pairs


def standard_normal_numpy(key, position, m):
    """numpy twin of :func:`fill_standard_normal`: ``(m normals, next position)``, the same bits."""
    h = (m + 1) // 2
    counters = position + 2 * np.arange(h)
    radius = np.sqrt(-2.0 * log_positive_numpy(uniform_fine_numpy(key, counters)))
    sin, cos = sincos_turns_numpy(uniform_numpy(key, counters + 1))
    return np.concatenate([radius * cos, (radius * sin)[:m - h]]), position + 2 * h
