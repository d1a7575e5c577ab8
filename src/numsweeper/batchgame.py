"""Lock-step games: ``n`` games played as ``(n, rows, cols)`` arrays.

The rules are exactly :class:`~numsweeper.Game`'s, applied to many games per
call through the shared kernels.  Batched calls never raise for one game's
move; they return a :class:`MoveStatus` per game instead.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._kernels import adjacent_counts, flood_batch, visible_cells, visible_in_progress
from ._validate import (
    check_dims,
    check_first_click_fits,
    check_int,
    count_text,
    make_rng,
    preset_dims,
)
from .batch import BoardBatch, generate_boards
from .board import Board, read_only
from .errors import InvalidBoardError, OutOfBoundsError
from .game import Game, GameState
from .placement import FixedPlacement

__all__ = ["BatchGame", "MoveStatus"]

# Internal state codes, indexing _STATE_OBJECTS.
_IN_PROGRESS, _WON, _LOST = 0, 1, 2
_STATE_OBJECTS = np.array([GameState.IN_PROGRESS, GameState.WON, GameState.LOST], dtype=object)

# The 8 neighbour offsets of a cell, as (drow, dcol).
_OFFSETS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class MoveStatus(IntEnum):
    """Per-game outcome of one batched action.

    ``OK`` means the rules accepted the move (a reveal of a revealed cell and
    a chord that does nothing are accepted no-ops, as in
    :class:`~numsweeper.Game`).  The others mirror the errors ``Game`` would
    raise, and leave that game unchanged.

    Attributes
    ----------
    OK
        The move was applied.
    ILLEGAL
        :class:`~numsweeper.IllegalMoveError` in ``Game``: revealing a flag
        or flagging a revealed cell.
    GAME_OVER
        :class:`~numsweeper.GameOverError` in ``Game``: the game is WON or
        LOST.  Checked first, as ``Game`` does.
    OUT_OF_BOUNDS
        :class:`~numsweeper.OutOfBoundsError` in ``Game``.
    INACTIVE
        The game was masked out by ``active`` and did not move.

    Examples
    --------
    >>> import numsweeper as ns
    >>> ns.MoveStatus(3)
    <MoveStatus.OUT_OF_BOUNDS: 3>
    """

    OK = 0
    ILLEGAL = 1
    GAME_OVER = 2
    OUT_OF_BOUNDS = 3
    INACTIVE = 4


class BatchGame:
    """``n`` Minesweeper games of one size, played in lock-step.

    Every game owns a slice of stacked ``(n, rows, cols)`` arrays.  An action
    takes one cell per game (int arrays of shape ``(n,)``) and an optional
    ``active`` mask of the games that move, applies :class:`~numsweeper.Game`'s
    rules to all of them at once and returns one :class:`MoveStatus` per game.
    Floods of many games are found with one ``ndimage.label`` call over the
    stack; win checks use a per-game counter of hidden safe cells.

    Parameters
    ----------
    boards : BoardBatch
        The boards to play (copied), mines already laid; see
        :func:`~numsweeper.generate_boards`.  Use :meth:`new` for first-click
        rules.

    Raises
    ------
    TypeError
        If ``boards`` is not a :class:`~numsweeper.BoardBatch`.

    See Also
    --------
    Game : one game, with the same rules.

    Notes
    -----
    Besides five bytes per cell per game, a batch keeps a log of its
    accepted moves (about 24 bytes per move per game) so that
    ``batch[i]`` can rebuild game ``i`` through :class:`Game`: about 2.4 GB
    for a million games of a hundred moves.  :func:`~numsweeper.simulate`
    plays in chunks, so its memory stays bounded.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> games = ns.BatchGame.new(3, 9, 9, 10, seed=0, first_click="opening")
    >>> status = games.reveal(np.array([4, 0, 9]), np.array([4, 0, 0]))
    >>> status.tolist()
    [0, 0, 3]
    >>> [s.name for s in games.states]
    ['IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS']
    >>> games.visible.shape, games.visible.dtype
    ((3, 9, 9), dtype('int8'))
    >>> games[0].snapshot().cells.tolist() == games.visible[0].tolist()
    True
    """

    def __init__(self, boards: BoardBatch) -> None:
        if not isinstance(boards, BoardBatch):
            raise TypeError(f"BatchGame needs a BoardBatch, got {type(boards).__name__}")
        n, rows, cols = boards.mines.shape
        self._setup(n, rows, cols, boards.mine_count, None, None)
        self._mines[...] = boards.mines
        self._counts[...] = boards.counts
        self._placed[...] = True

    @classmethod
    def from_mines(cls, mines: ArrayLike) -> BatchGame:
        """Start games on given mine layouts.

        Parameters
        ----------
        mines : array_like of bool, shape (n, rows, cols)
            The layouts (copied); every board must hold the same number of
            mines and at least one safe cell.

        Returns
        -------
        BatchGame

        Raises
        ------
        InvalidBoardError
            If ``mines`` is not a 3-D bool array, or the boards hold different
            numbers of mines or no safe cell.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.from_mines([[[True, False]], [[False, True]]])
        >>> games.reveal(0, 0).tolist(), [s.name for s in games.states]
        ([0, 0], ['LOST', 'WON'])
        """
        layouts = np.asarray(mines)
        if layouts.dtype != bool or layouts.ndim != 3:
            raise InvalidBoardError(
                f"mines must be a 3-D bool array, got {layouts.dtype} {layouts.shape}"
            )
        n, rows, cols = layouts.shape
        counts = np.count_nonzero(layouts, axis=(1, 2))
        if n and (counts != counts[0]).any():
            i = int(np.argmax(counts != counts[0]))
            raise InvalidBoardError(
                f"every board must hold the same number of mines: board 0 has "
                f"{int(counts[0])}, board {i} has {int(counts[i])}"
            )
        check_dims(rows, cols, int(counts[0]) if n else 0)
        game = cls.__new__(cls)
        game._setup(n, rows, cols, int(counts[0]) if n else 0, None, None)
        game._mines[...] = layouts
        game._counts[...] = adjacent_counts(game._mines)
        game._placed[...] = True
        return game

    @classmethod
    def new(
        cls,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        seed: Any = None,
        first_click: str | None = None,
    ) -> BatchGame:
        """Start ``n`` games on new ``rows`` x ``cols`` boards with ``mines`` mines.

        Parameters
        ----------
        n : int
            Number of games, ``n >= 0``.
        rows, cols, mines : int
            As for :meth:`Game.new <numsweeper.Game.new>`.
        seed : None, int, SeedSequence or Generator, optional
            Seed of every placement in this batch.  The same seed and the same
            sequence of calls give the same games.
        first_click : {None, 'safe', 'opening'}
            ``None`` lays all mines now.  With a rule, each game's mines are
            laid at that game's first reveal, keeping the clicked cell
            (``'safe'``) or the clicked cell and its neighbours
            (``'opening'``) mine-free.  The games making their first reveal
            in one call are laid out together.

        Returns
        -------
        BatchGame

        Raises
        ------
        InvalidBoardError
            For bad dimensions or counts, too many mines for the rule, or a
            negative ``seed``.
        ValueError
            For an unknown ``first_click``.
        TypeError
            If a size is not an integer, or ``seed`` is of a kind numpy
            cannot seed from.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(1000, 16, 30, 99, seed=1)
        >>> len(games), games.mine_count
        (1000, 99)
        """
        n = check_int(n, "n")
        if n < 0:
            raise InvalidBoardError(f"n must be >= 0, got {n}")
        rows, cols, mines = check_dims(rows, cols, mines)
        check_first_click_fits(rows, cols, mines, first_click)
        rng = make_rng(seed)
        if first_click is None:
            return cls(generate_boards(n, rows, cols, mines, seed=rng))
        game = cls.__new__(cls)
        game._setup(n, rows, cols, mines, first_click, rng)
        return game

    @classmethod
    def from_preset(
        cls, name: str, n: int, *, seed: Any = None, first_click: str | None = None
    ) -> BatchGame:
        """Start ``n`` games on a named preset board.

        Parameters
        ----------
        name : {'beginner', 'intermediate', 'expert'}
            The board size, as in :meth:`Game.from_preset
            <numsweeper.Game.from_preset>`.
        n : int
            Number of games.
        seed, first_click
            As in :meth:`new`.

        Returns
        -------
        BatchGame

        Raises
        ------
        ValueError
            For an unknown preset.

        Examples
        --------
        >>> import numsweeper as ns
        >>> ns.BatchGame.from_preset("expert", 5, seed=0).visible.shape
        (5, 16, 30)
        """
        rows, cols, mines = preset_dims(name)
        return cls.new(n, rows, cols, mines, seed=seed, first_click=first_click)

    def _setup(
        self,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        first_click: str | None,
        rng: np.random.Generator | None,
    ) -> None:
        shape = (n, rows, cols)
        self._shape = shape
        self._mine_count = mines
        self._first_click = first_click
        self._rng = rng
        self._mines = np.zeros(shape, dtype=bool)  # (n, rows, cols)
        self._counts = np.zeros(shape, dtype=np.int8)  # (n, rows, cols)
        self._revealed = np.zeros(shape, dtype=bool)  # (n, rows, cols)
        self._flagged = np.zeros(shape, dtype=bool)  # (n, rows, cols)
        self._exploded = np.zeros(shape, dtype=bool)  # (n, rows, cols)
        self._placed = np.zeros(n, dtype=bool)  # (n,) mines laid
        self._state = np.zeros(n, dtype=np.int8)  # (n,) _IN_PROGRESS/_WON/_LOST
        self._hidden_safe = np.full(n, rows * cols - mines, dtype=np.int64)  # (n,)
        self._flag_count = np.zeros(n, dtype=np.int64)  # (n,)
        self._clicks = np.zeros(n, dtype=np.int64)  # (n,) accepted actions
        # Accepted moves, for replaying one game through Game in __getitem__:
        # (action, game indices, rows, cols), all arrays of the same length.
        self._log: list[tuple[str, NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]] = []

    # -- read-only state ------------------------------------------------------

    def __len__(self) -> int:
        return self._shape[0]

    @property
    def rows(self) -> int:
        """Rows of each board."""
        return self._shape[1]

    @property
    def cols(self) -> int:
        """Columns of each board."""
        return self._shape[2]

    @property
    def mine_count(self) -> int:
        """Mines on each board (known before they are laid)."""
        return self._mine_count

    @property
    def first_click(self) -> str | None:
        """The first-click rule, ``None``, ``'safe'`` or ``'opening'``."""
        return self._first_click

    @property
    def states(self) -> NDArray[np.object_]:
        """Object array ``(n,)`` of :class:`~numsweeper.GameState` members.

        Compare elementwise, ``games.states == ns.GameState.WON``, or use the
        bool masks :attr:`in_progress`, :attr:`won` and :attr:`lost`, which
        are cheaper.
        """
        return _STATE_OBJECTS[self._state]

    @property
    def in_progress(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games still IN_PROGRESS."""
        return np.equal(self._state, _IN_PROGRESS)

    @property
    def won(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games WON."""
        return np.equal(self._state, _WON)

    @property
    def lost(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games LOST."""
        return np.equal(self._state, _LOST)

    @property
    def clicks(self) -> NDArray[np.int64]:
        """Int ``(n,)``: actions each game accepted (status OK), of any kind."""
        return self._clicks.copy()

    @property
    def mines_left(self) -> NDArray[np.int64]:
        """Int ``(n,)``: mines minus flags (negative when over-flagged)."""
        return self._mine_count - self._flag_count

    @property
    def hidden_safe(self) -> NDArray[np.int64]:
        """Int ``(n,)``: safe cells still hidden; a game is won when it is 0."""
        return self._hidden_safe.copy()

    @property
    def revealed_count(self) -> NDArray[np.int64]:
        """Int ``(n,)``: safe cells revealed so far."""
        return self.rows * self.cols - self._mine_count - self._hidden_safe

    @property
    def placed(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games whose mines are laid."""
        return self._placed.copy()

    @property
    def mines(self) -> NDArray[np.bool_]:
        """Read-only bool ``(n, rows, cols)`` view of the layouts.

        All False for a game whose first-click rule has not laid mines yet.
        """
        return read_only(self._mines)

    @property
    def counts(self) -> NDArray[np.int8]:
        """Read-only int8 ``(n, rows, cols)`` view of the adjacent-mine counts."""
        return read_only(self._counts)

    @property
    def revealed(self) -> NDArray[np.bool_]:
        """Read-only bool ``(n, rows, cols)`` view of the revealed cells."""
        return read_only(self._revealed)

    @property
    def flagged(self) -> NDArray[np.bool_]:
        """Read-only bool ``(n, rows, cols)`` view of the flags."""
        return read_only(self._flagged)

    @property
    def visible(self) -> NDArray[np.int8]:
        """Int8 ``(n, rows, cols)``: what each player sees.

        The encoding of :class:`~numsweeper.Snapshot`: ``0..8`` for a revealed
        count, else ``HIDDEN``, ``FLAG``, ``MINE``, ``EXPLODED`` or
        ``WRONG_FLAG``.  A new array on each access.
        """
        return self.visible_of(np.arange(len(self)))

    def visible_of(self, games: ArrayLike) -> NDArray[np.int8]:
        """Visible cells of some games only: cheaper than ``visible[games]``.

        Parameters
        ----------
        games : array_like of int, shape (k,)
            Game indices.

        Returns
        -------
        ndarray of int8, shape (k, rows, cols)

        Raises
        ------
        OutOfBoundsError
            If an index is negative or past the last game.
        TypeError
            If the indices are not integers.
        InvalidBoardError
            If ``games`` is not one-dimensional.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(4, 9, 9, 10, seed=0)
        >>> games.visible_of([1, 3]).shape
        (2, 9, 9)
        """
        g = np.asarray(games)
        if g.ndim != 1:
            raise InvalidBoardError(f"games must be a 1-D array of indices, got shape {g.shape}")
        if g.size and (g.dtype == bool or not np.issubdtype(g.dtype, np.integer)):
            raise TypeError(f"games must hold integers, got dtype {g.dtype}")
        g = g.astype(np.intp)
        bad = (g < 0) | (g >= len(self))
        if bad.any():
            raise OutOfBoundsError(
                f"game index {int(g[bad][0])} is off the batch (0..{len(self) - 1}; "
                "negative indices are not wrapped)"
            )
        return self._visible_of(g)

    def _visible_of(self, g: NDArray[np.intp]) -> NDArray[np.int8]:
        """:meth:`visible_of` without the checks (``g`` holds valid indices)."""
        state = self._state[g]
        if not state.any():
            # All in progress: nothing about mines shows, so skip gathering them.
            flagged = self._flagged[g] if self._flag_count[g].any() else None
            return visible_in_progress(self._counts[g], self._revealed[g], flagged)
        return visible_cells(
            self._counts[g],
            self._revealed[g],
            self._flagged[g],
            self._mines[g],
            self._exploded[g],
            lost=state == _LOST,
            won=state == _WON,
        )

    def _repr_html_(self) -> str:
        from .render import BATCH_SHOW, batch_html

        first = np.arange(min(len(self), BATCH_SHOW))
        return batch_html(
            self.visible_of(first),
            states=list(self.states[first]),
            mines_left=self.mines_left[first],
            total=len(self),
        )

    def __repr__(self) -> str:
        return (
            f"<BatchGame of {count_text(len(self), 'game')} {self.rows}x{self.cols}, "
            f"{count_text(self._mine_count, 'mine')}: "
            f"{int(np.count_nonzero(self.in_progress))} in progress, "
            f"{int(np.count_nonzero(self.won))} won, {int(np.count_nonzero(self.lost))} lost>"
        )

    def __getitem__(self, index: int) -> Game:
        """Game ``index`` as an independent :class:`~numsweeper.Game`.

        The game is rebuilt through the public ``Game`` API by replaying this
        game's accepted moves on its board, so its snapshot is what ``Game``
        shows for the same moves.  A game still waiting for its first click
        comes back with a strategy of its own (its mines are not laid yet).

        Raises
        ------
        IndexError
            If ``index`` is out of range.
        TypeError
            If ``index`` is not an integer.
        """
        i = check_int(index, "index")
        if not -len(self) <= i < len(self):
            raise OutOfBoundsError(f"game index {i} out of range for a batch of {len(self)}")
        i %= len(self)
        rows, cols = self.rows, self.cols
        if self._first_click is None:
            game = Game(Board(self._mines[i]))
        elif self._placed[i]:
            game = Game.new(
                rows,
                cols,
                self._mine_count,
                strategy=FixedPlacement(self._mines[i]),
                first_click=self._first_click,
            )
        else:
            game = Game.new(rows, cols, self._mine_count, first_click=self._first_click)
        for action, games, rs, cs in self._log:
            hits = np.flatnonzero(games == i)
            for j in hits.tolist():
                getattr(game, action)(int(rs[j]), int(cs[j]))
        return game

    # -- argument checks ------------------------------------------------------

    def _targets(
        self, rows: ArrayLike, cols: ArrayLike, active: ArrayLike | None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        n = len(self)
        arrays = []
        for name, value in (("rows", rows), ("cols", cols)):
            array = np.asarray(value)
            if array.size == 0:  # [] holds no values, whatever numpy guesses for its dtype
                array = array.astype(np.int64)
            if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
                raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
            if array.ndim == 0:
                array = np.broadcast_to(array, (n,))
            if array.shape != (n,):
                raise InvalidBoardError(f"{name} must have shape ({n},), got {array.shape}")
            arrays.append(array.astype(np.int64))
        if active is None:
            mask = np.ones(n, dtype=bool)
        else:
            mask = np.asarray(active)
            if mask.dtype != bool or mask.shape != (n,):
                raise TypeError(
                    f"active must be a bool array of shape ({n},), got {mask.dtype} {mask.shape}"
                )
        return arrays[0], arrays[1], mask

    def _screen(
        self, r: NDArray[np.int64], c: NDArray[np.int64], active: NDArray[np.bool_]
    ) -> tuple[NDArray[np.int8], NDArray[np.intp]]:
        """Statuses for inactive, finished and off-board games; the rest go on."""
        status = np.full(len(self), MoveStatus.OK, dtype=np.int8)
        status[~active] = MoveStatus.INACTIVE
        over = active & (self._state != _IN_PROGRESS)
        status[over] = MoveStatus.GAME_OVER
        off = active & ~over & ((r < 0) | (r >= self.rows) | (c < 0) | (c >= self.cols))
        status[off] = MoveStatus.OUT_OF_BOUNDS
        return status, np.flatnonzero(status == MoveStatus.OK)

    def _accept(
        self, action: str, games: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]
    ) -> None:
        self._clicks[games] += 1
        if games.size:
            self._log.append((action, games, r, c))

    # -- actions --------------------------------------------------------------

    def reveal(
        self, rows: ArrayLike, cols: ArrayLike, *, active: ArrayLike | None = None
    ) -> NDArray[np.int8]:
        """Reveal one cell per game; zero-count cells flood their opening.

        Parameters
        ----------
        rows, cols : array_like of int, shape (n,) or scalar
            The cell of each game; a scalar applies to every game.  Negative
            values are off the board, never wrapped.
        active : array_like of bool, shape (n,), optional
            Games that move; all by default.

        Returns
        -------
        ndarray of int8, shape (n,)
            :class:`MoveStatus` codes.  Revealing a mine loses that game;
            revealing the last safe cell wins it.

        Raises
        ------
        TypeError
            If ``rows``, ``cols`` or ``active`` has the wrong dtype.
        ValueError
            If ``rows`` or ``cols`` has the wrong shape.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> layouts = np.array([[[0, 0, 0, 1]], [[0, 1, 0, 0]]], dtype=bool)
        >>> games = ns.BatchGame.from_mines(layouts)
        >>> games.reveal(np.array([0, 0]), np.array([0, 1])).tolist()
        [0, 0]
        >>> [s.name for s in games.states]
        ['WON', 'LOST']
        >>> games.reveal(0, 0).tolist() == [ns.MoveStatus.GAME_OVER] * 2
        True
        """
        r, c, active_ = self._targets(rows, cols, active)
        status, g = self._screen(r, c, active_)
        rg, cg = r[g], c[g]
        flagged = self._flagged[g, rg, cg]
        status[g[flagged]] = MoveStatus.ILLEGAL
        g, rg, cg = g[~flagged], rg[~flagged], cg[~flagged]
        self._accept("reveal", g, rg, cg)
        fresh = ~self._placed[g]
        if fresh.any():
            self._place(g[fresh], rg[fresh], cg[fresh])
        hidden = ~self._revealed[g, rg, cg]
        g, rg, cg = g[hidden], rg[hidden], cg[hidden]
        mine = self._mines[g, rg, cg]
        self._explode(g[mine], rg[mine], cg[mine])
        safe = ~mine
        self._open(g[safe], rg[safe], cg[safe])
        self._settle(g)
        return status

    def toggle_flag(
        self, rows: ArrayLike, cols: ArrayLike, *, active: ArrayLike | None = None
    ) -> NDArray[np.int8]:
        """Flag a hidden cell, or unflag a flagged one, in each game.

        Parameters
        ----------
        rows, cols : array_like of int, shape (n,) or scalar
            The cell of each game.
        active : array_like of bool, shape (n,), optional
            Games that move; all by default.

        Returns
        -------
        ndarray of int8, shape (n,)
            :class:`MoveStatus` codes; flagging a revealed cell is ILLEGAL.

        Raises
        ------
        TypeError
            If ``rows``, ``cols`` or ``active`` has the wrong dtype.
        ValueError
            If ``rows`` or ``cols`` has the wrong shape.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(3, 9, 9, 10, seed=0)
        >>> games.toggle_flag(0, 0).tolist(), games.mines_left.tolist()
        ([0, 0, 0], [9, 9, 9])
        """
        r, c, active_ = self._targets(rows, cols, active)
        status, g = self._screen(r, c, active_)
        rg, cg = r[g], c[g]
        revealed = self._revealed[g, rg, cg]
        status[g[revealed]] = MoveStatus.ILLEGAL
        g, rg, cg = g[~revealed], rg[~revealed], cg[~revealed]
        self._accept("toggle_flag", g, rg, cg)
        now = ~self._flagged[g, rg, cg]
        self._flagged[g, rg, cg] = now
        self._flag_count[g] += np.where(now, 1, -1)
        return status

    def chord(
        self, rows: ArrayLike, cols: ArrayLike, *, active: ArrayLike | None = None
    ) -> NDArray[np.int8]:
        """Chord in each game: open the neighbours of a number whose flags match it.

        A revealed number with exactly that many adjacent flags reveals each
        hidden unflagged neighbour (floods included); a wrong flag makes a
        neighbouring mine explode.  Anything else is an accepted no-op, as in
        :meth:`Game.chord <numsweeper.Game.chord>`.

        Parameters
        ----------
        rows, cols : array_like of int, shape (n,) or scalar
            The cell of each game.
        active : array_like of bool, shape (n,), optional
            Games that move; all by default.

        Returns
        -------
        ndarray of int8, shape (n,)
            :class:`MoveStatus` codes.

        Raises
        ------
        TypeError
            If ``rows``, ``cols`` or ``active`` has the wrong dtype.
        ValueError
            If ``rows`` or ``cols`` has the wrong shape.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.from_mines([[[True, False, False]]])
        >>> games.reveal(0, 1).tolist(), games.toggle_flag(0, 0).tolist()
        ([0], [0])
        >>> games.chord(0, 1).tolist(), games.states[0].name
        ([0], 'WON')
        """
        r, c, active_ = self._targets(rows, cols, active)
        status, g = self._screen(r, c, active_)
        rg, cg = r[g], c[g]
        self._accept("chord", g, rg, cg)
        number = self._counts[g, rg, cg]
        live = self._revealed[g, rg, cg] & (number > 0)
        g, rg, cg, number = g[live], rg[live], cg[live], number[live]
        flags = np.zeros(g.size, dtype=np.int8)
        owners, target_rows, target_cols = [], [], []
        for dr, dc in _OFFSETS:
            tr, tc = rg + dr, cg + dc
            inside = (tr >= 0) & (tr < self.rows) & (tc >= 0) & (tc < self.cols)
            j, tr, tc = np.flatnonzero(inside), tr[inside], tc[inside]
            flagged = self._flagged[g[j], tr, tc]
            flags[j] += flagged
            target = ~flagged & ~self._revealed[g[j], tr, tc]
            owners.append(j[target])
            target_rows.append(tr[target])
            target_cols.append(tc[target])
        satisfied = flags == number
        j = np.concatenate(owners)
        keep = satisfied[j]
        tg = g[j[keep]]
        tr = np.concatenate(target_rows)[keep]
        tc = np.concatenate(target_cols)[keep]
        mine = self._mines[tg, tr, tc]
        self._explode(tg[mine], tr[mine], tc[mine])
        safe = ~mine
        self._open(tg[safe], tr[safe], tc[safe])
        self._settle(g[satisfied])
        return status

    # -- rule steps -----------------------------------------------------------

    def _place(self, g: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]) -> None:
        """Lay the mines of games making their first reveal at ``(r, c)``."""
        assert self._rng is not None
        boards = generate_boards(
            g.size,
            self.rows,
            self.cols,
            self._mine_count,
            seed=self._rng,
            first_click=self._first_click,
            click=np.stack([r, c], axis=1),
        )
        self._mines[g] = boards.mines
        self._counts[g] = boards.counts
        self._placed[g] = True

    def _explode(self, g: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]) -> None:
        self._exploded[g, r, c] = True
        self._state[g] = _LOST

    def _open(self, g: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]) -> None:
        """Reveal hidden, unflagged safe cells, several per game allowed."""
        zero = self._counts[g, r, c] == 0
        if zero.any():
            boards, which = np.unique(g[zero], return_inverse=True)
            opened = ~(self._mines[boards] | self._revealed[boards])
            if self._flag_count[boards].any():
                opened &= ~self._flagged[boards]
            region = flood_batch(self._counts[boards], opened, which, r[zero], c[zero])
            self._revealed[boards] |= region
            self._hidden_safe[boards] -= np.count_nonzero(region, axis=(1, 2))
        g, r, c = g[~zero], r[~zero], c[~zero]
        fresh = ~self._revealed[g, r, c]  # a flood may already have got it
        g, r, c = g[fresh], r[fresh], c[fresh]
        self._revealed[g, r, c] = True
        self._hidden_safe -= np.bincount(g, minlength=len(self))

    def _settle(self, g: NDArray[np.intp]) -> None:
        """Win the games in ``g`` that are still in progress with no hidden safe cell."""
        done = (self._state[g] == _IN_PROGRESS) & (self._hidden_safe[g] == 0)
        self._state[g[done]] = _WON
