"""Counting every component of a frontier: the memory and the relaxation.

:func:`count_frontier` counts the parts of a structure with the compiled
count (:mod:`numsweeper.solver.counting`), all in one call, and keeps the
parts of a single mine total (on a huge board, nearly all of them) in
arrays.  Parts it has counted before come from a :class:`Memory` the caller
owns.  If a cut of a part holds more than ``max_states`` states, every number
the cut separates is dropped (*relaxed*), the part splits where it can, and
the pieces are counted again (repeatedly, if a piece overflows too); the
count is then an upper bound, and a cell it calls certain is still certain.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from ..errors import InvalidBoardError
from ._jit import frozen, kernel, readonly
from .counting import EMPTY, OK, TOO_LARGE, Poly, count_parts, unpack
from .longcount import Empty, TooLarge, count_exact
from .structure import Frontier, split_and_order

__all__ = ["Component", "Counts", "Memory", "count_frontier", "group_shares", "merged"]

_INT62 = 2**62  # caps the guard passed to the kernel (int64)
_NONE = np.zeros(0, dtype=np.int64)
_NONE.flags.writeable = False


@dataclass(frozen=True, eq=False)
class Component:
    """One counted component.

    ``coeffs[a]`` counts its layouts with ``low + a`` mines; row ``i`` of
    ``marginals`` (int64, or Python integers where they do not fit) is the
    same for group ``groups[i]``, each layout weighted by that group's
    mines.
    """

    groups: list[int]
    low: int
    coeffs: list[int]
    marginals: NDArray[Any]


@dataclass(frozen=True, eq=False)
class Counts:
    """Every component of a frontier, counted (see :func:`count_frontier`).

    The components of a single mine total that the kernel counted stay in
    arrays (a huge board has hundreds of thousands of them): group
    ``single_groups[i]`` has mine-weighted count ``single_num[i]`` out of
    its component's ``single_den[i]`` layouts.  ``single_coeffs`` holds one
    count per such component and ``single_low`` their mine totals, summed.
    Every other component is in ``components``.
    """

    exact: bool
    components: list[Component]
    single_groups: NDArray[np.int64]
    single_num: NDArray[np.int64]
    single_den: NDArray[np.int64]
    single_coeffs: NDArray[np.int64]
    single_low: int


class Memory:
    """Counted components, by structure: an LRU memory the caller owns.

    A key holds the needs of a part's numbers and its shape key (where its
    numbers are, which of them each group touches, and how large each group
    is), which determine the counting problem, so a hit is exact.  The
    marginals are kept in the order of the part's groups by id.  Successive
    moves of a game, and the look-ahead's probes, mostly change one
    component and find the others here.  A component once counted exactly
    is served exactly, whatever a later call's ``max_states``.  Values are
    never mutated once stored; the memory is safe to share between threads.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._kept: OrderedDict[Any, tuple[int, list[int], NDArray[Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: Any) -> bool:
        return key in self._kept

    def get(self, key: Any) -> tuple[int, list[int], NDArray[Any]] | None:
        with self._lock:
            hit = self._kept.get(key)
            if hit is not None:
                self._kept.move_to_end(key)
            return hit

    def put(self, key: Any, value: tuple[int, list[int], NDArray[Any]]) -> None:
        with self._lock:
            self._kept[key] = value
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


@dataclass(eq=False)
class _Piece:
    """A piece of a relaxed component: its groups, numbers and key.

    Its shape key is its groups' keys (the board positions of their
    remaining numbers, and their sizes) in ``canon`` order: a tuple, never
    equal to a part's bytes key.  Its elimination order breaks ties by that
    key too, not by group id (ids follow the numbers from before the
    relaxation): a piece that overflows is relaxed further at cuts that its
    order decides, so the same key must always be counted in the same
    order, whatever position it comes from.
    """

    groups: list[int]
    cons: list[int]
    canon: list[int]
    shape_key: Any
    order: list[int]


_GroupKey = tuple[tuple[int, ...], int]


def count_frontier(
    shape: Frontier,
    need: NDArray[np.int64],
    max_states: int,
    memory: Memory | None,
    sizes: NDArray[np.int64] | None = None,
    changed: NDArray[np.bool_] | None = None,
    only: list[int] | None = None,
) -> Counts:
    """Count every component of ``shape``; relax those that overflow.

    Parameters
    ----------
    shape : Frontier
        The position's structure.
    need : ndarray of int64, shape (n_cons,)
        The mines each number still needs (its count less trusted flags),
        each in ``0..8``.
    max_states : int
        The guard (see :func:`numsweeper.solver.analyze`).
    memory : Memory or None
        Counted components to look up and to add to.
    sizes : ndarray of int64, shape (n_groups,), optional
        Group sizes to count with instead of the structure's own (some
        groups shrunk); ``changed`` marks the groups whose size changed.
    only : list of int, optional
        The parts to count (increasing), if not all of them.

    Raises
    ------
    InvalidBoardError
        If no layout fits some component, naming one of its numbers.  The
        parts are taken last first (relaxed pieces before the parts ahead
        of them), and the first that has no layout is named.
    """
    if sizes is None:
        sizes = shape.sizes
    parts = range(shape.n_parts) if only is None else only
    bounds = shape.bounds
    keyed = [j for j in parts if bounds[j + 1] - bounds[j] > 1]
    if memory is None or len(keyed) > memory.size:
        keyed = []  # (more parts than the memory keeps: no hit would last)
    keys: dict[int, Any] = {}
    hits: dict[int, tuple[int, list[int], NDArray[Any]]] = {}
    if keyed:
        assert memory is not None
        by_part = need[shape.numbers].astype(np.int8).tobytes()
        cuts = shape.cut_list
        shape_keys = shape.shape_keys
        for j in keyed:
            key: Any = shape_keys[j]
            if changed is not None:
                canon = shape.key_groups(j)
                if changed[canon].any():
                    key = key, tuple(sizes[canon].tolist())
            keys[j] = key = (by_part[cuts[j] : cuts[j + 1]], key)
            hit = memory.get(key)
            if hit is not None:
                hits[j] = hit
    components = [
        Component(shape.key_groups(j), hit_low, hit_coeffs, hit_rows)
        for j, (hit_low, hit_coeffs, hit_rows) in hits.items()
    ]
    todo: Sequence[int]
    if hits or only is not None:
        todo = [j for j in parts if j not in hits]
        if not todo:  # every part remembered
            return Counts(True, components, _NONE, _NONE, _NONE, _NONE, 0)
        todo_array = np.array(todo, dtype=np.int64)
    else:
        todo = range(shape.n_parts)
        todo_array = np.arange(shape.n_parts, dtype=np.int64)
    info, values, single, factors, summary = unpack(
        count_parts(
            sizes if sizes is shape.sizes else frozen(np.ascontiguousarray(sizes, dtype=np.int64)),
            shape.grp_ptr,
            shape.grp_idx,
            shape.part_ptr,
            shape.order,
            frozen(need),
            frozen(todo_array),
            min(max_states, _INT62),
        )
    )
    low, wide, trouble = summary.tolist()
    exact = True
    if wide or trouble or keys:
        rows = info.tolist()
        stuck = []
        for t, (j, row) in enumerate(zip(todo, rows, strict=True)):
            status, width = row[0], row[3]
            if status != OK:
                stuck.append(t)
                continue
            if width == 1 and j not in keys:
                continue
            found = _component(shape.groups(j), row, values)
            if width > 1:
                components.append(found)
            if memory is not None and j in keys:
                _remember(memory, keys[j], found, _by_id(found.groups))
        if stuck:
            # Take them last first, as one stack of work: a part's relaxed
            # pieces before the parts ahead of it, so the error is always
            # the same one.
            more, exact = _troubled(shape, need, sizes, max_states, memory, keys, todo, rows, stuck)
            components.extend(more)
    return Counts(exact, components, single[:, 0], single[:, 1], single[:, 2], factors, low)


def merged(a: Counts, b: Counts) -> Counts:
    """The counts of two disjoint sets of components, together."""
    return Counts(
        a.exact and b.exact,
        a.components + b.components,
        np.concatenate([a.single_groups, b.single_groups]),
        np.concatenate([a.single_num, b.single_num]),
        np.concatenate([a.single_den, b.single_den]),
        np.concatenate([a.single_coeffs, b.single_coeffs]),
        a.single_low + b.single_low,
    )


def _component(groups: list[int], row: list[int], values: NDArray[np.int64]) -> Component:
    """A part that :func:`~numsweeper.solver.counting.count_parts` counted
    (``row`` is its row of the kernel's ``info``)."""
    _, _, low, w, at = row
    rows = values[at + w : at + (len(groups) + 1) * w].reshape(len(groups), w)
    return Component(groups, low, values[at : at + w].tolist(), rows)


def _remember(memory: Memory, key: Any, found: Component, at: NDArray[np.intp] | list[int]) -> None:
    """Keep a counted component, its marginals in canonical order: row
    ``i`` kept is row ``at[i]`` of ``found`` (see :func:`_by_id`)."""
    in_canon = found.marginals[at]
    in_canon.flags.writeable = False
    memory.put(key, (found.low, found.coeffs, in_canon))


def _by_id(groups: list[int]) -> NDArray[np.intp]:
    """Where each of ``groups`` (distinct) is, taken by increasing id: the
    rows of a part's count in the order of its key rows
    (:meth:`~numsweeper.solver.structure.Frontier.key_groups`)."""
    return np.array(groups, dtype=np.int64).argsort()


def _troubled(
    shape: Frontier,
    need: NDArray[np.int64],
    sizes: NDArray[np.int64],
    max_states: int,
    memory: Memory | None,
    keys: dict[int, Any],
    todo: Sequence[int],
    rows: list[list[int]],
    trouble: list[int],
) -> tuple[list[Component], bool]:
    """The parts the kernel could not count: errors, relaxations, big counts."""
    relaxed: list[list[int]] | None = None  # the groups' numbers, once relaxed
    size_list: list[int] = sizes.tolist()
    need_list: list[int] = need.tolist()
    where = shape.where

    def current() -> list[list[int]]:
        return shape.group_cons if relaxed is None else relaxed

    work: list[tuple[int, _Piece | None]] = [(t, None) for t in trouble]
    components: list[Component] = []
    exact = True
    while work:
        t, piece = work.pop()
        try:
            if piece is None:  # a part of the structure, as the kernel left it
                j = todo[t]
                order = groups = shape.groups(j)
                key = keys.get(j)
                status, step = rows[t][:2]
                counted = _settled(status, step, order, current(), size_list, need_list, max_states)
            else:
                order, groups = piece.order, piece.groups
                key = (tuple([need_list[c] for c in piece.cons]), piece.shape_key)
                hit = memory.get(key) if memory is not None else None
                if hit is not None:
                    components.append(Component(piece.canon, *hit))
                    continue
                counted = _count_piece(order, current(), size_list, need, need_list, max_states)
        except Empty as exc:
            flat = where[exc.constraint]
            cols = shape.free_grid.shape[1]
            raise InvalidBoardError(
                f"no layout satisfies the number at cell ({flat // cols}, {flat % cols}) "
                "together with its neighbours"
            ) from None
        except TooLarge as exc:
            # Forget every number that straddles the overflowing cut (in a
            # copy: the structure is shared with other positions).
            exact = False
            drop = set(exc.active)
            if relaxed is None:
                relaxed = [list(gc) for gc in shape.group_cons]
            for g in groups:
                relaxed[g] = [c for c in relaxed[g] if c not in drop]
            keys_of = _group_keys(groups, relaxed, size_list, where)
            work.extend((-1, p) for p in _pieces(sorted(groups), relaxed, keys_of))
            continue
        found = Component(order, *counted)
        components.append(found)
        if memory is not None and key is not None:
            at: NDArray[np.intp] | list[int]
            if piece is None:
                at = _by_id(order)
            else:
                position = {g: i for i, g in enumerate(order)}
                at = [position[g] for g in piece.canon]
            _remember(memory, key, found, at)
    return components, exact


def _settled(
    status: int,
    step: int,
    order: list[int],
    cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[int, list[int], NDArray[Any]]:
    """What the kernel's status means for a part: raise what the count
    raises there, or count it in Python integers."""
    if status == EMPTY:  # name the number the Python count would name
        here = cons[order[step]]
        later = {c for g in order[step + 1 :] for c in cons[g]}
        ending = [c for c in here if c not in later]
        raise Empty((ending or here)[0])
    if status == TOO_LARGE:  # relax what the overflowing cut separates
        before = {c for g in order[: step + 1] for c in cons[g]}
        after = {c for g in order[step + 1 :] for c in cons[g]}
        raise TooLarge(sorted(before & after))
    return _banded(*count_exact(order, cons, sizes, need, max_states))


def _count_piece(
    order: list[int],
    cons: list[list[int]],
    sizes: list[int],
    need: NDArray[np.int64],
    need_list: list[int],
    max_states: int,
) -> tuple[int, list[int], NDArray[Any]]:
    """Count one component given as lists (a relaxed piece) with the kernel."""
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum([len(cons[g]) for g in order], out=ptr[1:])
    idx = np.array([c for g in order for c in cons[g]], dtype=np.int64)
    info, values, _, _, _ = unpack(
        count_parts(
            frozen(np.array([sizes[g] for g in order], dtype=np.int64)),
            frozen(ptr),
            frozen(idx),
            frozen(np.array([0, len(order)], dtype=np.int64)),
            frozen(np.arange(len(order), dtype=np.int64)),
            frozen(need),
            frozen(np.zeros(1, dtype=np.int64)),
            min(max_states, _INT62),
        )
    )
    row = info[0].tolist()
    if row[0] != OK:
        return _settled(row[0], row[1], order, cons, sizes, need_list, max_states)
    found = _component(order, row, values)
    return found.low, found.coeffs, found.marginals


def _group_keys(
    groups: list[int], cons: list[list[int]], sizes: list[int], where: list[int]
) -> dict[int, _GroupKey]:
    """Each group's key: the board positions of its numbers, and its size."""
    return {g: (tuple([where[c] for c in cons[g]]), sizes[g]) for g in groups}


def _pieces(groups: list[int], cons: list[list[int]], keys: dict[int, _GroupKey]) -> list[_Piece]:
    """The connected pieces of ``groups`` (increasing) under the numbers ``cons``.

    Pieces come in order of their lowest group id; each is ordered by
    :func:`~numsweeper.solver.structure.split_and_order` with its groups
    ranked by key, so that ties go to the lower key.
    """
    part_ptr, order = split_and_order(*_csr(groups, cons))
    pieces = []
    for a, b in zip(part_ptr.tolist(), part_ptr.tolist()[1:], strict=False):
        members = [groups[i] for i in order[a:b].tolist()]
        canon = sorted(members, key=keys.__getitem__)
        _, ranked = split_and_order(*_csr(canon, cons))
        numbers = sorted({c for g in members for c in cons[g]})
        key = tuple([keys[g] for g in canon])
        pieces.append(_Piece(members, numbers, canon, key, [canon[i] for i in ranked.tolist()]))
    return pieces


def _csr(
    groups: list[int], cons: list[list[int]]
) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """``groups``' numbers as CSR (groups numbered by position, numbers densely)."""
    number: dict[int, int] = {}
    idx = [number.setdefault(c, len(number)) for g in groups for c in cons[g]]
    ptr = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum([len(cons[g]) for g in groups], out=ptr[1:])
    return frozen(ptr), frozen(np.array(idx, dtype=np.int64)), len(number)


def _banded(polynomial: Poly, marginals: list[Poly]) -> tuple[int, list[int], NDArray[Any]]:
    """A Python count in the form the kernel's counts take."""
    low, high = min(polynomial), max(polynomial)
    band = np.zeros((len(marginals), high - low + 1), dtype=object)
    for i, marg in enumerate(marginals):
        for m, x in marg.items():
            band[i, m - low] = x
    return low, [polynomial.get(m, 0) for m in range(low, high + 1)], band


# -- kernels ------------------------------------------------------------------


@kernel(
    readonly(nt.int64[:, ::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    nt.int64,
    nt.float64[::1],
    nt.boolean[::1],
    nt.boolean[::1],
)
def group_shares(
    marginals: NDArray[np.int64],
    weights: NDArray[np.int64],
    groups: NDArray[np.int64],
    sizes: NDArray[np.int64],
    grand: int,
    p: NDArray[np.float64],
    safe: NDArray[np.bool_],
    mine: NDArray[np.bool_],
) -> None:
    """The mine probability of each group of one component, in int64.

    ``weights`` is the component's context (one weight per mine total, as
    many as ``marginals`` has columns) and ``grand`` the layouts' weighted
    sum.  Group ``groups[i]`` holds ``num = marginals[i] . weights`` mines
    over ``grand * sizes[g]`` cell-layouts: ``p[g]`` is their ratio,
    ``safe[g]`` and ``mine[g]`` whether it is 0 or 1 exactly.

    The caller makes sure that ``8 * grand < 2**53``.  Since ``grand`` is
    also ``sum(coeffs[k] * weights[k])`` over the component's own counts,
    and a group of ``s <= 8`` cells has ``marginals[i, k] <= s * coeffs[k]``,
    every product and partial sum is at most ``num <= s * grand`` (a huge
    weight only ever meets a zero count): nothing wraps, both integers
    convert to floats exactly, and their quotient is the correctly rounded
    ratio that Python's integer division gives.
    """
    for i in range(groups.shape[0]):
        num = 0
        for k in range(weights.shape[0]):
            num += marginals[i, k] * weights[k]
        g = groups[i]
        whole = grand * sizes[g]
        p[g] = num / whole
        safe[g] = num == 0
        mine[g] = num == whole
