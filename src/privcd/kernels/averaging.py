"""Periodic averaging of coordinate-method iterates (dp-cd Algorithm 1, line 9), kept lazily.

Within an epoch of K steps the average ``(1/K) sum_{k=1..K} theta^k`` is accumulated per
coordinate only when the coordinate changes: ``held_since[j]`` is the last step at which
coordinate j changed, and its old value is credited for the states it held. O(1) a step
instead of O(p).
"""
from numba import njit

from privcd.kernels.copy_values import copy_values


@njit(cache=True)
def credit_change(total, held_since, j, old, k):
    """Coordinate j changed at step k (0-based in the epoch) from ``old``: credit ``old`` for the
    states ``held_since[j] + 1 .. k``."""
    total[j] += old * (k - held_since[j])
    held_since[j] = k


@njit(cache=True)
def close_epoch(total, held_since, w, out, inner):
    """End of an epoch of ``inner`` steps: ``out = w = (1/K) sum_k theta^k``; reset the sums."""
    for j in range(w.shape[0]):
        out[j] = (total[j] + w[j] * (inner - held_since[j])) / inner
        w[j] = out[j]
        total[j] = 0.0
        held_since[j] = 0


@njit(cache=True)
def record_final_output(checkpoints, first, snapshots, w, out, averaging):
    """End of a run: ``out`` becomes the last iterate unless the run averages (then it already holds
    the last average), and the checkpoints from ``first`` on, those at the end, record it."""
    if not averaging:
        copy_values(w, out)
    for c in range(first, checkpoints.shape[0]):
        copy_values(out, snapshots[c])
