"""Hyperparameter grids: dicts of lists expanded to a cartesian product, with tied parameters.

A grid maps a parameter name to its values (benchopt's ``product_param`` convention):

* a list ``[v1, v2, ...]``, or a scalar (one value);
* a generator ``{"logspace": [a, b, num]}`` (``numpy.logspace(a, b, num)``, the papers' notation,
  e.g. dp-gcd Appendix D Table 2) or ``{"linspace": [a, b, num]}``;
* tied parameters: a key naming several parameters separated by commas, whose values are tuples
  of that length, e.g. ``{"batch_size, passes": [[1, 2], [10, 20]]}`` varies them together.

The expansion is the product over keys in the order given; each configuration is a plain dict of
Python scalars, identified by :func:`configuration_id`, a hash of its content that does not depend
on the order of the grid or of the keys.
"""
import itertools
import numbers

import numpy as np

from privcd.identity import configuration_id

GENERATORS = {"logspace": np.logspace, "linspace": np.linspace}


def expand(grid):
    """The configurations of ``grid``: a list of dicts, product over keys in the order given.

    Parameters
    ----------
    grid : dict
        Parameter name (or comma-separated tied names) -> values (see the module docstring).

    Returns
    -------
    list of dict
        One dict per point of the product; duplicates (equal content) are kept once, in first
        order of appearance.

    Raises
    ------
    ValueError
        A malformed entry, naming the key: an unknown generator, tied values of the wrong length,
        an empty list, a parameter named twice, or a non-scalar value.
    """
    if not isinstance(grid, dict):
        raise ValueError(f"grid must be a dict of parameter -> values; got {type(grid).__name__}")
    axes, seen = [], set()
    for key, spec in grid.items():
        names = [name.strip() for name in str(key).split(",")]
        if any(not name for name in names):
            raise ValueError(f"grid key {key!r} has an empty parameter name")
        repeated = seen.intersection(names) | {name for name in names if names.count(name) > 1}
        if repeated:
            raise ValueError(f"grid key {key!r} names parameter(s) {sorted(repeated)} more than once")
        seen.update(names)
        axes.append([dict(zip(names, point)) for point in _points(key, names, spec)])
    configurations, ids = [], set()
    for combination in itertools.product(*axes):
        configuration = {name: value for part in combination for name, value in part.items()}
        identity = configuration_id(configuration)
        if identity not in ids:
            ids.add(identity)
            configurations.append(configuration)
    return configurations


def size(grid):
    """Number of configurations :func:`expand` returns."""
    return len(expand(grid))


def _points(key, names, spec):
    values = _values(key, spec)
    if len(names) == 1:
        return [(_scalar(key, value),) for value in values]
    points = []
    for value in values:
        if not isinstance(value, (list, tuple)) or len(value) != len(names):
            raise ValueError(f"grid key {key!r} ties {len(names)} parameters, so each value must be a "
                             f"list of {len(names)} values; got {value!r}")
        points.append(tuple(_scalar(key, item) for item in value))
    return points


def _values(key, spec):
    if isinstance(spec, dict):
        if len(spec) != 1 or next(iter(spec)) not in GENERATORS:
            raise ValueError(f"grid key {key!r}: a generator is one of {sorted(GENERATORS)} "
                             f"given as {{name: [start, stop, num]}}; got {spec!r}")
        name, arguments = next(iter(spec.items()))
        if (not isinstance(arguments, (list, tuple)) or len(arguments) != 3
                or not isinstance(arguments[2], numbers.Integral) or arguments[2] < 1):
            raise ValueError(f"grid key {key!r}: {name} takes [start, stop, num] with an integer "
                             f"num >= 1; got {arguments!r}")
        return [float(value) for value in GENERATORS[name](*arguments)]
    if isinstance(spec, (list, tuple)):
        if not spec:
            raise ValueError(f"grid key {key!r} has an empty list of values")
        return list(spec)
    return [spec]


def _scalar(key, value):
    """A JSON scalar (None, bool, int, float, str); numpy scalars become Python ones."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ValueError(f"grid key {key!r}: value {value!r} is not a scalar (number, string, bool or null)")
