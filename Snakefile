# privcd: regenerate the papers' figures and tables (see config/README.md and the README).
#   snakemake --cores 2                                         full reproduction (config/config.yaml)
#   snakemake --cores 2 all_dp_scd                              one paper (all_dp_cd, all_dp_gcd, all_dp_skgd)
#   snakemake --cores 2 audit                                   the privacy audits (config section audit)
#   snakemake --cores 2 end_to_end                              errors when tuning is counted (section end_to_end)
#   snakemake --cores 2 --configfile config/smoke.yaml --replace-workflow-config   smoke run
from snakemake.utils import min_version

min_version("8.20")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/optimum.smk"
include: "workflow/rules/tune.smk"
include: "workflow/rules/final.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/paper_common.smk"
include: "workflow/rules/paper_figures.smk"
include: "workflow/rules/paper_dp_gcd.smk"
include: "workflow/rules/paper_dp_cd.smk"
include: "workflow/rules/compare.smk"
include: "workflow/rules/paper_dp_scd.smk"
include: "workflow/rules/paper_dp_skgd.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/end_to_end.smk"
include: "workflow/rules/targets.smk"


rule all:
    input:
        all_targets(),
    default_target: True
