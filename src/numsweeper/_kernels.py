"""Pure array kernels shared by Board, Game, the batch engine and update_board.

Every kernel takes ``(..., rows, cols)`` arrays where that makes sense and never
mutates its inputs.  Nothing here knows about games, states or errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy import ndimage

from ._constants import EXPLODED, FLAG, HIDDEN, MINE, WRONG_FLAG

__all__ = ["EIGHT", "adjacent_counts", "flood_from", "visible_cells"]

#: 8-connectivity structuring element for one 2-D board.
EIGHT = np.ones((3, 3), dtype=bool)

# Half-width of the first window a flood is labelled in.  Small openings (the
# common case) fit at once; larger ones double the window until they fit, so
# the total work is a constant factor of the region's bounding box.
_FIRST_HALF_WIDTH = 8


def adjacent_counts(mines: NDArray[np.bool_]) -> NDArray[np.int8]:
    """Count the mines among each cell's 8 neighbours.

    Parameters
    ----------
    mines : ndarray of bool, shape (..., rows, cols)
        Mine masks; leading axes are independent boards.

    Returns
    -------
    ndarray of int8, shape (..., rows, cols)
        Counts in ``0..8``.  A mine's own cell is not counted.

    Notes
    -----
    The 3x3 box sum is separable: a horizontal 3-sum followed by a vertical
    3-sum, minus the centre.  That is four in-place slice additions and one
    subtraction on int8, with one temporary of the board's size.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import adjacent_counts
    >>> adjacent_counts(np.array([[1, 0, 0], [0, 0, 0]], dtype=bool))
    array([[0, 1, 0],
           [1, 1, 0]], dtype=int8)
    """
    m = np.asarray(mines, dtype=bool).view(np.int8)
    row_sum = m.copy()
    row_sum[..., :, 1:] += m[..., :, :-1]
    row_sum[..., :, :-1] += m[..., :, 1:]
    counts = row_sum.copy()
    counts[..., 1:, :] += row_sum[..., :-1, :]
    counts[..., :-1, :] += row_sum[..., 1:, :]
    del row_sum
    counts -= m
    return counts


def flood_from(
    counts: NDArray[np.int8],
    blockers: Sequence[NDArray[np.bool_]],
    row: int,
    col: int,
) -> tuple[tuple[int, int], NDArray[np.bool_]]:
    """Find the cells one click on a zero-count cell reveals.

    The region is the 8-connected component of open zero-count cells that
    holds ``(row, col)``, dilated by one cell and restricted to open cells.  A
    cell is open when it is False in every array of ``blockers`` (typically
    mines, revealed cells and flags), so blocked cells are neither revealed nor
    crossed.

    Work follows the region, not the board: the component is labelled inside
    a window around the click that doubles until the component no longer
    touches a window edge that is not a board edge.

    Parameters
    ----------
    counts : ndarray of int8, shape (rows, cols)
        Adjacent mine counts.
    blockers : sequence of ndarray of bool, shape (rows, cols)
        Cells that the flood may neither reveal nor cross.
    row, col : int
        The click, on an open cell with count 0 (not checked).

    Returns
    -------
    origin : tuple of int
        ``(row, col)`` of the window's top-left corner on the board.
    mask : ndarray of bool, shape (h, w)
        The cells to reveal, relative to ``origin``.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import adjacent_counts, flood_from
    >>> mines = np.zeros((3, 4), dtype=bool); mines[0, 3] = True
    >>> origin, mask = flood_from(adjacent_counts(mines), [mines], 2, 0)
    >>> origin, mask.astype(int)
    ((0, 0), array([[1, 1, 1, 0],
           [1, 1, 1, 1],
           [1, 1, 1, 1]]))
    """
    rows, cols = counts.shape
    half = _FIRST_HALF_WIDTH
    while True:
        r0, r1 = max(row - half, 0), min(row + half + 1, rows)
        c0, c1 = max(col - half, 0), min(col + half + 1, cols)
        window = (slice(r0, r1), slice(c0, c1))
        open_ = ~blockers[0][window]
        for blocked in blockers[1:]:
            open_ &= ~blocked[window]
        zero = open_ & (counts[window] == 0)
        labels, _ = ndimage.label(zero, structure=EIGHT)
        component = labels == labels[row - r0, col - c0]
        grow = (
            (r0 > 0 and component[0].any())
            or (r1 < rows and component[-1].any())
            or (c0 > 0 and component[:, 0].any())
            or (c1 < cols and component[:, -1].any())
        )
        if not grow:
            break
        half *= 2
    # The component stays clear of every inner window edge, so its one-cell
    # border lies inside the window too.
    region = ndimage.binary_dilation(component, structure=EIGHT)
    region &= open_
    return (r0, c0), region


def visible_cells(
    counts: NDArray[np.int8],
    revealed: NDArray[np.bool_],
    flagged: NDArray[np.bool_],
    mines: NDArray[np.bool_],
    exploded: NDArray[np.bool_],
    *,
    lost: bool | NDArray[np.bool_] = False,
    won: bool | NDArray[np.bool_] = False,
) -> NDArray[np.int8]:
    """Encode what a player sees, for one board or a batch.

    Parameters
    ----------
    counts, revealed, flagged, mines, exploded : ndarray, shape (..., rows, cols)
        Board arrays; ``exploded`` marks mines the player uncovered.
    lost, won : bool or ndarray of bool, shape (...)
        Per-board terminal flags.  A lost board shows every mine, its
        exploded mines and its wrong flags; a won board shows every mine as a
        flag.  While neither is set, nothing about hidden mines leaks.

    Returns
    -------
    ndarray of int8, shape (..., rows, cols)
        ``0..8`` for revealed counts, else one of the negative codes
        ``HIDDEN``, ``FLAG``, ``MINE``, ``EXPLODED`` or ``WRONG_FLAG``.
    """
    out = np.where(revealed, counts, HIDDEN).astype(np.int8, copy=False)
    out[flagged] = FLAG
    lost_ = np.asarray(lost, dtype=bool)[..., None, None]
    won_ = np.asarray(won, dtype=bool)[..., None, None]
    if lost_.any():
        out[lost_ & mines & ~flagged] = MINE
        out[lost_ & flagged & ~mines] = WRONG_FLAG
        out[lost_ & exploded] = EXPLODED
    if won_.any():
        out[won_ & mines] = FLAG
    return out


# -- batched kernels for the bulk engine (boards and metrics) ------------------


def adjacent_counts_stack(
    mines: NDArray[np.bool_], *, out: NDArray[np.int8] | None = None
) -> NDArray[np.int8]:
    """:func:`adjacent_counts` for a stack of boards, three times faster.

    Parameters
    ----------
    mines : ndarray of bool, shape (n, rows, cols)
        Mine masks.
    out : ndarray of int8, shape (n, rows, cols), C-contiguous, optional
        Where to write the counts (for example a slice of a bigger batch),
        instead of a new array.

    Returns
    -------
    ndarray of int8, shape (n, rows, cols)
        The same counts as ``adjacent_counts(mines)``; ``out`` if given.

    Notes
    -----
    The neighbour sums run over the flattened stack, so every addition is one
    long contiguous loop instead of one short loop per row; the few sums that
    wrap from one row (or board) into the next are then taken back.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import adjacent_counts_stack
    >>> adjacent_counts_stack(np.array([[[1, 0, 0], [0, 0, 0]]], dtype=bool))
    array([[[0, 1, 0],
            [1, 1, 0]]], dtype=int8)
    """
    n, _, cols = mines.shape
    if out is None:
        out = np.empty(mines.shape, dtype=np.int8)
    elif out.shape != mines.shape or out.dtype != np.int8 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous int8 array of shape {mines.shape}")
    if n == 0:
        return out
    m = np.ascontiguousarray(mines, dtype=bool).view(np.int8).reshape(-1)
    across = m.copy()
    across[1:] += m[:-1]
    across[:-1] += m[1:]
    # Take back the sums that wrapped from the end of one row to the next.
    by_row, m_row = across.reshape(-1, cols), m.reshape(-1, cols)
    by_row[1:, 0] -= m_row[:-1, -1]
    by_row[:-1, -1] -= m_row[1:, 0]
    counts = out.reshape(-1)
    counts[...] = across
    counts[cols:] += across[:-cols]
    counts[:-cols] += across[cols:]
    # ... and those that wrapped from the last row of a board to the next.
    by_board, across_board = counts.reshape(n, -1), across.reshape(n, -1)
    by_board[1:, :cols] -= across_board[:-1, -cols:]
    by_board[:-1, -cols:] -= across_board[1:, :cols]
    counts -= m
    return out


# Packed boards.  A board up to 62 columns wide has one *lane* of ``cols + 1``
# bits in a uint64 word per row: column ``c`` is bit ``c + 1`` of the lane,
# and bit 0 is an always-clear gap shared with the lane before it (the last
# lane's gap on its right is the word's next bit).  A word holds
# ``63 // (cols + 1)`` boards side by side, and a packed stack is laid out
# (rows, words), so that one contiguous operation updates a whole row of
# many boards.  Shifts by one bit only ever spill into a gap, and every
# result is masked with the cells before it is used again.

#: Widest board that :func:`pack_boards` can pack.
MAX_PACKED_COLS = 62

_ONE = np.uint64(1)


@dataclass(frozen=True)
class PackedLayout:
    """Geometry of a packed stack of boards (see :func:`pack_boards`).

    Attributes
    ----------
    rows, cols : int
        Size of every board.
    lanes : int
        Boards per word.
    cells : numpy.uint64
        The bits of a word that are cells.
    edge : ndarray of uint64, shape (rows, 1)
        The cells on each board's edge, per row.
    lane_masks : tuple of numpy.uint64
        Every bit of each lane, gap included, lane 0 first.
    """

    rows: int
    cols: int
    lanes: int
    cells: np.uint64
    edge: NDArray[np.uint64]
    lane_masks: tuple[np.uint64, ...]

    @classmethod
    def of(cls, rows: int, cols: int) -> PackedLayout:
        """The layout for ``rows`` x ``cols`` boards (``cols <= MAX_PACKED_COLS``)."""
        width = cols + 1
        lanes = 63 // width
        row_cells = ((1 << cols) - 1) << 1
        ends = (1 << 1) | (1 << cols)
        cells = sum(row_cells << (j * width) for j in range(lanes))
        sides = sum(ends << (j * width) for j in range(lanes))
        edge = np.full((rows, 1), sides, dtype=np.uint64)
        edge[0] = edge[-1] = cells
        lane_masks = tuple(np.uint64(((1 << width) - 1) << (j * width)) for j in range(lanes))
        return cls(rows, cols, lanes, np.uint64(cells), edge, lane_masks)

    def totals(self, words: NDArray[np.uint64]) -> NDArray[np.int64]:
        """Set bits per board of ``(rows', words)`` packed data, shape ``(words, lanes)``."""
        out = np.empty((words.shape[1], self.lanes), dtype=np.int64)
        for j, mask in enumerate(self.lane_masks):
            out[:, j] = np.bitwise_count(words & mask).sum(axis=0, dtype=np.int64)
        return out


def pack_boards(mask: NDArray[np.bool_]) -> tuple[NDArray[np.uint64], PackedLayout]:
    """Pack a stack of boards into lanes of uint64 words.

    Parameters
    ----------
    mask : ndarray of bool, shape (n, rows, cols)
        Boards with ``cols <= MAX_PACKED_COLS``.

    Returns
    -------
    words : ndarray of uint64, shape (rows, ceil(n / lanes))
        Board ``i`` is lane ``i % lanes`` of column ``i // lanes``.
    layout : PackedLayout

    Notes
    -----
    ``np.packbits`` over the flat array is far faster than along the last
    axis; rows are then cut out of the bit stream by word gathers and shifts.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import pack_boards
    >>> words, layout = pack_boards(np.array([[[1, 0, 1]], [[0, 1, 1]]], dtype=bool))
    >>> layout.lanes, [bin(int(w)) for w in words[0]]
    (15, ['0b11001010'])
    """
    n, rows, cols = mask.shape
    layout = _layout(rows, cols)
    # Plans of metric-sized chunks are cached (at most 4 x 6 MB); larger
    # stacks compute theirs afresh.
    plan = _pack_plan if n * rows <= _PLAN_CACHE_ROWS else _pack_plan.__wrapped__
    index, low_shift, high_shift, lane_shift = plan(n, rows, cols)
    packed = np.packbits(np.ascontiguousarray(mask, dtype=bool).reshape(-1), bitorder="little")
    stream = np.zeros(packed.size // 8 + 3, dtype="<u8")
    stream.view(np.uint8)[: packed.size] = packed
    lanes = stream[index]
    lanes >>= low_shift
    high = stream[index + 1]
    high <<= high_shift
    high <<= _ONE
    lanes |= high
    lanes &= np.uint64((1 << cols) - 1)
    lanes <<= lane_shift
    words = lanes[:, 0]
    for j in range(1, layout.lanes):
        words |= lanes[:, j]
    return words, layout


_PLAN_CACHE_ROWS = 1 << 18


@lru_cache(maxsize=16)
def _layout(rows: int, cols: int) -> PackedLayout:
    layout = PackedLayout.of(rows, cols)
    layout.edge.flags.writeable = False
    return layout


@lru_cache(maxsize=4)
def _pack_plan(
    n: int, rows: int, cols: int
) -> tuple[NDArray[np.int64], NDArray[np.uint64], NDArray[np.uint64], NDArray[np.uint64]]:
    """Where each (row, word, lane) of a packed stack starts in the flat bit stream.

    Returns the stream word holding the row's first bit, the right shift that
    brings it to bit 0, the left shift (less one) that brings the rest in from
    the next word, and the lane's offset; all shaped (rows, lanes, words).
    A lane past the last board reads the stream's zero padding.
    """
    lanes = 63 // (cols + 1)
    groups = -(-n // lanes)
    # Board g * lanes + j goes to lane j of word g: axes (rows, lanes, words),
    # so that every step below runs along the long, contiguous words axis.
    board = np.arange(groups * lanes, dtype=np.int64).reshape(groups, lanes).T[None]
    row = np.arange(rows, dtype=np.int64).reshape(rows, 1, 1)
    start = (board * rows + row) * cols
    index = start >> 6
    # The stream ends with two zero words (see pack_boards): padding lanes read them.
    index[:, board[0] >= n] = -(-(n * rows * cols) // 8) // 8 + 1
    low = (start & 63).astype(np.uint64)
    # A row starting on a word boundary needs a left shift by 64, which
    # numpy leaves undefined: shifting by 63 - low and then by 1 gives 0.
    high = np.uint64(63) - low
    lane = (np.arange(lanes, dtype=np.uint64) * np.uint64(cols + 1) + _ONE).reshape(1, lanes, 1)
    for array in (index, low, high, lane):
        array.flags.writeable = False
    return index, low, high, lane


def dilate_packed(words: NDArray[np.uint64], *, diagonal: bool = True) -> NDArray[np.uint64]:
    """Grow packed boards by one cell: into the 3x3 box, or the plus without diagonals.

    Parameters
    ----------
    words : ndarray of uint64, shape (rows, m)
        Packed boards, cells only.
    diagonal : bool
        True for 8 neighbours, False for 4.

    Returns
    -------
    ndarray of uint64, shape (rows, m)
        A new array.  It may have bits in the gaps: mask it with the layout's
        ``cells`` before using it as a board.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import dilate_packed
    >>> dilate_packed(np.array([[0], [4], [0]], dtype=np.uint64), diagonal=False).ravel()
    array([ 4, 14,  4], dtype=uint64)
    """
    out = words << _ONE
    out |= words >> _ONE
    out |= words
    source = out.copy() if diagonal else words
    out[1:] |= source[:-1]
    out[:-1] |= source[1:]
    return out


def euler_packed(
    words: NDArray[np.uint64], layout: PackedLayout, *, diagonal: bool = True
) -> NDArray[np.int64]:
    """Euler number (components minus holes) of each packed board.

    Parameters
    ----------
    words : ndarray of uint64, shape (rows, m)
        Packed boards, cells only.
    layout : PackedLayout
    diagonal : bool
        True for 8-connected cells (and 4-connected holes), False for the
        reverse.

    Returns
    -------
    ndarray of int64, shape (m, lanes)

    Notes
    -----
    Gray's bit quads: over every 2x2 window of the board padded by a ring of
    empty cells, ``(Q1 - Q3 - 2 QD) / 4`` for 8-connectivity and
    ``(Q1 - Q3 + 2 QD) / 4`` for 4, where ``Qk`` counts the windows with
    ``k`` cells set and ``QD`` the two diagonal pairs.  A window sits at the
    bit of its left column, so the gap bits hold each board's left-edge
    windows and no window spans two lanes.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import PackedLayout, euler_packed
    >>> ring = np.array([[14], [10], [14]], dtype=np.uint64)  # a 3x3 ring
    >>> layout = PackedLayout.of(3, 3)
    >>> euler_packed(ring, layout)[0, 0], euler_packed(ring, layout, diagonal=False)[0, 0]
    (np.int64(0), np.int64(0))
    """
    rows, m = words.shape
    # Window corners: x top-left, y top-right, z bottom-left, w bottom-right.
    x = np.zeros((rows + 1, m), dtype=np.uint64)
    z = np.zeros((rows + 1, m), dtype=np.uint64)
    x[1:] = words
    z[:-1] = words
    y = x >> _ONE
    w = z >> _ONE
    x_y = x ^ y
    diag = x_y & (x ^ z)
    diag &= ~(x ^ w)
    odd = x_y
    odd ^= z
    odd ^= w
    # An odd window holds three cells exactly when its top or bottom pair is full.
    x &= y
    z &= w
    x |= z
    x &= odd
    q1_minus_q3 = layout.totals(odd) - 2 * layout.totals(x)
    qd = layout.totals(diag)
    total = q1_minus_q3 - 2 * qd if diagonal else q1_minus_q3 + 2 * qd
    return total // 4


# Flood steps between convergence checks in :func:`reach_packed`.
_REACH_ROUND = 4


def reach_packed(
    allowed: NDArray[np.uint64], seeds: NDArray[np.uint64], *, diagonal: bool
) -> NDArray[np.uint64]:
    """Flood the ``allowed`` cells of packed boards from ``seeds``, to a fixed point.

    Parameters
    ----------
    allowed, seeds : ndarray of uint64, shape (rows, m)
        Packed boards, cells only; seeds outside ``allowed`` are ignored.
    diagonal : bool
        8-connected flood when True, 4-connected when False.

    Returns
    -------
    ndarray of uint64, shape (rows, m)
        The allowed cells connected to a seed.

    Notes
    -----
    Every few steps the words that stopped changing leave the working set,
    so one board with a long winding region does not keep the batch busy.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import reach_packed
    >>> allowed = np.array([[2], [6], [8]], dtype=np.uint64)
    >>> seeds = np.array([[2], [0], [0]], dtype=np.uint64)
    >>> reach_packed(allowed, seeds, diagonal=False).ravel()
    array([2, 6, 0], dtype=uint64)
    >>> reach_packed(allowed, seeds, diagonal=True).ravel()
    array([2, 6, 8], dtype=uint64)
    """
    current = seeds & allowed
    out = current.copy()
    active = np.arange(current.shape[1])
    while active.size:
        for _ in range(_REACH_ROUND - 1):
            current = dilate_packed(current, diagonal=diagonal)
            current &= allowed
        grown = dilate_packed(current, diagonal=diagonal)
        grown &= allowed
        moving = (grown != current).any(axis=0)
        done = ~moving
        out[:, active[done]] = grown[:, done]
        active, current, allowed = active[moving], grown[:, moving], allowed[:, moving]
    return out


def count_components_packed(
    words: NDArray[np.uint64], layout: PackedLayout, *, diagonal: bool = True
) -> NDArray[np.int64]:
    """Count the connected groups of set cells on each packed board.

    Parameters
    ----------
    words : ndarray of uint64, shape (rows, m)
        Packed boards, cells only.
    layout : PackedLayout
    diagonal : bool
        Count 8-connected groups when True, 4-connected when False.

    Returns
    -------
    ndarray of int64, shape (m, lanes)

    Notes
    -----
    Groups = Euler number + holes, where the holes are the groups of empty
    cells (with the other connectivity) that the board's edge cannot reach.
    Holes are rare on real boards; they are counted the same way, on the few
    words that have any, and that ends because each level lies strictly
    inside the holes of the level before.  The edge is reached from cells
    that see it along a straight empty line, which cuts the flood short.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import PackedLayout, count_components_packed
    >>> ring = np.array([[14], [10], [14]], dtype=np.uint64)
    >>> count_components_packed(ring, PackedLayout.of(3, 3))[0, :2]
    array([1, 0])
    """
    count = euler_packed(words, layout, diagonal=diagonal)
    empty = ~words
    empty &= layout.cells
    # Seeds: empty edge cells, and empty cells with a straight empty column
    # up or down to the edge.
    seeds = empty & layout.edge
    seeds |= np.bitwise_and.accumulate(empty, axis=0)
    seeds |= np.bitwise_and.accumulate(empty[::-1], axis=0)[::-1]
    enclosed = empty & ~reach_packed(empty, seeds, diagonal=not diagonal)
    holed = enclosed.any(axis=0)
    if holed.any():
        count[holed] += count_components_packed(enclosed[:, holed], layout, diagonal=not diagonal)
    return count
