"""dp-gcd's log1 and log2 (Figure 1a-1b): which reading of the paper's generator puts DP-GCD well
ahead of DP-CD and DP-SGD, as the paper shows? (issue 20, part 4)

    python -m benchmarks.log_generator [--quick] [--output results/reference/log_generator]

dp-gcd Section 5: X is 1,000 x 100 with unit-variance Gaussian columns, ``y = X w_true + e`` with e
Gaussian noise and w_true log-normal(0, sigma = 1 or 2); the problems are logistic + L2. The paper
prints neither e's scale nor lambda nor how real y become the labels of a logistic loss. privcd's
reading (:func:`privcd.data.sources.synthetic.make_log`, lambda = 1/n) gives labels that are almost
separable, f* = 0.088, and w = 0 a relative error of 6.9 (log1), which no private algorithm leaves
by much. This experiment varies what the paper leaves open, one thing at a time:

* the noise scale of e (1, privcd's; 10; 30): noisier labels, a larger f*;
* lambda (1/n; 10/n; 100/n): a smaller, better conditioned w*;
* the labels: ``sign(X w_true + e)`` or drawn from the logistic model, ``P(y = 1) =
  sigmoid(X w_true)`` (no e).

(A literal reading, real-valued y inside the logistic loss, is not a classification problem: privcd's
logistic loss takes labels in {-1, 1}.) For each variant, each algorithm is tuned as in dp-gcd
Appendix D (Table 2's grid of passes, step sizes and clipping thresholds, the best mean final
objective over the runs; the papers' accountants: RDP for DP-CD and DP-SGD, advanced composition
for DP-GCD; epsilon = 1, delta = 1/n^2; DP-CD's coordinates uniform, as in the dp-gcd
reproduction), and the table gives the relative error of each algorithm's best configuration and
DP-GCD's lead (the best other error over DP-GCD's).
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

import privcd
from privcd.data.sources.synthetic import make_log
from benchmarks.harness import lowest_mean_error

N, P = 1_000, 100
SIGMAS = {"log1": 1.0, "log2": 2.0}
VARIANTS = {  # name -> (noise scale of e, lambda, labels)
    "privcd (noise 1, lambda 1/n)": (1.0, 1e-3, "sign"),
    "noise 10": (10.0, 1e-3, "sign"),
    "noise 30": (30.0, 1e-3, "sign"),
    "lambda 10/n": (1.0, 1e-2, "sign"),
    "lambda 100/n": (1.0, 1e-1, "sign"),
    "logistic-model labels": (0.0, 1e-3, "logistic"),
}
GRIDS = {  # dp-gcd Appendix D, Table 2
    "dp-cd": {"passes": [0.001, 0.01, 0.1, 1, 2, 3, 5, 10, 20], "step": np.logspace(-2, 1, 10)},
    "dp-sgd": {"passes": [0.001, 0.01, 0.1, 1, 2, 3, 5, 10, 20], "step": np.logspace(-6, 0, 10)},
    "dp-gcd": {"passes": [1, 2, 4, 7, 10, 15, 20], "step": np.logspace(-2, 1, 10)},
}
CLIPS = np.logspace(-4, 6, 50)
ACCOUNTANTS = {"dp-cd": "rdp", "dp-sgd": "rdp", "dp-gcd": "advanced-composition"}
RUNS = 5  # dp-gcd Section 5


def make_problem(dataset, noise, lam, labels, seed=0):
    """The log1 / log2 design and w_true of privcd's generator (same seed), with the variant's labels."""
    raw = make_log(seed, sigma=SIGMAS[dataset], noise=noise)
    X = raw.features.to_numpy(dtype=float)
    if labels == "logistic":
        rng = np.random.default_rng([seed, 1])
        probability = 1.0 / (1.0 + np.exp(-np.clip(X @ raw.w_true, -500, 500)))
        y = np.where(rng.random(N) < probability, 1.0, -1.0)
    else:
        y = np.asarray(raw.target, dtype=float)
    return privcd.Problem(X, y, "logistic", "l2", lam, constants="data")


def tune(problem, f_star, algorithm, clips, runs):
    """The best (mean over runs) final relative error of the grid, and its configuration."""
    grid = GRIDS[algorithm]
    best = (np.inf, None)
    for passes in grid["passes"]:
        settings = [dict(epsilon=1.0, delta=1 / N**2, passes=passes, step=float(step), clip=float(clip),
                         seed=seed, accountant=ACCOUNTANTS[algorithm])
                    for seed in range(runs) for step in grid["step"] for clip in clips]
        (_, step, clip), errors = lowest_mean_error(problem, algorithm, settings, f_star)
        if errors.mean() < best[0]:
            best = (float(errors.mean()), (passes, step, clip), float(errors.std()))
    return best


def run(quick):
    clips = CLIPS[::5] if quick else CLIPS
    runs = 2 if quick else RUNS
    variants = dict(list(VARIANTS.items())[:2]) if quick else VARIANTS
    rows = []
    for dataset in SIGMAS:
        for variant, (noise, lam, labels) in variants.items():
            start = time.perf_counter()
            problem = make_problem(dataset, noise, lam, labels)
            _, f_star = privcd.solve_nonprivate(problem)
            row = {"dataset": dataset, "variant": variant, "noise": noise, "lambda": lam, "labels": labels,
                   "f_star": f_star, "w_zero": (float(np.log(2.0)) - f_star) / f_star}
            for algorithm in GRIDS:
                error, (passes, step, clip), spread = tune(problem, f_star, algorithm, clips, runs)
                row[algorithm] = {"error": error, "std": spread, "passes": passes, "step": step, "clip": clip}
            row["seconds"] = time.perf_counter() - start
            rows.append(row)
            print(json.dumps(row), flush=True)
    return {"runs": runs, "clips": len(clips), "rows": rows}


def markdown(result):
    lines = ["| dataset | variant | f* | w = 0 | DP-CD | DP-SGD | DP-GCD | DP-GCD's lead | DP-GCD (passes, step, clip) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in result["rows"]:
        cells = [f"{row[a]['error']:.3g} ± {row[a]['std']:.1g}" for a in ("dp-cd", "dp-sgd", "dp-gcd")]
        lead = min(row["dp-cd"]["error"], row["dp-sgd"]["error"]) / row["dp-gcd"]["error"]
        gcd = row["dp-gcd"]
        lines.append(f"| {row['dataset']} | {row['variant']} | {row['f_star']:.3g} | {row['w_zero']:.3g} | "
                     + " | ".join(cells) + f" | {lead:.2f}x | {gcd['passes']:g}, {gcd['step']:.3g}, {gcd['clip']:.3g} |")
    return ("Relative error (F - F*) / F* of each algorithm's best configuration (dp-gcd Appendix D's grid, "
            f"{result['clips']} clipping thresholds, mean ± std of {result['runs']} runs; epsilon = 1, "
            "delta = 1/n^2) on readings of dp-gcd's log1 / log2 generator (`benchmarks/log_generator.py`). "
            "*DP-GCD's lead*: the better of DP-CD and DP-SGD over DP-GCD (above 1: DP-GCD ahead). "
            "dp-gcd Table 4 selects, for DP-GCD, 10 passes, step 2.15, clip 3.09 (log1) and 20, 0.464, "
            "1.93 (log2).\n\n" + "\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two variants, 10 clipping thresholds, 2 runs")
    parser.add_argument("--output", type=Path, default=Path("results/benchmarks/log_generator"))
    args = parser.parse_args(argv)
    result = run(args.quick)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "log_generator.json").write_text(json.dumps(result, indent=2) + "\n")
    text = "# dp-gcd log1 / log2: readings of the generator\n\n" + markdown(result) + "\n"
    (args.output / "log_generator.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
