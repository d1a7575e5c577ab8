"""Hill's 50/50 influence factor of a click: its patterns and their tallies, compiled.

Private to :mod:`numsweeper.solver.guess`, whose notes state the rule.  A
click's **patterns** are the would-be 50/50s it could settle: the two
side-by-side pairs and the two stacked pairs that hold the cell, and the
four 2 x 2 boxes that do, with the cell a mine (:func:`_patterns`).  A
pattern's **tally** is the share of the layouts in which its mine cells
(and the hidden cells just beyond it) are all mines and its other cells
safe, by inclusion and exclusion over at most four sets of cells that
are all mines (:func:`_sets`).  The factor sums the best tally of each
kind (:func:`_combined`).

Each set is counted in two parts: its frontier cells, whose layouts by
the frontier's mine total come from the exact engine given those cells
are mines (:func:`~numsweeper.solver.probe.shares_given`, which counts
again only the parts the cells are in), and its cells off the frontier,
all alike, counted in closed form over those totals
(:func:`_off_shares`).  :func:`influence_factor` does all of that in one
call while the position's analysis is exact and every count fits int64;
else :class:`_Influence` counts each set in Python (the exact engine's
integers, the same floats) and the same kernels combine them.  Counts are
kept per position, so a set that several clicks share is counted once.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from .._kernels import adjacent_counts
from ._jit import frozen, helper, kernel, readonly
from .analysis import Analysis, Analyzer
from .counting import OK
from .probe import shares_given

if TYPE_CHECKING:
    from .lookahead import _Given

__all__ = [
    "INFLUENCE",
    "combined",
    "influence_factor",
    "off_frontier_share",
    "pattern_counts",
    "pattern_sets",
    "pattern_tallies",
]

#: Weight of the 50/50 influence.
INFLUENCE = 0.9

Cell = tuple[int, int]
#: Frontier mine totals, their shares of all layouts, and the mines left.
_Dist = tuple[NDArray[np.float64], NDArray[np.float64], int]

# What a cell is to the patterns (``_Influence.kind``).
_REVEALED, _UNDECIDED, _MINE, _SAFE = 0, 1, 2, 3
#: A click has at most this many patterns: two pairs of each way, four boxes.
_PATTERNS = 8
#: A pattern's row: its kind (0 side by side, 1 stacked, 2 a box), how
#: many cells must be mines and how many safe, then those cells (flat).
_ROW = 3 + 5 + 2
#: A set to count: at most 5 mine cells and the 2 safe ones.
_SET = 7
#: Sets the counts of one position keep (a hash table; past 3/4 full, no more).
_TABLE = 1024
#: numpy sums runs of at most this many floats in one loop (``PW_BLOCKSIZE``).
_NUMPY_BLOCK = 128


@helper
def _block_sum(a: NDArray[np.float64], start: int, n: int) -> float:
    """``a[start:start + n].sum()`` as numpy adds a run of at most 128 floats.

    Below 8 terms in order; else in eight interleaved sums, added in
    pairs, then the terms past the last multiple of 8 in order.
    """
    if n < 8:
        total: float = 0.0
        for i in range(start, start + n):
            total += a[i]
        return total
    r = a[start : start + 8].copy()
    i = start + 8
    end = start + n - n % 8
    while i < end:
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < start + n:
        total += a[i]
        i += 1
    return total


@helper
def _pairwise_sum(a: NDArray[np.float64]) -> float:
    """``a.sum()`` as numpy adds a contiguous float array: the same float.

    numpy splits a run of more than 128 terms in two (the first half a
    multiple of 8 terms), sums each half so, and adds the two sums; this
    walks that tree with a stack (a compiled recursion does not cache).
    """
    if a.shape[0] <= _NUMPY_BLOCK:
        return _block_sum(a, 0, a.shape[0])
    start = np.zeros(64, dtype=np.int64)  # (each level at most halves the run)
    length = np.zeros(64, dtype=np.int64)
    first = np.zeros(64)  # the first half's sum, once known
    stage = np.zeros(64, dtype=np.int64)  # 0 new, 1 first half pending, 2 second
    length[0] = a.shape[0]
    top = 0
    value = 0.0
    back = False  # value is the sum of the run just finished
    while top >= 0:
        n = length[top]
        half = n // 2 - n // 2 % 8
        if back and stage[top] == 1:
            first[top], stage[top] = value, 2
            top += 1
            start[top], length[top], stage[top] = start[top - 1] + half, n - half, 0
            back = False
        elif back:
            value = first[top] + value
            top -= 1
        elif n <= _NUMPY_BLOCK:
            value = _block_sum(a, start[top], n)
            top -= 1
            back = True
        else:
            stage[top] = 1
            top += 1
            start[top], length[top], stage[top] = start[top - 1], half, 0
    return value


@helper
def _off_shares(
    ks: NDArray[np.float64],
    share: NDArray[np.float64],
    m: int,
    u: int,
    most: int,
    out: NDArray[np.float64],
) -> None:
    """:func:`off_frontier_share` for ``off`` = 0 to ``most`` at once, into ``out``.

    Each step multiplies the running terms by the next factor, so
    ``out[off]`` is the float :func:`off_frontier_share` gives.
    """
    terms = share.copy()
    for i in range(most + 1):
        out[i] = _pairwise_sum(terms)
        if i < most:
            for j in range(terms.shape[0]):
                terms[j] = terms[j] * max(m - ks[j] - i, 0.0) / (u - i)


@kernel(readonly(nt.float64[::1]), readonly(nt.float64[::1]), nt.int64, nt.int64, nt.int64)
def off_frontier_share(
    ks: NDArray[np.float64], share: NDArray[np.float64], m: int, u: int, off: int
) -> float:
    """The share of the layouts in which ``off`` more cells, off the frontier, are mines too.

    Parameters
    ----------
    ks, share : ndarray of float64, shape (t,)
        Frontier mine totals and the share of the layouts with each (and
        some cells mines), as :meth:`_Given.look
        <numsweeper.solver.lookahead._Given.look>` gives them.
    m : int
        The mines left for the rest of the frontier and the cells off it.
    u : int
        Cells off the frontier (at least ``off``).
    off : int
        How many of them must be mines.

    Returns
    -------
    float
        ``sum_k share[k] * C(u - off, m - k - off) / C(u, m - k)``: each
        share times ``(m - k - i) / (u - i)`` for ``i < off`` in turn (0 if
        negative), then summed as numpy sums, so the float is the one that
        numpy's array operations give.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.influence import off_frontier_share
    >>> ks, share = np.array([0.0, 1.0]), np.array([0.5, 0.5])
    >>> off_frontier_share(ks, share, 2, 4, 1)  # 0.5 * 2/4 + 0.5 * 1/4
    0.375
    """
    out = np.empty(off + 1)
    _off_shares(ks, share, m, u, off, out)
    return float(out[off])


@helper
def _cell(kind: NDArray[np.int8], x: int, y: int) -> int:
    """What ``(x, y)`` is (:data:`_MINE` off the board: it seals a pattern alike)."""
    if 0 <= x < kind.shape[0] and 0 <= y < kind.shape[1]:
        return int(kind[x, y])
    return _MINE


@helper
def _pattern(
    kind: NDArray[np.int8],
    group: int,
    cells: NDArray[np.int64],
    n_mine: int,
    outer: NDArray[np.int64],
    n_outer: int,
    out: NDArray[np.int64],
    n: int,
) -> int:
    """Adds a pattern as ``out[n]`` if it holds; the patterns now.

    ``cells`` lists ``(row, col)`` pairs: the ``n_mine`` that must be mines,
    then the rest of the pattern's two or four cells, which must be safe;
    ``outer`` the cells just beyond it.  It holds when every one of its
    cells is on the board and undecided, and of the ``outer`` cells on the
    board none is revealed (a number could tell its cells apart) and at
    most three are not certain mines (those must be mines too).
    """
    n_cells = cells.shape[0] // 2
    row = out[n]
    row[:] = 0  # (places past the pattern's cells stay 0)
    row[0] = group
    cols = kind.shape[1]
    k = 0  # outer cells that must be mines
    for t in range(n_outer):
        x, y = outer[2 * t], outer[2 * t + 1]
        what = _cell(kind, x, y)
        if what == _REVEALED:
            return n
        if what != _MINE:
            if k < 3:
                row[3 + n_mine + k] = x * cols + y
            k += 1
    if k > 3:
        return n
    for t in range(n_cells):
        x, y = cells[2 * t], cells[2 * t + 1]
        if _cell(kind, x, y) != _UNDECIDED:
            return n
        if t < n_mine:
            row[3 + t] = x * cols + y
        else:
            row[8 + t - n_mine] = x * cols + y
    row[1] = n_mine + k
    row[2] = n_cells - n_mine
    return n + 1


@helper
def _patterns(kind: NDArray[np.int8], r: int, c: int, out: NDArray[np.int64]) -> int:
    """The patterns of a click on ``(r, c)``, as rows of ``out``; how many.

    The pairs side by side (the cell and the one right of it, then left),
    the stacked pairs (below, then above) and the 2 x 2 boxes that hold the
    cell (it at their top left, bottom left, top right, bottom right), in
    that order, with the cell a mine.  A pair's outer cells are the three
    beyond each end; a box's are its four diagonal corners, and its mines
    the diagonal that holds the cell.
    """
    n = 0
    cells = np.empty(8, dtype=np.int64)
    outer = np.empty(12, dtype=np.int64)
    for group in range(2):
        for side in range(2):  # (the other cell after, then before, the click)
            dx, dy = (0, 1) if group == 0 else (1, 0)
            step = 1 if side == 0 else -1
            cells[0], cells[1] = r, c
            cells[2], cells[3] = r + step * dx, c + step * dy
            x, y = (r, c) if side == 0 else (r - dx, c - dy)  # the pair's first cell
            for k in range(3):
                if group == 0:  # the columns left of it and right of the pair
                    outer[2 * k], outer[2 * k + 1] = x - 1 + k, y - 1
                    outer[6 + 2 * k], outer[7 + 2 * k] = x - 1 + k, y + 2
                else:  # the rows above it and below the pair
                    outer[2 * k], outer[2 * k + 1] = x - 1, y - 1 + k
                    outer[6 + 2 * k], outer[7 + 2 * k] = x + 2, y - 1 + k
            n = _pattern(kind, group, cells[:4], 1, outer, 6, out, n)
    rows, cols = kind.shape
    for box in range(4):
        x, y = r - box % 2, c - box // 2  # the box's top left
        if not (0 <= x < rows - 1 and 0 <= y < cols - 1):
            continue
        on_main = (x == r) == (y == c)  # the click on the diagonal through the top left
        if on_main:
            cells[0], cells[1], cells[2], cells[3] = x, y, x + 1, y + 1
            cells[4], cells[5], cells[6], cells[7] = x, y + 1, x + 1, y
        else:
            cells[0], cells[1], cells[2], cells[3] = x, y + 1, x + 1, y
            cells[4], cells[5], cells[6], cells[7] = x, y, x + 1, y + 1
        outer[0], outer[1], outer[2], outer[3] = x - 1, y - 1, x - 1, y + 2
        outer[4], outer[5], outer[6], outer[7] = x + 2, y - 1, x + 2, y + 2
        n = _pattern(kind, 2, cells, 2, outer, 4, out, n)
    return n


@helper
def _sets(pattern: NDArray[np.int64], out: NDArray[np.int64]) -> int:
    """The sets whose counts a pattern's tally needs, as rows of ``out``; how many.

    Row ``j`` is a count of cells, then those cells (flat, increasing): the
    pattern's mine cells, with its first safe cell for ``j = 1``, its second
    for ``j = 2`` and both for ``j = 3`` (two sets for a pair, four for a
    box).
    """
    n_mine, n_safe = pattern[1], pattern[2]
    n_sets = 2 if n_safe == 1 else 4
    for j in range(n_sets):
        size = 0
        for t in range(n_mine):
            out[j, 1 + size] = pattern[3 + t]
            size += 1
        for s in range(n_safe):
            if j & (1 << s):
                out[j, 1 + size] = pattern[8 + s]
                size += 1
        out[j, 0] = size
        _sort_small(out[j], 1, size)
    return n_sets


@helper
def _sort_small(a: NDArray[np.int64], start: int, n: int) -> None:
    """Sorts ``a[start:start + n]`` in place (insertion: at most 7 terms)."""
    for i in range(start + 1, start + n):
        v = a[i]
        j = i - 1
        while j >= start and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@helper
def _tally(counts: NDArray[np.float64], n_safe: int) -> float:
    """A pattern's tally from its sets' counts (:func:`_sets`' order).

    Layouts with the mine cells mines, less those with a safe cell a mine
    too, plus (for a box) those with both.  Zero at once when none has the
    mine cells mines (the other counts are then not needed).
    """
    t: float = counts[0]
    if t == 0.0:
        return 0.0
    t -= counts[1]
    if n_safe == 2:
        t -= counts[2]
        t += counts[3]
    return t


@helper
def _combined(patterns: NDArray[np.int64], tallies: NDArray[np.float64], n: int, p: float) -> float:
    """The factor: ``1 + INFLUENCE min(I, p, 1 - p) / (1 - p)``, ``I`` the best tallies summed.

    ``I`` adds the best tally of each kind of pattern (none: 0); the factor
    is 1 if ``I`` is not positive or the click is certain either way.
    """
    if p <= 0.0 or p >= 1.0:
        return 1.0
    infl = 0.0
    for group in range(3):
        best = 0.0
        found = False
        for k in range(n):
            if patterns[k, 0] == group and (not found or tallies[k] > best):
                best, found = tallies[k], True
        infl += best
    if infl <= 0.0:
        return 1.0
    return 1.0 + INFLUENCE * min(infl, p, 1.0 - p) / (1.0 - p)


@kernel(readonly(nt.int8[:, ::1]), readonly(nt.int64[:, ::1]))
def pattern_counts(kind: NDArray[np.int8], clicks: NDArray[np.int64]) -> NDArray[np.int64]:
    """How many patterns each click has (0: its factor is 1).

    Parameters
    ----------
    kind : ndarray of int8, shape (rows, cols)
        Each cell: 0 revealed, 1 undecided, 2 a certain mine, 3 certainly
        safe.
    clicks : ndarray of int64, shape (k, 2)
        The cells.

    Returns
    -------
    ndarray of int64, shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.influence import pattern_counts
    >>> kind = np.array([[1, 1], [0, 0]], dtype=np.int8)  # two numbers below a pair
    >>> pattern_counts(kind, np.array([[0, 0], [0, 1]])).tolist()  # the pair, either a mine
    [1, 1]
    """
    out = np.empty(clicks.shape[0], dtype=np.int64)
    rows = np.zeros((_PATTERNS, _ROW), dtype=np.int64)
    for i in range(clicks.shape[0]):
        out[i] = _patterns(kind, clicks[i, 0], clicks[i, 1], rows)
    return out


@kernel(readonly(nt.int8[:, ::1]), nt.int64, nt.int64)
def pattern_sets(
    kind: NDArray[np.int8], r: int, c: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """A click's patterns and the sets their tallies count.

    Parameters
    ----------
    kind : ndarray of int8, shape (rows, cols)
        Each cell: 0 revealed, 1 undecided, 2 a certain mine, 3 certainly
        safe.
    r, c : int
        The click.

    Returns
    -------
    patterns : ndarray of int64, shape (n, 10)
        Per pattern: its kind (0 side by side, 1 stacked, 2 a box), how
        many cells must be mines, how many safe, the mine cells (5 places)
        and the safe ones (2 places), flat; 0 past them.
    sets : ndarray of int64, shape (n, 4, 8)
        Per pattern, :func:`_sets`: a count of cells, then the cells (two
        sets for a pair, four for a box; 0 past them).

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.influence import pattern_sets
    >>> kind = np.array([[1, 1], [0, 0]], dtype=np.int8)  # two numbers below a pair
    >>> patterns, sets = pattern_sets(kind, 0, 1)  # the pair, a mine at (0, 1)
    >>> patterns.tolist()
    [[0, 1, 1, 1, 0, 0, 0, 0, 0, 0]]
    >>> sets[0, :2].tolist()  # (0, 1) a mine; then (0, 0) with it
    [[1, 1, 0, 0, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0, 0, 0]]
    """
    patterns = np.zeros((_PATTERNS, _ROW), dtype=np.int64)
    n = _patterns(kind, r, c, patterns)
    sets = np.zeros((n, 4, 1 + _SET), dtype=np.int64)
    for k in range(n):
        _sets(patterns[k], sets[k])
    return patterns[:n].copy(), sets


@kernel(readonly(nt.int64[:, ::1]), readonly(nt.float64[:, ::1]))
def pattern_tallies(
    patterns: NDArray[np.int64], counts: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each pattern's tally from its sets' counts.

    Parameters
    ----------
    patterns : ndarray of int64, shape (n, 10)
        As :func:`pattern_sets` lists them.
    counts : ndarray of float64, shape (n, 4)
        Per pattern, the share of the layouts in which each of its sets
        (:func:`pattern_sets`' order) is all mines; those past a first
        count of 0 are not read.

    Returns
    -------
    ndarray of float64, shape (n,)
        The share of the layouts in which each pattern's mine cells are
        mines and its safe cells safe.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.influence import pattern_tallies
    >>> pair = np.array([[0, 1, 1, 2, 0, 0, 0, 0, 1, 0]])
    >>> pattern_tallies(pair, np.array([[0.5, 0.125, 0.0, 0.0]])).tolist()
    [0.375]
    """
    tallies = np.empty(patterns.shape[0])
    for k in range(patterns.shape[0]):
        tallies[k] = _tally(counts[k], patterns[k, 2])
    return tallies


@kernel(readonly(nt.int64[:, ::1]), readonly(nt.float64[::1]), nt.float64)
def combined(patterns: NDArray[np.int64], tallies: NDArray[np.float64], p: float) -> float:
    """The factor of a click of mine probability ``p`` from its patterns' tallies.

    Parameters
    ----------
    patterns : ndarray of int64, shape (n, 10)
        As :func:`pattern_sets` lists them.
    tallies : ndarray of float64, shape (n,)
        Their tallies (:func:`pattern_tallies`).
    p : float
        The click's mine probability.

    Returns
    -------
    float
        ``1 + INFLUENCE min(I, p, 1 - p) / (1 - p)``, ``I`` the best tally
        of each kind summed; 1 where ``I`` is not positive or ``p`` is 0
        or 1.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.influence import combined
    >>> pair = np.array([[0, 1, 1, 2, 0, 0, 0, 0, 1, 0]])
    >>> round(combined(pair, np.array([0.25]), 0.5), 6)  # 1 + 0.9 * 0.25 / 0.5
    1.45
    """
    return _combined(patterns, tallies, patterns.shape[0], p)


@helper
def _slot(keys: NDArray[np.int64], key: NDArray[np.int64]) -> int:
    """The slot of ``key`` in the table, or the empty slot where it would go."""
    h = 0  # (kept below 2**32: no product overflows, compiled or not)
    for v in key:
        h = ((h * 1000003) ^ (v + 2)) & 0xFFFFFFFF
    mask: int = keys.shape[0] - 1
    i: int = (h ^ (h >> 15)) & mask
    while keys[i, 0] != -2:
        same = True
        for t in range(key.shape[0]):
            if keys[i, t] != key[t]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask
    return i


@kernel(
    readonly(nt.int8[:, ::1]),  # kind
    readonly(nt.bool_[:, ::1]),  # on the frontier
    nt.int64,
    nt.int64,
    nt.float64,
    nt.int64[:, ::1],  # the table: keys
    nt.float64[:, ::1],  # the table: counts by cells off the frontier
    nt.int64[::1],  # the table: how full
    *[readonly(nt.int64[::1])] * 6,  # the structure and the numbers
    readonly(nt.int64[:, ::1]),  # the counted parts
    *[readonly(nt.int64[::1])] * 3,
    *[nt.int64] * 3,
)
def influence_factor(
    kind: NDArray[np.int8],
    front: NDArray[np.bool_],
    r: int,
    c: int,
    p: float,
    keys: NDArray[np.int64],
    values: NDArray[np.float64],
    used: NDArray[np.int64],
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    info: NDArray[np.int64],
    counted: NDArray[np.int64],
    front_flat: NDArray[np.intp],
    group_of: NDArray[np.intp],
    mines: int,
    unconstrained: int,
    max_states: int,
) -> tuple[int, float]:
    """The influence factor of a click on ``(r, c)``, of mine probability ``p``.

    Parameters
    ----------
    kind : ndarray of int8, shape (rows, cols)
        Each cell: 0 revealed, 1 undecided, 2 a certain mine, 3 certainly
        safe.
    front : ndarray of bool, shape (rows, cols)
        The hidden cells next to a number.
    r, c : int
        The click.
    p : float
        Its mine probability.
    keys, values, used : ndarray
        The position's counts so far, a hash table this call adds to: per
        slot, the frontier cells of a set (-1 past them; -2 an empty
        slot) and the set's count by how many cells off the frontier it
        has (NaN past what fits off the frontier); ``used[0]`` the slots
        taken.  Its size is a power of two; past 3/4 full, nothing more
        is kept.
    sizes, grp_ptr, grp_idx, part_ptr, order, need, info, counted, front_flat, group_of
        The position's structure, numbers and counted parts, as
        :func:`~numsweeper.solver.probe.given_shares` takes them.
    mines, unconstrained, max_states : int
        Total mine count, cells off the frontier, and the guard on counts.

    Returns
    -------
    status : int
        :data:`~numsweeper.solver.counting.OK`, or ``FALLBACK`` where a
        set's count needs the exact engine (the factor is then
        meaningless; the table keeps what it counted).
    factor : float
    """
    patterns = np.zeros((_PATTERNS, _ROW), dtype=np.int64)
    n = _patterns(kind, r, c, patterns)
    if n == 0 or p <= 0.0 or p >= 1.0:
        return OK, 1.0
    cols = kind.shape[1]
    sets = np.zeros((4, 1 + _SET), dtype=np.int64)
    counts = np.zeros(4)
    tallies = np.zeros(n)
    key = np.full(_SET, -1, dtype=np.int64)
    given = np.empty(_SET, dtype=np.int64)
    by_off = np.empty(_SET + 1)
    for k in range(n):
        n_sets = _sets(patterns[k], sets)
        for j in range(n_sets):
            size = sets[j, 0]
            # the set's frontier cells (increasing) and how many are off it
            n_front = 0
            safe_cell = False
            for t in range(size):
                cell = sets[j, 1 + t]
                x, y = cell // cols, cell % cols
                if kind[x, y] == _SAFE:
                    safe_cell = True
                if front[x, y]:
                    key[n_front] = cell
                    n_front += 1
            if safe_cell:
                counts[j] = 0.0
            else:
                off = size - n_front
                for t in range(n_front, _SET):
                    key[t] = -1
                at = _slot(keys, key)
                if keys[at, 0] == -2:  # not counted yet: every number off the frontier at once
                    for t in range(n_front):
                        given[t] = key[t]
                    status, ks, share, m = shares_given(
                        sizes, grp_ptr, grp_idx, part_ptr, order, need, info, counted,
                        front_flat, group_of, given[:n_front], mines, unconstrained,
                        max_states,
                    )  # fmt: skip
                    if status != OK:
                        return status, 0.0
                    most = min(_SET - n_front, unconstrained)
                    by_off[:] = np.nan
                    _off_shares(ks, share, m, unconstrained, most, by_off)
                    if 4 * (used[0] + 1) <= 3 * keys.shape[0]:
                        keys[at] = key
                        values[at] = by_off
                        used[0] += 1
                    counts[j] = by_off[off]
                else:
                    counts[j] = values[at, off]
            if j == 0 and counts[0] == 0.0:
                break
        tallies[k] = _tally(counts, patterns[k, 2])
    return OK, _combined(patterns, tallies, n, p)


class _Influence:
    """Hill's 50/50 influence of each click in one position.

    Counts are shares of the position's layouts, as floats.  A set of cells
    is split into its frontier part, whose layouts by mine total are counted
    given those cells are mines (:meth:`Analyzer.given`, on the position's
    own structure; cached per set), and its off-frontier part, counted in
    closed form over the frontier's mine totals (:func:`off_frontier_share`).
    Where the analysis is exact, :func:`influence_factor` counts a click's
    sets and combines them in one call, the same floats; else (or where a
    count does not fit int64) :meth:`count` counts each set in Python.  The
    totals are summed in increasing order (as numpy sums an array), so the
    floats do not depend on the order in which a count lists them.
    """

    def __init__(
        self, engine: Analyzer, cells: NDArray[np.int8], mines: int, a: Analysis, max_states: int
    ) -> None:
        self.engine, self.cells, self.mines, self.a = engine, cells, mines, a
        self.rows, self.cols = cells.shape
        self.revealed = cells >= 0
        self.front = ~self.revealed & (adjacent_counts(self.revealed) > 0)
        self.certain = np.zeros(cells.shape, dtype=bool)
        self.certain[tuple(a.mines.T)] = True
        self.safe = np.zeros(cells.shape, dtype=bool)
        self.safe[tuple(a.safe.T)] = True
        kind = np.where(self.certain, _MINE, np.where(self.safe, _SAFE, _UNDECIDED))
        self.kind = frozen(np.where(self.revealed, _REVEALED, kind).astype(np.int8))
        self.front_view = frozen(self.front)
        self.max_states = max_states
        self.compiled = True  # (tests turn it off to check the Python counts)
        self.counted_in_python = 0  # factors whose sets were counted one by one
        self.given: _Given | None = None
        self.counts: dict[tuple[frozenset[Cell], int], float] = {}
        self.dists: dict[frozenset[Cell], _Dist | None] = {}
        # the compiled counts' table and influence_factor's other arguments
        # (made on first use; None where the parts do not all count plainly)
        self.table: tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]] | None = None
        self.args: tuple[Any, ...] | None = None

    def pattern_counts(self, clicks: NDArray[np.intp]) -> NDArray[np.int64]:
        """How many patterns each of ``clicks`` (rows ``(r, c)``) has: 0, its factor is 1."""
        return pattern_counts(self.kind, frozen(np.ascontiguousarray(clicks, dtype=np.int64)))

    def factor(self, r: int, c: int, p: float) -> float:
        """The influence factor of a click on ``(r, c)`` of mine probability ``p``."""
        if self.compiled and self.a.exact:
            if self.args is None:
                args = self._given().shares_args()
                if args is not None:
                    keys = np.full((_TABLE, _SET), -2, dtype=np.int64)
                    self.table = keys, np.empty((_TABLE, _SET + 1)), np.zeros(1, dtype=np.int64)
                    self.args = (*self.table, *args)
            if self.args is not None:
                status, value = influence_factor(self.kind, self.front_view, r, c, p, *self.args)
                if status == OK:
                    return value
        self.counted_in_python += 1
        patterns, tallies = self.tallies(r, c)
        return combined(patterns, tallies, p)

    def tallies(self, r: int, c: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """A click's patterns (:func:`pattern_sets`) and their tallies, counted set by set."""
        patterns, sets = pattern_sets(self.kind, r, c)
        counts = np.zeros(sets.shape[:2])
        cols = self.cols
        for k, pattern in enumerate(sets.tolist()):
            for j, row in enumerate(pattern[: 2 if patterns[k, 2] == 1 else 4]):
                xs = frozenset(divmod(cell, cols) for cell in row[1 : 1 + row[0]])
                counts[k, j] = self.count(xs)
                if j == 0 and counts[k, 0] == 0.0:
                    break
        patterns = frozen(patterns)
        return patterns, frozen(pattern_tallies(patterns, frozen(counts)))

    def _given(self) -> _Given:
        """The engine's layouts given cells are mines (made on first use)."""
        if self.given is None:
            self.given = self.engine.given(self.cells, self.mines, self.max_states)
        return self.given

    def _dist(self, xf: frozenset[Cell]) -> _Dist | None:
        """Frontier mine totals, their shares of all layouts with ``xf`` all mines, mines left.

        Compiled (:meth:`_Given.look <numsweeper.solver.lookahead._Given.look>`)
        where the position's analysis is
        exact and the kernel can tell, else from the exact engine's layouts
        (the same floats); None (or no totals) where no layout has ``xf``
        all mines.
        """
        if xf in self.dists:
            return self.dists[xf]
        d = None
        if self.a.exact and self.compiled:  # (the kernel's shares are of the exact layouts)
            d = self._given().look(xf)
        if d is None:
            d = self._counted(xf)
        self.dists[xf] = d
        return d

    def _counted(self, xf: frozenset[Cell]) -> _Dist | None:
        """:meth:`_dist` from the exact engine's layouts, in Python integers."""
        # the frontier's layouts by mine total with xf all mines, and the mines left
        layouts = None
        if not xf:
            layouts = self.a.frontier_mines, self.a.mines_left
        elif self._fits(xf):
            layouts = self._given()(xf)
        if layouts is None:
            return None
        (frontier, m), u, total = layouts, self.a.unconstrained, self.a.layouts
        ks = [k for k in sorted(frontier) if 0 <= m - k <= u]
        share = [frontier[k] * math.comb(u, m - k) / total for k in ks]
        return frozen(np.array(ks, dtype=np.float64)), frozen(np.array(share, dtype=np.float64)), m

    def _fits(self, xf: frozenset[Cell]) -> bool:
        """Whether every number next to ``xf`` can take all of ``xf`` as mines."""
        rows, cols = self.rows, self.cols
        seen: set[Cell] = set()
        for x, y in xf:
            for i in range(max(x - 1, 0), min(x + 2, rows)):
                for j in range(max(y - 1, 0), min(y + 2, cols)):
                    if self.revealed[i, j] and (i, j) not in seen:
                        seen.add((i, j))
                        n = int(self.certain[max(i - 1, 0) : i + 2, max(j - 1, 0) : j + 2].sum())
                        n += sum(
                            1
                            for p, q in xf
                            if abs(p - i) <= 1 and abs(q - j) <= 1 and not self.certain[p, q]
                        )
                        if n > self.cells[i, j]:
                            return False
        return True

    def count(self, xs: frozenset[Cell]) -> float:
        """Share of the layouts in which every cell of ``xs`` is a mine."""
        if any(self.kind[x, y] == _SAFE for x, y in xs):
            return 0.0
        xf = frozenset((x, y) for x, y in xs if self.front[x, y])
        # off-frontier cells are all alike: only how many of them counts
        key = xf, len(xs) - len(xf)
        v = self.counts.get(key)
        if v is None:
            d = self._dist(xf)
            v = 0.0 if d is None else off_frontier_share(*d, self.a.unconstrained, key[1])
            self.counts[key] = v
        return v
