"""Where numba keeps privcd's compiled kernels.

numba validates a cached function against its own source file only, not against the files of
the functions it calls: after a change in ``kernels/dispatch.py`` or in a loss module, a kernel
from another file would load stale machine code from the cache (seen here when the hinge loss
was added). privcd therefore keys its cache directory on a hash of every source file numba
compiles (``kernels/``, ``losses/``, ``penalties/``): any change to them starts a fresh cache.

The base directory is ``$NUMBA_CACHE_DIR`` when set (the workflow and CI set a project-local
one, so parallel jobs share one compilation), else ``$XDG_CACHE_HOME/privcd/numba``
(``~/.cache/privcd/numba``). This module must run before any jitted privcd module is imported,
which ``privcd/__init__.py`` ensures.
"""
import hashlib
import os
from pathlib import Path

import numba.core.config as numba_config

PACKAGE_DIR = Path(__file__).resolve().parent
JITTED_FOLDERS = ("kernels", "losses", "penalties")


def jitted_source_hash():
    """First 16 hex digits of the sha256 of every source file numba compiles, with its path."""
    digest = hashlib.sha256()
    for folder in JITTED_FOLDERS:
        for path in sorted((PACKAGE_DIR / folder).rglob("*.py")):
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_directory():
    """The directory numba caches privcd's kernels in."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "privcd" / "numba"
    return Path(base) / f"privcd-{jitted_source_hash()}"


numba_config.CACHE_DIR = str(cache_directory())
