"""Private linear classifiers: logistic regression and the linear SVM, one-vs-rest for k > 2 classes."""
import warnings

import numpy as np
import scipy.special
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from privcd.estimators.base import DPLinearModel
from privcd.estimators.bounds import PrivacyLeakWarning

PRIMAL_AND_DUAL = ("dp-cd", "dp-sgd", "dp-skgd", "dp-gcd", "dp-scd")


class DPClassifier(ClassifierMixin, DPLinearModel):
    """Labels -> one {-1, 1} target per binary model: one for 2 classes (``classes_[1]`` is +1),
    one per class otherwise (one-vs-rest, the k models one release under one budget).

    The label set is public: ``classes`` names it. Read from y instead (``classes=None``), it
    reveals a record alone in its class (the model's shape, and the label itself), which the
    guarantee does not cover; a :class:`~privcd.estimators.bounds.PrivacyLeakWarning` says so.
    """

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, classes=None, class_weight=None,
                 algorithm="dp-cd", passes=None, step=1.0, clip=None, alpha=0.0, fit_intercept=True,
                 intercept_scaling=1.0, options=None, random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, algorithm=algorithm,
                         passes=passes, step=step, clip=clip, alpha=alpha, fit_intercept=fit_intercept,
                         intercept_scaling=intercept_scaling, options=options, random_state=random_state)
        self.classes = classes
        self.class_weight = class_weight

    def _label_set(self, y):
        """The sorted public label set, or y's labels with a warning; every label of y must be in it."""
        if self.classes is None:
            warnings.warn(f"{type(self).__name__}: classes=None, so the label set is read from y; a record alone in "
                          "its class is then revealed (the number of models and its label), which the (epsilon, "
                          "delta) guarantee does not cover. Pass the public label set, e.g. classes=[0, 1]",
                          PrivacyLeakWarning, stacklevel=3)
            return np.unique(y)
        classes = np.unique(np.asarray(self.classes))
        public = set(classes.tolist())
        unknown = [label for label in np.unique(y).tolist() if label not in public]
        if unknown:
            raise ValueError(f"classes={self.classes!r} does not contain the label(s) {unknown} of y; "
                             "expected the public label set, every label of y among them")
        return classes

    def fit(self, X, y, **fit_params):
        """Fit under (epsilon, delta)-DP: ``epsilon_`` and ``delta_`` hold what the fit achieved.

        ``sample_weight`` (in ``fit_params``, the only one known) and ``class_weight`` other than
        None are a ``ValueError``: the weighted logistic and hinge losses need per-record weights
        inside privcd's kernels, which they do not take yet (the regressors take weights: their
        squared loss is weighted exactly by scaling the records)."""
        unknown = sorted(set(fit_params) - {"sample_weight"})
        if unknown:
            raise TypeError(f"{type(self).__name__}.fit() got unexpected keyword argument(s) {unknown}")
        if fit_params.get("sample_weight") is not None or self.class_weight is not None:
            given = ("sample_weight" if fit_params.get("sample_weight") is not None
                     else f"class_weight={self.class_weight!r}")
            raise ValueError(f"{type(self).__name__}: {given} is not supported: privcd's {self.LOSS} kernels take no "
                             "per-record weights yet. Resample the records instead (with a public rule), or use "
                             "DPLinearRegression / DPLasso, which take sample_weight in [0, 1]")
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = self._label_set(y)
        encoded = np.searchsorted(self.classes_, y)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes; got 1 class: {self.classes_[0]!r}")
        if len(self.classes_) == 2:
            targets = np.where(encoded == 1, 1.0, -1.0)[:, None]
        else:
            targets = np.where(encoded[:, None] == np.arange(len(self.classes_)), 1.0, -1.0)
        return self._fit_outputs(X, targets)

    def decision_function(self, X):
        """``<w_k, x> + b_k`` per class (one column for 2 classes: the score of ``classes_[1]``)."""
        scores = self._linear(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]


class DPLogisticRegression(DPClassifier):
    """Logistic regression under (epsilon, delta)-DP, scikit-learn style.

    Minimises ``(1/n) sum_i log(1 + exp(-y_i (<w, x_i> + b))) + (alpha / 2) ||(w, b / s)||^2`` with
    a private algorithm of privcd (default DP-CD, dp-cd Algorithm 1) on the records clipped to the
    public ``bounds`` / ``data_norm`` (:mod:`privcd.estimators.base` for the defaults and what
    the guarantee covers). More than two classes: one-vs-rest, its k models released together
    under one (epsilon, delta).

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1) or None
        None: ``1 / n^2``.
    data_norm : float or None
        Public bound R on every record's L2 norm; rows above it are scaled down to it.
    bounds : (lower, upper) or None
        Public bounds per feature (numbers or arrays of p); entries are clipped into them.
    classes : array-like or None
        The public label set (every label of y must be in it); None reads it from y, with a
        ``PrivacyLeakWarning``.
    class_weight : None
        Only None: class weights (and ``fit``'s ``sample_weight``) need per-record weights in the
        kernels, which privcd's logistic and hinge kernels do not take yet (a ``ValueError`` says
        so).
    algorithm : {"dp-cd", "dp-sgd", "dp-skgd", "dp-gcd", "dp-scd"}
    passes, step : float > 0
        As in :func:`privcd.fit`.
    clip : float > 0 or None
        As in :func:`privcd.fit`; None: the worst-case gradient norm of one record.
    alpha : float >= 0
        L2 penalty strength.
    fit_intercept : bool; intercept_scaling : float > 0
        The intercept is the weight of a constant feature ``intercept_scaling``.
    options : dict or None
        Options of the algorithm (e.g. ``{"batch_size": 64}`` for DP-SGD).
    random_state : int, RandomState or None
        None: a private release, its noise from secret OS entropy; otherwise a reproducible
        experiment (not a private release: whoever knows the seed can replay the noise).

    Attributes
    ----------
    coef_ : ndarray of shape (1, p) or (k, p); intercept_ : ndarray of shape (1,) or (k,)
    classes_ : ndarray; n_features_in_ : int; feature_names_in_ : ndarray (when X has column names)
    epsilon_, delta_ : float
        The privacy achieved by the whole fit (all k models); ``accountant_`` certified it.

    Tuning: ``GridSearchCV`` or ``cross_val_score`` on the private data spends the budget once per
    candidate and fold, so the model it selects is not (epsilon, delta)-DP; tune on public data,
    or with :func:`privcd.tune_private`, which counts the tuning's privacy.
    """

    LOSS = "logistic"
    PENALTY = "l2"
    ALGORITHMS = PRIMAL_AND_DUAL

    def predict_proba(self, X):
        """``sigmoid(<w, x> + b)``; one-vs-rest scores normalised to sum to one (as scikit-learn's)."""
        scores = self._linear(X)
        if scores.shape[1] == 1:
            positive = scipy.special.expit(scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        probability = scipy.special.expit(scores)
        return probability / probability.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class DPLinearSVC(DPClassifier):
    """Linear SVM (hinge loss, L2 penalty ``(alpha / 2) ||(w, b / s)||^2``) under (epsilon, delta)-DP.

    Default DP-SGD on the primal: clipped subgradients of the hinge loss (dp-gcd Section 5's
    DP-SGD, the baseline of dp-scd Section 5), batches of sqrt(n) records, learning rate ``step``.
    DP-SCD (dp-scd Algorithm 1, ``algorithm="dp-scd"``) solves the dual instead, but its model
    ``theta = v / (alpha n)`` carries noise of order ``1 / (alpha n)`` per coordinate: on 5,000
    unit-norm records at epsilon = 2 it classified 50% right where DP-SGD reached 97%
    (tests/test_estimators.py). Parameters, attributes, the guarantee and what tuning by
    ``GridSearchCV`` spends as :class:`DPLogisticRegression` (no ``predict_proba``: the hinge loss
    gives no probabilities).
    """

    LOSS = "hinge"
    PENALTY = "l2"
    ALGORITHMS = ("dp-sgd", "dp-scd")

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, classes=None, class_weight=None,
                 algorithm="dp-sgd", passes=None, step=1.0, clip=None, alpha=1e-3, fit_intercept=True,
                 intercept_scaling=1.0, options=None, random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, classes=classes,
                         class_weight=class_weight, algorithm=algorithm, passes=passes, step=step, clip=clip,
                         alpha=alpha, fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
                         options=options, random_state=random_state)
