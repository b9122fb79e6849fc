# Stage "data": load each (dataset, preprocessing) once, from the mirror or its source, and
# store it as results/data/<dataset>/<preprocessing>.{npz,json}.


rule data:
    localrule: True
    output:
        npz="results/data/{dataset}/{preprocessing}.npz",
        meta="results/data/{dataset}/{preprocessing}.json",
    params:
        mirror=config["data_mirror"],
        # with a mirror the run is offline: a dataset it lacks is never downloaded
        download=not config["data_mirror"],
        cache="results/data/cache",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/data/{dataset}/{preprocessing}.log",
    priority: UPSTREAM_PRIORITY
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../scripts/data.py"


rule data_notes:
    localrule: True
    input:
        [f"results/data/{dataset}/{preprocessing}.json" for dataset, preprocessing in EXPERIMENT.datasets()],
    output:
        report(
            "results/data/notes.md",
            caption="../report/data_notes.rst",
            category="Data",
        ),
    params:
        notes=EXPERIMENT.notes,
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/data/notes.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/data_notes.py"
