"""The final iterates ``w`` of the final runs, regenerated from their identity.

The tidy results keep the objective at each checkpoint, not the iterates. dp-gcd Table 3 (support
recovery) needs the final ``w`` of each final run; every run's seed is derived from its identity
(:func:`privcd.tuning.derive_seed`), so running the selected configuration again with the same
identity reproduces the final run bit for bit (``tests/test_paper_results.py`` checks the
objectives against :func:`privcd.tuning.run_chunk`'s).
"""
import numpy as np

from privcd.privacy.reuse import CalibrationStore
from privcd.tuning.runner import identified_runs


def final_iterates(problem, algorithm, configurations, *, base_seed, repetitions, paper, problem_name,
                   label=None, checkpoints=None, calibrations=None):
    """The output ``w`` of every final run of ``configurations`` (the seeds of ``stage="final"``).

    Arguments as :func:`privcd.tuning.run_chunk` with ``stage="final"``.

    Returns
    -------
    dict of ndarray
        ``configuration`` (ids, shape (r,)), ``repetition`` (r,), ``w`` (r, p), ``objective`` (r,):
        one row per run, configurations in the given order, repetitions ascending.
    """
    store = calibrations if calibrations is not None else CalibrationStore()
    ids, reps, ws, objectives = [], [], [], []
    for _, _, identity, repetition, run in identified_runs(
            problem, algorithm, configurations, base_seed=base_seed, repetitions=repetitions, stage="final",
            paper=paper, problem_name=problem_name, label=label, checkpoints=checkpoints, calibrations=store):
        ids.append(identity)
        reps.append(repetition)
        ws.append(np.asarray(run.w, dtype=float))
        objectives.append(run.objective)
    p = problem.n_features
    return {"configuration": np.array(ids, dtype=str), "repetition": np.array(reps, dtype=np.int64),
            "w": np.array(ws, dtype=float).reshape(len(ws), p), "objective": np.array(objectives, dtype=float)}
