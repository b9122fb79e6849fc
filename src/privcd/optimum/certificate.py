"""duality_gap: the certificate of any ``w``, a Fenchel duality gap (celer/skglm style) ``>= F(w) - F*``.

With ``u_i = l'(<w, x_i>, y_i)`` and ``v = -(1/n) X^T u``, the dual point ``s u`` (``s`` = the
penalty's ``dual_scaling(v, lam)``, which makes ``psi*(s v)`` finite) has the dual value

    D = -(1/n) sum_i l*(s u_i, y_i) - psi*(s v),

and weak duality gives ``D <= F*``, so ``gap = F(w) - D`` (plus 16 ulps of rounding allowance)
bounds the suboptimality. For the L2 penalty this gap equals ``||grad F(w)||^2 / (2 lam)``, the
strong-convexity bound. Without a penalty ``psi*`` is the indicator of ``{0}``; the dual point is
then ``u`` projected on the null space of ``X^T`` (least squares: the normal-equations
certificate).

The gap is computed by ``_State.gap`` (:mod:`privcd.optimum.newton`), which every solver also
uses as its stopping test; the hinge loss has its own dual (:func:`privcd.optimum.hinge.hinge_gap`).
"""
import numpy as np

from privcd.optimum.hinge import hinge_gap
from privcd.optimum.newton import _State
from privcd.optimum.solve import _check_supported, _without_void_penalty


def duality_gap(problem, w):
    """The certificate of any ``w``: a number ``>= F(w) - F*`` (``inf`` if the dual point is infeasible)."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (problem.n_features,):
        raise ValueError(f"w has shape {w.shape}; expected ({problem.n_features},)")
    if problem.loss.solver == "svm-dual-cd":
        return float(hinge_gap(problem, w))
    _check_supported(problem)
    problem = _without_void_penalty(problem)
    state = _State(problem)
    state.evaluate(w)
    return float(state.gap())
