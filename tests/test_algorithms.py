"""Generic tests every registered algorithm must pass (adding an algorithm adds it here)."""
import math
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import privcd
from privcd.algorithms import ALGORITHMS
from privcd.fit import prepare
from privcd.losses import LOSSES
from conftest import make_problem

ALGORITHM_NAMES = sorted(ALGORITHMS)
# Problems an algorithm needs that the default (logistic + L2) does not suit:
# name -> (loss, penalty, lam, options[, keyword arguments of make_problem]).
CASES = {
    "dp-scd": ("hinge", "l2", 0.01, {"batch_size": 10}, {"unit_rows": True}),
    "seqdp-scd": ("squared", "l2", 0.01, {"batch_size": 10}, {"unit_rows": True}),
}
HYPER = dict(passes=2, step=0.5, clip=1.0)


def case(name, sparse=False):
    entry = CASES.get(name, ("logistic", "l2", 0.01, {}))
    loss, penalty, lam, options = entry[:4]
    problem_options = entry[4] if len(entry) > 4 else {}
    return make_problem(loss, penalty, lam, sparse=sparse, **problem_options), options


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_same_seed_same_bits_and_other_seed_differs(name):
    problem, options = case(name)
    first = privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=7, **HYPER, **options)
    again = privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=7, **HYPER, **options)
    other = privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=8, **HYPER, **options)
    assert np.array_equal(first.w, again.w)
    assert first.history["objective"].equals(again.history["objective"])
    assert not np.array_equal(first.w, other.w)


def _array_sizes(values):
    """Sizes of the numpy arrays among ``values``, also inside the fields of dataclasses."""
    sizes = []
    for value in values:
        if isinstance(value, np.ndarray):
            sizes.append(value.size)
        elif dataclasses.is_dataclass(value):
            sizes += _array_sizes(vars(value).values())
    return sizes


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_a_plan_holds_no_array_of_the_problems_size(name):
    """A tuning chunk plans all its runs (thousands) before running them (``privcd.fit_many``): a
    plan holding per-coordinate arrays took 11.7 GB for a DP-GCD chunk on dorothea (p = 72,113).
    Plans hold scalars; the runs build their arrays when they start."""
    entry = CASES.get(name, ("logistic", "l2", 0.01, {}))
    loss, penalty, lam, options = entry[:4]
    problem = make_problem(loss, penalty, lam, n=60, p=500, **(entry[4] if len(entry) > 4 else {}))
    *_, plan = prepare(problem, name, epsilon=1.0, delta=1e-5, **HYPER, **options)
    sizes = _array_sizes([*plan.kernel.values(), *plan.info.values()])
    assert all(size < problem.n_samples for size in sizes), sizes
    run = privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=0, **HYPER, **options)
    assert np.all(np.isfinite(run.w))


@pytest.mark.slow
@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_same_bits_in_another_process(name):
    problem, options = case(name)
    run = privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=3, **HYPER, **options)
    script = (
        "import sys, numpy as np, privcd; sys.path.insert(0, 'tests'); from test_algorithms import case, HYPER\n"
        f"problem, options = case({name!r})\n"
        f"run = privcd.fit(problem, {name!r}, epsilon=1.0, delta=1e-5, seed=3, **HYPER, **options)\n"
        "sys.stdout.write(run.w.tobytes().hex())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=str(Path(__file__).parents[1]))
    assert out.stdout == run.w.tobytes().hex()


_COLD_AND_WARM_SCRIPT = """
import json, sys, privcd
sys.path.insert(0, 'tests')
from conftest import make_problem
from test_algorithms import ALGORITHM_NAMES, CASES, HYPER, case
bits = {}
for name in ALGORITHM_NAMES:
    # SIMD loops run whole vectors only from 16 entries on: long columns and long rows; and
    # enough rows for the sums' row blocks (kernels/partial_sums.py), summed on numba's threads
    shapes = ((500, 15), (60, 300), (8200, 3))
    problems = [case(name)] if name in CASES else [(make_problem(loss, 'l1', 0.01, n=n, p=p), {})
                                                   for loss in ('logistic', 'squared') for n, p in shapes]
    for problem, options in problems:
        run = privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=3, **HYPER, **options)
        bits[f'{name} {problem.loss.name} {problem.X.shape}'] = run.w.tobytes().hex()
sys.stdout.write(json.dumps(bits))
"""


@pytest.mark.slow
def test_same_bits_from_a_cold_and_a_warm_numba_cache(tmp_path):
    """Every algorithm, compiled in one process and loaded from numba's disk cache in the next,
    gives the same bits. A fast-math (``reassoc``) sum broke this: LLVM re-optimised its linked
    copy inside each caller's module, and DP-CD's dense squared-loss runs differed in the last bits
    between a cold and a warm cache (kernels/partial_sums.py fixes the order in the source). And
    every kernel is cached: ``numba.get_num_threads()`` inside DP-CD's kernel made numba refuse to
    cache it ("dynamic globals"), and every process compiled it again (24 s)."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    cold, warm = (subprocess.run([sys.executable, "-c", _COLD_AND_WARM_SCRIPT], cwd=root, env=env,
                                 capture_output=True, text=True) for _ in range(2))
    assert (cold.returncode, warm.returncode) == (0, 0), (cold.stderr[-2000:], warm.stderr[-2000:])
    assert "Cannot cache" not in cold.stderr + warm.stderr, cold.stderr[-2000:]
    cold_bits, warm_bits = json.loads(cold.stdout), json.loads(warm.stdout)
    assert len(cold_bits) >= len(ALGORITHM_NAMES)
    assert {key for key in cold_bits if cold_bits[key] != warm_bits[key]} == set()


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_dense_and_sparse_give_the_same_numbers(name):
    """Same seed, same numbers: equal up to the summation order of the SIMD dense row dot products
    (kernels/rows.py, DP-SGD and DP-SCD), i.e. to rounding, for the same random path; the
    coordinate methods' sums have one order for both (kernels/partial_sums.py)."""
    dense, options = case(name)
    sparse = privcd.Problem(sp.csr_matrix(dense.X), dense.y, dense.loss.name, dense.penalty.name, dense.lam)
    a = privcd.fit(dense, name, epsilon=1.0, delta=1e-5, seed=5, **HYPER, **options)
    b = privcd.fit(sparse, name, epsilon=1.0, delta=1e-5, seed=5, **HYPER, **options)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.history["objective"], b.history["objective"], rtol=1e-9)


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_every_registered_loss_descends_or_is_refused_by_name(name, loss):
    """Each algorithm takes every registered loss (adding a loss adds it here) or refuses it with an
    error that names it; a loss it takes descends from w = 0 without noise, dense and sparse alike."""
    options = CASES.get(name, ("logistic", "l2", 0.01, {}))[3]
    problems = [make_problem(loss, "l2", 0.01, unit_rows=True, sparse=sparse) for sparse in (False, True)]
    try:
        runs = [privcd.fit(problem, name, epsilon=math.inf, seed=0, passes=3, step=0.1, clip=10.0, **options)
                for problem in problems]
    except ValueError as error:
        assert repr(loss) in str(error) or f"loss={loss}" in str(error), str(error)
        return
    for problem, run in zip(problems, runs):
        assert problem.objective(run.w) < problem.objective(np.zeros(problem.n_features))
    np.testing.assert_allclose(runs[0].w, runs[1].w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_run_record(name):
    problem, options = case(name)
    run = privcd.fit(problem, name, epsilon=0.5, delta=1e-6, seed=0, **HYPER, **options)
    assert 0 < run.epsilon <= 0.5
    assert run.delta == 1e-6
    assert run.noise_multiplier > 0
    assert run.accountant
    history = run.history
    assert list(history.columns[:4]) == ["iteration", "passes", "seconds", "objective"]
    assert history["iteration"].iloc[0] == 0
    assert history["objective"].iloc[0] == pytest.approx(problem.objective(np.zeros(problem.n_features)))
    assert history["objective"].iloc[-1] == problem.objective(run.w)
    assert history["passes"].iloc[-1] == pytest.approx(HYPER["passes"], rel=0.05)
    assert np.all(np.diff(history["iteration"]) > 0)
    assert run.seconds > 0


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_no_noise_when_epsilon_is_infinite(name):
    problem, options = case(name)
    run = privcd.fit(problem, name, epsilon=float("inf"), seed=0, passes=2, step=0.5, clip=float("inf"), **options)
    assert run.noise_multiplier == 0 and run.epsilon == float("inf")
    assert run.objective < problem.objective(np.zeros(problem.n_features))


BAD_ARGUMENTS = [
    (dict(epsilon=0.0), "epsilon=0.0"),
    (dict(epsilon=-1.0), "epsilon=-1.0"),
    (dict(epsilon=float("nan")), "epsilon=nan"),
    (dict(delta=0.0), "delta=0.0"),
    (dict(delta=1.0), "delta=1.0"),
    (dict(delta=None), "delta is required"),
    (dict(passes=0), "passes=0"),
    (dict(passes=-2.0), "passes=-2.0"),
    (dict(step=0.0), "step=0.0"),
    (dict(step=float("inf")), "step=inf"),
    (dict(clip=-1.0), "clip=-1.0"),
    (dict(clip=float("inf")), "clip=inf with epsilon=1.0"),
    (dict(seed=-1), "seed=-1"),
    (dict(seed=1.5), "seed=1.5"),
    (dict(no_such_option=3), r"unknown option\(s\) \['no_such_option'\]"),
]


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
@pytest.mark.parametrize("override,match", BAD_ARGUMENTS, ids=[m for _, m in BAD_ARGUMENTS])
def test_bad_arguments_are_named_before_any_kernel_runs(name, override, match, monkeypatch):
    problem, options = case(name)
    module = ALGORITHMS[name]

    def kernel_must_not_run(*args, **kwargs):
        raise AssertionError("the kernel ran before the arguments were checked")

    monkeypatch.setattr(module, "run", kernel_must_not_run)
    arguments = dict(epsilon=1.0, delta=1e-5, seed=0, **HYPER, **options)
    arguments.update(override)
    with pytest.raises(ValueError, match=match):
        privcd.fit(problem, name, **arguments)


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_joint_release_is_declared_truly_and_equals_one_run_of_k_times_the_passes(name):
    """``JOINT_RELEASE`` says whether a plan calibrates through ``calibrations``; when it does, one of
    3 runs released together is calibrated as one run of 3 times the passes (the composition of
    independent runs of one mechanism family is the family with 3 times its steps)."""
    problem, options = case(name)
    release = privcd.privacy.JointRelease(3)
    *_, joint = prepare(problem, name, epsilon=1.0, delta=1e-5, calibrations=release, **HYPER, **options)
    assert (release.consulted > 0) == ALGORITHMS[name].JOINT_RELEASE
    if ALGORITHMS[name].JOINT_RELEASE:
        *_, longer = prepare(problem, name, epsilon=1.0, delta=1e-5, **{**HYPER, "passes": 3 * HYPER["passes"]},
                             **options)
        *_, single = prepare(problem, name, epsilon=1.0, delta=1e-5, **HYPER, **options)
        assert joint.calibration.noise_multiplier == longer.calibration.noise_multiplier
        assert joint.calibration.epsilon == longer.calibration.epsilon
        assert joint.calibration.noise_multiplier > single.calibration.noise_multiplier


def test_unknown_algorithm_is_named():
    problem, _ = case("dp-cd")
    with pytest.raises(ValueError, match="algorithm='dp-xyz'.*expected one of"):
        privcd.fit(problem, "dp-xyz", epsilon=1.0, delta=1e-5, **HYPER)


def test_problem_must_be_a_problem():
    with pytest.raises(ValueError, match="problem must be a privcd.Problem"):
        privcd.fit(np.eye(3), "dp-cd", epsilon=1.0, delta=1e-5, **HYPER)


# A value no option accepts: a string where numbers and choices are expected, a negative where counts are.
BAD_OPTION_VALUES = {"checkpoints": 0, "batch_size": 0, "tau": -1, "inner_iterations": 0, "box": 0.7,
                     "smoothness_budget": 1.5, "row_norm_bound": -1.0}


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_every_option_value_is_checked_without_data(name, monkeypatch):
    """Each module's check_options names a bad value of each of its options (the workflow's config
    reader runs it on every grid value, so `snakemake -n` names it), and fit runs it before the plan."""
    module = ALGORITHMS[name]
    problem, options = case(name)

    def plan_must_not_run(*args, **kwargs):
        raise AssertionError("the plan ran before the options were checked")

    monkeypatch.setattr(module, "plan", plan_must_not_run)
    for option in module.OPTIONS:
        if option == "probabilities":  # checked against p by the plan (dp-skgd's importance sketch)
            continue
        bad = BAD_OPTION_VALUES.get(option, "no-such-value")
        with pytest.raises(ValueError, match=f"{option}={bad!r}"):
            module.check_options({**module.OPTIONS, option: bad})
        with pytest.raises(ValueError, match=f"{option}={bad!r}"):
            privcd.fit(problem, name, epsilon=1.0, delta=1e-5, seed=0, **HYPER, **{**options, option: bad})


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_the_noise_key_controls_the_noise_and_not_the_claim(name):
    """``NOISE_KEY`` is what the kernel's noise scales with (privcd.audit's mutants): plans with their
    noise scaled by 1e-9 and by 1e-12 run alike (the same draws, almost no noise) and far from the
    plan itself, and the calibration (the claim) is unchanged."""
    from privcd.algorithms.base import with_noise_factor
    from privcd.fit import prepare
    problem, options = case(name)
    module, _, _, plan = prepare(problem, name, epsilon=1.0, delta=1e-5, **HYPER, **options)
    quiet, quieter = (with_noise_factor(module, plan, factor) for factor in (1e-9, 1e-12))
    assert quiet.calibration == quieter.calibration == plan.calibration
    w_quiet, w_quieter, w_noisy = (module.run(problem, p, 3)[0] for p in (quiet, quieter, plan))
    assert np.allclose(w_quiet, w_quieter, rtol=0, atol=1e-6)
    assert not np.allclose(w_noisy, w_quieter, rtol=0, atol=1e-3)


@pytest.mark.parametrize("name", ALGORITHM_NAMES)
def test_every_algorithm_module_satisfies_the_contract(name):
    """The typed contract (privcd.algorithms.contract.AlgorithmModule): every member the library
    reads is there, and the estimators' hook returns options the module accepts."""
    from privcd.algorithms.contract import AlgorithmModule
    module = ALGORITHMS[name]
    assert isinstance(module, AlgorithmModule)
    assert module.ESTIMATOR_CLIP in ("worst-case", "start") or module.ESTIMATOR_CLIP > 0
    options = module.estimator_options(500, 1.0)
    assert set(options) <= set(module.OPTIONS)
    module.check_options({**module.OPTIONS, **options})
