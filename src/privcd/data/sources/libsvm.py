"""Datasets downloaded from the LIBSVM data page (https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/).

YearPredictionMSD (dp-scd Section 5.1, footnote 1): LIBSVM's regression files
``YearPredictionMSD.bz2`` (463,715 train rows) and ``YearPredictionMSD.t.bz2`` (51,630 test rows),
90 timbre features, target the release year; they are the UCI "YearPredictionMSD" data (UCI id 203)
with UCI's train/test split. They are too large for the shared mirror: this source downloads them
(urllib, :data:`TIMEOUT` seconds per connection) into ``<cache>/downloads/libsvm``. A mirror may hold
them as ``msd.csv.gz`` (train rows first).
"""
import os
import shutil
import urllib.request

import numpy as np
import pandas as pd

from privcd.data.files import atomic_path, sha256_file
from privcd.data.spec import Acquired, DatasetSpec, PaperShape, RawData

URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/regression/"
MSD_FILES = ("YearPredictionMSD.bz2", "YearPredictionMSD.t.bz2")
MSD_FEATURES = 90
TIMEOUT = 10.0


def download(url: str, path) -> None:
    """Copy ``url`` to ``path`` unless ``path`` exists; a failed transfer leaves no partial file."""
    if os.path.exists(path):
        return
    with atomic_path(path) as temporary:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response, open(temporary, "wb") as handle:
            shutil.copyfileobj(response, handle)


def msd(request) -> Acquired:
    """Download (once) and read YearPredictionMSD: train rows, then the test rows."""
    folder = request.downloads / "libsvm"
    paths = [folder / name for name in MSD_FILES]
    for path in paths:
        download(URL + path.name, path)

    def read() -> RawData:
        from sklearn.datasets import load_svmlight_files

        X_train, y_train, X_test, y_test = load_svmlight_files([str(p) for p in paths], n_features=MSD_FEATURES)
        names = [f"x{j + 1}" for j in range(MSD_FEATURES)]
        features = pd.DataFrame(np.vstack([X_train.toarray(), X_test.toarray()]), columns=names)
        return RawData(features, np.concatenate([y_train, y_test]))

    return Acquired("libsvm", ", ".join(URL + name for name in MSD_FILES),
                    {path.name: sha256_file(path) for path in paths}, read)


DATASETS = (
    DatasetSpec("msd", "libsvm", URL + "YearPredictionMSD.bz2 (+ .t.bz2)", "regression", (515_345, MSD_FEATURES), msd, test_start=463_715, paper=PaperShape(515_345, MSD_FEATURES, "dp-scd Section 5.1"), note="YearPredictionMSD; download only (about 200 MB), not in the shared mirror; rows 463,715- are the given test file."),
)
