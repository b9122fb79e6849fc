"""The papers' values files (``config/paper_values/*.yaml``) and the reasons they give for cells
more than 2x off.

A values file has ``paper``, ``table`` and ``cells`` (problem -> algorithm -> values; the format of
the values depends on the table: config/README.md, "Paper values"), and optionally ``reasons``: a
list of entries, each with

``problem`` (required), ``algorithm``, ``passes``, ``quantity`` (optional)
    the cells the entry covers: every given key must equal the cell's;
``reason`` (required)
    what makes the cells differ;
``checked_by``
    the committed file (``path``, ``path#section`` or ``tests/file.py::test``) whose experiment
    checked the reason. An entry without it is shown as not explained yet, its text as unchecked.

A cell gets the most specific entry that covers it (most keys given); none: "not explained yet".
"""
import yaml

UNEXPLAINED = "not explained yet"
REQUIRED_KEYS = ("paper", "table", "cells")
CELL_KEYS = ("problem", "algorithm", "passes", "quantity")
REASON_KEYS = CELL_KEYS + ("reason", "checked_by")


def load_values(path):
    """A values file as a dict, its ``reasons`` checked (:func:`check_reasons`; ``[]`` if absent)."""
    with open(path, encoding="utf-8") as handle:
        values = yaml.safe_load(handle)
    for key in REQUIRED_KEYS:
        if key not in values:
            raise ValueError(f"{path} lacks the key {key!r}; a paper values file has {list(REQUIRED_KEYS)}")
    values["reasons"] = check_reasons(values.get("reasons") or [], str(path))
    return values


def check_reasons(reasons, where):
    """``reasons`` unchanged if it is a list of entries as in the module docstring, else ``ValueError``
    naming the entry and what is wrong with it."""
    if not isinstance(reasons, list):
        raise ValueError(f"{where}: reasons must be a list of entries with problem, reason, checked_by; "
                         f"got {type(reasons).__name__}")
    for index, entry in enumerate(reasons):
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: reasons[{index}] must be a mapping; got {entry!r}")
        unknown = sorted(set(entry) - set(REASON_KEYS))
        missing = [key for key in ("problem", "reason") if not entry.get(key)]
        if unknown or missing:
            raise ValueError(f"{where}: reasons[{index}] ({entry.get('problem')!r}) has unknown key(s) {unknown} "
                             f"and lacks {missing}; keys are {list(REASON_KEYS)}")
    return reasons


def reason_for(reasons, cell):
    """The text shown beside ``cell`` (a dict with some of :data:`CELL_KEYS`) when it is >2x off.

    ``"<reason> (checked by <checked_by>)"`` for a checked entry, ``"not explained yet (unchecked:
    <reason>)"`` for an entry without ``checked_by``, :data:`UNEXPLAINED` when no entry covers it.
    """
    best, best_keys = None, -1
    for entry in reasons:
        keys = [key for key in CELL_KEYS if key in entry]
        if all(_same(entry[key], cell.get(key)) for key in keys) and len(keys) > best_keys:
            best, best_keys = entry, len(keys)
    if best is None:
        return UNEXPLAINED
    text = " ".join(str(best["reason"]).split())
    if not best.get("checked_by"):
        return f"{UNEXPLAINED} (unchecked: {text})"
    return f"{text} (checked by {best['checked_by']})"


def _same(expected, value):
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        try:
            return float(value) == float(expected)
        except (TypeError, ValueError):
            return False
    return expected == value
