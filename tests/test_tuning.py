"""Grids, configuration ids, identity-derived seeds, chunks, symbolic delta, the experiment plan,
and run_chunk (re-chunking changes no number; calibration computed once per privacy setting)."""
import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privcd
from privcd.results.table import UTILITY_COLUMNS
from privcd.tuning import (Experiment, chunk, chunk_count, configuration_id, derive_seed, draws_identity, expand,
                           group_by_privacy, privacy_setting, resolve_delta, run_chunk)
from conftest import make_problem

ROOT = Path(__file__).resolve().parents[1]


# -- grids -------------------------------------------------------------------------------------

def test_expand_is_the_cartesian_product_in_key_order():
    configurations = expand({"passes": [1, 2], "step": [0.1, 1.0, 10.0], "clip": 3.0})
    assert len(configurations) == 6
    assert configurations[0] == {"passes": 1, "step": 0.1, "clip": 3.0}
    assert configurations[1] == {"passes": 1, "step": 1.0, "clip": 3.0}
    assert configurations[-1] == {"passes": 2, "step": 10.0, "clip": 3.0}


def test_logspace_generator_is_numpys_and_tied_parameters_vary_together():
    configurations = expand({"step": {"logspace": [-2, 1, 4]}, "batch_size, passes": [[1, 2], [10, 20]]})
    assert [c["step"] for c in configurations[::2]] == list(np.logspace(-2, 1, 4))
    assert {(c["batch_size"], c["passes"]) for c in configurations} == {(1, 2), (10, 20)}
    assert len(configurations) == 8


@pytest.mark.parametrize("grid, words", [
    ({"step": []}, ["'step'", "empty"]),
    ({"step": {"geomspace": [1, 2, 3]}}, ["'step'", "logspace"]),
    ({"step": {"logspace": [1, 2]}}, ["'step'", "[start, stop, num]"]),
    ({"a, b": [[1, 2], [3]]}, ["'a, b'", "2 values"]),
    ({"a, b": [1, 2]}, ["'a, b'", "2 values"]),
    ({"step": [1], "step ,clip": [[1, 2]]}, ["step", "more than once"]),
    ({"step": [[1, 2]]}, ["'step'", "not a scalar"]),
])
def test_malformed_grids_are_errors_naming_the_key(grid, words):
    with pytest.raises(ValueError) as error:
        expand(grid)
    for word in words:
        assert word in str(error.value)


def test_configuration_id_ignores_key_order_and_separates_contents():
    assert configuration_id({"a": 1, "b": 0.5}) == configuration_id({"b": 0.5, "a": 1})
    assert configuration_id({"a": 1, "b": 0.5}) != configuration_id({"a": 1, "b": 0.25})
    ids = {configuration_id(c) for c in expand({"s": {"logspace": [-3, 3, 50]}, "c": [1, 2, 3]})}
    assert len(ids) == 150


# -- seeds ---------------------------------------------------------------------------------------

def test_seed_depends_on_every_part_of_the_identity_and_on_nothing_else():
    identity = (11, "dp-cd/log1", "dp-cd", "abc123", 0, "tune")
    seed = derive_seed(*identity)
    assert 0 <= seed < 2**32 and seed == derive_seed(*identity)
    for position, other in enumerate((12, "dp-cd/log2", "dp-sgd", "abc124", 1, "final")):
        changed = list(identity)
        changed[position] = other
        assert derive_seed(*changed) != seed


def test_seed_is_the_same_in_another_process():
    code = "from privcd.tuning.seeds import derive_seed; print(derive_seed(5, 'p/q', 'dp-cd', 'x', 3, 'final'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == derive_seed(5, "p/q", "dp-cd", "x", 3, "final")


@pytest.mark.parametrize("arguments, word", [((1.5, "p", "a", "c", 0), "base_seed"),
                                             ((1, "p", "a", "c", -1), "repetition"),
                                             ((1, "p", "a", "c", 0, "warmup"), "stage")])
def test_bad_seed_identity_is_an_error_naming_it(arguments, word):
    with pytest.raises(ValueError, match=word):
        derive_seed(*arguments)


# -- chunks --------------------------------------------------------------------------------------

GRID = {"passes": [1, 2, 3], "step": [0.1, 1.0], "clip": [1.0, 10.0]}


def test_grouping_by_privacy_keeps_settings_adjacent_and_chunks_cover_the_grid():
    configurations = expand({"step": [0.1, 1.0], "passes": [1, 2, 3], "clip": [1.0, 10.0]})
    grouped = group_by_privacy(configurations)
    settings = [privacy_setting(c)["passes"] for c in grouped]
    assert settings == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    for size in (1, 5, 12, 50):
        chunks = [chunk(configurations, index, size) for index in range(chunk_count(12, size))]
        assert [c for part in chunks for c in part] == grouped
    with pytest.raises(ValueError, match="chunk index"):
        chunk(configurations, 3, 5)


# -- delta ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("delta, n, expected", [("1/n^2", 100, 1e-4), ("1/n**2", 20, 1 / 400),
                                                 (" 0.5 / n ", 10, 0.05), ("1e-5", 7, 1e-5),
                                                 (0.001, 3, 0.001)])
def test_symbolic_delta_resolves_with_n(delta, n, expected):
    assert resolve_delta(delta, n) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("delta", ["1/m^2", "n^2", "2/n^0", 1.5, True])
def test_bad_delta_is_an_error_naming_it(delta):
    with pytest.raises(ValueError, match="delta"):
        resolve_delta(delta, 10)


# -- experiment plan ---------------------------------------------------------------------------

def smoke_config(**changes):
    config = {
        "base_seed": 3, "data_mirror": None, "unavailable": "skip", "substitutes": {}, "chunk_size": 3,
        "papers": {"demo": {
            "privacy": {"epsilon": [1.0, 2.0], "delta": "1/n^2"}, "runs": {"tune": 2, "final": 3},
            "select_by": [], "tuning_table_by": ["passes"],
            "problems": {"a": {"dataset": "log1", "preprocessing": "raw", "loss": "logistic",
                               "penalty": "l2", "lam": 0.01},
                         "b": {"dataset": "mtp", "preprocessing": "raw", "loss": "squared",
                               "penalty": "l2", "lam": 0.01, "privacy": {"epsilon": 5.0}},
                         "c": {"dataset": "dorothea", "preprocessing": "raw", "loss": "logistic",
                               "penalty": "l1", "lam": 0.01}},
            "algorithms": {"dp-cd": {"grid": GRID},
                           "sgd-batch": {"algorithm": "dp-sgd", "grid": {**GRID, "batch_size": [1, 4]}}},
        }},
    }
    config.update(changes)
    return config


def test_experiment_expands_studies_with_privacy_in_the_configurations():
    experiment = Experiment(smoke_config())
    assert set(experiment.problems) == {"demo/a", "demo/b", "demo/c"}
    study = experiment.study("demo", "a", "sgd-batch")
    assert study.algorithm == "dp-sgd" and len(study.configurations) == 2 * 12 * 2
    assert {c["epsilon"] for c in study.configurations} == {1.0, 2.0}
    assert {c["delta"] for c in study.configurations} == {"1/n^2"}
    assert experiment.problem("demo", "b").epsilon == (5.0,)
    assert study.n_chunks == 16
    assert [c for index in range(16) for c in study.chunk(index)] == list(study.configurations)


def test_a_mirror_that_is_not_a_directory_is_an_error_before_any_job(tmp_path):
    with pytest.raises(ValueError, match="data_mirror='/nonexistent/mirror' is not a directory"):
        Experiment(smoke_config(data_mirror="/nonexistent/mirror"))


def test_a_mirror_without_the_data_skips_or_substitutes_with_a_note(tmp_path):
    for name in ("dorothea_valid.npz", "dorothea_valid.labels.csv"):
        (tmp_path / name).write_bytes(b"")
    skipping = Experiment(smoke_config(data_mirror=str(tmp_path)))
    assert set(skipping.problems) == {"demo/a"}  # log1 is synthetic: always available
    assert len(skipping.notes) == 2 and all("skipped" in note for note in skipping.notes)
    substituting = Experiment(smoke_config(data_mirror=str(tmp_path), unavailable="substitute",
                                           substitutes={"dorothea": "dorothea-valid"}))
    assert set(substituting.problems) == {"demo/a", "demo/c"}
    assert substituting.problem("demo", "c").dataset == "dorothea-valid"
    assert "dorothea-valid instead of dorothea" in substituting.problem("demo", "c").title
    assert any("substituted" in note for note in substituting.notes)
    assert any("'mtp'" in note and "skipped" in note for note in substituting.notes)


@pytest.mark.parametrize("grid, words", [({"step": [1.0], "clip": [1.0]}, ["lacks", "passes"]),
                                         ({**GRID, "epsilon": [1.0]}, ["privacy block"]),
                                         ({**GRID, "batch_sise": [2]}, ["batch_sise", "options"])])
def test_bad_algorithm_grids_are_errors_naming_the_entry(grid, words):
    config = smoke_config()
    config["papers"]["demo"]["algorithms"]["sgd-batch"]["grid"] = grid
    with pytest.raises(ValueError) as error:
        Experiment(config)
    for word in ["papers.demo.algorithms.sgd-batch.grid"] + words:
        assert word in str(error.value)


@pytest.mark.parametrize("key, values, words", [("passes", [-1, 1], ["grid.passes=-1"]),
                                                ("step", [0.0], ["grid.step=0.0"]),
                                                ("clip", [-1.0], ["grid.clip=-1.0"]),
                                                ("passes", ["two"], ["grid.passes='two'", "real number"]),
                                                ("accountant", ["moments"], ["grid.accountant='moments'", "'pld'"]),
                                                ("sampling", ["bogus"], ["grid: sampling='bogus'"]),
                                                ("batch_size", [4, 0], ["grid: batch_size=0"]),
                                                ("checkpoints", [0], ["grid: checkpoints=0"])])
def test_every_grid_value_is_checked_when_the_config_is_read(key, values, words):
    """issue 24: a bad grid value is an error naming its key at parse time (snakemake -n), not an
    hour into a run when its job is reached."""
    config = smoke_config()
    config["papers"]["demo"]["algorithms"]["sgd-batch"]["grid"] = {**GRID, key: values}
    with pytest.raises(ValueError) as error:
        Experiment(config)
    for word in ["papers.demo.algorithms.sgd-batch"] + words:
        assert word in str(error.value)


@pytest.mark.parametrize("change, words", [({"loss": "hubber"}, ["papers.demo.problems.a", "loss='hubber'"]),
                                           ({"penalty": "l3"}, ["papers.demo.problems.a", "penalty='l3'"]),
                                           ({"dataset": "california", "loss": "logistic"},
                                            ["papers.demo.problems.a", "regression", "'huber', 'squared'"]),
                                           ({"dataset": "california", "loss": "weighted-hinge"},
                                            ["papers.demo.problems.a", "needs class labels"]),
                                           ({"privacy": {"delta": "5/n^0"}}, ["papers.demo.problems.a", "5/n^0"])])
def test_bad_problem_entries_are_errors_naming_them_when_the_config_is_read(change, words):
    config = smoke_config()
    config["papers"]["demo"]["problems"]["a"].update(change)
    with pytest.raises(ValueError) as error:
        Experiment(config)
    for word in words:
        assert word in str(error.value)


def test_an_entry_with_problems_runs_on_those_only_and_unknown_names_are_errors():
    config = smoke_config()
    config["papers"]["demo"]["algorithms"]["sgd-batch"]["problems"] = ["c"]
    experiment = Experiment(config)
    assert {key for key in experiment.studies if key[2] == "sgd-batch"} == {("demo", "c", "sgd-batch")}
    assert {key[1] for key in experiment.studies if key[2] == "dp-cd"} == {"a", "b", "c"}
    config["papers"]["demo"]["algorithms"]["sgd-batch"]["problems"] = ["c", "zz"]
    with pytest.raises(ValueError, match=r"papers.demo.algorithms.sgd-batch.problems: \['zz'\]"):
        Experiment(config)


def test_a_problem_grid_replaces_those_keys_in_its_studies_only():
    config = smoke_config()
    config["papers"]["demo"]["problems"]["b"]["grid"] = {"passes": [50], "batch_size": [7]}
    experiment = Experiment(config)
    before = Experiment(smoke_config())
    passes = {configuration["passes"] for configuration in experiment.study("demo", "b", "dp-cd").configurations}
    assert passes == {50}
    # batch_size replaces a key only where the grid has it (sgd-batch), and is no option of dp-cd
    assert {c["batch_size"] for c in experiment.study("demo", "b", "sgd-batch").configurations} == {7}
    assert "batch_size" not in experiment.study("demo", "b", "dp-cd").configurations[0]
    for problem in ("a", "c"):
        assert experiment.study("demo", problem, "dp-cd").grid_id == before.study("demo", problem, "dp-cd").grid_id
    assert experiment.study("demo", "b", "dp-cd").grid_id != before.study("demo", "b", "dp-cd").grid_id


def test_unknown_algorithm_is_an_error_naming_it():
    config = smoke_config()
    config["papers"]["demo"]["algorithms"]["dp-xx"] = copy.deepcopy(config["papers"]["demo"]["algorithms"]["dp-cd"])
    with pytest.raises(ValueError, match="'dp-xx' is not a known algorithm"):
        Experiment(config)


# -- run_chunk -----------------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["dp-cd", "dp-sgd"])  # one by one; in groups sharing draws
def test_run_chunk_numbers_do_not_depend_on_chunking_or_order_and_calibrate_once_per_setting(algorithm):
    problem = make_problem("logistic", "l2", 0.01)
    configurations = expand({"epsilon": 1.0, "delta": "1/n^2", "passes": [1, 2], "step": [0.1, 1.0],
                             "clip": [0.5, 5.0]})
    kwargs = dict(base_seed=4, repetitions=2, paper="demo", problem_name="a")
    whole = run_chunk(problem, algorithm, configurations, **kwargs)
    parts = [run_chunk(problem, algorithm, configurations[index::3][::-1], **kwargs) for index in range(3)]
    keys = ["configuration", "repetition", "checkpoint"]
    columns = [c for c in whole.columns if c != "seconds"]
    merged = pd.concat(parts).sort_values(keys).reset_index(drop=True)[columns]
    pd.testing.assert_frame_equal(whole.sort_values(keys).reset_index(drop=True)[columns], merged)
    assert len(whole) == 4 * 2 * 2 + 4 * 2 * 3  # one checkpoint per pass, plus the start
    # the held-out utility columns are NaN without held-out parts (tests/test_utility.py)
    assert not whole[[c for c in columns if c not in UTILITY_COLUMNS]].isna().any().any()

    from privcd.privacy.reuse import CalibrationStore
    store = CalibrationStore()
    again = run_chunk(problem, algorithm, configurations, calibrations=store, **kwargs)
    assert store.computed == 2 and store.reused == 8 * 2 - 2  # one calibration per number of passes
    pd.testing.assert_frame_equal(again[columns], whole[columns])


def test_run_chunk_rows_are_the_runs_of_privcd_fit_with_the_derived_seed():
    problem = make_problem("squared", "l1", 0.05)
    configuration = {"epsilon": 2.0, "delta": "1/n^2", "passes": 3, "step": 0.5, "clip": 2.0}
    rows = run_chunk(problem, "dp-sgd", [configuration], base_seed=9, repetitions=1, stage="final",
                     paper="p", problem_name="q", label="my-sgd")
    # DP-SGD's draws do not depend on step and clip (SHARED_DRAWS): they are not part of the seed
    draws = {key: value for key, value in configuration.items() if key not in ("step", "clip")}
    assert draws_identity("dp-sgd", configuration) == configuration_id(draws)
    seed = derive_seed(9, "p/q", "my-sgd", configuration_id(draws), 0, "final")
    run = privcd.fit(problem, "dp-sgd", epsilon=2.0, delta=1 / problem.n_samples**2, passes=3, step=0.5,
                     clip=2.0, seed=seed)
    assert (rows["seed"] == seed).all() and (rows["algorithm"] == "my-sgd").all()
    np.testing.assert_array_equal(rows["metric_objective"], run.history["objective"])
    assert rows["privacy_noise_multiplier"].iloc[0] == run.noise_multiplier
    assert rows["privacy_delta"].iloc[0] == pytest.approx(1 / problem.n_samples**2, rel=1e-15)


@pytest.mark.parametrize("algorithm,shared", [("dp-sgd", True), ("dp-cd", True), ("dp-gcd", True), ("dp-skgd", False)])
def test_configurations_differing_in_step_and_clip_share_seeds_when_the_algorithm_says_so(algorithm, shared):
    problem = make_problem("logistic", "l2", 0.01)
    configurations = expand({"epsilon": 1.0, "delta": "1/n^2", "passes": [1, 2], "step": [0.1, 1.0],
                             "clip": [0.5, 5.0]})
    rows = run_chunk(problem, algorithm, configurations, base_seed=4, repetitions=2, paper="demo", problem_name="a")
    runs = rows.drop_duplicates(["configuration", "repetition"])
    assert runs["configuration"].nunique() == 8
    seeds_per_passes = runs.groupby(["param_passes", "repetition"])["seed"].nunique()
    assert (seeds_per_passes == (1 if shared else 4)).all()
    assert runs["seed"].nunique() == (4 if shared else 16)  # passes and repetitions still separate


def test_run_chunk_reports_progress_with_done_over_total():
    problem = make_problem("logistic", "l2", 0.01, n=40, p=5)
    lines = []
    configurations = expand({"epsilon": float("inf"), "delta": 1e-5, "passes": 1, "step": [0.1, 0.2, 0.3],
                             "clip": float("inf")})
    run_chunk(problem, "dp-cd", configurations, base_seed=1, repetitions=1, progress=lines.append)
    assert lines[0].startswith("1/3 configurations done") and lines[-1].startswith("3/3 configurations done")


def test_grid_id_changes_with_the_grid_so_rules_rerun():
    config = smoke_config()
    before = Experiment(config).study("demo", "a", "dp-cd")
    config["papers"]["demo"]["algorithms"]["dp-cd"]["grid"] = {**GRID, "clip": [1.0, 100.0]}
    after = Experiment(config).study("demo", "a", "dp-cd")
    assert before.grid_id != after.grid_id and repr(before) != repr(after)
    assert Experiment(smoke_config()).study("demo", "a", "dp-cd").grid_id == before.grid_id


def test_recording_more_checkpoints_keeps_the_identity_and_the_random_path():
    problem = make_problem("logistic", "l2", 0.01)
    configuration = {"epsilon": 1.0, "delta": "1/n^2", "passes": 2, "step": 0.5, "clip": 1.0}
    kwargs = dict(base_seed=2, repetitions=1, paper="p", problem_name="q")
    coarse = run_chunk(problem, "dp-sgd", [configuration], **kwargs)
    fine = run_chunk(problem, "dp-sgd", [configuration], checkpoints=8, **kwargs)
    assert len(coarse) == 3 and len(fine) == 9
    assert fine["seed"].iloc[0] == coarse["seed"].iloc[0]
    assert fine["configuration"].iloc[0] == coarse["configuration"].iloc[0]
    shared = fine[fine["iteration"].isin(coarse["iteration"])]["metric_objective"].to_numpy()
    np.testing.assert_array_equal(shared, coarse["metric_objective"].to_numpy())


def test_titles_name_a_substitute_dataset(tmp_path):
    for name in ("dorothea_valid.npz", "dorothea_valid.labels.csv"):
        (tmp_path / name).write_bytes(b"")
    experiment = Experiment(smoke_config(data_mirror=str(tmp_path), unavailable="substitute",
                                         substitutes={"dorothea": "dorothea-valid"}))
    assert experiment.titles("demo") == {"a": "a", "c": "c [dorothea-valid instead of dorothea]"}


def test_chunk_priorities_put_the_longest_chunks_first_and_below_the_upstream_jobs():
    experiment = Experiment(smoke_config())
    small, large = experiment.study("demo", "a", "dp-cd"), experiment.study("demo", "c", "dp-cd")
    overhead = privcd.tuning.experiment.STEP_OVERHEAD
    assert large.problem.pass_work == 800 * 100_000 + overhead * 100_800
    assert small.problem.pass_work == 1_000 * 100 + overhead * 1_100
    for study in (small, large):
        works = [study.chunk_work(index) for index in range(study.n_chunks)]
        expected = [study.tune_runs * sum(c["passes"] for c in study.chunk(index)) * study.problem.pass_work
                    for index in range(study.n_chunks)]
        assert works == pytest.approx(expected)
        priorities = [study.chunk_priority(index) for index in range(study.n_chunks)]
        assert all(isinstance(value, int) and 1 <= value < privcd.tuning.UPSTREAM_PRIORITY
                   for value in priorities)
        # a chunk with more passes never comes after one with fewer
        order = sorted(range(study.n_chunks), key=works.__getitem__)
        assert [priorities[index] for index in order] == sorted(priorities)
    # the same chunk on data 610 times more work: 28 levels higher (10 log10(610))
    ratio = large.problem.pass_work / small.problem.pass_work
    assert large.chunk_priority(0) - small.chunk_priority(0) == round(10 * np.log10(ratio)) == 28


def test_naming_an_accountant_keeps_a_runs_seed():
    """The accountant scales the noise and never changes the draws: the papers' configs name theirs
    (the library's default moved) and their runs keep their seeds."""
    from privcd.tuning import draws_identity
    for algorithm in ("dp-cd", "dp-sgd", "dp-gcd", "dp-scd"):
        configuration = {"epsilon": 1.0, "delta": 1e-5, "passes": 2, "step": 0.1, "clip": 1.0}
        named = {**configuration, "accountant": "rdp"}
        assert draws_identity(algorithm, named) == draws_identity(algorithm, configuration)
        assert draws_identity(algorithm, {**configuration, "passes": 3}) != draws_identity(algorithm, configuration)
