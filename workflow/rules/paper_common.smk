# Helpers of the papers' own rules (paper_figures.smk, paper_dp_gcd.smk, paper_dp_cd.smk,
# compare.smk): which problems, studies and files each paper output needs, and paper_targets(paper),
# the outputs the `all` rule and the paper's target rule (targets.smk) ask for. The logic of the
# outputs lives in privcd.results and privcd.plotting.
from privcd.plotting.panels import figure_spec, paper_legend
from privcd.plotting.paper_tables import privacy_label


def legend_names(paper):
    """Entry -> legend name for the convergence figures (the figure rule): the names of the paper's own
    figures, else the algorithm's (privcd.plotting.panels.paper_legend); a paper-level ``legend``
    (dp-scd) names entries first."""
    names = paper_legend(EXPERIMENT, paper)
    return {**names, **(config["papers"][paper].get("legend") or {})}


def paper_targets(paper):
    """The figures and tables of ``paper`` itself: its config's ``figures``, dp-gcd's and dp-cd's
    tables, dp-scd's trade-off outputs and dp-skgd's sketch comparison."""
    targets = []
    for name in config["papers"][paper].get("figures", {}):
        targets += expand("figures/{paper}/{figure}.{ext}", paper=paper, figure=name, ext=["pdf", "png"])
    if paper == "dp-gcd":
        targets += expand("figures/dp-gcd/figure_2.{ext}", ext=["pdf", "png"])
        targets += expand("results/tables/dp-gcd/table_{n}.{ext}", n=[1, 4], ext=["md", "tex"])
        if dp_gcd_support_keys():
            targets += expand("results/tables/dp-gcd/table_3.{ext}", ext=["md", "tex"])
    if paper == "dp-cd":
        targets += expand("results/tables/dp-cd/table_{n}.{ext}", n=[2, 3] if timed_paper("dp-cd") else [2],
                          ext=["md", "tex"])
        targets += ["results/tables/dp-cd/per_passes_vs_paper.md", "figures/dp-cd/per_passes_vs_paper.png",
                    "figures/dp-cd/per_passes_vs_paper.pdf"]
    if paper == DP_SCD:
        targets += expand("figures/{paper}/{figure}.{ext}", paper=DP_SCD, figure=["tradeoff", "objective", "batch_size"],
                          ext=["pdf", "png"])
        targets += expand("results/tables/{paper}/tradeoff.{ext}", paper=DP_SCD, ext=["md", "tex"])
    if paper == DP_SKGD:
        targets += expand("figures/{paper}/sketches.{ext}", paper=DP_SKGD, ext=["pdf", "png"])
        targets += expand("results/tables/{paper}/sketches.{ext}", paper=DP_SKGD, ext=["md", "tex"])
    return targets


def dp_gcd_problems():
    return [p.name for p in EXPERIMENT.problems.values() if p.paper == "dp-gcd"]


def dp_gcd_support_keys():
    """(problem, algorithm entry) of every dp-gcd study on an L1 problem: the cells of Table 3."""
    return [(s.problem.name, s.name) for s in EXPERIMENT.studies_of("dp-gcd") if s.problem.penalty == "l1"]


def dp_gcd_datasets():
    """(dataset used, its preprocessing, dataset of the paper) of dp-gcd's problems, first of each dataset."""
    entries = config["papers"]["dp-gcd"]["problems"] if "dp-gcd" in EXPERIMENT.papers else {}
    first = {}
    for p in EXPERIMENT.problems.values():
        if p.paper == "dp-gcd":
            first.setdefault(p.dataset, (p.dataset, p.preprocessing, entries[p.name]["dataset"]))
    return list(first.values())


PAPER_VALUES = Path(workflow.basedir) / "config" / "paper_values"  # in the checkout, whatever --directory
COMPARED = [  # (kind, paper values, input key, paper, the result it is compared with; None: not produced)
    ("per_passes", str(PAPER_VALUES / "dp-cd.yaml"), "dp_cd", "dp-cd", "results/aggregate/dp-cd/tuning.parquet"),
    ("times", str(PAPER_VALUES / "dp-cd-times.yaml"), "dp_cd_times", "dp-cd", "results/aggregate/dp-cd/timing.parquet"),
    ("support", str(PAPER_VALUES / "dp-gcd.yaml"), "dp_gcd", "dp-gcd", "results/tables/dp-gcd/support_recovery.parquet"),
    ("hyperparameters", str(PAPER_VALUES / "dp-gcd-hyperparameters.yaml"), None, "dp-gcd", None),  # selections
]
GRID_PARAMETERS = ("passes", "step", "clip")


def timed_paper(paper):
    """Whether a study of ``paper`` has timed runs (``runs.timing``): dp-cd Table 3 and its comparison."""
    return any(s.timing_runs for s in EXPERIMENT.studies_of(paper))


def compared_papers():
    """Input key -> the result compared, for the results this run's config produces."""
    return {key: result for kind, _, key, paper, result in COMPARED
            if key and result and paper in EXPERIMENT.papers and (kind != "times" or timed_paper(paper))}


def compared_selections():
    """Every study of the compared papers: paper, problem, algorithm, the path of its selected
    configuration(s) (rule select) and its grid (parameter -> sorted values tried), for dp-gcd
    Table 4 and the grid-edge flags of results/compare/papers.md."""
    papers = {paper for _, _, _, paper, _ in COMPARED} & set(EXPERIMENT.papers)
    return [{"paper": s.problem.paper, "problem": s.problem.name, "algorithm": s.name,
             "path": f"results/select/{s.problem.paper}/{s.problem.name}/{s.name}.json",
             "grid": {name: sorted({c[name] for c in s.configurations}) for name in GRID_PARAMETERS}}
            for paper in sorted(papers) for s in EXPERIMENT.studies_of(paper)]
