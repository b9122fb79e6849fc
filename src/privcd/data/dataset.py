"""The object :func:`privcd.data.load_dataset` returns."""
from dataclasses import asdict, dataclass, field

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class DatasetMeta:
    """Where a dataset came from and what was done to it.

    Attributes
    ----------
    name : str
        Registry name.
    source : str
        Where the raw data were read: ``"mirror"``, ``"openml"``, ``"sklearn"``, ``"libsvm"`` or ``"synthetic"``.
    origin : str
        File path(s), OpenML id and file, URL or generator call.
    reference : str
        The registry's identifier for the dataset (``"OpenML 151"``, ...).
    task : str
        ``"binary"`` (labels in {-1, 1}) or ``"regression"``.
    preprocessing : str
        The recipe applied (:data:`privcd.data.recipes.RECIPES`).
    recipe_version : int
        Version of the recipe's code; part of the cache's validity.
    shape : tuple of int
        Shape of ``Dataset.X``.
    raw_shape : tuple of int
        (records, columns) of the canonical raw data, before encoding.
    parts : dict
        Records per part: ``{"all": n}``, or ``{"train": ., "validation": ., "test": .}``.
    test_start : int or None
        Row of the raw data where a given test file starts (adult, msd).
    inputs : dict
        Input name -> sha256 of what was read (files, or generator parameters).
    seed : int or None
        Seed of a synthetic dataset.
    note : str
        The registry's note and the recipe's remarks (dropped columns, deviations).
    """

    name: str
    source: str
    origin: str
    reference: str
    task: str
    preprocessing: str
    recipe_version: int
    shape: tuple
    raw_shape: tuple
    parts: dict
    test_start: int | None
    inputs: dict
    seed: int | None
    note: str

    def to_dict(self) -> dict:
        """JSON-ready copy."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "DatasetMeta":
        """Inverse of :meth:`to_dict` (tuples restored)."""
        data = dict(data)
        data["shape"], data["raw_shape"] = tuple(data["shape"]), tuple(data["raw_shape"])
        return cls(**data)


@dataclass(frozen=True, eq=False)
class Split:
    """Features and labels of one held-out part (validation or test)."""

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray


@dataclass(frozen=True, eq=False)
class Dataset:
    """A processed dataset, ready for ``privcd.Problem(dataset.X, dataset.y, ...)``.

    Attributes
    ----------
    X : ndarray of shape (n, p), float64, or scipy.sparse.csr_matrix
        Features of the records to train on (all records unless the recipe splits).
    y : ndarray of shape (n,), float64
        Labels: {-1, 1} for binary tasks, real for regression.
    meta : DatasetMeta
        Provenance, shapes and the recipe.
    feature_names : tuple of str
        Name of each column of ``X`` (one-hot columns are ``"<column>=<value>"``).
    validation, test : Split or None
        Held-out parts of splitting recipes (``"dp-scd"``), else ``None``.
    w_true : ndarray or None
        Generating coefficients of a synthetic dataset.
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    meta: DatasetMeta
    feature_names: tuple = field(repr=False)
    validation: Split | None = field(default=None, repr=False)
    test: Split | None = field(default=None, repr=False)
    w_true: np.ndarray | None = field(default=None, repr=False)

    def __repr__(self):
        kind = "sparse" if sp.issparse(self.X) else "dense"
        parts = ", ".join(f"{k}={v}" for k, v in self.meta.parts.items())
        return (f"Dataset({self.meta.name!r}, {self.meta.task}, X {self.X.shape[0]} x {self.X.shape[1]} {kind}, "
                f"preprocessing={self.meta.preprocessing!r}, {parts}, source={self.meta.source!r})")
