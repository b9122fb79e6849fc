"""dp-gcd Table 1 (records and features of each dataset) from the workflow's processed data."""
import pandas as pd

from privcd.data import get_spec

SIZE_COLUMNS = ("dataset", "records", "features", "paper records", "paper features")


def dataset_sizes(metas, originals=None):
    """One row per dataset: our records and features beside the paper's (dp-gcd Table 1).

    Parameters
    ----------
    metas : iterable of dict
        Provenance of processed datasets (``results/data/<dataset>/<preprocessing>.json``: keys
        ``name``, ``parts`` -- records per part, all counted -- and ``shape``), one per dataset, in
        the table's order.
    originals : list of str, optional
        The dataset of the paper each meta stands for (default its own name): a substitute
        (``dorothea-valid`` for ``dorothea``) is shown as such, beside the original's paper numbers.
    """
    rows = []
    metas = list(metas)
    originals = list(originals) if originals is not None else [meta["name"] for meta in metas]
    if len(originals) != len(metas):
        raise ValueError(f"{len(originals)} originals for {len(metas)} datasets; expected one per dataset")
    for meta, original in zip(metas, originals):
        paper = get_spec(original).paper
        name = meta["name"] if meta["name"] == original else f"{meta['name']} (instead of {original})"
        rows.append({"dataset": name, "records": sum(meta["parts"].values()), "features": meta["shape"][1],
                     "paper records": paper.records if paper else None,
                     "paper features": paper.features if paper else None})
    table = pd.DataFrame(rows, columns=list(SIZE_COLUMNS))
    for column in SIZE_COLUMNS[1:]:
        table[column] = table[column].astype("Int64")
    return table
