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
   See :mod:`numsweeper.solver.guess`.  The older ``guess='lookahead'``
   (among cells within ``tolerance`` of the lowest mine probability,
   maximise the secondary safety: the click's safety times the safety of
   the best next move) plays faster and wins a little less often.

The policy reads only visible states.  Between calls it remembers three
things, all deductions from visible states and never hidden mines: its exact
engine's counted components and recent structures (an
:class:`~numsweeper.solver.Analyzer`), recent analyses (so the position a
look-ahead probe already analysed is not analysed again when the click shows
that number; a probe answered compiled, without an analysis, keeps none),
and the certainly safe cells an analysis found (a later
position of the same shape and mine total that still shows every number of
the earlier one keeps them safe, so they are played without
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
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types as nt
from numpy.typing import ArrayLike, NDArray

from .._constants import HIDDEN
from .._validate import check_coord, check_int, check_visible, first_click_rule, short_repr
from ..errors import (
    GameOverError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidTypeError,
    OutOfBoundsError,
)
from ..game import Game, GameState, Snapshot
from ._jit import frozen, kernel, readonly
from .analysis import MAX_STATES, Analysis, Analyzer, _coerce
from .endgame import best_click
from .guess import forced_pair, hill_guess, lookahead_guess, quick_guess
from .local import _first_safe
from .lookahead import _Prober

__all__ = ["Hint", "SolverPolicy", "hint"]

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


#: Boards with at least this many cells open at (3, 3) under 'opening';
#: smaller ones at (2, 2).  Measured: on intermediate 16x16/40, (2, 2) won
#: 89.13 % of 140,000 games against 88.75 % for (3, 3) over 120,000 (see
#: docs/win_rates.md); expert keeps David Hill's (3, 3).
_FAR_OPENING_CELLS = 400


def _pair_text(pair: tuple[int, int]) -> str:
    """``(row, col)`` for messages: a huge coordinate is described, never a failing repr."""
    return f"({short_repr(pair[0])}, {short_repr(pair[1])})"


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
    hidden neighbours, then row-major).  After each call, :meth:`explain`
    gives the mine probability of every chosen cell and whether it was a
    guess, which a traced :func:`numsweeper.simulate` run records.

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
        first_click = first_click_rule(first_click)  # ('none' means None)
        if start is not None:
            pair = np.asarray(start, dtype=object)  # (ragged input stays one object per item)
            if pair.ndim == 0:
                raise InvalidTypeError(f"start must be a (row, col) pair, got {short_repr(start)}")
            if len(pair) != 2:
                raise InvalidBoardError(f"start must be a (row, col) pair, got {short_repr(start)}")
            start = (check_int(pair[0], "start row"), check_int(pair[1], "start col"))
            if min(start) < 0:
                raise OutOfBoundsError(f"start {_pair_text(start)} is off every board (negative)")
        if guess not in _GUESSES:
            raise InvalidBoardError(f"guess must be one of {_GUESSES}, got {short_repr(guess)}")
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
                    raise InvalidTypeError(f"{name} must be a number, got {short_repr(value)}")
                try:
                    ok = value >= low and math.isfinite(value)  # (NaN fails both)
                except OverflowError:  # an integer past float's range
                    ok = False
            else:
                ok = check_int(value, name) >= low
            if not ok:
                raise InvalidBoardError(
                    f"{name} must be a finite number >= {low}, got {short_repr(value)}"
                )
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
        self._engine = Analyzer()
        self._analyses: OrderedDict[tuple[Any, ...], Analysis] = OrderedDict()
        self._known = _KnownSafe()
        self._explained = (np.zeros(0), np.zeros(0, dtype=bool))

    def __getstate__(self) -> dict[str, Any]:
        # Copies (pickled for worker processes, deep-copied per simulate
        # chunk) start with an empty memory: nothing to ship, no lock.
        state = self.__dict__.copy()
        for name in ("_lock", "_engine", "_analyses", "_known", "_explained"):
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
        start = "" if self.start is None else f", start={_pair_text(self.start)}"
        return f"SolverPolicy(first_click={self.first_click!r}{start})"

    def _opening(self, rows: int, cols: int) -> tuple[int, int]:
        if self.start is None:
            return _first_click(rows, cols, self.first_click)
        try:
            return check_coord(*self.start, rows, cols)
        except OutOfBoundsError as exc:
            raise OutOfBoundsError(
                f"start {_pair_text(self.start)} is off the {rows}x{cols} board: {exc}"
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
        InvalidTypeError
            If ``visible`` or ``mines_left`` do not hold integers.
        IllegalMoveError
            If a game has no hidden, unflagged cell left to reveal.
        """
        cells, left = _check_batch(visible, mines_left)
        k, rows, cols = cells.shape
        out = np.zeros((k, 2), dtype=np.intp)
        probabilities = np.zeros(k)
        guesses = np.zeros(k, dtype=bool)
        self._explained = probabilities, guesses
        if k == 0:
            return out
        t0 = time.perf_counter()
        first, revealed_any, n_flags = _first_safe(cells)
        has_safe = first >= 0
        out[:, 0], out[:, 1] = np.divmod(np.maximum(first, 0), cols)
        fresh = ~revealed_any
        if fresh.any():
            opening = self._opening(rows, cols)
            for i in np.flatnonzero(fresh).tolist():
                out[i] = _unflagged_near(cells[i], opening)
        self.timings["local"] += time.perf_counter() - t0
        self.counts["first"] += int(fresh.sum())
        self.counts["local"] += int((has_safe & ~fresh).sum())
        if self.first_click is None:  # no rule protects the first click: a blind guess
            blind = (left + n_flags) / (rows * cols)
            probabilities[fresh] = blind[fresh]
            guesses[fresh] = blind[fresh] > 0
        for i in np.flatnonzero(~has_safe & ~fresh).tolist():
            move = self._choose(cells[i], int(left[i] + n_flags[i]))
            out[i] = move.row, move.col
            probabilities[i] = move.probability
            guesses[i] = not move.certain
        return out

    def explain(self) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """What the last call knew of each cell it chose.

        Returns
        -------
        probabilities : ndarray of float64, shape (k,)
            The mine probability of each game's chosen cell, given what that
            game showed: 0 for a certainly safe cell (a local rule, the
            exact engine, a remembered safe cell, or a first click the
            game's rule protects).
        guesses : ndarray of bool, shape (k,)
            Whether each choice was a guess: True exactly where the cell
            was not certainly safe.

        Notes
        -----
        ``k`` is the number of games in the last call (0 before any call).
        :func:`numsweeper.simulate` records both with every move of a
        traced run (``trace=True``).

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> policy = ns.solver.SolverPolicy(first_click=None)
        >>> visible = np.full((1, 9, 9), ns.HIDDEN, dtype=np.int8)
        >>> _ = policy(visible, np.array([10]), np.random.default_rng(0))
        >>> probabilities, guesses = policy.explain()
        >>> probabilities.round(3).tolist(), guesses.tolist()
        ([0.123], [True])
        """
        probabilities, guesses = self._explained
        return probabilities.copy(), guesses.copy()

    # -- one stuck board ------------------------------------------------------

    def _analyze(self, cells: NDArray[np.int8], mines: int) -> Analysis:
        """:func:`analyze` by the policy's engine, through its memory of recent positions."""
        a = self._analyzed(cells, mines)
        if a is None:
            a = self._engine.analyze(cells, mines, max_states=self.max_states)
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

    def _probe(self, cells: NDArray[np.int8], mines: int, cell: tuple[int, int]) -> _Shown:
        """:meth:`_analyze` of ``cells`` with ``cell`` shown as each number in turn."""
        return _Shown(self, cells, mines, cell)

    def _analyzed(self, cells: NDArray[np.int8], mines: int) -> Analysis | None:
        """The remembered analysis of this exact position, if any."""
        with self._lock:
            return self._analyses.get(self._key(cells, mines))

    def _key(self, cells: NDArray[np.int8], mines: int) -> tuple[Any, ...]:
        return cells.tobytes(), cells.shape, mines, self.max_states

    def _choose(self, cells: NDArray[np.int8], mines: int, a: Analysis | None = None) -> Hint:
        """The move for one board that the local rules cannot settle.

        ``a``, if given, is the analysis of ``cells`` (flags not trusted).
        """
        t0 = time.perf_counter()
        clickable = cells == HIDDEN
        if a is None:
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
        if (
            a.unconstrained <= self.endgame_cells
            and int(np.count_nonzero(a.undecided)) <= self.endgame_cells
            and self._searchable(cells, a)
        ):
            t0 = time.perf_counter()
            best = best_click(cells, a, self.endgame_nodes)
            self.timings["endgame"] += time.perf_counter() - t0
            if best is not None:
                self.counts["endgame"] += 1
                r, c = best
                return Hint(r, c, a.probability(r, c), False)
        if self.fifty_fifty:
            t0 = time.perf_counter()
            pair = forced_pair(cells, mines, a, self._engine, self.max_states)
            self.timings["forced"] += time.perf_counter() - t0
            if pair is not None:
                self.counts["forced"] += 1
                r, c = min(pair, key=lambda rc: (a.probability(*rc), rc))
                return Hint(r, c, a.probability(r, c), False)
        t0 = time.perf_counter()
        r, c = self._guess(cells, mines, a, clickable)
        self.timings["guess"] += time.perf_counter() - t0
        self.counts["guess"] += 1
        return Hint(r, c, a.probability(r, c), False)

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
    ) -> tuple[int, int]:
        if a.unconstrained > _QUICK_UNCONSTRAINED:
            return quick_guess(cells, a, clickable, self.tolerance)
        if self.guess == "hill":
            rc = hill_guess(cells, mines, a, clickable, self._probe, self._engine, self.max_states)
            if rc is not None:
                return rc
        return lookahead_guess(
            cells,
            mines,
            a,
            clickable,
            self._analyze,
            tolerance=self.tolerance,
            limit=self.candidates,
        )


class _Shown:
    """A cell shown as each number, through a policy's memory of analyses.

    The look-ahead's :class:`~numsweeper.solver.guess.Shown`: each number
    is looked at compiled where that applies (:meth:`_Prober.look`, and
    not kept: should it arise, it is analysed afresh, to the same floats),
    or else read from the policy's memory, or analysed and kept.
    """

    def __init__(
        self, policy: SolverPolicy, cells: NDArray[np.int8], mines: int, cell: tuple[int, int]
    ) -> None:
        self.policy, self.cells, self.mines, self.cell = policy, cells, mines, cell
        self.prober: _Prober | None = None  # (made on the first number not kept)

    def _made(self) -> _Prober:
        if self.prober is None:
            engine, states = self.policy._engine, self.policy.max_states
            self.prober = _Prober(engine, self.cells, self.mines, self.cell, states, checked=True)
        return self.prober

    def _shown(self, n: int) -> NDArray[np.int8]:
        probe = self.cells.copy()
        probe[self.cell] = n
        return probe

    def __call__(self, n: int) -> Analysis:
        probe = self._shown(n)
        a = self.policy._analyzed(probe, self.mines)
        if a is None:
            a = self._made()(n)
            self.policy._keep(probe, self.mines, a)
        return a

    def look(self, n: int, off_at: int) -> tuple[int, float, float, bool] | None:
        # (not through the memory: a probe's position is hardly ever kept
        # (none in 100 expert games), and the look gives what reading a
        # kept analysis would, the same integers and floats)
        return self._made().look(n, off_at)


#: Past this many off-frontier cells (huge boards early on) a guess skips
#: the look-ahead: the likeliest cells are all alike and any will do
#: (:func:`~numsweeper.solver.guess.quick_guess`).
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
        # per entry, its numbers (0 elsewhere) and a mask of 0xFF bytes where
        # they are, both padded to whole 64-bit words: a position fits where
        # (numbers ^ its cells) & mask is 0 in every word
        self.shown = np.zeros((0, 0), dtype=np.uint64)
        self.mask = np.zeros((0, 0), dtype=np.uint64)
        self.safe = np.zeros((0, 0), dtype=bool)
        self.mines = np.zeros(0, dtype=np.int64)
        self.next = 0
        self.views = self._views()

    def _views(
        self,
    ) -> tuple[NDArray[np.uint64], NDArray[np.uint64], NDArray[np.int64], NDArray[np.bool_]]:
        """Read-only views of the entries, for the kernel."""
        return frozen(self.shown), frozen(self.mask), frozen(self.mines), frozen(self.safe)

    @staticmethod
    def _words(flat: NDArray[np.int8], words: int) -> NDArray[np.uint8]:
        """``flat``'s bytes, zero-padded to ``words`` 64-bit words."""
        out = np.zeros(8 * words, dtype=np.uint8)
        out[: flat.size] = flat.view(np.uint8)
        return out

    def add(self, cells: NDArray[np.int8], mines: int, safe: list[tuple[int, int]]) -> None:
        """Remember that ``safe`` cells are certainly safe in ``cells``."""
        flat = cells.reshape(-1)
        words = -(-flat.size // 8)
        if cells.shape != self.shape:
            # (three bytes a cell per entry, counted as two as before the
            # mask: fewer entries on large boards would change moves)
            size = min(256, _MEMORY_CELLS // (2 * flat.size))
            self.shape = cells.shape
            self.shown = np.zeros((size, words), dtype=np.uint64)
            self.mask = np.zeros((size, words), dtype=np.uint64)
            self.safe = np.zeros((size, flat.size), dtype=bool)
            self.mines = np.full(size, -1, dtype=np.int64)
            self.next = 0
            # (read-only views for the kernel, made once: they see each entry added)
            self.views = (
                frozen(self.shown),
                frozen(self.mask),
                frozen(self.mines),
                frozen(self.safe),
            )
        if not len(self.mines):
            return
        i = self.next
        self.next = (i + 1) % len(self.mines)
        number = self._words((flat >= 0).view(np.int8) * np.int8(-1), words)  # 0xFF at numbers
        self.mask[i] = number.view(np.uint64)
        self.shown[i] = (self._words(flat, words) & number).view(np.uint64)
        self.safe[i] = False
        rc = np.array(safe, dtype=np.intp)
        self.safe[i, rc[:, 0] * cells.shape[1] + rc[:, 1]] = True
        self.mines[i] = mines

    def find(self, cells: NDArray[np.int8], mines: int) -> tuple[int, int] | None:
        """A remembered safe cell still hidden in ``cells``, row-major first."""
        flat = np.ascontiguousarray(cells).reshape(-1)  # (the kernel's layout: any view)
        if cells.shape != self.shape or not len(self.mines):
            return None
        here = self._words(flat, self.shown.shape[1]).view(np.uint64)
        first = known_safe_first(*self.views, frozen(here), mines, frozen(flat))
        if first < 0:
            return None
        r, c = divmod(int(first), cells.shape[1])
        return r, c


@kernel(
    readonly(nt.uint64[:, ::1]),
    readonly(nt.uint64[:, ::1]),
    readonly(nt.int64[::1]),
    readonly(nt.bool_[:, ::1]),
    readonly(nt.uint64[::1]),
    nt.int64,
    readonly(nt.int8[::1]),
)
def known_safe_first(
    shown: NDArray[np.uint64],
    mask: NDArray[np.uint64],
    mines: NDArray[np.int64],
    safe: NDArray[np.bool_],
    here: NDArray[np.uint64],
    total: int,
    flat: NDArray[np.int8],
) -> int:
    """:meth:`_KnownSafe.find`'s flat index, or -1: the first hidden cell of ``flat`` that
    an entry of mine total ``total`` whose numbers ``here`` shows has as safe.

    An entry stops at its first word that differs, and looks only at cells
    before the best found so far.
    """
    entries, words = shown.shape
    best = flat.shape[0]
    for i in range(entries):
        if mines[i] != total:
            continue
        fits = True
        for w in range(words):
            if (shown[i, w] ^ here[w]) & mask[i, w]:
                fits = False
                break
        if not fits:
            continue
        for j in range(best):
            if safe[i, j] and flat[j] == HIDDEN:
                best = j
                break
    return best if best < flat.shape[0] else -1


def hint(game_or_snapshot: Game | Snapshot, *, trust_flags: bool = False) -> Hint:
    """The move :class:`SolverPolicy` would make, with its mine probability.

    Parameters
    ----------
    game_or_snapshot : Game or Snapshot
        A game in progress (its first-click rule picks the opening while
        its mines wait for the first click; once they are laid, as after
        undoing the first reveal, the opening is a guess like any other), or
        a snapshot of one (read as the ``'safe'`` rule before the first
        click).
    trust_flags : bool
        Treat flags as mines: in the probability, and in the choice (a cell
        that the flags make certainly safe comes first, and a cell they make
        certainly a mine is never hinted).

    Returns
    -------
    Hint

    Raises
    ------
    InvalidTypeError
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
    if not isinstance(game_or_snapshot, (Game, Snapshot)):
        raise InvalidTypeError(
            f"hint needs a Game or a Snapshot, got {type(game_or_snapshot).__name__} "
            "(for an array of visible cells, use analyze)"
        )
    rule: str | None = "safe"
    if isinstance(game_or_snapshot, Game):  # (a rule protects only mines not yet laid)
        rule = game_or_snapshot.first_click if game_or_snapshot.board is None else None
    state = game_or_snapshot.state
    if state is not GameState.IN_PROGRESS:
        raise GameOverError(f"no hint: the game is already {state.name}")
    cells, mines = _coerce(game_or_snapshot, None)
    if not (cells == HIDDEN).any():
        raise IllegalMoveError("no hidden, unflagged cell to reveal: unflag one first")
    rows, cols = cells.shape
    policy = SolverPolicy(rule)
    engine = policy._engine
    if not (cells >= 0).any():
        r, c = _unflagged_near(cells, _first_click(rows, cols, rule))
        if rule is None:  # no rule protects the first click: it is a guess like any other
            p = engine.analyze(cells, mines, trust_flags=trust_flags).probability(r, c)
            return Hint(r, c, p, p == 0.0)
        return Hint(r, c, 0.0, True)
    a = engine.analyze(cells, mines, trust_flags=trust_flags)
    flat = int(_first_safe(cells[None])[0][0])
    if flat >= 0:
        r, c = divmod(flat, cols)
    elif trust_flags and (sure := [(x, y) for x, y in a.safe.tolist() if cells[x, y] == HIDDEN]):
        r, c = sure[0]  # the flags settle it
    else:
        move = policy._choose(cells, mines, None if trust_flags else a)
        r, c = move.row, move.col
        if trust_flags and a.probability(r, c) == 1.0:  # the flags make it a mine
            risk = np.where(cells == HIDDEN, a.probabilities, np.inf)
            r, c = divmod(int(np.argmin(risk)), cols)
    p = a.probability(r, c)
    return Hint(r, c, p, p == 0.0 and a.certainly_safe(r, c))


def _check_batch(visible: ArrayLike, mines_left: ArrayLike) -> tuple[NDArray[np.int8], Any]:
    """A policy's arguments as int8 cells ``(k, rows, cols)`` and ``k`` int64 counts."""
    cells = check_visible(visible, (3,), "(k, rows, cols)")
    left = np.asarray(mines_left)
    if left.size and (left.dtype == bool or not np.issubdtype(left.dtype, np.integer)):
        raise InvalidTypeError(f"mines_left must hold integers, got dtype {left.dtype}")
    if left.ndim > 1 or (left.ndim == 1 and len(left) != len(cells)):
        raise InvalidBoardError(
            f"mines_left must give one count per game ({len(cells)}), got shape {left.shape}"
        )
    stuck = ~(cells == HIDDEN).any(axis=(1, 2))
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
