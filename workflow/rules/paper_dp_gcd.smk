# dp-gcd's own outputs (Appendix D): Figure 2 (histograms of |w*_j| with the alpha of
# (alpha, 5)-quasi-sparsity), Table 1 (dataset sizes), Table 3 (support recovery of the final
# iterates on the L1 problems), Table 4 (selected hyperparameters). Figures 1, 3, 4:
# paper_figures.smk. Helpers: paper_common.smk.


ruleorder: solution_histograms > paper_figure


rule solution_histograms:
    localrule: True
    input:
        lambda wildcards: [f"results/optimum/dp-gcd/{problem}.npy" for problem in dp_gcd_problems()],
    output:
        pdf="figures/dp-gcd/figure_2.pdf",
        png=report(
            "figures/dp-gcd/figure_2.png",
            caption="../report/solution_histograms.rst",
            category="dp-gcd",
            subcategory="Figures",
            labels={"paper": "dp-gcd", "figure": "figure_2"},
        ),
    params:
        problems=dp_gcd_problems(),
        titles=EXPERIMENT.titles("dp-gcd") if "dp-gcd" in EXPERIMENT.papers else {},
        tau=5,
        title="dp-gcd Figure 2: |w*_j| of each problem's solution; purple: alpha of (alpha, 5)-quasi-sparsity",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/figures/dp-gcd/figure_2.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/solution_histograms.py"


rule final_iterates:
    input:
        data=data_file,
        calibration="results/calibrate/{paper}/{problem}.json",
        selection="results/select/{paper}/{problem}/{algorithm}.json",
    output:
        "results/iterates/{paper}/{problem}/{algorithm}.npz",
    params:
        study=study,
        base_seed=config["base_seed"],
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/iterates/{paper}/{problem}/{algorithm}.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=240,
    script:
        "../scripts/final_iterates.py"


rule support_table:
    localrule: True
    input:
        iterates=[f"results/iterates/dp-gcd/{problem}/{algorithm}.npz" for problem, algorithm in dp_gcd_support_keys()],
        optima=[f"results/optimum/dp-gcd/{problem}.json" for problem, _ in dp_gcd_support_keys()],
        solutions=[f"results/optimum/dp-gcd/{problem}.npy" for problem, _ in dp_gcd_support_keys()],
    output:
        md=report(
            "results/tables/dp-gcd/table_3.md",
            caption="../report/support_table.rst",
            category="dp-gcd",
            subcategory="Tables",
            labels={"paper": "dp-gcd", "table": "table_3"},
        ),
        tex="results/tables/dp-gcd/table_3.tex",
        parquet="results/tables/dp-gcd/support_recovery.parquet",
    params:
        cells=dp_gcd_support_keys(),
        legend=lambda wildcards: paper_legend(EXPERIMENT, "dp-gcd"),
        titles=EXPERIMENT.titles("dp-gcd") if "dp-gcd" in EXPERIMENT.papers else {},
        caption="Coordinates correctly / incorrectly identified as non-zeros by each algorithm, and relative suboptimality gap (F(w_priv) - F*) / F* (means over the final runs; dp-gcd Table 3).",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/dp-gcd/table_3.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/support_table.py"


rule hyperparameter_table:
    localrule: True
    input:
        lambda wildcards: [f"results/select/dp-gcd/{s.problem.name}/{s.name}.json" for s in EXPERIMENT.studies_of("dp-gcd")],
    output:
        md=report(
            "results/tables/dp-gcd/table_4.md",
            caption="../report/hyperparameter_table.rst",
            category="dp-gcd",
            subcategory="Tables",
            labels={"paper": "dp-gcd", "table": "table_4"},
        ),
        tex="results/tables/dp-gcd/table_4.tex",
    params:
        rows=lambda wildcards: [(s.problem.title, s.problem.loss, s.problem.penalty, paper_legend(EXPERIMENT, "dp-gcd").get(s.name, s.name))
                                for s in EXPERIMENT.studies_of("dp-gcd")],
        caption="Selected hyperparameters for every dataset and algorithm (dp-gcd Table 4).",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/dp-gcd/table_4.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/hyperparameter_table.py"


rule dataset_table:
    localrule: True
    input:
        [f"results/data/{dataset}/{preprocessing}.json" for dataset, preprocessing, _ in dp_gcd_datasets()],
    output:
        md=report(
            "results/tables/dp-gcd/table_1.md",
            caption="../report/dataset_table.rst",
            category="dp-gcd",
            subcategory="Tables",
            labels={"paper": "dp-gcd", "table": "table_1"},
        ),
        tex="results/tables/dp-gcd/table_1.tex",
    params:
        originals=[original for _, _, original in dp_gcd_datasets()],
        caption="Number of records and features in each dataset, ours beside dp-gcd Table 1's.",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tables/dp-gcd/table_1.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/dataset_table.py"
