"""Processed datasets cached as ``<cache>/<name>/<recipe>[-seed<k>].npz`` with a JSON sidecar.

The sidecar holds the dataset's :class:`~privcd.data.dataset.DatasetMeta` (source, preprocessing,
shape, sha256 of every input) and a key over (cache format, recipe name and version, inputs, seed).
An entry is used only when its key equals the key of the inputs just located, so a changed input
file, a new recipe version or another seed recomputes and overwrites it. Files are replaced
atomically; the arrays file repeats the key, so a reader racing a writer sees a miss, never a mix.

The directory is the ``cache=`` argument, else ``PRIVCD_CACHE_DIR``, else ``~/.cache/privcd``
(the pipeline passes a project-local directory).
"""
import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcd.data.dataset import Dataset, DatasetMeta, Split
from privcd.data.files import atomic_path, sha256_bytes

CACHE_ENV = "PRIVCD_CACHE_DIR"
CACHE_FORMAT = 1
PARTS = ("train", "validation", "test")


def cache_directory(cache=None) -> Path:
    """``cache``, else ``$PRIVCD_CACHE_DIR``, else ``~/.cache/privcd``."""
    if cache is not None:
        return Path(cache).expanduser()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    return Path.home() / ".cache" / "privcd"


def cache_key(spec, recipe, inputs: dict, seed) -> str:
    """Digest of everything a cached entry depends on: inputs, recipe version, seed, the registry line.

    Bump :data:`CACHE_FORMAT` when a reader, an adapter or the encoding changes its output.
    """
    dataset = [spec.task, list(spec.labels or ()), list(spec.shape), spec.test_start, spec.missing]
    text = json.dumps({"format": CACHE_FORMAT, "dataset": dataset, "recipe": recipe.name,
                       "version": recipe.version, "inputs": inputs, "seed": seed}, sort_keys=True, default=str)
    return sha256_bytes(text.encode())


def _pack(arrays: dict, prefix: str, X, y) -> None:
    if sp.issparse(X):
        arrays.update({f"{prefix}_data": X.data, f"{prefix}_indices": X.indices, f"{prefix}_indptr": X.indptr,
                       f"{prefix}_shape": np.array(X.shape)})
    else:
        arrays[f"{prefix}_X"] = X
    arrays[f"{prefix}_y"] = y


def _unpack(arrays, prefix: str):
    if f"{prefix}_y" not in arrays:
        return None
    if f"{prefix}_X" in arrays:
        X = arrays[f"{prefix}_X"]
    else:
        X = sp.csr_matrix((arrays[f"{prefix}_data"], arrays[f"{prefix}_indices"], arrays[f"{prefix}_indptr"]),
                          shape=tuple(arrays[f"{prefix}_shape"]))
    return Split(X, arrays[f"{prefix}_y"])


class CacheEntry:
    """The cached files of one (dataset, recipe, seed)."""

    def __init__(self, directory, spec, recipe, seed):
        stem = recipe.name if seed is None else f"{recipe.name}-seed{seed}"
        self.arrays = Path(directory) / spec.name / f"{stem}.npz"
        self.sidecar = self.arrays.with_suffix(".json")
        self.spec, self.recipe, self.seed = spec, recipe, seed

    def load(self, acquired) -> Dataset | None:
        """The cached dataset if it was made from exactly ``acquired.inputs``, else ``None``."""
        key = cache_key(self.spec, self.recipe, acquired.inputs, self.seed)
        try:
            sidecar = json.loads(self.sidecar.read_text())
            if sidecar.get("key") != key:
                return None
            with np.load(self.arrays, allow_pickle=False) as arrays:
                if str(arrays["key"]) != key:
                    return None
                parts = {part: _unpack(arrays, part) for part in PARTS}
                names = tuple(str(name) for name in arrays["feature_names"])
                w_true = arrays["w_true"] if "w_true" in arrays else None
        except (OSError, ValueError, KeyError):
            return None
        meta = replace(DatasetMeta.from_dict(sidecar["meta"]), source=acquired.source, origin=acquired.origin)
        train = parts["train"]
        return Dataset(train.X, train.y, meta, names, parts["validation"], parts["test"], w_true)

    def save(self, dataset: Dataset, acquired) -> None:
        """Write the arrays, then the sidecar."""
        key = cache_key(self.spec, self.recipe, acquired.inputs, self.seed)
        arrays = {"key": np.array(key), "feature_names": np.array(dataset.feature_names, dtype=str)}
        _pack(arrays, "train", dataset.X, dataset.y)
        for part in ("validation", "test"):
            split = getattr(dataset, part)
            if split is not None:
                _pack(arrays, part, split.X, split.y)
        if dataset.w_true is not None:
            arrays["w_true"] = dataset.w_true
        with atomic_path(self.arrays) as temporary, open(temporary, "wb") as handle:
            np.savez(handle, **arrays)
        with atomic_path(self.sidecar) as temporary:
            temporary.write_text(json.dumps({"key": key, "format": CACHE_FORMAT, "meta": dataset.meta.to_dict()},
                                            indent=2, sort_keys=True))
