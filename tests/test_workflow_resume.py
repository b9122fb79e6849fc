"""Interrupt the workflow mid-tuning (Ctrl-C) and resume: only the chunks whose jobs had not
finished are recomputed; the finished ones are left as they were (outputs are written
atomically, so an interrupted job leaves no partial file)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.slow  # the slow tier: python -m pytest -m slow (.ci/run)

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or shutil.which("snakemake")
CHUNKS = 12  # the first run is stopped after 2: the other 10 jobs leave seconds for the interrupt
CONFIG = {
    "base_seed": 1,
    "chunk_size": 1,
    "papers": {"resume": {
        "privacy": {"epsilon": 1.0, "delta": "1/n^2"},
        "runs": {"tune": 1, "final": 1},
        "problems": {"log1": {"dataset": "log1", "loss": "logistic", "penalty": "l2", "lam": 0.01}},
        "algorithms": {"dp-cd": {"grid": {"passes": 1, "step": {"logspace": [-1, 0, CHUNKS]}, "clip": 1.0}}},
    }},
}
TARGET = "results/select/resume/log1/dp-cd.json"
JOB = re.compile(r"rule tune:.*?jobid: (\d+).*?chunk=(\d+)", re.S)


def finished_chunks(log):
    """Chunks whose tune job snakemake saw finish, from its log."""
    chunks = {jobid: chunk for jobid, chunk in JOB.findall(log)}
    return {f"chunk_{chunks[jobid]}.parquet" for jobid in re.findall(r"Finished jobid: (\d+) \(Rule: tune\)", log)}


def interrupt(process, *, patience=2.0):
    """Freeze the whole foreground group (SIGSTOP: at once, so the run cannot finish in the
    meantime), queue a Ctrl-C, let it go on, and press again every ``patience`` seconds until the run
    stops: one press can be lost (once in CI the run then went on to finish)."""
    try:
        os.killpg(process.pid, signal.SIGSTOP)
        os.killpg(process.pid, signal.SIGINT)
        os.killpg(process.pid, signal.SIGCONT)
    except ProcessLookupError:  # the group ended before the freeze
        return
    while process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGINT)
        except ProcessLookupError:  # the group ended between the check and the signal
            return
        try:
            process.wait(timeout=patience)
        except subprocess.TimeoutExpired:
            pass


@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake is not installed")
def test_interrupted_tuning_resumes_with_only_the_unfinished_chunks(tmp_path):
    (tmp_path / "resume.yaml").write_text(yaml.safe_dump(CONFIG))
    command = [SNAKEMAKE, "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
               "--configfile", str(tmp_path / "resume.yaml"), "--replace-workflow-config", "--cores", "1",
               TARGET]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    chunks = tmp_path / "results" / "tune" / "resume" / "log1" / "dp-cd"

    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    deadline = time.monotonic() + 120
    while len(list(chunks.glob("chunk_*.parquet"))) < 2 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    interrupt(first)
    _, log = first.communicate(timeout=60)
    assert first.returncode != 0, "the run finished before it could be interrupted"

    finished = finished_chunks(log)
    assert 1 <= len(finished) < CHUNKS, log[-3000:]
    kept = {name: (path.stat().st_mtime_ns, path.read_bytes())
            for name in finished for path in [chunks / name]}
    for path in chunks.glob("chunk_*.parquet"):  # no partial output: every file present is whole
        assert len(pd.read_parquet(path)) > 0

    # the documented resume command: the same, plus --rerun-incomplete for a job killed after it
    # wrote its output but before it exited (snakemake cannot know that output is whole)
    second = subprocess.run(command + ["--rerun-incomplete"], env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr[-4000:]
    recomputed = {f"chunk_{chunk}.parquet" for _, chunk in JOB.findall(second.stderr)}
    assert recomputed == {f"chunk_{index:04d}.parquet" for index in range(CHUNKS)} - finished
    for name, (mtime, content) in kept.items():
        assert (chunks / name).stat().st_mtime_ns == mtime and (chunks / name).read_bytes() == content
    assert (tmp_path / TARGET).is_file()
