"""Processed datasets as workflow files: one ``.npz`` (arrays) and one ``.json`` (provenance).

The workflow's ``data`` rule writes them once per (dataset, preprocessing); every later job reads
them back instead of re-running the recipe. Dense ``X`` is stored as is; sparse ``X`` as its CSR
triplet. Held-out parts of splitting recipes (``"dp-scd"``) are stored beside the training part.
"""
import io
import json

import numpy as np
import scipy.sparse as sp

from privcd.problem import Problem
from privcd.results.io import write_bytes, write_text

PARTS = ("train", "validation", "test")


def save_dataset(dataset, npz_path, json_path):
    """Write a :class:`privcd.data.Dataset` (training part and any validation/test part) atomically."""
    arrays = {}
    for part, X, y in _parts(dataset):
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            arrays.update({f"{part}_data": X.data, f"{part}_indices": X.indices,
                           f"{part}_indptr": X.indptr, f"{part}_shape": np.array(X.shape)})
        else:
            arrays[f"{part}_X"] = np.asarray(X)
        arrays[f"{part}_y"] = np.asarray(y)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_bytes(buffer.getvalue(), npz_path)
    meta = {**dataset.meta.to_dict(), "feature_names": list(dataset.feature_names)}
    write_text(json.dumps(meta, indent=1, sort_keys=True, default=str) + "\n", json_path)


def load_arrays(npz_path, part="train"):
    """``(X, y)`` of one part (``"train"``, ``"validation"`` or ``"test"``) of a saved dataset."""
    if part not in PARTS:
        raise ValueError(f"part={part!r} is not accepted; expected one of {list(PARTS)}")
    with np.load(npz_path) as arrays:
        if f"{part}_y" not in arrays:
            raise ValueError(f"{npz_path} has no {part!r} part; it has "
                             f"{sorted({name.split('_')[0] for name in arrays.files})}")
        if f"{part}_X" in arrays:
            X = arrays[f"{part}_X"]
        else:
            X = sp.csr_matrix((arrays[f"{part}_data"], arrays[f"{part}_indices"], arrays[f"{part}_indptr"]),
                              shape=tuple(arrays[f"{part}_shape"]))
        return X, arrays[f"{part}_y"]


def load_problem(npz_path, spec):
    """The :class:`privcd.Problem` of ``spec`` (a :class:`privcd.tuning.ProblemSpec`) on its training data,
    its smoothness constants computed from the data and declared public (``constants="data"``), as the
    reproduced papers assume (dp-cd Sections 5.1 and 5.3, Appendix G.1)."""
    X, y = load_arrays(npz_path)
    return Problem(X, y, spec.loss, spec.penalty, spec.lam, constants="data")


def _parts(dataset):
    yield "train", dataset.X, dataset.y
    for part in ("validation", "test"):
        split = getattr(dataset, part)
        if split is not None:
            yield part, split.X, split.y
