"""Private linear regression: least squares with an L2 (ridge) or L1 (Lasso) penalty."""
import numbers
import warnings

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import validate_data

from privcd.estimators.base import DPLinearModel, check_sample_weight
from privcd.estimators.bounds import PrivacyLeakWarning


class DPRegressor(RegressorMixin, DPLinearModel):
    """Real targets, one model. The objective is scikit-learn's
    ``(1/(2n)) sum_i s_i (y_i - <w, x_i> - b)^2 + alpha psi(w)`` (``s_i`` the sample weights, 1
    by default), privcd's with ``lam = 2 alpha`` (privcd's squared loss ``(z - y)^2`` is twice
    scikit-learn's ``(z - y)^2 / 2``).

    Targets. ``y_bound = B``, a public bound on ``|y|``: y is clipped to ``[-B, B]`` and the model
    fitted to ``y / B`` (whose residuals the default ``clip`` leaves unclipped up to 1), then
    scaled back: ``coef_ = B w'``, with ``alpha`` passed on as ``alpha`` for the ridge and
    ``alpha / B`` for the Lasso, so the minimiser is scikit-learn's for the same ``alpha``.
    ``y_bound=None`` reads ``B = max |y_i|`` from y, which the guarantee does not cover: a
    :class:`~privcd.estimators.bounds.PrivacyLeakWarning` says so.

    Sample weights ``s_i`` in [0, 1]: ``s_i (y_i - <w, x_i> - b)^2 = (sqrt(s_i) y_i - <w, sqrt(s_i)
    x_i> - b sqrt(s_i))^2``, so the fit runs on the records scaled by ``sqrt(s_i)`` (after the
    public bounds and the intercept column), exactly the weighted objective. A record's scaled row
    and target stay within the public bounds (containing 0), so every sensitivity holds, and n
    counts every record.
    """

    LOSS = "squared"
    LAM_PER_ALPHA = 2.0
    PENALTY_DEGREE = 2  # psi(B w) = B^psi_degree psi(w): ridge 2, Lasso 1

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, y_bound=None, algorithm="dp-cd",
                 passes=None, step=1.0, clip=None, alpha=1e-3, fit_intercept=True, intercept_scaling=1.0, options=None,
                 tune=None, random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, algorithm=algorithm,
                         passes=passes, step=step, clip=clip, alpha=alpha, fit_intercept=fit_intercept,
                         intercept_scaling=intercept_scaling, options=options, tune=tune,
                         random_state=random_state)
        self.y_bound = y_bound

    def fit(self, X, y, sample_weight=None):
        """Fit under (epsilon, delta)-DP: ``epsilon_`` and ``delta_`` hold what the fit achieved.
        ``sample_weight``: None (all 1) or one weight in [0, 1] per record (class docstring)."""
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, y_numeric=True)
        weights = check_sample_weight(sample_weight, X.shape[0])
        scale = self._target_scale(y)
        targets = self._scaled_targets(np.asarray(y, dtype=np.float64), scale)
        self._fit_outputs(X, targets[:, None], weights=weights,
                          alpha=float(self.alpha) / scale ** (2 - self.PENALTY_DEGREE))
        self.coef_, self.intercept_ = self.coef_[0] * scale, float(self.intercept_[0]) * scale
        return self

    def _scaled_targets(self, y, scale):
        """``clip(y, -B, B) / B``: the targets in a unit range."""
        return np.clip(y, -scale, scale) / scale

    def _target_scale(self, y):
        """``B``: the public ``y_bound``, or ``max |y|`` read from y with a warning (class docstring)."""
        if self.y_bound is not None:
            if isinstance(self.y_bound, bool) or not isinstance(self.y_bound, numbers.Real) \
                    or not np.isfinite(self.y_bound) or self.y_bound <= 0:
                raise ValueError(f"y_bound={self.y_bound!r}: expected a positive finite number, a public bound on "
                                 "|y|, or None to read it from y")
            return float(self.y_bound)
        warnings.warn(f"{type(self).__name__}: y_bound=None, so the targets' scale max |y| is read from y; it sets "
                      "the model's scale and is not covered by the (epsilon, delta) guarantee. Pass a public bound "
                      "on |y|, e.g. y_bound=1000 from the target's documented range", PrivacyLeakWarning,
                      stacklevel=3)
        largest = float(np.max(np.abs(y))) if len(y) else 0.0
        return largest if largest > 0 else 1.0

    def predict(self, X):
        return self._linear(X)


class DPLinearRegression(DPRegressor):
    """Ridge regression under (epsilon, delta)-DP; default DP-CD; ``alpha=0`` is least squares.

    The default ``alpha = 1e-3`` (for rows of norm about 1) is not scikit-learn's ``LinearRegression``
    (no penalty): the noise of a private fit can accumulate along the flat directions of collinear
    features, more with every pass. On california, with the targets going in raw, least squares
    reached a test R^2 of 0.48 at epsilon = 0.5 but -0.06 at epsilon = 5 (200 passes), the ridge
    0.47 at both; with the targets scaled by their bound (``y_bound``), least squares kept 0.535
    at epsilon = 5 and the ridge 0.50 (tests/test_estimators.py).

    The features need public bounds (``bounds`` / ``data_norm``), and the targets a public bound
    ``y_bound`` on ``|y|`` (as diffprivlib's ``bounds_y``), by which they are scaled to a unit
    range (:class:`DPRegressor`); ``fit`` takes ``sample_weight`` in [0, 1]. Parameters and
    attributes as :class:`privcd.estimators.DPLogisticRegression` (``coef_`` of shape (p,),
    ``intercept_`` a float). ``GridSearchCV`` on the private data spends the budget once per
    candidate and fold: tune on public data, or privately with ``tune=`` (as
    :class:`~privcd.estimators.DPLogisticRegression`).
    """

    PENALTY = "l2"
    ALGORITHMS = ("dp-cd", "dp-sgd", "dp-skgd", "dp-gcd", "dp-scd")


class DPLasso(DPRegressor):
    """The Lasso, ``(1/(2n)) ||y - Xw - b||^2 + alpha ||(w, b / s)||_1``, under (epsilon, delta)-DP;
    default DP-CD (proximal, dp-cd Algorithm 1); DP-GCD (dp-gcd Algorithm 1) suits sparse models
    in high dimension. As :class:`DPLinearRegression` otherwise (``GridSearchCV`` included);
    ``alpha`` as scikit-learn's Lasso."""

    PENALTY = "l1"
    PENALTY_DEGREE = 1
    ALGORITHMS = ("dp-cd", "dp-gcd", "dp-sgd", "dp-skgd")

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, y_bound=None, algorithm="dp-cd",
                 passes=None, step=1.0, clip=None, alpha=1.0, fit_intercept=True, intercept_scaling=1.0, options=None,
                 tune=None, random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, y_bound=y_bound,
                         algorithm=algorithm, passes=passes, step=step, clip=clip, alpha=alpha,
                         fit_intercept=fit_intercept, intercept_scaling=intercept_scaling, options=options, tune=tune,
                         random_state=random_state)


class DPHuberRegressor(DPRegressor):
    """Robust regression with the Huber loss, under (epsilon, delta)-DP; default DP-CD.

    The objective is ``(1/(2n)) sum_i H(y_i - <w, x_i> - b) + alpha ||w||^2`` with
    ``H(r) = r^2`` for ``|r| <= threshold`` and ``2 threshold |r| - threshold^2`` beyond: least
    squares (scikit-learn's) for residuals within ``threshold``, a linear pull beyond, so outliers in
    y move the model little. ``threshold`` is public and in the units of y (scikit-learn's
    ``HuberRegressor`` instead scales it by a residual scale it estimates from the data, which a
    private fit would have to pay for).

    No bound on y is needed: the loss's derivative lies in ``[-2 threshold, 2 threshold]`` whatever
    the target, so a record's gradient is bounded by the public bounds on X alone
    (:mod:`privcd.losses.huber`), and y is never clipped. The fit runs on ``y / threshold``, privcd's
    Huber loss of threshold 1 (``H(r) = threshold^2 h(r / threshold)``), and scales back:
    ``coef_ = threshold w'``.

    ``sample_weight`` is refused: folding a weight into the record, as the least-squares regressors
    do, holds only for a quadratic loss (``s H(r) != H(sqrt(s) r)`` beyond the threshold).
    Parameters and attributes otherwise as :class:`DPLinearRegression` (``GridSearchCV`` included).
    """

    LOSS = "huber"
    PENALTY = "l2"
    ALGORITHMS = ("dp-cd", "dp-sgd", "dp-skgd", "dp-gcd")

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, threshold=1.0, algorithm="dp-cd",
                 passes=None, step=1.0, clip=None, alpha=1e-3, fit_intercept=True, intercept_scaling=1.0, options=None,
                 tune=None, random_state=None):
        DPLinearModel.__init__(self, epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds,
                               algorithm=algorithm, passes=passes, step=step, clip=clip, alpha=alpha,
                               fit_intercept=fit_intercept, intercept_scaling=intercept_scaling, options=options,
                               tune=tune, random_state=random_state)  # no y_bound: the loss bounds the gradient
        self.threshold = threshold

    def fit(self, X, y, **fit_params):
        """Fit under (epsilon, delta)-DP: ``epsilon_`` and ``delta_`` hold what the fit achieved.
        ``sample_weight`` (in ``fit_params``, the only one known) other than None is a ``ValueError``
        (class docstring)."""
        unknown = sorted(set(fit_params) - {"sample_weight"})
        if unknown:
            raise TypeError(f"{type(self).__name__}.fit() got unexpected keyword argument(s) {unknown}")
        if fit_params.get("sample_weight") is not None:
            raise ValueError(f"{type(self).__name__} takes no sample_weight: a weight folds into the record only for "
                             "a quadratic loss; use DPLinearRegression, which takes sample_weight in [0, 1]")
        return super().fit(X, y)

    def _scaled_targets(self, y, scale):
        """``y / threshold``, unclipped: the Huber loss bounds every record's gradient whatever y is."""
        return y / scale

    def _target_scale(self, y):
        """The public ``threshold``."""
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, numbers.Real) \
                or not np.isfinite(self.threshold) or self.threshold <= 0:
            raise ValueError(f"threshold={self.threshold!r}: expected a positive finite number, the residual (in "
                             "the units of y) beyond which the Huber loss grows linearly")
        return float(self.threshold)
