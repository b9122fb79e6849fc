"""The end-to-end study (workflow target ``end_to_end``): what an error costs when tuning is counted.

For one problem, each algorithm of the study and each total epsilon, three protocols:

* ``"papers"``: the papers' protocol. Every configuration of the grid runs at epsilon on ``runs``
  seeds (:func:`privcd.fit_many`); the configuration of lowest mean final objective, computed on
  the data without noise, is selected and run again on fresh seeds, whose mean error is reported.
  The selection reads the data without noise, so no finite epsilon covers the reported number:
  the tuning is not counted.
* ``"private"``: :func:`privcd.tune_private` on the same grid at a total epsilon (``runs``
  independent tunings, each on its own seed).
* ``"defaults"``: data-independent hyperparameters (config ``defaults``, e.g. DP-CD's step 1, that is
  ``gamma_j = 1 / M_j``, dp-cd Section 4), ``runs`` runs at epsilon: no budget spent on tuning.

Rows: problem, algorithm, protocol, epsilon, the mean, min and max relative error ``(F - F*) / F*``
over the runs, and the configuration(s) used. Each algorithm has its own grid and defaults (config
``end_to_end.algorithms``): DP-SGD's step is a multiple of ``1 / beta``, DP-CD's of ``1 / M_j``.
"""
from dataclasses import dataclass

import numpy as np

from privcd.algorithms import get_algorithm
from privcd.fit_many import fit_many
from privcd.results import relative_error
from privcd.tuning.grid import expand
from privcd.tuning.private import tunable_algorithms, tune_private
from privcd.tuning.seeds import derive_seed
from privcd.validation import check_number, check_positive, check_positive_int

PROTOCOLS = ("papers", "private", "defaults")
EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
COLUMNS = ["problem", "algorithm", "protocol", "epsilon", "delta", "error_mean", "error_min", "error_max", "runs",
           "configuration"]


def _row(problem_name, algorithm, protocol, epsilon, delta, errors, configuration):
    errors = np.asarray(errors, dtype=float)
    return {"problem": problem_name, "algorithm": algorithm, "protocol": protocol, "epsilon": float(epsilon),
            "delta": float(delta),
            "error_mean": float(errors.mean()), "error_min": float(errors.min()), "error_max": float(errors.max()),
            "runs": int(errors.size), "configuration": str(configuration)}


def _seeds(base_seed, problem_name, algorithm, protocol, epsilon, runs, stage="final"):
    return [derive_seed(base_seed, problem_name, algorithm, f"{protocol} {float(epsilon)!r}", index, stage=stage)
            for index in range(runs)]


def papers_protocol(problem, f_star, *, algorithm, configurations, epsilon, delta, seeds, final_seeds):
    """``(errors, configuration)``: the grid's best configuration by mean final objective on ``seeds``
    (selection on the data, not private), then its errors on ``final_seeds``."""
    runs = [dict(configuration, epsilon=epsilon, delta=delta, seed=seed)
            for configuration in configurations for seed in seeds]
    objectives = np.array([run.objective for run in fit_many(problem, algorithm, runs)])
    means = objectives.reshape(len(configurations), len(seeds)).mean(axis=1)
    best = configurations[int(np.argmin(means))]
    finals = fit_many(problem, algorithm, [dict(best, epsilon=epsilon, delta=delta, seed=seed) for seed in final_seeds])
    return [relative_error(run.objective, f_star) for run in finals], best


def end_to_end_rows(problem, f_star, *, name, algorithm, grid, defaults, epsilons, delta, runs, mean_candidates,
                    base_seed, score_clip=1.0):
    """The rows of :data:`COLUMNS` for one problem: every protocol at every epsilon."""
    configurations = expand(grid)
    rows = []
    for epsilon in epsilons:
        def seeds(protocol, stage="final"):
            return _seeds(base_seed, name, algorithm, protocol, epsilon, runs, stage=stage)

        errors, best = papers_protocol(problem, f_star, algorithm=algorithm, configurations=configurations,
                                       epsilon=epsilon, delta=delta, seeds=seeds("papers", stage="tune"),
                                       final_seeds=seeds("papers"))
        rows.append(_row(name, algorithm, "papers", epsilon, delta, errors, best))
        tuned = [tune_private(problem, algorithm, grid, epsilon=epsilon, delta=delta, seed=seed,
                              mean_candidates=mean_candidates, score_clip=score_clip)
                 for seed in seeds("private")]
        rows.append(_row(name, algorithm, "private", epsilon, delta,
                         [relative_error(run.objective, f_star) for run in tuned],
                         sorted({(run.settings["passes"], run.settings["step"], run.settings["clip"]) for run in tuned})))
        default_runs = fit_many(problem, algorithm, [dict(defaults, epsilon=epsilon, delta=delta, seed=seed)
                                                     for seed in seeds("defaults")])
        rows.append(_row(name, algorithm, "defaults", epsilon, delta,
                         [relative_error(run.objective, f_star) for run in default_runs], defaults))
    return rows


def check_configuration(where, algorithm, configuration):
    """``ValueError`` naming ``where`` and the value unless ``configuration`` gives finite positive
    passes, step and clip and only options of ``algorithm`` that private tuning allows."""
    for key in ("passes", "step", "clip"):
        if key not in configuration:
            raise ValueError(f"{where} must give passes, step and clip; missing {key!r}")
        check_positive(f"{where}.{key}", configuration[key])
    module = get_algorithm(algorithm)
    options = {key: value for key, value in configuration.items() if key not in ("passes", "step", "clip")}
    accepted = set(module.OPTIONS) - {"accountant", "smoothness"}  # tune_private fixes these two
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ValueError(f"{where}: {unknown} are not options private tuning accepts for {algorithm!r}; expected "
                         f"some of {sorted(accepted)}")
    try:
        module.check_options({**module.OPTIONS, **options})
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


@dataclass(frozen=True)
class EndToEndStudy:
    """The config section ``end_to_end``, checked against the experiment (every bad key and name
    named, at parse time)."""

    problems: tuple  # "<paper>/<problem>" keys of the experiment
    algorithms: tuple  # ((algorithm, grid, defaults, problems), ...) in the config's order
    epsilons: tuple
    delta: object  # a number or "c/n^k", resolved per problem
    runs: int
    mean_candidates: float
    score_clip: float

    @classmethod
    def from_config(cls, section, experiment):
        required = {"problems", "algorithms"}
        known = required | {"epsilons", "delta", "runs", "mean_candidates", "score_clip"}
        unknown, missing = sorted(set(section) - known), sorted(required - set(section))
        if unknown or missing:
            raise ValueError(f"end_to_end: unknown key(s) {unknown}, missing key(s) {missing}")
        problems = tuple(f"{paper}/{name}" for paper, names in section["problems"].items() for name in names)
        absent = [key for key in problems if key not in experiment.problems]
        if absent:
            raise ValueError(f"end_to_end.problems: {absent} are not problems of the experiment (or their data "
                             f"are unavailable); expected among {sorted(experiment.problems)}")
        algorithms = tuple(_algorithm_entry(name, entry, problems) for name, entry in dict(section["algorithms"]).items())
        if not algorithms:
            raise ValueError("end_to_end.algorithms: expected at least one algorithm with its grid and defaults")
        epsilons = tuple(check_positive("end_to_end.epsilons", float(e)) for e in section.get("epsilons", EPSILONS))
        return cls(problems=problems, algorithms=algorithms, epsilons=epsilons, delta=section.get("delta", "1/n^2"),
                   runs=check_positive_int("end_to_end.runs", section.get("runs", 5)),
                   mean_candidates=check_number("end_to_end.mean_candidates", section.get("mean_candidates", 10.0),
                                                low=1.0),
                   score_clip=check_positive("end_to_end.score_clip", section.get("score_clip", 1.0)))


def _algorithm_entry(algorithm, entry, problems):
    """``(algorithm, grid, defaults, problems)`` of ``end_to_end.algorithms.<algorithm>``, every value
    checked; its ``problems`` (paper -> names, optional) are a subset of the study's, all by default."""
    where = f"end_to_end.algorithms.{algorithm}"
    if algorithm not in tunable_algorithms():
        raise ValueError(f"{where}: private tuning supports algorithm in {tunable_algorithms()}; got {algorithm!r}")
    unknown, missing = sorted(set(entry) - {"grid", "defaults", "problems"}), sorted({"grid", "defaults"} - set(entry))
    if unknown or missing:
        raise ValueError(f"{where}: unknown key(s) {unknown}, missing key(s) {missing}")
    for configuration in expand(entry["grid"]):  # expand raises, naming the key, on a bad grid
        check_configuration(f"{where}.grid", algorithm, configuration)
    check_configuration(f"{where}.defaults", algorithm, entry["defaults"])
    own = problems
    if "problems" in entry:
        own = tuple(f"{paper}/{name}" for paper, names in entry["problems"].items() for name in names)
        outside = [key for key in own if key not in problems]
        if outside:
            raise ValueError(f"{where}.problems: {outside} are not problems of the study; expected among {list(problems)}")
    return algorithm, dict(entry["grid"]), dict(entry["defaults"]), own
