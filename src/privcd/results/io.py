"""Reading and writing results tables: atomic parquet writes, merge and de-duplication on keys."""
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from privcd.results.table import KEY_COLUMNS


def write_parquet(frame, path):
    """Write ``frame`` to ``path`` atomically: a temporary file beside it, then one ``os.replace``.

    A job killed mid-write leaves no partial ``path``, so an interrupted workflow reruns exactly the
    jobs whose outputs are missing.
    """
    _atomic(path, lambda temporary: frame.to_parquet(temporary, index=False))


def write_text(text, path):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    _atomic(path, lambda temporary: Path(temporary).write_text(text, encoding="utf-8"))


def write_bytes(data, path):
    """Write ``data`` (bytes) to ``path`` atomically."""
    _atomic(path, lambda temporary: Path(temporary).write_bytes(data))


def write_array(array, path):
    """Write ``array`` to ``path`` in numpy's ``.npy`` format, atomically."""
    def write(temporary):
        with open(temporary, "wb") as handle:  # a handle: np.save would append ".npy" to a name
            np.save(handle, np.asarray(array), allow_pickle=False)
    _atomic(path, write)


def read_parquets(paths):
    """The concatenation of the parquet files ``paths`` (an empty frame for no path)."""
    frames = [pd.read_parquet(path) for path in paths]
    frames = [frame for frame in frames if len(frame)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def merge(frames, keys=KEY_COLUMNS):
    """Concatenate ``frames`` and keep the last row of each key (a re-run replaces its old rows).

    Rows come out sorted by ``keys``, so the merged table does not depend on the input order.
    """
    frames = [frame for frame in frames if len(frame)]
    if not frames:
        return pd.DataFrame()
    merged = pd.concat(frames, ignore_index=True)
    merged = merged.drop_duplicates(subset=list(keys), keep="last")
    return merged.sort_values(list(keys), kind="stable").reset_index(drop=True)


def _atomic(path, write):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(handle)
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
