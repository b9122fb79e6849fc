"""A tiny end-to-end workflow run: every stage, the tidy results, seeds from identity, the report,
and a second invocation that has nothing left to do."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privcd.results import AGGREGATED_COLUMNS
from privcd.results.table import UTILITY_COLUMNS
from privcd.tuning import configuration_id, derive_seed, draws_identity

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or shutil.which("snakemake")
pytestmark = [pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake is not installed"),
              pytest.mark.slow]  # the slow tier: python -m pytest -m slow (.ci/run)

TINY = {
    "base_seed": 5,
    "chunk_size": 2,  # dp-cd: 2 chunks, dp-sgd: 1
    "papers": {"tiny": {
        "privacy": {"epsilon": 1.0, "delta": "1/n^2"},
        "runs": {"tune": 2, "final": 2},
        "final_checkpoints": 4,
        "problems": {"log1": {"dataset": "log1", "loss": "logistic", "penalty": "l2", "lam": 0.01}},
        "algorithms": {"dp-cd": {"grid": {"passes": 2, "step": [0.3, 1.0], "clip": [1.0, 3.0]}},
                       "dp-sgd": {"grid": {"passes": 1, "step": [0.1], "clip": [1.0]}}},
    },
        # a loss the papers do not use goes through every stage by its registry entry alone
        "robust": {
            "privacy": {"epsilon": 1.0, "delta": "1/n^2"},
            "runs": {"tune": 1, "final": 1},
            "final_checkpoints": 2,
            "problems": {"log1-huber": {"dataset": "log1", "loss": "huber", "penalty": "l2", "lam": 0.01}},
            "algorithms": {"dp-cd": {"grid": {"passes": 1, "step": [1.0], "clip": [2.0]}}},
        }},
}


def snakemake(directory, *arguments):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([SNAKEMAKE, "--snakefile", str(ROOT / "Snakefile"), "--directory", str(directory),
                           "--configfile", str(directory / "tiny.yaml"), "--replace-workflow-config",
                           "--cores", "2", *arguments], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tiny")
    (directory / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    result = snakemake(directory)
    assert result.returncode == 0, result.stderr[-4000:]
    return directory


def test_every_stage_writes_its_outputs(run):
    for path in ["results/data/log1/raw.npz", "results/data/notes.md", "results/optimum/tiny/log1.json",
                 "results/calibrate/tiny/log1.json", "results/tune/tiny/log1/dp-cd/chunk_0000.parquet",
                 "results/tune/tiny/log1/dp-cd/chunk_0001.parquet", "results/select/tiny/log1/dp-sgd.json",
                 "results/final/tiny/log1/dp-cd.parquet", "figures/tiny/convergence_passes.pdf",
                 "figures/tiny/convergence_seconds.png", "results/tables/tiny/final_errors.md",
                 "results/tables/tiny/tuning_errors.tex"]:
        assert (run / path).stat().st_size > 0, path
    huber = pd.read_parquet(run / "results/aggregate/robust/final.parquet").sort_values("checkpoint")
    assert set(huber["problem"]) == {"log1-huber"} and (huber["metric_relative_error"] > -1e-8).all()
    assert huber["metric_objective"].iloc[-1] < huber["metric_objective"].iloc[0]  # below F(0)
    log = (run / "logs/tune/tiny/log1/dp-cd/chunk_0000.log").read_text()
    assert "2/2 configurations done" in log


def test_aggregated_results_are_tidy_with_identity_seeds(run):
    final = pd.read_parquet(run / "results/aggregate/tiny/final.parquet")
    assert list(final.columns) == list(AGGREGATED_COLUMNS)
    # log1 has no validation/test part: its held-out utility columns are NaN (tests/test_utility.py)
    assert not final.drop(columns=list(UTILITY_COLUMNS)).isna().any().any()
    assert final[list(UTILITY_COLUMNS)].isna().all().all()
    assert set(final["stage"]) == {"final"} and set(final["algorithm"]) == {"dp-cd", "dp-sgd"}
    assert final.groupby(["algorithm", "configuration"])["repetition"].nunique().eq(2).all()
    assert final.groupby(["algorithm", "repetition"])["checkpoint"].nunique().eq(5).all()  # final_checkpoints + 1
    assert (final["metric_relative_error"] > -1e-8).all()
    for row in final.drop_duplicates(["algorithm", "repetition"]).itertuples():
        configuration = yaml.safe_load(row.params)
        assert configuration_id(configuration) == row.configuration
        draws = draws_identity(row.algorithm, configuration)  # DP-SGD's seed leaves out step and clip
        assert row.seed == derive_seed(5, "tiny/log1", row.algorithm, draws, row.repetition, "final")
    tuning = pd.read_parquet(run / "results/aggregate/tiny/tuning.parquet")
    assert len(tuning) == (4 + 1) * 2  # last checkpoint of every tuning run
    chunk = pd.read_parquet(run / "results/tune/tiny/log1/dp-cd/chunk_0000.parquet")
    assert chunk.groupby(["configuration", "repetition"])["checkpoint"].nunique().eq(2).all()  # tune_checkpoints 1
    best = tuning[tuning["algorithm"] == "dp-cd"].groupby("configuration")["metric_objective"].mean().idxmin()
    assert set(final.loc[final["algorithm"] == "dp-cd", "configuration"]) == {best}


def test_report_builds_and_a_second_run_has_nothing_to_do(run):
    again = snakemake(run, "-n")
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr
    report = snakemake(run, "--report", str(run / "report.html"))
    assert report.returncode == 0, report.stderr[-3000:]
    assert (run / "report.html").stat().st_size > 10_000
