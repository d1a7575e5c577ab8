"""The single-number rules, to a fixed point, over a batch of boards."""

from __future__ import annotations

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

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
    previous one decided.  The work is two compiled passes over each board
    plus work in proportion to its frontier, and the memory three bytes
    per cell besides the two masks returned, and eight per hidden cell (at
    most eight per cell in all).

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


@helper
def _row_sums(cells: NDArray[np.int8], r: int, cols: int, out: NDArray[np.int64]) -> None:
    """``out[c]``: hidden cells among row ``r``'s columns ``c - 1 .. c + 1``."""
    for c in range(cols):
        x = 0
        for cc in range(max(c - 1, 0), min(c + 2, cols)):
            x += cells[r * cols + cc] < 0
        out[c] = x


@kernel(readonly(nt.int8[:, :, ::1]), nt.int64)
def local_rules_stack(
    visible: NDArray[np.int8], max_rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """:func:`local_rules` on a ``(k, rows, cols)`` int8 stack.

    Each number's need and count of undecided hidden neighbours are kept up
    to date (one byte each), and each round looks only at the numbers next
    to a cell the previous round decided (the others cannot fire).  Per
    cell, ``mark`` holds whether this round makes it a mine or safe, or
    (for a number) whether it is already listed for the next round.
    """
    k, rows, cols = visible.shape
    n = rows * cols
    safe = np.zeros(visible.shape, dtype=np.bool_)
    mines = np.zeros(visible.shape, dtype=np.bool_)
    need = np.zeros(n, dtype=np.int8)
    n_free = np.zeros(n, dtype=np.int8)
    mark = np.zeros(n, dtype=np.uint8)  # (all clear between boards)
    across = np.zeros((3, cols), dtype=np.int64)
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
    active = np.empty(numbers, dtype=np.int64)
    decided = np.empty(hidden, dtype=np.int64)
    for b in range(k):
        cells = visible[b].reshape(n)
        is_safe = safe[b].reshape(n)
        is_mine = mines[b].reshape(n)
        # each number's hidden neighbours, from 3-wide row sums of hidden
        # cells (three rows of them at a time); a number with none never fires
        n_active = 0
        _row_sums(cells, 0, cols, across[0])
        for r in range(rows):
            if r + 1 < rows:
                _row_sums(cells, r + 1, cols, across[(r + 1) % 3])
            here, above, below = across[r % 3], across[(r - 1) % 3], across[(r + 1) % 3]
            for c in range(cols):
                i = r * cols + c
                if cells[i] < 0:
                    continue
                x = here[c]
                if r > 0:
                    x += above[c]
                if r + 1 < rows:
                    x += below[c]
                if x:
                    need[i] = cells[i]
                    n_free[i] = x  # (a number is not hidden itself)
                    active[n_active] = i
                    n_active += 1
        for _ in range(max_rounds):
            n_decided = 0
            for a in range(n_active):
                i = active[a]
                if n_free[i] == 0:
                    continue
                fire_mine = need[i] == n_free[i]
                fire_safe = need[i] == 0
                if not (fire_mine or fire_safe):
                    continue
                r, c = i // cols, i % cols
                for rr in range(max(r - 1, 0), min(r + 2, rows)):
                    for cc in range(max(c - 1, 0), min(c + 2, cols)):
                        j = rr * cols + cc
                        if j == i or cells[j] >= 0 or is_safe[j] or is_mine[j]:
                            continue
                        if not mark[j]:
                            decided[n_decided] = j
                            n_decided += 1
                        if fire_mine:
                            mark[j] |= _TO_MINE
                        if fire_safe:
                            mark[j] |= _TO_SAFE
            if n_decided == 0:
                break
            # apply them all at once, and look again at their numbers
            n_active = 0
            for d in range(n_decided):
                j = decided[d]
                to_mine = mark[j] & _TO_MINE
                if to_mine:
                    is_mine[j] = True
                if mark[j] & _TO_SAFE:
                    is_safe[j] = True
                mark[j] = 0
                r, c = j // cols, j % cols
                for rr in range(max(r - 1, 0), min(r + 2, rows)):
                    for cc in range(max(c - 1, 0), min(c + 2, cols)):
                        i = rr * cols + cc
                        if cells[i] < 0:
                            continue
                        n_free[i] -= 1
                        if to_mine:
                            need[i] -= 1
                        if not mark[i] & _QUEUED:
                            mark[i] |= _QUEUED
                            active[n_active] = i
                            n_active += 1
            for a in range(n_active):
                mark[active[a]] = 0
    return safe, mines
