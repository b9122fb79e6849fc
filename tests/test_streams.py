"""Counter-based streams: SplitMix64's words, uniforms on (0, 1], exact bounded indices, numpy twins."""
import numpy as np
import pytest
from numba import njit

from privcd.kernels.streams import (
    MAX_SPAN, bounded_index, bounded_indices_numpy, check_span, random_bits, random_bits_numpy, uniform,
    uniform_fine, uniform_fine_numpy, uniform_numpy)

# SplitMix64 seeded with 1234567: its first five outputs, computed with Python integers below and
# published with Vigna's reference C code (and in java.util.SplittableRandom's test suites).
SPLITMIX_1234567 = [6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431,
                    16408922859458223821]


def splitmix64_python(seed, count):
    """SplitMix64 written with Python integers, independent of the module under test."""
    mask = 2**64 - 1
    state, out = seed, []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append(z ^ (z >> 31))
    return out


@njit(cache=True)
def _words(key, start, count):
    bits = np.empty(count, dtype=np.uint64)
    uniforms = np.empty(count)
    for i in range(count):
        bits[i] = random_bits(key, start + i)
        uniforms[i] = uniform(key, start + i)
    return bits, uniforms


@njit(cache=True)
def _indices(key, position, spans):
    out = np.empty(spans.shape[0], dtype=np.int64)
    for i in range(spans.shape[0]):
        out[i], position = bounded_index(key, position, spans[i])
    return out, position


def test_words_are_splitmix64_outputs():
    assert splitmix64_python(1234567, 5) == SPLITMIX_1234567
    key = 0xDEADBEEFCAFEF00D
    bits, _ = _words(np.uint64(key), 0, 1000)
    assert bits.tolist() == splitmix64_python(key, 1000)
    assert random_bits_numpy(1234567, np.arange(5)).tolist() == SPLITMIX_1234567


def test_numpy_twin_gives_the_same_words_and_uniforms_at_any_counter():
    """Random access: the words from counter 10**12 on are those of the same counters in numpy."""
    key = np.uint64(2**63 + 12345)
    bits, uniforms = _words(key, 10**12, 5000)
    counters = 10**12 + np.arange(5000)
    np.testing.assert_array_equal(bits, random_bits_numpy(key, counters))
    np.testing.assert_array_equal(uniforms, uniform_numpy(key, counters))


def test_uniforms_are_the_top_52_bits_in_0_1_and_never_zero():
    bits, uniforms = _words(np.uint64(7), 0, 200_000)
    np.testing.assert_array_equal(uniforms, 1.0 - (bits >> np.uint64(12)).astype(np.float64) * 2.0**-52)
    assert uniforms.min() > 0.0 and uniforms.max() <= 1.0
    assert np.all(np.mod(uniforms * 2.0**52, 1.0) == 0.0)
    counts, _ = np.histogram(uniforms, bins=20, range=(0, 1))
    expected = uniforms.size / 20
    assert np.sum((counts - expected) ** 2 / expected) < 43.8  # chi2, 19 dof, P < 1e-3


@njit(cache=True)
def _fine_uniforms(key, start, count):
    out = np.empty(count)
    for i in range(count):
        out[i] = uniform_fine(key, start + i)
    return out


def test_fine_uniforms_are_the_word_plus_a_half_over_2_64_rounded_once():
    """(x + 1/2) 2**-64 for the 64-bit word x, correctly rounded: checked with exact fractions."""
    from fractions import Fraction
    key = np.uint64(99)
    fine = _fine_uniforms(key, 0, 20_000)
    np.testing.assert_array_equal(fine, uniform_fine_numpy(key, np.arange(20_000)))
    words = random_bits_numpy(key, np.arange(20_000))
    for x, u in zip(words[:2000].tolist(), fine[:2000].tolist()):
        assert u == float(Fraction(2 * x + 1, 2**65))  # float(Fraction) rounds to nearest
    assert fine.min() > 0.0 and fine.max() <= 1.0


def test_fine_uniforms_reach_2_to_the_minus_65_and_resolve_below_2_to_the_minus_52():
    """The conversion at chosen words (the extremes 0 and 2**64 - 1 included; finding the counters
    that produce them would mean inverting SplitMix64), and the stream's own small values."""
    from privcd.kernels import streams
    words = np.array([0, 1, 2**12 - 1, 2**32, 2**64 - 1], dtype=np.uint64)
    hi = ((words >> np.uint64(32)).astype(np.int64) | streams.TWO_52_BITS).view(np.float64) - streams.TWO_52
    lo = ((words & np.uint64(0xFFFFFFFF)).astype(np.int64) | streams.TWO_52_BITS).view(np.float64) - streams.TWO_52
    u = hi * streams.TWO_MINUS_32 + (lo + 0.5) * streams.TWO_MINUS_64
    assert u.tolist() == [2.0**-65, 3 * 2.0**-65, (2.0**13 - 1) * 2.0**-65, 2.0**-32 + 2.0**-65, 1.0]
    fine = _fine_uniforms(np.uint64(5), 0, 2_000_000)
    small = fine[fine < 2.0**-20]
    assert small.size > 0 and np.any(np.mod(small * 2.0**52, 1.0) != 0.0)  # finer than uniform's grid


@pytest.mark.parametrize("span", [1, 2, 3, 7, 1000, 2**31 + 1, 3 * 2**30, MAX_SPAN])
def test_bounded_index_is_lemire_and_matches_its_numpy_twin(span):
    """Against Python integers: ``x * span >> 32`` of each word's top 32 bits, rejecting low halves
    below ``2**32 mod span`` (for 3 * 2**30 a quarter of the words are rejected)."""
    key = np.uint64(99)
    spans = np.full(4000, span, dtype=np.int64)
    draws, position = _indices(key, 5, spans)
    expected, counter = [], 5
    threshold = (2**32 - span) % span
    while len(expected) < spans.size:
        m = (int(random_bits_numpy(key, [counter])[0]) >> 32) * span
        counter += 1
        if m % 2**32 >= threshold:
            expected.append(m >> 32)
    assert draws.tolist() == expected and position == counter
    twin, twin_position = bounded_indices_numpy(key, 5, spans)
    np.testing.assert_array_equal(twin, draws)
    assert twin_position == position
    assert draws.min() >= 0 and draws.max() < span


def test_bounded_index_is_uniform():
    draws, _ = _indices(np.uint64(3), 0, np.full(60_000, 6, dtype=np.int64))
    counts = np.bincount(draws, minlength=6)
    assert np.sum((counts - 10_000) ** 2 / 10_000) < 20.5  # chi2, 5 dof, P < 1e-3


def test_numpy_twin_replays_mixed_spans_with_rejections():
    spans = np.random.default_rng(0).choice([5, 3 * 2**30, 2**31 + 7, 17], size=3000)
    draws, position = _indices(np.uint64(11), 40, spans)
    twin, twin_position = bounded_indices_numpy(11, 40, spans)
    np.testing.assert_array_equal(twin, draws)
    assert twin_position == position > 40 + spans.size  # some words were rejected


def test_spans_above_2_32_are_refused_by_name():
    assert check_span("n", MAX_SPAN) == MAX_SPAN
    with pytest.raises(ValueError, match=r"n=4294967297 exceeds 2\*\*32"):
        check_span("n", MAX_SPAN + 1)


def test_streams_of_different_keys_and_neighbouring_counters_are_uncorrelated():
    n = 200_000
    _, a = _words(np.uint64(1), 0, n)
    _, b = _words(np.uint64(2), 0, n)
    bound = 4.5 / np.sqrt(n)
    assert abs(np.corrcoef(a, b)[0, 1]) < bound
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < bound
