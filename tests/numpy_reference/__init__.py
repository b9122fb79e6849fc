"""Plain numpy implementations of each algorithm, one module per algorithm module name.

Each module exposes ``run(problem, plan, seed) -> w``: the same update as the numba kernel,
driven by the same :class:`privcd.algorithms.base.Plan`, written the way a user would write it
with numpy alone (a Python loop over samples, coordinates or blocks; numpy inside an iteration).
They are the baseline the benchmarks compare against, not a second implementation to maintain.
"""
