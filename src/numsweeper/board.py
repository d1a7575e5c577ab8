"""One game's arrays: mines, adjacent counts, revealed cells and flags."""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._kernels import adjacent_counts, flood_from
from ._validate import Index, check_coord, check_dims, count_text
from .errors import IllegalMoveError, InvalidBoardError
from .placement import FixedPlacement, MinePlacementStrategy, RandomPlacement

__all__ = ["Board", "Uncovered"]

T = TypeVar("T", bound=np.generic)

_NO_CELLS = np.empty((0, 2), dtype=np.intp)
_NO_CELLS.flags.writeable = False


def read_only(array: NDArray[T]) -> NDArray[T]:
    """A view of ``array`` that refuses writes (the owner keeps writing)."""
    view = array.view()
    view.flags.writeable = False
    return view


class Uncovered(NamedTuple):
    """What one board action uncovered.

    Attributes
    ----------
    cells : ndarray of intp, shape (k, 2)
        Safe cells newly revealed, ``(row, col)`` in row-major order.
    exploded : ndarray of intp, shape (m, 2)
        Mines the action uncovered (0 or 1 for a reveal, up to 8 for a chord).

    Examples
    --------
    >>> import numsweeper as ns
    >>> board = ns.Board.create(1, 3, 1, ns.FixedPlacement([(0, 2)]))
    >>> board.reveal(0, 0)
    Uncovered(cells=array([[0, 0],
           [0, 1]]), exploded=array([], shape=(0, 2), dtype=int64))
    """

    cells: NDArray[np.intp]
    exploded: NDArray[np.intp]


def check_strategy(strategy: Any) -> None:
    """Raise TypeError unless ``strategy`` is a placement strategy instance."""
    if isinstance(strategy, type) or not callable(getattr(strategy, "place", None)):
        raise TypeError(
            "strategy must be a MinePlacementStrategy instance (with a place method), "
            f"got {strategy!r}"
        )


class Board:
    """The arrays of one Minesweeper board and the moves that change them.

    A board owns four ``(rows, cols)`` arrays, 4 bytes per cell in all: bool
    ``mines``, int8 adjacent ``counts`` (computed once), bool ``revealed`` and
    bool ``flagged``.  Properties hand out read-only views.  The board applies
    the rules of one move; win and loss are the business of
    :class:`~numsweeper.Game`.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols)
        The mine layout; copied.  Use :meth:`create` to place mines with a
        strategy.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a non-empty 2-D bool array with at least one safe
        cell.

    Examples
    --------
    >>> import numsweeper as ns
    >>> board = ns.Board([[True, False, False], [False, False, False]])
    >>> board.counts
    array([[0, 1, 0],
           [1, 1, 0]], dtype=int8)
    >>> board.reveal(1, 2).cells.tolist()
    [[0, 1], [0, 2], [1, 1], [1, 2]]
    >>> board.hidden_safe
    1
    """

    __slots__ = (
        "_counts",
        "_flag_count",
        "_flagged",
        "_hidden_safe",
        "_mine_count",
        "_mines",
        "_revealed",
        "_views",
    )

    def __init__(self, mines: ArrayLike) -> None:
        try:
            layout = np.asarray(mines)
        except ValueError:  # ragged rows
            raise InvalidBoardError(f"mines must be a 2-D bool array, got {mines!r}") from None
        if layout.dtype != bool:
            raise InvalidBoardError(f"mines must be a bool array, got dtype {layout.dtype}")
        if layout.ndim != 2:
            raise InvalidBoardError(f"mines must be 2-D, got shape {layout.shape}")
        check_dims(layout.shape[0], layout.shape[1], int(np.count_nonzero(layout)))
        self._init(np.array(layout, dtype=bool, order="C"))

    def _init(self, mines: NDArray[np.bool_], counts: NDArray[np.int8] | None = None) -> None:
        self._mines = mines
        self._counts = adjacent_counts(mines) if counts is None else counts
        self._revealed = np.zeros(mines.shape, dtype=bool)
        self._flagged = np.zeros(mines.shape, dtype=bool)
        self._mine_count = int(np.count_nonzero(mines))
        self._hidden_safe = mines.size - self._mine_count
        self._flag_count = 0
        self._views = tuple(
            read_only(a) for a in (self._mines, self._counts, self._revealed, self._flagged)
        )

    @classmethod
    def _from_arrays(cls, mines: NDArray[np.bool_], counts: NDArray[np.int8]) -> Board:
        """A fresh board from trusted arrays (copied): no validation, no recount."""
        board = cls.__new__(cls)
        board._init(np.array(mines, dtype=bool, order="C"), np.array(counts, dtype=np.int8))
        return board

    @classmethod
    def create(
        cls,
        rows: int,
        cols: int,
        mines: int,
        strategy: MinePlacementStrategy | None = None,
        *,
        safe: ArrayLike | None = None,
    ) -> Board:
        """Place ``mines`` mines on a new ``rows`` x ``cols`` board.

        Parameters
        ----------
        rows, cols : int
            Board dimensions, at least 1 each.
        mines : int
            Number of mines, ``0 <= mines < rows * cols``.
        strategy : MinePlacementStrategy, optional
            Where the mines go; a fresh unseeded :class:`RandomPlacement` by
            default.
        safe : array_like of bool, shape (rows, cols), optional
            Cells that must stay mine-free.

        Returns
        -------
        Board
            All cells hidden and unflagged.

        Raises
        ------
        InvalidBoardError
            For bad dimensions or counts, a bad ``safe`` mask, or a strategy
            that cannot honour the request.
        TypeError
            If a dimension is not an integer, or ``strategy`` is not a
            strategy instance.

        Examples
        --------
        >>> import numsweeper as ns
        >>> board = ns.Board.create(16, 30, 99, ns.RandomPlacement(seed=0))
        >>> board.shape, board.mine_count, board.counts.dtype
        ((16, 30), 99, dtype('int8'))
        """
        rows, cols, mines = check_dims(rows, cols, mines)
        safe_mask = None
        if safe is not None:
            safe_mask = np.asarray(safe)
            if safe_mask.dtype != bool or safe_mask.shape != (rows, cols):
                raise InvalidBoardError(
                    f"safe must be a bool array of shape {(rows, cols)}, "
                    f"got {safe_mask.dtype} {safe_mask.shape}"
                )
        strategy = RandomPlacement() if strategy is None else strategy
        check_strategy(strategy)
        shown = None
        if safe_mask is not None:  # the strategy may read the mask, never change it
            shown = safe_mask.view()
            shown.flags.writeable = False
        layout = np.asarray(strategy.place(rows, cols, mines, safe=shown))
        if layout.dtype != bool or layout.shape != (rows, cols):
            raise InvalidBoardError(
                f"{type(strategy).__name__} returned {layout.dtype} {layout.shape}, "
                f"expected bool {(rows, cols)}"
            )
        if int(np.count_nonzero(layout)) != mines:
            raise InvalidBoardError(
                f"{type(strategy).__name__} placed {int(np.count_nonzero(layout))} mines, "
                f"expected {mines}"
            )
        if safe_mask is not None and (layout & safe_mask).any():
            row, col = (int(v) for v in np.argwhere(layout & safe_mask)[0])
            raise InvalidBoardError(
                f"{type(strategy).__name__} put a mine on ({row}, {col}), which must stay safe"
            )
        if type(strategy) not in (RandomPlacement, FixedPlacement):
            # a strategy of the user's may hand out one buffer to every board
            layout = layout.copy()
        board = cls.__new__(cls)
        board._init(np.ascontiguousarray(layout))
        return board

    # -- read-only state ------------------------------------------------------

    @property
    def rows(self) -> int:
        """Number of rows."""
        return int(self._mines.shape[0])

    @property
    def cols(self) -> int:
        """Number of columns."""
        return int(self._mines.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)``."""
        return (self.rows, self.cols)

    @property
    def mine_count(self) -> int:
        """Number of mines on the board."""
        return self._mine_count

    @property
    def mines(self) -> NDArray[np.bool_]:
        """Read-only bool ``(rows, cols)`` view of the mine layout."""
        return self._views[0]

    @property
    def counts(self) -> NDArray[np.int8]:
        """Read-only int8 ``(rows, cols)`` view of the adjacent-mine counts."""
        return self._views[1]

    @property
    def revealed(self) -> NDArray[np.bool_]:
        """Read-only bool ``(rows, cols)`` view of the revealed cells."""
        return self._views[2]

    @property
    def flagged(self) -> NDArray[np.bool_]:
        """Read-only bool ``(rows, cols)`` view of the flags."""
        return self._views[3]

    @property
    def hidden_safe(self) -> int:
        """Safe cells still hidden; the board is cleared when this is 0."""
        return self._hidden_safe

    @property
    def flag_count(self) -> int:
        """Number of flags placed."""
        return self._flag_count

    def __repr__(self) -> str:
        return (
            f"<Board {self.rows}x{self.cols}, {count_text(self.mine_count, 'mine')}, "
            f"{count_text(self._hidden_safe, 'safe cell')} hidden, "
            f"{count_text(self._flag_count, 'flag')}>"
        )

    def __str__(self) -> str:
        from .render import board_text

        return board_text(self)

    def _repr_html_(self) -> str:
        from .render import to_html

        return to_html(self)

    # -- moves ----------------------------------------------------------------

    def reveal(self, row: Index, col: Index) -> Uncovered:
        """Reveal one cell, flooding from a zero-count cell.

        A revealed cell is a no-op.  A mine is reported in ``exploded`` and
        left hidden: what a loss means is the game's business.

        Parameters
        ----------
        row, col : int
            The cell; negative values are off the board, never wrapped.

        Returns
        -------
        Uncovered
            The newly revealed safe cells and the mines hit.

        Raises
        ------
        OutOfBoundsError
            If the cell is off the board.
        IllegalMoveError
            If the cell is flagged.
        TypeError
            If a coordinate is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> board = ns.Board.create(3, 3, 1, ns.FixedPlacement([(1, 1)]))
        >>> board.reveal(0, 0).cells.tolist()
        [[0, 0]]
        >>> board.reveal(1, 1).exploded.tolist()
        [[1, 1]]
        """
        r, c = check_coord(row, col, self.rows, self.cols)
        if self._flagged[r, c]:
            raise IllegalMoveError(f"cannot reveal flagged cell ({r}, {c}); unflag it first")
        if self._revealed[r, c]:
            return Uncovered(_NO_CELLS, _NO_CELLS)
        if self._mines[r, c]:
            return Uncovered(_NO_CELLS, np.array([[r, c]], dtype=np.intp))
        return Uncovered(self._open(r, c), _NO_CELLS)

    def _open(self, r: int, c: int) -> NDArray[np.intp]:
        """Reveal the hidden, unflagged safe cell ``(r, c)`` and its flood."""
        if self._counts[r, c]:
            self._revealed[r, c] = True
            self._hidden_safe -= 1
            return np.array([[r, c]], dtype=np.intp)
        (r0, c0), region = flood_from(
            self._counts, (self._mines, self._revealed, self._flagged), r, c
        )
        h, w = region.shape
        self._revealed[r0 : r0 + h, c0 : c0 + w] |= region
        cells = np.argwhere(region)
        cells += (r0, c0)
        self._hidden_safe -= len(cells)
        return cells

    def toggle_flag(self, row: Index, col: Index) -> bool:
        """Flag a hidden cell, or unflag a flagged one.

        Parameters
        ----------
        row, col : int
            The cell.  Negative values are off the board, never wrapped.

        Returns
        -------
        bool
            The cell's new flag state.

        Raises
        ------
        OutOfBoundsError
            If the cell is off the board.
        IllegalMoveError
            If the cell is revealed.
        TypeError
            If a coordinate is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> board = ns.Board.create(2, 2, 1, ns.FixedPlacement([(0, 0)]))
        >>> board.toggle_flag(0, 0), board.toggle_flag(0, 0)
        (True, False)
        """
        r, c = check_coord(row, col, self.rows, self.cols)
        if self._revealed[r, c]:
            raise IllegalMoveError(f"cannot flag revealed cell ({r}, {c})")
        flag = not self._flagged[r, c]
        self._flagged[r, c] = flag
        self._flag_count += 1 if flag else -1
        return flag

    def chord(self, row: Index, col: Index) -> Uncovered:
        """Reveal every hidden, unflagged neighbour of a satisfied number.

        When ``(row, col)`` is a revealed number whose adjacent flags equal
        it, each hidden unflagged neighbour is revealed as by :meth:`reveal`
        (floods included); a wrongly placed flag means a mine is hit.  In any
        other case this is a no-op.

        Parameters
        ----------
        row, col : int
            The revealed number.  Negative values are off the board, never
            wrapped.

        Returns
        -------
        Uncovered
            The newly revealed safe cells and the mines hit (none for a no-op).

        Raises
        ------
        OutOfBoundsError
            If the cell is off the board.
        TypeError
            If a coordinate is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> board = ns.Board.create(1, 3, 1, ns.FixedPlacement([(0, 0)]))
        >>> board.reveal(0, 1).cells.tolist()
        [[0, 1]]
        >>> board.toggle_flag(0, 0)
        True
        >>> board.chord(0, 1).cells.tolist()
        [[0, 2]]
        """
        r, c = check_coord(row, col, self.rows, self.cols)
        number = int(self._counts[r, c])
        if not self._revealed[r, c] or number == 0:
            return Uncovered(_NO_CELLS, _NO_CELLS)
        r0, c0 = max(r - 1, 0), max(c - 1, 0)
        around = (slice(r0, r + 2), slice(c0, c + 2))
        if int(np.count_nonzero(self._flagged[around])) != number:
            return Uncovered(_NO_CELLS, _NO_CELLS)
        targets = np.argwhere(~self._revealed[around] & ~self._flagged[around]) + [r0, c0]
        opened: list[NDArray[np.intp]] = []
        hit: list[tuple[int, int]] = []
        for tr, tc in targets.tolist():
            if self._mines[tr, tc]:
                hit.append((tr, tc))
            elif not self._revealed[tr, tc]:  # an earlier flood may have got it
                opened.append(self._open(tr, tc))
        cells = _NO_CELLS
        if opened:
            cells = np.concatenate(opened)
            cells = cells[np.lexsort((cells[:, 1], cells[:, 0]))]
        exploded = np.array(hit, dtype=np.intp).reshape(-1, 2)
        return Uncovered(cells, exploded)
