"""Turn a :class:`~privcd.problem.Problem`'s X into the argument tuple the kernels take."""
import numpy as np

# Placeholders for the unused representation, shaped so numba types them with the same layout
# as the real dense arrays (a (0, 0) array would type as C-contiguous and compile a second time).
_UNUSED_COLUMNS = np.zeros((2, 2), order="F")
_UNUSED_ROWS = np.zeros((2, 2), order="C")
_EMPTY_VALUES = np.empty(0)
_EMPTY_INDEX = np.empty(0, dtype=np.int32)


def column_arrays(problem):
    """``(is_sparse, Xf, data, indices, indptr)`` for column access (coordinate methods)."""
    return _arrays(problem.is_sparse, problem.columns, _UNUSED_COLUMNS)


def row_arrays(problem):
    """``(is_sparse, Xc, data, indices, indptr)`` for row access (sample methods)."""
    return _arrays(problem.is_sparse, problem.rows, _UNUSED_ROWS)


def _arrays(is_sparse, X, unused_dense):
    if is_sparse:
        return (True, unused_dense, X.data, X.indices.astype(np.int32, copy=False),
                X.indptr.astype(np.int64, copy=False))
    return False, X, _EMPTY_VALUES, _EMPTY_INDEX, np.empty(0, dtype=np.int64)
