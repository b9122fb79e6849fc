"""The contract of an algorithm module, as a type: :class:`AlgorithmModule`.

:mod:`privcd.algorithms.base` documents each member; the registry (:mod:`privcd.algorithms`) holds
modules that satisfy it, and ``tests/test_algorithms.py`` checks every registered module against
it, so the estimators, private tuning and the audit read facts from the module instead of
branching on its name.
"""
from typing import Any, Callable, Protocol, runtime_checkable


@runtime_checkable
class AlgorithmModule(Protocol):
    """What :func:`privcd.fit`, the estimators, :func:`privcd.tune_private` and :func:`privcd.audit`
    use of an algorithm module (the optional lockstep hooks ``SHARED_DRAWS``, ``batch_key``,
    ``run_many`` and ``group_size`` are read with ``getattr``)."""

    NAME: str
    DISPLAY: str  # the name figures and tables show when the config's legend gives none
    OPTIONS: dict
    SMOOTHNESS_FROM_PROBLEM: dict | None
    JOINT_RELEASE: bool
    NOISE_KEY: tuple
    TUNING_ACCOUNTANT: str | None  # how privcd.tune_private accounts its training: "exact", "rdp" or None
    ESTIMATOR_CLIP: float | str  # the estimators' default clip: a number, "worst-case" or "start" (times R)
    THEORY_PASSES: bool  # the estimators' default passes follow DP-CD's convex rate

    check_options: Callable[[dict], Any]
    iterations_per_pass: Callable[[Any, dict], float]
    plan: Callable[[Any, Any, dict], Any]
    run: Callable[[Any, Any, Any], tuple]
    estimator_options: Callable[[int, float], dict]
