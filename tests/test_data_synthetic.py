"""Synthetic generators of dp-gcd Section 5 and dp-cd Section 6 (seeded, documented construction)."""
import numpy as np
import pytest

from privcd.data import load_dataset
from privcd.data.sources.synthetic import DEFAULT_SEED, SPARSE_NOISE, make_log, make_sparse_regression


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("name, sigma", [("log1", 1.0), ("log2", 2.0)])
def test_log_datasets(cache, name, sigma):
    data = load_dataset(name, cache=cache)
    assert data.X.shape == (1_000, 100) and data.meta.seed == DEFAULT_SEED
    assert set(np.unique(data.y)) == {-1.0, 1.0}
    np.testing.assert_allclose(data.X.std(axis=0), 1.0, atol=0.1)   # unit-variance Gaussian columns
    assert (data.w_true > 0).all()
    # log-normal(0, sigma): log w ~ N(0, sigma^2)
    assert np.log(data.w_true).std() == pytest.approx(sigma, rel=0.2)
    noise_free = np.where(data.X @ data.w_true >= 0, 1.0, -1.0)
    assert 0.9 < np.mean(noise_free == data.y) < 1.0   # N(0, 1) noise flips a few labels


def test_square_is_sparse_lasso(cache):
    data = load_dataset("square", cache=cache)
    assert data.X.shape == (1_000, 1_000) and data.meta.task == "regression"
    assert np.count_nonzero(data.w_true) == 10
    residual = data.y - data.X @ data.w_true
    assert residual.std() == pytest.approx(SPARSE_NOISE, rel=0.1)
    assert load_dataset("sparse-lasso", cache=cache).meta.name == "square"


def test_seeded_and_reproducible(cache):
    first = load_dataset("log2", seed=7, cache=cache)
    again = make_log(7, sigma=2.0)
    np.testing.assert_array_equal(first.X, again.features.to_numpy())
    np.testing.assert_array_equal(first.y, again.target)
    other = load_dataset("log2", seed=8, cache=cache)
    assert not np.array_equal(first.X, other.X)
    assert first.meta.inputs != other.meta.inputs
    np.testing.assert_array_equal(make_sparse_regression(3).w_true, make_sparse_regression(3).w_true)


def test_seed_is_for_synthetic_data_only(shared_datasets, cache):
    with pytest.raises(ValueError, match="seed=3 applies to synthetic datasets only"):
        load_dataset("california", seed=3, mirror=shared_datasets, cache=cache)
    with pytest.raises(ValueError, match="seed=-1"):
        load_dataset("log1", seed=-1, cache=cache)
