"""Lock-step games: ``n`` games played as ``(n, rows, cols)`` arrays.

A :class:`BatchGame` is the rules core (:mod:`numsweeper._rules`) with a
strategy, a clock and a compact record of every game's moves: the rules are
exactly :class:`~numsweeper.Game`'s, because both play through the same
functions.  Batched calls never raise for one game's move; they return a
:class:`MoveStatus` per game instead.
"""

from __future__ import annotations

import copy
import pickle
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _rules as rules
from ._kernels import visible_cells, visible_in_progress
from ._rules import IN_PROGRESS, LOST, WON, GameArrays, MoveStatus
from ._validate import (
    as_array,
    check_at_least,
    check_board,
    check_dims,
    check_fits,
    check_int,
    check_mask,
    count_text,
    preset_dims,
    short_repr,
)
from .batch import BoardBatch, _strategy
from .board import read_only
from .errors import InvalidBoardError, InvalidTypeError, OutOfBoundsError
from .game import Game, GameState, Move
from .placement import (
    MinePlacementStrategy,
    RandomPlacement,
    check_strategy,
    place_at_clicks,
    place_boards,
    strategy_for_copy,
)

__all__ = ["BatchGame", "MoveStatus"]

_STATE_OBJECTS = np.array([GameState.IN_PROGRESS, GameState.WON, GameState.LOST], dtype=object)

# Log entries kept beyond twice the live ones before the log is compacted.
_SLACK = 1 << 16


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
    strategy : MinePlacementStrategy, optional
        Deals the boards of :meth:`reset`; an unseeded
        :class:`~numsweeper.RandomPlacement` by default.

    Raises
    ------
    InvalidTypeError
        If ``boards`` is not a :class:`~numsweeper.BoardBatch`, or
        ``strategy`` is not a strategy instance.

    See Also
    --------
    Game : one game, with the same rules.

    Notes
    -----
    Besides four bytes per cell per game, a batch records every game's
    accepted moves (12 bytes per move per game, plus the time of each call),
    so that ``batch[i]`` is game ``i`` with exactly its moves: about 1.2 GB
    for a million games of a hundred moves.  A :meth:`reset` forgets the
    moves of the games it deals again.  :func:`~numsweeper.simulate` plays
    in chunks, so its memory stays bounded.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> games = ns.BatchGame.new(3, 9, 9, 10, seed=0, first_click="opening")
    >>> len(games), games.rows, games.cols, games.mine_count, games.first_click
    (3, 9, 9, 10, 'opening')
    >>> games.placed.tolist(), games.mines_left.tolist(), games.hidden_safe.tolist()
    ([False, False, False], [10, 10, 10], [71, 71, 71])
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

    def __init__(
        self, boards: BoardBatch, *, strategy: MinePlacementStrategy | None = None
    ) -> None:
        if not isinstance(boards, BoardBatch):
            raise InvalidTypeError(f"BatchGame needs a BoardBatch, got {type(boards).__name__}")
        self._setup(
            GameArrays.laid(boards.mines.copy(), boards.counts.copy()),
            first_click=None,
            strategy=_dealer(strategy),
        )

    @classmethod
    def from_mines(
        cls, mines: ArrayLike, *, strategy: MinePlacementStrategy | None = None
    ) -> BatchGame:
        """Start games on given mine layouts.

        Parameters
        ----------
        mines : array_like of bool, shape (n, rows, cols)
            The layouts (copied); every board must hold the same number of
            mines and at least one safe cell.
        strategy : MinePlacementStrategy, optional
            Deals the boards of :meth:`reset`, as in ``BatchGame(boards)``.

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
        layouts = as_array(mines, "mines")
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
        game._setup(
            GameArrays.laid(np.array(layouts, dtype=bool, order="C")),
            first_click=None,
            strategy=_dealer(strategy),
        )
        return game

    @classmethod
    def new(
        cls,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        strategy: MinePlacementStrategy | None = None,
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
        strategy : MinePlacementStrategy, optional
            Lays every board of this batch, those of :meth:`reset` included,
            through its batched :meth:`~numsweeper.MinePlacementStrategy.place_batch`.
            Default: ``RandomPlacement(seed)``.
        seed : None, int, SeedSequence or Generator, optional
            Seed of the default strategy; give ``strategy`` or ``seed``, not
            both.  The same seed and the same sequence of calls give the same
            games.
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
            If a size is not an integer, both ``strategy`` and ``seed`` are
            given, ``strategy`` is not a strategy, or ``seed`` is of a kind
            numpy cannot seed from.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(1000, 16, 30, 99, seed=1)
        >>> len(games), games.mine_count
        (1000, 99)
        """
        n = check_at_least(n, "n", 0)
        rows, cols, mines, first_click = check_board(rows, cols, mines, first_click)
        check_fits(n, rows, cols, 4, "game")  # (mines, counts, revealed, flagged)
        dealer = _strategy(strategy, seed)
        if first_click is None:
            a = GameArrays.laid(place_boards(dealer, n, rows, cols, mines))
        else:
            a = GameArrays.blank(n, rows, cols, mines)
        game = cls.__new__(cls)
        game._setup(a, first_click=first_click, strategy=dealer)
        return game

    @classmethod
    def from_preset(
        cls,
        name: str,
        n: int,
        *,
        strategy: MinePlacementStrategy | None = None,
        seed: Any = None,
        first_click: str | None = None,
    ) -> BatchGame:
        """Start ``n`` games on a named preset board.

        Parameters
        ----------
        name : {'beginner', 'intermediate', 'expert'}
            The board size, as in :meth:`Game.from_preset
            <numsweeper.Game.from_preset>`.
        n : int
            Number of games.
        strategy, seed, first_click
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
        return cls.new(n, rows, cols, mines, strategy=strategy, seed=seed, first_click=first_click)

    def _setup(
        self, a: GameArrays, *, first_click: str | None, strategy: MinePlacementStrategy
    ) -> None:
        self._a = a
        self._first_click = first_click
        self._strategy = strategy
        self._created = time.monotonic()
        # Accepted moves, one entry per call that moved some game: (kind,
        # time, games, rows, cols), the arrays int32 and of one length.  Game
        # i's moves are its entries from _since[i] on (its last deal).
        self._log: list[tuple[str, float, NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]]
        self._log = []
        self._logged = 0  # moves in the log, over all games
        self._since = np.zeros(a.shape[0], dtype=np.int64)  # (n,)

    # -- read-only state ------------------------------------------------------

    def __len__(self) -> int:
        """Number of games, ``n``.

        Examples
        --------
        >>> import numsweeper as ns
        >>> len(ns.BatchGame.new(4, 9, 9, 10, seed=0))
        4
        """
        return self._a.shape[0]

    @property
    def rows(self) -> int:
        """Rows of each board (int)."""
        return self._a.shape[1]

    @property
    def cols(self) -> int:
        """Columns of each board (int)."""
        return self._a.shape[2]

    @property
    def mine_count(self) -> int:
        """Mines on each board (int; known before they are laid)."""
        return self._a.mine_count

    @property
    def strategy(self) -> MinePlacementStrategy:
        """The :class:`~numsweeper.MinePlacementStrategy` that lays this batch's boards."""
        return self._strategy

    @property
    def first_click(self) -> str | None:
        """The first-click rule (str or None): ``None``, ``'safe'`` or ``'opening'``."""
        return self._first_click

    @property
    def states(self) -> NDArray[np.object_]:
        """Object array ``(n,)`` of :class:`~numsweeper.GameState` members.

        Compare elementwise, ``games.states == ns.GameState.WON``, or use the
        bool masks :attr:`in_progress`, :attr:`won` and :attr:`lost`, which
        are cheaper.
        """
        return _STATE_OBJECTS[self._a.state]

    @property
    def in_progress(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games still IN_PROGRESS."""
        return np.equal(self._a.state, IN_PROGRESS)

    @property
    def won(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games WON."""
        return np.equal(self._a.state, WON)

    @property
    def lost(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games LOST."""
        return np.equal(self._a.state, LOST)

    @property
    def clicks(self) -> NDArray[np.int64]:
        """Int ``(n,)``: actions each game accepted (status OK), of any kind."""
        return self._a.clicks.copy()

    @property
    def mines_left(self) -> NDArray[np.int64]:
        """Int ``(n,)``: mines minus flags (negative when over-flagged)."""
        return self._a.mine_count - self._a.flag_count

    @property
    def hidden_safe(self) -> NDArray[np.int64]:
        """Int ``(n,)``: safe cells still hidden; a game is won when it is 0."""
        return self._a.hidden_safe.copy()

    @property
    def revealed_count(self) -> NDArray[np.int64]:
        """Int ``(n,)``: safe cells revealed so far."""
        return self.rows * self.cols - self._a.mine_count - self._a.hidden_safe

    @property
    def placed(self) -> NDArray[np.bool_]:
        """Bool ``(n,)``: games whose mines are laid."""
        return self._a.placed.copy()

    @property
    def mines(self) -> NDArray[np.bool_]:
        """Read-only bool ``(n, rows, cols)`` view of the layouts.

        All False for a game whose first-click rule has not laid mines yet.
        """
        return read_only(self._a.mines)

    @property
    def counts(self) -> NDArray[np.int8]:
        """Read-only int8 ``(n, rows, cols)`` view of the adjacent-mine counts."""
        return read_only(self._a.counts)

    @property
    def revealed(self) -> NDArray[np.bool_]:
        """Read-only bool ``(n, rows, cols)`` view of the revealed cells.

        A revealed mine is one a LOST game uncovered.
        """
        return read_only(self._a.revealed)

    @property
    def flagged(self) -> NDArray[np.bool_]:
        """Read-only bool ``(n, rows, cols)`` view of the flags."""
        return read_only(self._a.flagged)

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
        original = as_array(games, "games")
        g = _integers(original)  # (integers past int64: off the batch, like any other)
        if g.ndim != 1:
            raise InvalidBoardError(f"games must be a 1-D array of indices, got shape {g.shape}")
        if g.size and (g.dtype == bool or not np.issubdtype(g.dtype, np.integer)):
            raise InvalidTypeError(f"games must hold integers, got dtype {g.dtype}")
        bad = (g < 0) | (g >= len(self))
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise OutOfBoundsError(
                f"game index {short_repr(int(original[first]))} is off the "
                f"batch (0..{len(self) - 1}; negative indices are not wrapped)"
            )
        return self._visible_of(g.astype(np.intp))

    def _visible_of(self, g: NDArray[np.intp]) -> NDArray[np.int8]:
        """:meth:`visible_of` without the checks (``g`` holds valid indices)."""
        a = self._a
        state = a.state[g]
        playing = state == IN_PROGRESS
        # Games in progress show no mine: their codes are cheap arithmetic, so
        # only the finished ones pay for the masked assignments.
        flagged = a.flagged[g] if a.flag_count[g].any() else None
        out = visible_in_progress(a.counts[g], a.revealed[g], flagged)
        if not playing.all():
            over = np.flatnonzero(~playing)
            done = g[over]
            out[over] = visible_cells(
                a.counts[done],
                a.revealed[done],
                a.flagged[done],
                a.mines[done],
                lost=state[over] == LOST,
                won=state[over] == WON,
            )
        return out

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
            f"{count_text(self.mine_count, 'mine')}: "
            f"{int(np.count_nonzero(self.in_progress))} in progress, "
            f"{int(np.count_nonzero(self.won))} won, {int(np.count_nonzero(self.lost))} lost>"
        )

    def __getitem__(self, index: int) -> Game:
        """Game ``index`` as an independent :class:`~numsweeper.Game`.

        The game is rebuilt from this batch's records: its board, and its
        moves since it was last dealt played again through ``Game``'s rules
        with their recorded times, so its :attr:`~numsweeper.Game.moves` are
        exactly the moves it received here.  A game still waiting for its
        first click comes back with a copy of the batch's strategy (its mines
        are not laid yet).

        Parameters
        ----------
        index : int
            Which game, ``-n <= index < n`` (negative from the end).

        Returns
        -------
        Game
            A new game; playing it leaves the batch as it was.

        Raises
        ------
        OutOfBoundsError
            If ``index`` is not in ``-n..n-1``.
        InvalidTypeError
            If ``index`` is not an integer.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(2, 9, 9, 10, seed=0, first_click="safe")
        >>> _ = games.reveal([4, 0], [4, 0]); _ = games.toggle_flag(0, 8, active=[False, True])
        >>> [(m.kind, m.row, m.col) for m in games[1].moves]
        [('reveal', 0, 0), ('flag', 0, 8)]
        """
        i = check_int(index, "index")
        if not -len(self) <= i < len(self):
            raise OutOfBoundsError(f"game index {i} out of range for a batch of {len(self)}")
        i %= len(self)
        a = self._a
        if a.placed[i]:
            fresh = GameArrays.laid(a.mines[i : i + 1].copy(), a.counts[i : i + 1].copy())
        else:
            fresh = GameArrays.blank(1, self.rows, self.cols, a.mine_count)
        return Game._from_moves(
            fresh,
            first_click=self._first_click,
            strategy=strategy_for_copy(self._strategy, bool(a.placed[i])),
            moves=self._moves_of(i),
            created=self._created,
        )

    def _moves_of(self, i: int) -> list[Move]:
        """Game ``i``'s moves since its last deal, from the log."""
        moves = []
        for kind, when, games, rows, cols in self._log[int(self._since[i]) :]:
            j = int(np.searchsorted(games, i))  # games are in increasing order
            if j < len(games) and games[j] == i:
                moves.append(Move(kind, int(rows[j]), int(cols[j]), when))
        return moves

    # -- argument checks ------------------------------------------------------

    def _targets(
        self, rows: ArrayLike, cols: ArrayLike, active: ArrayLike | None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.intp]]:
        """Checked ``rows`` and ``cols`` of every game, and the games that move."""
        n = len(self)
        arrays = []
        for name, value in (("rows", rows), ("cols", cols)):
            array = as_array(value, name)
            if array.size == 0:  # [] holds no values, whatever numpy guesses for its dtype
                array = array.astype(np.int64)
            array = _integers(array)  # (integers past int64: off the board, like any other)
            if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
                raise InvalidTypeError(f"{name} must hold integers, got dtype {array.dtype}")
            if array.ndim == 0:
                array = np.broadcast_to(array, (n,))
            if array.shape != (n,):
                raise InvalidBoardError(f"{name} must have shape ({n},), got {array.shape}")
            arrays.append(array.astype(np.int64))
        return arrays[0], arrays[1], self._games(active, "active")

    def _games(self, mask: ArrayLike | None, name: str) -> NDArray[np.intp]:
        """The indices a bool ``(n,)`` mask selects; all games for None."""
        n = len(self)
        if mask is None:
            return np.arange(n)
        return np.flatnonzero(check_mask(mask, (n,), name))

    def _apply(
        self,
        kind: str,
        outcome: NDArray[np.int8],
        g: NDArray[np.intp],
        r: NDArray[np.int64],
        c: NDArray[np.int64],
    ) -> NDArray[np.int8]:
        """The statuses of every game, given those of the games ``g`` that moved;
        record the accepted moves."""
        status = np.full(len(self), MoveStatus.INACTIVE, dtype=np.int8)
        status[g] = outcome
        ok = g[outcome == MoveStatus.OK]
        if ok.size:
            self._log.append(
                (
                    kind,
                    time.monotonic() - self._created,
                    ok.astype(np.int32),
                    r[ok].astype(np.int32),
                    c[ok].astype(np.int32),
                )
            )
            self._logged += ok.size
        return status

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
            If ``rows``, ``cols`` or ``active`` has the wrong shape.

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
        r, c, g = self._targets(rows, cols, active)
        out = rules.reveal(self._a, g, r[g], c[g], place=self._lay)
        return self._apply("reveal", out.status, g, r, c)

    def _lay(
        self, g: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]
    ) -> NDArray[np.bool_]:
        """Lay the mines of games making their first reveal at ``(r, c)``."""
        clicks = np.stack([r, c], axis=1)
        return place_at_clicks(
            self._strategy, g.size, self.rows, self.cols, self.mine_count, self._first_click, clicks
        )

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
            If ``rows``, ``cols`` or ``active`` has the wrong shape.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(3, 9, 9, 10, seed=0)
        >>> games.toggle_flag(0, 0).tolist(), games.mines_left.tolist()
        ([0, 0, 0], [9, 9, 9])
        """
        r, c, g = self._targets(rows, cols, active)
        return self._apply("flag", rules.toggle_flag(self._a, g, r[g], c[g]), g, r, c)

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
            If ``rows``, ``cols`` or ``active`` has the wrong shape.

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.from_mines([[[True, False, False]]])
        >>> games.reveal(0, 1).tolist(), games.toggle_flag(0, 0).tolist()
        ([0], [0])
        >>> games.chord(0, 1).tolist(), games.states[0].name
        ([0], 'WON')
        """
        r, c, g = self._targets(rows, cols, active)
        out = rules.chord(self._a, g, r[g], c[g])
        return self._apply("chord", out.status, g, r, c)

    def reset(self, mask: ArrayLike | None = None) -> None:
        """Deal fresh boards to the games in ``mask`` and start them again.

        The new boards come from the batch's own strategy and stream, so a
        batch stays reproducible from its seed.  Those games forget their
        moves, flags and state: they are IN_PROGRESS with every cell hidden,
        their mines laid now, or at their first reveal under a first-click
        rule.  The other games do not change.

        Parameters
        ----------
        mask : array_like of bool, shape (n,), optional
            The games to deal again; all of them by default.

        Raises
        ------
        InvalidTypeError
            If ``mask`` is not an array of bools.
        InvalidBoardError
            If ``mask`` is not of shape ``(n,)``, or the strategy cannot lay
            the boards (nothing changes then).

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(3, 9, 9, 10, seed=1)
        >>> _ = games.reveal(0, 0)
        >>> games.reset(np.array([True, False, False]))
        >>> games.clicks.tolist(), games[0].moves
        ([0, 1, 1], ())
        """
        g = self._games(mask, "mask")
        if self._first_click is None:
            layouts = place_boards(self._strategy, g.size, self.rows, self.cols, self.mine_count)
            self._a.restart(g, keep_layout=True)
            self._a.lay(g, layouts)
        else:
            self._a.restart(g, keep_layout=False)
        self._since[g] = len(self._log)
        if self._logged > 2 * int(self._a.clicks.sum()) + _SLACK:
            self._compact()

    def copy(self) -> BatchGame:
        """An independent batch: its own arrays, move record and strategy.

        ``copy.copy`` and ``copy.deepcopy`` give the same.  The copy deals its
        resets from its own copy of the strategy, in the same state, so it
        deals what this batch would (a strategy that cannot be copied is
        shared).  Moves made on the copy never touch this batch, nor the
        reverse.

        Returns
        -------
        BatchGame

        Examples
        --------
        >>> import numsweeper as ns
        >>> games = ns.BatchGame.new(2, 9, 9, 10, seed=1)
        >>> twin = games.copy()
        >>> _ = twin.reveal(0, 0)
        >>> twin.clicks.tolist(), games.clicks.tolist()
        ([1, 1], [0, 0])
        """
        twin = BatchGame.__new__(BatchGame)
        try:
            strategy = copy.deepcopy(self._strategy)
        except (TypeError, copy.Error, pickle.PicklingError):
            strategy = self._strategy  # (as a game shares one it cannot copy)
        twin._setup(self._a.copy(), first_click=self._first_click, strategy=strategy)
        twin._created = self._created
        twin._log = list(self._log)  # (entries are never changed in place)
        twin._logged = self._logged
        twin._since = self._since.copy()
        return twin

    def __copy__(self) -> BatchGame:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> BatchGame:
        return self.copy()

    def _compact(self) -> None:
        """Drop the log entries of games dealt again since (amortized O(1) per move)."""
        kept: list[tuple[str, float, NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]]
        kept = []
        position = np.zeros(len(self._log) + 1, dtype=np.int64)  # old index -> new index
        for i, (kind, when, games, rows, cols) in enumerate(self._log):
            position[i] = len(kept)
            live = self._since[games] <= i
            if live.any():
                kept.append((kind, when, games[live], rows[live], cols[live]))
        position[len(self._log)] = len(kept)
        self._since = position[self._since]
        self._log = kept
        self._logged = sum(len(entry[2]) for entry in kept)


def _integers(array: NDArray[Any]) -> NDArray[Any]:
    """Integers int64 cannot hold, as int64 clamped to just past its ends.

    numpy makes an object array of integers past int64 (``2**70``), also
    when numpy integers sit beside them, and uint64's largest would wrap to
    -1 in a cast; clamped, they stay as far off the board or batch as they
    were.  Any other array is returned as it is.
    """
    if array.dtype == np.uint64:
        clamped: NDArray[Any] = np.minimum(array, np.iinfo(np.int64).max).astype(np.int64)
        return clamped
    if array.dtype != object or not array.size:
        return array
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in array.flat):
        return array
    top = int(np.iinfo(np.int64).max)
    return np.array([min(max(int(x), -1), top) for x in array.flat], dtype=np.int64).reshape(
        array.shape
    )


def _dealer(strategy: MinePlacementStrategy | None) -> MinePlacementStrategy:
    """The strategy that deals a batch's resets: the given one, or an unseeded random one."""
    if strategy is None:
        return RandomPlacement()
    check_strategy(strategy)
    return strategy
