"""Privacy accounting of privcd: mechanisms, dp-accounting events, accountants, noise calibration.

- :mod:`~privcd.privacy.mechanisms`: the mechanism families (DP-CD's Gaussian composition, DP-SGD's
  and DP-SCD's subsampled Gaussian), the replace-one sensitivities the kernels scale their noise
  by, and which accountant reads which family.
- :mod:`~privcd.privacy.calibration`: :func:`calibrate`, :func:`calibrate_subsampled`; and
  :mod:`~privcd.privacy.reuse`: :class:`CalibrationStore`, calibrations kept across processes;
  :mod:`~privcd.privacy.joint`: :class:`JointRelease`, one of several runs released together.
- :mod:`~privcd.privacy.events`: the families as dp-accounting events; :mod:`~privcd.privacy.accountants`:
  the registry ``"rdp"``, ``"pld"``, ``"exact"``; :mod:`~privcd.privacy.search`: the root search
  and :func:`epsilon_of`.
- :mod:`~privcd.privacy.composition`: advanced composition for DP-GCD (dp-gcd eq. (2)), the
  paper's; :mod:`~privcd.privacy.greedy_composition`: DP-GCD's tight PLD composition (default).

Every public name is loaded from its module on first access (PEP 562), so ``from privcd import
privacy`` costs nothing, and dp-accounting (0.8 s to import) is imported by the first name that
needs it: a run without noise or with stored calibrations never imports it.
"""
import importlib

_MODULES = {
    "mechanisms": ("ACCOUNTANTS", "SAMPLINGS", "GaussianComposition", "PureDpComposition", "RevealedBatchGaussian",
                   "SubsampledGaussian", "gaussian_sensitivity", "subsampled_gaussian_sensitivity"),
    "calibration": ("Calibration", "calibrate", "calibrate_subsampled"),
    "reuse": ("CalibrationStore",),
    "joint": ("JointRelease",),
    "grid_gaussian": ("grid_noise", "grid_spacings"),
    "grid_sum": ("sampled_grid_noise",),  # calibrates by RDP: imports dp-accounting
    "grid_dual": ("dual_grid_noise",),  # calibrates by RDP: imports dp-accounting
    "composition": ("advanced_composition_epsilon", "advanced_composition_epsilon_per_step"),
    "greedy_composition": ("greedy_epsilon", "greedy_epsilon_per_step", "grid_release_noise"),  # imports dp-accounting
    # These import dp-accounting.
    "events": ("gaussian_composition_event", "pure_dp_composition_event", "revealed_batch_gaussian_event",
               "subsampled_gaussian_event"),
    "accountants": ("make_accountant",),
    "search": ("epsilon_of", "find_noise_multiplier"),
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_HOME)


def __getattr__(name):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
