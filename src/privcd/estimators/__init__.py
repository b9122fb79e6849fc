"""scikit-learn estimators with a privacy budget: :class:`DPLogisticRegression`, :class:`DPLinearSVC`,
:class:`DPLinearRegression` and :class:`DPLasso` (:mod:`privcd.estimators.base` for what they share
and what the guarantee covers)."""
from privcd.estimators.base import CHECKS_BY_DESIGN, CHECKS_CONTRADICTING_DP, expected_failed_checks
from privcd.estimators.bounds import PrivacyLeakWarning
from privcd.estimators.classifiers import DPLinearSVC, DPLogisticRegression
from privcd.estimators.regressors import DPLasso, DPLinearRegression

__all__ = ["CHECKS_BY_DESIGN", "CHECKS_CONTRADICTING_DP", "DPLasso", "DPLinearRegression", "DPLinearSVC", "DPLogisticRegression", "PrivacyLeakWarning", "expected_failed_checks"]
