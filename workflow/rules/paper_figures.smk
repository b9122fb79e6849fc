# The papers' own figures (config papers.<paper>.figures: panels, curves, legend names, x axis).


rule paper_figure:
    localrule: True
    input:
        "results/aggregate/{paper}/final.parquet",
    output:
        pdf="figures/{paper}/{figure}.pdf",
        png=report(
            "figures/{paper}/{figure}.png",
            caption="../report/paper_figure.rst",
            category="{paper}",
            subcategory="Figures",
            labels={"paper": "{paper}", "figure": "{figure}"},
        ),
    wildcard_constraints:
        figure="figure_[0-9]+",
    params:
        spec=lambda wildcards: figure_spec(EXPERIMENT, wildcards.paper, wildcards.figure),
        titles=lambda wildcards: EXPERIMENT.titles(wildcards.paper),
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/figures/{paper}/{figure}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/paper_figure.py"
