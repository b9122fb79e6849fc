# Stages "final", "timing" and "aggregate": the selected configuration(s) with the papers' number
# of seeds, the objective at every checkpoint; the best configuration of each number of passes
# timed alone (`runs.timing`, dp-cd Table 3); then one tidy parquet per paper with the relative
# error (F - F*) / F*, and one with the times.


rule final:
    input:
        data=data_file,
        calibration="results/calibrate/{paper}/{problem}.json",
        selection="results/select/{paper}/{problem}/{algorithm}.json",
    output:
        "results/final/{paper}/{problem}/{algorithm}.parquet",
    params:
        study=study,
        base_seed=config["base_seed"],
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/final/{paper}/{problem}/{algorithm}.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=240,
    script:
        "../scripts/final.py"


rule timing:
    input:
        data=data_file,
        calibration="results/calibrate/{paper}/{problem}.json",
        tune=tune_chunks,
    output:
        "results/timing/{paper}/{problem}/{algorithm}.parquet",
    params:
        study=study,
        base_seed=config["base_seed"],
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/timing/{paper}/{problem}/{algorithm}.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    script:
        "../scripts/timing.py"


rule aggregate_timing:
    localrule: True
    input:
        timed_studies,
    output:
        "results/aggregate/{paper}/timing.parquet",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/aggregate/{paper}_timing.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/aggregate_timing.py"


rule aggregate:
    localrule: True
    input:
        final=paper_files("final", ".parquet"),
        tune=paper_tune_chunks,
        optima=paper_optima,
    output:
        final="results/aggregate/{paper}/final.parquet",
        tuning="results/aggregate/{paper}/tuning.parquet",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/aggregate/{paper}.log",
    threads: 1
    resources:
        mem_mb=8000,
        runtime=30,
    script:
        "../scripts/aggregate.py"
