"""Many boards at once: ``(n, rows, cols)`` arrays built by the shared kernels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._kernels import adjacent_counts
from ._validate import check_dims, check_first_click_fits, check_int
from .board import Board
from .errors import InvalidBoardError, OutOfBoundsError

__all__ = ["BoardBatch", "generate_boards"]


@dataclass(frozen=True, eq=False)
class BoardBatch:
    """``n`` boards of one size and mine count, as stacked arrays.

    Attributes
    ----------
    mines : ndarray of bool, shape (n, rows, cols), read-only
        Mine layouts.
    counts : ndarray of int8, shape (n, rows, cols), read-only
        Adjacent-mine counts.

    Examples
    --------
    >>> import numsweeper as ns
    >>> batch = ns.generate_boards(4, 9, 9, 10, seed=0)
    >>> len(batch), batch.mines.shape, batch.counts.dtype
    (4, (4, 9, 9), dtype('int8'))
    >>> batch[2].mine_count
    10
    """

    mines: NDArray[np.bool_]
    counts: NDArray[np.int8]

    def __post_init__(self) -> None:
        for array in (self.mines, self.counts):
            array.flags.writeable = False

    def __len__(self) -> int:
        return int(self.mines.shape[0])

    @property
    def rows(self) -> int:
        """Rows of each board."""
        return int(self.mines.shape[1])

    @property
    def cols(self) -> int:
        """Columns of each board."""
        return int(self.mines.shape[2])

    @property
    def mine_count(self) -> int:
        """Mines on each board."""
        return int(np.count_nonzero(self.mines[0])) if len(self) else 0

    def __getitem__(self, index: int) -> Board:
        """Board ``index``, ready to play (a fresh copy of its arrays)."""
        i = check_int(index, "index")
        if not -len(self) <= i < len(self):
            raise IndexError(f"board index {i} out of range for a batch of {len(self)}")
        return Board(self.mines[i])

    def __repr__(self) -> str:
        return (
            f"<BoardBatch of {len(self)} boards {self.rows}x{self.cols}, {self.mine_count} mines>"
        )


def _clicks(click: ArrayLike, n: int, rows: int, cols: int) -> NDArray[np.intp]:
    """Validate first clicks: one ``(row, col)`` for all boards, or ``(n, 2)``."""
    array = np.asarray(click)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"click must hold integers, got dtype {array.dtype}")
    if array.shape == (2,):
        array = np.broadcast_to(array, (n, 2))
    if array.shape != (n, 2):
        raise InvalidBoardError(f"click must have shape (2,) or ({n}, 2), got {array.shape}")
    off = (array[:, 0] < 0) | (array[:, 0] >= rows) | (array[:, 1] < 0) | (array[:, 1] >= cols)
    if off.any():
        i = int(np.argmax(off))
        raise OutOfBoundsError(
            f"click {tuple(int(v) for v in array[i])} for board {i} is off the {rows}x{cols} board"
        )
    return array.astype(np.intp)


def generate_boards(
    n: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    seed: Any = None,
    first_click: str | None = None,
    click: ArrayLike | None = None,
) -> BoardBatch:
    """Generate ``n`` uniformly random boards with exactly ``mines`` mines each.

    Parameters
    ----------
    n : int
        Number of boards, ``n >= 0``.
    rows, cols, mines : int
        Size and mine count of every board, as for :meth:`Board.create`.
    seed : None, int, SeedSequence or Generator, optional
        The same seed gives the same batch on any machine.
    first_click : {None, 'safe', 'opening'}
        Keep the first click (and, for ``'opening'``, its neighbours)
        mine-free.
    click : array_like of int, shape (2,) or (n, 2)
        The first click, required with a rule: one ``(row, col)`` for every
        board, or one per board.

    Returns
    -------
    BoardBatch

    Examples
    --------
    >>> import numsweeper as ns
    >>> batch = ns.generate_boards(3, 16, 30, 99, seed=1, first_click="opening", click=(3, 3))
    >>> bool(batch.counts[:, 3, 3].any()), bool(batch.mines[:, 2:5, 2:5].any())
    (False, False)
    """
    n = check_int(n, "n")
    if n < 0:
        raise InvalidBoardError(f"n must be >= 0, got {n}")
    rows, cols, mines = check_dims(rows, cols, mines)
    check_first_click_fits(rows, cols, mines, first_click)
    rng = np.random.default_rng(seed)
    keys = rng.random((n, rows * cols), dtype=np.float32)
    if first_click is not None:
        if click is None:
            raise TypeError(f"first_click={first_click!r} needs click=(row, col)")
        at = _clicks(click, n, rows, cols)
        grid = keys.reshape(n, rows, cols)
        reach = 0 if first_click == "safe" else 1
        for dr in range(-reach, reach + 1):
            for dc in range(-reach, reach + 1):
                r, c = at[:, 0] + dr, at[:, 1] + dc
                ok = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
                grid[np.flatnonzero(ok), r[ok], c[ok]] = 2.0  # never among the smallest
    flat = np.zeros((n, rows * cols), dtype=bool)
    if mines:
        chosen = np.argpartition(keys, mines - 1, axis=1)[:, :mines]
        np.put_along_axis(flat, chosen, True, axis=1)
    layout = flat.reshape(n, rows, cols)
    return BoardBatch(layout, adjacent_counts(layout))
