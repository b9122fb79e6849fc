"""The tidy results table: one row per (paper, problem, algorithm, configuration, stage, repetition,
checkpoint), benchopt style (``benchopt/results/process.py``).

Columns
-------
Keys (identify a row; :data:`KEY_COLUMNS`):
    ``paper``, ``problem``, ``algorithm``, ``configuration`` (the 12-hex id of
    :func:`privcd.identity.configuration_id`), ``stage`` (``"tune"`` or ``"final"``),
    ``repetition``, ``checkpoint`` (index of the checkpoint within the run, 0 = the start).
Run: ``seed`` (derived from the keys above but the checkpoint), ``params`` (the configuration as
    canonical JSON: exactly the keyword arguments of :func:`privcd.fit`).
Hyperparameters every algorithm takes (``param_`` prefix): ``param_epsilon``, ``param_passes``,
    ``param_step``, ``param_clip``.
Privacy achieved (``privacy_`` prefix): ``privacy_epsilon``, ``privacy_delta``,
    ``privacy_noise_multiplier``.
Position: ``iteration``, ``passes`` (iterations / iterations per pass), ``seconds``.
Metrics (``metric_`` prefix): ``metric_objective`` (F at the checkpoint's iterate, from the one
    evaluator :meth:`privcd.Problem.objective`); the held-out utility
    ``metric_{validation,test}_{accuracy,mse}`` (:mod:`privcd.results.utility`, NaN where it does not
    apply); once the optimum is joined, ``metric_relative_error`` = (F - F*) / F*.
"""
KEY_COLUMNS = ("paper", "problem", "algorithm", "configuration", "stage", "repetition", "checkpoint")
RUN_COLUMNS = ("seed", "params")
PARAM_COLUMNS = ("param_epsilon", "param_passes", "param_step", "param_clip")
PRIVACY_COLUMNS = ("privacy_epsilon", "privacy_delta", "privacy_noise_multiplier")
POSITION_COLUMNS = ("iteration", "passes", "seconds")
UTILITY_COLUMNS = tuple(f"metric_{part}_{metric}" for part in ("validation", "test")
                        for metric in ("accuracy", "mse"))
RUN_TABLE_COLUMNS = (KEY_COLUMNS + RUN_COLUMNS + PARAM_COLUMNS + PRIVACY_COLUMNS + POSITION_COLUMNS
                     + ("metric_objective",) + UTILITY_COLUMNS)
AGGREGATED_COLUMNS = RUN_TABLE_COLUMNS + ("f_star", "metric_relative_error")
GROUP_COLUMNS = ("paper", "problem", "algorithm")


def check_columns(frame, expected=RUN_TABLE_COLUMNS):
    """``ValueError`` naming the missing columns of ``frame``, if any."""
    missing = [column for column in expected if column not in frame.columns]
    if missing:
        raise ValueError(f"results table lacks column(s) {missing}; it has {list(frame.columns)}")
    return frame
