"""Mirrored datasets: shapes and label counts against shared/datasets/MANIFEST.md and the papers."""
import re

import numpy as np
import pandas as pd
import pytest

from privcd.data import DATASETS, load_dataset
from privcd.data.sources.openml import libsvm_one_hot


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def load(shared_datasets, cache):
    return lambda name, **options: load_dataset(name, mirror=shared_datasets, cache=cache, **options)


# name: (records, features after 'raw', negatives, positives) from MANIFEST.md and the papers
EXPECTED = {
    "california": (20_640, 8, None, None),           # dp-gcd Table 1, dp-cd Section 6
    "electricity": (45_312, 8, 26_075, 19_237),      # dp-cd Section 6; DOWN / UP
    "madelon": (2_600, 500, 1_300, 1_300),           # dp-gcd Table 1 (which lists 501 features)
    "phishing": (11_055, 68, 4_898, 6_157),          # dp-scd: 6218 + 2073 + 2764 records, 68 coordinates
    "adult": (48_842, 108, 37_155, 11_687),          # dp-scd: 24420 + 8141 + 16281 records; <=50K / >50K
    "dorothea": (800, 88_119, 722, 78),              # dp-gcd Table 1; MANIFEST: 88,119 columns non-zero
    "dorothea-valid": (350, 72_113, 316, 34),        # MANIFEST: 72,113 of 100,000 columns non-zero
}


@pytest.mark.parametrize("name", EXPECTED)
def test_shape_and_labels(load, name):
    records, features, negatives, positives = EXPECTED[name]
    data = load(name)
    assert data.X.shape == (records, features)
    assert data.meta.source == "mirror" and data.meta.origin.endswith(DATASETS[name].mirror_files[-1])
    if negatives is not None:
        assert (np.sum(data.y == -1), np.sum(data.y == 1)) == (negatives, positives)


def test_california_matches_scikit_learn_documented_means(load):
    """Column and target means as scikit-learn documents them (MANIFEST 'Checks that were run')."""
    data = load("california")
    means = dict(zip(data.feature_names, data.X.mean(axis=0)))
    assert means["MedInc"] == pytest.approx(3.870671, abs=5e-7)
    assert means["Population"] == pytest.approx(1425.476744, abs=5e-7)
    assert means["Longitude"] == pytest.approx(-119.569704, abs=5e-7)
    assert data.y.mean() == pytest.approx(2.068558, abs=5e-7)


def test_madelon_checksums(load):
    """Sum of all feature values = the NIPS 2003 madelon.param check-sums (train + valid)."""
    assert load("madelon").X.sum() == 488_083_511 + 146_395_833


def test_adult_given_test_split_and_missing_values(load):
    data = load("adult")
    assert data.meta.test_start == 32_561
    assert np.sum(data.y[:32_561] == 1) == 7_841 and np.sum(data.y[32_561:] == 1) == 3_846
    missing = {name: int(data.X[:, data.feature_names.index(name)].sum())
               for name in ("workclass=?", "occupation=?", "native-country=?")}
    assert missing == {"workclass=?": 2_799, "occupation=?": 2_809, "native-country=?": 857}


def test_dorothea_valid_is_labelled_as_the_validation_split(load):
    data = load("dorothea-valid")
    assert data.X.nnz == 317_752 and data.meta.raw_shape == (350, 100_000)
    assert "NOT the papers' 800-row train split" in data.meta.note
    assert "27887 all-zero column(s) dropped" in data.meta.note


def test_phishing_encoding_reproduces_the_libsvm_file(load):
    """Decode the mirror's LIBSVM matrix into 30 nominal features, re-encode it, get the same matrix.

    Decoding uses the rule :func:`libsvm_one_hot` states: a row's unseen (feature, value) pairs take
    the next column indices, features left to right.
    """
    X = load("phishing").X
    feature_of, decoded = {}, np.empty((X.shape[0], 30), dtype=np.int64)
    for i, row in enumerate(X > 0):
        columns = np.flatnonzero(row)
        seen = {feature_of[c] for c in columns if c in feature_of}
        new = [c for c in columns if c not in feature_of]
        feature_of.update(zip(new, (j for j in range(30) if j not in seen)))
        decoded[i, [feature_of[c] for c in columns]] = columns
    np.testing.assert_array_equal(libsvm_one_hot(pd.DataFrame(decoded)), X)


def test_registry_shapes_match_the_manifest(shared_datasets):
    """Each mirrored dataset's registry shape is the 'rows × features' the MANIFEST.md table states."""
    stated = {}
    for line in (shared_datasets / "MANIFEST.md").read_text().splitlines():
        match = re.match(r"\| `([^`]+)`.*?\| ([\d,]+) × ([\d,]+)", line)
        if match:
            stated[match[1]] = tuple(int(k.replace(",", "")) for k in match.group(2, 3))
    mirrored = [spec for spec in DATASETS.values() if (shared_datasets / spec.mirror_files[0]).is_file()]
    assert sorted(spec.name for spec in mirrored) == ["adult", "california", "dorothea", "dorothea-valid",
                                                      "electricity", "madelon", "phishing"]
    for spec in mirrored:
        assert stated[spec.mirror_files[0]] == spec.shape, spec.name


def test_registry_nonzeros_match_the_manifest(shared_datasets):
    """Each sparse dataset's registry count of stored entries is the MANIFEST.md's 'N non-zeros'."""
    stated = {}
    for line in (shared_datasets / "MANIFEST.md").read_text().splitlines():
        match = re.match(r"\| `([^`]+\.npz)`.*?([\d,]+) non-zeros", line)
        if match:
            stated[match[1]] = int(match[2].replace(",", ""))
    sparse = {spec.mirror_files[0]: spec.nonzeros for spec in DATASETS.values() if spec.sparse}
    assert sparse == stated == {"dorothea_train.npz": 727_760, "dorothea_valid.npz": 317_752}


def test_dorothea_is_the_papers_training_split(load):
    data = load("dorothea")
    assert data.meta.raw_shape == (800, 100_000) and data.X.nnz == 727_760
    assert "11881 all-zero column(s) dropped" in data.meta.note
