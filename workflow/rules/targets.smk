# One target rule per configured paper, `all_<paper>` with dashes as underscores (all_dp_cd,
# all_dp_gcd, all_dp_scd, all_dp_skgd): `snakemake --cores 2 all_dp_scd` builds that paper's
# figures and tables only. `all`, the default, builds every paper and results/compare/papers.md.
for _paper in EXPERIMENT.papers:

    rule:
        name:
            f"all_{_paper.replace('-', '_')}"
        input:
            paper_outputs(_paper),
