# dp-scd (Damaskinos et al., AAAI 2021) Section 5: Figure 1 (test utility against epsilon) with the
# table of its numbers, Figure 2 (training objective against epochs) and Figure 3 (DP-SCD's utility
# against the mini-batch size). Plot data in privcd.plotting.utility, drawing in
# privcd.plotting.draw_utility; helpers and targets in common.smk (only when the config has a
# paper named dp-scd).

DP_SCD_FIGURE_2_EPSILONS = [0.1, 1.0]  # dp-scd Figure 2


rule dp_scd_tradeoff:
    localrule: True
    input:
        f"results/aggregate/{DP_SCD}/final.parquet",
    output:
        pdf=f"figures/{DP_SCD}/tradeoff.pdf",
        png=report(
            f"figures/{DP_SCD}/tradeoff.png",
            caption="../report/dp_scd_tradeoff.rst",
            category=DP_SCD,
            subcategory="Figures",
            labels={"paper": DP_SCD, "figure": "1: privacy-utility trade-off"},
        ),
        md=report(
            f"results/tables/{DP_SCD}/tradeoff.md",
            caption="../report/dp_scd_tradeoff_table.rst",
            category=DP_SCD,
            subcategory="Tables",
            labels={"paper": DP_SCD, "table": "Figure 1 numbers"},
        ),
        tex=f"results/tables/{DP_SCD}/tradeoff.tex",
    params:
        losses=lambda wildcards: paper_losses(DP_SCD),
        titles=lambda wildcards: EXPERIMENT.titles(DP_SCD),
        names=lambda wildcards: config["papers"][DP_SCD].get("legend", {}),
        missing=lambda wildcards: missing_problems(DP_SCD),
        title="dp-scd Figure 1, privacy-utility trade-off: test utility against epsilon (the paper's Theorem 1 accounting beside privcd's sound DP-SCD)",
        caption="Test utility (MSE for ridge regression, accuracy for classification) of the selected configuration per epsilon at the last iterate: median [min, max] over the final runs (dp-scd Figure 1).",
    conda:
        "../envs/privcd.yaml"
    log:
        f"logs/figures/{DP_SCD}/tradeoff.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/dp_scd_tradeoff.py"


rule dp_scd_objective:
    localrule: True
    input:
        f"results/aggregate/{DP_SCD}/final.parquet",
    output:
        pdf=f"figures/{DP_SCD}/objective.pdf",
        png=report(
            f"figures/{DP_SCD}/objective.png",
            caption="../report/dp_scd_objective.rst",
            category=DP_SCD,
            subcategory="Figures",
            labels={"paper": DP_SCD, "figure": "2: objective against epochs"},
        ),
    params:
        epsilons=DP_SCD_FIGURE_2_EPSILONS,
        titles=lambda wildcards: EXPERIMENT.titles(DP_SCD),
        names=lambda wildcards: config["papers"][DP_SCD].get("legend", {}),
        missing=lambda wildcards: missing_problems(DP_SCD),
        title="dp-scd Figure 2, impact of noise on convergence: primal objective against epochs",
    conda:
        "../envs/privcd.yaml"
    log:
        f"logs/figures/{DP_SCD}/objective.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/dp_scd_objective.py"


rule dp_scd_batch_size:
    localrule: True
    input:
        f"results/aggregate/{DP_SCD}/tuning.parquet",
    output:
        pdf=f"figures/{DP_SCD}/batch_size.pdf",
        png=report(
            f"figures/{DP_SCD}/batch_size.png",
            caption="../report/dp_scd_batch_size.rst",
            category=DP_SCD,
            subcategory="Figures",
            labels={"paper": DP_SCD, "figure": "3: mini-batch size"},
        ),
    params:
        losses=lambda wildcards: paper_losses(DP_SCD),
        titles=lambda wildcards: EXPERIMENT.titles(DP_SCD),
        missing=lambda wildcards: missing_problems(DP_SCD),
        title="dp-scd Figure 3, impact of the mini-batch size L on DP-SCD's utility",
    conda:
        "../envs/privcd.yaml"
    log:
        f"logs/figures/{DP_SCD}/batch_size.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/dp_scd_batch_size.py"
