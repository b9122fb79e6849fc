"""Vectorisable log, sin/cos of turns and Box-Muller normals: accuracy, numpy twins, Gaussian quality."""
import mpmath
import numba
import numpy as np
import pytest
import scipy.stats
from numba import njit

from privcd.numerics.elementary import (
    log_positive, log_positive_numpy, sincos_turns, sincos_turns_numpy, sqrt)
from privcd.kernels.gaussian import (
    PIECE_PAIRS, fill_standard_normal, fill_standard_normal_parallel, fill_standard_normal_rows, standard_normal_numpy)


@njit(cache=True)
def _elementary(x, u):
    logs = np.empty_like(x)
    roots = np.empty_like(x)
    sines = np.empty_like(u)
    cosines = np.empty_like(u)
    for i in range(x.shape[0]):
        logs[i] = log_positive(x[i])
        roots[i] = sqrt(x[i])
    for i in range(u.shape[0]):
        sines[i], cosines[i] = sincos_turns(u[i])
    return logs, roots, sines, cosines


@njit(cache=True)
def _normals(key, position, sizes):
    """Consecutive fills of the given sizes from one stream, concatenated, and the final position."""
    out = np.empty(sizes.sum())
    start = 0
    for m in sizes:
        position = fill_standard_normal(key, position, out[start:start + m])
        start += m
    return out, position


@njit(cache=True)
def _normal_rows(key, position, rows, m):
    """A block of ``rows`` rows of m normals drawn at once, and the final position."""
    out = np.empty((rows, m))
    h = (m + 1) // 2
    position = fill_standard_normal_rows(key, position, out, np.empty(rows * h), np.empty(rows * h))
    return out, position


@pytest.mark.parametrize("m", [1, 2, 7, 8, 501])
@pytest.mark.parametrize("rows", [1, 3, 64])
def test_a_block_of_rows_has_the_bits_of_one_fill_per_row(rows, m):
    key, start = np.uint64(0x5DEECE66D), 977
    block, end = _normal_rows(key, start, rows, m)
    one_by_one, expected_end = _normals(key, start, np.full(rows, m))
    assert end == expected_end
    assert np.array_equal(block.ravel().view(np.int64), one_by_one.view(np.int64))


@pytest.mark.parametrize("m", [1, 7, 256, 2 * PIECE_PAIRS + 3])
@pytest.mark.parametrize("rows", [1, 3])
def test_a_block_filled_by_all_threads_has_the_bits_of_one_fill_per_row(rows, m):
    """Rows of several pieces (the last with the odd draw's unused sine), with 1 and 2 threads."""
    key, start = np.uint64(0xC0FFEE), 12345
    one_by_one, expected_end = _normals(key, start, np.full(rows, m))
    threads = numba.get_num_threads()
    try:
        for count in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(count)
            block = np.full((rows, m), np.nan)
            assert fill_standard_normal_parallel(key, start, block) == expected_end
            assert np.array_equal(block.ravel().view(np.int64), one_by_one.view(np.int64)), count
    finally:
        numba.set_num_threads(threads)


def ulps(value, exact):
    """|value - exact| in units of the last place of exact (exact as an mpmath number or float)."""
    exact_float = float(exact)
    return float(abs(mpmath.mpf(value) - exact)) / np.spacing(abs(exact_float))


def positive_normals(size, seed=0):
    """Positive normal float64s spread over every binade, plus (0, 1] and the neighbourhood of 1."""
    rng = np.random.default_rng(seed)
    return np.concatenate([np.ldexp(1.0 + rng.random(size), rng.integers(-1022, 1024, size)),
                           rng.random(size), 1.0 + rng.uniform(-1e-3, 1e-3, size // 10),
                           [2.0**-1022, 2.0**-52, 0.5, 1.0, 2.0, np.sqrt(2.0), np.sqrt(0.5), 1.7976931348623157e308]])


def turns(size, seed=1):
    rng = np.random.default_rng(seed)
    special = np.arange(-16, 17) / 8.0  # the multiples of 1/8, where quadrants and octants meet
    return np.concatenate([rng.random(size), rng.uniform(-1e3, 1e3, size // 10), special,
                           np.nextafter(special, np.inf), np.nextafter(special, -np.inf), [2.0**-52, 1e-300]])


def test_log_is_within_one_ulp_of_numpy_and_of_the_exact_value():
    x = positive_normals(400_000)
    logs, roots, _, _ = _elementary(x, np.zeros(0))
    reference = np.log(x)
    error = np.abs(logs - reference) / np.spacing(np.abs(reference))
    assert np.all(error[reference != 0] <= 1.0)
    assert logs[x == 1.0].tolist() == [0.0] * int(np.sum(x == 1.0))
    mpmath.mp.prec = 120
    sample = np.random.default_rng(2).choice(x.size, 3000, replace=False)
    worst = max(ulps(logs[i], mpmath.log(mpmath.mpf(x[i]))) for i in sample if x[i] != 1.0)
    assert worst < 1.0
    np.testing.assert_array_equal(roots, np.sqrt(x))  # IEEE: correctly rounded


def test_sincos_of_turns_is_within_two_ulps_of_the_exact_value():
    """Against mpmath's sin(2 pi u) and cos(2 pi u) at 120 bits; numpy's sin(2 pi u) itself is off by
    far more near the zeros (its argument 2 pi u is rounded)."""
    u = turns(200_000)
    _, _, sines, cosines = _elementary(np.ones(0), u)
    mpmath.mp.prec = 120
    sample = np.concatenate([np.random.default_rng(3).choice(u.size, 4000, replace=False),
                             np.arange(u.size - 101, u.size)])
    for i in sample:
        exact_sin, exact_cos = mpmath.sinpi(2 * mpmath.mpf(u[i])), mpmath.cospi(2 * mpmath.mpf(u[i]))
        for value, exact in ((sines[i], exact_sin), (cosines[i], exact_cos)):
            if exact == 0:
                assert value == 0.0
            else:
                assert ulps(value, exact) <= 2.0, (u[i], value, exact)
    np.testing.assert_allclose(sines, np.sin(2 * np.pi * u), rtol=0, atol=1e-12)
    np.testing.assert_allclose(cosines, np.cos(2 * np.pi * u), rtol=0, atol=1e-12)
    assert np.all(sines**2 + cosines**2 == pytest.approx(1.0, abs=4e-16))


def test_numpy_twins_of_log_and_sincos_give_the_same_bits():
    x, u = positive_normals(100_000, seed=4), turns(100_000, seed=5)
    logs, _, sines, cosines = _elementary(x, u)
    np.testing.assert_array_equal(log_positive_numpy(x).view(np.int64), logs.view(np.int64))
    twin_sines, twin_cosines = sincos_turns_numpy(u)
    np.testing.assert_array_equal(twin_sines.view(np.int64), sines.view(np.int64))
    np.testing.assert_array_equal(twin_cosines.view(np.int64), cosines.view(np.int64))


def test_fills_continue_the_stream_and_equal_the_numpy_twin():
    """Fills of odd and even sizes from one stream: each takes 2 ceil(m / 2) words, numpy replays them."""
    sizes = np.array([1, 2, 3, 8, 999, 1000, 5])
    key = np.uint64(0x0123456789ABCDEF)
    normals, position = _normals(key, 17, sizes)
    assert position == 17 + sum(2 * ((m + 1) // 2) for m in sizes)
    expected, at = [], 17
    for m in sizes:
        draw, at = standard_normal_numpy(key, at, int(m))
        expected.append(draw)
    np.testing.assert_array_equal(np.concatenate(expected).view(np.int64), normals.view(np.int64))
    assert at == position


@pytest.fixture(scope="module")
def million():
    """10**6 normals in fills of 1000 (a p = 1000 run's noise)."""
    normals, _ = _normals(np.uint64(2024), 0, np.full(1000, 1000))
    return normals


def test_normals_pass_kolmogorov_smirnov_and_moments(million):
    n = million.size
    assert np.all(np.isfinite(million)) and np.abs(million).max() <= np.sqrt(104 * np.log(2))
    assert scipy.stats.kstest(million, "norm").pvalue > 1e-3
    assert abs(million.mean()) < 4.5 / np.sqrt(n)
    assert abs(million.var() - 1.0) < 4.5 * np.sqrt(2.0 / n)
    assert abs(scipy.stats.skew(million)) < 4.5 * np.sqrt(6.0 / n)
    assert abs(scipy.stats.kurtosis(million)) < 4.5 * np.sqrt(24.0 / n)
    # the cosine half and the sine half of every fill are each standard normal
    halves = million.reshape(1000, 2, 500)
    for half in (halves[:, 0], halves[:, 1]):
        assert scipy.stats.kstest(half.ravel(), "norm").pvalue > 1e-3


@pytest.mark.parametrize("threshold", [2.0, 3.0, 4.0])
def test_tail_frequencies_match_the_normal_law(million, threshold):
    n = million.size
    probability = 2 * scipy.stats.norm.sf(threshold)
    count = np.sum(np.abs(million) > threshold)
    assert abs(count - n * probability) < 4.5 * np.sqrt(n * probability * (1 - probability))


def test_no_correlation_between_consecutive_draws_pairs_or_keys(million):
    n = million.size
    bound = 4.5 / np.sqrt(n)
    assert abs(np.corrcoef(million[:-1], million[1:])[0, 1]) < bound
    halves = million.reshape(1000, 2, 500)
    # the two normals of one Box-Muller pair: uncorrelated, and so are their squares
    assert abs(np.corrcoef(halves[:, 0].ravel(), halves[:, 1].ravel())[0, 1]) < 4.5 / np.sqrt(n / 2)
    assert abs(np.corrcoef(halves[:, 0].ravel()**2, halves[:, 1].ravel()**2)[0, 1]) < 4.5 / np.sqrt(n / 2)
    other, _ = _normals(np.uint64(2025), 0, np.full(1000, 1000))
    assert abs(np.corrcoef(million, other)[0, 1]) < bound
    assert abs(np.corrcoef(million**2, other**2)[0, 1]) < bound
