"""The result of :func:`privcd.fit`."""
from dataclasses import dataclass, field

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Run:
    """One run of a private algorithm.

    Attributes
    ----------
    w : ndarray of shape (p,)
        The output (final iterate, or final average for DP-CD with ``inner_iterations``).
    history : pandas.DataFrame
        One row per checkpoint: ``iteration``, ``passes`` (iteration / iterations per pass),
        ``seconds`` (kernel time, prorated by iteration), ``objective`` (F at that iterate).
    noise_multiplier : float
        Noise standard deviation over the L2 sensitivity of each release (0 when not private).
    epsilon, delta : float
        The privacy guarantee achieved (``epsilon <= target``; ``inf`` when not private).
    accountant : str or None
        The accountant that computed ``epsilon``.
    seconds : float
        Wall time of the kernel (calibration and evaluation excluded).
    algorithm : str
    seed : int
    settings : dict
        ``passes``, ``step``, ``clip`` and the options used.
    info : dict
        Algorithm-specific facts (e.g. the privacy split of DP-CD-P).
    snapshots : ndarray of shape (len(history), p) or None
        The iterate at each checkpoint of ``history`` (held-out metrics are evaluated on them).
    """

    w: np.ndarray
    history: pd.DataFrame
    noise_multiplier: float
    epsilon: float
    delta: float | None
    accountant: str | None
    seconds: float
    algorithm: str
    seed: int
    settings: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    snapshots: np.ndarray | None = field(default=None, repr=False)

    @property
    def objective(self):
        """F at the output."""
        return float(self.history["objective"].iloc[-1])
