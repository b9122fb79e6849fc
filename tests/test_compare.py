"""results/compare/papers.md: verdicts, the transcribed paper values and the winners."""
from pathlib import Path

import pandas as pd
import pytest

from privcd.results.compare import (compare_per_passes, compare_support, display, load_values, printed_spread,
                                    verdict, verdict_counts, winners)

VALUES = Path(__file__).resolve().parents[1] / "config" / "paper_values"


@pytest.mark.parametrize("ours, ours_spread, paper, paper_spread, expected", [
    (0.1458, 0.0, 0.1458, 0.0, "within spread"),
    (0.150, 0.001, 0.1458, 0.006, "within spread"),        # |diff| 0.0042 <= 0.007
    (0.150, 0.0035, 0.1458, 0.001, "within spread"),       # our spread counts too: intervals overlap
    (0.160, 0.001, 0.1458, 0.006, "same order of magnitude"),
    (1.2e-3, 1e-5, 1.3e-2, 1e-3, "off"),                   # ratio > 10
    (0.0, 0.0, 0.0024, 5e-5, "off"),                       # no ratio when ours is 0
    (float("inf"), 0.0, 0.75, 0.005, "off"),               # diverged
    (None, 0.0, 0.75, 0.005, "not run"),
    (float("nan"), 0.0, 0.75, 0.005, "not run"),
])
def test_verdict(ours, ours_spread, paper, paper_spread, expected):
    assert verdict(ours, ours_spread, paper, paper_spread) == expected


@pytest.mark.parametrize("text, spread", [("0.75", 0.005), ("0.020", 0.0005), ("0.00056", 5e-6), ("3", 0.5),
                                          ("2.5e-3", 5e-5)])
def test_printed_spread_is_half_a_unit_of_the_last_digit(text, spread):
    assert printed_spread(text) == pytest.approx(spread)


def test_printed_spread_rejects_text_that_is_not_a_number():
    with pytest.raises(ValueError):
        printed_spread("n/a")


def test_transcribed_values_have_the_papers_shape():
    table_2 = load_values(VALUES / "dp-cd.yaml")
    assert table_2["columns"] == [2, 5, 10, 20, 50] and len(table_2["cells"]) == 5
    assert table_2["cells"]["electricity-imbalanced"]["dp-cd"][0] == [0.1458, 6e-4]
    assert table_2["cells"]["sparse-lasso"]["dp-sgd"][1] == [0.7551, 3e-9]
    table_3 = load_values(VALUES / "dp-gcd.yaml")
    assert table_3["nonzeros"] == {"square": 7, "california": 3, "dorothea": 72, "madelon-l1": 3}
    assert table_3["cells"]["california"]["dp-gcd"] == [2, 0, "0.00056"]


def test_load_values_names_a_missing_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("paper: x\ncells: {}\n")
    with pytest.raises(ValueError, match="'table'"):
        load_values(path)


VALUES_2 = {"paper": "dp-cd", "table": "Table 2", "columns": [2, 5],
            "cells": {"e": {"dp-cd": [[0.10, 0.01], [0.05, 0.01]], "dp-sgd": [[0.20, 0.02], [0.15, 0.01]]},
                      "s": {"dp-cd": [[0.25, 0.04], [0.47, 0.09]], "dp-sgd": [[0.7551, 0.0], [0.7551, 0.0]]}},
            "reasons": {"s": "different   data"}}


def test_per_passes_comparison_cells_verdicts_reasons_and_winners():
    best = pd.DataFrame({"problem": ["e", "e", "e", "e", "s", "s"], "algorithm": ["dp-cd", "dp-cd", "dp-sgd", "dp-sgd", "dp-cd", "dp-sgd"],
                         "param_passes": [2.0, 5.0, 2.0, 5.0, 2.0, 2.0], "mean": [0.105, 0.4, 0.03, 0.155, 1.05, 1.05],
                         "std": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]})
    comparison = compare_per_passes(best, VALUES_2)
    assert len(comparison) == 8
    cell = comparison.set_index(["problem", "algorithm", "passes"])
    assert cell.loc[("e", "dp-cd", 2), "verdict"] == "within spread" and cell.loc[("e", "dp-cd", 2), "reason"] == ""
    assert cell.loc[("e", "dp-cd", 5), "verdict"] == "same order of magnitude"
    assert cell.loc[("e", "dp-sgd", 2), "verdict"] == "same order of magnitude"
    assert cell.loc[("s", "dp-sgd", 2), "verdict"] == "same order of magnitude"
    assert cell.loc[("s", "dp-cd", 5), "verdict"] == "not run" and "not run" in cell.loc[("s", "dp-cd", 5), "reason"]
    assert verdict_counts(comparison) == {"within spread": 2, "same order of magnitude": 4, "off": 0, "not run": 2}
    best.loc[4, "mean"] = 5.0
    off = compare_per_passes(best, VALUES_2).set_index(["problem", "algorithm", "passes"]).loc[("s", "dp-cd", 2)]
    assert off["verdict"] == "off" and off["reason"] == "different data"
    won = winners(comparison).set_index("problem")
    assert won.loc["e"].tolist() == ["dp-cd", "dp-sgd", "no"]   # our dp-sgd 0.03 beats our dp-cd 0.105
    assert won.loc["s", "paper"] == "dp-cd"
    shown = display(comparison)
    assert shown.loc[0, "ours"] == "0.105 ± 0e+00" and shown.loc[0, "paper"] == "0.1 ± 1e-02"
    assert shown.set_index(["problem", "algorithm", "passes"]).loc[("s", "dp-cd", 5), "ours"] == ""


def test_support_comparison_has_three_quantities_per_cell_and_unexplained_off_cells():
    values = {"paper": "dp-gcd", "table": "Table 3", "cells": {"sq": {"dp-gcd": [2, 0, "0.35"], "dp-cd": [0, 0, "0.75"]}}}
    recovery = pd.DataFrame([{"problem": "sq", "algorithm": "dp-gcd", "correct": 2.0, "incorrect": 1.0,
                              "relative_error": 0.36, "correct_std": 0.0, "incorrect_std": 0.0,
                              "relative_error_std": 0.01}])
    comparison = compare_support(recovery, values)
    assert comparison["quantity"].tolist() == ["correct", "incorrect", "relative gap"] * 2
    gcd = comparison[comparison["algorithm"] == "dp-gcd"].set_index("quantity")
    assert gcd["verdict"].tolist() == ["within spread", "off", "within spread"]
    assert gcd.loc["incorrect", "reason"] == "not explained yet"
    assert set(comparison[comparison["algorithm"] == "dp-cd"]["verdict"]) == {"not run"}
    assert winners(comparison).iloc[0].tolist() == ["sq", "dp-gcd", "dp-gcd", "yes"]
    tied = recovery.assign(algorithm="dp-cd")
    both = pd.concat([recovery, tied], ignore_index=True)
    assert winners(compare_support(both, values)).iloc[0].tolist() == ["sq", "dp-gcd", "dp-gcd = dp-cd", "yes"]
