"""Heavy imports wait until they are needed, so a warm process starts a fit in under a second
(issue 2): dp-accounting (0.8 s) only when a calibration has to be searched -- never by ``import
privcd`` and a noise-free fit, never by a private fit whose calibration is stored -- and pandas
(0.3 s) only when a run's ``history`` is read."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import privcd

pytestmark = pytest.mark.slow  # subprocesses; the slow tier: python -m pytest -m slow (.ci/run)

PROBLEM = """
import sys, numpy as np, privcd
X = np.random.default_rng(0).normal(size=(200, 4)); X /= np.linalg.norm(X, axis=1, keepdims=True)
problem = privcd.Problem(X, np.where(X[:, 0] > 0, 1.0, -1.0), "logistic", "l2", 0.1)
"""


def run_fresh(code):
    """Run ``code`` in a new interpreter with this privcd and numba cache; return its last stdout line."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(privcd.__file__).parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", PROBLEM + code], check=True, capture_output=True, text=True, env=env)
    return out.stdout.strip().splitlines()[-1]


def test_import_and_noise_free_fits_do_not_import_dp_accounting():
    code = """
for name in sorted(privcd.algorithms.ALGORITHMS):
    privcd.fit(problem, name, epsilon=float("inf"), passes=1, step=0.5, clip=float("inf"))
print(json.dumps(sorted(name for name in sys.modules if name.startswith("dp_accounting"))))
"""
    assert json.loads(run_fresh("import json\n" + code)) == []


def test_a_dense_fit_imports_neither_pandas_nor_scipy_sparse_until_the_history_is_read():
    code = """
run = privcd.fit(problem, "dp-cd", epsilon=float("inf"), passes=3, step=0.5, clip=float("inf"))
before = "pandas" in sys.modules or "scipy.sparse" in sys.modules
history = run.history
print(json.dumps([before, type(history).__name__, list(history.columns), len(history),
                  bool(history["objective"].iloc[-1] == run.objective)]))
"""
    before, kind, columns, rows, same_objective = json.loads(run_fresh("import json\n" + code))
    assert before is False
    assert (kind, columns, rows, same_objective) == ("DataFrame", ["iteration", "passes", "seconds", "objective"], 4,
                                                     True)


def test_private_fit_from_a_stored_calibration_does_not_import_dp_accounting():
    store = privcd.privacy.CalibrationStore()
    namespace = {}
    exec(PROBLEM, namespace)  # the very problem the subprocess builds
    arguments = dict(epsilon=1.0, delta=1e-5, passes=2, step=0.5, clip=1.0, seed=7)
    here = privcd.fit(namespace["problem"], "dp-sgd", calibrations=store, **arguments)
    code = f"""
from privcd.privacy import CalibrationStore
store = CalibrationStore.from_json({store.to_json()!r})
run = privcd.fit(problem, "dp-sgd", calibrations=store, **{arguments!r})
print(repr(("dp_accounting" in sys.modules, store.reused, run.w.tobytes().hex(), run.epsilon)))
"""
    imported, reused, bits, epsilon = eval(run_fresh(code))
    assert (imported, reused) == (False, 1)
    assert bits == here.w.tobytes().hex() and epsilon == here.epsilon
