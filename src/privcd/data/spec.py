"""What the registry knows about a dataset, and what a source hands to the loader.

A source module (:mod:`privcd.data.sources`) declares one :class:`DatasetSpec` per dataset. Loading
goes in two steps so that the processed-data cache can be consulted before any parsing:
``spec.fetch(request)`` (or the mirror lookup) returns an :class:`Acquired` whose ``inputs`` are the
sha256 digests of the input files, and whose ``read()`` parses them into a :class:`RawData`.
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import scipy.sparse as sp

TASKS = ("binary", "regression")
SOURCES = ("openml", "sklearn", "libsvm", "synthetic", "mirror")


@dataclass(frozen=True)
class PaperShape:
    """Records and features as a paper reports them, and where (e.g. ``"dp-gcd Table 1"``)."""

    records: int
    features: int
    where: str


@dataclass(frozen=True)
class Request:
    """What a fetcher may use: a directory for its downloads and, for generators, the seed."""

    downloads: Path
    seed: int | None = None


@dataclass(frozen=True)
class RawData:
    """A dataset as its source gives it, in the mirror's canonical form.

    Attributes
    ----------
    features : pandas.DataFrame or scipy.sparse.csr_matrix
        One row per record; numeric columns and, for categorical features, string columns.
    target : ndarray of shape (n,)
        Raw target values: the class values of ``DatasetSpec.labels`` or real numbers.
    w_true : ndarray or None
        The generating parameter vector of a synthetic dataset.
    """

    features: pd.DataFrame | sp.csr_matrix
    target: np.ndarray
    w_true: np.ndarray | None = None


@dataclass(frozen=True)
class Acquired:
    """Input located (mirror files, a completed download, generator parameters), not yet parsed.

    Attributes
    ----------
    source : str
        Where the raw data come from: ``"mirror"`` or the spec's download source.
    origin : str
        Human-readable location: file path(s), OpenML id, URL or generator call.
    inputs : dict
        Input name -> sha256 hex digest; the processed-data cache is valid only for these digests.
    read : callable
        ``read() -> RawData`` parses the inputs.
    """

    source: str
    origin: str
    inputs: dict
    read: Callable[[], RawData]


@dataclass(frozen=True)
class DatasetSpec:
    """One registry line.

    Attributes
    ----------
    name : str
        Registry name (lower case, ``-`` separated).
    source : str
        The download source (one of :data:`SOURCES`); ``"mirror"`` when only a mirror can hold it.
    reference : str
        The source's identifier: ``"OpenML 151"``, a URL, a generator and its paper section.
    task : str
        ``"binary"`` (labels mapped to {-1, 1}) or ``"regression"``.
    shape : tuple of int
        (records, raw feature columns) of the canonical form, checked on every read.
    nonzeros : int or None
        Stored entries of a sparse dataset's canonical matrix (the challenge's check-sum for
        dorothea), checked on every read; ``None`` leaves the count unchecked.
    fetch : callable or None
        ``fetch(Request) -> Acquired``, the real download (or generator); ``None`` for mirror-only data.
    labels : tuple or None
        ``(negative, positive)`` raw target values of a binary dataset, mapped to -1 and 1.
    test_start : int or None
        Row where the given test file starts (adult, YearPredictionMSD); the rows before it are train.
    missing : str or None
        The string that marks a missing categorical value (adult: ``"?"``).
    sparse : bool
        Mirror files are ``<stem>.npz`` + ``<stem>.labels.csv`` instead of ``<stem>.csv.gz``.
    stem : str
        Mirror file stem; defaults to ``name`` with ``-`` replaced by ``_``.
    paper : PaperShape or None
        The shape a paper reports, for :func:`privcd.data.dataset_table`.
    note : str
        What a user must know (differences from the papers' version, unverified assumptions).
    """

    name: str
    source: str
    reference: str
    task: str
    shape: tuple
    fetch: Callable[[Request], Acquired] | None
    labels: tuple | None = None
    test_start: int | None = None
    missing: str | None = None
    sparse: bool = False
    stem: str = field(default="")
    paper: PaperShape | None = None
    nonzeros: int | None = None
    note: str = ""

    def __post_init__(self):
        if self.nonzeros is not None and not self.sparse:
            raise ValueError(f"dataset {self.name!r}: nonzeros={self.nonzeros} applies to sparse datasets only")
        if not self.stem:
            object.__setattr__(self, "stem", self.name.replace("-", "_"))

    @property
    def mirror_files(self) -> tuple:
        """File names this dataset has in a mirror directory."""
        if self.sparse:
            return (f"{self.stem}.npz", f"{self.stem}.labels.csv")
        return (f"{self.stem}.csv.gz",)
