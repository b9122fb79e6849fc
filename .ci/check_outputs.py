"""Check a finished workflow run: every expected figure and table exists and is not empty, and the
aggregated results have the expected columns and no NaN (the held-out utility columns excepted:
they are NaN by design for datasets without validation and test parts).

    python .ci/check_outputs.py RUN_DIR CONFIG_FILE
"""
import sys
from pathlib import Path

import pandas as pd
import yaml

from privcd.results import AGGREGATED_COLUMNS
from privcd.results.table import UTILITY_COLUMNS
from privcd.tuning.timing import TIMING_COLUMNS


def main(run_dir, config_file):
    run_dir = Path(run_dir)
    config = yaml.safe_load(Path(config_file).read_text())
    papers = list(config["papers"])
    expected = [run_dir / "results" / "data" / "notes.md"]
    for paper in papers:
        expected += [run_dir / "figures" / paper / f"convergence_{x}.{ext}"
                     for x in ("passes", "seconds") for ext in ("pdf", "png")]
        expected += [run_dir / "results" / "tables" / paper / f"{table}_errors.{ext}"
                     for table in ("final", "tuning") for ext in ("md", "tex")]
    if {"dp-cd", "dp-gcd"} & set(papers):
        expected.append(run_dir / "results" / "compare" / "papers.md")
    if "dp-cd" in papers:
        expected += [run_dir / "results" / "tables" / "dp-cd" / "per_passes_vs_paper.md",
                     run_dir / "figures" / "dp-cd" / "per_passes_vs_paper.png"]
    timed = [paper for paper in papers if "timing" in config["papers"][paper]["runs"]]
    expected += [run_dir / "results" / "tables" / "dp-cd" / "table_3.md" for paper in timed if paper == "dp-cd"]
    if "audit" in config:  # results/audit/check.txt exists only when no sound variant exceeds its claim
        expected += [run_dir / path for path in ("results/audit/audits.parquet", "results/tables/audit/audits.md",
                                                 "figures/audit/audit.png", "results/audit/check.txt")]
    if "end_to_end" in config:
        expected += [run_dir / path for path in ("results/end_to_end/end_to_end.parquet",
                                                 "results/tables/end_to_end/end_to_end.md",
                                                 "figures/end_to_end/end_to_end.png")]
    missing = [str(path) for path in expected if not path.is_file() or path.stat().st_size == 0]
    if missing:
        sys.exit(f"missing or empty outputs: {missing}")
    for paper in papers:
        for table in ("final", "tuning"):
            path = run_dir / "results" / "aggregate" / paper / f"{table}.parquet"
            frame = pd.read_parquet(path)
            if list(frame.columns) != list(AGGREGATED_COLUMNS):
                sys.exit(f"{path}: columns {list(frame.columns)}, expected {list(AGGREGATED_COLUMNS)}")
            required = frame.drop(columns=list(UTILITY_COLUMNS))
            if frame.empty or required.isna().any().any():
                sys.exit(f"{path}: {len(frame)} rows, NaN in {list(required.columns[required.isna().any()])}")
            print(f"{path}: {len(frame)} rows, {frame.groupby(['problem', 'algorithm']).ngroups} "
                  f"(problem, algorithm) pairs, no NaN")
    for paper in timed:
        path = run_dir / "results" / "aggregate" / paper / "timing.parquet"
        frame = pd.read_parquet(path)
        if list(frame.columns) != list(TIMING_COLUMNS) or frame.empty or not (frame["seconds"] > 0).all():
            sys.exit(f"{path}: columns {list(frame.columns)} (expected {list(TIMING_COLUMNS)}), {len(frame)} rows, "
                     f"seconds {frame['seconds'].describe().to_dict() if 'seconds' in frame else None}")
        print(f"{path}: {len(frame)} timed runs, median {frame['seconds'].median():.3g} s")
    print(f"{len(expected)} expected figures and tables present")


if __name__ == "__main__":
    main(*sys.argv[1:])
