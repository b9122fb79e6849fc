"""Turn a :class:`~privcd.problem.Problem`'s X into the argument tuple the kernels take.

Every array of the tuple is read-only, as the Problem's own X is (:func:`privcd.validation.check_matrix`):
numba types a read-only array apart from a writable one, so one kind throughout keeps one compiled
specialisation per kernel for dense and sparse X alike.
"""
import numpy as np

from privcd.validation import read_only

# Placeholders for the unused representation, shaped so numba types them with the same layout
# as the real dense arrays (a (0, 0) array would type as C-contiguous and compile a second time).
_UNUSED_COLUMNS = read_only(np.zeros((2, 2), order="F"))
_UNUSED_ROWS = read_only(np.zeros((2, 2), order="C"))
_EMPTY_VALUES = read_only(np.empty(0))
_EMPTY_INDEX = read_only(np.empty(0, dtype=np.int32))
_EMPTY_POINTERS = read_only(np.empty(0, dtype=np.int64))


def column_arrays(problem):
    """``(is_sparse, Xf, data, indices, indptr)`` for column access (coordinate methods)."""
    return _arrays(problem.is_sparse, problem.columns, _UNUSED_COLUMNS)


def objective_codes(problem):
    """``(loss_code, penalty_code, lam)``: what a kernel needs of the objective's loss and penalty
    (:mod:`privcd.kernels.dispatch`)."""
    return int(problem.loss.code), int(problem.penalty.code), float(problem.lam)


def row_arrays(problem):
    """``(is_sparse, Xc, data, indices, indptr)`` for row access (sample methods)."""
    return _arrays(problem.is_sparse, problem.rows, _UNUSED_ROWS)


def _arrays(is_sparse, X, unused_dense):
    if is_sparse:
        return (True, unused_dense, X.data, read_only(X.indices.astype(np.int32, copy=False)),
                read_only(X.indptr.astype(np.int64, copy=False)))
    return False, X, _EMPTY_VALUES, _EMPTY_INDEX, _EMPTY_POINTERS
