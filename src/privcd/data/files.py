"""File helpers shared by the sources and the cache: hashing and atomic writes."""
import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

CHUNK = 1 << 20


def sha256_file(path) -> str:
    """Hex sha256 digest of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_bytes(*chunks) -> str:
    """Hex sha256 digest of the concatenation of ``chunks`` (bytes or buffer-like objects)."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(memoryview(chunk).cast("B"))
    return digest.hexdigest()


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; on success it replaces ``path`` in one step.

    Concurrent readers (several pipeline jobs loading one dataset) never see a half-written file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".part", dir=path.parent)
    os.close(handle)
    try:
        yield Path(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
