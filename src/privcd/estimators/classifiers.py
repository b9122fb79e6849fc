"""Private linear classifiers: logistic regression and the linear SVM, one-vs-rest for k > 2 classes."""
import warnings

import numpy as np
import scipy.special
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from privcd.estimators.base import DPLinearModel, check_sample_weight
from privcd.estimators.bounds import PrivacyLeakWarning
from privcd.losses import get_loss

PRIMAL_AND_DUAL = ("dp-sgd", "dp-cd", "dp-skgd", "dp-gcd", "dp-scd")


class DPClassifier(ClassifierMixin, DPLinearModel):
    """Labels -> one {-1, 1} target per binary model: one for 2 classes (``classes_[1]`` is +1),
    one per class otherwise (one-vs-rest, the k models one release under one budget).

    The label set is public: ``classes`` names it. Read from y instead (``classes=None``), it
    reveals a record alone in its class (the model's shape, and the label itself), which the
    guarantee does not cover; a :class:`~privcd.estimators.bounds.PrivacyLeakWarning` says so.
    """

    def __init__(self, *, epsilon=1.0, delta=None, data_norm=None, bounds=None, classes=None, class_weight=None,
                 algorithm="dp-sgd", passes=None, step=1.0, clip=None, alpha=0.0, fit_intercept=True,
                 intercept_scaling=1.0, options=None, tune=None, random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, algorithm=algorithm,
                         passes=passes, step=step, clip=clip, alpha=alpha, fit_intercept=fit_intercept,
                         intercept_scaling=intercept_scaling, options=options, tune=tune,
                         random_state=random_state)
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

    def fit(self, X, y, sample_weight=None):
        """Fit under (epsilon, delta)-DP: ``epsilon_`` and ``delta_`` hold what the fit achieved.

        ``sample_weight`` (one weight in [0, 1] per record) and ``class_weight`` weight each record's
        loss by ``r_i = s_i c_{y_i} / max_k c_k``: the fit runs the loss's weighted variant
        (:mod:`privcd.losses.weighted_logistic`, ``weighted_hinge``) on the labels ``r_i y_i``, with
        ``alpha / max_k c_k`` (the same minimiser as ``sum_i s_i c_{y_i} l_i + alpha psi``). A weight
        scales a record's gradient by at most 1, so the sensitivity, and the guarantee, hold."""
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
        weights = check_sample_weight(sample_weight, X.shape[0])
        class_weights = self._class_weights(encoded)
        if weights is None and class_weights is None:
            return self._fit_outputs(X, targets)
        largest = 1.0 if class_weights is None else float(class_weights.max())
        records = np.ones(X.shape[0]) if weights is None else weights
        if class_weights is not None:
            records = records * (class_weights[encoded] / largest)
        if not np.any(records > 0):
            raise ValueError(f"{type(self).__name__}: every record's weight (sample_weight times class_weight) is "
                             "zero, so no record counts")
        return self._fit_outputs(X, targets * records[:, None], alpha=float(self.alpha) / largest,
                                 loss=get_loss(self.LOSS).weighted)

    def _class_weights(self, encoded):
        """``c_k`` per class of ``classes_`` (None without class weights): a public dict (absent classes
        weigh 1), or ``"balanced"``, ``n / (k n_k)`` read from y with a ``PrivacyLeakWarning``."""
        if self.class_weight is None:
            return None
        k = len(self.classes_)
        if isinstance(self.class_weight, str) and self.class_weight == "balanced":
            warnings.warn(f"{type(self).__name__}: class_weight='balanced' reads the class counts from y; they set "
                          "the weights and are not covered by the (epsilon, delta) guarantee. Pass public weights, "
                          "e.g. class_weight={0: 1.0, 1: 5.0} from a published base rate", PrivacyLeakWarning,
                          stacklevel=3)
            return len(encoded) / (k * np.maximum(np.bincount(encoded, minlength=k), 1))
        if not isinstance(self.class_weight, dict):
            raise ValueError(f"class_weight={self.class_weight!r}: expected None, 'balanced' or a dict from label to "
                             "a non-negative weight")
        unknown = [label for label in self.class_weight if label not in set(self.classes_.tolist())]
        if unknown:
            raise ValueError(f"class_weight names label(s) {unknown} that are not in classes_ "
                             f"{self.classes_.tolist()}")
        weights = np.array([self.class_weight.get(label, 1.0) for label in self.classes_.tolist()], dtype=np.float64)
        if not np.all(np.isfinite(weights)) or np.any(weights < 0) or not np.any(weights > 0):
            raise ValueError(f"class_weight={self.class_weight!r}: expected finite non-negative weights, some positive")
        return weights

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
    a private algorithm of privcd on the records clipped to the public ``bounds`` / ``data_norm``
    (:mod:`privcd.estimators.base` for the defaults and what the guarantee covers). More than two
    classes: one-vs-rest, its k models released together under one (epsilon, delta).

    Default DP-SGD (batches of sqrt(n) records sampled without replacement), each record's
    gradient clipped at ``R' / 2`` (``R'`` the public row bound, the intercept's column included),
    the largest gradient norm of the logistic loss at the start ``w = 0`` (``|l'(0)| = 1/2``): at
    the optimum most records' gradients are smaller, so the clip halves the noise of the worst
    case ``R'`` and cuts few gradients. In the estimators benchmark
    (``python -m benchmarks estimators``) it is at least diffprivlib's accuracy in more cells than
    DP-CD-P with its coordinate-wise clipping, whose thresholds ``C_j`` (dp-cd Section 5.1) cut
    the rare large entries of one-hot features; DP-CD (``algorithm="dp-cd"``) is the better choice
    on few ill-conditioned features at small epsilon (electricity at epsilon <= 0.5).

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
    class_weight : dict, "balanced" or None
        Public weights of the classes (label -> weight >= 0; absent labels weigh 1), multiplied with
        ``fit``'s ``sample_weight`` in [0, 1] (:meth:`DPClassifier.fit`). ``"balanced"`` reads the class
        counts from y, which the guarantee does not cover: a ``PrivacyLeakWarning`` says so.
    algorithm : {"dp-sgd", "dp-cd", "dp-skgd", "dp-gcd", "dp-scd"}
    passes, step : float > 0
        As in :func:`privcd.fit`.
    clip : float > 0 or None
        As in :func:`privcd.fit`; None: the algorithm's default (DP-SGD: ``R' / 2``, the largest
        gradient norm at ``w = 0``; the others: ``R'``, the worst case).
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
        The privacy achieved by the whole fit (all k models, and their tuning); ``accountant_``
        certified it.
    best_params_ : list of dict
        With ``tune``: each model's selected ``passes``, ``step`` and ``clip``.

    tune : dict or None
        A grid over some of ``passes``, ``step`` and ``clip`` (lists of values; the others fixed at
        the parameters'): the fit selects among them privately (:func:`privcd.tune_private`,
        Papernot and Steinke 2022, Theorem 2, with public smoothness constants), ``epsilon_`` counts
        the tuning and ``best_params_`` holds the selected configuration of each model.

    Tuning: ``GridSearchCV`` or ``cross_val_score`` on the private data spends the budget once per
    candidate and fold, so the model it selects is not (epsilon, delta)-DP; tune on public data,
    or with ``tune=``, which counts the tuning's privacy.
    """

    LOSS = "logistic"
    PENALTY = "l2"
    ALGORITHMS = PRIMAL_AND_DUAL
    CHECKS_PASSED_PRIVATELY = ("check_classifiers_train",)  # DP-SGD's default at epsilon = 1 passes it (seeded)

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
                 intercept_scaling=1.0, options=None, tune=None, random_state=None):
        super().__init__(epsilon=epsilon, delta=delta, data_norm=data_norm, bounds=bounds, classes=classes,
                         class_weight=class_weight, algorithm=algorithm, passes=passes, step=step, clip=clip,
                         alpha=alpha, fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
                         options=options, tune=tune, random_state=random_state)
