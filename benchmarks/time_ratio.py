"""dp-cd Table 3's ratio, DP-CD's time over DP-SGD's per number of passes, under three builds of
the same kernels and a row-major X: what makes ours 0.15-0.56x the paper's ratio (issues 20 and 37).

The paper's runs (dp-cd Appendix G.2) are scalar C++ loops on one thread ("no special code
optimization nor tricks"). A DP-CD pass makes p coordinate steps, each a pass over the n samples
(residual update, clipped derivative, sum): independent work across samples, which numba vectorises
(AVX-512 here: 8 doubles a lane) and, on 8,192 samples or more, splits over two threads. A DP-SGD
pass makes n steps, each a dependency chain (dot product, derivative, update, p normals) that
neither vectorises across samples nor splits. So the build moves DP-CD's time and hardly DP-SGD's.
Each variant runs in a fresh process with its own numba cache:

* ``default``: this machine's CPU, all threads (what dp-cd Table 3 reports);
* ``one thread``: ``NUMBA_NUM_THREADS=1``;
* ``one thread, generic x86-64``: also ``NUMBA_CPU_NAME=generic`` (SSE2, two doubles a vector,
  the width of a default ``g++ -O2`` build, the paper's kind of binary);
* ``one thread, generic x86-64, X row-major``: also DP-CD reading its columns from the C-ordered
  (row-major) copy of X that DP-SGD reads its rows from, a column's entries p doubles apart, as a
  C++ binding that keeps numpy's order would store it (the paper says "dense matrices of the
  Eigen library", not in which order). An ablation of the storage, the kernels unchanged.

Times are ``Run.seconds`` (kernel time, compilation excluded, every run alone), medians over runs
after a warm-up fit, at fixed step and clip (the dense kernels' work does not depend on them), with
each problem's accountant and coordinate order as in ``config/config.yaml``.
"""
import json
import tempfile

import numpy as np

from benchmarks.harness import MIRROR, ROOT, run_python

VARIANTS = {
    "default": {},
    "one thread": {"NUMBA_NUM_THREADS": "1"},
    "one thread, generic x86-64": {"NUMBA_NUM_THREADS": "1", "NUMBA_CPU_NAME": "generic"},
    "one thread, generic x86-64, X row-major": {"NUMBA_NUM_THREADS": "1", "NUMBA_CPU_NAME": "generic"},
}
ROW_MAJOR = {"one thread, generic x86-64, X row-major"}  # DP-CD reads X's columns from its row-major copy
PROBLEMS = {  # dp-cd Table 2's problems (config/config.yaml): dataset, preprocessing, loss, penalty, lambda
    "electricity-imbalanced": ("electricity", "raw", "logistic", "l2", 2.207e-5),
    "california-imbalanced": ("california", "raw", "squared", "l1", 2.5),
    "sparse-lasso": ("square", "raw", "squared", "l1", 1.74),
}
PAPER_VALUES = ROOT / "config" / "paper_values" / "dp-cd-times.yaml"

CODE = """
import json, sys
import numpy as np, privcd
dataset, preprocessing, loss, penalty, lam, passes_list, runs, mirror, row_major = json.loads(sys.argv[1])
data = privcd.load_dataset(dataset, preprocessing=preprocessing, mirror=mirror)
problem = privcd.Problem(data.X, data.y, loss, penalty, lam, constants="data")
if row_major:  # the ablation: the cached column layout replaced by the row-major copy (a dense X)
    problem.__dict__["columns"] = problem.rows
n = problem.n_samples
settings = {
    "dp-cd": dict(step=0.5, clip=1.0, accountant="rdp", coordinate_order="cyclic"),
    "dp-sgd": dict(step=1e-3, clip=1.0, accountant="rdp"),
}
out = {}
for algorithm, options in settings.items():
    privcd.fit(problem, algorithm, epsilon=1.0, delta=1 / n**2, passes=passes_list[0], seed=0, **options)
    for passes in passes_list:
        seconds = [privcd.fit(problem, algorithm, epsilon=1.0, delta=1 / n**2, passes=passes, seed=seed,
                              **options).seconds for seed in range(runs)]
        out[f"{algorithm} {passes}"] = float(np.median(seconds))
print(json.dumps(out))
"""


def run(quick):
    """Median kernel seconds per (variant, problem, algorithm, passes), and the paper's times."""
    import yaml

    mirror = str(MIRROR)
    passes_list = [2, 10] if quick else [2, 10, 50]
    runs = 2 if quick else 5
    paper = yaml.safe_load(PAPER_VALUES.read_text())
    columns = paper["columns"]
    rows = []
    for variant, env in VARIANTS.items():
        with tempfile.TemporaryDirectory(prefix="privcd-time-ratio-") as cache:
            for problem, (dataset, preprocessing, loss, penalty, lam) in PROBLEMS.items():
                argument = [dataset, preprocessing, loss, penalty, lam, passes_list, runs, mirror,
                            variant in ROW_MAJOR]
                times = run_python(CODE, env={**env, "NUMBA_CACHE_DIR": cache},
                                   arguments=[json.dumps(argument)])
                for passes in passes_list:
                    cells = paper["cells"][problem]
                    paper_cd, paper_sgd = (cells[name][columns.index(passes)][0] for name in ("dp-cd", "dp-sgd"))
                    rows.append({"variant": variant, "problem": problem, "passes": passes,
                                 "dp-cd": times[f"dp-cd {passes}"], "dp-sgd": times[f"dp-sgd {passes}"],
                                 "paper dp-cd": paper_cd, "paper dp-sgd": paper_sgd})
    return {"runs": runs, "rows": rows}


def markdown(result):
    lines = ["| build | problem | passes | DP-CD s | DP-SGD s | ratio DP-CD / DP-SGD | paper's ratio | ours / paper's |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in result["rows"]:
        ours = row["dp-cd"] / row["dp-sgd"]
        paper = row["paper dp-cd"] / row["paper dp-sgd"]
        lines.append(f"| {row['variant']} | {row['problem']} | {row['passes']} | {row['dp-cd']:.4f} | "
                     f"{row['dp-sgd']:.4f} | {ours:.3f} | {paper:.3f} | {ours / paper:.2f} |")
    summary = []
    for variant in VARIANTS:
        scale = [row["dp-cd"] / row["dp-sgd"] / (row["paper dp-cd"] / row["paper dp-sgd"])
                 for row in result["rows"] if row["variant"] == variant]
        summary.append(f"{variant}: ours / paper's ratio {min(scale):.2f}-{max(scale):.2f} "
                       f"(median {np.median(scale):.2f})")
    return ("Kernel seconds (median of " f"{result['runs']} runs timed alone, compilation excluded) of DP-CD "
            "(cyclic, RDP) and DP-SGD (batch 1, RDP) at dp-cd Table 3's pass counts, in three builds of the "
            "same kernels, the third also with DP-CD reading a row-major X (`benchmarks/time_ratio.py`), beside the paper's Table 3 ratio.\n\n"
            + "\n".join(lines) + "\n\n" + "; ".join(summary) + ".")
