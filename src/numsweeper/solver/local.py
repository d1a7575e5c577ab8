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
    have run.  The first round is two compiled passes over the board, a
    byte a cell and many cells an instruction: what each number makes its
    undecided neighbours, then what each undecided cell becomes.  Only the
    numbers next to a cell the round before decided can fire in a later
    round: it makes the same two passes over the cells between the first
    and last of them while those lie close together, else it takes a list
    of them.  So the work is a few compiled passes over each board plus
    work in proportion to the cells decided, and the memory four bytes per
    cell of one board and eight per hidden cell and per number next to
    one (at most eight per cell in all), besides the two masks returned.

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


# A board is laid out in ``kind`` and ``fire`` in row-major order, after a
# row and a cell of padding and before as many: cell i at i + cols + 1, so
# that each cell's eight neighbours are at fixed offsets, none outside.  The
# neighbours one column left (right) of a cell in the first (last) column
# are cells of the other edge of the board, which the rounds mask out with
# ``left`` (``right``): _ALL per cell, 0 in that column.
#
# ``kind``: _FREE for a hidden cell not yet decided (flags too), which the
# rounds make _MINE, _SAFE or (inconsistent numbers) both; 0 for revealed
# cells and the padding.  Summed over a cell's eight neighbours, ``kind &
# _COUNTED`` holds how many are undecided in its low four bits and how many
# are mines in its high four (neither more than 8).  Two bits live there
# only within a round: _QUEUED on a number a listed round has taken, _NEW on
# a cell a dense round has just decided (until it is listed).
# ``fire``: what a dense round makes a number's undecided neighbours (_MINE
# if they are all mines, _SAFE if its mines are all known), or 0; a listed
# round marks there what each undecided cell becomes.  It is all 0 between
# rounds.
# A number is its byte on the board read as np.uint8, which is 128 or more
# for a hidden cell: no count reaches it, so the rules need not ask what a
# cell is.
#
# All are np.uint8, and the rounds cast each sum back to it: numba computes
# integers in int64, and the casts let LLVM work on bytes, tens of cells a
# vector instruction.  ``kind`` and ``fire`` run on to a whole number of
# 8-byte words, which the scans for the few cells wanted read eight at a time.
_FREE, _MINE, _SAFE = np.uint8(1), np.uint8(16), np.uint8(32)
_COUNTED = _FREE | _MINE
_LOW, _ALL = np.uint8(15), np.uint8(255)
_QUEUED = np.uint8(64)  # (a number listed for a later round)
_NEW = np.uint8(128)  # (a cell decided in this round)
_SAFE_WORD = np.uint64(0x0101010101010101 * int(_SAFE))  # _SAFE in each byte
_NEW_WORD = np.uint64(0x0101010101010101 * int(_NEW))
#: A later round looks at every cell between the first and last of the
#: numbers next to the cells the round before decided while they span at
#: most this many cells per cell decided, else at a list of those numbers.
_DENSE_SPAN = 64


@helper
def _fired(counts: int | np.integer[Any], number: np.uint8) -> np.uint8:
    """What a number makes its undecided neighbours: the rule itself.

    ``counts`` is the sum of its neighbours' ``kind & _COUNTED``: _MINE
    if its undecided neighbours are all it still needs, _SAFE if it needs
    none, else 0 (a cell becomes both when two numbers disagree).
    """
    n_free, n_mines = np.uint8(counts & _LOW), np.uint8(counts >> 4)
    some = n_free != 0
    to_mine = some & (number == np.uint8(n_mines + n_free))
    to_safe = some & (number == n_mines)
    return np.uint8((_MINE if to_mine else 0) | (_SAFE if to_safe else 0))


@helper
def _scratch(
    rows: int, cols: int
) -> tuple[NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """``kind`` and ``fire`` for boards of this shape, and its ``left`` and ``right`` masks."""
    n = rows * cols
    length = (n + 2 * cols + 2 + 7) // 8 * 8
    kind = np.zeros(length, dtype=np.uint8)
    fire = np.zeros(length, dtype=np.uint8)
    left = np.full(n, _ALL, dtype=np.uint8)
    right = np.full(n, _ALL, dtype=np.uint8)
    for start in range(0, n, max(cols, 1)):
        left[start] = 0
        right[start + cols - 1] = 0
    return kind, fire, left, right


@helper
def _stack_rules(
    visible: NDArray[np.int8], max_rounds: int, masks: bool
) -> tuple[
    NDArray[np.bool_], NDArray[np.bool_], NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]
]:
    """The rounds on each board of a ``(k, rows, cols)`` stack, and what the kernels want of them.

    Returns ``safe`` and ``mines``, ``(k, rows * cols)`` with ``masks``
    (else no rows), and per board the first HIDDEN cell proved safe (-1 if
    none), whether a cell is revealed and how many are flagged (without
    ``masks``, else none).
    """
    # (One function, with the loop over the boards inside it: each array
    # passed to a helper, or view made, in that loop would cost reference
    # counting at every board, in all about a third of the time.)
    k, rows, cols = visible.shape
    n = rows * cols
    mask_rows = k if masks else 0  # (the other kernel's outputs are empty)
    safe = np.zeros((mask_rows, n), dtype=np.bool_)
    mines = np.zeros((mask_rows, n), dtype=np.bool_)
    first = np.full(k - mask_rows, -1, dtype=np.int64)
    revealed = np.zeros(k - mask_rows, dtype=np.bool_)
    flags = np.zeros(k - mask_rows, dtype=np.int64)
    boards = visible.reshape(k, n)
    kind, fire, left, right = _scratch(rows, cols)
    # room for the cells the later rounds decide (each once) and the
    # numbers next to them: in proportion to the hidden cells
    hidden = numbers = 0
    for b in range(k):
        here = 0
        for i in range(n):
            here += boards[b, i] < 0
        hidden = max(hidden, here)
        numbers = max(numbers, min(n - here, 8 * here))  # each next to a hidden cell
    decided = np.empty(hidden, dtype=np.int64)
    active = np.empty(numbers, dtype=np.int64)
    kind_words, fire_words = kind.view(np.uint64), fire.view(np.uint64)
    # Cell i is at p = i + reach in ``kind`` and ``fire`` (``kinds[i]`` and
    # ``fires[i]``), and its neighbours are cells i, i + 1 and i + 2 of the
    # views starting a row up (``up``), at its row (``at``: i + 1 is the cell
    # itself) and a row down (``down``).  Each loop's index is a range index
    # plus a start LLVM can tell is not negative, so it drops numba's
    # wraparound tests, and the loops run as vector code.
    reach = cols + 1  # a cell's neighbours are within this of it
    up, at, down = kind[0:], kind[cols:], kind[2 * cols :]
    fire_up, fire_at, fire_down = fire[0:], fire[cols:], fire[2 * cols :]
    kinds, fires = kind[reach:], fire[reach:]
    for b in range(k):
        any_number = any_flag = False
        for i in range(n):
            x = boards[b, i]
            kinds[i] = _FREE if x < 0 else 0
            any_number |= x >= 0
            any_flag |= x == FLAG
        earliest = n  # no cell decided comes before
        # Each round looks at the numbers from lo to hi, all of them in the
        # first round.  After it, only the numbers next to a cell the round
        # before decided can fire (one that fired has no undecided
        # neighbour left): a round looks at the rows about those cells if
        # they are close together ("dense"), else at a list of them, so
        # that its cost follows the cells decided, not the board.
        lo, hi = 0, n
        dense = True
        n_decided = 0
        for _ in range(max_rounds):
            if dense:
                # what each number makes its undecided neighbours
                for j in range(hi - lo):
                    i = lo + j
                    counts = np.uint8(
                        (((up[i] & _COUNTED) + (at[i] & _COUNTED) + (down[i] & _COUNTED)) & left[i])
                        + (up[i + 1] & _COUNTED)
                        + (down[i + 1] & _COUNTED)
                        + (
                            (
                                (up[i + 2] & _COUNTED)
                                + (at[i + 2] & _COUNTED)
                                + (down[i + 2] & _COUNTED)
                            )
                            & right[i]
                        )
                    )
                    fires[i] = _fired(counts, np.uint8(boards[b, i]))
                # the first and last numbers that fire, at p and q in
                # ``fire`` (cells p - reach and q - reach), eight at a time;
                # if none fires, the board is at its fixed point
                w, end = (lo + reach) // 8, (hi + reach + 7) // 8
                while w < end and fire_words[w] == 0:
                    w += 1
                if w == end:
                    break
                p = 8 * w
                while fire[p] == 0:
                    p += 1
                w = end - 1
                while fire_words[w] == 0:
                    w -= 1
                q = 8 * w + 7
                while fire[q] == 0:
                    q -= 1
                # then, all at once, each undecided cell next to them (cells
                # from p - 2 * reach to q) takes their bits, marked _NEW
                start, stop = max(p - 2 * reach, 0), min(q + 1, n)
                for j in range(stop - start):
                    i = start + j
                    bits = np.uint8(
                        ((fire_up[i] | fire_at[i] | fire_down[i]) & left[i])
                        | fire_up[i + 1]
                        | fire_down[i + 1]
                        | ((fire_up[i + 2] | fire_at[i + 2] | fire_down[i + 2]) & right[i])
                    )
                    here = kinds[i]
                    kinds[i] = np.uint8(bits | _NEW) if (here == _FREE) & (bits != 0) else here
                # the cells it decided, eight at a time, unmarked; ``fire``
                # is cleared behind (all of it is zero between rounds)
                n_decided = 0
                for w in range((start + reach) // 8, (stop + reach + 7) // 8):
                    fire_words[w] = 0
                    if kind_words[w] & _NEW_WORD:
                        for x in range(8 * w, 8 * w + 8):
                            if kind[x] & _NEW:
                                kind[x] ^= _NEW
                                decided[n_decided] = x - reach
                                n_decided += 1
            else:
                # the numbers next to the cells the round before decided
                n_active = 0
                for d in range(n_decided):
                    j = decided[d]
                    r, c = j // cols, j % cols
                    for rr in range(max(r - 1, 0), min(r + 2, rows)):
                        for cc in range(max(c - 1, 0), min(c + 2, cols)):
                            i = rr * cols + cc
                            if boards[b, i] >= 0 and not kinds[i] & _QUEUED:
                                kinds[i] |= _QUEUED
                                active[n_active] = i
                                n_active += 1
                # what each makes its undecided neighbours, marked in
                # ``fire``, then applied all at once
                n_decided = 0
                for a in range(n_active):
                    i = active[a]
                    kinds[i] = 0  # (a number's kind is 0 but for the mark)
                    around = 0
                    r, c = i // cols, i % cols
                    for rr in range(max(r - 1, 0), min(r + 2, rows)):
                        for cc in range(max(c - 1, 0), min(c + 2, cols)):
                            around += kinds[rr * cols + cc] & _COUNTED
                    bits = _fired(around, np.uint8(boards[b, i]))
                    if not bits:
                        continue
                    for rr in range(max(r - 1, 0), min(r + 2, rows)):
                        for cc in range(max(c - 1, 0), min(c + 2, cols)):
                            x = rr * cols + cc
                            if kinds[x] == _FREE:
                                if not fires[x]:
                                    decided[n_decided] = x
                                    n_decided += 1
                                fires[x] |= bits
                if n_decided == 0:
                    break
                for d in range(n_decided):
                    x = decided[d]
                    kinds[x] = fires[x]
                    fires[x] = 0
            # the next round: the numbers next to the cells just decided
            d_lo, d_hi = n, -1
            for d in range(n_decided):
                d_lo, d_hi = min(d_lo, decided[d]), max(d_hi, decided[d])
            earliest = min(earliest, d_lo)
            lo, hi = max(d_lo - reach, 0), min(d_hi + reach + 1, n)
            dense = hi - lo <= _DENSE_SPAN * n_decided
        if masks:
            for i in range(n):
                safe[b, i] = (kinds[i] & _SAFE) != 0
                mines[b, i] = (kinds[i] & _MINE) != 0
        else:
            revealed[b] = any_number
            if any_flag:  # (seldom: only players flag)
                flags[b] = np.sum(boards[b] == FLAG)
            # the first HIDDEN cell made safe, eight at a time from the first
            # cell decided
            w = (earliest + reach) // 8
            while first[b] < 0 and w < kind_words.size:
                if kind_words[w] & _SAFE_WORD:  # (seldom: only then cell by cell)
                    for p in range(8 * w, 8 * w + 8):
                        if kind[p] & _SAFE and boards[b, p - reach] == HIDDEN:
                            first[b] = p - reach
                            break
                w += 1
    return safe, mines, first, revealed, flags


@kernel(readonly(nt.int8[:, :, ::1]), nt.int64)
def local_rules_stack(
    visible: NDArray[np.int8], max_rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """:func:`local_rules` on a ``(k, rows, cols)`` int8 stack.

    The first round is two compiled passes over the board, a byte a cell:
    what each number makes its undecided neighbours, given how many are
    undecided and how many mines, then what each undecided cell becomes.
    A later round looks only at the numbers next to the cells the round
    before decided: the same passes over the rows between them, or a list.
    """
    safe, mines, _, _, _ = _stack_rules(visible, max_rounds, True)
    return safe.reshape(visible.shape), mines.reshape(visible.shape)


@kernel(readonly(nt.int8[:, :, ::1]), nt.int64)
def first_safe_stack(
    visible: NDArray[np.int8], max_rounds: int
) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    """What the policy needs of :func:`local_rules` on a ``(k, rows, cols)`` stack.

    Per board: the first HIDDEN (not flagged) cell proved safe, as a
    row-major index (-1 if none), whether any cell is revealed, and how
    many are flagged.  The rounds are :func:`local_rules_stack`'s, with no
    masks made: the first safe cell is looked for eight cells at a time,
    from the first cell the rounds decided.
    """
    _, _, first, revealed, flags = _stack_rules(visible, max_rounds, False)
    return first, revealed, flags
