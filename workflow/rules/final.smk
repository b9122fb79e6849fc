# Stages "final" and "aggregate": the selected configuration(s) with the papers' number of
# seeds, the objective at every checkpoint; then one tidy parquet per paper with the relative
# error (F - F*) / F*.


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


rule aggregate:
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
