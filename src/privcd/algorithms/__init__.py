"""Registry of algorithms: name -> module implementing :mod:`privcd.algorithms.base`'s interface.

Adding an algorithm is one module and one entry in ``ALGORITHM_MODULES``; the generic tests in
``tests/test_algorithms.py`` then run it.
"""
from privcd.algorithms import dp_cd, dp_sgd, dp_skgd, dp_gcd, dp_scd, seqdp_scd

ALGORITHM_MODULES = (dp_cd, dp_sgd, dp_skgd, dp_gcd, dp_scd, seqdp_scd)
ALGORITHMS = {module.NAME: module for module in ALGORITHM_MODULES}


def get_algorithm(name):
    """The module registered as ``name``; ``ValueError`` naming the choices otherwise."""
    try:
        return ALGORITHMS[name]
    except (KeyError, TypeError):
        raise ValueError(f"algorithm={name!r} is not a known algorithm; expected one of {sorted(ALGORITHMS)}") from None
