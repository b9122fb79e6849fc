"""The kernels' draws from ``kernel_rng(seed)`` are numpy's: same stream, same numbers, same order;
``kernel_key(seed)`` is SplitMix64's first output."""
import numpy as np
from numba import njit

from privcd.algorithms.base import kernel_key, kernel_rng
from privcd.algorithms.private_smoothness import _STREAM
from privcd.kernels.draws import bounded_integer


@njit(cache=True)
def _interleaved(rng, lows, highs):
    """Per entry: one bounded integer, one standard normal, one uniform (the kernels' mix)."""
    integers = np.empty(lows.shape[0], dtype=np.int64)
    normals = np.empty(lows.shape[0])
    uniforms = np.empty(lows.shape[0])
    for i in range(lows.shape[0]):
        integers[i] = bounded_integer(rng, lows[i], highs[i])
        normals[i] = rng.standard_normal()
        uniforms[i] = rng.random()
    return integers, normals, uniforms


def test_bounded_integer_gives_numpys_integers_in_the_same_stream():
    """Spans of every branch: one value (no draw), 32-bit Lemire up to 2**32 - 1 values, 2**32 values
    (numpy's special case, a raw 32-bit word) and wider (64-bit), from negative and large lows."""
    pick = np.random.default_rng(0)
    spans = np.concatenate([[1, 2, 3, 7, 1000, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**40, 2**62],
                            pick.integers(1, 20_000, size=500)])
    spans = pick.permutation(np.repeat(spans, 4))
    lows = pick.integers(-2**40, 2**40, size=spans.size)
    lows[::3] = 0
    highs = lows + spans
    integers, normals, uniforms = _interleaved(kernel_rng(12), lows, highs)
    numpy_rng = np.random.default_rng(12)
    expected = []
    for low, high in zip(lows, highs):
        expected.append((numpy_rng.integers(low, high), numpy_rng.standard_normal(), numpy_rng.random()))
    expected_integers, expected_normals, expected_uniforms = map(np.array, zip(*expected))
    assert np.all((lows <= integers) & (integers < highs))
    np.testing.assert_array_equal(integers, expected_integers)
    np.testing.assert_array_equal(normals, expected_normals)
    np.testing.assert_array_equal(uniforms, expected_uniforms)


def test_kernel_rng_is_numpys_pcg64_and_apart_from_dp_cd_p_stream():
    rng = kernel_rng(5)
    assert isinstance(rng.bit_generator, np.random.PCG64)
    np.testing.assert_array_equal(rng.random(4), np.random.default_rng(5).random(4))
    other = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(_STREAM,)))
    assert not np.any(np.isin(other.random(1000), kernel_rng(5).random(1000)))


def test_kernel_key_is_splitmix64s_first_output_and_distinct_per_seed():
    from test_streams import splitmix64_python
    seeds = list(range(3000)) + [2**31, 2**32 - 1]
    keys = [kernel_key(seed) for seed in seeds]
    assert all(isinstance(key, np.uint64) for key in keys)
    assert [int(keys[i]) for i in (0, 1, 2, -1)] == [splitmix64_python(seeds[i], 1)[0] for i in (0, 1, 2, -1)]
    assert len(set(int(key) for key in keys)) == len(keys)
    # neighbouring seeds give unrelated keys: about half of the 64 bits differ
    flips = [bin(int(a) ^ int(b)).count("1") for a, b in zip(keys[:2999], keys[1:3000])]
    assert 31 < np.mean(flips) < 33
