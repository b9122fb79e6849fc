"""Projected tuning cost of a paper's full grid from a sample of it:
``python -m benchmarks.projection dp-gcd [--sample 20] [--results results] [--config config/config.yaml]``.

Needs the workflow's preprocessed datasets (``results/data``) and, to leave calibration out of the
timings, its calibrations (``results/calibrate/<paper>/<problem>.json``; a missing one is computed
first and timed apart), e.g. from ``snakemake --cores 2 --config data_mirror=../shared/datasets
--until calibrate``. For every study and every number of passes of its grid, ``--sample`` random
configurations with that number of passes go through :func:`privcd.tuning.run_chunk` with the
study's tuning repetitions, as a tuning job would run them (the runs of one seed in one kernel
call, for the algorithms that share draws), and the time is scaled by the number of
configurations with that number of passes. Runs sharing draws get cheaper per run in larger
groups, so those algorithms are overestimated (a job groups up to its memory bound). Writes
``projection_<paper>.md`` under ``--output`` and prints it. Not a test: wall-clock times on
whatever else the machine is doing (the header records the load average).
"""
import argparse
import os
import random
import time
from collections import defaultdict
from pathlib import Path

import yaml

from privcd.privacy.reuse import CalibrationStore
from privcd.results.datafiles import load_problem
from privcd.tuning import Experiment, run_chunk

ROOT = Path(__file__).resolve().parents[1]


def workflow_config(config_path, mirror):
    """A workflow config, validated (defaults filled) as the workflow does."""
    from snakemake.utils import validate
    config = yaml.safe_load(Path(config_path).read_text())
    config["data_mirror"] = mirror
    validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return config


def calibrations(results, study, problem):
    """The problem's calibration store from the workflow, or a fresh one (then filled by the runs)."""
    path = Path(results) / "calibrate" / study.problem.paper / f"{study.problem.name}.json"
    return CalibrationStore.from_json(path.read_text()) if path.exists() else CalibrationStore()


def project_study(study, results, sample, rng, checkpoints):
    """``(projected core-seconds, sampled configurations, seconds measured)`` of a study's tuning."""
    problem = load_problem(Path(results) / "data" / study.problem.dataset / f"{study.problem.preprocessing}.npz",
                           study.problem)
    store = calibrations(results, study, problem)
    by_passes = defaultdict(list)
    for configuration in study.configurations:
        by_passes[configuration["passes"]].append(configuration)
    identity = dict(base_seed=0, repetitions=study.tune_runs, paper=study.problem.paper,
                    problem_name=study.problem.name, label=study.name, calibrations=store, checkpoints=checkpoints)
    first = study.configurations[0]  # compile the kernels, alone and in lockstep (two runs sharing draws)
    twins = [configuration for configuration in study.configurations if configuration["passes"] == first["passes"]]
    run_chunk(problem, study.algorithm, twins[:2], **{**identity, "repetitions": 1})
    projected = measured = 0.0
    sampled = 0
    for configurations in by_passes.values():
        chosen = rng.sample(configurations, min(sample, len(configurations)))
        start = time.perf_counter()
        run_chunk(problem, study.algorithm, chosen, **identity)
        seconds = time.perf_counter() - start
        measured += seconds
        sampled += len(chosen)
        projected += seconds * len(configurations) / len(chosen)
    return projected, sampled, measured


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paper")
    parser.add_argument("--sample", type=int, default=20, help="configurations per study and number of passes")
    parser.add_argument("--results", default="results", help="the workflow's results directory")
    parser.add_argument("--config", default=str(ROOT / "config/config.yaml"))
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared/datasets"))
    parser.add_argument("--cores", type=int, default=2, help="cores of the machine the projection is for")
    parser.add_argument("--output", type=Path, default=Path("results/benchmarks"))
    args = parser.parse_args(argv)
    rng = random.Random(0)
    rows = []
    config = workflow_config(args.config, args.mirror)
    for study in Experiment(config).studies_of(args.paper):
        projected, sampled, measured = project_study(study, args.results, args.sample, rng,
                                                      config["tune_checkpoints"])
        rows.append((study, projected, sampled, measured))
        print(f"{study.problem.name} {study.name}: {projected:,.0f} core-s projected "
              f"({sampled} configurations x {study.tune_runs} runs measured in {measured:.1f} s)", flush=True)
    total = sum(row[1] for row in rows)
    lines = [f"# Projected tuning cost: {args.paper}", "",
             f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {os.cpu_count()} CPUs, load average "
             f"{os.getloadavg()[0]:.1f} at the end; `python -m benchmarks.projection {args.paper} --sample "
             f"{args.sample}`.", "",
             "| problem | study | configurations x runs | sampled | measured s | projected core-s |",
             "|---|---|---|---|---|---|"]
    for study, projected, sampled, measured in sorted(rows, key=lambda row: -row[1]):
        lines.append(f"| {study.problem.name} | {study.name} | {len(study.configurations):,} x {study.tune_runs} | "
                     f"{sampled} | {measured:.1f} | {projected:,.0f} |")
    lines += ["", f"Total: {total:,.0f} core-seconds of tuning, {total / args.cores / 60:.0f} minutes on "
              f"{args.cores} cores if the jobs keep them busy (calibration, final runs and figures excluded)."]
    text = "\n".join(lines) + "\n"
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / f"projection_{args.paper}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
