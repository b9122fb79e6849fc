"""Registry of datasets: name -> :class:`~privcd.data.spec.DatasetSpec`.

Built from the ``DATASETS`` tuple of each source module (one line per dataset). Adding a dataset is
one line in its source's module; ``tests/test_data_registry.py`` walks this registry.
"""
from privcd.data.errors import UnknownNameError
from privcd.data.sources import libsvm, mirror, openml, sklearn, synthetic
from privcd.data.spec import DatasetSpec

SOURCE_MODULES = (synthetic, sklearn, openml, libsvm, mirror)
DATASETS: dict[str, DatasetSpec] = {spec.name: spec for module in SOURCE_MODULES for spec in module.DATASETS}
ALIASES = {"sparse-lasso": "square", "yearpredictionmsd": "msd"}


def get_spec(name) -> DatasetSpec:
    """The :class:`DatasetSpec` registered as ``name`` (or an alias); an error naming the choices otherwise."""
    key = ALIASES.get(name, name) if isinstance(name, str) else name
    try:
        return DATASETS[key]
    except (KeyError, TypeError):
        raise UnknownNameError(f"dataset {name!r} is not registered; expected one of {sorted(DATASETS)} "
                                  f"(aliases: {ALIASES})") from None

