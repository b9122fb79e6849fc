"""The software prefetch of :mod:`privcd.kernels.prefetch`: a hint that changes no value, compiled to
a prefetch instruction, and requested by the DP-CD kernel on sparse X."""
import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from conftest import fresh_assembly, make_problem
from privcd.kernels.dispatch import loss_variant
from privcd.kernels.dp_cd import ORDER_UNIFORM, dp_cd
from privcd.kernels.layout import column_arrays, objective_codes
from privcd.kernels.prefetch import prefetch


@njit
def _sum_with_prefetch(values, ahead):
    total = 0.0
    for i in range(values.shape[0]):
        prefetch(values, i + ahead)  # past the end near the last entries: a dropped hint
        total += values[i]
    return total


@njit
def _prefetch_matrix(values):
    prefetch(values, 0)


def test_prefetch_changes_no_value_even_past_the_end_of_the_array():
    values = np.random.default_rng(0).normal(size=1_000)
    expected = _sum_with_prefetch(values, 0)
    for ahead in (1, 8, 10_000):
        assert _sum_with_prefetch(values, ahead) == expected
    assert expected == pytest.approx(values.sum())


def test_prefetch_compiles_to_a_prefetch_instruction():
    values = np.zeros(16)
    _sum_with_prefetch(values, 8)
    assembly = _sum_with_prefetch.inspect_asm(_sum_with_prefetch.signatures[0])
    assert "prefetch" in assembly


def test_prefetch_takes_one_dimensional_arrays_only():
    with pytest.raises(TypingError):
        _prefetch_matrix(np.zeros((2, 2)))


@pytest.mark.slow
def test_dp_cd_requests_the_columns_ahead_on_sparse_x():
    problem = make_problem("squared", "l2", 0.1, sparse=True)
    p = problem.n_features
    parameters = np.full(p, 0.1)
    assembly = fresh_assembly(dp_cd, column_arrays(problem), problem.y, objective_codes(problem),
                              (parameters, parameters, parameters), 10, 0, np.array([0, 10]),
                              np.random.default_rng(0), np.zeros(p), ORDER_UNIFORM, 0, True, None, None,
                              *loss_variant(problem.loss.code))
    assert sum(line.strip().startswith("prefetch") for line in assembly.splitlines()) >= 7  # column + parameters
