"""The exact engine's answers to the look-ahead's questions.

Private to :mod:`numsweeper.solver`.  The guess
(:func:`~numsweeper.solver.guess.hill_guess`) asks two kinds of question
of a position, many times over: what it would be with one hidden cell
shown as each number it may show (:class:`_Prober`, which
:meth:`Analyzer.prober <numsweeper.solver.Analyzer.prober>` makes), and
how many layouts have some frontier cells all mines (:class:`_Given`,
from :meth:`Analyzer.given <numsweeper.solver.Analyzer.given>`).  Each
does once what the question's variants share, and answers in one compiled
call (:mod:`numsweeper.solver.probe`) where that gives the engine's own
integers and floats, else through the engine.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Collection
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._constants import FLAG, HIDDEN
from .._validate import short_repr
from ..errors import InvalidBoardError
from ._jit import frozen
from .analysis import (
    MAX_STATES,
    Analysis,
    Analyzer,
    _coerce,
    _Counted,
    _probabilities,
)
from .components import Counts, count_frontier, merged
from .counting import EMPTY, OK, Poly, count_parts, unpack
from .longcount import convolve
from .probe import given_shares, probe_outlook, probe_rest
from .structure import frontier

__all__: list[str] = []


class _Prober:
    """:meth:`Analyzer.analyze` of a position with one hidden cell shown as each number.

    ``prober(n)`` is ``analyze(cells with cell shown as n, mines,
    max_states=max_states)``: the same floats, the same errors.  What does
    not depend on ``n`` is done once, for the look-ahead, which tries
    several numbers on each cell: the checks of the other numbers, the
    structure, the needs, and the count of every component but the cell's
    own (unless that count finds no layout: then each number is counted in
    full, so that the error is the one :func:`analyze` raises).  The cell's
    own component is counted afresh for each number and is not added to the
    engine's memory: a probe's component seldom comes back, and keying and
    keeping it cost more than its rare hits saved (the counts are the same
    integers either way).  :meth:`look` reads what the look-ahead needs of
    ``prober(n)`` without making it, in one compiled call, after counting
    the other components once in another
    (:func:`~numsweeper.solver.probe.probe_rest`).
    """

    def __init__(
        self,
        engine: Analyzer,
        cells: NDArray[np.int8],
        mines: int,
        cell: tuple[int, int],
        max_states: int = MAX_STATES,
        *,
        checked: bool = False,
    ) -> None:
        # (checked: the caller's own position, an int8 grid it has analysed)
        cells, total = (cells, mines) if checked else _coerce(cells, mines)
        self.engine = engine
        self.cells, self.total, self.cell, self.max_states = cells.copy(), total, cell, max_states
        self.cells[cell] = 0
        revealed = self.cells >= 0
        self.shape = shape = frontier(~revealed, revealed)
        # every other number can be met (the cell's own 0 can)
        self.fine = not (revealed & (self.cells > shape.free_grid)).any()
        self.free = int(shape.free_grid[cell])
        self.need = self.cells.ravel()[shape.con_flat].astype(np.int64)
        # the cell's place among the numbers (none if it has no hidden neighbour)
        flat = cell[0] * cells.shape[1] + cell[1]
        at = int(np.searchsorted(shape.con_flat, flat))
        self.at = at if at < len(shape.con_flat) and shape.con_flat[at] == flat else -1
        # the part the number changes, and the others' counts (on first use)
        self.own = []
        if self.at >= 0:  # (the parts list their numbers between the bounds cuts)
            place = int(np.flatnonzero(shape.numbers == self.at)[0])
            self.own = [bisect.bisect_right(shape.cut_list, place) - 1]
        self.rest: Counts | None = None
        self.whole = False  # count every part for every number
        self.plan: _Plan | None = None  # look's inputs (None where look never applies)
        self.planned = False  # (made on first use)

    def __call__(self, n: int) -> Analysis:
        cells = self.cells.copy()
        cells[self.cell] = n
        if not self.fine or not 0 <= n <= self.free:  # (the error analyze raises)
            return self.engine.analyze(cells, self.total, max_states=self.max_states)
        need = self.need
        if self.at >= 0:
            need = need.copy()
            need[self.at] = n
        cells.flags.writeable = False
        engine, shape, max_states = self.engine, self.shape, self.max_states
        rest = self._rest()
        if rest is None:
            counts = count_frontier(shape, need, max_states, engine.memory)
        else:
            own = count_frontier(shape, need, max_states, None, only=self.own)
            counts = merged(rest, own)
        return _probabilities(_Counted(cells, False, self.total, shape, counts))

    def _rest(self) -> Counts | None:
        """The count of every part but the cell's own (None if it finds no layout)."""
        if self.rest is None and not self.whole:
            shape = self.shape
            others = [j for j in range(shape.n_parts) if j not in self.own]
            try:
                self.rest = count_frontier(
                    shape, self.need, self.max_states, self.engine.memory, only=others
                )
            except InvalidBoardError:
                self.whole = True
        return self.rest

    def look(self, n: int, off_at: int) -> tuple[int, float, float, bool] | None:
        """What the look-ahead reads of ``self(n)``, compiled, or None.

        ``(layouts, s1, s2, live_safe)``: ``self(n).layouts`` and the
        :func:`~numsweeper.solver.guess.outlook` of ``self(n)`` with
        ``off_at``, the same integers and floats, from one call of
        :func:`~numsweeper.solver.probe.probe_outlook`.  None where that
        does not apply: a count of the rest or of the cell's own part is
        not plain (no layout, too many states, a count past int64), or a
        ratio's terms do not convert to floats exactly; ``self(n)`` then
        tells (or raises).  Nothing is added to the engine's memory.

        Raises
        ------
        InvalidBoardError
            If the kernel finds that no layout of the cell's own part fits
            ``n`` (``self(n)`` raises then too, naming a number of that
            part): the look-ahead skips such a number at the cost of one
            compiled count.
        """
        if not self.fine or not 0 <= n <= self.free:
            return None
        if not self.planned:
            self.plan, self.planned = self._planned(), True
        plan, shape = self.plan, self.shape
        if plan is None:
            return None
        status, grand, w_ref, n_ref, s1, s2, live_safe = probe_outlook(
            *shape.count_args,
            plan.need,
            self.at,
            n,
            plan.own,
            plan.max_states,
            plan.rest,
            plan.rest_p,
            shape.front_flat,
            shape.group_of,
            plan.grid,
            off_at,
        )
        if status == EMPTY:  # (the cell's own part, counted as self(n) counts it)
            raise InvalidBoardError(f"no layout has cell {self.cell} show {n}")
        if status != OK:
            return None
        # (int(): numpy's integers where the kernel runs as Python)
        n_ref, w_ref = int(n_ref), int(w_ref)
        layouts = plan.factor * int(grand) * math.comb(shape.unconstrained, n_ref) // w_ref
        return layouts, s1, s2, live_safe

    def _planned(self) -> _Plan | None:
        """:meth:`look`'s inputs that do not depend on the number (None if it never applies).

        The rest of the frontier is counted here, compiled, not through
        the engine's memory: a probe's other parts are mostly small, and
        the exact integers are the same either way.
        """
        shape = self.shape
        need = frozen(self.need)  # (never written: self(n) writes a copy)
        own = self.own[0] if self.own else -1
        max_states = min(self.max_states, 2**62)  # (int64)
        status, rest, rest_p, coeffs = probe_rest(
            *shape.count_args, need, own, max_states, shape.unconstrained, self.total
        )
        if status != OK:
            return None
        factor = math.prod(coeffs.tolist())
        return _Plan(
            frozen(rest), frozen(rest_p), factor, need, frozen(self.cells), own, max_states
        )


class _Plan(NamedTuple):
    """What :meth:`_Prober.look` passes for every number (see
    :func:`~numsweeper.solver.probe.probe_outlook`)."""

    rest: NDArray[np.int64]  # every part but the cell's own, counted
    rest_p: NDArray[np.float64]  # their groups' probabilities, where they have one total
    factor: int  # the counts of those of one total, multiplied
    need: NDArray[np.int64]  # what each number shows (the kernel sets the cell's own)
    grid: NDArray[np.int8]  # the position, the cell shown (as 0: its number is not read)
    own: int  # the cell's own part, or -1
    max_states: int  # the guard, in int64


class _Given:
    """Layouts of a position given that some frontier cells are mines.

    ``given(cells)`` is what :meth:`Analyzer.layouts_by_total` gives for
    the position with those (distinct) cells flagged and trusted (flags
    elsewhere count as hidden cells): the frontier's layouts by mine total,
    and the mines left; None where no layout has them all mines.  It is
    counted on the position's own structure, each group shrunk by the given
    cells in it and each number's need by those next to it, so no structure
    is built: the guess's influence factor asks this of many small sets.

    The counts are the same integers while both are exact.  Where the
    ``max_states`` guard binds the two can differ: a count relaxed here is
    redone as the flagged position's (the same answer), but the flagged
    position's own order may relax where this one counts exactly, and this
    one then gives the exact count.  (With the default guard no count of
    600 expert games was relaxed.)

    :meth:`look` reads the influence factor's shares of ``given(cells)``
    in one compiled call, counting again only the parts the cells are in
    (every part of the position is counted once, on first use).
    """

    def __init__(
        self, engine: Analyzer, cells: NDArray[np.int8], mines: int, max_states: int = MAX_STATES
    ) -> None:
        cells, total = _coerce(cells, mines)
        self.engine = engine
        self.cells = np.where(cells == FLAG, HIDDEN, cells).astype(np.int8)
        self.total, self.max_states = total, max_states
        revealed = self.cells >= 0
        self.shape = shape = engine.structure(~revealed, revealed)
        self.need = self.cells.ravel()[shape.con_flat].astype(np.int64)
        self.need_view = frozen(self.need)
        self.front = shape.front_flat.tolist()
        self.group_of = shape.group_of.tolist()
        # look's input: every part counted (None where look never applies),
        # made on first use
        self.parts: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
        self.parts_counted = False

    def __call__(self, given: Collection[tuple[int, int]]) -> tuple[Poly, int] | None:
        given = [(int(r), int(c)) for r, c in given]
        shape, cols = self.shape, self.cells.shape[1]
        if len(set(given)) != len(given):
            raise InvalidBoardError(f"the given cells repeat: {short_repr(sorted(given))}")
        m = self.total - len(given)
        sizes = shape.sizes.copy()
        need = self.need.copy()
        changed = np.zeros(len(sizes), dtype=bool)
        group_cons = shape.group_cons
        for r, c in given:
            i = bisect.bisect_left(self.front, r * cols + c)
            on_board = 0 <= r < self.cells.shape[0] and 0 <= c < cols
            if not on_board or i == len(self.front) or self.front[i] != r * cols + c:
                raise InvalidBoardError(f"cell ({r}, {c}) is not on the frontier")
            g = self.group_of[i]
            sizes[g] -= 1
            changed[g] = True
            need[group_cons[g]] -= 1
        if m < 0 or (len(need) and need.min() < 0):
            return None  # more mines than there are, or than a number shows
        try:
            counts = count_frontier(
                shape, need, self.max_states, self.engine.memory, sizes=sizes, changed=changed
            )
        except InvalidBoardError:
            return None
        if not counts.exact:  # a relaxed count: count it as the flagged position would be
            flagged = self.cells.copy()
            for x in given:
                flagged[x] = FLAG
            try:
                counted = self.engine.layouts_by_total(
                    flagged, self.total, trust_flags=True, max_states=self.max_states
                )
            except InvalidBoardError:
                return None
            return counted[0], counted[2]
        product = [1]
        for comp in counts.components:
            product = convolve(product, comp.coeffs)
        low = counts.single_low + sum(comp.low for comp in counts.components)
        factor = math.prod(counts.single_coeffs.tolist())
        u = shape.unconstrained
        if not any(0 <= m - low - k <= u for k, x in enumerate(product) if x):
            return None  # the mines left do not fit off the frontier
        return {low + k: factor * x for k, x in enumerate(product) if x}, m

    def look(
        self, given: Collection[tuple[int, int]]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], int] | None:
        """What the influence factor reads of ``self(given)``, compiled, or None.

        ``(ks, share, m)``: the frontier totals ``k`` of ``self(given)``
        with room off the frontier for the rest of the ``m`` mines left,
        increasing (as floats; none where no layout has the given cells all
        mines), and each one's share of the position's layouts, ``layouts(k)
        * C(u, m - k) / layouts`` (the float of Python's ``int / int``),
        both read-only; from one call of :func:`~numsweeper.solver.probe.
        given_shares`.  None where that does not apply: a part of the
        position, or one the cells are in, is not counted plainly (too many
        states, a count past int64), a cell repeats or is not on the
        frontier, or a ratio's terms do not convert to floats exactly;
        ``self(given)`` then tells (or raises).  Nothing is added to the
        engine's memory.

        Examples
        --------
        >>> import numsweeper as ns
        >>> game = ns.Game.new(2, 3, 2, strategy=ns.FixedPlacement([(0, 2), (1, 1)]))
        >>> _ = game.reveal(0, 0)  # a 1 in the corner, 5 hidden cells around
        >>> given = ns.solver.Analyzer().given(game.snapshot().cells, 2, ns.solver.MAX_STATES)
        >>> ks, share, m = given.look([(0, 1)])  # 1 of the 6 layouts: C(2, 1) / 6 of them
        >>> ks.tolist(), share.tolist(), m
        ([0.0], [0.3333333333333333], 1)
        """
        args = self.shares_args()
        if args is None:
            return None
        rows, cols = self.cells.shape
        flat = []
        for r, c in given:
            if not (0 <= r < rows and 0 <= c < cols):
                return None
            flat.append(r * cols + c)
        sizes, grp_ptr, grp_idx, part_ptr, order, need, info, values, front, groups, *rest = args
        status, ks, share, m = given_shares(
            sizes, grp_ptr, grp_idx, part_ptr, order, need, info, values, front, groups,
            frozen(np.array(flat, dtype=np.int64)), *rest,
        )  # fmt: skip
        if status != OK:
            return None
        return frozen(ks), frozen(share), int(m)

    def shares_args(self) -> tuple[Any, ...] | None:
        """:func:`~numsweeper.solver.probe.given_shares`' arguments but ``given``, or None.

        The structure, the numbers, every part counted (on first use),
        the frontier and its groups, then the mines, the cells off the
        frontier and the guard; None where a part is not counted plainly
        (:meth:`look` never applies then).
        """
        if not self.parts_counted:
            self.parts, self.parts_counted = self._parts(), True
        if self.parts is None:
            return None
        shape = self.shape
        info, values = self.parts
        return (
            *shape.count_args,
            self.need_view,
            info,
            values,
            shape.front_flat,
            shape.group_of,
            self.total,
            shape.unconstrained,
            min(self.max_states, 2**62),  # (int64)
        )

    def _parts(self) -> tuple[NDArray[np.int64], NDArray[np.int64]] | None:
        """Every part of the position counted (None if one is not counted plainly)."""
        shape = self.shape
        todo = frozen(np.arange(shape.n_parts, dtype=np.int64))
        info, values, _, _, _ = unpack(
            count_parts(
                *shape.count_args,
                self.need_view,
                todo,
                min(self.max_states, 2**62),  # (int64)
            )
        )
        if (info[:, 0] != OK).any():
            return None
        return frozen(info), frozen(values)
