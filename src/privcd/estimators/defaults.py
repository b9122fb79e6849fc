"""The estimators' data-independent default passes, from DP-CD's convex rate (each algorithm's own
defaults for the estimators are its module's ``estimator_options`` and ``ESTIMATOR_CLIP``).

Passes (dp-cd Theorem 3.3, convex case, Appendix C eq. (67)-(68)): after K iterations from w = 0,

    F(w_priv) - F* <= 3 p R_M^2 / (2K) + 12 ||L||^2_{M^-1} K log(1/delta) / (n eps)^2,

minimised at ``K = R_M sqrt(p) n eps / (||L||_{M^-1} sqrt(8 log(1/delta)))``, i.e.
``passes = K / p``. With the public bounds ``|x_ij| <= B_j`` the coordinate-wise Lipschitz and
smoothness constants are ``L_j = G B_j`` and ``M_j = c B_j^2`` (``G`` the bound on ``|l'|``,
``c`` the loss's curvature), so ``||L||_{M^-1} = G sqrt(p / c)`` whatever the B_j; ``R_M =
||w*||_M`` is unknown and taken as 1 (an optimum whose margins are of order one). Hence

    passes = n eps sqrt(c) / (G p sqrt(8 log(1/delta))),

between ``MIN_PASSES`` and ``MAX_PASSES``: more passes when there are many records per feature
or little noise (electricity at epsilon = 1: 145), fewer otherwise (adult: 15). It uses only n, p,
epsilon and delta, which replace-one neighbours keep public.
"""
import math

MIN_PASSES = 1.0
MAX_PASSES = 200.0
NONSMOOTH_PASSES = 10.0  # the hinge loss and DP-SCD's dual: DP-CD's rule does not apply


def theory_passes(n_samples, n_features, epsilon, delta, *, curvature, gradient_bound):
    """DP-CD's passes of the convex rate (module docstring), clamped to [MIN_PASSES, MAX_PASSES]."""
    if math.isinf(epsilon) or not math.isfinite(curvature):
        return MAX_PASSES
    passes = (n_samples * epsilon * math.sqrt(curvature)
              / (gradient_bound * n_features * math.sqrt(8.0 * math.log(1.0 / delta))))
    return min(MAX_PASSES, max(MIN_PASSES, passes))
