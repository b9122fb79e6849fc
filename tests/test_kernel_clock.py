"""A run's seconds are its kernel calls' time: no numba compilation or cache loading, no other
run's share (privcd.algorithms.kernel_clock, fit_many(lockstep=False), the timing stage)."""
import json
import os
import subprocess
import sys
import textwrap
import time
from unittest import mock

import numba
import numpy as np
import pytest

import privcd
from privcd.algorithms import dp_cd as dp_cd_algorithm
from privcd.algorithms.kernel_clock import kernel_clock, launch
from privcd.results.analysis import select_best
from privcd.tuning import run_chunk
from privcd.tuning.timing import TIMING_COLUMNS, timed_runs
from conftest import make_problem


def _toy_sum(values, repeats):
    total = 0.0
    for _ in range(repeats):
        for value in values:
            total += value * value
    return total


def test_launch_compiles_outside_the_clock():
    kernel = numba.njit(_toy_sum)  # a fresh dispatcher: this process has not compiled it
    values = np.linspace(0.0, 1.0, 1000)
    with kernel_clock() as first:
        start = time.perf_counter()
        launch(kernel, values, 200)
        wall = time.perf_counter() - start
    with kernel_clock() as outer, kernel_clock() as inner:
        assert launch(kernel, values, 200) == _toy_sum(values, 200)
    assert wall > 20 * first.seconds  # the compilation (a tenth of a second at least) was left out
    assert first.seconds < 5 * inner.seconds and outer.seconds == inner.seconds > 0


def test_launch_compiles_each_new_argument_type_once_outside_the_clock():
    """launch remembers the argument types it had compiled by a cheap key (dtype, dimensions,
    layout, flags; a scalar's type): a new dtype, layout or scalar type is compiled before the
    clock starts, never inside it, and the call gives the kernel's answer."""
    kernel = numba.njit(_toy_sum)
    values = np.linspace(0.0, 1.0, 1000)
    launch(kernel, values, 10)
    for other in (values.astype(np.float32), values[::2], np.ascontiguousarray(values).reshape(1000)):
        signatures = len(kernel.signatures)
        with kernel_clock() as clock:
            start = time.perf_counter()
            assert launch(kernel, other, 10) == pytest.approx(_toy_sum(other, 10), rel=1e-5)  # float32 sums
            wall = time.perf_counter() - start
        assert clock.seconds < wall
        if other.dtype == np.float32 or not other.flags.c_contiguous:
            assert len(kernel.signatures) == signatures + 1  # a new type, compiled by launch
    assert len(kernel.signatures) == 3  # float64 C, float32 C, float64 strided
    launch(kernel, values, 10.0)  # a float scalar: another signature
    assert len(kernel.signatures) == 4


def test_launch_names_a_missing_argument():
    kernel = numba.njit(_toy_sum)
    with pytest.raises(TypeError, match="launch\\(_toy_sum\\) got 1 arguments; the kernel takes 2"):
        launch(kernel, np.ones(3))


FIRST_FITS = textwrap.dedent("""
    import json
    import numpy as np
    import privcd
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 10))
    y = np.where(X @ rng.normal(size=10) > 0, 1.0, -1.0)
    problem = privcd.Problem(X, y, "logistic", "l2", 1e-3, constants="data")
    runs = [privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-6, passes=400, step=0.5, clip=1.0, seed=0)
            for _ in range(3)]
    print(json.dumps([run.seconds for run in runs]))
""")


@pytest.mark.slow
def test_a_first_fit_with_an_empty_numba_cache_reports_its_work_only(tmp_path):
    """A fresh process with an empty cache compiles DP-GCD's kernel (about 20 s here) in its first
    fit; that fit reports within 1.5x of the next identical one (one thread: no scheduling noise)."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_NUM_THREADS": "1"}
    start = time.perf_counter()
    output = subprocess.run([sys.executable, "-c", FIRST_FITS], env=environment, capture_output=True, text=True,
                            check=True).stdout
    wall = time.perf_counter() - start
    first, *later = json.loads(output.splitlines()[-1])
    assert first <= 1.5 * min(later)
    assert wall > 20 * first  # the first fit did compile, outside its seconds


def test_final_and_timing_runs_are_made_alone_with_the_bits_of_lockstep():
    problem = make_problem("logistic", "l2", 0.02)
    configurations = [{"epsilon": 1.0, "delta": 1e-5, "passes": 2, "step": step, "clip": 1.0} for step in (0.3, 0.9)]
    common = dict(base_seed=1, repetitions=2, paper="p", problem_name="q")
    with mock.patch.object(dp_cd_algorithm, "run_many", wraps=dp_cd_algorithm.run_many) as run_many:
        tuned = run_chunk(problem, "dp-cd", configurations, stage="tune", **common)
        assert run_many.call_count == 2  # one lockstep call per repetition
        run_many.reset_mock()
        final = run_chunk(problem, "dp-cd", configurations, stage="final", **common)
        assert run_many.call_count == 0
    runs = list(privcd.fit_many(problem, "dp-cd", [{**c, "seed": 3} for c in configurations], lockstep=False))
    together = list(privcd.fit_many(problem, "dp-cd", [{**c, "seed": 3} for c in configurations]))
    assert all(np.array_equal(a.w, b.w) for a, b in zip(runs, together))
    assert len(tuned) == len(final)


def test_timed_runs_time_the_best_configuration_of_each_number_of_passes():
    problem = make_problem("squared", "l1", 0.1)
    configurations = [{"epsilon": 1.0, "delta": 1e-5, "passes": passes, "step": step, "clip": 1.0}
                      for passes in (1, 3) for step in (0.05, 0.9)]
    common = dict(base_seed=1, paper="p", problem_name="q", label="dp-cd")
    tuning = run_chunk(problem, "dp-cd", configurations, repetitions=2, stage="tune", **common)
    tuning["metric_relative_error"] = 0.0
    timing = timed_runs(problem, "dp-cd", tuning, repetitions=3, **common)
    assert list(timing.columns) == list(TIMING_COLUMNS) and len(timing) == 6
    best = select_best(tuning, by=["param_passes"]).set_index("param_passes")["configuration"]
    for passes, group in timing.groupby("param_passes"):
        assert set(group["configuration"]) == {best[passes]} and sorted(group["run"]) == [0, 1, 2]
    assert (timing["seconds"] > 0).all()
