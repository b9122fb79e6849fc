"""Datasets downloaded by scikit-learn's fetchers.

California housing (dp-gcd Section 5, dp-cd Section 6) via ``fetch_california_housing``, into
scikit-learn's data home (``SCIKIT_LEARN_DATA`` or ``~/scikit_learn_data``), with one retry and a
0.1 s delay so an unreachable server fails within seconds.
"""
import numpy as np

from privcd.data.files import sha256_bytes
from privcd.data.spec import Acquired, DatasetSpec, PaperShape, RawData


def california(request) -> Acquired:
    """``fetch_california_housing``: 8 features (MedInc ... Longitude), target MedHouseVal in 100,000 $."""
    from sklearn.datasets import fetch_california_housing

    bunch = fetch_california_housing(as_frame=True, n_retries=1, delay=0.1)
    features = bunch.frame.drop(columns=bunch.target_names)
    target = bunch.frame[bunch.target_names[0]].to_numpy(dtype=np.float64)
    digest = sha256_bytes(np.ascontiguousarray(features.to_numpy(dtype=np.float64)), target)
    return Acquired("sklearn", "sklearn.datasets.fetch_california_housing", {"california-arrays": digest},
                    lambda: RawData(features, target))


DATASETS = (
    DatasetSpec("california", "sklearn", "sklearn.datasets.fetch_california_housing (StatLib cal_housing)", "regression", (20_640, 8), california, paper=PaperShape(20_640, 8, "dp-gcd Table 1"), note="Target in units of 100,000 $ (scikit-learn's MedHouseVal)."),
)
