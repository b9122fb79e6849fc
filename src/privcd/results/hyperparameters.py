"""The selected hyperparameters of every problem and algorithm (dp-gcd Appendix D, Table 4)."""
import pandas as pd

from privcd.losses import LOSSES

LOSS_NAMES = {name: spec.display for name, spec in LOSSES.items()}  # dp-gcd Table 4's names, from each spec
HYPERPARAMETER_COLUMNS = ("Dataset", "Loss", "Algorithm", "Passes on data", "Clipping threshold", "Step size")


def loss_label(loss, penalty):
    """``"LeastSquares + L1"``: the loss and penalty as dp-gcd Table 4 names them."""
    name = LOSS_NAMES.get(loss, loss)
    return f"{name} + {penalty.upper()}" if penalty else name


def hyperparameter_table(selections):
    """dp-gcd Table 4 from the workflow's selections.

    Parameters
    ----------
    selections : iterable of (str, str, str | None, str, list of dict)
        ``(dataset title, loss, penalty, algorithm, selection)`` with ``selection`` the content of
        ``results/select/<paper>/<problem>/<algorithm>.json`` (one entry per selected configuration,
        each with ``configuration_params``). Rows come out grouped by algorithm, as in the paper,
        in the order given otherwise.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`HYPERPARAMETER_COLUMNS`; passes as ``%g``, clipping and step as ``%.2e``.
    """
    rows = []
    for dataset, loss, penalty, algorithm, selection in selections:
        for entry in selection:
            params = entry["configuration_params"]
            rows.append({"Dataset": dataset, "Loss": loss_label(loss, penalty), "Algorithm": algorithm,
                         "Passes on data": f"{params['passes']:g}",
                         "Clipping threshold": f"{params['clip']:.2e}", "Step size": f"{params['step']:.2e}"})
    table = pd.DataFrame(rows, columns=list(HYPERPARAMETER_COLUMNS))
    order = {name: index for index, name in enumerate(dict.fromkeys(table["Algorithm"]))}
    return table.sort_values("Algorithm", key=lambda column: column.map(order), kind="stable").reset_index(drop=True)
