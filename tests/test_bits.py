"""The bit casts of privcd.numerics.bits agree with numpy's array views, both ways."""
import numpy as np
from numba import njit

from privcd.numerics.bits import float_as_int, int_as_float


@njit(cache=True)
def _casts(values):
    as_int = np.empty(values.shape[0], dtype=np.int64)
    back = np.empty_like(values)
    for i in range(values.shape[0]):
        as_int[i] = float_as_int(values[i])
        back[i] = int_as_float(as_int[i])
    return as_int, back


def test_bit_casts_match_numpy_views_and_round_trip():
    values = np.array([0.0, -0.0, 1.0, -2.5, np.pi, 5e-324, 1.7976931348623157e308, np.inf, -np.inf])
    values = np.concatenate([values, np.random.default_rng(0).normal(size=1000) * 1e10])
    as_int, back = _casts(values)
    np.testing.assert_array_equal(as_int, values.view(np.int64))
    np.testing.assert_array_equal(back.view(np.int64), values.view(np.int64))
