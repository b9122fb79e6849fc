"""numba's inliner, made to copy an inlined function's scope once per copy instead of once per block.

privcd's kernels inline their steps into their loops (``@njit(inline="always")``: a compiled call
would keep numba's reference counts of the loop's arrays). To inline a call, numba 0.68's
``InlineWorker.inline_ir`` copies the callee's IR twice, each time with one ``copy.deepcopy`` per
block. Every variable of a block refers to the function's ``Scope``, which holds every variable
of the function, so each block's copy copies the whole scope again: a copy costs blocks x
variables, and nested inlining repeats it at every call site (numba issues 8989 and 9204;
NVIDIA/numba-cuda issue 688 measures the same). DP-CD's first compile spent 12.1 of its 27 s
there (results/reference/README.md, session 51).

:func:`install` routes that one ``deepcopy`` through :func:`_copy_block`, which copies a block
with a memo already holding a copy of its scope, made once per copied function: the copied
blocks share one scope, as the original blocks do, and are otherwise the same IR (the same
statements, variables and locations; ``tests/test_numba_inlining.py`` compares them). The
compiled code is unchanged, and so are a run's bits. The patch applies only where numba's
source has the per-block copy it replaces (:data:`PER_BLOCK_COPY`); elsewhere :func:`install`
leaves numba alone and returns False.
"""
import copy
import functools
import inspect
import types

from numba.core import inline_closurecall, ir

PER_BLOCK_COPY = "new_block = copy.deepcopy(the_ir.blocks[block_label])"

_scope_memos = []  # one {id(scope): memo holding the scope's copy} per inline_ir call in progress


def _copy_block(block, memo=None):
    """``copy.deepcopy(block)``, with the copy of ``block.scope`` that the other blocks of the same
    function copied in this ``inline_ir`` call share (``copy.deepcopy`` itself for anything else)."""
    if memo is not None or not isinstance(block, ir.Block) or not _scope_memos:
        return copy.deepcopy(block, memo)
    memos = _scope_memos[-1]
    scope_memo = memos.get(id(block.scope))
    if scope_memo is None:
        scope_memo = {}
        copy.deepcopy(block.scope, scope_memo)
        memos[id(block.scope)] = scope_memo
    return copy.deepcopy(block, dict(scope_memo))


def _one_scope_copy_per_call(inline_ir):
    """``InlineWorker.inline_ir`` with a fresh set of scope copies for each call."""
    @functools.wraps(inline_ir)
    def wrapped(*args, **kwargs):
        _scope_memos.append({})
        try:
            return inline_ir(*args, **kwargs)
        finally:
            _scope_memos.pop()
    wrapped.privcd_one_scope_copy = True
    return wrapped


def install():
    """Patch numba's inliner (idempotent); True when it is (or already was) patched."""
    worker = inline_closurecall.InlineWorker
    if getattr(worker.inline_ir, "privcd_one_scope_copy", False):
        return True
    if inline_closurecall.copy is not copy or PER_BLOCK_COPY not in inspect.getsource(worker.inline_ir):
        return False
    inline_closurecall.copy = types.SimpleNamespace(**{**vars(copy), "deepcopy": _copy_block})
    worker.inline_ir = _one_scope_copy_per_call(worker.inline_ir)
    return True


INSTALLED = install()
