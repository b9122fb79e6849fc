"""Private linear regression: least squares with an L2 (ridge) or L1 (Lasso) penalty."""
import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import validate_data

from privcd.estimators.base import DPLinearModel


class DPRegressor(RegressorMixin, DPLinearModel):
    """Real targets, one model. The objective is scikit-learn's
    ``(1/(2n)) ||y - Xw - b||^2 + alpha psi(w)``, privcd's with ``lam = 2 alpha`` (privcd's squared
    loss ``(z - y)^2`` is twice scikit-learn's ``(z - y)^2 / 2``)."""

    LOSS = "squared"
    LAM_PER_ALPHA = 2.0

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, algorithm="dp-cd", passes=None,
                 step=1.0, clip=None, alpha=1e-3, fit_intercept=True, intercept_scaling=1.0, options=None,
                 random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, algorithm=algorithm,
                         passes=passes, step=step, clip=clip, alpha=alpha, fit_intercept=fit_intercept,
                         intercept_scaling=intercept_scaling, options=options, random_state=random_state)

    def fit(self, X, y):
        """Fit under (epsilon, delta)-DP: ``epsilon_`` and ``delta_`` hold what the fit achieved."""
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, y_numeric=True)
        self._fit_outputs(X, np.asarray(y, dtype=np.float64)[:, None])
        self.coef_, self.intercept_ = self.coef_[0], float(self.intercept_[0])
        return self

    def predict(self, X):
        return self._linear(X)


class DPLinearRegression(DPRegressor):
    """Ridge regression under (epsilon, delta)-DP; default DP-CD; ``alpha=0`` is least squares.

    The default ``alpha = 1e-3`` (for rows of norm about 1) is not scikit-learn's ``LinearRegression``
    (no penalty): without it the noise of a private fit accumulates along the flat directions of
    collinear features, more with every pass. On california (benchmarks/estimators.py) least
    squares reached a test R^2 of 0.48 at epsilon = 0.5 but -0.06 at epsilon = 5 (200 passes),
    the ridge 0.47 at both.

    Only the features need public bounds (``bounds`` / ``data_norm``): every algorithm clips the
    gradients, so the targets need none for privacy (diffprivlib's ``LinearRegression`` needs
    ``bounds_y`` as well). The default ``clip`` leaves residuals up to 1 unclipped: give targets on
    about a unit scale (e.g. divided by a public bound), or set ``clip``. Parameters and
    attributes as :class:`privcd.estimators.DPLogisticRegression` (``coef_`` of shape (p,),
    ``intercept_`` a float). ``GridSearchCV`` on the private data spends the budget once per
    candidate and fold: tune on public data, or with :func:`privcd.tune_private`.
    """

    PENALTY = "l2"
    ALGORITHMS = ("dp-cd", "dp-sgd", "dp-skgd", "dp-gcd", "dp-scd")


class DPLasso(DPRegressor):
    """The Lasso, ``(1/(2n)) ||y - Xw - b||^2 + alpha ||(w, b / s)||_1``, under (epsilon, delta)-DP;
    default DP-CD (proximal, dp-cd Algorithm 1); DP-GCD (dp-gcd Algorithm 1) suits sparse models
    in high dimension. As :class:`DPLinearRegression` otherwise (``GridSearchCV`` included);
    ``alpha`` as scikit-learn's Lasso."""

    PENALTY = "l1"
    ALGORITHMS = ("dp-cd", "dp-gcd", "dp-sgd", "dp-skgd")

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, algorithm="dp-cd", passes=None,
                 step=1.0, clip=None, alpha=1.0, fit_intercept=True, intercept_scaling=1.0, options=None,
                 random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, algorithm=algorithm,
                         passes=passes, step=step, clip=clip, alpha=alpha, fit_intercept=fit_intercept,
                         intercept_scaling=intercept_scaling, options=options, random_state=random_state)
