"""dp-scd Figure 3 on small datasets: does DP-SCD's drop at large mini-batches follow L / N?

    python -m benchmarks.dp_scd_batch_size [--quick] [--output results/reference/dp_scd_batch_size]

dp-scd Figure 3 (YearPredictionMSD, N = 463,715) shows DP-SCD's utility rising with the mini-batch
size L "till a saturation point" (L = 2000 at epsilon = 1). Our reproduction runs it on the
substitutes adult-svm (N = 24,420 training rows) and phishing-logistic (N = 6,218), whose test
accuracy peaks at L of about 100-200 and drops for L >= 1000
(``figures/reference/dp-scd/batch_size.png``). Hypothesis: the drop is governed by L / N, not by L
(10 passes are T = 10 N / L mini-batches, so a large L on a small N leaves few steps; MSD's L = 2000
is L / N = 0.4%, adult's 8%, phishing's 32%). If so, on a random quarter of the training rows the
peak should move to about a quarter of the full set's L.

For each problem of the dp-scd reproduction (``config/config.yaml``, papers: dp-scd: the dataset
loaded with the ``dp-scd`` recipe from the shared mirror, its loss, penalty and lambda, the
smoothness constants declared public as ``privcd.results.datafiles.load_problem`` does) and each
training set, (a) the full training part and (b) a random quarter of its rows (fixed seed; the
validation and test parts unchanged), DP-SCD runs over the config's grid (10 passes, the 13
clipping thresholds 1e-8..1e4, the mini-batch sizes 5..2000; L > N is skipped) at epsilon = 1,
delta = 0.001 (the config's delta), with 3 seeds. For each L the clip with the best mean
validation accuracy over the seeds is selected (ties to the smallest clip), as the workflow's
``privcd.plotting.utility.batch_size_points``, and its test accuracy (mean over the seeds) is
reported; accuracy is :func:`privcd.results.utility.metric_values` of the final iterate. Two
accountings: privcd's default DP-SCD (noise on all duals, PLD; the config's ``dp-scd-sound``)
and dp-scd Theorem 1's (``accountant="paper"``, the config's ``dp-scd`` entry, the one Figure 3
of the reproduction draws).
"""
import argparse
import json
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import yaml

import privcd
from privcd.privacy.reuse import CalibrationStore
from privcd.results.utility import metric_values
from benchmarks.harness import MIRROR, ROOT

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["papers"]["dp-scd"]
PROBLEMS = ("adult-svm", "phishing-logistic")
EPSILON = 1.0
DELTA = float(CONFIG["privacy"]["delta"])            # 0.001, dp-scd Section 5.1
GRID = CONFIG["algorithms"]["dp-scd"]["grid"]
PASSES = float(GRID["passes"][0])                    # 10
CLIPS = np.logspace(*GRID["clip"]["logspace"])       # 1e-8 .. 1e4, 13 values
BATCH_SIZES = [int(size) for size in GRID["batch_size"]]
RUNS = int(CONFIG["runs"]["tune"])                   # 3
ACCOUNTINGS = {  # name -> options of privcd.fit
    "default": {},                                   # all duals noised, PLD (config: dp-scd-sound)
    "paper": {"accountant": "paper"},                # dp-scd Theorem 1 (config: dp-scd, the figure's)
}
FRACTIONS = {"full": 1.0, "quarter": 0.25}
SUBSET_SEED = 20240601  # the config's base_seed: which quarter of the rows


def load(name):
    """The reproduction's problem ``name`` on its training part, and its held-out parts."""
    spec = CONFIG["problems"][name]
    data = privcd.load_dataset(spec["dataset"], preprocessing=spec["preprocessing"], mirror=str(MIRROR))
    held_out = {"validation": (data.validation.X, data.validation.y), "test": (data.test.X, data.test.y)}
    return spec, data.X, data.y, held_out


def subset(X, y, fraction):
    """A random ``fraction`` of the rows (the same for every run), in their original order."""
    if fraction == 1.0:
        return X, y
    rows = np.sort(np.random.default_rng(SUBSET_SEED).choice(len(y), int(len(y) * fraction), replace=False))
    return X[rows], y[rows]


def sweep(problem, held_out, batch_sizes, clips, runs, options):
    """For each L: the clip of best mean validation accuracy and its test accuracies over the seeds."""
    store = CalibrationStore()
    cells = []
    for batch_size in batch_sizes:
        if batch_size > problem.n_samples:
            continue
        scores = np.empty((len(clips), runs, 2))
        for i, clip in enumerate(clips):
            for seed in range(runs):
                run = privcd.fit(problem, "dp-scd", epsilon=EPSILON, delta=DELTA, passes=PASSES, step=1.0,
                                 clip=float(clip), seed=seed, batch_size=batch_size, checkpoints=1,
                                 calibrations=store, **options)
                scores[i, seed] = [metric_values("accuracy", X, y, run.w)[0] for X, y in
                                   (held_out["validation"], held_out["test"])]
        best = int(np.argmax(scores[:, :, 0].mean(axis=1)))  # first (smallest clip) on a tie
        test = scores[best, :, 1]
        cells.append({"L": batch_size, "L_over_N": batch_size / problem.n_samples,
                      "steps": round(PASSES * problem.n_samples / batch_size), "clip": float(clips[best]),
                      "noise_multiplier": float(run.noise_multiplier),
                      "validation": float(scores[best, :, 0].mean()), "test": float(test.mean()),
                      "test_std": float(test.std()), "test_runs": test.tolist()})
    return cells


def run(quick):
    problems = PROBLEMS[:1] if quick else PROBLEMS
    accountings = dict(list(ACCOUNTINGS.items())[:1]) if quick else ACCOUNTINGS
    batch_sizes = [10, 100, 1000] if quick else BATCH_SIZES
    clips = CLIPS[::3] if quick else CLIPS
    runs = 2 if quick else RUNS
    blocks = []
    for name in problems:
        spec, X, y, held_out = load(name)
        for accounting, options in accountings.items():
            for part, fraction in FRACTIONS.items():
                start = time.perf_counter()
                Xs, ys = subset(X, y, fraction)
                problem = privcd.Problem(Xs, ys, spec["loss"], spec["penalty"], spec["lam"], constants="data")
                cells = sweep(problem, held_out, batch_sizes, clips, runs, options)
                block = {"problem": name, "accounting": accounting, "part": part, "n": problem.n_samples,
                         "cells": cells, "seconds": time.perf_counter() - start}
                blocks.append(block)
                print(json.dumps({key: value for key, value in block.items() if key != "cells"}
                                 | {"peak_L": peak(block)["L"]}), flush=True)
    return {"quick": quick, "clips": len(clips), "runs": runs, "batch_sizes": batch_sizes, "blocks": blocks}


def peak(block):
    """The cell of the best test accuracy (the smallest L on a tie)."""
    return max(block["cells"], key=lambda cell: (cell["test"], -cell["L"]))


def loss_at(block, batch_size):
    """Test accuracy below the block's peak at ``batch_size`` (None when not run)."""
    cell = next((cell for cell in block["cells"] if cell["L"] == batch_size), None)
    return None if cell is None else peak(block)["test"] - cell["test"]


def summary(result):
    """One row per (problem, accounting): the peaks, and the loss below the peak at the same L and
    at the same L / N (the quarter's L against the full set's 4 L)."""
    blocks = {(b["problem"], b["accounting"], b["part"]): b for b in result["blocks"]}
    pairs = [(4 * L, L) for L in result["batch_sizes"] if 4 * L in result["batch_sizes"]]
    same_l = [L for L in (1000, 2000) if L in result["batch_sizes"]]
    header = (["problem", "accounting", "peak L full (L/N)", "peak L quarter (L/N)", "peak ratio full / quarter"]
              + [f"loss at L = {L}: full, quarter" for L in same_l]
              + [f"loss at the same L/N: full L = {a}, quarter L = {b}" for a, b in pairs])
    lines = ["| " + " | ".join(header) + " |", "| --- " * len(header) + "|"]

    def fmt(value):
        return "not run" if value is None else f"{value:.4f}"

    for problem, accounting, part in blocks:
        if part != "full":
            continue
        full, quarter = blocks[problem, accounting, "full"], blocks[problem, accounting, "quarter"]
        top_full, top_quarter = peak(full)["L"], peak(quarter)["L"]
        cells = ([problem, accounting, f"{top_full} ({top_full / full['n']:.2%})",
                  f"{top_quarter} ({top_quarter / quarter['n']:.2%})", f"{top_full / top_quarter:.2g}"]
                 + [f"{fmt(loss_at(full, L))}, {fmt(loss_at(quarter, L))}" for L in same_l]
                 + [f"{fmt(loss_at(full, a))}, {fmt(loss_at(quarter, b))}" for a, b in pairs])
        lines.append("| " + " | ".join(cells) + " |")
    return ("Summary: *loss* is the peak's test accuracy minus that at the given L (0 at the peak). "
            "If L / N governed, the peak ratio would be about 4 and the two losses at the same L / N "
            "(last columns) equal.\n\n" + "\n".join(lines))


def tables(result):
    out = []
    blocks = {(b["problem"], b["accounting"], b["part"]): b for b in result["blocks"]}
    for problem in dict.fromkeys(b["problem"] for b in result["blocks"]):
        for accounting in dict.fromkeys(b["accounting"] for b in result["blocks"]):
            full, quarter = blocks[problem, accounting, "full"], blocks[problem, accounting, "quarter"]
            by_L = {cell["L"]: cell for cell in quarter["cells"]}
            lines = [f"### {problem}, {accounting} accounting (N = {full['n']:,} full, {quarter['n']:,} quarter)",
                     "",
                     "| L | L/N full | test acc. full (clip) | L/N quarter | test acc. quarter (clip) |",
                     "| --- | --- | --- | --- | --- |"]
            top_full, top_quarter = peak(full)["L"], peak(quarter)["L"]
            for cell in full["cells"]:
                q = by_L.get(cell["L"])
                mark = " **peak**" if cell["L"] == top_full else ""
                row = (f"| {cell['L']} | {cell['L_over_N']:.2%} | {cell['test']:.4f} ± {cell['test_std']:.4f} "
                       f"({cell['clip']:.0e}){mark} | ")
                if q is None:
                    row += f"{cell['L'] / quarter['n']:.0%} | L > N: not run |"
                else:
                    mark = " **peak**" if q["L"] == top_quarter else ""
                    row += (f"{q['L_over_N']:.2%} | {q['test']:.4f} ± {q['test_std']:.4f} "
                            f"({q['clip']:.0e}){mark} |")
                lines.append(row)
            last_full, last_quarter = full["cells"][-1], quarter["cells"][-1]
            lines += ["", f"Peak: full L = {top_full} (L/N = {top_full / full['n']:.2%}, "
                      f"{peak(full)['test']:.4f}), quarter L = {top_quarter} (L/N = {top_quarter / quarter['n']:.2%}, "
                      f"{peak(quarter)['test']:.4f}). Drop from the peak to the largest L run: full "
                      f"{peak(full)['test'] - last_full['test']:.4f} (L = {last_full['L']}), quarter "
                      f"{peak(quarter)['test'] - last_quarter['test']:.4f} (L = {last_quarter['L']}).", ""]
            out.append("\n".join(lines))
    return "\n".join(out)


def markdown(result, command, seconds):
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (f"{when}, commit {commit}, `{command}`, {seconds:.0f} s wall (one core, `nice -n 10`). "
              f"DP-SCD (`privcd.fit(problem, \"dp-scd\", ...)`) at epsilon = {EPSILON:g}, delta = {DELTA:g}, "
              f"{PASSES:g} passes, {result['clips']} clipping thresholds ({CLIPS[0]:.0e}..{CLIPS[-1]:.0e}), "
              f"L in {result['batch_sizes']}, {result['runs']} seeds per configuration, on the dp-scd "
              "reproduction's problems (`config/config.yaml`, `dp-scd` recipe, shared mirror): (a) the full "
              f"training part, (b) a random quarter of its rows (seed {SUBSET_SEED}); validation and test "
              "parts unchanged. For each L the clip of best mean validation accuracy (ties: smallest clip); "
              "cells: its test accuracy, mean ± std over the seeds, and the clip. *default*: privcd's "
              "DP-SCD (noise on all duals, PLD; the config's `dp-scd-sound`); *paper*: dp-scd Theorem 1's "
              "accounting (`accountant=\"paper\"`, the config's `dp-scd`, drawn in "
              "`figures/reference/dp-scd/batch_size.png`). Written by `benchmarks/dp_scd_batch_size.py`.")
    return ("# dp-scd Figure 3: does the drop at large L follow L / N?\n\n" + header + "\n\n"
            + summary(result) + "\n\n" + tables(result))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="adult-svm, default accounting, L in {10, 100, 1000}, 5 clips, 2 seeds")
    parser.add_argument("--output", type=Path, default=Path("results/reference/dp_scd_batch_size"))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = run(args.quick)
    seconds = time.perf_counter() - start
    command = "python -m benchmarks.dp_scd_batch_size" + (" --quick" if args.quick else "")
    text = markdown(result, command, seconds) + "\n"
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "batch_size.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
