"""privcd's benchmark suite (issue 7): ``python -m benchmarks [SECTION ...] [--quick] [--only SECTION ...]
[--algorithms NAME ...] [--output results/benchmarks]``.

Sections (one module each): ``shapes`` (seconds per pass against the hardware bound and plain
numpy), ``bounds`` (the least time a pass's unavoidable work takes, against the same bound),
``peers`` (Opacus), ``grid`` (configurations per second), ``memory`` (peak RSS of a tuning
chunk), ``warm`` (a second process's first fit), ``setup`` (a Problem and its beta),
``accounting`` (the noise and the error the tightest accountants save against the papers'),
``time_ratio`` (dp-cd Table 3's DP-CD / DP-SGD time ratio under three builds of the kernels),
``audit`` (the power and time of ``privcd.audit``), ``estimators`` (privcd's scikit-learn estimators
against diffprivlib's, in an environment of its own: ``python -m benchmarks estimators``).
Writes ``benchmarks.md`` and ``benchmarks.json`` under the output directory and prints the
Markdown. Not a timed test: numbers are wall-clock medians on whatever else the machine is doing.
"""
import argparse
import json
import os
import platform
import time
from pathlib import Path

from privcd.algorithms import ALGORITHMS
from benchmarks import (accounting, audit, bounds, estimators, grid, memory, peers, problem_setup, shapes, time_ratio,
                        warm)

SECTIONS = {
    "shapes": ("Seconds per pass against the hardware bound", lambda args: shapes.run(args.algorithms, args.quick),
               shapes.markdown),
    "bounds": ("What bounds DP-CD, DP-SGD and DP-SCD", lambda args: bounds.run(args.quick), bounds.markdown),
    "peers": ("Against Opacus", lambda args: peers.run(args.quick), peers.markdown),
    "grid": ("Grid throughput", lambda args: grid.run(args.algorithms, args.quick), grid.markdown),
    "memory": ("Memory of a tuning chunk", lambda args: memory.run(args.algorithms, args.quick), memory.markdown),
    "warm": ("Warm start", lambda args: warm.run(args.quick), warm.markdown),
    "setup": ("Problem set-up and beta", lambda args: problem_setup.run(args.quick), problem_setup.markdown),
    "accounting": ("What the tightest accounting buys", lambda args: accounting.run(args.quick, args.output),
                   accounting.markdown),
    "time_ratio": ("dp-cd Table 3's time ratio by build", lambda args: time_ratio.run(args.quick),
                   time_ratio.markdown),
    "audit": ("Privacy audits: power and time", lambda args: audit.run(args.quick), audit.markdown),
    "estimators": ("scikit-learn estimators against diffprivlib", lambda args: estimators.run(args.quick, args.output),
                   estimators.markdown),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sections", nargs="*", choices=list(SECTIONS), metavar="SECTION",
                        help=f"sections to run, as --only (one of {', '.join(SECTIONS)})")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller grid (a smoke run)")
    parser.add_argument("--output", type=Path, default=Path("results/benchmarks"))
    parser.add_argument("--algorithms", nargs="+", default=sorted(ALGORITHMS), choices=sorted(ALGORITHMS))
    parser.add_argument("--only", nargs="+", default=list(SECTIONS), choices=list(SECTIONS),
                        help="sections to run (default: all)")
    args = parser.parse_args(argv)
    if args.sections:
        args.only = args.sections
    results, parts = {}, []
    for name in args.only:
        title, run, markdown = SECTIONS[name]
        results[name] = run(args)
        parts.append(f"## {title}\n\n{markdown(results[name])}\n")
    meta = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": platform.platform(), "cpus": os.cpu_count(),
            "load_average": os.getloadavg(), "python": platform.python_version(), "quick": args.quick,
            "algorithms": args.algorithms}
    text = (f"# privcd benchmarks\n\n{meta['date']}, {meta['machine']}, {meta['cpus']} CPUs, load average "
            f"{meta['load_average'][0]:.1f} at the end{' (--quick)' if args.quick else ''}.\n\n" + "\n".join(parts))
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "benchmarks.json").write_text(json.dumps({"meta": meta, **results}, indent=2) + "\n")
    (args.output / "benchmarks.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
