# Target "audit": the privacy audit of every configured variant at every epsilon (config section
# `audit`, privcd.auditing.study), one job each, a table, a figure, and a check that fails when a
# sound variant's lower bound exceeds its claim (each bound read at 1 - 0.05 / K for K audits).


rule audit_run:
    output:
        "results/audit/runs/{variant}/epsilon_{epsilon}.parquet",
    params:
        variant=lambda wildcards: wildcards.variant,
        epsilon=lambda wildcards: float(wildcards.epsilon),
        delta=AUDIT.delta if AUDIT else None,
        runs=lambda wildcards: AUDIT.runs_for(wildcards.variant),
        seed=lambda wildcards: audit_seed(wildcards),
        check_confidence=AUDIT.check_confidence() if AUDIT else None,
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/audit/{variant}/epsilon_{epsilon}.log",
    threads: 2  # the machine: an audit's runs on two processes (privcd.auditing.workers), its seconds its own
    resources:
        mem_mb=2000,
        runtime=60,
    script:
        "../scripts/audit_run.py"


rule audit_summary:
    localrule: True
    input:
        audit_files,
    output:
        parquet="results/audit/audits.parquet",
        md=report(
            "results/tables/audit/audits.md",
            caption="../report/audit.rst",
            category="audit",
            labels={"table": "epsilon_lower / epsilon"},
        ),
        pdf="figures/audit/audit.pdf",
        png=report(
            "figures/audit/audit.png",
            caption="../report/audit.rst",
            category="audit",
            labels={"figure": "audit"},
        ),
    params:
        title=lambda wildcards: f"Privacy audits: lower bounds on epsilon from {AUDIT.runs:,} runs a side (delta = {AUDIT.delta:g})",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/audit/summary.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/audit_summary.py"


rule audit_check:
    localrule: True
    input:
        "results/audit/audits.parquet",
    output:
        "results/audit/check.txt",
    conda:
        "../envs/privcd.yaml"
    log:
        "logs/audit/check.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/audit_check.py"


rule audit:
    input:
        AUDIT_TARGETS,
