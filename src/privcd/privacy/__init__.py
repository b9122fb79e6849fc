"""Privacy accounting of privcd: mechanisms as dp-accounting events, accountants, noise calibration.

- :mod:`~privcd.privacy.events`: the replace-one convention, the sensitivity the kernels scale
  their noise by, and one event builder per mechanism (DP-CD's Gaussian composition, DP-SGD's
  subsampled Gaussian).
- :mod:`~privcd.privacy.accountants`: the registry ``"rdp"``, ``"pld"``, ``"exact"``.
- :mod:`~privcd.privacy.calibration`: :func:`calibrate` and :func:`epsilon_of`.
- :mod:`~privcd.privacy.composition`: advanced composition for DP-GCD (dp-gcd eq. (2)).
"""
from privcd.privacy.accountants import ACCOUNTANTS, make_accountant
from privcd.privacy.calibration import Calibration, calibrate, epsilon_of
from privcd.privacy.composition import advanced_composition_epsilon, advanced_composition_epsilon_per_step
from privcd.privacy.events import (SAMPLINGS, gaussian_composition_event, gaussian_sensitivity,
                                   subsampled_gaussian_event, subsampled_gaussian_sensitivity)

__all__ = ["ACCOUNTANTS", "SAMPLINGS", "Calibration", "advanced_composition_epsilon",
           "advanced_composition_epsilon_per_step", "calibrate", "epsilon_of", "gaussian_composition_event",
           "gaussian_sensitivity", "make_accountant", "subsampled_gaussian_event", "subsampled_gaussian_sensitivity"]
