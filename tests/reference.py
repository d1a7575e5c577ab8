"""Plain-Python reference implementations the vectorized engine is checked against.

Everything here is deliberately naive: nested lists, explicit loops, an
explicit BFS queue.  Each function states the rule it implements in the
simplest form we could write, so that a disagreement with numsweeper points
at numsweeper.  Nothing here imports numsweeper except the visible-cell
codes, which are part of the public contract.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

import numsweeper as ns

Grid = list[list[bool]]
Cell = tuple[int, int]

IN_PROGRESS = "IN_PROGRESS"
WON = "WON"
LOST = "LOST"


def neighbours(row: int, col: int, rows: int, cols: int) -> Iterator[Cell]:
    """The up to 8 on-board neighbours of ``(row, col)``, in row-major order."""
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == 0 and dc == 0:
                continue
            r, c = row + dr, col + dc
            if 0 <= r < rows and 0 <= c < cols:
                yield r, c


def adjacent_counts(mines: Sequence[Sequence[Any]]) -> list[list[int]]:
    """Count each cell's mined neighbours with two loops per cell."""
    rows, cols = len(mines), len(mines[0])
    return [
        [sum(1 for r, c in neighbours(i, j, rows, cols) if mines[r][c]) for j in range(cols)]
        for i in range(rows)
    ]


class RefGame:
    """A Minesweeper game kept in lists, with a textbook BFS flood.

    Rules (issue 2): revealing a mine loses; a numbered safe cell reveals
    itself; a zero cell reveals the 8-connected region of hidden, unflagged,
    zero-count cells holding it plus that region's hidden, unflagged border.
    Flags and already revealed cells are neither revealed nor crossed.  A
    chord on a revealed number whose adjacent flags equal it reveals each
    hidden unflagged neighbour as above.  WON when every safe cell is
    revealed.
    """

    def __init__(self, mines: Sequence[Sequence[Any]]) -> None:
        self.rows, self.cols = len(mines), len(mines[0])
        self.mines: Grid = [[bool(v) for v in row] for row in mines]
        self.counts = adjacent_counts(self.mines)
        self.revealed: Grid = [[False] * self.cols for _ in range(self.rows)]
        self.flagged: Grid = [[False] * self.cols for _ in range(self.rows)]
        self.exploded: set[Cell] = set()
        self.state = IN_PROGRESS
        self.mine_count = sum(map(sum, self.mines))

    # -- the flood ----------------------------------------------------------

    def _open(self, row: int, col: int) -> set[Cell]:
        """BFS from a hidden, unflagged safe cell; returns the cells it reveals."""
        got = {(row, col)}
        self.revealed[row][col] = True
        if self.counts[row][col] != 0:
            return got
        queue = deque([(row, col)])
        while queue:
            r, c = queue.popleft()
            for nr, nc in neighbours(r, c, self.rows, self.cols):
                if self.revealed[nr][nc] or self.flagged[nr][nc] or self.mines[nr][nc]:
                    continue
                self.revealed[nr][nc] = True
                got.add((nr, nc))
                if self.counts[nr][nc] == 0:
                    queue.append((nr, nc))
        return got

    def _check_won(self) -> None:
        if all(
            self.revealed[r][c] or self.mines[r][c]
            for r in range(self.rows)
            for c in range(self.cols)
        ):
            self.state = WON

    # -- actions (callers only send legal ones) -------------------------------

    def reveal(self, row: int, col: int) -> list[Cell]:
        """Reveal a hidden, unflagged cell, or do nothing on a revealed one."""
        assert self.state == IN_PROGRESS and not self.flagged[row][col]
        if self.revealed[row][col]:
            return []
        if self.mines[row][col]:
            self.exploded.add((row, col))
            self.state = LOST
            return [(row, col)]
        got = self._open(row, col)
        self._check_won()
        return sorted(got)

    def toggle_flag(self, row: int, col: int) -> bool:
        assert self.state == IN_PROGRESS and not self.revealed[row][col]
        self.flagged[row][col] = not self.flagged[row][col]
        return self.flagged[row][col]

    def flags_for_chord(self, row: int, col: int, *, wrong: bool = False) -> list[Cell]:
        """The hidden cells to toggle so that the flags around ``(row, col)`` are its mines.

        A player chords after flagging a number's mines; random flags almost
        never add up, so tests set them with this before a chord.  With
        ``wrong``, the first mined neighbour stays unflagged and the first
        hidden safe neighbour is flagged instead, so the chord loses (when
        the cell has both).
        """
        around = [
            (r, c) for r, c in neighbours(row, col, self.rows, self.cols) if not self.revealed[r][c]
        ]
        want = {(r, c) for r, c in around if self.mines[r][c]}
        safe = [(r, c) for r, c in around if not self.mines[r][c]]
        if wrong and want and safe:
            want = (want - {min(want)}) | {safe[0]}
        return [(r, c) for r, c in around if self.flagged[r][c] != ((r, c) in want)]

    def chord(self, row: int, col: int) -> list[Cell]:
        assert self.state == IN_PROGRESS
        number = self.counts[row][col]
        if not self.revealed[row][col] or number == 0:
            return []
        around = list(neighbours(row, col, self.rows, self.cols))
        if sum(self.flagged[r][c] for r, c in around) != number:
            return []
        got: set[Cell] = set()
        for r, c in around:
            if self.revealed[r][c] or self.flagged[r][c]:
                continue
            if self.mines[r][c]:
                self.exploded.add((r, c))
                got.add((r, c))
            else:
                got |= self._open(r, c)
        if self.exploded:
            self.state = LOST
        else:
            self._check_won()
        return sorted(got)

    # -- what the player sees ------------------------------------------------

    @property
    def hidden_safe(self) -> int:
        return sum(
            1
            for r in range(self.rows)
            for c in range(self.cols)
            if not self.mines[r][c] and not self.revealed[r][c]
        )

    @property
    def mines_left(self) -> int:
        return self.mine_count - sum(map(sum, self.flagged))

    def visible(self) -> list[list[int]]:
        """The snapshot encoding, cell by cell."""
        out = []
        for r in range(self.rows):
            line = []
            for c in range(self.cols):
                mine, flag = self.mines[r][c], self.flagged[r][c]
                if (r, c) in self.exploded:
                    code = int(ns.EXPLODED)
                elif self.revealed[r][c]:
                    code = self.counts[r][c]
                elif self.state == WON and mine:
                    code = int(ns.FLAG)
                elif self.state == LOST and flag and not mine:
                    code = int(ns.WRONG_FLAG)
                elif flag:
                    code = int(ns.FLAG)
                elif self.state == LOST and mine:
                    code = int(ns.MINE)
                else:
                    code = int(ns.HIDDEN)
                line.append(code)
            out.append(line)
        return out


# -- LeetCode 529 -------------------------------------------------------------


@contextmanager
def recursion_limit(limit: int) -> Iterator[None]:
    """Temporarily raise the interpreter's recursion limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def classic_update_board(board: list[list[str]], click: list[int]) -> list[list[str]]:
    """The seed's recursive DFS solution, verbatim, with room to recurse.

    Copied line for line from ``seeds/leetcode-529-python-solution.txt``; the
    only addition is the raised recursion limit, since an open 40x40 board
    recurses 1,600 deep.
    """
    rows, cols = len(board), len(board[0])
    row, col = click

    if board[row][col] == "M":
        board[row][col] = "X"
        return board

    def dfs(r: int, c: int) -> None:
        mine_count = 0
        for dr in [-1, 0, 1]:
            for dc in [-1, 0, 1]:
                if dr == 0 and dc == 0:
                    continue
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == "M":
                    mine_count += 1

        if mine_count > 0:
            board[r][c] = str(mine_count)
        else:
            board[r][c] = "B"
            for dr in [-1, 0, 1]:
                for dc in [-1, 0, 1]:
                    if dr == 0 and dc == 0:
                        continue
                    nr, nc = r + dr, c + dc
                    if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == "E":
                        dfs(nr, nc)

    with recursion_limit(rows * cols + 100):
        dfs(row, col)
    return board


def iterative_update_board(board: list[list[str]], click: list[int]) -> list[list[str]]:
    """The same DFS with an explicit stack: safe at any size.

    A cell is written the moment it is pushed, exactly as the recursive
    version writes it before recursing, so no cell is visited twice.
    """
    rows, cols = len(board), len(board[0])
    row, col = click
    if board[row][col] == "M":
        board[row][col] = "X"
        return board

    def mark(r: int, c: int) -> bool:
        """Write the cell's digit or 'B'; True when the flood continues from it."""
        near = sum(board[nr][nc] == "M" for nr, nc in neighbours(r, c, rows, cols))
        board[r][c] = str(near) if near else "B"
        return near == 0

    stack = [(row, col)] if mark(row, col) else []
    while stack:
        r, c = stack.pop()
        for nr, nc in neighbours(r, c, rows, cols):
            if board[nr][nc] == "E" and mark(nr, nc):
                stack.append((nr, nc))
    return board


# -- test helpers ------------------------------------------------------------


#: The design document's dry-run board: 4x4, mines at (0, 0) and (0, 1).
DRY_RUN_MINES = [(0, 0), (0, 1)]

#: A hand-built 4x4 board and its counts, worked out by hand.
#:   * 1 0 0        mines at (0, 0), (2, 2), (3, 2); a mine's own entry
#:   1 2 1 1        in HAND_COUNTS is its count of mined neighbours
#:   0 2 * 2
#:   0 2 * 2
HAND_MINES = [(0, 0), (2, 2), (3, 2)]
HAND_COUNTS = [
    [0, 1, 0, 0],
    [1, 2, 1, 1],
    [0, 2, 1, 2],
    [0, 2, 1, 2],
]


def fixed_game(rows: int, cols: int, mines: list[tuple[int, int]], **kwargs: Any) -> ns.Game:
    """A game on a fixed layout."""
    return ns.Game.new(rows, cols, len(mines), strategy=ns.FixedPlacement(mines), **kwargs)


def redo_moves(game: ns.Game) -> list[ns.Move]:
    """The moves ``game.redo()`` would play again, last undone first (read on a copy)."""
    twin, moves = game.copy(), []
    while True:
        try:
            moves.append(twin.redo())
        except ns.IllegalMoveError:
            return moves


def capture(game: ns.Game, *, history: bool = True) -> tuple[Any, ...]:
    """Everything observable about a game, copied, for before/after comparisons.

    All but the clock (:attr:`~numsweeper.Game.elapsed` runs on by itself),
    and without ``history`` all but the moves and the moves to redo.
    """
    snap = game.snapshot()
    board = game.board
    arrays: tuple[Any, ...] = ()
    if board is not None:
        arrays = (
            board.mines.tobytes(),
            board.counts.tobytes(),
            board.revealed.tobytes(),
            board.flagged.tobytes(),
            board.hidden_safe,
            board.flag_count,
        )
    moves = (game.moves, redo_moves(game)) if history else ()
    return (snap, snap.cells.tobytes(), game.state, game.mine_count, str(game), *arrays, *moves)


def random_layout(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A mine mask with a random density and at least one safe cell."""
    density = rng.choice([0.0, 0.05, 0.12, 0.2, 0.35, 0.6])
    mines = rng.random((rows, cols)) < density
    if mines.all():
        mines[rng.integers(rows), rng.integers(cols)] = False
    return mines


def random_dims(rng: np.random.Generator, high: int = 40) -> tuple[int, int]:
    """Board sides from 1 to ``high``, skewed towards small boards (edge cases)."""
    if rng.random() < 0.3:
        return int(rng.integers(1, 5)), int(rng.integers(1, 5))
    return int(rng.integers(1, high + 1)), int(rng.integers(1, high + 1))
