"""Problem set-up: the seconds to build a :class:`privcd.Problem` (its private copy of X) and its
global smoothness constant beta (``Problem.beta``: the Gram matrix of the shorter side and LAPACK,
:func:`privcd.kernels.spectral.top_gram_eigenvalue_bound`), on dense Gaussian data whose top
eigenvalues crowd together and on the sparse dorothea shape."""
import time

import numpy as np

import privcd
from benchmarks.shapes import SPARSE_SHAPE, make_X

SHAPES = [("dense", 200_000, 400, None), ("dense", 100_000, 200, None), SPARSE_SHAPE]


def run(quick):
    """Median seconds over 3 builds (1 with ``quick``) of each shape's logistic Problem and beta."""
    rows = []
    for name, n, p, density in SHAPES:
        X = make_X(n, p, density)
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        construct, beta = [], []
        for _ in range(1 if quick else 3):
            start = time.perf_counter()
            problem = privcd.Problem(X, y, "logistic", "l2", 1e-3)
            middle = time.perf_counter()
            problem.beta  # noqa: B018  (computed and cached here)
            construct.append(middle - start)
            beta.append(time.perf_counter() - middle)
        rows.append({"shape": name, "n": n, "p": p, "density": density, "construct_seconds": float(np.median(construct)),
                     "beta_seconds": float(np.median(beta))})
    return {"rows": rows}


def markdown(r):
    lines = ["| X | n | p | Problem(...) s | beta s | total s |", "|---|---|---|---|---|---|"]
    for row in r["rows"]:
        kind = row["shape"] if row["density"] is None else f"sparse {row['density']:g}"
        lines.append(f"| {kind} | {row['n']:,} | {row['p']:,} | {row['construct_seconds']:.2f} | "
                     f"{row['beta_seconds']:.2f} | {row['construct_seconds'] + row['beta_seconds']:.2f} |")
    return "\n".join(lines)
