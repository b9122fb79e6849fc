"""Datasets of the papers: registry, mirror, downloads, synthetic generators, preprocessing, cache.

>>> from privcd.data import load_dataset
>>> data = load_dataset("california", preprocessing="standardize", mirror="../shared/datasets")
>>> data.X.shape, data.meta.source
((20640, 8), 'mirror')

See :func:`load_dataset`; registered names in :data:`DATASETS`, recipes in :data:`RECIPES`.
"""
from privcd.data.dataset import Dataset, DatasetMeta, Split
from privcd.data.errors import DataFileError, DatasetError, DatasetUnavailableError, UnknownNameError
from privcd.data.loader import load_dataset
from privcd.data.recipes import RECIPES
from privcd.data.registry import ALIASES, DATASETS, get_spec
from privcd.data.table import TABLE1, dataset_table, print_dataset_table, table_markdown

__all__ = ["ALIASES", "DATASETS", "RECIPES", "TABLE1", "DataFileError", "Dataset", "DatasetError", "DatasetMeta",
           "DatasetUnavailableError", "Split", "UnknownNameError", "dataset_table", "get_spec", "load_dataset",
           "print_dataset_table", "table_markdown"]
