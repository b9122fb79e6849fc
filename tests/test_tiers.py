"""The test tiers: pyproject's ``-n auto`` distributes the default tier only (tests/conftest.py)."""
from types import SimpleNamespace

import pytest

from conftest import pytest_xdist_auto_num_workers


@pytest.mark.parametrize("markexpr", ["slow", "slow or not slow", ""])
def test_every_selection_but_the_default_tier_runs_in_one_process(markexpr):
    assert pytest_xdist_auto_num_workers(SimpleNamespace(option=SimpleNamespace(markexpr=markexpr))) == 0


def test_the_default_tier_gets_pytest_xdists_own_count():
    assert pytest_xdist_auto_num_workers(SimpleNamespace(option=SimpleNamespace(markexpr=" not slow "))) is None
