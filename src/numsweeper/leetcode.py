"""The classic puzzle: LeetCode 529 "Minesweeper", at any size."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kernels import adjacent_counts, flood_from
from ._validate import check_int, short_repr
from .errors import IllegalMoveError, InvalidBoardError, InvalidTypeError, OutOfBoundsError

__all__ = ["update_board"]

_VALID = b"MEB12345678"


def _grid_text(board: Any) -> tuple[int, int, str]:
    """Check the grid's shape and characters; return all its cells as one string.

    This runs on every call, so it leans on C-level string operations: one
    ``str.join`` per row, then one ``bytes.translate`` that deletes every
    valid character.  Only when something is wrong do we look for where.
    """
    if type(board) is not list or not board:
        raise InvalidBoardError(
            f"board must be a non-empty list of rows, got {short_repr(board, 60)}"
        )
    first = board[0]
    if type(first) is not list or not first:
        raise InvalidBoardError(
            f"board rows must be non-empty lists, got row 0 = {short_repr(first, 60)}"
        )
    cols = len(first)
    if set(map(type, board)) != {list} or set(map(len, board)) != {cols}:
        i, row = next(
            (i, row) for i, row in enumerate(board) if type(row) is not list or len(row) != cols
        )
        size = f"{len(row)} cells" if type(row) is list else f"a {type(row).__name__}"
        raise InvalidBoardError(f"board is ragged: row {i} has {size}, row 0 has {cols} cells")
    try:
        # A NUL after every cell but the last: each cell is one character
        # exactly when the NULs fill the odd positions of a 2n-1 string.  (A
        # plain join's length would let 'EE' next to '' through.)
        spaced = "\0".join(map("\0".join, board))
        text = spaced[::2]
        invalid = (
            len(spaced) != 2 * len(board) * cols - 1
            or "\0" in text
            or bool(text.encode("ascii").translate(None, _VALID))
        )
    except (TypeError, UnicodeEncodeError):
        invalid = True
    if invalid:
        i, j, cell = next(
            (i, j, cell)
            for i, row in enumerate(board)
            for j, cell in enumerate(row)
            if not (isinstance(cell, str) and len(cell) == 1 and cell in _VALID.decode())
        )
        hint = " (the game is already over)" if cell == "X" else ""
        raise InvalidBoardError(
            f"invalid cell {short_repr(cell)} at ({i}, {j}){hint}; "
            "expected one of 'M', 'E', 'B', '1'-'8'"
        )
    return len(board), cols, text


def update_board(board: list[list[str]], click: Any) -> list[list[str]]:
    """Apply one click to a LeetCode 529 board, in place, and return it.

    The result is exactly that of the classic recursive DFS: a click on
    ``'M'`` makes it ``'X'``; a click on ``'E'`` with ``k > 0`` adjacent
    ``'M'`` cells shows the digit ``k``; a click on an ``'E'`` with none shows
    ``'B'`` and reveals its adjacent ``'E'`` cells the same way.  Digits
    already on the board are taken as they stand, even when inconsistent.
    The flood is a vectorized label-and-dilate, so any size works with no
    recursion.

    Parameters
    ----------
    board : list of list of str
        A rectangular grid of ``'M'`` (hidden mine), ``'E'`` (hidden empty),
        ``'B'`` (revealed blank) and ``'1'``-``'8'`` (revealed digit).
    click : sequence of two ints
        ``[row, col]`` of an ``'M'`` or ``'E'`` cell.

    Returns
    -------
    list of list of str
        ``board`` itself, updated.

    Raises
    ------
    ValueError
        (:class:`~numsweeper.InvalidBoardError`) for an empty or ragged grid
        or an invalid character, ``'X'`` included; and
        (:class:`~numsweeper.IllegalMoveError`) for a click on a revealed
        cell.  The board is left untouched.
    IndexError
        (:class:`~numsweeper.OutOfBoundsError`) for a click off the grid,
        negative coordinates included.
    TypeError
        If the click is not a pair of integers.

    Examples
    --------
    >>> import numsweeper as ns
    >>> board = [list("EEEEE"), list("EEMEE"), list("EEEEE"), list("EEEEE")]
    >>> for row in ns.update_board(board, [3, 0]):
    ...     print("".join(row))
    B1E1B
    B1M1B
    B111B
    BBBBB
    """
    rows, cols, text = _grid_text(board)
    if not isinstance(click, (list, tuple, np.ndarray)):  # (a dict or set would unpack too)
        raise InvalidTypeError(f"click must be a [row, col] pair, got {short_repr(click)}")
    try:
        raw_row, raw_col = click
    except (TypeError, ValueError):
        raise InvalidTypeError(
            f"click must be a [row, col] pair, got {short_repr(click)}"
        ) from None
    r, c = check_int(raw_row, "click row"), check_int(raw_col, "click col")
    if not (0 <= r < rows and 0 <= c < cols):
        raise OutOfBoundsError(
            f"click [{short_repr(r)}, {short_repr(c)}] is off the {rows}x{cols} board"
        )
    cell = text[r * cols + c]
    if cell == "M":
        board[r][c] = "X"
        return board
    if cell != "E":
        raise IllegalMoveError(f"click {[r, c]} is on revealed cell {cell!r}")

    # A digit needs no arrays: count the mines around the click directly.
    lo, hi = max(c - 1, 0), min(c + 2, cols)
    near = sum(
        text[i * cols + lo : i * cols + hi].count("M")
        for i in range(max(r - 1, 0), min(r + 2, rows))
    )
    if near:
        board[r][c] = str(near)
        return board

    grid = np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(rows, cols)
    counts = adjacent_counts(grid == ord("M"))
    (r0, c0), region = flood_from(counts, (grid != ord("E"),), r, c)
    h, w = region.shape
    window = grid[r0 : r0 + h, c0 : c0 + w]
    shown = np.where(
        counts[r0 : r0 + h, c0 : c0 + w] == 0, ord("B"), counts[r0 : r0 + h, c0 : c0 + w] + ord("0")
    )
    updated = np.where(region, shown, window).astype(np.uint8)
    for i in np.flatnonzero(region.any(axis=1)).tolist():
        board[r0 + i][c0 : c0 + w] = list(updated[i].tobytes().decode("ascii"))
    return board
