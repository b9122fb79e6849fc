"""The workflow's static checks: config schema (a misspelt key is an error naming it, at every
level), snakemake --lint, and a dry run of the full configuration that builds the DAG in seconds."""
import copy
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
import yaml

pytestmark = pytest.mark.slow  # the slow tier: python -m pytest -m slow (.ci/run)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
SNAKEMAKE = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or shutil.which("snakemake")
needs_snakemake = pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake is not installed")


def config(name):
    return yaml.safe_load((ROOT / "config" / name).read_text())


def validate(document):
    jsonschema.Draft202012Validator(SCHEMA).validate(document)


def snakemake(*arguments, cwd=ROOT):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([SNAKEMAKE, *arguments], cwd=cwd, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("name", sorted(path.name for path in (ROOT / "config").glob("*.yaml")))
def test_configs_follow_the_schema(name):
    validate(config(name))


@pytest.mark.parametrize("path", [
    (), ("papers", "dp-cd"), ("papers", "dp-cd", "privacy"), ("papers", "dp-cd", "runs"),
    ("papers", "dp-cd", "problems", "log1"), ("papers", "dp-cd", "algorithms", "dp-cd"),
])
def test_a_misspelt_key_at_any_level_is_an_error_naming_it(path):
    document = copy.deepcopy(config("smoke.yaml"))
    node = document
    for key in path:
        node = node[key]
    node["chunk_sise"] = 3
    with pytest.raises(jsonschema.ValidationError, match="'chunk_sise' was unexpected"):
        validate(document)


@pytest.mark.parametrize("change, word", [
    ({"unavailable": "ignore"}, "ignore"),
    ({"papers": {"x": {"privacy": {"epsilon": 0, "delta": 0.1}, "runs": {"tune": 1, "final": 1},
                       "problems": {"a": {"dataset": "log1", "loss": "logistic", "lam": 0.1}},
                       "algorithms": {"dp-cd": {"grid": {"passes": 1, "step": 1, "clip": 1}}}}}}, "0"),
    ({"papers": {"x": {"privacy": {"epsilon": 1, "delta": "1/m"}, "runs": {"tune": 1, "final": 1},
                       "problems": {"a": {"dataset": "log1", "loss": "logistic", "lam": 0.1}},
                       "algorithms": {"dp-cd": {"grid": {"passes": 1, "step": 1, "clip": 1}}}}}}, "1/m"),
])
def test_bad_values_are_schema_errors(change, word):
    with pytest.raises(jsonschema.ValidationError, match=word):
        validate({**config("smoke.yaml"), **change})


@needs_snakemake
def test_snakemake_refuses_a_misspelt_key_before_anything_runs(tmp_path):
    bad = config("smoke.yaml")
    bad["papers"]["dp-cd"]["problems"]["log1"]["penalti"] = "l2"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    result = snakemake("-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                       "--configfile", str(tmp_path / "bad.yaml"), "--replace-workflow-config")
    assert result.returncode != 0
    assert "'penalti' was unexpected" in result.stderr + result.stdout


@needs_snakemake
def test_lint_is_clean():
    result = snakemake("--lint", "--configfile", "config/smoke.yaml", "--replace-workflow-config")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Congratulations" in result.stdout + result.stderr


@needs_snakemake
def test_dry_run_of_the_full_config_builds_every_stage_in_seconds(tmp_path):
    start = time.perf_counter()
    result = snakemake("-n", "--quiet", "rules", "--snakefile", str(ROOT / "Snakefile"),
                       "--directory", str(tmp_path), "--configfile", str(ROOT / "config" / "config.yaml"))
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-3000:]
    counts = {line.split()[0]: int(line.split()[1]) for line in result.stdout.splitlines()
              if len(line.split()) == 2 and line.split()[1].isdigit()}
    for rule in ("data", "optimum", "calibrate", "tune", "select", "final", "aggregate", "figure",
                 "final_table", "tuning_table", "data_notes"):
        assert counts.get(rule, 0) >= 1, (rule, counts)
    assert counts["tune"] > counts["calibrate"]
    assert seconds < 60, f"dry run took {seconds:.1f} s"
