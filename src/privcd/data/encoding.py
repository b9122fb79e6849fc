"""From the canonical raw data (a data frame or a CSR matrix, raw labels) to numbers."""
import numpy as np
import pandas as pd
import scipy.sparse as sp
from pandas.api.types import is_numeric_dtype


def labels(target, spec) -> np.ndarray:
    """Binary: ``spec.labels = (negative, positive)`` -> -1.0 / 1.0; regression: float64."""
    if spec.task == "binary":
        return np.where(np.asarray(target) == spec.labels[1], 1.0, -1.0)
    return np.asarray(target, dtype=np.float64)


def categorical_columns(frame: pd.DataFrame) -> list:
    """Columns a linear model cannot use as they are: every non-numeric column."""
    return [column for column in frame.columns if not is_numeric_dtype(frame[column])]


def one_hot(values: pd.Series, levels) -> np.ndarray:
    """Indicator columns of ``levels`` (a value outside ``levels`` gives a row of zeros)."""
    codes = pd.Index([str(level) for level in levels]).get_indexer(values.astype(str))
    out = np.zeros((len(values), len(levels)))
    present = codes >= 0
    out[np.flatnonzero(present), codes[present]] = 1.0
    return out


def encode(frame: pd.DataFrame, levels: dict) -> tuple:
    """Numeric columns as float64, each column named in ``levels`` one-hot encoded over its levels.

    Returns ``(X, names)``; one-hot columns are named ``"<column>=<level>"``.
    """
    blocks, names = [], []
    for column in frame.columns:
        if column in levels:
            blocks.append(one_hot(frame[column], levels[column]))
            names += [f"{column}={level}" for level in levels[column]]
        else:
            blocks.append(frame[column].to_numpy(dtype=np.float64)[:, None])
            names.append(str(column))
    return np.hstack(blocks), names


def sorted_levels(frame: pd.DataFrame) -> dict:
    """Every categorical column's distinct values, sorted (a missing-value marker is a level like any other)."""
    return {column: sorted(frame[column].astype(str).unique()) for column in categorical_columns(frame)}


def matrix(features, levels=None) -> tuple:
    """``(X, names)``: CSR float64 for sparse features (columns ``x1, x2, ...``), else :func:`encode`."""
    if sp.issparse(features):
        return sp.csr_matrix(features, dtype=np.float64), [f"x{j + 1}" for j in range(features.shape[1])]
    return encode(features, sorted_levels(features) if levels is None else levels)


def nonzero_columns(X) -> np.ndarray:
    """Mask of the columns with at least one non-zero entry."""
    if sp.issparse(X):
        return np.asarray(X.getnnz(axis=0) > 0).ravel()
    return np.any(X != 0.0, axis=0)
