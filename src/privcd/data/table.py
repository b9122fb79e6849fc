"""The papers' dataset table (dp-gcd Table 1: records and features), computed from the processed data."""
import pandas as pd

from privcd.data.errors import DatasetUnavailableError
from privcd.data.loader import load_dataset
from privcd.data.registry import get_spec

TABLE1 = ("log1", "log2", "square", "mtp", "dorothea", "california", "madelon")
COLUMNS = ("records", "features", "paper_records", "paper_features", "paper", "source", "note")


def dataset_table(names=TABLE1, *, preprocessing="raw", mirror=None, cache=None, download=True) -> pd.DataFrame:
    """Records and features of each dataset beside the values a paper reports.

    Parameters
    ----------
    names : sequence of str
        Registered datasets; default: dp-gcd Table 1's, in its order.
    preprocessing, mirror, cache, download
        As for :func:`privcd.data.load_dataset`.

    Returns
    -------
    pandas.DataFrame
        Indexed by name, columns :data:`COLUMNS`; ``records`` counts every part of a splitting
        recipe. A dataset that cannot be obtained has missing counts and the reason in ``note``.
    """
    rows = []
    for name in names:
        spec = get_spec(name)
        paper = spec.paper
        row = {"name": spec.name, "paper_records": paper.records if paper else None,
               "paper_features": paper.features if paper else None, "paper": paper.where if paper else ""}
        try:
            dataset = load_dataset(name, preprocessing=preprocessing, mirror=mirror, cache=cache, download=download)
        except DatasetUnavailableError as error:
            row.update(records=None, features=None, source="", note=str(error))
        else:
            row.update(records=sum(dataset.meta.parts.values()), features=dataset.X.shape[1],
                       source=dataset.meta.source, note=dataset.meta.note)
        rows.append(row)
    table = pd.DataFrame(rows).set_index("name").loc[:, list(COLUMNS)]
    for column in ("records", "features", "paper_records", "paper_features"):
        table[column] = table[column].astype("Int64")
    return table


def table_markdown(table: pd.DataFrame) -> str:
    """A Markdown rendering of :func:`dataset_table`'s result (counts with thousands separators)."""
    def cell(value):
        if pd.isna(value):
            return "—"
        text = f"{value:,}" if isinstance(value, int) or hasattr(value, "__index__") else str(value)
        return text.replace("|", "\\|")

    header = ["dataset", *table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, row in table.iterrows():
        lines.append("| " + " | ".join([name] + [cell(value) for value in row]) + " |")
    return "\n".join(lines)


def print_dataset_table(names=TABLE1, **options) -> pd.DataFrame:
    """Print :func:`dataset_table` as Markdown and return it."""
    table = dataset_table(names, **options)
    print(table_markdown(table))
    return table
