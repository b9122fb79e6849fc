"""Quasi-sparsity of the non-private solutions (dp-gcd Definition 4.6, Appendix D Figure 2).

A vector ``w`` is (alpha, tau)-quasi-sparse if at most tau of its entries exceed alpha in modulus;
the smallest such alpha is the (tau + 1)-th largest ``|w_j|`` (0 when ``p <= tau``). Figure 2 shows
the histogram of ``|w*_j|`` of every problem with that alpha for tau = 5.
"""
import numpy as np
import pandas as pd

HISTOGRAM_COLUMNS = ("problem", "left", "right", "count", "alpha", "tau", "nonzeros", "features")


def quasi_sparsity_alpha(w, tau=5):
    """The smallest alpha for which ``w`` is (alpha, tau)-quasi-sparse (dp-gcd Definition 4.6)."""
    if isinstance(tau, bool) or not isinstance(tau, (int, np.integer)) or tau < 0:
        raise ValueError(f"tau={tau!r} must be an integer >= 0")
    magnitudes = np.sort(np.abs(np.asarray(w, dtype=float).ravel()))[::-1]
    return float(magnitudes[tau]) if tau < magnitudes.size else 0.0


def solution_histograms(solutions, tau=5, bins=30):
    """Histogram bins of ``|w*_j|`` per problem, with the alpha of (alpha, tau)-quasi-sparsity.

    Parameters
    ----------
    solutions : dict
        Problem name -> ``w*`` (in the order of the figure's panels).
    tau : int
        Figure 2 uses 5.
    bins : int
        Equal-width bins on ``[0, max |w*_j|]`` (one bin at 0 for ``w* = 0``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`HISTOGRAM_COLUMNS`, one row per (problem, bin); ``count`` sums to p.
    """
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins={bins!r} must be an integer >= 1")
    frames = []
    for problem, w in solutions.items():
        magnitudes = np.abs(np.asarray(w, dtype=float).ravel())
        top = float(magnitudes.max(initial=0.0))
        counts, edges = np.histogram(magnitudes, bins=bins, range=(0.0, top if top > 0 else 1.0))
        frames.append(pd.DataFrame({
            "problem": problem, "left": edges[:-1], "right": edges[1:], "count": counts,
            "alpha": quasi_sparsity_alpha(magnitudes, tau), "tau": tau,
            "nonzeros": int(np.count_nonzero(magnitudes)), "features": magnitudes.size}))
    if not frames:
        return pd.DataFrame(columns=list(HISTOGRAM_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(HISTOGRAM_COLUMNS)]
