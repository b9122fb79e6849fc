"""Processed datasets are cached as npz + JSON sidecar; a changed input or recipe invalidates the entry."""
import dataclasses
import gzip
import json
import shutil

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from privcd.data import RECIPES, load_dataset
from privcd.data.sources import mirror as mirror_source


def _refuse_parsing(monkeypatch):
    """After this, loading works only from the cache."""
    for reader in ("read_dense", "read_sparse"):
        monkeypatch.setattr(mirror_source, reader, lambda *args: pytest.fail("the mirror file was parsed again"))


def _equal(A, B):
    return (A != B).nnz == 0 if sp.issparse(A) else np.array_equal(A, B)


@pytest.fixture
def own_mirror(shared_datasets, tmp_path):
    directory = tmp_path / "mirror"
    directory.mkdir()
    shutil.copy(shared_datasets / "california.csv.gz", directory)
    return directory


def test_sidecar_and_cache_hit(shared_datasets, tmp_path, monkeypatch):
    first = load_dataset("california", preprocessing="standardize", mirror=shared_datasets, cache=tmp_path)
    sidecar = json.loads((tmp_path / "california" / "standardize.json").read_text())
    assert (tmp_path / "california" / "standardize.npz").is_file()
    meta = sidecar["meta"]
    assert meta["source"] == "mirror" and meta["preprocessing"] == "standardize" and meta["recipe_version"] == 1
    assert meta["shape"] == [20_640, 8]
    assert meta["inputs"] == {"california.csv.gz": "4e9de8181449d5a8aba331a97eda38830b5fb06f63320ba530fd7df4764a734a"}
    _refuse_parsing(monkeypatch)
    again = load_dataset("california", preprocessing="standardize", mirror=shared_datasets, cache=tmp_path)
    np.testing.assert_array_equal(again.X, first.X)
    np.testing.assert_array_equal(again.y, first.y)
    assert again.meta == first.meta and again.feature_names == first.feature_names


def test_splits_sparse_and_w_true_round_trip(shared_datasets, tmp_path, monkeypatch):
    made = {name: load_dataset(name, preprocessing="dp-scd", mirror=shared_datasets, cache=tmp_path)
            for name in ("dorothea-valid", "log1")}
    _refuse_parsing(monkeypatch)
    for name, first in made.items():
        again = load_dataset(name, preprocessing="dp-scd", mirror=shared_datasets, cache=tmp_path)
        for a, b in [(again, first), (again.validation, first.validation), (again.test, first.test)]:
            assert _equal(a.X, b.X)
            np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(again.w_true, made["log1"].w_true)
    assert (tmp_path / "log1" / "dp-scd-seed0.npz").is_file()


def test_changed_input_invalidates(own_mirror, tmp_path):
    path = own_mirror / "california.csv.gz"
    before = load_dataset("california", mirror=own_mirror, cache=tmp_path)
    frame = pd.read_csv(path)
    frame.loc[0, "target"] = 9.5
    with gzip.open(path, "wt") as handle:
        frame.to_csv(handle, index=False)
    after = load_dataset("california", mirror=own_mirror, cache=tmp_path)
    assert before.y[0] != 9.5 and after.y[0] == 9.5
    assert after.meta.inputs != before.meta.inputs
    sidecar = json.loads((tmp_path / "california" / "raw.json").read_text())
    assert sidecar["meta"]["inputs"] == after.meta.inputs


def test_new_recipe_version_invalidates(own_mirror, tmp_path, monkeypatch):
    load_dataset("california", mirror=own_mirror, cache=tmp_path)
    _refuse_parsing(monkeypatch)
    load_dataset("california", mirror=own_mirror, cache=tmp_path)      # a hit
    monkeypatch.setitem(RECIPES, "raw", dataclasses.replace(RECIPES["raw"], version=2))
    with pytest.raises(pytest.fail.Exception, match="parsed again"):
        load_dataset("california", mirror=own_mirror, cache=tmp_path)


def test_damaged_cache_is_recomputed(own_mirror, tmp_path):
    first = load_dataset("california", mirror=own_mirror, cache=tmp_path)
    (tmp_path / "california" / "raw.npz").write_bytes(b"damaged")
    again = load_dataset("california", mirror=own_mirror, cache=tmp_path)
    np.testing.assert_array_equal(again.X, first.X)
    assert np.load(tmp_path / "california" / "raw.npz")["train_X"].shape == (20_640, 8)


def test_cache_directory_from_environment(own_mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVCD_CACHE_DIR", str(tmp_path / "env-cache"))
    load_dataset("california", mirror=own_mirror)
    assert (tmp_path / "env-cache" / "california" / "raw.json").is_file()
