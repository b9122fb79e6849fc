"""Privacy parameters as a config states them: delta may be symbolic in n, e.g. ``"1/n^2"``.

The papers fix ``delta = 1/n^2`` (dp-cd Section 6, dp-gcd Section 5) with n the number of
training records, which is known only once the data are loaded. A configuration keeps the symbol
(its identity, hence its seed, does not depend on the data) and :func:`resolve_delta` turns it into
a number right before the run.
"""
import numbers
import re

from privcd.validation import check_number, check_positive_int

_SYMBOLIC = re.compile(r"^\s*(?P<c>[0-9.eE+-]+)\s*/\s*n\s*(?:(?:\^|\*\*)\s*(?P<k>[0-9.]+))?\s*$")


def resolve_delta(delta, n):
    """The numeric delta of ``delta`` for a dataset of ``n`` records.

    Parameters
    ----------
    delta : float or str
        A number in (0, 1), or ``"c/n^k"`` / ``"c/n**k"`` / ``"c/n"`` with positive numbers c, k.
    n : int
        Number of records the privacy guarantee is about (training set).

    Returns
    -------
    float in (0, 1)
    """
    n = check_positive_int("n", n)
    if isinstance(delta, str):
        match = _SYMBOLIC.match(delta)
        if not match:
            try:
                value = float(delta)
            except ValueError:
                raise ValueError(f"delta={delta!r} is neither a number nor of the form 'c/n^k' "
                                 "(e.g. '1/n^2')") from None
        else:
            try:
                c, k = float(match["c"]), float(match["k"] or 1.0)
            except ValueError:
                raise ValueError(f"delta={delta!r}: cannot read the numbers of 'c/n^k'") from None
            value = c / float(n) ** k
        return check_number("delta", value, low=0.0, high=1.0)
    if isinstance(delta, numbers.Real) and not isinstance(delta, bool):
        return check_number("delta", float(delta), low=0.0, high=1.0)
    raise ValueError(f"delta={delta!r} must be a number in (0, 1) or a string 'c/n^k'")

