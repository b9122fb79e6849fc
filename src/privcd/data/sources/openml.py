"""Datasets downloaded from OpenML with the ``openml`` package, by dataset id.

Each adapter turns OpenML's data frame into the mirror's canonical form (column names, value
coding and target coding of the files in ``shared/datasets``), so that a mirrored copy and a
download of the same dataset go through the same checks and recipes.

The ids: electricity 151, madelon 1485, mtp 405, dorothea 4137, phishing 4534 (``PhishingWebsites``,
the raw UCI data, re-encoded here as LIBSVM's ``phishing`` file that dp-scd used), adult 1590.
``openml`` retries a failing request 5 times by default; :data:`RETRIES` lowers that to 1 for the
duration of the call, so an unreachable server fails within seconds (``openml`` 0.15 sets no
connection timeout of its own). OpenML's own cache (``openml.config``) is left as the user set it.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privcd.data.encoding import categorical_columns
from privcd.data.errors import DataFileError
from privcd.data.files import sha256_file
from privcd.data.spec import Acquired, DatasetSpec, PaperShape, RawData

RETRIES = 1
DOROTHEA_TRAIN_ROWS = 800
DOROTHEA_TRAIN_POSITIVES = 78
PHISHING_VALUE = 0.18257
ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country")
ADULT_RENAMES = {"capitalgain": "capital-gain", "capitalloss": "capital-loss", "hoursperweek": "hours-per-week"}


def fetch_openml(dataset_id: int):
    """Download OpenML dataset ``dataset_id`` and return (features, target, input file).

    ``openml.config.connection_n_retries`` is set to :data:`RETRIES` during the call and restored.
    """
    import openml

    previous = openml.config.connection_n_retries
    openml.config.connection_n_retries = RETRIES
    try:
        dataset = openml.datasets.get_dataset(dataset_id, download_data=True, download_qualities=False,
                                              download_features_meta_data=False)
        features, target, _, _ = dataset.get_data(target=dataset.default_target_attribute)
    finally:
        openml.config.connection_n_retries = previous
    return features, target, Path(dataset.parquet_file or dataset.data_file)


def _category_to_int(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series.astype(str)).astype(np.int64)


def electricity(features, target):
    """OpenML 151 codes ``day`` as the nominal values 1..7; the mirror stores the integers."""
    features = features.copy()
    features["day"] = _category_to_int(features["day"])
    return features, target.astype(str).to_numpy()


def madelon(features, target):
    """OpenML 1485 codes the UCI classes -1/1 as nominal 1/2 (assumed in this order; not checked offline)."""
    codes = _category_to_int(target).to_numpy()
    return features, np.where(codes == 2, 1, np.where(codes == 1, -1, codes))


def mtp(features, target):
    """OpenML 405 (4,450 x 202, target ``oz203``) is numeric already."""
    return features, target.to_numpy(dtype=np.float64)


def adult(features, target):
    """OpenML 1590: UCI column names (``capital-gain``...), missing categorical values as ``"?"``.

    Rows are assumed to be adult.data then adult.test as on UCI (not checked offline).
    """
    features = features.rename(columns=ADULT_RENAMES)
    absent = [column for column in ADULT_COLUMNS if column not in features.columns]
    if absent:
        raise DataFileError(f"OpenML 1590 (adult): columns {absent} not found in {list(features.columns)}")
    features = features.loc[:, list(ADULT_COLUMNS)].copy()
    for column in categorical_columns(features):
        features[column] = features[column].astype(object).where(features[column].notna(), "?").astype(str)
    return features, target.astype(str).str.rstrip(".").to_numpy()


def libsvm_one_hot(frame: pd.DataFrame) -> np.ndarray:
    """Encode nominal columns as LIBSVM's ``phishing`` file does.

    Column ``k`` is the k-th (feature, value) pair met in a row-major scan of ``frame`` (row by row,
    features left to right): row 0 takes columns 0..29, each later row's unseen pairs the next ones.
    Every present pair holds :data:`PHISHING_VALUE` (1/sqrt(30) rounded as in the LIBSVM file).
    Checked on the mirror's copy: the new columns of every row are the next consecutive indices.
    """
    values = frame.astype(str).to_numpy()
    columns = {}
    rows, cols = [], []
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            rows.append(i)
            cols.append(columns.setdefault((j, value), len(columns)))
    encoded = np.zeros((len(values), len(columns)))
    encoded[rows, cols] = PHISHING_VALUE
    return encoded


def phishing(features, target):
    """OpenML 4534 (UCI, 30 ternary features, ``Result`` in {-1, 1}) -> LIBSVM ``phishing`` (68 columns, 0/1)."""
    encoded = libsvm_one_hot(features)
    frame = pd.DataFrame(encoded, columns=[f"f{k + 1}" for k in range(encoded.shape[1])])
    return frame, (_category_to_int(target).to_numpy() == 1).astype(np.int64)


def dorothea(features, target):
    """OpenML 4137 holds train (800 rows) then valid (350 rows); keep the 800 train rows.

    The row order is checked by the train labels' count: 78 positive of 800 (``dorothea.param``).
    """
    matrix = features.sparse.to_coo() if isinstance(features, pd.DataFrame) else features
    matrix = sp.csr_matrix(matrix, dtype=np.float64)[:DOROTHEA_TRAIN_ROWS]
    labels = np.asarray(target, dtype=np.float64)[:DOROTHEA_TRAIN_ROWS].astype(np.int64)
    positives = int(np.sum(labels == 1))
    if positives != DOROTHEA_TRAIN_POSITIVES:
        raise DataFileError(f"OpenML 4137 (dorothea): rows 0-799 have {positives} positive labels, the train "
                            f"split has {DOROTHEA_TRAIN_POSITIVES}; OpenML's row order is not train-then-valid")
    return matrix, labels


def openml_source(dataset_id: int, adapt):
    """A fetcher for OpenML dataset ``dataset_id`` whose frame ``adapt`` turns into the canonical form."""
    def fetch(request) -> Acquired:
        features, target, path = fetch_openml(dataset_id)
        def read() -> RawData:
            return RawData(*adapt(features, target))
        return Acquired("openml", f"OpenML {dataset_id} ({path})", {path.name: sha256_file(path)}, read)
    return fetch


DATASETS = (
    DatasetSpec("electricity", "openml", "OpenML 151", "binary", (45_312, 8), openml_source(151, electricity), labels=("DOWN", "UP"), paper=PaperShape(45_312, 8, "dp-cd Section 6"), note="Raw values are OpenML's (already min-max normalised by its uploader); 'day' kept as the integer 1..7 (8 features, as in dp-cd)."),
    DatasetSpec("madelon", "openml", "OpenML 1485", "binary", (2_600, 500), openml_source(1485, madelon), labels=(-1, 1), paper=PaperShape(2_600, 501, "dp-gcd Table 1"), note="UCI train (rows 0-1999) + valid (2000-2599) with released labels; dp-gcd Table 1 lists 501 features, the data have 500 (OpenML counts 501 columns with the class)."),
    DatasetSpec("mtp", "openml", "OpenML 405", "regression", (4_450, 202), openml_source(405, mtp), paper=PaperShape(4_450, 202, "dp-gcd Table 1"), note="Not in the shared mirror: needs OpenML or a mirrored mtp.csv.gz."),
    DatasetSpec("dorothea", "openml", "OpenML 4137", "binary", (800, 100_000), openml_source(4137, dorothea), labels=(-1, 1), sparse=True, stem="dorothea_train", paper=PaperShape(800, 88_119, "dp-gcd Table 1"), nonzeros=727_760, note="The papers' 800-row train split (first 800 rows of OpenML 4137; 727,760 non-zeros, the train check-sum of dorothea.param); 'raw' drops all-zero columns, leaving dp-gcd Table 1's 88,119 of 100,000 features."),
    DatasetSpec("phishing", "openml", "OpenML 4534", "binary", (11_055, 68), openml_source(4534, phishing), labels=(0, 1), paper=PaperShape(11_055, 68, "dp-scd Section 5.1"), note="LIBSVM's encoding used by dp-scd: 68 one-hot columns scaled to 1/sqrt(30); label 1 = legitimate (UCI Result 1)."),
    DatasetSpec("adult", "openml", "OpenML 1590", "binary", (48_842, 14), openml_source(1590, adult), labels=("<=50K", ">50K"), test_start=32_561, missing="?", paper=PaperShape(48_842, 81, "dp-scd Section 5.1 (features after its preprocessing)"), note="Rows 0-32,560 = adult.data (train), 32,561- = adult.test (given test file); '?' marks missing values."),
)
