"""Game: the seed dry run, rules against the BFS reference, snapshots, chords, first clicks."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import given, target
from hypothesis import strategies as st
from scipy import stats

import numsweeper as ns
from reference import (
    IN_PROGRESS,
    RefGame,
    capture,
    fixed_game,
    neighbours,
    random_dims,
    random_layout,
)

Unchanged = Callable[[ns.Game], AbstractContextManager[None]]
S = ns.GameState


@contextmanager
def only_a_move_recorded(game: ns.Game, kind: str) -> Iterator[None]:
    """Asserts the block changed nothing but record one ``kind`` move: an accepted no-op."""
    before, moves = capture(game, history=False), game.moves
    yield
    assert capture(game, history=False) == before
    assert game.moves[:-1] == moves and game.moves[-1].kind == kind


def grid(text: str) -> str:
    """Strip a triple-quoted grid's indentation."""
    return "\n".join(line.strip() for line in text.strip().splitlines())


# -- the seeds' dry run ----------------------------------------------------------


def test_dry_run_flag_then_flood_wins(dry_run_game: ns.Game, unchanged: Unchanged) -> None:
    game = dry_run_game
    assert game.state is S.IN_PROGRESS
    assert game.toggle_flag(0, 0) is True
    result = game.reveal(3, 3)
    # The published table says IN_PROGRESS; the rules say all 14 safe cells
    # are flooded, so the game is WON.
    expected = [(r, c) for r in range(4) for c in range(4) if r > 0 or c > 1]
    assert [tuple(cell) for cell in result.cells.tolist()] == expected
    assert len(result) == 14
    assert result.state is S.WON and game.state is S.WON
    with unchanged(game), pytest.raises(ns.GameOverError, match="WON"):
        game.reveal(0, 1)
    with unchanged(game), pytest.raises(ns.GameOverError, match="WON"):
        game.toggle_flag(2, 2)
    with unchanged(game), pytest.raises(ns.GameOverError, match="WON"):
        game.chord(1, 1)
    assert str(game) == grid(
        """
        FF1.
        221.
        ....
        ....
        """
    )


def test_dry_run_losing_path(dry_run_game: ns.Game, unchanged: Unchanged) -> None:
    game = dry_run_game
    game.toggle_flag(0, 0)
    result = game.reveal(0, 1)
    assert result.state is S.LOST and game.state is S.LOST
    assert result.cells.tolist() == [[0, 1]]
    snap = game.snapshot()
    assert snap.cells[0, 1] == ns.EXPLODED
    assert snap.cells[0, 0] == ns.FLAG
    assert (snap.cells[1:] == ns.HIDDEN).all() and (snap.cells[0, 2:] == ns.HIDDEN).all()
    assert snap.state is S.LOST and snap.mines_left == 1
    for action in (game.reveal, game.toggle_flag, game.chord):
        for cell in [(3, 3), (0, 0), (0, 1)]:
            with unchanged(game), pytest.raises(ns.GameOverError, match="LOST"):
                action(*cell)
    assert game.state is S.LOST


# -- the rules against the reference, on thousands of boards ---------------------


def check_same(game: ns.Game, ref: RefGame) -> None:
    snap = game.snapshot()
    assert snap.cells.tolist() == ref.visible()
    assert snap.state.name == ref.state == game.state.name
    assert snap.mines_left == ref.mines_left
    assert game.board is not None
    assert game.board.hidden_safe == ref.hidden_safe


def check_result(result: ns.RevealResult, expected: list[tuple[int, int]], ref: RefGame) -> None:
    cells = result.cells
    assert cells.ndim == 2 and cells.shape[1] == 2
    assert np.issubdtype(cells.dtype, np.integer)
    assert [tuple(c) for c in cells.tolist()] == expected  # row-major, no duplicates
    assert result.state.name == ref.state


def pick(rng: np.random.Generator, mask: np.ndarray) -> tuple[int, int] | None:
    cells = np.argwhere(mask)
    if not len(cells):
        return None
    r, c = cells[rng.integers(len(cells))]
    return int(r), int(c)


def play_random(
    game: ns.Game, rng: np.random.Generator, steps: int, tally: Counter[str] | None = None
) -> RefGame | None:
    """Play random legal actions on ``game`` and a reference twin; compare after each.

    ``tally`` counts the chords that opened safe cells and the chords that lost.
    """
    ref: RefGame | None = None
    if game.board is not None:
        ref = RefGame(game.board.mines.tolist())
    pending_flags: list[tuple[int, int]] = []
    for _ in range(steps):
        if game.state is not S.IN_PROGRESS:
            break
        rows, cols = game.rows, game.cols
        if ref is None:  # a first-click rule has not laid the mines yet
            cell = pick(rng, np.ones((rows, cols), dtype=bool))
            assert cell is not None
            if rng.random() < 0.3:
                flag = game.toggle_flag(*cell)
                pending_flags = [f for f in pending_flags if f != cell] + ([cell] if flag else [])
                continue
            if cell in pending_flags:
                continue
            result = game.reveal(*cell)
            assert game.board is not None
            ref = RefGame(game.board.mines.tolist())
            for r, c in pending_flags:
                ref.toggle_flag(r, c)
            check_result(result, ref.reveal(*cell), ref)
            check_same(game, ref)
            continue
        mines = np.array(ref.mines)
        revealed = np.array(ref.revealed)
        flagged = np.array(ref.flagged)
        hidden = ~revealed & ~flagged
        roll = rng.random()
        if roll < 0.45:
            # Mostly safe reveals, so that games get deep; sometimes any cell.
            cell = pick(rng, hidden & ~mines) if rng.random() < 0.9 else pick(rng, hidden)
            if cell is None:
                continue
            check_result(game.reveal(*cell), ref.reveal(*cell), ref)
        elif roll < 0.7:
            cell = pick(rng, ~revealed & (mines if rng.random() < 0.75 else True))
            if cell is None:
                continue
            assert game.toggle_flag(*cell) == ref.toggle_flag(*cell)
        elif roll < 0.93:
            if rng.random() < 0.25:  # any cell: mostly no-ops
                cell = pick(rng, revealed) if rng.random() < 0.8 else pick(rng, ~revealed)
            else:  # a number whose mines are flagged (sometimes one wrongly), as a player chords
                cell = pick(rng, revealed & (np.array(ref.counts) > 0))
                if cell is not None:
                    for flag in ref.flags_for_chord(*cell, wrong=rng.random() < 0.2):
                        assert game.toggle_flag(*flag) == ref.toggle_flag(*flag)
            if cell is None:
                continue
            result = game.chord(*cell)
            check_result(result, ref.chord(*cell), ref)
            if tally is not None:
                tally["chord losses"] += result.state is S.LOST
                tally["productive chords"] += len(result) > 0 and result.state is not S.LOST
        else:
            cell = pick(rng, revealed)
            if cell is None:
                continue
            result = game.reveal(*cell)
            assert len(result) == 0 and result.state is S.IN_PROGRESS
            check_result(result, ref.reveal(*cell), ref)
        check_same(game, ref)
    return ref


def random_game(rng: np.random.Generator) -> ns.Game:
    rows, cols = random_dims(rng)
    rule = rng.choice(np.array([None, None, "safe", "opening"], dtype=object))
    if rule is None:
        return ns.Game(ns.Board(random_layout(rng, rows, cols)))
    limit = rows * cols - (1 if rule == "safe" else min(rows, 3) * min(cols, 3))
    mines = int(rng.integers(0, limit + 1))
    return ns.Game.new(rows, cols, mines, seed=rng, first_click=rule)


def test_game_matches_reference_on_thousands_of_boards() -> None:
    rng = np.random.default_rng(20261129)
    outcomes: Counter[str] = Counter()
    chords: Counter[str] = Counter()
    for _ in range(1500):
        game = random_game(rng)
        play_random(game, rng, steps=int(rng.integers(1, 25)), tally=chords)
        outcomes[game.state.name] += 1
    # The mix of actions reaches every outcome often, and chords both open
    # cells and lose (measured: 650 chords opened cells, 189 lost).
    assert min(outcomes.values()) > 150, outcomes
    assert chords["productive chords"] > 300 and chords["chord losses"] > 90, chords


@given(
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    seed=st.integers(0, 2**32),
    density=st.sampled_from([0.0, 0.03, 0.1, 0.2, 0.4]),
    steps=st.integers(1, 30),
)
def test_game_matches_reference_property(
    rows: int, cols: int, seed: int, density: float, steps: int
) -> None:
    rng = np.random.default_rng(seed)
    mines = rng.random((rows, cols)) < density
    if mines.all():
        mines[0, 0] = False
    play_random(ns.Game(ns.Board(mines)), rng, steps)


def nearest_chordable(ref: RefGame, row: int, col: int) -> tuple[int, int] | None:
    """The revealed number with a hidden neighbour nearest ``(row, col)``: a cell worth a chord."""
    found = [
        (abs(r - row) + abs(c - col), r, c)
        for r in range(ref.rows)
        for c in range(ref.cols)
        if ref.revealed[r][c]
        and ref.counts[r][c]
        and not all(ref.revealed[y][x] for y, x in neighbours(r, c, ref.rows, ref.cols))
    ]
    return min(found)[1:] if found else None


@given(
    data=st.data(),
    rows=st.integers(1, 12),
    cols=st.integers(1, 12),
    percent=st.sampled_from([0, 5, 15, 30]),
)
def test_game_matches_reference_on_drawn_layouts_and_moves(
    data: st.DataObject, rows: int, cols: int, percent: int
) -> None:
    # Layouts and moves drawn by hypothesis itself, so failures shrink to a
    # minimal board and move list.  A sparse layout floods; each cell is a
    # mine with chance ``percent``/100 and shrinks towards safe.
    cell_is_mine = st.integers(0, 99).map(lambda x: x >= 100 - percent)
    mines = np.array(
        data.draw(st.lists(cell_is_mine, min_size=rows * cols, max_size=rows * cols))
    ).reshape(rows, cols)
    # The game opens on a safe cell, as most real games do.
    start = data.draw(st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1)))
    mines[start] = False
    game, ref = ns.Game(ns.Board(mines)), RefGame(mines.tolist())
    check_result(game.reveal(*start), ref.reveal(*start), ref)
    # r: reveal, f: flag, C: chord the cell as is (mostly a no-op), c: chord the
    # nearest chordable number after flagging its mines, w: the same with one
    # flag wrong.
    moves = data.draw(
        st.lists(
            st.tuples(st.sampled_from("rfcwC"), st.integers(0, rows - 1), st.integers(0, cols - 1)),
            max_size=20,
        )
    )
    chorded = 0
    for kind, r, c in moves:
        if ref.state != IN_PROGRESS:
            break
        if kind == "r" and not ref.flagged[r][c]:
            check_result(game.reveal(r, c), ref.reveal(r, c), ref)
        elif kind == "f" and not ref.revealed[r][c]:
            assert game.toggle_flag(r, c) == ref.toggle_flag(r, c)
        elif kind == "C":
            check_result(game.chord(r, c), ref.chord(r, c), ref)
        elif kind in "cw" and (number := nearest_chordable(ref, r, c)) is not None:
            for flag in ref.flags_for_chord(*number, wrong=kind == "w"):
                assert game.toggle_flag(*flag) == ref.toggle_flag(*flag)
            result = game.chord(*number)
            check_result(result, ref.chord(*number), ref)
            chorded += len(result)
        check_same(game, ref)
    # Steers hypothesis towards chords that reveal cells (rare by chance).
    target(chorded, label="cells chords revealed")


# -- reveal results --------------------------------------------------------------


def test_reveal_result_shapes() -> None:
    game = fixed_game(3, 5, [(0, 0), (2, 4)])
    result = game.reveal(0, 1)
    assert result.cells.tolist() == [[0, 1]] and result.state is S.IN_PROGRESS
    result = game.reveal(0, 1)
    assert result.cells.shape == (0, 2) and len(result) == 0
    result = game.reveal(0, 4)  # floods every other safe cell
    expected = [[r, c] for r in range(3) for c in range(5)]
    for cell in ([0, 0], [0, 1], [2, 4]):
        expected.remove(cell)
    assert result.cells.tolist() == expected
    assert result.state is S.WON
    assert game.snapshot().mines_left == 2


def test_reveal_results_are_frozen() -> None:
    game = fixed_game(3, 3, [(0, 0)])
    result = game.reveal(2, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.state = S.LOST  # type: ignore[misc]


# -- snapshots ---------------------------------------------------------------------


def test_snapshot_is_immutable_and_detached() -> None:
    game = fixed_game(3, 4, [(0, 0)])
    snap = game.snapshot()
    with pytest.raises(ValueError, match="read-only"):
        snap.cells[1, 1] = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.state = S.WON  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.mines_left = 5  # type: ignore[misc]
    before = snap.cells.copy()
    game.toggle_flag(0, 0)
    game.reveal(2, 3)
    np.testing.assert_array_equal(snap.cells, before)
    assert snap.state is S.IN_PROGRESS and snap.mines_left == 1
    assert game.snapshot().mines_left == 0
    assert snap.cells.dtype == np.int8 and snap.cells.shape == (3, 4)
    assert (snap.rows, snap.cols) == (3, 4)
    source = np.full((2, 2), ns.HIDDEN, dtype=np.int8)
    made = ns.Snapshot(source, S.IN_PROGRESS, 1)
    source[0, 0] = 1
    assert made.cells[0, 0] == ns.HIDDEN


def test_snapshot_equality_ignores_hidden_mines() -> None:
    # Two boards whose mines differ only where the player cannot see.
    a = fixed_game(3, 4, [(0, 0), (2, 3)])
    b = fixed_game(3, 4, [(0, 2), (2, 3)])
    assert a.snapshot() == b.snapshot()
    for game in (a, b):
        assert len(game.reveal(1, 1)) == 1  # a '1' in both
        game.toggle_flag(2, 3)
    sa, sb = a.snapshot(), b.snapshot()
    assert sa == sb and hash(sa) == hash(sb)
    assert repr(sa) == repr(sb) and str(sa) == str(sb)
    # Every field, public or not, is free of the hidden layout.
    for field in dataclasses.fields(ns.Snapshot):
        va, vb = getattr(sa, field.name), getattr(sb, field.name)
        if isinstance(va, np.ndarray):
            np.testing.assert_array_equal(va, vb)
        else:
            assert va == vb, field.name
    assert len({sa, sb}) == 1
    # Nor does it matter whether the mines are laid yet.
    waiting = ns.Game.new(3, 4, 2, seed=0, first_click="safe")
    laid = ns.Game.new(3, 4, 2, seed=0)
    for game in (waiting, laid):
        game.toggle_flag(2, 3)
    assert waiting.board is None and waiting.snapshot() == laid.snapshot()


def test_snapshot_equality_sees_visible_differences() -> None:
    a = fixed_game(3, 4, [(0, 0)])
    b = fixed_game(3, 4, [(0, 0)])
    assert a.snapshot() == b.snapshot()
    a.toggle_flag(2, 2)
    assert a.snapshot() != b.snapshot()  # cells and mines_left differ
    a.toggle_flag(2, 2)
    a.reveal(0, 1)
    assert a.snapshot() != b.snapshot()
    base = b.snapshot()
    assert base != ns.Snapshot(base.cells, S.IN_PROGRESS, base.mines_left + 1)
    assert base != ns.Snapshot(base.cells, S.LOST, base.mines_left)
    assert base != ns.Snapshot(base.cells.reshape(4, 3), S.IN_PROGRESS, base.mines_left)
    assert base != "not a snapshot"


def test_snapshot_after_loss_shows_mines_explosion_and_wrong_flags() -> None:
    game = fixed_game(4, 4, [(0, 0), (0, 1), (3, 3)])
    game.toggle_flag(0, 0)  # right
    game.toggle_flag(2, 0)  # wrong
    before = game.snapshot()
    assert before.cells[2, 0] == ns.FLAG and before.cells[3, 3] == ns.HIDDEN
    assert game.reveal(0, 1).state is S.LOST
    snap = game.snapshot()
    assert str(snap) == grid(
        """
        FX##
        ####
        !###
        ###*
        """
    )
    assert snap.cells[0, 0] == ns.FLAG and snap.cells[0, 1] == ns.EXPLODED
    assert snap.cells[2, 0] == ns.WRONG_FLAG and snap.cells[3, 3] == ns.MINE
    assert snap.mines_left == 1
    assert str(game) == str(snap)


def test_snapshot_after_win_flags_every_mine() -> None:
    game = fixed_game(3, 4, [(0, 0), (2, 3)])
    game.toggle_flag(2, 3)
    assert game.snapshot().cells[0, 0] == ns.HIDDEN
    game.reveal(0, 3)
    assert game.state is S.IN_PROGRESS
    assert game.reveal(1, 0).state is S.IN_PROGRESS
    assert game.reveal(2, 0).state is S.WON  # floods the last safe cells
    snap = game.snapshot()
    assert str(snap) == grid(
        """
        F1..
        1111
        ..1F
        """
    )
    assert (snap.cells[[0, 2], [0, 3]] == ns.FLAG).all()
    assert snap.state is S.WON


def test_visible_codes_are_distinct_negative_int8() -> None:
    codes = [ns.HIDDEN, ns.FLAG, ns.MINE, ns.EXPLODED, ns.WRONG_FLAG]
    assert len({int(c) for c in codes}) == 5
    assert all(int(c) < 0 and np.asarray(c).dtype == np.int8 for c in codes)


# -- chords ------------------------------------------------------------------------


def test_chord_on_satisfied_number_reveals_and_floods() -> None:
    # Mine at (0, 0) only: chording the '1' at (1, 1) floods the whole board.
    game = fixed_game(4, 5, [(0, 0), (3, 4)])
    assert game.reveal(1, 1).cells.tolist() == [[1, 1]]
    game.toggle_flag(0, 0)
    result = game.chord(1, 1)
    cells = [tuple(c) for c in result.cells.tolist()]
    assert cells == sorted(cells)
    expected = {(r, c) for r in range(4) for c in range(5)} - {(0, 0), (1, 1), (3, 4)}
    assert set(cells) == expected
    assert result.state is S.WON


def test_chord_reveals_only_unflagged_hidden_neighbours() -> None:
    game = fixed_game(3, 3, [(0, 0), (0, 2)])
    game.reveal(1, 1)  # a '2'
    game.toggle_flag(0, 0)
    game.toggle_flag(0, 2)
    result = game.chord(1, 1)
    assert result.cells.tolist() == [[0, 1], [1, 0], [1, 2], [2, 0], [2, 1], [2, 2]]
    assert result.state is S.WON


def test_chord_with_a_wrong_flag_loses(unchanged: Unchanged) -> None:
    game = fixed_game(3, 3, [(0, 0)])
    game.reveal(1, 1)  # a '1'
    game.toggle_flag(0, 1)  # wrong: the mine is at (0, 0)
    result = game.chord(1, 1)
    assert result.state is S.LOST
    cells = result.cells.tolist()
    assert [0, 0] in cells and cells == sorted(cells)
    snap = game.snapshot()
    assert snap.cells[0, 0] == ns.EXPLODED and snap.cells[0, 1] == ns.WRONG_FLAG
    with unchanged(game), pytest.raises(ns.GameOverError):
        game.chord(1, 1)


def test_chord_with_two_wrong_flags_explodes_both() -> None:
    game = fixed_game(3, 3, [(0, 0), (2, 2)])
    game.reveal(1, 1)  # a '2'
    game.toggle_flag(0, 1)
    game.toggle_flag(2, 1)
    result = game.chord(1, 1)
    assert result.state is S.LOST
    assert [0, 0] in result.cells.tolist() and [2, 2] in result.cells.tolist()
    snap = game.snapshot()
    assert snap.cells[0, 0] == ns.EXPLODED and snap.cells[2, 2] == ns.EXPLODED


@pytest.mark.parametrize(
    ("flags", "target"),
    [
        ([], (1, 1)),  # unsatisfied: no flags around a '2'
        ([(0, 0)], (1, 1)),  # unsatisfied: one flag around a '2'
        ([(0, 0), (0, 2), (2, 0)], (1, 1)),  # over-satisfied
        ([], (2, 2)),  # hidden cell
        ([(2, 2)], (2, 2)),  # flagged cell
        ([], (0, 1)),  # hidden, next to mines
    ],
)
def test_chord_noops(flags: list[tuple[int, int]], target: Any) -> None:
    game = fixed_game(3, 3, [(0, 0), (0, 2)])
    game.reveal(1, 1)
    for cell in flags:
        game.toggle_flag(*cell)
    with only_a_move_recorded(game, "chord"):
        result = game.chord(*target)
    assert len(result) == 0 and result.state is S.IN_PROGRESS


def test_chord_on_revealed_zero_is_a_noop() -> None:
    game = fixed_game(3, 5, [(0, 0)])
    game.toggle_flag(2, 3)
    game.reveal(0, 4)  # zero; (2, 3) stays hidden behind its flag
    game.toggle_flag(2, 3)
    assert game.snapshot().cells[2, 3] == ns.HIDDEN
    with only_a_move_recorded(game, "chord"):
        assert len(game.chord(1, 4)) == 0


# -- winning -------------------------------------------------------------------------


def test_flags_alone_never_win() -> None:
    game = fixed_game(3, 3, [(0, 0), (2, 2)])
    game.toggle_flag(0, 0)
    game.toggle_flag(2, 2)
    assert game.state is S.IN_PROGRESS
    board = game.board
    assert board is not None
    for r, c in [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (0, 2), (2, 0)]:
        if board.revealed[r, c]:
            continue
        result = game.reveal(r, c)
        assert result.state is (S.WON if board.hidden_safe == 0 else S.IN_PROGRESS)
    assert game.state is S.WON


def test_win_without_any_flags_and_with_wrong_flags_lifted() -> None:
    game = fixed_game(2, 3, [(0, 0)])
    game.toggle_flag(1, 2)  # a wrong flag blocks the flood ...
    game.reveal(0, 2)
    assert game.state is S.IN_PROGRESS
    assert game.snapshot().cells[1, 2] == ns.FLAG
    assert game.reveal(1, 0).state is S.IN_PROGRESS
    game.toggle_flag(1, 2)  # ... and the win, until it is lifted
    assert game.reveal(1, 2).state is S.WON
    assert game.snapshot().mines_left == 1


def test_win_on_zero_mines_and_full_boards() -> None:
    assert ns.Game.new(1, 1, 0).reveal(0, 0).state is S.WON
    game = ns.Game.new(3, 3, 8, seed=0)
    assert game.board is not None
    safe = pick(np.random.default_rng(0), ~game.board.mines)
    assert safe is not None
    assert game.reveal(*safe).state is S.WON


def test_game_over_a_cleared_board_is_won_at_once() -> None:
    board = ns.Board([[True, False, False]])
    board.reveal(0, 2)
    game = ns.Game(board)
    assert game.state is S.WON
    with pytest.raises(ns.GameOverError):
        game.reveal(0, 0)


# -- first clicks ------------------------------------------------------------------


def test_first_click_safe_never_loses_over_a_thousand_seeds() -> None:
    rng = np.random.default_rng(1)
    for seed in range(1000):
        rows, cols = int(rng.integers(2, 10)), int(rng.integers(2, 10))
        mines = rows * cols - int(rng.integers(1, 4))
        game = ns.Game.new(rows, cols, mines, seed=seed, first_click="safe")
        assert game.board is None  # nothing is laid before the first reveal
        row, col = int(rng.integers(rows)), int(rng.integers(cols))
        result = game.reveal(row, col)
        assert result.state is not S.LOST
        assert game.board is not None and not game.board.mines[row, col]
        assert game.board.mine_count == mines and game.board.revealed[row, col]


def test_first_click_opening_always_opens_over_a_thousand_seeds() -> None:
    rng = np.random.default_rng(2)
    for seed in range(1000):
        rows, cols = int(rng.integers(2, 12)), int(rng.integers(2, 12))
        limit = rows * cols - min(rows, 3) * min(cols, 3)
        mines = int(rng.integers(max(limit - 3, 0), limit + 1))
        game = ns.Game.new(rows, cols, mines, seed=seed, first_click="opening")
        row, col = int(rng.integers(rows)), int(rng.integers(cols))
        result = game.reveal(row, col)
        assert result.state is not S.LOST
        assert len(result) > 1
        assert game.board is not None
        assert game.board.counts[row, col] == 0
        assert not game.board.mines[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2].any()
        assert int(game.board.mines.sum()) == mines


def test_flags_before_the_first_click_are_kept(unchanged: Unchanged) -> None:
    game = ns.Game.new(6, 6, 5, seed=4, first_click="opening")
    game.toggle_flag(0, 0)
    game.toggle_flag(3, 4)  # inside the opening's zone: mine-free, still flagged
    game.toggle_flag(5, 5)
    game.toggle_flag(5, 5)  # unflagged again
    assert game.snapshot().mines_left == 3
    assert game.board is None
    with unchanged(game), pytest.raises(ns.IllegalMoveError):
        game.reveal(0, 0)  # refused, and the mines are still not laid
    assert game.board is None
    with only_a_move_recorded(game, "chord"):
        assert len(game.chord(2, 2)) == 0
    result = game.reveal(3, 3)
    board = game.board
    assert board is not None
    assert board.flagged[0, 0] and board.flagged[3, 4] and board.flag_count == 2
    assert not board.revealed[3, 4] and not board.mines[2:5, 2:5].any()
    assert [3, 4] not in result.cells.tolist()
    snap = game.snapshot()
    assert snap.cells[0, 0] == ns.FLAG and snap.cells[3, 4] == ns.FLAG
    assert snap.mines_left == 3


def test_first_click_on_the_last_safe_cell_wins() -> None:
    game = ns.Game.new(3, 4, 11, seed=0, first_click="safe")
    assert game.reveal(1, 2).state is S.WON
    game = ns.Game.new(4, 4, 7, seed=0, first_click="opening")
    assert game.reveal(1, 1).state is S.WON  # 16 - 9 mines: nothing else is safe


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "rule"),
    [
        (3, 3, 1, "opening"),
        (5, 5, 17, "opening"),
        (2, 5, 5, "opening"),  # at most 2x3 stays safe, even though a corner needs 2x2
        (1, 4, 2, "opening"),
        (1, 1, 1, "safe"),
        (2, 2, 4, "safe"),
    ],
)
def test_first_click_infeasible_dims_fail_at_creation(
    rows: int, cols: int, mines: int, rule: str
) -> None:
    with pytest.raises(ns.InvalidBoardError, match=str(mines)):
        ns.Game.new(rows, cols, mines, first_click=rule)


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "rule"),
    [(5, 5, 16, "opening"), (2, 5, 4, "opening"), (1, 4, 1, "opening"), (2, 2, 3, "safe")],
)
def test_first_click_feasible_dims_work_everywhere(
    rows: int, cols: int, mines: int, rule: str
) -> None:
    for row, col in itertools.product(range(rows), range(cols)):
        game = ns.Game.new(rows, cols, mines, seed=row * cols + col, first_click=rule)
        assert game.reveal(row, col).state is not S.LOST


@pytest.mark.parametrize("rule", ["Safe", "", "first"])
def test_unknown_first_click_rule(rule: Any) -> None:
    with pytest.raises(ns.InvalidBoardError, match=repr(rule)):
        ns.Game.new(9, 9, 10, first_click=rule)


@pytest.mark.parametrize("rule", [0, True, np.array(["safe", "x"]), ["safe"]])
def test_a_first_click_rule_that_is_not_a_string(rule: Any) -> None:
    message = r"first_click must be None \('none'\), 'safe' or 'opening', got"
    with pytest.raises(TypeError, match=message):
        ns.Game.new(9, 9, 10, first_click=rule)
    with pytest.raises(TypeError, match="first_click must be"):
        ns.generate_boards(2, 9, 9, 10, first_click=rule, click=(0, 0))


def first_layouts(rows: int, cols: int, mines: int, rule: str, click: Any, n: int) -> Counter[Any]:
    strategy = ns.RandomPlacement(seed=31)
    counter: Counter[Any] = Counter()
    for _ in range(n):
        game = ns.Game.new(rows, cols, mines, strategy=strategy, first_click=rule)
        game.reveal(*click)
        assert game.board is not None
        counter[tuple(np.flatnonzero(game.board.mines).tolist())] += 1
    return counter


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "rule", "click", "zone"),
    [
        (2, 3, 2, "safe", (0, 0), {0}),
        (2, 3, 3, "safe", (1, 1), {4}),
        (3, 4, 2, "opening", (0, 0), {0, 1, 4, 5}),
        (3, 4, 2, "opening", (1, 2), {1, 2, 3, 5, 6, 7, 9, 10, 11}),
    ],
)
def test_first_click_placement_is_uniform(
    rows: int, cols: int, mines: int, rule: str, click: Any, zone: set[int]
) -> None:
    allowed = [i for i in range(rows * cols) if i not in zone]
    layouts = list(itertools.combinations(allowed, mines))
    counter = first_layouts(rows, cols, mines, rule, click, 150 * len(layouts))
    assert set(counter) <= set(layouts)
    observed = [counter[layout] for layout in layouts]
    assert stats.chisquare(observed).pvalue > 1e-4, counter


# -- construction and presets ---------------------------------------------------------


def test_game_properties() -> None:
    game = ns.Game.new(5, 7, 6, seed=0, first_click="safe")
    assert (game.rows, game.cols, game.mine_count, game.first_click) == (5, 7, 6, "safe")
    assert game.state is S.IN_PROGRESS
    assert "5x7" in repr(game)
    assert str(game) == "\n".join(["#######"] * 5)
    assert set(S.__members__) == {"IN_PROGRESS", "WON", "LOST"}


def test_game_needs_a_board() -> None:
    with pytest.raises(TypeError, match="Board"):
        ns.Game(np.zeros((3, 3), dtype=bool))  # type: ignore[arg-type]


def test_game_new_wants_strategy_or_seed_not_both() -> None:
    with pytest.raises(ns.InvalidTypeError, match=r"^give strategy or seed, not both$"):
        ns.Game.new(3, 3, 1, strategy=ns.RandomPlacement(0), seed=0)


def test_presets() -> None:
    assert dict(ns.PRESETS) == {
        "beginner": (9, 9, 10),
        "intermediate": (16, 16, 40),
        "expert": (16, 30, 99),
    }
    with pytest.raises(TypeError):
        ns.PRESETS["huge"] = (100, 100, 1)  # type: ignore[index]
    for name, (rows, cols, mines) in ns.PRESETS.items():
        game = ns.Game.from_preset(name, seed=5)
        assert (game.rows, game.cols, game.mine_count) == (rows, cols, mines)
        assert game.board is not None and int(game.board.mines.sum()) == mines
        again = ns.Game.from_preset(name, seed=5)
        assert again.board is not None
        np.testing.assert_array_equal(game.board.mines, again.board.mines)
        opening = ns.Game.from_preset(name, seed=5, first_click="opening")
        assert opening.board is None and opening.first_click == "opening"
        assert len(opening.reveal(rows // 2, cols // 2)) > 1


@pytest.mark.parametrize("name", ["Beginner", "hard", "", "expert "])
def test_unknown_preset_lists_the_names(name: str) -> None:
    with pytest.raises(ValueError, match=repr(name)) as info:
        ns.Game.from_preset(name)
    for valid in ("beginner", "intermediate", "expert"):
        assert valid in str(info.value)


def test_locked_methods_keep_their_signatures_and_docs() -> None:
    import inspect

    for name, params in (
        ("reveal", ["self", "row", "col"]),
        ("toggle_flag", ["self", "row", "col"]),
        ("chord", ["self", "row", "col"]),
        ("snapshot", ["self"]),
    ):
        method = getattr(ns.Game, name)
        assert list(inspect.signature(method).parameters) == params
        assert method.__name__ == name and method.__doc__


def test_reprs_count_in_the_singular_and_plural() -> None:
    game = ns.Game.new(1, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    assert repr(game) == "<Game 1x3, 1 mine, IN_PROGRESS, first_click=None>"
    assert game.board is not None
    assert repr(game.board) == "<Board 1x3, 1 mine, 2 safe cells hidden, 0 flags>"
    game.toggle_flag(0, 0)
    game.reveal(0, 1)  # a 1: the cell past it stays hidden
    assert repr(game.board) == "<Board 1x3, 1 mine, 1 safe cell hidden, 1 flag>"
    assert repr(ns.generate_boards(1, 3, 3, 2, seed=0)) == "<BoardBatch of 1 board 3x3, 2 mines>"
    assert repr(ns.Game.new(9, 9, 10, seed=0)).startswith("<Game 9x9, 10 mines,")


@pytest.mark.parametrize(
    ("cells", "error", "message"),
    [
        (np.array([[200]]), ns.InvalidBoardError, r"cell \(0, 0\) holds 200, not a count 0..8"),
        ([[1, 9]], ns.InvalidBoardError, r"cell \(0, 1\) holds 9"),
        ([[0, -6]], ns.InvalidBoardError, r"cell \(0, 1\) holds -6, .* a code -5..-1"),
        (np.zeros(3, dtype=np.int8), ns.InvalidBoardError, r"2-D, got shape \(3,\)"),
        ([[]], ns.InvalidBoardError, r"non-empty 2-D, got shape \(1, 0\)"),
        (np.zeros((0, 3), dtype=np.int8), ns.InvalidBoardError, r"got shape \(0, 3\)"),
        (np.zeros((2, 2)), TypeError, "must be integers, got dtype float64"),
        ([[True]], TypeError, "must be integers, got dtype bool"),
        ([[0], [1, 2]], ns.InvalidBoardError, r"non-empty 2-D, got \[\[0\], \[1, 2\]\]"),
    ],
)
def test_a_snapshot_of_impossible_cells_is_refused(cells: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        ns.Snapshot(cells, ns.GameState.IN_PROGRESS, 1)


def test_a_snapshot_needs_a_state_and_an_integer_count() -> None:
    cells = [[1, ns.HIDDEN]]
    with pytest.raises(TypeError, match="state must be a GameState, got 'won'"):
        ns.Snapshot(cells, "won", 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"mines_left must be an integer, got 1\.5"):
        ns.Snapshot(cells, ns.GameState.IN_PROGRESS, 1.5)  # type: ignore[arg-type]
    snap = ns.Snapshot(cells, ns.GameState.IN_PROGRESS, np.int64(-1))  # over-flagged
    assert type(snap.mines_left) is int and snap.mines_left == -1


def test_a_game_snapshot_equals_one_made_by_hand() -> None:
    game = ns.Game.new(9, 9, 10, seed=4, first_click="safe")
    game.reveal(4, 4)
    hidden = np.argwhere(game.snapshot().cells == ns.HIDDEN)[0]
    game.toggle_flag(*(int(v) for v in hidden))
    snap = game.snapshot()
    assert (snap.cells == ns.FLAG).sum() == 1
    by_hand = ns.Snapshot(snap.cells.astype(np.int64), snap.state, snap.mines_left)
    assert snap == by_hand and hash(snap) == hash(by_hand)
    assert not snap.cells.flags.writeable and snap.cells.dtype == np.int8


def test_first_click_none_is_spelled_the_same_everywhere() -> None:
    # The command line says 'none'; the API takes it too and keeps None.
    assert ns.Game.new(3, 3, 1, seed=0, first_click="none").first_click is None
    assert ns.BatchGame.new(2, 3, 3, 1, seed=0, first_click="none").first_click is None
    batch = ns.generate_boards(2, 3, 3, 1, seed=0, first_click="none")
    assert batch.mines.sum() == 2
    result = ns.simulate(10, 3, 3, 1, seed=0, first_click="none")
    assert result.first_click is None and "first click none" in result.summary()
    with pytest.raises(ns.InvalidBoardError, match="'None'"):
        ns.Game.new(3, 3, 1, first_click="None")
