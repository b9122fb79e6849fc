"""Accountant registry: name -> a fresh dp-accounting ``PrivacyAccountant`` under replace-one neighbours.

``"rdp"``
    :class:`~privcd.privacy.replace_one_rdp.ReplaceOneRdpAccountant`: dp-accounting's Rényi DP
    accountant (Mironov 2017; dp-cd Appendix B) with the RDP-to-DP conversion of Canonne, Kamath
    and Steinke (2020, Proposition 12); reads Gaussian events as documented (see that module).
    Gaussian compositions and sampling without replacement.
``"pld"``
    :class:`~privcd.privacy.replace_one_pld.ReplaceOnePldAccountant`: dp-accounting's privacy loss
    distributions (Koskela et al. 2020; Doroshenko et al. 2022), pessimistic, so every epsilon it
    gives is an upper bound. Gaussian compositions, Poisson sampling, and sampling without
    replacement by its symmetrised pair (privcd's extension, which dominates every order of every
    step). The tightest sound accountant wherever it applies but for plain Gaussian compositions,
    where ``"exact"`` is exact.
``"pld-two-orders"``
    The same, but sampling without replacement by the mixture pair composed in each order, the
    worse kept: 1.10-1.21 times less epsilon, and no theorem covers it
    (:mod:`~privcd.privacy.replace_one_pld`); kept by name to compare with, never a default.
``"exact"``
    :class:`~privcd.privacy.exact_gaussian.ExactGaussianAccountant`: compositions of Gaussians,
    exactly. Gaussian compositions only.

The PLD accountant discretises privacy losses on a grid of step ``discretization``
(``value_discretization_interval``). Its epsilon is an upper bound whatever the step; a coarser
step is faster and looser. How loose depends on the mechanism: with composed Gaussians (which it
composes analytically) 1e-4 is within 1e-5 of the exact epsilon in 30 ms, but with many
compositions of a weakly subsampled Gaussian the rounding adds up. Measured on 2 cores, n = 20,000,
200,000 Poisson steps of rate 1/n (batch 1, 10 passes), delta = 1/n^2, privcd's z = 1 (epsilon
about 0.1095): step 1e-3 gives 0.45 in 0.02 s, 1e-4 gives 0.14 (0.05 s), 3e-5 0.113
(0.07 s), 1e-5 0.1099 (0.02 s), 3e-6 0.10955 (0.05 s); at z = 0.35 (epsilon about 0.57), 1e-4 takes
0.4 s, 1e-5 4.8 s and 3e-6 20 s. No single step is both tight and fast, so privcd tries the steps
of :data:`PLD_DISCRETIZATIONS` from coarse to fine and stops when refining no longer lowers the
calibrated noise by more than :data:`PLD_NOISE_TOLERANCE` (:func:`~privcd.privacy.calibrate`) or
epsilon by more than :data:`PLD_EPSILON_TOLERANCE` (:func:`~privcd.privacy.epsilon_of`).
"""
from privcd.privacy.exact_gaussian import ExactGaussianAccountant
from privcd.privacy.mechanisms import check_accountant
from privcd.privacy.replace_one_pld import ReplaceOnePldAccountant
from privcd.privacy.replace_one_rdp import ReplaceOneRdpAccountant

PLD_DISCRETIZATIONS = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6)  # coarse to fine
PLD_DEFAULT_DISCRETIZATION = 1e-4  # dp-accounting's default
PLD_NOISE_TOLERANCE = 0.002  # calibrate: stop refining when the noise multiplier would drop less
PLD_EPSILON_TOLERANCE = 0.005  # epsilon_of: stop refining when epsilon drops less


def _pld_accountant(discretization=PLD_DEFAULT_DISCRETIZATION):
    return ReplaceOnePldAccountant(discretization)


def _two_orders_pld_accountant(discretization=PLD_DEFAULT_DISCRETIZATION):
    return ReplaceOnePldAccountant(discretization, two_orders=True)


_FACTORIES = {"rdp": ReplaceOneRdpAccountant, "pld": _pld_accountant, "pld-two-orders": _two_orders_pld_accountant,
              "exact": ExactGaussianAccountant}
_DISCRETISING = ("pld", "pld-two-orders")


def discretizations(name):
    """The discretisation steps to try for accountant ``name``, coarse to fine (``(None,)`` when it
    does not discretise)."""
    return PLD_DISCRETIZATIONS if check_accountant(name) in _DISCRETISING else (None,)


def make_accountant(name, discretization=None):
    """A fresh accountant ``name`` (empty ledger, REPLACE_ONE neighbours).

    Parameters
    ----------
    name : {"rdp", "pld", "pld-two-orders", "exact"}
    discretization : float or None
        PLD only: ``value_discretization_interval`` (default 1e-4); ``None`` for the others.
    """
    factory = _FACTORIES[check_accountant(name)]
    if discretization is None:
        return factory()
    if name not in _DISCRETISING:
        raise ValueError(f"accountant={name!r} does not discretise; discretization must be None, "
                         f"got {discretization!r}")
    return factory(discretization)
