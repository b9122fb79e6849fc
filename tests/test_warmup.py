"""The compilation notice (one line when numba compiles for more than about 2 s) and the warm-up
command that compiles the kernels ahead."""
import math
import time

from privcd import warmup
from privcd.algorithms import kernel_clock
from privcd.losses import LOSSES


def test_a_long_compilation_prints_one_line_naming_the_kernel(monkeypatch, capsys):
    monkeypatch.setattr(kernel_clock, "NOTICE_SECONDS", 0.05)
    with kernel_clock.compilation_notice("dp_cd"):
        time.sleep(0.3)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "compiling the kernel dp_cd" in lines[0] and "python -m privcd.warmup" in lines[0]


def test_a_short_one_prints_nothing(monkeypatch, capsys):
    monkeypatch.setattr(kernel_clock, "NOTICE_SECONDS", 0.5)
    with kernel_clock.compilation_notice("dp_cd"):
        pass
    time.sleep(0.6)
    assert capsys.readouterr().err == ""


def test_the_warm_up_fits_every_combination_an_algorithm_takes(capsys):
    warmup.main(["--algorithms", "dp-cd", "dp-skgd"])
    err = capsys.readouterr().err
    # dp-cd: the smooth losses (the hinge losses have no smoothness constants) x 3 penalties, 2 storages,
    # 2 modes + 2 lockstep runs (4 smooth losses: 96)
    combinations = 3 * sum(math.isfinite(spec.curvature) for spec in LOSSES.values())
    assert f"dp-cd: {combinations * 2 * 4} fits" in err
    # dp-skgd: 4 sketches as many, less the importance sketch's releases (one a combination and storage)
    assert f"dp-skgd: {4 * combinations * 2 * 4 - combinations * 2} fits" in err
    assert "privcd's kernels are compiled and cached" in err
