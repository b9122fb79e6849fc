"""scikit-learn estimators with a privacy budget: :class:`DPLogisticRegression`, :class:`DPLinearSVC`,
:class:`DPLinearRegression`, :class:`DPLasso`
and :class:`DPHuberRegressor` (:mod:`privcd.estimators.base` for what they share
and what the guarantee covers)."""
from privcd.estimators.base import CHECKS_BY_DESIGN, CHECKS_CONTRADICTING_DP, expected_failed_checks
from privcd.estimators.bounds import PrivacyLeakWarning
from privcd.estimators.classifiers import DPLinearSVC, DPLogisticRegression
from privcd.estimators.regressors import DPHuberRegressor, DPLasso, DPLinearRegression

__all__ = ["CHECKS_BY_DESIGN", "CHECKS_CONTRADICTING_DP", "DPHuberRegressor", "DPLasso", "DPLinearRegression", "DPLinearSVC", "DPLogisticRegression", "PrivacyLeakWarning", "expected_failed_checks"]
