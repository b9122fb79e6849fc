"""Plain numpy DP-SGD: one Python iteration per step, numpy vector operations inside."""
import numpy as np


def run(problem, plan, seed):
    """The update of :mod:`privcd.kernels.dp_sgd` (sampling without replacement) for ``plan``."""
    k = plan.kernel
    rng = np.random.default_rng(seed)
    X = problem.X.toarray() if problem.is_sparse else problem.X
    y = problem.y
    n, p = X.shape
    w = np.zeros(p)
    step, clip, b = k["step"], k["clip"], k["batch_size"]
    threshold = step * problem.lam
    for _ in range(plan.n_iterations):
        batch = rng.choice(n, size=b, replace=False)
        z = X[batch] @ w
        if problem.loss.name == "logistic":
            derivative = -y[batch] / (1.0 + np.exp(y[batch] * z))
        else:
            derivative = 2.0 * (z - y[batch])
        per_sample = derivative[:, None] * X[batch]
        norms = np.linalg.norm(per_sample, axis=1)
        per_sample *= np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]
        noisy = per_sample.sum(axis=0) + k["noise_std"] * rng.standard_normal(p)
        w = w - step / b * noisy
        if problem.penalty.name == "l1":
            w = np.sign(w) * np.maximum(np.abs(w) - threshold, 0.0)
        elif problem.penalty.name == "l2":
            w = w / (1.0 + threshold)
    return w
