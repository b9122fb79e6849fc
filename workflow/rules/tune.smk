# Stages "calibrate", "tune" and "select": the noise multiplier of every distinct privacy
# setting of a problem's studies (computed once, whichever algorithms share it -- DP-SGD, DP-SCD
# and SEQDP-SCD calibrate the same subsampled Gaussian -- and reused by every chunk and by the
# final runs), the grid in chunks of many configurations per job, and the best configuration by
# mean final objective.


rule calibrate:
    input:
        data=data_file,
    output:
        "results/calibrate/{paper}/{problem}.json",
    params:
        studies=problem_studies,
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/calibrate/{paper}/{problem}.log",
    priority: UPSTREAM_PRIORITY
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    script:
        "../scripts/calibrate.py"


rule tune:
    input:
        data=data_file,
        calibration="results/calibrate/{paper}/{problem}.json",
    output:
        "results/tune/{paper}/{problem}/{algorithm}/chunk_{chunk}.parquet",
    params:
        study=study,
        configurations=lambda wildcards: study(wildcards).chunk(int(wildcards.chunk)),
        base_seed=config["base_seed"],
        checkpoints=config["tune_checkpoints"],
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/tune/{paper}/{problem}/{algorithm}/chunk_{chunk}.log",
    priority: tune_priority
    threads: 1
    resources:
        mem_mb=4000,
        runtime=240,
    script:
        "../scripts/tune.py"


rule select:
    localrule: True
    input:
        tune_chunks,
    output:
        "results/select/{paper}/{problem}/{algorithm}.json",
    params:
        study=study,
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/select/{paper}/{problem}/{algorithm}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/select.py"
