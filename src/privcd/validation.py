"""Argument checks run before any numba code, each raising a ``ValueError`` that names the argument,
the value received and what is accepted."""
import math
import numbers
import sys

import numpy as np


def check_number(name, value, *, low=-math.inf, high=math.inf, low_open=True, high_open=True,
                 allow_inf=False):
    """Return ``value`` as a float after checking it lies in the interval (low, high).

    ``low_open``/``high_open`` choose open or closed ends; ``allow_inf`` admits ``+inf``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={value!r} must be a real number")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name}=nan is not a number")
    if math.isinf(value) and not (allow_inf and value > 0):
        raise ValueError(f"{name}={value} must be finite")
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or (above and not (allow_inf and math.isinf(value))):
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        extra = " or inf" if allow_inf else ""
        raise ValueError(f"{name}={value!r} is outside the accepted range {left}{low}, {high}{right}{extra}")
    return value


def check_positive(name, value, *, allow_inf=False):
    """``value > 0`` (``inf`` admitted when ``allow_inf``)."""
    return check_number(name, value, low=0.0, allow_inf=allow_inf)


def check_positive_int(name, value):
    """An integer ``>= 1``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name}={value!r} must be an integer >= 1")
    return int(value)


def check_seed(seed):
    """A non-negative integer below 2**32: the seed of a run's generator (``algorithms.base.kernel_rng``)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**32:
        raise ValueError(f"seed={seed!r} must be an integer in [0, 2**32)")
    return int(seed)


def check_choice(name, value, choices):
    """``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not accepted; expected one of {list(choices)}")
    return value


def is_sparse_matrix(X):
    """``X`` is a scipy sparse matrix or array.

    scipy.sparse is only consulted when some module has imported it already: no sparse X can
    exist before, and importing it costs 0.15 s of a warm start (issue 2's floor is 1 s).
    """
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def check_matrix(X):
    """A 2-D float64 numpy array or scipy CSR/CSC matrix with finite entries and at least one row and column."""
    if is_sparse_matrix(X):
        if X.format not in ("csr", "csc"):
            X = X.tocsr()
        X = X.astype(np.float64)
        values = X.data
    else:
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"X must be a numeric 2-D array or a scipy sparse matrix: {error}") from None
        values = X
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be 2-D with at least one row and one column; got shape {X.shape}")
    if not np.all(np.isfinite(values)):
        bad = np.argwhere(~np.isfinite(values))[0]
        where = f"stored entry {int(bad[0])}" if is_sparse_matrix(X) else f"row {int(bad[0])}, column {int(bad[1])}"
        raise ValueError(f"X contains NaN or inf (first at {where}); every entry must be finite")
    return X


def check_labels(y, n_samples, labels):
    """A 1-D float64 vector of length ``n_samples``, finite, within ``labels`` when given."""
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"y must be a numeric 1-D array: {error}") from None
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y has shape {y.shape}; expected ({n_samples},), one label per row of X")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"y contains NaN or inf (first at index {int(np.argmax(~np.isfinite(y)))})")
    if labels is not None:
        outside = ~np.isin(y, labels)
        if outside.any():
            raise ValueError(f"y contains {y[outside][0]!r} at index {int(np.argmax(outside))}; "
                             f"labels must lie in {set(labels)} for this loss")
    return y
