"""Tidy results: atomic writes, merge on keys, best-configuration selection, relative error,
and the workflow's dataset files."""
import json
import os

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from privcd.identity import configuration_id, tie_order_id
from privcd.results import (KEY_COLUMNS, final_checkpoints, merge, relative_error, select_best,
                            with_relative_error, write_parquet)
from privcd.results.datafiles import load_arrays, load_problem, save_dataset
from privcd.results.io import _atomic


def runs(objectives, *, algorithm="dp-cd", passes=1.0, checkpoints=2, extra_params=None):
    """Rows of tuning runs: objectives[config] is the list of final objectives of its repetitions;
    a configuration's params are ``{"id": config, **extra_params}``."""
    rows = []
    for configuration, finals in objectives.items():
        for repetition, final in enumerate(finals):
            for checkpoint in range(checkpoints):
                rows.append({"paper": "p", "problem": "q", "algorithm": algorithm,
                             "configuration": configuration, "stage": "tune", "repetition": repetition,
                             "checkpoint": checkpoint,
                             "params": json.dumps({"id": configuration, **(extra_params or {})}),
                             "param_passes": passes,
                             "metric_objective": final if checkpoint == checkpoints - 1 else 100.0})
    return pd.DataFrame(rows)


def test_write_parquet_is_atomic(tmp_path):
    path = tmp_path / "sub" / "table.parquet"
    frame = pd.DataFrame({"a": [1, 2]})
    write_parquet(frame, path)
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)

    def failing(temporary):
        with open(temporary, "wb") as handle:
            handle.write(b"half a file")
        raise KeyboardInterrupt  # killed mid-write

    with pytest.raises(KeyboardInterrupt):
        _atomic(path, failing)
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)  # old content intact
    assert os.listdir(path.parent) == ["table.parquet"]  # no temporary left behind


def test_merge_keeps_the_last_row_per_key_and_sorts():
    old = runs({"b": [3.0], "a": [2.0]})
    new = runs({"a": [1.0]})
    merged = merge([old, new])
    assert len(merged) == 4
    final = merged[merged["checkpoint"] == 1].set_index("configuration")["metric_objective"]
    assert final.to_dict() == {"a": 1.0, "b": 3.0}
    assert merged[list(KEY_COLUMNS)].equals(merged[list(KEY_COLUMNS)].sort_values(list(KEY_COLUMNS)))


def test_select_best_takes_the_lowest_mean_final_objective():
    frame = runs({"x": [1.0, 3.0], "y": [1.5, 1.6], "z": [0.1, np.inf], "w": [np.nan, 0.1]})
    best = select_best(frame)
    assert best["configuration"].tolist() == ["y"]
    assert best["mean_objective"].iloc[0] == pytest.approx(1.55)
    assert best["runs"].iloc[0] == 2 and best["candidates"].iloc[0] == 4


def test_select_best_breaks_ties_by_id_whatever_the_row_order_and_groups_by_parameters():
    tied = min("ab", key=lambda name: tie_order_id({"id": name}))
    frame = pd.concat([runs({"b": [1.0], "a": [1.0]}, passes=1.0), runs({"c": [5.0], "d": [4.0]}, passes=2.0)])
    best = select_best(frame.iloc[::-1], by=["param_passes"])
    assert best.set_index("param_passes")["configuration"].to_dict() == {1.0: tied, 2.0: "d"}
    assert select_best(frame, by=["param_passes"]).equals(best)


def test_select_best_ties_do_not_depend_on_a_named_accountant():
    """Naming the paper's accountant in a config (new configuration ids) keeps the winner of a tie."""
    names = [f"config-{k}" for k in range(12)]
    plain = select_best(runs({name: [1.0] for name in names}))
    named = select_best(runs({name: [1.0] for name in names}, extra_params={"accountant": "rdp"}))
    assert plain["configuration"].tolist() == named["configuration"].tolist()
    ids = {name: configuration_id({"id": name, "accountant": "rdp"}) for name in names}
    assert min(ids, key=ids.get) != named["configuration"].iloc[0]  # the full ids would pick another


def test_final_checkpoints_keep_the_last_row_of_each_run():
    frame = runs({"a": [1.0, 2.0]}, checkpoints=4)
    last = final_checkpoints(frame)
    assert last["checkpoint"].tolist() == [3, 3] and last["metric_objective"].tolist() == [1.0, 2.0]


def test_relative_error_is_f_minus_fstar_over_fstar():
    np.testing.assert_allclose(relative_error([2.0, 1.5, 1.0], 1.0), [1.0, 0.5, 0.0])
    with pytest.raises(ValueError, match="F\\* > 0"):
        relative_error([1.0], 0.0)
    frame = runs({"a": [2.0]})
    joined = with_relative_error(frame, pd.DataFrame({"paper": ["p"], "problem": ["q"], "f_star": [0.5]}))
    assert joined["metric_relative_error"].tolist() == [199.0, 3.0]
    with pytest.raises(ValueError, match="no optimum"):
        with_relative_error(frame, pd.DataFrame({"paper": ["p"], "problem": ["other"], "f_star": [0.5]}))


class FakeMeta:
    def to_dict(self):
        return {"name": "toy", "shape": [3, 2]}


class FakeSplit:
    def __init__(self, X, y):
        self.X, self.y = X, y


class FakeDataset:
    def __init__(self, X, y, validation=None, test=None):
        self.X, self.y, self.validation, self.test = X, y, validation, test
        self.meta, self.feature_names = FakeMeta(), ("u", "v")


@pytest.mark.parametrize("sparse", [False, True])
def test_dataset_files_round_trip(tmp_path, sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    X[X < 0] = 0.0
    y = np.where(rng.normal(size=6) > 0, 1.0, -1.0)
    held = FakeSplit(sp.csr_matrix(X[:2]) if sparse else X[:2], y[:2])
    dataset = FakeDataset(sp.csr_matrix(X) if sparse else X, y, validation=held)
    save_dataset(dataset, tmp_path / "d.npz", tmp_path / "d.json")
    X_back, y_back = load_arrays(tmp_path / "d.npz")
    assert sp.issparse(X_back) == sparse
    np.testing.assert_array_equal(X_back.toarray() if sparse else X_back, X)
    np.testing.assert_array_equal(y_back, y)
    X_val, _ = load_arrays(tmp_path / "d.npz", "validation")
    assert X_val.shape == (2, 3)
    with pytest.raises(ValueError, match="no 'test' part"):
        load_arrays(tmp_path / "d.npz", "test")
    assert json.loads((tmp_path / "d.json").read_text())["feature_names"] == ["u", "v"]

    class Spec:
        loss, penalty, lam = "logistic", "l2", 0.1

    problem = load_problem(tmp_path / "d.npz", Spec)
    assert problem.n_samples == 6 and problem.n_features == 3
