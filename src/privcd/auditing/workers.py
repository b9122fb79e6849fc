"""An audit's canary runs on several processes, with the bits of one.

The runs of an audit are independent, each with its own seed (run i on D has seed ``seed + 2 i``,
on D' ``seed + 2 i + 1``), so ``workers`` processes can each score a contiguous share of the
indices, and the concatenated scores are those of one process. The audit's own process scores the
first share (:func:`privcd.auditing.canary_scores`). Each other share goes to a :class:`Helper`,
a Python process running :func:`main`. The helper rebuilds the pair and the
plans from the audit's arguments (:func:`canary_plans`: the same calls, so the same bits). It then
does one untimed run on each dataset (numba's compilation or cache load) and reports ready; the
audit starts its clock after that. Requests and scores travel pickled over the helper's standard
input and output; anything else it prints goes to its standard error.

Helpers are separate interpreters, not forks: numba's OpenMP threading layer is not fork-safe
once a parallel region has run, and a spawned ``multiprocessing`` child would rerun a Snakemake
script's top level. So a helper runs privcd as imported afresh: a change made to the audit's
process at run time (a test's monkeypatch) does not reach it, and such an audit needs
``workers=1``.
"""
import contextlib
import os
import pickle
import subprocess
import sys

import numba
import numpy as np

import privcd
from privcd.algorithms.base import with_noise_factor
from privcd.auditing.canaries import canary_pair
from privcd.fit import prepare
from privcd.privacy.reuse import CalibrationStore

READY = "ready"


def canary_plans(pair, algorithm, *, epsilon, delta, noise_factor=1.0):
    """``[(module, problem, plan)]`` for D and D' (in that order): the runs :func:`score_runs` scores,
    calibrated once for both (D and D' have the same calibration), with the noise times
    ``noise_factor`` (:func:`privcd.algorithms.base.with_noise_factor`) and the claim unchanged."""
    calibrations, prepared = CalibrationStore(), []
    for problem in (pair.inside, pair.outside):
        module, _, _, plan = prepare(problem, algorithm, epsilon=epsilon, delta=delta, calibrations=calibrations,
                                     **pair.arguments)
        if noise_factor != 1.0:
            plan = with_noise_factor(module, plan, noise_factor)
        prepared.append((module, problem, plan))
    return prepared


def score_runs(pair, prepared, seed, start, stop):
    """``(inside, outside)``: the scores of runs ``start`` to ``stop - 1`` on D and on D'."""
    return tuple(np.array([pair.score(module, problem, plan, seed + 2 * index + offset)
                           for index in range(start, stop)])
                 for offset, (module, problem, plan) in enumerate(prepared))


@contextlib.contextmanager
def one_numba_thread():
    """The block with numba on one thread: the canaries' runs are tiny, and one thread is 3x faster
    for DP-GCD's (the same bits)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(threads)


def shares(runs, workers):
    """``[(start, stop)]``: the indices ``0 .. runs - 1`` in ``workers`` contiguous shares of nearly
    equal size."""
    edges = np.linspace(0, runs, workers + 1).round().astype(int)
    return [(int(start), int(stop)) for start, stop in zip(edges[:-1], edges[1:])]


class Helper:
    """One helper process of an audit (module docstring). ``submit`` a share, then read its ``result``."""

    def __init__(self, algorithm, options, *, epsilon, delta, noise_factor):
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(privcd.__file__)))
        path = os.pathsep.join(filter(None, (package_root, os.environ.get("PYTHONPATH"))))
        self.process = subprocess.Popen([sys.executable, "-c", "from privcd.auditing.workers import main; main()"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env={**os.environ, "PYTHONPATH": path})
        self._send((algorithm, options, epsilon, delta, noise_factor))

    def wait_ready(self):
        """Block until the helper has run once on each dataset."""
        if self._receive() != READY:
            raise RuntimeError("an audit's helper process answered out of turn")

    def submit(self, seed, start, stop):
        """Ask for the scores of runs ``start`` to ``stop - 1`` (:func:`score_runs`)."""
        self._send((seed, start, stop))

    def result(self):
        """The ``(inside, outside)`` scores last submitted."""
        return self._receive()

    def close(self):
        """End the helper (it exits when its input closes)."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def _send(self, message):
        try:
            pickle.dump(message, self.process.stdin)
            self.process.stdin.flush()
        except BrokenPipeError:
            self._failed()

    def _receive(self):
        try:
            return pickle.load(self.process.stdout)
        except EOFError:
            self._failed()

    def _failed(self):
        raise RuntimeError(f"an audit's helper process exited with status {self.process.wait()} (its error, if any, "
                           "is above on standard error); rerun with workers=1 to audit in one process")


@contextlib.contextmanager
def helpers(count, algorithm, options, *, epsilon, delta, noise_factor):
    """``count`` started :class:`Helper` processes, closed (killed if need be) when the block ends."""
    started = []
    try:
        for _ in range(count):
            started.append(Helper(algorithm, options, epsilon=epsilon, delta=delta, noise_factor=noise_factor))
        yield started
    finally:
        for helper in started:
            helper.close()


def serve(requests, answers):
    """The helper's loop: the audit's arguments, one untimed run on each dataset, ``READY``, then one
    ``(inside, outside)`` answer per ``(seed, start, stop)`` request until the input ends."""
    algorithm, options, epsilon, delta, noise_factor = pickle.load(requests)
    pair = canary_pair(algorithm, options)
    with one_numba_thread():
        prepared = canary_plans(pair, algorithm, epsilon=epsilon, delta=delta, noise_factor=noise_factor)
        score_runs(pair, prepared, 0, 0, 1)
        _answer(answers, READY)
        while True:
            try:
                seed, start, stop = pickle.load(requests)
            except EOFError:
                return
            _answer(answers, score_runs(pair, prepared, seed, start, stop))


def _answer(answers, message):
    pickle.dump(message, answers)
    answers.flush()


def main():
    """A helper process: :func:`serve` on standard input and output, with every other print of the
    process sent to standard error."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, answers)
