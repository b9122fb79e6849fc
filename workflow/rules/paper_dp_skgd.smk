# dp-skgd (Maranjyan et al., 2024; no experiments in the paper): the final relative error of every
# sketch distribution (one algorithm entry each) on every problem, as a figure and a table. Plot
# data in privcd.plotting.sketches; target in common.smk (only when the config has a paper named
# dp-skgd).

rule dp_skgd_sketches:
    localrule: True
    input:
        f"results/aggregate/{DP_SKGD}/final.parquet",
    output:
        pdf=f"figures/{DP_SKGD}/sketches.pdf",
        png=report(
            f"figures/{DP_SKGD}/sketches.png",
            caption="../report/dp_skgd_sketches.rst",
            category=DP_SKGD,
            subcategory="Figures",
            labels={"paper": DP_SKGD, "figure": "sketch distributions"},
        ),
        md=report(
            f"results/tables/{DP_SKGD}/sketches.md",
            caption="../report/dp_skgd_sketches.rst",
            category=DP_SKGD,
            subcategory="Tables",
            labels={"paper": DP_SKGD, "table": "sketch distributions"},
        ),
        tex=f"results/tables/{DP_SKGD}/sketches.tex",
    params:
        titles=lambda wildcards: EXPERIMENT.titles(DP_SKGD),
        title=lambda wildcards: config["papers"][DP_SKGD].get("title", DP_SKGD),
        caption="Relative error (F - F*) / F* at the last iterate of the final runs of each sketch's selected configuration: mean [min, max] over the runs; E|S| is the expected block size.",
    conda:
        "../envs/privcd.yaml"
    log:
        f"logs/figures/{DP_SKGD}/sketches.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/dp_skgd_sketches.py"
