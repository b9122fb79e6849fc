"""Every registered dataset and recipe is well-formed; every mirrored dataset loads with the registry's shape."""
import numpy as np
import pytest
import scipy.sparse as sp

from privcd.data import ALIASES, DATASETS, RECIPES, UnknownNameError, get_spec, load_dataset
from privcd.data.registry import SOURCE_MODULES
from privcd.data.sources.mirror import manifest_digests
from privcd.data.spec import SOURCES, TASKS


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("spec", DATASETS.values(), ids=lambda spec: spec.name)
def test_registry_line_is_consistent(spec):
    assert spec.name == spec.name.lower() and " " not in spec.name
    assert spec.task in TASKS and spec.source in SOURCES
    assert (spec.task == "binary") == (spec.labels is not None)
    if spec.labels is not None:
        assert len(spec.labels) == 2 and spec.labels[0] != spec.labels[1]
    assert (spec.fetch is None) == (spec.source == "mirror"), "only mirror-only datasets lack a download"
    assert len(spec.shape) == 2 and min(spec.shape) > 0
    assert spec.test_start is None or 0 < spec.test_start < spec.shape[0]
    assert spec.reference and spec.note
    assert spec.mirror_files[0].startswith(spec.stem)


def test_names_are_unique_across_source_modules():
    names = [spec.name for module in SOURCE_MODULES for spec in module.DATASETS]
    assert len(names) == len(set(names)) == len(DATASETS)
    assert {module.__name__.rsplit(".", 1)[1] for module in SOURCE_MODULES} == set(SOURCES)


def test_aliases_and_unknown_names():
    for alias, name in ALIASES.items():
        assert get_spec(alias) is DATASETS[name]
    with pytest.raises(UnknownNameError, match=r"dataset 'iris' is not registered; expected one of \[.*'adult'"):
        load_dataset("iris")
    with pytest.raises(UnknownNameError, match=r"preprocessing 'minmax' is not a known recipe.*'dp-scd'"):
        load_dataset("log1", preprocessing="minmax")
    with pytest.raises(UnknownNameError):
        get_spec(None)


def test_manifest_lists_every_mirror_file(shared_datasets):
    """The mirror's MANIFEST.md digests are parsed for every data file the directory holds."""
    digests = manifest_digests(shared_datasets)
    on_disk = {path.name for path in shared_datasets.iterdir() if path.name != "MANIFEST.md"}
    assert set(digests) == on_disk
    assert digests["california.csv.gz"] == "4e9de8181449d5a8aba331a97eda38830b5fb06f63320ba530fd7df4764a734a"
    assert digests["dorothea_valid.labels.csv"].startswith("c80019a3")


def _mirrored(shared_datasets):
    return [spec for spec in DATASETS.values()
            if all((shared_datasets / name).is_file() for name in spec.mirror_files)]


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_every_mirrored_and_synthetic_dataset_loads(shared_datasets, cache, recipe):
    """Generic: each dataset the mirror holds (or a generator makes) passes every recipe's checks."""
    specs = _mirrored(shared_datasets) + [spec for spec in DATASETS.values() if spec.source == "synthetic"]
    assert {spec.name for spec in specs} >= {"california", "electricity", "madelon", "phishing", "adult",
                                              "dorothea-valid", "log1", "log2", "square"}
    for spec in specs:
        if recipe == "standardize" and spec.sparse:
            continue
        data = load_dataset(spec.name, preprocessing=recipe, mirror=shared_datasets, cache=cache)
        assert data.meta.raw_shape == spec.shape
        assert data.meta.source == ("synthetic" if spec.source == "synthetic" else "mirror")
        assert data.meta.preprocessing == recipe and data.meta.task == spec.task
        assert data.X.shape == data.meta.shape and data.y.shape == (data.X.shape[0],)
        assert len(data.feature_names) == data.X.shape[1]
        assert data.X.dtype == np.float64 and data.y.dtype == np.float64
        assert sp.issparse(data.X) == spec.sparse
        if spec.task == "binary":
            assert set(np.unique(data.y)) == {-1.0, 1.0}
        assert sum(data.meta.parts.values()) == spec.shape[0]
