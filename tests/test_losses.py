"""Loss functions against high-precision references (mpmath at 50 digits)."""
import mpmath
import numpy as np
import pytest
from numba import njit

from privcd.kernels.dispatch import loss_derivative, loss_second_derivative, loss_value
from privcd.losses import logistic


@njit(cache=True)
def _evaluate(code, z, y):
    value = np.empty_like(z)
    first = np.empty_like(z)
    second = np.empty_like(z)
    for i in range(z.shape[0]):
        value[i] = loss_value(code, z[i], y[i])
        first[i] = loss_derivative(code, z[i], y[i])
        second[i] = loss_second_derivative(code, z[i], y[i])
    return value, first, second


def _logistic_reference(z, y):
    """l = log(1 + e^{-yz}), l' = -y / (1 + e^{yz}), l'' = e^{yz} / (1 + e^{yz})^2, at 50 digits."""
    with mpmath.workdps(50):
        out = []
        for zi, yi in zip(z, y):
            t = mpmath.mpf(float(yi)) * mpmath.mpf(float(zi))
            e = mpmath.exp(t)
            out.append((float(mpmath.log1p(1 / e)), float(-yi / (1 + e)), float(e / (1 + e) ** 2)))
        return np.array(out).T


def _logistic_points():
    rng = np.random.default_rng(0)
    magnitude = np.concatenate([rng.uniform(0.0, 2.0, 2000), rng.uniform(0.0, 40.0, 2000),
                                rng.uniform(40.0, 744.0, 1000), [0.0, 1e-300, 1e-8, 36.7, 709.0, 744.0]])
    z = magnitude * rng.choice([-1.0, 1.0], magnitude.shape[0])
    return z, rng.choice([-1.0, 1.0], z.shape[0])


def test_logistic_derivatives_match_a_high_precision_reference():
    """Relative errors (measured: 1.6, 2.2 and 1.0 eps) within 2, 3 and 1.5 eps: the fast exp's 1 ulp
    plus the roundings of the quotient, everywhere, including tails where the derivative is 1e-323."""
    z, y = _logistic_points()
    value, first, second = _evaluate(logistic.CODE, z, y)
    ref_value, ref_first, ref_second = _logistic_reference(z, y)
    eps = np.finfo(float).eps
    np.testing.assert_allclose(first, ref_first, rtol=2 * eps, atol=1e-320)
    np.testing.assert_allclose(second, ref_second, rtol=3 * eps, atol=1e-320)
    np.testing.assert_allclose(value, ref_value, rtol=1.5 * eps, atol=0)
    assert np.all(np.sign(first) == -y)  # strictly inside (-1, 0) * y, never flushed to 0 below |t| = 744


@pytest.mark.parametrize("z,y,expected", [(1e4, 1.0, -0.0), (-1e4, 1.0, -1.0), (1e4, -1.0, 1.0),
                                          (-1e4, -1.0, 0.0), (np.inf, 1.0, -0.0), (-np.inf, 1.0, -1.0)])
def test_logistic_derivative_saturates_without_overflow(z, y, expected):
    _, first, second = _evaluate(logistic.CODE, np.array([z]), np.array([y]))
    assert first[0] == expected and second[0] == 0.0
