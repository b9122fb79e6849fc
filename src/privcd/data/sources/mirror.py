"""The local mirror: a directory of dataset files checked before any download.

Layout (as in ``shared/datasets/``, see its MANIFEST.md):

* dense data: ``<stem>.csv.gz``, gzip, one header row, the feature columns then a ``target`` column,
  raw source values (categorical columns keep their strings);
* sparse data: ``<stem>.npz`` (``scipy.sparse.save_npz``, CSR) and ``<stem>.labels.csv`` (one
  column ``target``);
* optionally ``MANIFEST.md``, a Markdown table with a ``file`` and a ``sha256`` column: every listed
  file is checked against its digest before it is read.

The mirror is the ``mirror=`` argument of :func:`privcd.data.load_dataset`, else the environment
variable ``PRIVCD_DATA_MIRROR``.
"""
import gzip
import re
import zlib
import zipfile
from functools import partial
from pathlib import Path

import pandas as pd
import scipy.sparse as sp

from privcd.data.errors import DataFileError
from privcd.data.files import sha256_file
from privcd.data.spec import Acquired, DatasetSpec, RawData

MANIFEST = "MANIFEST.md"
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
SHA256 = re.compile(r"\b[0-9a-f]{64}\b")
FILE_NAME = re.compile(r"`([^`\s]+\.(?:csv\.gz|npz|csv))`")

DATASETS = (
    DatasetSpec("dorothea-valid", "mirror", "NIPS 2003 feature selection challenge, dorothea_valid.data (the validation split)", "binary", (350, 100_000), None, labels=(-1, 1), sparse=True, nonzeros=317_752, note="The 350-row validation split of DOROTHEA, NOT the papers' 800-row train split (that is 'dorothea'); no download source holds this split alone."),
)


def manifest_digests(directory) -> dict:
    """File name -> sha256 listed in ``directory/MANIFEST.md`` (empty when there is no manifest).

    Table rows are read by the header's ``file`` and ``sha256`` columns; a row naming several files
    lists their digests in the same order.
    """
    path = Path(directory) / MANIFEST
    if not path.is_file():
        return {}
    digests, columns = {}, None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("|"):
            columns = None
            continue
        cells = [cell.strip() for cell in UNESCAPED_PIPE.split(line)[1:-1]]
        if columns is None:
            columns = {cell.lower(): index for index, cell in enumerate(cells)}
            continue
        if "file" not in columns or "sha256" not in columns or set("".join(cells)) <= set("-: "):
            continue
        names = FILE_NAME.findall(cells[columns["file"]])
        values = SHA256.findall(cells[columns["sha256"]])
        if len(names) != len(values):
            raise DataFileError(f"{path}, line {number}: {len(names)} file name(s) {names} but "
                                f"{len(values)} sha256 digest(s); cannot tell which digest is whose")
        digests.update(zip(names, values))
    return digests


def locate(spec: DatasetSpec, directory) -> tuple:
    """Look ``spec`` up in the mirror ``directory``.

    Returns
    -------
    acquired : Acquired or None
        The verified files, ready to read; ``None`` when the mirror lacks a file.
    tried : str
        What was looked for, for the error raised when nothing else provides the dataset.

    Raises
    ------
    DataFileError
        A file's sha256 differs from the one in the mirror's MANIFEST.md.
    """
    directory = Path(directory)
    paths = [directory / name for name in spec.mirror_files]
    missing = [path.name for path in paths if not path.is_file()]
    if missing:
        present = [path.name for path in paths if path.is_file()]
        tried = f"mirror {directory}: no {' or '.join(missing)}"
        if present:
            tried += f" (found only {', '.join(present)})"
        return None, tried
    expected = manifest_digests(directory)
    inputs = {}
    for path in paths:
        actual = sha256_file(path)
        if path.name in expected and expected[path.name] != actual:
            raise DataFileError(f"{path}: sha256 {actual} differs from {expected[path.name]} listed in "
                                f"{directory / MANIFEST}; the file is corrupt or was replaced")
        inputs[path.name] = actual
    reader = read_sparse if spec.sparse else read_dense
    origin = ", ".join(str(path) for path in paths)
    return Acquired("mirror", origin, inputs, partial(reader, *paths)), f"mirror {directory}"


def read_csv(path, **options) -> pd.DataFrame:
    """``pandas.read_csv`` whose failures become a :class:`DataFileError` naming ``path``."""
    try:
        return pd.read_csv(path, **options)
    except EOFError as error:
        raise DataFileError(f"{path}: truncated gzip stream ({error})") from None
    except (gzip.BadGzipFile, zlib.error) as error:
        raise DataFileError(f"{path}: not a valid gzip file ({error})") from None
    except pd.errors.EmptyDataError:
        raise DataFileError(f"{path}: empty file, expected a header row and data rows") from None
    except pd.errors.ParserError as error:
        raise DataFileError(f"{path}: malformed CSV, wrong number of fields ({error})") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise DataFileError(f"{path}: cannot be read as CSV ({type(error).__name__}: {error})") from None


def _check_complete(frame: pd.DataFrame, path) -> None:
    """Mirror files mark missing values explicitly, so an empty cell means a short or damaged line."""
    empty = frame.isna().to_numpy()
    if empty.any():
        row, column = (int(i) for i in divmod(int(empty.argmax()), empty.shape[1]))
        raise DataFileError(f"{path}: line {row + 2} has no value in column {frame.columns[column]!r} "
                            f"(a short line or an empty field; {frame.shape[1]} fields expected per line)")


def read_dense(path) -> RawData:
    """Read ``<stem>.csv.gz``: the feature columns, then the ``target`` column."""
    frame = read_csv(path)
    if frame.columns[-1] != "target":
        raise DataFileError(f"{path}: last column is {frame.columns[-1]!r}; the mirror format ends with "
                            f"a 'target' column")
    _check_complete(frame, path)
    return RawData(frame.iloc[:, :-1], frame["target"].to_numpy())


def read_sparse(matrix_path, labels_path) -> RawData:
    """Read ``<stem>.npz`` (CSR features) and ``<stem>.labels.csv`` (one ``target`` column)."""
    try:
        features = sp.load_npz(matrix_path).tocsr()
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise DataFileError(f"{matrix_path}: not a readable scipy sparse .npz file "
                            f"({type(error).__name__}: {error})") from None
    labels = read_csv(labels_path)
    if list(labels.columns) != ["target"]:
        raise DataFileError(f"{labels_path}: columns {list(labels.columns)}; expected one column 'target'")
    _check_complete(labels, labels_path)
    return RawData(features, labels["target"].to_numpy())
