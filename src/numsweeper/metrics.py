"""Exact board metrics, vectorized over batches: 3BV, openings, islands, zero cells.

Definitions are the Minesweeper community's:

- an **opening** is an 8-connected region of safe cells whose count is 0;
- an **isolated number** is a safe numbered cell with no zero-count neighbour
  (no opening ever reveals it);
- **3BV** (Bechtel's Board Benchmark Value, the fewest left clicks that clear
  the board) is the number of openings plus the number of isolated numbers;
- an **island** is an 8-connected group of isolated numbers;
- **zero cells** are the safe cells whose count is 0.

Every function takes one mine mask ``(rows, cols)`` and returns an int, or a
batch ``(n, rows, cols)`` (or a :class:`~numsweeper.BoardBatch`) and returns
an ``(n,)`` int64 array.  No Python loop runs per board.

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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
)
from .batch import BoardBatch
from .errors import InvalidBoardError

__all__ = ["STATS_DTYPE", "board_stats", "islands", "openings", "three_bv", "zero_cells"]

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


def _as_mines(mines: ArrayLike | BoardBatch) -> tuple[NDArray[np.bool_], bool]:
    """Validate a mine mask or batch; return it as (n, rows, cols) and whether it was one board."""
    if isinstance(mines, BoardBatch):
        return mines.mines, False
    array = np.asarray(mines)
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


def _measure(mines: ArrayLike | BoardBatch, want: frozenset[str]) -> tuple[Stats, bool]:
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


def three_bv(mines: ArrayLike | BoardBatch) -> Any:
    """3BV: the fewest left clicks that clear each board.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols) or (n, rows, cols), or BoardBatch
        Mine layouts.

    Returns
    -------
    int or ndarray of int64, shape (n,)
        Openings plus isolated numbers: an int for one board, an array for
        a batch.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards.

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


def openings(mines: ArrayLike | BoardBatch) -> Any:
    """Number of openings: 8-connected regions of zero-count safe cells.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols) or (n, rows, cols), or BoardBatch
        Mine layouts.

    Returns
    -------
    int or ndarray of int64, shape (n,)

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards.

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


def islands(mines: ArrayLike | BoardBatch) -> Any:
    """Number of islands: 8-connected groups of isolated numbers.

    An isolated number is a safe cell with a non-zero count and no
    zero-count neighbour, so no opening reveals it.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols) or (n, rows, cols), or BoardBatch
        Mine layouts.

    Returns
    -------
    int or ndarray of int64, shape (n,)

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards.

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


def zero_cells(mines: ArrayLike | BoardBatch) -> Any:
    """Number of safe cells with no adjacent mine.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols) or (n, rows, cols), or BoardBatch
        Mine layouts.

    Returns
    -------
    int or ndarray of int64, shape (n,)

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a bool array of 2 or 3 dimensions with non-empty
        boards.

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


def board_stats(mines: ArrayLike | BoardBatch) -> NDArray[np.void]:
    """All the metrics of each board at once, in one pass over the batch.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols) or (n, rows, cols), or BoardBatch
        Mine layouts.

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
        boards.

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
