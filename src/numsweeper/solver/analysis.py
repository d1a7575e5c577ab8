"""Exact mine probabilities from what a player sees.

The engine follows the classic scheme (see ``shared/DESIGN.md``):

1. every revealed number is a constraint on its hidden neighbours;
2. hidden cells with exactly the same constraints form a *group* (only the
   number of mines in a group matters, weighted by a binomial);
3. groups split into independent frontier *components*;
4. each component is counted by mine total with a forward dynamic programme
   over its groups (a transfer-matrix count whose state is the remaining need
   of the constraints that straddle the current cut), which gives the
   component's polynomial ``P(x) = sum_m layouts(m) x^m``; a backward sweep
   over the same states counts their completions and, per group, the
   mine-weighted polynomial needed for marginals;
5. components combine by convolution, and a frontier total ``K`` is weighted by
   ``C(U, M - K)`` where ``U`` counts the hidden cells off the frontier.

Everything is exact Python integers; the binomials are replaced by integer
weights proportional to ``C(U, n)`` (a short product of small factors), so a
board with millions of hidden cells costs no more than a small one.  The one
float division happens at the very end and is correctly rounded.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter, mul
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._constants import FLAG, HIDDEN
from .._kernels import adjacent_counts
from .._validate import check_int, check_visible, count_text
from ..errors import InvalidBoardError
from ..game import Game, GameState, Snapshot

__all__ = ["MAX_STATES", "Analysis", "analyze"]

#: Guard on the exact engine: the most dynamic-programming states one cut of
#: one component may hold.  A component whose cuts grow beyond it is relaxed
#: (see :func:`analyze`, Notes) instead of being counted for minutes.
MAX_STATES = 50_000

Poly = dict[int, int]  # mine total -> weighted layout count
# A counted component: its polynomial, and the mine-weighted marginals of its
# groups as one array (a row per group, a column per mine total from ``low``
# on; int64 from the compiled count, Python ints from the pure-Python one).
_Counted = tuple[Poly, int, NDArray[Any]]

# Counted components, keyed by their structure: the (position, need) of every
# number and, per group, the positions of its numbers and its size.  That key
# determines the counting problem, so a hit is exact.  The marginals are
# stored in the order of the part's ``canon``.  Successive moves of a
# game, and the policy's look-ahead probes, mostly change one component and
# find the others here.  Results are never mutated after they are stored.
_CACHE: OrderedDict[Any, _Counted] = OrderedDict()
_CACHE_SIZE = 4096
_CACHE_LOCK = threading.Lock()

_OFFSETS = np.array([(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc], dtype=np.intp)


@dataclass(frozen=True, eq=False)
class Analysis:
    """What the visible state implies about every hidden cell.

    Attributes
    ----------
    probabilities : ndarray of float64, shape (rows, cols)
        Probability that each hidden (or flagged) cell holds a mine, over all
        layouts consistent with the revealed numbers and the mine count, each
        layout equally likely.  Revealed cells are NaN; trusted flags are 1.
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
    Made by :func:`analyze`; the constructor is not part of the API (since
    ``safe`` and ``mines`` are listed on first access, it takes boolean
    masks of them).

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
    """

    probabilities: NDArray[np.float64]
    _safe_mask: NDArray[np.bool_] = field(repr=False)
    _mine_mask: NDArray[np.bool_] = field(repr=False)
    exact: bool
    frontier_mines: dict[int, int] = field(repr=False)
    unconstrained: int
    mines_left: int

    # (``safe`` and ``mines`` are listed on first access: a look-ahead probe
    # reads only the probabilities and the layout count)
    @cached_property
    def safe(self) -> NDArray[np.intp]:
        """Cells that are certainly safe, ``(row, col)`` in row-major order."""
        return np.argwhere(self._safe_mask)

    @cached_property
    def mines(self) -> NDArray[np.intp]:
        """Cells that are certainly mines (trusted flags included)."""
        return np.argwhere(self._mine_mask)

    @cached_property
    def layouts(self) -> int:
        """Exact number of consistent mine layouts (a Python int).

        Computed on first access: on a huge board it is a number with
        millions of digits.
        """
        u, m = self.unconstrained, self.mines_left
        # sum_K count_K C(u, m - K) with one binomial: the weights are
        # C(u, m - K) * R / C(u, n0) exactly, where n0 and n1 are the least
        # and most mines off the frontier and R = (n0 + 1) ... n1 (see
        # _binomial_weights)
        weights = _binomial_weights(u, m, list(self.frontier_mines))
        if not weights:
            return 0
        n0, n1 = m - max(weights), m - min(weights)
        scaled = sum(self.frontier_mines[k] * w for k, w in weights.items())
        return scaled * math.comb(u, n0) // math.prod(range(n0 + 1, n1 + 1))


def _coerce(visible: Any, mines: Any) -> tuple[NDArray[np.int8], int]:
    """Accept an array, a Snapshot or a Game; return (cells, total mines)."""
    if isinstance(visible, Game):
        if mines is None:
            mines = visible.mine_count
        visible = visible.snapshot()
    if isinstance(visible, Snapshot):
        cells = visible.cells
        if visible.state is GameState.WON and mines is None:
            # a won game shows every mine as a flag, the player's or not
            mines = int(np.count_nonzero(cells == FLAG))
        if mines is None:
            mines = visible.mines_left + int(np.count_nonzero(cells == FLAG))
        # a snapshot holds counts and codes; a lost game's shows mines (codes below FLAG)
        if cells.min() < FLAG:
            r, c = (int(v) for v in np.argwhere(cells < FLAG)[0])
            raise InvalidBoardError(
                f"cell ({r}, {c}) shows {int(cells[r, c])}: analysis needs a game in progress "
                "(counts 0..8, HIDDEN or FLAG)"
            )
    else:
        if mines is None:
            raise TypeError("mines is required when visible is an array")
        cells = check_visible(visible, (2,), "(rows, cols), non-empty")  # (only read)
    m = check_int(mines, "mines")
    if not 0 <= m <= cells.size:
        raise InvalidBoardError(f"mines must be in 0..{cells.size}, got {m}")
    return cells, m


def _neighbours(flat: NDArray[np.intp], rows: int, cols: int) -> NDArray[np.intp]:
    """Flat indices of the 8 neighbours of each cell; -1 off the board."""
    r = flat[:, None] // cols + _OFFSETS[:, 0]
    c = flat[:, None] % cols + _OFFSETS[:, 1]
    ok = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
    return np.where(ok, r * cols + c, -1)


@dataclass
class _Component:
    groups: list[int]  # group ids (in elimination order, or a cache hit's canon order)
    polynomial: Poly
    low: int  # the mine total of the marginals' first column
    marginals: NDArray[Any]  # row i: group ``groups[i]``'s mine-weighted polynomial


def _banded(polynomial: Poly, marginals: list[Poly]) -> _Counted:
    """A pure-Python count in the banded form the compiled count returns."""
    low = min(polynomial)
    band = np.zeros((len(marginals), max(polynomial) - low + 1), dtype=object)
    for i, marg in enumerate(marginals):
        for m, x in marg.items():
            band[i, m - low] = x
    return polynomial, low, band


# A forward step's plan: (keep getter, drop getter, needs of opened constraints,
# (key position, capacity after) of the group's older constraints, lo, hi).
_Plan = tuple[
    Callable[[tuple[int, ...]], tuple[int, ...]],
    Callable[[tuple[int, ...]], tuple[int, ...]],
    tuple[int, ...],
    list[tuple[int, int]],
    int,
    int,
]


class _TooLarge(Exception):
    def __init__(self, active: list[int]) -> None:
        self.active = active


class _Empty(Exception):
    def __init__(self, constraint: int) -> None:
        self.constraint = constraint


def _getter(index: list[int]) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """A fast ``lambda key: tuple(key[j] for j in index)``."""
    if not index:
        return lambda key: ()
    if len(index) == 1:
        j = index[0]
        return lambda key: (key[j],)
    return itemgetter(*index)


@functools.cache
def _weights(size: int) -> list[int]:
    """``C(size, v)`` for ``v = 0..size`` (never mutated)."""
    return [math.comb(size, v) for v in range(size + 1)]


def _forward(
    order: list[int],
    group_cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[list[dict[tuple[int, ...], Poly]], list[list[int]], list[_Plan]]:
    """Count partial layouts cut by cut.

    Returns the layers (layer ``i``: the state after placing ``order[:i]``,
    keyed by the remaining need of the constraints in ``actives[i]``), the
    active constraint lists and each step's plan (how a key and a mine count
    ``v`` for the step's group give the next key).
    """
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    capacity: dict[int, int] = {}
    for i, g in enumerate(order):
        for c in group_cons[g]:
            first.setdefault(c, i)
            last[c] = i
            capacity[c] = capacity.get(c, 0) + sizes[g]
    layer: dict[tuple[int, ...], Poly] = {(): {0: 1}}
    layers = [layer]
    active: list[int] = []
    actives = [active]
    plans: list[_Plan] = []
    for i, g in enumerate(order):
        cons = group_cons[g]
        size = sizes[g]
        in_cons = set(cons)
        # bounds on v from each of g's constraints: need - capacity left after g
        for c in cons:
            capacity[c] -= size
        # New key = unchanged needs + needs that drop by v (old, then opened).
        keep: list[int] = []
        drop: list[int] = []
        keep_at: list[int] = []
        drop_at: list[int] = []
        old_cons: list[tuple[int, int]] = []
        for j, c in enumerate(active):
            if c in in_cons:
                old_cons.append((j, capacity[c]))
                if last[c] > i:
                    drop.append(c)
                    drop_at.append(j)
            elif last[c] > i:
                keep.append(c)
                keep_at.append(j)
        opened = [c for c in cons if first[c] == i]
        fresh = [c for c in opened if last[c] > i]
        new_active = keep + drop + fresh
        get_keep = _getter(keep_at)
        get_drop = _getter(drop_at)
        fresh_needs = tuple([need[c] for c in fresh])
        lo0, hi0 = 0, size
        for c in opened:
            lo0 = max(lo0, need[c] - capacity[c])
            hi0 = min(hi0, need[c])
        plans.append((get_keep, get_drop, fresh_needs, old_cons, lo0, hi0))
        weights = _weights(size)
        new_layer: dict[tuple[int, ...], Poly] = {}
        for key, poly in layer.items():
            lo, hi = lo0, hi0
            for j, cap in old_cons:
                n = key[j]
                if n - cap > lo:
                    lo = n - cap
                if n < hi:
                    hi = n
            if lo > hi:
                continue
            fixed = get_keep(key)
            base = get_drop(key) + fresh_needs
            for v in range(lo, hi + 1):
                new_key = fixed + tuple([x - v for x in base])
                w = weights[v]
                target = new_layer.get(new_key)
                if target is None:
                    new_layer[new_key] = {m + v: w * p for m, p in poly.items()}
                else:
                    for m, p in poly.items():
                        target[m + v] = target.get(m + v, 0) + w * p
        if not new_layer:
            ending = [c for c in cons if last[c] == i]
            raise _Empty((ending or cons)[0])
        if len(new_layer) > max_states:
            raise _TooLarge(new_active)
        layer = new_layer
        active = new_active
        layers.append(layer)
        actives.append(active)
    return layers, actives, plans


def _count_component(
    order: list[int],
    group_cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[Poly, list[Poly]]:
    """Polynomial and per-group mine-weighted polynomials of one component.

    One forward pass counts the prefixes; one backward sweep over the same
    states (the forward pass's graph, walked from the end) counts each
    state's completions and, on the way, the mine-weighted marginal of every
    group.  Walking the forward states, rather than running a second
    dynamic programme from the other end, visits only states that some
    prefix reaches: on expert frontiers an independent backward count held
    about four times as many states at the same cuts.
    """
    fwd, _, plans = _forward(order, group_cons, sizes, need, max_states)
    n = len(order)
    polynomial = fwd[n][()]
    marginals: list[Poly] = [{} for _ in order]
    # after[key]: completions of order[i+1:] from that state of layer i + 1
    after: dict[tuple[int, ...], Poly] = {(): {0: 1}}
    for i in range(n - 1, -1, -1):
        get_keep, get_drop, fresh_needs, old_cons, lo0, hi0 = plans[i]
        size = sizes[order[i]]
        weights = _weights(size)
        here: dict[tuple[int, ...], Poly] = {}
        acc = marginals[i]
        for key, poly in fwd[i].items():
            lo, hi = lo0, hi0
            for j, cap in old_cons:
                k = key[j]
                if k - cap > lo:
                    lo = k - cap
                if k < hi:
                    hi = k
            if lo > hi:
                continue
            fixed = get_keep(key)
            base = get_drop(key) + fresh_needs
            completions: Poly = {}
            for v in range(lo, hi + 1):
                tail = after.get(fixed + tuple([x - v for x in base]))
                if tail is None:
                    continue  # no completion from there
                w = weights[v]
                for m2, p2 in tail.items():
                    completions[m2 + v] = completions.get(m2 + v, 0) + w * p2
                if v:  # v = 0 adds no mines
                    wv = w * v
                    for m1, p1 in poly.items():
                        for m2, p2 in tail.items():
                            t = m1 + m2 + v
                            acc[t] = acc.get(t, 0) + wv * p1 * p2
            if completions:
                here[key] = completions
        after = here
    return polynomial, marginals


_KERNEL: list[Any] = []  # the compiled module, or None, once looked for


def _kernel() -> Any:
    """The compiled kernels (``pip install numsweeper[fast]``), or None.

    Imported on first use, so ``import numsweeper`` does not load numba.
    Setting the environment variable ``NUMSWEEPER_PURE_PYTHON=1`` turns
    them off (same results, slower).
    """
    if not _KERNEL:
        if os.environ.get("NUMSWEEPER_PURE_PYTHON", "") not in ("", "0"):
            _KERNEL.append(None)
            return None
        try:
            from . import _compiled
        except ImportError:  # numba is not installed
            _KERNEL.append(None)
        else:
            _KERNEL.append(_compiled)
    return _KERNEL[0]


_Inputs = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def _kernel_inputs(order: list[int], group_cons: list[list[int]], sizes: list[int]) -> _Inputs:
    """A component's structure as the compiled count takes it.

    Group sizes in elimination order, each group's constraints (renumbered
    from 0, CSR style), and the board-wide id of each renumbered constraint.
    """
    number: dict[int, int] = {}
    idx = [number.setdefault(c, len(number)) for g in order for c in group_cons[g]]
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum([len(group_cons[g]) for g in order], out=ptr[1:])
    return (
        np.array([sizes[g] for g in order], dtype=np.int64),
        ptr,
        np.array(idx, dtype=np.int64),
        np.array(list(number), dtype=np.int64),
    )


def _count_compiled(
    kernel: Any,
    inputs: _Inputs,
    order: list[int],
    group_cons: list[list[int]] | Callable[[], list[list[int]]],
    need: NDArray[np.int64],
    max_states: int,
) -> _Counted | None:
    """:func:`_count_component` by the compiled kernel: the same integers.

    The marginals come as one int64 array (see :func:`_banded`).  Raises
    what :func:`_forward` raises, and returns None where the kernel
    cannot count exactly (int64 overflow, very wide cuts): the caller then
    runs the pure-Python count.  ``group_cons`` (or a function that returns
    it) is read only to name what an error names.
    """
    sizes, ptr, idx, numbered = inputs
    status, step, poly, marg = kernel.count_component(
        sizes, ptr, idx, need[numbered], min(max_states, 2**62)
    )
    if status in (kernel.EMPTY, kernel.TOO_LARGE):
        of = group_cons() if callable(group_cons) else group_cons
        if status == kernel.EMPTY:  # name the constraint _forward would name
            cons = of[order[step]]
            later = {c for g in order[step + 1 :] for c in of[g]}
            ending = [c for c in cons if c not in later]
            raise _Empty((ending or cons)[0])
        # relax what the overflowing cut separates
        before = {c for g in order[: step + 1] for c in of[g]}
        after = {c for g in order[step + 1 :] for c in of[g]}
        raise _TooLarge(sorted(before & after))
    if status != kernel.OK:
        return None
    nz = np.flatnonzero(poly)
    polynomial = dict(zip(nz.tolist(), poly[nz].tolist(), strict=True))
    low, high = int(nz[0]), int(nz[-1])
    return polynomial, low, marg[:, low : high + 1]  # (the cache keeps a copy)


def _convolve(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for m1, p1 in a.items():
        for m2, p2 in b.items():
            out[m1 + m2] = out.get(m1 + m2, 0) + p1 * p2
    return out


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
    TypeError
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
    (An earlier version also ran an independent count from the far end,
    which could overflow where the forward one did not; such positions are
    now counted exactly.)

    With numba installed (``pip install numsweeper[fast]``) each component
    is counted by a compiled kernel, which gives the same integers about
    twice as fast (whole analyses); a component whose counts would not fit
    in int64 is counted in Python integers as without it.

    Counted components are kept in a small LRU cache keyed by their
    structure (positions and needs of the numbers, sizes of the groups), so
    successive positions of one game recount only what changed (a component
    once counted exactly is served exactly to later calls, whatever their
    ``max_states``).  The last few positions' structures (constraints,
    groups, components, which depend on where the numbers are but not on
    what they show) are cached too, so trying each number on one cell builds
    the structure once.

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
    return _probabilities(_count(visible, mines, trust_flags, max_states))


def _probabilities(counted: _Count) -> Analysis:
    """The analysis of a counted position: every cell's probability."""
    rows, cols = counted.cells.shape
    shape, components, frontier, weights, grand, m = (
        counted.shape,
        counted.components,
        counted.frontier,
        counted.weights,
        counted.grand,
        counted.mines_left,
    )
    front_flat = shape.front_flat
    u = shape.unconstrained
    known = counted.known
    probs = np.full(rows * cols, np.nan)
    probs[known.ravel()] = 1.0
    # Certainty is decided on the exact integers, never on rounded floats.
    is_safe = np.zeros(rows * cols, dtype=bool)
    is_mine = known.ravel().copy()
    if components:
        sizes = shape.sizes
        n_groups = len(sizes)
        # per group (every group is in one component), as plain lists: a
        # component holds few groups, so Python ints beat object arrays
        group_probs = [math.nan] * n_groups
        group_safe = [False] * n_groups
        group_mine = [False] * n_groups
        suffix: list[Poly] = [{0: 1}]
        for p in reversed(counted.polys):
            suffix.append(_convolve(suffix[-1], p))
        suffix.reverse()
        for j, comp in enumerate(components):
            others = _convolve(counted.prefix[j], suffix[j + 1])
            # total_weight[a - low] = sum_b others[b] * w[a + b]: the weight
            # of the component's mine total a (every total of the band)
            low = comp.low
            total_weight = [
                sum(p * weights.get(a + b, 0) for b, p in others.items())
                for a in range(low, low + comp.marginals.shape[1])
            ]
            # exact integers, one correctly rounded division
            for g, row in zip(comp.groups, comp.marginals.tolist(), strict=True):
                num = sum(map(mul, row, total_weight))
                whole = grand * sizes[g]
                group_probs[g] = num / whole
                group_safe[g] = num == 0
                group_mine[g] = num == whole
        group_of = shape.group_of
        probs[front_flat] = np.array(group_probs)[group_of]
        is_safe[front_flat] = np.array(group_safe)[group_of]
        is_mine[front_flat] = np.array(group_mine)[group_of]
    if u:
        num = sum(frontier[k] * w * (m - k) for k, w in weights.items())
        off = counted.unknown.ravel().copy()
        off[front_flat] = False
        probs[off] = num / (grand * u)
        is_safe[off] = num == 0
        is_mine[off] = num == grand * u

    grid = probs.reshape(rows, cols)
    grid.flags.writeable = False
    return Analysis(
        grid,
        is_safe.reshape(rows, cols),
        is_mine.reshape(rows, cols),
        counted.exact,
        frontier,
        u,
        m,
    )


class _Count(NamedTuple):
    """A position's layouts counted by frontier total (:func:`_count`)."""

    cells: NDArray[np.int8]
    unknown: NDArray[np.bool_]  # the cells that may hold mines
    known: NDArray[np.bool_]  # trusted flags
    mines_left: int
    shape: _Frontier
    components: list[_Component]
    exact: bool
    polys: list[Poly]
    prefix: list[Poly]  # products of the first j component polynomials
    frontier: Poly  # ... of all of them
    weights: dict[int, int]  # per frontier total, proportional to C(U, M - K)
    grand: int  # sum of frontier * weights: proportional to the layouts


def _count(visible: Any, mines: Any, trust_flags: bool, max_states: int) -> _Count:
    """:func:`analyze` up to the layout count (its checks and errors included)."""
    max_states = check_int(max_states, "max_states")
    if max_states < 1:
        raise ValueError(f"max_states must be >= 1, got {max_states}")
    cells, total = _coerce(visible, mines)
    flagged = cells == FLAG
    revealed = cells >= 0
    if trust_flags:
        unknown = cells == HIDDEN
        known = flagged
    else:
        unknown = ~revealed
        known = np.zeros_like(flagged)
    m = total - int(np.count_nonzero(known))
    if m < 0:
        r, c = np.argwhere(known)[0]
        raise InvalidBoardError(
            f"{int(np.count_nonzero(known))} flags exceed mines={total!r}; e.g. flag ({r}, {c})"
        )

    need_grid = cells.astype(np.int16)
    if trust_flags:
        need_grid -= adjacent_counts(known)
    shape = _frontier(unknown, revealed)
    bad = revealed & ((need_grid < 0) | (need_grid > shape.free_grid))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise InvalidBoardError(
            f"cell ({r}, {c}) shows {int(cells[r, c])} but has {int(shape.free_grid[r, c])} "
            f"hidden and {int(cells[r, c] - need_grid[r, c])} flagged neighbours"
        )

    need = need_grid.ravel()[shape.con_flat].astype(np.int64).tolist()
    return _count_needs(cells, unknown, known, m, shape, need, max_states)


def _count_needs(
    cells: NDArray[np.int8],
    unknown: NDArray[np.bool_],
    known: NDArray[np.bool_],
    m: int,
    shape: _Frontier,
    need: list[int],
    max_states: int,
) -> _Count:
    """:func:`_count` once the position is checked: ``need[j]`` is the mines
    number ``j`` still needs (shown minus trusted flags)."""
    cols = cells.shape[1]
    con_flat = shape.con_flat
    u = shape.unconstrained
    exact = True
    if len(shape.front_flat):
        components, exact = _solve_frontier(shape, need, cols, max_states)
        polys = [comp.polynomial for comp in components]
    else:
        components, polys = [], []

    # Combine components: frontier distribution Q = prod of component polys.
    prefix: list[Poly] = [{0: 1}]
    for p in polys:
        prefix.append(_convolve(prefix[-1], p))
    frontier = prefix[-1]
    weights = _binomial_weights(u, m, list(frontier))
    grand = sum(frontier[k] * w for k, w in weights.items())
    if grand == 0:
        lo, hi = min(frontier), max(frontier)
        where = (
            f"; the frontier next to cell ({con_flat[0] // cols}, {con_flat[0] % cols}) "
            f"holds {lo}..{hi} mines"
            if len(con_flat)
            else ""
        )
        raise InvalidBoardError(
            f"no layout fits {count_text(m, 'hidden mine')} among {u} unconstrained cells{where}"
        )
    return _Count(
        cells, unknown, known, m, shape, components, exact, polys, prefix, frontier, weights, grand
    )


def _frontier_layouts(
    visible: Any, mines: int, *, trust_flags: bool = False, max_states: int = MAX_STATES
) -> tuple[Poly, int, int]:
    """``frontier_mines``, ``unconstrained`` and ``mines_left`` of :func:`analyze`.

    The same checks and errors, without the probabilities (a count is
    all the guess's influence factor needs).
    """
    counted = _count(visible, mines, trust_flags, max_states)
    return counted.frontier, counted.shape.unconstrained, counted.mines_left


class _Prober:
    """:func:`analyze` of a position with one hidden cell shown as each number.

    ``prober(n)`` is ``analyze(cells with cell shown as n, mines,
    max_states=max_states)``: the same floats, the same errors.  What does
    not depend on ``n`` (the checks of the other numbers, the structure,
    the needs) is done once, for the look-ahead, which tries several
    numbers on each cell.
    """

    def __init__(
        self,
        cells: NDArray[np.int8],
        mines: int,
        cell: tuple[int, int],
        max_states: int = MAX_STATES,
    ) -> None:
        cells, total = _coerce(cells, mines)
        self.cells, self.total, self.cell, self.max_states = cells.copy(), total, cell, max_states
        self.cells[cell] = 0
        revealed = self.cells >= 0
        self.unknown = ~revealed
        self.known = np.zeros_like(revealed)
        self.shape = shape = _frontier(self.unknown, revealed)
        need_grid = self.cells.astype(np.int16)
        # every other number can be met (the cell's own 0 can)
        self.fine = not (revealed & ((need_grid < 0) | (need_grid > shape.free_grid))).any()
        self.free = int(shape.free_grid[cell])
        self.need = need_grid.ravel()[shape.con_flat].astype(np.int64).tolist()
        # the cell's place among the numbers (none if it has no hidden neighbour)
        flat = cell[0] * cells.shape[1] + cell[1]
        at = int(np.searchsorted(shape.con_flat, flat))
        self.at = at if at < len(shape.con_flat) and shape.con_flat[at] == flat else -1

    def __call__(self, n: int) -> Analysis:
        cells = self.cells.copy()
        cells[self.cell] = n
        if not self.fine or not 0 <= n <= self.free:  # (the error analyze raises)
            return analyze(cells, self.total, max_states=self.max_states)
        need = self.need
        if self.at >= 0:
            need = need.copy()
            need[self.at] = n
        counted = _count_needs(
            cells, self.unknown, self.known, self.total, self.shape, need, self.max_states
        )
        return _probabilities(counted)


class _Given:
    """Layouts of a position given that some frontier cells are mines.

    ``given(cells)`` is what :func:`_frontier_layouts` gives for the
    position with those (distinct) cells flagged and trusted (flags
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
    """

    def __init__(self, cells: NDArray[np.int8], mines: int, max_states: int = MAX_STATES) -> None:
        cells, total = _coerce(cells, mines)
        self.cells = np.where(cells == FLAG, HIDDEN, cells).astype(np.int8)
        self.total, self.max_states = total, max_states
        revealed = self.cells >= 0
        self.shape = shape = _frontier(~revealed, revealed)
        self.need = self.cells.ravel()[shape.con_flat].astype(np.int64).tolist()
        self.front = shape.front_flat.tolist()
        self.group_of = shape.group_of.tolist()
        self.group_cons = shape.group_cons

    def __call__(self, given: Collection[tuple[int, int]]) -> tuple[Poly, int] | None:
        given = [(int(r), int(c)) for r, c in given]
        shape, cols = self.shape, self.cells.shape[1]
        if len(set(given)) != len(given):
            raise ValueError(f"the given cells repeat: {sorted(given)}")
        m = self.total - len(given)
        sizes = list(shape.sizes)
        need = list(self.need)
        shrunk: set[int] = set()
        for r, c in given:
            i = bisect.bisect_left(self.front, r * cols + c)
            on_board = 0 <= r < self.cells.shape[0] and 0 <= c < cols
            if not on_board or i == len(self.front) or self.front[i] != r * cols + c:
                raise ValueError(f"cell ({r}, {c}) is not on the frontier")
            g = self.group_of[i]
            sizes[g] -= 1
            shrunk.add(g)
            for j in self.group_cons[g]:
                need[j] -= 1
        if m < 0 or min(need, default=0) < 0:
            return None  # more mines than there are, or than a number shows
        # (a shrunk part's key: its own, and its groups' new sizes)
        parts = [
            _Part(
                p.groups,
                p.cons,
                p.canon,
                (p.shape_key, tuple([sizes[g] for g in p.canon])),
                p.order,
            )
            if not shrunk.isdisjoint(p.groups)
            else p
            for p in shape.parts
        ]
        csr = None if shape.csr is None else (np.array(sizes, dtype=np.int64), *shape.csr[1:])
        try:
            components, exact = _solve_frontier(
                dataclasses.replace(shape, sizes=sizes, parts=parts, csr=csr),
                need,
                cols,
                self.max_states,
            )
        except InvalidBoardError:
            return None
        if not exact:  # a relaxed count: count it as the flagged position would be
            flagged = self.cells.copy()
            for x in given:
                flagged[x] = FLAG
            try:
                counted = _frontier_layouts(
                    flagged, self.total, trust_flags=True, max_states=self.max_states
                )
            except InvalidBoardError:
                return None
            return counted[0], counted[2]
        product: Poly = {0: 1}
        for comp in components:
            product = _convolve(product, comp.polynomial)
        u = shape.unconstrained
        if not any(0 <= m - k <= u for k in product):
            return None  # the mines left do not fit off the frontier
        return product, m


@dataclass(eq=False)
class _Part:
    """One frontier component's structure: its groups, numbers and shape key.

    ``shape_key`` (with the numbers' needs, the key of the component's count
    in the cache) says where its numbers are and which of them each group
    touches, and how large each group is; ``canon`` lists the groups in the
    key's own order, so that two parts with equal keys match group for group.
    """

    groups: list[int]
    cons: list[int]  # its constraints, in increasing order (so by board position)
    canon: list[int]
    shape_key: Any  # hashable: bytes from _parts, or a tuple from _part (relaxed parts)
    order: list[int] | None = None  # elimination order (compiled: built with the part;
    # numpy: found on the first count)
    inputs: _Inputs | None = None  # the compiled count's view of it, likewise


@dataclass(eq=False)
class _Frontier:
    """What a position's structure fixes, whatever its numbers show.

    Which cells are numbers and which are hidden decides the constraints, the
    groups and the components; only the needs change between the numbers a
    look-ahead probe tries on one cell.  Never mutated once built (its
    arrays are read-only), except that some attributes are filled in on
    first use: each part's kernel inputs, its elimination order (built with
    the part by the compiled structure, on the first count otherwise), and
    ``group_cons``.  Each depends on the structure alone, so a race between
    threads computes the same value twice.
    """

    free_grid: NDArray[np.int8]
    con_flat: NDArray[np.intp]
    where: list[int]
    front_flat: NDArray[np.intp]
    group_of: NDArray[np.intp]
    sizes: list[int]
    sigs: NDArray[np.intp]  # per group: its constraints, sorted, after -1 padding
    parts: list[_Part]
    unconstrained: int
    # group sizes and the groups' constraints (CSR), for the compiled kernels
    csr: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] | None = None

    @cached_property
    def group_cons(self) -> list[list[int]]:
        """Each group's constraints, as lists (built on first use)."""
        return _unpad(self.sigs)


# The last few structures, keyed by the revealed and unknown masks: the
# look-ahead tries several numbers on one cell, and each is the same structure.
_SHAPES: OrderedDict[Any, _Frontier] = OrderedDict()
_SHAPES_KEPT = 8
#: ... and at most this many cells in all (each structure holds a few
#: full-board arrays): expert boards keep 8, a 2000 x 2000 board keeps one,
#: larger ones none.
_SHAPES_CELLS = 4_000_000


def _frontier(unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]) -> _Frontier:
    """The structure of a position, through a small cache."""
    key = (unknown.shape, np.packbits(unknown).tobytes(), np.packbits(revealed).tobytes())
    with _CACHE_LOCK:
        hit = _SHAPES.get(key)
        if hit is not None:
            _SHAPES.move_to_end(key)
            return hit
    kernel = _kernel()
    if kernel is not None:
        shape = _frontier_compiled(kernel, unknown, revealed)
    else:
        shape = _frontier_numpy(unknown, revealed)
    with _CACHE_LOCK:
        _SHAPES[key] = shape
        while _SHAPES and len(_SHAPES) > min(_SHAPES_KEPT, _SHAPES_CELLS // unknown.size):
            _SHAPES.popitem(last=False)
    return shape


def _frontier_compiled(
    kernel: Any, unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]
) -> _Frontier:
    """:func:`_frontier_numpy`'s structure, built by one compiled call."""
    # (C-ordered: numba compiles once per memory layout)
    built = kernel.frontier_structure(np.ascontiguousarray(unknown), np.ascontiguousarray(revealed))
    if len(built) != 13:
        raise AssertionError(f"frontier_structure returned {len(built)} arrays, not 13")
    free_grid, con_flat, front_flat, group_of, sigs, sizes, ptr, idx = built[:8]
    part_ptr, order, key_rows, numbers, cuts = built[8:]
    # the numpy path's index dtype (the kernel's int64 is intp on 64-bit)
    con_flat, front_flat, group_of, sigs = (
        a.astype(np.intp, copy=False) for a in (con_flat, front_flat, group_of, sigs)
    )
    parts = _make_parts(part_ptr, order, key_rows, numbers, cuts, ordered=True)
    for array in (free_grid, con_flat, front_flat, group_of, sigs, sizes, ptr, idx):
        array.flags.writeable = False
    return _Frontier(
        free_grid,
        con_flat,
        con_flat.tolist(),
        front_flat,
        group_of,
        sizes.tolist(),
        sigs,
        parts,
        int(np.count_nonzero(unknown)) - len(front_flat),
        (sizes, ptr, idx) if len(front_flat) else None,
    )


def _frontier_numpy(unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]) -> _Frontier:
    """The structure of a position, with numpy (and Python for the parts)."""
    rows, cols = unknown.shape
    free_grid = adjacent_counts(unknown)
    # Constraints: revealed numbers with at least one unknown neighbour.
    con_flat = np.flatnonzero(revealed & (free_grid > 0))
    near = np.zeros(rows * cols, dtype=bool)
    if len(con_flat):
        nb = _neighbours(con_flat, rows, cols)
        near[nb[nb >= 0]] = True
    front_flat = np.flatnonzero(near & unknown.ravel())
    u = int(np.count_nonzero(unknown)) - len(front_flat)
    where = con_flat.tolist()  # board position of each constraint's number
    group_of = np.zeros(0, dtype=np.intp)
    sizes: list[int] = []
    parts: list[_Part] = []
    csr = None
    group_cons: list[list[int]] | None = None
    if len(front_flat):
        # Signature of a frontier cell: sorted ids of the constraints it touches.
        nb = _neighbours(front_flat, rows, cols)
        idx = np.searchsorted(con_flat, np.where(nb >= 0, nb, 0))
        idx = np.minimum(idx, len(con_flat) - 1)
        sig = np.where((nb >= 0) & (con_flat[idx] == nb), idx, -1)
        sig.sort(axis=1)
        # np.unique(sig, axis=0, return_inverse=True), several times faster:
        # groups numbered in lexicographic order of their signatures
        by_sig = np.lexsort(sig.T[::-1])
        ranked = sig[by_sig]
        first = np.empty(len(ranked), dtype=bool)
        first[0] = True
        np.any(ranked[1:] != ranked[:-1], axis=1, out=first[1:])
        sigs = ranked[first]
        group_of = np.empty(len(ranked), dtype=np.intp)
        group_of[by_sig] = np.cumsum(first) - 1
        counts = np.bincount(group_of)
        sizes = counts.tolist()
        valid = sigs >= 0
        ptr = np.zeros(len(sigs) + 1, dtype=np.int64)
        np.cumsum(valid.sum(axis=1), out=ptr[1:])
        csr = (counts.astype(np.int64), ptr, sigs[valid].astype(np.int64))
        group_cons = _unpad(sigs)
        pieces = _split(list(range(len(sizes))), group_cons)
        part_ptr = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum([len(piece) for piece in pieces], out=part_ptr[1:])
        order = np.array([g for piece in pieces for g in piece], dtype=np.int64)
        parts = _parts(part_ptr, order, sigs, csr, con_flat)
    else:
        sigs = np.zeros((0, 8), dtype=np.intp)
    for array in (free_grid, con_flat, front_flat, group_of, sigs, *(csr or ())):
        array.flags.writeable = False
    shape = _Frontier(free_grid, con_flat, where, front_flat, group_of, sizes, sigs, parts, u, csr)
    if group_cons is not None:  # already built: fill in the lazy attribute
        vars(shape)["group_cons"] = group_cons
    return shape


_GroupKey = tuple[tuple[int, ...], int]


def _unpad(sigs: NDArray[np.intp]) -> list[list[int]]:
    """Each group's constraints from its signature (constraints after -1s)."""
    pads = np.count_nonzero(sigs < 0, axis=1).tolist()
    return [row[k:] for row, k in zip(sigs.tolist(), pads, strict=True)]


def _part(groups: list[int], cons: list[list[int]], keys: list[_GroupKey]) -> _Part:
    """A piece of a relaxed component; ``keys[g]`` is group ``g``'s cache key.

    Its shape key is its groups' keys (the board positions of their
    remaining numbers, and their sizes), sorted: a tuple.  Its elimination
    order breaks ties by that key too, not by group id (ids follow the
    constraints from before the relaxation): a piece that overflows is
    relaxed further at cuts that its order decides, so the same key must
    always be counted in the same order, whatever position it comes from.
    """
    canon = sorted(groups, key=keys.__getitem__)
    numbers = sorted({c for g in groups for c in cons[g]})
    part = _Part(groups, numbers, canon, tuple([keys[g] for g in canon]))
    part.order = _elimination_order(groups, cons, {g: i for i, g in enumerate(canon)})
    return part


def _parts(
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    sigs: NDArray[np.intp],
    csr: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]],
    con_flat: NDArray[np.intp],
) -> list[_Part]:
    """The components' parts, their keys built array-wise.

    ``order`` lists the groups part after part, between the bounds
    ``part_ptr``; each part's elimination order is found on its first count.
    ``csr`` holds the group sizes and each group's constraints.

    A part's shape key is the bytes of its groups' rows, in group-id order:
    each row holds the board positions of the group's numbers (sorted,
    after -1 padding) and the group's size.  Group ids follow the padded
    signatures' lexicographic order, and mapping constraint ids to board
    positions keeps that order (``con_flat`` increases, and -1 is below
    every position), so the rows' order depends only on the rows: equal keys
    mean equal components, group for group, and the same elimination order.
    (A bytes key never equals the tuple keys of :func:`_part`, which relaxed
    pieces use.)
    """
    sizes, ptr, idx = csr
    n_groups, n_cons = len(sigs), len(con_flat)
    bounds = part_ptr.tolist()
    part_of = np.empty(n_groups, dtype=np.int64)
    part_of[order] = np.repeat(np.arange(len(bounds) - 1), np.diff(part_ptr))
    canon = np.lexsort((np.arange(n_groups), part_of))  # by part, then id
    rows = np.empty((n_groups, sigs.shape[1] + 1), dtype=np.int64)
    rows[:, :-1] = np.where(sigs >= 0, con_flat[np.maximum(sigs, 0)], -1)
    rows[:, -1] = sizes
    # each part's numbers: the distinct (part, constraint) pairs, sorted
    pairs = np.unique(np.repeat(part_of, np.diff(ptr)) * n_cons + idx)
    cuts = np.searchsorted(pairs, np.arange(len(bounds)) * n_cons)
    return _make_parts(part_ptr, order, rows[canon], pairs % n_cons, cuts, ordered=False)


def _make_parts(
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    key_rows: NDArray[np.int64],
    numbers: NDArray[np.int64],
    cuts: NDArray[np.int64],
    *,
    ordered: bool,
) -> list[_Part]:
    """The parts' objects from their arrays (see :func:`_parts`).

    ``key_rows`` are the groups' key rows by part, then group id; part ``j``'s
    numbers are ``numbers[cuts[j]:cuts[j + 1]]``.  If ``ordered``, each part
    of ``order`` is already in elimination order (as the compiled split
    leaves them).
    """
    bounds = part_ptr.tolist()
    listed = order.tolist()
    numbers_list, cut_list = numbers.tolist(), cuts.tolist()
    parts = []
    for j, (a, b) in enumerate(itertools.pairwise(bounds)):
        groups = listed[a:b]
        part = _Part(
            groups,
            numbers_list[cut_list[j] : cut_list[j + 1]],
            sorted(groups),
            key_rows[a:b].tobytes(),
        )
        if ordered:
            part.order = groups
        parts.append(part)
    return parts


def _group_keys(cons: list[list[int]], sizes: list[int], where: list[int]) -> list[_GroupKey]:
    """Each group's key: the board positions of its numbers, and its size."""
    return [(tuple([where[c] for c in gc]), n) for gc, n in zip(cons, sizes, strict=True)]


def _split(groups: list[int], cons: list[list[int]]) -> list[list[int]]:
    """Connected components of groups that share a constraint."""
    by_con: dict[int, list[int]] = {}
    for g in groups:
        for c in cons[g]:
            by_con.setdefault(c, []).append(g)
    seen: set[int] = set()
    parts = []
    for start in groups:
        if start in seen:
            continue
        seen.add(start)
        part, stack = [], [start]
        while stack:
            g = stack.pop()
            part.append(g)
            for c in cons[g]:
                for h in by_con[c]:
                    if h not in seen:
                        seen.add(h)
                        stack.append(h)
        parts.append(part)
    return parts


def _solve_frontier(
    shape: _Frontier, need: list[int], cols: int, max_states: int
) -> tuple[list[_Component], bool]:
    """Count every component; relax the constraints of any that overflows."""
    relaxed: list[list[int]] | None = None  # the groups' constraints, once relaxed

    def current() -> list[list[int]]:  # (the shape's own are built only if needed)
        return shape.group_cons if relaxed is None else relaxed

    sizes = shape.sizes
    where = shape.where
    work = list(shape.parts)
    kernel = _kernel()
    need_array: NDArray[np.int64] | None = None
    components: list[_Component] = []
    exact = True
    while work:
        part = work.pop()
        key = (tuple([need[c] for c in part.cons]), part.shape_key)
        with _CACHE_LOCK:
            hit = _CACHE.get(key)
            if hit is not None:
                _CACHE.move_to_end(key)
        if hit is not None:
            poly, low, margs = hit  # the marginals in part.canon's order
            components.append(_Component(part.canon, poly, low, margs))
            continue
        if part.order is None:
            part.order = _elimination_order(part.groups, current())
        order = part.order
        try:
            counted = None
            if kernel is not None:
                if part.inputs is None:
                    if relaxed is None and shape.csr is not None:
                        part.inputs = kernel.count_inputs(
                            np.array(order, dtype=np.int64), *shape.csr, len(shape.where)
                        )
                    else:  # relaxed constraints
                        part.inputs = _kernel_inputs(order, current(), sizes)
                if need_array is None:
                    need_array = np.array(need, dtype=np.int64)
                counted = _count_compiled(
                    kernel, part.inputs, order, current, need_array, max_states
                )
            if counted is None:
                counted = _banded(*_count_component(order, current(), sizes, need, max_states))
            poly, low, margs = counted
        except _Empty as exc:
            flat = where[exc.constraint]
            raise InvalidBoardError(
                f"no layout satisfies the number at cell ({flat // cols}, {flat % cols}) "
                "together with its neighbours"
            ) from None
        except _TooLarge as exc:
            # Forget every constraint that straddles the overflowing cut (in
            # a copy: the structure is shared with other positions).
            exact = False
            drop = set(exc.active)
            if relaxed is None:
                relaxed = [list(gc) for gc in shape.group_cons]
            cons = relaxed
            for g in part.groups:
                cons[g] = [c for c in cons[g] if c not in drop]
            # (sorted: the pieces, and so which inconsistent number is
            # named first, must not depend on how part.groups is ordered)
            keys = _group_keys(cons, sizes, where)
            work.extend(_part(gs, cons, keys) for gs in _split(sorted(part.groups), cons))
            continue
        components.append(_Component(order, poly, low, margs))
        position = {g: i for i, g in enumerate(order)}
        in_canon = margs[[position[g] for g in part.canon]]
        in_canon.flags.writeable = False
        with _CACHE_LOCK:
            _CACHE[key] = (poly, low, in_canon)
            if len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return components, exact


def _elimination_order(
    groups: list[int], cons: list[list[int]], tie: dict[int, int] | None = None
) -> list[int]:
    """Order a component's groups along the frontier to keep cuts narrow.

    Cuthill-McKee: breadth-first from a group of least degree, neighbours by
    increasing degree; ties go to the lower group id (or the lower
    ``tie[g]``), so the order depends only on the component (the compiled
    ``split_and_order`` gives the same).  Frontiers are bands, so this walks
    along the band.
    """
    by_con: dict[int, list[int]] = {}
    for g in groups:
        for c in cons[g]:
            by_con.setdefault(c, []).append(g)
    adjacent = {g: {h for c in cons[g] for h in by_con[c] if h != g} for g in groups}
    rank = {g: (len(adjacent[g]), g if tie is None else tie[g]) for g in groups}
    start = min(groups, key=rank.__getitem__)
    order, seen = [start], {start}
    i = 0
    while i < len(order):
        for h in sorted(adjacent[order[i]] - seen, key=rank.__getitem__):
            seen.add(h)
            order.append(h)
        i += 1
    return order
