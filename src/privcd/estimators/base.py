"""What every privcd estimator shares: parameters, public bounds, the budget, one privcd run per output.

An estimator fits ``F(w) = (1/n) sum_i l(<w, x_i>, y_i) + psi(w)`` with privcd's loss ``l`` and
penalty ``psi`` (:class:`privcd.Problem`) by one private algorithm (:func:`privcd.fit`), on the
records clipped to the public bounds (:mod:`privcd.estimators.bounds`), whose smoothness constants
then come from those bounds (``Problem(feature_bound=B, row_norm_bound=R)``) and not from X.
The (epsilon, delta) guarantee covers everything ``fit`` does with X and y, under replace-one
neighbours (n is public), except what a :class:`~privcd.estimators.bounds.PrivacyLeakWarning`
names (bounds or a label set read from the data), and only with ``random_state=None``: a fit
then draws its noise from secret OS entropy (:mod:`privcd.randomness`), where a given
``random_state`` makes a reproducible experiment whose noise anyone with the seed can replay.

Defaults (data-independent, from the theory and the public bounds):

* ``step = 1``: dp-cd's gamma_j = 1 / M_j (Theorem 3.3), DP-SGD's 1 / beta;
* ``clip = None``: the largest possible gradient norm of one record, ``G R'`` (``G`` the loss's
  bound on ``|l'|``: 1 for the logistic and hinge losses; 2 for privcd's squared loss
  ``(z - y)^2``, i.e. residuals up to 1 unclipped), so that no record is clipped in the worst
  case; DP-SGD's per-record clip is the largest gradient norm at the start ``w = 0``, ``G_0 R'``
  (``LossSpec.start_gradient_bound``: 1/2 for the logistic loss, ``G`` for the others), so that
  no record is clipped at the start; DP-SCD's dual updates are bounded by 1 for the logistic and
  hinge losses, so its default is 1; DP-SGD on the hinge loss steps with the raw learning rate
  ``step``;
* ``passes = None``: DP-CD's convex rule from n, p, epsilon and delta
  (:func:`privcd.estimators.defaults.theory_passes`), for every primal algorithm on a smooth
  loss; 10 for the hinge loss and for DP-SCD;
* DP-CD runs as DP-CD-P (dp-cd Section 5.2): a tenth of epsilon estimates the coordinate-wise
  smoothness constants within the public bounds, where the bounds alone would give constants up
  to p times too large (and steps as much too small); ``options={"smoothness": "public"}`` uses
  the bounds' constants;
* ``delta = None``: ``1 / n^2``, below the ``1 / n`` at which a mechanism may publish a record;
* ``fit_intercept = True``: the intercept is a constant feature ``intercept_scaling`` (penalised,
  as in liblinear), so nothing is centred on the data.

Tuning any of these by ``GridSearchCV`` or ``cross_val_score`` on the private data spends the
budget once per candidate and fold: the model selected is not (epsilon, delta)-DP. Tune on public
data, or use ``tune=`` (:func:`privcd.tune_private`, every algorithm), which counts the tuning's privacy.
"""
import math
import numbers

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from privcd.algorithms import get_algorithm
from privcd.estimators.bounds import PublicBounds, apply_public_bounds, with_intercept
from privcd.estimators.defaults import NONSMOOTH_PASSES, theory_passes
from privcd.fit import fit
from privcd.losses import get_loss
from privcd.privacy.joint import JointRelease
from privcd.problem import Problem

SEED_RANGE = 2**31 - 1


# scikit-learn's estimator checks that a private fit cannot pass at the default epsilon = 1, each with
# its reason (tests/test_estimators.py runs them at epsilon = inf, where they pass).
CHECKS_CONTRADICTING_DP = {
    "check_classifiers_train": "asserts training accuracy > 0.83 on a few hundred records; at epsilon = 1 the "
                               "noise a private fit needs on so few records is of the order of the signal",
    "check_regressors_train": "asserts R^2 > 0.5 on 200 records; at epsilon = 1 the noise a private fit needs on "
                              "so few records is of the order of the signal",
    "check_class_weight_classifiers": "asserts that class weights 1000 : 0.0001 make 87% of 50 test records class 0; "
                                      "at epsilon = 1 the noise a private fit of 50 records needs is of the order "
                                      "of the signal",
}
# Checks that a private fit cannot pass at any epsilon, by design (tests/test_estimators.py checks
# that each fails with privcd's clear error).
WEIGHTS_ABOVE_ONE = ("weights above 1 (duplicated records) multiply a record's sensitivity: privcd's estimators take "
                     "sample_weight in [0, 1] and name the bad values")
CHECKS_BY_DESIGN = {
    "check_sample_weights_list": WEIGHTS_ABOVE_ONE,
    "check_sample_weights_not_overwritten": WEIGHTS_ABOVE_ONE,
    "check_sample_weight_equivalence_on_dense_data": WEIGHTS_ABOVE_ONE,
    "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_ABOVE_ONE,
}


def expected_failed_checks(estimator):
    """The checks of :data:`CHECKS_CONTRADICTING_DP` the estimator's defaults do not pass anyway
    (its ``CHECKS_PASSED_PRIVATELY``), and :data:`CHECKS_BY_DESIGN` (for ``parametrize_with_checks``)."""
    passed = getattr(estimator, "CHECKS_PASSED_PRIVATELY", ())
    return {**{name: reason for name, reason in CHECKS_CONTRADICTING_DP.items() if name not in passed},
            **CHECKS_BY_DESIGN}


def achieved_epsilon(runs, *, joint):
    """The epsilon of all the runs together: a joint release's runs each report the epsilon of all
    their optimisations (plus, DP-CD-P, the one release of their constants); split runs add up."""
    if not joint or len(runs) == 1:
        return float(sum(run.epsilon for run in runs))
    return float(runs[0].epsilon)


class DPLinearModel(BaseEstimator):
    """The shared parameters and fit of privcd's estimators (see the module docstring).

    Subclasses set ``LOSS``, ``PENALTY``, ``ALGORITHMS``, ``CHECKS_PASSED_PRIVATELY`` and ``LAM_PER_ALPHA``
    (privcd's ``lam`` for ``alpha = 1``: 2 for the squared loss, whose privcd form ``(z - y)^2`` is
    twice scikit-learn's ``(z - y)^2 / 2``).
    """

    LOSS: str
    PENALTY: str
    ALGORITHMS: tuple
    LAM_PER_ALPHA = 1.0
    CHECKS_PASSED_PRIVATELY = ()  # checks of CHECKS_CONTRADICTING_DP its defaults pass at epsilon = 1 all the same

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, algorithm="dp-cd", passes=None,
                 step=1.0, clip=None, alpha=0.0, fit_intercept=True, intercept_scaling=1.0, options=None,
                 tune=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.bounds = bounds
        self.algorithm = algorithm
        self.passes = passes
        self.step = step
        self.clip = clip
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.options = options
        self.tune = tune
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_params_(self):
        if self.algorithm not in self.ALGORITHMS:
            raise ValueError(f"algorithm={self.algorithm!r}: {type(self).__name__} runs one of {list(self.ALGORITHMS)}")
        # name -> (test of a given number, what is expected, whether None selects a default)
        numbers_expected = {
            "epsilon": (lambda v: v > 0, "a number > 0", False),
            "step": (lambda v: v > 0, "a number > 0", False),
            "intercept_scaling": (lambda v: v > 0, "a number > 0", False),
            "alpha": (lambda v: v >= 0, "a number >= 0", False),
            "passes": (lambda v: v > 0, "a number > 0, or None for the default", True),
            "clip": (lambda v: v > 0, "a number > 0, or None for the default", True),
            "delta": (lambda v: 0 < v < 1, "a number in (0, 1), or None for 1 / n^2", True),
        }
        for name, (holds, expected, has_default) in numbers_expected.items():
            value = getattr(self, name)
            if value is None and has_default:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not holds(value):
                raise ValueError(f"{name}={value!r}: expected {expected}")
        if self.options is not None and not isinstance(self.options, dict):
            raise ValueError(f"options={self.options!r}: expected a dict of the algorithm's options, or None")
        if self.tune is not None and (not isinstance(self.tune, dict) or not self.tune
                                      or not set(self.tune) <= {"passes", "step", "clip"}):
            raise ValueError(f"tune={self.tune!r}: expected None or a dict from some of 'passes', 'step' and 'clip' "
                             "to the values private tuning chooses among")

    def _prepare_X(self, X, *, reset):
        """Validated X (scikit-learn's checks: finite, 2-D, real, the fitted width when not ``reset``)."""
        return validate_data(self, X, reset=reset, accept_sparse=("csr", "csc"), dtype=np.float64)

    def _bounded(self, X):
        """X clipped to the public bounds, with the intercept column, and the bounds."""
        X, bounds = apply_public_bounds(X, bounds=self.bounds, data_norm=self.data_norm, owner=type(self).__name__)
        if self.fit_intercept:
            X, bounds = with_intercept(X, bounds, float(self.intercept_scaling))
        return X, bounds

    def _default_clip(self, bounds: PublicBounds):
        """``clip``, or the algorithm's ``ESTIMATOR_CLIP``: a number, or R times the loss's bound on
        ``|l'|`` everywhere (``"worst-case"``) or at ``w = 0`` (``"start"``)."""
        if self.clip is not None:
            return float(self.clip)
        module_clip = get_algorithm(self.algorithm).ESTIMATOR_CLIP
        if module_clip == "worst-case":
            return get_loss(self.LOSS).gradient_bound * bounds.row_norm
        if module_clip == "start":
            return get_loss(self.LOSS).start_gradient_bound * bounds.row_norm
        return float(module_clip)

    def _options(self, n_samples, bounds):
        """The algorithm's options: the user's, over one checkpoint and the module's
        ``estimator_options`` (DP-CD-P for DP-CD, the default batches, DP-SCD's public row bound)."""
        options = {"checkpoints": 1,  # the final model only: no objective evaluated along the way
                   **get_algorithm(self.algorithm).estimator_options(n_samples, bounds.row_norm)}
        return {**options, **(self.options or {})}

    def _passes(self, n_samples, n_features, epsilon, delta):
        if self.passes is not None:
            return float(self.passes)
        if not math.isfinite(get_loss(self.LOSS).curvature) or not get_algorithm(self.algorithm).THEORY_PASSES:
            return NONSMOOTH_PASSES
        return theory_passes(n_samples, n_features, epsilon, delta, curvature=get_loss(self.LOSS).curvature,
                             gradient_bound=get_loss(self.LOSS).gradient_bound)

    def _fit_outputs(self, X, targets, *, weights=None, alpha=None, loss=None):
        """One private run per column of ``targets`` (labels in {-1, 1} or real values) under one budget.

        Sets ``coef_`` (outputs x features), ``intercept_``, ``epsilon_``, ``delta_``, ``passes_``
        and ``accountant_``. ``weights`` (the squared loss only: :class:`~privcd.estimators.
        regressors.DPRegressor`) scale each record's row and targets by ``sqrt(s_i)`` after the
        public bounds; ``alpha`` replaces ``self.alpha`` (a regressor's, rescaled with its targets);
        ``loss`` replaces ``LOSS`` (a classifier's weighted variant, whose targets carry the weights).
        Several outputs are one joint release when the algorithm calibrates through :class:`~privcd.privacy.joint.JointRelease` (its module's ``JOINT_RELEASE``; DP-CD-P's
        private constants, which do not depend on the labels, released once for all the runs);
        otherwise each gets (epsilon / k, delta / k) (basic composition, Dwork and Roth 2014,
        Theorem 3.16).
        """
        self._validate_params_()
        n_samples, n_features = X.shape
        if n_samples < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 records; got n_samples={n_samples} (one record "
                             "cannot be fitted privately)")
        n_outputs = targets.shape[1]
        delta = 1.0 / n_samples**2 if self.delta is None else float(self.delta)
        X, bounds = self._bounded(X)
        if weights is not None:
            root = np.sqrt(weights)
            X = scipy.sparse.diags(root) @ X if scipy.sparse.issparse(X) else X * root[:, None]
            targets = targets * root[:, None]
        alpha = float(self.alpha) if alpha is None else alpha
        options = self._options(n_samples, bounds)
        joint = (n_outputs > 1 and get_algorithm(self.algorithm).JOINT_RELEASE and math.isfinite(self.epsilon)
                 and self.tune is None)
        if not joint:
            epsilon, run_delta = self.epsilon / n_outputs, delta / n_outputs
        else:
            epsilon, run_delta = self.epsilon, delta
        release = JointRelease(n_outputs) if joint else None
        # One of k jointly released Gaussian runs is about one run at epsilon / sqrt(k).
        passes = self._passes(n_samples, X.shape[1], self.epsilon / math.sqrt(n_outputs), delta)
        runs = []
        for column, seed in zip(targets.T, self._seeds(n_outputs)):
            problem = Problem(X, column, loss or self.LOSS, self.PENALTY, self.LAM_PER_ALPHA * alpha,
                              feature_bound=bounds.feature, row_norm_bound=bounds.row_norm)
            if self.tune is not None:
                run = self._tuned_run(problem, epsilon, run_delta, seed, options,
                                      dict(passes=passes, step=self.step, clip=self._default_clip(bounds)))
            else:
                run = fit(problem, self.algorithm, epsilon=epsilon, delta=run_delta, passes=passes, step=self.step,
                          clip=self._default_clip(bounds), seed=seed, calibrations=release, **options)
            if not np.all(np.isfinite(run.w)):
                raise ValueError(f"{type(self).__name__}: the private run diverged (non-finite weights); lower "
                                 f"step={self.step!r} or passes={self.passes!r}")
            runs.append(run)
        if joint and release.consulted != n_outputs:
            raise RuntimeError(f"{self.algorithm} did not calibrate through the joint release ({release.consulted} "
                               f"of {n_outputs} runs): its budget would not be accounted")
        weights = np.array([run.w for run in runs])
        self.coef_ = weights[:, :n_features]
        self.intercept_ = (weights[:, n_features] * float(self.intercept_scaling) if self.fit_intercept
                           else np.zeros(n_outputs))
        self.epsilon_ = achieved_epsilon(runs, joint=joint)
        self.delta_ = delta
        self.passes_ = passes
        self.accountant_ = runs[0].accountant
        if self.tune is not None:  # the selected configurations, covered by the selection's guarantee
            self.best_params_ = [{key: run.settings[key] for key in ("passes", "step", "clip")} for run in runs]
            self.passes_ = [params["passes"] for params in self.best_params_]
        return self

    def _tuned_run(self, problem, epsilon, delta, seed, options, fixed):
        """:func:`privcd.tune_private` of ``problem`` over ``tune``'s grid (the other hyperparameters at
        ``fixed``) under (epsilon, delta), the tuning counted (Papernot and Steinke 2022, Theorem 2).
        Public smoothness constants: the candidates' training is accounted as one mechanism each, and
        DP-CD-P's private constants are a release of their own."""
        from privcd.tuning.private import tune_private  # imports dp-accounting: only when tuning

        grid = {key: np.atleast_1d(self.tune.get(key, value)).tolist() for key, value in fixed.items()}
        options = {key: value for key, value in options.items() if key != "smoothness"}
        return tune_private(problem, self.algorithm, grid, epsilon=epsilon, delta=delta, seed=seed, **options)

    def _seeds(self, n_outputs):
        """One seed per run: ``None`` for ``random_state=None`` (releases: each run's generators seeded
        by secret OS entropy, never by numpy's global state; :mod:`privcd.randomness`), otherwise
        integers drawn from ``random_state`` (a reproducible experiment, not a private release)."""
        if self.random_state is None:
            return [None] * n_outputs
        return [int(seed) for seed in check_random_state(self.random_state).randint(0, SEED_RANGE, size=n_outputs)]

    def _linear(self, X):
        check_is_fitted(self, "coef_")
        X = self._prepare_X(X, reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_


def check_sample_weight(sample_weight, n_samples):
    """``sample_weight`` as a float array of shape (n,) with entries in [0, 1], or None."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight has shape {weights.shape}; expected one weight per record, ({n_samples},)")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or np.any(weights > 1):
        raise ValueError(f"sample_weight: expected weights in [0, 1] (a record's weight scales its contribution, so "
                         f"the sensitivity holds); got values in [{float(weights.min())!r}, {float(weights.max())!r}]. "
                         "Divide by a public bound on the weights")
    if not np.any(weights > 0):
        raise ValueError("sample_weight: every weight is zero, so no record counts; expected weights in [0, 1], "
                         "some positive")
    return weights
