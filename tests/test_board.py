"""Board: creation, counts, read-only views, and one-move rules."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np
import pytest
from scipy import ndimage

import numsweeper as ns
from reference import HAND_COUNTS, HAND_MINES, RefGame, random_dims, random_layout

CELLS_4X4 = [(r, c) for r in range(4) for c in range(4)]


# -- creation --------------------------------------------------------------------


@pytest.mark.parametrize(("row", "col"), CELLS_4X4)
def test_hand_built_counts(hand_board: ns.Board, row: int, col: int) -> None:
    assert hand_board.counts[row, col] == HAND_COUNTS[row][col]
    assert hand_board.mines[row, col] == ((row, col) in HAND_MINES)


def test_create_basics(hand_board: ns.Board) -> None:
    board = hand_board
    assert (board.rows, board.cols, board.shape) == (4, 4, (4, 4))
    assert board.mine_count == 3
    assert board.hidden_safe == 13 and board.flag_count == 0
    assert board.mines.dtype == bool and board.counts.dtype == np.int8
    assert board.revealed.dtype == bool and board.flagged.dtype == bool
    assert not board.revealed.any() and not board.flagged.any()
    assert str(board) == "*1..\n1211\n.2*2\n.2*2"


def test_counts_match_a_convolution_on_random_boards() -> None:
    kernel = np.ones((3, 3), dtype=int)
    kernel[1, 1] = 0
    rng = np.random.default_rng(1)
    for _ in range(300):
        rows, cols = random_dims(rng)
        mines = int(rng.integers(0, rows * cols))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(seed=rng))
        assert int(board.mines.sum()) == mines == board.mine_count
        expected = ndimage.convolve(board.mines.astype(int), kernel, mode="constant")
        np.testing.assert_array_equal(board.counts, expected)
        assert board.hidden_safe == rows * cols - mines


def test_board_from_a_mask_copies_it() -> None:
    mask = np.zeros((3, 3), dtype=bool)
    mask[0, 0] = True
    board = ns.Board(mask)
    mask[2, 2] = True
    assert board.mine_count == 1 and not board.mines[2, 2]
    assert ns.Board([[False]]).hidden_safe == 1


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "message"),
    [
        (0, 5, 1, "rows.*0"),
        (-3, 5, 1, "rows.*-3"),
        (5, 0, 1, "cols.*0"),
        (5, -1, 1, "cols.*-1"),
        (3, 3, 9, "mines.*9"),
        (3, 3, 10, "mines.*10"),
        (1, 1, 1, "mines.*1"),
        (3, 3, -1, "mines.*-1"),
    ],
)
def test_create_rejects_bad_dimensions(rows: int, cols: int, mines: int, message: str) -> None:
    with pytest.raises(ns.InvalidBoardError, match=message):
        ns.Board.create(rows, cols, mines)
    with pytest.raises(ValueError, match=message):
        ns.Game.new(rows, cols, mines)


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "words"),
    [
        (3.0, 3, 1, "rows must be an integer, got 3.0"),
        (3, "3", 1, "cols must be an integer, got '3'"),
        (3, 3, 1.0, "mines must be an integer, got 1.0"),
        (3, 3, None, "mines must be an integer, got None"),
        (True, 3, 1, "rows must be an integer, got True"),
        (3, 3, np.float64(2), "mines must be an integer, got np.float64(2.0)"),
    ],
)
def test_create_rejects_non_integer_dimensions(
    rows: Any, cols: Any, mines: Any, words: str
) -> None:
    with pytest.raises(ns.InvalidTypeError, match=re.escape(words)):
        ns.Board.create(rows, cols, mines)
    with pytest.raises(ns.InvalidTypeError, match=re.escape(words)):
        ns.Game.new(rows, cols, mines)


def test_create_accepts_numpy_integer_dimensions() -> None:
    board = ns.Board.create(np.int64(4), np.uint8(5), np.int32(3), ns.RandomPlacement(seed=0))
    assert board.shape == (4, 5) and board.mine_count == 3
    assert type(board.rows) is int and type(board.mine_count) is int


def test_create_largest_and_smallest_mine_counts() -> None:
    full = ns.Board.create(3, 4, 11, ns.RandomPlacement(seed=0))
    assert full.hidden_safe == 1
    empty = ns.Board.create(1, 1, 0)
    assert empty.hidden_safe == 1 and empty.counts.tolist() == [[0]]


@pytest.mark.parametrize(
    ("safe", "error"),
    [
        (np.zeros((3, 4), dtype=bool), ns.InvalidBoardError),  # a bool mask, the wrong shape
        (np.zeros((4, 3), dtype=int), ns.InvalidTypeError),  # not bools
        ([[1, 0, 0]] * 4, ns.InvalidTypeError),
        ("x", ns.InvalidTypeError),
    ],
    ids=["shape", "dtype", "int-list", "str"],
)
def test_create_rejects_bad_safe_masks(safe: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"safe must be a bool array of shape \(4, 3\), got "):
        ns.Board.create(4, 3, 2, safe=safe)


def test_create_honours_safe() -> None:
    safe = np.zeros((4, 4), dtype=bool)
    safe[:2] = True
    for seed in range(50):
        board = ns.Board.create(4, 4, 8, ns.RandomPlacement(seed=seed), safe=safe)
        assert not board.mines[:2].any() and board.mines[2:].all()
    with pytest.raises(ns.InvalidBoardError):
        ns.Board.create(4, 4, 9, safe=safe)


@pytest.mark.parametrize(
    ("mines", "words"),
    [
        (np.zeros((3, 3), dtype=int), "mines must be a bool array, got dtype int64"),
        (np.zeros(3, dtype=bool), "mines must be 2-D, got shape (3,)"),
        (np.ones((2, 2), dtype=bool), "mines must be in 0..3 for a 2x2 board, got 4"),
        (np.zeros((0, 3), dtype=bool), "rows must be >= 1, got 0"),
        ([[]], "mines must be a bool array, got dtype float64"),
    ],
    ids=["int", "1-d", "all-mines", "no-rows", "empty"],
)
def test_board_constructor_rejects_bad_masks(mines: Any, words: str) -> None:
    with pytest.raises(ns.InvalidBoardError, match=re.escape(words)):
        ns.Board(mines)


def test_board_holds_four_bytes_per_cell() -> None:
    board = ns.Board.create(200, 300, 9000, ns.RandomPlacement(seed=0))
    arrays = (board.mines, board.counts, board.revealed, board.flagged)
    assert sum(a.nbytes for a in arrays) == 4 * 200 * 300
    # The views share memory with the board: no hidden copies.
    assert all(a.base is not None for a in arrays)


# -- read-only views ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["mines", "counts", "revealed", "flagged"])
def test_views_are_read_only(hand_board: ns.Board, name: str) -> None:
    view = getattr(hand_board, name)
    before = view.copy()
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        view[...] = 0
    with pytest.raises(ValueError, match="read-only"):
        np.add(view, 1, out=view, casting="unsafe")
    with pytest.raises(ValueError, match="read-only"):
        view.fill(1)
    with pytest.raises(ValueError, match="read-only"):
        getattr(hand_board, name)[1:3, 1:3] = 1  # a fresh view is read-only too
    np.testing.assert_array_equal(getattr(hand_board, name), before)
    with pytest.raises(AttributeError):
        setattr(hand_board, name, before)


def test_views_follow_the_board(hand_board: ns.Board) -> None:
    revealed, flagged = hand_board.revealed, hand_board.flagged
    hand_board.reveal(0, 3)
    hand_board.toggle_flag(0, 0)
    assert revealed[0, 3] and flagged[0, 0]


# -- moves ---------------------------------------------------------------------------


def test_reveal_digit_flood_mine_and_noop(hand_board: ns.Board) -> None:
    board = hand_board
    got = board.reveal(1, 1)
    assert got.cells.tolist() == [[1, 1]] and got.exploded.shape == (0, 2)
    got = board.reveal(0, 3)  # zero: floods the top-right and stops at numbers
    assert got.cells.tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3]]
    assert board.hidden_safe == 13 - 6
    got = board.reveal(0, 3)
    assert got.cells.shape == (0, 2) and got.exploded.shape == (0, 2)
    got = board.reveal(3, 0)
    assert got.cells.tolist() == [[1, 0], [2, 0], [2, 1], [3, 0], [3, 1]]
    got = board.reveal(2, 2)  # a mine is reported, not revealed
    assert got.cells.shape == (0, 2) and got.exploded.tolist() == [[2, 2]]
    assert not board.revealed[2, 2]
    assert board.hidden_safe == 13 - 11
    assert board.revealed.tolist() == [
        [False, True, True, True],
        [True, True, True, True],
        [True, True, False, False],
        [True, True, False, False],
    ]


def test_reveal_flood_is_blocked_by_flags(hand_board: ns.Board) -> None:
    hand_board.toggle_flag(2, 0)
    got = hand_board.reveal(3, 0)
    assert got.cells.tolist() == [[2, 1], [3, 0], [3, 1]]
    assert not hand_board.revealed[2, 0] and hand_board.flagged[2, 0]


def test_toggle_flag_counts(hand_board: ns.Board) -> None:
    assert hand_board.toggle_flag(0, 0) is True
    assert hand_board.toggle_flag(3, 3) is True
    assert hand_board.flag_count == 2
    assert hand_board.toggle_flag(0, 0) is False
    assert hand_board.flag_count == 1
    assert hand_board.flagged.tolist()[3] == [False, False, False, True]


def test_board_rejected_moves_change_nothing(hand_board: ns.Board) -> None:
    board = hand_board
    board.reveal(0, 3)
    board.toggle_flag(0, 0)

    def state() -> tuple[Any, ...]:
        return (
            board.revealed.tobytes(),
            board.flagged.tobytes(),
            board.hidden_safe,
            board.flag_count,
        )

    before = state()
    for call, error, words in [
        (lambda: board.reveal(0, 0), ns.IllegalMoveError, "reveal flagged cell (0, 0)"),
        (lambda: board.toggle_flag(0, 3), ns.IllegalMoveError, "flag revealed cell (0, 3)"),
        (lambda: board.reveal(-1, 0), ns.OutOfBoundsError, "row -1 is off the board (rows 0..3)"),
        (lambda: board.reveal(0, 4), ns.OutOfBoundsError, "col 4 is off the board (cols 0..3)"),
        (lambda: board.toggle_flag(4, 0), ns.OutOfBoundsError, "row 4 is off the board"),
        (lambda: board.chord(0, -1), ns.OutOfBoundsError, "col -1 is off the board"),
        (lambda: board.reveal(1.0, 0), ns.InvalidTypeError, "row must be an integer, got 1.0"),
        (
            lambda: board.toggle_flag(None, 0),
            ns.InvalidTypeError,
            "row must be an integer, got None",
        ),
        (lambda: board.chord(0, "1"), ns.InvalidTypeError, "col must be an integer, got '1'"),
    ]:
        with pytest.raises(error, match=re.escape(words)):
            call()
        assert state() == before


def test_board_moves_match_reference_on_random_boards() -> None:
    rng = np.random.default_rng(23)
    chords: Counter[str] = Counter()
    for _ in range(300):
        rows, cols = random_dims(rng, 25)
        mines = random_layout(rng, rows, cols)
        board, ref = ns.Board(mines), RefGame(mines)
        counts = board.counts.copy()
        for _ in range(12):
            r, c = int(rng.integers(rows)), int(rng.integers(cols))
            if ref.revealed[r][c] or rng.random() < 0.3:
                if not ref.revealed[r][c]:
                    assert board.toggle_flag(r, c) == ref.toggle_flag(r, c)
                elif rng.random() < 0.8:
                    # Flag its mines (sometimes one wrongly), as a player chords.
                    for flag in ref.flags_for_chord(r, c, wrong=rng.random() < 0.3):
                        assert board.toggle_flag(*flag) == ref.toggle_flag(*flag)
                got = board.chord(r, c)
                chords["opened cells"] += len(got.cells) > 0
                chords["hit a mine"] += len(got.exploded) > 0
                ref_cells = ref.chord(r, c) if ref.revealed[r][c] else []
                exploded = set(ref.exploded)
                ref.exploded.clear()
                ref.state = "IN_PROGRESS"
                assert got.cells.tolist() == [list(x) for x in ref_cells if x not in exploded]
                assert sorted(map(tuple, got.exploded.tolist())) == sorted(exploded)
            elif not ref.flagged[r][c]:
                got = board.reveal(r, c)
                if mines[r, c]:
                    assert got.exploded.tolist() == [[r, c]] and not len(got.cells)
                else:
                    assert got.cells.tolist() == [list(x) for x in ref.reveal(r, c)]
                    ref.state = "IN_PROGRESS"
            assert board.revealed.tolist() == ref.revealed
            assert board.flagged.tolist() == ref.flagged
            assert board.hidden_safe == ref.hidden_safe
        # Counts are computed once and never touched by moves.
        np.testing.assert_array_equal(board.counts, counts)
        assert board.counts.tolist() == ref.counts
    # Measured: 113 chords opened cells and 32 hit a mine.
    assert chords["opened cells"] > 55 and chords["hit a mine"] > 15, chords


def test_ragged_mines_are_an_invalid_board() -> None:
    with pytest.raises(
        ns.InvalidBoardError, match=r"2-D bool array, got \[\[True\], \[True, False\]\]"
    ):
        ns.Board([[True], [True, False]])
