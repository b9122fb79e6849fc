"""Counter-based streams: SplitMix64's words, uniforms on (0, 1], exact bounded indices, numpy twins."""
import numpy as np
import pytest
from numba import njit

from privcd.kernels.streams import (
    MAX_SPAN, bounded_index, bounded_indices_numpy, check_span, random_bits, random_bits_numpy, uniform,
    uniform_numpy)

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
