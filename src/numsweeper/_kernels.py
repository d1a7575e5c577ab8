"""Pure array kernels shared by Board, Game, the batch engine and update_board.

Every kernel takes ``(..., rows, cols)`` arrays where that makes sense and never
mutates its inputs.  Nothing here knows about games, states or errors.
"""

from __future__ import annotations

from collections.abc import Sequence

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


# -- batched kernels (lock-step games) -------------------------------------------

#: Structuring element that labels a ``(n, rows, cols)`` stack of boards at once:
#: 8-connectivity inside each board, none across the batch axis.
EIGHT_STACKED = np.zeros((3, 3, 3), dtype=bool)
EIGHT_STACKED[1] = True


def dilate8(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Grow a mask by one cell in all 8 directions, board by board.

    Parameters
    ----------
    mask : ndarray of bool, shape (..., rows, cols)
        Leading axes are independent boards; nothing leaks between them.

    Returns
    -------
    ndarray of bool, shape (..., rows, cols)
        A new array.

    Notes
    -----
    The 3x3 box is separable: OR three column shifts, then three row shifts.
    Cheaper than ``ndimage.binary_dilation`` with a 3-D structuring element.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import dilate8
    >>> dilate8(np.eye(4, dtype=bool)[None, :3]).astype(int)[0]
    array([[1, 1, 1, 0],
           [1, 1, 1, 1],
           [1, 1, 1, 1]])
    """
    rowwise = mask.copy()
    rowwise[..., :, 1:] |= mask[..., :, :-1]
    rowwise[..., :, :-1] |= mask[..., :, 1:]
    out = rowwise.copy()
    out[..., 1:, :] |= rowwise[..., :-1, :]
    out[..., :-1, :] |= rowwise[..., 1:, :]
    return out


def flood_batch(
    counts: NDArray[np.int8],
    open_: NDArray[np.bool_],
    games: NDArray[np.intp],
    rows: NDArray[np.intp],
    cols: NDArray[np.intp],
) -> NDArray[np.bool_]:
    """Find the cells that clicks on zero-count cells reveal, on many boards at once.

    The batched twin of :func:`flood_from`: for each board, the union over its
    clicks of the 8-connected component of open zero-count cells holding the
    click, dilated by one cell and restricted to open cells.  One
    ``ndimage.label`` call labels every board of the stack (the structuring
    element :data:`EIGHT_STACKED` never joins two boards).

    Parameters
    ----------
    counts : ndarray of int8, shape (k, rows, cols)
        Adjacent-mine counts of the boards.
    open_ : ndarray of bool, shape (k, rows, cols)
        Cells a flood may reveal and cross: not a mine, not revealed, not
        flagged.
    games, rows, cols : ndarray of intp, shape (m,)
        The clicks: board index into the stack, row and column; each on an
        open zero-count cell (not checked).  A board may have several.

    Returns
    -------
    ndarray of bool, shape (k, rows, cols)
        The cells to reveal; all of them open.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import adjacent_counts, flood_batch
    >>> mines = np.zeros((2, 3, 4), dtype=bool); mines[:, 0, 3] = True
    >>> mines[1, 1, 1] = True
    >>> clicks = np.array([0, 1]), np.array([2, 2]), np.array([0, 3])
    >>> flood_batch(adjacent_counts(mines), ~mines, *clicks).astype(int)
    array([[[1, 1, 1, 0],
            [1, 1, 1, 1],
            [1, 1, 1, 1]],
    <BLANKLINE>
           [[0, 0, 0, 0],
            [0, 0, 1, 1],
            [0, 0, 1, 1]]])
    """
    zero = open_ & (counts == 0)
    labels, count = ndimage.label(zero, structure=EIGHT_STACKED)
    clicked = labels[games, rows, cols]
    if games.size == len(labels) and np.array_equal(games, np.arange(games.size)):
        # One click per board (every reveal): a broadcast compare is ~10x
        # cheaper than the lookup table below.
        component = labels == clicked[:, None, None]
    else:
        chosen = np.zeros(count + 1, dtype=bool)
        chosen[clicked] = True
        chosen[0] = False
        component = chosen[labels]
    region = dilate8(component)
    region &= open_
    return region


def three_bv_solved(
    mines: NDArray[np.bool_], counts: NDArray[np.int8], revealed: NDArray[np.bool_]
) -> NDArray[np.intp]:
    """Count the 3BV a player has cleared on each board of a stack.

    An opening (an 8-connected region of zero-count safe cells) counts once
    as soon as any of its cells is revealed; a safe numbered cell with no
    zero-count neighbour counts when it is revealed.  With every safe cell
    revealed this is the board's 3BV.

    Parameters
    ----------
    mines, counts, revealed : ndarray, shape (n, rows, cols)
        Mine layouts, adjacent counts and revealed cells.

    Returns
    -------
    ndarray of intp, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import adjacent_counts, three_bv_solved
    >>> mines = np.array([[[0, 0, 0, 1, 0]]], dtype=bool)
    >>> revealed = np.array([[[1, 1, 0, 0, 0]]], dtype=bool)
    >>> three_bv_solved(mines, adjacent_counts(mines), revealed)  # 1 of 2 cleared
    array([1])
    """
    n = mines.shape[0]
    zero = ~mines & (counts == 0)
    labels, _ = ndimage.label(zero, structure=EIGHT_STACKED)
    # Labels run in raster order, so board i owns the labels up to last[i].
    cells = mines.shape[-2] * mines.shape[-1]
    last = np.maximum.accumulate(labels.reshape(n, cells).max(axis=1, initial=0))
    touched = np.unique(labels[revealed & zero])
    openings = np.bincount(np.searchsorted(last, touched), minlength=n)
    isolated = revealed & ~mines & ~dilate8(zero)
    solved: NDArray[np.intp] = openings + np.count_nonzero(isolated, axis=(1, 2))
    return solved


def visible_in_progress(
    counts: NDArray[np.int8], revealed: NDArray[np.bool_], flagged: NDArray[np.bool_] | None
) -> NDArray[np.int8]:
    """:func:`visible_cells` for boards still in progress, by arithmetic.

    While a game is in progress no mine shows, so the visible state is the
    count where revealed, ``FLAG`` where flagged and ``HIDDEN`` elsewhere.
    Computed as ``(counts + 1) * revealed - 1`` (then minus one more on flags),
    which is an order of magnitude faster on big batches than the masked
    assignments of :func:`visible_cells`.

    Parameters
    ----------
    counts, revealed : ndarray, shape (..., rows, cols)
        Adjacent counts and revealed cells.
    flagged : ndarray of bool, shape (..., rows, cols), or None
        Flags; ``None`` when there are none.

    Returns
    -------
    ndarray of int8, shape (..., rows, cols)

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._kernels import visible_cells, visible_in_progress
    >>> counts = np.array([[0, 1, 2]], dtype=np.int8)
    >>> revealed = np.array([[True, True, False]])
    >>> flagged = np.array([[False, False, True]])
    >>> visible_in_progress(counts, revealed, flagged)
    array([[ 0,  1, -2]], dtype=int8)
    >>> no_mines = np.zeros((1, 3), dtype=bool)
    >>> bool((visible_cells(counts, revealed, flagged, no_mines, no_mines) == _).all())
    True
    """
    assert HIDDEN == -1 and FLAG == HIDDEN - 1  # the arithmetic below relies on it
    out = counts + np.int8(1)
    out *= revealed
    out -= np.int8(1)
    if flagged is not None:
        out -= flagged
    return out
