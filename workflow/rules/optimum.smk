# Stage "optimum": the certified non-private optimum (w*, F*) of every problem.


rule optimum:
    input:
        data=data_file,
    output:
        json="results/optimum/{paper}/{problem}.json",
        w_star="results/optimum/{paper}/{problem}.npy",
    params:
        problem=lambda wildcards: EXPERIMENT.problem(wildcards.paper, wildcards.problem),
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/optimum/{paper}/{problem}.log",
    priority: UPSTREAM_PRIORITY
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    script:
        "../scripts/optimum.py"
