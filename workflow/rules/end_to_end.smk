# Target "end_to_end": what the papers' errors become when tuning is counted (config section
# `end_to_end`, privcd.tuning.end_to_end): per problem and algorithm, the papers' protocol, private
# tuning and data-independent defaults at each total epsilon; one table, one figure.


rule end_to_end_problem:
    input:
        data=data_file,
        optimum="results/optimum/{paper}/{problem}.json",
    output:
        "results/end_to_end/{paper}/{problem}.parquet",
    params:
        spec=lambda wildcards: EXPERIMENT.problem(wildcards.paper, wildcards.problem),
        study=END_TO_END,
        study_id=repr(END_TO_END),  # a string, so that a change of the section reruns the jobs (params tracking)
        base_seed=config["base_seed"],
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/end_to_end/{paper}/{problem}.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    script:
        "../scripts/end_to_end_problem.py"


rule end_to_end_summary:
    localrule: True
    input:
        end_to_end_files,
    output:
        parquet="results/end_to_end/end_to_end.parquet",
        md=report(
            "results/tables/end_to_end/end_to_end.md",
            caption="../report/end_to_end.rst",
            category="end-to-end",
            labels={"table": "relative error by total epsilon"},
        ),
        pdf="figures/end_to_end/end_to_end.pdf",
        png=report(
            "figures/end_to_end/end_to_end.png",
            caption="../report/end_to_end.rst",
            category="end-to-end",
            labels={"figure": "end-to-end"},
        ),
    params:
        titles=lambda wildcards: {key: EXPERIMENT.problems[key].title for key in END_TO_END.problems},
        title=lambda wildcards: f"End-to-end privacy: relative error against the total epsilon, mean [min, max] of {END_TO_END.runs} runs",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/end_to_end/summary.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/end_to_end_summary.py"


rule end_to_end:
    input:
        END_TO_END_TARGETS,
