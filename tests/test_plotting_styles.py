"""One colour and marker per algorithm entry in every figure (privcd.plotting.styles), whatever the
order of the data, and never two entries of one figure with the same colour and marker."""
import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

from privcd.plotting import convergence_figure, save
from privcd.plotting.beside_paper import beside_paper_figure
from privcd.plotting.draw import plt
from privcd.plotting.draw_utility import batch_size_figure, objective_figure, sketch_figure, tradeoff_figure
from privcd.plotting.panels import figure_curves, legend_labels
from privcd.plotting.styles import (FALLBACK_COLORS, MARKEVERY_POINTS, STYLES, figure_styles, markevery)
from tests.test_plotting import aggregated

BLUE, ORANGE, RED = "#1f77b4", "#ff7f0e", "#d62728"


def key(style):
    return style.color, style.marker


def test_the_papers_colours_and_distinct_known_styles():
    # dp-cd Figure 1: "DP-CD (blue), DP-CD with privately estimated [...] constants (green), DP-SGD
    # (orange) and DP-SCD (red"; Figure 3: "DP-CD (blue, round marks), [DP-CD-P] (green, + marks) and
    # DP-SGD (orange, triangle marks)"
    assert STYLES["dp-cd"].color == BLUE and STYLES["dp-sgd"].color == ORANGE and STYLES["dp-scd"].color == RED
    assert key(STYLES["dp-cd"]) == (BLUE, "o") and key(STYLES["dp-sgd"]) == (ORANGE, "^")
    assert key(STYLES["dp-cd-p"]) == ("#2ca02c", "+")
    pairs = [key(style) for style in STYLES.values()]
    assert len(set(pairs)) == len(pairs), "two known entries share colour and marker"
    # variants keep their family's hue family but not its exact style
    for variant in ("dp-cd-p", "dp-cd-permutation", "dp-cd-cyclic"):
        assert key(STYLES[variant]) != key(STYLES["dp-cd"])


def test_styles_do_not_depend_on_the_order_or_repetition_of_entries():
    entries = ["dp-sgd", "dp-cd", "dp-gcd-gs-s", "dp-skgd-tau-8", "my-method", "other", "dp-cd"]
    reference = figure_styles(entries)
    for permutation in itertools.islice(itertools.permutations(entries), 0, 200, 7):
        assert figure_styles(permutation) == reference
    assert reference["dp-cd"] == STYLES["dp-cd"] and reference["dp-sgd"] == STYLES["dp-sgd"]


def test_unknown_entries_take_their_familys_hue_or_an_unused_colour_and_never_collide():
    known = list(STYLES)
    unknown = ["dp-skgd-tau-8", "dp-cd-new", "dp-gcd-gs-x", "mystery", "zzz", "aaa"] + [f"new-{i}" for i in range(12)]
    styles = figure_styles(known + unknown, algorithm_of={"mystery": "dp-sgd"})
    pairs = [key(style) for style in styles.values()]
    assert len(set(pairs)) == len(pairs)
    assert styles["dp-skgd-tau-8"].color == STYLES["dp-skgd"].color  # longest registered prefix: dp-skgd
    assert styles["dp-cd-new"].color == BLUE and styles["mystery"].color == ORANGE  # algorithm_of, no prefix
    # a name's own family wins over the algorithm it runs: DP-CD-P's variants in DP-CD-P's green
    attack = figure_styles(["dp-cd-p", "dp-cd-p-experiment-floats"],
                           algorithm_of={"dp-cd-p-experiment-floats": "dp-cd"})
    assert attack["dp-cd-p-experiment-floats"].color == STYLES["dp-cd-p"].color
    used = {style.color for name, style in STYLES.items()}
    assert styles["aaa"].color in FALLBACK_COLORS and styles["aaa"].color not in used
    assert styles["aaa"].color != styles["zzz"].color  # next unused colour, in sorted order
    # the fallback of an unknown entry depends on the set of entries only
    assert figure_styles(["zzz", "aaa"]) == figure_styles(["aaa", "zzz"])


def test_markers_at_about_markevery_points_per_curve():
    assert markevery(3) == 1 and markevery(MARKEVERY_POINTS) == 1
    assert -(-200 // markevery(200)) <= MARKEVERY_POINTS


# --- every figure function: the style drawn for each entry, collected from the figure ------------

def drawn(figure):
    """Legend label -> set of (hex colour, marker) drawn under that label in any panel."""
    styles = {}
    for axis in figure.axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            line = handle[0] if isinstance(handle, matplotlib.container.ErrorbarContainer) else handle
            styles.setdefault(label, set()).add((matplotlib.colors.to_hex(line.get_color()), line.get_marker()))
    return styles


def check(figures, expected=None):
    """The figures (same data, different row orders) draw every label in one style, the same in
    each; no two labels share a style; ``expected`` label -> colour."""
    styles = [drawn(figure) for figure in figures]
    legends = [(any(axis.get_legend() for axis in figure.axes), len(figure.legends)) for figure in figures]
    for figure in figures:
        plt.close(figure)
    first = styles[0]
    assert first and all(len(pairs) == 1 for pairs in first.values()), first
    assert all(other == first for other in styles[1:]), "an entry changed style with the order of the data"
    flat = [next(iter(pairs)) for pairs in first.values()]
    assert len(set(flat)) == len(flat), f"two entries share colour and marker: {first}"
    for label, color in (expected or {}).items():
        assert next(iter(first[label]))[0] == color, (label, first[label])
    assert legends == [(False, 1)] * len(figures), "a legend inside a panel covers curves"
    return first


def orders(frame, seed=0):
    """The frame as given, reversed and shuffled."""
    return [frame, frame.iloc[::-1], frame.sample(frac=1.0, random_state=seed)]


def curves_frame():
    """Two problems; dp-cd runs only on the first, so the second panel's colour cycle would shift."""
    rows = []
    for problem, algorithms in (("q", ("dp-cd", "dp-sgd", "dp-gcd")), ("r", ("dp-sgd", "dp-gcd", "dp-cd-cyclic"))):
        for algorithm in algorithms:
            for checkpoint in range(30):
                rows.append({"paper": "p", "problem": problem, "algorithm": algorithm, "label": algorithm,
                             "checkpoint": checkpoint, "passes": checkpoint / 3, "seconds": checkpoint / 100,
                             "min": 0.5 / (1 + checkpoint), "mean": 1.0 / (1 + checkpoint),
                             "max": 2.0 / (1 + checkpoint), "runs": 2})
    return pd.DataFrame(rows)


def test_convergence_figure_gives_each_entry_its_style_in_every_panel():
    styles = check([convergence_figure(frame) for frame in orders(curves_frame())],
                   {"dp-cd": BLUE, "dp-sgd": ORANGE, "dp-gcd": STYLES["dp-gcd"].color})
    assert styles["dp-cd-cyclic"] == {key(STYLES["dp-cd-cyclic"])}
    line = next(line for line in convergence_figure(curves_frame()).axes[0].get_lines() if line.get_label() == "dp-cd")
    assert line.get_markevery() == markevery(30) > 1  # markers at some checkpoints, not all 30


def test_paper_figures_style_the_entry_under_its_legend_name():
    frame = pd.concat([aggregated(), aggregated().assign(algorithm="dp-cd")], ignore_index=True)
    legend = {"dp-cd": "DP-CD", "dp-sgd": "DP-SGD"}
    figures = [convergence_figure(figure_curves(shuffled, legend=legend)) for shuffled in orders(frame)]
    check(figures, {"DP-CD": BLUE, "DP-SGD": ORANGE})


def test_convergence_split_by_epsilon_has_a_panel_per_epsilon_and_the_references_in_each():
    rows = []
    for algorithm, epsilons in (("dp-scd", (0.1, 1.0, 10.0)), ("dp-sgd", (0.1, 1.0, 10.0)), ("scd", (np.inf,))):
        for epsilon in epsilons:
            for checkpoint in range(3):
                rows.append({"paper": "p", "problem": "q", "algorithm": algorithm, "label": f"{algorithm}, epsilon={epsilon:g}",
                             "checkpoint": checkpoint, "passes": checkpoint, "seconds": checkpoint,
                             "min": 0.1, "mean": 0.2, "max": 0.3, "runs": 1})
    frames = orders(pd.DataFrame(rows))
    figure = convergence_figure(frames[2])
    titles = [axis.get_title() for axis in figure.axes if axis.get_visible()]
    assert titles == ["q, epsilon=0.1", "q, epsilon=1", "q, epsilon=10"]  # numeric order: 10 after 1
    assert all(len(axis.get_lines()) == 3 for axis in figure.axes if axis.get_visible())  # 2 entries + scd
    check([figure] + [convergence_figure(frame) for frame in frames[:2]],
          {"dp-scd": RED, "dp-sgd": ORANGE, "scd": STYLES["scd"].color})
    # the paper's legend names (with commas of their own) name the curves; the panels stay per epsilon
    named = convergence_figure(legend_labels(frames[1], {"dp-scd": "DP-SCD (sound, PLD)", "scd": "SCD"}))
    assert [axis.get_title() for axis in named.axes if axis.get_visible()] == titles
    check([named], {"DP-SCD (sound, PLD)": RED, "dp-sgd": ORANGE, "SCD": STYLES["scd"].color})


def utility_points():
    rows = []
    for problem in ("adult", "phishing"):
        for algorithm in ("dp-scd", "dp-scd-sound", "seqdp-scd", "dp-sgd"):
            for epsilon in (0.1, 1.0):
                rows.append((problem, algorithm, epsilon, "accuracy", 0.8, 0.7, 0.9, 3))
        for algorithm in ("scd", "sgd"):
            rows.append((problem, algorithm, np.inf, "accuracy", 0.9, 0.9, 0.9, 3))
    return pd.DataFrame(rows, columns=["problem", "algorithm", "epsilon", "metric", "median", "min", "max", "runs"])


def test_tradeoff_figure_styles_and_references_that_do_not_hide_each_other():
    names = {"dp-scd": "DP-SCD", "dp-sgd": "DP-SGD"}
    figures = [tradeoff_figure(frame, names=names) for frame in orders(utility_points())]
    references = [line for line in figures[0].axes[0].get_lines() if line.get_label() in ("SCD", "SGD")]
    # the same dashes shifted by one dash: where SCD and SGD coincide, both show
    assert len(references) == 2 and len({line._unscaled_dash_pattern[0] for line in references}) == 2
    check(figures, {"DP-SCD": RED, "DP-SGD": ORANGE})


def test_objective_figure_styles():
    points = utility_points()
    curves = pd.concat([points.assign(checkpoint=checkpoint, passes=checkpoint) for checkpoint in range(4)],
                       ignore_index=True)
    check([objective_figure(frame) for frame in orders(curves)], {"DP-SCD": RED, "DP-SGD": ORANGE, "SEQDP-SCD": STYLES["seqdp-scd"].color})


def test_batch_size_figure_gives_each_epsilon_one_style_light_to_dark():
    rows = [("adult", epsilon, size, 1.0, "accuracy", 0.8, 3) for epsilon in (0.1, 1.0, 2.0) for size in (5, 50)]
    frame = pd.DataFrame(rows, columns=["problem", "epsilon", "batch_size", "clip", "metric", "median", "runs"])
    styles = check([batch_size_figure(shuffled) for shuffled in orders(frame)])
    lightness = [sum(matplotlib.colors.to_rgb(next(iter(styles[f"DP-SCD, epsilon={epsilon:g}"]))[0]))
                 for epsilon in (0.1, 1.0, 2.0)]
    assert lightness == sorted(lightness, reverse=True)


def test_sketch_figure_colours_each_sketch_by_its_entry():
    rows = [("p", entry, f"sketch {entry}", "1", 5.0, 0.1, 1.0, 0.1 * (index + 1), 0.05, 0.5, 2)
            for index, entry in enumerate(("dp-cd", "dp-skgd-tau-2", "dp-skgd-full", "dp-skgd-importance"))]
    points = pd.DataFrame(rows, columns=["problem", "algorithm", "sketch", "block", "passes", "step", "clip",
                                         "mean", "min", "max", "runs"])
    seen = []
    for frame in (points, points.iloc[[2, 0, 3, 1]]):
        figure = sketch_figure(frame)
        axis = figure.axes[0]
        ticks = {tick.get_position()[1]: tick.get_text() for tick in axis.get_yticklabels()}
        by_sketch = {}
        for container in axis.containers:
            line = container[0]
            by_sketch[ticks[line.get_ydata()[0]]] = (matplotlib.colors.to_hex(line.get_color()), line.get_marker())
        plt.close(figure)
        seen.append(by_sketch)
    assert seen[0] == seen[1] and seen[0]["sketch dp-cd"] == (BLUE, "o")
    assert len(set(seen[0].values())) == 4


def test_beside_paper_figure_styles_our_entries(tmp_path):
    from tests.test_paper_plotting import BESIDE_BEST, BESIDE_VALUES
    figures = [beside_paper_figure(frame, BESIDE_VALUES, legend={"dp-cd": "DP-CD"}) for frame in orders(BESIDE_BEST)]
    styles = [drawn(figure) for figure in figures]
    assert styles[0] == styles[1] == styles[2]
    assert styles[0]["DP-CD"] == {(BLUE, "o")} and styles[0]["dp-cd-cyclic"] == {key(STYLES["dp-cd-cyclic"])}
    save(figures[0], tmp_path / "f.pdf", tmp_path / "f.png")
    for figure in figures[1:]:
        plt.close(figure)


@pytest.mark.parametrize("problems", [1, 4])
def test_the_figure_legend_sits_below_the_panels(problems):
    frame = pd.concat([curves_frame().assign(problem=f"p{index}") for index in range(problems)], ignore_index=True)
    figure = convergence_figure(frame, title="t")
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    legend = figure.legends[0].get_window_extent(renderer)
    for axis in figure.axes:
        if axis.get_visible():
            assert legend.y1 <= axis.get_tightbbox(renderer).y0 + 1, "the legend overlaps a panel"
    plt.close(figure)
