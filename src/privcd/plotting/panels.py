"""The curves a paper's figure shows: which problems (panels, in order) and algorithms (curves, with
the paper's legend names), selected from the aggregated final runs (dp-gcd Figures 1, 3, 4; dp-cd
Figures 1-3), as the config's ``papers.<paper>.figures`` asks. Drawing is
:func:`privcd.plotting.convergence_figure`."""
from dataclasses import dataclass

from privcd.algorithms import get_algorithm
from privcd.plotting.curves import convergence_curves


def figure_curves(frame, *, problems=None, algorithms=None, legend=None):
    """:func:`privcd.plotting.convergence_curves` of the runs of ``frame`` on ``problems`` and
    ``algorithms`` (all when None), rows in the order of ``problems`` (the panels'), curves labelled
    by ``legend`` (entry name -> legend name, e.g. ``"dp-gcd-gs-s": "DP-GCD (GS-s)"``; column
    ``algorithm`` keeps the entry).

    Raises ``ValueError`` naming a requested problem or algorithm that the frame does not have, so a
    misspelt figure spec does not give an empty panel.
    """
    for column, wanted in (("problem", problems), ("algorithm", algorithms)):
        missing = sorted(set(wanted or ()) - set(frame[column]))
        if missing:
            raise ValueError(f"figure asks for {column}s {missing}; the results have {sorted(set(frame[column]))}")
    selected = frame
    if problems is not None:
        selected = selected[selected["problem"].isin(problems)]
    if algorithms is not None:
        selected = selected[selected["algorithm"].isin(algorithms)]
    curves = convergence_curves(selected)
    if legend:  # the legend names the curves; ``algorithm`` stays the entry, which sets its style
        curves["label"] = curves["algorithm"].map(lambda name: legend.get(name, name))
    order = {name: index for index, name in enumerate(problems or dict.fromkeys(frame["problem"]))}
    return curves.sort_values("problem", key=lambda column: column.map(order), kind="stable").reset_index(drop=True)


def legend_labels(curves, legend):
    """``curves`` with each label's entry written by its legend name (``"dp-scd, epsilon=0.1"`` ->
    ``"DP-SCD (...), epsilon=0.1"``, the names of the paper's other figures); ``algorithm`` keeps
    the entry, which sets the style."""
    if not legend:
        return curves
    labels = [legend.get(entry, entry) + label[len(entry):] if label.startswith(entry) else label
              for entry, label in zip(curves["algorithm"], curves["label"])]
    return curves.assign(label=labels)


@dataclass(frozen=True)
class FigureSpec:
    """A paper figure of the config (``papers.<paper>.figures.<name>``), resolved on the problems
    that run: ``problems`` those of the spec (default all the paper's) that are in the experiment,
    ``missing`` the others (skipped datasets, named in the figure's title)."""

    name: str
    title: str
    x: str
    problems: tuple
    algorithms: tuple | None
    legend: dict
    missing: tuple

    @property
    def full_title(self):
        note = f" [not run here: {', '.join(self.missing)} (dataset unavailable)]" if self.missing else ""
        return self.title + note


def figure_spec(experiment, paper, name):
    """The :class:`FigureSpec` of figure ``name`` of ``paper`` in a :class:`privcd.tuning.Experiment`.

    ``ValueError`` names a problem or algorithm of the spec that the paper's config does not have.
    """
    block = experiment.config["papers"][paper]
    spec = block.get("figures", {}).get(name)
    if spec is None:
        raise ValueError(f"papers.{paper}.figures has no {name!r}; it has {sorted(block.get('figures', {}))}")
    where = f"papers.{paper}.figures.{name}"
    for key, known in (("problems", block["problems"]), ("algorithms", block["algorithms"]),
                       ("legend", block["algorithms"])):
        unknown = sorted(set(spec.get(key) or ()) - set(known))
        if unknown:
            raise ValueError(f"{where}.{key}: {unknown} are not {key if key != 'legend' else 'algorithms'} of "
                             f"the paper; it has {sorted(known)}")
    wanted = list(spec.get("problems") or block["problems"])
    present = [problem for problem in wanted if f"{paper}/{problem}" in experiment.problems]
    return FigureSpec(name=name, title=spec.get("title", f"{paper} {name}"), x=spec.get("x", "passes"),
                      problems=tuple(present),
                      algorithms=tuple(spec["algorithms"]) if spec.get("algorithms") else None,
                      legend=dict(spec.get("legend") or {}),
                      missing=tuple(problem for problem in wanted if problem not in present))


def paper_legend(experiment, paper):
    """Algorithm entry -> legend name over all the paper's figures (the first figure naming an entry
    wins), e.g. for the rows of dp-gcd Table 4; an entry no legend names shows its algorithm's
    ``DISPLAY`` (with the entry in parentheses when it is another name for the algorithm)."""
    block = experiment.config["papers"][paper]
    legend = {}
    for spec in block.get("figures", {}).values():
        for entry, name in (spec.get("legend") or {}).items():
            legend.setdefault(entry, name)
    for entry, settings in block.get("algorithms", {}).items():
        algorithm = (settings or {}).get("algorithm", entry)
        display = get_algorithm(algorithm).DISPLAY
        legend.setdefault(entry, display if entry == algorithm else f"{display} ({entry})")
    return legend
