"""DP-SCD: differentially private dual stochastic coordinate descent (dp-scd Algorithm 1).

Objective. dp-scd eq. (1) is ``F(theta) = (1/N) sum_i l_i(<x_i, theta>) + (lambda/2) ||theta||^2``,
which is privcd's ``F(w) = (1/n) sum_i l(<w, x_i>, y_i) + (lam/2) ||w||^2`` term for term with
``l_i = l(., y_i)``, ``lambda = lam`` and ``N = n``: the kernel solves the dual (eq. (3)) of the
given :class:`~privcd.problem.Problem` as it stands, so ``theta = v / (lam n)`` minimises its F.
privcd's squared loss is ``(z - y)^2`` without 1/2, while the authors' ridge regression uses
``(z - y)^2 / 2``: their ridge problem with ``lambda`` is ours with ``lam = 2 lambda`` (our F is twice
theirs, same minimiser). Logistic ``log(1 + exp(-y z))`` and hinge ``max(0, 1 - y z)`` are the same
in both. DP-SCD needs the L2 penalty with ``lam > 0`` (the dual map ``theta = v / (lam N)``).

Algorithm. T mini-batches of L = ``batch_size`` records; per record the update minimising the
subproblem of eq. (7) (closed form for the squared and hinge losses, one Newton step for the
logistic loss: :func:`privcd.kernels.dp_scd.dual_coordinate_update`), scaled to ``|zeta| <= C``
with C = ``clip``, and Gaussian noise on ``alpha_B`` and on ``v`` after each mini-batch. ``step``
is not used: DP-SCD has no step size (dp-scd Section 1). One pass is N / L mini-batches.

Updates (option ``update_from``). Noise can push ``alpha_j`` out of the conjugate's domain (``y_j
alpha_j`` in [0, 1] for the hinge loss, [box, 1 - box] for the logistic loss), where eq. (7) is
infinite. privcd solves the subproblem from the noisy ``alpha_j`` itself (``"noisy"``): the update
``zeta_j = y_j t - alpha_j`` lands ``alpha_j + zeta_j`` back in the domain, erasing the noise the
record's dual carried, as far as the scaling to C lets it. The authors' code (``_delta_alpha`` of
``standaloneSVM.py`` and ``standaloneLR.py``: ``alpha_n = _enforce_alpha(alpha_n)`` first) solves it
from the projection of ``alpha_j`` onto the domain and adds that update to the noisy ``alpha_j``
(``"projected"``), so the noise stays. The squared loss has no domain: both are the same run. The
privacy is the same either way: the update is scaled to ``|zeta_j| <= C`` in both, which is all
Lemma 1 uses.

Sampling. Algorithm 1 line 5 draws "a mini-batch of L examples" at random each iteration; the
kernel draws L distinct records uniformly, independently at every iteration. (The authors' code
instead shuffles once per epoch and cuts disjoint lots, a scheme its moments accountant does not
describe; we do not follow it.)

Sensitivity. dp-scd Lemma 1 bounds the change of the release ``[alpha_B; v]`` of one mini-batch by
``sqrt(2) C`` for a record whose column is zeroed: C for its own update of ``alpha`` and C for its
``zeta_k x_k`` in ``v`` (``||x_k|| <= 1``), the other updates of the batch not depending on it.
Under replace-one neighbours the record's update can go from C to -C, so each part changes by up
to 2C and the sensitivity is ``2 sqrt(2) C`` (attained: flip the label of a record whose update
is saturated). Replace-one is dp-scd's own relation: its Definition 1 calls two datasets adjacent
when they "differ only in a single input-label pair", while Lemma 1's ``sqrt(2) C`` is the
sensitivity of zeroing a record, another relation (the authors' code adds that Lemma's noise, half
of ours at the same multiplier). The noise has standard deviation ``z * 2 sqrt(2) C`` (Algorithm 1's
``N(0, sigma^2 2 C^2)`` with our replace-one sensitivity), z calibrated numerically to
(epsilon, delta).

Privacy (option ``noise``). The state ``[alpha; v]`` after each mini-batch is the release (dp-scd
Section 3.1), and ``alpha`` feeds every later update, so an accounting must hold for the whole
sequence of states, not only for theta.

``noise="all-duals"`` (default)
    Noise on every dual coordinate at every step (the kernel does it lazily, at the same cost).
    A step's release is then ``[alpha; v] + [Delta alpha; Delta v] + N(0, s^2 I_{N+p})``, with
    ``[Delta alpha; Delta v] = sum_{k in B} zeta_k [e_k; x_k]`` a sum over the batch of one
    vector of norm ``<= sqrt(2) C`` per record, given the previous states: the sampled Gaussian
    mechanism of DP-SGD, batch hidden. The steps compose adaptively (each is a function of the data
    and the previous outputs), and the run is (epsilon, delta)-DP by the accounting of sampling
    without replacement (:mod:`privcd.privacy.replace_one_pld`, ``accountant="pld"``, default; or
    Wang, Balle and Kasiviswanathan 2019, Theorem 27, ``accountant="rdp"``).
``noise="batch-duals"``
    dp-scd Algorithm 1 as printed: noise on ``alpha_B`` only, so the state reveals B and there is
    no amplification by sampling. ``accountant="exact"`` (default for this noise) accounts the
    binomial mixture of Gaussian compositions of :mod:`privcd.privacy.revealed_batches`: sound,
    with about 10x the noise at L / N = 1%. ``accountant="paper"`` is dp-scd Theorem 1's accounting,
    amplification by sampling as though B were hidden (RDP of sampling without replacement):
    **not a proven guarantee** for this mechanism (an independent computation found the true
    epsilon up to 9.2x the target); kept, by name, for the reproduction of dp-scd only.

Rows. Lemma 1 needs ``||x_i|| <= 1`` (dp-scd Section 2.1). For rows bounded by a public R instead
(option ``row_norm_bound``, else the problem's own ``row_norm_bound``, else 1), the kernel solves
the same problem on ``x'_i = x_i / R`` with ``lam' = lam / R^2`` and returns ``theta = theta' / R``:
every margin is unchanged (``<x'_i, R theta> = <x_i, theta>``) and ``(lam' / 2) ||R theta||^2 =
(lam / 2) ||theta||^2``, so ``F'(R theta) = F(theta)`` term for term, whatever the loss, and the
objective, its optimum and the relative errors are those of the given problem. The privacy is that
of DP-SCD on the rows ``x'_i``, of norm <= 1, since neighbouring datasets stay neighbours after a
division by a constant; R must not depend on the data (a bound of the features' domain: dp-cd's
Electricity has 7 features in [0, 1] and the day in 1..7, so R = sqrt(56)). dp-cd Figures 1-2 draw
DP-SCD on Electricity without saying how its rows were bounded. Every row is checked against R,
with a relative tolerance of 1e-12 for the rounding of rows scaled to norm R.

Options
-------
batch_size : int
    L, between 1 and N (default 100).
box : float
    In (0, 0.5): the logistic Newton step keeps ``y_i alpha_i`` in [box, 1 - box] (default 1e-4,
    the authors' value). The dual optimum is reached only if every record's
    ``1 / (1 + exp(y_i <x_i, theta*>))`` is at least ``box``. Unused by the other losses.
update_from : {"noisy", "projected"}
    Where a record's update starts (see Updates): ``"noisy"`` (default), its noisy dual variable;
    ``"projected"``, that variable projected onto the conjugate's domain (dp-scd's code).
noise : {None, "all-duals", "batch-duals"}
    Where the dual noise goes (see Privacy); ``None`` (default): ``"batch-duals"`` for the
    accountants that read it (``"exact"``, ``"paper"``), ``"all-duals"`` otherwise. Without
    privacy (``epsilon = inf``) there is no noise and the two are the same run.
accountant : {None, "pld", "rdp", "pld-two-orders", "exact", "paper"}
    ``None`` (default): ``"pld"`` for ``noise="all-duals"``, ``"exact"`` for ``"batch-duals"``.
    ``"pld"``, ``"rdp"`` and ``"pld-two-orders"`` (for comparison only) need ``"all-duals"``; ``"exact"`` and ``"paper"`` need ``"batch-duals"``.
row_norm_bound : float or None
    A public bound R on the rows' L2 norms (see Rows); ``None`` (default): the problem's
    ``row_norm_bound``, else 1.
checkpoints : int or None
    Number of evenly spaced checkpoints in the history (default: one per pass).

A private release (no seed) keeps the duals and ``v`` as integers on grids and adds exact discrete
Gaussian integers, the duals' lazily summed (:func:`release_noise`, :mod:`privcd.privacy.grid_dual`),
accounted by the RDP of Wang, Balle and Kasiviswanathan within the calibrated epsilon: more noise
than the PLD of an experiment, none of it floating point. ``noise="batch-duals"`` and SEQDP-SCD are
refused there.
"""
import dataclasses
import math

import numba
import numpy as np

from privcd import privacy
from privcd.algorithms.base import Plan, check_checkpoints, checkpoints_for, iterations_for, kernel_key, kernel_rng
from privcd.algorithms.kernel_clock import launch
from privcd.kernels.dp_scd import dp_scd
from privcd.kernels.dp_scd_grid import dp_scd_on_grid
from privcd.kernels.layout import row_arrays
from privcd.kernels.spectral import row_sq_norms
from privcd.kernels.streams import check_span
from privcd.randomness import ReleaseSeed
from privcd.validation import check_choice, check_number, check_positive, check_positive_int, read_only

NAME = "dp-scd"
DISPLAY = "DP-SCD"  # its name in figures and tables
OPTIONS = {"batch_size": 100, "box": 1e-4, "update_from": "noisy", "noise": None, "accountant": None,
           "row_norm_bound": None, "checkpoints": None}
JOINT_RELEASE = True
NOISE_KEY = ("noise_std", 1)  # plan.kernel entry the noise is proportional to
TUNING_ACCOUNTANT = "rdp"  # noise on every dual: sampled Gaussians, Wang-Balle-Kasiviswanathan's RDP
ESTIMATOR_CLIP = 1.0  # the estimators' clip: a dual update is at most 1 for the logistic and hinge losses
THEORY_PASSES = False  # DP-CD's convex rate is not its rate: the estimators' default is NONSMOOTH_PASSES
SMOOTHNESS_FROM_PROBLEM = None  # the dual method steps with the row norm bound 1, not M or beta
LOSSES = ("squared", "logistic", "hinge")
SAMPLING = "without-replacement"
# The accountants of each noise placement, the default first.
ACCOUNTANTS = {"all-duals": ("pld", "rdp", "pld-two-orders"), "batch-duals": ("exact", "paper")}
UPDATE_FROM = ("noisy", "projected")
ROW_NORM_TOLERANCE = 1e-12


def sensitivity(clip, batch_size):
    """Replace-one L2 sensitivity of one mini-batch release ``[alpha_B; v]``: ``2 sqrt(2) C``."""
    return 2.0 * math.sqrt(2.0) * clip


def check_options(options):
    """The checks of the options that need no data (as :func:`privcd.algorithms.dp_cd.check_options`);
    SEQDP-SCD shares them."""
    check_positive_int("batch_size", options["batch_size"])
    check_number("box", options["box"], low=0.0, high=0.5)
    check_choice("update_from", options["update_from"], UPDATE_FROM)
    noise_and_accountant(options)
    if options["row_norm_bound"] is not None:
        check_positive("row_norm_bound", options["row_norm_bound"])
    check_checkpoints(options)


def iterations_per_pass(problem, options):
    """N / L mini-batches make one pass."""
    return problem.n_samples / batch_size_of(problem, options)


def plan(problem, settings, options):
    """Check the problem, calibrate the noise and build the kernel arguments (module docstring)."""
    return dual_plan(problem, settings, options, sensitivity=sensitivity, sequential=False)


def run(problem, plan, seed):
    """Run the :func:`privcd.kernels.dp_scd.dp_scd` kernel from ``alpha = 0, v = 0``; ``w = theta``."""
    return run_dual(problem, plan, seed)


def dual_plan(problem, settings, options, *, sensitivity, sequential):
    """The plan shared by DP-SCD and SEQDP-SCD; they differ by ``sensitivity`` and ``sequential``."""
    bound = row_norm_bound_of(problem, options)
    check_dual_problem(problem, bound)
    batch_size = batch_size_of(problem, options)
    box = check_number("box", options["box"], low=0.0, high=0.5)
    update_from = check_choice("update_from", options["update_from"], UPDATE_FROM)
    noise, accountant = noise_and_accountant(options)
    per_pass = problem.n_samples / batch_size
    n_iterations = iterations_for(settings.passes, per_pass)
    calibration = privacy.calibrate(mechanism(noise, accountant, n_iterations, batch_size, problem.n_samples),
                                    epsilon=settings.epsilon, delta=settings.delta,
                                    accountant="rdp" if accountant == "paper" else accountant,
                                    store=settings.calibrations)
    if accountant == "paper":
        calibration = dataclasses.replace(calibration, accountant="paper")
    release_sensitivity = sensitivity(settings.clip, batch_size)
    noise_std = calibration.noise_multiplier * release_sensitivity if settings.private else 0.0
    return Plan(
        n_iterations=n_iterations,
        iterations_per_pass=per_pass,
        checkpoints=checkpoints_for(options, settings.passes, n_iterations),
        calibration=calibration,
        kernel=dict(clip=settings.clip, noise_std=noise_std, batch_size=batch_size,
                    subproblem_scale=1.0 if sequential else float(batch_size),
                    sequential=sequential, box=box, from_projected=update_from == "projected", row_scale=1.0 / bound,
                    hidden_batch=noise == "all-duals" and settings.private),
        info={"noise_std": noise_std, "sensitivity": release_sensitivity, "sampling": SAMPLING, "noise": noise},
    )


def run_dual(problem, plan, seed):
    """Call the kernel; return ``theta = v / (lam N)`` and its snapshots. A private release (``seed`` a
    :class:`~privcd.randomness.ReleaseSeed`) runs :func:`privcd.kernels.dp_scd_grid.dp_scd_on_grid`
    with :func:`release_noise` instead and returns its ``grid_noise`` and ``noise_std`` too."""
    if isinstance(seed, ReleaseSeed) and plan.kernel["noise_std"] > 0:
        return run_on_grid(problem, plan, seed)
    theta, snapshots, _, _ = run_kernel(problem, plan, seed)
    return theta, snapshots


def release_noise(problem, plan):
    """The :class:`~privcd.privacy.grid_dual.DualGridNoise` of a private release: duals and ``v`` on
    grids with discrete Gaussian noise on every dual, accounted by RDP within the run's calibrated
    epsilon (:mod:`privcd.privacy.grid_dual`). Refused, naming the alternatives, for SEQDP-SCD's
    sequential updates and for noise on the batch's duals only, which that argument does not cover."""
    from privcd.privacy.grid_dual import dual_grid_noise

    k = plan.kernel
    if k["sequential"] or not k["hidden_batch"]:
        what = "sequential updates (SEQDP-SCD)" if k["sequential"] else f"noise={plan.info['noise']!r}"
        raise ValueError(
            f"a private release (no seed) with {what} would add floating-point Gaussian noise, which is not private "
            "as IEEE floats (Mironov 2012), and privcd has no sound accounting of its grid noise; use dp-scd with "
            "noise='all-duals' (the default), or give a seed to run an experiment")
    return dual_grid_noise(plan.n_iterations, batch_size=k["batch_size"], n=problem.n_samples,
                           n_features=problem.n_features, row_tolerance=ROW_NORM_TOLERANCE,
                           epsilon=plan.calibration.epsilon, delta=plan.calibration.delta)


def run_on_grid(problem, plan, seed):
    """The release kernel on the rows divided by R (module docstring, Rows): grids ``h = 2 C / K`` for the
    duals and for ``v``, batches from the stream :func:`kernel_key` ``(seed)``, integers from
    :func:`kernel_rng` ``(seed)``."""
    k = plan.kernel
    noise = release_noise(problem, plan)
    scale = k["row_scale"]
    check_span("n_samples", problem.n_samples)
    rows = scaled_rows(row_arrays(problem), scale)
    dual_spacing = 2.0 * k["clip"] / noise.dual_ratio
    shared_spacing = 2.0 * k["clip"] / noise.shared_ratio
    theta, snapshots = launch(
        dp_scd_on_grid, *rows, problem.n_features, problem.y, launch(row_sq_norms, *rows, problem.n_samples),
        problem.loss.code, problem.lam * scale**2, k["clip"], k["batch_size"], k["subproblem_scale"], k["box"],
        k["from_projected"], dual_spacing, noise.dual_sigma_units, shared_spacing, noise.shared_sigma_units,
        plan.n_iterations, plan.checkpoints, kernel_key(seed), kernel_rng(seed))
    if scale != 1.0:
        theta, snapshots = theta * scale, snapshots * scale
    return theta, snapshots, {"grid_noise": dataclasses.asdict(noise), "grid_spacing": shared_spacing,
                              "noise_std": shared_spacing * noise.shared_sigma_units}


def run_kernel(problem, plan, seed):
    """The kernel's full output ``(theta, snapshots, alpha, v)``, on the stream :func:`kernel_key` ``(seed)``,
    for the rows divided by R (module docstring, Rows), ``theta`` and its snapshots mapped back."""
    k = plan.kernel
    scale = k["row_scale"]
    check_span("n_samples", problem.n_samples)
    rows = scaled_rows(row_arrays(problem), scale)
    numba.get_num_threads()  # starts numba's threading layer, which the kernel's wide normal fills need
    theta, snapshots, alpha, v = launch(
        dp_scd, *rows, problem.n_features, problem.y, launch(row_sq_norms, *rows, problem.n_samples),
        problem.loss.code, problem.lam * scale**2, k["clip"], k["noise_std"], k["batch_size"],
        k["subproblem_scale"], k["sequential"], k["box"], k["from_projected"], k["hidden_batch"], plan.n_iterations,
        plan.checkpoints,
        kernel_key(seed))
    if scale != 1.0:
        theta, snapshots = theta * scale, snapshots * scale
    return theta, snapshots, alpha, v


def scaled_rows(rows, scale):
    """The row arrays of :func:`privcd.kernels.layout.row_arrays` with every value times ``scale``
    (the same arrays when ``scale`` is 1)."""
    if scale == 1.0:
        return rows
    is_sparse, dense, data, indices, indptr = rows
    if is_sparse:
        return is_sparse, dense, read_only(data * scale), indices, indptr
    return is_sparse, read_only(dense * scale), data, indices, indptr


def noise_and_accountant(options):
    """``(noise, accountant)`` checked, the accountant defaulted by the noise (module docstring)."""
    accountant = options["accountant"]
    noise = options["noise"]
    if noise is None:
        noise = "batch-duals" if accountant in ACCOUNTANTS["batch-duals"] else "all-duals"
    noise = check_choice("noise", noise, sorted(ACCOUNTANTS))
    if accountant is None:
        return noise, ACCOUNTANTS[noise][0]
    check_choice("accountant", accountant, [name for names in ACCOUNTANTS.values() for name in names])
    if accountant not in ACCOUNTANTS[noise]:
        raise ValueError(f"accountant={accountant!r} does not account noise={noise!r}: with that noise "
                         f"the accountants are {list(ACCOUNTANTS[noise])}; accountant={accountant!r} "
                         f"needs noise={next(k for k, v in ACCOUNTANTS.items() if accountant in v)!r}")
    return noise, accountant


def mechanism(noise, accountant, steps, batch_size, n):
    """The mechanism family the run is calibrated for: batch hidden (``"all-duals"``) or taken as
    hidden (``"paper"``), a sampled Gaussian; batch revealed, a binomial mixture."""
    if noise == "batch-duals" and accountant == "exact":
        return privacy.RevealedBatchGaussian(steps, batch_size, n)
    return privacy.SubsampledGaussian(steps, batch_size, n, SAMPLING)


def row_norm_bound_of(problem, options):
    """R: option ``row_norm_bound``, else the problem's ``row_norm_bound``, else 1 (module docstring, Rows)."""
    bound = options["row_norm_bound"]
    if bound is None:
        return problem.row_norm_bound if problem.row_norm_bound is not None else 1.0
    return check_positive("row_norm_bound", bound)


def check_dual_problem(problem, bound=1.0):
    """The loss has a dual update, the penalty is L2 with ``lam > 0`` and rows have norm <= ``bound``."""
    if problem.loss.name not in LOSSES:
        raise ValueError(f"loss={problem.loss.name!r} has no dual coordinate update in dp-scd; "
                         f"expected one of {list(LOSSES)}")
    if problem.penalty.name != "l2" or problem.lam <= 0:
        raise ValueError(f"penalty={problem.penalty.name!r} with lam={problem.lam!r}: dp-scd solves the "
                         "L2-regularised problem of dp-scd eq. (1) through its dual, which needs "
                         "penalty='l2' and lam > 0")
    largest = float(problem.row_norms.max())
    if largest > bound * (1.0 + ROW_NORM_TOLERANCE):
        row = int(np.argmax(problem.row_norms))
        raise ValueError(f"X has a row of L2 norm {largest:.15g} (row {row}); dp-scd assumes every row has "
                         f"norm <= {bound!r} (row_norm_bound; dp-scd Section 2.1, used by its sensitivity, "
                         "Lemma 1). Give a public bound on the rows' norms (option row_norm_bound, or "
                         "Problem(..., row_norm_bound=R)), or scale the rows to unit norm first: "
                         "preprocessing='dp-scd' in privcd.data.load_dataset, or sklearn.preprocessing.normalize(X)")


def batch_size_of(problem, options):
    """``batch_size`` checked: an integer in [1, N]."""
    batch_size = check_positive_int("batch_size", options["batch_size"])
    if batch_size > problem.n_samples:
        raise ValueError(f"batch_size={batch_size} exceeds the number of records n={problem.n_samples}")
    return batch_size


def estimator_options(n_samples, row_norm):
    """The options privcd's estimators run it with (:mod:`privcd.estimators.base`): the public row
    bound, and mini-batches of dp-scd Section 5's 100 records (at most n)."""
    return {"row_norm_bound": row_norm, "batch_size": min(OPTIONS["batch_size"], n_samples)}
