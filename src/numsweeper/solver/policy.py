"""A playing policy over batches of games, and single-move hints.

Moves, cheapest first:

1. **First click**: a corner under ``'safe'``/None (the likeliest zero), an
   inner cell under ``'opening'``: (2, 2), or (3, 3) on boards of 400 cells
   or more (expert).
2. **Local rules**, vectorized over the whole batch: a number whose hidden
   neighbours equal its need makes them mines, a number whose need is met
   makes the rest safe; iterate to a fixed point.
3. **Exact engine** (:func:`~numsweeper.solver.analyze`) for boards the local
   rules leave stuck: a certainly safe cell if one exists.
4. **Endgame search** when few layouts remain (a few hundred, or up to
   2,000 late in a dense game, where few of the hidden cells are safe):
   an exhaustive expectimax over the explicit layouts that maximises the
   probability of winning.
5. **Forced guess first**: two side-by-side cells that can hold at most one
   mine, and that no other cell can ever tell apart (the cells beyond their
   ends are off the board or certain mines): one of them must be clicked
   unless later numbers happen to show both safe, and no other click can
   make that click less risky, so it is taken now, before any avoidable
   guess, when its number can still help elsewhere (David Hill's 50/50 and
   pseudo-50/50 rule).  Either cell of such a pair is an optimal click (the
   tests check this against an exact expectimax); lost games are lost
   earlier, with fewer cells revealed.
6. **Guess** (David Hill's way, ``guess='hill'``): score each cell whose
   safety is within 90% of the safest one's by its safety times the
   expected *outlook* after the click, ``(4 s1 + s2) / 5`` where ``s1``,
   ``s2`` are the two best safeties among the cells that could still tell
   something (cells whose number is already known count for nothing),
   times an *influence* factor that rewards clicks able to settle a
   would-be 50/50 next to them, times ``1 + 0.001 P(progress)`` (the
   chance of leaving a certainly safe cell), which separates near-equal
   scores; exact ties go to fewer hidden neighbours, then row-major order.
   See :mod:`numsweeper.solver._guess`.  The older ``guess='lookahead'``
   (among cells within ``tolerance`` of the lowest mine probability,
   maximise the secondary safety: the click's safety times the safety of
   the best next move) plays faster and wins a little less often.

The policy reads only visible states.  Between calls it remembers two things,
both deductions from visible states and never hidden mines: recent analyses
(so the position a look-ahead probe already analysed is not analysed again
when the click shows that number), and the certainly safe cells an analysis
found (a later position of the same shape and mine total that still shows
every number of the earlier one keeps them safe, so they are played without
a new analysis).  Remembered cells can change *which* certainly safe cell is
played first, and so a game's click count, never whether a move is certain:
while every analysis is exact (see :data:`~numsweeper.solver.MAX_STATES`)
the position where the policy next has to guess is the same either way.
The memory holds a few bytes per cell, bounded for huge boards, and a
copy or pickle of the policy starts without it, so :func:`numsweeper.simulate`
(which gives every chunk its own copy) records the same games for any
number of workers.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._constants import FLAG, HIDDEN
from .._kernels import adjacent_counts
from .._validate import check_coord, check_first_click, check_int, check_visible
from ..errors import IllegalMoveError, InvalidBoardError, OutOfBoundsError
from ..game import Game, GameState, Snapshot
from ._guess import hill_guess
from .analysis import MAX_STATES, Analysis, _coerce, _kernel, _Prober, analyze

__all__ = ["Hint", "SolverPolicy", "hint"]

_NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
_INT62 = 2**62  # caps the limits passed to the compiled kernels (int64)
_GUESSES = ("hill", "lookahead")


@dataclass(frozen=True)
class Hint:
    """The move the solver would make, and its risk.

    Attributes
    ----------
    row, col : int
        The cell to reveal.
    probability : float
        Its mine probability given what is visible.
    certain : bool
        True when the cell is certainly safe.

    Examples
    --------
    >>> import numsweeper as ns
    >>> ns.solver.Hint(0, 0, 0.0, True)
    Hint(row=0, col=0, probability=0.0, certain=True)
    """

    row: int
    col: int
    probability: float
    certain: bool


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

    Notes
    -----
    Each round applies both rules everywhere at once to what the previous
    rounds proved, until a round proves nothing new.  With numba installed
    (``pip install numsweeper[fast]``) the same rounds run compiled, and
    each round looks only at the numbers next to cells the previous round
    decided; the result is the same.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.policy import local_rules
    >>> v = np.array([[1, -1], [1, -1], [0, 0]], dtype=np.int8)
    >>> safe, mines = local_rules(v)
    >>> safe.astype(int).tolist(), mines.astype(int).tolist()
    ([[0, 0], [0, 1], [0, 0]], [[0, 1], [0, 0], [0, 0]])

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
    """
    cells = check_visible(visible, tuple(range(2, 33)), "(..., rows, cols)")
    rounds = check_int(max_rounds, "max_rounds")
    if rounds < 0:
        raise ValueError(f"max_rounds must be >= 0, got {rounds}")
    return _local_rules(cells, max_rounds=rounds)


def _local_rules(
    visible: NDArray[np.int8], *, max_rounds: int = 32
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """:func:`local_rules` without the checks."""
    kernel = _kernel()
    if kernel is not None and visible.ndim >= 2 and visible.size:
        stack = np.ascontiguousarray(visible, dtype=np.int8).reshape((-1, *visible.shape[-2:]))
        safe, mines = kernel.local_rules_stack(stack, min(int(max_rounds), _INT62))
        return safe.reshape(visible.shape), mines.reshape(visible.shape)
    number = visible >= 0
    unknown = ~number
    safe = np.zeros(visible.shape, dtype=bool)
    mines = np.zeros(visible.shape, dtype=bool)
    value = np.where(number, visible, 0).astype(np.int8)
    for _ in range(max_rounds):
        free = unknown & ~safe & ~mines
        need = value - adjacent_counts(mines)
        n_free = adjacent_counts(free)
        active = number & (n_free > 0)
        all_mines = active & (need == n_free)
        all_safe = active & (need == 0)
        new_mines = free & (adjacent_counts(all_mines) > 0)
        new_safe = free & (adjacent_counts(all_safe) > 0)
        if not (new_mines.any() or new_safe.any()):
            break
        mines |= new_mines
        safe |= new_safe
    return safe, mines


#: Boards with at least this many cells open at (3, 3) under 'opening';
#: smaller ones at (2, 2).  Measured: on intermediate 16x16/40, (2, 2) won
#: 89.13 % of 140,000 games against 88.75 % for (3, 3) over 120,000 (see
#: docs/win_rates.md); expert keeps David Hill's (3, 3).
_FAR_OPENING_CELLS = 400


def _first_click(rows: int, cols: int, rule: str | None) -> tuple[int, int]:
    if rule == "opening":
        d = 3 if rows * cols >= _FAR_OPENING_CELLS else 2
        return min(d, (rows - 1) // 2), min(d, (cols - 1) // 2)
    return 0, 0


class SolverPolicy:
    """The solver as a policy: ``policy(visible, mines_left, rng) -> clicks``.

    Parameters
    ----------
    first_click : {None, 'safe', 'opening'}
        The game's first-click rule; it decides the opening move.
    start : (int, int) or array_like of 2 ints, optional
        Open every game at this cell instead of the rule's best known
        start: a corner under ``'safe'`` or None, (2, 2) under
        ``'opening'`` ((3, 3) on boards of 400 cells or more).  On expert
        those starts are the best measured: the corner wins 1.1 to 3.1
        points more than (0, 1), (0, 2), (1, 1) or (2, 2) under ``'safe'``,
        and (3, 3) 1.5 to 1.7 points more than (4, 4) or (5, 5) under
        ``'opening'`` (0.5 more than (2, 2), within noise); see
        ``docs/win_rates.md``.  A negative coordinate raises
        :class:`~numsweeper.OutOfBoundsError` here, and one off a game's
        board raises it at that game's first move.
    tolerance : float, default 0.05
        ``'lookahead'`` guesses: candidates lie within this much of the
        lowest mine probability.
    candidates : int, default 8
        ``'lookahead'`` guesses: at most this many candidates get the
        look-ahead.
    endgame_layouts : int, default 400
        Exhaustive endgame search when at most this many layouts remain ...
    endgame_dense : float, default 250.0
        ... or when ``layouts * d**3`` is at most this, where ``d`` is the
        share of hidden cells that are safe: late in a dense game a search
        of a thousand or two layouts is cheap and worth it (David Hill's
        trigger) ...
    endgame_max_layouts : int, default 2000
        ... but the density rule never past this many layouts (on expert,
        two in three searches of 2,000 to 3,000 layouts stop at
        ``endgame_nodes``, and the rest rarely change the move) ...
    endgame_cells : int, default 128
        ... and at most this many undecided hidden cells.
    endgame_nodes : int, default 100_000
        Budget of search states, and of their work: ``200 *
        endgame_nodes`` layout-cells examined in all.  Past either the
        search gives up for that move and the guess heuristic decides.
        On tiny dense boards (where most positions have few layouts) the
        search dominates the cost: pass ``endgame_layouts=24,
        endgame_dense=0, endgame_nodes=20_000`` to play them 2-4x
        faster (measured on 4x4/6 and 8x8/20), a little less well.
    max_states : int, default MAX_STATES
        Guard passed to :func:`~numsweeper.solver.analyze`.
    fifty_fifty : bool, default True
        Guess a forced pair (a 50/50 or pseudo-50/50) as soon as one shows
        up, before any other guess (the endgame search, when it applies,
        decides first and finds such moves itself).
    guess : {'hill', 'lookahead'}, default 'hill'
        How to choose among uncertain cells (see the module notes):
        ``'hill'`` wins more (on expert about 0.3 points more), the older
        ``'lookahead'`` plays expert games faster (1.1-1.3 times; whole
        games of 50 x 50 to 200 x 200 took about the same time with
        either).  Positions with more than 20,000 untouched hidden cells
        take the likeliest cell at once under either.

    Attributes
    ----------
    timings : dict of str to float
        Seconds spent in ``'local'`` rules, the ``'exact'`` engine, the
        ``'guess'`` look-ahead, the ``'endgame'`` search and the ``'forced'``
        pair check (cumulative).
    counts : dict of str to int
        Moves decided by ``'first'`` click, ``'local'`` rules, the
        ``'exact'`` engine, a ``'remembered'`` proven-safe cell, the
        ``'endgame'`` search, a ``'forced'`` pair and a ``'guess'``.

    Notes
    -----
    Every move is a function of what is visible: the policy never sees
    hidden mines.  It remembers recent analyses and the safe cells they
    proved (see the module notes), which can change the order of certain
    moves but never a guess.  The ``rng`` argument is accepted for the
    policy interface and unused: ties are broken deterministically (fewer
    hidden neighbours, then row-major).

    The policy trusts that each visible state comes from a real game: its
    local rules and its memory do not check that some layout explains the
    state, so an inconsistent state may get a move instead of an
    :class:`~numsweeper.InvalidBoardError` (the exact engine, when called,
    still raises).  :func:`hint` and :func:`analyze` check every state.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> policy = ns.solver.SolverPolicy(first_click="safe")
    >>> visible = np.full((2, 9, 9), ns.HIDDEN, dtype=np.int8)
    >>> policy(visible, np.array([10, 10]), np.random.default_rng(0)).tolist()
    [[0, 0], [0, 0]]
    """

    def __init__(
        self,
        first_click: str | None = None,
        *,
        start: tuple[int, int] | None = None,
        tolerance: float = 0.05,
        candidates: int = 8,
        endgame_layouts: int = 400,
        endgame_dense: float = 250.0,
        endgame_max_layouts: int = 2000,
        endgame_cells: int = 128,
        endgame_nodes: int = 100_000,
        max_states: int = MAX_STATES,
        fifty_fifty: bool = True,
        guess: str = "hill",
    ) -> None:
        check_first_click(first_click)
        if start is not None:
            pair = np.asarray(start, dtype=object)  # (ragged input stays one object per item)
            if pair.ndim == 0:
                raise TypeError(f"start must be a (row, col) pair, got {start!r}")
            if len(pair) != 2:
                raise ValueError(f"start must be a (row, col) pair, got {start!r}")
            start = (check_int(pair[0], "start row"), check_int(pair[1], "start col"))
            if min(start) < 0:
                raise OutOfBoundsError(f"start {start} is off every board (negative)")
        if guess not in _GUESSES:
            raise ValueError(f"guess must be one of {_GUESSES}, got {guess!r}")
        for name, value, low in (
            ("tolerance", tolerance, 0),
            ("candidates", candidates, 1),
            ("endgame_layouts", endgame_layouts, 0),
            ("endgame_dense", endgame_dense, 0),
            ("endgame_max_layouts", endgame_max_layouts, 0),
            ("endgame_cells", endgame_cells, 0),
            ("endgame_nodes", endgame_nodes, 1),
            ("max_states", max_states, 1),
        ):
            if name in ("tolerance", "endgame_dense"):
                if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, float, np.integer, np.floating)
                ):
                    raise TypeError(f"{name} must be a number, got {value!r}")
                ok = value >= low and math.isfinite(value)  # (NaN fails both)
            else:
                ok = check_int(value, name) >= low
            if not ok:
                raise ValueError(f"{name} must be a finite number >= {low}, got {value!r}")
        self.first_click = first_click
        self.tolerance = float(tolerance)
        self.candidates = int(candidates)
        self.endgame_layouts = int(endgame_layouts)
        self.endgame_dense = float(endgame_dense)
        self.endgame_max_layouts = int(endgame_max_layouts)
        self.endgame_cells = int(endgame_cells)
        self.endgame_nodes = int(endgame_nodes)
        self.max_states = int(max_states)
        self.fifty_fifty = bool(fifty_fifty)
        self.guess = guess
        self.start = start
        self.timings = {"local": 0.0, "exact": 0.0, "guess": 0.0, "endgame": 0.0, "forced": 0.0}
        self.counts = {
            "first": 0,
            "local": 0,
            "exact": 0,
            "remembered": 0,
            "endgame": 0,
            "forced": 0,
            "guess": 0,
        }
        self._forget()

    def _forget(self) -> None:
        """Drop what the policy remembers (see the module notes)."""
        self._lock = threading.Lock()
        self._analyses: OrderedDict[tuple[Any, ...], Analysis] = OrderedDict()
        self._known = _KnownSafe()

    def __getstate__(self) -> dict[str, Any]:
        # Copies (pickled for worker processes, deep-copied per simulate
        # chunk) start with an empty memory: nothing to ship, no lock.
        state = self.__dict__.copy()
        for name in ("_lock", "_analyses", "_known"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A policy pickled before the density trigger (commit cf96a28) keeps
        # playing as it did: no dense searches past its endgame_layouts.
        state.setdefault("endgame_dense", 0.0)
        state.setdefault("endgame_max_layouts", state.get("endgame_layouts", 0))
        # ... and one pickled before Hill's guess became the default guesses as it did
        state.setdefault("guess", "lookahead")
        state.setdefault("start", None)
        self.__dict__.update(state)
        self._forget()

    def __repr__(self) -> str:
        start = "" if self.start is None else f", start={self.start!r}"
        return f"SolverPolicy(first_click={self.first_click!r}{start})"

    def _opening(self, rows: int, cols: int) -> tuple[int, int]:
        if self.start is None:
            return _first_click(rows, cols, self.first_click)
        try:
            return check_coord(*self.start, rows, cols)
        except OutOfBoundsError as exc:
            raise OutOfBoundsError(
                f"start {self.start} is off the {rows}x{cols} board: {exc}"
            ) from None

    def __call__(
        self, visible: ArrayLike, mines_left: ArrayLike, rng: Any = None
    ) -> NDArray[np.intp]:
        """Choose one cell to reveal in each game of a batch.

        Parameters
        ----------
        visible : array_like of int8, shape (k, rows, cols)
            Visible states of games in progress.
        mines_left : array_like of int, shape (k,)
            Mines minus flags of each game.
        rng : numpy.random.Generator, optional
            Unused: the policy is deterministic.

        Returns
        -------
        ndarray of intp, shape (k, 2)
            ``(row, col)`` per game, always a hidden, unflagged cell (the
            cell nearest the usual opening, if a fresh game has it flagged).

        Raises
        ------
        InvalidBoardError
            If ``visible`` is not ``(k, rows, cols)`` of counts, HIDDEN and
            FLAG, or ``mines_left`` does not give one count per game.
        TypeError
            If ``visible`` or ``mines_left`` do not hold integers.
        IllegalMoveError
            If a game has no hidden, unflagged cell left to reveal.
        """
        cells, left = _check_batch(visible, mines_left)
        k, rows, cols = cells.shape
        out = np.zeros((k, 2), dtype=np.intp)
        if k == 0:
            return out
        t0 = time.perf_counter()
        revealed_any = (cells >= 0).reshape(k, -1).any(axis=1)
        safe, _ = _local_rules(cells)
        safe &= cells == HIDDEN
        flat_safe = safe.reshape(k, -1)
        has_safe = flat_safe.any(axis=1)
        first = np.argmax(flat_safe, axis=1)
        out[:, 0], out[:, 1] = np.divmod(first, cols)
        fresh = ~revealed_any
        if fresh.any():
            opening = self._opening(rows, cols)
            for i in np.flatnonzero(fresh).tolist():
                out[i] = _unflagged_near(cells[i], opening)
        self.timings["local"] += time.perf_counter() - t0
        self.counts["first"] += int(fresh.sum())
        self.counts["local"] += int((has_safe & ~fresh).sum())
        n_flags = (cells == FLAG).reshape(k, -1).sum(axis=1)
        for i in np.flatnonzero(~has_safe & ~fresh).tolist():
            move = self._choose(cells[i], int(left[i] + n_flags[i]))
            out[i] = move.row, move.col
        return out

    # -- one stuck board ------------------------------------------------------

    def _analyze(self, cells: NDArray[np.int8], mines: int) -> Analysis:
        """:func:`analyze`, through a small cache of recent positions."""
        a = self._analyzed(cells, mines)
        if a is None:
            a = analyze(cells, mines, max_states=self.max_states)
            self._keep(cells, mines, a)
        return a

    def _keep(self, cells: NDArray[np.int8], mines: int, a: Analysis) -> None:
        """Remember the analysis of a position."""
        # about 10 bytes per cell per analysis: keep few of a huge board
        kept = min(_ANALYSES_KEPT, _MEMORY_CELLS // cells.size)
        with self._lock:
            self._analyses[self._key(cells, mines)] = a
            while len(self._analyses) > kept:
                self._analyses.popitem(last=False)

    def _probe(
        self, cells: NDArray[np.int8], mines: int, cell: tuple[int, int]
    ) -> Callable[[int], Analysis]:
        """:meth:`_analyze` of ``cells`` with ``cell`` shown as each number in turn."""
        shown: list[_Prober] = []  # made on the first number not in the cache

        def analysed(n: int) -> Analysis:
            probe = cells.copy()
            probe[cell] = n
            a = self._analyzed(probe, mines)
            if a is None:
                if not shown:
                    shown.append(_Prober(cells, mines, cell, self.max_states))
                a = shown[0](n)
                self._keep(probe, mines, a)
            return a

        return analysed

    def _analyzed(self, cells: NDArray[np.int8], mines: int) -> Analysis | None:
        """The cached analysis of this exact position, if any."""
        with self._lock:
            return self._analyses.get(self._key(cells, mines))

    def _key(self, cells: NDArray[np.int8], mines: int) -> tuple[Any, ...]:
        return cells.tobytes(), cells.shape, mines, self.max_states

    def _choose(self, cells: NDArray[np.int8], mines: int) -> Hint:
        """The move for one board that the local rules cannot settle."""
        t0 = time.perf_counter()
        clickable = cells == HIDDEN
        a = self._analyzed(cells, mines)
        if a is None:
            with self._lock:
                known = self._known.find(cells, mines)
            if known is not None:
                self.timings["exact"] += time.perf_counter() - t0
                self.counts["remembered"] += 1
                return Hint(known[0], known[1], 0.0, True)
            a = self._analyze(cells, mines)
        self.timings["exact"] += time.perf_counter() - t0
        safe = [tuple(rc) for rc in a.safe.tolist() if clickable[rc[0], rc[1]]]
        if safe:
            self.counts["exact"] += 1
            if len(safe) > 1:
                with self._lock:
                    self._known.add(cells, mines, safe[1:])
            return Hint(int(safe[0][0]), int(safe[0][1]), 0.0, True)
        p = a.probabilities
        open_cells = int(np.count_nonzero((cells < 0) & (p > 0.0) & (p < 1.0)))
        if (
            open_cells <= self.endgame_cells
            and a.unconstrained <= self.endgame_cells
            and self._searchable(cells, a)
        ):
            t0 = time.perf_counter()
            best = _endgame(cells, a, self.endgame_nodes)
            self.timings["endgame"] += time.perf_counter() - t0
            if best is not None:
                self.counts["endgame"] += 1
                r, c = best
                return Hint(r, c, float(p[r, c]), False)
        if self.fifty_fifty:
            t0 = time.perf_counter()
            pair = _forced_pair(cells, mines, a, self.max_states)
            self.timings["forced"] += time.perf_counter() - t0
            if pair is not None:
                self.counts["forced"] += 1
                r, c = min(pair, key=lambda rc: (p[rc], rc))
                return Hint(r, c, float(p[r, c]), False)
        t0 = time.perf_counter()
        move = self._guess(cells, mines, a, clickable)
        self.timings["guess"] += time.perf_counter() - t0
        self.counts["guess"] += 1
        return move

    def _searchable(self, cells: NDArray[np.int8], a: Analysis) -> bool:
        """Whether the endgame search takes a position of ``a.layouts`` layouts."""
        if a.layouts <= self.endgame_layouts:
            return True
        if a.layouts > self.endgame_max_layouts:
            return False
        hidden = int(np.count_nonzero(cells < 0))
        safe_share = (hidden - a.mines_left) / hidden
        return a.layouts * safe_share**3 <= self.endgame_dense

    def _guess(
        self, cells: NDArray[np.int8], mines: int, a: Analysis, clickable: NDArray[np.bool_]
    ) -> Hint:
        if self.guess == "hill" and a.unconstrained <= _QUICK_UNCONSTRAINED:
            rc = hill_guess(cells, mines, a, clickable, self._probe, self.max_states)
            if rc is not None:
                r, c = rc
                return Hint(r, c, float(a.probabilities[r, c]), False)
        return self._lookahead(cells, mines, a, clickable)

    def _lookahead(
        self, cells: NDArray[np.int8], mines: int, a: Analysis, clickable: NDArray[np.bool_]
    ) -> Hint:
        """The ``'lookahead'`` guess: secondary safety among near-safest cells."""
        p = np.where(clickable, a.probabilities, np.inf)
        best = float(p.min())
        hidden_nb = adjacent_counts(cells < 0)
        near = clickable & (p <= best + self.tolerance)
        front = clickable & (adjacent_counts(cells >= 0) > 0)
        rc = np.argwhere(near)
        # rank: probability, then fewer hidden neighbours; cap the off-frontier
        # cells (all alike) so that corners and edges represent them
        order = np.lexsort((rc[:, 1], rc[:, 0], hidden_nb[near], p[near]))
        rc = rc[order]
        on_front = front[rc[:, 0], rc[:, 1]]
        off_rc = rc[~on_front][:3]
        rc = np.concatenate([rc[on_front][: self.candidates - len(off_rc)], off_rc])
        if len(rc) == 1 or a.unconstrained > _QUICK_UNCONSTRAINED:
            r, c = (int(v) for v in rc[0])
            return Hint(r, c, float(p[r, c]), False)
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
                    b = self._analyze(probe, mines)
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
        r, c = best_rc
        return Hint(r, c, float(p[r, c]), False)


#: Past this many off-frontier cells (huge boards early on) a guess skips
#: the look-ahead: the likeliest cells are all alike and any will do.
_QUICK_UNCONSTRAINED = 20_000
#: Recent analyses the policy keeps (look-ahead probes included).
_ANALYSES_KEPT = 256
#: Cells the policy's memories may hold in all (a few bytes each): expert
#: boards keep everything, boards of millions of cells keep one or nothing.
_MEMORY_CELLS = 4_000_000


class _KnownSafe:
    """Certainly safe cells found earlier, and the positions that proved them.

    A cell proved safe from position ``S`` is safe in every position of the
    same shape and mine total that shows all of ``S``'s numbers (more numbers
    only rule layouts out).  The entries live in one array, so checking a
    position against all of them is a few vectorized comparisons; on huge
    boards there is room for few entries, or none.
    """

    def __init__(self) -> None:
        self.shape: tuple[int, ...] = ()
        self.shown = np.zeros((0, 0), dtype=np.int8)  # numbers, -1 elsewhere
        self.safe = np.zeros((0, 0), dtype=bool)
        self.mines = np.zeros(0, dtype=np.int64)
        self.next = 0

    def add(self, cells: NDArray[np.int8], mines: int, safe: list[tuple[int, int]]) -> None:
        """Remember that ``safe`` cells are certainly safe in ``cells``."""
        flat = cells.reshape(-1)
        if cells.shape != self.shape:
            size = min(256, _MEMORY_CELLS // (2 * flat.size))
            self.shape = cells.shape
            self.shown = np.full((size, flat.size), -1, dtype=np.int8)
            self.safe = np.zeros((size, flat.size), dtype=bool)
            self.mines = np.full(size, -1, dtype=np.int64)
            self.next = 0
        if not len(self.mines):
            return
        i = self.next
        self.next = (i + 1) % len(self.mines)
        self.shown[i] = np.where(flat >= 0, flat, -1)
        self.safe[i] = False
        rc = np.array(safe, dtype=np.intp)
        self.safe[i, rc[:, 0] * cells.shape[1] + rc[:, 1]] = True
        self.mines[i] = mines

    def find(self, cells: NDArray[np.int8], mines: int) -> tuple[int, int] | None:
        """A remembered safe cell still hidden in ``cells``, row-major first."""
        flat = cells.reshape(-1)
        if cells.shape != self.shape or not len(self.mines):
            return None
        fits = (self.mines == mines) & ((self.shown < 0) | (self.shown == flat)).all(axis=1)
        if not fits.any():
            return None
        open_ = self.safe[fits].any(axis=0) & (flat == HIDDEN)
        if not open_.any():
            return None
        r, c = divmod(int(np.argmax(open_)), cells.shape[1])
        return r, c


def _forced_pair(
    cells: NDArray[np.int8], mines: int, a: Analysis, max_states: int = MAX_STATES
) -> tuple[tuple[int, int], tuple[int, int]] | None:
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
    p = a.probabilities
    undecided = (cells == HIDDEN) & (p > 0.0) & (p < 1.0)
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
            if p[r, c] + p[r + dr, c + dc] > 1.0 + 1e-9:
                continue  # at most one mine means at most 1 expected
            both = np.where(cells == FLAG, HIDDEN, cells).astype(np.int8)
            both[r, c] = both[r + dr, c + dc] = FLAG
            try:
                analyze(both, mines, trust_flags=True, max_states=max_states)
            except InvalidBoardError:
                return (r, c), (r + dr, c + dc)
    return None


class _OverBudget(Exception):
    pass


#: The endgame search may examine ``budget * _WORK_PER_STATE`` layout-cells
#: in all, and its layout listing may take as many steps.  In expert games a
#: state examines about 140-180 on average (at most about 550), so a search
#: of wide states stops at the work limit before it reaches ``budget``
#: states.  No search of up to 300 layouts in 1,200 measured expert games
#: reached either limit; above 1,000 layouts (the density rule) about a third
#: of the searches stop at one (see docs/win_rates.md, "Seventh round").
_WORK_PER_STATE = 200


def _endgame(cells: NDArray[np.int8], a: Analysis, budget: int) -> tuple[int, int] | None:
    """Best click by exhaustive search over the few remaining layouts.

    The click with the highest win probability from :func:`_endgame_values`
    (among the clicks it counts in full, ties to the first cell in row-major
    order; a dead click that ties is not counted), or None.
    """
    values = _endgame_values(cells, a, budget, every=False)
    if not values:
        return None
    return max(values, key=lambda rc: (values[rc], -rc[0], -rc[1]))


def _endgame_values(
    cells: NDArray[np.int8], a: Analysis, budget: int, every: bool = True
) -> dict[tuple[int, int], float] | None:
    """Win probability of each undecided click under perfect play after it.

    Every layout is equally likely.  A state is the set of layouts still
    consistent; cells safe in all of them are revealed for free (more
    information never hurts), then the search tries the other undecided
    cells and sums over the numbers each could show.  It skips the clicks
    that cannot beat the best one found (bounded by the layouts where they
    are safe) and, while any click can tell something and no cell is
    flagged, the dead ones (one number wherever they are safe).  The search
    counts the layouts won, in exact integers, so equal clicks tie exactly;
    a click's value is its count over the number of layouts.  With
    ``every`` each click of the position gets its value; without, only
    those the search had to count in full, which include a best one.
    Certain mines are fixed, so only undecided cells enter the layouts.
    Returns None if the search needs more than ``budget`` states, or
    examines more than ``budget * _WORK_PER_STATE`` layout-cells, or no
    click is undecided.
    With numba installed the same listing and search run compiled, for any
    number of layouts and cells (the listing's order differs, which changes
    no count).
    """
    p = a.probabilities
    known = (cells < 0) & (p == 1.0)
    undecided = (cells < 0) & (p > 0.0) & (p < 1.0)
    unknown = [(int(r), int(c)) for r, c in np.argwhere(undecided).tolist()]
    index = {rc: i for i, rc in enumerate(unknown)}
    mines = a.mines_left - int(np.count_nonzero(known))
    clickable = [bool(cells[r, c] == HIDDEN) for r, c in unknown]
    neighbours = [
        [j for dr, dc in _NEIGHBOURS if (j := index.get((r + dr, c + dc), -1)) >= 0]
        for r, c in unknown
    ]
    limit = budget * _WORK_PER_STATE
    kernel = _kernel()
    if kernel is not None:
        words = max(1, -(-len(unknown) // 64))
        plan = _placement_plan(cells, known, unknown, index)
        lays, complete = kernel.endgame_layouts(*_flat_plan(plan), mines, min(limit, _INT62), words)
        if not complete or len(lays) != a.layouts:
            return None
        nbr = np.zeros((len(unknown), words), dtype=np.uint64)
        for i, members in enumerate(neighbours):
            for j in members:
                nbr[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        wins = kernel.endgame_wins(
            lays,
            nbr,
            np.array(clickable, dtype=np.bool_),
            min(budget, _INT62),  # int64 in the kernel; never reached anyway
            min(limit, _INT62),
            every,
        )
        if not len(wins):
            return None
        won = {i: w for i, w in enumerate(wins.tolist()) if w >= 0}
        total = len(lays)
    else:
        try:
            layouts = _layouts(cells, known, mines, unknown, index, limit)
        except _OverBudget:
            return None
        if len(layouts) != a.layouts:
            return None
        nbr_masks = [sum(1 << j for j in members) for members in neighbours]
        try:
            won = _endgame_wins(layouts, nbr_masks, clickable, budget, every)
        except _OverBudget:
            return None
        total = len(layouts)
    if not won:
        return None
    return {unknown[i]: w / total for i, w in won.items()}


def _endgame_wins(
    layouts: list[int], nbr: list[int], clickable: list[bool], budget: int, every: bool = True
) -> dict[int, int]:
    """Layouts won by the risky clicks of :func:`_endgame_values`, in Python."""
    n = len(nbr)
    full = (1 << n) - 1
    memo: dict[frozenset[int], int] = {}
    # States and work left: every state costs the layouts it examines per
    # candidate cell, so a few wide states cannot run for minutes within the
    # budget.  Both totals are the same in any order of search.
    left = [budget, budget * _WORK_PER_STATE]
    defer_dead = all(clickable)

    def wins(group: frozenset[int], above: int) -> int:
        # ``above``: the union of the state this group was split from.  A
        # cell already safe there shows one number across this group (that
        # state was split by it), so only cells newly safe can split it.
        if len(group) == 1:
            return 1
        got = memo.get(group)
        if got is not None:
            return got
        left[0] -= 1
        left[1] -= len(group) * n
        if left[0] < 0 or left[1] < 0:
            raise _OverBudget
        union = 0
        inter = full
        for lay in group:
            union |= lay
            inter &= lay
        fresh = above & ~union
        # Reveal every certainly safe cell at once: partition by their
        # numbers.  Only safe cells next to an undecided cell can show
        # different numbers in different layouts.
        varying = union & ~inter
        bits = [i for i in range(n) if fresh >> i & 1 and nbr[i] & varying]
        parts: dict[tuple[int, ...], list[int]] = {}
        if bits:
            for lay in group:
                key = tuple([(lay & nbr[i]).bit_count() for i in bits])
                parts.setdefault(key, []).append(lay)
        if len(parts) > 1:
            result = sum(wins(frozenset(q), union) for q in parts.values())
        else:
            result = best(group, union, varying, None)
        memo[group] = result
        return result

    def best(group: frozenset[int], union: int, varying: int, out: dict[int, int] | None) -> int:
        # The best click's count.  Clicks are tried by layouts where they
        # are safe (most first): a click cannot win more, so once that
        # bound cannot beat the best so far, neither can any later click,
        # and a click stops as soon as its count plus its unexamined safe
        # layouts cannot.  A dead click (one number wherever it is safe)
        # tells nothing but its own safety, so it can wait: it is tried only
        # when every click is dead.  (Not with flags: a flagged cell cannot
        # be clicked, and a dead click that makes it safe can tell more than
        # any clickable cell.)  The root with ``every`` counts every click
        # in full into ``out``; otherwise ties go to the lower index.
        m = len(group)
        options = sorted(
            (-(m - sum(lay >> i & 1 for lay in group)), i)
            for i in range(n)
            if varying >> i & 1 and clickable[i]
        )
        full_count = out is not None and every
        defer = defer_dead and not full_count
        by_index = out is not None
        top, top_i = 0, n
        dead: list[tuple[int, int, list[list[int]]]] = []
        any_live = False
        for neg_safe, i in options:
            if not full_count and not beats(-neg_safe, i, top, top_i, by_index):
                break
            split = split_by(group, i)
            if defer and len(split) < 2:
                dead.append((-neg_safe, i, split))
                continue
            any_live = True
            top, top_i = tried(union, -neg_safe, i, split, top, top_i, full_count, out)
        if not any_live:  # every click is dead: try them after all
            for safe, i, split in dead:
                if not beats(safe, i, top, top_i, by_index):
                    break
                top, top_i = tried(union, safe, i, split, top, top_i, False, out)
        return top

    def split_by(group: frozenset[int], i: int) -> list[list[int]]:
        # the layouts where cell i is safe, by the number it shows
        split: list[list[int]] = [[] for _ in range(9)]
        for lay in group:
            if not lay >> i & 1:
                split[(lay & nbr[i]).bit_count()].append(lay)
        return [q for q in split if q]

    def tried(
        union: int,
        safe: int,
        i: int,
        split: list[list[int]],
        top: int,
        top_i: int,
        full_count: bool,
        out: dict[int, int] | None,
    ) -> tuple[int, int]:
        # count click i (unless it cannot beat the best); the new best
        total, rest = 0, safe
        for q in split:
            rest -= len(q)
            total += wins(frozenset(q), union)
            if not full_count and not beats(total + rest, i, top, top_i, out is not None):
                return top, top_i
        if out is not None:
            out[i] = total
        if beats(total, i, top, top_i, True):
            return total, i
        return top, top_i

    def beats(value: int, i: int, top: int, top_i: int, by_index: bool) -> bool:
        return value > top or (by_index and value == top and i < top_i)

    union = 0
    inter = full
    for lay in layouts:
        union |= lay
        inter &= lay
    won: dict[int, int] = {}
    best(frozenset(layouts), union, union & ~inter, won)
    return won


#: How :func:`_layouts` places the cells: the cell of each step, the
#: numbers (constraint ids) it touches, how many of each number's cells are
#: still unplaced after it, and each number's mines still to place.
_Plan = tuple[list[int], list[list[int]], list[list[int]], list[int]]


def _placement_plan(
    cells: NDArray[np.int8],
    known: NDArray[np.bool_],
    unknown: list[tuple[int, int]],
    index: dict[tuple[int, int], int],
) -> _Plan:
    """The order in which :func:`_layouts` places cells, and its checks.

    The cells some number constrains come first (row-major), so that a
    branch that can no longer meet a number stops at once; the
    unconstrained cells, placed last, never dead-end.
    """
    cons: list[tuple[int, list[int]]] = []
    known_nb = adjacent_counts(known)
    placed = np.zeros(cells.shape, dtype=bool)
    if unknown:
        placed[tuple(np.array(unknown).T)] = True
    # (the numbers next to a cell to place, row-major; the others have no members)
    for r, c in np.argwhere((cells >= 0) & (adjacent_counts(placed) > 0)).tolist():
        members = [index[(r + dr, c + dc)] for dr, dc in _NEIGHBOURS if (r + dr, c + dc) in index]
        if members:
            cons.append((int(cells[r, c] - known_nb[r, c]), members))
    n = len(unknown)
    seen = sorted({i for _, members in cons for i in members})
    order = seen + sorted(set(range(n)) - set(seen))
    at = {i: k for k, i in enumerate(order)}
    of_step: list[list[int]] = [[] for _ in range(n)]
    for j, (_, members) in enumerate(cons):
        for i in members:
            of_step[at[i]].append(j)
    # room[k][t]: cells of the t-th number of step k still unplaced after it
    room = [[sum(at[i] > k for i in cons[j][1]) for j in of_step[k]] for k in range(n)]
    return order, of_step, room, [v for v, _ in cons]


def _flat_plan(plan: _Plan) -> tuple[NDArray[np.int64], ...]:
    """A :data:`_Plan` as the arrays the compiled listing takes."""
    order, of_step, room, need = plan
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(js) for js in of_step])
    flat_cons = np.array([j for js in of_step for j in js], dtype=np.int64)
    flat_room = np.array([r for rs in room for r in rs], dtype=np.int64)
    return (
        np.array(order, dtype=np.int64),
        ptr,
        flat_cons,
        flat_room,
        np.array(need, dtype=np.int64),
    )


def _layouts(
    cells: NDArray[np.int8],
    known: NDArray[np.bool_],
    mines: int,
    unknown: list[tuple[int, int]],
    index: dict[tuple[int, int], int],
    limit: int | None = None,
) -> list[int]:
    """Every layout of ``mines`` mines over ``unknown`` that fits the numbers.

    ``known`` marks certain mines outside ``unknown``; cells neither known
    nor in ``unknown`` are certainly safe.  Cells are placed in the order of
    :func:`_placement_plan`, checking at every step that each number can
    still be met by its unplaced cells.  Raises :class:`_OverBudget` after
    ``limit`` placement steps (numbers that can each still be met but not
    together can still grow a dead tree).
    """
    order, of_step, room, need = _placement_plan(cells, known, unknown, index)
    n = len(unknown)
    out: list[int] = []
    steps = [limit]

    def place(k: int, left: int, lay: int) -> None:
        if steps[0] is not None:
            steps[0] -= 1
            if steps[0] < 0:
                raise _OverBudget
        if left < 0 or left > n - k:
            return
        if k == n:
            if left == 0:
                out.append(lay)
            return
        js, rooms = of_step[k], room[k]
        for bit in (0, 1):
            for j in js:
                need[j] -= bit
            if all(0 <= need[j] <= r for j, r in zip(js, rooms, strict=True)):
                place(k + 1, left - bit, lay | (bit << order[k]))
            for j in js:
                need[j] += bit

    place(0, mines, 0)
    # the order of a plain cell-by-cell enumeration (cell 0 varies slowest)
    out.sort(key=lambda lay: [lay >> i & 1 for i in range(n)])
    return out


def hint(game_or_snapshot: Game | Snapshot, *, trust_flags: bool = False) -> Hint:
    """The move :class:`SolverPolicy` would make, with its mine probability.

    Parameters
    ----------
    game_or_snapshot : Game or Snapshot
        A game in progress (its first-click rule picks the opening), or a
        snapshot of one (read as the ``'safe'`` rule before the first click).
    trust_flags : bool
        Treat flags as mines when computing the probability.

    Returns
    -------
    Hint

    Raises
    ------
    TypeError
        If given anything but a Game or a Snapshot.
    GameOverError
        If the game is already WON or LOST.
    InvalidBoardError
        If the visible state is inconsistent.
    IllegalMoveError
        If every hidden cell is flagged (unflag one to play on).

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.from_preset("beginner", seed=3, first_click="safe")
    >>> ns.solver.hint(game)
    Hint(row=0, col=0, probability=0.0, certain=True)
    >>> h = ns.solver.hint(game)
    >>> _ = game.reveal(h.row, h.col)
    >>> 0.0 <= ns.solver.hint(game).probability < 1.0
    True
    """
    from ..errors import GameOverError

    if not isinstance(game_or_snapshot, (Game, Snapshot)):
        raise TypeError(
            f"hint needs a Game or a Snapshot, got {type(game_or_snapshot).__name__} "
            "(for an array of visible cells, use analyze)"
        )
    rule = game_or_snapshot.first_click if isinstance(game_or_snapshot, Game) else "safe"
    state = game_or_snapshot.state
    if state is not GameState.IN_PROGRESS:
        raise GameOverError(f"no hint: the game is already {state.name}")
    cells, mines = _coerce(game_or_snapshot, None)
    if not (cells == HIDDEN).any():
        raise IllegalMoveError("no hidden, unflagged cell to reveal: unflag one first")
    rows, cols = cells.shape
    if not (cells >= 0).any():
        r, c = _unflagged_near(cells, _first_click(rows, cols, rule))
        if rule is None:  # no rule protects the first click: it is a guess like any other
            p = float(analyze(cells, mines, trust_flags=trust_flags).probabilities[r, c])
            return Hint(r, c, p, p == 0.0)
        return Hint(r, c, 0.0, True)
    a = analyze(cells, mines, trust_flags=trust_flags)
    policy = SolverPolicy(rule)
    safe, _ = _local_rules(cells)
    safe &= cells == HIDDEN
    if safe.any():
        r, c = (int(v) for v in np.argwhere(safe)[0])
    else:
        move = policy._choose(cells, mines)
        r, c = move.row, move.col
    p = float(a.probabilities[r, c])
    return Hint(r, c, p, p == 0.0 and bool(a.safe.size) and _listed(a.safe, r, c))


def _check_batch(visible: ArrayLike, mines_left: ArrayLike) -> tuple[NDArray[np.int8], Any]:
    """A policy's arguments as int8 cells ``(k, rows, cols)`` and ``k`` int64 counts."""
    cells = check_visible(visible, (3,), "(k, rows, cols)")
    left = np.asarray(mines_left)
    if left.size and (left.dtype == bool or not np.issubdtype(left.dtype, np.integer)):
        raise TypeError(f"mines_left must hold integers, got dtype {left.dtype}")
    if left.ndim > 1 or (left.ndim == 1 and len(left) != len(cells)):
        raise InvalidBoardError(
            f"mines_left must give one count per game ({len(cells)}), got shape {left.shape}"
        )
    stuck = ~(cells == HIDDEN).reshape(len(cells), -1).any(axis=1)
    if stuck.any():
        raise IllegalMoveError(
            f"game {int(np.argmax(stuck))} has no hidden, unflagged cell to reveal: "
            "unflag one first"
        )
    return cells, np.broadcast_to(left.astype(np.int64), (len(cells),))


def _unflagged_near(cells: NDArray[np.int8], cell: tuple[int, int]) -> tuple[int, int]:
    """``cell`` if it is hidden and unflagged, else the nearest such cell (row-major on ties)."""
    if cells[cell] == HIDDEN:
        return cell
    hidden = np.argwhere(cells == HIDDEN)  # not empty: _check_batch made sure
    far = np.maximum(np.abs(hidden[:, 0] - cell[0]), np.abs(hidden[:, 1] - cell[1]))
    r, c = hidden[int(np.argmin(far))]
    return int(r), int(c)


def _listed(cells: NDArray[np.intp], r: int, c: int) -> bool:
    return bool(((cells[:, 0] == r) & (cells[:, 1] == c)).any())
