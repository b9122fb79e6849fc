"""Running times of the selected configurations, each run timed alone (dp-cd Table 3).

dp-cd Appendix G.2 reports, for the configurations of its Table 2 (the best step size and
clipping threshold for each number of passes), the time of execution "averaged over 10 runs".
:func:`timed_runs` makes those runs: each configuration ``repetitions`` times with its own seeds
(stage ``"timing"``), one run per kernel call (:func:`privcd.tuning.runner.identified_runs`), so
that a run's ``seconds`` is its kernel's time alone, without numba's compilation or cache loading
(:mod:`privcd.algorithms.kernel_clock`) and without another run's share of a lockstep call.
"""
import json

import pandas as pd

from privcd.results.analysis import select_best
from privcd.tuning.runner import identified_runs

TIMING_COLUMNS = ("paper", "problem", "algorithm", "param_passes", "configuration", "run", "seconds")


def timed_runs(problem, algorithm, tuning, *, repetitions, base_seed, paper, problem_name, label, calibrations=None):
    """One row per timed run of the best configuration of each number of passes in ``tuning``.

    Parameters
    ----------
    problem : privcd.Problem
    algorithm : str
    tuning : pandas.DataFrame
        The study's tuning runs (:data:`privcd.results.RUN_TABLE_COLUMNS`); the configuration with
        the lowest mean final objective of each ``param_passes`` is timed
        (:func:`privcd.results.select_best`, as Table 2 selects it).
    repetitions : int
        Timed runs per configuration.
    base_seed, paper, problem_name, label, calibrations
        As for :func:`privcd.tuning.run_chunk`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TIMING_COLUMNS`; ``seconds`` is :attr:`privcd.Run.seconds`.
    """
    best = select_best(tuning, by=["param_passes"])
    configurations = [json.loads(params) for params in best["params"]]
    rows = []
    for _, configuration, identity, repetition, run in identified_runs(
            problem, algorithm, configurations, base_seed=base_seed, repetitions=repetitions, stage="timing",
            paper=paper, problem_name=problem_name, label=label, checkpoints=1, calibrations=calibrations):
        rows.append((paper, problem_name, label, float(configuration["passes"]), identity, repetition, run.seconds))
    return pd.DataFrame(rows, columns=list(TIMING_COLUMNS))

