"""Counter-based random streams: every random number is a pure function of a key and a counter.

The word number ``i`` (``i >= 0``, int64) of the stream with key ``k`` (uint64) is

    bits(k, i) = mix64(k + (i + 1) GAMMA mod 2**64),    GAMMA = 0x9E3779B97F4A7C15 (odd, 2**64 / phi),
    mix64(z):  z ^= z >> 30;  z *= 0xBF58476D1CE4E5B9;  z ^= z >> 27;  z *= 0x94D049BB133111EB;  z ^= z >> 31,

so ``bits(k, 0), bits(k, 1), ...`` are exactly the outputs of SplitMix64 seeded with k (Steele, Lea
and Flood, *Fast splittable pseudorandom number generators*, OOPSLA 2014; the mixer is Stafford's
"Mix13", as in ``java.util.SplittableRandom``), a generator that passes BigCrush. There is no
state: a loop over counters has no dependence between iterations, so LLVM vectorises it (uint64
arithmetic wraps, as the formula wants), and any draw of a run can be recomputed from its
(key, counter) alone. A kernel keeps an int64 *position*, the next unused counter, and advances it
by the number of words it consumed.

Keys. ``k + (i + 1) GAMMA`` runs through all 2**64 values as i does (GAMMA is odd), so the stream of
one key never repeats within a run. Two keys draw from the same Weyl sequence at different offsets:
streams of keys k and k' share words only if ``k' - k = d GAMMA`` for some ``|d|`` below the number
of words drawn; for keys from a 64-bit hash (:func:`privcd.algorithms.base.kernel_key`) and runs of
at most 2**40 words that has probability below 2**-23 per pair of runs, and shared words would
only repeat part of one run's noise in another run, never inside one run.

Every function here has a numpy twin (suffix ``_numpy``) that computes the same bits with
vectorised numpy, so plain numpy code and tests replay a kernel's draws exactly.
"""
import numpy as np
from numba import njit

from privcd.numerics.bits import int_as_float

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
ONE_BITS = np.int64(0x3FF0000000000000)  # the bits of 1.0
MAX_SPAN = 2**32  # bounded_index draws from {0, ..., span - 1} for 1 <= span <= 2**32
_LOW_32 = np.uint64(0xFFFFFFFF)
TWO_52_BITS = np.int64(0x4330000000000000)  # the bits of 2.0**52
TWO_52, TWO_MINUS_32, TWO_MINUS_64 = 2.0**52, 2.0**-32, 2.0**-64


@njit(cache=True)
def mix64(z):
    """SplitMix64's output function (Stafford's Mix13) of the uint64 ``z`` (scalar or array)."""
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def random_bits(key, counter):
    """``bits(key, counter)`` of the module docstring: the uint64 word number ``counter`` (int64 >= 0)."""
    return mix64(key + np.uint64(counter + 1) * GAMMA)


@njit(cache=True)
def uniform(key, counter):
    """The uniform on (0, 1] of word ``counter``: ``2 - 1.m`` with m its top 52 bits.

    The values are the multiples of 2**-52 in (0, 1], each with probability 2**-52; never 0, so
    ``log`` of it is finite (at least ``-52 log 2``). The conversion is a bit cast (the float with
    exponent 0 and mantissa m is in [1, 2)) and an exact subtraction: it vectorises, where an
    integer-to-float conversion of 64-bit words does not on AVX2.
    """
    return 2.0 - int_as_float(np.int64(random_bits(key, counter) >> np.uint64(12)) | ONE_BITS)


@njit(cache=True)
def uniform_fine(key, counter):
    """The uniform on (0, 1] of word ``counter`` at 64-bit resolution: ``(x + 1/2) 2**-64`` for the
    word x, rounded once to float64.

    :func:`uniform` cannot go below 2**-52; this one reaches 2**-65, which is what a logarithm of
    the uniform needs in its tail: ``-log u`` is exponential up to ``65 log 2 = 45.1`` instead of
    ``36.0`` (Box-Muller radii up to 9.49 instead of 8.49 standard deviations). The two 32-bit
    halves of x are converted exactly by a bit cast (``2**52 + h`` has the bits ``0x43300000_00000000
    | h``) and combined as ``hi 2**-32 + (lo + 1/2) 2**-64``: one rounding, no 64-bit
    integer-to-float conversion (which AVX2 lacks), so the loop vectorises.
    """
    x = random_bits(key, counter)
    hi = int_as_float(np.int64(x >> np.uint64(32)) | TWO_52_BITS) - TWO_52
    lo = int_as_float(np.int64(x & _LOW_32) | TWO_52_BITS) - TWO_52
    return hi * TWO_MINUS_32 + (lo + 0.5) * TWO_MINUS_64


@njit(cache=True)
def bounded_index(key, position, span):
    """A uniform integer in ``{0, ..., span - 1}`` (``1 <= span <= 2**32``) and the next position.

    Lemire's multiply-and-reject (*Fast random integer generation in an interval*, ACM TOMACS
    2019, Algorithm 5) on the top 32 bits x of word ``position``: ``m = x span``; the draw is
    ``m >> 32`` unless the low half of m falls below ``2**32 mod span``, in which case the next
    word is tried. Exactly uniform; one word per draw except with probability ``span / 2**32``.
    """
    s = np.uint64(span)
    threshold = (np.uint64(MAX_SPAN) - s) % s
    while True:
        m = (random_bits(key, position) >> np.uint64(32)) * s
        position += 1
        if (m & _LOW_32) >= threshold:
            return np.int64(m >> np.uint64(32)), position


def check_span(name, span):
    """``span`` (a count the kernels draw indices below) is at most 2**32, as :func:`bounded_index` needs."""
    if span > MAX_SPAN:
        raise ValueError(f"{name}={span} exceeds 2**32, the largest range the kernels' random index "
                         "draws support (privcd.kernels.streams.bounded_index)")
    return span


def random_bits_numpy(key, counters):
    """numpy twin of :func:`random_bits`: the words at an array of counters, as a uint64 array."""
    counters = np.asarray(counters, dtype=np.int64)
    return mix64.py_func(np.uint64(key) + (counters + 1).astype(np.uint64) * GAMMA)


def uniform_numpy(key, counters):
    """numpy twin of :func:`uniform` at an array of counters."""
    mantissas = (random_bits_numpy(key, counters) >> np.uint64(12)).astype(np.int64)
    return 2.0 - (mantissas | ONE_BITS).view(np.float64)


def uniform_fine_numpy(key, counters):
    """numpy twin of :func:`uniform_fine` at an array of counters."""
    x = random_bits_numpy(key, counters)
    hi = ((x >> np.uint64(32)).astype(np.int64) | TWO_52_BITS).view(np.float64) - TWO_52
    lo = ((x & _LOW_32).astype(np.int64) | TWO_52_BITS).view(np.float64) - TWO_52
    return hi * TWO_MINUS_32 + (lo + 0.5) * TWO_MINUS_64


def bounded_indices_numpy(key, position, spans):
    """numpy twin of successive :func:`bounded_index` draws with the given spans: ``(draws, next position)``.

    Vectorised over the draws: a rejected word (rare) is skipped and the draws from that one on
    are recomputed from the next word.
    """
    spans = np.asarray(spans, dtype=np.uint64)
    draws = np.empty(spans.shape[0], dtype=np.int64)
    done = 0
    while done < spans.shape[0]:
        s = spans[done:]
        m = (random_bits_numpy(key, position + np.arange(s.shape[0])) >> np.uint64(32)) * s
        rejected = np.flatnonzero((m & _LOW_32) < (np.uint64(MAX_SPAN) - s) % s)
        accepted = int(rejected[0]) if rejected.size else s.shape[0]
        draws[done:done + accepted] = (m[:accepted] >> np.uint64(32)).astype(np.int64)
        done += accepted
        position += accepted + int(rejected.size > 0)
    return draws, position
