"""privcd's benchmark suite: ``python -m benchmarks [SECTION ...] [--quick] [--only SECTION ...]
[--algorithms NAME ...] [--output results/benchmarks]``.

Sections (one module each): ``shapes`` (seconds per pass against the hardware bound and plain
numpy), ``bounds`` (the least time a pass's unavoidable work takes, against the same bound),
``peers`` (Opacus), ``grid`` (configurations per second), ``memory`` (peak RSS of a tuning
chunk), ``warm`` (a second process's first fit), ``first_fit`` (a new
environment's first fit, numba's compilation included), ``setup`` (a Problem and its beta),
``accounting`` (the noise and the error the tightest accountants save against the papers'),
``time_ratio`` (dp-cd Table 3's DP-CD / DP-SGD time ratio under three builds of the kernels and a row-major X),
``audit`` (the power and time of ``privcd.audit``), ``release`` (each kernel's cost as a private
release against an experiment), ``estimators`` (privcd's scikit-learn estimators
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
from benchmarks import (accounting, audit, bounds, estimators, first_fit, grid, memory, peers, problem_setup, release,
                        shapes, time_ratio, warm)

SECTIONS = {
    "shapes": ("Seconds per pass against the hardware bound", lambda args: shapes.run(args.algorithms, args.quick),
               shapes.markdown),
    "bounds": ("What bounds DP-CD, DP-SGD and DP-SCD", lambda args: bounds.run(args.quick), bounds.markdown),
    "peers": ("Against Opacus", lambda args: peers.run(args.quick), peers.markdown),
    "grid": ("Grid throughput", lambda args: grid.run(args.algorithms, args.quick), grid.markdown),
    "memory": ("Memory of a tuning chunk", lambda args: memory.run(args.algorithms, args.quick), memory.markdown),
    "warm": ("Warm start", lambda args: warm.run(args.quick), warm.markdown),
    "first_fit": ("First fit in an empty numba cache", lambda args: first_fit.run(args.quick), first_fit.markdown),
    "setup": ("Problem set-up and beta", lambda args: problem_setup.run(args.quick), problem_setup.markdown),
    "accounting": ("What the tightest accounting buys", lambda args: accounting.run(args.quick, args.output),
                   accounting.markdown),
    "time_ratio": ("dp-cd Table 3's time ratio by build", lambda args: time_ratio.run(args.quick),
                   time_ratio.markdown),
    "audit": ("Privacy audits: power and time", lambda args: audit.run(args.quick), audit.markdown),
    "release": ("What a private release costs", lambda args: release.run(args.algorithms, args.quick),
                release.markdown),
    "estimators": ("scikit-learn estimators against diffprivlib", lambda args: estimators.run(args.quick, args.output),
                   estimators.markdown),
}

# Seconds each section took in a full run (not --quick) on 2 cores, 2026-11-27 from 2a050b8 (time_ratio:
# 2026-11-29, with its row-major variant; estimators: 2026-11-29, with releases and tuning), beside other work; --help shows them, with what a section needs
# beyond the [test] extra.
SECONDS = {"shapes": 97, "bounds": 13, "peers": 0, "grid": 27, "memory": 159, "warm": 8, "first_fit": 156,
           "setup": 14, "accounting": 26, "time_ratio": 435, "audit": 48, "release": 166, "estimators": 414}
NEEDS = {"peers": "; skipped without the [bench] extra's torch and Opacus",
         "estimators": "; diffprivlib in an environment of its own"}


def parser():
    """The command line; the sections and what each measures are listed in ``--help``."""
    listing = "\n".join(f"  {name:<11} {title} (about {SECONDS[name]} s{NEEDS.get(name, '')})"
                        for name, (title, _, _) in SECTIONS.items())
    command = argparse.ArgumentParser(
        prog="python -m benchmarks", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="privcd's benchmark suite: writes benchmarks.md and benchmarks.json under --output and prints "
                    "the Markdown (wall-clock medians; not a timed test).",
        epilog=f"sections (seconds of a full run on 2 cores; --quick takes less):\n{listing}\n\n"
               f"All of them: about {sum(SECONDS.values()) // 60} minutes. benchmarks/README.md says what each "
               "column means.")
    # nargs="*" with choices rejects the empty default on Python 3.11, so the names are checked below
    command.add_argument("sections", nargs="*", metavar="SECTION", help="sections to run (default: all; as --only)")
    command.add_argument("--quick", action="store_true", help="fewer repeats, smaller grid (a smoke run)")
    command.add_argument("--output", type=Path, default=Path("results/benchmarks"), help="output directory")
    command.add_argument("--algorithms", nargs="+", default=sorted(ALGORITHMS), choices=sorted(ALGORITHMS),
                         metavar="ALGORITHM", help="algorithms of shapes, grid, memory and release (default: all)")
    command.add_argument("--only", nargs="+", metavar="SECTION", help="sections to run (default: all)")
    return command


def parse(argv=None):
    """The arguments, ``args.only`` the sections to run; an unknown section name exits 2 naming it."""
    command = parser()
    args = command.parse_args(argv)
    chosen = args.sections or args.only or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        command.error(f"unknown section(s) {unknown}; expected some of {list(SECTIONS)}")
    args.only = chosen
    return args


def main(argv=None):
    args = parse(argv)
    results, parts, durations = {}, [], {}
    for name in args.only:
        title, run, markdown = SECTIONS[name]
        began = time.perf_counter()
        results[name] = run(args)
        durations[name] = time.perf_counter() - began
        parts.append(f"## {title}\n\n{markdown(results[name])}\n\nThe section took {durations[name]:.0f} s.\n")
    meta = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": platform.platform(), "cpus": os.cpu_count(),
            "load_average": os.getloadavg(), "python": platform.python_version(), "quick": args.quick,
            "algorithms": args.algorithms, "section_seconds": durations}
    text = (f"# privcd benchmarks\n\n{meta['date']}, {meta['machine']}, {meta['cpus']} CPUs, load average "
            f"{meta['load_average'][0]:.1f} at the end{' (--quick)' if args.quick else ''}.\n\n" + "\n".join(parts))
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "benchmarks.json").write_text(json.dumps({"meta": meta, **results}, indent=2) + "\n")
    (args.output / "benchmarks.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
