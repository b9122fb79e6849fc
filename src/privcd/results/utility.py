"""Held-out utility of a run: the metrics dp-scd Section 5.1 reports, in one place.

Classification (logistic, hinge): *accuracy*, the fraction of records with ``sign(<w, x_i>) = sign(y_i)``
(``<w, x_i> = 0`` predicts +1, as ``numpy.where(z >= 0, 1, -1)``). Regression (squared): the
*mean squared error* ``(1/N) sum_i (<w, x_i> - y_i)^2`` (dp-scd "Performance metrics"). Both are
measured on the ``validation`` part (hyperparameter selection, dp-scd Section 5.1: "the
combination with the best performance on the validation set") and the ``test`` part (the figures)
of datasets preprocessed with the ``dp-scd`` recipe, for every checkpoint of every run. The
results table holds one column per (part, metric), ``metric_<part>_<metric>``; a metric that does
not apply to the loss, or a part the dataset lacks, is NaN.
"""
import numpy as np

from privcd.losses import LOSSES
from privcd.results.datafiles import load_arrays
from privcd.results.table import UTILITY_COLUMNS

HELD_OUT_PARTS = ("validation", "test")
METRICS = ("accuracy", "mse")
UTILITY = {name: spec.utility for name, spec in LOSSES.items()}  # each loss's metric, from its spec
HIGHER_IS_BETTER = {"accuracy": True, "mse": False}


def utility_of(loss):
    """The utility metric of a loss name (``"accuracy"`` or ``"mse"``); ``ValueError`` otherwise."""
    if loss not in UTILITY:
        raise ValueError(f"loss={loss!r} has no utility metric; expected one of {sorted(UTILITY)}")
    return UTILITY[loss]


def metric_values(metric, X, y, W):
    """``metric`` of every row of ``W`` (shape (k, p)) on ``(X, y)``: an array of k values."""
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    scores = np.asarray(X @ W.T, dtype=np.float64)  # (N, k), dense or sparse X
    y = np.asarray(y, dtype=np.float64)[:, None]
    if metric == "accuracy":  # the label's sign: a weighted loss's label carries a weight too
        return np.mean(np.where(scores >= 0.0, 1.0, -1.0) == np.where(y >= 0.0, 1.0, -1.0), axis=0)
    if metric == "mse":
        return np.mean((scores - y) ** 2, axis=0)
    raise ValueError(f"metric={metric!r} is not known; expected one of {list(METRICS)}")


def utility_columns(loss, snapshots, held_out):
    """Column -> values per checkpoint (:data:`UTILITY_COLUMNS`), NaN where they do not apply.

    Parameters
    ----------
    loss : str
    snapshots : ndarray of shape (k, p) or None
        The iterates at the k checkpoints (``privcd.Run.snapshots``); None gives all NaN.
    held_out : dict, optional
        Part name (``"validation"``, ``"test"``) -> ``(X, y)``.
    """
    count = 0 if snapshots is None else len(snapshots)
    columns = {column: np.full(count, np.nan) for column in UTILITY_COLUMNS}
    if snapshots is None or not held_out:
        return columns
    metric = utility_of(loss)
    for part, (X, y) in held_out.items():
        if part not in HELD_OUT_PARTS:
            raise ValueError(f"held-out part {part!r} is not known; expected one of {list(HELD_OUT_PARTS)}")
        columns[f"metric_{part}_{metric}"] = metric_values(metric, X, y, snapshots)
    return columns


def load_held_out(npz_path):
    """The validation and test parts a saved dataset has (``{}`` for single-part recipes)."""
    with np.load(npz_path) as arrays:
        present = [part for part in HELD_OUT_PARTS if f"{part}_y" in arrays.files]
    return {part: load_arrays(npz_path, part) for part in present}


def selection_score(frame, loss_by_problem):
    """Score to minimise when selecting on the validation part: MSE, or minus the accuracy.

    ``loss_by_problem`` maps ``frame["problem"]`` to loss names. A problem without a validation
    part gets a ``ValueError`` naming it (its score would be NaN for every configuration).
    """
    score = np.full(len(frame), np.nan)
    for problem, rows in frame.groupby("problem", sort=False).indices.items():
        metric = utility_of(loss_by_problem[problem])
        values = frame[f"metric_validation_{metric}"].to_numpy(dtype=float)[rows]
        if np.all(np.isnan(values)):
            raise ValueError(f"problem {problem!r} has no validation {metric}: selection on the "
                             "validation part needs preprocessing='dp-scd' (train/validation/test)")
        score[rows] = -values if HIGHER_IS_BETTER[metric] else values
    return score
