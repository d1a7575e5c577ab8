"""Recorded games: moves, elapsed time, undo/redo, copies, pickles and replays."""

from __future__ import annotations

import contextlib
import copy
import pickle
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numsweeper as ns
from numsweeper import game as game_module

S = ns.GameState
ACTIONS = {"reveal": "reveal", "flag": "toggle_flag", "chord": "chord"}


def position(game: ns.Game) -> tuple[Any, ...]:
    """Everything undo must restore exactly."""
    board = game.board
    # Undoing a first reveal keeps the layout it laid: count the hidden safe
    # cells either way.
    hidden_safe = game.rows * game.cols - game.mine_count if board is None else board.hidden_safe
    snap = game.snapshot()
    return (snap, snap.mines_left, game.state, hidden_safe, game.moves, game.elapsed)


def random_move(game: ns.Game, rng: np.random.Generator) -> tuple[str, int, int]:
    """A move that is often useful: reveal or flag a hidden cell, chord a number."""
    cells = game.snapshot().cells
    kind = str(rng.choice(list(ACTIONS), p=[0.6, 0.25, 0.15]))
    if kind == "chord":
        where = np.argwhere(cells > 0)
    elif kind == "flag":
        where = np.argwhere((cells == ns.HIDDEN) | (cells == ns.FLAG))
    else:
        where = np.argwhere(cells == ns.HIDDEN)
    if not len(where) or rng.random() < 0.1:  # sometimes anywhere, even an illegal move
        return kind, int(rng.integers(game.rows)), int(rng.integers(game.cols))
    r, c = where[rng.integers(len(where))]
    return kind, int(r), int(c)


def play(game: ns.Game, rng: np.random.Generator, steps: int) -> list[tuple[Any, ...]]:
    """Play random moves; return the position before the first and after every accepted one."""
    positions = [position(game)]
    for _ in range(steps):
        if game.state is not S.IN_PROGRESS:
            break
        kind, r, c = random_move(game, rng)
        before = len(game.moves)
        try:
            getattr(game, ACTIONS[kind])(r, c)
        except ns.MinesweeperError:
            assert len(game.moves) == before  # rejected calls are not recorded
            assert position(game)[:5] == positions[-1][:5]
            continue
        assert len(game.moves) == before + 1
        move = game.moves[-1]
        assert (move.kind, move.row, move.col) == (kind, r, c)
        positions.append(position(game))
    return positions


def new_game(rng: np.random.Generator) -> ns.Game:
    rows, cols = int(rng.integers(2, 9)), int(rng.integers(2, 9))
    rule = [None, "safe", "opening"][int(rng.integers(3))]
    keep = {None: 1, "safe": 1, "opening": min(rows, 3) * min(cols, 3)}[rule]
    mines = int(rng.integers(0, rows * cols - keep + 1))
    return ns.Game.new(rows, cols, mines, seed=int(rng.integers(2**32)), first_click=rule)


def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Positions equal; the elapsed time of a game in progress runs on, so it may grow."""
    if a[:5] != b[:5]:
        return False
    return a[5] == b[5] if a[2] is not S.IN_PROGRESS else b[5] >= a[5]


# -- moves and the clock -------------------------------------------------------------


def test_moves_record_accepted_calls_only_including_no_ops() -> None:
    game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    assert game.moves == ()
    game.reveal(1, 1)
    game.reveal(1, 1)  # a no-op, but a click
    game.chord(1, 1)  # nothing to chord: a click too
    with pytest.raises(ns.OutOfBoundsError):
        game.reveal(3, 0)
    game.toggle_flag(0, 0)
    with pytest.raises(ns.IllegalMoveError):
        game.reveal(0, 0)
    with pytest.raises(TypeError):
        game.chord(1.5, 0)  # type: ignore[arg-type]
    kinds = [(m.kind, m.row, m.col) for m in game.moves]
    assert kinds == [("reveal", 1, 1), ("reveal", 1, 1), ("chord", 1, 1), ("flag", 0, 0)]
    times = [m.time for m in game.moves]
    assert times == sorted(times) and times[0] >= 0
    assert all(type(m.row) is int and type(m.time) is float for m in game.moves)


def test_moves_are_frozen_and_checked() -> None:
    move = ns.Move("reveal", np.int64(2), 3, 1)
    assert (move.row, move.time) == (2, 1.0) and type(move.row) is int
    with pytest.raises(AttributeError):
        move.row = 4  # type: ignore[misc]
    with pytest.raises(ns.InvalidBoardError, match="'dig'"):
        ns.Move("dig", 0, 0, 0.0)
    with pytest.raises(TypeError, match="row"):
        ns.Move("reveal", 0.5, 0, 0.0)  # type: ignore[arg-type]
    with pytest.raises(ns.InvalidBoardError, match="-1"):
        ns.Move("flag", 0, 0, -1.0)
    with pytest.raises(ns.InvalidBoardError, match="nan"):
        ns.Move("flag", 0, 0, float("nan"))
    with pytest.raises(TypeError, match="'1'"):
        ns.Move("flag", 0, 0, "1")  # type: ignore[arg-type]


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(game_module.time, "monotonic", fake)
    return fake


def test_elapsed_runs_from_the_first_reveal_and_stops_at_the_end(clock: Clock) -> None:
    game = ns.Game.new(1, 4, 1, strategy=ns.FixedPlacement([(0, 0)]))
    clock.now += 5
    game.toggle_flag(0, 0)  # flags do not start the clock
    assert game.elapsed == 0.0 and game.moves[0].time == 5.0
    clock.now += 2
    game.reveal(0, 1)
    clock.now += 3
    assert game.elapsed == 3.0
    clock.now += 4
    game.reveal(0, 3)  # floods to the end: WON
    assert game.state is S.WON and game.elapsed == 7.0
    clock.now += 100
    assert game.elapsed == 7.0  # stopped
    game.undo()
    assert game.state is S.IN_PROGRESS and game.elapsed == 107.0  # running again
    game.undo()
    assert game.elapsed == 0.0  # no reveal left
    game.redo()
    assert game.elapsed == 107.0 and game.moves[-1].time == 7.0  # redo keeps the time
    clock.now += 1
    game.reveal(0, 3)  # a new move: stamped now, and it ends the game
    assert game.moves[-1].time == 115.0 and game.elapsed == 108.0


def test_copies_and_pickles_keep_the_clock(clock: Clock) -> None:
    game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    clock.now += 1
    game.reveal(0, 1)
    clock.now += 2
    twin, pickled = game.copy(), pickle.loads(pickle.dumps(game))
    clock.now += 3
    assert game.elapsed == twin.elapsed == pickled.elapsed == 5.0


# -- undo and redo ---------------------------------------------------------------------


def test_undo_and_redo_restore_every_position_exactly() -> None:
    rng = np.random.default_rng(5)
    for _ in range(150):
        game = new_game(rng)
        positions = play(game, rng, int(rng.integers(1, 25)))
        for k in range(len(positions) - 1, 0, -1):
            assert same(positions[k], position(game)), k
            undone = game.undo()
            assert undone == positions[k][4][-1]
        assert same(positions[0], position(game))
        with pytest.raises(ns.IllegalMoveError, match="nothing to undo"):
            game.undo()
        for k in range(1, len(positions)):
            redone = game.redo()
            assert redone == positions[k][4][-1]
            assert same(positions[k], position(game)), k
        with pytest.raises(ns.IllegalMoveError, match="nothing to redo"):
            game.redo()


def test_undo_matches_a_fresh_replay_on_bigger_boards() -> None:
    # Undo walks back with what each move changed; a replay from the layout
    # must land on the same position every time.
    rng = np.random.default_rng(11)
    for _ in range(20):
        game = ns.Game.new(30, 40, int(rng.integers(60, 300)), seed=int(rng.integers(2**32)))
        play(game, rng, 40)
        while game.moves:
            assert game.replay(len(game.moves)).snapshot() == game.snapshot()
            game.undo()


def test_undo_after_a_loss_and_a_win_goes_back_into_play() -> None:
    game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.reveal(0, 0)
    assert game.state is S.LOST and game.snapshot().cells[0, 0] == ns.EXPLODED
    assert game.board is not None and game.board.revealed[0, 0]  # the mine that exploded
    assert game.undo().kind == "reveal"
    assert game.state is S.IN_PROGRESS and game.snapshot().cells[0, 0] == ns.HIDDEN
    assert game.board.hidden_safe == 3 and not game.board.revealed.any()
    for r, c in [(0, 1), (1, 0), (1, 1)]:
        game.reveal(r, c)
    assert game.state is S.WON
    with pytest.raises(ns.GameOverError):
        game.reveal(0, 0)  # terminal states stay sticky for new moves
    game.undo()
    assert game.state is S.IN_PROGRESS and game.snapshot().mines_left == 1


def test_a_chord_that_loses_is_undone_whole() -> None:
    game = ns.Game.new(3, 3, 2, strategy=ns.FixedPlacement([(0, 0), (0, 2)]))
    game.reveal(1, 1)
    game.toggle_flag(2, 2)  # a wrong flag: the chord hits both mines
    game.toggle_flag(0, 1)
    before = position(game)
    result = game.chord(1, 1)
    assert result.state is S.LOST
    assert {(0, 0), (0, 2)} <= {tuple(cell) for cell in result.cells.tolist()}
    game.undo()
    assert same(before, position(game))


def test_a_new_move_drops_the_redo_stack() -> None:
    game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.reveal(2, 2)
    game.undo()
    game.toggle_flag(0, 0)
    with pytest.raises(ns.IllegalMoveError, match="nothing to redo"):
        game.redo()
    assert [m.kind for m in game.moves] == ["flag"]


def test_a_rejected_move_keeps_the_redo_stack() -> None:
    game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.toggle_flag(0, 0)
    game.reveal(2, 2)
    game.undo()
    with pytest.raises(ns.IllegalMoveError):
        game.reveal(0, 0)
    assert game.redo().kind == "reveal" and game.state is S.WON


def test_undoing_the_first_reveal_keeps_the_layout() -> None:
    for rule in ("safe", "opening"):
        game = ns.Game.new(9, 9, 10, seed=4, first_click=rule)
        game.reveal(4, 4)
        assert game.board is not None
        layout = game.board.mines.copy()
        game.undo()
        assert game.board is not None  # the mines stay laid
        np.testing.assert_array_equal(game.board.mines, layout)
        assert game.moves == () and game.elapsed == 0.0
        # The next first reveal plays on that layout, wherever it lands.
        result = game.reveal(0, 0)
        assert result.state is (S.LOST if layout[0, 0] else game.state)
        np.testing.assert_array_equal(game.board.mines, layout)


def test_undo_and_redo_of_a_big_flood() -> None:
    # (What undo costs is measured in benchmarks/bench_records.py: O(cells changed).)
    game = ns.Game.new(300, 300, 20, seed=3, first_click="opening")
    game.reveal(150, 150)
    assert game.board is not None and game.board.hidden_safe < 300 * 300 // 2
    flooded = game.snapshot()
    game.undo()
    assert game.board.hidden_safe == 300 * 300 - 20
    game.redo()
    assert game.snapshot() == flooded


# -- copies, pickles and threads -----------------------------------------------------------


@pytest.mark.parametrize("make", ["copy", "copy.copy", "copy.deepcopy", "pickle"])
def test_copies_are_independent_in_both_directions(make: str) -> None:
    rng = np.random.default_rng(2)
    game = ns.Game.new(9, 9, 10, seed=9, first_click="safe")
    play(game, rng, 6)
    if game.moves:
        game.undo()  # so that there is something to redo
    twin = {
        "copy": lambda g: g.copy(),
        "copy.copy": copy.copy,
        "copy.deepcopy": copy.deepcopy,
        "pickle": lambda g: pickle.loads(pickle.dumps(g)),
    }[make](game)
    assert twin is not game and twin._lock is not game._lock
    assert position(twin)[:5] == position(game)[:5]
    original = position(game)
    play(twin, rng, 10)
    while twin.moves:
        twin.undo()
    twin.toggle_flag(0, 0)
    assert position(game)[:5] == original[:5]  # the copy never touched the original
    game.toggle_flag(8, 8)
    assert twin.snapshot().cells[8, 8] == ns.HIDDEN  # nor the reverse
    if game.board is not None and twin.board is not None:
        assert not np.shares_memory(game.board.revealed, twin.board.revealed)


def test_a_copy_before_the_first_click_lays_the_same_mines() -> None:
    game = ns.Game.new(16, 30, 99, seed=5, first_click="opening")
    twin = game.copy()
    game.reveal(3, 3)
    twin.reveal(3, 3)
    assert game.board is not None and twin.board is not None
    np.testing.assert_array_equal(game.board.mines, twin.board.mines)


class Guarded(ns.RandomPlacement):
    """A strategy that cannot be copied: it holds a lock."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.lock = threading.Lock()


def test_once_the_mines_are_laid_a_copy_shares_the_strategy() -> None:
    strategy = Guarded(3)
    game = ns.Game.new(9, 9, 10, strategy=strategy, first_click="opening")
    with pytest.raises(TypeError, match="lock"):
        game.copy()  # before the first click the copy needs a strategy of its own
    game.reveal(4, 4)
    for twin in (game.copy(), game.replay(1), ns.BatchGame.new(2, 9, 9, 10, strategy=strategy)[0]):
        assert twin.strategy is strategy
    twin = game.copy()
    twin.undo()
    twin.reveal(0, 0)  # the undone first reveal keeps its mines: no new layout
    assert twin.board is not None and game.board is not None
    np.testing.assert_array_equal(twin.board.mines, game.board.mines)


def test_pickled_games_play_on_and_undo() -> None:
    game = ns.Game.from_preset("beginner", seed=1, first_click="opening")
    game.reveal(4, 4)
    again = pickle.loads(pickle.dumps(game))
    assert again.undo() == game.moves[0]
    assert again.board is not None and again.board.hidden_safe == 71


def test_undo_and_moves_from_many_threads_stay_consistent() -> None:
    game = ns.Game.new(40, 40, 200, seed=8)
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(60):
                if rng.random() < 0.4:
                    with contextlib.suppress(ns.IllegalMoveError):
                        game.undo()
                else:
                    kind, r, c = random_move(game, rng)
                    with contextlib.suppress(ns.MinesweeperError):
                        getattr(game, ACTIONS[kind])(r, c)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    # Whatever interleaving happened, the game is its moves replayed.
    assert game.replay().snapshot() == game.snapshot()
    board = game.board
    assert board is not None
    assert board.hidden_safe == int((~board.revealed & ~board.mines).sum())


# -- replay ------------------------------------------------------------------------------


def test_replay_gives_every_intermediate_position() -> None:
    rng = np.random.default_rng(17)
    for _ in range(60):
        game = new_game(rng)
        positions = play(game, rng, 20)
        for k, expected in enumerate(positions):
            replayed = game.replay(k)
            assert replayed.snapshot() == expected[0]
            assert replayed.moves == expected[4]
            assert replayed.state is expected[2]
        with pytest.raises(ns.IllegalMoveError):
            game.replay().redo()  # a replay has nothing to redo


def test_replay_checks_upto() -> None:
    game = ns.Game.new(3, 3, 1, seed=0)
    game.toggle_flag(0, 0)
    with pytest.raises(ns.InvalidBoardError, match=r"0\.\.1, got 2"):
        game.replay(2)
    with pytest.raises(ns.InvalidBoardError, match="-1"):
        game.replay(-1)
    with pytest.raises(TypeError, match="upto"):
        game.replay(1.0)  # type: ignore[arg-type]


def test_replay_of_a_game_begun_on_a_played_board() -> None:
    board = ns.Board([[True, False, False, False], [False, False, False, False]])
    board.reveal(1, 3)
    board.toggle_flag(0, 0)
    game = ns.Game(board)
    start = game.snapshot()
    game.reveal(0, 1)
    assert game.replay(0).snapshot() == start
    assert game.replay().snapshot() == game.snapshot()
    game.undo()
    assert game.snapshot() == start
    with pytest.raises(ns.IllegalMoveError):
        game.undo()  # the start position itself cannot be undone


@given(
    rows=st.integers(1, 7),
    cols=st.integers(1, 7),
    data=st.data(),
)
def test_undo_all_returns_to_the_start(rows: int, cols: int, data: st.DataObject) -> None:
    mines = data.draw(st.integers(0, rows * cols - 1))
    seed = data.draw(st.integers(0, 2**32 - 1))
    game = ns.Game.new(rows, cols, mines, seed=seed)
    start = position(game)
    cells = st.tuples(st.integers(-1, rows), st.integers(-1, cols))
    moves = data.draw(st.lists(st.tuples(st.sampled_from(list(ACTIONS)), cells), max_size=30))
    for kind, (r, c) in moves:
        with contextlib.suppress(ns.MinesweeperError):
            getattr(game, ACTIONS[kind])(r, c)
    assert game.replay().snapshot() == game.snapshot()
    while game.moves:
        game.undo()
    assert position(game) == start


# -- a game's board is the game's --------------------------------------------------------


def test_a_games_board_reads_but_does_not_play() -> None:
    game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.reveal(0, 1)
    board = game.board
    assert board is not None
    for move in (board.reveal, board.toggle_flag, board.chord):
        with pytest.raises(ns.IllegalMoveError, match="belongs to a Game"):
            move(2, 2)
    assert game.moves[-1].row == 0 and board.revealed[0, 1] and not board.revealed[2, 2]
    game.reveal(2, 2)
    assert board.revealed[2, 2]  # the view follows the game
    # A board the caller built is taken over by the game it starts.
    own = ns.Board([[True, False, False]])
    taken = ns.Game(own)
    with pytest.raises(ns.IllegalMoveError):
        own.reveal(0, 2)
    taken.reveal(0, 2)
    assert own.revealed[0, 2] and taken.board is own


def test_a_game_on_another_games_board_is_independent() -> None:
    game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.reveal(1, 2)
    assert game.board is not None
    other = ns.Game(game.board)  # copied: the two never share a cell
    assert other.reveal(1, 0).state is S.WON
    assert game.snapshot().cells[1, 0] == ns.HIDDEN and game.state is S.IN_PROGRESS
    game.undo()
    assert other.snapshot().cells[1, 2] == 0 and other.state is S.WON


@pytest.mark.parametrize("make", ["copy.copy", "copy.deepcopy", "pickle"])
def test_board_copies_are_whole_and_independent(make: str) -> None:
    board = ns.Board([[True, False, False], [False, False, False]])
    board.reveal(0, 2)
    twin = {
        "copy.copy": copy.copy,
        "copy.deepcopy": copy.deepcopy,
        "pickle": lambda b: pickle.loads(pickle.dumps(b)),
    }[make](board)
    twin.reveal(1, 0)
    assert twin.hidden_safe == 0 and int(twin.revealed.sum()) == 5  # views follow the copy
    assert board.hidden_safe == 1 and not board.revealed[1, 0]
