"""The game session: a Board plus the GameState machine, behind one lock."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ParamSpec, TypeVar

import numpy as np
from numpy.typing import NDArray

from ._constants import WRONG_FLAG
from ._kernels import visible_cells
from ._validate import (
    Index,
    check_coord,
    check_dims,
    check_first_click_fits,
    check_int,
    count_text,
    preset_dims,
    safe_zone,
)
from .board import Board, Uncovered, check_strategy
from .errors import GameOverError, InvalidBoardError
from .placement import MinePlacementStrategy, RandomPlacement

__all__ = ["Game", "GameState", "RevealResult", "Snapshot"]

P = ParamSpec("P")
T = TypeVar("T")


class GameState(Enum):
    """Where a game stands.  WON and LOST are terminal.

    Examples
    --------
    >>> import numsweeper as ns
    >>> ns.Game.new(9, 9, 10, seed=0).state
    <GameState.IN_PROGRESS: 'in_progress'>
    """

    IN_PROGRESS = "in_progress"
    WON = "won"
    LOST = "lost"


@dataclass(frozen=True, eq=False)
class RevealResult:
    """The outcome of one reveal or chord.

    Attributes
    ----------
    cells : ndarray of intp, shape (k, 2)
        Cells the move uncovered, ``(row, col)`` in row-major order: the safe
        cells revealed plus any mine that exploded.  ``k == 0`` for a no-op.
    state : GameState
        The game's state after the move.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> result = game.reveal(1, 1)
    >>> result.cells.tolist(), result.state
    ([[1, 1]], <GameState.IN_PROGRESS: 'in_progress'>)
    """

    cells: NDArray[np.intp]
    state: GameState

    def __len__(self) -> int:
        return len(self.cells)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """An immutable picture of what the player sees.

    Attributes
    ----------
    cells : ndarray of int8, shape (rows, cols), read-only
        ``0..8`` for a revealed count, else :data:`~numsweeper.HIDDEN`,
        :data:`~numsweeper.FLAG`, :data:`~numsweeper.MINE`,
        :data:`~numsweeper.EXPLODED` or :data:`~numsweeper.WRONG_FLAG`.  Mines
        show only once the game is over.
    state : GameState
        The game's state.
    mines_left : int
        Mines minus flags (negative when over-flagged).

    Notes
    -----
    Snapshots compare equal when their cells, state and ``mines_left`` are
    equal, so two games showing the same cells give equal snapshots while in
    progress whatever their hidden mines.  A snapshot built by hand copies
    its cells and checks them: a value that is neither a count nor a code
    raises :class:`~numsweeper.InvalidBoardError` naming the cell (never
    wrapped into ``int8``), as do empty cells; non-integer cells, a state
    that is not a :class:`GameState` and a non-integer ``mines_left`` raise
    ``TypeError``.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.reveal(1, 2)
    >>> snap = game.snapshot()
    >>> print(snap)
    #1.
    #1.
    >>> snap.cells[0, 0] == ns.HIDDEN, snap.mines_left
    (np.True_, 1)
    """

    cells: NDArray[np.int8]
    state: GameState
    mines_left: int
    _key: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        try:
            raw = np.asarray(self.cells)
        except ValueError:  # ragged rows
            raise InvalidBoardError(
                f"snapshot cells must be non-empty 2-D, got {self.cells!r}"
            ) from None
        if raw.ndim != 2 or 0 in raw.shape:
            raise InvalidBoardError(f"snapshot cells must be non-empty 2-D, got shape {raw.shape}")
        if raw.dtype == bool or not np.issubdtype(raw.dtype, np.integer):
            raise TypeError(f"snapshot cells must be integers, got dtype {raw.dtype}")
        if not isinstance(self.state, GameState):
            raise TypeError(f"snapshot state must be a GameState, got {self.state!r}")
        object.__setattr__(self, "mines_left", check_int(self.mines_left, "mines_left"))
        bad = (raw < WRONG_FLAG) | (raw > 8)  # the codes are WRONG_FLAG..-1, counts 0..8
        if bad.any():
            r, c = (int(v) for v in np.argwhere(bad)[0])
            raise InvalidBoardError(
                f"snapshot cell ({r}, {c}) holds {int(raw[r, c])}, "
                f"not a count 0..8 or a code {int(WRONG_FLAG)}..-1"
            )
        cells = np.array(raw, dtype=np.int8)
        cells.flags.writeable = False
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "_key", cells.tobytes() + repr(cells.shape).encode())

    @classmethod
    def _trusted(cls, cells: NDArray[np.int8], state: GameState, mines_left: int) -> Snapshot:
        """A snapshot of cells the engine made: no checks, no copy (they are fresh)."""
        snap = cls.__new__(cls)
        cells.flags.writeable = False
        for name, value in (("cells", cells), ("state", state), ("mines_left", mines_left)):
            object.__setattr__(snap, name, value)
        object.__setattr__(snap, "_key", cells.tobytes() + repr(cells.shape).encode())
        return snap

    @property
    def rows(self) -> int:
        """Number of rows."""
        return int(self.cells.shape[0])

    @property
    def cols(self) -> int:
        """Number of columns."""
        return int(self.cells.shape[1])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        return (self._key, self.state, self.mines_left) == (
            other._key,
            other.state,
            other.mines_left,
        )

    def __hash__(self) -> int:
        return hash((self._key, self.state, self.mines_left))

    def __repr__(self) -> str:
        return f"<Snapshot {self.rows}x{self.cols} {self.state.name}, mines_left={self.mines_left}>"

    def __str__(self) -> str:
        from .render import visible_text

        return visible_text(self.cells)

    def _repr_html_(self) -> str:
        from .render import to_html

        return to_html(self)


def _locked(method: Callable[P, T]) -> Callable[P, T]:
    """Run a Game method while holding the game's lock."""

    @functools.wraps(method)  # help() and IDEs show the method's own signature
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with args[0]._lock:  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    return wrapper


class Game:
    """One Minesweeper session: a board, its state machine and a lock.

    Build one with :meth:`new`, :meth:`from_preset` or ``Game(board)``.
    Every action holds one lock, so threads sharing a game cannot corrupt it.
    Rejected actions raise and leave the game exactly as it was.

    Parameters
    ----------
    board : Board
        A board to play; the game takes it over (play through the game, not
        the board, from then on).

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> game.reveal(2, 2).state
    <GameState.WON: 'won'>
    >>> print(game)
    F1.
    11.
    ...
    """

    def __init__(self, board: Board) -> None:
        if not isinstance(board, Board):
            raise TypeError(f"Game needs a Board, got {type(board).__name__}")
        self._lock = threading.Lock()
        self._board = board
        self._mine_count = board.mine_count
        self._strategy: MinePlacementStrategy | None = None
        self._first_click: str | None = None
        self._placed = True
        self._state = GameState.IN_PROGRESS
        self._exploded: list[tuple[int, int]] = []
        if board.hidden_safe == 0:
            self._state = GameState.WON

    @classmethod
    def new(
        cls,
        rows: int,
        cols: int,
        mines: int,
        *,
        strategy: MinePlacementStrategy | None = None,
        seed: Any = None,
        first_click: str | None = None,
    ) -> Game:
        """Start a game on a new ``rows`` x ``cols`` board with ``mines`` mines.

        Parameters
        ----------
        rows, cols : int
            Board dimensions, at least 1 each.
        mines : int
            Number of mines, ``0 <= mines < rows * cols``.
        strategy : MinePlacementStrategy, optional
            Where mines go.  Default: ``RandomPlacement(seed)``.
        seed : None, int, SeedSequence or Generator, optional
            Seed of the default strategy; give ``strategy`` or ``seed``, not
            both.
        first_click : {None, 'safe', 'opening'}
            ``None`` lays the mines now.  With a rule they are laid at the
            first reveal: ``'safe'`` keeps the clicked cell mine-free,
            ``'opening'`` keeps it and its neighbours mine-free so the first
            click always opens an area.

        Raises
        ------
        InvalidBoardError
            For bad dimensions, too many mines for the rule wherever the
            first click lands, or a negative ``seed``.
        ValueError
            For an unknown ``first_click``.
        TypeError
            If both ``strategy`` and ``seed`` are given, ``strategy`` is not a
            strategy instance, or ``seed`` is of a kind numpy cannot seed from.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(9, 9, 10, seed=3, first_click="opening")
        >>> len(game.reveal(4, 4)) > 1
        True
        """
        rows, cols, mines = check_dims(rows, cols, mines)
        check_first_click_fits(rows, cols, mines, first_click)
        if strategy is not None and seed is not None:
            raise TypeError("give strategy or seed, not both")
        if strategy is None:
            strategy = RandomPlacement(seed)
        check_strategy(strategy)  # now, even when mines wait for the first click
        if first_click is None:
            return cls(Board.create(rows, cols, mines, strategy))
        game = cls(Board(np.zeros((rows, cols), dtype=bool)))
        game._mine_count = mines
        game._strategy = strategy
        game._first_click = first_click
        game._placed = False
        return game

    @classmethod
    def from_preset(cls, name: str, *, seed: Any = None, first_click: str | None = None) -> Game:
        """Start a game on a named preset board.

        Parameters
        ----------
        name : {'beginner', 'intermediate', 'expert'}
            9x9 with 10 mines, 16x16 with 40, or 16 rows x 30 cols with 99.
        seed : None, int, SeedSequence or Generator, optional
            Seed of the random placement.
        first_click : {None, 'safe', 'opening'}
            As in :meth:`new`.

        Raises
        ------
        ValueError
            For an unknown preset; the message lists the valid names.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.from_preset("expert", seed=1)
        >>> game.rows, game.cols, game.mine_count
        (16, 30, 99)
        """
        rows, cols, mines = preset_dims(name)
        return cls.new(rows, cols, mines, seed=seed, first_click=first_click)

    # -- state ----------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current :class:`GameState`."""
        return self._state

    @property
    def rows(self) -> int:
        """Number of rows."""
        return self._board.rows

    @property
    def cols(self) -> int:
        """Number of columns."""
        return self._board.cols

    @property
    def mine_count(self) -> int:
        """Number of mines (known from the start, even before they are laid)."""
        return self._mine_count

    @property
    def first_click(self) -> str | None:
        """The first-click rule, ``None``, ``'safe'`` or ``'opening'``."""
        return self._first_click

    @property
    def board(self) -> Board | None:
        """The board, or ``None`` while a first-click rule waits to lay mines.

        Read it for analysis; play through the game's own methods.
        """
        return self._board if self._placed else None

    @_locked
    def snapshot(self) -> Snapshot:
        """Return an immutable :class:`Snapshot` of what the player sees.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.reveal(0, 0)
        >>> print(game.snapshot())
        X#
        ##
        """
        b = self._board
        exploded = np.zeros(b.shape, dtype=bool)
        for r, c in self._exploded:
            exploded[r, c] = True
        cells = visible_cells(
            b.counts,
            b.revealed,
            b.flagged,
            b.mines,
            exploded,
            lost=self._state is GameState.LOST,
            won=self._state is GameState.WON,
        )
        return Snapshot._trusted(cells, self._state, self._mine_count - b.flag_count)

    def __repr__(self) -> str:
        return (
            f"<Game {self.rows}x{self.cols}, {count_text(self._mine_count, 'mine')}, "
            f"{self._state.name}, first_click={self._first_click!r}>"
        )

    def __str__(self) -> str:
        return str(self.snapshot())

    def _repr_html_(self) -> str:
        from .render import to_html

        return to_html(self)

    # -- actions --------------------------------------------------------------

    def _check_live(self, action: str, row: Any, col: Any) -> None:
        if self._state is not GameState.IN_PROGRESS:
            shown = ", ".join(
                str(int(v)) if isinstance(v, np.integer) else repr(v) for v in (row, col)
            )
            raise GameOverError(
                f"cannot {action} ({shown}): the game is already {self._state.name}"
            )

    def _finish(self, uncovered: Uncovered) -> RevealResult:
        cells, exploded = uncovered
        if len(exploded):
            self._exploded.extend((int(r), int(c)) for r, c in exploded)
            self._state = GameState.LOST
            cells = np.concatenate([cells, exploded])
            cells = cells[np.lexsort((cells[:, 1], cells[:, 0]))]
        elif self._board.hidden_safe == 0:
            self._state = GameState.WON
        cells.flags.writeable = False
        return RevealResult(cells, self._state)

    @_locked
    def reveal(self, row: Index, col: Index) -> RevealResult:
        """Reveal a cell; a zero-count cell floods its opening.

        Parameters
        ----------
        row, col : int
            The cell.  Negative values are off the board, never wrapped.

        Returns
        -------
        RevealResult
            The uncovered cells and the new state.  Revealing a revealed cell
            is a no-op with no cells; a mine loses the game.

        Raises
        ------
        GameOverError
            If the game is WON or LOST.
        OutOfBoundsError
            If the cell is off the board.
        IllegalMoveError
            If the cell is flagged.
        TypeError
            If a coordinate is not an integer.
        InvalidBoardError
            If a first-click rule cannot be honoured by the strategy.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(1, 4, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> game.reveal(0, 3).cells.tolist()
        [[0, 1], [0, 2], [0, 3]]
        >>> game.state
        <GameState.WON: 'won'>
        """
        self._check_live("reveal", row, col)
        r, c = check_coord(row, col, self.rows, self.cols)
        if not self._placed:
            self._place_mines(r, c)
        return self._finish(self._board.reveal(r, c))

    def _place_mines(self, row: int, col: int) -> None:
        """Lay the mines at the first reveal, keeping the rule's cells safe."""
        assert self._strategy is not None
        old = self._board
        if old.flagged[row, col]:
            return  # the reveal will be refused; keep waiting
        safe = safe_zone(self.rows, self.cols, row, col, self._first_click)
        board = Board.create(self.rows, self.cols, self._mine_count, self._strategy, safe=safe)
        for r, c in np.argwhere(old.flagged).tolist():
            board.toggle_flag(r, c)
        self._board = board
        self._placed = True

    @_locked
    def toggle_flag(self, row: Index, col: Index) -> bool:
        """Flag a hidden cell or unflag a flagged one.

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
        GameOverError
            If the game is WON or LOST.
        OutOfBoundsError
            If the cell is off the board.
        IllegalMoveError
            If the cell is revealed.
        TypeError
            If a coordinate is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(3, 3, 2, seed=0)
        >>> game.toggle_flag(1, 1), game.snapshot().mines_left
        (True, 1)
        """
        self._check_live("toggle_flag", row, col)
        return self._board.toggle_flag(row, col)

    @_locked
    def chord(self, row: Index, col: Index) -> RevealResult:
        """Reveal the hidden neighbours of a revealed number whose flags match it.

        Otherwise a no-op.  A wrong flag makes a neighbouring mine explode and
        the game is LOST.

        Parameters
        ----------
        row, col : int
            The revealed number.  Negative values are off the board, never
            wrapped.

        Returns
        -------
        RevealResult
            The uncovered cells and the new state (no cells for a no-op).

        Raises
        ------
        GameOverError
            If the game is WON or LOST.
        OutOfBoundsError
            If the cell is off the board.
        TypeError
            If a coordinate is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> game.reveal(0, 1).cells.tolist()
        [[0, 1]]
        >>> game.toggle_flag(0, 0)
        True
        >>> game.chord(0, 1).state
        <GameState.WON: 'won'>
        """
        self._check_live("chord", row, col)
        return self._finish(self._board.chord(row, col))
