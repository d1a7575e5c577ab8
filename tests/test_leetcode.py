"""update_board (LeetCode 529) against the seed's classic DFS."""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numsweeper as ns
from reference import classic_update_board, iterative_update_board, random_dims

EXAMPLE = ["EEEEE", "EEMEE", "EEEEE", "EEEEE"]
EXAMPLE_AFTER = ["B1E1B", "B1M1B", "B111B", "BBBBB"]
DIGITS = "12345678"


def as_board(rows: list[str]) -> list[list[str]]:
    return [list(row) for row in rows]


def as_text(board: list[list[str]]) -> list[str]:
    return ["".join(row) for row in board]


# -- the seed's examples --------------------------------------------------------------


def test_leetcode_example_then_mine_click() -> None:
    board = as_board(EXAMPLE)
    rows = list(board)
    result = ns.update_board(board, [3, 0])
    assert result is board
    assert all(a is b for a, b in zip(board, rows, strict=True))  # rows mutated in place
    assert as_text(board) == EXAMPLE_AFTER
    assert ns.update_board(board, [1, 2]) is board
    assert as_text(board) == ["B1E1B", "B1X1B", "B111B", "BBBBB"]


def test_leetcode_example_matches_the_classic() -> None:
    assert as_text(classic_update_board(as_board(EXAMPLE), [3, 0])) == EXAMPLE_AFTER
    assert as_text(iterative_update_board(as_board(EXAMPLE), [3, 0])) == EXAMPLE_AFTER


@pytest.mark.parametrize(
    ("rows", "click", "after"),
    [
        (["E"], [0, 0], ["B"]),
        (["M"], [0, 0], ["X"]),
        (["EM"], [0, 0], ["1M"]),
        (["MEM", "MMM"], [0, 1], ["M5M", "MMM"]),
        (["MMM", "MEM", "MMM"], [1, 1], ["MMM", "M8M", "MMM"]),
        (["EEE", "EBE", "EEE"], [0, 0], ["BBB", "BBB", "BBB"]),
        # Revealed blanks are never crossed: the bottom row stays hidden.
        (["EEB", "BBE", "EEM"], [0, 0], ["BBB", "BB1", "EEM"]),
        # Inconsistent digits are taken as they stand and block the flood.
        (["E8E", "E8E", "E8E"], [1, 0], ["B8E", "B8E", "B8E"]),
    ],
)
def test_small_cases(rows: list[str], click: list[int], after: list[str]) -> None:
    assert as_text(ns.update_board(as_board(rows), click)) == after
    assert as_text(classic_update_board(as_board(rows), click)) == after


# -- property tests against the classic DFS -----------------------------------------------


def random_grid(rng: np.random.Generator, rows: int, cols: int) -> list[list[str]]:
    """A grid of M/E/B/digits: mostly a plausible game, sometimes noise."""
    kind = rng.random()
    if kind < 0.5:
        # A real board part-way through a game: revealed cells by the classic.
        mines = rng.random((rows, cols)) < rng.choice([0.02, 0.1, 0.2, 0.35])
        grid = [["M" if m else "E" for m in row] for row in mines.tolist()]
        for _ in range(int(rng.integers(0, 4))):
            empties = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "E"]
            if not empties:
                break
            iterative_update_board(grid, list(empties[rng.integers(len(empties))]))
        return grid
    # Noise: any mix of the allowed characters, digits inconsistent with mines.
    weights = np.array([rng.random(), 1 + 3 * rng.random(), rng.random(), rng.random()])
    symbols = rng.choice(4, size=(rows, cols), p=weights / weights.sum())
    digits = rng.choice(list(DIGITS), size=(rows, cols))
    table = np.array(["M", "E", "B", "?"])
    grid = np.where(symbols == 3, digits, table[symbols])
    return [list(row) for row in grid.tolist()]


def check_against_classic(grid: list[list[str]], click: list[int]) -> None:
    expected = classic_update_board(copy.deepcopy(grid), list(click))
    assert iterative_update_board(copy.deepcopy(grid), list(click)) == expected
    board = copy.deepcopy(grid)
    result = ns.update_board(board, click)
    assert result is board
    assert board == expected


def test_update_board_matches_classic_on_thousands_of_grids() -> None:
    rng = np.random.default_rng(529)
    checked = 0
    while checked < 2500:
        rows, cols = random_dims(rng)
        grid = random_grid(rng, rows, cols)
        hidden = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] in "ME"]
        if not hidden:
            continue
        r, c = hidden[rng.integers(len(hidden))]
        check_against_classic(grid, [r, c])
        checked += 1


@st.composite
def grids_and_clicks(draw: st.DrawFn) -> tuple[list[list[str]], list[int]]:
    rows = draw(st.integers(1, 40))
    cols = draw(st.integers(1, 40))
    alphabet = draw(st.sampled_from(["E", "EM", "EEEEM", "EEEMB", "EMB12345678", "EEEEEEB3"]))
    cells = draw(st.lists(st.sampled_from(alphabet), min_size=rows * cols, max_size=rows * cols))
    grid = [cells[i * cols : (i + 1) * cols] for i in range(rows)]
    r = draw(st.integers(0, rows - 1))
    c = draw(st.integers(0, cols - 1))
    grid[r][c] = draw(st.sampled_from("EM"))
    return grid, [r, c]


@given(grids_and_clicks())
def test_update_board_property(case: tuple[list[list[str]], list[int]]) -> None:
    check_against_classic(*case)


def test_update_board_accepts_numpy_ints_and_tuples() -> None:
    for click in ([np.int64(3), np.uint8(0)], (3, 0), np.array([3, 0])):
        board = as_board(EXAMPLE)
        assert as_text(ns.update_board(board, click)) == EXAMPLE_AFTER


def test_update_board_huge_open_board_does_not_recurse() -> None:
    n = 3000
    board = [["E"] * n for _ in range(n)]
    board[n // 2][n // 2] = "M"
    assert ns.update_board(board, [0, 0]) is board
    assert board[0][0] == "B" and board[n - 1][n - 1] == "B"
    assert board[n // 2][n // 2] == "M" and board[n // 2 - 1][n // 2] == "1"
    assert sum(row.count("B") for row in board) == n * n - 9
    assert sum(row.count("1") for row in board) == 8


def test_update_board_long_snake_does_not_recurse() -> None:
    # Walls of mines every 4 rows, with a 3-cell gap at alternate ends, make
    # one zig-zag zero path ~30,000 cells long: deep for a recursive DFS.
    rows, cols = 301, 400
    grid = np.full((rows, cols), "E")
    for i, r in enumerate(range(3, rows - 1, 4)):
        grid[r, :] = "M"
        if i % 2 == 0:
            grid[r, -3:] = "E"
        else:
            grid[r, :3] = "E"
    board = [list(row) for row in grid.tolist()]
    expected = iterative_update_board(copy.deepcopy(board), [0, 0])
    ns.update_board(board, [0, 0])
    assert board == expected
    assert board[297][cols // 2] == "B"
    assert sum(row.count("B") for row in board) > 30_000


def test_update_board_digit_needs_no_flood() -> None:
    board = as_board(["MEE", "EEE", "EEE"])
    ns.update_board(board, [1, 1])
    assert as_text(board) == ["MEE", "E1E", "EEE"]


# -- errors leave the board untouched ----------------------------------------------------


def assert_rejected(
    board: Any, click: Any, error: type[Exception], match: str | None = None
) -> None:
    before = copy.deepcopy(board)
    rows = list(board) if isinstance(board, list) else None
    with pytest.raises(error, match=match):
        ns.update_board(board, click)
    assert board == before
    if rows is not None:
        assert all(a is b for a, b in zip(board, rows, strict=True))


@pytest.mark.parametrize(
    ("board", "match"),
    [
        ([], "board must be a non-empty list of rows, got []"),
        ([[]], "board rows must be non-empty lists, got row 0 = []"),
        ([[], []], "board rows must be non-empty lists, got row 0 = []"),
        ([["E", "E"], ["E"]], "board is ragged: row 1 has 1 cells, row 0 has 2 cells"),
        ([["E"], ["E", "E"]], "board is ragged: row 1 has 2 cells, row 0 has 1 cells"),
        ([["E", "E"], []], "board is ragged: row 1 has 0 cells, row 0 has 2 cells"),
        ([["E", "E"], "EE"], "board is ragged: row 1 has a str, row 0 has 2 cells"),
        ("EEE", "board must be a non-empty list of rows, got 'EEE'"),
        ((("E",),), "board must be a non-empty list of rows, got (('E',),)"),
        (None, "board must be a non-empty list of rows, got None"),
    ],
    ids=[
        "no-rows",
        "empty-row",
        "empty-rows",
        "short-row",
        "long-row",
        "empty-later-row",
        "string-row",
        "string",
        "tuples",
        "none",
    ],
)
def test_update_board_rejects_bad_shapes(board: Any, match: str) -> None:
    with pytest.raises(ns.InvalidBoardError, match=re.escape(match)):
        ns.update_board(copy.deepcopy(board), [0, 0])
    if isinstance(board, list):
        assert_rejected(board, [0, 0], ns.InvalidBoardError, re.escape(match))


@pytest.mark.parametrize(
    "bad",
    ["X", "x", "m", "e", "0", "9", "F", " ", "*", "EE", "", "MM", "\0", "É", 1, None, b"E"],
)
def test_update_board_rejects_invalid_cells(bad: Any) -> None:
    for where in [(0, 0), (1, 2), (2, 1)]:
        board = as_board(["EEE", "EME", "EEE"])
        board[where[0]][where[1]] = bad
        words = re.escape(f"invalid cell {bad!r} at {where}")
        assert_rejected(board, [0, 0], ns.InvalidBoardError, words)
        assert_rejected(board, [2, 2], ns.InvalidBoardError, words)


def test_update_board_rejects_cells_whose_lengths_add_up() -> None:
    # 'EE' next to '' has the right total length but two bad cells.
    def rejected(
        board: list[list[str]], click: list[int], bad: str, where: tuple[int, int]
    ) -> None:
        words = re.escape(f"invalid cell {bad!r} at {where}")
        assert_rejected(board, click, ns.InvalidBoardError, words)

    rejected([["EE", "", "E"], ["E", "E", "E"]], [1, 2], "EE", (0, 0))
    rejected([["E", "E"], ["MEE", ""]], [0, 0], "MEE", (1, 0))
    # the extra and the missing character in different rows
    rejected([["EE", "E"], ["", "E"]], [1, 1], "EE", (0, 0))
    for row, (bad, col) in [
        (["E\0", "", "E"], ("E\0", 0)),
        (["\0E", "", "E"], ("\0E", 0)),
        (["", "\0", "EE"], ("", 0)),
        (["E", "\0\0", ""], ("\0\0", 1)),
    ]:
        rejected([row, ["E", "E", "E"]], [1, 0], bad, (0, col))


def test_update_board_x_means_game_over() -> None:
    board = as_board(["EEE", "EXE", "EEE"])
    assert_rejected(board, [0, 0], ns.InvalidBoardError, r"'X'.*over")


def test_update_board_error_names_the_bad_cell() -> None:
    board = as_board(["EEE", "EE?", "EEE"])
    assert_rejected(board, [0, 0], ns.InvalidBoardError, r"'\?'.*\(1, 2\)")


@pytest.mark.parametrize("click", [[3, 0], [0, 3], [-1, 0], [0, -1], [-3, 0], [100, 100], [0, -4]])
def test_update_board_rejects_clicks_off_the_grid(click: list[int]) -> None:
    board = as_board(["EEE", "EME", "EEE"])
    assert_rejected(board, click, ns.OutOfBoundsError, re.escape(f"click {click} is off the 3x3"))


@pytest.mark.parametrize("cell", ["B", "1", "5", "8"])
def test_update_board_rejects_clicks_on_revealed_cells(cell: str) -> None:
    board = as_board(["EEE", "EME", "EEE"])
    board[2][2] = cell
    assert_rejected(board, [2, 2], ValueError, repr(cell))
    assert_rejected(board, [2, 2], ns.IllegalMoveError)


@pytest.mark.parametrize(
    ("click", "axis"),
    [
        ([1.5, 0], "row"),
        ([0, 1.0], "col"),
        (["a", 0], "row"),
        ([None, 0], "row"),
        ([True, 0], "row"),
        ([0, False], "col"),
        ([np.float64(1), 0], "row"),
    ],
)
def test_update_board_rejects_non_integer_clicks(click: list[Any], axis: str) -> None:
    board = as_board(["EEE", "EME", "EEE"])
    bad = click[0] if axis == "row" else click[1]
    words = re.escape(f"click {axis} must be an integer, got {bad!r}")
    assert_rejected(board, click, ns.InvalidTypeError, words)


@pytest.mark.parametrize(
    "click", [[1], [1, 2, 3], [], None, 5, "12", {0: 1, 1: 2}, {0, 2}, iter([0, 0])]
)
def test_update_board_rejects_malformed_clicks(click: Any) -> None:
    # (a dict or a set unpacked into a pair too: {0: 1, 1: 2} clicked (0, 1))
    board = as_board(["EEE", "EME", "EEE"])
    with pytest.raises(ns.InvalidTypeError, match=r"click must be a \[row, col\] pair, got"):
        ns.update_board(board, click)
    assert as_text(board) == ["EEE", "EME", "EEE"]
    assert ns.update_board(as_board(["EEE", "EME", "EEE"]), (0, 0))[0][0] == "1"  # tuples do
    assert ns.update_board(as_board(["EEE", "EME", "EEE"]), np.array([0, 0]))[0][0] == "1"


def test_numpy_string_cells_get_the_right_cell_named() -> None:
    grid = [list(np.array(list("EEM"))), ["E", "E", "?"]]
    with pytest.raises(ns.InvalidBoardError, match=r"invalid cell '\?' at \(1, 2\)"):
        ns.update_board(grid, [0, 0])
    ok = [list(np.array(list("EEM"))), ["E", "E", "E"]]
    expected = classic_update_board([[str(c) for c in row] for row in ok], [0, 0])
    assert ns.update_board(ok, [0, 0]) == expected == [["B", "1", "M"], ["B", "1", "E"]]
