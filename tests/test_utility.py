"""Held-out utility (accuracy, MSE) per checkpoint, validation selection, and the runner's columns."""
import numpy as np
import pandas as pd
import pytest

import privcd
from privcd.results import RUN_TABLE_COLUMNS, select_best
from privcd.results.datafiles import save_dataset
from privcd.results.utility import (UTILITY_COLUMNS, load_held_out, metric_values, selection_score,
                                    utility_columns)
from privcd.tuning import run_chunk


def test_accuracy_and_mse_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0, 1.0])
    W = np.array([[1.0, -1.0], [0.0, 0.0]])
    # w1: scores 1, -1, 0, -1 -> predictions 1, -1, 1, -1: 3 of 4 right; w = 0 predicts +1 everywhere
    np.testing.assert_array_equal(metric_values("accuracy", X, y, W), [0.75, 0.75])
    np.testing.assert_allclose(metric_values("mse", X, y, W), [(0 + 0 + 1 + 4) / 4, (1 + 1 + 1 + 1) / 4])
    with pytest.raises(ValueError, match="'auc'"):
        metric_values("auc", X, y, W)


def test_columns_are_nan_where_they_do_not_apply():
    X, y = np.eye(3), np.array([1.0, -1.0, 1.0])
    snapshots = np.zeros((2, 3))
    columns = utility_columns("hinge", snapshots, {"test": (X, y)})
    assert set(columns) == set(UTILITY_COLUMNS)
    np.testing.assert_array_equal(columns["metric_test_accuracy"], [2 / 3, 2 / 3])
    for name in ("metric_test_mse", "metric_validation_accuracy", "metric_validation_mse"):
        assert np.isnan(columns[name]).all()
    assert np.isnan(utility_columns("squared", snapshots, None)["metric_test_mse"]).all()
    with pytest.raises(ValueError, match="'train'"):
        utility_columns("squared", snapshots, {"train": (X, y)})


def test_selection_score_prefers_high_accuracy_and_low_mse():
    frame = pd.DataFrame({"problem": ["a", "a", "b", "b"],
                          "metric_validation_accuracy": [0.9, 0.8, np.nan, np.nan],
                          "metric_validation_mse": [np.nan, np.nan, 2.0, 1.0]})
    np.testing.assert_array_equal(selection_score(frame, {"a": "logistic", "b": "squared"}), [-0.9, -0.8, 2.0, 1.0])
    with pytest.raises(ValueError, match="'b' has no validation accuracy"):
        selection_score(frame, {"a": "logistic", "b": "hinge"})


def tidy(objectives, accuracies):
    """Two configurations x two runs, one checkpoint each."""
    rows = []
    for configuration, (objective, accuracy) in enumerate(zip(objectives, accuracies)):
        for repetition in range(2):
            rows.append({"paper": "p", "problem": "a", "algorithm": "x", "configuration": f"c{configuration}",
                         "stage": "tune", "repetition": repetition, "checkpoint": 0, "params": "{}",
                         "metric_objective": objective, "metric_validation_accuracy": accuracy})
    return pd.DataFrame(rows)


def test_select_best_on_the_validation_score_can_differ_from_the_objective():
    frame = tidy(objectives=[1.0, 2.0], accuracies=[0.6, 0.9])
    assert select_best(frame)["configuration"].item() == "c0"
    best = select_best(frame, score=selection_score(frame, {"a": "logistic"}))
    assert best["configuration"].item() == "c1"
    assert best["mean_score"].item() == pytest.approx(-0.9)
    assert best["mean_objective"].item() == 2.0


def test_run_chunk_records_held_out_utility_at_every_checkpoint(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    problem = privcd.Problem(X[:80], y[:80], "hinge", "l2", 1e-2)
    held_out = {"validation": (X[80:100], y[80:100]), "test": (X[100:], y[100:])}
    configuration = {"epsilon": 1.0, "delta": 1e-3, "passes": 2, "step": 1.0, "clip": 0.5, "batch_size": 10}
    frame = run_chunk(problem, "dp-scd", [configuration], base_seed=0, repetitions=2, held_out=held_out)
    assert list(frame.columns) == list(RUN_TABLE_COLUMNS)
    for repetition, rows in frame.groupby("repetition"):
        run = privcd.fit(problem, "dp-scd", seed=int(rows["seed"].iloc[0]), **configuration)
        np.testing.assert_array_equal(rows["metric_test_accuracy"], metric_values("accuracy", *held_out["test"], run.snapshots))
        np.testing.assert_array_equal(rows["metric_validation_accuracy"],
                                      metric_values("accuracy", *held_out["validation"], run.snapshots))
        assert rows["metric_test_mse"].isna().all()


def test_held_out_parts_round_trip_through_the_data_file(tmp_path):
    dataset = privcd.load_dataset("log1", preprocessing="raw")
    save_dataset(dataset, tmp_path / "d.npz", tmp_path / "d.json")
    assert load_held_out(tmp_path / "d.npz") == {}


def test_an_algorithm_entry_overrides_the_papers_privacy():
    """dp-scd's non-private SCD and SGD reference lines: entries with epsilon = inf."""
    from privcd.tuning import Experiment
    grid = {"passes": 1, "step": 1.0, "clip": 1.0}
    config = {"base_seed": 0, "chunk_size": 10, "unavailable": "skip", "substitutes": {},
              "papers": {"p": {"privacy": {"epsilon": [0.1, 1.0], "delta": 1e-3}, "runs": {"tune": 1, "final": 1},
                               "select_by": ["epsilon"], "select_metric": "validation",
                               "problems": {"a": {"dataset": "log1", "preprocessing": "raw", "loss": "logistic",
                                                  "penalty": "l2", "lam": 0.1}},
                               "algorithms": {"dp-sgd": {"grid": grid},
                                              "sgd": {"algorithm": "dp-sgd", "privacy": {"epsilon": float("inf")},
                                                      "grid": {**grid, "clip": float("inf")}}}}}}
    experiment = Experiment(config)
    private, reference = experiment.study("p", "a", "dp-sgd"), experiment.study("p", "a", "sgd")
    assert sorted(c["epsilon"] for c in private.configurations) == [0.1, 1.0]
    assert [c["epsilon"] for c in reference.configurations] == [float("inf")]
    assert reference.select_metric == "validation" and experiment.select_metric("p") == "validation"
