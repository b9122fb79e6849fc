"""Peak resident memory of a tuning chunk, in a fresh process (``VmHWM`` of ``/proc/self/status``), against the
size of X plus ``configurations x (n + p)`` doubles (one iterate and one residual per
configuration, what a batched kernel would hold at once): the grid benchmark's chunk (20,640 x 8),
and a chunk of the coordinate methods on the sparse shape (800 x 100,000 at 1%), where anything a
run holds per coordinate is multiplied by the chunk's runs (a chunk plans every run before it
starts them; plans hold scalars, ``tests/test_algorithms.py``).

The chunk's increment is the process's peak RSS after the chunk minus its resident size just
before it: exact when the chunk raised the peak, an upper bound otherwise (the peak is then an
earlier one, e.g. numba compiling in the warm-up when its disk cache is cold). The peak is the
address space's high-water mark, not ``getrusage``'s ``ru_maxrss``, which Linux carries over an
``exec`` from the forked parent: after the Opacus section had loaded torch into the benchmark
process, every fresh process reported that process's 1.1 GB as its peak."""
from benchmarks import grid
from benchmarks.harness import run_python
from benchmarks.shapes import SPARSE_SHAPE, make_problem, make_X

WIDE_ALGORITHMS = ("dp-cd", "dp-gcd")  # coordinate methods: arrays per coordinate
WIDE_PASSES = 2

CODE = """
import json, os
def high_water_bytes():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
from benchmarks import grid, memory
from privcd.tuning import run_chunk
data = memory.wide_problem() if {wide} else grid.problem()
configurations = grid.configurations({count}, passes={passes})
run_chunk(data, "{algorithm}", configurations[:2], repetitions=1, **grid.IDENTITY)  # compile, calibrate
with open("/proc/self/statm") as statm:  # resident pages now
    before = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
peak_before = high_water_bytes()
run_chunk(data, "{algorithm}", configurations, repetitions=1, **grid.IDENTITY)
peak = high_water_bytes()
print(json.dumps({{"before_bytes": before, "peak_before_bytes": peak_before, "peak_bytes": peak,
                   "x_bytes": data.X.data.nbytes + data.X.indices.nbytes + data.X.indptr.nbytes
                              if data.is_sparse else data.X.nbytes,
                   "configurations": len(configurations), "n": data.n_samples, "p": data.n_features}}))
"""


def wide_problem():
    """Logistic + L2 on the sparse shape of ``shapes.py``."""
    _, n, p, density = SPARSE_SHAPE
    return make_problem(make_X(n, p, density), "logistic", "l2", 1e-3, False)


def run(algorithms, quick):
    """One row per algorithm of the grid benchmark (:data:`benchmarks.grid.ALGORITHMS`) in ``algorithms``,
    then one per coordinate method (:data:`WIDE_ALGORITHMS`) on the sparse shape."""
    rows = [_run(algorithm, 100 if quick else 1000, grid.PASSES, False)
            for algorithm in grid.ALGORITHMS if algorithm in algorithms]
    return rows + [_run(algorithm, 100 if quick else 500, WIDE_PASSES, True)
                   for algorithm in WIDE_ALGORITHMS if algorithm in algorithms]


def _run(algorithm, count, passes, wide):
    result = run_python(CODE.format(count=count, algorithm=algorithm, passes=passes, wide=wide))
    budget = result["x_bytes"] + result["configurations"] * (result["n"] + result["p"]) * 8
    increment = result["peak_bytes"] - result["before_bytes"]
    return {**result, "algorithm": algorithm, "wide": wide, "budget_bytes": budget,
            "chunk_increment_bytes": increment, "increment_exact": result["peak_bytes"] > result["peak_before_bytes"],
            "increment_over_budget": increment / budget}


def markdown(rows):
    mb = 2.0**20
    lines = ["| algorithm | shape (n x p) | configurations | process peak MB | before the chunk MB | "
             "chunk increment MB | X + configurations x (n + p) doubles MB | increment / that |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['algorithm']} | {r['n']:,} x {r['p']:,}{', sparse' if r.get('wide') else ''} | "
                     f"{r['configurations']:,} | {r['peak_bytes'] / mb:.0f} | "
                     f"{r['before_bytes'] / mb:.0f} | "
                     f"{'' if r['increment_exact'] else '<= '}{r['chunk_increment_bytes'] / mb:.1f} | "
                     f"{r['budget_bytes'] / mb:.1f} | {r['increment_over_budget']:.2f} |")
    lines += ["", f"A fresh process runs a warm-up chunk of 2 configurations, then the chunk of the grid benchmark "
              f"({grid.N:,} x {grid.P}, {grid.PASSES} passes) or, for the sparse shape, a chunk of the same grid's "
              f"first configurations ({WIDE_PASSES} passes, one run each); increment = peak RSS (`VmHWM`) after the chunk minus the resident "
              "size just before it (exact when the chunk raised the peak; `<=` when the peak is an earlier one). "
              "The process before the chunk holds the interpreter, numpy, pandas, numba's loaded kernels and the "
              "problem."]
    return "\n".join(lines)
