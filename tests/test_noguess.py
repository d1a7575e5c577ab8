"""No-guess boards: the exact decision, exact uniformity, never a guess, everywhere, errors."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy import stats

import numsweeper as ns
from numsweeper import cli
from numsweeper._rules import safe_zones
from numsweeper.solver import analyze

# A chi-square p-value below this fails.  The seeds are fixed, so the tests
# are deterministic; a biased sampler drives p-values far below this.
P_MIN = 1e-4

BEGINNER, INTERMEDIATE, EXPERT = (9, 9, 10), (16, 16, 40), (16, 30, 99)


def digest(mines: NDArray[np.bool_]) -> str:
    return hashlib.sha256(np.packbits(mines).tobytes()).hexdigest()[:16]


# -- plain references ---------------------------------------------------------------


def every_layout(rows: int, cols: int, mines: int | None = None) -> NDArray[np.bool_]:
    """Every layout with ``mines`` mines (any number when None), as (k, rows, cols)."""
    cells = rows * cols
    if mines is None:
        codes = np.arange(2**cells)
        flat = ((codes[:, None] >> np.arange(cells)) & 1).astype(bool)
    else:
        combos = np.array(list(itertools.combinations(range(cells), mines)))
        flat = np.zeros((len(combos), cells), dtype=bool)
        flat[np.arange(len(combos))[:, None], combos] = True
    return flat.reshape(-1, rows, cols)


def counts_of(layouts: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Adjacent-mine counts by summing the eight shifted copies (plain numpy)."""
    n, rows, cols = layouts.shape
    padded = np.pad(layouts.astype(np.int64), ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, rows, cols), dtype=np.int64)
    for dr, dc in itertools.product((-1, 0, 1), repeat=2):
        if dr or dc:
            out += padded[:, 1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    return out


def brute_no_guess(
    layouts: NDArray[np.bool_], click: tuple[int, int], universe: NDArray[np.bool_]
) -> NDArray[np.bool_]:
    """The definition, by enumeration: certain means true of every layout of ``universe``.

    ``universe`` is every layout with the board's mine count (the count is
    used) or every layout of any count (it is not).  From the click, reveal
    again and again every hidden cell that no universe layout consistent
    with the revealed numbers mines; no-guess when every safe cell shows.
    """
    n, rows, cols = layouts.shape
    world = universe.reshape(len(universe), -1)
    world_counts = counts_of(universe).reshape(len(universe), -1)
    flat = layouts.reshape(n, -1)
    counts = counts_of(layouts).reshape(n, -1)
    start = click[0] * cols + click[1]
    out = np.zeros(n, dtype=bool)
    for i in range(n):
        if flat[i, start]:
            continue
        revealed = np.zeros(rows * cols, dtype=bool)
        revealed[start] = True
        while True:
            # Zero cells open their neighbours, until nothing changes.
            while True:
                grid = revealed.reshape(rows, cols)
                zeros = np.pad(grid & (counts[i].reshape(rows, cols) == 0), 1)
                grown = grid.copy()
                for dr, dc in itertools.product((-1, 0, 1), repeat=2):
                    grown |= zeros[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
                if (grown == grid).all():
                    break
                revealed = grown.reshape(-1)
            fits = ~world[:, revealed].any(axis=1)
            fits &= (world_counts[:, revealed] == counts[i, revealed]).all(axis=1)
            certain = ~world[fits].any(axis=0) & ~revealed
            if not certain.any():
                break
            revealed = revealed | certain
        out[i] = revealed.sum() == rows * cols - flat[i].sum()
    return out


def won_by_certain_moves(layout: NDArray[np.bool_], click: tuple[int, int]) -> bool:
    """Play ``layout`` from ``click`` revealing only what ``analyze(...).safe`` lists."""
    rows, cols = layout.shape
    game = ns.Game.new(rows, cols, int(layout.sum()), strategy=ns.FixedPlacement(layout))
    shown = np.zeros((rows, cols), dtype=bool)
    shown[tuple(game.reveal(*click).cells.T)] = True
    while game.state is ns.GameState.IN_PROGRESS:
        safe = analyze(game).safe
        if not len(safe):
            return False
        for r, c in safe.tolist():
            if not shown[r, c]:  # (a flood may have shown it already)
                shown[tuple(game.reveal(r, c).cells.T)] = True
    return game.state is ns.GameState.WON


def candidates(
    rows: int, cols: int, mines: int, rule: str, click: tuple[int, int]
) -> NDArray[np.bool_]:
    """Every layout of the board that the rule allows for ``click``."""
    layouts = every_layout(rows, cols, mines)
    zone = safe_zones(rows, cols, np.array([click]), rule)
    assert zone is not None
    return layouts[~(layouts & zone).any(axis=(1, 2))]


# Each first-click rule, at a corner, an edge and inside.
SMALL_CASES = [
    ("safe", (0, 0)),
    ("safe", (2, 1)),
    ("opening", (0, 0)),
    ("opening", (1, 2)),
]


# -- the decision -------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "click"), SMALL_CASES)
def test_the_decision_is_the_definition_on_every_small_layout(
    rule: str, click: tuple[int, int]
) -> None:
    layouts = candidates(4, 5, 4, rule, click)
    expected = brute_no_guess(layouts, click, every_layout(4, 5, 4))
    assert 0 < expected.sum() < len(layouts)  # (both kinds are there)
    assert (ns.is_no_guess(layouts, click) == expected).all()


@pytest.mark.parametrize(
    ("rule", "click"), [("safe", (0, 0)), ("safe", (1, 1)), ("opening", (1, 2))]
)
def test_the_decision_without_the_mine_count_is_the_weaker_definition(
    rule: str, click: tuple[int, int]
) -> None:
    layouts = candidates(3, 5, 3, rule, click)
    expected = brute_no_guess(layouts, click, every_layout(3, 5))
    weak = ns.is_no_guess(layouts, click, use_mine_count=False)
    assert (weak == expected).all()
    # The count only adds certainties: every weakly no-guess layout is no-guess.
    assert (ns.is_no_guess(layouts, click) >= weak).all()


def test_the_mine_count_matters_for_some_layouts() -> None:
    # Two cells next to no number: the count says both are safe.
    layout = np.zeros((3, 5), dtype=bool)
    layout[:, 2] = True
    assert ns.is_no_guess(layout, (0, 0))
    assert not ns.is_no_guess(layout, (0, 0), use_mine_count=False)


@pytest.mark.parametrize(
    ("board", "rule", "click", "n"),
    [
        (BEGINNER, "safe", (0, 0), 600),
        (BEGINNER, "opening", (2, 2), 300),
        (INTERMEDIATE, "safe", (0, 0), 300),
        (EXPERT, "opening", (3, 3), 120),
        (EXPERT, "safe", (0, 0), 150),
    ],
)
def test_the_decision_agrees_with_play_by_the_exact_engine(
    board: tuple[int, int, int], rule: str, click: tuple[int, int], n: int
) -> None:
    # Uniform candidates, both kinds: the kernel's certificates and its
    # own proofs against revealing what analyze() calls safe, step by step.
    batch = ns.generate_boards(n, *board, seed=77, first_click=rule, click=click)
    decided = ns.is_no_guess(batch.mines, click)
    played = np.array([won_by_certain_moves(layout, click) for layout in batch.mines])
    assert 0 < played.sum() < n
    assert (decided == played).all()


def test_a_click_on_a_mine_is_not_no_guess() -> None:
    layout = np.array([[False, False, True]])
    assert not ns.is_no_guess(layout, (0, 2))
    assert ns.is_no_guess(layout, (0, 0))
    assert ns.is_no_guess(np.zeros((1, 1), dtype=bool), (0, 0))


def test_is_no_guess_takes_a_stack_and_a_click_per_board() -> None:
    layouts = ns.generate_boards(30, *BEGINNER, seed=3).mines
    clicks = np.array([np.argwhere(~m)[5] for m in layouts])
    one_by_one = [ns.is_no_guess(m, tuple(c)) for m, c in zip(layouts, clicks, strict=True)]
    assert ns.is_no_guess(layouts, clicks).tolist() == one_by_one
    assert all(isinstance(v, bool) for v in one_by_one)


@pytest.mark.parametrize(
    ("mines", "click", "error", "message"),
    [
        (np.zeros((2, 2), dtype=int), (0, 0), ns.InvalidBoardError, "bool array"),
        (np.zeros(4, dtype=bool), (0, 0), ns.InvalidBoardError, "2-D or 3-D"),
        (np.zeros((2, 2), dtype=bool), (0, 2), ns.OutOfBoundsError, "off the 2x2 board"),
        (np.zeros((2, 2), dtype=bool), (0, 0, 0), ns.InvalidBoardError, "shape"),
        (np.zeros((2, 2), dtype=bool), (0.0, 1.0), ns.InvalidTypeError, "integers"),
    ],
)
def test_is_no_guess_rejects_bad_input(mines: Any, click: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        ns.is_no_guess(mines, click)
    with pytest.raises(ns.InvalidTypeError, match=r"use_mine_count must be a bool, got 1$"):
        ns.is_no_guess(np.zeros((2, 2), dtype=bool), (0, 0), use_mine_count=1)  # type: ignore[arg-type]


# -- exact uniformity -----------------------------------------------------------------


@pytest.mark.parametrize(("rule", "click"), SMALL_CASES)
def test_uniform_boards_are_exactly_uniform_over_the_no_guess_layouts(
    rule: str, click: tuple[int, int]
) -> None:
    layouts = candidates(4, 5, 4, rule, click)
    no_guess = layouts[brute_no_guess(layouts, click, every_layout(4, 5, 4))]
    index = {bytes(np.packbits(m)): i for i, m in enumerate(no_guess)}
    n = 20_000
    strategy = ns.NoGuessPlacement(seed=2024)
    boards = ns.generate_boards(n, 4, 5, 4, strategy=strategy, first_click=rule, click=click)
    drawn = np.array([index.get(bytes(np.packbits(m)), -1) for m in boards.mines])
    assert (drawn >= 0).all(), "a board outside the no-guess set"
    observed = np.bincount(drawn, minlength=len(no_guess))
    assert stats.chisquare(observed).pvalue > P_MIN


def test_uniform_boards_are_uniform_over_per_board_clicks() -> None:
    # One batch, two clicks: each group is uniform over its own set.
    clicks = np.array([(0, 0), (1, 2)] * 6_000)
    boards = ns.generate_boards(
        len(clicks),
        4,
        5,
        4,
        strategy=ns.NoGuessPlacement(seed=5),
        first_click="opening",
        click=clicks,
    )
    for click in [(0, 0), (1, 2)]:
        layouts = candidates(4, 5, 4, "opening", click)
        no_guess = layouts[brute_no_guess(layouts, click, every_layout(4, 5, 4))]
        index = {bytes(np.packbits(m)): i for i, m in enumerate(no_guess)}
        mine = boards.mines[(clicks == click).all(axis=1)]
        drawn = np.array([index.get(bytes(np.packbits(m)), -1) for m in mine])
        assert (drawn >= 0).all()
        assert stats.chisquare(np.bincount(drawn, minlength=len(no_guess))).pvalue > P_MIN


# -- never a guess ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "rule", "click", "n", "method"),
    [
        (BEGINNER, "safe", (0, 0), 1000, "uniform"),
        (BEGINNER, "opening", (2, 2), 1000, "uniform"),
        (INTERMEDIATE, "safe", (0, 0), 1000, "uniform"),
        (INTERMEDIATE, "opening", (2, 2), 1000, "uniform"),
        (EXPERT, "opening", (3, 3), 150, "uniform"),
        (EXPERT, "safe", (0, 0), 150, "uniform"),
        (BEGINNER, "safe", (0, 0), 500, "fast"),
        (INTERMEDIATE, "opening", (2, 2), 300, "fast"),
        (EXPERT, "opening", (3, 3), 150, "fast"),
    ],
)
def test_every_board_is_won_by_certain_moves(
    board: tuple[int, int, int], rule: str, click: tuple[int, int], n: int, method: str
) -> None:
    strategy = ns.NoGuessPlacement(seed=n, method=method)
    batch = ns.generate_boards(n, *board, strategy=strategy, first_click=rule, click=click)
    assert (batch.mines.sum(axis=(1, 2)) == board[2]).all()
    zone = safe_zones(board[0], board[1], np.array([click]), rule)
    assert not (batch.mines & zone).any()
    assert len({bytes(np.packbits(m)) for m in batch.mines}) == n  # (no board handed out twice)
    for layout in batch.mines:
        assert won_by_certain_moves(layout, click)


def test_boards_without_the_mine_count_are_no_guess_for_it() -> None:
    strategy = ns.NoGuessPlacement(seed=4, use_mine_count=False)
    batch = ns.generate_boards(300, *BEGINNER, strategy=strategy, first_click="safe", click=(0, 0))
    assert ns.is_no_guess(batch.mines, (0, 0), use_mine_count=False).all()


def test_known_boards_of_a_seed() -> None:
    # Pins the order in which candidates are drawn and merged.
    strategy = ns.NoGuessPlacement(seed=2024)
    batch = ns.generate_boards(50, *EXPERT, strategy=strategy, first_click="opening", click=(8, 15))
    assert digest(batch.mines) == "0852c64fa0cbe17f"
    strategy = ns.NoGuessPlacement(seed=2024, method="fast")
    batch = ns.generate_boards(50, *EXPERT, strategy=strategy, first_click="opening", click=(8, 15))
    assert digest(batch.mines) == "9c5868666bac050e"


# -- reproducibility ----------------------------------------------------------------


@pytest.mark.parametrize("method", ["uniform", "fast"])
def test_same_boards_for_any_number_of_workers(method: str) -> None:
    # Expert from a corner: about 1 candidate in 20 passes, so several blocks.
    one = ns.NoGuessPlacement(seed=9, method=method)
    two = ns.NoGuessPlacement(seed=9, method=method)
    args = (120, *EXPERT)
    kwargs: dict[str, Any] = {"first_click": "safe", "click": (0, 0)}
    a = ns.generate_boards(*args, strategy=one, workers=1, **kwargs)
    b = ns.generate_boards(*args, strategy=two, workers=2, **kwargs)
    assert (a.mines == b.mines).all()
    # The strategies' streams moved on alike: the next call agrees too.
    clicks = np.array([(0, 0), (8, 15), (3, 3)] * 10)
    kwargs = {"first_click": "opening", "click": clicks}
    c = ns.generate_boards(30, *EXPERT, strategy=one, workers=1, **kwargs)
    d = ns.generate_boards(30, *EXPERT, strategy=two, workers=2, **kwargs)
    assert (c.mines == d.mines).all()


def test_same_seed_same_boards_and_with_seed() -> None:
    def boards(strategy: ns.NoGuessPlacement) -> NDArray[np.bool_]:
        return ns.generate_boards(
            20, *BEGINNER, strategy=strategy, first_click="safe", click=(0, 0)
        ).mines

    assert (boards(ns.NoGuessPlacement(seed=1)) == boards(ns.NoGuessPlacement(seed=1))).all()
    assert (
        boards(ns.NoGuessPlacement(seed=0).with_seed(1)) == boards(ns.NoGuessPlacement(seed=1))
    ).all()
    assert not (boards(ns.NoGuessPlacement(seed=1)) == boards(ns.NoGuessPlacement(seed=2))).all()
    twin = ns.NoGuessPlacement(seed=0, method="fast", max_attempts=7, use_mine_count=False)
    twin = twin.with_seed(3)
    assert (twin.method, twin.max_attempts, twin.use_mine_count) == ("fast", 7, False)


def test_the_default_uniform_boards_ignore_workers() -> None:
    # Only strategies that opt in use workers; the default sampler's boards
    # are the same (and still pinned in test_batch.py).
    a = ns.generate_boards(500, *EXPERT, seed=2024)
    b = ns.generate_boards(500, *EXPERT, seed=2024, workers=2)
    assert (a.mines == b.mines).all()
    with pytest.raises(ValueError, match="workers must be >= 1"):
        ns.generate_boards(5, *EXPERT, seed=1, workers=0)


# -- failures -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mines", "rule", "click"),
    [
        # 79 of 81 cells: the one safe cell besides the click can never be
        # told apart, so no layout is no-guess.
        (79, "safe", (4, 4)),
        (79, "safe", (0, 0)),
        # 70: no-guess layouts exist ('fast' finds them) but are far rarer
        # than 1 in 10,000.
        (70, "safe", (4, 4)),
        (70, "opening", (0, 0)),
    ],
)
def test_a_hopeless_density_fails_fast_and_cleanly(
    mines: int, rule: str, click: tuple[int, int]
) -> None:
    strategy = ns.NoGuessPlacement(seed=1)
    began = time.perf_counter()
    with pytest.raises(ns.GenerationError) as caught:
        ns.generate_boards(100, 9, 9, mines, strategy=strategy, first_click=rule, click=click)
    assert time.perf_counter() - began < 5
    message = str(caught.value)
    assert "no no-guess layout in 10,000 attempts" in message
    density = f"{mines / 81:.1%}"
    assert f"9x9 board with {mines} mines (density {density})" in message
    # Cleanly: the strategy that gave up still lays no-guess boards.
    batch = ns.generate_boards(3, 9, 9, 10, strategy=strategy, first_click=rule, click=click)
    assert (batch.mines.sum(axis=(1, 2)) == 10).all()
    assert not batch.mines[:, click[0], click[1]].any()
    assert ns.is_no_guess(batch.mines, click).all()


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda s, z: s.place(9, 9, 10, safe=z, click=(0.0, 0.0)), TypeError, "got dtype float64"),
        (lambda s, z: s.place(9, 9, 10, safe=z, click=(True, False)), TypeError, "dtype bool"),
        (lambda s, z: s.place(9, 9, 10, safe=z, click="00"), ns.InvalidBoardError, "'00'"),
        (lambda s, z: s.place(9, 9, -1, safe=z, click=(0, 0)), ns.InvalidBoardError, "got -1"),
        (lambda s, z: s.place(9, 9, 10.0, safe=z, click=(0, 0)), ns.InvalidTypeError, "got 10.0"),
        (lambda s, z: s.place(9, 9, True, safe=z, click=(0, 0)), ns.InvalidTypeError, "got True"),
        (lambda s, z: s.place(-1, 9, 10, safe=z, click=(0, 0)), ns.InvalidBoardError, "rows"),
        (
            lambda s, z: s.place(9, 9, 10, safe=z.astype(np.int64), click=(0, 0)),
            ns.InvalidTypeError,
            "safe must be a bool array of shape (9, 9), got int64 (9, 9)",
        ),
        (
            lambda s, z: s.place_batch(1, 9, 9, 10, safe=z[None], clicks=np.zeros((1, 2))),
            ns.InvalidTypeError,
            "clicks must hold integers, got dtype float64",
        ),
        (
            lambda s, z: s.place_batch(
                1, 9, 9, 10, safe=z[None], clicks=np.zeros((1, 2), int), workers=0
            ),
            ns.InvalidBoardError,
            "workers must be >= 1, got 0",
        ),
        (
            lambda s, z: s.place(9, 9, 10, safe=z, click=list(range(10_000))),
            ns.InvalidBoardError,
            "click must be one (row, col) pair, got [0, 1, 2, 3,",
        ),
        (
            lambda s, z: s.place_batch(-1, 9, 9, 10, safe=z[None], clicks=np.zeros((1, 2), int)),
            ns.InvalidBoardError,
            "n must be >= 0, got -1",
        ),
    ],
)
def test_direct_calls_check_their_arguments(call: Any, error: type, message: str) -> None:
    strategy = ns.NoGuessPlacement(seed=1)
    state = strategy.rng.bit_generator.state
    zone = np.zeros((9, 9), dtype=bool)
    zone[0, 0] = True
    with pytest.raises(error, match=re.escape(message)):
        call(strategy, zone)
    assert strategy.rng.bit_generator.state == state  # nothing drawn


def test_a_huge_max_attempts_is_no_limit() -> None:
    for limit in (sys.maxsize, 2**63, 10**20):
        strategy = ns.NoGuessPlacement(seed=1, max_attempts=limit)
        batch = ns.generate_boards(4, 9, 9, 10, strategy=strategy, first_click="safe", click=(0, 0))
        assert ns.is_no_guess(batch.mines, (0, 0)).all()


def test_a_dense_board_that_has_no_guess_layouts_gets_them() -> None:
    # An opening in the middle of 9x9 leaves 2 safe cells among 72: about
    # 4% of those layouts show both by logic, so 70 mines is not impossible.
    strategy = ns.NoGuessPlacement(seed=1)
    batch = ns.generate_boards(20, 9, 9, 70, strategy=strategy, first_click="opening", click=(4, 4))
    assert all(won_by_certain_moves(layout, (4, 4)) for layout in batch.mines)
    # A game keeps no half-laid board: it is still waiting for its mines.
    game = ns.Game.new(
        9, 9, 70, strategy=ns.NoGuessPlacement(seed=1, max_attempts=20), first_click="safe"
    )
    with pytest.raises(ns.GenerationError, match="in 20 attempts"):
        game.reveal(4, 4)
    assert game.state is ns.GameState.IN_PROGRESS and game.moves == ()


def test_running_short_partway_names_what_was_found() -> None:
    # About 1 candidate in 20 passes: 10 attempts per board run out partway.
    strategy = ns.NoGuessPlacement(seed=3, max_attempts=10)
    with pytest.raises(
        ns.GenerationError, match=r"only \d+ of 200 no-guess layouts in [\d,]+ attempts"
    ):
        ns.generate_boards(200, *EXPERT, strategy=strategy, first_click="safe", click=(0, 0))


def test_no_guess_needs_a_first_click_rule() -> None:
    strategy = ns.NoGuessPlacement(seed=1)
    needs = "needs a first-click rule"
    with pytest.raises(ns.InvalidBoardError, match=needs):
        ns.Game.new(9, 9, 10, strategy=strategy)
    with pytest.raises(ns.InvalidBoardError, match=needs):
        ns.generate_boards(3, 9, 9, 10, strategy=strategy)
    with pytest.raises(ns.InvalidBoardError, match=needs):
        ns.BatchGame.new(3, 9, 9, 10, strategy=strategy)
    with pytest.raises(ns.InvalidBoardError, match=needs):
        ns.Board.create(9, 9, 10, strategy)
    with pytest.raises(ns.InvalidBoardError, match=needs):
        strategy.place(9, 9, 10, safe=np.zeros((9, 9), dtype=bool))
    zone = np.zeros((1, 9, 9), dtype=bool)
    with pytest.raises(ns.InvalidBoardError, match="must be kept safe"):
        strategy.place_batch(1, 9, 9, 10, safe=zone, clicks=np.array([[0, 0]]))
    zone[0, 0, 0] = True
    with pytest.raises(ns.InvalidBoardError, match=r"mines must be in 0\.\.80 for a 9x9 board"):
        strategy.place_batch(1, 9, 9, 81, safe=zone, clicks=np.array([[0, 0]]))
    opening = zone.copy()
    opening[0, :2, :2] = True
    with pytest.raises(ns.InvalidBoardError, match="cannot place 78 mines: only 77 of 81"):
        strategy.place_batch(1, 9, 9, 78, safe=opening, clicks=np.array([[0, 0]]))
    with pytest.raises(ns.OutOfBoundsError, match="off the 9x9 board"):
        strategy.place_batch(1, 9, 9, 10, safe=zone, clicks=np.array([[9, 0]]))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"method": "slow"},
            ns.InvalidBoardError,
            "method must be 'uniform' or 'fast', got 'slow'",
        ),
        ({"method": None}, ns.InvalidBoardError, "method must be 'uniform' or 'fast', got None"),
        ({"max_attempts": 0}, ns.InvalidBoardError, "max_attempts must be >= 1, got 0"),
        ({"max_attempts": -5}, ns.InvalidBoardError, "max_attempts must be >= 1, got -5"),
        ({"max_attempts": 1.5}, ns.InvalidTypeError, "max_attempts must be an integer, got 1.5"),
        (
            {"use_mine_count": "yes"},
            ns.InvalidTypeError,
            "use_mine_count must be a bool, got 'yes'",
        ),
        ({"seed": -1}, ns.InvalidBoardError, "seed"),
    ],
)
def test_bad_parameters_are_refused(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        ns.NoGuessPlacement(**kwargs)


def test_a_long_bad_method_is_named_short() -> None:
    with pytest.raises(ns.InvalidBoardError) as info:
        ns.NoGuessPlacement(method="s" * 10_000)
    assert str(info.value) == "method must be 'uniform' or 'fast', got '" + "s" * 76 + "..."


# -- everywhere a strategy goes ------------------------------------------------------


def test_game_new_lays_a_no_guess_board_at_the_first_reveal() -> None:
    strategy = ns.NoGuessPlacement(seed=1)
    game = ns.Game.new(*EXPERT, strategy=strategy, first_click="opening")
    assert game.board is None
    game.reveal(3, 3)
    assert game.strategy is strategy and game.board is not None
    assert won_by_certain_moves(game.board.mines, (3, 3))


def test_batchgame_lays_no_guess_boards_at_each_first_reveal() -> None:
    strategy = ns.NoGuessPlacement(seed=2)
    games = ns.BatchGame.new(40, *BEGINNER, strategy=strategy, first_click="safe")
    rows, cols = np.arange(40) % 9, (np.arange(40) * 4) % 9
    games.reveal(rows, cols)
    assert ns.is_no_guess(games.mines, np.stack([rows, cols], axis=1)).all()
    dealt = np.arange(40) < 10
    games.reset(dealt)
    games.reveal(np.zeros(40, dtype=int), np.zeros(40, dtype=int), active=dealt)
    assert ns.is_no_guess(games.mines[dealt], (0, 0)).all()


def test_simulate_with_no_guess_boards() -> None:
    strategy = ns.NoGuessPlacement(seed=0)
    options: dict[str, Any] = {"policy": "solver", "first_click": "safe", "chunk_size": 100}
    one = ns.simulate(300, *BEGINNER, strategy=strategy, seed=4, **options)
    two = ns.simulate(300, *BEGINNER, strategy=strategy, seed=4, workers=2, **options)
    assert (one.records == two.records).all()
    assert one.strategy == "NoGuessPlacement" and "strategy     NoGuessPlacement" in one.summary()
    # The solver plays certain cells first, so it never has to guess here.
    assert one.records["won"].all()
    random_clicks = ns.simulate(
        200, *INTERMEDIATE, policy="first_click_only", strategy=strategy, seed=1
    )
    assert random_clicks.games == 200


def test_iter_boards_streams_no_guess_boards() -> None:
    strategy = ns.NoGuessPlacement(seed=6)
    chunks = list(
        ns.iter_boards(
            50, *BEGINNER, strategy=strategy, chunk_size=20, first_click="safe", click=(0, 0)
        )
    )
    assert [len(c) for c in chunks] == [20, 20, 10]
    assert all(ns.is_no_guess(c.mines, (0, 0)).all() for c in chunks)


# -- the strategy protocol ------------------------------------------------------------


class TopRow(ns.MinePlacementStrategy):
    """A strategy of the kind users write: ``place`` only, not told clicks."""

    def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> Any:
        layout = np.zeros((rows, cols), dtype=bool)
        layout.flat[rows * cols - mines :] = True
        return layout


class Told(ns.MinePlacementStrategy):
    """A strategy that opts in to the first click, with ``place`` only."""

    uses_click = True

    def __init__(self) -> None:
        self.clicks: list[Any] = []

    def place(
        self, rows: int, cols: int, mines: int, *, safe: Any = None, click: Any = None
    ) -> Any:
        self.clicks.append(click)
        return TopRow().place(rows, cols, mines)


def test_strategies_that_do_not_opt_in_are_called_as_before() -> None:
    game = ns.Game.new(3, 3, 1, strategy=TopRow(), first_click="safe")
    game.reveal(0, 0)
    games = ns.BatchGame.new(2, 3, 3, 1, strategy=TopRow(), first_click="safe")
    games.reveal(0, 0)
    batch = ns.generate_boards(
        2, 3, 3, 1, strategy=TopRow(), first_click="safe", click=(0, 0), workers=2
    )
    assert batch.mines[:, 2, 2].all()


def test_strategies_that_opt_in_are_told_the_clicks() -> None:
    told = Told()
    ns.Game.new(3, 3, 1, strategy=told, first_click="safe").reveal(1, 0)
    ns.BatchGame.new(2, 3, 3, 1, strategy=told, first_click="safe").reveal(
        np.array([0, 1]), np.array([1, 0])
    )
    ns.generate_boards(2, 3, 3, 1, strategy=told, first_click="safe", click=[(0, 0), (0, 1)])
    ns.generate_boards(1, 3, 3, 1, strategy=told)
    assert told.clicks == [(1, 0), (0, 1), (1, 0), (0, 0), (0, 1), None]
    assert not ns.RandomPlacement.uses_click and not ns.RandomPlacement.uses_workers
    assert ns.NoGuessPlacement.uses_click and ns.NoGuessPlacement.uses_workers


def test_repr_and_properties() -> None:
    strategy = ns.NoGuessPlacement(seed=1, method="fast", max_attempts=50)
    assert repr(strategy).startswith(
        "NoGuessPlacement(method='fast', max_attempts=50, use_mine_count=True"
    )
    assert isinstance(strategy.rng, np.random.Generator)
    assert ns.NoGuessPlacement(seed=1).method == "uniform"


# -- the command line -----------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_simulate_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    board = ["--preset", "beginner", "--seed", "3"]
    argv = ["simulate", *board, "--games", "200", "--policy", "solver"]
    code, out, err = run(capsys, *argv, "--no-guess")
    assert code == 0 and err == ""
    assert "strategy     NoGuessPlacement" in out and "win rate     100.00%" in out
    expected = ns.simulate(200, *BEGINNER, policy="solver", seed=3, strategy=ns.NoGuessPlacement())
    assert expected.summary().splitlines()[4] in out.splitlines()
    code, out, err = run(capsys, *argv, "--no-guess", "fast")
    assert code == 0 and "win rate     100.00%" in out
    code, out, err = run(capsys, *argv, "--no-guess", "--first-click", "none")
    assert code == 2 and "--no-guess needs --first-click safe or opening" in err


def test_cli_stats_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    board = ["--preset", "beginner", "--seed", "2"]
    argv = ["stats", *board, "--boards", "500", "--chunk-size", "200"]
    code, out, err = run(capsys, *argv, "--first-click", "safe", "--click", "0", "0", "--no-guess")
    assert code == 0 and err == ""
    assert out.splitlines()[0].endswith("first click safe at (0, 0), no-guess (uniform)")
    # The same boards as iter_boards with the same chunks and seeds.
    root = np.random.SeedSequence(2)
    total = 0
    for size, child in zip([200, 200, 100], root.spawn(3), strict=True):
        boards = ns.generate_boards(
            size, *BEGINNER, strategy=ns.NoGuessPlacement(child), first_click="safe", click=(0, 0)
        )
        total += int(ns.metrics.three_bv(boards).sum())
    mean = next(line for line in out.splitlines() if line.startswith("3BV ")).split()[1]
    assert float(mean) == pytest.approx(total / 500, abs=0.005)
    code, out, err = run(capsys, *argv, "--no-guess")
    assert code == 2 and "--no-guess needs --first-click safe or opening" in err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_cli_reports_a_board_without_no_guess_layouts(
    workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    board = ["--rows", "9", "--cols", "9", "--mines", "79", "--seed", "1", "--workers", workers]
    board += ["--chunk-size", "10"]  # (two chunks: no note that a worker would idle)
    for argv in (
        ["simulate", *board, "--games", "20", "--first-click", "safe", "--no-guess"],
        ["stats", *board, "--boards", "20", "--first-click", "safe", "--click", "0", "0"]
        + ["--no-guess", "--max-attempts", "50"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert err.startswith(f"numsweeper {argv[0]}: error: no no-guess layout in ")
        assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "in 50 attempts (max_attempts=50 per board)" in err


def test_cli_max_attempts_needs_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "--preset", "beginner", "--max-attempts", "5")
    assert code == 2 and "--max-attempts needs --no-guess" in err
    argv = ["simulate", "--preset", "beginner", "--no-guess", "--max-attempts", "0"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "--max-attempts must be >= 1, got 0" in err


# -- the kernels' source --------------------------------------------------------------

#: Runs the kernel over candidates of several sizes, with and without the mine
#: count and repairs, and prints a digest of every status, state and layout.
_KERNEL = """
import hashlib
import numpy as np
import numsweeper as ns
from numsweeper import noguess
out = []
cases = [((4, 5, 4), "safe", (2, 1), 200), ((9, 9, 10), "opening", (2, 2), 30),
         ((16, 30, 99), "safe", (0, 0), 4), ((9, 9, 70), "opening", (4, 4), 30)]
for board, rule, click, n in cases:
    batch = ns.generate_boards(n, *board, seed=8, first_click=rule, click=click)
    for use_count in (True, False):
        for repairs in (0, 3):
            mines, counts = batch.mines.copy(), batch.counts.copy()
            clicks = np.tile(np.array(click, dtype=np.intp), (n, 1))
            todo = np.zeros_like(mines)
            todo[:, click[0], click[1]] = True
            revealed, known = np.zeros_like(mines), np.zeros_like(mines)
            noise = np.random.default_rng(1).random((n, 2 * repairs))
            status = noguess._decide_kernel(
                mines, counts, clicks, todo, revealed, known, use_count, 20_000, repairs, noise
            )
            out += [a.tobytes().hex() for a in (status, revealed, known, mines, counts)]
print(hashlib.sha256(repr(out).encode()).hexdigest())
"""


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_kernels_run_uncompiled_with_the_same_results() -> None:
    # One source: the kernel's code, run as plain Python, decides alike.
    compiled = _run(_KERNEL)
    uncompiled = _run(_KERNEL, NUMBA_DISABLE_JIT="1")
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    assert uncompiled.returncode == 0, uncompiled.stderr[-3000:]
    assert compiled.stdout == uncompiled.stdout


def test_the_kernels_stay_in_bounds(tmp_path: Path) -> None:
    # numba does not check indices: compiled afresh (into a scratch cache)
    # with its bounds checks on, the kernel decides alike, no IndexError.
    checked = _run(_KERNEL, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert checked.stdout == _run(_KERNEL).stdout


def test_a_lazy_kernel_says_on_stderr_when_it_compiles(tmp_path: Path) -> None:
    # The no-guess kernel compiles at its first call, inside `announced`;
    # a tiny kernel stands in for it (the real one takes about 20 s).
    script = tmp_path / "lazy.py"
    script.write_text(
        "from numsweeper.solver._jit import announced, subroutine\n"
        "@subroutine\n"
        "def twice(x):\n"
        "    return 2 * x\n"
        "with announced('twice', 'no-guess'):\n"
        "    assert twice(21) == 42\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "numsweeper: compiling the no-guess kernel twice (once per install)..." in run.stderr
    assert "twice compiled in" in run.stderr
