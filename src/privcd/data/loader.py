"""``load_dataset``: mirror first, then the real download, then the recipe, with a processed-data cache."""
import os
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privcd.data.cache import CacheEntry, cache_directory
from privcd.data.dataset import Dataset, DatasetMeta
from privcd.data.errors import DataFileError, DatasetError, DatasetUnavailableError
from privcd.data.recipes import get_recipe
from privcd.data.registry import get_spec
from privcd.data.sources import mirror as mirror_source
from privcd.data.sources.synthetic import DEFAULT_SEED
from privcd.data.spec import Request
from privcd.validation import check_seed

MIRROR_ENV = "PRIVCD_DATA_MIRROR"


def load_dataset(name, *, preprocessing="raw", mirror=None, cache=None, download=True, seed=None) -> Dataset:
    """Load a registered dataset, preprocessed by a named recipe.

    Parameters
    ----------
    name : str
        A name of :data:`privcd.data.DATASETS` (or an alias such as ``"sparse-lasso"``).
    preprocessing : str
        A recipe of :data:`privcd.data.RECIPES`: ``"raw"``, ``"standardize"`` or ``"dp-scd"``.
    mirror : path-like or None
        Directory checked before any download (format: :mod:`privcd.data.sources.mirror`); ``None``
        uses ``$PRIVCD_DATA_MIRROR`` if set. Synthetic datasets are always generated.
    cache : path-like or None
        Cache directory for processed data (:mod:`privcd.data.cache`) and LIBSVM downloads; ``None``
        uses ``$PRIVCD_CACHE_DIR`` or ``~/.cache/privcd``. OpenML and scikit-learn keep their
        downloads in their own caches (``openml.config``, ``SCIKIT_LEARN_DATA``).
    download : bool
        Whether to download a dataset missing from the mirror.
    seed : int or None
        Seed of a synthetic dataset (default :data:`~privcd.data.sources.synthetic.DEFAULT_SEED`);
        must stay ``None`` for real data.

    Returns
    -------
    Dataset
        ``X`` (float64 array or CSR), ``y`` (float64; {-1, 1} for binary tasks), ``meta``, and the
        ``validation`` and ``test`` parts of splitting recipes.

    Raises
    ------
    UnknownNameError
        Unknown dataset or recipe.
    DatasetUnavailableError
        Neither in the mirror nor downloadable; the message names the mirror path tried and the
        download's error.
    DataFileError
        A corrupt, truncated or mis-shaped file, a digest differing from the mirror's MANIFEST.md,
        unexpected labels, or NaN/inf in the features after preprocessing.
    """
    spec = get_spec(name)
    recipe = get_recipe(preprocessing)
    seed = _seed(spec, seed)
    cache_dir = cache_directory(cache)
    mirror = None if spec.source == "synthetic" else mirror_directory(mirror)
    acquired = acquire(spec, mirror, Request(cache_dir / "downloads", seed), download)
    entry = CacheEntry(cache_dir, spec, recipe, seed)
    dataset = entry.load(acquired)
    if dataset is None:
        raw = acquired.read()
        check_raw(raw, spec, acquired.origin)
        processed = recipe.apply(raw, spec)
        meta = DatasetMeta(
            name=spec.name, source=acquired.source, origin=acquired.origin, reference=spec.reference,
            task=spec.task, preprocessing=recipe.name, recipe_version=recipe.version,
            shape=tuple(int(k) for k in processed.X.shape), raw_shape=tuple(int(k) for k in raw.features.shape),
            parts=processed.parts, test_start=spec.test_start, inputs=dict(acquired.inputs), seed=seed,
            note=" ".join([spec.note] + [remark + "." for remark in processed.remarks]).strip())
        dataset = Dataset(processed.X, processed.y, meta, tuple(processed.feature_names), processed.validation,
                          processed.test, raw.w_true)
        check_finite(dataset, acquired.origin)
        entry.save(dataset, acquired)
    return dataset


def _seed(spec, seed):
    if spec.source == "synthetic":
        return DEFAULT_SEED if seed is None else check_seed(seed)
    if seed is not None:
        raise ValueError(f"seed={seed!r} applies to synthetic datasets only; {spec.name!r} is real data")
    return None


def mirror_directory(mirror) -> Path | None:
    """``mirror``, else ``$PRIVCD_DATA_MIRROR``, else ``None``; a named directory must exist."""
    if mirror is None:
        mirror = os.environ.get(MIRROR_ENV) or None
        where = f"${MIRROR_ENV}"
    else:
        where = "mirror="
    if mirror is None:
        return None
    path = Path(mirror).expanduser()
    if not path.is_dir():
        raise DatasetError(f"mirror directory {path} (from {where}) does not exist or is not a directory")
    return path


def acquire(spec, mirror, request, download):
    """Locate the input: generator, mirror, then download; :class:`DatasetUnavailableError` otherwise."""
    if spec.source == "synthetic":
        return spec.fetch(request)
    tried = f"no mirror given (mirror=None and ${MIRROR_ENV} unset)"
    if mirror is not None:
        acquired, tried = mirror_source.locate(spec, mirror)
        if acquired is not None:
            return acquired
    if spec.fetch is None:
        failure = f"it has no download source ({spec.reference})"
    elif not download:
        failure = f"download from {spec.reference} not attempted (download=False)"
    else:
        try:
            return spec.fetch(request)
        except DataFileError:
            raise
        except Exception as error:  # any failure of a third-party download is reported, with its cause
            failure = f"download from {spec.reference} failed: {type(error).__name__}: {error}"
    raise DatasetUnavailableError(f"dataset {spec.name!r} is unavailable: {tried}; {failure}")


def check_raw(raw, spec, origin: str) -> None:
    """The canonical raw data have the registry's shape, non-zero count (sparse data) and labels."""
    rows, columns = raw.features.shape
    if (rows, columns) != tuple(spec.shape):
        raise DataFileError(f"{origin}: {rows:,} records x {columns:,} feature columns; the registry expects "
                            f"{spec.shape[0]:,} x {spec.shape[1]:,} for {spec.name!r}")
    if spec.nonzeros is not None and raw.features.nnz != spec.nonzeros:
        raise DataFileError(f"{origin}: {raw.features.nnz:,} non-zero entries; the registry expects "
                            f"{spec.nonzeros:,} for {spec.name!r} (a truncated or different matrix)")
    target = pd.Series(raw.target)
    if target.shape[0] != rows:
        raise DataFileError(f"{origin}: {target.shape[0]:,} labels for {rows:,} records")
    if spec.task == "binary":
        bad = ~target.isin(spec.labels)
        if bad.any():
            index = int(np.argmax(bad.to_numpy()))
            raise DataFileError(f"{origin}: target value {target.iloc[index]!r} at record {index} is not one of "
                                f"the classes {list(spec.labels)} of {spec.name!r}")
    else:
        values = pd.to_numeric(target, errors="coerce").to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            index = int(np.argmax(~np.isfinite(values)))
            raise DataFileError(f"{origin}: target value {target.iloc[index]!r} at record {index} is not a finite "
                                f"number (regression dataset {spec.name!r})")


def check_finite(dataset: Dataset, origin: str) -> None:
    """No NaN or inf left in any part after preprocessing."""
    parts = {next(iter(dataset.meta.parts)): (dataset.X, dataset.y)}
    parts.update({part: (split.X, split.y) for part in ("validation", "test")
                  if (split := getattr(dataset, part)) is not None})
    recipe = dataset.meta.preprocessing
    for part, (X, y) in parts.items():
        values = X.data if sp.issparse(X) else X
        finite = np.isfinite(values)
        if not finite.all():
            flat = int(np.argmax(~finite.ravel()))
            if sp.issparse(X):
                row = int(np.searchsorted(X.indptr, flat, side="right") - 1)
                column = int(X.indices[flat])
            else:
                row, column = divmod(flat, X.shape[1])
            kind = "NaN" if np.isnan(values.ravel()[flat]) else "inf"
            raise DataFileError(f"{origin}: {kind} in the features after preprocessing {recipe!r} ({part} part, "
                                f"record {row}, feature {dataset.feature_names[column]!r})")
        if not np.isfinite(y).all():
            raise DataFileError(f"{origin}: NaN or inf in the labels after preprocessing {recipe!r} ({part} part, "
                                f"record {int(np.argmax(~np.isfinite(y)))})")
