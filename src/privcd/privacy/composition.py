"""Advanced composition of pure-DP mechanisms (Dwork, Rothblum and Vadhan 2010, Theorem III.3;
Dwork and Roth 2014, Theorem 3.20), as DP-GCD uses it (dp-gcd Appendix A).

``k`` adaptively composed ``epsilon'``-DP mechanisms are (epsilon, delta)-DP for every
``delta in (0, 1)`` with

    epsilon = sqrt(2 k log(1/delta)) epsilon' + k epsilon' (exp(epsilon') - 1).

DP-GCD runs ``T`` iterations of two mechanisms each (report-noisy-max selection and Laplace
release), ``k = 2 T``, which is dp-gcd eq. (2):
``epsilon = sqrt(4 T log(1/delta)) epsilon' + 2 T epsilon' (exp(epsilon') - 1)``.
"""
import math

import scipy.optimize

from privcd.validation import check_number, check_positive, check_positive_int


def advanced_composition_epsilon(epsilon_step, delta, mechanisms):
    """Epsilon of ``mechanisms`` composed ``epsilon_step``-DP mechanisms at ``delta`` (dp-gcd eq. (2)).

    Parameters
    ----------
    epsilon_step : float
        ``epsilon' >= 0`` of each mechanism (``inf`` gives ``inf``).
    delta : float
        In ``(0, 1)``.
    mechanisms : int
        ``k >= 1`` (``2 T`` for ``T`` iterations of DP-GCD).
    """
    epsilon_step = check_number("epsilon_step", epsilon_step, low=0.0, low_open=False, allow_inf=True)
    delta = check_number("delta", delta, low=0.0, high=1.0)
    k = check_positive_int("mechanisms", mechanisms)
    if math.isinf(epsilon_step):
        return math.inf
    return math.sqrt(2 * k * math.log(1 / delta)) * epsilon_step + k * epsilon_step * math.expm1(epsilon_step)


def advanced_composition_epsilon_per_step(epsilon, delta, mechanisms):
    """The largest ``epsilon'`` whose ``mechanisms``-fold composition is (epsilon, delta)-DP by
    dp-gcd eq. (2).

    The right side of eq. (2) increases from 0 to infinity with ``epsilon'``, so the root is
    unique; it lies below ``epsilon / sqrt(2 k log(1/delta))`` (the second term is non-negative).
    It is found by Brent's method to machine precision and then lowered, if needed, until
    :func:`advanced_composition_epsilon` of it is ``<= epsilon``. For ``epsilon <= 1`` it is at
    least Dwork and Roth's closed form ``epsilon / (2 sqrt(2 k log(1/delta)))`` (Corollary 3.21;
    ``epsilon / (4 sqrt(T log(1/delta)))`` in dp-gcd Theorem 4.2).

    Parameters
    ----------
    epsilon : float
        Target, ``> 0`` (``inf`` gives ``inf``).
    delta : float
        In ``(0, 1)``.
    mechanisms : int
        ``k >= 1``.
    """
    epsilon = check_positive("epsilon", epsilon, allow_inf=True)
    delta = check_number("delta", delta, low=0.0, high=1.0)
    k = check_positive_int("mechanisms", mechanisms)
    if math.isinf(epsilon):
        return math.inf
    upper = epsilon / math.sqrt(2 * k * math.log(1 / delta))
    root = scipy.optimize.brentq(lambda x: advanced_composition_epsilon(x, delta, k) - epsilon, 0.0, upper,
                                 xtol=1e-300, rtol=4 * 2.0**-52)
    while advanced_composition_epsilon(root, delta, k) > epsilon:
        root = math.nextafter(root, 0.0)
    return root
