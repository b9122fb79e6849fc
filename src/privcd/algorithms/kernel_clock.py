"""Kernel calls on a clock that leaves out numba's compilation and cache loading.

A run's ``seconds`` (:attr:`privcd.Run.seconds`) is the time of its work: the kernel calls that
:func:`launch` makes inside a :func:`kernel_clock`. Before it starts the clock, :func:`launch` has
the kernel compiled for the argument types of the call, or its machine code loaded from numba's
disk cache, which the first call of a process would otherwise do inside the call (seconds to
minutes against milliseconds of work: dp-cd Figure 3's DP-CD curve ran to 0.63 s for 0.03 s of
work before this). Python work around the kernels (building the argument arrays, evaluating the
objective at the checkpoints) is outside the clock too.
"""
import contextlib
import sys
import threading
import time

import numba
import numpy as np

_OPEN_CLOCKS = []  # the clocks of the enclosing kernel_clock() blocks, innermost last
_COMPILED = set()  # (kernel, argument type keys) that launch has had compiled or loaded
NOTICE_SECONDS = 2.0  # a compilation (or cache load) longer than this prints one line


class KernelClock:
    """Seconds spent inside the kernel calls of one :func:`kernel_clock` block (``seconds``)."""

    def __init__(self):
        self.seconds = 0.0


@contextlib.contextmanager
def kernel_clock():
    """``with kernel_clock() as clock:`` sums into ``clock.seconds`` the time of every
    :func:`launch` call made in the block (nested blocks each get their own sum)."""
    clock = KernelClock()
    _OPEN_CLOCKS.append(clock)
    try:
        yield clock
    finally:
        _OPEN_CLOCKS.remove(clock)


def launch(kernel, *args):
    """``kernel(*args)`` for a numba dispatcher, timed without compilation or cache loading.

    Every parameter is passed: numba types an omitted default apart from a given one, and the
    signature compiled here must be the one the call dispatches to.
    """
    expected = kernel.py_func.__code__.co_argcount
    if len(args) != expected:
        raise TypeError(f"launch({kernel.py_func.__name__}) got {len(args)} arguments; the kernel takes "
                        f"{expected}, and launch needs every one of them")
    key = (kernel, tuple(map(_type_key, args)))
    if key not in _COMPILED:  # typing every argument costs ~2 ms a call; the key, ~20 us
        with compilation_notice(kernel.py_func.__name__):
            kernel.compile(tuple(kernel.typeof_pyval(argument) for argument in args))  # no-op once compiled
        _COMPILED.add(key)
    start = time.perf_counter()
    result = kernel(*args)
    elapsed = time.perf_counter() - start
    for clock in _OPEN_CLOCKS:
        clock.seconds += elapsed
    return result


@contextlib.contextmanager
def compilation_notice(name):
    """Print one line on standard error if the block (numba compiling kernel ``name``, or loading
    it from the disk cache) lasts more than :data:`NOTICE_SECONDS`."""
    timer = threading.Timer(NOTICE_SECONDS, _notice, args=(name,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _notice(name):
    print(f"privcd: numba is compiling the kernel {name} for these argument types (once per environment and "
          "privcd version, then cached on disk; `python -m privcd.warmup` compiles every kernel ahead)",
          file=sys.stderr, flush=True)


def _type_key(argument):
    """What numba's type of ``argument`` depends on, cheaply: an array's dtype, dimensions and flags
    (layout, writeability, alignment, in one integer: a finer key than numba's type, never a coarser
    one), a tuple's members, a scalar's, a random generator's or None's Python type (numba types them
    by their type alone); anything else, numba's own type of it (3 us for a generator, 0.2 us for
    its type)."""
    if isinstance(argument, np.ndarray):
        return (argument.dtype.str, argument.ndim, argument.flags.num)
    if isinstance(argument, tuple):
        return tuple(map(_type_key, argument))
    if argument is None or isinstance(argument, (bool, int, float, np.generic, np.random.Generator)):
        return type(argument)
    return numba.typeof(argument)
