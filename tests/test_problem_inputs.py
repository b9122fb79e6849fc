"""The Problem owns the data its guarantees were computed from: sparse X in canonical form (the norms
of the dense equivalent) and private read-only copies of X and y."""
import numpy as np
import pytest
import scipy.sparse as sp

import privcd


def unit_rows_with_duplicate():
    """200 unit rows but row 0, stored as two duplicate entries 0.6 at column 0: norm 1.2, not 0.85."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    data = np.r_[0.6, 0.6, X[1:].ravel()]
    indices = np.r_[0, 0, np.tile(np.arange(5), 199)]
    indptr = np.r_[0, 2, 2 + 5 * np.arange(1, 200)]
    duplicated = sp.csr_matrix((data, indices, indptr), shape=(200, 5))
    dense = X.copy()
    dense[0] = [1.2, 0, 0, 0, 0]
    return duplicated, dense, y


def test_duplicate_entries_are_summed():
    duplicated, dense, y = unit_rows_with_duplicate()
    problem = privcd.Problem(duplicated, y, "hinge", "l2", 1e-3)
    assert problem.row_norms[0] == pytest.approx(1.2, rel=1e-15)
    with pytest.raises(ValueError, match=r"row of L2 norm 1\.2 \(row 0\)"):
        privcd.fit(problem, "dp-scd", epsilon=1, delta=1e-5, passes=2, step=0.5, clip=1)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_duplicates_give_the_dense_constants(fmt):
    duplicated, dense, y = unit_rows_with_duplicate()
    sparse = privcd.Problem(duplicated.asformat(fmt), y, "logistic")
    reference = privcd.Problem(dense, y, "logistic")
    np.testing.assert_allclose(sparse.M, reference.M, rtol=1e-15)
    np.testing.assert_allclose(sparse.row_norms, reference.row_norms, rtol=1e-15)
    assert sparse.beta == pytest.approx(reference.beta, rel=1e-12)


def test_callers_sparse_matrix_is_untouched():
    duplicated, _, y = unit_rows_with_duplicate()
    before = [duplicated.data.copy(), duplicated.indices.copy(), duplicated.indptr.copy()]
    problem = privcd.Problem(duplicated, y, "logistic")
    problem.columns, problem.rows  # noqa: B018  (both layouts built)
    for array, saved in zip((duplicated.data, duplicated.indices, duplicated.indptr), before):
        assert np.array_equal(array, saved)
        assert array.flags.writeable
    assert not any(np.shares_memory(a, b) for a in (duplicated.data, duplicated.indices, duplicated.indptr)
                   for b in (problem.X.data, problem.X.indices, problem.X.indptr))


@pytest.mark.parametrize("make", [np.asfortranarray, np.ascontiguousarray, sp.csr_matrix, sp.csc_matrix],
                         ids=["fortran", "c", "csr", "csc"])
def test_mutating_the_callers_arrays_changes_nothing(make):
    rng = np.random.default_rng(1)
    X = make(rng.normal(size=(60, 4)))
    y = np.where(rng.normal(size=60) > 0, 1.0, -1.0)
    problem = privcd.Problem(X, y, "logistic", "l2", 0.1)
    w = rng.normal(size=4)
    objective = problem.objective(w)
    run = privcd.fit(problem, "dp-cd", epsilon=np.inf, passes=2, step=0.5, clip=np.inf, seed=0)
    (X.data if sp.issparse(X) else X)[...] = np.nan
    y[:] = np.nan
    assert problem.objective(w) == objective
    again = privcd.fit(problem, "dp-cd", epsilon=np.inf, passes=2, step=0.5, clip=np.inf, seed=0)
    assert np.array_equal(again.w, run.w)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_owned_arrays_are_read_only(sparse):
    X = np.arange(12.0).reshape(4, 3) + 1
    problem = privcd.Problem(sp.csr_matrix(X) if sparse else X, [1.0, -1.0, 1.0, -1.0], "logistic")
    arrays = [problem.y]
    for stored in (problem.X, problem.columns, problem.rows):
        arrays += [stored.data, stored.indices, stored.indptr] if sparse else [stored]
    assert not any(array.flags.writeable for array in arrays)
    if not sparse:
        assert problem.columns is problem.X  # one owned copy for column access, not two


@pytest.mark.parametrize("scale", [0.0, 1e-300, 1e200])
@pytest.mark.parametrize("algorithm", ["dp-cd", "dp-sgd", "dp-gcd"])
def test_an_x_with_nothing_to_fit_or_beyond_float_range_is_an_error_not_nan_weights(scale, algorithm):
    rng = np.random.default_rng(0)
    problem = privcd.Problem(rng.normal(size=(30, 3)) * scale, np.where(rng.normal(size=30) > 0, 1.0, -1.0),
                             "logistic", constants="data")
    with pytest.raises(ValueError, match="X's squared entries sum to .* rescale X"):
        privcd.fit(problem, algorithm, epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=1.0)


def test_bad_run_lengths_and_checkpoints_are_named_before_anything_is_allocated():
    rng = np.random.default_rng(0)
    problem = privcd.Problem(rng.normal(size=(30, 3)), np.where(rng.normal(size=30) > 0, 1.0, -1.0), "logistic",
                             constants="data")
    with pytest.raises(ValueError, match="passes=1000000000000.0 asks for 3e\\+12 iterations"):
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1e12, step=1.0, clip=1.0)
    with pytest.raises(ValueError, match="checkpoints=0 must be an integer >= 1"):
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=1.0, checkpoints=0)


def test_complex_inputs_are_refused_not_truncated():
    X = np.ones((4, 2)) + 1j
    with pytest.raises(ValueError, match="X holds complex numbers"):
        privcd.Problem(X, [1.0, -1.0, 1.0, -1.0], "logistic")
    with pytest.raises(ValueError, match="y holds complex numbers"):
        privcd.Problem(np.ones((4, 2)), np.array([1, -1, 1, -1]) + 0j, "logistic")
    problem = privcd.Problem(np.eye(3), [1.0, -1.0, 1.0], "logistic")
    with pytest.raises(ValueError, match="w holds complex numbers"):
        problem.objective(np.ones(3) + 1j)


def test_a_diverging_run_warns_with_its_step():
    rng = np.random.default_rng(0)
    problem = privcd.Problem(rng.normal(size=(50, 4)), rng.normal(size=50), "squared", constants="data")
    with pytest.warns(privcd.DivergenceWarning, match="dp-sgd diverged.*step=1000.0"):
        run = privcd.fit(problem, "dp-sgd", epsilon=np.inf, passes=50, step=1e3, clip=np.inf)
    assert not np.all(np.isfinite(run.w))


def test_strided_weights_are_evaluated_in_one_layout():
    """A strided w is copied to a contiguous one at the boundary, so no input layout asks numba for
    another compilation (the dispatchers keep the signatures they compiled)."""
    from privcd.kernels.linalg import matvec_columns
    problem = privcd.Problem(np.eye(3) + 0.5, [1.0, -1.0, 1.0], "logistic")
    w = np.arange(6.0)[::2]
    problem.objective(np.ascontiguousarray(w))
    signatures = len(matvec_columns.signatures)
    assert problem.objective(w) == problem.objective(np.ascontiguousarray(w))
    assert len(matvec_columns.signatures) == signatures
