"""The rules core: the state of ``n`` games as arrays, and every rule once.

State is a :class:`GameArrays`: ``(n, rows, cols)`` arrays plus per-game
counters and states.  A move is a function of that state, the games that
move and one cell each; it applies the rules to all of them at once and
returns a :class:`MoveStatus` per game.  Nothing here raises for one game's
move.

:class:`~numsweeper.BatchGame` plays through these functions directly.
:class:`~numsweeper.Game` and :class:`~numsweeper.Board` are one-game
facades on the same functions: they pass ``windowed=True``, so that a flood
is labelled in a window around the click (a click on a 10^8-cell board costs
O(region)) and the move reports the windows it revealed, and they turn the
statuses into exceptions.  A :class:`~numsweeper.Board` has no state machine:
it passes ``with_state=False``, so mines it uncovers are reported, not
revealed, and nothing is won or lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ._kernels import adjacent_counts_stack, flood_batch, flood_from

__all__ = [
    "IN_PROGRESS",
    "LOST",
    "WON",
    "GameArrays",
    "MoveStatus",
    "Outcome",
    "Window",
    "cells_of",
    "chord",
    "hide",
    "reveal",
    "safe_zones",
    "toggle_flag",
    "unflag",
]

# State codes of GameArrays.state.
IN_PROGRESS, WON, LOST = 0, 1, 2

# The 8 neighbour offsets of a cell, as (drow, dcol).
_OFFSETS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]

# Boards at least this large flood in windows even in a batch: labelling a
# window around each click beats labelling whole boards.
_WINDOWED_CELLS = 1 << 16

_ONE_CELL = np.ones((1, 1), dtype=bool)
_ONE_CELL.flags.writeable = False
_NONE = np.empty(0, dtype=np.intp)
_NONE.flags.writeable = False
_NO_HIT = (_NONE, _NONE, _NONE)


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


# The statuses as plain ints: enum attribute lookups cost a microsecond each
# on the one-game path.
OK, ILLEGAL, GAME_OVER, OUT_OF_BOUNDS = (int(s) for s in list(MoveStatus)[:4])


@dataclass(eq=False)
class GameArrays:
    """The state of ``n`` games of one size: what every rule reads and writes.

    A mine that is revealed is one the player uncovered: it exists only in a
    LOST game, so it needs no array of its own.  A new game's ``revealed``
    and ``flagged`` are ``np.zeros`` pages, which the system hands out lazily:
    a fresh 10^8-cell game is resident at about 2 bytes per cell.
    """

    mines: NDArray[np.bool_]  # (n, rows, cols)
    counts: NDArray[np.int8]  # (n, rows, cols), 0..8, valid where placed
    revealed: NDArray[np.bool_]  # (n, rows, cols); a revealed mine exploded
    flagged: NDArray[np.bool_]  # (n, rows, cols)
    placed: NDArray[np.bool_]  # (n,) mines laid
    state: NDArray[np.int8]  # (n,) IN_PROGRESS, WON or LOST
    hidden_safe: NDArray[np.int64]  # (n,) safe cells not yet revealed
    flag_count: NDArray[np.int64]  # (n,)
    clicks: NDArray[np.int64]  # (n,) moves accepted
    mine_count: int

    @classmethod
    def blank(cls, n: int, rows: int, cols: int, mines: int) -> GameArrays:
        """``n`` games whose mines are not laid yet."""
        shape = (n, rows, cols)
        return cls._of(np.zeros(shape, dtype=bool), np.zeros(shape, dtype=np.int8), mines, False)

    @classmethod
    def laid(cls, layouts: NDArray[np.bool_], counts: NDArray[np.int8] | None = None) -> GameArrays:
        """Games on these layouts (taken over, not copied), all hidden.

        ``counts`` are trusted when given; every layout must hold the same
        number of mines (the caller checked).
        """
        mines = int(np.count_nonzero(layouts[0])) if len(layouts) else 0
        counts = adjacent_counts_stack(layouts) if counts is None else counts
        return cls._of(layouts, counts, mines, True)

    @classmethod
    def _of(
        cls, mines: NDArray[np.bool_], counts: NDArray[np.int8], mine_count: int, placed: bool
    ) -> GameArrays:
        """All hidden and in progress, on these mine and count arrays."""
        n, rows, cols = mines.shape
        return cls(
            mines=mines,
            counts=counts,
            revealed=np.zeros(mines.shape, dtype=bool),
            flagged=np.zeros(mines.shape, dtype=bool),
            placed=np.full(n, placed),
            state=np.zeros(n, dtype=np.int8),
            hidden_safe=np.full(n, rows * cols - mine_count, dtype=np.int64),
            flag_count=np.zeros(n, dtype=np.int64),
            clicks=np.zeros(n, dtype=np.int64),
            mine_count=mine_count,
        )

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(n, rows, cols)``."""
        n, rows, cols = self.mines.shape
        return int(n), int(rows), int(cols)

    def copy(self) -> GameArrays:
        """A deep copy: nothing is shared."""
        return GameArrays(
            mines=self.mines.copy(),
            counts=self.counts.copy(),
            revealed=self.revealed.copy(),
            flagged=self.flagged.copy(),
            placed=self.placed.copy(),
            state=self.state.copy(),
            hidden_safe=self.hidden_safe.copy(),
            flag_count=self.flag_count.copy(),
            clicks=self.clicks.copy(),
            mine_count=self.mine_count,
        )

    def lay(self, g: NDArray[np.intp], layouts: NDArray[np.bool_]) -> None:
        """Lay checked ``layouts`` ``(len(g), rows, cols)`` on games ``g``."""
        self.mines[g] = layouts
        self.counts[g] = adjacent_counts_stack(np.ascontiguousarray(layouts))
        self.placed[g] = True

    def restart(self, g: NDArray[np.intp], *, keep_layout: bool) -> None:
        """Games ``g`` back to their start: all hidden, no flags, in progress.

        Without ``keep_layout`` their mines are taken away too, to be laid
        again (now, or at a first click).
        """
        _, rows, cols = self.shape
        self.revealed[g] = False
        self.flagged[g] = False
        self.state[g] = IN_PROGRESS
        self.hidden_safe[g] = rows * cols - self.mine_count
        self.flag_count[g] = 0
        self.clicks[g] = 0
        if not keep_layout:
            self.mines[g] = False
            self.counts[g] = 0
            self.placed[g] = False


def safe_zones(
    rows: int, cols: int, clicks: NDArray[np.intp], rule: str | None
) -> NDArray[np.bool_] | None:
    """The cells a first-click rule keeps mine-free around each first click.

    Parameters
    ----------
    rows, cols : int
        The board.
    clicks : ndarray of int, shape (k, 2)
        One first click per board, on the board.
    rule : {None, 'safe', 'opening'}
        ``'safe'`` keeps the clicked cell, ``'opening'`` the clicked cell and
        its neighbours; ``None`` keeps nothing.

    Returns
    -------
    ndarray of bool, shape (k, rows, cols), or None
        ``None`` for no rule.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._rules import safe_zones
    >>> safe_zones(3, 4, np.array([[0, 0]]), "opening").astype(int)[0]
    array([[1, 1, 0, 0],
           [1, 1, 0, 0],
           [0, 0, 0, 0]])
    """
    if rule is None:
        return None
    reach = 0 if rule == "safe" else 1
    k = len(clicks)
    offsets = np.arange(-reach, reach + 1)
    board, r, c = np.broadcast_arrays(
        np.arange(k)[:, None, None],
        clicks[:, 0, None, None] + offsets[:, None],
        clicks[:, 1, None, None] + offsets,
    )
    inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
    zone = np.zeros((k, rows, cols), dtype=bool)
    zone[board[inside], r[inside], c[inside]] = True
    return zone


class Window(NamedTuple):
    """Safe cells one move revealed on one board: ``mask`` placed at ``(row, col)``."""

    game: int
    row: int
    col: int
    mask: NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Outcome:
    """What a reveal or chord did.

    Attributes
    ----------
    status : ndarray of int8, shape (k,)
        A :class:`MoveStatus` per game that was asked to move.
    opened : list of Window, or None
        The safe cells revealed, window by window (``windowed=True`` only).
    hit : tuple of three ndarrays of intp
        Game, row and column of every mine uncovered.
    """

    status: NDArray[np.int8]
    opened: list[Window] | None
    hit: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]

    def opened_cells(self) -> NDArray[np.intp]:
        """``(k, 2)`` ``(row, col)`` of the safe cells opened, in reading order (one game)."""
        return cells_of(self.opened or [])

    def hit_cells(self) -> NDArray[np.intp]:
        """``(m, 2)`` ``(row, col)`` of the mines uncovered, in reading order (one game)."""
        if not len(self.hit[0]):
            return np.empty((0, 2), dtype=np.intp)
        cells = np.stack(self.hit[1:], axis=1).astype(np.intp, copy=False)
        return cells[np.lexsort((cells[:, 1], cells[:, 0]))] if len(cells) > 1 else cells


def cells_of(windows: list[Window]) -> NDArray[np.intp]:
    """The cells of one game's windows as ``(k, 2)`` ``(row, col)``, in reading order."""
    if not windows:
        return np.empty((0, 2), dtype=np.intp)
    if len(windows) == 1 and windows[0].mask is _ONE_CELL:  # a number: the common click
        return np.array([windows[0][1:3]], dtype=np.intp)
    parts = []
    for window in windows:
        part = np.argwhere(window.mask)
        part += (window.row, window.col)
        parts.append(part)
    if len(parts) == 1:
        return parts[0]
    cells = np.concatenate(parts)
    return cells[np.lexsort((cells[:, 1], cells[:, 0]))]


#: Lays the mines of games ``g`` whose first reveal is at ``(r, c)``:
#: returns checked layouts of shape ``(len(g), rows, cols)``.
Placer = Callable[[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]], NDArray[np.bool_]]


# -- moves -----------------------------------------------------------------------
# (np.count_nonzero stands for ndarray.any below: on the few-element arrays of
# one game's move it is five times cheaper, and as fast on big ones.)


def _screen(
    a: GameArrays,
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    with_state: bool,
) -> NDArray[np.int8]:
    """GAME_OVER for finished games (checked first), then OUT_OF_BOUNDS."""
    _, rows, cols = a.mines.shape
    # As unsigned, a negative coordinate is huge: one compare per axis.
    off: NDArray[np.bool_] = r.astype(np.uint64) >= rows
    off |= c.astype(np.uint64) >= cols
    status: NDArray[np.int8] = off.view(np.int8) * np.int8(OUT_OF_BOUNDS)
    if with_state:
        over = a.state[g] != IN_PROGRESS
        if np.count_nonzero(over):
            status[over] = GAME_OVER
    return status


def _admit(
    a: GameArrays,
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    with_state: bool,
    illegal: NDArray[np.bool_] | None,
) -> tuple[NDArray[np.int8], NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """Screen the moves: their statuses, and the games, rows and cols that go on.

    A move on a cell where ``illegal`` is True is ILLEGAL.  Every move that
    goes on is accepted: it counts as a click.
    """
    status = _screen(a, g, r, c, with_state)
    ok = None
    if np.count_nonzero(status):  # (the common case, every move admitted, skips the filtering)
        ok = (status == OK).nonzero()[0]
        g, r, c = g[ok], r[ok], c[ok]
    if illegal is not None:
        bad = illegal[g, r, c]
        if np.count_nonzero(bad):
            status[bad.nonzero()[0] if ok is None else ok[bad]] = ILLEGAL
            keep = ~bad
            g, r, c = g[keep], r[keep], c[keep]
    a.clicks[g] += 1
    return status, g, r, c


def reveal(
    a: GameArrays,
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    *,
    place: Placer | None = None,
    with_state: bool = True,
    windowed: bool = False,
) -> Outcome:
    """Reveal cell ``(r[i], c[i])`` of game ``g[i]``; zero-count cells flood.

    Revealing a flagged cell is ILLEGAL, a revealed cell an accepted no-op.
    A game whose mines are not laid yet gets them from ``place`` first.  With
    ``with_state``, a mine loses the game (it is revealed, as exploded) and
    revealing the last safe cell wins it; without, mines are only reported.

    Parameters
    ----------
    a : GameArrays
        Changed in place.
    g : ndarray of intp, shape (k,)
        Distinct game indices.
    r, c : ndarray of int, shape (k,)
        One cell per game; off-board cells are OUT_OF_BOUNDS, never wrapped.
    place : callable, optional
        Lays mines at a first reveal; needed when some game in ``g`` has none.
    with_state : bool
        Apply the state machine (GAME_OVER, LOST, WON).
    windowed : bool
        Flood in windows and report them in :attr:`Outcome.opened`.

    Returns
    -------
    Outcome

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._rules import GameArrays, reveal
    >>> a = GameArrays.laid(np.array([[[True, False, False]]]))
    >>> out = reveal(a, np.array([0]), np.array([0]), np.array([2]), windowed=True)
    >>> out.status.tolist(), out.opened_cells().tolist()
    ([0], [[0, 1], [0, 2]])
    >>> int(a.state[0]), int(a.hidden_safe[0])
    (1, 0)
    """
    fresh = ~a.placed[g]
    if np.count_nonzero(fresh):
        # Lay first: the placer may raise, and nothing may change before.
        chosen = _screen(a, g, r, c, with_state) == OK
        chosen &= fresh
        chosen[chosen] = ~a.flagged[g[chosen], r[chosen], c[chosen]]
        if np.count_nonzero(chosen):
            assert place is not None, "games without mines need a placer"
            a.lay(g[chosen], place(g[chosen], r[chosen], c[chosen]))
    status, g, r, c = _admit(a, g, r, c, with_state, a.flagged)
    hidden = ~a.revealed[g, r, c]
    if not hidden.all():
        g, r, c = g[hidden], r[hidden], c[hidden]
    return _open(a, status, g, r, c, g, with_state, windowed)


def _open(
    a: GameArrays,
    status: NDArray[np.int8],
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    moved: NDArray[np.intp],
    with_state: bool,
    windowed: bool,
) -> Outcome:
    """Open hidden, unflagged cells ``(g, r, c)``: mines are hit, safe cells uncovered.

    With the state machine a hit loses its game, and the games in ``moved``
    that have no hidden safe cell left are won.
    """
    mine = a.mines[g, r, c]
    if np.count_nonzero(mine):
        hit = (g[mine], r[mine], c[mine])
        g, r, c = g[~mine], r[~mine], c[~mine]
        if with_state:
            a.revealed[hit] = True  # shown as exploded
            a.state[hit[0]] = LOST
    else:
        hit = _NO_HIT
    opened = _uncover(a, g, r, c, windowed)
    if with_state and moved.size:
        won = (a.state[moved] == IN_PROGRESS) & (a.hidden_safe[moved] == 0)
        a.state[moved[won]] = WON
    return Outcome(status, opened, hit)


def toggle_flag(
    a: GameArrays,
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    *,
    with_state: bool = True,
) -> NDArray[np.int8]:
    """Flag the hidden cell ``(r[i], c[i])`` of game ``g[i]``, or unflag it.

    Flagging a revealed cell is ILLEGAL.  Arguments as for :func:`reveal`.

    Returns
    -------
    ndarray of int8, shape (k,)
        A :class:`MoveStatus` per game.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._rules import GameArrays, toggle_flag
    >>> a = GameArrays.laid(np.array([[[True, False]]]))
    >>> toggle_flag(a, np.array([0]), np.array([0]), np.array([0])).tolist()
    [0]
    >>> a.flagged.tolist(), a.flag_count.tolist()
    ([[[True, False]]], [1])
    """
    status, g, r, c = _admit(a, g, r, c, with_state, a.revealed)
    now = ~a.flagged[g, r, c]
    a.flagged[g, r, c] = now
    a.flag_count[g] += np.where(now, 1, -1)
    return status


def chord(
    a: GameArrays,
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    *,
    with_state: bool = True,
    windowed: bool = False,
) -> Outcome:
    """Chord: open the neighbours of a revealed number whose flags match it.

    A revealed number with exactly that many adjacent flags reveals each
    hidden unflagged neighbour (floods included); a wrong flag means a mine
    is uncovered.  Anything else is an accepted no-op.  Arguments as for
    :func:`reveal`.

    Returns
    -------
    Outcome

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._rules import GameArrays, chord, reveal, toggle_flag
    >>> a = GameArrays.laid(np.array([[[True, False, False]]]))
    >>> at = np.array([0]), np.array([0]), np.array([1])
    >>> _ = reveal(a, *at); _ = toggle_flag(a, at[0], at[1], np.array([0]))
    >>> out = chord(a, *at, windowed=True)
    >>> out.opened_cells().tolist(), int(a.state[0])
    ([[0, 2]], 1)
    """
    status, go, ro, co = _admit(a, g, r, c, with_state, None)
    _, rows, cols = a.mines.shape
    number = a.counts[go, ro, co]
    live = a.revealed[go, ro, co] & (number > 0)
    go, ro, co, number = go[live], ro[live], co[live], number[live]
    flags = np.zeros(go.size, dtype=np.int8)
    owners, target_rows, target_cols = [], [], []
    for dr, dc in _OFFSETS:
        tr, tc = ro + dr, co + dc
        inside = (tr >= 0) & (tr < rows) & (tc >= 0) & (tc < cols)
        j, tr, tc = np.flatnonzero(inside), tr[inside], tc[inside]
        flagged = a.flagged[go[j], tr, tc]
        flags[j] += flagged
        target = ~flagged & ~a.revealed[go[j], tr, tc]
        owners.append(j[target])
        target_rows.append(tr[target])
        target_cols.append(tc[target])
    satisfied = flags == number
    j = np.concatenate(owners)
    keep = satisfied[j]
    tg = go[j[keep]]
    tr = np.concatenate(target_rows)[keep]
    tc = np.concatenate(target_cols)[keep]
    return _open(a, status, tg, tr, tc, go[satisfied], with_state, windowed)


def hide(a: GameArrays, game: int, opened: list[Window], hit: NDArray[np.intp]) -> None:
    """Take back a reveal or chord of one game: the inverse of what it opened.

    ``opened`` are the windows it reported and ``hit`` the ``(m, 2)`` mines
    it uncovered.  The game is in progress again, as it was before: only a
    game in progress accepts a move.  Costs O(cells in the windows).
    """
    for window in opened:
        h, w = window.mask.shape
        area = a.revealed[game, window.row : window.row + h, window.col : window.col + w]
        area &= ~window.mask
        a.hidden_safe[game] += int(np.count_nonzero(window.mask))
    a.revealed[game, hit[:, 0], hit[:, 1]] = False
    a.state[game] = IN_PROGRESS
    a.clicks[game] -= 1


def unflag(a: GameArrays, game: int, row: int, col: int) -> None:
    """Take back a flag toggle of one game at ``(row, col)``: the inverse of :func:`toggle_flag`."""
    now = not a.flagged[game, row, col]
    a.flagged[game, row, col] = now
    a.flag_count[game] += 1 if now else -1
    a.clicks[game] -= 1


# -- rule steps ------------------------------------------------------------------


def _uncover(
    a: GameArrays,
    g: NDArray[np.intp],
    r: NDArray[np.intp],
    c: NDArray[np.intp],
    windowed: bool,
) -> list[Window] | None:
    """Reveal hidden, unflagged safe cells, several per game allowed, with their floods."""
    if not g.size:
        return [] if windowed else None
    _, rows, cols = a.mines.shape
    if windowed or rows * cols >= _WINDOWED_CELLS:
        return _uncover_windows(a, g, r, c)
    zero = a.counts[g, r, c] == 0
    if np.count_nonzero(zero):
        boards, which = np.unique(g[zero], return_inverse=True)
        open_ = ~(a.mines[boards] | a.revealed[boards])
        if a.flag_count[boards].any():
            open_ &= ~a.flagged[boards]
        region = flood_batch(a.counts[boards], open_, which, r[zero], c[zero])
        a.revealed[boards] |= region
        a.hidden_safe[boards] -= np.count_nonzero(region, axis=(1, 2))
    g, r, c = g[~zero], r[~zero], c[~zero]
    fresh = ~a.revealed[g, r, c]  # a flood may already have got it
    g, r, c = g[fresh], r[fresh], c[fresh]
    a.revealed[g, r, c] = True
    a.hidden_safe -= np.bincount(g, minlength=len(a.hidden_safe))
    return None


def _uncover_windows(
    a: GameArrays, g: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]
) -> list[Window]:
    """:func:`_uncover` one cell at a time, each flood labelled in a window."""
    windows: list[Window] = []
    for game, row, col in zip(g.tolist(), r.tolist(), c.tolist(), strict=True):
        if a.revealed[game, row, col]:  # an earlier flood of this move got it
            continue
        if a.counts[game, row, col]:
            a.revealed[game, row, col] = True
            a.hidden_safe[game] -= 1
            windows.append(Window(game, row, col, _ONE_CELL))
            continue
        blockers = (a.mines[game], a.revealed[game], a.flagged[game])
        (r0, c0), region = flood_from(a.counts[game], blockers, row, col)
        h, w = region.shape
        a.revealed[game, r0 : r0 + h, c0 : c0 + w] |= region
        a.hidden_safe[game] -= int(np.count_nonzero(region))
        windows.append(Window(game, r0, c0, region))
    return windows
