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
from numpy.typing import NDArray

from .._constants import FLAG, HIDDEN
from .._kernels import adjacent_counts
from ..errors import InvalidBoardError
from ._jit import frozen
from .analysis import Analysis, Analyzer
from .influence import INFLUENCE, _Influence
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
#: Weight of the chance that a click leaves a living certainly safe cell
#: (progress): a factor ``1 + PROGRESS * P`` that separates near-equal scores.
PROGRESS = 0.001
#: Off-frontier cells become candidates one by one only when there are few.
_FEW_OFF = 30
#: At most this many candidates are scored, the safest first.
MAX_CANDIDATES = 100

Cell = tuple[int, int]


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
    n_patterns = influence.pattern_counts(rc).tolist()
    for (r, c), has_patterns in zip(rc.tolist(), n_patterns, strict=True):
        pr = float(p[r, c])
        unseen = 1.0 - pr
        top = best_key[0] if best_key is not None else -1.0
        # The influence factor costs counts: it is counted only when it
        # decides something, between its bounds 1 and ``most``.
        factor: float | None = 1.0
        most = 1.0
        if has_patterns and 0.0 < pr < 1.0:
            factor, most = None, 1.0 + INFLUENCE * min(pr, unseen) / unseen
        if best_key is not None:
            # skip the click if its safety times influence cannot reach the
            # best score so far
            if unseen * most + 1e-9 < top:
                if record is not None:
                    record[r, c] = "skip"
                continue
            if factor is None and unseen + 1e-9 < top:
                factor = influence.factor(r, c, pr)
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
                factor = influence.factor(r, c, pr)
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
                factor = influence.factor(r, c, pr)
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
