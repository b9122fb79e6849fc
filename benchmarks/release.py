"""What release mode costs: each kernel's seconds per pass as a private release (secret seed, noise
on a grid where privcd samples it exactly) against the same run as an experiment (a seed,
floating-point noise), on the shapes of ``shapes``, measured in the same run.

Floor (issue 34): a release within 1.5x of the experiment on every shape, or a measured reason.
"""
import sys

from privcd.algorithms.base import Settings
from privcd.randomness import ReleaseSeed
from benchmarks.harness import median_seconds
from benchmarks.shapes import ONE_ITERATION, SETTINGS, cases, passes_of

FLOOR = 1.5
# The kernels whose release samples its noise differently from an experiment (the others run the
# same kernel in both modes, so their ratio measures noise only).
GRID_NOISE = ("dp-cd", "dp-gcd", "dp-sgd", "dp-skgd", "dp-scd")  # DP-SkGD's default sketch is DP-CD's
# Passes a run makes here (SETTINGS' 5 otherwise): DP-SGD's release draws p exact discrete Gaussians
# a step, about 200 ns each, so 5 passes of batch 1 on the sparse shape would take minutes a run.
PASSES = {"dp-sgd": 0.2}


def seconds_per_pass(module, problem, seed_of, quick):
    """Marginal seconds per pass of ``module.run`` with seeds from ``seed_of()``: (a run of 5 passes,
    or :data:`PASSES`, minus a one-iteration run) over the passes between, after a first run that
    compiles and, for a release, computes its grid noise once (cached)."""
    settings = Settings(**{**SETTINGS.__dict__, "passes": PASSES.get(module.NAME, SETTINGS.passes)})
    plan = module.plan(problem, settings, {**module.OPTIONS})
    one = module.plan(problem, Settings(**{**SETTINGS.__dict__, "passes": ONE_ITERATION}), {**module.OPTIONS})
    module.run(problem, plan, seed_of())
    module.run(problem, one, seed_of())
    repeats = 3 if quick else 7
    whole = median_seconds(lambda: module.run(problem, plan, seed_of()), repeats, minimum_seconds=0.2)
    start_up = median_seconds(lambda: module.run(problem, one, seed_of()), repeats, minimum_seconds=0.2)
    return (whole - start_up) / (passes_of(plan) - passes_of(one))


def run(algorithms, quick):
    """A row per shape, algorithm and problem: experiment and release seconds per pass, their ratio."""
    rows = []
    for name, module, shape, problem in cases(algorithms, quick):
        experiment = seconds_per_pass(module, problem, lambda: 0, quick)
        try:
            release = seconds_per_pass(module, problem, ReleaseSeed, quick)
        except ValueError as refusal:  # a release without a grid argument (SEQDP-SCD) is refused
            print(f"{name} {shape} {problem.loss.name}: release refused ({refusal})", file=sys.stderr)
            rows.append({"algorithm": name, "shape": shape, "n": problem.n_samples, "p": problem.n_features,
                         "sparse": problem.is_sparse, "loss": problem.loss.name, "penalty": problem.penalty.name,
                         "grid_noise": False, "experiment_seconds_per_pass": experiment,
                         "release_seconds_per_pass": None, "ratio": None, "meets_floor": None})
            continue
        rows.append({"algorithm": name, "shape": shape, "n": problem.n_samples, "p": problem.n_features,
                     "sparse": problem.is_sparse, "loss": problem.loss.name, "penalty": problem.penalty.name,
                     "grid_noise": name in GRID_NOISE, "experiment_seconds_per_pass": experiment,
                     "release_seconds_per_pass": release, "ratio": release / experiment,
                     "meets_floor": bool(release / experiment <= FLOOR)})
        print(f"{name} {shape} {problem.loss.name}: release {release * 1e3:.3f} ms/pass, experiment "
              f"{experiment * 1e3:.3f}, {release / experiment:.2f}x", file=sys.stderr)
    return rows


def markdown(rows):
    lines = ["| algorithm | shape (n x p) | loss + penalty | release noise | experiment ms / pass | "
             "release ms / pass | ratio | floor |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        shape = f"{r['shape']} ({r['n']:,} x {r['p']:,}{', sparse' if r['sparse'] else ''})"
        experiment = f"{r['experiment_seconds_per_pass'] * 1e3:.3f}"
        if r["release_seconds_per_pass"] is None:
            lines.append(f"| {r['algorithm']} | {shape} | {r['loss']} + {r['penalty']} | refused | {experiment} | - | - | "
                         "- |")
            continue
        noise = "exact, on a grid" if r["grid_noise"] else "floating point (as the experiment)"
        lines.append(f"| {r['algorithm']} | {shape} | {r['loss']} + {r['penalty']} | {noise} | {experiment} | "
                     f"{r['release_seconds_per_pass'] * 1e3:.3f} | {r['ratio']:.2f} | "
                     f"<= {FLOOR:g} {'ok' if r['meets_floor'] else 'MISSED'} |")
    lines += ["", "Kernel time per pass after compilation (epsilon = 1, delta = 1e-6, 5 passes (DP-SGD 0.2), default "
              "options: DP-SGD's batch of 1), "
              "marginal as in `shapes`; a release's grid noise is computed once per setting (cached) and not "
              "counted. A release draws its seed from the OS (`ReleaseSeed`), an experiment is seeded. DP-CD "
              "and DP-SGD releases draw an exact discrete Gaussian integer per released entry (p a step for DP-SGD), "
              "and DP-GCD p + 1 discrete Laplace "
              "integers per iteration, one per coordinate for its selection and one for its released entry; "
              "DP-SCD's release draws L + p discrete Gaussians a mini-batch, one lazily summed per member's dual "
              "and one per entry of v (`privcd.kernels.discrete_noise`). SEQDP-SCD's release is refused."]
    return "\n".join(lines)
