"""The certified non-private optimum ``F* = inf_w F(w)`` every relative error of privcd is measured against.

One module per job (the math is in each module's docstring):

* :mod:`privcd.optimum.solve`: :func:`solve_nonprivate`, which picks the solver for the problem,
  and the checks for problems without a usable optimum;
* :mod:`privcd.optimum.certificate`: :func:`duality_gap`, the Fenchel duality gap that certifies
  any ``w``;
* :mod:`privcd.optimum.result`: :class:`NonPrivateOptimum` and the three errors;
* :mod:`privcd.optimum.newton`: damped Newton for smooth penalties, and the state (gap included)
  and line search every solver shares;
* :mod:`privcd.optimum.prox_newton`: proximal Newton with working sets for non-smooth penalties;
* :mod:`privcd.optimum.hinge`: the SVM (hinge loss, L2 penalty), certified by its own dual.
"""
from privcd.optimum.certificate import duality_gap
from privcd.optimum.prox_newton import _solve_model  # noqa: F401  (tests call privcd.optimum._solve_model)
from privcd.optimum.result import NoMinimizerError, NonPrivateOptimum, OptimumNotCertifiedError, ZeroOptimumError
from privcd.optimum.solve import DEFAULT_TOL, HINGE_MAX_EPOCHS, HINGE_TOL, solve_nonprivate

__all__ = ["DEFAULT_TOL", "HINGE_MAX_EPOCHS", "HINGE_TOL", "NoMinimizerError", "NonPrivateOptimum",
           "OptimumNotCertifiedError", "ZeroOptimumError", "duality_gap", "solve_nonprivate"]
