"""Bad input gives an error naming the file and what is wrong with it."""
import gzip
import re
import shutil

import pandas as pd
import pytest
import scipy.sparse as sp

from privcd.data import DataFileError, load_dataset


@pytest.fixture
def mirror(tmp_path):
    directory = tmp_path / "mirror"
    directory.mkdir()
    return directory


@pytest.fixture
def california(shared_datasets):
    return pd.read_csv(shared_datasets / "california.csv.gz")


def _write(path, frame):
    with gzip.open(path, "wt") as handle:
        frame.to_csv(handle, index=False)


def _fails(mirror, tmp_path, pattern, name="california", **options):
    with pytest.raises(DataFileError, match=pattern) as caught:
        load_dataset(name, mirror=mirror, cache=tmp_path / "cache", **options)
    return str(caught.value)


def test_not_gzip(mirror, tmp_path):
    path = mirror / "california.csv.gz"
    path.write_text("MedInc,target\n1,2\n")
    _fails(mirror, tmp_path, re.escape(f"{path}: not a valid gzip file (Not a gzipped file"))


def test_truncated_gzip(shared_datasets, mirror, tmp_path):
    data = (shared_datasets / "california.csv.gz").read_bytes()
    path = mirror / "california.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    _fails(mirror, tmp_path, re.escape(f"{path}: truncated gzip stream"))


def test_sha256_differs_from_manifest(shared_datasets, mirror, tmp_path):
    shutil.copy(shared_datasets / "california.csv.gz", mirror)
    listed = "0" * 64
    (mirror / "MANIFEST.md").write_text(f"| file | sha256 |\n|---|---|\n| `california.csv.gz` | `{listed}` |\n")
    message = _fails(mirror, tmp_path, "sha256 .* differs from")
    assert str(mirror / "california.csv.gz") in message and listed in message
    assert "4e9de8181449d5a8aba331a97eda38830b5fb06f63320ba530fd7df4764a734a" in message


def test_manifest_row_without_its_digests(shared_datasets, mirror, tmp_path):
    shutil.copy(shared_datasets / "california.csv.gz", mirror)
    (mirror / "MANIFEST.md").write_text("| file | sha256 |\n|---|---|\n| `california.csv.gz`, `x.npz` | `"
                                        + "a" * 64 + "` |\n")
    _fails(mirror, tmp_path, re.escape(f"{mirror / 'MANIFEST.md'}, line 3: 2 file name(s)"))


def test_wrong_column_count(california, mirror, tmp_path):
    _write(mirror / "california.csv.gz", california.assign(extra=1.0)[[*california.columns[:-1], "extra", "target"]])
    _fails(mirror, tmp_path, re.escape(f"{mirror / 'california.csv.gz'}: 20,640 records x 9 feature columns; "
                                       f"the registry expects 20,640 x 8 for 'california'"))


def test_line_with_too_many_fields(mirror, tmp_path):
    with gzip.open(mirror / "california.csv.gz", "wt") as handle:
        handle.write("a,b,target\n1,2,3\n4,5,6,7\n")
    _fails(mirror, tmp_path, re.escape(f"{mirror / 'california.csv.gz'}: malformed CSV, wrong number of fields") +
           ".*Expected 3 fields in line 3, saw 4")


def test_short_line(california, mirror, tmp_path):
    path = mirror / "california.csv.gz"
    _write(path, california)
    with gzip.open(path, "rt") as handle:
        lines = handle.read().splitlines()
    lines[5] = lines[5].rsplit(",", 1)[0]
    with gzip.open(path, "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    _fails(mirror, tmp_path, re.escape(f"{path}: line 6 has no value in column 'target' (a short line or an empty "
                                       "field; 9 fields expected per line)"))


def test_last_column_must_be_target(california, mirror, tmp_path):
    _write(mirror / "california.csv.gz", california.rename(columns={"target": "MedHouseVal"}))
    _fails(mirror, tmp_path, "last column is 'MedHouseVal'; the mirror format ends with a 'target' column")


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("recipe, kind", [("raw", "inf"), ("standardize", "NaN")])
def test_non_finite_features_after_preprocessing(california, mirror, tmp_path, recipe, kind):
    california = california.astype({"AveRooms": object})
    california.loc[7, "AveRooms"] = "inf"
    _write(mirror / "california.csv.gz", california)
    message = _fails(mirror, tmp_path, f"{kind} in the features after preprocessing '{recipe}'", preprocessing=recipe)
    assert str(mirror / "california.csv.gz") in message
    assert "record 7, feature 'AveRooms'" in message if recipe == "raw" else "feature 'AveRooms'" in message


def test_unexpected_class_value(shared_datasets, mirror, tmp_path):
    frame = pd.read_csv(shared_datasets / "electricity.csv.gz")
    frame.loc[17, "target"] = "SIDEWAYS"
    _write(mirror / "electricity.csv.gz", frame)
    _fails(mirror, tmp_path, re.escape(f"{mirror / 'electricity.csv.gz'}: target value 'SIDEWAYS' at record 17 is "
                                       "not one of the classes ['DOWN', 'UP'] of 'electricity'"), name="electricity")


def test_non_numeric_regression_target(california, mirror, tmp_path):
    california = california.astype({"target": object})
    california.loc[3, "target"] = "high"
    _write(mirror / "california.csv.gz", california)
    _fails(mirror, tmp_path, "target value 'high' at record 3 is not a finite number")


def test_corrupt_sparse_file(shared_datasets, mirror, tmp_path):
    shutil.copy(shared_datasets / "dorothea_valid.labels.csv", mirror)
    (mirror / "dorothea_valid.npz").write_bytes(b"PK\x03\x04 not really a zip")
    _fails(mirror, tmp_path, re.escape(f"{mirror / 'dorothea_valid.npz'}: not a readable scipy sparse .npz file"),
           name="dorothea-valid")


def test_sparse_labels_of_the_wrong_length(shared_datasets, mirror, tmp_path):
    shutil.copy(shared_datasets / "dorothea_valid.npz", mirror)
    (mirror / "dorothea_valid.labels.csv").write_text("target\n1\n-1\n")
    _fails(mirror, tmp_path, "2 labels for 350 records", name="dorothea-valid")


def test_sparse_matrix_missing_entries(shared_datasets, mirror, tmp_path):
    """A matrix of the right shape that lost a row's entries is refused by its non-zero count."""
    shutil.copy(shared_datasets / "dorothea_train.labels.csv", mirror)
    matrix = sp.load_npz(shared_datasets / "dorothea_train.npz").tolil()
    lost = matrix.rows[5].__len__()
    matrix.rows[5], matrix.data[5] = [], []
    sp.save_npz(mirror / "dorothea_train.npz", matrix.tocsr())
    _fails(mirror, tmp_path, re.escape(f"{727_760 - lost:,} non-zero entries; the registry expects 727,760 for "
                                       "'dorothea'"), name="dorothea", download=False)
