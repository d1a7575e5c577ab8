"""Every rejected action raises the right error, names the bad value, and changes nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import numsweeper as ns
from numsweeper.render import check_visible
from reference import fixed_game

Unchanged = Callable[[ns.Game], AbstractContextManager[None]]
ACTIONS = ["reveal", "toggle_flag", "chord"]

# 5x6 board: two mines top left, and a wall that hides (3, 5) and (4, 5)
# from the flood of (2, 2), which leaves 9 safe cells hidden.
MINES = [(0, 0), (0, 1), (2, 4), (3, 4), (4, 4)]


def mid_game() -> ns.Game:
    game = fixed_game(5, 6, MINES)
    game.reveal(2, 2)  # floods most of the board
    game.toggle_flag(0, 0)
    game.toggle_flag(4, 4)
    game.toggle_flag(3, 5)
    game.undo()  # a move to redo, which a rejected action must keep
    assert game.state is ns.GameState.IN_PROGRESS
    assert game.board is not None and game.board.hidden_safe == 9
    return game


def unplaced_game() -> ns.Game:
    game = ns.Game.new(5, 6, 3, seed=0, first_click="safe")
    game.toggle_flag(1, 1)
    return game


def won_game() -> ns.Game:
    game = fixed_game(5, 6, MINES)
    game.reveal(2, 2)
    board = game.board
    assert board is not None
    for r, c in np.argwhere(~board.revealed & ~board.mines).tolist():
        if game.state is ns.GameState.IN_PROGRESS:
            game.reveal(r, c)
    assert game.state is ns.GameState.WON
    return game


def lost_game() -> ns.Game:
    game = fixed_game(5, 6, MINES)
    game.toggle_flag(3, 3)  # a wrong flag, shown after the loss
    game.reveal(0, 0)
    assert game.state is ns.GameState.LOST
    return game


PHASES = {"mid": mid_game, "unplaced": unplaced_game, "won": won_game, "lost": lost_game}
LIVE = ["mid", "unplaced"]


def test_hierarchy() -> None:
    assert issubclass(ns.InvalidBoardError, ns.MinesweeperError)
    assert issubclass(ns.InvalidBoardError, ValueError)
    assert issubclass(ns.OutOfBoundsError, ns.MinesweeperError)
    assert issubclass(ns.OutOfBoundsError, IndexError)
    assert issubclass(ns.IllegalMoveError, ns.MinesweeperError)
    assert issubclass(ns.IllegalMoveError, ValueError)
    assert issubclass(ns.GameOverError, ns.MinesweeperError)
    assert issubclass(ns.MinesweeperError, Exception)
    assert not issubclass(ns.OutOfBoundsError, ValueError)
    assert issubclass(ns.InvalidTypeError, ns.MinesweeperError)
    assert issubclass(ns.InvalidTypeError, TypeError)
    assert not issubclass(ns.InvalidTypeError, ValueError)


@pytest.mark.parametrize("phase", LIVE)
@pytest.mark.parametrize("bad", [1.0, "2", None, True, np.float64(1)])
def test_a_coordinate_of_the_wrong_type_is_ours_and_changes_nothing(
    unchanged: Unchanged, phase: str, bad: Any
) -> None:
    game = PHASES[phase]()
    for action in (game.reveal, game.toggle_flag, game.chord):
        with (
            unchanged(game),
            pytest.raises(
                ns.InvalidTypeError, match=re.escape(f"row must be an integer, got {bad!r}")
            ),
        ):
            action(bad, 0)


@pytest.mark.parametrize("phase", LIVE)
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize(
    ("row", "col", "bad"),
    [(-1, 0, -1), (0, -1, -1), (-5, 0, -5), (0, -6, -6), (5, 0, 5), (0, 6, 6), (99, 99, 99)],
)
def test_off_board(
    unchanged: Unchanged, phase: str, action: str, row: int, col: int, bad: int
) -> None:
    game = PHASES[phase]()
    axis, size = ("row", 5) if row == bad else ("col", 6)
    words = re.escape(f"{axis} {bad} is off the board ({axis}s 0..{size - 1})")
    with unchanged(game), pytest.raises(ns.OutOfBoundsError, match=words):
        getattr(game, action)(row, col)
    with unchanged(game), pytest.raises(ns.OutOfBoundsError, match=words):
        getattr(game, action)(np.int64(row), np.int64(col))


@pytest.mark.parametrize("phase", LIVE)
@pytest.mark.parametrize("action", ACTIONS)
def test_huge_coordinates_are_off_board_not_overflow(
    unchanged: Unchanged, phase: str, action: str
) -> None:
    game = PHASES[phase]()
    for row, col, words in [
        (2**70, 0, f"row {2**70} is off"),
        (0, -(2**70), f"col {-(2**70)} is off"),
        (np.uint64(2**63), 0, f"row {2**63} is off"),
    ]:
        with unchanged(game), pytest.raises(ns.OutOfBoundsError, match=re.escape(words)):
            getattr(game, action)(row, col)


NON_INTEGERS = [
    1.5,
    1.0,
    "a",
    "1",
    None,
    True,
    False,
    np.True_,
    np.float64(1.0),
    1 + 0j,
    [1],
    (1,),
    np.array(1.5),
    Fraction(1, 1),
]


@pytest.mark.parametrize("phase", LIVE)
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("value", NON_INTEGERS, ids=repr)
def test_non_integer_coordinates(unchanged: Unchanged, phase: str, action: str, value: Any) -> None:
    game = PHASES[phase]()
    for row, col in [(value, 0), (0, value)]:
        with unchanged(game), pytest.raises(TypeError) as info:
            getattr(game, action)(row, col)
        assert repr(value) in str(info.value)


@pytest.mark.parametrize(
    "make", [int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, np.intp]
)
def test_numpy_integers_are_accepted(make: Callable[[int], Any]) -> None:
    game = fixed_game(5, 6, MINES)
    assert game.toggle_flag(make(0), make(0)) is True
    result = game.reveal(make(2), make(2))
    assert len(result) > 1
    expected = game.snapshot()
    plain = fixed_game(5, 6, MINES)
    plain.toggle_flag(0, 0)
    plain.reveal(2, 2)
    assert expected == plain.snapshot()
    assert len(game.chord(make(1), make(1))) == len(plain.chord(1, 1))


@pytest.mark.parametrize("phase", LIVE)
def test_reveal_flagged_cell(unchanged: Unchanged, phase: str) -> None:
    game = PHASES[phase]()
    cell = (0, 0) if phase == "mid" else (1, 1)
    words = re.escape(f"cannot reveal flagged cell {cell}")
    with unchanged(game), pytest.raises(ns.IllegalMoveError, match=words):
        game.reveal(*cell)
    with unchanged(game), pytest.raises(ns.IllegalMoveError, match=words):
        game.reveal(np.int64(cell[0]), cell[1])


def test_flag_revealed_cell(unchanged: Unchanged) -> None:
    game = mid_game()
    assert game.board is not None and game.board.revealed[2, 2]
    with unchanged(game), pytest.raises(ns.IllegalMoveError, match=r"flag revealed cell \(2, 2\)"):
        game.toggle_flag(2, 2)
    with unchanged(game), pytest.raises(ns.IllegalMoveError, match=r"flag revealed cell \(1, 1\)"):
        game.toggle_flag(1, 1)


@pytest.mark.parametrize("phase", ["won", "lost"])
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("cell", [(0, 0), (0, 1), (2, 2), (3, 3), (4, 5), (-1, 0), (0, 9)])
def test_game_over(unchanged: Unchanged, phase: str, action: str, cell: Any) -> None:
    game = PHASES[phase]()
    state = game.state
    with unchanged(game), pytest.raises(ns.GameOverError, match=state.name) as info:
        getattr(game, action)(*cell)
    assert str(cell) in str(info.value)
    assert game.state is state


@pytest.mark.parametrize("phase", ["won", "lost"])
@pytest.mark.parametrize("action", ACTIONS)
def test_game_over_with_bad_coordinates_still_changes_nothing(
    unchanged: Unchanged, phase: str, action: str
) -> None:
    # A coordinate's type is checked before the game's state: the error names it.
    game = PHASES[phase]()
    for cell in [(1.5, 0), (None, None), ("a", 0)]:
        words = re.escape(f"row must be an integer, got {cell[0]!r}")
        with unchanged(game), pytest.raises(ns.InvalidTypeError, match=words):
            getattr(game, action)(*cell)


def test_lost_snapshot_is_stable_after_rejected_actions() -> None:
    game = lost_game()
    snap = game.snapshot()
    assert snap.cells[0, 0] == ns.EXPLODED
    assert snap.cells[0, 1] == ns.MINE and snap.cells[4, 4] == ns.MINE
    assert snap.cells[3, 3] == ns.WRONG_FLAG
    for action in ACTIONS:
        with pytest.raises(ns.GameOverError):
            getattr(game, action)(3, 3)
    assert game.snapshot() == snap


def _ragged_calls() -> list[tuple[str, Callable[[], Any]]]:
    H = ns.HIDDEN
    batch = ns.BatchGame.new(3, 4, 4, 2, seed=0)
    return [
        ("mines", lambda: ns.BatchGame.from_mines([[[True, False]], [[False]]])),
        ("rows", lambda: batch.reveal([[1], [1, 2], [3]], 0)),
        ("games", lambda: batch.visible_of([[0], [0, 1]])),
        ("mask", lambda: batch.reset([[True], [True, False]])),
        ("mines", lambda: ns.metrics.three_bv([[True], [True, False]])),
        ("visible", lambda: ns.solver.analyze([[H], [H, H]], 1)),
        ("visible", lambda: ns.solver.local_rules([[H], [H, H]])),
        ("visible cells", lambda: check_visible([[H], [H, H]])),
        ("mines", lambda: ns.Board([[True], [True, False]])),
        ("click", lambda: ns.generate_boards(2, 5, 5, 3, first_click="safe", click=[[0], [0, 1]])),
    ]


@pytest.mark.parametrize("index", range(len(_ragged_calls())))
def test_ragged_nested_lists_are_ours_and_named(index: int) -> None:
    # numpy's own error for rows of different lengths is a bare ValueError
    name, call = _ragged_calls()[index]
    with pytest.raises(ns.InvalidBoardError, match=rf"^{name} must be .*, got \[\["):
        call()


def test_integers_too_long_to_print_are_named_by_their_size() -> None:
    # Python refuses to print integers of more than 4,300 digits: the
    # messages themselves once raised a bare ValueError
    big = 10**5000
    size = "an integer of 16,610 bits"
    calls: list[tuple[type[Exception], str, Callable[[], Any]]] = [
        (
            ns.OutOfBoundsError,
            f"click [{size}, 0] is off",
            lambda: ns.update_board([["E"]], [big, 0]),
        ),
        (ns.InvalidBoardError, f"rows, got {size}", lambda: ns.update_board(big, [0, 0])),
        (ns.InvalidBoardError, f"row 0 = {size}", lambda: ns.update_board([big], [0, 0])),
        (
            ns.InvalidTypeError,
            f"'opening', got {size}",
            lambda: ns.Game.new(3, 3, 1, first_click=big),
        ),
        (
            ns.InvalidTypeError,
            f"click must hold integers, got [{size}, 0.5]",
            lambda: ns.generate_boards(2, 5, 5, 3, first_click="safe", click=[big, 0.5]),
        ),
        (ns.InvalidBoardError, f"got {size}", lambda: ns.solver.analyze(np.full((2, 2), -1), big)),
        (ns.OutOfBoundsError, f"game {size} is not", lambda: ns.simulate(3, 5, 5, 3).replay(big)),
    ]
    for error, words, call in calls:
        with pytest.raises(error, match=re.escape(words)):
            call()


def test_short_repr_never_raises() -> None:
    from numsweeper._validate import short_repr

    big = 10**5000
    loop: list[Any] = [big]
    loop.append(loop)  # (a list that holds itself)
    deep: list[Any] = [0]
    for _ in range(100_000):
        deep = [deep]

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert short_repr(loop) == "[an integer of 16,610 bits, [an integer of 16,610 bits, a list]]"
    assert short_repr(deep).startswith("[[") and short_repr(Broken()) == "a Broken"
    assert short_repr((big, 1)) == "(an integer of 16,610 bits, 1)"
    with pytest.raises(ns.InvalidTypeError, match=r"got \[an integer of 16,610 bits"):
        ns.Game.new(3, 3, 1, first_click=loop)


def test_creation_errors() -> None:
    with pytest.raises(ns.InvalidBoardError, match="-2"):
        ns.Game.new(-2, 3, 1)
    with pytest.raises(ns.InvalidBoardError, match="6"):
        ns.Game.new(2, 3, 6)
    with pytest.raises(ValueError, match="'nope'") as info:
        ns.Game.from_preset("nope")
    assert "beginner" in str(info.value) and "expert" in str(info.value)
    with pytest.raises(ns.InvalidBoardError, match="opening"):
        ns.Game.new(3, 3, 1, first_click="opening")
    with pytest.raises(ValueError, match="'always'"):
        ns.Game.new(9, 9, 10, first_click="always")


def test_failed_first_reveal_leaves_mines_unlaid(unchanged: Unchanged) -> None:
    game = ns.Game.new(3, 4, 2, strategy=ns.FixedPlacement([(0, 0), (1, 1)]), first_click="safe")
    for bad, error, words in [
        ((1.5, 0), ns.InvalidTypeError, "row must be an integer, got 1.5"),
        ((3, 0), ns.OutOfBoundsError, "row 3 is off the board (rows 0..2)"),
        ((0, -1), ns.OutOfBoundsError, "col -1 is off the board (cols 0..3)"),
    ]:
        with unchanged(game), pytest.raises(error, match=re.escape(words)):
            game.reveal(*bad)
        assert game.board is None
    # the fixed layout cannot keep (1, 1) safe
    with unchanged(game), pytest.raises(ns.InvalidBoardError, match=r"mine on \(1, 1\)"):
        game.reveal(1, 1)
    assert game.board is None
    assert game.reveal(2, 3).state is ns.GameState.IN_PROGRESS
    assert game.board is not None and game.board.mine_count == 2


def test_errors_inside_a_flood_game_keep_the_counter() -> None:
    game = mid_game()
    board = game.board
    assert board is not None
    hidden = board.hidden_safe
    for call in (
        lambda: game.reveal(0, 0),
        lambda: game.reveal(-1, -1),
        lambda: game.toggle_flag(2, 2),
        lambda: game.chord(1.0, 1),
    ):
        with pytest.raises((ns.MinesweeperError, TypeError)):
            call()
        assert board.hidden_safe == hidden
        assert board.hidden_safe == int((~board.revealed & ~board.mines).sum())


def test_game_over_message_shows_numpy_coordinates_as_plain_numbers() -> None:
    game = ns.Game.new(2, 2, 0)
    game.reveal(0, 0)
    with pytest.raises(ns.GameOverError, match=r"cannot reveal \(1, 0\): the game is already WON"):
        game.reveal(np.int64(1), np.int8(0))


SEEDED: dict[str, Callable[[Any], Any]] = {
    "Game.new": lambda seed: ns.Game.new(3, 3, 1, seed=seed),
    "Game.from_preset": lambda seed: ns.Game.from_preset("beginner", seed=seed),
    "RandomPlacement": lambda seed: ns.RandomPlacement(seed=seed),
    "generate_boards": lambda seed: ns.generate_boards(2, 3, 3, 1, seed=seed),
    "iter_boards": lambda seed: list(ns.iter_boards(2, 3, 3, 1, seed=seed)),
    "BatchGame.new": lambda seed: ns.BatchGame.new(2, 3, 3, 1, seed=seed),
    "simulate": lambda seed: ns.simulate(2, 3, 3, 1, seed=seed, first_click=None),
}


@pytest.mark.parametrize("where", SEEDED)
@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (-1, ns.InvalidBoardError),
        (np.int64(-7), ns.InvalidBoardError),
        ([1, -2], ns.InvalidBoardError),
        ("x", ns.InvalidTypeError),
        (True, ns.InvalidTypeError),
        (1.5, ns.InvalidTypeError),
        ([1.5], ns.InvalidTypeError),
    ],
)
def test_a_bad_seed_is_named(where: str, seed: Any, error: type) -> None:
    with pytest.raises(error, match=re.escape(f"got {seed!r}")) as info:
        SEEDED[where](seed)
    assert type(info.value) is error
    assert isinstance(info.value, TypeError) != isinstance(info.value, ValueError)
    assert str(info.value).startswith("seed must be None, an integer >= 0")
    # Refused before numpy is asked: True (numpy would take it as 1) and a
    # list that does not hold integers (numpy takes [True] and [[3]]).
    ours = seed is True or (isinstance(seed, list) and not all(type(x) is int for x in seed))
    if not ours:
        assert info.value.__cause__ is not None  # numpy's own words are kept


@pytest.mark.parametrize("where", SEEDED)
def test_a_huge_seed_is_refused_by_its_size(where: str) -> None:
    # (a message with the seed's digits would itself fail past 4,300 digits)
    for seed in (2**20_000, [1, 2**14_000]):
        with pytest.raises(ns.InvalidBoardError, match="must be below 2\\*\\*14000, got "):
            SEEDED[where](seed)
    SEEDED[where](2**14_000 - 1)
    negative = r"integer >= 0 .* got a negative integer of 20,001 bits"
    with pytest.raises(ns.InvalidBoardError, match=negative):
        SEEDED[where](-(2**20_000))


def _mines_of(made: Any) -> np.ndarray:
    """The mines of every board that a SEEDED call made, stacked."""
    if isinstance(made, ns.RandomPlacement):
        return made.place(4, 4, 5)
    if isinstance(made, ns.SimulationResult):
        made = [made.replay(i) for i in range(made.games)]
    if isinstance(made, list):
        return np.stack([_mines_of(part) for part in made])
    if isinstance(made, ns.Game):
        assert made.board is not None
        return made.board.mines
    return np.asarray(made.mines)


#: Chunked work seeds chunk i from child i of SeedSequence(seed), not from default_rng(seed).
CHUNKED = {"iter_boards", "simulate"}


@pytest.mark.parametrize("where", SEEDED)
def test_good_seeds_of_every_kind_still_work(where: str) -> None:
    make = SEEDED[where]
    boards = [_mines_of(make(seed)) for seed in range(8)]
    assert any(not np.array_equal(boards[0], other) for other in boards[1:])  # seeds matter
    for seed in (0, np.uint8(3), [1, 2]):
        mines = _mines_of(make(seed))
        assert np.array_equal(mines, _mines_of(make(seed)))  # the same seed, the same boards
        # numpy's own seeding: an int or a list is SeedSequence(seed), as default_rng has it
        assert np.array_equal(mines, _mines_of(make(np.random.SeedSequence(seed))))
        if where not in CHUNKED:
            assert np.array_equal(mines, _mines_of(make(np.random.default_rng(seed))))
    for seed in (None, np.random.default_rng(5)):
        assert _mines_of(make(seed)).any()


def test_seeds_give_numpys_own_streams() -> None:
    from numsweeper._validate import make_rng, make_seed_sequence

    for seed in (0, 2**200, np.uint64(2**63 + 5), [1, 2], np.array([[3, 4]])):
        expected = np.random.default_rng(seed).integers(0, 2**62, 4)
        assert np.array_equal(make_rng(seed).integers(0, 2**62, 4), expected)
        ours = make_seed_sequence(seed).generate_state(4)
        assert np.array_equal(ours, np.random.SeedSequence(seed).generate_state(4))
    for make in (np.random.PCG64, lambda s: np.random.default_rng(s)):
        assert np.array_equal(make_rng(make(7)).random(3), np.random.default_rng(make(7)).random(3))


@pytest.mark.parametrize(
    "make",
    [
        lambda side: ns.Game.new(side, side, 1),
        lambda side: ns.Board.create(side, side, 1),
        lambda side: ns.BatchGame.new(1, side, side, 1),
        lambda side: ns.generate_boards(1, side, side, 1),
    ],
)
@pytest.mark.parametrize("side", [10**6, 10**12])
def test_a_board_larger_than_memory_is_refused_before_allocating(make: Any, side: int) -> None:
    # (numpy would say "array is too big" or "Unable to allocate ... TiB",
    # naming neither the rows nor the columns)
    match = f"a {side}x{side} board needs 4 bytes per cell, more than the [0-9.]+ GB this process"
    with pytest.raises(ns.InvalidBoardError, match=match):
        make(side)


def test_numbers_too_long_to_print_are_named_by_their_size() -> None:
    # (Python refuses to turn an integer of more than 4,300 digits into text)
    huge = 10**5000
    cases: list[tuple[Callable[[], Any], type, str]] = [
        (lambda: ns.Game.new(3, 3, 1).reveal(huge, 0), ns.OutOfBoundsError, "row an integer of"),
        (lambda: ns.Game.new(-huge, 3, 1), ns.InvalidBoardError, "got a negative integer of"),
        (lambda: ns.Game.new(3, 3, huge), ns.InvalidBoardError, "got an integer of 16,610 bits"),
        (
            lambda: ns.Board.create(huge, 3, 1),
            ns.InvalidBoardError,
            "a (an integer of 16,610 bits) x 3",
        ),
    ]
    for make, error, match in cases:
        with pytest.raises(error, match=re.escape(match)):
            make()
