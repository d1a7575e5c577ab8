"""Exact mine probabilities from what a player sees.

The engine follows the classic scheme (see ``shared/DESIGN.md``):

1. every revealed number is a constraint on its hidden neighbours;
2. hidden cells with exactly the same constraints form a *group* (only the
   number of mines in a group matters, weighted by a binomial);
3. groups split into independent frontier *components*
   (:mod:`numsweeper.solver.structure`);
4. each component is counted by mine total (:mod:`numsweeper.solver.
   counting`, :mod:`numsweeper.solver.components`), which gives its
   polynomial ``P(x) = sum_m layouts(m) x^m`` and, per group, the
   mine-weighted polynomial needed for marginals;
5. components combine by convolution, and a frontier total ``K`` is
   weighted by ``C(U, M - K)`` where ``U`` counts the hidden cells off the
   frontier.

Everything is exact Python integers; the binomials are replaced by integer
weights proportional to ``C(U, n)`` (a short product of small factors), so a
board with millions of hidden cells costs no more than a small one.  The one
float division per group happens at the very end and is correctly rounded.

A component whose count has a single mine total (on a huge board, nearly
every one) needs nothing from the others: its groups' probabilities are
their own ratios, computed for all of them at once.  Only the components
whose mine total varies are combined, along a balanced product tree.  So
an analysis costs a few compiled passes over the board plus work in
proportion to the frontier, and its result holds its probabilities per
frontier cell, not per board cell, until they are asked for.
"""

from __future__ import annotations

import math
import operator
import threading
from collections import OrderedDict
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._constants import FLAG, HIDDEN
from .._kernels import adjacent_counts
from .._validate import (
    check_at_least,
    check_coord,
    check_int,
    check_visible,
    count_text,
    short_repr,
)
from ..errors import InvalidBoardError, InvalidTypeError
from ..game import Game, GameState, Snapshot
from ._jit import frozen
from .components import Counts, Memory, count_frontier, group_shares
from .counting import Poly
from .longcount import convolve, long_ints, middle
from .structure import Frontier, frontier

if TYPE_CHECKING:
    from .lookahead import _Given, _Prober

__all__ = ["MAX_STATES", "Analysis", "Analyzer", "analyze"]

#: Guard on the exact engine: the most dynamic-programming states one cut of
#: one component may hold.  A component whose cuts grow beyond it is relaxed
#: (see :func:`analyze`, Notes) instead of being counted for minutes.
MAX_STATES = 50_000

#: Boards of more cells than this have no structure remembered: each
#: structure holds a few bytes per cell.
_STRUCTURE_CELLS = 4_000_000
#: Past this many groups in components of a single mine total, their
#: probabilities are computed as arrays rather than group by group (the
#: same floats either way; a few numpy calls cost what a dozen groups do).
_MANY = 12
#: Below this many (weighted) layouts, a component's group probabilities are
#: exact in int64 and floats (:func:`~numsweeper.solver.components.group_shares`).
_SMALL_GRAND = 2**50


class Analysis:
    """What the visible state implies about every hidden cell.

    Attributes
    ----------
    probabilities : ndarray of float64, shape (rows, cols)
        Probability that each hidden (or flagged) cell holds a mine, over all
        layouts consistent with the revealed numbers and the mine count, each
        layout equally likely.  Revealed cells are NaN; trusted flags are 1.
        Read-only; built on first access (8 bytes per cell).
    safe : ndarray of intp, shape (k, 2)
        Cells that are certainly safe, ``(row, col)`` in row-major order.
    mines : ndarray of intp, shape (k, 2)
        Cells that are certainly mines (trusted flags included).
    exact : bool
        False when a component exceeded :data:`MAX_STATES` and was relaxed:
        probabilities are then approximate, ``layouts`` is an upper bound, but
        ``safe`` and ``mines`` stay sound.  A relaxed count can also miss that
        no layout fits at all, and then return instead of raising
        :class:`~numsweeper.InvalidBoardError`.
    frontier_mines : dict of int to int
        Weighted number of frontier layouts by frontier mine total ``K``
        (before the off-frontier binomial).
    unconstrained : int
        Hidden cells that touch no revealed number (``U``).
    mines_left : int
        Mines among the hidden cells (``M``): the mine count minus trusted flags.
    layouts : int
        Exact number of mine layouts consistent with what is visible (an
        upper bound when ``exact`` is False).

    Notes
    -----
    Made by :func:`analyze`; the constructor is not part of the API.  It
    keeps each frontier cell's probability and one for every cell off the
    frontier, and lists the grid and the certain cells on first access.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> visible = np.array([[1, -1], [-1, -1]], dtype=np.int8)
    >>> a = ns.solver.analyze(visible, 1)
    >>> a.probabilities.round(3)
    array([[  nan, 0.333],
           [0.333, 0.333]])
    >>> a.layouts
    3
    >>> a.probability(0, 1), a.certainly_safe(0, 1)
    (0.3333333333333333, False)
    """

    def __init__(
        self,
        cells: NDArray[np.int8],
        trust_flags: bool,
        front_flat: NDArray[np.intp],
        front: tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]],
        off: tuple[float, bool, bool],
        exact: bool,
        frontier_mines: dict[int, int],
        unconstrained: int,
        mines_left: int,
        total: tuple[int, int, int],
    ) -> None:
        self._cells, self._trust = cells, trust_flags
        self._total = total  # (see layouts)
        self._front_flat = front_flat
        self._front_p, self._front_safe, self._front_mine = front
        self._off_p, self._off_safe, self._off_mine = off
        self.exact = exact
        self.frontier_mines = frontier_mines
        self.unconstrained = unconstrained
        self.mines_left = mines_left

    def __repr__(self) -> str:
        rows, cols = self._cells.shape
        return (
            f"<Analysis of a {rows}x{cols} position: {self.unconstrained} cells off the "
            f"frontier, {self.mines_left} mines left, exact={self.exact}>"
        )

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the position."""
        rows, cols = self._cells.shape
        return rows, cols

    def _unknown(self) -> NDArray[np.bool_]:
        """The cells that may hold mines (flags too, unless trusted)."""
        return self._cells == HIDDEN if self._trust else self._cells < 0

    def _off_frontier(self) -> NDArray[np.bool_]:
        off = self._unknown().ravel()
        off[self._front_flat] = False
        return off

    @cached_property
    def probabilities(self) -> NDArray[np.float64]:
        """Mine probability of every cell (see the class notes)."""
        grid = np.full(self._cells.size, np.nan)
        if self._trust:
            grid[(self._cells == FLAG).ravel()] = 1.0
        if self.unconstrained:
            grid[self._off_frontier()] = self._off_p
        grid[self._front_flat] = self._front_p
        shaped = grid.reshape(self._cells.shape)
        shaped.flags.writeable = False
        return shaped

    @cached_property
    def safe(self) -> NDArray[np.intp]:
        """Cells that are certainly safe, ``(row, col)`` in row-major order."""
        if self._off_safe and self.unconstrained:
            mask = self._off_frontier()
            mask[self._front_flat[self._front_safe]] = True
            return np.argwhere(mask.reshape(self._cells.shape))
        return self._listed(self._front_flat[self._front_safe])

    @cached_property
    def mines(self) -> NDArray[np.intp]:
        """Cells that are certainly mines (trusted flags included)."""
        off = self._off_mine and self.unconstrained
        if off or (self._trust and (self._cells == FLAG).any()):
            mask = self._off_frontier() if off else np.zeros(self._cells.size, dtype=bool)
            if self._trust:
                mask |= (self._cells == FLAG).ravel()
            mask[self._front_flat[self._front_mine]] = True
            return np.argwhere(mask.reshape(self._cells.shape))
        return self._listed(self._front_flat[self._front_mine])

    def _listed(self, flat: NDArray[np.intp]) -> NDArray[np.intp]:
        listed = np.empty((len(flat), 2), dtype=np.intp)
        np.divmod(flat, self._cells.shape[1], out=(listed[:, 0], listed[:, 1]))
        return listed

    def probability(self, row: int, col: int) -> float:
        """The mine probability of one cell, without building the grid.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> a = ns.solver.analyze(np.array([[1, -1, -1]], dtype=np.int8), 1)
        >>> a.probability(0, 1), a.probability(0, 2), a.probability(0, 0)
        (1.0, 0.0, nan)
        """
        row, col = check_coord(row, col, *self._cells.shape)  # (never wrapped)
        if "probabilities" in self.__dict__:
            return float(self.probabilities[row, col])
        value = int(self._cells[row, col])
        if value >= 0:
            return math.nan
        if value == FLAG and self._trust:
            return 1.0
        i = self._frontier_index(row, col)
        return float(self._front_p[i]) if i >= 0 else self._off_p

    def certainly_safe(self, row: int, col: int) -> bool:
        """Whether the cell is certainly safe (hidden, with probability 0).

        Revealed cells, and flags when they are trusted, are not.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> a = ns.solver.analyze(np.array([[1, ns.HIDDEN, ns.HIDDEN]], dtype=np.int8), 1)
        >>> a.certainly_safe(0, 2), a.certainly_safe(0, 1), a.certainly_safe(0, 0)
        (True, False, False)
        """
        row, col = check_coord(row, col, *self._cells.shape)  # (never wrapped)
        if self._cells[row, col] >= 0 or (self._trust and self._cells[row, col] == FLAG):
            return False
        i = self._frontier_index(row, col)
        return bool(self._front_safe[i]) if i >= 0 else self._off_safe

    @cached_property
    def undecided(self) -> NDArray[np.bool_]:
        """Cells whose mine probability is strictly between 0 and 1.

        A mask of shape (rows, cols), built without the probability grid.
        """
        mask = np.zeros(self._cells.size, dtype=bool)
        if self.unconstrained and not (self._off_safe or self._off_mine):
            mask = self._off_frontier()
        mask[self._front_flat] = ~(self._front_safe | self._front_mine)
        shaped = mask.reshape(self._cells.shape)
        shaped.flags.writeable = False
        return shaped

    @property
    def off_probability(self) -> float:
        """The mine probability of every hidden cell next to no number (NaN if none)."""
        return self._off_p

    def frontier_probabilities(self) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The hidden cells next to a number, by flat index, and their probabilities.

        Flat indices (``row * cols + col``) increase.  Together with
        :attr:`off_probability` this is every hidden cell's probability, in
        memory that follows the frontier.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> H = ns.HIDDEN
        >>> visible = np.array([[1, H, H], [H, H, H]], dtype=np.int8)
        >>> a = ns.solver.analyze(visible, 2)
        >>> flat, p = a.frontier_probabilities()
        >>> flat.tolist(), p.round(3).tolist(), a.off_probability
        ([1, 3, 4], [0.333, 0.333, 0.333], 0.5)
        """
        return self._front_flat, self._front_p

    def _frontier_index(self, row: int, col: int) -> int:
        flat = row * self._cells.shape[1] + col
        i = int(np.searchsorted(self._front_flat, flat))
        return i if i < len(self._front_flat) and self._front_flat[i] == flat else -1

    @cached_property
    def layouts(self) -> int:
        """Exact number of consistent mine layouts (a Python int).

        Computed on first access: on a huge board it is a number with
        millions of digits.  (It is :func:`layout_total` of the frontier's
        layouts, whose weighted sum the analysis has already made.)
        """
        scaled, n0, n1 = self._total
        return scaled * math.comb(self.unconstrained, n0) // math.prod(range(n0 + 1, n1 + 1))


def layout_total(frontier_mines: dict[int, int], u: int, m: int) -> int:
    """``sum_K frontier_mines[K] * C(u, m - K)``, with one binomial.

    The weights are ``C(u, m - K) * R / C(u, n0)`` exactly, where ``n0``
    and ``n1`` are the least and most mines off the frontier and
    ``R = (n0 + 1) ... n1`` (see :func:`_binomial_weights`).

    Examples
    --------
    >>> from numsweeper.solver.analysis import layout_total
    >>> layout_total({0: 1, 1: 2}, 3, 1)  # C(3, 1) + 2 C(3, 0)
    5
    """
    weights = _binomial_weights(u, m, list(frontier_mines))
    if not weights:
        return 0
    n0, n1 = m - max(weights), m - min(weights)
    scaled = sum(frontier_mines[k] * w for k, w in weights.items())
    return scaled * math.comb(u, n0) // math.prod(range(n0 + 1, n1 + 1))


def _binomial_weights(u: int, m: int, totals: list[int]) -> dict[int, int]:
    """Integers proportional to ``C(u, m - K)`` for each frontier total ``K``.

    ``C(u, n) / C(u, n0) = prod_{j=n0}^{n-1} (u - j) / (j + 1)``; multiplying
    by ``prod_{j=n0}^{n1-1} (j + 1)`` clears every denominator, so only a few
    hundred small factors are multiplied however large ``u`` is.
    """
    valid = [k for k in totals if 0 <= m - k <= u]
    if not valid:
        return {}
    n0, n1 = m - max(valid), m - min(valid)
    # left[n] = prod_{j=n0}^{n-1} (u - j); right[n] = prod_{j=n}^{n1-1} (j + 1)
    left = [1]
    for j in range(n0, n1):
        left.append(left[-1] * (u - j))
    right = [1]
    for j in range(n1 - 1, n0 - 1, -1):
        right.append(right[-1] * (j + 1))
    right.reverse()
    return {k: left[m - k - n0] * right[m - k - n0] for k in valid}


def _coerce(visible: Any, mines: Any) -> tuple[NDArray[np.int8], int]:
    """Accept an array, a Snapshot or a Game; return (cells, total mines)."""
    if isinstance(visible, Game):
        visible = visible.snapshot()
    if isinstance(visible, Snapshot):
        cells = visible.cells
        flags = int(np.count_nonzero(cells == FLAG))
        # (a won game shows every mine as a flag, the player's or not)
        own = flags if visible.state is GameState.WON else visible.mines_left + flags
        if mines is None:
            mines = own
        elif check_int(mines, "mines") != own:  # (a Snapshot's mines_left is not the total)
            counted = (
                "a won game shows every mine as a flag"
                if visible.state is GameState.WON
                else f"{visible.mines_left} left besides {count_text(flags, 'flag')}"
            )
            raise InvalidBoardError(
                f"mines={short_repr(mines)} contradicts the game's own {own} ({counted}); "
                "leave mines out to use it"
            )
        # a snapshot holds counts and codes; a lost game's shows mines (codes below FLAG)
        if cells.min() < FLAG:
            r, c = (int(v) for v in np.argwhere(cells < FLAG)[0])
            raise InvalidBoardError(
                f"cell ({r}, {c}) shows {int(cells[r, c])}: analysis needs a game in progress "
                "(counts 0..8, HIDDEN or FLAG)"
            )
    else:
        if mines is None:
            raise InvalidTypeError("mines is required when visible is an array, got None")
        cells = check_visible(visible, (2,), "(rows, cols), non-empty")  # (only read)
    m = check_int(mines, "mines")
    if not 0 <= m <= cells.size:
        raise InvalidBoardError(f"mines must be in 0..{cells.size}, got {short_repr(m)}")
    return cells, m


class _Counted(NamedTuple):
    """A position's layouts counted by frontier total (:meth:`Analyzer._count`)."""

    cells: NDArray[np.int8]  # (read-only)
    trust_flags: bool
    mines_left: int
    shape: Frontier
    counts: Counts


class Analyzer:
    """The exact engine, with what it remembers between positions.

    :func:`analyze` is ``Analyzer().analyze``: a fresh engine each call.
    Keep one engine to analyse many positions of a game (or of many games):
    it remembers the components it counted and the structures of recent
    positions, so each position recounts only what changed.  What it
    remembers depends only on what was visible, and a remembered count is
    the count itself: the results are the same as a fresh engine's (see
    :func:`analyze`, Notes, for the one case where a relaxed count can
    differ).  It is safe to share between threads.

    Parameters
    ----------
    components : int, default 4096
        Counted components to remember (least recently used go first).
    structures : int, default 8
        Structures (which cells are numbers and which hidden) of recent
        positions to remember; boards of more than 4,000,000 cells keep
        none, since each holds a few bytes per cell.

    Raises
    ------
    InvalidBoardError
        If ``components`` or ``structures`` is negative.
    InvalidTypeError
        If either is not an integer.

    Examples
    --------
    >>> import numsweeper as ns
    >>> engine = ns.solver.Analyzer()
    >>> game = ns.Game.from_preset("beginner", seed=7, first_click="safe")
    >>> _ = game.reveal(0, 0)
    >>> engine.analyze(game).probabilities.shape
    (9, 9)
    """

    def __init__(self, *, components: int = 4096, structures: int = 8) -> None:
        self.memory = Memory(check_at_least(components, "components", 0))
        self.structures = check_at_least(structures, "structures", 0)
        self._shapes: OrderedDict[Any, Frontier] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Analyzer(components={self.memory.size}, structures={self.structures})"

    def clear(self) -> None:
        """Forget every counted component and structure.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> H = ns.HIDDEN
        >>> engine = ns.solver.Analyzer()
        >>> _ = engine.analyze(np.array([[1, H, H, H], [H, H, 2, H]], dtype=np.int8), 3)
        >>> len(engine.memory)
        1
        >>> engine.clear()
        >>> len(engine.memory)
        0
        """
        self.memory.clear()
        with self._lock:
            self._shapes.clear()

    def analyze(
        self,
        visible: Any,
        mines: int | None = None,
        *,
        trust_flags: bool = False,
        max_states: int = MAX_STATES,
    ) -> Analysis:
        """:func:`analyze` with this engine's memory (the same parameters).

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 3, 2, strategy=ns.FixedPlacement([(0, 2), (1, 1)]))
        >>> _ = game.reveal(0, 0)  # a 1 in the corner, 5 hidden cells around
        >>> engine = ns.solver.Analyzer()
        >>> engine.analyze(game).layouts, ns.solver.analyze(game).layouts
        (6, 6)
        """
        return _probabilities(self._count(visible, mines, trust_flags, max_states))

    def structure(self, unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]) -> Frontier:
        """The structure of a position, through the memory of recent ones.

        ``unknown`` marks the cells that may hold a mine and ``revealed``
        the revealed ones, both bool arrays of shape (rows, cols).

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> unknown = np.array([[False, True, True], [True, True, True]])
        >>> engine = ns.solver.Analyzer()
        >>> shape = engine.structure(unknown, ~unknown)
        >>> shape.front_flat.tolist(), shape.unconstrained
        ([1, 3, 4], 2)
        >>> engine.structure(unknown, ~unknown) is shape  # remembered
        True
        """
        if not self.structures or unknown.size > _STRUCTURE_CELLS:
            return frontier(unknown, revealed)
        key = (unknown.shape, np.packbits(unknown).tobytes(), np.packbits(revealed).tobytes())
        with self._lock:
            hit = self._shapes.get(key)
            if hit is not None:
                self._shapes.move_to_end(key)
                return hit
        shape = frontier(unknown, revealed)
        kept = min(self.structures, _STRUCTURE_CELLS // unknown.size)
        with self._lock:
            self._shapes[key] = shape
            while len(self._shapes) > kept:
                self._shapes.popitem(last=False)
        return shape

    def _count(self, visible: Any, mines: Any, trust_flags: bool, max_states: int) -> _Counted:
        """:meth:`analyze` up to the layout count (its checks and errors included)."""
        max_states = check_at_least(max_states, "max_states", 1)
        cells, total = _coerce(visible, mines)
        if cells.flags.writeable:  # (the analysis keeps the position)
            cells = cells.copy()
            cells.flags.writeable = False
        revealed = cells >= 0
        if trust_flags:
            known = cells == FLAG
            n_known = int(np.count_nonzero(known))
            unknown = cells == HIDDEN
        else:
            n_known = 0
            unknown = ~revealed
        m = total - n_known
        if m < 0:
            r, c = np.argwhere(known)[0]
            raise InvalidBoardError(f"{n_known} flags exceed mines={total!r}; e.g. flag ({r}, {c})")
        shape = self.structure(unknown, revealed)
        if trust_flags and n_known:
            shown = cells - adjacent_counts(known)  # (the needs: int8, -8..8)
            bad = revealed & ((shown < 0) | (shown > shape.free_grid))
        else:  # (two temporaries of a byte per cell, not four)
            shown = cells
            bad = revealed & (cells > shape.free_grid)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise InvalidBoardError(
                f"cell ({r}, {c}) shows {int(cells[r, c])} but has {int(shape.free_grid[r, c])} "
                f"hidden and {int(cells[r, c] - shown[r, c])} flagged neighbours"
            )
        need = shown.ravel()[shape.con_flat].astype(np.int64)
        return self._count_needs(cells, trust_flags, m, shape, need, max_states)

    def _count_needs(
        self,
        cells: NDArray[np.int8],
        trust_flags: bool,
        m: int,
        shape: Frontier,
        need: NDArray[np.int64],
        max_states: int,
    ) -> _Counted:
        """:meth:`_count` once the position is checked: ``need[j]`` is the
        mines number ``j`` still needs (shown minus trusted flags)."""
        counts = count_frontier(shape, need, max_states, self.memory)
        return _Counted(cells, trust_flags, m, shape, counts)

    def layouts_by_total(
        self,
        visible: Any,
        mines: int,
        *,
        trust_flags: bool = False,
        max_states: int = MAX_STATES,
    ) -> tuple[Poly, int, int]:
        """``frontier_mines``, ``unconstrained`` and ``mines_left`` of :meth:`analyze`.

        The same checks and errors, without the probabilities.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 3, 2, strategy=ns.FixedPlacement([(0, 2), (1, 1)]))
        >>> _ = game.reveal(0, 0)  # a 1 in the corner, 5 hidden cells around
        >>> ns.solver.Analyzer().layouts_by_total(game, game.mine_count)
        ({1: 3}, 2, 2)
        """
        counted = self._count(visible, mines, trust_flags, max_states)
        combined = _combine(counted)
        return combined.frontier, counted.shape.unconstrained, counted.mines_left

    def prober(
        self, cells: NDArray[np.int8], mines: int, cell: tuple[int, int], max_states: int
    ) -> _Prober:
        """``prober(n)``: :meth:`analyze` of ``cells`` with ``cell`` shown as ``n``.

        What the look-ahead asks of one hidden cell for each number it may
        show; the work that does not depend on ``n`` is done once.
        ``prober.look(n, off_at)`` gives what the look-ahead reads of that
        analysis (its layouts and outlook) in one compiled call, or None
        where only the analysis can tell; it raises InvalidBoardError where
        no layout of the cell's own part shows ``n`` (``prober(n)`` raises
        then too).

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> shown = np.full((2, 3), ns.HIDDEN, dtype=np.int8)
        >>> shown[0, 0] = 1
        >>> probe = ns.solver.Analyzer().prober(shown, 2, (0, 2), ns.solver.MAX_STATES)
        >>> shown[0, 2] = 2  # what probe(2) analyses
        >>> probe(2).layouts, ns.solver.analyze(shown, 2).layouts
        (2, 2)
        """
        from .lookahead import _Prober

        return _Prober(self, cells, mines, cell, max_states)

    def given(self, cells: NDArray[np.int8], mines: int, max_states: int) -> _Given:
        """``given(xs)``: the layouts with the frontier cells ``xs`` all mines.

        ``given(xs)`` is the frontier's layouts by mine total and the mines
        left, as :meth:`layouts_by_total` gives them for the position with
        ``xs`` flagged and trusted, or None where no layout has them all
        mines.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 3, 2, strategy=ns.FixedPlacement([(0, 2), (1, 1)]))
        >>> _ = game.reveal(0, 0)  # a 1 in the corner, 5 hidden cells around
        >>> cells = game.snapshot().cells
        >>> given = ns.solver.Analyzer().given(cells, 2, ns.solver.MAX_STATES)
        >>> given([(0, 1)])  # the 1 needs no other mine; one is left for the rest
        ({0: 1}, 1)
        >>> given([(0, 1), (1, 0)]) is None  # the 1 would see two
        True
        """
        from .lookahead import _Given

        return _Given(self, cells, mines, max_states)


def analyze(
    visible: Any,
    mines: int | None = None,
    *,
    trust_flags: bool = False,
    max_states: int = MAX_STATES,
) -> Analysis:
    """Exact mine probabilities of every hidden cell.

    Parameters
    ----------
    visible : array_like of int8, shape (rows, cols), Snapshot or Game
        What the player sees, in the visible encoding: ``0..8`` revealed,
        :data:`~numsweeper.HIDDEN` or :data:`~numsweeper.FLAG`.  A lost
        game's state, which shows mines, is rejected; a won game's is read
        like any other (its hidden or flagged cells are then certain mines).
    mines : int, optional
        Total number of mines on the board.  Optional for a Snapshot (mines
        left plus flags) or a Game (its mine count).
    trust_flags : bool
        False (default): flags are the player's guesses and count as hidden
        cells.  True: flagged cells are mines.
    max_states : int
        Guard on the exact count; see Notes.

    Returns
    -------
    Analysis

    Raises
    ------
    InvalidBoardError
        If no layout explains the visible state (the message names a
        contradicting cell), or for malformed input.
    InvalidTypeError
        If ``visible`` is not integer or ``mines`` is missing or not an int.

    Notes
    -----
    Cost grows with the number of states at the widest cut of a frontier
    component (the needs of the numbers the cut separates), not with the
    number of layouts: long frontiers with billions of layouts count in
    milliseconds.  If a cut of the forward count holds more than
    ``max_states`` states, every constraint active at that cut is dropped
    (relaxed), the component splits where it can, and the parts are counted
    again (repeatedly, if a part overflows too); the result then has
    ``exact=False``.  A relaxation only adds layouts, so a cell it calls
    certainly safe (or certainly mined) is so in the exact problem too.

    On a huge board the cost follows the frontier: a few compiled passes
    over the board, then work and memory in proportion to the frontier
    cells (after the first click on a 5000 x 5000 board with 1% mines, a
    few seconds and a few bytes per cell).  The probability grid (8 bytes
    per cell) is built only when it is read.

    Each call starts from an empty memory; an :class:`Analyzer` keeps its
    counted components and recent structures between calls, which gives the
    same results faster, except that a component it once counted exactly is
    served exactly to a later call whose ``max_states`` would relax it.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> H = ns.HIDDEN
    >>> visible = np.array([[H, H, H], [1, 2, 1], [0, 0, 0]], dtype=np.int8)
    >>> a = ns.solver.analyze(visible, 2)
    >>> a.probabilities[0]
    array([1., 0., 1.])
    >>> a.safe.tolist(), a.mines.tolist(), a.layouts
    ([[0, 1]], [[0, 0], [0, 2]], 1)
    >>> ns.solver.analyze(visible, 3)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidBoardError: ...
    """
    return Analyzer(structures=0).analyze(
        visible, mines, trust_flags=trust_flags, max_states=max_states
    )


class _Combined(NamedTuple):
    """The components' counts combined (:func:`_combine`)."""

    frontier: Poly  # weighted frontier layouts by total (the Analysis's frontier_mines)
    context: list[int]  # per total from ``low`` on, proportional to C(U, M - K), reduced
    grand: int  # proportional to the layouts (the components of one total left out)
    total: tuple[int, int, int]  # grand times their factor and the common one, n0, n1
    scaled: list[int]  # the frontier layouts by total, those components left out
    low: int  # ... from this total on
    contexts: list[list[int]]  # per wide component, the weight of each of its totals


def _combine(counted: _Counted) -> _Combined:
    """Combine the components' counts: the frontier's layouts by mine total.

    The components of a single mine total contribute a constant factor and
    a shift; the probabilities never need the factor (it cancels), so only
    :attr:`_Combined.frontier` includes it.  Raises if no layout fits.
    """
    counts, shape, m = counted.counts, counted.shape, counted.mines_left
    u = shape.unconstrained
    polys = [comp.coeffs for comp in counts.components]
    low = counts.single_low + sum(comp.low for comp in counts.components)
    tree = _tree(polys)
    scaled = tree[0] if tree else [1]
    factor = math.prod(counts.single_coeffs.tolist())
    frontier = {low + k: factor * x for k, x in enumerate(scaled) if x}
    weights = _binomial_weights(u, m, list(frontier))
    context = [weights.get(low + k, 0) for k in range(len(scaled))]
    # Only the weights' ratios matter to the probabilities: without their
    # common factor (about 40% of their bits on a huge tangled board) every
    # product and sum that follows is shorter.
    common = math.gcd(*context) or 1  # (0 if no weight: then no layout fits, below)
    if common > 1:
        context = [x // common for x in context]
    grand = sum(map(int.__mul__, scaled, context))
    if grand == 0:
        lo, hi = min(frontier), max(frontier)
        con_flat, cols = shape.con_flat, counted.cells.shape[1]
        where = (
            f"; the frontier next to cell ({con_flat[0] // cols}, {con_flat[0] % cols}) "
            f"holds {lo}..{hi} mines"
            if len(con_flat)
            else ""
        )
        raise InvalidBoardError(
            f"no layout fits {count_text(m, 'hidden mine')} among {u} unconstrained cells{where}"
        )
    contexts = _contexts(tree, context) if tree else []
    n0, n1 = m - max(weights), m - min(weights)
    whole = factor * grand * common
    return _Combined(frontier, context, grand, (whole, n0, n1), scaled, low, contexts)


# A product tree over the wide components' polynomials (coefficient lists):
# (product, left subtree, right subtree), a leaf's subtrees None.
_Tree = tuple[list[int], Any, Any]


def _tree(polys: list[list[int]]) -> _Tree | None:
    """The balanced product tree of ``polys`` (None if there are none)."""
    if not polys:
        return None
    if len(polys) == 1:
        return polys[0], None, None
    half = len(polys) // 2
    left, right = _tree(polys[:half]), _tree(polys[half:])
    assert left is not None and right is not None
    return convolve(left[0], right[0]), left, right


def _contexts(tree: _Tree, context: list[int]) -> list[list[int]]:
    """Each leaf's weight per mine total, given the rest of the frontier.

    ``context[a]`` is the weight of the whole tree holding ``a`` mines (from
    its least total on).  A subtree's context at ``a`` sums its sibling's
    layouts of ``t`` mines times the parent's context at ``a + t``; a leaf's
    context is what the component's marginals are weighed with.  Each level
    costs about what its products did, so the whole is about one product of
    every polynomial.  Each is the middle of the sibling reversed times the
    parent's context (:func:`~numsweeper.solver.longcount.middle`).
    """
    _, left, right = tree
    if left is None:
        return [context]
    out = []
    for here, other in ((left, right), (right, left)):
        out.extend(_contexts(here, middle(other[0], context, len(here[0]))))
    return out


def _single_shares(
    counts: Counts, shape: Frontier
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """Each group's mine probability, and whether it is 0 or 1, where its
    component has one mine total (NaN and False for the other groups)."""
    n_groups = len(shape.sizes)
    single = counts.single_groups
    group_p = np.empty(n_groups)
    group_p.fill(np.nan)
    group_safe = np.zeros(n_groups, dtype=bool)
    group_mine = np.zeros(n_groups, dtype=bool)
    if len(single) > _MANY and counts.single_den.max() < 2**50:
        # a component of one total: its groups' ratios are their own (every
        # value, times a size of at most 8 frontier cells, below 2**53: exact
        # as a float, so numpy's quotient is Python's)
        nums, wholes = counts.single_num, counts.single_den * shape.sizes[single]
        group_p[single] = nums / wholes
        group_safe[single] = nums == 0
        group_mine[single] = nums == wholes
    elif len(single):  # (in Python integers)
        sizes = shape.size_list
        singles = single.tolist(), counts.single_num.tolist(), counts.single_den.tolist()
        for g, num, den in zip(*singles, strict=True):
            whole = den * sizes[g]
            group_p[g] = num / whole
            group_safe[g] = num == 0
            group_mine[g] = num == whole
    return group_p, group_safe, group_mine


def _probabilities(counted: _Counted) -> Analysis:
    """The analysis of a counted position: every cell's probability."""
    combined = _combine(counted)
    counts, shape, m = counted.counts, counted.shape, counted.mines_left
    u = shape.unconstrained
    # Certainty is decided on the exact integers, never on rounded floats.
    group_p, group_safe, group_mine = _single_shares(counts, shape)
    grand = combined.grand
    for comp, context in zip(counts.components, combined.contexts, strict=True):
        assert len(context) == comp.marginals.shape[1]  # (a weight per mine total)
        if grand < _SMALL_GRAND and comp.marginals.dtype == np.int64 and max(context) < 2**63:
            # every sum fits int64 and every ratio's terms a float: compiled
            weights = frozen(np.array(context, dtype=np.int64))
            groups = frozen(np.array(comp.groups, dtype=np.int64))
            marginals = frozen(comp.marginals)
            out = group_p, group_safe, group_mine
            group_shares(marginals, weights, groups, shape.sizes, grand, *out)
            continue
        row: list[int]
        long_weights = long_ints(context)  # (GMP's, on a huge tangled board)
        sizes = shape.size_list
        for g, row in zip(comp.groups, comp.marginals.tolist(), strict=True):
            num = int(sum(map(operator.mul, row, long_weights)))
            whole = grand * sizes[g]
            group_p[g] = num / whole
            group_safe[g] = num == 0
            group_mine[g] = num == whole
    group_of = shape.group_of
    front = group_p[group_of], group_safe[group_of], group_mine[group_of]
    off = math.nan, False, False
    if u:
        low = combined.low
        mined = sum(
            x * w * (m - low - k)
            for k, (x, w) in enumerate(zip(combined.scaled, combined.context, strict=True))
        )
        off = mined / (grand * u), mined == 0, mined == grand * u
    for array in front:
        array.flags.writeable = False
    return Analysis(
        counted.cells,
        counted.trust_flags,
        shape.front_flat,
        front,
        off,
        counts.exact,
        combined.frontier,
        u,
        m,
        combined.total,
    )
