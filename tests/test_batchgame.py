"""BatchGame against n independent Games: same boards, same clicks, same views."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper.batchgame import MoveStatus

ACTIONS = ("reveal", "toggle_flag", "chord")


class FromBatch(ns.MinePlacementStrategy):
    """Lay the mines that game ``index`` of a BatchGame laid at its first click."""

    def __init__(self, batch: ns.BatchGame, index: int) -> None:
        self.batch, self.index = batch, index

    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        assert self.batch.placed[self.index]
        return self.batch.mines[self.index].copy()


def game_status(game: ns.Game, action: str, row: int, col: int) -> int:
    """Play one move on a Game and translate its outcome into a MoveStatus."""
    try:
        getattr(game, action)(row, col)
    except ns.GameOverError:
        return MoveStatus.GAME_OVER
    except ns.OutOfBoundsError:
        return MoveStatus.OUT_OF_BOUNDS
    except ns.IllegalMoveError:
        return MoveStatus.ILLEGAL
    return MoveStatus.OK


def pick_cells(
    rng: np.random.Generator, batch: ns.BatchGame, action: str
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Random clicks, biased towards moves that do something interesting.

    Reveals prefer hidden safe cells (so some games are won), flags prefer
    mines (so chords fire) but not always, chords prefer revealed numbers; a
    few clicks are off the board.
    """
    n, rows, cols = len(batch), batch.rows, batch.cols
    r = rng.integers(0, rows, n)
    c = rng.integers(0, cols, n)
    visible = batch.visible
    if action == "toggle_flag":
        wanted = batch.mines & (visible == ns.HIDDEN)
    elif action == "chord":
        wanted = visible > 0
    else:
        wanted = ~batch.mines & (visible == ns.HIDDEN)
    keys = rng.random(wanted.shape) + wanted
    flat = keys.reshape(n, -1).argmax(axis=1)
    biased = rng.random(n) < 0.85
    r = np.where(biased, flat // cols, r)
    c = np.where(biased, flat % cols, c)
    off = rng.random(n) < 0.05
    r = np.where(off, rng.choice([-1, rows, -5, rows + 3], n), r)
    c = np.where(off & (rng.random(n) < 0.5), rng.choice([-1, cols], n), c)
    return r, c


def assert_same(batch: ns.BatchGame, games: list[ns.Game]) -> None:
    visible = batch.visible
    states = batch.states
    mines_left = batch.mines_left
    for i, game in enumerate(games):
        snap = game.snapshot()
        np.testing.assert_array_equal(visible[i], snap.cells, err_msg=f"game {i}")
        assert states[i] is snap.state, i
        assert mines_left[i] == snap.mines_left, i


def play_both(
    rows: int,
    cols: int,
    mines: int,
    n: int,
    steps: int,
    first_click: str | None,
    seed: int,
) -> tuple[ns.BatchGame, list[ns.Game]]:
    rng = np.random.default_rng(seed)
    if first_click is None:
        batch = ns.BatchGame(ns.generate_boards(n, rows, cols, mines, seed=rng))
        games = [ns.Game(ns.Board(batch.mines[i])) for i in range(n)]
    else:
        batch = ns.BatchGame.new(n, rows, cols, mines, seed=rng, first_click=first_click)
        games = [
            ns.Game.new(rows, cols, mines, strategy=FromBatch(batch, i), first_click=first_click)
            for i in range(n)
        ]
    assert_same(batch, games)
    clicks = np.zeros(n, dtype=np.int64)
    for _ in range(steps):
        action = str(rng.choice(ACTIONS, p=[0.5, 0.25, 0.25]))
        r, c = pick_cells(rng, batch, action)
        active = rng.random(n) < 0.9
        status = getattr(batch, action)(r, c, active=active)
        assert status.dtype == np.int8
        for i in range(n):
            if not active[i]:
                assert status[i] == MoveStatus.INACTIVE
                continue
            expected = game_status(games[i], action, int(r[i]), int(c[i]))
            assert status[i] == expected, (i, action, r[i], c[i])
        clicks += status == MoveStatus.OK
        assert_same(batch, games)
        np.testing.assert_array_equal(batch.clicks, clicks)
    return batch, games


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "n", "steps", "first_click"),
    [
        (4, 5, 3, 400, 30, None),
        (6, 6, 8, 400, 30, "safe"),
        (8, 8, 10, 400, 40, "opening"),
        (1, 7, 1, 200, 15, "safe"),
        (9, 9, 10, 300, 40, None),
        (16, 30, 99, 150, 60, "opening"),
        (16, 30, 99, 150, 60, None),
        (3, 3, 8, 100, 10, None),
        (2, 2, 0, 50, 5, "opening"),
    ],
)
def test_matches_independent_games(
    rows: int, cols: int, mines: int, n: int, steps: int, first_click: str | None
) -> None:
    batch, _ = play_both(rows, cols, mines, n, steps, first_click, seed=rows * 100 + n)
    # The test is only honest if the random play reached every outcome.
    if rows * cols > 9:
        assert batch.lost.any()
    if (rows, cols) != (16, 30):
        assert batch.won.any()


def test_getitem_replays_to_the_same_game() -> None:
    batch, games = play_both(6, 7, 6, 120, 40, "opening", seed=7)
    for i in range(0, 120, 7):
        assert batch[i].snapshot() == games[i].snapshot()
        assert batch[i].state is games[i].state
    assert batch[-1].snapshot() == games[-1].snapshot()


def test_getitem_of_a_game_before_its_first_click() -> None:
    batch = ns.BatchGame.new(2, 5, 5, 3, seed=0, first_click="safe")
    batch.toggle_flag(np.array([1, 0]), np.array([1, 0]), active=np.array([True, False]))
    game = batch[0]
    assert game.board is None
    assert game.snapshot().cells[1, 1] == ns.FLAG
    np.testing.assert_array_equal(game.snapshot().cells, batch.visible[0])


def test_chord_with_wrong_flags_explodes_several_mines() -> None:
    layout = np.zeros((1, 3, 3), dtype=bool)
    layout[0, 0, :2] = True  # centre shows 2
    batch = ns.BatchGame.from_mines(layout)
    game = ns.Game(ns.Board(layout[0]))
    for action, r, c in [("reveal", 1, 1), ("toggle_flag", 2, 0), ("toggle_flag", 2, 2)]:
        assert getattr(batch, action)(r, c).tolist() == [MoveStatus.OK]
        getattr(game, action)(r, c)
    assert batch.chord(1, 1).tolist() == [MoveStatus.OK]
    game.chord(1, 1)
    assert batch.states[0] is ns.GameState.LOST
    assert (batch.visible[0] == ns.EXPLODED).sum() == 2
    np.testing.assert_array_equal(batch.visible[0], game.snapshot().cells)
    assert batch[0].snapshot() == game.snapshot()


def test_chord_floods_from_several_zero_neighbours() -> None:
    # A wall of mines with one gap; a chord on the gap opens both sides.
    layout = np.zeros((1, 5, 7), dtype=bool)
    layout[0, :, 3] = True
    layout[0, 2, 3] = False
    batch = ns.BatchGame.from_mines(layout)
    game = ns.Game(ns.Board(layout[0]))
    for action, r, c in [("reveal", 2, 3), ("toggle_flag", 1, 3), ("toggle_flag", 3, 3)]:
        getattr(batch, action)(r, c)
        getattr(game, action)(r, c)
    batch.chord(2, 3)
    game.chord(2, 3)
    np.testing.assert_array_equal(batch.visible[0], game.snapshot().cells)
    assert batch.states[0] is game.state


def test_flags_block_floods_and_survive_placement() -> None:
    batch = ns.BatchGame.new(50, 9, 9, 10, seed=3, first_click="opening")
    batch.toggle_flag(0, 8)
    batch.reveal(8, 0)
    assert (batch.visible[:, 0, 8] == ns.FLAG).all()
    assert not batch.mines[:, 7:, :2].any()
    assert (batch.visible[:, 8, 0] == 0).all()


def test_active_mask_leaves_other_games_alone() -> None:
    batch = ns.BatchGame.new(4, 9, 9, 10, seed=1, first_click="safe")
    before = batch.visible
    status = batch.reveal(4, 4, active=np.array([True, False, True, False]))
    assert status.tolist() == [0, 4, 0, 4]
    after = batch.visible
    np.testing.assert_array_equal(after[[1, 3]], before[[1, 3]])
    assert not batch.placed[[1, 3]].any()
    assert batch.clicks.tolist() == [1, 0, 1, 0]


def test_same_seed_same_games() -> None:
    def play(seed: Any) -> NDArray[np.int8]:
        batch = ns.BatchGame.new(30, 16, 30, 99, seed=seed, first_click="opening")
        rng = np.random.default_rng(0)
        for _ in range(5):
            batch.reveal(rng.integers(0, 16, 30), rng.integers(0, 30, 30))
        return batch.visible

    np.testing.assert_array_equal(play(11), play(11))
    assert not np.array_equal(play(11), play(12))


def test_new_and_from_preset_check_their_arguments() -> None:
    with pytest.raises(ns.InvalidBoardError, match="n must be >= 0"):
        ns.BatchGame.new(-1, 9, 9, 10)
    limit = r"mines must be in 0\.\.72 for a 9x9 board with first_click='opening'"
    with pytest.raises(ns.InvalidBoardError, match=limit):
        ns.BatchGame.new(2, 9, 9, 73, first_click="opening")
    with pytest.raises(ValueError, match="first_click"):
        ns.BatchGame.new(2, 9, 9, 10, first_click="corner")
    with pytest.raises(ValueError, match="unknown preset 'huge'"):
        ns.BatchGame.from_preset("huge", 3)
    with pytest.raises(TypeError, match="needs a BoardBatch"):
        ns.BatchGame(np.zeros((2, 3, 3), dtype=bool))  # type: ignore[arg-type]
    assert len(ns.BatchGame.new(0, 9, 9, 10)) == 0


def test_from_mines_checks_layouts() -> None:
    with pytest.raises(ns.InvalidBoardError, match="3-D bool"):
        ns.BatchGame.from_mines(np.zeros((3, 3), dtype=bool))
    with pytest.raises(ns.InvalidBoardError, match="board 1 has 1"):
        ns.BatchGame.from_mines(np.array([[[0, 0]], [[0, 1]]], dtype=bool))
    with pytest.raises(ns.InvalidBoardError, match="mines must be in"):
        ns.BatchGame.from_mines(np.ones((2, 2, 2), dtype=bool))


@pytest.mark.parametrize("action", ACTIONS)
def test_malformed_arguments_raise_and_change_nothing(action: str) -> None:
    batch = ns.BatchGame.new(3, 9, 9, 10, seed=0)
    # A game under way in each slot: a safe cell revealed, a mine flagged.
    safe = [np.argwhere(~batch.mines[g])[40] for g in range(3)]
    mined = [np.argwhere(batch.mines[g])[0] for g in range(3)]
    assert (batch.reveal(*np.transpose(safe)) == MoveStatus.OK).all()
    assert (batch.toggle_flag(*np.transpose(mined)) == MoveStatus.OK).all()
    assert batch.in_progress.all() and batch.flagged.sum() == 3 and batch.revealed.any()

    def state() -> tuple[Any, ...]:
        arrays = (batch.visible, batch.mines, batch.clicks, batch.revealed, batch.flagged)
        return (*(a.tobytes() for a in arrays), batch.states.tolist())

    before = state()
    move = getattr(batch, action)
    for args, kwargs, error, words in [
        (
            (np.array([1.0, 2.0, 3.0]), np.array([1, 2, 3])),
            {},
            ns.InvalidTypeError,
            "rows must hold integers, got dtype float64",
        ),
        (
            (np.array([1, 2, 3]), np.array([True, False, True])),
            {},
            ns.InvalidTypeError,
            "cols must hold integers, got dtype bool",
        ),
        (
            (np.array([1, 2, 3]), np.array([1, 2])),
            {},
            ns.InvalidBoardError,
            "cols must have shape (3,), got (2,)",
        ),
        (
            (0, 0),
            {"active": np.array([1, 0, 1])},
            ns.InvalidTypeError,
            "active must be a bool array of shape (3,), got int64 (3,)",
        ),
    ]:
        with pytest.raises(error, match=re.escape(words)):
            move(*args, **kwargs)
        assert state() == before


def test_out_of_bounds_never_wraps() -> None:
    batch = ns.BatchGame.new(4, 3, 3, 1, seed=0)
    status = batch.reveal(np.array([-1, 3, 0, 0]), np.array([0, 0, -1, 3]))
    assert (status == MoveStatus.OUT_OF_BOUNDS).all()
    assert (batch.visible == ns.HIDDEN).all()


def test_views_are_read_only_and_repr_counts_states() -> None:
    batch = ns.BatchGame.from_mines(np.array([[[1, 0]], [[0, 1]], [[0, 1]]], dtype=bool))
    batch.reveal(0, 0)
    with pytest.raises(ValueError, match="read-only"):
        batch.mines[0, 0, 0] = False
    assert repr(batch) == "<BatchGame of 3 games 1x2, 1 mine: 0 in progress, 2 won, 1 lost>"
    assert (batch.states == ns.GameState.WON).tolist() == [False, True, True]
    assert batch.revealed_count.tolist() == [0, 1, 1]
    with pytest.raises(IndexError, match="out of range"):
        batch[3]


@pytest.mark.parametrize(("rows", "cols", "density"), [(16, 30, 0.1), (9, 9, 0.05), (5, 62, 0.08)])
def test_flood_kernels_agree_with_flood_from(rows: int, cols: int, density: float) -> None:
    from numsweeper._kernels import _flood_labelled, _flood_packed, adjacent_counts, flood_from

    rng = np.random.default_rng(rows * cols)
    n = 300
    mines = rng.random((n, rows, cols)) < density
    counts = adjacent_counts(mines)
    blocked = mines | (rng.random((n, rows, cols)) < 0.05)  # flags and revealed cells
    zero = ~blocked & (counts == 0)
    # Up to three clicks per board, on open zero cells.
    games, r, c = np.nonzero(zero & (rng.random(zero.shape) < 3 / zero[0].size))
    expected = np.zeros_like(mines)
    for g, rr, cc in zip(games.tolist(), r.tolist(), c.tolist(), strict=True):
        (r0, c0), mask = flood_from(counts[g], (blocked[g],), rr, cc)
        expected[g, r0 : r0 + mask.shape[0], c0 : c0 + mask.shape[1]] |= mask
    assert expected.any()
    for flood in (_flood_packed, _flood_labelled):
        np.testing.assert_array_equal(flood(counts, ~blocked, games, r, c), expected)
    one = np.unique(games, return_index=True)[1]  # one click per board, all boards
    boards = games[one]
    sub = (counts[boards], ~blocked[boards], np.arange(boards.size), r[one], c[one])
    np.testing.assert_array_equal(_flood_packed(*sub), _flood_labelled(*sub))


@pytest.fixture
def flood_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each flood kernel runs from here on."""
    from numsweeper import _kernels

    calls = {"_flood_labelled": 0, "_flood_packed": 0}

    def counted(name: str) -> Callable[..., Any]:
        flood = getattr(_kernels, name)

        def spy(*args: Any) -> Any:
            calls[name] += 1
            return flood(*args)

        return spy

    for name in calls:
        monkeypatch.setattr(_kernels, name, counted(name))
    return calls


def test_wide_boards_use_the_labelled_flood_and_still_match(flood_calls: dict[str, int]) -> None:
    from numsweeper import _kernels

    assert _kernels.MAX_PACKED_COLS < 70
    calls = flood_calls
    play_both(6, 70, 20, 60, 25, "opening", seed=3)
    assert calls["_flood_labelled"] > 0 and calls["_flood_packed"] == 0, calls


def test_small_stacks_use_the_labelled_flood_and_large_ones_the_packed(
    flood_calls: dict[str, int],
) -> None:
    # A policy's round floods a few boards at a time: labelling them costs
    # less than packing; a bulk stack is packed.  Either way the region is
    # flood_from's.
    from numsweeper import _kernels
    from numsweeper._kernels import adjacent_counts, flood_batch, flood_from

    calls = flood_calls
    rng = np.random.default_rng(64)
    least = _kernels.PACKED_MIN_BOARDS
    for n, used in (
        (1, "_flood_labelled"),
        (least - 1, "_flood_labelled"),
        (least, "_flood_packed"),
    ):
        mines = rng.random((n, 16, 30)) < 0.12
        counts = adjacent_counts(mines)
        zero = ~mines & (counts == 0)
        games = np.flatnonzero(zero.any(axis=(1, 2)))
        assert len(games)
        r, c = np.array([np.argwhere(zero[g])[0] for g in games]).reshape(-1, 2).T
        before = dict(calls)
        region = flood_batch(counts, ~mines, games, r, c)
        assert calls[used] == before[used] + 1 and sum(calls.values()) == sum(before.values()) + 1
        for g, rr, cc in zip(games.tolist(), r.tolist(), c.tolist(), strict=True):
            (r0, c0), mask = flood_from(counts[g], (mines[g],), rr, cc)
            expected = np.zeros((16, 30), dtype=bool)
            expected[r0 : r0 + mask.shape[0], c0 : c0 + mask.shape[1]] = mask
            np.testing.assert_array_equal(region[g], expected)


def test_from_preset_rejects_unknown_and_unhashable_names() -> None:
    for name in ("huge", ["expert"], None):
        with pytest.raises(ValueError, match="choose one of beginner, intermediate, expert"):
            ns.BatchGame.from_preset(name, 2)  # type: ignore[arg-type]


def test_visible_of_checks_its_indices_and_never_wraps() -> None:
    games = ns.BatchGame.new(3, 4, 4, 2, seed=0)
    games.reveal([0, 1, 2], [0, 1, 2])
    before = games.visible.copy()
    assert np.array_equal(games.visible_of([2, 0]), before[[2, 0]])
    assert games.visible_of([]).shape == (0, 4, 4)
    for bad, error, message in (
        ([-1], ns.OutOfBoundsError, r"game index -1 is off the batch \(0..2"),
        ([0, 3], ns.OutOfBoundsError, "game index 3 is off the batch"),
        ([1.7], TypeError, "games must hold integers, got dtype float64"),
        ([True, False, True], TypeError, "got dtype bool"),
        (1, ns.InvalidBoardError, r"1-D array of indices, got shape \(\)"),
        ([[0, 1]], ns.InvalidBoardError, r"got shape \(1, 2\)"),
    ):
        with pytest.raises(error, match=message):
            games.visible_of(bad)
    assert np.array_equal(games.visible, before)


def test_batch_moves_take_empty_lists_and_name_a_wrong_shape() -> None:
    empty = ns.BatchGame.new(0, 3, 3, 1, seed=0)
    assert empty.reveal([], []).shape == (0,)
    games = ns.BatchGame.new(3, 3, 3, 1, seed=0)
    for action in ("reveal", "toggle_flag", "chord"):
        with pytest.raises(ns.InvalidBoardError, match=r"cols must have shape \(3,\), got \(2,\)"):
            getattr(games, action)([0, 1, 2], [0, 0])
        with pytest.raises(ns.InvalidBoardError, match=r"rows must have shape \(3,\), got \(0,\)"):
            getattr(games, action)([], [0, 0, 0])
    assert not games.clicks.any()


def test_batch_indexes_off_the_end_raise_our_out_of_bounds_error() -> None:
    games = ns.BatchGame.new(2, 3, 3, 1, seed=0)
    boards = ns.generate_boards(2, 3, 3, 1, seed=0)
    for batch, name in ((games, "game"), (boards, "board")):
        with pytest.raises(ns.OutOfBoundsError, match=f"{name} index 2 out of range"):
            batch[2]
        with pytest.raises(IndexError):  # (still an IndexError, as for any sequence)
            batch[-3]
    assert boards[-1].mine_count == 1  # a sequence counts from the end, as documented


# -- recorded moves and reset ---------------------------------------------------------


def test_each_game_gets_exactly_its_moves() -> None:
    batch, games = play_both(6, 7, 6, 60, 40, "opening", seed=21)
    for i in range(60):
        got = batch[i].moves
        want = games[i].moves
        assert [(m.kind, m.row, m.col) for m in got] == [(m.kind, m.row, m.col) for m in want]
        times = [m.time for m in got]
        assert times == sorted(times)


def test_moves_of_one_call_share_its_time_and_skip_refused_games() -> None:
    batch = ns.BatchGame.new(3, 9, 9, 10, seed=2, first_click="safe")
    batch.reveal(np.array([4, 9, 4]), np.array([4, 0, 4]), active=np.array([True, True, False]))
    assert [len(batch[i].moves) for i in range(3)] == [1, 0, 0]  # off board, inactive
    batch.toggle_flag(0, 0)
    moves = [batch[i].moves[-1] for i in range(3)]
    assert {m.time for m in moves} == {moves[0].time} and moves[0].kind == "flag"


def test_reset_deals_fresh_boards_and_forgets_those_games() -> None:
    batch = ns.BatchGame.new(6, 9, 9, 10, seed=4)
    batch.reveal(4, 4)
    batch.toggle_flag(0, 0)
    before = batch.mines.copy()
    kept = [batch[i] for i in range(6)]
    mask = np.array([True, False, True, False, False, True])
    batch.reset(mask)
    after = batch.mines
    for i in range(6):
        if mask[i]:
            assert batch[i].moves == () and batch.clicks[i] == 0
            assert batch.states[i] is ns.GameState.IN_PROGRESS
            assert (batch.visible[i] == ns.HIDDEN).all() and batch.mines_left[i] == 10
            assert int(after[i].sum()) == 10 and not np.array_equal(after[i], before[i])
            assert batch.hidden_safe[i] == 71
            np.testing.assert_array_equal(batch.counts[i], ns.Board(after[i]).counts)
        else:
            np.testing.assert_array_equal(after[i], before[i])
            assert batch[i].moves == kept[i].moves
            assert batch[i].snapshot() == kept[i].snapshot()


def test_reset_is_reproducible_from_the_seed() -> None:
    def run() -> tuple[np.ndarray, np.ndarray]:
        batch = ns.BatchGame.new(20, 16, 30, 99, seed=13, first_click="opening")
        rng = np.random.default_rng(0)
        for _ in range(5):
            batch.reveal(rng.integers(0, 16, 20), rng.integers(0, 30, 20))
            batch.reset(~batch.in_progress)
        return batch.mines.copy(), batch.visible

    (m1, v1), (m2, v2) = run(), run()
    np.testing.assert_array_equal(m1, m2)
    np.testing.assert_array_equal(v1, v2)


def test_reset_under_a_first_click_rule_waits_for_the_next_click() -> None:
    batch = ns.BatchGame.new(4, 9, 9, 10, seed=6, first_click="opening")
    batch.reveal(4, 4)
    batch.reset(np.array([True, True, False, False]))
    assert batch.placed.tolist() == [False, False, True, True]
    assert not batch.mines[:2].any()
    batch.reveal(0, 0, active=np.array([True, True, False, False]))
    assert batch.placed.all()
    assert not batch.mines[:2, :2, :2].any()  # the rule kept the new first clicks clear
    np.testing.assert_array_equal(batch[0].snapshot().cells, batch.visible[0])


def test_reset_all_and_bad_masks() -> None:
    batch = ns.BatchGame.new(3, 5, 5, 3, seed=1)
    batch.reveal(0, 0)
    batch.reset()
    assert batch.clicks.tolist() == [0, 0, 0] and (batch.visible == ns.HIDDEN).all()
    with pytest.raises(ns.InvalidTypeError, match=r"mask must be a bool array of shape \(3,\)"):
        batch.reset(np.array([0, 1, 2]))
    with pytest.raises(ns.InvalidBoardError, match=r"of shape \(3,\), got bool \(2,\)"):
        batch.reset(np.array([True, False]))
    with pytest.raises(ns.InvalidBoardError, match=r"active must be a bool array of shape"):
        batch.reveal(0, 0, active=np.ones((1, 3), dtype=bool))
    assert batch.clicks.tolist() == [0, 0, 0]  # (nothing moved)


@pytest.mark.parametrize("how", ["method", "copy", "deepcopy"])
def test_a_copy_is_independent_and_deals_what_the_original_would(how: str) -> None:
    import copy

    batch = ns.BatchGame.new(3, 6, 6, 5, seed=4)
    batch.reveal([0, 1, 2], [0, 1, 2])
    batch.toggle_flag(5, 5, active=np.array([True, False, True]))
    twin = {"method": batch.copy, "copy": lambda: copy.copy(batch)}.get(
        how, lambda: copy.deepcopy(batch)
    )()
    before = batch.visible.copy(), batch.clicks.copy(), [batch[i].moves for i in range(3)]
    twin.toggle_flag(4, 4)
    twin.reveal(3, 3)
    twin.reset(np.array([True, False, False]))
    np.testing.assert_array_equal(batch.visible, before[0])  # the original did not move
    np.testing.assert_array_equal(batch.clicks, before[1])
    assert [batch[i].moves for i in range(3)] == before[2]
    # The twin keeps the history it had, and its resets deal the original's next boards.
    assert twin[1].moves[: len(before[2][1])] == before[2][1]
    batch.toggle_flag(4, 4)
    batch.reveal(3, 3)
    batch.reset(np.array([True, False, False]))
    np.testing.assert_array_equal(twin.mines, batch.mines)
    np.testing.assert_array_equal(twin.visible, batch.visible)


def test_coordinates_past_int64_are_off_the_board_like_any_other() -> None:
    # 2**70 was a TypeError (an object array), uint64's largest wrapped to -1
    batch = ns.BatchGame.new(2, 4, 4, 2, seed=0)
    off = ns.MoveStatus.OUT_OF_BOUNDS
    for rows, cols in ((2**70, 0), (np.uint64(2**64 - 1), 0), ([2**70, 1], [0, -(2**80)])):
        assert batch.reveal(rows, cols).tolist() == [off, off]
    assert batch.clicks.tolist() == [0, 0] and (batch.visible == ns.HIDDEN).all()
    with pytest.raises(ns.OutOfBoundsError, match=r"game index 18446744073709551615 is off"):
        batch.visible_of(np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(ns.OutOfBoundsError, match=r"game index 1180591620717411303424 is off"):
        batch.visible_of([2**70])
    with pytest.raises(ns.OutOfBoundsError, match=r"game index 1180591620717411303424 is off"):
        batch.visible_of([np.int64(0), 2**70])  # (numpy and Python integers in one list)
    assert batch.visible_of(np.array([np.int64(1)], dtype=object)).shape == (1, 4, 4)
    assert batch.reveal([np.int64(1), 2**70], 0).tolist() == [ns.MoveStatus.OK, off]
    with pytest.raises(ns.InvalidTypeError, match=r"rows must hold integers, got dtype object"):
        batch.reveal([2**70, "1"], 0)


def test_a_failed_reset_changes_nothing() -> None:
    class Refuses(ns.MinePlacementStrategy):
        def place(self, rows, cols, mines, *, safe=None):  # type: ignore[no-untyped-def]
            raise ns.InvalidBoardError("no more boards")

    batch = ns.BatchGame.from_mines(np.eye(3, dtype=bool)[None].repeat(2, 0), strategy=Refuses())
    batch.reveal(0, 1)
    before = (batch.visible, batch.clicks, batch.mines.copy())
    with pytest.raises(ns.InvalidBoardError, match="no more boards"):
        batch.reset(np.array([True, False]))
    np.testing.assert_array_equal(batch.visible, before[0])
    np.testing.assert_array_equal(batch.clicks, before[1])
    np.testing.assert_array_equal(batch.mines, before[2])
    assert len(batch[0].moves) == 1


def test_the_log_stays_bounded_under_endless_resets(monkeypatch: pytest.MonkeyPatch) -> None:
    from numsweeper import batchgame

    monkeypatch.setattr(batchgame, "_SLACK", 64)
    batch = ns.BatchGame.new(8, 5, 5, 2, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(400):
        batch.reveal(rng.integers(0, 5, 8), rng.integers(0, 5, 8))
        batch.reset(~batch.in_progress)
    live = int(batch.clicks.sum())
    assert batch._logged <= 2 * live + 64 + 8
    for i in range(8):  # every game still has exactly its moves since its last deal
        game = batch[i]
        assert len(game.moves) == batch.clicks[i]
        np.testing.assert_array_equal(game.snapshot().cells, batch.visible[i])


# -- strategies ----------------------------------------------------------------------------


class TopLeft(ns.MinePlacementStrategy):
    """A third-party strategy with ``place`` only: mines fill the board in reading order,
    skipping safe cells."""

    def place(self, rows, cols, mines, *, safe=None):  # type: ignore[no-untyped-def]
        flat = np.zeros(rows * cols, dtype=bool)
        allowed = np.flatnonzero(~safe.reshape(-1)) if safe is not None else np.arange(flat.size)
        flat[allowed[:mines]] = True
        return flat.reshape(rows, cols)


def test_strategies_reach_batch_games() -> None:
    batch = ns.BatchGame.new(5, 4, 4, 3, strategy=TopLeft())
    assert (batch.mines[:, 0, :3]).all() and batch.mines.sum() == 15
    batch = ns.BatchGame.new(5, 4, 4, 3, strategy=TopLeft(), first_click="safe")
    batch.reveal(np.array([0, 1, 2, 3, 0]), np.array([0, 0, 0, 0, 1]))
    assert not batch.mines[0, 0, 0] and batch.mines[0, 0, 1:4].all()
    assert batch.mines[4, 0, 0] and not batch.mines[4, 0, 1]
    fixed = ns.FixedPlacement([(3, 3)])
    batch = ns.BatchGame.new(4, 4, 4, 1, strategy=fixed)
    assert batch.mines[:, 3, 3].all() and batch.mines.sum() == 4  # n copies
    batch.reset()
    assert batch.mines[:, 3, 3].all()
    with pytest.raises(TypeError, match="not both"):
        ns.BatchGame.new(2, 4, 4, 1, strategy=fixed, seed=1)
    with pytest.raises(TypeError, match="MinePlacementStrategy"):
        ns.BatchGame.new(2, 4, 4, 1, strategy=object())  # type: ignore[arg-type]


def test_a_strategy_that_breaks_its_promise_in_a_batch_is_named() -> None:
    class Greedy(ns.MinePlacementStrategy):
        def place(self, rows, cols, mines, *, safe=None):  # type: ignore[no-untyped-def]
            return np.ones((rows, cols), dtype=bool)

    with pytest.raises(
        ns.InvalidBoardError, match=r"Greedy placed 16 mines on board 0, expected 3"
    ):
        ns.BatchGame.new(2, 4, 4, 3, strategy=Greedy())
