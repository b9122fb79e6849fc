"""privcd's scikit-learn estimators against diffprivlib's (issue 23): ``python -m benchmarks estimators``.

Data: adult, electricity and phishing (classification, test accuracy) and california (regression, test R^2),
prepared by privcd's ``dp-scd`` recipe (categoricals one-hot, columns divided by their largest
absolute value, every row scaled to unit L2 norm; adult's given test file, a 75/25 split
otherwise), training on the whole training part (train and validation). Both libraries get the same
arrays and the public bound ``||x_i|| <= 1``:

* privcd: ``DPLogisticRegression(epsilon=, data_norm=1, classes=)`` and ``DPLinearRegression(epsilon=,
  data_norm=1, y_bound=)`` with ``y_bound`` from the same training targets' range as diffprivlib's ``bounds_y``
  with every other parameter at its default (the classifier DP-SGD, clipped at the largest
  gradient norm at w = 0, the regressor DP-CD-P; passes from DP-CD's convex rate, step 1,
  delta = 1/n^2): (epsilon, delta)-DP;
* diffprivlib 0.6.6: ``LogisticRegression(epsilon=, data_norm=1)`` and ``LinearRegression(epsilon=,
  bounds_X=(-1, 1), bounds_y=)`` with ``bounds_y`` the training targets' range (favourable to it:
  read off the data): epsilon-DP (delta = 0).

diffprivlib 0.6.6 does not import beside scikit-learn >= 1.7, so it runs in its own environment,
made on first use (``python -m venv`` and pip, ``PEER_REQUIREMENTS``) at ``$PRIVCD_PEER_ENV`` or
``~/.cache/privcd/peer-diffprivlib``, by :mod:`benchmarks.diffprivlib_worker`. Without it (no
package index) the section reports privcd alone and says why.

Times are of ``fit`` alone, after one untimed fit per dataset (numba's compilation or cache load,
diffprivlib's imports); privcd's in-process calibration cache is cleared before every timed fit, so
each pays its own noise calibration.

privcd's seeded fits are reproducible experiments; its releases (``random_state=None``, what a user
gets) draw secret noise, and a DP-SGD release adds discrete Gaussian noise on a grid accounted by
RDP (:mod:`privcd.privacy.grid_sum`), more than an experiment's PLD. Both are scored, the releases
untimed (they reuse one calibration per cell).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness import MIRROR

DATASETS = {"adult": "classification", "electricity": "classification", "phishing": "classification",
            "california": "regression"}  # phishing: a dataset no other benchmark tunes on (issue 38)
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
SEEDS = tuple(range(10))
PEER_REQUIREMENTS = ("scikit-learn==1.6.1", "diffprivlib==0.6.6")
PEER_ENV = Path(os.environ.get("PRIVCD_PEER_ENV", Path.home() / ".cache" / "privcd" / "peer-diffprivlib"))
WORKER = Path(__file__).with_name("diffprivlib_worker.py")
GOALS = {"utility_from_epsilon": 0.5, "speed_up": 10.0}  # issue 23
# What a user gets (random_state=None): each fit's noise from secret OS entropy, a DP-SGD release's on
# a grid and accounted by RDP (privcd.privacy.grid_sum), so more than the seeded experiment's (PLD).
RELEASE = "privcd release"
# Private tuning (issue 38): DPLogisticRegression on adult at epsilon 1 over half, one and two times
# the default step and clip (R' / 2 with R' = sqrt(2)), against each grid point fitted alone at epsilon 1.
TUNING_EPSILON = 1.0
TUNING_GRID = {"step": [0.5, 1.0, 2.0], "clip": [0.5**0.5 / 2, 0.5**0.5, 2 * 0.5**0.5]}


def load(name):
    """``(X, y, X_test, y_test)`` of the ``dp-scd`` recipe, the training part whole."""
    from privcd.data import load_dataset
    data = load_dataset(name, preprocessing="dp-scd", mirror=MIRROR)
    X = np.vstack([data.X, data.validation.X])
    y = np.concatenate([data.y, data.validation.y])
    return X, y, np.asarray(data.test.X), data.test.y


def privcd_estimator(task, epsilon, seed, y):
    """privcd's estimator for ``task``; a regressor gets the targets' bound diffprivlib gets
    (``bounds_y``, the training targets' range), a classifier the label set."""
    from privcd.estimators import DPLinearRegression, DPLogisticRegression
    if task == "classification":
        return DPLogisticRegression(epsilon=epsilon, data_norm=1.0, classes=np.unique(y), random_state=seed)
    return DPLinearRegression(epsilon=epsilon, data_norm=1.0, y_bound=float(np.max(np.abs(y))), random_state=seed)


def privcd_rows(data, epsilons, seeds):
    """Test score and fit seconds of privcd's estimators, and the non-private scikit-learn model's score."""
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from privcd.privacy.calibration import _calibrate_cached
    rows = []
    for name, task in DATASETS.items():
        X, y, X_test, y_test = data[name]
        for seed in (0, None):  # compilation / cache load of the experiment's and the release's kernels, not timed
            privcd_estimator(task, 1.0, seed, y).fit(X, y)
        for epsilon in epsilons:
            for library, seed in [("privcd", seed) for seed in seeds] + [(RELEASE, None)] * len(seeds):
                if library == "privcd":  # timed: each experiment pays its calibration; releases reuse theirs
                    _calibrate_cached.cache_clear()
                model = privcd_estimator(task, epsilon, seed, y)
                start = time.perf_counter()
                model.fit(X, y)
                seconds = time.perf_counter() - start if library == "privcd" else np.nan
                rows.append({"dataset": name, "library": library, "epsilon": epsilon, "seed": seed,
                             "score": float(model.score(X_test, y_test)), "seconds": seconds,
                             "achieved_epsilon": model.epsilon_, "delta": model.delta_})
        reference = LogisticRegression(max_iter=1000) if task == "classification" else LinearRegression()
        rows.append({"dataset": name, "library": "non-private", "epsilon": np.inf, "seed": 0,
                     "score": float(reference.fit(X, y).score(X_test, y_test)), "seconds": np.nan,
                     "achieved_epsilon": np.inf, "delta": 0.0})
    return rows


def tuning(data, seeds):
    """Test accuracy on adult of ``tune=TUNING_GRID`` at epsilon 1 in all (Papernot and Steinke 2022,
    Theorem 2), against each grid point fitted alone at epsilon 1: medians over the seeds, the
    achieved epsilons and the selected points."""
    from privcd.estimators import DPLogisticRegression
    X, y, X_test, y_test = data["adult"]
    model = lambda seed, **settings: DPLogisticRegression(epsilon=TUNING_EPSILON, data_norm=1.0, classes=np.unique(y),
                                                          random_state=seed, **settings).fit(X, y)
    untuned = [{"step": step, "clip": clip,
                "score": float(np.median([model(seed, step=step, clip=clip).score(X_test, y_test) for seed in seeds]))}
               for step in TUNING_GRID["step"] for clip in TUNING_GRID["clip"]]
    tuned = [model(seed, tune=TUNING_GRID) for seed in seeds]
    scores = [fitted.score(X_test, y_test) for fitted in tuned]
    return {"untuned": untuned, "tuned": float(np.median(scores)), "low": float(min(scores)),
            "high": float(max(scores)), "epsilons": [float(fitted.epsilon_) for fitted in tuned],
            "selected": [(params[0]["step"], params[0]["clip"]) for params in (f.best_params_ for f in tuned)],
            "seeds": len(seeds)}


def peer_python():
    """The peer environment's Python, made when missing; ``(path, None)`` or ``(None, reason)``."""
    python = PEER_ENV / "bin" / "python"
    check = [str(python), "-c", "import diffprivlib"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python, None
    try:
        subprocess.run([sys.executable, "-m", "venv", str(PEER_ENV)], check=True, capture_output=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_REQUIREMENTS], check=True,
                       capture_output=True, text=True)
    except subprocess.CalledProcessError as error:
        return None, f"could not set up {PEER_ENV} with {' '.join(PEER_REQUIREMENTS)}: {(error.stderr or '')[-300:]}"
    return python, None


def peer_rows(data, epsilons, seeds):
    """diffprivlib's rows (run by its environment) and its versions, or ``([], reason)``."""
    python, reason = peer_python()
    if python is None:
        return [], reason
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        arrays = {f"{name}_{part}": value for name, parts in data.items()
                  for part, value in zip(("X", "y", "X_test", "y_test"), parts)}
        np.savez(folder / "data.npz", **arrays)
        y = data["california"][1]
        spec = {"datasets": DATASETS, "epsilons": list(epsilons), "seeds": list(seeds),
                "bounds_y": [float(y.min()), float(y.max())]}
        (folder / "spec.json").write_text(json.dumps(spec))
        done = subprocess.run([str(python), str(WORKER), str(folder / "data.npz"), str(folder / "spec.json"),
                               str(folder / "out.json")], capture_output=True, text=True)
        if done.returncode != 0:
            return [], f"diffprivlib's worker failed: {done.stderr[-500:]}"
        out = json.loads((folder / "out.json").read_text())
    rows = [{**row, "library": "diffprivlib", "achieved_epsilon": row["epsilon"], "delta": 0.0} for row in out["rows"]]
    return rows, f"diffprivlib {out['versions']['diffprivlib']} with scikit-learn {out['versions']['scikit-learn']}"


def summary(frame):
    """Per (dataset, epsilon, library): median, min and max score, median seconds."""
    private = frame[frame.library != "non-private"]
    return (private.groupby(["dataset", "epsilon", "library"])
            .agg(score=("score", "median"), low=("score", "min"), high=("score", "max"), seconds=("seconds", "median"))
            .reset_index())


def redraw(output):
    """Draw the figure again from a run's ``estimators.csv`` (no fits)."""
    folder = Path(output) / "estimators"
    frame = pd.read_csv(folder / "estimators.csv")
    draw(frame, summary(frame), folder / "estimators.png")


def run(quick, output):
    epsilons, seeds = ((1.0,), (0, 1)) if quick else (EPSILONS, SEEDS)
    data = {name: load(name) for name in DATASETS}
    rows = privcd_rows(data, epsilons, seeds)
    peer, peer_note = peer_rows(data, epsilons, seeds)
    frame = pd.DataFrame(rows + peer)
    folder = Path(output) / "estimators"
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_csv(folder / "estimators.csv", index=False)
    table = summary(frame)
    draw(frame, table, folder / "estimators.png")
    tuned = tuning(data, seeds)
    sizes = {name: {"train": int(parts[0].shape[0]), "test": int(parts[2].shape[0]), "features": int(parts[0].shape[1])}
             for name, parts in data.items()}
    return {"table": table.to_dict(orient="records"), "peer": peer_note, "sizes": sizes, "quick": quick,
            "tuning": tuned,
            "non_private": frame[frame.library == "non-private"][["dataset", "score"]].to_dict(orient="records")}


def markdown(r):
    table = pd.DataFrame(r["table"])
    reference = {row["dataset"]: row["score"] for row in r["non_private"]}
    lines = [f"Peer: {r['peer']}. Datasets (train / test / features): "
             + ", ".join(f"{name} {s['train']:,} / {s['test']:,} / {s['features']}" for name, s in r["sizes"].items())
             + ". Score: test accuracy (classification) or R^2 (california), median [min, max] over the seeds "
             "(privcd: seeded experiments; privcd release: as many fits with random_state=None, what a user gets); "
             "seconds: median fit time of the experiments. privcd is (epsilon, 1/n^2)-DP, diffprivlib epsilon-DP "
             "(delta = 0).", "",
             "| dataset | epsilon | privcd | privcd release | diffprivlib | privcd s | diffprivlib s | speed-up "
             "| better | better (release) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for (dataset, epsilon), group in table.groupby(["dataset", "epsilon"], sort=False):
        by = {row.library: row for row in group.itertuples()}
        ours, released, theirs = by.get("privcd"), by.get(RELEASE), by.get("diffprivlib")
        cell = lambda row: "n/a" if row is None else f"{row.score:.3f} [{row.low:.3f}, {row.high:.3f}]"
        ratio = None if theirs is None else theirs.seconds / ours.seconds
        speed = "n/a" if ratio is None else f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"
        better = lambda row: ("n/a" if theirs is None or row is None else "tie" if row.score == theirs.score
                              else "privcd" if row.score > theirs.score else "diffprivlib")
        lines.append(f"| {dataset} | {epsilon:g} | {cell(ours)} | {cell(released)} | {cell(theirs)} | "
                     f"{ours.seconds:.3f} | {'n/a' if theirs is None else f'{theirs.seconds:.2f}'} | {speed} | "
                     f"{better(ours)} | {better(released)} |")
    lines += ["", "Non-private scikit-learn on the same arrays: "
              + ", ".join(f"{name} {score:.3f}" for name, score in reference.items()) + "."]
    return "\n".join(lines + tuning_markdown(r["tuning"]))


def tuning_markdown(t):
    """The private tuning's lines: each grid point alone, the tuned fit, the gap to the best point."""
    best = max(point["score"] for point in t["untuned"])
    lines = ["", f"Private tuning on adult (DPLogisticRegression, median test accuracy of {t['seeds']} seeds): each "
             f"grid point fitted alone at epsilon {TUNING_EPSILON:g}, and `tune=` over the whole grid at epsilon "
             f"{TUNING_EPSILON:g} in all (achieved {min(t['epsilons']):.4f}-{max(t['epsilons']):.4f}).", "",
             "| step, clip | " + " | ".join(f"{clip:.3f}" for clip in TUNING_GRID["clip"]) + " |",
             "|---|" + "---|" * len(TUNING_GRID["clip"])]
    for step in TUNING_GRID["step"]:
        row = [point["score"] for point in t["untuned"] if point["step"] == step]
        lines.append(f"| {step:g} | " + " | ".join(f"{score:.3f}" for score in row) + " |")
    picks = pd.Series([f"step {step:g}, clip {clip:.3f}" for step, clip in t["selected"]]).value_counts()
    lines += ["", f"Tuned: {t['tuned']:.3f} [{t['low']:.3f}, {t['high']:.3f}], {best - t['tuned']:.3f} below the best "
              f"grid point ({best:.3f}); selected: " + ", ".join(f"{name} ({count})" for name, count in picks.items())
              + "."]
    return lines


def draw(frame, table, path):
    """Score against epsilon per dataset: medians with their range, the non-private score dashed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(DATASETS), figsize=(4.2 * len(DATASETS), 3.4), constrained_layout=True)
    for ax, (name, task) in zip(axes, DATASETS.items()):
        for library, color, style in (("privcd", "C0", "o-"), (RELEASE, "C0", "s--"), ("diffprivlib", "C3", "o-")):
            part = table[(table.dataset == name) & (table.library == library)]
            if part.empty:
                continue
            ax.plot(part.epsilon, part.score, style, color=color,
                    label="privcd (seeded experiment)" if library == "privcd" else library)
            ax.fill_between(part.epsilon, part.low, part.high, color=color, alpha=0.1 if library == RELEASE else 0.2)
        reference = frame[(frame.dataset == name) & (frame.library == "non-private")].score
        ax.axhline(float(reference.iloc[0]), color="k", ls="--", lw=1, label="non-private")
        ax.set_xscale("log")
        ax.set_xlabel("epsilon")
        ax.set_ylabel("test accuracy" if task == "classification" else "test R^2")
        if task == "regression":  # diffprivlib's R^2 is below -1000 here: say so rather than squash the axis
            ours = table[(table.dataset == name) & table.library.isin(["privcd", RELEASE])]
            low = min(0.0, float(ours.low.min())) - 0.05
            ax.set_ylim(low, float(reference.iloc[0]) + 0.05)
            below = table[(table.dataset == name) & (table.library == "diffprivlib") & (table.score < low)]
            if not below.empty:
                ax.text(0.03, 0.04, "diffprivlib off the axis: median R^2 from "
                        f"{below.score.max():,.0f} to {below.score.min():,.0f}", transform=ax.transAxes, fontsize=7,
                        color="C3")
        ax.set_title(name)
        ax.legend(fontsize=8)
    figure.suptitle("privcd's estimators (defaults, (eps, 1/n^2)-DP) vs diffprivlib (eps-DP): median and range over seeds")
    figure.savefig(path, dpi=120)
    plt.close(figure)
