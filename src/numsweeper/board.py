"""One board's arrays and moves: a one-game facade on the rules core."""

from __future__ import annotations

from typing import NamedTuple, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _rules as rules
from ._rules import GameArrays
from ._validate import Index, as_array, check_coord, check_dims, check_mask, count_text
from .errors import GameOverError, IllegalMoveError, InvalidBoardError
from .placement import MinePlacementStrategy, RandomPlacement, place_boards

__all__ = ["Board", "Uncovered"]

T = TypeVar("T", bound=np.generic)

#: The one game of a one-game state, as the index array the rules take.
ONE = np.zeros(1, dtype=np.intp)
ONE.flags.writeable = False


def read_only(array: NDArray[T]) -> NDArray[T]:
    """A view of ``array`` that refuses writes (the owner keeps writing)."""
    view = array.view()
    view.flags.writeable = False
    return view


def at(value: int) -> NDArray[np.intp]:
    """One coordinate as the array the rules take (huge ones stay off the board)."""
    return np.array([min(max(value, -1), 1 << 62)], dtype=np.intp)


def refuse(status: int, action: str, row: int, col: int, arrays: GameArrays) -> None:
    """Raise the error a one-game facade gives for a move the rules refused.

    ``row`` and ``col`` are integers; nothing happens for ``MoveStatus.OK``.
    """
    if status == rules.OK:
        return
    if status == rules.GAME_OVER:
        state = ("IN_PROGRESS", "WON", "LOST")[int(arrays.state[0])]
        raise GameOverError(f"cannot {action} ({row}, {col}): the game is already {state}")
    if status == rules.OUT_OF_BOUNDS:
        _, rows, cols = arrays.shape
        check_coord(row, col, rows, cols)  # raises, naming the bad coordinate
    if status == rules.ILLEGAL:
        if action == "reveal":
            raise IllegalMoveError(f"cannot reveal flagged cell ({row}, {col}); unflag it first")
        raise IllegalMoveError(f"cannot flag revealed cell ({row}, {col})")


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
    >>> board.rows, board.cols, board.shape, board.mine_count, board.flag_count
    (2, 3, (2, 3), 1, 0)
    >>> board.counts
    array([[0, 1, 0],
           [1, 1, 0]], dtype=int8)
    >>> board.reveal(1, 2).cells.tolist()
    [[0, 1], [0, 2], [1, 1], [1, 2]]
    >>> board.hidden_safe
    1
    """

    __slots__ = ("_a", "_game", "_views")

    def __init__(self, mines: ArrayLike) -> None:
        layout = as_array(mines, "mines", kind="a 2-D bool array")
        if layout.dtype != bool:
            raise InvalidBoardError(f"mines must be a bool array, got dtype {layout.dtype}")
        if layout.ndim != 2:
            raise InvalidBoardError(f"mines must be 2-D, got shape {layout.shape}")
        check_dims(layout.shape[0], layout.shape[1], int(np.count_nonzero(layout)))
        self._attach(GameArrays.laid(np.array(layout, dtype=bool, order="C")[None]))

    def _attach(self, arrays: GameArrays, game: bool = False) -> None:
        self._a = arrays
        self._game = game  # the arrays belong to a Game: moves go through it
        self._views = tuple(
            read_only(x[0]) for x in (arrays.mines, arrays.counts, arrays.revealed, arrays.flagged)
        )

    @classmethod
    def _of(cls, arrays: GameArrays, *, game: bool = False) -> Board:
        """The board of a one-game state (shared, not copied); ``game``: a Game's."""
        board = cls.__new__(cls)
        board._attach(arrays, game)
        return board

    def _taken(self) -> None:
        """Refuse a move on a board whose arrays a Game plays (and records)."""
        if self._game:
            raise IllegalMoveError(
                "this board belongs to a Game: play through the game (its reveal, "
                "toggle_flag and chord record the move); Board(board.mines) is a free copy"
            )

    def __copy__(self) -> Board:
        return self.__deepcopy__({})

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        """An independent board with the same cells (like ``Game.copy``)."""
        return Board._of(self._a.copy())

    def __getstate__(self) -> dict[str, object]:
        return {"arrays": self._a}

    def __setstate__(self, state: dict[str, object]) -> None:
        arrays = state["arrays"]
        assert isinstance(arrays, GameArrays)
        self._attach(arrays)

    @classmethod
    def _from_arrays(cls, mines: NDArray[np.bool_], counts: NDArray[np.int8]) -> Board:
        """A fresh board from trusted arrays (copied): no validation, no recount."""
        return cls._of(
            GameArrays.laid(
                np.array(mines, dtype=bool, order="C")[None], np.array(counts, dtype=np.int8)[None]
            )
        )

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
            For bad dimensions or counts, a ``safe`` mask of the wrong shape,
            or a strategy that cannot honour the request.
        TypeError
            If a dimension is not an integer, ``safe`` is not of bools, or
            ``strategy`` is not a strategy instance.

        Examples
        --------
        >>> import numsweeper as ns
        >>> board = ns.Board.create(16, 30, 99, ns.RandomPlacement(seed=0))
        >>> board.shape, board.mine_count, board.counts.dtype
        ((16, 30), 99, dtype('int8'))
        """
        rows, cols, mines = check_dims(rows, cols, mines)
        safe_mask = None if safe is None else check_mask(safe, (rows, cols), "safe")[None]
        strategy = RandomPlacement() if strategy is None else strategy
        layout = place_boards(strategy, 1, rows, cols, mines, safe=safe_mask)
        return cls._of(GameArrays.laid(layout))

    # -- read-only state ------------------------------------------------------

    @property
    def rows(self) -> int:
        """Number of rows (int)."""
        return int(self._views[0].shape[0])

    @property
    def cols(self) -> int:
        """Number of columns (int)."""
        return int(self._views[0].shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)``, a tuple of two ints."""
        return (self.rows, self.cols)

    @property
    def mine_count(self) -> int:
        """Number of mines on the board (int)."""
        return self._a.mine_count

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
        """Read-only bool ``(rows, cols)`` view of the revealed cells.

        A mine is revealed only on the board of a game lost on it (the mine
        that exploded); a board's own :meth:`reveal` reports mines and leaves
        them hidden.
        """
        return self._views[2]

    @property
    def flagged(self) -> NDArray[np.bool_]:
        """Read-only bool ``(rows, cols)`` view of the flags."""
        return self._views[3]

    @property
    def hidden_safe(self) -> int:
        """Safe cells still hidden (int); the board is cleared when this is 0."""
        return int(self._a.hidden_safe[0])

    @property
    def flag_count(self) -> int:
        """Number of flags placed (int)."""
        return int(self._a.flag_count[0])

    def __repr__(self) -> str:
        return (
            f"<Board {self.rows}x{self.cols}, {count_text(self.mine_count, 'mine')}, "
            f"{count_text(self.hidden_safe, 'safe cell')} hidden, "
            f"{count_text(self.flag_count, 'flag')}>"
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
        self._taken()
        r, c = check_coord(row, col, self.rows, self.cols)
        out = rules.reveal(self._a, ONE, at(r), at(c), with_state=False, windowed=True)
        refuse(out.status[0], "reveal", r, c, self._a)
        return Uncovered(out.opened_cells(), out.hit_cells())

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
        self._taken()
        r, c = check_coord(row, col, self.rows, self.cols)
        status = rules.toggle_flag(self._a, ONE, at(r), at(c), with_state=False)
        refuse(status[0], "toggle_flag", r, c, self._a)
        return bool(self._a.flagged[0, r, c])

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
        self._taken()
        r, c = check_coord(row, col, self.rows, self.cols)
        out = rules.chord(self._a, ONE, at(r), at(c), with_state=False, windowed=True)
        return Uncovered(out.opened_cells(), out.hit_cells())
