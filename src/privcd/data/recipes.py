"""Preprocessing recipes: name -> :class:`Recipe`.

``raw``
    The data as the source gives them (dp-cd Section 6.1, the "imbalanced" runs; dp-gcd Section 5):
    categorical columns one-hot encoded over all their values (a missing-value marker such as adult's
    ``"?"`` is one more level), columns that are zero on every record dropped (dp-gcd Table 1 counts
    88,119 of dorothea's 100,000 features), binary labels mapped to {-1, 1}.
``standardize``
    ``raw``, then every column centred and divided by its standard deviation (population, ddof=0):
    dp-cd Sections 5.3 and 6.2, the "balanced" runs. Constant columns are dropped (0/0); sparse data
    are refused, since centring would make them dense.
``dp-scd``
    dp-scd Section 5.1 and its authors' code (gdamaskinos/dpscd, ``preprocessor.py``, ``driver.py``):
    given test file (adult, msd) or a 75/25 train/test split (random_state 42, as the authors' code);
    categorical values missing -> the train part's most frequent value, then one-hot; each column
    divided by its maximum absolute value on the train part; each record scaled to unit L2 norm;
    regression labels centred by the train mean; 25% of train held out for validation
    (random_state 1, the authors' ``--seed 1``). For adult, the authors' pipeline also drops
    ``fnlwgt`` and ``education``, standardises the 5 numeric columns and drops each categorical
    column's most frequent level (:data:`DPSCD_OPTIONS`): that gives the paper's 81 coordinates.
    Deviation: the authors re-fit imputer and standardiser on adult's test file; privcd applies the
    train part's.
"""
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MaxAbsScaler, normalize

from privcd.data.dataset import Split
from privcd.data.encoding import categorical_columns, encode, labels, matrix, nonzero_columns
from privcd.data.errors import UnknownNameError

TEST_FRACTION = 0.25
TEST_SEED = 42
VALIDATION_FRACTION = 0.25
VALIDATION_SEED = 1


@dataclass(frozen=True)
class Processed:
    """What a recipe returns: the training part, held-out parts, and remarks for ``meta.note``."""

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    feature_names: list
    parts: dict
    validation: Split | None = None
    test: Split | None = None
    remarks: list = field(default_factory=list)


@dataclass(frozen=True)
class Recipe:
    """A named preprocessing; bump ``version`` whenever its output changes (it invalidates caches)."""

    name: str
    version: int
    apply: Callable[..., Processed]


def _keep_columns(X, names, keep, why: str, remarks: list):
    if not keep.all():
        remarks.append(f"{int((~keep).sum())} {why} column(s) dropped")
        X, names = X[:, np.flatnonzero(keep)], [name for name, k in zip(names, keep) if k]
    return X, names


def raw(data, spec) -> Processed:
    """Source values, one-hot categoricals, all-zero columns dropped, labels in {-1, 1} (binary)."""
    remarks = []
    X, names = matrix(data.features)
    X, names = _keep_columns(X, names, nonzero_columns(X), "all-zero", remarks)
    return Processed(X, labels(data.target, spec), names, {"all": X.shape[0]}, remarks=remarks)


def standardize(data, spec) -> Processed:
    """``raw`` with every column at zero mean and unit variance (dp-cd "balanced")."""
    if spec.sparse:
        raise ValueError(f"preprocessing 'standardize' does not apply to the sparse dataset {spec.name!r}: "
                         f"centring would make its {spec.shape[1]:,} columns dense; use 'raw'")
    base = raw(data, spec)
    scale = base.X.std(axis=0)
    varies = scale != 0.0
    X, names = _keep_columns(base.X, base.feature_names, varies, "constant", base.remarks)
    X = (X - X.mean(axis=0)) / scale[varies]
    return Processed(X, base.y, names, base.parts, remarks=base.remarks)


@dataclass(frozen=True)
class DpScdOptions:
    """Dataset-specific steps of the dp-scd authors' pipeline."""

    drop: tuple = ()
    standardize_numeric: bool = False
    drop_first: bool = False


DPSCD_OPTIONS = {"adult": DpScdOptions(drop=("fnlwgt", "education"), standardize_numeric=True, drop_first=True)}


def _by_frequency(values: pd.Series) -> list:
    counts = values.value_counts()
    return sorted(counts.index, key=lambda level: (-counts[level], str(level)))


def _dp_scd_features(features, spec, train, remarks):
    """Impute (train mode), one-hot (levels by frequency over all rows), numeric columns first."""
    if sp.issparse(features):
        return matrix(features)
    options = DPSCD_OPTIONS.get(spec.name, DpScdOptions())
    if options != DpScdOptions():
        remarks.append(f"authors' {spec.name} steps: dropped {', '.join(options.drop)}; numeric columns "
                       f"standardised: {options.standardize_numeric}; most frequent level dropped: {options.drop_first}")
    frame = features.drop(columns=list(options.drop))
    categorical = categorical_columns(frame)
    numeric = [column for column in frame.columns if column not in categorical]
    frame = frame[numeric + categorical].copy()
    levels = {}
    for column in categorical:
        values = frame[column].astype(object)
        if spec.missing is not None:
            values = values.where(values != spec.missing)
        values = values.fillna(_by_frequency(values.iloc[train])[0])
        frame[column] = values
        levels[column] = _by_frequency(values)[1 if options.drop_first else 0:]
    if options.standardize_numeric:
        block = frame[numeric].to_numpy(dtype=np.float64)
        frame[numeric] = (block - block[train].mean(axis=0)) / block[train].std(axis=0)
    return encode(frame, levels)


def dp_scd(data, spec) -> Processed:
    """dp-scd Section 5.1: max-abs scaling, unit-norm records, train/validation/test splits."""
    n = data.target.shape[0]
    if spec.test_start is not None:
        train, test = np.arange(spec.test_start), np.arange(spec.test_start, n)
    else:
        train, test = train_test_split(np.arange(n), test_size=TEST_FRACTION, random_state=TEST_SEED)
    remarks = ["given test file" if spec.test_start is not None else
               f"test = {TEST_FRACTION:.0%} random split (random_state={TEST_SEED})"]
    X, names = _dp_scd_features(data.features, spec, train, remarks)
    y = labels(data.target, spec)
    scaler = MaxAbsScaler().fit(X[train])
    X_train, X_test = (normalize(scaler.transform(X[rows])) for rows in (train, test))
    y_train, y_test = y[train], y[test]
    if spec.task == "regression":
        centre = y_train.mean()
        y_train, y_test = y_train - centre, y_test - centre
    fit, held = train_test_split(np.arange(train.shape[0]), test_size=VALIDATION_FRACTION,
                                 random_state=VALIDATION_SEED)
    parts = {"train": fit.shape[0], "validation": held.shape[0], "test": test.shape[0]}
    remarks.append(f"validation = {VALIDATION_FRACTION:.0%} of train (random_state={VALIDATION_SEED})")
    return Processed(X_train[fit], y_train[fit], names, parts, Split(X_train[held], y_train[held]),
                     Split(X_test, y_test), remarks)


RECIPES = {recipe.name: recipe for recipe in (Recipe("raw", 1, raw), Recipe("standardize", 1, standardize),
                                              Recipe("dp-scd", 1, dp_scd))}


def get_recipe(name) -> Recipe:
    """The :class:`Recipe` registered as ``name``; an error naming the choices otherwise."""
    try:
        return RECIPES[name]
    except (KeyError, TypeError):
        raise UnknownNameError(f"preprocessing {name!r} is not a known recipe; expected one of "
                               f"{sorted(RECIPES)}") from None
