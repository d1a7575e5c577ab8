"""Exact board metrics, vectorized over batches: 3BV, openings, islands, ZiNi, efficiency.

Definitions are the Minesweeper community's:

- an **opening** is an 8-connected region of safe cells whose count is 0;
- an **isolated number** is a safe numbered cell with no zero-count neighbour
  (no opening ever reveals it);
- **3BV** (Bechtel's Board Benchmark Value, the fewest left clicks that clear
  the board) is the number of openings plus the number of isolated numbers;
- an **island** is an 8-connected group of isolated numbers;
- **zero cells** are the safe cells whose count is 0;
- **ZiNi** (Zimmermann and Nikolaus) estimates the fewest clicks (left,
  right and chord) that clear a board for a player who flags and chords;
  **HZiNi** is its "human" variant, **RZiNi** its randomised one (see
  :func:`zini`);
- a game's **efficiency** (:func:`efficiency`): clicks, effective clicks,
  IOE, throughput and 3BV/s.

Every board metric takes one board (a ``(rows, cols)`` mine mask, a
:class:`~numsweeper.Board` or a :class:`~numsweeper.Game`) and returns an
int, or a batch (``(n, rows, cols)``, a :class:`~numsweeper.BoardBatch` or a
:class:`~numsweeper.BatchGame`) and returns an ``(n,)`` int64 array.  No
Python loop runs per board.

Notes
-----
Boards up to 62 cells wide (or tall: they are transposed) are packed side by
side into machine words, one word per row of several boards, so that one
word operation handles a row of each.  Zero cells are the cells outside the
3x3 dilation of the mines, so counts are never read (dilating packed mines
costs less than reading int8 counts).  Components are counted as Euler number
(a local count over 2x2 windows) plus holes; holes are rare and are counted
the same way on the boards that have them, so every count is exact.  Larger
boards fall back to ``scipy.ndimage.label``.  Memory stays bounded: a batch
is measured in chunks of about a million cells.

Examples
--------
>>> import numsweeper as ns
>>> batch = ns.generate_boards(5, 16, 30, 99, seed=7)
>>> ns.metrics.three_bv(batch)
array([176, 208, 157, 176, 174])
>>> ns.metrics.three_bv(batch.mines[0])
176
>>> ns.metrics.zini(batch)
array([115, 137, 117, 115, 115])
>>> game = ns.Game(batch[0])
>>> ns.metrics.three_bv(game), ns.metrics.zini(game)
(176, 115)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import ndimage

from ._kernels import (
    EIGHT_STACKED,
    MAX_PACKED_COLS,
    adjacent_counts_stack,
    count_components_packed,
    dilate_packed,
    pack_boards,
    three_bv_solved,
)
from ._validate import as_array, check_at_least, make_rng
from .batch import BoardBatch
from .batchgame import BatchGame
from .board import Board
from .errors import InvalidBoardError, InvalidTypeError
from .game import MOVE_KINDS, Game

__all__ = [
    "RZINI_ITERATIONS",
    "STATS_DTYPE",
    "Efficiency",
    "board_stats",
    "efficiency",
    "hzini",
    "islands",
    "openings",
    "rzini",
    "three_bv",
    "zero_cells",
    "zini",
]

#: What every board metric accepts: one board or a batch of them.
Boards: TypeAlias = "ArrayLike | Board | Game | BoardBatch | BatchGame"

#: Fields of :func:`board_stats`, one int64 per board.
STATS_DTYPE = np.dtype(
    [
        ("three_bv", np.int64),
        ("openings", np.int64),
        ("islands", np.int64),
        ("zero_cells", np.int64),
    ]
)

_FIELDS = STATS_DTYPE.names or ()

# Cells measured per chunk: small enough for the scratch arrays to stay in
# cache, large enough to amortise numpy's per-call overhead.
_CHUNK_CELLS = 1 << 20

Stats = dict[str, NDArray[np.int64]]


def _as_mines(mines: Boards) -> tuple[NDArray[np.bool_], bool]:
    """Validate a mine mask or batch; return it as (n, rows, cols) and whether it was one board."""
    if isinstance(mines, BoardBatch | BatchGame):
        if isinstance(mines, BatchGame) and not mines.placed.all():
            first = int(np.argmin(mines.placed))
            raise InvalidBoardError(
                f"game {first} of the batch has no mines yet: "
                f"first_click={mines.first_click!r} lays them at its first reveal"
            )
        return mines.mines, False
    if isinstance(mines, Game):
        board = mines.board
        if board is None:
            raise InvalidBoardError(
                f"the game has no mines yet: first_click={mines.first_click!r} "
                "lays them at the first reveal"
            )
        return board.mines[None], True
    if isinstance(mines, Board):
        return mines.mines[None], True
    array = as_array(mines, "mines")
    if array.dtype != bool:
        raise InvalidBoardError(f"mines must be a bool array, got dtype {array.dtype}")
    if array.ndim not in (2, 3):
        raise InvalidBoardError(
            f"mines must have shape (rows, cols) or (n, rows, cols), got {array.shape}"
        )
    if array.shape[-2] < 1 or array.shape[-1] < 1:
        raise InvalidBoardError(f"boards need at least one row and column, got {array.shape}")
    single = array.ndim == 2
    return (array[None] if single else array), single


def _measure_packed(mines: NDArray[np.bool_], want: frozenset[str]) -> Stats:
    """Metrics of a chunk of boards at most MAX_PACKED_COLS wide, from packed rows."""
    n = len(mines)
    words, layout = pack_boards(mines)
    zero = dilate_packed(words)
    np.invert(zero, out=zero)
    zero &= layout.cells
    out: Stats = {}
    if "zero_cells" in want:
        out["zero_cells"] = layout.totals(zero)
    if "openings" in want or "three_bv" in want:
        out["openings"] = count_components_packed(zero, layout)
    if "three_bv" in want or "islands" in want:
        isolated = dilate_packed(zero)
        isolated |= words
        np.invert(isolated, out=isolated)
        isolated &= layout.cells
        if "three_bv" in want:
            out["three_bv"] = out["openings"] + layout.totals(isolated)
        if "islands" in want:
            out["islands"] = count_components_packed(isolated, layout)
    return {name: values.reshape(-1)[:n] for name, values in out.items()}


def _label_counts(mask: NDArray[np.bool_]) -> NDArray[np.int64]:
    """8-connected components per board of an (n, rows, cols) stack, by labelling."""
    n = mask.shape[0]
    labels, _ = ndimage.label(mask, structure=EIGHT_STACKED)
    # Labels run in raster order, so each board holds a contiguous range and
    # its count is the step in the running maximum.
    top = np.maximum.accumulate(labels.reshape(n, -1).max(axis=1, initial=0))
    return np.diff(top, prepend=0).astype(np.int64)


def _measure_labelled(mines: NDArray[np.bool_], want: frozenset[str]) -> Stats:
    """Metrics of a chunk of boards too large to pack, with ndimage.label."""
    safe = ~mines
    zero = safe & (adjacent_counts_stack(mines) == 0)
    out: Stats = {}
    if "zero_cells" in want:
        out["zero_cells"] = np.count_nonzero(zero, axis=(1, 2)).astype(np.int64)
    if "openings" in want or "three_bv" in want:
        out["openings"] = _label_counts(zero)
    if "three_bv" in want or "islands" in want:
        isolated = safe & ~zero & (adjacent_counts_stack(zero) == 0)
        if "three_bv" in want:
            out["three_bv"] = out["openings"] + np.count_nonzero(isolated, axis=(1, 2))
        if "islands" in want:
            out["islands"] = _label_counts(isolated)
    return out


def _measure(mines: Boards, want: frozenset[str]) -> tuple[Stats, bool]:
    """Compute the wanted metrics chunk by chunk; return them and the single-board flag."""
    boards, single = _as_mines(mines)
    n, rows, cols = boards.shape
    measure: Callable[[NDArray[np.bool_], frozenset[str]], Stats]
    if cols <= MAX_PACKED_COLS:
        measure, transpose = _measure_packed, False
    elif rows <= MAX_PACKED_COLS:
        # Every metric is invariant under transposition.
        measure, transpose = _measure_packed, True
    else:
        measure, transpose = _measure_labelled, False
    out = {name: np.empty(n, dtype=np.int64) for name in want}
    step = max(1, _CHUNK_CELLS // (rows * cols))
    for start in range(0, n, step):
        chunk = boards[start : start + step]
        if transpose:
            chunk = np.ascontiguousarray(chunk.transpose(0, 2, 1))
        for name, values in measure(chunk, want).items():
            if name in out:
                out[name][start : start + step] = values
    return out, single


def _result(values: NDArray[np.int64], single: bool) -> Any:
    return int(values[0]) if single else values


def three_bv(mines: Boards) -> Any:
    """3BV: the fewest left clicks that clear each board.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    int or ndarray of int64, shape (n,)
        Openings plus isolated numbers: an int for one board, an array for
        a batch.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> mines = np.zeros((3, 3), dtype=bool); mines[1, 1] = True
    >>> ns.metrics.three_bv(mines)  # 8 numbers around the mine, no opening
    8
    >>> ns.metrics.three_bv(np.zeros((2, 4, 4), dtype=bool))
    array([1, 1])
    """
    stats, single = _measure(mines, frozenset({"three_bv"}))
    return _result(stats["three_bv"], single)


def openings(mines: Boards) -> Any:
    """Number of openings: 8-connected regions of zero-count safe cells.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    int or ndarray of int64, shape (n,)

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> mines = np.zeros((3, 7), dtype=bool); mines[:, 3] = True
    >>> ns.metrics.openings(mines)
    2
    """
    stats, single = _measure(mines, frozenset({"openings"}))
    return _result(stats["openings"], single)


def islands(mines: Boards) -> Any:
    """Number of islands: 8-connected groups of isolated numbers.

    An isolated number is a safe cell with a non-zero count and no
    zero-count neighbour, so no opening reveals it.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    int or ndarray of int64, shape (n,)

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> mines = np.zeros((3, 3), dtype=bool); mines[1, 1] = True
    >>> ns.metrics.islands(mines)  # the ring around the mine is one island
    1
    """
    stats, single = _measure(mines, frozenset({"islands"}))
    return _result(stats["islands"], single)


def zero_cells(mines: Boards) -> Any:
    """Number of safe cells with no adjacent mine.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    int or ndarray of int64, shape (n,)

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> mines = np.zeros((3, 7), dtype=bool); mines[:, 3] = True
    >>> ns.metrics.zero_cells(mines)
    12
    """
    stats, single = _measure(mines, frozenset({"zero_cells"}))
    return _result(stats["zero_cells"], single)


def board_stats(mines: Boards) -> NDArray[np.void]:
    """All the metrics of each board at once, in one pass over the batch.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    ndarray of STATS_DTYPE, shape (n,), or numpy.void for one board
        Records with int64 fields ``three_bv``, ``openings``, ``islands``
        and ``zero_cells``; index by field name (``stats["three_bv"]``) for
        one metric of every board.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    Examples
    --------
    >>> import numsweeper as ns
    >>> stats = ns.metrics.board_stats(ns.generate_boards(3, 9, 9, 10, seed=2))
    >>> stats["three_bv"], stats["openings"], stats["islands"]
    (array([25, 21, 15]), array([3, 7, 3]), array([5, 3, 3]))
    >>> float(stats["zero_cells"].mean())
    20.0
    """
    stats, single = _measure(mines, frozenset(_FIELDS))
    n = len(stats["three_bv"])
    out = np.empty(n, dtype=STATS_DTYPE)
    for name in _FIELDS:
        out[name] = stats[name]
    return out[0] if single else out


# -- ZiNi ---------------------------------------------------------------------------

#: Randomised runs per board of :func:`rzini` (ms-toollib's default too).
RZINI_ITERATIONS = 100

# Premium of mines: never chosen, whatever flags add to it.  HZiNi adds it
# once more to cells not yet open, so twice must still fit in int32.
_NEVER = -(1 << 28)
# Cells per chunk of a ZiNi batch: every step reads a chunk's premiums once.
_ZINI_CHUNK_CELLS = 1 << 19


class _ZiniBoards:
    """What ZiNi needs to know of a chunk of boards, computed once.

    Boards are stored transposed, so that flat cell order (``col * rows +
    row`` of the original board) is the column-major order in which the
    original program scans cells and breaks ties.  Arrays over cells are flat,
    ``n * cells + 1`` long: the last entry is a sentinel that off-board
    neighbours point at (never safe, never a mine, always open).
    """

    def __init__(self, mines: NDArray[np.bool_]) -> None:
        boards = np.ascontiguousarray(mines.transpose(0, 2, 1))
        n, height, width = boards.shape
        self.n, self.size = n, height * width
        self.sentinel = n * self.size
        safe = ~boards
        counts = adjacent_counts_stack(boards)
        zero = safe & (counts == 0)
        labels, _ = ndimage.label(zero, structure=EIGHT_STACKED)
        # The openings each cell lies in or borders: at most two, since the
        # zero cells around a number form at most two runs of its ring.
        low, high = _around_extremes(labels)
        first = np.where(high > 0, low, 0)
        second = np.where(high != low, high, 0)
        isolated = safe & (first == 0)
        # Gain of a chord: the 3BV it clears (isolated numbers around and on
        # the cell, and the openings it borders); its cost is a click to open
        # the cell, a flag per mine around, and the chord itself.
        gain = _around_sum(isolated) + (first > 0) + (second > 0)
        gain = np.where(zero, 1, gain)
        premium = np.where(boards, _NEVER, gain - counts - 2).astype(np.int32)

        self.mines = _flat(boards, False)
        self.safe = _flat(safe, False)
        self.zero = _flat(zero, False)
        self.isolated = _flat(isolated, False)
        self.labels = _flat(labels, 0)
        self.premium = _flat(premium, 0)
        self.safe_cells = np.count_nonzero(safe, axis=(1, 2)).astype(np.int64)
        # Neighbourhood (with the cell itself) of each cell of one board.
        r, c = np.divmod(np.arange(self.size), width)
        dr, dc = np.divmod(np.arange(9), 3)
        rr, cc = r[:, None] + dr - 1, c[:, None] + dc - 1
        inside = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
        self.near = np.where(inside, rr * width + cc, -1)
        # Cells of each opening, including its border, grouped by label: once
        # for the first opening of each cell, once for the second, so that
        # neither list holds a cell twice.
        cell = np.arange(n * self.size).reshape(boards.shape)
        top = int(labels.max(initial=0))
        self.by_opening = [_Grouped(key, cell, top) for key in (first, second)]
        # Labels run in raster order, so each board's are a contiguous range.
        last = np.maximum.accumulate(labels.reshape(n, -1).max(axis=1, initial=0))
        self.openings = np.diff(last, prepend=0).astype(np.int64)

    def around(self, cells: NDArray[np.intp]) -> NDArray[np.intp]:
        """Global indices of the 3x3 neighbourhoods of ``cells``, shape (k, 9).

        No column holds a cell twice (it is one offset from distinct cells),
        sentinels apart.
        """
        board, local = np.divmod(cells, self.size)
        near = self.near[local]
        out: NDArray[np.intp] = np.where(
            near >= 0, board[:, None] * self.size + near, self.sentinel
        )
        return out


class _Grouped:
    """Cells grouped by a positive key, for gathering the cells of several keys at once."""

    def __init__(self, key: NDArray[np.int32], cell: NDArray[np.intp], top: int) -> None:
        keys = key[key > 0]
        order = np.argsort(keys, kind="stable")
        self.cells = cell[key > 0][order]
        self.starts = np.searchsorted(keys[order], np.arange(top + 2))

    def __call__(self, keys: NDArray[np.intp]) -> NDArray[np.intp]:
        """The cells of the given distinct keys."""
        start, stop = self.starts[keys], self.starts[keys + 1]
        lengths = stop - start
        offsets = np.repeat(start - np.cumsum(lengths) + lengths, lengths)
        return self.cells[offsets + np.arange(int(lengths.sum()))]


def _distinct(values: NDArray[np.intp]) -> NDArray[np.intp]:
    """Sorted distinct values (cheaper than np.unique on the small arrays of a step)."""
    values = np.sort(values)
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if values.size else values


def _pick(mask: NDArray[np.bool_], rng: np.random.Generator) -> NDArray[np.intp]:
    """A uniformly random True column of each row of ``mask`` (0 for a row with none)."""
    # (flat indices: numpy finds them several times faster than 2-D ones)
    rows, cols = np.divmod(np.flatnonzero(mask), mask.shape[1])
    if not cols.size:
        return np.zeros(len(mask), dtype=np.intp)
    counts = np.bincount(rows, minlength=len(mask))
    starts = np.cumsum(counts) - counts
    chosen = starts + (rng.random(len(mask)) * counts).astype(np.intp)
    return np.where(counts > 0, cols[np.minimum(chosen, len(cols) - 1)], 0)


def _add_around(premium: NDArray[np.int32], near: NDArray[np.intp], value: int) -> None:
    """Add ``value`` to the premium of each cell of each neighbourhood, repeats counted."""
    for column in near.T:  # no column repeats a cell, so a fancy add is exact
        premium[column] += value


def _flat(array: NDArray[Any], sentinel: Any) -> NDArray[Any]:
    return np.append(array.reshape(-1), np.array([sentinel], dtype=array.dtype))


def _shifted(array: NDArray[Any], fill: Any) -> list[NDArray[Any]]:
    """The nine 3x3-neighbourhood shifts of an (n, rows, cols) stack."""
    _, rows, cols = array.shape
    padded = np.pad(array, ((0, 0), (1, 1), (1, 1)), constant_values=fill)
    return [padded[:, i : i + rows, j : j + cols] for i in range(3) for j in range(3)]


def _around_sum(mask: NDArray[np.bool_]) -> NDArray[np.int32]:
    total = np.zeros(mask.shape, dtype=np.int32)
    for view in _shifted(mask, False):
        total += view
    return total


def _around_extremes(labels: NDArray[np.int32]) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Least and greatest positive label in each 3x3 neighbourhood (0 for none)."""
    top = np.iinfo(labels.dtype).max
    low = np.full(labels.shape, top, dtype=labels.dtype)
    high = np.zeros(labels.shape, dtype=labels.dtype)
    for view in _shifted(labels, 0):
        np.minimum(low, np.where(view > 0, view, top), out=low)
        np.maximum(high, view, out=high)
    return np.where(high > 0, low, 0), high


def _zini_run(
    boards: _ZiniBoards, *, human: bool, rng: np.random.Generator | None
) -> NDArray[np.int64]:
    """Clicks of one greedy run on every board of a chunk, all boards in lock-step.

    Each step, every board still unsolved takes its cell of highest premium
    (chord gain minus cost), opens it if needed, flags the mines around it
    and chords it; ties go to the first cell in column-major order, or to a
    random one with ``rng``.  A board with no cell of premium >= 0 clicks an
    opening or an isolated number instead.
    """
    n, size = boards.n, boards.size
    premium = boards.premium.copy()
    opened = np.zeros(n * size + 1, dtype=bool)
    opened[-1] = True
    flagged = np.zeros_like(opened)
    hidden = boards.safe_cells.copy()
    clicks = np.zeros(n, dtype=np.int64)
    chooser = (boards.zero | boards.isolated)[:-1].reshape(n, size)

    def open_cells(direct: NDArray[np.intp]) -> None:
        """Reveal ``direct`` (safe, unopened, distinct), their openings flooding whole."""
        labels = _distinct(boards.labels[direct[boards.zero[direct]]])
        flooded = [cells(labels) for cells in boards.by_opening]
        for cells in flooded:  # each opening's 3BV is cleared once
            premium[cells] -= 1
        new = _distinct(np.concatenate([direct, *flooded]))
        new = new[~opened[new]]
        opened[new] = True
        premium[new] += opening_bonus  # no click needed to open them any more
        _add_around(premium, boards.around(new[boards.isolated[new]]), -1)
        hidden[:] -= np.bincount(new // size, minlength=n)

    opening_bonus = 1
    if human:
        # Only open cells are chorded: the others are kept out of reach
        # until they open.
        premium[:-1] += _NEVER
        opening_bonus -= _NEVER
        clicks += boards.openings  # click every opening first
        open_cells(np.flatnonzero(boards.zero[:-1]))
    table = premium[:-1].reshape(n, size)
    active = np.flatnonzero(hidden > 0)
    while active.size:
        if rng is not None:
            scores = table[active]
            top = scores.max(axis=1)
            chord = top >= 0
            # (only where a chord pays: elsewhere most cells tie)
            best = _pick(scores[chord] == top[chord, None], rng)
        else:
            if 2 * active.size > n:  # cheaper than gathering the rows first
                best = table.argmax(axis=1)[active]
            else:
                best = table[active].argmax(axis=1)
            chord = table[active, best] >= 0
            best = best[chord]
        board = active[chord]
        cell = board * size + best
        clicks[board] += 1 + ~opened[cell]
        near = boards.around(cell)
        new_flags = boards.mines[near] & ~flagged[near]
        clicks[board] += new_flags.sum(axis=1)
        flags = near[new_flags]
        flagged[flags] = True
        _add_around(premium, boards.around(flags), 1)  # one flag fewer to place
        # No chord pays: click an opening or an isolated number.
        stuck = active[~chord]
        options = chooser[stuck] & ~opened[:-1].reshape(n, size)[stuck]
        pick = options.argmax(axis=1) if rng is None else _pick(options, rng)
        can = options[np.arange(stuck.size), pick]
        clicks[stuck[can]] += 1
        direct = np.concatenate([near.ravel(), stuck[can] * size + pick[can]])
        open_cells(direct[boards.safe[direct] & ~opened[direct]])
        active = active[hidden[active] > 0]
        active = np.setdiff1d(active, stuck[~can], assume_unique=True)
    return clicks


def _zini(
    mines: Boards, *, human: bool, iterations: int = 1, rng: np.random.Generator | None = None
) -> Any:
    boards, single = _as_mines(mines)
    n, rows, cols = boards.shape
    out = np.empty(n, dtype=np.int64)
    step = max(1, _ZINI_CHUNK_CELLS // (rows * cols))
    for start in range(0, n, step):
        chunk = _ZiniBoards(boards[start : start + step])
        best = _zini_run(chunk, human=human, rng=rng)
        for _ in range(iterations - 1):
            np.minimum(best, _zini_run(chunk, human=human, rng=rng), out=best)
        out[start : start + step] = best
    return _result(out, single)


def zini(mines: Boards) -> Any:
    """ZiNi: the clicks a greedy flagging, chording player needs to clear each board.

    The community's estimate of the fewest clicks (left, right and chord)
    that clear a board, after Elmar Zimmermann and Christoph Nikolaus.  Each
    safe cell has a *premium*: the 3BV a chord on it would clear (the
    isolated numbers around and on it, and the openings it borders) minus
    what the chord costs (a click to open the cell unless it is open, a flag
    for each unflagged mine around it, and the chord).  Until the board is
    clear, the cell of highest premium is opened, its mines flagged and it
    is chorded, if that premium is at least 0; otherwise the first opening or
    isolated number still hidden is clicked.  Ties go to the first cell in
    column-major order (down each column, then left to right), as in the
    original program and in ms-toollib's ``cal_zini``.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    int or ndarray of int64, shape (n,)
        Clicks, flags included.  At most the 3BV: a chord is made only when
        it clears at least as much 3BV as it costs clicks.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    See Also
    --------
    hzini : the variant that clicks every opening first.
    rzini : the variant that breaks ties at random and keeps its best run.

    Notes
    -----
    All boards of a batch advance one chord per step, in lock-step; a step
    costs one pass over the premiums of the boards still unsolved, so a
    board costs O(chords x cells), like the original.  That suits boards up
    to some 10^4 cells; far larger ones take minutes.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> mines = np.zeros((3, 3), dtype=bool); mines[1, 1] = True
    >>> # open (1, 0), flag the mine, chord; open (1, 2), chord: 5 clicks, not 8
    >>> ns.metrics.three_bv(mines), ns.metrics.zini(mines)
    (8, 5)
    >>> batch = ns.generate_boards(3, 16, 30, 99, seed=1)
    >>> ns.metrics.three_bv(batch), ns.metrics.zini(batch)
    (array([160, 151, 185]), array([112, 111, 122]))
    """
    return _zini(mines, human=False)


def hzini(mines: Boards) -> Any:
    """HZiNi, "human ZiNi": click every opening first, then chord greedily from open cells.

    Like :func:`zini`, except that the player first clicks each opening
    (in column-major order) and afterwards only chords cells already open,
    as people do; when no such chord pays it clicks the first hidden
    isolated number.  The same as ms-toollib's ``cal_hzini``.

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).

    Returns
    -------
    int or ndarray of int64, shape (n,)
        Clicks, flags included.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet.

    Examples
    --------
    >>> import numsweeper as ns
    >>> batch = ns.generate_boards(3, 16, 30, 99, seed=1)
    >>> ns.metrics.zini(batch), ns.metrics.hzini(batch)
    (array([112, 111, 122]), array([117, 118, 134]))
    """
    return _zini(mines, human=True)


def rzini(mines: Boards, *, iterations: int = RZINI_ITERATIONS, seed: Any = None) -> Any:
    """RZiNi, "random ZiNi": the best of several greedy runs that break ties at random.

    Each run is :func:`zini` with ties among the cells of highest premium,
    and among the cells to click when no chord pays, broken uniformly at
    random; the result is the fewest clicks of ``iterations`` runs.  The
    same procedure as ms-toollib's ``cal_rzini`` (whose random numbers are
    its own, so single values differ but distributions agree).

    Parameters
    ----------
    mines : Board, Game, BoardBatch, BatchGame or array_like of bool
        Mine layouts: one board (a ``(rows, cols)`` mask, a Board or a Game)
        or a batch (``(n, rows, cols)``, a BoardBatch or a BatchGame).
    iterations : int
        Runs per board, at least 1; :data:`RZINI_ITERATIONS` by default.
    seed : None, int, SeedSequence or Generator, optional
        Seed of the tie-breaking.

    Returns
    -------
    int or ndarray of int64, shape (n,)
        Clicks, flags included: on expert boards with 100 runs, 2.6 fewer
        than :func:`zini` on average.  It can (rarely) exceed ZiNi, since
        no run need make the greedy run's choices.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards, or is a game whose mines are not laid yet; or if
        ``iterations`` is below 1.
    TypeError
        If ``iterations`` is not an integer.

    Examples
    --------
    >>> import numsweeper as ns
    >>> batch = ns.generate_boards(3, 16, 30, 99, seed=1)
    >>> ns.metrics.zini(batch), ns.metrics.rzini(batch, iterations=20, seed=0)
    (array([112, 111, 122]), array([110, 110, 120]))
    """
    iterations = check_at_least(iterations, "iterations", 1)
    return _zini(mines, human=False, iterations=iterations, rng=make_rng(seed))


# -- a game's efficiency ----------------------------------------------------------

_REVEAL, _FLAG, _CHORD = (MOVE_KINDS.index(kind) for kind in ("reveal", "flag", "chord"))


@dataclass(frozen=True)
class Efficiency:
    """How efficiently a game was played, in the community's terms.

    Made by :func:`efficiency`: plain numbers for one game, arrays of shape
    ``(n,)`` for the games of a simulation.

    Attributes
    ----------
    three_bv : int or ndarray of int64
        The board's 3BV.
    solved_three_bv : int or ndarray of int64
        The 3BV cleared: openings with a revealed cell and revealed isolated
        numbers (the whole 3BV for a won game).
    clicks : int or ndarray of int64
        Reveals and chords, effective or not (flags are counted apart).
    effective_clicks : int or ndarray of int64
        Reveals and chords that uncovered at least one safe cell.
    flags : int or ndarray of int64
        Flag toggles, placed or removed.
    elapsed : float or ndarray of float64
        The player's time in seconds (:attr:`Game.elapsed`); NaN when not
        recorded.

    Notes
    -----
    Every ratio uses the solved 3BV, so an unfinished game is measured on
    what it cleared, as community clients do, and is NaN when its
    denominator is 0.  Community clients count right clicks among "clicks";
    here they are :attr:`flags`, so their IOE is ``solved_three_bv / (clicks
    + flags)``.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(1, 1)]))
    >>> _ = game.reveal(0, 0); _ = game.toggle_flag(1, 1); _ = game.chord(0, 0)
    >>> e = ns.metrics.efficiency(game)
    >>> e.three_bv, e.clicks, e.effective_clicks, e.flags, e.solved_three_bv
    (8, 2, 2, 1, 3)
    >>> e.ioe, e.throughput, e.correctness
    (1.5, 1.5, 1.0)

    Made by hand, with a time, and NaN where a denominator is 0:

    >>> import numpy as np
    >>> e = ns.metrics.Efficiency(
    ...     three_bv=np.array([8, 5]), solved_three_bv=np.array([3, 0]),
    ...     clicks=np.array([2, 0]), effective_clicks=np.array([2, 0]),
    ...     flags=np.array([1, 0]), elapsed=np.array([2.0, 0.0]),
    ... )
    >>> e.three_bv_per_second, e.ioe
    (array([1.5, nan]), array([1.5, nan]))
    """

    three_bv: Any
    solved_three_bv: Any
    clicks: Any
    effective_clicks: Any
    flags: Any
    elapsed: Any

    @property
    def ioe(self) -> Any:
        """Index of efficiency: solved 3BV per click (float, or float64 array ``(n,)``)."""
        return _ratio(self.solved_three_bv, self.clicks)

    @property
    def throughput(self) -> Any:
        """Solved 3BV per effective click (float, or float64 array ``(n,)``)."""
        return _ratio(self.solved_three_bv, self.effective_clicks)

    @property
    def correctness(self) -> Any:
        """Effective clicks per click (float, or float64 array ``(n,)``)."""
        return _ratio(self.effective_clicks, self.clicks)

    @property
    def three_bv_per_second(self) -> Any:
        """Solved 3BV per second of the player's time (float, or float64 array ``(n,)``)."""
        return _ratio(self.solved_three_bv, self.elapsed)


def _ratio(top: Any, bottom: Any) -> Any:
    if np.ndim(bottom):
        out = np.full(np.shape(bottom), np.nan)
        np.divide(top, bottom, out=out, where=np.asarray(bottom) > 0)
        return out
    return top / bottom if bottom > 0 else math.nan


def efficiency(played: Any) -> Efficiency:
    """Clicks, effective clicks, IOE, throughput and 3BV/s of a game, from its moves.

    Parameters
    ----------
    played : Game or SimulationResult
        A game (its :attr:`~numsweeper.Game.moves` are replayed on its
        layout to see which uncovered something), or the result of
        ``simulate(..., trace=True)``, whose trace gives every game's moves.

    Returns
    -------
    Efficiency
        Numbers for a game; arrays of shape ``(n,)``, one per record, for a
        simulation (``elapsed`` NaN: a simulation does not time games).

    Raises
    ------
    InvalidBoardError
        If the game's mines are not laid yet.
    ValueError
        If a simulation result has no trace.
    TypeError
        If ``played`` is neither.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(1, 5, 1, strategy=ns.FixedPlacement([(0, 2)]))
    >>> _ = game.reveal(0, 0); _ = game.reveal(0, 0); _ = game.reveal(0, 4)
    >>> e = ns.metrics.efficiency(game)
    >>> e.clicks, e.effective_clicks, e.ioe, e.throughput
    (3, 2, 0.6666666666666666, 1.0)
    >>> result = ns.simulate(3, 9, 9, 10, seed=1, trace=True)
    >>> ns.metrics.efficiency(result).clicks.shape
    (3,)
    """
    if isinstance(played, Game):
        return _game_efficiency(played)
    from .simulate import SimulationResult

    if isinstance(played, SimulationResult):
        return _traced_efficiency(played)
    raise InvalidTypeError(
        f"efficiency needs a Game or a SimulationResult, got {type(played).__name__}"
    )


def _game_efficiency(game: Game) -> Efficiency:
    board = game.board
    if board is None:
        raise InvalidBoardError(
            f"the game has no mines yet: first_click={game.first_click!r} "
            "lays them at the first reveal"
        )
    moves = game.moves
    replay = game.replay(0)
    mines = board.mines
    counts = {"reveal": 0, "chord": 0, "flag": 0}
    effective = 0
    for move in moves:
        counts[move.kind] += 1
        if move.kind == "flag":
            replay.toggle_flag(move.row, move.col)
            continue
        play = replay.reveal if move.kind == "reveal" else replay.chord
        cells = play(move.row, move.col).cells
        effective += bool((~mines[cells[:, 0], cells[:, 1]]).any())
    solved = three_bv_solved(mines[None], board.counts[None], board.revealed[None])
    return Efficiency(
        three_bv=three_bv(mines),
        solved_three_bv=int(solved[0]),
        clicks=counts["reveal"] + counts["chord"],
        effective_clicks=effective,
        flags=counts["flag"],
        elapsed=game.elapsed,
    )


def _traced_efficiency(result: Any) -> Efficiency:
    records, trace = result.records, result.moves
    if trace is None:
        raise InvalidBoardError("this run has no trace: simulate(..., trace=True) makes one")
    order = np.argsort(records["game"], kind="stable")
    row = order[np.searchsorted(records["game"], trace["game"], sorter=order)]
    n = len(records)
    kind = trace["kind"]
    clicking = kind != _FLAG
    return Efficiency(
        three_bv=records["three_bv"].astype(np.int64),
        solved_three_bv=records["three_bv_solved"].astype(np.int64),
        clicks=np.bincount(row[clicking], minlength=n),
        effective_clicks=np.bincount(row[clicking & (trace["cells"] > 0)], minlength=n),
        flags=np.bincount(row[~clicking], minlength=n),
        elapsed=np.full(n, np.nan),
    )
