"""The numba cache directory is keyed on every jitted source file."""
import shutil

import numba

from privcd import numba_cache


def test_cache_directory_is_keyed_on_the_jitted_sources(tmp_path, monkeypatch):
    for folder in numba_cache.JITTED_FOLDERS:
        shutil.copytree(numba_cache.PACKAGE_DIR / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(numba_cache, "PACKAGE_DIR", tmp_path)
    before = numba_cache.jitted_source_hash()
    assert before == numba_cache.jitted_source_hash()
    dispatch = tmp_path / "kernels" / "dispatch.py"
    dispatch.write_text(dispatch.read_text() + "\n# a change in a callee only\n")
    assert numba_cache.jitted_source_hash() != before


def test_numba_uses_the_keyed_directory(monkeypatch, tmp_path):
    assert numba.config.CACHE_DIR.endswith(f"privcd-{numba_cache.jitted_source_hash()}")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert numba_cache.cache_directory().parent == tmp_path
