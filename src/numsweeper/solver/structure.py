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
compiled passes over the board plus work in proportion to the frontier, and
its arrays hold a byte or two per cell plus a few words per frontier cell,
so a board of 25 million cells takes well under a second.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from ._jit import frozen, helper, kernel, readonly, subroutine

__all__ = ["Frontier", "frontier", "group_by_label", "sort_by_label", "split_and_order"]


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
    ``n_labels + 1`` starts are scratch.  :func:`group_by_label` sorts with
    it, and the endgame search sorts its states' layouts on its stacks.
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


@subroutine
def group_by_label(
    group: NDArray[np.int64], labels: NDArray[np.int64], n_labels: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``group``'s entries sorted by label (stably), and where each label starts.

    :func:`sort_by_label` into new arrays; ``starts`` has ``n_labels + 1``
    entries.  :func:`frontier_structure` sorts the numbers by part with it.
    """
    starts = np.empty(2 * n_labels + 1, dtype=np.int64)
    out = np.empty(group.shape[0], dtype=np.int64)
    sort_by_label(group, 0, group.shape[0], labels, n_labels, out, 0, starts, 0)
    return out, starts[: n_labels + 1]


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
    n_links = grp_ptr[n]
    con_ptr = np.zeros(n_cons + 1, dtype=np.int64)
    for p in range(n_links):
        con_ptr[grp_idx[p] + 1] += 1
    for c in range(n_cons):
        con_ptr[c + 1] += con_ptr[c]
    con_grp = np.zeros(n_links, dtype=np.int64)
    fill = con_ptr[:n_cons].copy()
    for g in range(n):
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            con_grp[fill[c]] = g
            fill[c] += 1
    # adjacency lists (distinct neighbours), CSR
    stamp = np.full(n, -1, dtype=np.int64)
    degree = np.zeros(n, dtype=np.int64)
    for g in range(n):
        stamp[g] = g
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            for q in range(con_ptr[c], con_ptr[c + 1]):
                h = con_grp[q]
                if stamp[h] != g:
                    stamp[h] = g
                    degree[g] += 1
    adj_ptr = np.zeros(n + 1, dtype=np.int64)
    for g in range(n):
        adj_ptr[g + 1] = adj_ptr[g] + degree[g]
    adj = np.zeros(adj_ptr[n], dtype=np.int64)
    stamp[:] = -1
    for g in range(n):
        stamp[g] = g
        k = adj_ptr[g]
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            for q in range(con_ptr[c], con_ptr[c + 1]):
                h = con_grp[q]
                if stamp[h] != g:
                    stamp[h] = g
                    adj[k] = h
                    k += 1
    part_of = np.full(n, -1, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    order = np.zeros(n, dtype=np.int64)
    part_ptr = np.zeros(n + 1, dtype=np.int64)
    members = np.zeros(n, dtype=np.int64)
    n_parts = 0
    done = 0
    for s in range(n):
        if part_of[s] >= 0:
            continue
        # the component of s, and its start: least (degree, id)
        members[0] = s
        part_of[s] = n_parts
        size = 1
        i = 0
        start = s
        while i < size:
            g = members[i]
            if degree[g] < degree[start] or (degree[g] == degree[start] and g < start):
                start = g
            for q in range(adj_ptr[g], adj_ptr[g + 1]):
                h = adj[q]
                if part_of[h] < 0:
                    part_of[h] = n_parts
                    members[size] = h
                    size += 1
            i += 1
        # breadth first from start; each node's new neighbours by (degree, id)
        order[done] = start
        seen[start] = True
        tail = done + 1
        head = done
        while head < tail:
            g = order[head]
            first_new = tail
            for q in range(adj_ptr[g], adj_ptr[g + 1]):
                h = adj[q]
                if not seen[h]:
                    seen[h] = True
                    # insertion sort into order[first_new:tail + 1]
                    j = tail
                    while j > first_new and (
                        degree[order[j - 1]] > degree[h]
                        or (degree[order[j - 1]] == degree[h] and order[j - 1] > h)
                    ):
                        order[j] = order[j - 1]
                        j -= 1
                    order[j] = h
                    tail += 1
            head += 1
        done = tail
        n_parts += 1
        part_ptr[n_parts] = done
    return part_ptr[: n_parts + 1], order


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
    """
    rows, cols = unknown.shape
    n = rows * cols
    free = np.zeros((rows, cols), dtype=np.int8)
    for r in range(rows):
        for c in range(cols):
            if unknown[r, c]:
                for rr in range(max(r - 1, 0), min(r + 2, rows)):
                    for cc in range(max(c - 1, 0), min(c + 2, cols)):
                        if rr != r or cc != c:
                            free[rr, cc] += 1
    n_cons = 0
    for r in range(rows):
        for c in range(cols):
            if revealed[r, c] and free[r, c] > 0:
                n_cons += 1
    con_flat = np.zeros(n_cons, dtype=np.int64)
    j = 0
    for r in range(rows):
        for c in range(cols):
            if revealed[r, c] and free[r, c] > 0:
                con_flat[j] = r * cols + c
                j += 1
    # frontier cells: unknown cells next to a constraint, in flat order
    near = np.zeros(n, dtype=np.bool_)
    for j in range(n_cons):
        r, c = con_flat[j] // cols, con_flat[j] % cols
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                if unknown[rr, cc]:
                    near[rr * cols + cc] = True
    n_front = 0
    for f in range(n):
        if near[f]:
            n_front += 1
    front_flat = np.zeros(n_front, dtype=np.int64)
    j = 0
    for f in range(n):
        if near[f]:
            front_flat[j] = f
            j += 1
    # signatures: the ids of each frontier cell's constraints, sorted, padded
    con_id = np.empty(n, dtype=np.int64)  # (read at constraints only)
    for j in range(n_cons):
        con_id[con_flat[j]] = j
    sig = np.full((n_front, 8), -1, dtype=np.int64)
    for j in range(n_front):
        r, c = front_flat[j] // cols, front_flat[j] % cols
        k = 0
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                if (rr != r or cc != c) and revealed[rr, cc]:
                    k += 1
        # after the -1 padding; in row-major order, which is the ids' order
        # (each a number next to a hidden cell, and con_flat increases)
        x = 8 - k
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                if (rr != r or cc != c) and revealed[rr, cc]:
                    sig[j, x] = con_id[rr * cols + cc]
                    x += 1
    # groups: distinct signatures in lexicographic order (stable sorts on
    # packed keys, least significant first)
    bits = 1
    while (1 << bits) <= n_cons:
        bits += 1
    per = 63 // bits
    by_sig = np.arange(n_front)
    start = 8
    while start > 0:
        lo = max(start - per, 0)
        key = np.zeros(n_front, dtype=np.int64)
        for j in range(n_front):
            v = 0
            for x in range(lo, start):
                v = (v << bits) | (sig[j, x] + 1)
            key[j] = v
        by_sig = by_sig[np.argsort(key[by_sig], kind="mergesort")]
        start = lo
    group_of = np.zeros(n_front, dtype=np.int64)
    n_groups = 0
    for x in range(n_front):
        j = by_sig[x]
        if x > 0:
            p = by_sig[x - 1]
            for y in range(8):
                if sig[j, y] != sig[p, y]:
                    n_groups += 1
                    break
        else:
            n_groups = 1
        group_of[j] = n_groups - 1
    sigs = np.full((n_groups, 8), -1, dtype=np.int64)
    sizes = np.zeros(n_groups, dtype=np.int64)
    for j in range(n_front):
        g = group_of[j]
        sizes[g] += 1
        sigs[g] = sig[j]
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        k = 0
        for y in range(8):
            if sigs[g, y] >= 0:
                k += 1
        ptr[g + 1] = ptr[g] + k
    idx = np.zeros(ptr[n_groups], dtype=np.int64)
    for g in range(n_groups):
        k = ptr[g]
        for y in range(8):
            if sigs[g, y] >= 0:
                idx[k] = sigs[g, y]
                k += 1
    part_ptr, order = split_and_order(ptr, idx, n_cons)
    n_parts = part_ptr.shape[0] - 1
    part_of = np.zeros(n_groups, dtype=np.int64)
    for i in range(n_parts):
        for x in range(part_ptr[i], part_ptr[i + 1]):
            part_of[order[x]] = i
    # groups by part, then id (a counting sort over increasing ids)
    fill = part_ptr[:-1].copy()
    canon = np.zeros(n_groups, dtype=np.int64)
    for g in range(n_groups):
        canon[fill[part_of[g]]] = g
        fill[part_of[g]] += 1
    key_rows = np.full((n_groups, 9), -1, dtype=np.int64)
    for x in range(n_groups):
        g = canon[x]
        for y in range(8):
            if sigs[g, y] >= 0:
                key_rows[x, y] = con_flat[sigs[g, y]]
        key_rows[x, 8] = sizes[g]
    # each constraint lies in exactly one part: by part, then id
    con_part = np.zeros(n_cons, dtype=np.int64)
    for g in range(n_groups):
        for p in range(ptr[g], ptr[g + 1]):
            con_part[idx[p]] = part_of[g]
    numbers, cuts = group_by_label(np.arange(n_cons), con_part, n_parts)
    sections = (
        con_flat,
        front_flat,
        group_of,
        sizes,
        sigs.ravel(),
        ptr,
        idx,
        part_ptr,
        order,
        key_rows.ravel(),
        numbers,
        cuts,
    )
    length = 0
    for section in sections:
        length += section.shape[0]
    packed = np.empty(length, dtype=np.int64)
    at = 0
    for section in sections:
        packed[at : at + section.shape[0]] = section
        at += section.shape[0]
    hidden = 0
    for r in range(rows):
        for c in range(cols):
            hidden += unknown[r, c]
    return free, packed, n_cons, n_front, n_groups, int(ptr[n_groups]), n_parts, hidden
