"""dp-gcd Table 1 (records and features) rebuilt from the processed data."""
from pathlib import Path

import pytest

from privcd.data import TABLE1, dataset_table, print_dataset_table, table_markdown

MIRROR = Path(__file__).resolve().parents[2] / "shared" / "datasets"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    if not MIRROR.is_dir():
        pytest.skip(f"shared datasets not found at {MIRROR}")
    return dataset_table(mirror=MIRROR, cache=tmp_path_factory.mktemp("cache"), download=False)


def test_table1_rows_and_paper_values(table):
    assert tuple(table.index) == TABLE1
    for name in ("log1", "log2", "square", "california"):
        assert table.loc[name, "records"] == table.loc[name, "paper_records"]
        assert table.loc[name, "features"] == table.loc[name, "paper_features"]
    assert (table.loc["madelon", "records"], table.loc["madelon", "features"]) == (2_600, 500)
    assert table.loc["madelon", "paper_features"] == 501 and "lists 501 features" in table.loc["madelon", "note"]
    assert table.loc["dorothea", "paper_records"] == 800 and table.loc["dorothea", "paper_features"] == 88_119
    assert (table.loc["dorothea", "records"], table.loc["dorothea", "features"]) == (800, 88_119)


def test_unavailable_datasets_are_rows_with_a_note(table):
    """mtp is the one dataset of Table 1 that the mirror lacks."""
    unavailable = table.index[table[["records", "features"]].isna().all(axis=1)]
    assert list(unavailable) == ["mtp"]
    assert "dataset 'mtp' is unavailable" in table.loc["mtp", "note"]


def test_markdown(table, shared_datasets, tmp_path, capsys):
    text = table_markdown(table)
    assert text.splitlines()[0].startswith("| dataset | records | features | paper_records |")
    assert "| california | 20,640 | 8 | 20,640 | 8 | dp-gcd Table 1 | mirror |" in text
    assert "| mtp | — | — | 4,450 | 202 |" in text
    printed = print_dataset_table(["phishing", "adult"], preprocessing="dp-scd", mirror=shared_datasets,
                                  cache=tmp_path)
    assert printed.loc["phishing", "features"] == 68 and printed.loc["adult", "features"] == 81
    assert printed.loc["adult", "records"] == printed.loc["adult", "paper_records"] == 48_842
    assert "| adult | 48,842 | 81 |" in capsys.readouterr().out
