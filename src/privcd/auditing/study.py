"""The audit study of the workflow (config section ``audit``): which audits run, their rows, the check.

One job audits one (variant, epsilon); its seed is derived from the base seed and that identity
(:func:`privcd.tuning.derive_seed`), so the jobs can run in any order or on any machine and give
the same bits. The summary fails when a sound variant's lower bound exceeds its claim
(:func:`check_claims`): that is a privacy bug, and CI runs it on the smoke config.

The check reads each audit's bound at :meth:`AuditStudy.check_confidence`, ``1 - 0.05 / K`` for K
audits (Bonferroni): a tight audit of a sound variant exceeds its claim with chance up to 5% at the
reported 95%, so K such bounds would raise false alarms (one of 70 did, DP-SkGD's uniform sketch at
epsilon 4, 1.004 of its claim, exactly DP-CD's Gaussians); at ``1 - 0.05 / K`` the chance that any
sound claim is flagged is at most 5%.
"""
from dataclasses import dataclass

import pandas as pd

from privcd.auditing import DEFAULT_RUNS, floating_point
from privcd.auditing.variants import MUTANTS, SOUND, VARIANTS
from privcd.tuning.seeds import derive_seed
from privcd.validation import check_number, check_positive, check_positive_int

DEFAULTS = {"epsilons": [0.5, 1.0, 2.0, 4.0, 8.0], "mutant_epsilons": [2.0], "delta": 1e-5, "runs": DEFAULT_RUNS,
            "variants": sorted(VARIANTS)}
COLUMNS = ["variant", "label", "algorithm", "sound", "target_epsilon", "epsilon", "delta", "epsilon_lower",
           "ratio", "statistic", "mu", "mu_lower", "runs", "threshold", "false_negatives", "false_positives", "seed",
           "seconds", "epsilon_check"]
FAMILY_ERROR = 0.05  # the check's chance of flagging any sound claim of the study


@dataclass(frozen=True)
class AuditStudy:
    """The config section ``audit``, checked (every key named on error)."""

    variants: tuple
    epsilons: tuple
    mutant_epsilons: tuple
    delta: float
    runs: int

    @classmethod
    def from_config(cls, section):
        section = {**DEFAULTS, **(section or {})}
        unknown = sorted(set(section) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"audit: unknown key(s) {unknown}; expected {sorted(DEFAULTS)}")
        variants = tuple(section["variants"])
        bad = [name for name in variants if name not in VARIANTS]
        if bad or not variants:
            raise ValueError(f"audit.variants: {bad or variants!r} not known; expected names of "
                             f"privcd.auditing.VARIANTS: {sorted(VARIANTS)}")
        epsilons, mutant_epsilons = (_epsilons(f"audit.{key}", section[key]) for key in ("epsilons", "mutant_epsilons"))
        return cls(variants=variants, epsilons=epsilons, mutant_epsilons=mutant_epsilons,
                   delta=check_number("audit.delta", section["delta"], low=0.0, high=1.0),
                   runs=check_positive_int("audit.runs", section["runs"]))

    def jobs(self):
        """``(variant, epsilon)`` of every audit, in config order: a mutant
        (:data:`privcd.auditing.variants.MUTANTS`) at ``mutant_epsilons``, every other variant at
        ``epsilons``."""
        return [(variant, epsilon) for variant in self.variants
                for epsilon in (self.mutant_epsilons if variant in MUTANTS else self.epsilons)]

    def runs_for(self, variant):
        """Runs a side of ``variant``'s audits: the study's, but the floating-point attack's own default
        (:data:`privcd.auditing.floating_point.DEFAULT_RUNS`): its bound on delta is the unreachable
        share's, which more runs barely move (0.807 at 2,000; each 100,000 took 120-150 s)."""
        return floating_point.DEFAULT_RUNS if "attack" in VARIANTS[variant].options else self.runs

    def check_confidence(self):
        """``1 - FAMILY_ERROR / K``, K the study's audits: the confidence of each bound :func:`check_claims`
        reads (module docstring)."""
        return 1.0 - FAMILY_ERROR / len(self.jobs())


def _epsilons(key, values):
    """The finite epsilons > 0 of a config list (``key`` names it on error)."""
    epsilons = tuple(check_positive(key, float(epsilon)) for epsilon in values)  # inf refused there
    if not epsilons:
        raise ValueError(f"{key}={values!r}: expected a list of finite epsilons > 0")
    return epsilons


def job_seed(base_seed, variant, epsilon, runs):
    """The first run's seed of the audit of (variant, epsilon): derived from its identity, with room
    below 2**32 for the ``2 runs`` consecutive seeds the audit uses."""
    return derive_seed(base_seed, "audit", variant, repr(float(epsilon)), 0, stage="final") % (2**32 - 2 * runs)


def result_row(variant, target_epsilon, seed, result):
    """The tidy row of one :class:`privcd.auditing.AuditResult`."""
    entry = VARIANTS[variant]
    counts = result.counts
    return {"variant": variant, "label": entry.label, "algorithm": entry.algorithm, "sound": variant in SOUND,
            "target_epsilon": float(target_epsilon), "epsilon": result.epsilon, "delta": result.delta,
            "epsilon_lower": result.epsilon_lower, "ratio": result.epsilon_lower / result.epsilon,
            "statistic": result.statistic, "mu": result.mu, "mu_lower": result.mu_lower, "runs": result.runs,
            "threshold": counts.threshold, "false_negatives": counts.false_negatives,
            "false_positives": counts.false_positives, "seed": seed, "seconds": result.seconds,
            "epsilon_check": result.epsilon_check}


def check_claims(table):
    """Raise ``AssertionError`` naming every sound variant whose bound at the study's check confidence
    (``epsilon_check``, module docstring) exceeds its claim."""
    caught = table[table["sound"] & (table["epsilon_check"] > table["epsilon"])]
    if len(caught):
        lines = [f"{row.variant} at epsilon={row.epsilon:.6g}: epsilon_check={row.epsilon_check:.6g} "
                 f"(reported bound {row.epsilon_lower:.6g})" for row in caught.itertuples()]
        raise AssertionError("privacy audit: a sound variant's lower bound exceeds its claim (a privacy bug):\n  "
                             + "\n  ".join(lines))


SUMMARY_COLUMNS = {"label": "variant", "sound": "sound", "target_epsilon": "target epsilon",
                   "epsilon": "claim (achieved epsilon)", "epsilon_lower": "lower bound",
                   "ratio": "lower bound / claim", "statistic": "statistic", "runs": "runs a side",
                   "seconds": "seconds"}


def summary_table(table):
    """One row per audit, columns named for what they hold (:data:`SUMMARY_COLUMNS`): the claim, the
    audit's lower bound on epsilon and their ratio, runs a side and seconds; by variant, then
    target epsilon."""
    rows = table.sort_values(["label", "target_epsilon"], kind="stable")[list(SUMMARY_COLUMNS)]
    rows = rows.rename(columns=SUMMARY_COLUMNS).reset_index(drop=True)
    return rows.round({"claim (achieved epsilon)": 3, "lower bound": 3, "lower bound / claim": 3, "seconds": 1})


def frame(rows):
    """The rows as a DataFrame with :data:`COLUMNS`."""
    return pd.DataFrame(rows, columns=COLUMNS)
