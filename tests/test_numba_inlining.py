"""numba's inliner, patched to copy an inlined function's scope once (:mod:`privcd.numba_inlining`),
copies the same IR and compiles the same results."""
import copy

import numpy as np
from numba import njit
from numba.core import compiler, inline_closurecall, ir

from privcd import numba_inlining


def _branchy(x, n):
    """A function of many blocks and variables, like a kernel's steps."""
    total = 0.0
    for i in range(n):
        if x[i] > 0.5:
            total += x[i] * 2.0
        elif x[i] > 0.25:
            total -= x[i]
        else:
            total += 1.0
    return total


def _block_dump(block):
    lines = []
    for statement in block.body:
        lines.append(f"{statement} @ {statement.loc.line}")
    return lines


def test_the_patch_is_installed_on_the_numba_it_was_written_for():
    """A failure here means numba's inliner changed: read its ``inline_ir`` again before relying on the patch."""
    assert numba_inlining.INSTALLED
    assert numba_inlining.install()  # idempotent
    assert inline_closurecall.copy.deepcopy is numba_inlining._copy_block
    assert inline_closurecall.InlineWorker.inline_ir.privcd_one_scope_copy


def test_a_patched_copy_is_numbas_per_block_copy_with_one_shared_scope():
    function_ir = compiler.run_frontend(_branchy)
    assert len(function_ir.blocks) > 5
    expected = {label: copy.deepcopy(block) for label, block in function_ir.blocks.items()}
    numba_inlining._scope_memos.append({})
    try:
        patched = {label: numba_inlining._copy_block(block) for label, block in function_ir.blocks.items()}
    finally:
        numba_inlining._scope_memos.pop()
    scopes = {id(block.scope) for block in patched.values()}
    assert len(scopes) == 1 and id(function_ir.blocks[0].scope) not in scopes
    shared = next(iter(patched.values())).scope
    assert shared == expected[0].scope  # same variables, by value
    for label in function_ir.blocks:
        assert _block_dump(patched[label]) == _block_dump(expected[label])
        for assignment in patched[label].find_insts(ir.Assign):
            assert assignment.target.scope is shared


def test_a_copy_outside_inlining_is_a_plain_deepcopy():
    function_ir = compiler.run_frontend(_branchy)
    block = function_ir.blocks[0]
    copied = numba_inlining._copy_block(block)
    assert copied.scope is not block.scope and _block_dump(copied) == _block_dump(block)
    assert numba_inlining._copy_block(3) == 3


@njit(inline="always")
def _inlined_branchy(x, n):
    return _branchy_jit(x, n) + 1.0


_branchy_jit = njit(inline="always")(_branchy)


@njit
def _caller(x):
    return _inlined_branchy(x, x.shape[0]) + _inlined_branchy(x[::-1], x.shape[0] // 2)


def test_a_function_with_nested_inlining_computes_the_python_result():
    x = np.random.default_rng(0).random(101)
    expected = (_branchy(x, 101) + 1.0) + (_branchy(x[::-1], 50) + 1.0)
    assert _caller(x) == expected
