"""DP-SGD: descent without noise, sampling, clipping sensitivity, noise scale."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import privcd
from privcd.algorithms import dp_sgd
from privcd.algorithms.base import Settings, kernel_key
from privcd.kernels.dp_sgd import SAMPLE_POISSON, SAMPLE_WITHOUT_REPLACEMENT, clipped_derivative, draw_batch
from numpy_reference import dp_sgd as numpy_dp_sgd
from numpy_reference.draws import NumpyDraws
from conftest import make_problem

INF = float("inf")


@pytest.mark.parametrize("loss,penalty", [("logistic", "l2"), ("squared", "l1")])
def test_noise_free_full_batch_decreases_the_objective_monotonically(loss, penalty):
    """Full-batch proximal gradient with step 1 / beta is a descent method."""
    problem = make_problem(loss, penalty, 0.05)
    run = privcd.fit(problem, "dp-sgd", epsilon=INF, passes=30, step=1.0, clip=INF, seed=0,
                     batch_size=problem.n_samples, checkpoints=30)
    objective = run.history["objective"].to_numpy()
    assert np.all(np.diff(objective) <= 1e-12 * abs(objective[:-1]))
    assert objective[-1] < 0.9 * objective[0]


@pytest.mark.parametrize("loss,penalty", [("logistic", "l2"), ("squared", "l1")])
def test_noise_free_batch_one_decreases_the_objective(loss, penalty):
    problem = make_problem(loss, penalty, 0.05)
    run = privcd.fit(problem, "dp-sgd", epsilon=INF, passes=10, step=0.05, clip=INF, seed=0)
    objective = run.history["objective"].to_numpy()
    assert objective[-1] < 0.5 * objective[0]
    assert np.mean(np.diff(objective) < 0) >= 0.7


def test_sampling_without_replacement_is_uniform_and_distinct():
    n, b, steps = 20, 5, 4000
    order = np.arange(n)
    batch = np.empty(b, dtype=np.int64)
    counts = np.zeros(n)
    key, position = kernel_key(0), 0
    for _ in range(steps):
        count, after = draw_batch(SAMPLE_WITHOUT_REPLACEMENT, b, 0.0, order, batch, key, position)
        assert count == b and after >= position + b
        position = after
        assert len(set(batch.tolist())) == b
        counts[batch] += 1
    expected = steps * b / n
    chi2 = np.sum((counts - expected) ** 2 / expected)
    assert chi2 < 45  # 19 degrees of freedom: P(chi2 > 45) < 1e-3


def test_poisson_sampling_includes_each_record_with_probability_q():
    n, b, steps = 50, 5, 4000
    q = b / n
    batch = np.empty(n, dtype=np.int64)
    counts = np.zeros(n)
    sizes = []
    key, position = kernel_key(0), 0
    for step in range(steps):
        size, after = draw_batch(SAMPLE_POISSON, b, np.log1p(-q), np.arange(n), batch, key, position)
        assert after == position + size + 1  # one uniform per record taken, one for the skip past n
        position = after
        sizes.append(size)
        counts[batch[:size]] += 1
        assert np.all(np.diff(batch[:size]) > 0)
    assert np.mean(sizes) == pytest.approx(b, abs=4 * np.sqrt(n * q * (1 - q) / steps))
    assert np.var(sizes) == pytest.approx(n * q * (1 - q), rel=0.15)
    assert np.abs(counts / steps - q).max() < 5 * np.sqrt(q * (1 - q) / steps)


def test_poisson_sampling_with_q_one_takes_every_record():
    batch = np.empty(7, dtype=np.int64)
    size, _ = draw_batch(SAMPLE_POISSON, 7, -np.inf, np.arange(7), batch, kernel_key(3), 0)
    assert size == 7 and batch.tolist() == list(range(7))


@pytest.mark.parametrize("sampling,batch_size", [("without-replacement", 1), ("without-replacement", 6),
                                                 ("poisson", 6)])
@pytest.mark.parametrize("loss,penalty", [("logistic", "l2"), ("squared", "l1")])
def test_numpy_reference_replays_the_kernels_path(sampling, batch_size, loss, penalty):
    """The plain numpy loop draws the same batches and noise from the numpy twins of the stream,
    so with noise on it agrees with the kernel to rounding, and another seed does not."""
    problem = make_problem(loss, penalty, 0.01)
    settings = Settings(epsilon=1.0, delta=1e-5, passes=3.0, step=0.3, clip=0.5)
    accountant = "pld" if sampling == "poisson" else "rdp"
    plan = dp_sgd.plan(problem, settings, {**dp_sgd.OPTIONS, "batch_size": batch_size, "sampling": sampling,
                                           "accountant": accountant})
    assert plan.kernel["noise_std"] > 0.1
    w, _ = dp_sgd.run(problem, plan, 5)
    np.testing.assert_allclose(numpy_dp_sgd.run(problem, plan, 5), w, rtol=1e-9, atol=1e-12)
    assert np.abs(numpy_dp_sgd.run(problem, plan, 6) - w).max() > 1e-3


def test_numpy_reference_with_numpys_generator_is_the_same_algorithm():
    """The benchmarks time the reference on numpy's own Generator: with every record in the batch
    and no noise the draws do not matter, so it must give the stream replay's iterate; with noise
    it must not (the draws are its own)."""
    problem = make_problem("logistic", "l2", 0.01)
    for epsilon, agree in ((float("inf"), True), (1.0, False)):
        settings = Settings(epsilon=epsilon, delta=1e-5, passes=4.0, step=0.3, clip=0.5)
        plan = dp_sgd.plan(problem, settings, {**dp_sgd.OPTIONS, "batch_size": problem.n_samples})
        replay = numpy_dp_sgd.run(problem, plan, 5)
        own = numpy_dp_sgd.run(problem, plan, 5, draws=NumpyDraws)
        assert np.allclose(own, replay, rtol=1e-12, atol=1e-14) == agree


def test_clipped_gradient_sum_has_the_claimed_sensitivity():
    """Replacing one record of a batch changes the clipped gradient sum by at most 2C; the bound is
    attained when the replacement's gradient points the other way (x' = -x, same label)."""
    rng = np.random.default_rng(0)
    problem = make_problem("logistic", None, 0.0)
    p = problem.n_features
    clip = 0.05
    ratios = []
    for trial in range(40):
        w = rng.normal(size=p)
        i = int(rng.integers(problem.n_samples))
        X = problem.X.copy()
        y = problem.y.copy()
        if trial % 2:
            X[i] = -X[i]
        else:
            X[i] = rng.normal(size=p) * 100
            y[i] = -y[i]
        neighbour = privcd.Problem(X, y, "logistic")
        sums = []
        for prob in (problem, neighbour):
            gradient = np.zeros(p)
            for k in (i, (i + 1) % prob.n_samples):
                x_k = prob.X[k]
                gradient += clipped_derivative(prob.loss.code, x_k @ w, prob.y[k], prob.row_norms[k], clip) * x_k
            sums.append(gradient)
        ratios.append(np.linalg.norm(sums[0] - sums[1]) / (2 * clip))
    assert max(ratios) <= 1 + 1e-12
    assert max(ratios[1::2]) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
def test_injected_noise_has_the_calibrated_scale(accountant):
    """With y = 0 and w = 0 the squared loss has zero gradient, so one step moves w by -(gamma / b) noise."""
    rng = np.random.default_rng(1)
    n, p, b = 400, 30, 4
    problem = privcd.Problem(rng.normal(size=(n, p)), np.zeros(n), "squared")
    draws = []
    for seed in range(60):
        run = privcd.fit(problem, "dp-sgd", epsilon=2.0, delta=1e-5, passes=b / n, step=0.5, clip=1.5,
                         seed=seed, batch_size=b, accountant=accountant)
        draws.append(-run.w * b / run.info["step_size"])
    sample = np.concatenate(draws)
    expected = run.info["noise_std"]
    from privcd.privacy import subsampled_gaussian_sensitivity
    assert expected == pytest.approx(run.noise_multiplier * subsampled_gaussian_sensitivity(1.5, run.info["sampling"]))
    assert abs(sample.std(ddof=1) / expected - 1) < 4 / np.sqrt(2 * len(sample))
    assert abs(sample.mean()) < 4 * expected / np.sqrt(len(sample))


def test_batch_size_larger_than_n_is_named():
    problem = make_problem("logistic", "l2", 0.01)
    with pytest.raises(ValueError, match=f"batch_size=1000 exceeds the number of records n={problem.n_samples}"):
        privcd.fit(problem, "dp-sgd", epsilon=1.0, delta=1e-5, passes=1, step=0.1, clip=1.0, batch_size=1000)


_WARM_CACHE_SCRIPT = """
import sys, numpy as np, privcd
sys.path.insert(0, 'tests')
from conftest import make_problem
if sys.argv[1] == 'draw':  # the parallel draw alone: cached apart from the kernels that call it
    from privcd.kernels.gaussian import fill_standard_normal_parallel
    fill_standard_normal_parallel(np.uint64(1), 0, np.empty((2, 300)))
    sys.exit()
for p in (9, 300):  # normals drawn in one loop; by every thread (fill_standard_normal_parallel)
    problem = make_problem('logistic', 'l1', 0.02, n=50, p=p)
    run = privcd.fit(problem, 'dp-sgd', epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0, seed=3)
    sys.stdout.write(run.w.tobytes().hex())
"""


@pytest.mark.slow
def test_dp_sgd_runs_from_a_warm_numba_cache_in_a_new_process(tmp_path):
    """DP-SGD's solo kernel, not itself parallel, calls the parallel normal draw. With the draw
    cached by one process, the kernel compiled against it by a second and loaded from the cache
    by a third, the third jumped to address 0 (numba starts its threading layer when a parallel
    function's own dispatcher compiles or loads, and the kernel's cache entry did not say so):
    it must run, with the bits of the second."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", _WARM_CACHE_SCRIPT, stage], cwd=root, env=env, capture_output=True,
                           text=True) for stage in ("draw", "fit", "fit")]
    assert [run.returncode for run in runs] == [0, 0, 0], [run.stderr[-2000:] for run in runs]
    assert runs[1].stdout == runs[2].stdout != ""
