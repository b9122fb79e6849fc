"""Where the plain numpy references of the stream-based kernels (DP-SGD, DP-SCD) take their random
numbers from.

:class:`StreamDraws` replays the kernel's counter-based stream (key
:func:`privcd.algorithms.base.kernel_key` ``(seed)``, the numpy twins of
:mod:`privcd.kernels.streams` and :mod:`privcd.kernels.gaussian`), so that tests can check that a
reference follows its kernel's path. :class:`NumpyDraws` takes them from numpy's own
``Generator``, as a numpy user would write it; the benchmarks time the references with it, because
the twins (SplitMix64 and Box-Muller written in vectorised numpy, there to replay bits) are 3-5x
slower than numpy's C generator, and timing them would flatter the kernels.

A kernel that reads two streams (DP-SGD: batches from stream 0, noise from stream 1) is replayed
with one object per stream, ``draws(seed, stream)``. Both classes offer the three draws the references need, in the kernels' order: ``indices(spans)`` (one
uniform integer below each span), ``log_uniform()`` (the log of one uniform in (0, 1]) and
``normals(m)``.
"""
import numpy as np

from privcd.algorithms.base import kernel_key
from privcd.numerics.elementary import log_positive_numpy
from privcd.kernels.gaussian import standard_normal_numpy
from privcd.kernels.streams import bounded_indices_numpy, uniform_fine_numpy


class StreamDraws:
    """The kernel's own draws, from stream ``kernel_key(seed, stream)`` at position 0."""

    def __init__(self, seed, stream=0):
        self.key = kernel_key(seed, stream)
        self.position = 0

    def indices(self, spans):
        draws, self.position = bounded_indices_numpy(self.key, self.position, spans)
        return draws

    def log_uniform(self):
        u = uniform_fine_numpy(self.key, [self.position])
        self.position += 1
        return log_positive_numpy(u)[0]

    def normals(self, m):
        out, self.position = standard_normal_numpy(self.key, self.position, m)
        return out


class NumpyDraws:
    """Draws from ``np.random.default_rng([seed, stream])``: the same laws, not the kernel's numbers."""

    def __init__(self, seed, stream=0):
        self.rng = np.random.default_rng([seed, stream])

    def indices(self, spans):
        return self.rng.integers(0, spans)

    def log_uniform(self):
        return np.log(1.0 - self.rng.random())

    def normals(self, m):
        return self.rng.standard_normal(m)
