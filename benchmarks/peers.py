"""privcd's DP-SGD against Opacus (the `bench` extra) doing the same work: a one-layer logistic
model on the 20,640 x 8 shape, same batch size, passes, epsilon and delta, Poisson sampling."""
import time
import warnings

import numpy as np

import privcd
from benchmarks.harness import median_seconds
from benchmarks.shapes import make_X

N, P = 20_640, 8
BATCH_SIZE, PASSES, EPSILON, STEP, CLIP = 256, 5, 1.0, 0.5, 1.0
DELTA = 1.0 / N**2
FLOOR = 50.0  # issue 7: privcd's DP-SGD at least 50x faster than Opacus for the same work


def problem():
    X = make_X(N, P, None)
    y = np.where(X @ np.random.default_rng(1).normal(size=P) > 0, 1.0, -1.0)
    return privcd.Problem(X, y, "logistic", constants="data")


def privcd_seconds(problem, repeats):
    """``(training, end to end)``: median kernel seconds of the fit (``Run.seconds``) and of the
    whole ``privcd.fit`` call (calibration cached after the first, objective at every pass)."""
    arguments = dict(epsilon=EPSILON, delta=DELTA, passes=PASSES, step=STEP, clip=CLIP, batch_size=BATCH_SIZE,
                     accountant="pld")  # PLD reads Poisson sampling, as Opacus samples
    runs = []
    total = median_seconds(lambda: runs.append(privcd.fit(problem, "dp-sgd", **arguments)), repeats)
    return float(np.median([run.seconds for run in runs[-repeats:]])), total, runs[-1]


def opacus_seconds(problem, repeats):
    """Median seconds of Opacus's training loop (``make_private_with_epsilon`` excluded; default
    float32 tensors and torch threads, as a user would run it) and of the whole setup + training."""
    import opacus
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    # Opacus warns about its non-cryptographic RNG, its RDP orders and a backward hook; none of it
    # changes the work timed here.
    warnings.filterwarnings("ignore", category=UserWarning, module=r"(opacus|torch|benchmarks)\.")
    X = torch.tensor(problem.X, dtype=torch.float32)
    y = torch.tensor((problem.y > 0).astype(np.float32))
    training, total = [], []
    for repeat in range(repeats):
        start = time.perf_counter()
        torch.manual_seed(repeat)
        model = torch.nn.Linear(P, 1, bias=False)
        engine = opacus.PrivacyEngine(accountant="rdp")
        model, optimizer, loader = engine.make_private_with_epsilon(
            module=model, optimizer=torch.optim.SGD(model.parameters(), lr=STEP),
            data_loader=DataLoader(TensorDataset(X, y), batch_size=BATCH_SIZE), target_epsilon=EPSILON,
            target_delta=DELTA, epochs=PASSES, max_grad_norm=CLIP)
        loss = torch.nn.BCEWithLogitsLoss()
        train_start = time.perf_counter()
        for _ in range(PASSES):
            for xb, yb in loader:
                optimizer.zero_grad()
                loss(model(xb).squeeze(-1), yb).backward()
                optimizer.step()
        training.append(time.perf_counter() - train_start)
        total.append(time.perf_counter() - start)
    return (float(np.median(training)), float(np.median(total)), engine.get_epsilon(DELTA),
            optimizer.noise_multiplier, torch.get_num_threads())


def run(quick):
    """A dict of both times and ratios, or ``{"skipped": reason}`` without torch and opacus."""
    try:
        import opacus  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        return {"skipped": f"Opacus peer skipped: {error.name} is not installed "
                           "(pip install -e '.[bench]' installs torch and opacus)"}
    data = problem()
    repeats = 1 if quick else 3
    privcd_train, privcd_total, last = privcd_seconds(data, 3 if quick else 7)
    opacus_train, opacus_total, opacus_epsilon, opacus_noise, threads = opacus_seconds(data, repeats)
    return {"n": N, "p": P, "batch_size": BATCH_SIZE, "passes": PASSES, "epsilon_target": EPSILON, "delta": DELTA,
            "privcd_training_seconds": privcd_train, "privcd_fit_seconds": privcd_total,
            "privcd_epsilon": last.epsilon, "privcd_noise_multiplier": last.noise_multiplier,
            "opacus_training_seconds": opacus_train, "opacus_total_seconds": opacus_total,
            "opacus_epsilon": opacus_epsilon, "opacus_noise_multiplier": opacus_noise,
            "torch_threads": threads, "speedup_training": opacus_train / privcd_train,
            "speedup_end_to_end": opacus_total / privcd_total, "floor": FLOOR,
            "meets_floor": bool(opacus_train / privcd_train >= FLOOR)}


def markdown(result):
    if "skipped" in result:
        return result["skipped"] + "."
    r = result
    return "\n".join([
        "| | privcd DP-SGD | Opacus DP-SGD | privcd faster by |", "|---|---|---|---|",
        f"| training (s) | {r['privcd_training_seconds']:.4f} | {r['opacus_training_seconds']:.3f} | "
        f"{r['speedup_training']:.0f}x (floor {r['floor']:g}x: {'ok' if r['meets_floor'] else 'MISSED'}) |",
        f"| setup + training (s) | {r['privcd_fit_seconds']:.4f} | {r['opacus_total_seconds']:.3f} | "
        f"{r['speedup_end_to_end']:.0f}x |",
        f"| epsilon achieved | {r['privcd_epsilon']:.4f} (PLD, replace-one) | "
        f"{r['opacus_epsilon']:.4f} (RDP, add/remove) | |",
        "", f"Logistic model without intercept on {r['n']:,} x {r['p']} Gaussian data, batch {r['batch_size']} "
        f"(Poisson sampling), {r['passes']} passes, epsilon = {r['epsilon_target']:g}, delta = 1/n^2, clip 1. privcd "
        "training = kernel time of `privcd.fit` (`Run.seconds`); setup + training = the whole `privcd.fit` call "
        "(calibration cached in-process after the first call, objective at every pass). Opacus: float32, "
        f"{r['torch_threads']} torch threads; setup = `make_private_with_epsilon` (its calibration)."])
