"""The result of :func:`privcd.fit`."""
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np


class DivergenceWarning(RuntimeWarning):
    """A run's weights are not finite (a step too large for the problem): its objective is NaN or
    inf, which tuning counts as +inf (:func:`privcd.results.analysis.select_best`)."""


@dataclass(frozen=True)
class Run:
    """One run of a private algorithm.

    Attributes
    ----------
    w : ndarray of shape (p,)
        The output (final iterate, or final average for DP-CD with ``inner_iterations``).
    history : pandas.DataFrame
        One row per checkpoint: ``iteration``, ``passes`` (iteration / iterations per pass),
        and, in an experiment, ``seconds`` (kernel time, prorated by iteration) and ``objective`` (F
        at that iterate, computed from the data without noise). Built from ``trace`` on first access,
        so a process that only fits never imports pandas (0.3 s of a warm start).
    noise_multiplier : float
        Noise standard deviation over the L2 sensitivity of each release (0 when not private).
    epsilon, delta : float
        The privacy guarantee achieved (``epsilon <= target``; ``inf`` when not private).
    accountant : str or None
        The accountant that computed ``epsilon``.
    seconds : float or None
        Wall time of the kernel calls, numba's compilation and cache loading excluded
        (:mod:`privcd.algorithms.kernel_clock`; calibration and evaluation excluded too). A run
        that :func:`privcd.fit_many` made in one kernel call with others that share its draws
        gets the call's time divided by the number of runs in it. ``None`` in a private release:
        the time depends on the data (a sparse column's entries), a side channel the guarantee
        does not cover.
    algorithm : str
    seed : int, numpy.random.SeedSequence or None
        The experiment's seed; ``None`` for a release, whose secret seed is not kept.
    mode : {"release", "experiment"}
        :mod:`privcd.randomness`. A release holds the model, the privacy achieved, the settings
        and the iterates at its checkpoints (all covered by the guarantee), and neither its kernel
        time nor any value computed from the data without noise: ``F(w; D)`` is outside the guarantee,
        and ``problem.objective(run.w)`` computes it when asked for by name. A run without privacy
        (``epsilon = inf``) has no guarantee to keep, and holds its objective.
    settings : dict
        ``passes``, ``step``, ``clip`` and the options used.
    info : dict
        Algorithm-specific facts (e.g. the privacy split of DP-CD-P).
    snapshots : ndarray of shape (len(history), p) or None
        The iterate at each checkpoint of ``history`` (held-out metrics are evaluated on them).
    trace : dict of str to ndarray
        The columns of ``history``, one value per checkpoint.
    """

    w: np.ndarray
    trace: dict
    noise_multiplier: float
    epsilon: float
    delta: float | None
    accountant: str | None
    seconds: float
    algorithm: str
    seed: object
    mode: str = "experiment"
    settings: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    snapshots: np.ndarray | None = field(default=None, repr=False)

    @cached_property
    def history(self):
        import pandas as pd
        return pd.DataFrame(self.trace)

    @property
    def objective(self):
        """F at the output (an experiment's; a release holds none)."""
        if "objective" not in self.trace:
            raise AttributeError("a release-mode Run holds no objective: F(w; D) is computed from the data without "
                                 "noise and is not covered by the (epsilon, delta) guarantee; compute it by name with "
                                 "problem.objective(run.w), or run an experiment (seed=<int>)")
        return float(self.trace["objective"][-1])
