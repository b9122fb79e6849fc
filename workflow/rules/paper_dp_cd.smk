# dp-cd's own tables (Appendix G): Table 2, the best relative error for each number of passes on
# the data (mean ± std over the tuning runs), and Table 3, the running time of the same
# configurations (mean ± std over `runs.timing` runs, each timed alone). Figures 1-3:
# paper_figures.smk.

PER_PASSES_TABLES = {  # table -> (its input, star the best of each row, caption)
    "2": ("results/aggregate/dp-cd/tuning.parquet", True, "Relative error to the non-private optimal value of the objective for different numbers of passes on the data, after tuning step size and clipping (mean ± std over the tuning runs of the best configuration; dp-cd Table 2). A star marks the lowest error of each row."),
    "3": ("results/aggregate/dp-cd/timing.parquet", False, "Running time in seconds for different numbers of passes on the data, for the configurations of Table 2 (mean ± std over runs each timed alone, numba's compilation excluded; dp-cd Table 3)."),
}


rule per_passes_table:
    localrule: True
    input:
        lambda wildcards: PER_PASSES_TABLES[wildcards.table][0],
    output:
        md=report(
            "results/tables/dp-cd/table_{table}.md",
            caption="../report/per_passes_table.rst",
            category="dp-cd",
            subcategory="Tables",
            labels={"paper": "dp-cd", "table": "table_{table}"},
        ),
        tex="results/tables/dp-cd/table_{table}.tex",
    wildcard_constraints:
        table="2|3",
    params:
        table=lambda wildcards: wildcards.table,
        star=lambda wildcards: PER_PASSES_TABLES[wildcards.table][1],
        caption=lambda wildcards: PER_PASSES_TABLES[wildcards.table][2],
        legend=lambda wildcards: paper_legend(EXPERIMENT, "dp-cd"),
        problems=lambda wildcards: {p.name: (p.title, privacy_label(p.epsilon, p.delta))
                                    for p in EXPERIMENT.problems.values() if p.paper == "dp-cd"},
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/dp-cd/table_{table}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/per_passes_table.py"


rule per_passes_vs_paper:
    localrule: True
    input:
        tuning="results/aggregate/dp-cd/tuning.parquet",
        values=str(PAPER_VALUES / "dp-cd.yaml"),
    output:
        md=report(
            "results/tables/dp-cd/per_passes_vs_paper.md",
            caption="../report/per_passes_vs_paper.rst",
            category="dp-cd",
            subcategory="Tables",
            labels={"paper": "dp-cd", "table": "per_passes_vs_paper"},
        ),
        pdf="figures/dp-cd/per_passes_vs_paper.pdf",
        png=report(
            "figures/dp-cd/per_passes_vs_paper.png",
            caption="../report/per_passes_vs_paper.rst",
            category="dp-cd",
            subcategory="Figures",
            labels={"paper": "dp-cd", "figure": "per_passes_vs_paper"},
        ),
    params:
        algorithm_of=lambda wildcards: {s.name: s.algorithm for s in EXPERIMENT.studies_of("dp-cd")},
        legend=lambda wildcards: paper_legend(EXPERIMENT, "dp-cd"),
        titles=lambda wildcards: {p.name: p.title for p in EXPERIMENT.problems.values() if p.paper == "dp-cd"},
        title=lambda wildcards: f"{config['papers']['dp-cd'].get('title', 'dp-cd')}: Table 2 beside the paper's",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/dp-cd/per_passes_vs_paper.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/per_passes_vs_paper.py"
