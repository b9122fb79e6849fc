"""``privcd.fit_many``: many runs of one algorithm on one problem, those that share their random
draws made in one kernel call.

A run's random draws depend on its seed and on the shape of its run (the number of iterations;
DP-SGD's batch size and sampling), never on the hyperparameters an algorithm lists in
``SHARED_DRAWS`` (DP-CD, DP-GCD and DP-SGD: the step size and the clipping norm). Runs with the
same seed and the same ``batch_key`` of their plans therefore draw the same numbers, and an
algorithm that offers ``run_many`` makes them together, drawing once for all of them
(:func:`privcd.kernels.dp_cd_many.dp_cd_many`, :func:`privcd.kernels.dp_gcd.dp_gcd_many`,
:func:`privcd.kernels.dp_sgd_many.dp_sgd_many`). Every run still gets exactly the numbers it would get
alone: its privacy guarantee is that of its own calibration, taken alone. Runs that share their
draws are not independent releases: two DP-SGD runs of one seed that differ only in clip, set
side by side, cancel each other's noise. Each such run says so (``info["shared_draws"]``: how many
runs of the call have its seed), and runs without a seed (releases) never share draws.
"""
from privcd.algorithms.kernel_clock import kernel_clock
from privcd.fit import assemble, prepare
from privcd.randomness import resolve_seed, seed_identity


def fit_many(problem, algorithm, runs, *, calibrations=None, lockstep=True):
    """Yield the :class:`~privcd.run.Run` of every entry of ``runs``, in order.

    Parameters
    ----------
    problem : privcd.Problem
    algorithm : str
    runs : iterable of dict
        Keyword arguments of :func:`privcd.fit` for each run; without ``seed`` (or with ``None``) a
        run is a release with secret draws of its own (:mod:`privcd.randomness`).
    calibrations : privcd.privacy.CalibrationStore, optional
        As in :func:`privcd.fit`, shared by all runs.
    lockstep : bool
        Make the runs that share their draws in one kernel call (default); ``False`` makes every
        run alone, each timed alone as :func:`privcd.fit` times it (the same bits either way).

    Yields
    ------
    Run
        Bit for bit the run ``privcd.fit(problem, algorithm, **run)`` returns, but for ``seconds``:
        a run made in a group gets the group's kernel time divided by its size. Every run is
        planned (and calibrated) first; a group, in kernel calls of at most
        ``module.group_size(problem, plan)`` runs (the memory of their iterates and snapshots),
        runs when its first run is due, so results come as they are made.
    """
    planned = []
    for arguments in runs:
        arguments = dict(arguments)
        randomness = resolve_seed(arguments.pop("seed", None))
        planned.append((randomness, *prepare(problem, algorithm, calibrations=calibrations, **arguments)))
    sharing, groups = {}, {}
    for index, ((_, seed), module, _, _, plan) in enumerate(planned):
        sharing.setdefault(seed_identity(seed), []).append(index)
        if lockstep and hasattr(module, "run_many"):
            key, size = (seed_identity(seed), module.batch_key(plan)), module.group_size(problem, plan)
        else:
            key, size = ("alone", index), 1
        groups.setdefault(key, (size, []))[1].append(index)
    shared_draws = {index: len(members) for members in sharing.values() for index in members}
    piece_of = {}
    for size, members in groups.values():
        for start in range(0, len(members), size):
            piece = members[start:start + size]
            piece_of.update((index, piece) for index in piece)
    finished = {}
    for index in range(len(planned)):
        if index not in finished:
            finished.update(_run_group(problem, planned, piece_of[index], shared_draws))
        yield finished.pop(index)


def _run_group(problem, planned, members, shared_draws):
    """``{index: Run}`` for the runs ``members`` of ``planned``, which share seed and draws."""
    randomness, module = planned[members[0]][:2]
    with kernel_clock() as clock:
        if len(members) == 1:
            outputs = [module.run(problem, planned[members[0]][4], randomness[1])]
        else:
            outputs = module.run_many(problem, [planned[index][4] for index in members], randomness[1])
    seconds = clock.seconds / len(members)
    runs = {}
    for index, (w, snapshots, *extra) in zip(members, outputs):
        _, module, settings, options, plan = planned[index]
        extra = {**(extra[0] if extra else {}), **({"shared_draws": shared_draws[index]}
                                                   if shared_draws[index] > 1 else {})}
        runs[index] = assemble(problem, module, settings, options, plan, randomness, w, snapshots, extra, seconds)
    return runs
