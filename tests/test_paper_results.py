"""The papers' own tables: quasi-sparsity (dp-gcd Figure 2), support recovery (Table 3), selected
hyperparameters (Table 4), dataset sizes (Table 1), best per number of passes (dp-cd Tables 2, 3),
and the final iterates they are computed from."""
import json
import numpy as np
import pandas as pd
import pytest

from privcd.results.dataset_sizes import dataset_sizes
from privcd.results.hyperparameters import hyperparameter_table, loss_label
from privcd.tuning.iterates import final_iterates
from privcd.results.per_passes import best_per_passes, mean_times
from privcd.results.quasi_sparsity import quasi_sparsity_alpha, solution_histograms
from privcd.results.support import support_counts, support_recovery, support_table
from privcd.tuning import expand, run_chunk
from tests.conftest import make_problem


def test_alpha_is_the_sixth_largest_magnitude_for_tau_5():
    w = np.array([0.0, -7.0, 1.0, 0.5, 3.0, -2.0, 0.25, 6.0, -0.1])
    alpha = quasi_sparsity_alpha(w, tau=5)
    assert alpha == 0.5 and np.count_nonzero(np.abs(w) > alpha) == 5
    assert np.count_nonzero(np.abs(w) > quasi_sparsity_alpha(w, tau=2)) == 2
    assert quasi_sparsity_alpha(w[:4], tau=5) == 0.0
    with pytest.raises(ValueError, match="tau=-1"):
        quasi_sparsity_alpha(w, tau=-1)


def test_histograms_count_every_coordinate_once_per_problem():
    rng = np.random.default_rng(0)
    solutions = {"b": rng.lognormal(size=50) * (rng.random(50) < 0.3), "a": np.zeros(7)}
    bins = solution_histograms(solutions, bins=10)
    assert list(dict.fromkeys(bins["problem"])) == ["b", "a"]
    assert bins.groupby("problem", sort=False)["count"].sum().tolist() == [50, 7]
    b = bins[bins["problem"] == "b"]
    assert b["right"].max() == pytest.approx(np.abs(solutions["b"]).max())
    assert b["alpha"].iloc[0] == quasi_sparsity_alpha(solutions["b"]) and b["nonzeros"].iloc[0] == np.count_nonzero(solutions["b"])
    with pytest.raises(ValueError, match="bins=0"):
        solution_histograms(solutions, bins=0)


def test_support_counts_split_non_zeros_by_the_optimums_support():
    w_star = np.array([1.0, 0.0, -2.0, 0.0, 0.0])
    assert support_counts(np.array([0.5, 0.1, 0.0, 0.0, -3.0]), w_star) == (1, 2)
    assert support_counts(np.zeros(5), w_star) == (0, 0)
    with pytest.raises(ValueError, match="shape"):
        support_counts(np.zeros(4), w_star)


def test_support_table_has_table_3s_rows_and_cells():
    w_star = np.array([1.0, 0.0, 2.0])
    runs = {"w": np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 3.0]]), "objective": np.array([2.0, 3.0])}
    recovery = pd.DataFrame([support_recovery("sq", "dp-gcd", runs, w_star, f_star=2.0),
                             support_recovery("sq", "dp-cd", {"w": np.zeros((1, 3)), "objective": np.array([4.0])},
                                              w_star, f_star=2.0)])
    row = recovery.iloc[0]
    assert (row["correct"], row["incorrect"], row["relative_error"]) == (1.5, 0.5, 0.25)
    assert row["relative_error_std"] == pytest.approx(np.std([0.0, 0.5], ddof=1))
    table = support_table(recovery, {"sq": 2}, titles={"sq": "square"}, legend={"dp-gcd": "DP-GCD"})
    assert list(table.columns) == ["", "square"]
    assert table.iloc[:, 0].tolist() == ["||w*||_0", "DP-GCD", "dp-cd"]
    assert table["square"].tolist() == ["2", "1.5 / 0.5 (0.25)", "0 / 0 (1)"]


def test_hyperparameter_table_groups_rows_by_algorithm_in_the_papers_format():
    selection = lambda passes, clip, step: [{"configuration_params": {"passes": passes, "clip": clip, "step": step}}]
    table = hyperparameter_table([("california", "squared", "l1", "DP-CD", selection(5.0, 20.2, 1.0)),
                                  ("california", "squared", "l1", "DP-GCD", selection(4, 51.8, 1.0)),
                                  ("log1", "logistic", "l2", "DP-CD", selection(10.0, 0.184, 1.0))])
    assert table["Algorithm"].tolist() == ["DP-CD", "DP-CD", "DP-GCD"]
    assert table.iloc[0].tolist() == ["california", "LeastSquares + L1", "DP-CD", "5", "2.02e+01", "1.00e+00"]
    assert table.iloc[1]["Loss"] == "Logistic + L2" and loss_label("squared", None) == "LeastSquares"


def test_dataset_sizes_count_every_part_and_name_a_substitute():
    metas = [{"name": "log1", "parts": {"all": 1000}, "shape": [1000, 100]},
             {"name": "dorothea-valid", "parts": {"all": 350}, "shape": [350, 72113]}]
    table = dataset_sizes(metas, originals=["log1", "dorothea"])
    assert table["dataset"].tolist() == ["log1", "dorothea-valid (instead of dorothea)"]
    assert table["records"].tolist() == [1000, 350] and table["paper records"].tolist() == [1000, 800]
    assert table["paper features"].tolist() == [100, 88119]
    with pytest.raises(ValueError, match="1 originals for 2 datasets"):
        dataset_sizes(metas, originals=["log1"])


def tuning_frame():
    """Two configurations per number of passes; the one with the lower mean objective must be kept."""
    rows = []
    for passes, objectives in {2.0: {"a": [3.0, 3.2], "b": [2.0, 2.4]}, 5.0: {"c": [1.5, 1.5], "d": [1.6, 1.0]}}.items():
        for configuration, values in objectives.items():
            for repetition, objective in enumerate(values):
                rows.append({"paper": "p", "problem": "q", "algorithm": "dp-cd", "configuration": configuration,
                             "params": json.dumps({"id": configuration}), "stage": "tune", "repetition": repetition, "checkpoint": 1,
                             "param_passes": passes, "metric_objective": objective,
                             "metric_relative_error": objective - 1.0, "seconds": 0.1 * passes + repetition})
    return pd.DataFrame(rows)


def test_best_per_passes_summarises_the_best_configuration_of_each_number_of_passes():
    best = best_per_passes(tuning_frame()).set_index("param_passes")
    for passes, (mean, spread) in {2.0: (1.2, 0.4), 5.0: (0.3, 0.6)}.items():
        assert best.loc[passes, "mean"] == pytest.approx(mean)
        assert best.loc[passes, "std"] == pytest.approx(np.std([mean - spread / 2, mean + spread / 2], ddof=1))
        assert best.loc[passes, "runs"] == 2


def test_mean_times_summarises_every_timed_run_and_names_missing_columns():
    timing = pd.DataFrame({"paper": "p", "problem": "q", "algorithm": ["dp-cd"] * 3 + ["dp-sgd"],
                           "param_passes": [2.0, 2.0, 5.0, 2.0], "run": [0, 1, 0, 0], "seconds": [1.0, 3.0, 4.0, 8.0]})
    table = mean_times(timing).set_index(["algorithm", "param_passes"])
    assert table.loc[("dp-cd", 2.0), ["mean", "std", "runs"]].tolist() == [2.0, pytest.approx(2**0.5), 2]
    assert table.loc[("dp-cd", 5.0), ["mean", "std", "runs"]].tolist() == [4.0, 0.0, 1]
    assert table.loc[("dp-sgd", 2.0), "mean"] == 8.0
    with pytest.raises(ValueError, match="seconds"):
        mean_times(timing.drop(columns="seconds"))


@pytest.mark.parametrize("algorithm, options", [("dp-gcd", {"rule": "gs-r"}), ("dp-cd", {}), ("dp-sgd", {})])
def test_final_iterates_reproduce_the_final_runs_bit_for_bit(algorithm, options):
    problem = make_problem("squared", "l1", 1e-3)
    configurations = expand({"epsilon": 10.0, "delta": "1/n^2", "passes": [2], "step": [0.5], "clip": [1.0], **options})
    identity = dict(base_seed=9, repetitions=3, paper="demo", problem_name="q", label=f"{algorithm}-entry", checkpoints=4)
    runs = run_chunk(problem, algorithm, configurations, stage="final", **identity)
    iterates = final_iterates(problem, algorithm, configurations, **identity)
    last = runs[runs["checkpoint"] == runs["checkpoint"].max()].sort_values("repetition")
    assert iterates["w"].shape == (3, problem.n_features) and iterates["repetition"].tolist() == [0, 1, 2]
    np.testing.assert_array_equal(iterates["objective"], last["metric_objective"].to_numpy())
    np.testing.assert_array_equal(iterates["objective"], [problem.objective(w) for w in iterates["w"]])
    assert len({w.tobytes() for w in iterates["w"]}) == 3  # the repetitions differ
