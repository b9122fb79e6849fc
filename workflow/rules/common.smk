# Config validation (first), the experiment plan and the path helpers the rules share.
# The plan's logic lives in privcd.tuning.Experiment, where it is unit-tested.
import os
from pathlib import Path

from snakemake.utils import validate

from privcd.auditing.study import AuditStudy, job_seed
from privcd.tuning import UPSTREAM_PRIORITY, Experiment
from privcd.tuning.end_to_end import EndToEndStudy


validate(config, "../schemas/config.schema.yaml")

# One numba cache for every job of every run of this checkout: compile once, not once per job.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(workflow.basedir) / ".numba_cache"))

EXPERIMENT = Experiment(config)
AUDIT = AuditStudy.from_config(config["audit"]) if "audit" in config else None  # audit.smk
AUDIT_TARGETS = ["results/audit/audits.parquet", "results/tables/audit/audits.md", "figures/audit/audit.pdf",
                 "figures/audit/audit.png", "results/audit/check.txt"]
END_TO_END = EndToEndStudy.from_config(config["end_to_end"], EXPERIMENT) if "end_to_end" in config else None
END_TO_END_TARGETS = ["results/end_to_end/end_to_end.parquet", "results/tables/end_to_end/end_to_end.md",
                      "figures/end_to_end/end_to_end.pdf", "figures/end_to_end/end_to_end.png"]


wildcard_constraints:
    paper="[a-z0-9][a-z0-9_.-]*",
    problem="[a-z0-9][a-z0-9_.-]*",
    algorithm="[a-z0-9][a-z0-9_.-]*",
    dataset="[a-z0-9][a-z0-9_.-]*",
    preprocessing="[a-z0-9-]+",
    chunk="[0-9]+",
    x="passes|seconds",
    variant="[a-z0-9-]+",
    epsilon="[0-9.]+",


def data_file(wildcards):
    problem = EXPERIMENT.problem(wildcards.paper, wildcards.problem)
    return f"results/data/{problem.dataset}/{problem.preprocessing}.npz"


def study(wildcards):
    return EXPERIMENT.study(wildcards.paper, wildcards.problem, wildcards.algorithm)


def tune_priority(wildcards):
    """Longest tuning chunks first (privcd.tuning.Study.chunk_priority)."""
    return study(wildcards).chunk_priority(int(wildcards.chunk))


def problem_studies(wildcards):
    """Every study of the problem: its calibrate job covers their privacy settings together."""
    return [s for s in EXPERIMENT.studies_of(wildcards.paper) if s.problem.name == wildcards.problem]


def chunk_files(s):
    """The tuning chunks of study ``s``."""
    base = f"results/tune/{s.problem.paper}/{s.problem.name}/{s.name}"
    return [f"{base}/chunk_{index:04d}.parquet" for index in range(s.n_chunks)]


def tune_chunks(wildcards):
    return chunk_files(study(wildcards))


def paper_files(stage, suffix):
    """Input function: one file per study of the paper, results/<stage>/<paper>/<problem>/<algorithm><suffix>."""

    def files(wildcards):
        return [
            f"results/{stage}/{s.problem.paper}/{s.problem.name}/{s.name}{suffix}"
            for s in EXPERIMENT.studies_of(wildcards.paper)
        ]

    return files


def timed_studies(wildcards):
    """Input function: results/timing/<paper>/<problem>/<algorithm>.parquet of the paper's studies with timed runs."""
    return [f"results/timing/{s.problem.paper}/{s.problem.name}/{s.name}.parquet"
            for s in EXPERIMENT.studies_of(wildcards.paper) if s.timing_runs]


def paper_tune_chunks(wildcards):
    return [path for s in EXPERIMENT.studies_of(wildcards.paper) for path in chunk_files(s)]


def paper_optima(wildcards):
    keys = dict.fromkeys((s.problem.paper, s.problem.name) for s in EXPERIMENT.studies_of(wildcards.paper))
    return [f"results/optimum/{paper}/{problem}.json" for paper, problem in keys]


def all_targets():
    targets = ["results/data/notes.md"]
    for paper in EXPERIMENT.papers:
        targets += paper_outputs(paper)
    if {"dp-cd", "dp-gcd"} & set(EXPERIMENT.papers):
        targets.append("results/compare/papers.md")  # compare.smk
    if AUDIT:
        targets += AUDIT_TARGETS  # audit.smk
    if END_TO_END:
        targets += END_TO_END_TARGETS  # end_to_end.smk
    return targets


def end_to_end_files(wildcards):
    """Every problem's rows of the end-to-end study: results/end_to_end/<paper>/<problem>.parquet."""
    return [f"results/end_to_end/{key}.parquet" for key in END_TO_END.problems]


def audit_files(wildcards):
    """Every audit job's row: results/audit/runs/<variant>/epsilon_<epsilon>.parquet."""
    return [f"results/audit/runs/{variant}/epsilon_{epsilon:g}.parquet" for variant, epsilon in AUDIT.jobs()]


def audit_seed(wildcards):
    return job_seed(config["base_seed"], wildcards.variant, float(wildcards.epsilon), AUDIT.runs)


def paper_outputs(paper):
    """Every output of one paper: the generic convergence figures and tables, and the paper's own."""
    targets = expand("figures/{paper}/convergence_{x}.{ext}", paper=paper, x=["passes", "seconds"], ext=["pdf", "png"])
    targets += expand("results/tables/{paper}/{table}_errors.{ext}", paper=paper, table=["final", "tuning"],
                      ext=["md", "tex"])
    return targets + paper_targets(paper)  # paper_common.smk


# -- the papers' own figures and tables (workflow/rules/paper_dp_scd.smk, paper_dp_skgd.smk) -------

DP_SCD, DP_SKGD = "dp-scd", "dp-skgd"


def paper_losses(paper):
    """Problem name -> loss name, for the utility metric of each problem (accuracy or MSE)."""
    return {p.name: p.loss for p in EXPERIMENT.problems.values() if p.paper == paper}


def missing_problems(paper):
    """Configured problems that did not run, with their dataset: the figures' footnote."""
    problems = config["papers"][paper]["problems"]
    return [f"{name} ({problems[name]['dataset']})" for name in EXPERIMENT.missing_problems(paper)]
