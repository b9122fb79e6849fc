"""Check that two runs of the workflow (e.g. local and SLURM) produced the same numbers.

    python .ci/compare_runs.py RUN_DIR_A RUN_DIR_B

Compares every aggregated table (results/aggregate/*/*.parquet), the audits
(results/audit/audits.parquet) and the end-to-end study (results/end_to_end/end_to_end.parquet) on all columns except the measured times, and every selection (results/select/**.json) exactly. Exit 1 on any difference.
"""
import json
import sys
from pathlib import Path

import pandas as pd

TIMING = ["seconds"]


def main(first, second):
    first, second = Path(first), Path(second)
    tables = sorted(path.relative_to(first) for pattern in ("results/aggregate/*/*.parquet", "results/audit/audits.parquet",
                                                               "results/end_to_end/end_to_end.parquet")
                    for path in first.glob(pattern))
    selections = sorted(path.relative_to(first) for path in first.glob("results/select/**/*.json"))
    if not tables or not selections:
        sys.exit(f"{first} holds no aggregated results or selections")
    for relative in tables:
        a, b = (pd.read_parquet(root / relative).drop(columns=TIMING, errors="ignore") for root in (first, second))
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    for relative in selections:
        a, b = (json.loads((root / relative).read_text()) for root in (first, second))
        if a != b:
            sys.exit(f"{relative} differs:\n{a}\n{b}")
    print(f"same numbers in {len(tables)} tables ({sum(len(pd.read_parquet(first / t)) for t in tables)} rows) "
          f"and {len(selections)} selections: {first} == {second}")


if __name__ == "__main__":
    main(*sys.argv[1:])
