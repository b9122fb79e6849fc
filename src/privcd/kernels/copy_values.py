"""Copying one vector into another inside the kernels, by a loop.

numba compiles ``target[...] = source`` between arrays with a broadcasting check whose error
message (``ol_raise_with_shape_context_cpu``, string formatting of both shapes) takes 2.5 s to
compile, once per process: a kernel's first compile paid it for recording its checkpoints. The
kernels record ``snapshots[c]`` with :func:`copy_values` instead (the same values; 0.2 s to compile).
"""
from numba import njit


@njit(cache=True)
def copy_values(source, target):
    """``target[j] = source[j]`` for every j (1-d arrays of the same length, any layout)."""
    for j in range(source.shape[0]):
        target[j] = source[j]
