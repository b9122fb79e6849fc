# Figures (PDF and PNG under figures/) and tables (Markdown and LaTeX under results/tables/),
# all registered with report() so that `snakemake --report report.html` collects them.


rule figure:
    localrule: True
    input:
        "results/aggregate/{paper}/final.parquet",
    output:
        pdf="figures/{paper}/convergence_{x}.pdf",
        png=report(
            "figures/{paper}/convergence_{x}.png",
            caption="../report/convergence.rst",
            category="{paper}",
            subcategory="Figures",
            labels={"paper": "{paper}", "x axis": "{x}"},
        ),
    params:
        label_by=lambda wildcards: EXPERIMENT.select_by(wildcards.paper),
        names=lambda wildcards: legend_names(wildcards.paper),
        titles=lambda wildcards: EXPERIMENT.titles(wildcards.paper),
        title=lambda wildcards: config["papers"][wildcards.paper].get("title", wildcards.paper),
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/figures/{paper}/convergence_{x}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/figure.py"


rule final_table:
    localrule: True
    input:
        "results/aggregate/{paper}/final.parquet",
    output:
        md=report(
            "results/tables/{paper}/final_errors.md",
            caption="../report/final_table.rst",
            category="{paper}",
            subcategory="Tables",
            labels={"paper": "{paper}", "table": "final runs"},
        ),
        tex="results/tables/{paper}/final_errors.tex",
    params:
        by=lambda wildcards: EXPERIMENT.select_by(wildcards.paper),
        titles=lambda wildcards: EXPERIMENT.titles(wildcards.paper),
        caption="Relative error (F - F*) / F* at the last iterate of the final runs (mean +- std over runs); * marks the lowest of each row.",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/{paper}/final_errors.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/table.py"


rule tuning_table:
    localrule: True
    input:
        "results/aggregate/{paper}/tuning.parquet",
    output:
        md=report(
            "results/tables/{paper}/tuning_errors.md",
            caption="../report/tuning_table.rst",
            category="{paper}",
            subcategory="Tables",
            labels={"paper": "{paper}", "table": "tuning"},
        ),
        tex="results/tables/{paper}/tuning_errors.tex",
    params:
        by=lambda wildcards: EXPERIMENT.tuning_table_by(wildcards.paper),
        titles=lambda wildcards: EXPERIMENT.titles(wildcards.paper),
        caption="Best relative error at the last iterate over the tuning runs (mean +- std over runs of the best configuration) for each value of the grouping parameters (dp-cd Table 2); * marks the lowest of each row.",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/{paper}/tuning_errors.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/table.py"
