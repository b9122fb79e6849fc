"""The identity of a configuration: a hash of its content, and the part of it that orders ties.

Low in the package so that both :mod:`privcd.tuning` (seeds, chunks) and :mod:`privcd.results`
(selection) read one definition.
"""
import hashlib
import json

ACCOUNTING_OPTIONS = ("accountant",)  # options that set the noise's scale, never the draws or the ties


def configuration_id(configuration):
    """A 12-hex-digit identity of ``configuration``: sha256 of its canonical JSON (keys sorted).

    Equal content gives an equal id whatever the key order or the grid it came from, so ids (and
    the seeds derived from them) survive re-chunking and grid reordering.
    """
    return hashlib.sha256(canonical_json(configuration).encode()).hexdigest()[:12]


def canonical_json(value):
    """JSON with sorted keys and no spaces; floats written as their shortest round-trip repr."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)


def tie_order_id(configuration):
    """:func:`configuration_id` of ``configuration`` without :data:`ACCOUNTING_OPTIONS`: the order of
    configurations that tie in a selection (:func:`privcd.results.analysis.select_best`), so that
    naming an accountant in a config leaves the configuration's place among equals unchanged."""
    return configuration_id({key: value for key, value in configuration.items() if key not in ACCOUNTING_OPTIONS})
