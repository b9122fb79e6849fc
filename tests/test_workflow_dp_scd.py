"""End to end on config/smoke_dp_scd.yaml: dp-scd Figures 1-3 and the trade-off table (including the
SVM on the hinge loss and the non-private references), the dp-skgd sketch figure and table."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT.parent / "shared" / "datasets"
if not MIRROR.is_dir():
    MIRROR = Path("/work/shared/datasets")
SNAKEMAKE = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or shutil.which("snakemake")
pytestmark = [pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake is not installed"),
              pytest.mark.skipif(not (MIRROR / "phishing.csv.gz").is_file(), reason="no dataset mirror"),
              pytest.mark.slow]  # the slow tier: python -m pytest -m slow (.ci/run)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("smoke_dp_scd")
    # the jobs import this checkout's privcd even when the environment's install points elsewhere
    python_path = os.pathsep.join([str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": python_path}
    result = subprocess.run([SNAKEMAKE, "--snakefile", str(ROOT / "Snakefile"), "--directory", str(directory),
                             "--configfile", str(ROOT / "config" / "smoke_dp_scd.yaml"), "--replace-workflow-config",
                             "--config", f"data_mirror={MIRROR}", "--cores", "2"],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    return directory


def test_every_dp_scd_and_dp_skgd_output_is_built(run):
    for name in ("tradeoff", "objective", "batch_size"):
        for ext in ("pdf", "png"):
            assert (run / f"figures/dp-scd/{name}.{ext}").stat().st_size > 1000
    for path in ("results/tables/dp-scd/tradeoff.md", "results/tables/dp-scd/tradeoff.tex",
                 "figures/dp-skgd/sketches.png", "results/tables/dp-skgd/sketches.md"):
        assert (run / path).stat().st_size > 0, path


def test_the_svm_runs_for_every_algorithm_with_held_out_accuracy(run):
    final = pd.read_parquet(run / "results/aggregate/dp-scd/final.parquet")
    svm = final[final["problem"] == "phishing-svm"]
    assert set(svm["algorithm"]) == {"dp-scd", "dp-scd-sound", "seqdp-scd", "dp-sgd", "scd", "sgd"}
    sound = final[final["algorithm"] == "dp-scd-sound"]
    assert (sound["privacy_epsilon"] <= sound["param_epsilon"]).all()
    accuracy = svm["metric_test_accuracy"].to_numpy()
    assert np.all((accuracy >= 0) & (accuracy <= 1)) and svm["metric_test_mse"].isna().all()
    ridge = final[final["problem"] == "california-ridge"]
    assert ridge["metric_validation_mse"].notna().all() and ridge["metric_test_accuracy"].isna().all()
    assert set(final.loc[final["algorithm"] == "sgd", "param_epsilon"]) == {np.inf}
    optimum = json.loads((run / "results/optimum/dp-scd/phishing-svm.json").read_text())
    assert optimum["method"] == "svm-dual-cd" and optimum["gap"] <= 1e-6 * optimum["f_star"]


def test_selection_is_on_the_validation_part_per_epsilon(run):
    tuning = pd.read_parquet(run / "results/aggregate/dp-scd/tuning.parquet")
    selection = json.loads((run / "results/select/dp-scd/phishing-svm/dp-sgd.json").read_text())
    assert sorted(entry["param_epsilon"] for entry in selection) == [0.5, 2.0]
    for entry in selection:
        rows = tuning[(tuning["problem"] == "phishing-svm") & (tuning["algorithm"] == "dp-sgd")
                      & (tuning["param_epsilon"] == entry["param_epsilon"])]
        means = rows.groupby("configuration")["metric_validation_accuracy"].mean()
        assert entry["mean_score"] == pytest.approx(-means.max())
        assert means[entry["configuration"]] == means.max()


def test_the_tables_hold_the_figures_numbers_and_the_missing_dataset_is_named(run):
    table = (run / "results/tables/dp-scd/tradeoff.md").read_text()
    header = table.splitlines()[0]
    assert "epsilon=0.5" in header and "epsilon=2" in header and "non-private" in header
    assert "phishing-svm" in table and "| accuracy |" in table and "| mse |" in table
    log = (run / "logs/figures/dp-scd/tradeoff.log").read_text()
    assert "msd-ridge (msd)" in log
    sketches = (run / "results/tables/dp-skgd/sketches.md").read_text()
    for label in ("uniform (1 coordinate)", "tau-nice, tau=2", "importance (p_j ~ M_j), E|S|=1", "full (all coordinates)"):
        assert label.replace("|", "\\|") in sketches  # Markdown escapes the pipes of E|S|
