"""The game session: one game on the rules core, its moves, and a lock."""

from __future__ import annotations

import functools
import hashlib
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np
from numpy.typing import NDArray

from . import _rules as rules
from ._constants import WRONG_FLAG
from ._kernels import visible_cells, visible_in_progress
from ._rules import LOST, WON, GameArrays, Outcome, Window, cells_of
from ._validate import (
    Index,
    check_board,
    check_int,
    count_text,
    preset_dims,
)
from .board import ONE, Board, at, refuse
from .errors import IllegalMoveError, InvalidBoardError, InvalidTypeError
from .placement import (
    MinePlacementStrategy,
    RandomPlacement,
    check_strategy,
    place_at_clicks,
    place_boards,
    strategy_for_copy,
)

if TYPE_CHECKING:
    from .widget import BoardWidget

__all__ = ["MOVE_KINDS", "Game", "GameState", "Move", "RevealResult", "Snapshot"]

#: The kinds of :class:`Move`: a reveal, a flag toggle and a chord.
MOVE_KINDS = ("reveal", "flag", "chord")

P = ParamSpec("P")
T = TypeVar("T")


def elapsed_time(start: float | None, moves: Sequence[Move], ended: bool, now: float) -> float:
    """The player's time: from the first reveal (at ``start``) to the end, or to ``now``.

    The one rule for :attr:`Game.elapsed` and for what a saved game
    records: ``0.0`` before the first reveal (``start`` None), the time of
    the move that ended a finished game, else ``now``, all measured from
    ``start`` (times in seconds since the game was created).

    Examples
    --------
    >>> from numsweeper.game import Move, elapsed_time
    >>> moves = [Move("flag", 0, 0, 1.0), Move("reveal", 1, 1, 2.5)]
    >>> elapsed_time(2.5, moves, False, 4.0), elapsed_time(2.5, moves, True, 4.0)
    (1.5, 0.0)
    """
    if start is None:
        return 0.0
    if ended:
        return moves[-1].time - start  # the last move ended the game
    return max(0.0, now - start)


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
        """Number of cells the move uncovered, ``len(self.cells)``.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(1, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> len(game.reveal(0, 2))
        2
        """
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

    Raises
    ------
    InvalidBoardError
        For cells that are not a non-empty 2-D grid, or a value that is
        neither a count nor a code (naming the cell; never wrapped into
        ``int8``).
    InvalidTypeError
        For cells that are not integers, a ``state`` that is not a
        :class:`GameState` or a non-integer ``mines_left``.

    Notes
    -----
    Snapshots compare equal when their cells, state and ``mines_left`` are
    equal, so two games showing the same cells give equal snapshots while in
    progress whatever their hidden mines.  A snapshot built by hand copies
    its cells and checks them.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.reveal(1, 2)
    >>> snap = game.snapshot()
    >>> print(snap)
    #1.
    #1.
    >>> snap.cells[0, 0] == ns.HIDDEN, snap.mines_left, snap.rows, snap.cols
    (np.True_, 1, 2, 3)
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
            raise InvalidTypeError(f"snapshot cells must be integers, got dtype {raw.dtype}")
        if not isinstance(self.state, GameState):
            raise InvalidTypeError(f"snapshot state must be a GameState, got {self.state!r}")
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
        """Number of rows (int)."""
        return int(self.cells.shape[0])

    @property
    def cols(self) -> int:
        """Number of columns (int)."""
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


@dataclass(frozen=True)
class Move:
    """One accepted move of a game.

    Attributes
    ----------
    kind : {'reveal', 'flag', 'chord'}
        What the player did; ``'flag'`` toggles a flag on or off.
    row, col : int
        The cell.
    time : float
        Seconds since the game was created (a monotonic clock); for a game
        of a :class:`~numsweeper.BatchGame`, since the batch was created.

    Raises
    ------
    InvalidBoardError
        For an unknown ``kind``, or a negative or non-finite ``time``.
    InvalidTypeError
        If ``row`` or ``col`` is not an integer, or ``time`` not a number.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.reveal(2, 2)
    >>> move = game.moves[0]
    >>> move.kind, move.row, move.col, move.time >= 0
    ('reveal', 2, 2, True)
    """

    kind: str
    row: int
    col: int
    time: float

    def __post_init__(self) -> None:
        if self.kind not in MOVE_KINDS:
            raise InvalidBoardError(
                f"move kind must be one of {', '.join(map(repr, MOVE_KINDS))}, got {self.kind!r}"
            )
        object.__setattr__(self, "row", check_int(self.row, "row"))
        object.__setattr__(self, "col", check_int(self.col, "col"))
        if isinstance(self.time, (bool, np.bool_)) or not isinstance(
            self.time, (int, float, np.integer, np.floating)
        ):
            raise InvalidTypeError(f"move time must be a number of seconds, got {self.time!r}")
        seconds = float(self.time)
        if not (math.isfinite(seconds) and seconds >= 0):
            raise InvalidBoardError(f"move time must be finite and >= 0, got {self.time!r}")
        object.__setattr__(self, "time", seconds)

    @classmethod
    def _trusted(cls, kind: str, row: int, col: int, time: float) -> Move:
        """A move the engine just made or checked: no validation."""
        move = cls.__new__(cls)
        for name, value in (("kind", kind), ("row", row), ("col", col), ("time", time)):
            object.__setattr__(move, name, value)
        return move


@dataclass(frozen=True, eq=False)
class _Change:
    """What one reveal or chord changed, to take it back: O(cells changed).

    Windows larger than one cell keep their masks bit-packed.
    """

    windows: tuple[tuple[int, int, int, int, NDArray[np.uint8] | None], ...]
    hit: NDArray[np.intp]  # (m, 2) mines uncovered

    @classmethod
    def of(cls, outcome: Outcome) -> _Change:
        windows = []
        for window in outcome.opened or []:
            h, w = window.mask.shape
            packed = None if h * w == 1 else np.packbits(window.mask)
            windows.append((window.row, window.col, h, w, packed))
        return cls(tuple(windows), outcome.hit_cells())

    def opened(self) -> list[Window]:
        out = []
        for row, col, h, w, packed in self.windows:
            if packed is None:
                mask = np.ones((1, 1), dtype=bool)
            else:
                mask = np.unpackbits(packed, count=h * w).view(bool).reshape(h, w)
            out.append(Window(0, row, col, mask))
        return out


_STATES = (GameState.IN_PROGRESS, GameState.WON, GameState.LOST)


def _locked(method: Callable[P, T]) -> Callable[P, T]:
    """Run a Game method while holding the game's lock."""

    @functools.wraps(method)  # help() and IDEs show the method's own signature
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with args[0]._lock:  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    return wrapper


def _settled_state(a: GameArrays) -> int:
    """The state a position shows by itself: LOST with a mine revealed, WON when cleared."""
    if (a.revealed[0] & a.mines[0]).any():
        return LOST
    return WON if a.hidden_safe[0] == 0 else rules.IN_PROGRESS


class Game:
    """One Minesweeper session: a board, its state machine, its moves and a lock.

    Build one with :meth:`new`, :meth:`from_preset`, ``Game(board)`` or
    :func:`~numsweeper.load_game`.  Every action holds one lock, so threads
    sharing a game cannot corrupt it.  Rejected actions raise and leave the
    game exactly as it was; accepted ones are recorded in :attr:`moves`,
    can be taken back with :meth:`undo` and played again with :meth:`redo`.

    Parameters
    ----------
    board : Board
        A board to play.  The game takes it over: from then on the board is
        the game's, for reading, and its own moves raise (play through the
        game, which records them).  A board that another game holds is
        copied instead.  Cells the board has revealed or flagged already are
        the game's starting position.

    Raises
    ------
    InvalidTypeError
        If ``board`` is not a :class:`~numsweeper.Board`.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> game.rows, game.cols, game.mine_count, game.first_click, game.state.name
    (3, 3, 1, None, 'IN_PROGRESS')
    >>> game.reveal(2, 2).state
    <GameState.WON: 'won'>
    >>> print(game)
    F1.
    11.
    ...
    >>> game.undo().kind, game.state
    ('reveal', <GameState.IN_PROGRESS: 'in_progress'>)
    """

    def __init__(self, board: Board) -> None:
        if not isinstance(board, Board):
            raise InvalidTypeError(f"Game needs a Board, got {type(board).__name__}")
        a = board._a.copy() if board._game else board._a  # (another game's: copy)
        if not board._game:
            board._game = True
        a.state[0] = _settled_state(a)
        start = None
        if a.revealed[0].any() or a.flagged[0].any():
            start = (np.packbits(a.revealed[0]), np.packbits(a.flagged[0]))
        self._setup(
            a, first_click=None, strategy=None, board=board if a is board._a else None, start=start
        )

    def _setup(
        self,
        a: GameArrays,
        *,
        first_click: str | None,
        strategy: MinePlacementStrategy | None,
        board: Board | None = None,
        created: float | None = None,
        start: tuple[NDArray[np.uint8], NDArray[np.uint8]] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._a = a
        self._board = board
        self._first_click = first_click
        self._strategy = strategy
        self._start = start  # packed revealed and flagged cells the game began with
        self._created = time.monotonic() if created is None else created
        self._moves: list[Move] = []
        self._changes: list[_Change | None] = []  # what each move changed; None for a flag
        self._redo: list[Move] = []
        self._first_reveal: int | None = None  # index in _moves

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

        Returns
        -------
        Game
            A new game in progress.

        Raises
        ------
        InvalidBoardError
            For bad dimensions, too many mines for the rule wherever the
            first click lands, an unknown ``first_click`` or a negative
            ``seed``.
        InvalidTypeError
            If both ``strategy`` and ``seed`` are given, ``strategy`` is not a
            strategy instance, or ``seed`` is of a kind numpy cannot seed from.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(9, 9, 10, seed=3, first_click="opening")
        >>> len(game.reveal(4, 4)) > 1
        True
        """
        rows, cols, mines, first_click = check_board(rows, cols, mines, first_click)
        if strategy is not None and seed is not None:
            raise InvalidTypeError("give strategy or seed, not both")
        if strategy is None:
            strategy = RandomPlacement(seed)
        check_strategy(strategy)  # now, even when mines wait for the first click
        if first_click is None:
            a = GameArrays.laid(place_boards(strategy, 1, rows, cols, mines))
        else:
            a = GameArrays.blank(1, rows, cols, mines)
        game = cls.__new__(cls)
        game._setup(a, first_click=first_click, strategy=strategy)
        return game

    @classmethod
    def from_preset(
        cls,
        name: str,
        *,
        strategy: MinePlacementStrategy | None = None,
        seed: Any = None,
        first_click: str | None = None,
    ) -> Game:
        """Start a game on a named preset board.

        Parameters
        ----------
        name : {'beginner', 'intermediate', 'expert'}
            9x9 with 10 mines, 16x16 with 40, or 16 rows x 30 cols with 99.
        strategy, seed, first_click
            As in :meth:`new`.

        Returns
        -------
        Game
            A new game in progress, its mines laid now or at the first
            reveal, as :meth:`new` says.

        Raises
        ------
        InvalidBoardError
            For an unknown preset (the message lists the valid names), and
            as in :meth:`new`.
        InvalidTypeError
            As in :meth:`new`.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.from_preset("expert", seed=1)
        >>> game.rows, game.cols, game.mine_count
        (16, 30, 99)
        >>> game = ns.Game.from_preset("beginner", strategy=ns.NoGuessPlacement(seed=2),
        ...                            first_click="safe")
        >>> game.strategy
        NoGuessPlacement(...)
        """
        rows, cols, mines = preset_dims(name)
        return cls.new(rows, cols, mines, strategy=strategy, seed=seed, first_click=first_click)

    # -- state ----------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current :class:`GameState`."""
        return _STATES[int(self._a.state[0])]

    @property
    def rows(self) -> int:
        """Number of rows (int)."""
        return self._a.shape[1]

    @property
    def cols(self) -> int:
        """Number of columns (int)."""
        return self._a.shape[2]

    @property
    def mine_count(self) -> int:
        """Number of mines (int; known from the start, even before they are laid)."""
        return self._a.mine_count

    @property
    def first_click(self) -> str | None:
        """The first-click rule (str or None): ``None``, ``'safe'`` or ``'opening'``."""
        return self._first_click

    @property
    def strategy(self) -> MinePlacementStrategy | None:
        """The placement strategy that lays (or laid) the mines; None for ``Game(board)``."""
        return self._strategy

    @property
    def board(self) -> Board | None:
        """The :class:`~numsweeper.Board`, or ``None`` while a first-click rule waits to lay mines.

        Read it for analysis: its arrays follow the game, and its own moves
        raise (play through the game's methods, which record the moves).
        """
        if not self._a.placed[0]:
            return None
        if self._board is None:
            self._board = Board._of(self._a, game=True)
        return self._board

    @property
    def moves(self) -> tuple[Move, ...]:
        """The accepted moves, oldest first.

        Every accepted call is a move, a no-op included (a chord that opens
        nothing, a reveal of a revealed cell); rejected calls are not.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.reveal(1, 1); _ = game.chord(1, 1)
        >>> [(m.kind, m.row, m.col) for m in game.moves]
        [('reveal', 1, 1), ('chord', 1, 1)]
        """
        with self._lock:
            return tuple(self._moves)

    @property
    def elapsed(self) -> float:
        """The player's time in seconds: from the first reveal to the end, or to now.

        ``0.0`` before the first reveal.  A game that ended stops its clock at
        the move that ended it.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 0)
        >>> game.elapsed
        0.0
        >>> _ = game.reveal(0, 0)  # wins at once
        >>> game.elapsed
        0.0
        """
        with self._lock:
            return self._elapsed(self._now())

    def _elapsed(self, now: float) -> float:
        start = None if self._first_reveal is None else self._moves[self._first_reveal].time
        return elapsed_time(start, self._moves, self._a.state[0] != rules.IN_PROGRESS, now)

    def _now(self) -> float:
        return time.monotonic() - self._created

    @_locked
    def snapshot(self) -> Snapshot:
        """Return an immutable :class:`Snapshot` of what the player sees.

        Returns
        -------
        Snapshot
            The visible cells, state and ``mines_left`` now; later moves do
            not change it.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.reveal(0, 0)
        >>> print(game.snapshot())
        X#
        ##
        """
        a = self._a
        cells = self._cells(slice(None))
        state = _STATES[int(a.state[0])]
        return Snapshot._trusted(cells, state, a.mine_count - int(a.flag_count[0]))

    def _cells(self, rows: slice) -> NDArray[np.int8]:
        """The visible codes of some rows; the caller holds the lock."""
        a = self._a
        state = int(a.state[0])
        at = (0, rows)
        if state == rules.IN_PROGRESS:
            flagged = a.flagged[at] if a.flag_count[0] else None
            return visible_in_progress(a.counts[at], a.revealed[at], flagged)
        return visible_cells(
            a.counts[at],
            a.revealed[at],
            a.flagged[at],
            a.mines[at],
            lost=state == LOST,
            won=state == WON,
        )

    @_locked
    def _export(self) -> dict[str, Any]:
        """What a saved game holds, read under the lock (for :mod:`numsweeper.records`).

        The layout and start position come bit-packed; ``cells_sha256`` hashes
        the visible codes a block of rows at a time, so a huge board needs no
        full copy.
        """
        a = self._a
        _, rows, cols = a.shape
        digest = hashlib.sha256()
        step = max(1, (1 << 22) // cols)
        for r0 in range(0, rows, step):
            digest.update(self._cells(slice(r0, r0 + step)).tobytes())
        age = self._now()
        elapsed = self._elapsed(age)
        return {
            "rows": rows,
            "cols": cols,
            "mines": a.mine_count,
            "first_click": self._first_click,
            "strategy": self._strategy,
            "layout": np.packbits(a.mines[0]) if a.placed[0] else None,
            "start": self._start,
            "moves": tuple(self._moves),
            "state": _STATES[int(a.state[0])],
            "mines_left": a.mine_count - int(a.flag_count[0]),
            "hidden_safe": int(a.hidden_safe[0]),
            "cells_sha256": digest.hexdigest(),
            "elapsed": elapsed,
            "saved_at": age,
        }

    def __repr__(self) -> str:
        return (
            f"<Game {self.rows}x{self.cols}, {count_text(self.mine_count, 'mine')}, "
            f"{self.state.name}, first_click={self._first_click!r}>"
        )

    def __str__(self) -> str:
        return str(self.snapshot())

    def _repr_html_(self) -> str:
        from .render import to_html

        return to_html(self)

    def widget(self, *, seed: Any = None, overlay: bool = False) -> BoardWidget:
        """Play this game on an interactive board in Jupyter (``numsweeper[widget]``).

        The same as :func:`numsweeper.widget.widget`: ``seed`` seeds the games
        "new game" deals, ``overlay`` starts with the analysis overlay on.
        Display the result to play.

        Parameters
        ----------
        seed : None, int, SeedSequence or Generator, optional
            Seeds the games that "new game" deals.
        overlay : bool
            Start with the analysis overlay on.

        Returns
        -------
        BoardWidget
            The widget, playing this game.

        Raises
        ------
        ImportError
            Without the ``numsweeper[widget]`` extra.
        InvalidTypeError, InvalidBoardError
            For a ``seed`` numpy cannot seed from, as in
            :func:`numsweeper.widget.widget`.

        Examples
        --------
        >>> import numsweeper as ns
        >>> board = ns.Game.from_preset("beginner", seed=1).widget()
        >>> board.rows, board.cols, board.state
        (9, 9, 'IN_PROGRESS')
        """
        from .widget import widget

        return widget(self, seed=seed, overlay=overlay)

    # -- actions --------------------------------------------------------------

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
        GenerationError
            If the strategy gives up laying the mines (a
            :class:`~numsweeper.NoGuessPlacement` out of attempts); the game
            is unchanged and still waits for its first reveal.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(1, 4, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> game.reveal(0, 3).cells.tolist()
        [[0, 1], [0, 2], [0, 3]]
        >>> game.state
        <GameState.WON: 'won'>
        """
        result = self._play("reveal", row, col)
        assert isinstance(result, RevealResult)
        return result

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
        result = self._play("flag", row, col)
        assert isinstance(result, bool)
        return result

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
        result = self._play("chord", row, col)
        assert isinstance(result, RevealResult)
        return result

    def _play(
        self, kind: str, row: Any, col: Any, *, when: float | None = None, redoing: bool = False
    ) -> RevealResult | bool | None:
        """Apply one move through the rules and record it; the caller holds the lock.

        ``when`` is the move's recorded time when it is played again (redo,
        replay, load), which returns no result; a new move is stamped now.
        """
        r, c = check_int(row, "row"), check_int(col, "col")
        a = self._a
        change = None
        result: RevealResult | bool | None = None
        if kind == "flag":
            status = rules.toggle_flag(a, ONE, at(r), at(c))
            refuse(status[0], "toggle_flag", r, c, a)
            result = bool(a.flagged[0, r, c])
        else:
            if kind == "reveal":
                out = rules.reveal(a, ONE, at(r), at(c), place=self._lay, windowed=True)
            else:
                out = rules.chord(a, ONE, at(r), at(c), windowed=True)
            refuse(out.status[0], kind, r, c, a)
            change = _Change.of(out)
            if when is None:
                cells = cells_of(out.opened or [])
                if len(change.hit):
                    cells = np.concatenate([cells, change.hit])
                    cells = cells[np.lexsort((cells[:, 1], cells[:, 0]))]
                cells.flags.writeable = False
                result = RevealResult(cells, self.state)
        if self._first_reveal is None and kind == "reveal":
            self._first_reveal = len(self._moves)
        self._moves.append(Move._trusted(kind, r, c, self._now() if when is None else when))
        self._changes.append(change)
        if not redoing:
            self._redo.clear()
        return result

    def _lay(
        self, g: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]
    ) -> NDArray[np.bool_]:
        """Lay the mines at the first reveal, keeping the rule's cells safe."""
        assert self._strategy is not None
        _, rows, cols = self._a.shape
        clicks = np.stack([r, c], axis=1)
        return place_at_clicks(
            self._strategy, 1, rows, cols, self.mine_count, self._first_click, clicks
        )

    # -- history --------------------------------------------------------------

    @_locked
    def undo(self) -> Move:
        """Take back the last move, exactly, and return it.

        The snapshot, ``mines_left``, the state, :attr:`moves` and
        :attr:`elapsed` are as they were before that move; a game that move
        won or lost is in progress again.  It costs O(cells the move
        changed), never a replay.  Under a first-click rule, undoing the
        first reveal keeps the mines it laid.

        Returns
        -------
        Move
            The move taken back; :meth:`redo` plays it again.

        Raises
        ------
        IllegalMoveError
            If there is no move to take back.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.reveal(0, 0)
        >>> game.state
        <GameState.LOST: 'lost'>
        >>> game.undo()  # doctest: +ELLIPSIS
        Move(kind='reveal', row=0, col=0, time=...)
        >>> game.state, game.moves
        (<GameState.IN_PROGRESS: 'in_progress'>, ())
        """
        if not self._moves:
            raise IllegalMoveError("nothing to undo: no move has been made")
        move = self._moves.pop()
        change = self._changes.pop()
        if change is None:
            rules.unflag(self._a, 0, move.row, move.col)
        else:
            rules.hide(self._a, 0, change.opened(), change.hit)
        if self._first_reveal == len(self._moves):
            self._first_reveal = None
        self._redo.append(move)
        return move

    @_locked
    def redo(self) -> Move:
        """Play the last move taken back again, with its recorded time, and return it.

        Returns
        -------
        Move
            The move played again.

        Raises
        ------
        IllegalMoveError
            If nothing was taken back, or a new move was made since.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.toggle_flag(0, 0)
        >>> move = game.undo()
        >>> game.redo() == move, game.snapshot().mines_left
        (True, 0)
        """
        if not self._redo:
            raise IllegalMoveError("nothing to redo: no move was undone since the last new move")
        move = self._redo[-1]
        self._play(move.kind, move.row, move.col, when=move.time, redoing=True)
        self._redo.pop()
        return move

    @_locked
    def copy(self) -> Game:
        """An independent game: its own arrays, moves, redo moves and lock.

        ``copy.copy``, ``copy.deepcopy`` and ``pickle`` give the same.  Moves
        made on the copy never touch this game, nor the reverse.

        Returns
        -------
        Game

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> twin = game.copy()
        >>> _ = twin.reveal(2, 2)
        >>> twin.state.name, game.state.name
        ('WON', 'IN_PROGRESS')
        """
        twin = Game.__new__(Game)
        twin._setup(
            self._a.copy(),
            first_click=self._first_click,
            strategy=strategy_for_copy(self._strategy, bool(self._a.placed[0])),
            created=self._created,
            start=self._start,
        )
        twin._moves = list(self._moves)
        twin._changes = list(self._changes)
        twin._redo = list(self._redo)
        twin._first_reveal = self._first_reveal
        return twin

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = dict(self.__dict__)
        del state["_lock"]
        state["_board"] = None  # remade on demand
        # Monotonic clocks differ between processes: keep the game's age.
        state["_created"] = time.monotonic() - self._created
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        age = state.pop("_created")
        self.__dict__.update(state)
        self._created = time.monotonic() - age
        self._lock = threading.Lock()

    @_locked
    def replay(self, upto: int | None = None) -> Game:
        """A new game with this game's first ``upto`` moves played again.

        The new game has the same layout (and first-click rule) and gets each
        move through the same rules, with its recorded time; its clock
        resumes from the last of them.  Use it to step through a lost game.

        Parameters
        ----------
        upto : int, optional
            How many moves, ``0 <= upto <= len(moves)``; all by default.

        Returns
        -------
        Game
            With no moves to redo.

        Raises
        ------
        InvalidBoardError
            If ``upto`` is out of range.
        TypeError
            If ``upto`` is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.reveal(0, 2); _ = game.reveal(0, 0)
        >>> game.state.name, game.replay(1).state.name, len(game.replay().moves)
        ('LOST', 'IN_PROGRESS', 2)
        """
        count = len(self._moves) if upto is None else check_int(upto, "upto")
        if not 0 <= count <= len(self._moves):
            raise InvalidBoardError(f"upto must be in 0..{len(self._moves)}, got {count}")
        moves = self._moves[:count]
        return self._rebuilt(moves, created=None)

    def _rebuilt(self, moves: list[Move], *, created: float | None) -> Game:
        """This game's layout and starting position with ``moves`` played on it."""
        a = self._a
        _, rows, cols = a.shape
        if a.placed[0]:
            fresh = GameArrays.laid(a.mines.copy(), a.counts.copy())
        else:
            fresh = GameArrays.blank(1, rows, cols, a.mine_count)
        return Game._from_moves(
            fresh,
            first_click=self._first_click,
            strategy=strategy_for_copy(self._strategy, bool(a.placed[0])),
            start=self._start,
            moves=moves,
            created=created,
        )

    @classmethod
    def _from_moves(
        cls,
        a: GameArrays,
        *,
        first_click: str | None,
        strategy: MinePlacementStrategy | None,
        moves: list[Move],
        start: tuple[NDArray[np.uint8], NDArray[np.uint8]] | None = None,
        created: float | None = None,
    ) -> Game:
        """A game on the state ``a`` (fresh, all hidden), after its start and ``moves``.

        Every move goes through the rules as it did the first time; one that
        they refuse raises as it would then.  Without ``created`` the clock
        resumes from the last move's time.
        """
        if start is not None:
            _, rows, cols = a.shape
            revealed, flagged = (
                np.unpackbits(bits, count=rows * cols).view(bool).reshape(rows, cols)
                for bits in start
            )
            a.revealed[0] = revealed
            a.flagged[0] = flagged
            a.hidden_safe[0] -= int(np.count_nonzero(revealed & ~a.mines[0]))
            a.flag_count[0] = int(np.count_nonzero(flagged))
            a.state[0] = _settled_state(a)
        game = cls.__new__(cls)
        if created is None:
            created = time.monotonic() - (moves[-1].time if moves else 0.0)
        game._setup(a, first_click=first_click, strategy=strategy, created=created, start=start)
        for move in moves:
            game._play(move.kind, move.row, move.col, when=move.time)
        return game

    # -- records --------------------------------------------------------------

    @_locked
    def _resume(self, age: float) -> None:
        """Set the clock so that the game is ``age`` seconds old now (after a load)."""
        self._created = time.monotonic() - age

    def to_dict(self) -> dict[str, Any]:
        """This game as a JSON-safe dict; see :func:`~numsweeper.save_game` for the format.

        Returns
        -------
        dict
            The game record: size, mines, first-click rule, strategy, moves
            and the state they lead to, all of JSON types.

        Raises
        ------
        InvalidBoardError
            If the mines are not laid yet and the strategy cannot be written
            down (only :class:`~numsweeper.RandomPlacement` and
            :class:`~numsweeper.FixedPlacement` can).

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> _ = game.reveal(1, 1)
        >>> d = game.to_dict()
        >>> d["format"], d["rows"], d["cols"], d["mine_positions"], d["moves"][0][:3]
        ('numsweeper-game', 2, 2, [[0, 0]], ['reveal', 1, 1])
        >>> ns.Game.from_dict(d).snapshot() == game.snapshot()
        True
        """
        from .records import game_to_dict

        return game_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Game:
        """The game a :meth:`to_dict` dict describes, its moves played and verified.

        Parameters
        ----------
        data : dict
            A game record, as :meth:`to_dict` returns (or parsed from a
            ``.json`` file :func:`~numsweeper.save_game` wrote).

        Returns
        -------
        Game
            A new game at the recorded position, its undo history the
            recorded moves.

        Raises
        ------
        InvalidGameFileError
            If the dict is not a valid game record, its board would not fit
            in memory while it loads (about 14 bytes per cell, 17 with a start
            position), or its moves do not reproduce its recorded state.

        Examples
        --------
        >>> import numsweeper as ns
        >>> ns.Game.from_dict({"format": "chess"})
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidGameFileError: not a numsweeper game: format is 'chess', ...
        """
        from .records import game_from_dict

        return game_from_dict(data)
