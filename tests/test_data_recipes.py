"""Preprocessing recipes: what each promises, checked in numbers (dp-cd Sections 5.3/6, dp-scd Section 5.1)."""
import numpy as np
import pytest
import scipy.sparse as sp

from privcd.data import load_dataset


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def load(shared_datasets, cache):
    return lambda name, **options: load_dataset(name, mirror=shared_datasets, cache=cache, **options)


def _row_norms(X):
    return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()) if sp.issparse(X) else np.linalg.norm(X, axis=1)


def test_raw_keeps_source_values(load):
    """dp-cd "imbalanced": electricity's columns keep their scales; labels UP -> 1, DOWN -> -1."""
    data = load("electricity")
    assert data.feature_names == ("date", "day", "period", "nswprice", "nswdemand", "vicprice", "vicdemand",
                                  "transfer")
    assert set(np.unique(data.X[:, 1])) == set(range(1, 8))
    assert data.y[:3].tolist() == [1.0, 1.0, 1.0]  # the first three records are UP
    assert data.meta.parts == {"all": 45_312} and data.validation is None and data.test is None


@pytest.mark.parametrize("name", ["california", "electricity", "madelon", "adult"])
def test_standardize_gives_zero_mean_unit_variance(load, name):
    """dp-cd "balanced": every coordinate-wise smoothness constant ||X_j||^2 / n equals 1."""
    data = load(name, preprocessing="standardize")
    np.testing.assert_allclose(data.X.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose((data.X ** 2).mean(axis=0), 1.0, rtol=1e-9)
    np.testing.assert_array_equal(data.y, load(name).y)


def test_standardize_refuses_sparse_data(load):
    with pytest.raises(ValueError, match="'standardize' does not apply to the sparse dataset 'dorothea-valid'"):
        load("dorothea-valid", preprocessing="standardize")


# dp-scd Section 5.1: training/validation/test sizes and number of coordinates
DP_SCD = {"phishing": (6_218, 2_073, 2_764, 68), "adult": (24_420, 8_141, 16_281, 81)}


@pytest.mark.parametrize("name", DP_SCD)
def test_dp_scd_reproduces_the_papers_sizes(load, name):
    train, validation, test, coordinates = DP_SCD[name]
    data = load(name, preprocessing="dp-scd")
    assert data.X.shape == (train, coordinates)
    assert data.validation.X.shape == (validation, coordinates) and data.test.X.shape == (test, coordinates)
    assert data.meta.parts == {"train": train, "validation": validation, "test": test}
    for X in (data.X, data.validation.X, data.test.X):
        np.testing.assert_allclose(_row_norms(X), 1.0, rtol=1e-12)   # normalised records (its Lemmas 1-3)
    for y in (data.y, data.validation.y, data.test.y):
        assert set(np.unique(y)) == {-1.0, 1.0}


def test_dp_scd_phishing_is_the_normalised_one_hot_matrix(load):
    """Max-abs scaling turns LIBSVM's 1/sqrt(30) into 1; unit norm brings it back to 1/sqrt(30) exactly."""
    data = load("phishing", preprocessing="dp-scd")
    np.testing.assert_allclose(np.unique(data.X), [0.0, 1 / np.sqrt(30)], rtol=1e-12)


def test_dp_scd_adult_encoding(load):
    """Authors' pipeline: fnlwgt, education dropped; 5 numeric columns; most frequent level dropped; no '?'."""
    data = load("adult", preprocessing="dp-scd")
    names = data.feature_names
    assert names[:5] == ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week")
    assert not any(name.startswith(("fnlwgt", "education=")) or name.endswith("=?") for name in names)
    for dropped in ("workclass=Private", "sex=Male", "native-country=United-States", "race=White"):
        assert dropped not in names
    assert sum(name.startswith("native-country=") for name in names) == 40
    assert np.abs(data.X).max() <= 1.0
    # test records come from adult.test: its positive rate, 3,846 / 16,281
    assert np.sum(data.test.y == 1) == 3_846


def test_dp_scd_regression_labels_are_centred_by_the_train_mean(load):
    data, raw = load("california", preprocessing="dp-scd"), load("california")
    everything = np.concatenate([data.y, data.validation.y, data.test.y])
    shift = raw.y.mean() - everything.mean()
    np.testing.assert_allclose(np.sort(everything + shift), np.sort(raw.y), atol=1e-12)
    train_mean = np.concatenate([data.y, data.validation.y]).mean()
    assert train_mean == pytest.approx(0.0, abs=1e-12)


def test_dp_scd_on_sparse_data_stays_sparse(load):
    data = load("dorothea-valid", preprocessing="dp-scd")
    assert sp.issparse(data.X) and sp.issparse(data.test.X)
    assert data.meta.parts == {"train": 196, "validation": 66, "test": 88}
    np.testing.assert_allclose(_row_norms(data.X), 1.0, rtol=1e-12)
