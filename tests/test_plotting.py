"""Plot data selection (min/mean/max over runs, final errors), tables and the drawing itself."""
import numpy as np
import pandas as pd
import pytest

from privcd.plotting import (convergence_curves, convergence_figure, error_table, final_errors, save,
                             to_latex, to_markdown)
from privcd.plotting.draw import PANEL_TITLE_WIDTH


def aggregated():
    """Two algorithms, two runs each, three checkpoints; dp-sgd has two selected passes groups."""
    rows = []
    errors = {("dp-cd", 5.0): [[1.0, 0.5, 0.1], [1.0, 0.3, 0.3]],
              ("dp-sgd", 2.0): [[1.0, 0.8, 0.6], [1.0, 0.9, 0.8]],
              ("dp-sgd", 5.0): [[1.0, 0.7, 0.4], [1.0, 0.6, 0.2]]}
    for (algorithm, passes), repetitions in errors.items():
        for repetition, values in enumerate(repetitions):
            for checkpoint, value in enumerate(values):
                rows.append({"paper": "p", "problem": "q", "algorithm": algorithm,
                             "configuration": f"{algorithm}{passes}", "stage": "final",
                             "repetition": repetition, "checkpoint": checkpoint,
                             "passes": checkpoint * passes / 2, "seconds": 0.1 * checkpoint,
                             "param_passes": passes, "metric_relative_error": value})
    return pd.DataFrame(rows)


def test_curves_are_min_mean_max_over_runs_per_checkpoint():
    curves = convergence_curves(aggregated(), by=["passes"])
    assert set(curves["label"]) == {"dp-cd, passes=5", "dp-sgd, passes=2", "dp-sgd, passes=5"}
    cd = curves[curves["label"] == "dp-cd, passes=5"].set_index("checkpoint")
    assert cd.loc[1, ["min", "mean", "max"]].tolist() == pytest.approx([0.3, 0.4, 0.5])
    assert cd.loc[2, ["min", "mean", "max"]].tolist() == pytest.approx([0.1, 0.2, 0.3])
    assert cd["runs"].tolist() == [2, 2, 2] and cd.loc[2, "passes"] == 5.0
    plain = convergence_curves(aggregated())
    assert set(plain["label"]) == {"dp-cd", "dp-sgd"}


def test_final_errors_and_table_star_the_lowest_mean_of_each_row():
    errors = final_errors(aggregated(), by=["passes"])
    sgd = errors[errors["algorithm"] == "dp-sgd"].set_index("param_passes")
    assert sgd.loc[2.0, "mean"] == pytest.approx(0.7) and sgd.loc[5.0, "mean"] == pytest.approx(0.3)
    assert sgd.loc[5.0, "std"] == pytest.approx(np.std([0.4, 0.2], ddof=1))
    table = error_table(errors, by=["passes"])
    row = table[table["algorithm"] == "dp-sgd"].iloc[0]
    assert row["passes=5"].endswith("*") and not row["passes=2"].endswith("*")
    assert table[table["algorithm"] == "dp-cd"].iloc[0]["passes=2"] == ""
    # columns in increasing order of passes, whatever order the rows come in (here 5 before 2)
    shuffled = error_table(errors.sort_values("param_passes", ascending=False), by=["passes"])
    assert list(shuffled.columns) == ["paper", "problem", "algorithm", "passes=2", "passes=5"]

    by_algorithm = error_table(final_errors(aggregated()))
    assert list(by_algorithm.columns) == ["paper", "problem", "dp-cd", "dp-sgd"]
    assert by_algorithm.iloc[0]["dp-cd"] == "0.2000 ± 1e-01*"


def test_markdown_and_latex_tables():
    table = pd.DataFrame({"problem": ["a_b"], "dp-cd": ["0.1000 ± 1e-02*"]})
    markdown = to_markdown(table).splitlines()
    assert markdown == ["| problem | dp-cd |", "| --- | --- |", "| a_b | 0.1000 ± 1e-02* |"]
    latex = to_latex(table, caption="errors & more")
    assert r"a\_b & 0.1000 $\pm$ 1e-02$^*$ \\" in latex
    assert r"\caption{errors \& more}" in latex and latex.count(r"\begin{table}") == 1


@pytest.mark.parametrize("x", ["passes", "seconds"])
def test_figures_are_written_as_pdf_and_png(tmp_path, x):
    figure = convergence_figure(convergence_curves(aggregated()), x=x, title="demo")
    save(figure, tmp_path / "f.pdf", tmp_path / "f.png")
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")


def test_long_panel_titles_wrap_inside_the_panel():
    label = "dorothea [dorothea-valid instead of dorothea]"
    figure = convergence_figure(convergence_curves(aggregated()), titles={"q": label})
    lines = figure.axes[0].get_title().split("\n")
    assert len(lines) == 2 and " ".join(lines) == label
    assert max(map(len, lines)) <= PANEL_TITLE_WIDTH


@pytest.mark.parametrize("epsilons", [[2.0], [0.5, 1.0, 2.0]])
def test_the_audit_figures_claim_line_shows_with_any_number_of_claims(epsilons):
    """y = x spans the claims widened by 1.5 on each side: a visible segment even for one claim."""
    from privcd.plotting.audit import audit_figure

    rows = [{"variant": variant, "algorithm": algorithm, "label": label, "sound": True, "target_epsilon": e,
             "epsilon": e, "epsilon_lower": 0.6 * e}
            for variant, algorithm, label in [("dp-cd", "dp-cd", "DP-CD"), ("dp-sgd", "dp-sgd", "DP-SGD")]
            for e in epsilons]
    figure = audit_figure(pd.DataFrame(rows), title="t")
    for axis in figure.axes:
        claim = next(line for line in axis.get_lines() if line.get_label() == "y = x (the claim)")
        xs = claim.get_xdata()
        assert xs[0] == pytest.approx(min(epsilons) / 1.5) and xs[-1] == pytest.approx(max(epsilons) * 1.5)
        assert axis.get_xlim() == pytest.approx((xs[0], xs[-1]))


def test_the_audit_figures_legends_stay_clear_of_the_axes_and_the_figure_edge():
    """Every variant of the study in one figure: each legend lies below its panel's axis label and
    inside the figure."""
    from privcd.auditing import VARIANTS
    from privcd.plotting.audit import audit_figure

    rows = [{"variant": name, "algorithm": variant.algorithm, "label": variant.label, "sound": True,
             "target_epsilon": 2.0, "epsilon": 2.0, "epsilon_lower": 1.8} for name, variant in VARIANTS.items()]
    figure = audit_figure(pd.DataFrame(rows), title="t")
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for axis in figure.axes:
        legend = axis.get_legend().get_window_extent(renderer)
        label = axis.xaxis.label.get_window_extent(renderer)
        assert legend.y1 <= label.y0 and legend.y0 >= 0.0


def test_the_audit_figure_draws_an_infinite_bound_at_its_top_edge_and_names_it():
    """The floating-point attack's bound is infinite: drawn at the top of the finite range, its
    legend entry says so, and the axis stays finite."""
    from privcd.plotting.audit import audit_figure

    rows = [{"variant": variant, "algorithm": "dp-gcd", "label": label, "sound": sound, "target_epsilon": e,
             "epsilon": e, "epsilon_lower": bound}
            for variant, label, sound, bound in [("dp-gcd", "DP-GCD", True, 1.0),
                                                 ("floats", "DP-GCD floats", False, float("inf"))]
            for e in (1.0, 2.0)]
    axis = audit_figure(pd.DataFrame(rows), title="t").axes[0]
    top = axis.get_ylim()[1]
    assert top == pytest.approx(2.0 * 1.05)
    line = next(line for line in axis.get_lines() if line.get_label().startswith("DP-GCD floats"))
    assert line.get_label() == "DP-GCD floats (unsound) (infinite, at the top)"
    assert list(line.get_ydata()) == [top, top]


def test_the_end_to_end_figure_colours_algorithms_as_every_figure_and_styles_protocols_by_line():
    import pandas as pd

    from privcd.plotting.end_to_end import PROTOCOL_LINES, end_to_end_figure, end_to_end_table
    from privcd.plotting.styles import STYLES

    rows = [{"problem": "p", "algorithm": algorithm, "protocol": protocol, "epsilon": epsilon, "error_mean": 0.1,
             "error_min": 0.05, "error_max": 0.2} for algorithm in ("dp-cd", "dp-sgd") for protocol in PROTOCOL_LINES
            for epsilon in (1.0, 2.0)]
    figure = end_to_end_figure(pd.DataFrame(rows), titles={}, title="t")
    lines = {line.get_label(): line for line in figure.axes[0].get_lines()}
    assert len(lines) == 6
    for label, line in lines.items():
        display, protocol_label = label.split(", ", 1)
        algorithm = {"DP-CD": "dp-cd", "DP-SGD": "dp-sgd"}[display]
        protocol = next(name for name, (_, _, text) in PROTOCOL_LINES.items() if text == protocol_label)
        assert line.get_color() == STYLES[algorithm].color
        assert (line.get_marker(), line.get_linestyle()) == PROTOCOL_LINES[protocol][:2]
    assert len({linestyle for _, linestyle, _ in PROTOCOL_LINES.values()}) == len(PROTOCOL_LINES)
    for problems in (["p"], ["p", "q", "r", "s"]):  # one panel (the smoke run's) and two rows of three
        frame = pd.DataFrame([{**row, "problem": problem} for row in rows for problem in problems])
        figure = end_to_end_figure(frame, titles={}, title="End-to-end privacy: a title long enough to wrap " * 2)
        figure.canvas.draw()
        width, height = figure.bbox.width, figure.bbox.height
        for artist in (figure.legends[0], figure._suptitle):
            box = artist.get_window_extent()
            assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height  # nothing cut off
        for axis in figure.axes[:len(problems)]:
            assert axis.get_window_extent().y0 > figure.legends[0].get_window_extent().y1  # the legend below
    table = end_to_end_table(pd.DataFrame(rows), titles={})
    assert list(table.columns[:3]) == ["problem", "algorithm", "protocol"] and set(table["algorithm"]) == {"DP-CD", "DP-SGD"}


def test_a_time_axis_is_logarithmic_and_a_passes_axis_linear():
    curves = convergence_curves(aggregated(), by=["passes"])
    for x, scale in (("seconds", "log"), ("passes", "linear")):
        figure = convergence_figure(curves, x=x)
        assert {axis.get_xscale() for axis in figure.axes if axis.get_visible()} == {scale}
