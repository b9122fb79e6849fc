"""dp-scd Figures 1-3 and the trade-off table: plot data on small synthetic tidy frames, and drawing."""
import json

import numpy as np
import pandas as pd
import pytest

from privcd.plotting.draw import save
from privcd.plotting.draw_utility import batch_size_figure, objective_figure, tradeoff_figure
from privcd.plotting.tables import to_latex, to_markdown
from privcd.plotting.utility import batch_size_points, objective_curves, tradeoff_points, tradeoff_table

LOSSES = {"svm": "hinge", "ridge": "squared"}


def frame(stage="final"):
    """Runs of 3 algorithms (one non-private) on 2 problems, 2 epsilons, 3 repetitions, 3 checkpoints.

    Test accuracy of repetition r at the last checkpoint: 0.5 + 0.1 r + epsilon / 10 (+0.2 for the
    non-private run); MSE the same numbers. Objective: 1 / (1 + checkpoint) + r.
    """
    rows = []
    for problem, loss in LOSSES.items():
        for algorithm, epsilons in (("dp-scd", (0.5, 1.0)), ("dp-sgd", (0.5, 1.0)), ("scd", (np.inf,))):
            for epsilon in epsilons:
                for repetition in range(3):
                    for checkpoint in range(3):
                        value = 0.5 + 0.1 * repetition + (0.2 if np.isinf(epsilon) else epsilon / 10)
                        rows.append({
                            "paper": "dp-scd", "problem": problem, "algorithm": algorithm,
                            "configuration": f"{algorithm}{epsilon}", "stage": stage, "repetition": repetition,
                            "checkpoint": checkpoint, "passes": float(checkpoint), "param_epsilon": epsilon,
                            "param_clip": 1.0, "params": json.dumps({"batch_size": 10}),
                            "metric_objective": 1.0 / (1 + checkpoint) + repetition,
                            "metric_test_accuracy": value if loss == "hinge" else np.nan,
                            "metric_test_mse": value if loss == "squared" else np.nan,
                            "metric_validation_accuracy": value if loss == "hinge" else np.nan,
                            "metric_validation_mse": value if loss == "squared" else np.nan})
    return pd.DataFrame(rows)


def test_tradeoff_points_are_medians_of_the_last_checkpoint():
    points = tradeoff_points(frame(), LOSSES)
    row = points[(points["problem"] == "svm") & (points["algorithm"] == "dp-scd") & (points["epsilon"] == 1.0)]
    assert row["metric"].item() == "accuracy"
    assert row["median"].item() == pytest.approx(0.7)
    assert (row["min"].item(), row["max"].item()) == pytest.approx((0.6, 0.8))
    assert row["runs"].item() == 3
    reference = points[points["algorithm"] == "scd"]
    assert np.isinf(reference["epsilon"]).all() and set(reference["metric"]) == {"accuracy", "mse"}
    assert len(points) == 2 * (2 + 2 + 1)


def test_tradeoff_table_has_a_column_per_epsilon_then_non_private():
    table = tradeoff_table(tradeoff_points(frame(), LOSSES), titles={"svm": "SVM (adult)"}, names={"scd": "SCD"})
    assert list(table.columns) == ["problem", "metric", "algorithm", "epsilon=0.5", "epsilon=1", "non-private"]
    row = table[(table["problem"] == "SVM (adult)") & (table["algorithm"] == "dp-scd")]
    assert row["epsilon=1"].item() == "0.7000 [0.6000, 0.8000]"
    assert row["non-private"].item() == ""
    assert table.loc[table["algorithm"] == "SCD", "non-private"].eq("0.8000 [0.7000, 0.9000]").all()
    assert "\\toprule" in to_latex(table) and to_markdown(table).count("\n") == len(table) + 2


def test_objective_curves_keep_the_requested_epsilons_and_the_reference():
    curves = objective_curves(frame(), epsilons=[0.5])
    assert set(curves["epsilon"]) == {0.5, np.inf}
    first = curves[(curves["problem"] == "svm") & (curves["algorithm"] == "dp-sgd") & (curves["checkpoint"] == 0)]
    assert first["median"].item() == pytest.approx(2.0)  # 1 + repetition, median over r = 0, 1, 2
    assert (first["min"].item(), first["max"].item(), first["runs"].item()) == (1.0, 3.0, 3)


def test_batch_size_points_select_the_clip_on_validation():
    tuning = frame("tune")
    tuning = tuning[tuning["algorithm"] == "dp-scd"]
    worse = tuning.assign(configuration=tuning["configuration"] + "-bad", param_clip=10.0,
                          metric_validation_accuracy=tuning["metric_validation_accuracy"] - 0.3,
                          metric_validation_mse=tuning["metric_validation_mse"] - 0.3,  # lower MSE: better
                          metric_test_accuracy=0.0, metric_test_mse=0.0)
    points = batch_size_points(pd.concat([tuning, worse]), LOSSES)
    svm = points[points["problem"] == "svm"]
    ridge = points[points["problem"] == "ridge"]
    assert (svm["clip"] == 1.0).all() and (svm["median"] > 0.5).all()  # accuracy: higher wins
    assert (ridge["clip"] == 10.0).all() and (ridge["median"] == 0.0).all()  # MSE: lower wins
    assert set(points["batch_size"]) == {10}


def test_the_three_figures_build_and_name_the_missing_datasets(tmp_path):
    final = frame()
    figures = {
        "tradeoff": tradeoff_figure(tradeoff_points(final, LOSSES), missing=["msd-ridge"], title="t"),
        "objective": objective_figure(objective_curves(final, [0.5, 1.0]), missing=["msd-ridge"]),
        "batch": batch_size_figure(batch_size_points(frame("tune"), LOSSES), missing=["msd-ridge"]),
    }
    for name, figure in figures.items():
        texts = [text.get_text() for text in figure.texts]
        assert any("msd-ridge" in text for text in texts), name
        visible = [axis for axis in figure.axes if axis.get_visible()]
        assert len(visible) == (4 if name == "objective" else 2)
        save(figure, tmp_path / f"{name}.pdf", tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000


def sketch_frame():
    """Four sketches on one problem, two runs: errors 10^-index (1 + repetition) at the last checkpoint."""
    rows = []
    entries = {"dp-cd": {}, "dp-skgd-tau-nice": {"sketch": "tau-nice", "tau": 4},
               "dp-skgd-importance": {"sketch": "importance", "probabilities": "smoothness", "tau": 2},
               "dp-skgd-full": {"sketch": "full"}}
    for index, (entry, params) in enumerate(entries.items()):
        for repetition in range(2):
            for checkpoint in range(2):
                rows.append({"paper": "dp-skgd", "problem": "square", "algorithm": entry, "configuration": entry,
                             "stage": "final", "repetition": repetition, "checkpoint": checkpoint,
                             "params": json.dumps({"passes": 5, "step": 0.5, "clip": 1.0, **params}),
                             "param_passes": 5.0, "param_step": 0.5, "param_clip": 1.0,
                             "metric_relative_error": 10.0 ** -index * (1 + repetition) if checkpoint else 1.0})
    return pd.DataFrame(rows)


def test_sketch_points_label_sketches_and_summarise_the_last_checkpoint(tmp_path):
    from privcd.plotting.draw_utility import sketch_figure
    from privcd.plotting.sketches import sketch_label, sketch_points, sketch_table
    points = sketch_points(sketch_frame())
    assert list(points["algorithm"]) == ["dp-skgd-full", "dp-skgd-importance", "dp-skgd-tau-nice", "dp-cd"]
    full = points.iloc[0]
    assert (full["sketch"], full["block"]) == ("full (all coordinates)", "p")
    assert (full["mean"], full["min"], full["max"], full["runs"]) == pytest.approx((1.5e-3, 1e-3, 2e-3, 2))
    assert points.loc[points["algorithm"] == "dp-cd", "sketch"].item() == "uniform (1 coordinate)"
    assert points.loc[points["algorithm"] == "dp-skgd-importance", "block"].item() == "2"
    table = sketch_table(points, titles={"square": "Sparse LASSO"})
    assert set(table["problem"]) == {"Sparse LASSO"} and table["relative error"].iloc[-1] == "1.5 [1, 2]"
    with pytest.raises(ValueError, match="'blocks'"):
        sketch_label({"sketch": "blocks"})
    save(sketch_figure(points), tmp_path / "s.pdf", tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 1000


def test_figure_two_falls_back_to_the_epsilons_that_ran():
    from privcd.plotting.utility import figure_epsilons
    assert figure_epsilons([0.1, 1.0], [0.1, 0.5, 1.0, 2.0, np.inf]) == [0.1, 1.0]
    assert figure_epsilons([0.1, 1.0], [2.0, 0.5, np.inf]) == [0.5, 2.0]
