"""The experiment a workflow config describes: problems, studies, grids and chunks.

The Snakemake workflow (``workflow/rules/*.smk``) asks this module, never the raw config, what to
run, so the logic is unit-tested here. Vocabulary:

problem
    A paper's dataset + preprocessing + loss + penalty + lambda + privacy target (epsilon, delta),
    identified as ``"<paper>/<problem>"``.
study
    One (paper, problem, algorithm entry): a grid of configurations tuned with ``runs.tune``
    repetitions each, then the selected configuration(s) run ``runs.final`` times. An entry with
    ``problems`` runs on those problems of the paper only (dp-gcd Figure 3's rules: L1 problems).
configuration
    The keyword arguments of :func:`privcd.fit` besides problem, algorithm and seed: ``epsilon``,
    ``delta`` (possibly symbolic, ``"1/n^2"``), ``passes``, ``step``, ``clip`` and the options.

Datasets a mirror lacks (``data_mirror`` set) are handled by ``unavailable``: ``"skip"`` drops their
problems and records a note; ``"substitute"`` uses ``substitutes[dataset]`` instead (labelled in
the problem's title) and skips those without a substitute, with a note.
"""
import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from privcd.algorithms import get_algorithm
from privcd.data import get_spec
from privcd.losses import LOSSES, get_loss
from privcd.penalties import get_penalty
from privcd.privacy.mechanisms import ACCOUNTANTS as GAUSSIAN_ACCOUNTANTS
from privcd.tuning.chunks import chunk_count, group_by_privacy
from privcd.tuning.grid import expand
from privcd.tuning.privacy_values import resolve_delta
from privcd.validation import check_positive

REQUIRED_PARAMETERS = ("passes", "step", "clip")
# Scheduling (Snakemake ``priority``): the jobs that unblock tuning chunks (data, optimum,
# calibrate) go first, then the chunks longest first, so the longest does not start last.
UPSTREAM_PRIORITY = 1000
# The fixed cost of one sample or coordinate step in entries of X, for ProblemSpec.pass_work: with
# it the estimate orders a full run's tuning jobs as they were measured (benchmarks/README.md, *Measurements behind the kernels' design*).
STEP_OVERHEAD = 32


@dataclass(frozen=True)
class ProblemSpec:
    """One problem of one paper (config ``papers.<paper>.problems.<name>``)."""

    paper: str
    name: str
    dataset: str
    preprocessing: str
    loss: str
    penalty: str | None
    lam: float
    epsilon: tuple
    delta: float | str
    title: str
    # JSON of the problem's grid values (config ``problems.<name>.grid``); out of the repr, which
    # the workflow's params hash (a new field must not rerun existing results): a change of it
    # reaches the rules through the studies' grid_id, which it enters
    grid: str = field(default="{}", repr=False)

    @property
    def key(self):
        """``"<paper>/<problem>"``: the problem's identity in seeds and results."""
        return f"{self.paper}/{self.name}"

    @property
    def pass_work(self):
        """Relative cost of one pass over the data: ``n p + STEP_OVERHEAD (n + p)``.

        ``n`` and ``p`` as registered (``DatasetSpec.shape``, before preprocessing). A pass reads X
        once (``n p``) and takes n sample steps or p coordinate steps, each with a fixed cost (a
        random draw, a loss derivative, a branch) worth about ``STEP_OVERHEAD`` entries of X.
        """
        records, features = get_spec(self.dataset).shape
        return records * features + STEP_OVERHEAD * (records + features)


@dataclass(frozen=True)
class Study:
    """One algorithm entry on one problem (config ``papers.<paper>.algorithms.<name>``)."""

    problem: ProblemSpec
    name: str
    algorithm: str
    tune_runs: int
    final_runs: int
    timing_runs: int  # runs timed alone per number of passes (dp-cd Table 3); 0: none
    select_by: tuple
    select_metric: str  # "objective" or "validation" (privcd.results.utility.selection_score)
    chunk_size: int
    final_checkpoints: int | None
    grid_id: str  # hash of the grid with the privacy targets: in repr, so rules rerun when it changes
    configurations: tuple = field(repr=False, compare=False)

    @property
    def n_chunks(self):
        return chunk_count(len(self.configurations), self.chunk_size)

    def chunk(self, index):
        """The configurations of chunk ``index`` (``configurations`` are already grouped by privacy)."""
        if not 0 <= index < self.n_chunks:
            raise ValueError(f"chunk index={index} is outside [0, {self.n_chunks}) for {self.problem.key} "
                             f"{self.name}")
        return list(self.configurations[index * self.chunk_size:(index + 1) * self.chunk_size])

    def chunk_work(self, index):
        """Relative cost of chunk ``index``: ``tune_runs * (sum of its passes) * ProblemSpec.pass_work``.

        The estimate ignores density and each algorithm's constant (on dorothea DP-SGD, whose noise
        is dense, took 2.5 times DP-CD's time); it only orders jobs.
        """
        passes = sum(float(configuration["passes"]) for configuration in self.chunk(index))
        return self.tune_runs * passes * self.problem.pass_work

    def chunk_priority(self, index):
        """Snakemake priority of chunk ``index``: ``10 log10(chunk_work)``, from 1 to ``UPSTREAM_PRIORITY - 1``.

        Among the chunks ready to run, the ones estimated longest start first (longest processing
        time first), so the last to start is short and both cores finish together.
        """
        work = self.chunk_work(index)
        level = round(10 * math.log10(work)) if work > 0 else 1
        return min(UPSTREAM_PRIORITY - 1, max(1, level))


class Experiment:
    """Everything a validated workflow config asks for.

    Parameters
    ----------
    config : dict
        The workflow config, already validated against ``workflow/schemas/config.schema.yaml``
        (defaults filled).
    """

    def __init__(self, config):
        self.config = config
        self.base_seed = int(config["base_seed"])
        self.mirror = config.get("data_mirror") or None
        if self.mirror is not None and not Path(self.mirror).is_dir():
            raise ValueError(f"data_mirror={self.mirror!r} is not a directory (relative paths start at {Path.cwd()}); "
                             "give the directory of the dataset copies, or leave data_mirror empty to download")
        self.notes = []
        self.problems = {}
        self.studies = {}
        for paper, block in config["papers"].items():
            _check_problem_lists(paper, block)
            for name, entry in block["problems"].items():
                problem = self._problem(paper, name, block, entry)
                if problem is None:
                    continue
                self.problems[problem.key] = problem
                for algorithm_name, algorithm in block["algorithms"].items():
                    if name not in algorithm.get("problems", block["problems"]):
                        continue
                    self.studies[(paper, name, algorithm_name)] = self._study(problem, algorithm_name,
                                                                              algorithm, block)

    # -- lookups used by the rules -------------------------------------------------------------

    @cached_property
    def papers(self):
        """Papers with at least one problem left, in config order."""
        return list(dict.fromkeys(problem.paper for problem in self.problems.values()))

    def problem(self, paper, name):
        return self.problems[f"{paper}/{name}"]

    def study(self, paper, problem, algorithm):
        return self.studies[(paper, problem, algorithm)]

    def studies_of(self, paper):
        return [study for key, study in self.studies.items() if key[0] == paper]

    def datasets(self):
        """Distinct (dataset, preprocessing) pairs, in config order."""
        return list(dict.fromkeys((p.dataset, p.preprocessing) for p in self.problems.values()))

    def titles(self, paper):
        """Problem name -> title (which names a substitute dataset) for the paper's figures and tables."""
        return {p.name: p.title for p in self.problems.values() if p.paper == paper}

    def select_by(self, paper):
        return tuple(self.config["papers"][paper]["select_by"])

    def select_metric(self, paper):
        return self.config["papers"][paper].get("select_metric", "objective")

    def missing_problems(self, paper):
        """Names of the paper's configured problems that were skipped (dataset not in the mirror)."""
        return [name for name in self.config["papers"][paper]["problems"] if f"{paper}/{name}" not in self.problems]

    def tuning_table_by(self, paper):
        return tuple(self.config["papers"][paper]["tuning_table_by"])

    # -- construction --------------------------------------------------------------------------

    def _problem(self, paper, name, block, entry):
        dataset = entry["dataset"]
        title = entry.get("title") or name
        if not self._available(dataset):
            substitute = self.config["substitutes"].get(dataset)
            if self.config["unavailable"] == "substitute" and substitute and self._available(substitute):
                self.notes.append(f"{paper}/{name}: dataset {dataset!r} is not in the mirror "
                                  f"{self.mirror}; substituted by {substitute!r} (labelled).")
                title = f"{title} [{substitute} instead of {dataset}]"
                dataset = substitute
            else:
                self.notes.append(f"{paper}/{name}: skipped, dataset {dataset!r} is not in the mirror "
                                  f"{self.mirror} (unavailable: {self.config['unavailable']}).")
                return None
        privacy = {**block["privacy"], **entry.get("privacy", {})}
        _check_problem_entry(f"papers.{paper}.problems.{name}", entry, dataset, privacy["delta"])
        epsilon = privacy["epsilon"]
        epsilon = tuple(epsilon) if isinstance(epsilon, list) else (epsilon,)
        return ProblemSpec(paper=paper, name=name, dataset=dataset,
                           preprocessing=entry["preprocessing"], loss=entry["loss"],
                           penalty=entry.get("penalty"), lam=float(entry["lam"]),
                           epsilon=tuple(float(value) for value in epsilon), delta=privacy["delta"],
                           title=title, grid=json.dumps(entry.get("grid", {})))

    def _available(self, dataset):
        """Without a mirror every dataset may be downloaded; with one, it must hold the files."""
        spec = get_spec(dataset)
        if self.mirror is None or spec.source == "synthetic":
            return True
        return all((Path(self.mirror) / name).is_file() for name in spec.mirror_files)

    def _study(self, problem, name, entry, block):
        grid = dict(entry["grid"])
        # the problem's own values replace those keys of every grid that has them (MSD's 50 epochs)
        grid.update({key: value for key, value in json.loads(problem.grid).items() if key in grid})
        names = {part.strip() for key in grid for part in str(key).split(",")}
        where = f"papers.{problem.paper}.algorithms.{name}.grid"
        missing = [key for key in REQUIRED_PARAMETERS if key not in names]
        if missing:
            raise ValueError(f"{where} lacks {missing}; every grid gives {list(REQUIRED_PARAMETERS)}")
        if names & {"epsilon", "delta"}:
            raise ValueError(f"{where}: epsilon and delta belong in the privacy block, not the grid")
        module = get_algorithm(entry.get("algorithm") or name)
        unknown = sorted(names - set(REQUIRED_PARAMETERS) - set(module.OPTIONS))
        if unknown:
            raise ValueError(f"{where}: {unknown} are not options of algorithm {module.NAME!r}; its "
                             f"options are {sorted(module.OPTIONS)}")
        # an entry's own privacy (e.g. epsilon = inf: dp-scd's non-private SCD and SGD) overrides
        privacy = entry.get("privacy", {})
        epsilon = privacy.get("epsilon", list(problem.epsilon))
        epsilon = [float(value) for value in (epsilon if isinstance(epsilon, (list, tuple)) else [epsilon])]
        # the cache key keeps the grid's key order, which sets the order of the product
        grid_json = json.dumps({"epsilon": epsilon, "delta": privacy.get("delta", problem.delta), **grid})
        configurations = _configurations(grid_json)
        accountants = _accountants_of(module)
        for configuration in configurations:  # every value, so that a dry run names a bad one
            for key in REQUIRED_PARAMETERS:
                check_positive(f"{where}.{key}", configuration[key], allow_inf=key == "clip")
            accountant = configuration.get("accountant")
            if accountant is not None and accountant not in accountants:
                raise ValueError(f"{where}.accountant={accountant!r} is not an accountant of algorithm "
                                 f"{module.NAME!r}; expected one of {list(accountants)}")
            options = {**module.OPTIONS, **{key: value for key, value in configuration.items() if key in module.OPTIONS}}
            try:
                module.check_options(options)
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from None
        return Study(problem=problem, name=name, algorithm=module.NAME,
                     tune_runs=int(block["runs"]["tune"]), final_runs=int(block["runs"]["final"]),
                     timing_runs=int(block["runs"].get("timing", 0)),
                     select_by=tuple(block["select_by"]),
                     select_metric=block.get("select_metric", "objective"),
                     chunk_size=int(self.config["chunk_size"]),
                     final_checkpoints=block.get("final_checkpoints"),
                     grid_id=hashlib.sha256(grid_json.encode()).hexdigest()[:12],
                     configurations=configurations)



def _accountants_of(module):
    """The accountant names an algorithm module accepts: its ``ACCOUNTANTS`` (flattened when keyed by
    noise model), else privcd's Gaussian accountants (:data:`privcd.privacy.ACCOUNTANTS`)."""
    names = getattr(module, "ACCOUNTANTS", None) or GAUSSIAN_ACCOUNTANTS
    if isinstance(names, dict):
        names = [name for group in names.values() for name in group]
    return tuple(dict.fromkeys(names))


def _check_problem_entry(where, entry, dataset, delta):
    """``ValueError`` naming the key of a problem entry whose loss or penalty is unknown, whose loss
    needs class labels the dataset does not have, or whose delta is not in (0, 1) for datasets of
    10 to 10^7 records."""
    try:
        loss = get_loss(entry["loss"])
        get_penalty(entry.get("penalty"))
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    task = get_spec(dataset).task
    if loss.utility == "accuracy" and task == "regression":
        raise ValueError(f"{where}: loss={loss.name!r} needs class labels, but dataset {dataset!r} has a "
                         "real-valued (regression) target; use a regression loss, one of "
                         f"{sorted(name for name, spec in LOSSES.items() if spec.utility == 'mse')}")
    for n in (10, 10**7):
        try:
            resolve_delta(delta, n)
        except ValueError as error:
            raise ValueError(f"{where}: privacy delta={delta!r} gives {error} for n={n}") from None


def _check_problem_lists(paper, block):
    """``ValueError`` naming an algorithm entry's ``problems`` that are not problems of the paper."""
    for name, entry in block["algorithms"].items():
        unknown = sorted(set(entry.get("problems", ())) - set(block["problems"]))
        if unknown:
            raise ValueError(f"papers.{paper}.algorithms.{name}.problems: {unknown} are not problems of "
                             f"the paper; its problems are {sorted(block['problems'])}")


@lru_cache(maxsize=None)
def _configurations(grid_json):
    """The grid expanded and grouped by privacy setting, once per distinct grid (problems share)."""
    return tuple(group_by_privacy(expand(json.loads(grid_json))))
