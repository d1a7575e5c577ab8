"""The structure of a position: numbers, frontier groups and components.

Which cells are numbers and which are hidden fixes everything here, whatever
the numbers show:

1. every revealed number with a hidden neighbour is a *constraint* on its
   hidden neighbours;
2. hidden cells next to a number (the *frontier*) that touch exactly the
   same constraints form a *group*: only how many mines a group holds
   matters, weighted by a binomial;
3. groups that share a constraint are linked, and the linked sets are the
   independent *parts* (components) of the frontier, each listed in an
   elimination order that keeps the count's cuts narrow (see
   :mod:`numsweeper.solver.counting`).

:func:`frontier` builds all of it in one compiled call.  Its cost is a few
compiled passes over the board plus work in proportion to the frontier.  It
holds seven bytes per cell while it passes over the board (two bytes of
neighbour counts and the constraints' int32 ids on the board, in one array
freed after those passes, and the ``free_grid`` it returns; the ids are
int64 on a board of more than 2**31 cells), plus a few words per
constraint and frontier cell throughout.  A board of 25 million cells takes
well under a second (5,000 x 5,000 at 1% mines after its first click, with
1.9 million constraints: about 11 bytes per cell at the peak).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from ._jit import frozen, helper, kernel, readonly, subroutine

__all__ = ["Frontier", "frontier", "sort_by_label", "split_and_order"]


_Ints = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Frontier:
    """What a position's structure fixes, whatever its numbers show.

    Made by :func:`frontier`; never mutated (its arrays are read-only).  The
    attributes that are ``cached_property`` are derived on first use; each
    depends on the structure alone.

    Attributes
    ----------
    free_grid : ndarray of int8, shape (rows, cols)
        Hidden neighbours of each cell.
    con_flat : ndarray of intp, shape (n_cons,)
        Flat positions of the constraints (numbers with a hidden
        neighbour), increasing: constraint ``j`` is the number at
        ``con_flat[j]``.
    front_flat : ndarray of intp, shape (n_front,)
        Flat positions of the frontier cells, increasing.
    group_of : ndarray of intp, shape (n_front,)
        Each frontier cell's group.  Groups are numbered in the
        lexicographic order of their signatures.
    sizes : ndarray of int64, shape (n_groups,)
        Cells per group.
    sigs : ndarray of intp, shape (n_groups, 8)
        Each group's constraints, increasing, after ``-1`` padding.
    grp_ptr, grp_idx : ndarray of int64, shapes (n_groups + 1,) and (links,)
        The same as CSR: group ``g``'s constraints are
        ``grp_idx[grp_ptr[g]:grp_ptr[g + 1]]``.
    part_ptr : ndarray of int64, shape (n_parts + 1,)
        Part ``j`` is ``order[part_ptr[j]:part_ptr[j + 1]]``.
    order : ndarray of int64, shape (n_groups,)
        The groups, part after part, each part in elimination order.
    key_rows : ndarray of int64, shape (n_groups, 9)
        The groups part after part, in increasing id within a part: the
        board positions of each group's numbers (increasing, after ``-1``
        padding) and its size.  A part's rows are its shape key.
    numbers : ndarray of int64, shape (n_cons,)
        The constraints, part after part, increasing within a part, between
        the bounds ``cuts`` (shape (n_parts + 1,)).
    unconstrained : int
        Hidden cells next to no number.
    """

    free_grid: NDArray[np.int8]
    con_flat: NDArray[np.intp]
    front_flat: NDArray[np.intp]
    group_of: NDArray[np.intp]
    sizes: NDArray[np.int64]
    sigs: NDArray[np.intp]
    grp_ptr: NDArray[np.int64]
    grp_idx: NDArray[np.int64]
    part_ptr: NDArray[np.int64]
    order: NDArray[np.int64]
    key_rows: NDArray[np.int64]
    numbers: NDArray[np.int64]
    cuts: NDArray[np.int64]
    unconstrained: int

    @property
    def count_args(self) -> tuple[_Ints, _Ints, _Ints, _Ints, _Ints]:
        """``(sizes, grp_ptr, grp_idx, part_ptr, order)``: the parts, as the kernels count them."""
        return self.sizes, self.grp_ptr, self.grp_idx, self.part_ptr, self.order

    @property
    def n_parts(self) -> int:
        """How many parts (components) the frontier has."""
        return len(self.part_ptr) - 1

    @cached_property
    def group_cons(self) -> list[list[int]]:
        """Each group's constraints, as lists."""
        pads = np.count_nonzero(self.sigs < 0, axis=1).tolist()
        return [row[k:] for row, k in zip(self.sigs.tolist(), pads, strict=True)]

    @cached_property
    def where(self) -> list[int]:
        """The board position of each constraint's number (``con_flat``)."""
        return self.con_flat.tolist()  # type: ignore[no-any-return]

    @cached_property
    def size_list(self) -> list[int]:
        """``sizes`` as a list."""
        return self.sizes.tolist()  # type: ignore[no-any-return]

    @cached_property
    def bounds(self) -> list[int]:
        """``part_ptr`` as a list."""
        return self.part_ptr.tolist()  # type: ignore[no-any-return]

    @cached_property
    def shape_keys(self) -> list[bytes]:
        """Each part's shape key: the bytes of its key rows.

        Group ids follow the padded signatures' lexicographic order, and
        mapping constraint ids to board positions keeps that order
        (``con_flat`` increases, and -1 is below every position), so the
        rows' order depends only on the rows: equal keys mean equal parts,
        group for group, with the same elimination order.
        """
        rows, bounds = self.key_rows, self.bounds
        return [rows[a:b].tobytes() for a, b in itertools.pairwise(bounds)]

    @cached_property
    def part_of(self) -> NDArray[np.int64]:
        """The part of each constraint."""
        out = np.empty(len(self.con_flat), dtype=np.int64)
        out[self.numbers] = np.repeat(np.arange(self.n_parts), np.diff(self.cuts))
        return out

    @cached_property
    def cut_list(self) -> list[int]:
        """``cuts`` as a list."""
        return self.cuts.tolist()  # type: ignore[no-any-return]

    @cached_property
    def _orders(self) -> list[list[int]]:
        order, bounds = self.order.tolist(), self.bounds
        return [order[a:b] for a, b in itertools.pairwise(bounds)]

    def groups(self, j: int) -> list[int]:
        """Part ``j``'s groups, in elimination order (a list not to mutate)."""
        return self._orders[j]

    def key_groups(self, j: int) -> list[int]:
        """Part ``j``'s groups by id: the order of its key rows."""
        return sorted(self._orders[j])

    def cons(self, j: int) -> list[int]:
        """Part ``j``'s constraints, increasing."""
        return self.numbers[self.cuts[j] : self.cuts[j + 1]].tolist()  # type: ignore[no-any-return]


def frontier(unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]) -> Frontier:
    """The structure of a position.

    Parameters
    ----------
    unknown : ndarray of bool, shape (rows, cols)
        Cells that may hold a mine.
    revealed : ndarray of bool, shape (rows, cols)
        Cells that show a number (trusted flags are neither).

    Returns
    -------
    Frontier

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.structure import frontier
    >>> cells = np.array([[1, -1, -1], [1, -1, -1]], dtype=np.int8)
    >>> shape = frontier(cells < 0, cells >= 0)
    >>> shape.con_flat.tolist(), shape.front_flat.tolist(), shape.sizes.tolist()
    ([0, 3], [1, 4], [2])
    >>> shape.unconstrained, shape.n_parts
    (2, 1)
    """
    free_grid, packed, n_cons, n_front, n_groups, n_links, n_parts, hidden = frontier_structure(
        frozen(np.ascontiguousarray(unknown)), frozen(np.ascontiguousarray(revealed))
    )
    # (views of one read-only buffer: each array handed back from a kernel,
    # or frozen, costs about a microsecond, as much as building the rest)
    free_grid.flags.writeable = False
    packed.flags.writeable = False
    arrays = []
    at = 0
    for n in (
        *(n_cons, n_front, n_front, n_groups, 8 * n_groups, n_groups + 1, n_links),
        *(n_parts + 1, n_groups, 9 * n_groups, n_cons, n_parts + 1),
    ):
        arrays.append(packed[at : at + n])
        at += n
    con_flat, front_flat, group_of, sizes, sigs, ptr, idx = arrays[:7]
    part_ptr, order, key_rows, numbers, cuts = arrays[7:]
    return Frontier(
        free_grid,
        con_flat,
        front_flat,
        group_of,
        sizes,
        sigs.reshape(n_groups, 8),
        ptr,
        idx,
        part_ptr,
        order,
        key_rows.reshape(n_groups, 9),
        numbers,
        cuts,
        int(hidden - n_front),  # (a numpy integer where the kernel runs as Python)
    )


# -- kernels ------------------------------------------------------------------
#
# These run once per position, mostly on frontiers of a few dozen cells, so
# what they cost is mostly fixed: allocations (each a malloc), passes over
# the whole board, and mispredicted branches.  So each kernel takes its
# space in one array or two, and the loops that run over every cell, or
# every link, list with a branch-free idiom: write the entry at the end of
# the list, then lengthen the list by the condition (0 or 1).  An entry not
# taken is overwritten by the next write, so a list needs one slot of
# slack.  And numba wraps negative indices, as Python does, so it tests
# every index it cannot prove non-negative, and a loop with such tests does
# not vectorize: the hottest loops index views of their arrays from 0.


@helper
def sort_by_label(
    src: NDArray[np.int64],
    start: int,
    m: int,
    labels: NDArray[np.int64],
    n_labels: int,
    dst: NDArray[np.int64],
    to: int,
    starts: NDArray[np.int64],
    starts_at: int,
) -> None:
    """Write ``src[start:start + m]`` sorted by label (stably) to ``dst[to:to + m]``.

    A counting sort, into space the caller gives (``dst`` may be ``src``,
    elsewhere in it): label ``k``'s entries (``labels[x]`` is entry ``x``'s,
    below ``n_labels``) go to ``dst[to + starts[starts_at + k]:to +
    starts[starts_at + k + 1]]``; the ``n_labels`` entries after those
    ``n_labels + 1`` starts are scratch.  :func:`frontier_structure` sorts
    with it, and the endgame search sorts its states' layouts on its stacks.
    """
    fill = starts_at + n_labels + 1
    for k in range(n_labels + 1):
        starts[starts_at + k] = 0
    for x in range(m):
        starts[starts_at + labels[x] + 1] += 1
    for k in range(n_labels):
        starts[starts_at + k + 1] += starts[starts_at + k]
        starts[fill + k] = starts[starts_at + k]
    for x in range(m):
        label = labels[x]
        dst[to + starts[fill + label]] = src[start + x]
        starts[fill + label] += 1


@helper
def _put(src: NDArray[np.int64], start: int, m: int, dst: NDArray[np.int64], at: int) -> int:
    """Copy ``src[start:start + m]`` to ``dst[at:at + m]``; returns ``at + m``."""
    into, out_of = dst[at : at + m], src[start : start + m]
    for x in range(m):  # (indices from 0: numba checks none, and the loop vectorizes)
        into[x] = out_of[x]
    return at + m


@helper
def _split_scratch(n: int, n_cons: int) -> int:
    """The scratch :func:`_split_into` needs, for ``n`` groups (it takes
    one more array itself, of a size it finds)."""
    return n_cons + 3 * n + 1


@helper
def _split_into(
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    n_cons: int,
    work: NDArray[np.int64],
    part_of: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
) -> int:
    """:func:`split_and_order` into the caller's arrays; returns how many parts.

    For ``n`` groups, ``part_of`` (``n`` entries) receives each group's
    part, ``part_ptr`` (``n + 1``) the bounds of the parts, and ``order``
    (``n + 1``: one of slack) the groups in order.  ``work`` is scratch, of
    at least :func:`_split_scratch` entries.  (:func:`frontier_structure`
    calls it with space it has already.)
    """
    n = grp_ptr.shape[0] - 1
    n_links = grp_ptr[n]
    count = work[:n_cons]
    rank = work[n_cons : n_cons + n]  # (degree, id) as one number
    stamp = work[n_cons + n : n_cons + 2 * n]
    adj_ptr = work[n_cons + 2 * n : n_cons + 3 * n + 1]
    # each constraint's groups, in rows as long as the most any has (on a
    # frontier, at most eight: a number's hidden neighbours)
    for c in range(n_cons):
        count[c] = 0
    for p in range(n_links):
        count[grp_idx[p]] += 1
    most = 1
    for c in range(n_cons):
        most = max(most, count[c])
    seen = 0
    for p in range(n_links):
        seen += count[grp_idx[p]]
    lists = np.empty(most * n_cons + seen + most, dtype=np.int64)
    on_con = lists[: most * n_cons]  # constraint c's groups: on_con[most * c:][:count[c]]
    near = lists[most * n_cons :]
    for c in range(n_cons):
        count[c] = 0
    for g in range(n):
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            on_con[most * c + count[c]] = g
            count[c] += 1
    # Each group's neighbours: the groups on its constraints, itself and
    # repeats included, one list after another (a whole row copied for each
    # constraint, a fixed count, so the copy is branch-free; those past the
    # constraint's count are overwritten by the next, or are slack), ...
    v = 0
    for g in range(n):
        adj_ptr[g] = v
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            _put(on_con, most * c, most, near, v)
            v += count[c]
    adj_ptr[n] = v
    # ... then without them, in place (each write is at or before the read):
    # the distinct neighbours, and the degree
    for g in range(n):
        stamp[g] = -1
    k = 0
    for g in range(n):
        stamp[g] = g
        a, b = adj_ptr[g], adj_ptr[g + 1]
        adj_ptr[g] = k
        into, out_of = near[k:b], near[a:b]
        d = 0
        for q in range(b - a):
            h = out_of[q]
            into[d] = h
            d += stamp[h] != g
            stamp[h] = g
        k += d
        rank[g] = d * n + g
    adj_ptr[n] = k
    # part_of: -1 for a group not reached yet, -2 for one in the part being
    # ordered and not yet in its order, then its part
    for g in range(n):
        part_of[g] = -1
    part_ptr[0] = 0
    n_parts = 0
    done = 0
    for s in range(n):
        if part_of[s] != -1:
            continue
        # the part of s (listed where its order will go), and its start:
        # least (degree, id)
        order[done] = s
        part_of[s] = -2
        size = 1
        i = 0
        least = rank[s]
        while i < size:
            g = order[done + i]
            least = min(least, rank[g])
            for h in near[adj_ptr[g] : adj_ptr[g + 1]]:
                order[done + size] = h
                size += part_of[h] == -1
                part_of[h] = -2
            i += 1
        # breadth first from start; each group's new neighbours by (degree, id)
        start = least % n
        order[done] = start
        part_of[start] = n_parts
        tail = done + 1
        head = done
        while head < tail:
            g = order[head]
            first_new = tail
            for h in near[adj_ptr[g] : adj_ptr[g + 1]]:
                order[tail] = h
                tail += part_of[h] == -2
                part_of[h] = n_parts
            for x in range(first_new + 1, tail):  # (an insertion sort)
                h = order[x]
                y = x
                while y > first_new and rank[order[y - 1]] > rank[h]:
                    order[y] = order[y - 1]
                    y -= 1
                order[y] = h
            head += 1
        done = tail
        n_parts += 1
        part_ptr[n_parts] = done
    return n_parts


@kernel(readonly(nt.int64[::1]), readonly(nt.int64[::1]), nt.int64)
def split_and_order(
    grp_ptr: NDArray[np.int64], grp_idx: NDArray[np.int64], n_cons: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Components of the groups and each one's elimination order.

    Group ``g``'s constraints are ``grp_idx[grp_ptr[g]:grp_ptr[g + 1]]``.
    Two groups are adjacent when they share a constraint.  Returns
    ``(part_ptr, order)``: part ``i`` is ``order[part_ptr[i]:part_ptr[i + 1]]``,
    listed in its Cuthill-McKee order: start at the group of least degree,
    then breadth first, neighbours by increasing degree, ties by group id.
    Parts are listed in order of their lowest group id.  Frontiers are
    bands, so the order walks along the band and keeps the count's cuts
    narrow.
    """
    n = grp_ptr.shape[0] - 1
    work = np.empty(_split_scratch(n, n_cons) + n, dtype=np.int64)
    part_ptr = np.empty(n + 1, dtype=np.int64)
    order = np.empty(n + 1, dtype=np.int64)
    n_parts = _split_into(grp_ptr, grp_idx, n_cons, work[n:], work[:n], part_ptr, order)
    return part_ptr[: n_parts + 1], order[:n]


@helper
def _compare_rows(rows: NDArray[np.int64], a: int, b: int) -> int:
    """-1, 0 or 1 as row ``a`` of ``rows`` (8 entries each, row after row)
    comes before, equals or comes after row ``b``, lexicographically."""
    for y in range(8):
        u, v = rows[8 * a + y], rows[8 * b + y]
        if u != v:
            return -1 if u < v else 1
    return 0


#: The most cells a board may have for :func:`frontier_structure` to keep
#: the constraints' ids on the board as int32: an id is below the count of
#: constraints, so below the board's cells, and -1 marks the rest.
_INT32_CELLS = 2**31


@subroutine
def _structure(
    unknown: NDArray[np.bool_], revealed: NDArray[np.bool_], id_type: type[np.signedinteger[Any]]
) -> tuple[NDArray[np.int8], NDArray[np.int64], int, int, int, int, int, int]:
    """:func:`frontier_structure`, with the constraints' ids on the board of
    type ``id_type``, np.int32 or np.int64 (numba compiles it for each):
    the ids are below the board's cells, so int32 holds them on a board of
    at most 2**31 cells."""
    rows, cols = unknown.shape
    # The board with a border of empty cells: cell (r, c) at (r + 1) * wide
    # + c + 1 holds unknown + 16 * revealed, so a sum over a cell's
    # neighbours counts both its hidden and its revealed ones (at most 8
    # each: 4 bits each), and every cell has eight neighbours.
    #
    # Both live in one array with the constraints' ids on the padded board
    # (``grid``: the ids, then the bytes of the two), which only the passes
    # over the board use: numba frees it after them, before the frontier's
    # own scratch grows.
    wide = cols + 2
    size = (rows + 2) * wide
    width = np.iinfo(id_type).bits // 8
    grid = np.empty(size + (2 * size + width - 1) // width, dtype=id_type)
    con_id = grid[:size]  # -1 off the constraints
    cells = grid[size:].view(np.uint8)
    board = cells[:size]
    around = cells[size : 2 * size]  # each cell's neighbours, summed the same way
    for p in range(wide):
        board[p] = 0
        board[size - wide + p] = 0
    for r in range(rows):
        line = (r + 1) * wide  # (row r's start on the padded board)
        board[line] = 0
        board[line + cols + 1] = 0
        for c in range(cols):
            board[line + c + 1] = unknown[r, c] + 16 * revealed[r, c]
    # (over views shifted so that no index is below the loop's: numba then
    # drops its checks for negative indices, and these loops vectorize)
    above, level, below = board[0:], board[wide:], board[2 * wide :]
    out = around[wide + 1 :]
    span = size - 2 * wide - 2  # from cell (0, 0) to cell (rows - 1, cols - 1)
    for i in range(span):
        out[i] = (
            above[i] + above[i + 1] + above[i + 2] + level[i] + level[i + 2]
            + below[i] + below[i + 1] + below[i + 2]
        )  # fmt: skip
    # A number with a hidden neighbour is a constraint.  A hidden cell is on
    # the frontier when it is next to one: when it has a revealed neighbour
    # (a number next to a hidden cell is a constraint), or is one itself (a
    # cell given as both).  The border is neither.
    n_cons = 0
    n_front = 0
    hidden = 0
    for i in range(span):
        v, s = level[i + 1], out[i]
        is_con = (v >= 16) & ((s & 15) > 0)
        is_hidden = (v & 1) > 0
        n_cons += is_con
        n_front += is_hidden & (is_con | (s >= 16))
        hidden += is_hidden
    # The rest lives in one scratch array, of arrays in proportion to the
    # constraints and the frontier (n_groups <= n_front, n_links <= 8
    # n_groups, n_parts <= n_groups).
    m = n_front
    n_labels = max(n_cons + 1, 9, m)  # (the most labels a counting sort below has)
    work = np.empty(
        3 * n_cons + 29 * m + 7 + 2 * n_labels + _split_scratch(m, n_cons), dtype=np.int64
    )
    at = 0
    con_flat = work[at : at + n_cons + 1]  # (each list here has one slot of slack)
    at += n_cons + 1
    front_flat = work[at : at + m + 1]
    at += m + 1
    front_at = work[at : at + m + 1]  # each frontier cell's place on the padded board
    at += m + 1
    sig = work[at : at + 8 * m]  # frontier cell k's signature is sig[8k:8k + 8]
    at += 8 * m
    count = work[at : at + m]  # its constraints
    at += m
    first = work[at : at + m]  # its first constraint, plus one (0 if none)
    by_count = first  # (the same space, once first is spent: the labels by count)
    at += m
    by_first = work[at : at + m]
    at += m
    by_sig = work[at : at + m]
    at += m
    group_of = work[at : at + m]
    at += m
    sizes = work[at : at + m]
    at += m
    rep = work[at : at + m]  # a cell of each group
    at += m
    ptr = work[at : at + m + 1]
    at += m + 1
    idx = work[at : at + 8 * m]
    at += 8 * m
    part_of = work[at : at + m]
    at += m
    part_ptr = work[at : at + m + 1]
    at += m + 1
    order = work[at : at + m + 1]
    at += m + 1
    con_part = work[at : at + n_cons]
    at += n_cons
    con_ids = work[at : at + n_cons]
    at += n_cons
    starts = work[at : at + 2 * n_labels + 1]
    at += 2 * n_labels + 1
    split_work = work[at:]
    # Each cell's hidden neighbours, the constraints' ids (-1 elsewhere, on
    # the border too), and the lists of the constraints and of the frontier
    # cells.
    free = np.empty((rows, cols), dtype=np.int8)
    for p in range(wide):
        con_id[p] = -1
        con_id[size - wide + p] = -1
    j = 0
    k = 0
    for r in range(rows):
        line = (r + 1) * wide
        con_id[line] = -1
        con_id[line + cols + 1] = -1
        vs, sums = board[line + 1 : line + wide], around[line + 1 : line + wide]
        ids = con_id[line + 1 :]
        for c in range(cols):
            v, s = vs[c], sums[c]
            free[r, c] = s & 15
            is_con = (v >= 16) & ((s & 15) > 0)
            ids[c] = j if is_con else -1
            con_flat[j] = r * cols + c
            j += is_con
            front_flat[k] = r * cols + c
            front_at[k] = line + 1 + c
            k += ((v & 1) > 0) & (is_con | (s >= 16))
    # Each frontier cell's signature: the ids of its neighbours that are
    # constraints, in row-major order (which is the ids' order), after the
    # -1 padding.  So from the last neighbour back, a list growing leftwards
    # over the padding: a neighbour not taken is a -1 too.  (Only eight
    # neighbours move its start, so each write lands in the row.)
    for k in range(m):
        p = front_at[k]
        for y in range(8):
            sig[8 * k + y] = -1
        left = 8  # (where the list starts)
        for step in (wide + 1, wide, wide - 1, 1, -1, 1 - wide, -wide, -1 - wide):
            j = con_id[p + step]
            sig[8 * k + left - 1] = j
            left -= j >= 0
        count[k] = 8 - left
        first[k] = sig[8 * k + min(left, 7)] + 1  # (0 if there is none)
    # Groups: the distinct signatures, in lexicographic order.  Padding
    # puts a signature with fewer constraints first, so the order is by
    # count, then first constraint, then the rest: counting sorts by the
    # first and then (stably) by the count leave runs of cells that share
    # both, which are neighbours of one number, eight at most (or have no
    # constraint, and equal signatures: cells given as both), so an
    # insertion sort finishes in linear time.
    for k in range(m):
        by_sig[k] = k
    sort_by_label(by_sig, 0, m, first, n_cons + 1, by_first, 0, starts, 0)
    for x in range(m):
        by_count[x] = count[by_first[x]]
    sort_by_label(by_first, 0, m, by_count, 9, by_sig, 0, starts, 0)
    for x in range(1, m):
        k = by_sig[x]
        y = x
        while y > 0 and _compare_rows(sig, by_sig[y - 1], k) > 0:
            by_sig[y] = by_sig[y - 1]
            y -= 1
        by_sig[y] = k
    n_groups = 0
    for x in range(m):
        k = by_sig[x]
        if x == 0 or _compare_rows(sig, by_sig[x - 1], k) != 0:
            rep[n_groups] = k
            sizes[n_groups] = 0
            n_groups += 1
        sizes[n_groups - 1] += 1
        group_of[k] = n_groups - 1
    # the groups' constraints as CSR, then the parts
    ptr[0] = 0
    for g in range(n_groups):
        k = rep[g]
        ptr[g + 1] = _put(sig, 8 * k + 8 - count[k], count[k], idx, ptr[g])
    n_links = int(ptr[n_groups])
    n_parts = _split_into(
        ptr[: n_groups + 1], idx[:n_links], n_cons, split_work, part_of, part_ptr, order
    )
    # Pack.  The shape-key rows go by part, then id: a counting sort over
    # increasing ids, filling each part's rows from its start (starts is
    # free again).  Each constraint lies in exactly one part; the numbers
    # go by part, then id, with the bounds of the parts as cuts.
    packed = np.empty(
        2 * n_cons + 2 * m + 20 * n_groups + n_links + 2 * n_parts + 3, dtype=np.int64
    )
    at = _put(con_flat, 0, n_cons, packed, 0)
    at = _put(front_flat, 0, m, packed, at)
    at = _put(group_of, 0, m, packed, at)
    at = _put(sizes, 0, n_groups, packed, at)
    for g in range(n_groups):
        at = _put(sig, 8 * rep[g], 8, packed, at)
    at = _put(ptr, 0, n_groups + 1, packed, at)
    at = _put(idx, 0, n_links, packed, at)
    at = _put(part_ptr, 0, n_parts + 1, packed, at)
    at = _put(order, 0, n_groups, packed, at)
    for i in range(n_parts):
        starts[i] = part_ptr[i]
    for g in range(n_groups):
        row = at + 9 * starts[part_of[g]]
        starts[part_of[g]] += 1
        k = rep[g]
        for y in range(8):
            con = sig[8 * k + y]
            packed[row + y] = con_flat[con] if con >= 0 else -1
        packed[row + 8] = sizes[g]
        for link in range(ptr[g], ptr[g + 1]):
            con_part[idx[link]] = part_of[g]
    at += 9 * n_groups
    for c in range(n_cons):
        con_ids[c] = c
    sort_by_label(con_ids, 0, n_cons, con_part, n_parts, packed, at, starts, 0)
    _put(starts, 0, n_parts + 1, packed, at + n_cons)
    return free, packed, n_cons, n_front, n_groups, n_links, n_parts, hidden


@kernel(readonly(nt.bool_[:, ::1]), readonly(nt.bool_[:, ::1]))
def frontier_structure(
    unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]
) -> tuple[NDArray[np.int8], NDArray[np.int64], int, int, int, int, int, int]:
    """A position's structure, as :class:`Frontier` holds it.

    ``unknown`` and ``revealed`` are ``(rows, cols)`` masks.  Returns
    ``(free, packed, n_cons, n_front, n_groups, n_links, n_parts, hidden)``:
    hidden neighbours per cell, and one array of these, one after the
    other: the constraints (numbers with a hidden neighbour) and the
    frontier cells, by flat index; each frontier cell's group, groups
    numbered in the lexicographic order of their signatures ``sigs``
    (constraint ids, sorted, after -1 padding to 8); group sizes, ``sigs``
    (row after row) and the groups' constraints again as CSR (``ptr``,
    ``idx``); the parts and their elimination orders (``part_ptr``,
    ``order``: :func:`split_and_order`); the shape-key rows of the groups by
    part, then id (the board positions of their numbers, then their size,
    row after row); and each part's constraints, in increasing order
    (``numbers``), between the bounds ``cuts``.  Then their lengths, and
    how many cells are ``unknown``.

    Its scratch over the padded board is two bytes a cell and the
    constraints' ids: int32 on a board of at most ``_INT32_CELLS`` (2**31)
    cells, where every id (below the count of constraints, so below the
    cells) is at most 2**31 - 1, and int64 on a larger one.
    """
    if unknown.size <= _INT32_CELLS:
        return _structure(unknown, revealed, np.int32)
    return _structure(unknown, revealed, np.int64)
