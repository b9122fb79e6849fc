"""The audited variants: every algorithm as the library runs it, by name, and one known-unsound one.

A variant is an algorithm with options. ``SOUND`` are privcd's own guarantees, whose audits must
stay at or below their claim; ``UNSOUND`` are accountings kept by name for a reproduction, whose
audits may exceed it (dp-scd Theorem 1's amplification by sampling for Algorithm 1 as printed,
:mod:`privcd.algorithms.dp_scd`), and a seeded experiment's floating-point noise, which is private
in the mathematics only (Mironov's attack, :mod:`privcd.auditing.floating_point`; a release's is
sound). ``MUTANTS`` are sound variants run with :data:`MUTANT_FACTOR` times their calibrated noise
under the same claim (``privcd.audit(..., noise_factor=f)``), one per family: a strong enough audit
puts each above its claim.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Variant:
    """``privcd.audit(algorithm, **options)`` under a name; ``label`` names it in figures."""

    algorithm: str
    options: dict = field(default_factory=dict)
    label: str = ""


SOUND = {
    "dp-cd": Variant("dp-cd", {}, "DP-CD"),
    "dp-cd-p": Variant("dp-cd", {"smoothness": "private"}, "DP-CD-P"),
    "dp-gcd": Variant("dp-gcd", {}, "DP-GCD"),
    "dp-gcd-gs-s": Variant("dp-gcd", {"rule": "gs-s"}, "DP-GCD (GS-s)"),
    "dp-gcd-gs-r": Variant("dp-gcd", {"rule": "gs-r"}, "DP-GCD (GS-r)"),
    "dp-gcd-gs-q": Variant("dp-gcd", {"rule": "gs-q"}, "DP-GCD (GS-q)"),
    "dp-sgd": Variant("dp-sgd", {}, "DP-SGD (full batch)"),
    "dp-sgd-sampled": Variant("dp-sgd", {"batch_size": 5}, "DP-SGD (sampled)"),  # q = 1/2: curve-audited
    "dp-scd": Variant("dp-scd", {}, "DP-SCD"),
    "seqdp-scd": Variant("seqdp-scd", {}, "SEQDP-SCD"),
    "dp-skgd-uniform": Variant("dp-skgd", {}, "DP-SkGD (uniform)"),
    "dp-skgd-tau-nice": Variant("dp-skgd", {"sketch": "tau-nice", "tau": 2}, "DP-SkGD (tau-nice)"),
    "dp-skgd-importance": Variant("dp-skgd", {"sketch": "importance", "probabilities": "smoothness", "tau": 2},
                                  "DP-SkGD (importance)"),
    "dp-skgd-full": Variant("dp-skgd", {"sketch": "full"}, "DP-SkGD (full)"),
    "dp-gcd-release-floats": Variant("dp-gcd", {"attack": "floating-point", "release": True},
                                     "DP-GCD release, floating-point attack"),
    "dp-cd-release-floats": Variant("dp-cd", {"attack": "floating-point", "release": True},
                                    "DP-CD release, floating-point attack"),
    "dp-sgd-release-floats": Variant("dp-sgd", {"attack": "floating-point", "release": True},
                                     "DP-SGD release, floating-point attack"),
    "dp-sgd-sampled-release-floats": Variant("dp-sgd", {"batch_size": 25, "attack": "floating-point", "release": True},
                                             "DP-SGD (sampled) release, floating-point attack"),
    "dp-skgd-full-release-floats": Variant("dp-skgd", {"sketch": "full", "noise": "coordinate",
                                                       "attack": "floating-point", "release": True},
                                           "DP-SkGD (full) release, floating-point attack"),
    "dp-cd-p-release-floats": Variant("dp-cd", {"smoothness": "private", "attack": "floating-point", "release": True},
                                      "DP-CD-P release, floating-point attack"),
    "dp-scd-release-floats": Variant("dp-scd", {"attack": "floating-point", "release": True},
                                     "DP-SCD release, floating-point attack"),
}
UNSOUND = {
    "dp-scd-paper": Variant("dp-scd", {"noise": "batch-duals", "accountant": "paper"},
                            "DP-SCD, paper's accounting"),
    "dp-gcd-experiment-floats": Variant("dp-gcd", {"attack": "floating-point"},
                                        "DP-GCD experiment, floating-point attack"),
    "dp-cd-experiment-floats": Variant("dp-cd", {"attack": "floating-point"},
                                       "DP-CD experiment, floating-point attack"),
    "dp-sgd-experiment-floats": Variant("dp-sgd", {"attack": "floating-point"},
                                        "DP-SGD experiment, floating-point attack"),
    "dp-sgd-sampled-experiment-floats": Variant("dp-sgd", {"batch_size": 25, "attack": "floating-point"},
                                                "DP-SGD (sampled) experiment, floating-point attack"),
    "dp-skgd-full-experiment-floats": Variant("dp-skgd", {"sketch": "full", "noise": "coordinate",
                                                          "attack": "floating-point"},
                                              "DP-SkGD (full) experiment, floating-point attack"),
    "dp-cd-p-experiment-floats": Variant("dp-cd", {"smoothness": "private", "attack": "floating-point"},
                                         "DP-CD-P experiment, floating-point attack"),
    "dp-scd-experiment-floats": Variant("dp-scd", {"attack": "floating-point"},
                                        "DP-SCD experiment, floating-point attack"),
}
MUTANT_FACTOR = 1 / 1.2  # a mutant's noise over the calibrated noise (issue 35: every family caught)
MUTANTS = {f"{name}-mutant": Variant(SOUND[name].algorithm, {**SOUND[name].options, "noise_factor": MUTANT_FACTOR},
                                     f"{SOUND[name].label}, noise / {1 / MUTANT_FACTOR:g}")
           for name in ("dp-cd", "dp-cd-p", "dp-gcd", "dp-sgd", "dp-sgd-sampled", "dp-scd", "seqdp-scd",
                        "dp-skgd-uniform")}
VARIANTS = {**SOUND, **UNSOUND, **MUTANTS}
