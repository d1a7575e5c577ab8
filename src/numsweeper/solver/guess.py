"""The policy's guesses: which cell to click when none is certainly safe.

Private to :mod:`numsweeper.solver.policy`.

A **forced pair** (:func:`forced_pair`) comes first: two side-by-side cells
that hold at most one mine and that nothing else can ever tell apart.

Otherwise, **David Hill's guess** (:func:`hill_guess`, the default): when the
endgame search does not apply either, every candidate cell (within a window
of the safest one) is scored by

    P(safe) * E[outlook after the click] * influence

* The **outlook** of a click that shows ``n`` is ``(4 s1 + s2) / 5``, where
  ``s1 >= s2`` are the two best safeties among the hidden cells that could
  still tell the player something (*living* cells) and of the off-frontier
  cells: a click whose number is already known from the numbers around it
  (a *dead* cell) gains nothing, so it does not count.
* The **influence** rewards clicks that can settle a would-be 50/50: a
  2 x 1 or 2 x 2 pattern of hidden cells around the click whose outer
  neighbours are off the board, certain mines or few hidden cells.  It is
  ``1 + 0.9 min(I, P(mine), P(safe)) / P(safe)``, where ``I`` is the share
  of layouts in which the click is a mine of such a pattern and the
  pattern's other cells safe (the best pattern of each kind, summed).
* A factor ``1 + 0.001 P(progress)``, the chance that the click leaves a
  living cell certainly safe, separates near-equal scores.

At most :data:`MAX_CANDIDATES` candidates are scored, the safest first: a
guard for huge boards with many isolated numbers (expert positions have
at most about 40).

This follows the guess of David Hill's JavaScript/Java solver
(https://github.com/DavidNHill/Minesweeper, ``SolverMain`` and
``EvaluateLocations``), re-derived over our exact engine.

The older **look-ahead guess** (:func:`lookahead_guess`, ``guess='lookahead'``)
takes, among the cells within a tolerance of the lowest mine probability,
the one of the highest secondary safety.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from .._constants import FLAG, HIDDEN
from .._kernels import adjacent_counts
from ..errors import InvalidBoardError
from ._jit import frozen, helper, kernel, readonly
from .analysis import Analysis, Analyzer
from .counting import Poly
from .probe import outlook

__all__ = [
    "candidates",
    "forced_pair",
    "hill_guess",
    "lookahead_guess",
    "outlook",
    "quick_guess",
]

#: Candidates: cells whose safety is at least this share of the best one's.
WINDOW = 0.9
#: Weight of the 50/50 influence.
INFLUENCE = 0.9
#: Weight of the chance that a click leaves a living certainly safe cell
#: (progress): a factor ``1 + PROGRESS * P`` that separates near-equal scores.
PROGRESS = 0.001
#: Off-frontier cells become candidates one by one only when there are few.
_FEW_OFF = 30
#: At most this many candidates are scored, the safest first.
MAX_CANDIDATES = 100

Cell = tuple[int, int]
#: Frontier mine totals, their shares of all layouts, and the mines left.
_Dist = tuple[NDArray[np.float64], NDArray[np.float64], int]


class Shown(Protocol):
    """A cell of a position shown as each number in turn (:meth:`Analyzer.prober`)."""

    def __call__(self, n: int) -> Analysis:
        """The analysis of the position with the cell shown as ``n``."""
        ...

    def look(self, n: int, off_at: int) -> tuple[int, float, float, bool] | None:
        """What the look-ahead reads of that analysis, compiled, or None.

        ``(layouts, s1, s2, live_safe)``: its ``layouts`` and its
        :func:`outlook` (with ``off_at``), the same integers and floats;
        None where only the analysis itself can tell (it may raise).  It
        may raise :class:`~numsweeper.errors.InvalidBoardError` itself
        where it finds that no layout shows ``n`` (the analysis would raise).
        """
        ...


#: ``prober(visible, mines, cell)`` shows ``cell`` of ``visible`` as each number: a
#: :class:`Shown`, or a plain function of the number that returns the analysis
#: (every number is then analysed in full).
Prober = Callable[[NDArray[np.int8], int, Cell], "Shown | Callable[[int], Analysis]"]


class Given(Protocol):
    """A position's layouts given that some frontier cells are mines (:meth:`Analyzer.given`)."""

    def __call__(self, given: frozenset[Cell]) -> tuple[Poly, int] | None:
        """The frontier's layouts by mine total and the mines left, or None."""
        ...

    def look(self, given: frozenset[Cell]) -> _Dist | None:
        """Those layouts' shares of the position's, compiled, or None.

        ``(ks, share, m)``, read-only: the totals with room off the
        frontier for the rest of the ``m`` mines left (none if no layout),
        and ``layouts(k) * C(u, m - k) / layouts`` for each; None where
        only the call itself can tell.
        """
        ...


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


@kernel(readonly(nt.float64[::1]), readonly(nt.float64[::1]), nt.int64, nt.int64, nt.int64)
def off_frontier_share(
    ks: NDArray[np.float64], share: NDArray[np.float64], m: int, u: int, off: int
) -> float:
    """The share of the layouts in which ``off`` more cells, off the frontier, are mines too.

    Parameters
    ----------
    ks, share : ndarray of float64, shape (t,)
        Frontier mine totals and the share of the layouts with each (and
        some cells mines), as :meth:`Given.look` gives them.
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
    """
    out = share.copy()
    for i in range(off):
        for j in range(out.shape[0]):
            out[j] = out[j] * max(m - ks[j] - i, 0.0) / (u - i)
    return _pairwise_sum(out)


class _Influence:
    """Hill's 50/50 influence of each click in one position.

    Counts are shares of the position's layouts, as floats.  A set of cells
    is split into its frontier part, whose layouts by mine total are counted
    given those cells are mines (:meth:`Analyzer.given`, on the position's
    own structure; cached per set), and its off-frontier part, counted in
    closed form over the frontier's mine totals (:func:`off_frontier_share`).
    Where the analysis is exact, the frontier part's shares come from one
    compiled call that counts again only the parts its cells are in
    (:meth:`Given.look`), the same floats.  The totals are summed in
    increasing order (as numpy sums an array), so the floats do not depend
    on the order in which a count lists them.
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
        # per cell, as plain lists (fast to index one cell at a time):
        # 0 revealed, 1 undecided, 2 certain mine, 3 certainly safe
        kind = np.where(self.certain, 2, np.where(self.safe, 3, 1))
        self.kind: list[list[int]] = np.where(self.revealed, 0, kind).tolist()
        self.on_front: list[list[bool]] = self.front.tolist()
        self.max_states = max_states
        self.given: Given | None = None
        self.counts: dict[tuple[frozenset[Cell], int], float] = {}
        self.dists: dict[frozenset[Cell], _Dist | None] = {}

    def _dist(self, xf: frozenset[Cell]) -> _Dist | None:
        """Frontier mine totals, their shares of all layouts with ``xf`` all mines, mines left.

        Compiled (:meth:`Given.look`) where the position's analysis is
        exact and the kernel can tell, else from the exact engine's layouts
        (the same floats); None (or no totals) where no layout has ``xf``
        all mines.
        """
        if xf in self.dists:
            return self.dists[xf]
        d = None
        if self.a.exact:  # (the kernel's shares are of the exact layouts)
            d = self._given().look(xf)
        if d is None:
            d = self._counted(xf)
        self.dists[xf] = d
        return d

    def _given(self) -> Given:
        """The engine's layouts given cells are mines (made on first use)."""
        if self.given is None:
            self.given = self.engine.given(self.cells, self.mines, self.max_states)
        return self.given

    def _counted(self, xf: frozenset[Cell]) -> _Dist | None:
        """:meth:`_dist` from the exact engine's layouts, in Python integers."""
        # the frontier's layouts by mine total with xf all mines, and the mines left
        layouts: tuple[Poly, int] | None = None
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
        if any(self.kind[x][y] == 3 for x, y in xs):
            return 0.0
        xf = frozenset((x, y) for x, y in xs if self.on_front[x][y])
        # off-frontier cells are all alike: only how many of them counts
        key = xf, len(xs) - len(xf)
        v = self.counts.get(key)
        if v is None:
            d = self._dist(xf)
            v = 0.0 if d is None else off_frontier_share(*d, self.a.unconstrained, key[1])
            self.counts[key] = v
        return v

    def _pattern(
        self, mine_set: list[Cell], safe_set: list[Cell], outer: list[Cell]
    ) -> tuple[frozenset[Cell], list[Cell]] | None:
        """The cells that must be mines (with the hidden ``outer`` ones), or None.

        None when some number can tell the pattern's cells apart (a revealed
        ``outer`` cell), more than three ``outer`` cells are hidden, or a
        pattern cell is off the board, revealed or certain.
        """
        rows, cols, kind = self.rows, self.cols, self.kind
        missing = []
        for x, y in outer:
            if not (0 <= x < rows and 0 <= y < cols) or kind[x][y] == 2:
                continue
            if kind[x][y] == 0:
                return None
            missing.append((x, y))
        if len(missing) > 3:
            return None
        for x, y in mine_set + safe_set:
            if not (0 <= x < rows and 0 <= y < cols) or kind[x][y] != 1:
                return None
        return frozenset(missing) | frozenset(mine_set), safe_set

    def _tally(self, xs: frozenset[Cell], safe_set: list[Cell]) -> float:
        """Share of layouts with ``xs`` all mines and ``safe_set`` all safe."""
        t = self.count(xs)
        if t == 0.0:
            return 0.0
        for s in safe_set:
            t -= self.count(xs | {s})
        if len(safe_set) == 2:
            t += self.count(xs | frozenset(safe_set))
        return t

    def patterns(self, r: int, c: int) -> list[list[tuple[frozenset[Cell], list[Cell]]]]:
        """The would-be 50/50s that clicking ``(r, c)`` could settle.

        Three lists: horizontal pairs, vertical pairs and 2 x 2 boxes that
        hold the cell, with the cell a mine.
        """
        rc = (r, c)
        rows, cols = self.rows, self.cols

        def pair(x: int, y: int, dx: int, dy: int) -> tuple[frozenset[Cell], list[Cell]] | None:
            # the cells (x, y) and (x + dx, y + dy); outer: the rows/columns beyond
            other = (x + dx, y + dy) if (x, y) == rc else (x, y)
            if dx:
                outer = [(x - 1, y + k) for k in (-1, 0, 1)] + [(x + 2, y + k) for k in (-1, 0, 1)]
            else:
                outer = [(x + k, y - 1) for k in (-1, 0, 1)] + [(x + k, y + 2) for k in (-1, 0, 1)]
            return self._pattern([rc], [other], outer)

        def box(x: int, y: int) -> tuple[frozenset[Cell], list[Cell]] | None:
            if not (0 <= x < rows - 1 and 0 <= y < cols - 1):
                return None
            d1, d2 = [(x, y), (x + 1, y + 1)], [(x, y + 1), (x + 1, y)]
            mine_set, safe_set = (d1, d2) if rc in d1 else (d2, d1)
            outer = [(x - 1, y - 1), (x - 1, y + 2), (x + 2, y - 1), (x + 2, y + 2)]
            return self._pattern(mine_set, safe_set, outer)

        found = (
            [pair(r, c, 0, 1), pair(r, c - 1, 0, 1)],
            [pair(r, c, 1, 0), pair(r - 1, c, 1, 0)],
            [box(r, c), box(r - 1, c), box(r, c - 1), box(r - 1, c - 1)],
        )
        return [[x for x in group if x is not None] for group in found]

    def factor(self, patterns: list[list[tuple[frozenset[Cell], list[Cell]]]], p: float) -> float:
        """The influence factor of a click of mine probability ``p`` with these patterns."""
        if p <= 0.0 or p >= 1.0:
            return 1.0
        infl = sum(max((self._tally(*x) for x in group), default=0.0) for group in patterns)
        if infl <= 0.0:
            return 1.0
        return 1.0 + INFLUENCE * min(infl, p, 1.0 - p) / (1.0 - p)


def candidates(cells: NDArray[np.int8], p: NDArray[np.float64]) -> NDArray[np.intp]:
    """Cells worth scoring, safest first.

    Parameters
    ----------
    cells : ndarray of int8, shape (rows, cols)
        Visible state.
    p : ndarray of float64, shape (rows, cols)
        Mine probability of each clickable cell, ``inf`` elsewhere.

    Returns
    -------
    ndarray of intp, shape (k, 2)
        The frontier cells whose safety is at least :data:`WINDOW` times
        the best one's; and the off-frontier cells (all equally likely)
        when they qualify: all of them when fewer than 30, otherwise those
        with two or three hidden neighbours and those two cells straight up,
        down, left or right of a number.  Ordered by mine probability, then
        row-major, at most :data:`MAX_CANDIDATES`.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.solver.guess import candidates
    >>> H = ns.HIDDEN
    >>> visible = np.array([[1, H, H], [H, H, H]], dtype=np.int8)
    >>> p = ns.solver.analyze(visible, 1).probabilities
    >>> candidates(visible, np.where(visible == H, p, np.inf)).tolist()
    [[0, 2], [1, 2]]
    """
    revealed = cells >= 0
    clickable = np.isfinite(p)
    best = float(p.min())
    limit = 1.0 - WINDOW * (1.0 - best) + 1e-9
    front = clickable & (adjacent_counts(revealed) > 0)
    chosen = front & (p <= limit)
    off = clickable & ~front
    if off.any() and float(p[off].min()) <= limit:
        if int(np.count_nonzero(off)) < _FEW_OFF:
            chosen |= off
        else:
            hidden_nb = adjacent_counts(~revealed)
            ring = np.zeros_like(revealed)
            ring[2:] |= revealed[:-2]
            ring[:-2] |= revealed[2:]
            ring[:, 2:] |= revealed[:, :-2]
            ring[:, :-2] |= revealed[:, 2:]
            chosen |= off & (((hidden_nb > 1) & (hidden_nb < 4)) | ring)
    rc = np.argwhere(chosen)
    return rc[np.lexsort((rc[:, 1], rc[:, 0], p[chosen]))][:MAX_CANDIDATES]


def hill_guess(
    cells: NDArray[np.int8],
    mines: int,
    a: Analysis,
    clickable: NDArray[np.bool_],
    prober: Prober,
    engine: Analyzer,
    max_states: int,
    record: dict[Cell, tuple[float, int, int, int] | str] | None = None,
) -> Cell | None:
    """The guess for one position (see the module notes).

    Parameters
    ----------
    cells : ndarray of int8, shape (rows, cols)
        Visible state, with no certainly safe clickable cell.
    mines : int
        Total mine count.
    a : Analysis
        ``cells``' analysis.
    clickable : ndarray of bool, shape (rows, cols)
        Cells that may be clicked (hidden, not flagged).
    prober : callable
        ``prober(cells, mines, cell)`` returns a :class:`Shown`: what the
        look-ahead reads of ``cells`` with ``cell`` shown as a given
        number, compiled where it can be, else the analysis itself (what
        it does not need to redo for each number is done once:
        :meth:`Analyzer.prober`; the policy's keeps each analysis it makes
        in its memory).
    engine : Analyzer
        The engine that counts the influence factor's layouts.
    max_states : int
        Guard for the influence factor's own analyses.
    record : dict, optional
        If given, each candidate's fate: ``'skip'`` (the rule skips it),
        ``'stop'`` (its look-ahead stopped early) or its score key.

    Returns
    -------
    tuple of int or None
        ``(row, col)``, or None if no cell qualifies.

    Notes
    -----
    Candidates are taken in order of mine probability; one whose safety
    times influence cannot reach the best score so far is skipped (part of
    the rule), and the look-ahead of one stops as soon as it cannot beat it
    (which never changes the result while the analyses are exact; after an
    inexact one, see :data:`~numsweeper.solver.MAX_STATES`, the look-ahead
    no longer stops early).

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.solver import analyze
    >>> from numsweeper.solver.guess import hill_guess
    >>> H = ns.HIDDEN
    >>> visible = np.array([[1, H, H], [H, H, H]], dtype=np.int8)
    >>> a = analyze(visible, 1)
    >>> engine = ns.solver.Analyzer()
    >>> prober = lambda cells, mines, cell: engine.prober(cells, mines, cell, ns.solver.MAX_STATES)
    >>> hill_guess(visible, 1, a, visible == H, prober, engine, ns.solver.MAX_STATES)
    (0, 2)
    """
    p = np.where(clickable, a.probabilities, np.inf)
    rc = candidates(cells, p)
    if not len(rc):
        return None
    hidden = cells < 0
    hidden_nb = adjacent_counts(hidden)
    off0 = clickable & (adjacent_counts(~hidden) == 0)
    # the first few such cells: a window of 9 cells holds at most 9 of them
    off_first = [(x, y, x * cells.shape[1] + y) for x, y in np.argwhere(off0)[:10].tolist()]
    influence = _Influence(engine, cells, mines, a, max_states)
    # A clicked cell shows its certain mines plus some of its undecided
    # neighbours: numbers outside that range need no analysis.
    undecided = hidden & ~influence.certain & ~influence.safe
    q0 = a.probabilities
    low = adjacent_counts(influence.certain)
    high = low + adjacent_counts(undecided)
    total = a.layouts
    exact = a.exact
    best_key: tuple[float, int, int, int] | None = None
    best: Cell | None = None
    dead_key: tuple[float, int, int, int] | None = None
    dead: Cell | None = None
    for r, c in rc.tolist():
        pr = float(p[r, c])
        unseen = 1.0 - pr
        top = best_key[0] if best_key is not None else -1.0
        # The influence factor costs analyses: it is counted only when it
        # decides something, between its bounds 1 and ``most``.
        patterns = influence.patterns(r, c)
        factor: float | None = 1.0
        most = 1.0
        if any(patterns) and 0.0 < pr < 1.0:
            factor, most = None, 1.0 + INFLUENCE * min(pr, unseen) / unseen
        if best_key is not None:
            # skip the click if its safety times influence cannot reach the
            # best score so far
            if unseen * most + 1e-9 < top:
                if record is not None:
                    record[r, c] = "skip"
                continue
            if factor is None and unseen + 1e-9 < top:
                factor = influence.factor(patterns, pr)
            if factor is not None and unseen * factor + 1e-9 < top:
                if record is not None:
                    record[r, c] = "skip"
                continue
        # the first of those cells not next to the click (-1 if none)
        off_at = next((f for x, y, f in off_first if abs(x - r) > 1 or abs(y - c) > 1), -1)
        probe = cells.copy()
        # Look at the likeliest numbers first (nearest the expected one):
        # they decide soonest whether the click can still win.
        lo, hi = int(low[r, c]), int(high[r, c])
        near = undecided[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2]
        expected = lo + float(q0[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2][near].sum())
        seen: dict[int, tuple[float, float, bool]] = {}
        shown: Shown | Callable[[int], Analysis] | None = None  # (made on first use)
        unseen_0 = unseen
        reached = 0.0  # the score so far, in the order seen
        for n in sorted(range(lo, hi + 1), key=lambda n: (abs(n - expected), n)):
            # even if every outcome left were perfect, could it win?  (The
            # weights of an inexact analysis are bounds: no early stop then.)
            reach = (reached + unseen) * (1 + PROGRESS * unseen_0) * (1 + 1e-12)
            if exact and reach * (most if factor is None else factor) < top:
                if record is not None:
                    record[r, c] = "stop"
                break
            if exact and factor is None and reach < top:
                factor = influence.factor(patterns, pr)
                if reach * factor < top:
                    if record is not None:
                        record[r, c] = "stop"
                    break
            probe[r, c] = n
            try:
                if shown is None:
                    shown = prober(cells, mines, (r, c))
                # (a prober that only analyses, a plain function, has no look)
                look = getattr(shown, "look", None)
                found = look(n, off_at) if look is not None else None
                if found is None:  # (the analysis itself)
                    b = shown(n)
                    front_flat, front_p = b.frontier_probabilities()
                    s1, s2, live_safe = outlook(
                        frozen(probe), front_flat, front_p, b.off_probability, off_at
                    )
                    found = b.layouts, s1, s2, live_safe
                    exact = exact and b.exact
            except InvalidBoardError:
                continue
            layouts, s1, s2, live_safe = found
            weight = layouts / total
            unseen -= weight
            seen[n] = weight, 4 * s1 + s2, live_safe
            reached += weight * (4 * s1 + s2) / 5
        else:
            if factor is None:
                factor = influence.factor(patterns, pr)
            score = progress = 0.0
            for n in sorted(seen):  # summed in order of number: the same floats every time
                weight, blend, live_safe = seen[n]
                score += weight * blend / 5
                if live_safe:
                    progress += weight
            key = (score * factor * (1 + PROGRESS * progress), -int(hidden_nb[r, c]), -r, -c)
            if record is not None:
                record[r, c] = key
            if len(seen) <= 1:  # the click's number is known: it tells nothing
                if dead_key is None or key > dead_key:
                    dead_key, dead = key, (r, c)
            elif best_key is None or key > best_key:
                best_key, best = key, (r, c)
    return best if best is not None else dead


def lookahead_guess(
    cells: NDArray[np.int8],
    mines: int,
    a: Analysis,
    clickable: NDArray[np.bool_],
    analysed: Callable[[NDArray[np.int8], int], Analysis],
    *,
    tolerance: float,
    limit: int,
) -> Cell:
    """The ``'lookahead'`` guess: secondary safety among near-safest cells.

    Among the clickable cells within ``tolerance`` of the lowest mine
    probability (at most ``limit``, the likeliest and those with fewer
    hidden neighbours first; cells off the frontier, all alike, at most
    three), the click of the highest secondary safety: its safety times
    the safety of the best next move, over the numbers it can show
    (``analysed(cells, mines)`` analyses each).
    """
    p = np.where(clickable, a.probabilities, np.inf)
    best = float(p.min())
    hidden_nb = adjacent_counts(cells < 0)
    near = clickable & (p <= best + tolerance)
    front = clickable & (adjacent_counts(cells >= 0) > 0)
    rc = np.argwhere(near)
    # rank: probability, then fewer hidden neighbours; cap the off-frontier
    # cells (all alike) so that corners and edges represent them
    order = np.lexsort((rc[:, 1], rc[:, 0], hidden_nb[near], p[near]))
    rc = rc[order]
    on_front = front[rc[:, 0], rc[:, 1]]
    off_rc = rc[~on_front][:3]
    rc = np.concatenate([rc[on_front][: limit - len(off_rc)], off_rc])
    if len(rc) == 1:
        r, c = (int(v) for v in rc[0])
        return r, c
    total = a.layouts
    # A clicked cell shows its certain mines plus some of its undecided
    # neighbours: numbers outside that range need no analysis.
    certain = np.zeros(cells.shape, dtype=bool)
    certain[tuple(a.mines.T)] = True
    decided = certain.copy()
    decided[tuple(a.safe.T)] = True
    low = adjacent_counts(certain)
    high = low + adjacent_counts((cells < 0) & ~decided)
    best_key: tuple[float, float, int, int, int] | None = None
    best_rc = (int(rc[0][0]), int(rc[0][1]))
    for r, c in rc.tolist():
        score = opening = 0.0
        # The score can reach at most the click's own safety: stop as soon
        # as even that cannot catch the best so far (pure speed-up; the
        # margin keeps near-ties for the tie-breaks).
        unseen = 1.0 - float(p[r, c])
        target = -best_key[0] if best_key is not None else -1.0
        if unseen + 1e-9 < target:
            continue
        probe = cells.copy()
        pruned = False
        for n in range(int(low[r, c]), int(high[r, c]) + 1):
            if score + unseen + 1e-9 < target:
                pruned = True
                break
            probe[r, c] = n
            try:
                b = analysed(probe, mines)
            except InvalidBoardError:
                continue
            weight = b.layouts / total
            unseen -= weight
            if n == 0:
                opening = weight
            open_ = probe == HIDDEN
            if any(open_[x, y] for x, y in b.safe.tolist()):
                score += weight
            else:
                score += weight * (1.0 - float(np.min(b.probabilities[open_], initial=1.0)))
        key = (-score, -opening, int(hidden_nb[r, c]), r, c)
        if not pruned and (best_key is None or key < best_key):
            best_key, best_rc = key, (r, c)
    return best_rc


def quick_guess(
    cells: NDArray[np.int8], a: Analysis, clickable: NDArray[np.bool_], tolerance: float
) -> Cell:
    """The guess for a position with a huge untouched area: no look-ahead.

    The cell :func:`lookahead_guess` ranks first: among the clickable cells
    within ``tolerance`` of the lowest mine probability, a cell next to a
    number if there is one, else one off the frontier; the likeliest, then
    the one with fewer hidden neighbours, then the first in row-major
    order.  It reads the analysis per frontier cell, never as a grid of
    floats, so its memory follows the frontier (and a byte or two per cell).
    """
    cols = cells.shape[1]
    flat, q = a.frontier_probabilities()
    click = clickable.ravel()[flat]
    flat, q = flat[click], q[click]
    off = clickable.ravel().copy()
    off[a.frontier_probabilities()[0]] = False
    best = min(float(q.min()) if len(q) else math.inf, a.off_probability if off.any() else math.inf)
    hidden_nb = adjacent_counts(cells < 0).ravel()
    near = q <= best + tolerance
    if near.any():
        found = flat[near]
        first = np.lexsort((found, hidden_nb[found], q[near]))[0]
        r, c = divmod(int(found[first]), cols)
        return r, c
    found = np.flatnonzero(off)  # (all alike, so all near)
    r, c = divmod(int(found[np.argmin(hidden_nb[found])]), cols)
    return r, c


def forced_pair(
    cells: NDArray[np.int8], mines: int, a: Analysis, engine: Analyzer, max_states: int
) -> tuple[Cell, Cell] | None:
    """A sealed pair: a guess that no other click can make less risky.

    Two side-by-side undecided cells whose six outer neighbours (the three
    beyond each end) are off the board or certain mines can only ever be
    told apart by clicking one of them: every other cell that will show a
    number touches both.  If they cannot both be mines, one of them must be
    clicked sooner or later (unless later numbers show both safe), and no
    other click can lower the risk of that click, so it is best taken now,
    when its number may still help elsewhere.  Flags count as hidden.
    """
    rows, cols = cells.shape
    undecided = (cells == HIDDEN) & a.undecided
    sealed = np.ones((rows + 4, cols + 4), dtype=bool)  # off-board cells seal
    sealed[2:-2, 2:-2] = False
    if len(a.mines):
        sealed[a.mines[:, 0] + 2, a.mines[:, 1] + 2] = True
    for dr, dc in ((0, 1), (1, 0)):
        pair = undecided[: rows - dr, : cols - dc] & undecided[dr:, dc:]
        for k in (-1, 0, 1):  # the three cells beyond each end
            sr, sc = (k, -1) if dc else (-1, k)
            er, ec = (k, 2) if dc else (2, k)
            pair &= sealed[2 + sr : 2 + sr + rows - dr, 2 + sc : 2 + sc + cols - dc]
            pair &= sealed[2 + er : 2 + er + rows - dr, 2 + ec : 2 + ec + cols - dc]
        for r, c in np.argwhere(pair).tolist():
            if a.probability(r, c) + a.probability(r + dr, c + dc) > 1.0 + 1e-9:
                continue  # at most one mine means at most 1 expected
            both = np.where(cells == FLAG, HIDDEN, cells).astype(np.int8)
            both[r, c] = both[r + dr, c + dc] = FLAG
            try:
                engine.layouts_by_total(both, mines, trust_flags=True, max_states=max_states)
            except InvalidBoardError:
                return (r, c), (r + dr, c + dc)
    return None
