"""The single-number rules, to a fixed point, over a batch of boards."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from .._constants import FLAG, HIDDEN
from .._validate import check_at_least, check_visible
from ._jit import frozen, helper, kernel, readonly

__all__ = ["local_rules"]

_INT62 = 2**62  # caps the round limit passed to the kernel (int64)

# bits of the kernel's per-cell marks
_TO_MINE, _TO_SAFE, _QUEUED = 1, 2, 4


def local_rules(
    visible: NDArray[np.int8], *, max_rounds: int = 32
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Cells the single-number rules prove safe or mined, for a batch.

    Parameters
    ----------
    visible : ndarray of int8, shape (..., rows, cols)
        Visible states; flags count as hidden.
    max_rounds : int
        Bound on the fixed-point iterations.

    Returns
    -------
    safe, mines : ndarray of bool, shape (..., rows, cols)
        Hidden cells proved safe, and hidden cells proved mined.

    Raises
    ------
    TypeError
        If ``visible`` does not hold integers, or ``max_rounds`` is not an
        integer.
    InvalidBoardError
        If ``visible`` has fewer than two dimensions, an empty board, or a
        value that is neither a count 0..8, HIDDEN nor FLAG.
    ValueError
        If ``max_rounds`` is negative.

    Notes
    -----
    Each round applies both rules everywhere at once to what the previous
    rounds proved: a number whose hidden neighbours not yet decided equal
    its need makes them mines, a number whose need is met makes them safe.
    Rounds repeat until one proves nothing new, or ``max_rounds`` of them
    have run.  A round looks again only at the numbers next to cells the
    previous one decided.  The work is a few compiled passes over each
    board plus work in proportion to its frontier, and the memory four
    bytes per cell of one board padded with a cell all round, besides the
    two masks returned, and eight per hidden cell (at most eight per cell
    in all).

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver import local_rules
    >>> v = np.array([[1, -1], [1, -1], [0, 0]], dtype=np.int8)
    >>> safe, mines = local_rules(v)
    >>> safe.astype(int).tolist(), mines.astype(int).tolist()
    ([[0, 0], [0, 1], [0, 0]], [[0, 1], [0, 0], [0, 0]])
    """
    cells = check_visible(visible, tuple(range(2, 33)), "(..., rows, cols)")
    rounds = check_at_least(max_rounds, "max_rounds", 0)
    return _local_rules(cells, max_rounds=rounds)


def _local_rules(
    visible: NDArray[np.int8], *, max_rounds: int = 32
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """:func:`local_rules` without the checks."""
    stack = np.ascontiguousarray(visible, dtype=np.int8).reshape((-1, *visible.shape[-2:]))
    safe, mines = local_rules_stack(frozen(stack), min(int(max_rounds), _INT62))
    return safe.reshape(visible.shape), mines.reshape(visible.shape)


def _first_safe(
    visible: NDArray[np.int8], *, max_rounds: int = 32
) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    """:func:`first_safe_stack` on a checked ``(k, rows, cols)`` stack."""
    stack = frozen(np.ascontiguousarray(visible, dtype=np.int8))
    return first_safe_stack(stack, min(int(max_rounds), _INT62))


# kinds of the cells of a board padded with one cell all round: a revealed
# number, a hidden cell not yet decided (flags too), or the padding; a hidden
# cell the rounds decide becomes _MINE, _SAFE or (inconsistent numbers) both
_NUMBER, _FREE, _EDGE, _MINE, _SAFE = 0, 1, 2, 4, 8


@helper
def _padding(rows: int, cols: int) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """The ``kind`` array of a padded board (all _EDGE), and its 8 neighbour steps."""
    width = cols + 2
    kind = np.full((rows + 2) * width, _EDGE, dtype=np.uint8)
    around = np.array(
        [-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1], dtype=np.int64
    )
    return kind, around


@helper
def _inside(padded: NDArray[Any], r: int, cols: int) -> NDArray[Any]:
    """Row ``r`` of a board, in its padded copy ``padded``."""
    return padded[(r + 1) * (cols + 2) + 1 : (r + 2) * (cols + 2) - 1]


@helper
def _frontier(
    cells: NDArray[np.int8],
    rows: int,
    cols: int,
    kind: NDArray[np.uint8],
    need: NDArray[np.int8],
    n_free: NDArray[np.int8],
    across: NDArray[np.uint8],
    active: NDArray[np.int64],
) -> int:
    """Loads a board into ``kind`` and ``need``; lists its frontier numbers (with ``n_free``)."""
    # (row slices throughout: indices numba knows are not negative, so the
    # loops have no wraparound tests and compile to vector code)
    width = cols + 2
    for r in range(rows):
        row, kinds, needs = (
            cells[r * cols : (r + 1) * cols],
            _inside(kind, r, cols),
            _inside(need, r, cols),
        )
        for c in range(cols):
            kinds[c] = _FREE if row[c] < 0 else _NUMBER
            needs[c] = row[c]
    # each number's hidden neighbours, from the column sums of three rows
    n_active = 0
    for r in range(1, rows + 1):
        above = kind[(r - 1) * width : r * width]
        here = kind[r * width : (r + 1) * width]
        below = kind[(r + 1) * width : (r + 2) * width]
        for c in range(width):
            across[c] = (  # (ints: numpy adds two bools as a logical or, uncompiled)
                int(above[c] == _FREE) + int(here[c] == _FREE) + int(below[c] == _FREE)
            )
        for c in range(1, cols + 1):
            if here[c] != _NUMBER:
                continue
            x = across[c - 1] + across[c] + across[c + 1]
            if x:
                n_free[r * width + c] = x
                active[n_active] = r * width + c
                n_active += 1
    return n_active


@helper
def _rounds(
    kind: NDArray[np.uint8],
    need: NDArray[np.int8],
    n_free: NDArray[np.int8],
    mark: NDArray[np.uint8],
    around: NDArray[np.int64],
    active: NDArray[np.int64],
    n_active: int,
    decided: NDArray[np.int64],
    max_rounds: int,
) -> None:
    """The rounds on one board loaded by :func:`_frontier`, deciding cells in ``kind``."""
    for _ in range(max_rounds):
        n_decided = 0
        for a in range(n_active):
            i = active[a]
            if n_free[i] == 0:
                continue
            bits = (_TO_MINE if need[i] == n_free[i] else 0) | (_TO_SAFE if need[i] == 0 else 0)
            if not bits:
                continue
            for d in range(8):
                j = i + around[d]
                if kind[j] != _FREE:
                    continue
                if not mark[j]:
                    decided[n_decided] = j
                    n_decided += 1
                mark[j] |= bits
        if n_decided == 0:
            break
        # apply them all at once, and look again at their numbers
        n_active = 0
        for d in range(n_decided):
            j = decided[d]
            to_mine = mark[j] & _TO_MINE
            kind[j] = (_MINE if to_mine else 0) | (_SAFE if mark[j] & _TO_SAFE else 0)
            mark[j] = 0
            for e in range(8):
                i = j + around[e]
                if kind[i] != _NUMBER:
                    continue
                n_free[i] -= 1
                if to_mine:
                    need[i] -= 1
                if not mark[i]:  # (a number's mark is only ever _QUEUED)
                    mark[i] = _QUEUED
                    active[n_active] = i
                    n_active += 1
        for a in range(n_active):
            mark[active[a]] = 0


@helper
def _scratch(
    visible: NDArray[np.int8],
) -> tuple[
    NDArray[np.int8],
    NDArray[np.int8],
    NDArray[np.uint8],
    NDArray[np.uint8],
    NDArray[np.int64],
    NDArray[np.int64],
]:
    """Work arrays for the boards of ``visible``: need, n_free, mark, across, active, decided."""
    k, rows, cols = visible.shape
    n = rows * cols
    size = (rows + 2) * (cols + 2)
    # room for the numbers next to hidden cells, and the cells one round
    # decides: in proportion to the hidden cells (never grown in the loops,
    # where a reassigned array would cost reference counting at every step)
    hidden = numbers = 0
    for b in range(k):
        cells = visible[b].reshape(n)
        here = 0
        for i in range(n):
            here += cells[i] < 0
        hidden = max(hidden, here)
        numbers = max(numbers, min(n - here, 8 * here))  # each next to a hidden cell
    return (
        np.zeros(size, dtype=np.int8),
        np.zeros(size, dtype=np.int8),
        np.zeros(size, dtype=np.uint8),  # (all clear between boards)
        np.zeros(cols + 2, dtype=np.uint8),
        np.empty(numbers, dtype=np.int64),
        np.empty(hidden, dtype=np.int64),
    )


@kernel(readonly(nt.int8[:, :, ::1]), nt.int64)
def local_rules_stack(
    visible: NDArray[np.int8], max_rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """:func:`local_rules` on a ``(k, rows, cols)`` int8 stack.

    Each board is copied into a padded one (no bounds to test), where each
    number's need and count of undecided hidden neighbours are kept up to
    date (one byte each), and each round looks only at the numbers next to
    a cell the previous round decided (the others cannot fire).  Per cell,
    ``mark`` holds whether this round makes it a mine or safe, or (for a
    number) whether it is already listed for the next round.
    """
    k, rows, cols = visible.shape
    n = rows * cols
    safe = np.zeros(visible.shape, dtype=np.bool_)
    mines = np.zeros(visible.shape, dtype=np.bool_)
    need, n_free, mark, across, active, decided = _scratch(visible)
    kind, around = _padding(rows, cols)
    for b in range(k):
        n_active = _frontier(visible[b].reshape(n), rows, cols, kind, need, n_free, across, active)
        _rounds(kind, need, n_free, mark, around, active, n_active, decided, max_rounds)
        for r in range(rows):
            kinds, is_safe, is_mine = _inside(kind, r, cols), safe[b, r], mines[b, r]
            for c in range(cols):
                is_safe[c] = (kinds[c] & _SAFE) != 0
                is_mine[c] = (kinds[c] & _MINE) != 0
    return safe, mines


@kernel(readonly(nt.int8[:, :, ::1]), nt.int64)
def first_safe_stack(
    visible: NDArray[np.int8], max_rounds: int
) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    """What the policy needs of :func:`local_rules` on a ``(k, rows, cols)`` stack.

    Per board: the first HIDDEN (not flagged) cell proved safe, as a
    row-major index (-1 if none), whether any cell is revealed, and how
    many are flagged; the rounds are :func:`local_rules_stack`'s, with no
    masks made.
    """
    k, rows, cols = visible.shape
    n = rows * cols
    first = np.full(k, -1, dtype=np.int64)
    revealed = np.zeros(k, dtype=np.bool_)
    flags = np.zeros(k, dtype=np.int64)
    need, n_free, mark, across, active, decided = _scratch(visible)
    kind, around = _padding(rows, cols)
    for b in range(k):
        cells = visible[b].reshape(n)
        n_numbers = n_flags = 0
        for i in range(n):
            n_numbers += cells[i] >= 0
            n_flags += cells[i] == FLAG
        revealed[b] = n_numbers > 0
        flags[b] = n_flags
        n_active = _frontier(cells, rows, cols, kind, need, n_free, across, active)
        _rounds(kind, need, n_free, mark, around, active, n_active, decided, max_rounds)
        for r in range(rows):
            kinds, row = _inside(kind, r, cols), visible[b, r]
            for c in range(cols):
                if kinds[c] & _SAFE and row[c] == HIDDEN:
                    first[b] = r * cols + c
                    break
            if first[b] >= 0:
                break
    return first, revealed, flags
