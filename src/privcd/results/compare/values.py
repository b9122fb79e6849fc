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

``fitted`` (optional) lists privcd's free choices that were fitted to the paper's own numbers (a
generator's noise, a lambda, the coordinate order), each with

``problem``, ``algorithm``, ``passes``, ``quantity`` (at least one)
    the cells the choice shapes;
``choice`` (required)
    what was chosen and how;
``fitted_on`` (required)
    a list of cell filters (the same keys): the cells whose printed values the choice was fitted to.

A cell in some choice's ``fitted_on`` agrees (or not) by construction (*fitted*); a cell a choice
shapes but was not fitted on tests the choice (*tested*); a cell no choice shapes is *independent*
evidence (:func:`evidence_for`).
"""
import yaml

UNEXPLAINED = "not explained yet"
REQUIRED_KEYS = ("paper", "table", "cells")
CELL_KEYS = ("problem", "algorithm", "passes", "quantity")
REASON_KEYS = CELL_KEYS + ("reason", "checked_by")
FITTED_KEYS = CELL_KEYS + ("choice", "fitted_on")
EVIDENCE = ("independent", "tested", "fitted")  # the kinds of evidence_for


def load_values(path):
    """A values file as a dict, its ``reasons`` checked (:func:`check_reasons`; ``[]`` if absent)."""
    with open(path, encoding="utf-8") as handle:
        values = yaml.safe_load(handle)
    for key in REQUIRED_KEYS:
        if key not in values:
            raise ValueError(f"{path} lacks the key {key!r}; a paper values file has {list(REQUIRED_KEYS)}")
    values["reasons"] = check_reasons(values.get("reasons") or [], str(path))
    values["fitted"] = check_fitted(values.get("fitted") or [], str(path))
    return values


def check_fitted(fitted, where):
    """``fitted`` unchanged if it is a list of entries as in the module docstring, else ``ValueError``
    naming the entry and what is wrong with it."""
    for index, entry in _mappings(fitted, "fitted", "choice, fitted_on and cell keys", where):
        unknown = sorted(set(entry) - set(FITTED_KEYS))
        missing = [key for key in ("choice", "fitted_on") if not entry.get(key)]
        if not any(key in entry for key in CELL_KEYS):
            missing.append("one of " + ", ".join(CELL_KEYS))
        filters = entry.get("fitted_on") or []
        bad = [f for f in filters if not isinstance(f, dict) or not f or set(f) - set(CELL_KEYS)]
        if unknown or missing or bad or not isinstance(filters, list):
            raise ValueError(f"{where}: fitted[{index}] ({entry.get('choice')!r}) has unknown key(s) {unknown}, "
                             f"lacks {missing} and has bad fitted_on filter(s) {bad}; keys are "
                             f"{list(FITTED_KEYS)}, each filter a mapping of {list(CELL_KEYS)}")
    return fitted


def evidence_for(fitted, cell):
    """``(kind, choices)`` for ``cell``: kind ``"fitted"`` if a choice was fitted on it, ``"tested"`` if
    a choice shapes it but was not fitted on it, else ``"independent"``; choices: the ``choice`` texts
    of the entries that shape it."""
    shaping = [entry for entry in fitted if _covers(entry, cell)]
    if any(_covers(f, cell) for entry in shaping for f in entry["fitted_on"]):
        kind = "fitted"
    else:
        kind = "tested" if shaping else "independent"
    return kind, [" ".join(str(entry["choice"]).split()) for entry in shaping]


def _mappings(entries, name, keys, where):
    """``(index, entry)`` of the list ``entries`` (the values file's ``name``), each checked to be a
    mapping; ``ValueError`` naming the list or the entry otherwise."""
    if not isinstance(entries, list):
        raise ValueError(f"{where}: {name} must be a list of entries with {keys}; got {type(entries).__name__}")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: {name}[{index}] must be a mapping; got {entry!r}")
        yield index, entry


def _covers(entry, cell):
    return all(_same(entry[key], cell.get(key)) for key in CELL_KEYS if key in entry)


def check_reasons(reasons, where):
    """``reasons`` unchanged if it is a list of entries as in the module docstring, else ``ValueError``
    naming the entry and what is wrong with it."""
    for index, entry in _mappings(reasons, "reasons", "problem, reason, checked_by", where):
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
        if _covers(entry, cell) and len(keys) > best_keys:
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
