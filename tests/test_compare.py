"""results/compare/papers.md: ratios ours / paper, counts, reasons, winners, grid steps, speed ratios."""
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcd.results.compare.cells import (NOT_RUN, PAPER_ZERO, compare_per_passes, compare_support, display,
                                          evidence_counts, evidence_line, ratio, ratio_counts, summary_line)
from privcd.results.compare.grids import compare_hyperparameters, edge_flags, grid_steps, log_step
from privcd.results.compare.report import times_section
from privcd.results.compare.times import compare_times
from privcd.results.per_passes import mean_times
from privcd.results.compare.values import (UNEXPLAINED, check_fitted, check_reasons, evidence_for, load_values,
                                           reason_for)
from privcd.results.compare.winners import agreement_line, rounded, winners

ROOT = Path(__file__).resolve().parents[1]
VALUES = ROOT / "config" / "paper_values"
REFERENCE = Path(__file__).resolve().parent / "data" / "compare_reference.csv"


def reference(table):
    frame = pd.read_csv(REFERENCE, comment="#")
    return frame[frame["table"] == table].drop(columns="table").reset_index(drop=True)


def reference_table_2():
    """Our dp-cd Table 2 cells of the committed papers.md, as best_per_passes gives them."""
    frame = reference("dp-cd table 2")
    return frame.rename(columns={"std": "std_"}).assign(param_passes=frame["cell"].astype(float), std=frame["std"])


def test_the_committed_comparison_gives_the_counts_of_issue_20():
    comparison = compare_per_passes(reference_table_2(), load_values(VALUES / "dp-cd.yaml"))
    counts = ratio_counts(comparison).iloc[0]
    assert (counts["cells"], counts["within 2x"], counts["within 1.25x"]) == (50, 40, 25)
    per_algorithm = ratio_counts(comparison, by=("algorithm",)).set_index("algorithm")
    assert per_algorithm.loc["dp-cd", "within 2x"] == 18 and per_algorithm.loc["dp-cd", "with ratio"] == 25
    assert per_algorithm.loc["dp-sgd", "within 2x"] == 22
    won = winners(comparison, by=("problem", "passes"))
    assert (won["agree"] == "yes").sum() == 21 and (won["agree"] == "tie").sum() == 1
    differ = won[won["agree"] == "no"][["problem", "passes"]].values.tolist()
    assert differ == [["electricity-balanced", 2], ["electricity-balanced", 5], ["california-imbalanced", 5]]
    assert won.set_index(["problem", "passes"]).loc[("sparse-lasso", 50)].tolist() == ["dp-cd = dp-sgd", "dp-cd", "tie"]
    assert agreement_line(won, "(problem, passes)") == "agrees in 22/25 (problem, passes) (21 exactly, 1 through a tie)"
    # every cell more than 2x off says why, or that it is not explained yet
    off = comparison[comparison["factor"] > 2]
    assert len(off) == 10 and (off["reason"] == UNEXPLAINED).all()

    recovery = reference("dp-gcd table 3").pivot(index=["problem", "algorithm"], columns="cell")
    recovery.columns = [name if stat == "mean" else f"{name}_std" for stat, name in recovery.columns]
    recovery = recovery.rename(columns={"relative gap": "relative_error", "relative gap_std": "relative_error_std"})
    support = compare_support(recovery.reset_index(), load_values(VALUES / "dp-gcd.yaml"))
    gaps = ratio_counts(support, by=("quantity",)).set_index("quantity").loc["relative gap"]
    assert (gaps["with ratio"], gaps["within 2x"], gaps["within 1.25x"]) == (12, 12, 6)


def test_the_reasons_of_the_committed_values_files_show_their_checks():
    values = load_values(VALUES / "dp-gcd.yaml")
    square = reason_for(values["reasons"], {"problem": "square", "algorithm": "dp-sgd", "quantity": "incorrect"})
    assert "another draw" in square and square.endswith("test_w_zero_has_the_papers_relative_error)")
    dorothea = reason_for(values["reasons"], {"problem": "dorothea", "algorithm": "dp-gcd"})
    assert dorothea.startswith("not reproduced on the paper's 800-row training split") and dorothea.endswith(
        "(checked by results/reference/dp-gcd/tuning_errors.md; config/README.md#regularisation-strengths-dp-cd-"
        "and-dp-gcd (the dorothea scan); tests/test_lambdas.py::test_w_zero_has_the_papers_relative_error)")


@pytest.mark.parametrize("name", sorted(path.name for path in VALUES.glob("*.yaml")))
def test_every_checked_by_names_a_committed_file_and_test(name):
    for entry in load_values(VALUES / name)["reasons"]:
        for reference_ in filter(None, (part.strip() for part in str(entry.get("checked_by", "")).split(";"))):
            path, _, test = reference_.partition("#")[0].partition("::")
            assert (ROOT / path).is_file(), f"{name}: {reference_} names no file"
            if test:
                assert re.search(rf"^def {test}\(", (ROOT / path).read_text(), re.M), f"{name}: no {test}"


def test_machine_paths_are_not_cited():
    for path in VALUES.glob("*.yaml"):
        assert "/work/" not in path.read_text() and "/home/" not in path.read_text(), path.name


@pytest.mark.parametrize("ours, paper, expected", [
    (0.15, 0.10, (1.5, 1.5)), (0.05, 0.10, (0.5, 2.0)), (0.0, 3.0, (0.0, math.inf)),
    (math.inf, 0.1, (math.inf, math.inf)), (None, 0.1, (math.nan, math.nan)), (math.nan, 0.1, (math.nan, math.nan)),
    (0.2, 0.0, (math.nan, math.nan)),
])
def test_ratio_and_factor(ours, paper, expected):
    value, factor = ratio(ours, paper)
    assert np.allclose([value, factor], expected, equal_nan=True)


def test_ratio_rejects_negative_values():
    with pytest.raises(ValueError, match="ours=-1"):
        ratio(-1.0, 2.0)


REASONS = [{"problem": "e", "reason": "problem-wide", "checked_by": "a.md"},
           {"problem": "e", "algorithm": "dp-sgd", "passes": 5, "reason": "this   cell", "checked_by": "b.py::t"},
           {"problem": "s", "reason": "a guess"}]


def test_the_most_specific_reason_wins_and_unchecked_ones_are_unexplained():
    assert reason_for(REASONS, {"problem": "e", "algorithm": "dp-sgd", "passes": 5}) == "this cell (checked by b.py::t)"
    assert reason_for(REASONS, {"problem": "e", "algorithm": "dp-sgd", "passes": 2}) == "problem-wide (checked by a.md)"
    assert reason_for(REASONS, {"problem": "s", "algorithm": "dp-cd"}) == "not explained yet (unchecked: a guess)"
    assert reason_for(REASONS, {"problem": "other"}) == UNEXPLAINED


@pytest.mark.parametrize("reasons, words", [
    ({"e": "text"}, "must be a list"),
    ([{"problem": "e"}], r"lacks \['reason'\]"),
    ([{"problem": "e", "reason": "r", "pases": 2}], r"unknown key\(s\) \['pases'\]"),
])
def test_malformed_reasons_are_errors_naming_them(reasons, words):
    with pytest.raises(ValueError, match=words):
        check_reasons(reasons, "x.yaml")


def test_load_values_names_a_missing_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("paper: x\ncells: {}\n")
    with pytest.raises(ValueError, match="'table'"):
        load_values(path)


VALUES_2 = {"paper": "dp-cd", "table": "Table 2", "columns": [2, 5], "reasons": REASONS,
            "cells": {"e": {"dp-cd": [[0.10, 0.01], [0.05, 0.01]], "dp-sgd": [[0.20, 0.02], [0.15, 0.01]]},
                      "s": {"dp-cd": [[0.25, 0.04], [0.47, 0.09]], "dp-sgd": [[0.7551, 0.0], [0.7551, 0.0]]}}}


def test_per_passes_cells_ratios_reasons_and_display():
    best = pd.DataFrame({"problem": ["e"] * 4 + ["s", "s"],
                         "algorithm": ["dp-cd", "dp-cd", "dp-sgd", "dp-sgd", "dp-cd", "dp-sgd"],
                         "param_passes": [2.0, 5.0, 2.0, 5.0, 2.0, 2.0],
                         "mean": [0.11, 0.4, 0.03, 0.155, 0.26, 0.75594],
                         "std": [0.01, 0.0, 0.0, 0.0, 0.0, 0.0]})
    comparison = compare_per_passes(best, VALUES_2)
    cell = comparison.set_index(["problem", "algorithm", "passes"])
    assert cell.loc[("e", "dp-cd", 2), "ratio"] == pytest.approx(1.1) and cell.loc[("e", "dp-cd", 2), "reason"] == ""
    assert cell.loc[("e", "dp-cd", 5), "factor"] == pytest.approx(8.0)
    assert cell.loc[("e", "dp-cd", 5), "reason"] == "problem-wide (checked by a.md)"
    assert cell.loc[("e", "dp-sgd", 2), "reason"] == "problem-wide (checked by a.md)"     # 0.03 / 0.2: 6.7x off
    assert cell.loc[("s", "dp-cd", 5), "reason"] == NOT_RUN
    counts = ratio_counts(comparison).iloc[0].to_dict()
    assert counts == {"cells": 8, "with ratio": 6, "within 1.25x": 4, "within 2x": 4, "paper 0": 0,
                      "paper 0, ours not": 0, "not run": 2}
    assert summary_line(ratio_counts(comparison)) == "within 1.25x: 4/6, within 2x: 4/6 (2 not run)"
    shown = display(comparison).set_index(["problem", "algorithm", "passes"])
    assert list(shown.columns) == ["ours", "paper", "ratio", "reason", "evidence"]
    assert shown.loc[("e", "dp-cd", 2)].tolist()[:3] == ["0.11 ± 1e-02", "0.1 ± 1e-02", "1.1"]
    assert shown.loc[("s", "dp-cd", 5), "ratio"] == "not run" and shown.loc[("s", "dp-cd", 5), "ours"] == ""


def test_support_cells_with_a_paper_zero_have_no_ratio():
    values = {"paper": "dp-gcd", "table": "Table 3", "reasons": [],
              "cells": {"sq": {"dp-gcd": [2, 0, "0.35"], "dp-cd": [0, 0, "0.75"]}}}
    recovery = pd.DataFrame([{"problem": "sq", "algorithm": "dp-gcd", "correct": 0.8, "incorrect": 1.0,
                              "relative_error": 0.36, "correct_std": 0.4, "incorrect_std": 0.0,
                              "relative_error_std": 0.01}])
    comparison = compare_support(recovery, values)
    assert comparison["quantity"].tolist() == ["correct", "incorrect", "relative gap"] * 2
    gcd = comparison[comparison["algorithm"] == "dp-gcd"].set_index("quantity")
    assert gcd.loc["correct", "factor"] == pytest.approx(2.5) and gcd.loc["correct", "reason"] == UNEXPLAINED
    assert math.isnan(gcd.loc["incorrect", "ratio"])  # the paper's 0 against our 1.0: flagged
    assert gcd.loc["incorrect", "reason"] == UNEXPLAINED
    shown = display(comparison).set_index(["algorithm", "quantity"])
    assert shown.loc[("dp-gcd", "incorrect"), ["paper", "ratio"]].tolist() == ["0", PAPER_ZERO]
    counts = ratio_counts(comparison).iloc[0]
    assert (counts["with ratio"], counts["paper 0"], counts["paper 0, ours not"], counts["not run"]) == (2, 1, 1, 3)
    assert summary_line(ratio_counts(comparison)) == ("within 1.25x: 1/2, within 2x: 1/2 (1 with the paper's value 0, "
                                                      "no ratio, 1 of them not 0 here (flagged with a reason); "
                                                      "3 not run)")


def test_a_paper_zero_that_ours_matches_is_not_flagged():
    values = {"paper": "dp-gcd", "table": "Table 3", "reasons": [{"problem": "sq", "reason": "r", "checked_by": "f"}],
              "cells": {"sq": {"dp-gcd": [2, 0, "0.35"]}}}
    recovery = pd.DataFrame([{"problem": "sq", "algorithm": "dp-gcd", "correct": 2.0, "incorrect": 0.0,
                              "relative_error": 0.35, "correct_std": 0.0, "incorrect_std": 0.0,
                              "relative_error_std": 0.0}])
    comparison = compare_support(recovery, values).set_index("quantity")
    assert comparison.loc["incorrect", "reason"] == ""
    assert ratio_counts(comparison.reset_index()).iloc[0]["paper 0, ours not"] == 0


def test_winners_ties_and_best_passes():
    rows = [("p", "a", 2, 0.10, 0.100001), ("p", "b", 2, 0.10, 0.2),
            ("p", "a", 5, 0.05, 0.3), ("p", "b", 5, 0.2, 0.30004),
            ("q", "a", 2, 0.3, 0.1), ("q", "b", 2, 0.2, None)]
    comparison = pd.DataFrame(rows, columns=["problem", "algorithm", "passes", "paper", "ours"])
    won = winners(comparison).set_index(["problem", "passes"])
    assert won.loc[("p", 2)].tolist() == ["a = b", "a", "tie"]          # the paper's tie contains our winner
    assert won.loc[("p", 5)].tolist() == ["a", "a = b", "tie"]          # ours tie at 4 significant digits
    assert won.loc[("q", 2)].tolist() == ["b", "a", "no"]               # b did not run here: a wins ours
    best = winners(comparison, by=("problem", "algorithm"), over="passes").set_index(["problem", "algorithm"])
    assert best.loc[("p", "a")].tolist() == ["5", "2", "no"] and best.loc[("p", "b")].tolist() == ["2", "2", "yes"]
    assert best.loc[("q", "b")].tolist() == ["2", "(not run)", "-"]
    assert rounded(0.30004) == rounded(0.3) and rounded(0.75594) != rounded(0.7551)


def test_grid_steps_by_index_else_by_log_step():
    axis = list(np.logspace(-2, 1, 10))
    assert log_step(axis) == pytest.approx(1 / 3)
    assert grid_steps(axis[7], 2.15, axis) == 0.0 and grid_steps(axis[9], 1.0, axis) == 3.0
    assert grid_steps(1.0, 10.0, [0.1, 1.0]) == pytest.approx(-1.0)         # 10 is off this grid: log10 step 1
    assert grid_steps(1.0, 5.0, [1, 2, 4, 7]) != grid_steps(1.0, 5.0, [1, 2, 4, 7])  # NaN: no log step
    assert log_step([1, 2, 4, 7]) is None and grid_steps(7, 2, [1, 2, 4, 7]) == 2.0


def test_edge_flags_name_step_or_clip_at_the_first_or_last_grid_value():
    grid = {"step": [0.01, 0.1, 1.0], "clip": [1.0, 10.0], "passes": [2.0]}
    assert edge_flags({"step": 0.1, "clip": 10.0, "passes": 2.0}, grid) == ["clip = 10 (last of 2)"]
    assert edge_flags({"step": 0.01, "clip": 10.0}, grid) == ["step = 0.01 (first of 3)", "clip = 10 (last of 2)"]
    assert edge_flags({"step": 0.1, "clip": 1.0}, {"step": [0.1], "clip": [0.5, 1.0, 2.0]}) == []


def test_hyperparameters_beside_table_4():
    values = {"paper": "dp-gcd", "table": "Table 4", "columns": ["passes", "clip", "step"],
              "cells": {"california": {"dp-gcd": ["4", "5.18e+01", "1.00e+00"],
                                       "dp-sgd": ["20.0", "1.26e+01", "2.15e-05"]}}}
    grid = {"passes": [1, 2, 4, 7], "clip": list(np.logspace(-4, 6, 50)), "step": list(np.logspace(-2, 1, 10))}
    selections = [{"paper": "dp-gcd", "problem": "california", "algorithm": "dp-gcd", "grid": grid,
                   "params": {"passes": 7, "clip": grid["clip"][30], "step": grid["step"][9]}}]
    row = compare_hyperparameters(selections, values).set_index("algorithm").loc["dp-gcd"]
    assert (row["passes steps"], row["clip steps"], row["step steps"]) == (1.0, 2.0, 3.0)  # 51.8 is clip index 28
    assert row["at edge"] == "step = 10 (last of 10)" and row["clip paper"] == 51.8
    missing = compare_hyperparameters(selections, values).set_index("algorithm").loc["dp-sgd"]
    assert math.isnan(missing["step ours"]) and math.isnan(missing["step steps"])


def timing_frame():
    rows = []
    for problem, cd, sgd in (("e", [1.0, 3.0], [8.0, 8.0]), ("c", [2.0, 2.0], [4.0, 6.0])):
        for algorithm, seconds in (("dp-cd", cd), ("dp-sgd", sgd)):
            rows += [{"paper": "dp-cd", "problem": problem, "algorithm": algorithm, "param_passes": 2.0,
                      "run": run, "seconds": value} for run, value in enumerate(seconds)]
    return pd.DataFrame(rows)


def test_times_are_compared_as_speed_ratios():
    means = mean_times(timing_frame()).set_index(["problem", "algorithm"])
    assert means.loc[("e", "dp-cd"), ["mean", "std", "runs"]].tolist() == [2.0, pytest.approx(np.sqrt(2)), 2]
    values = {"paper": "dp-cd", "table": "Table 3", "columns": [2, 5], "ratio": ["dp-cd", "dp-sgd"],
              "cells": {"e": {"dp-cd": [[0.5, 0.1], [1.0, 0.1]], "dp-sgd": [[2.0, 0.1], [5.0, 0.1]]},
                        "c": {"dp-cd": [[0.1, 0.1], [1.0, 0.1]], "dp-sgd": [[1.0, 0.1], [5.0, 0.1]]}}}
    comparison = compare_times(timing_frame(), values).set_index(["problem", "passes"])
    assert comparison.loc[("e", 2), ["ours", "paper", "ratio"]].tolist() == [0.25, 0.25, 1.0]   # 2 s / 8 s, 0.5 / 2
    assert comparison.loc[("c", 2), ["ours", "paper", "ratio"]].tolist() == [0.4, 0.1, pytest.approx(4.0)]
    assert math.isnan(comparison.loc[("e", 5), "ours"]) and comparison.loc[("e", 5), "paper"] == 0.2
    counts = ratio_counts(comparison.reset_index()).iloc[0]
    assert (counts["with ratio"], counts["within 2x"], counts["not run"]) == (2, 1, 2)
    assert comparison.loc[("c", 2), "reason"] == "not explained yet" and comparison.loc[("e", 2), "reason"] == ""
    explained = {**values, "reasons": [{"problem": "c", "reason": "a build", "checked_by": "x.md"}]}
    assert compare_times(timing_frame(), explained).set_index(["problem", "passes"]).loc[("c", 2), "reason"] == \
        "a build (checked by x.md)"


def test_times_need_both_algorithms_and_the_timing_columns():
    values = {"paper": "dp-cd", "table": "Table 3", "columns": [2], "ratio": ["dp-cd", "dp-sgd"],
              "cells": {"e": {"dp-cd": [[0.5, 0.1]]}}}
    with pytest.raises(ValueError, match=r"no paper times for \['dp-sgd'\]"):
        compare_times(timing_frame(), values)
    with pytest.raises(ValueError, match="'ratio' must name"):
        compare_times(timing_frame(), {**values, "ratio": None})
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['seconds'\]"):
        compare_times(timing_frame().drop(columns="seconds"), {**values, "cells": {"e": {**values["cells"]["e"], "dp-sgd": [[1.0, 0.1]]}}})


def test_transcribed_values_have_the_papers_shape():
    table_2 = load_values(VALUES / "dp-cd.yaml")
    assert table_2["columns"] == [2, 5, 10, 20, 50] and len(table_2["cells"]) == 5
    assert table_2["cells"]["electricity-imbalanced"]["dp-cd"][0] == [0.1458, 6e-4]
    times = load_values(VALUES / "dp-cd-times.yaml")
    assert times["columns"] == table_2["columns"] and list(times["cells"]) == list(table_2["cells"])
    assert times["cells"]["electricity-imbalanced"]["dp-sgd"][4] == [1.8588, 0.2]
    assert times["cells"]["sparse-lasso"]["dp-cd"][0] == [0.0244, 6e-4]
    table_3 = load_values(VALUES / "dp-gcd.yaml")
    assert table_3["nonzeros"] == {"square": 7, "california": 3, "dorothea": 72, "madelon-l1": 3}
    assert table_3["cells"]["california"]["dp-gcd"] == [2, 0, "0.00056"]
    table_4 = load_values(VALUES / "dp-gcd-hyperparameters.yaml")
    assert sum(len(algorithms) for algorithms in table_4["cells"].values()) == 24
    assert table_4["cells"]["dorothea"]["dp-sgd"] == ["0.001", "1.00e-04", "1.00e-06"]
    assert table_4["cells"]["madelon-l2"]["dp-gcd"] == ["10", "7.91e+00", "1.00e+00"]


def test_the_times_section_renders_dp_cd_table_3_as_speed_ratios():
    section = times_section(timing_frame().replace({"e": "electricity-imbalanced", "c": "california-balanced"}),
                            load_values(VALUES / "dp-cd-times.yaml"))
    assert section.startswith("## dp-cd Table 3 (Appendix G.2), running times\n")
    assert "within 1.25x: 0/2, within 2x: 1/2 (23 not run)" in section      # 0.25 / 0.193 = 1.29; 0.4 / 0.119 = 3.4
    assert "| electricity-imbalanced | 2 | 2 | 8 | 2 | 0.25 | 0.193 | 1.29 |" in section
    assert "| sparse-lasso | 50 |  |  | 0 |  | 0.364 | not run |" in section


def test_a_cell_is_fitted_tested_or_independent():
    fitted = [{"algorithm": "dp-cd", "choice": "the order", "fitted_on": [{"problem": "e"}]},
              {"problem": "s", "choice": "the  generator", "fitted_on": [{"problem": "s", "algorithm": "dp-sgd"}]}]
    assert evidence_for(fitted, {"problem": "e", "algorithm": "dp-cd", "passes": 2}) == ("fitted", ["the order"])
    assert evidence_for(fitted, {"problem": "c", "algorithm": "dp-cd"}) == ("tested", ["the order"])
    assert evidence_for(fitted, {"problem": "s", "algorithm": "dp-cd"}) == ("tested", ["the order", "the generator"])
    assert evidence_for(fitted, {"problem": "s", "algorithm": "dp-sgd"}) == ("fitted", ["the generator"])
    assert evidence_for(fitted, {"problem": "c", "algorithm": "dp-sgd"}) == ("independent", [])


@pytest.mark.parametrize("entry", [{"choice": "c", "fitted_on": [{"problem": "e"}]},  # no cell key
                                   {"problem": "e", "fitted_on": [{"problem": "e"}]},  # no choice
                                   {"problem": "e", "choice": "c", "fitted_on": []},
                                   {"problem": "e", "choice": "c", "fitted_on": [{"runs": 3}]},
                                   {"problem": "e", "choice": "c", "fitted_on": [{"problem": "e"}], "why": "x"}])
def test_a_malformed_fitted_entry_is_refused_by_name(entry):
    with pytest.raises(ValueError, match=r"fitted\[0\]"):
        check_fitted([entry], "values.yaml")


def test_the_committed_table_2_counts_its_evidence_apart():
    """dp-cd Table 2 of the committed comparison: the DP-SGD cells of electricity and California
    (balanced) are the only ones no fitted choice shapes; the cyclic order's test cells are
    Sparse LASSO's DP-CD cells before 50 passes."""
    comparison = compare_per_passes(reference_table_2(), load_values(VALUES / "dp-cd.yaml"))
    kinds = comparison.groupby("evidence").size().to_dict()
    assert kinds == {"independent": 15, "tested": 4, "fitted": 31}
    tested = comparison[comparison["evidence"] == "tested"]
    assert set(tested["problem"]) == {"sparse-lasso"} and set(tested["algorithm"]) == {"dp-cd"}
    counts = evidence_counts(comparison).set_index("evidence")
    assert counts["with ratio"].sum() == ratio_counts(comparison).iloc[0]["with ratio"]
    assert evidence_line(comparison).startswith("independent (no fitted choice shapes them): within 2x ")
