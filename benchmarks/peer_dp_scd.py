"""dp-scd's claim checked with its authors' own code: DP-SCD against DP-SGD for the SVM (hinge
loss) on adult, dp-scd Figure 1(c), in the settings of dp-scd Section 5.1, on privcd's adult matrices.

    python -m benchmarks.peer_dp_scd --authors-code PATH [--quick] [--output DIR]

PATH is a checkout of the authors' repository (MIT licence), which this script imports at run time
and never copies or fetches::

    git clone https://github.com/gdamaskinos/dpscd && git -C dpscd checkout 00d593f

The authors' solvers are driven directly, as their ``driver.py::trainEval`` does
(``standaloneSVM.SVM``, ``fit_intercept=False``): DP-SCD is ``solver="PSCD"`` with ``dual=True``
(their Algorithm 1: noise ``sigma sqrt(2) C`` on the lot's duals and on ``v``), DP-SGD is
``solver="SGD"`` (noise ``sigma C`` on the lot's summed clipped subgradients, learning rate
``gamma``); each calibrates ``sigma`` to (epsilon, delta) with their moments accountant
(``accountant.GaussianMomentsAccountant.compute_sigma2``). The data are privcd's
(``load_dataset("adult", preprocessing="dp-scd")``, dp-scd Section 5.1: 24,420 training, 8,141
validation and 16,281 test records of 81 unit-norm coordinates), in place of their driver's
``preprocessor.adult`` and its random 25% validation split.

Protocol (dp-scd Section 5.1): lambda = 1e-5, 10 epochs, delta = 1e-3; per epsilon and algorithm
the configuration of the grid (:data:`GRIDS`) with the best validation accuracy of one run (seed
:data:`SELECTION_SEED`), then the test accuracy of that configuration over :data:`TEST_SEEDS`. The
grids are smaller than the paper's (C, eta in 1e-8..1e4 and L in {5, ..., 2000}: 156 DP-SCD and
2,028 DP-SGD configurations): a run of their pure-Python solvers takes about 7 s (DP-SCD) and 3 s
(DP-SGD) of one core; 30 and 60 configurations per epsilon, with the reasons for each range at
:data:`GRIDS`, make about 8 minutes an epsilon.

Also reported, for each selected DP-SCD configuration: the noise standard deviation of their run
and privcd's for the same (epsilon, L, C) (:func:`noise`).

Adaptations, none of them in the authors' files: ``optimizer.py`` imports ``sympy`` without using
it, so an empty ``sympy`` module is put in ``sys.modules`` when sympy is not installed; their
sigma search, a deterministic function of (epsilon, delta, q, iterations), is memoised across the
grid (:func:`memoise_sigma_search`). Their ``preprocessor.py`` (which imports ``wget`` and needs a
``.copy()`` under pandas 3) is not used.

Not a section of ``python -m benchmarks``: it needs the authors' code and about half an hour.
Writes ``adult_svm.md`` (the table) and ``adult_svm.json`` (every run) under ``--output``.
"""
import argparse
import contextlib
import functools
import importlib.util
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

AUTHORS_REPOSITORY = "https://github.com/gdamaskinos/dpscd"
AUTHORS_COMMIT = "00d593f"
OBTAIN = f"git clone {AUTHORS_REPOSITORY} && git -C dpscd checkout {AUTHORS_COMMIT}"
AUTHORS_FILES = ("optimizer.py", "standaloneLR.py", "standaloneSVM.py", "accountant.py")
MIRROR = "../shared/datasets"

LAMBDA, EPOCHS, DELTA = 1e-5, 10, 1e-3  # dp-scd Section 5.1, adult SVM
EPSILONS = (0.1, 0.5, 1.0, 2.0)
SELECTION_SEED = 1  # the authors' driver default (--seed 1)
TEST_SEEDS = (1, 2, 3, 4, 5)
# Reduced grids (the paper's: C, eta in 1e-8..1e4, L in {5, ..., 2000}). L: five of the paper's
# values from 50 up (smaller lots need more noise per update at the same epsilon). DP-SCD's C: a
# dual hinge update is at most about (lambda N) / L = 0.24 / L, so a larger C clips nothing and
# only scales the noise up (a first scan at epsilon 0.1: validation accuracy 0.52-0.65 at C = 1e-2
# and 0.1, best at C = 1e-4 for L = 50, 500 and 2000); half decades from 1e-5 to 1e-3. DP-SGD: a
# hinge subgradient of a unit-norm row has norm 0 or 1, so clipping at C <= 1 scales every one by
# C, and the run depends on (C, eta) almost only through C eta (lambda w is added unclipped): C x
# eta below covers C eta from 1e-2 to 1e2 in half decades.
GRIDS = {
    "dp-scd": {"L": (50, 200, 500, 1000, 2000), "C": (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 1e-2)},
    "dp-sgd": {"L": (50, 200, 500, 1000, 2000), "C": (0.1, 0.3, 1.0), "eta": (0.1, 1.0, 10.0, 100.0)},
}
QUICK = {"epsilons": (1.0,), "test_seeds": (1, 2),
         "grids": {"dp-scd": {"L": (1000,), "C": (1e-4, 1e-3)},
                   "dp-sgd": {"L": (1000,), "C": (1.0,), "eta": (1.0, 10.0)}}}


class AuthorsCodeError(ValueError):
    """The ``--authors-code`` path is not a checkout of the authors' repository."""


def check_authors_code(path):
    """``path`` as a :class:`Path` if it holds the authors' solver files; :class:`AuthorsCodeError`
    naming the path, what is missing and how to obtain the code otherwise."""
    path = Path(path)
    missing = [name for name in AUTHORS_FILES if not (path / name).is_file()]
    if missing:
        what = "does not exist" if not path.exists() else f"lacks {', '.join(missing)}"
        raise AuthorsCodeError(f"--authors-code {path}: {what}; it must be a checkout of the dp-scd authors' "
                               f"code ({AUTHORS_REPOSITORY}), obtained with: {OBTAIN}")
    return path


def authors_commit(path):
    """The checkout's commit (``git rev-parse --short HEAD``), or ``"unknown"`` outside git."""
    out = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def import_authors_code(path):
    """Their ``standaloneSVM`` module, imported from ``path`` (an empty ``sympy`` stands in when
    sympy is missing: ``optimizer.py`` imports it and never uses it), with the sigma search memoised."""
    sys.path.insert(0, str(path))
    if importlib.util.find_spec("sympy") is None:
        sys.modules["sympy"] = types.ModuleType("sympy")
    memoise_sigma_search(importlib.import_module("accountant"))
    return importlib.import_module("standaloneSVM")


def memoise_sigma_search(accountant):
    """Memoise ``GaussianMomentsAccountant.compute_sigma2`` on (epsilon, delta, q, iterations): it is
    a deterministic search (their moments accountant has no randomness), 5-8 s a call, and DP-SCD
    and DP-SGD with the same L have the same q = L / N and iterations = 10 N / L."""
    search = accountant.GaussianMomentsAccountant.compute_sigma2
    cache = {}

    @functools.wraps(search)
    def memoised(self, eps, delta, q, iters):
        key = (eps, delta, q, iters)
        if key not in cache:
            cache[key] = search(self, eps, delta, q, iters)
        return cache[key]

    accountant.GaussianMomentsAccountant.compute_sigma2 = memoised


def load_adult():
    """privcd's adult for dp-scd (Section 5.1): the training part and the validation and test splits."""
    import privcd
    return privcd.load_dataset("adult", preprocessing="dp-scd", mirror=MIRROR)


def solver_arguments(algorithm, config):
    """Their ``Optimizer`` arguments for one configuration: DP-SCD is dual PSCD with lot L and clip
    C; DP-SGD is SGD with lot L, clip C and learning rate ``gamma = eta`` (dp-scd Section 5.1)."""
    if algorithm == "dp-scd":
        return dict(solver="PSCD", dual=True, C=config["C"], lot_ratio=config["L"])
    return dict(solver="SGD", dual=False, C=config["C"], lot_ratio=config["L"], gamma=config["eta"])


def accuracy(solver, split):
    """Share of ``split``'s labels that the model's sign predicts (their ``predict``: <= 0 is -1)."""
    return float(np.mean(solver.predict(split.X) == split.y))


def fit_once(svm, data, algorithm, config, epsilon, seed):
    """One run of their solver, its log discarded: validation and test accuracy of the final model
    and their sigma; ``{"failed": reason}`` when their code stops it (their driver's
    ``ArithmeticError``: a NaN or infinite loss, or an accountant mismatch)."""
    try:
        with open(os.devnull, "w") as log, contextlib.redirect_stdout(log):
            solver = svm.SVM(fit_intercept=False, seed=seed, eps=epsilon, regularizer=LAMBDA, max_iter=EPOCHS,
                             **solver_arguments(algorithm, config))
            solver.fit(data.X, data.y, data.validation.X, data.validation.y)
    except ArithmeticError as error:
        return {"failed": str(error)}
    return {"validation": accuracy(solver, data.validation), "test": accuracy(solver, data.test),
            "sigma": float(solver.sigma)}


def configurations(grid):
    """The grid's cartesian product, one dict per configuration."""
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


def tune(svm, data, algorithm, grid, epsilon):
    """Every configuration's run with :data:`SELECTION_SEED`; the selected one has the best
    validation accuracy (dp-scd Section 5.1), the first of the grid on ties."""
    runs = [{"config": config, **fit_once(svm, data, algorithm, config, epsilon, SELECTION_SEED)}
            for config in configurations(grid)]
    scored = [run for run in runs if "validation" in run]
    best = max(scored, key=lambda run: run["validation"]) if scored else None
    return runs, best


def seeded_runs(svm, data, algorithm, selected, epsilon, seeds):
    """The selected configuration's runs over ``seeds`` (the selection run reused for its seed)."""
    config = selected["config"]
    return [selected if seed == SELECTION_SEED else {"config": config, **fit_once(svm, data, algorithm, config,
                                                                                  epsilon, seed)}
            for seed in seeds]


def noise(epsilon, selected, n):
    """Noise multiplier and standard deviation on each noised coordinate of a DP-SCD configuration:
    the authors' (their ``sigma``, std ``sigma sqrt(2) C``, dp-scd Lemma 1 and Theorem 1) and
    privcd's for the same (epsilon, L, C) at 10 passes (``privcd.algorithms.dp_scd``: std
    ``z 2 sqrt(2) C``, replace-one sensitivity), under its default accounting (``"pld"``, noise on
    every dual) and under dp-scd Theorem 1 (``"rdp"`` of sampling without replacement, unproven
    for Algorithm 1's noise)."""
    from privcd import privacy
    from privcd.algorithms import dp_scd
    from privcd.algorithms.base import iterations_for
    batch_size, clip = selected["config"]["L"], selected["config"]["C"]
    steps = iterations_for(EPOCHS, n / batch_size)
    result = {"authors": {"z": selected["sigma"], "std": selected["sigma"] * math.sqrt(2.0) * clip}}
    for accountant in ("rdp", "pld"):
        z = privacy.calibrate_subsampled(steps, batch_size=batch_size, n=n, sampling=dp_scd.SAMPLING,
                                         epsilon=epsilon, delta=DELTA, accountant=accountant).noise_multiplier
        result[f"privcd {accountant}"] = {"z": z, "std": z * dp_scd.sensitivity(clip, batch_size)}
    return result


def run(authors_code, quick):
    """Tune and test both algorithms at every epsilon: every run, the selections, their seeded runs
    and, for DP-SCD, the noise of :func:`noise`."""
    svm = import_authors_code(authors_code)
    data = load_adult()
    epsilons, seeds, grids = ((QUICK["epsilons"], QUICK["test_seeds"], QUICK["grids"]) if quick
                              else (EPSILONS, TEST_SEEDS, GRIDS))
    rows = []
    for epsilon, algorithm in itertools.product(epsilons, grids):
        start = time.process_time()
        runs, best = tune(svm, data, algorithm, grids[algorithm], epsilon)
        row = {"epsilon": epsilon, "algorithm": algorithm, "grid": runs, "selected": best,
               "tested": seeded_runs(svm, data, algorithm, best, epsilon, seeds) if best else []}
        if algorithm == "dp-scd" and best:
            row["noise"] = noise(epsilon, best, data.X.shape[0])
        row["cpu_seconds"] = time.process_time() - start
        rows.append(row)
        print(summary(row), flush=True)
    return {"authors_code": str(authors_code), "authors_commit": authors_commit(authors_code), "quick": quick,
            "grids": grids, "test_seeds": seeds, "shape": data.X.shape, "rows": rows}


def test_accuracies(row):
    """The selected configuration's test accuracies (failed runs left out)."""
    return [run["test"] for run in row["tested"] if "test" in run]


def summary(row):
    """A progress line: the selection and its mean test accuracy."""
    chosen = config_text(row["selected"]["config"]) if row["selected"] else "none"
    return (f"epsilon {row['epsilon']:g}, {row['algorithm']}: selected {chosen}, test {cell(row)}, "
            f"{row['cpu_seconds']:.0f} CPU s")


def cell(row):
    """``mean ± std (median)`` of the test accuracies, or that none finished."""
    accuracies = test_accuracies(row)
    if not accuracies:
        return "no run finished"
    return f"{np.mean(accuracies):.4f} ± {np.std(accuracies):.4f} ({np.median(accuracies):.4f})"


def config_text(config):
    return ", ".join(f"{key} {value:g}" for key, value in config.items())


def comparison_table(rows, seeds):
    """Their DP-SCD against their DP-SGD per epsilon (dp-scd Figure 1(c))."""
    by = {(row["epsilon"], row["algorithm"]): row for row in rows}
    lines = ["| epsilon | their DP-SCD: test accuracy | their DP-SGD: test accuracy | DP-SCD - DP-SGD |",
             "|---|---|---|---|"]
    for epsilon in sorted({row["epsilon"] for row in rows}):
        scd, sgd = by[epsilon, "dp-scd"], by[epsilon, "dp-sgd"]
        gap = np.mean(test_accuracies(scd)) - np.mean(test_accuracies(sgd))
        lines.append(f"| {epsilon:g} | {cell(scd)} | {cell(sgd)} | {gap:+.4f} |")
    return lines + ["", f"Mean ± standard deviation (median) of the test accuracy over seeds "
                        f"{', '.join(map(str, seeds))} of the configuration with the best validation accuracy "
                        f"(seed {SELECTION_SEED})."]


def selection_table(rows):
    """Per (epsilon, algorithm): the selected configuration, its validation accuracy and sigma."""
    lines = ["| epsilon | algorithm | selected | validation accuracy | their sigma | failed runs in grid |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        chosen = row["selected"] or {"config": {}, "validation": math.nan, "sigma": math.nan}
        failed = sum("failed" in run for run in row["grid"])
        lines.append(f"| {row['epsilon']:g} | {row['algorithm']} | {config_text(chosen['config']) or 'none'} | "
                     f"{chosen['validation']:.4f} | {chosen['sigma']:.4g} | {failed} of {len(row['grid'])} |")
    return lines


def noise_table(rows):
    """The noise of each selected DP-SCD configuration, theirs and privcd's (:func:`noise`)."""
    lines = ["Noise of the selected DP-SCD configuration on each dual of the lot and each coordinate of v, "
             "std (multiplier): the authors' `sigma sqrt(2) C` (their moments accountant, sensitivity sqrt(2) C, "
             "dp-scd Lemma 1) and privcd's `z 2 sqrt(2) C` (replace-one sensitivity) for the same (epsilon, L, C):",
             "", "| epsilon | L, C | authors | privcd, dp-scd Theorem 1 (RDP, unproven) | privcd default (PLD) |",
             "|---|---|---|---|---|"]
    for row in rows:
        if "noise" in row:
            cells = " | ".join(f"{row['noise'][key]['std']:.3g} ({row['noise'][key]['z']:.3g})"
                               for key in ("authors", "privcd rdp", "privcd pld"))
            lines.append(f"| {row['epsilon']:g} | {row['selected']['config']['L']}, "
                         f"{row['selected']['config']['C']:g} | {cells} |")
    return lines


def grid_text(grids):
    """The grids, one sentence."""
    return "Grids (every combination): " + "; ".join(
        f"{algorithm}: " + ", ".join(f"{key} in {{{', '.join(f'{value:g}' for value in values)}}}"
                                     for key, values in grid.items())
        for algorithm, grid in grids.items()) + "."


def markdown(result, wall_seconds):
    """The comparison table, the selections, the noise table, the grids and the run's provenance."""
    rows = result["rows"]
    n, p = result["shape"]
    return "\n".join(
        comparison_table(rows, result["test_seeds"]) + [""] + selection_table(rows) + [""] + noise_table(rows)
        + ["", grid_text(result["grids"]), "",
           f"Authors' code {result['authors_commit']} ({AUTHORS_REPOSITORY}); privcd's adult (dp-scd preprocessing), "
           f"{n:,} x {p} training records; lambda {LAMBDA:g}, {EPOCHS} epochs, delta {DELTA:g}; "
           f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {platform.platform()}, wall time {wall_seconds:,.0f} s"
           f"{' (--quick)' if result['quick'] else ''}."])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors-code", type=Path, required=True,
                        help=f"checkout of the dp-scd authors' code: {OBTAIN}")
    parser.add_argument("--quick", action="store_true", help="epsilon 1 and a 2-configuration grid (a smoke run)")
    parser.add_argument("--output", type=Path, default=Path("results/peer_dp_scd"))
    args = parser.parse_args(argv)
    try:
        authors_code = check_authors_code(args.authors_code)
    except AuthorsCodeError as error:
        parser.error(str(error))
    start = time.perf_counter()
    result = run(authors_code.resolve(), args.quick)
    wall = time.perf_counter() - start
    text = markdown(result, wall)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "adult_svm.json").write_text(json.dumps({**result, "wall_seconds": wall}, indent=1) + "\n")
    (args.output / "adult_svm.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
