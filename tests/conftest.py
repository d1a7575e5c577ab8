"""Shared fixtures: hand-built boards, a state-capture helper, hypothesis settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest
from hypothesis import HealthCheck, settings

import numsweeper as ns
from reference import DRY_RUN_MINES, HAND_MINES, capture, fixed_game

# The machine running the suite is shared and slow: no per-example deadline,
# and a modest number of examples (the numpy loops add thousands of cases).
settings.register_profile(
    "numsweeper",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("numsweeper")


@contextmanager
def _unchanged(game: ns.Game) -> Iterator[None]:
    before = capture(game)
    yield
    after = capture(game)
    assert after == before, "a rejected action changed the game"


@pytest.fixture
def unchanged() -> Callable[[ns.Game], AbstractContextManager[None]]:
    """``with unchanged(game), pytest.raises(...):`` asserts a rejected action changed nothing."""
    return _unchanged


@pytest.fixture
def dry_run_game() -> ns.Game:
    """The design's 4x4 dry run: mines at (0, 0) and (0, 1)."""
    return fixed_game(4, 4, DRY_RUN_MINES)


@pytest.fixture
def hand_board() -> ns.Board:
    """The hand-built 4x4 board of HAND_MINES."""
    return ns.Board.create(4, 4, len(HAND_MINES), ns.FixedPlacement(HAND_MINES))
