"""Download sources, without network: OpenML/scikit-learn adapters on frames shaped like theirs,
the real download code failing fast against a closed local port, LIBSVM through a file:// URL."""
import bz2
import dataclasses
import shutil
import time

import numpy as np
import openml
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.datasets
from sklearn.utils import Bunch

from privcd.data import DATASETS, DataFileError, DatasetError, DatasetUnavailableError, load_dataset
from privcd.data.sources import libsvm
from privcd.data.sources import openml as openml_source

CLOSED_PORT = "http://127.0.0.1:9"   # the discard port: connection refused at once, no traffic leaves


@pytest.fixture(autouse=True)
def no_mirror_from_environment(monkeypatch):
    monkeypatch.delenv("PRIVCD_DATA_MIRROR", raising=False)


@pytest.fixture
def fake_openml(monkeypatch, tmp_path):
    """Replace the download by frames given per dataset id; the 'downloaded file' is a small tmp file."""
    frames = {}

    def fetch(dataset_id):
        path = tmp_path / f"openml-{dataset_id}.pq"
        path.write_bytes(f"dataset {dataset_id}".encode())
        return (*frames[dataset_id], path)

    monkeypatch.setattr(openml_source, "fetch_openml", fetch)
    return frames


def _mirror_frame(shared_datasets, name):
    frame = pd.read_csv(shared_datasets / f"{name}.csv.gz")
    return frame.drop(columns="target"), frame["target"]


def _same(shared_datasets, name, cache):
    downloaded = load_dataset(name, cache=cache / "download")
    mirrored = load_dataset(name, mirror=shared_datasets, cache=cache / "mirror")
    assert downloaded.meta.source == "openml" and downloaded.meta.origin.startswith(DATASETS[name].reference)
    assert downloaded.feature_names == mirrored.feature_names
    np.testing.assert_array_equal(downloaded.X, mirrored.X)
    np.testing.assert_array_equal(downloaded.y, mirrored.y)


def test_openml_electricity_adapter(shared_datasets, fake_openml, tmp_path):
    features, target = _mirror_frame(shared_datasets, "electricity")
    features["day"] = pd.Categorical(features["day"].astype(str))          # OpenML: nominal 1..7
    fake_openml[151] = (features, pd.Series(pd.Categorical(target), name="class"))
    _same(shared_datasets, "electricity", tmp_path)


def test_openml_adult_adapter(shared_datasets, fake_openml, tmp_path):
    features, target = _mirror_frame(shared_datasets, "adult")
    features = features.rename(columns={"capital-gain": "capitalgain", "capital-loss": "capitalloss",
                                        "hours-per-week": "hoursperweek"})
    for column in features.columns:
        if features[column].dtype != np.int64:                               # OpenML: NaN where UCI has '?'
            features[column] = pd.Categorical(features[column].where(features[column] != "?"))
    fake_openml[1590] = (features, pd.Series(pd.Categorical(target), name="class"))
    _same(shared_datasets, "adult", tmp_path)


def test_openml_madelon_adapter(shared_datasets, fake_openml, tmp_path):
    features, target = _mirror_frame(shared_datasets, "madelon")
    fake_openml[1485] = (features, pd.Series(pd.Categorical(np.where(target == 1, "2", "1")), name="Class"))
    _same(shared_datasets, "madelon", tmp_path)


def test_openml_phishing_adapter():
    """UCI ternary values -> LIBSVM columns by first appearance; Result 1 (legitimate) -> label 1."""
    raw = pd.DataFrame({"a": ["-1", "1", "1"], "b": ["0", "0", "-1"]}, dtype="category")
    frame, labels = openml_source.phishing(raw, pd.Series(pd.Categorical(["1", "-1", "1"])))
    v = openml_source.PHISHING_VALUE
    np.testing.assert_array_equal(frame.to_numpy(), [[v, v, 0, 0], [0, v, v, 0], [0, 0, v, v]])
    assert list(frame.columns) == ["f1", "f2", "f3", "f4"] and labels.tolist() == [1, 0, 1]


def test_openml_mtp_and_dorothea_adapters(shared_datasets, fake_openml, tmp_path):
    """OpenML 4137 is dorothea's train rows then its valid rows: the adapter keeps the mirror's 800."""
    rng = np.random.default_rng(0)
    fake_openml[405] = (pd.DataFrame(rng.normal(size=(4_450, 202))), pd.Series(rng.normal(size=4_450)))
    assert load_dataset("mtp", cache=tmp_path).X.shape == (4_450, 202)

    parts = ("dorothea_train", "dorothea_valid")
    matrix = sp.vstack([sp.load_npz(shared_datasets / f"{part}.npz") for part in parts]).astype(np.float32)
    labels = np.concatenate([pd.read_csv(shared_datasets / f"{part}.labels.csv")["target"] for part in parts])
    fake_openml[4137] = (pd.DataFrame.sparse.from_spmatrix(matrix), pd.Series(labels.astype(np.float64)))
    downloaded = load_dataset("dorothea", cache=tmp_path)
    mirrored = load_dataset("dorothea", mirror=shared_datasets, cache=tmp_path / "mirror")
    assert downloaded.meta.source == "openml" and downloaded.meta.raw_shape == (800, 100_000)
    assert (downloaded.X != mirrored.X).nnz == 0 and np.array_equal(downloaded.y, mirrored.y)
    valid_first = np.r_[800:1_150, 0:800]
    fake_openml[4137] = (matrix[valid_first], pd.Series(labels[valid_first].astype(np.float64)))    # refused
    positives = int(np.sum(labels[valid_first][:800] == 1))
    with pytest.raises(DataFileError, match=f"rows 0-799 have {positives} positive labels, the train split has 78"):
        load_dataset("dorothea", cache=tmp_path / "other")


@pytest.fixture
def closed_openml(monkeypatch, tmp_path):
    """The real openml code, pointed at a closed local port with an empty cache."""
    saved = openml.config.get_config_as_dict()
    openml.config.set_root_cache_directory(tmp_path / "openml")
    monkeypatch.setattr(openml.config, "server", f"{CLOSED_PORT}/api/v1/xml")
    yield
    openml.config.set_root_cache_directory(saved["cachedir"])


def test_openml_download_fails_fast_and_names_everything(closed_openml, tmp_path):
    empty = tmp_path / "mirror"
    empty.mkdir()
    retries = openml.config.connection_n_retries
    start = time.perf_counter()
    with pytest.raises(DatasetUnavailableError) as caught:
        load_dataset("mtp", mirror=empty, cache=tmp_path / "cache")
    assert time.perf_counter() - start < 5.0
    message = str(caught.value)
    assert "dataset 'mtp' is unavailable" in message
    assert f"mirror {empty}: no mtp.csv.gz" in message
    assert "download from OpenML 405 failed: ConnectionError" in message
    assert openml.config.connection_n_retries == retries    # restored after the call


def test_unavailable_without_mirror_or_download(shared_datasets, tmp_path):
    """A mirror copy without dorothea's matrix, and no download: the error names both."""
    partial = tmp_path / "mirror"
    partial.mkdir()
    shutil.copy(shared_datasets / "dorothea_train.labels.csv", partial)
    with pytest.raises(DatasetUnavailableError, match=r"'dorothea' is unavailable: mirror .*: no dorothea_train\.npz "
                       r"\(found only dorothea_train\.labels\.csv\); download from OpenML 4137 not attempted"):
        load_dataset("dorothea", mirror=partial, cache=tmp_path, download=False)
    with pytest.raises(DatasetUnavailableError, match=r"'mtp' is unavailable: mirror .*: no mtp\.csv\.gz; "
                       r"download from OpenML 405 not attempted"):
        load_dataset("mtp", mirror=shared_datasets, cache=tmp_path, download=False)
    with pytest.raises(DatasetUnavailableError, match=r"'dorothea-valid' is unavailable: no mirror given "
                       r"\(mirror=None and \$PRIVCD_DATA_MIRROR unset\); it has no download source"):
        load_dataset("dorothea-valid", cache=tmp_path)


def test_mirror_from_environment(shared_datasets, monkeypatch, tmp_path):
    monkeypatch.setenv("PRIVCD_DATA_MIRROR", str(shared_datasets))
    assert load_dataset("dorothea-valid", cache=tmp_path).meta.source == "mirror"
    monkeypatch.setenv("PRIVCD_DATA_MIRROR", str(tmp_path / "nowhere"))
    with pytest.raises(DatasetError, match=r"mirror directory .*nowhere \(from \$PRIVCD_DATA_MIRROR\) does not exist"):
        load_dataset("california", cache=tmp_path)


def test_sklearn_california(shared_datasets, monkeypatch, tmp_path):
    features, target = _mirror_frame(shared_datasets, "california")
    frame = features.assign(MedHouseVal=target)
    monkeypatch.setattr(sklearn.datasets, "fetch_california_housing",
                        lambda **options: Bunch(frame=frame, target_names=["MedHouseVal"]))
    downloaded = load_dataset("california", cache=tmp_path)
    assert downloaded.meta.source == "sklearn"
    np.testing.assert_array_equal(downloaded.X, load_dataset("california", mirror=shared_datasets, cache=tmp_path).X)

    def unreachable(**options):
        raise OSError("<urlopen error [Errno -2] Name or service not known>")

    monkeypatch.setattr(sklearn.datasets, "fetch_california_housing", unreachable)
    with pytest.raises(DatasetUnavailableError, match="download from sklearn.datasets.fetch_california_housing "
                       r"\(StatLib cal_housing\) failed: OSError: <urlopen error"):
        load_dataset("california", cache=tmp_path)


def _svmlight_bz2(path, X, y):
    lines = [" ".join([f"{t:g}"] + [f"{j + 1}:{v:g}" for j, v in enumerate(row) if v]) for row, t in zip(X, y)]
    path.write_bytes(bz2.compress(("\n".join(lines) + "\n").encode()))


def test_libsvm_msd_download_and_dp_scd(monkeypatch, tmp_path):
    """The MSD code path on a 12-record stand-in served from a file:// URL (given test file: 4 records)."""
    served = tmp_path / "served"
    served.mkdir()
    rng = np.random.default_rng(1)
    X, y = rng.integers(-50, 50, size=(12, 90)).astype(float), rng.integers(1950, 2010, size=12).astype(float)
    _svmlight_bz2(served / "YearPredictionMSD.bz2", X[:8], y[:8])
    _svmlight_bz2(served / "YearPredictionMSD.t.bz2", X[8:], y[8:])
    monkeypatch.setattr(libsvm, "URL", served.as_uri() + "/")
    monkeypatch.setitem(DATASETS, "msd", dataclasses.replace(DATASETS["msd"], shape=(12, 90), test_start=8))
    data = load_dataset("msd", preprocessing="dp-scd", cache=tmp_path / "cache")
    assert (tmp_path / "cache" / "downloads" / "libsvm" / "YearPredictionMSD.t.bz2").is_file()
    assert data.meta.parts == {"train": 6, "validation": 2, "test": 4}
    np.testing.assert_allclose(np.linalg.norm(data.test.X, axis=1), 1.0)
    assert np.concatenate([data.y, data.validation.y]).mean() == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(np.sort(data.test.y + y[:8].mean()), np.sort(y[8:]))


def test_libsvm_download_fails_fast(monkeypatch, tmp_path):
    monkeypatch.setattr(libsvm, "URL", f"{CLOSED_PORT}/")
    start = time.perf_counter()
    with pytest.raises(DatasetUnavailableError, match=r"'msd' is unavailable: .*failed: URLError"):
        load_dataset("msd", cache=tmp_path)
    assert time.perf_counter() - start < 5.0
    assert not list((tmp_path / "downloads" / "libsvm").iterdir())   # no partial file left behind
