"""The papers' own figures and tables: figure specs from the config, curve selection, the
histogram figure (dp-gcd Figure 2) and the per-passes tables (dp-cd Tables 2, 3)."""
import copy

import matplotlib
import numpy as np
import pandas as pd
import pytest

from privcd.plotting import save
from privcd.plotting.histograms import ALPHA_COLOR, histogram_figure
from privcd.plotting.panels import figure_curves, figure_spec, paper_legend
from privcd.plotting.paper_tables import per_passes_table, privacy_label
from privcd.results.quasi_sparsity import solution_histograms
from privcd.tuning import Experiment
from tests.test_plotting import aggregated

CONFIG = {
    "base_seed": 1, "data_mirror": None, "unavailable": "skip", "substitutes": {}, "chunk_size": 10,
    "papers": {"p": {
        "privacy": {"epsilon": 1.0, "delta": "1/n^2"}, "runs": {"tune": 1, "final": 1}, "select_by": [],
        "tuning_table_by": ["passes"],
        "figures": {"figure_1": {"title": "Figure 1", "problems": ["b", "a"], "algorithms": ["dp-cd"],
                                 "legend": {"dp-cd": "DP-CD"}},
                    "figure_3": {"x": "seconds", "legend": {"dp-cd": "CD", "sgd": "DP-SGD"}}},
        "problems": {"a": {"dataset": "log1", "preprocessing": "raw", "loss": "logistic", "penalty": "l2", "lam": 0.1},
                     "b": {"dataset": "log2", "preprocessing": "raw", "loss": "logistic", "penalty": "l2", "lam": 0.1}},
        "algorithms": {"dp-cd": {"grid": {"passes": 1, "step": 1.0, "clip": 1.0}},
                       "sgd": {"algorithm": "dp-sgd", "grid": {"passes": 1, "step": 1.0, "clip": 1.0}}}}},
}


def test_figure_spec_resolves_problems_defaults_and_legends():
    experiment = Experiment(copy.deepcopy(CONFIG))
    first = figure_spec(experiment, "p", "figure_1")
    assert (first.problems, first.algorithms, first.x, first.missing) == (("b", "a"), ("dp-cd",), "passes", ())
    assert first.full_title == "Figure 1"
    third = figure_spec(experiment, "p", "figure_3")
    assert third.problems == ("a", "b") and third.algorithms is None and third.x == "seconds"
    assert third.title == "p figure_3"
    assert paper_legend(experiment, "p") == {"dp-cd": "DP-CD", "sgd": "DP-SGD"}
    unnamed = copy.deepcopy(CONFIG)
    for spec in unnamed["papers"]["p"]["figures"].values():
        spec.pop("legend", None)
    assert paper_legend(Experiment(unnamed), "p") == {"dp-cd": "DP-CD", "sgd": "DP-SGD (sgd)"}  # no internal id alone


def test_figure_spec_names_problems_not_run_and_rejects_unknown_names(tmp_path):
    config = copy.deepcopy(CONFIG)
    config["papers"]["p"]["problems"]["c"] = {"dataset": "mtp", "loss": "squared", "penalty": "l2", "lam": 0.1,
                                              "preprocessing": "raw"}
    config["data_mirror"] = str(tmp_path)  # an empty mirror: mtp is not in it
    spec = figure_spec(Experiment(config), "p", "figure_3")
    assert spec.problems == ("a", "b") and spec.missing == ("c",) and "not run here: c" in spec.full_title
    for key, value, word in [("problems", ["a", "zz"], "problems: ['zz']"), ("algorithms", ["dp-xx"], "algorithms: ['dp-xx']"),
                             ("legend", {"dp-yy": "Y"}, "legend: ['dp-yy']")]:
        bad = copy.deepcopy(CONFIG)
        bad["papers"]["p"]["figures"]["figure_1"][key] = value
        with pytest.raises(ValueError, match=r"papers.p.figures.figure_1." + word.replace("[", r"\[").replace("]", r"\]")):
            figure_spec(Experiment(bad), "p", "figure_1")
    with pytest.raises(ValueError, match="no 'figure_9'"):
        figure_spec(Experiment(copy.deepcopy(CONFIG)), "p", "figure_9")


def test_figure_curves_select_order_and_rename():
    frame = pd.concat([aggregated(), aggregated().assign(problem="a")], ignore_index=True)
    curves = figure_curves(frame, problems=["q", "a"], algorithms=["dp-sgd"], legend={"dp-sgd": "DP-SGD"})
    assert list(dict.fromkeys(curves["problem"])) == ["q", "a"] and set(curves["label"]) == {"DP-SGD"}
    assert curves["runs"].unique().tolist() == [4]  # both dp-sgd configurations, 2 runs each
    assert list(dict.fromkeys(figure_curves(frame)["problem"])) == ["q", "a"]
    with pytest.raises(ValueError, match=r"algorithms \['dp-gcd'\]"):
        figure_curves(frame, algorithms=["dp-gcd"])


def test_histogram_figure_has_a_panel_per_problem_with_log_y_and_the_alpha_line(tmp_path):
    histograms = solution_histograms({"a": np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]), "b": np.zeros(3)})
    figure = histogram_figure(histograms, titles={"a": "log1"}, title="Figure 2")
    axes = [axis for axis in figure.axes if axis.get_visible()]
    assert [axis.get_title() for axis in axes] == ["log1", "b"]
    assert all(axis.get_yscale() == "log" for axis in axes)
    line = axes[0].get_lines()[0]
    assert line.get_xdata()[0] == 2.0 and matplotlib.colors.same_color(line.get_color(), ALPHA_COLOR)
    assert "α = 2 (τ = 5)" in axes[0].get_xlabel() and axes[0].get_legend() is None  # no legend over the line
    save(figure, tmp_path / "f.pdf", tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 0


def test_per_passes_table_orders_problems_adds_privacy_and_stars_only_table_2():
    best = pd.DataFrame({"paper": "p", "problem": ["s", "s", "e", "e"], "algorithm": "dp-cd",
                         "param_passes": [2.0, 5.0, 2.0, 5.0], "mean": [0.3, 0.2, 0.1, 0.05], "std": 0.01, "runs": 5})
    problems = {"e": ("Electricity", privacy_label((1.0,), "1/n^2")), "s": ("Sparse LASSO", privacy_label((10.0,), "1/n^2"))}
    table = per_passes_table(best, problems)
    assert list(table.columns) == ["problem", "privacy", "algorithm", "passes=2", "passes=5"]
    assert table["problem"].tolist() == ["Electricity", "Sparse LASSO"]
    assert table["privacy"].tolist() == ["ε = 1, δ = 1/n^2", "ε = 10, δ = 1/n^2"]
    assert table.loc[0, "passes=5"] == "0.0500 ± 1e-02*"
    plain = per_passes_table(best, problems, star=False, legend={"dp-cd": "DP-CD"})
    assert not plain.loc[0, "passes=5"].endswith("*") and set(plain["algorithm"]) == {"DP-CD"}
    with pytest.raises(ValueError, match=r"\['s'\] have results but no title"):
        per_passes_table(best, {"e": problems["e"]})


BESIDE_VALUES = {"paper": "dp-cd", "table": "Table 2", "columns": [2, 5],
                 "cells": {"e": {"dp-cd": [[0.1, 1e-3], [0.02, 1e-3]], "dp-sgd": [[0.4, 1e-2], [0.2, 1e-2]]},
                           "c": {"dp-cd": [[0.05, 1e-3], [0.0, 0.0]], "dp-sgd": [[0.3, 1e-2], [0.1, 1e-2]]},
                           "s": {"dp-cd": [[0.2, 1e-3], [0.4, 0.0]], "dp-sgd": [[0.7, 1e-2], [0.7, 1e-2]]}}}
BESIDE_BEST = pd.DataFrame({"paper": "dp-cd", "problem": ["e", "e", "e", "c", "e"],
                            "algorithm": ["dp-cd", "dp-cd", "dp-cd-cyclic", "dp-cd", "dp-scd"],
                            "param_passes": [2.0, 5.0, 2.0, 5.0, 2.0], "mean": [0.2, 0.01, 0.1, 0.004, 0.3],
                            "std": [0.01, 0.001, 0.0, 0.001, 0.01], "runs": 5})


def test_beside_paper_table_gives_each_entry_its_ratio_to_the_paper_row_it_runs():
    from privcd.plotting.beside_paper import beside_paper_table
    table = beside_paper_table(BESIDE_BEST, BESIDE_VALUES, {"dp-cd": "dp-cd", "dp-cd-cyclic": "dp-cd", "dp-sgd": "dp-sgd",
                                                            "dp-scd": "dp-scd"},
                               legend={"dp-cd": "DP-CD", "dp-cd-cyclic": "cyclic"})
    # dp-sgd has no result and the paper has no dp-scd row: no column for either
    assert list(table.columns) == ["problem", "passes", "paper DP-CD", "paper DP-SGD", "DP-CD", "DP-CD / paper",
                                   "cyclic", "cyclic / paper"]
    rows = table.set_index(["problem", "passes"])
    assert rows.loc[("e", 2), "DP-CD / paper"] == "2" and rows.loc[("e", 5), "DP-CD / paper"] == "0.5"
    assert rows.loc[("e", 2), "cyclic / paper"] == "1" and rows.loc[("e", 5), "cyclic"] == ""
    assert rows.loc[("c", 5), "DP-CD / paper"] == "undefined: paper 0"
    assert rows.loc[("c", 2), "DP-CD"] == "" and rows.loc[("e", 2), "paper DP-CD"] == "0.1 ± 1e-03"


def test_beside_paper_figure_draws_a_panel_per_problem_with_the_papers_rows_dashed(tmp_path):
    from privcd.plotting.beside_paper import beside_paper_figure
    figure = beside_paper_figure(BESIDE_BEST, BESIDE_VALUES, legend={"dp-cd": "DP-CD"}, titles={"e": "Electricity"})
    axes = [axis for axis in figure.axes if axis.get_visible()]
    assert [axis.get_title() for axis in axes] == ["Electricity", "c"]  # "s" did not run: no panel
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    # every entry that ran is drawn, also one the paper's table does not report (dp-scd)
    assert labels == ["paper: DP-CD", "paper: DP-SGD", "DP-CD", "dp-cd-cyclic", "dp-scd"]
    save(figure, tmp_path / "f.pdf", tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 0


def test_beside_paper_figure_names_results_that_match_no_problem_of_the_paper():
    from privcd.plotting.beside_paper import beside_paper_figure
    with pytest.raises(ValueError, match=r"no result for any problem of dp-cd Table 2 \(\['e', 'c', 's'\]\); results are for \['x'\]"):
        beside_paper_figure(BESIDE_BEST.assign(problem="x"), BESIDE_VALUES)
