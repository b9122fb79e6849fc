"""``run_chunk``: many configurations of one algorithm on one problem, as tidy result rows.

The runs go through :func:`privcd.fit_many`, with every distinct privacy setting calibrated once
(a :class:`~privcd.privacy.reuse.CalibrationStore` shared by all runs). A run's seed comes from
its identity (:func:`privcd.tuning.seeds.derive_seed`), not from its position in the chunk, so any
chunking gives the same numbers; the identity leaves out the hyperparameters the algorithm's
draws do not depend on (``SHARED_DRAWS``: step and clip for DP-CD, DP-GCD and DP-SGD), so the
runs of one repetition that differ only in those share their draws -- common random numbers,
which make their comparison less noisy -- and :func:`privcd.fit_many` makes them in one kernel
call.
"""
import math
import time

import numpy as np
import pandas as pd

from privcd.fit_many import fit_many
from privcd.privacy.reuse import CalibrationStore
from privcd.results.table import RUN_TABLE_COLUMNS
from privcd.results.utility import utility_columns
from privcd.identity import canonical_json, configuration_id
from privcd.tuning.privacy_values import resolve_delta
from privcd.tuning.seeds import derive_seed, draws_identity

PROGRESS_SECONDS = 30.0  # at most one progress line per this many seconds (plus the first and last)


def fit_arguments(configuration, n_records):
    """The keyword arguments of :func:`privcd.fit` for ``configuration``: delta made numeric."""
    arguments = dict(configuration)
    if arguments.get("delta") is not None:
        arguments["delta"] = resolve_delta(arguments["delta"], n_records)
    return arguments


def run_chunk(problem, algorithm, configurations, *, base_seed, repetitions, stage="tune",
              paper="", problem_name="", label=None, checkpoints=None, calibrations=None, progress=None,
              held_out=None):
    """Run every configuration ``repetitions`` times; return one row per run and checkpoint.

    Parameters
    ----------
    problem : privcd.Problem
    algorithm : str
        Registered algorithm name.
    configurations : list of dict
        Keyword arguments of :func:`privcd.fit` (``epsilon``, ``delta`` -- possibly symbolic, see
        :func:`~privcd.tuning.privacy_values.resolve_delta` -- ``passes``, ``step``, ``clip``,
        options).
    base_seed : int
    repetitions : int
        Runs per configuration (repetitions 0 .. repetitions - 1).
    stage : {"tune", "final", "timing"}
        Part of every seed. Tuning runs that share their draws are made in lockstep
        (:func:`privcd.fit_many`); final and timing runs are made alone, so that each one's
        ``seconds`` is the time of that run (figures against running time, dp-cd Table 3).
    paper, problem_name : str
        The problem's identity, ``"<paper>/<problem_name>"`` in seeds and rows.
    label : str, optional
        The name of the algorithm in seeds and rows (a config's algorithm entry); default
        ``algorithm``.
    checkpoints : int, optional
        Number of evenly spaced checkpoints to record (the algorithms' ``checkpoints`` option),
        overriding the configuration's; not part of the run's identity, since recording more
        snapshots does not change the random path (the final runs record finer curves than the
        tuning runs they were selected on).
    calibrations : CalibrationStore, optional
        Calibrations to reuse (e.g. computed by the workflow's ``calibrate`` rule); missing ones are
        computed once per distinct privacy setting and added to it.
    progress : callable, optional
        Called with a line ``"<done>/<total> configurations ..."`` after the first configuration,
        then at most every :data:`PROGRESS_SECONDS`, and after the last.
    held_out : dict, optional
        ``"validation"`` / ``"test"`` -> ``(X, y)``: their utility at every checkpoint
        (:func:`privcd.results.utility.utility_columns`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`privcd.results.RUN_TABLE_COLUMNS`.
    """
    store = calibrations if calibrations is not None else CalibrationStore()
    runs, start, last_report = [], time.perf_counter(), -math.inf
    runs_of = identified_runs(problem, algorithm, configurations, base_seed=base_seed, repetitions=repetitions,
                              stage=stage, paper=paper, problem_name=problem_name, label=label,
                              checkpoints=checkpoints, calibrations=store)
    for done, configuration, identity, repetition, run in runs_of:
        utility = utility_columns(problem.loss.name, run.snapshots, held_out)
        runs.append(_columns(run, configuration, identity, paper, problem_name, label or algorithm, stage,
                             repetition, utility))
        now = time.perf_counter()
        last_of_configuration = repetition == repetitions - 1
        if progress and last_of_configuration and (done in (1, len(configurations))
                                                   or now - last_report >= PROGRESS_SECONDS):
            last_report = now
            progress(f"{done}/{len(configurations)} configurations done ({done * repetitions} runs, "
                     f"{now - start:.1f} s, {store.computed} calibrations computed, {store.reused} reused)")
    if not runs:
        return pd.DataFrame(columns=list(RUN_TABLE_COLUMNS))
    # One frame for the chunk (a frame per run cost more than a DP-CD run on 20,640 x 8).
    lengths = [len(columns["iteration"]) for columns in runs]
    return pd.DataFrame({name: _stack([columns[name] for columns in runs], lengths) for name in RUN_TABLE_COLUMNS})


def identified_runs(problem, algorithm, configurations, *, base_seed, repetitions, stage, paper, problem_name,
                    label=None, checkpoints=None, calibrations=None):
    """Run every configuration ``repetitions`` times, each run seeded by its identity without the
    algorithm's ``SHARED_DRAWS``; yield ``(done, configuration, identity, repetition, run)``,
    ``done`` counting configurations from 1.

    Arguments as :func:`run_chunk`. The one place that turns a configuration and a repetition into
    a seeded run (:func:`privcd.fit_many`), shared by the tuning and final runs and by
    :func:`privcd.tuning.iterates.final_iterates`, which regenerates final runs' iterates.
    """
    label = label or algorithm
    identified, arguments_of_runs = [], []
    for done, configuration in enumerate(configurations, start=1):
        identity = configuration_id(configuration)
        draws = draws_identity(algorithm, configuration)
        arguments = fit_arguments(configuration, problem.n_samples)
        if checkpoints is not None:
            arguments["checkpoints"] = checkpoints
        for repetition in range(repetitions):
            seed = derive_seed(base_seed, f"{paper}/{problem_name}", label, draws, repetition, stage)
            identified.append((done, configuration, identity, repetition))
            arguments_of_runs.append({**arguments, "seed": seed})
    runs = fit_many(problem, algorithm, arguments_of_runs, calibrations=calibrations, lockstep=stage == "tune")
    for (done, configuration, identity, repetition), run in zip(identified, runs):
        yield done, configuration, identity, repetition, run


def _columns(run, configuration, identity, paper, problem_name, label, stage, repetition, utility):
    """The columns of one run's rows: a value per checkpoint (arrays) or one for the run (scalars)."""
    trace = run.trace
    return {
        "paper": paper, "problem": problem_name, "algorithm": label, "configuration": identity,
        "stage": stage, "repetition": repetition, "checkpoint": np.arange(len(trace["iteration"])),
        "seed": run.seed, "params": canonical_json(configuration),
        "param_epsilon": float(configuration["epsilon"]), "param_passes": float(configuration["passes"]),
        "param_step": float(configuration["step"]), "param_clip": float(configuration["clip"]),
        "privacy_epsilon": float(run.epsilon),
        "privacy_delta": float(run.delta) if run.delta is not None else 0.0,
        "privacy_noise_multiplier": float(run.noise_multiplier),
        "iteration": trace["iteration"], "passes": trace["passes"],
        "seconds": trace["seconds"], "metric_objective": trace["objective"],
        **utility,
    }


def _stack(values, lengths):
    """One column: per-run scalars repeated over their runs' checkpoints, or per-run arrays joined."""
    if np.ndim(values[0]) == 0:
        return np.repeat(np.array(values), lengths)
    return np.concatenate(values)
