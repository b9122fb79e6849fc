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


def reject_complex(name, values):
    """``ValueError`` when ``values`` holds complex numbers (numpy would drop their imaginary parts)."""
    if np.iscomplexobj(values) or (isinstance(values, (list, tuple)) and np.iscomplexobj(np.asarray(values))):
        raise ValueError(f"{name} holds complex numbers; expected real numbers")


def check_vector(name, values, length):
    """A contiguous float64 vector of ``length`` real entries (one layout: no new numba compilation)."""
    reject_complex(name, values)
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.shape != (length,):
        raise ValueError(f"{name} has shape {values.shape}; expected ({length},)")
    return values


def check_matrix(X):
    """A private, read-only float64 copy of ``X``, checked: 2-D, at least one row and column, finite.

    Dense ``X`` becomes a Fortran-ordered array (the column layout every objective evaluation and
    coordinate method reads: :attr:`privcd.Problem.columns` is then ``X`` itself, no second copy).
    Sparse ``X`` stays CSR or CSC (any other format becomes CSR) in canonical form: duplicate
    entries summed, indices sorted, explicit zeros removed, so that its stored entries are exactly
    the non-zero entries of the dense equivalent and every norm computed from them is that of the
    dense matrix. The copy is made once here and never shares memory with the caller's ``X``;
    its arrays (``data``, ``indices``, ``indptr`` for sparse ``X``) are marked read-only.
    """
    if is_sparse_matrix(X):
        X = (X.tocsr() if X.format not in ("csr", "csc") else X).astype(np.float64, copy=True)
        X.has_canonical_format = False  # never trust a flag cached on the caller's arrays
        X.sum_duplicates()
        X.eliminate_zeros()
        values = X.data
    else:
        reject_complex("X", X)
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
    return read_only(X if is_sparse_matrix(X) else ordered_copy(X, "F"))


def ordered_copy(X, order, block=256):
    """A copy of the 2-D array ``X`` in ``order`` (``"F"`` or ``"C"``). From the other layout it is
    copied ``block`` rows (or columns) at a time: numpy's own transposing copy strides through
    memory a row apart and took 1.4 s for a 200,000 x 400 array, the blocks 0.18 s (a plain
    contiguous copy 0.10 s)."""
    if X.flags.f_contiguous if order == "F" else X.flags.c_contiguous:
        return np.array(X, order=order, copy=True)
    out = np.empty(X.shape, order=order)
    axis = 0 if order == "F" else 1
    for start in range(0, X.shape[axis], block):
        part = slice(start, start + block)
        if axis == 0:
            out[part] = X[part]
        else:
            out[:, part] = X[:, part]
    return out


def read_only(X):
    """``X`` with its arrays (a dense array, or a sparse matrix's ``data``, ``indices``, ``indptr``)
    marked read-only."""
    for array in (X.data, X.indices, X.indptr) if is_sparse_matrix(X) else (X,):
        array.flags.writeable = False
    return X


def check_labels(y, n_samples, labels):
    """A private, read-only float64 copy of ``y``, checked: 1-D of length ``n_samples``, finite,
    within ``labels`` when given."""
    reject_complex("y", y)
    try:
        y = np.array(y, dtype=np.float64, copy=True)
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
    return read_only(y)
