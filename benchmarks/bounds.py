"""What bounds the kernels that miss the issues' ceilings: the work a pass cannot skip, timed alone.

A DP-CD pass on dense X takes p coordinate steps, each one pass over the n samples that updates the
residuals and sums the clipped derivatives (``kernels/linalg.py::lagged_clipped_gradient_sum``);
a DP-SGD pass with batch size 1 takes n steps, each drawing p Gaussian normals. On a wide sparse X,
a DP-CD step reads a few entries but has a fixed cost: it draws its coordinate and normal from the
run's PCG64 generator (``kernels/dp_cd.py::draw_block``) and sums its column in the fixed order of
32 partial sums (``kernels/partial_sums.py``) that keeps sparse X bit-identical to dense X. A DP-SCD
pass on it takes n / L mini-batches, each drawing L + p normals (the noise on alpha_B and on every
entry of v) and reading its L rows twice: their dot products with v, then their updates of v.
Timing those pieces alone, on the shapes of ``shapes.py``, gives the least time a pass can take
with them, as a ratio to the hardware bound (one ``X.T @ r``, one thread): the ratio no schedule of
the same arithmetic can beat on this machine, to set beside the issue's ceiling of 3.
"""
import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

from privcd.algorithms.dp_scd import OPTIONS as DP_SCD_OPTIONS
from privcd.kernels.dp_cd import BLOCK_ITERATIONS, ORDER_UNIFORM, draw_block
from privcd.kernels.gaussian import fill_standard_normal, fill_standard_normal_parallel
from privcd.kernels.layout import column_arrays, row_arrays
from privcd.kernels.linalg import lagged_clipped_gradient_sum
from privcd.kernels.partial_sums import scratch
from privcd.kernels.prefetch import prefetch_column
from benchmarks.harness import hardware_bound_seconds, median_seconds
from benchmarks.shapes import SPARSE_SHAPE, make_problem, make_X

SHAPES = [("california", 20_640, 8), ("square", 1_000, 1_000)]
CEILING = 3.0  # issues 2 and 7: DP-CD and DP-SGD per pass at most 3x one X.T @ r
NORMALS = 2**16  # normals a timing of the draws fills
ROWS_PER_BLOCK = 32  # rows of 1,000 normals one parallel draw fills (DP-SGD's block on 1,000 x 1,000)


@njit
def coordinate_passes(is_sparse, Xf, data, indices, indptr, y, loss_code, z, work, steps):
    """``steps`` DP-CD coordinate passes over the samples, coordinates in turn, each with a lag to
    apply (a call from Python would cost more than a pass over 1,000 samples); the sum of the
    gradient entries, so that nothing is left out."""
    p = Xf.shape[1]
    total = 0.0
    for t in range(steps):
        j = t % p
        total += lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, (j + p - 1) % p, 1e-12, j, z, y,
                                             loss_code, 1.0, work)
    return total


def coordinate_pass_seconds(problem, repeats):
    """Median time of one DP-CD coordinate pass over the samples (residual update, clipped
    derivatives, sum), from a loop of passes that takes at least a millisecond."""
    arguments = (*column_arrays(problem), problem.y, problem.loss.code, np.zeros(problem.n_samples),
                 scratch(problem.n_samples))
    steps = max(1, 200_000 // problem.n_samples)
    coordinate_passes(*arguments, 1)  # compile
    return median_seconds(lambda: coordinate_passes(*arguments, steps), repeats, minimum_seconds=0.2) / steps


@njit
def random_column_sums(Xf, data, indices, indptr, y, loss_code, z, work, coordinates):
    """The clipped sums of DP-CD's sparse steps over the columns ``coordinates`` (each with the
    previous column's lag, each requesting the columns ahead as the kernel does), nothing else; their
    total, so that nothing is left out."""
    block = coordinates.shape[0]
    total = 0.0
    lag_j = coordinates[0]
    for t in range(block):
        prefetch_column(data, indices, indptr, coordinates, t, block)
        j = coordinates[t]
        total += lagged_clipped_gradient_sum(True, Xf, data, indices, indptr, lag_j, 1e-12, j, z, y, loss_code, 1.0,
                                             work)
        lag_j = j
    return total


def sparse_step_seconds(repeats):
    """Median seconds a DP-CD step on the sparse shape spends (a) drawing its coordinate and normal
    and (b) summing its column's clipped terms (random columns, per loss); the bound, sparse
    ``X.T @ r``."""
    name, n, p, density = SPARSE_SHAPE
    rng = np.random.default_rng(0)
    coordinates = np.empty(BLOCK_ITERATIONS, dtype=np.int64)
    normals = np.empty(BLOCK_ITERATIONS)
    permutation = np.empty(p, dtype=np.int64)
    draw_block(rng, p, coordinates, normals, BLOCK_ITERATIONS, 0, ORDER_UNIFORM, permutation)
    draws = median_seconds(lambda: draw_block(rng, p, coordinates, normals, BLOCK_ITERATIONS, 0, ORDER_UNIFORM,
                                              permutation), repeats,
                           minimum_seconds=0.2) / BLOCK_ITERATIONS
    columns = np.random.default_rng(1).integers(0, p, size=p)
    X = make_X(n, p, density)
    sums = {}
    for loss, penalty in (("squared", "l1"), ("logistic", "l2")):
        problem = make_problem(X, loss, penalty, 1e-3, False)
        _, Xf, data, indices, indptr = column_arrays(problem)
        arguments = (Xf, data, indices, indptr, problem.y, problem.loss.code, np.zeros(n), scratch(n), columns)
        random_column_sums(*arguments[:-1], columns[:10])  # compile
        sums[loss] = median_seconds(lambda: random_column_sums(*arguments), repeats, minimum_seconds=0.2) / p
    bound, _ = hardware_bound_seconds(problem, repeats)  # X is the same for both losses
    return name, n, p, draws, sums, bound


@njit
def dual_batch_reads(data, indices, indptr, batches, v):
    """The row reads of DP-SCD's mini-batches (``batches``, one row of record indices each): each
    batch's dot products with v, then its rows added to v (a fixed small scale), nothing else;
    the dot products' total, so that nothing is left out."""
    total = 0.0
    for b in range(batches.shape[0]):
        for i in batches[b]:
            for k in range(indptr[i], indptr[i + 1]):
                total += data[k] * v[indices[k]]
        for i in batches[b]:
            for k in range(indptr[i], indptr[i + 1]):
                v[indices[k]] += 1e-12 * data[k]
    return total


def dual_pass_seconds(repeats):
    """Median seconds a DP-SCD pass on the sparse shape spends (a) drawing its n / L mini-batches'
    L + p normals on all threads and (b) reading each batch's rows twice; the bound, sparse
    ``X.T @ r``."""
    name, n, p, density = SPARSE_SHAPE
    L = DP_SCD_OPTIONS["batch_size"]
    problem = make_problem(make_X(n, p, density), "squared", "l2", 1e-3, True)
    _, _, data, indices, indptr = row_arrays(problem)
    batches = np.random.default_rng(2).permutation(n)[:n - n % L].reshape(-1, L)
    v = np.zeros(p)
    dual_batch_reads(data, indices, indptr, batches[:1], v)  # compile
    reads = median_seconds(lambda: dual_batch_reads(data, indices, indptr, batches, v), repeats, minimum_seconds=0.2)
    key, noise = np.uint64(0x5EED), np.empty((1, L + p))
    fill_standard_normal_parallel(key, 0, noise)
    fill = median_seconds(lambda: fill_standard_normal_parallel(key, 0, noise), repeats, minimum_seconds=0.2)
    bound, _ = hardware_bound_seconds(problem, repeats)
    return {"shape": name, "n": n, "p": p, "loss": "any", "sparse": True, "batch_size": L, "bound_seconds": bound,
            "batch_normals_seconds": fill, "row_read_seconds": reads,
            "dp_scd_least_ratio": (len(batches) * fill + reads) / bound}


def normal_seconds(repeats):
    """Median seconds per standard normal: one thread (a 1-D fill) and all threads (a block of rows)."""
    key = np.uint64(0x5EED)
    line = np.empty(NORMALS)
    block = np.empty((ROWS_PER_BLOCK, 1_000))
    fill_standard_normal(key, 0, line)
    fill_standard_normal_parallel(key, 0, block)
    one = median_seconds(lambda: fill_standard_normal(key, 0, line), repeats, minimum_seconds=0.2) / NORMALS
    every = median_seconds(lambda: fill_standard_normal_parallel(key, 0, block), repeats,
                           minimum_seconds=0.2) / block.size
    return one, every


def run(quick):
    repeats = 5 if quick else 21
    per_normal, per_normal_threads = normal_seconds(repeats)
    rows = []
    for name, n, p in SHAPES:
        X = make_X(n, p, None)
        r = np.random.default_rng(0).normal(size=n)
        with threadpool_limits(limits=1, user_api="blas"):
            bound = median_seconds(lambda: X.T @ r, repeats, minimum_seconds=0.2)
        for loss, penalty in (("squared", "l1"), ("logistic", "l2")):
            problem = make_problem(X, loss, penalty, 1e-3, False)
            coordinate = coordinate_pass_seconds(problem, repeats)
            rows.append({"shape": name, "n": n, "p": p, "loss": loss, "bound_seconds": bound,
                         "coordinate_pass_seconds": coordinate,
                         "dp_cd_least_ratio": p * coordinate / bound})
        rows.append({"shape": name, "n": n, "p": p, "loss": "any", "bound_seconds": bound,
                     "normal_seconds": per_normal, "normal_seconds_all_threads": per_normal_threads,
                     "dp_sgd_least_ratio": n * p * per_normal / bound,
                     "dp_sgd_least_ratio_all_threads": n * p * per_normal_threads / bound})
    name, n, p, draws, sums, bound = sparse_step_seconds(repeats)
    for loss, per_column in sums.items():
        rows.append({"shape": name, "n": n, "p": p, "loss": loss, "sparse": True, "bound_seconds": bound,
                     "draw_seconds": draws, "column_sum_seconds": per_column,
                     "dp_cd_least_ratio": p * (draws + per_column) / bound})
    rows.append(dual_pass_seconds(repeats))
    return rows


def markdown(rows):
    lines = ["| shape (n x p) | what a pass must do | ns each | least ms / pass | bound ms (1 thread) | "
             "least ratio to the bound | ceiling |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        shape = f"{r['shape']} ({r['n']:,} x {r['p']:,})"
        bound_ms = r["bound_seconds"] * 1e3
        if "dp_scd_least_ratio" in r:
            batches = r["n"] // r["batch_size"]
            least = batches * r["batch_normals_seconds"] + r["row_read_seconds"]
            lines.append(f"| {r['shape']} ({r['n']:,} x {r['p']:,}, sparse) | DP-SCD, L = {r['batch_size']}: "
                         f"n / L mini-batches, each drawing L + p normals on all threads "
                         f"({r['batch_normals_seconds'] * 1e6:.0f} us) and reading its L rows twice (dot products "
                         f"with v, then v's update; {r['row_read_seconds'] * 1e3:.3f} ms a pass) | "
                         f"{least / batches * 1e9:,.0f} a batch | {least * 1e3:.3f} | {bound_ms:.3f} | "
                         f"{r['dp_scd_least_ratio']:.1f} | {CEILING:g} |")
        elif r.get("sparse"):
            per_step = r["draw_seconds"] + r["column_sum_seconds"]
            lines.append(f"| {r['shape']} ({r['n']:,} x {r['p']:,}, sparse) | DP-CD, {r['loss']}: p steps, each "
                         f"drawing a coordinate and a normal ({r['draw_seconds'] * 1e9:.1f} ns), then applying the "
                         f"last step's change to the residuals and summing a random column in 32 partial sums "
                         f"({r['column_sum_seconds'] * 1e9:.1f} ns) | "
                         f"{per_step * 1e9:.1f} a step | {r['p'] * per_step * 1e3:.3f} | {bound_ms:.3f} | "
                         f"{r['dp_cd_least_ratio']:.1f} | {CEILING:g} |")
        elif "coordinate_pass_seconds" in r:
            per_sample = r["coordinate_pass_seconds"] / r["n"]
            lines.append(f"| {shape} | DP-CD, {r['loss']}: p passes over the n samples (residual update, "
                         f"clipped derivative, sum) | {per_sample * 1e9:.2f} a sample | "
                         f"{r['p'] * r['coordinate_pass_seconds'] * 1e3:.3f} | {bound_ms:.3f} | "
                         f"{r['dp_cd_least_ratio']:.1f} | {CEILING:g} |")
        else:
            for label, per, ratio in (("one thread", r["normal_seconds"], r["dp_sgd_least_ratio"]),
                                      ("all threads", r["normal_seconds_all_threads"],
                                       r["dp_sgd_least_ratio_all_threads"])):
                lines.append(f"| {shape} | DP-SGD, batch 1: n p Gaussian normals ({label}) | {per * 1e9:.2f} a "
                             f"normal | {r['n'] * r['p'] * per * 1e3:.3f} | {bound_ms:.3f} | {ratio:.1f} | "
                             f"{CEILING:g} |")
    lines += ["", "Bound: one `X.T @ r` with one BLAS thread, as the kernels' passes run on one thread (the "
              "shapes section divides by the faster of 1 and all threads); sparse, scipy's product, the faster "
              "of CSC and CSR. "
              "Each piece timed alone (medians), with nothing else of the pass: a pass of the kernel also "
              "draws its random numbers, takes its proximal steps and, for DP-SGD, its dot products, so it "
              "takes longer than *least ms*. A least ratio above the ceiling means the ceiling cannot be met "
              "with this arithmetic on this machine: for the logistic loss, each sample-step evaluates an "
              "`exp` and a division (`numerics/elementary.py::exp`, vectorised); for DP-SGD, each step draws "
              "p Box-Muller normals from the SplitMix64 stream (`kernels/gaussian.py`), whose bits the "
              "runs' reproducibility fixes; on sparse X, each DP-CD step draws from the run's PCG64 "
              "generator and sums in the fixed order that keeps sparse X bit-identical to dense X, a fixed "
              "cost a step where `X.T @ r` spends a few nanoseconds a column."]
    return "\n".join(lines)
