"""Errors raised while locating, reading and preprocessing datasets.

Every message names the dataset or the file concerned and what is wrong with it.
"""


class DatasetError(Exception):
    """Base class of the errors of :mod:`privcd.data`."""


class UnknownNameError(DatasetError, ValueError):
    """A dataset or preprocessing name that is not registered."""


class DataFileError(DatasetError, ValueError):
    """A data file that exists but is corrupt, truncated, mis-shaped or holds invalid values."""


class DatasetUnavailableError(DatasetError, RuntimeError):
    """A dataset found neither in the mirror nor by its download."""
