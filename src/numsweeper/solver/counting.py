"""The count of one frontier component, by mine total.

A component (a *part* of :class:`~numsweeper.solver.structure.Frontier`) is
counted with a forward dynamic programme over its groups in elimination
order: a transfer-matrix count whose state is the remaining need of the
numbers that straddle the current cut.  That gives the component's
polynomial ``P(x) = sum_m layouts(m) x^m``; a backward sweep over the same
states counts their completions and, per group, the mine-weighted
polynomial that the marginals need.  Walking the forward states backwards,
rather than counting again from the other end, visits only states that some
prefix reaches.  Its cost follows the width of the frontier (how many
numbers one cut separates), not the number of layouts.

The count is one compiled kernel (:func:`count_parts` runs it over many parts
in one call) on int64 arrays, every product and sum checked against 2**61.
A component whose counts would not fit is counted again by
:func:`~numsweeper.solver.longcount.count_exact`, the same programme in
Python integers: the one routine written twice, since no int64 kernel can
hold those counts.

A state is the remaining need of each number the cut separates, packed
into one int64 as bit fields (number ``c`` takes the bits of ``need[c]``).
Components whose cuts separate more than ``_WIDEST`` numbers, or whose
states do not fit that packing, fall back to the Python count too.  Each
state's counts by mine total are a short run of int64s in a pool:
``start``, ``low`` (the smallest mine total) and ``length``.
"""

from __future__ import annotations

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from ._jit import helper, kernel, readonly, subroutine

__all__ = [
    "EMPTY",
    "FALLBACK",
    "LIMIT",
    "OK",
    "TOO_LARGE",
    "Poly",
    "add_scaled",
    "checked_mul",
    "count_part",
    "count_parts",
    "unpack",
]

OK = 0
FALLBACK = 1  # a count would leave int64, or a cut is too wide to pack
EMPTY = 2  # no layout survives the step returned
TOO_LARGE = 3  # the step returned leaves more than max_states states
LIMIT = 1 << 61  # every stored count stays at or below this: sums never wrap
_WIDEST = 64  # most constraints one cut may separate
_MOST_MARGINALS = 1 << 24  # most counts a component's marginals may hold (128 MB)
_ROOM = 64  # first room of a component count's growing arrays (states, transitions)
_POOL = 256  # and of its forward counts
_SRC, _DEC, _FVAL, _SHIFT, _MASK = 0, 1, 2, 3, 4  # the rows of a count's plan
_POS, _CAP = 0, 1  # and of its older constraints

Poly = dict[int, int]  # mine total -> weighted layout count


@helper
def checked_mul(a: int, b: int) -> int:
    """``a * b``, or -1 if it would pass :data:`LIMIT` (``a, b >= 0``)."""
    # (a float product below 1e18, LIMIT / 2.3, proves it without a
    # division: its relative error, under 2**-51, cannot carry it past LIMIT)
    if a >= 0 and b >= 0 and float(a) * float(b) < 1.0e18:
        return a * b
    if a == 0 or b == 0:
        return 0
    if a > LIMIT // b:
        return -1
    return a * b


@helper
def _grow(pool: NDArray[np.int64], used: int, extra: int) -> NDArray[np.int64]:
    if used + extra <= pool.shape[0]:
        return pool
    bigger = np.zeros(max(2 * pool.shape[0], used + extra), dtype=np.int64)
    bigger[:used] = pool[:used]
    return bigger


@helper
def _carve(work: NDArray[np.int64], at: int, n: int) -> tuple[NDArray[np.int64], int]:
    """The ``n`` entries of ``work`` from ``at`` on, and where the next start."""
    return work[at : at + n], at + n


@helper
def add_scaled(
    dst: NDArray[np.int64], at: int, src: NDArray[np.int64], start: int, length: int, w: int
) -> bool:
    """``dst[at:at + length] += w * src[start:start + length]``, checked:
    False (and ``dst`` partly updated) if a count would pass :data:`LIMIT`."""
    for m in range(length):
        term = checked_mul(w, src[start + m])
        if term < 0:
            return False
        total = dst[at + m] + term
        if total > LIMIT:
            return False
        dst[at + m] = total
    return True


@helper
def _bounds(
    key: int,
    lo: int,
    hi: int,
    o0: int,
    o1: int,
    prev: int,
    older: NDArray[np.int64],
    plan: NDArray[np.int64],
) -> tuple[int, int]:
    """The mines a step's group may hold from state ``key``: its older
    constraints' remaining needs, less what the cells after it can hold.

    ``older`` holds the rows ``_POS`` and ``_CAP``, ``plan`` the rows
    ``_SHIFT`` and ``_MASK``: each array a helper takes costs an atomic
    reference count per call, so the plan's arrays are rows of one.
    """
    for o in range(o0, o1):
        j = prev + older[_POS, o]
        val = (key >> plan[_SHIFT, j]) & plan[_MASK, j]
        if val - older[_CAP, o] > lo:
            lo = val - older[_CAP, o]
        if val < hi:
            hi = val
    return lo, hi


@helper
def _next_key(
    key: int,
    v: int,
    q0: int,
    q1: int,
    prev: int,
    plan: NDArray[np.int64],
) -> int:
    """The state after a step's group takes ``v`` mines from state ``key``."""
    nk = 0
    for p in range(q0, q1):
        j = plan[_SRC, p]
        val = plan[_FVAL, p] if j < 0 else (key >> plan[_SHIFT, prev + j]) & plan[_MASK, prev + j]
        nk |= (val - plan[_DEC, p] * v) << plan[_SHIFT, p]
    return nk


@helper
def _plan_entry(
    plan: NDArray[np.int64],
    new_active: NDArray[np.int64],
    q: int,
    na: int,
    j: int,
    d: int,
    value: int,
    c: int,
) -> int:
    """Append constraint ``c`` to a step's plan (at ``q + na``); -1 if full.

    Its value comes from position ``j`` of the previous state (``j = -1``:
    the constant ``value``, a newly opened constraint), less ``d`` times
    the group's mines; returns the new number of entries.
    """
    if na == _WIDEST:
        return -1
    plan[_SRC, q + na] = j
    plan[_DEC, q + na] = d
    if j < 0:
        plan[_FVAL, q + na] = value
    new_active[na] = c
    return na + 1


@subroutine
def count_component(
    sizes: NDArray[np.int64],
    con_ptr: NDArray[np.int64],
    con_idx: NDArray[np.int64],
    need: NDArray[np.int64],
    max_states: int,
) -> tuple[int, int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Polynomial and per-group marginals of one component, or FALLBACK.

    ``sizes[i]`` is the size of the ``i``-th group in elimination order and
    ``con_idx[con_ptr[i]:con_ptr[i + 1]]`` its constraints, numbered
    ``0..len(need) - 1``.  Returns ``(status, step, low, poly,
    marginals)``: ``poly[m]`` counts the layouts with ``low + m`` mines,
    from the fewest to the most any layout has (the first and the last not
    zero), and ``marginals[i, m]`` sums the mines of group ``i`` over them;
    ``step`` is the step an :data:`EMPTY` or :data:`TOO_LARGE` status
    happened at (else -1); unless :data:`OK`, ``low`` is 0 and the arrays
    are not to be read.  Group sizes above 60 fall back (their binomials
    would not fit in int64; frontier groups hold at most 8 cells).  A
    component whose marginals would hold more than ``_MOST_MARGINALS``
    counts (a frontier of tens of thousands of groups, on a huge board) is
    :data:`TOO_LARGE` at its middle step, so that the caller relaxes it
    there (the guard counts every total from 0 to the component's cells, so
    that where it binds does not depend on the count).

    The forward pass keeps each step's transitions, so that the backward
    pass (the marginals) walks them again without working them out: a
    probe's part is mostly a long chain of layers of two or three states,
    where the work of a step, not of a state, is what costs.
    """
    k = sizes.shape[0]
    n_cons = need.shape[0]
    n_idx = con_idx.shape[0]
    width = 1
    for i in range(k):
        width += sizes[i]
    if k * width > _MOST_MARGINALS:  # relax the middle cut: split it in two
        none = np.zeros(0, dtype=np.int64)
        return TOO_LARGE, k // 2 - 1, 0, none, none.reshape((0, 0))
    # (what a count that fails returns)
    empty = np.zeros(0, dtype=np.int64)
    marg = empty.reshape((0, 0))

    big = 1
    for i in range(k):
        big = max(big, sizes[i])
    if big > 60:
        return FALLBACK, -1, 0, empty, marg

    # The other scratch is carved from two allocations (a small component's
    # count takes microseconds; each array of its own would add a malloc and
    # a reference count), the second sized by what the first finds.
    per_con = np.empty(4 * n_cons, dtype=np.int64)
    first = per_con[:n_cons]
    last = per_con[n_cons : 2 * n_cons]
    cap = per_con[2 * n_cons : 3 * n_cons]
    mark = per_con[3 * n_cons :]
    first[:] = -1
    last[:] = -1
    cap[:] = 0
    mark[:] = -1
    for i in range(k):
        for p in range(con_ptr[i], con_ptr[i + 1]):
            c = con_idx[p]
            if first[c] < 0:
                first[c] = i
            last[c] = i
            cap[c] += sizes[i]
    # The plans hold an entry for each constraint at each step from its
    # first group to before its last.
    room = 1
    for c in range(n_cons):
        room += last[c] - first[c]

    # Nothing carved from work is zeroed: every entry is written before it
    # is read.
    # The arrays that grow (states, pools, transitions, completions) start
    # here and move to allocations of their own when they outgrow that room.
    n_binom = (big + 1) * (big + 1)
    n_room = max(_ROOM, 3 * k)  # (a long chain of small layers: no regrowth)
    n_pool = max(_POOL, 6 * k)
    work = np.empty(
        n_binom
        + 2 * (k + 1)  # plan_ptr, oc_ptr
        + 5 * room  # plan
        + 2 * (n_idx + 1)  # older
        + 2 * k  # lo0s, hi0s
        + 2 * _WIDEST  # active, new_active
        + 5 * n_room  # keys, st_start, st_low, st_len, tr_ptr
        + 4 * n_pool  # pool, bpool, tr_v, tr_dst
        + (k + 2)  # lay_ptr
        + 4 * _ROOM  # t_key, t_src, t_v, perm
        + 6 * _ROOM  # c_start, c_low, c_len (two layers each)
        + 2 * (2 * width + 2)  # buf, mined
        + 2 * (big + 2),  # tails, tail_v
        dtype=np.int64,
    )
    binom = work[:n_binom].reshape((big + 1, big + 1))
    at = n_binom
    plan_ptr, at = _carve(work, at, k + 1)
    oc_ptr, at = _carve(work, at, k + 1)
    plan = work[at : at + 5 * room].reshape((5, room))
    at += 5 * room
    older = work[at : at + 2 * (n_idx + 1)].reshape((2, n_idx + 1))
    at += 2 * (n_idx + 1)
    lo0s, at = _carve(work, at, k)
    hi0s, at = _carve(work, at, k)
    active, at = _carve(work, at, _WIDEST)
    new_active, at = _carve(work, at, _WIDEST)
    keys, at = _carve(work, at, n_room)
    st_start, at = _carve(work, at, n_room)
    st_low, at = _carve(work, at, n_room)
    st_len, at = _carve(work, at, n_room)
    pool, at = _carve(work, at, n_pool)
    bpool, at = _carve(work, at, n_pool)
    tr_ptr, at = _carve(work, at, n_room)
    tr_v, at = _carve(work, at, n_pool)
    tr_dst, at = _carve(work, at, n_pool)
    lay_ptr, at = _carve(work, at, k + 2)
    t_key, at = _carve(work, at, _ROOM)
    t_src, at = _carve(work, at, _ROOM)
    t_v, at = _carve(work, at, _ROOM)
    perm, at = _carve(work, at, _ROOM)
    completions, at = _carve(work, at, 6 * _ROOM)
    buf, at = _carve(work, at, 2 * width + 2)
    mined, at = _carve(work, at, 2 * width + 2)
    tails, at = _carve(work, at, big + 2)  # one per v in 0..size
    tail_v, at = _carve(work, at, big + 2)

    for n in range(big + 1):
        binom[n, 0] = 1
        for v in range(1, n + 1):
            binom[n, v] = binom[n - 1, v - 1] + (binom[n - 1, v] if v <= n - 1 else 0)

    # Step plans, flattened: for step i, new key position p takes the old
    # position plan[_SRC, p] (or, where that is -1, the fresh need
    # plan[_FVAL, p]), minus v if plan[_DEC, p]; it takes the bits
    # plan[_MASK, p] from plan[_SHIFT, p] on (its need fits them).  The older constraints'
    # positions older[_POS, o] (with capacity older[_CAP, o] after the step)
    # bound v; lo0..hi0 bounds v from the constraints the step opens.
    plan_ptr[0] = 0
    oc_ptr[0] = 0
    n_active = 0
    for i in range(k):
        for p in range(con_ptr[i], con_ptr[i + 1]):
            c = con_idx[p]
            mark[c] = i
            cap[c] -= sizes[i]
        q = plan_ptr[i]
        na = 0
        oq = oc_ptr[i]
        for j in range(n_active):  # kept constraints
            c = active[j]
            if mark[c] != i and last[c] > i:
                na = _plan_entry(plan, new_active, q, na, j, 0, 0, c)
                if na < 0:
                    return FALLBACK, -1, 0, empty, marg
        for j in range(n_active):  # the step's older constraints
            c = active[j]
            if mark[c] == i:
                older[_POS, oq] = j
                older[_CAP, oq] = cap[c]
                oq += 1
                if last[c] > i:
                    na = _plan_entry(plan, new_active, q, na, j, 1, 0, c)
                    if na < 0:
                        return FALLBACK, -1, 0, empty, marg
        lo0 = 0
        hi0 = sizes[i]
        for p in range(con_ptr[i], con_ptr[i + 1]):  # constraints it opens
            c = con_idx[p]
            if first[c] == i:
                lo0 = max(lo0, need[c] - cap[c])
                hi0 = min(hi0, need[c])
                if last[c] > i:
                    na = _plan_entry(plan, new_active, q, na, -1, 1, need[c], c)
                    if na < 0:
                        return FALLBACK, -1, 0, empty, marg
        plan_ptr[i + 1] = q + na
        place = 0
        for p in range(na):
            bits = 0
            while (1 << bits) <= need[new_active[p]]:
                bits += 1
            plan[_SHIFT, q + p] = place
            plan[_MASK, q + p] = (1 << bits) - 1
            place += bits
            if place > 62:
                return FALLBACK, -1, 0, empty, marg
        oc_ptr[i + 1] = oq
        lo0s[i] = lo0
        hi0s[i] = hi0
        for p in range(na):
            active[p] = new_active[p]
        n_active = na

    # Forward: layer i holds states lay_ptr[i]:lay_ptr[i + 1] of the key and
    # poly arrays (keys sorted within a layer).
    # (layer 0: the one empty state, one layout of no mines)
    keys[0] = 0
    st_start[0] = 0
    st_low[0] = 0
    st_len[0] = 1
    pool[0] = 1
    used = 1
    lay_ptr[0] = 0
    lay_ptr[1] = 1
    # Each step's transitions are kept for the backward pass: state s's are
    # tr_v (the group's mines) and tr_dst (the state reached) from tr_ptr[s]
    # to tr_ptr[s + 1].
    tr_used = 0
    for i in range(k):
        a0, a1 = lay_ptr[i], lay_ptr[i + 1]
        q0, q1 = plan_ptr[i], plan_ptr[i + 1]
        o0, o1 = oc_ptr[i], oc_ptr[i + 1]
        prev = plan_ptr[i - 1] if i else 0  # the old key's positions
        # Arrays are grown here, once a step, not in the loops below: an
        # array reassigned in a loop costs atomic reference counts at every
        # turn.  Each state takes one transition per v in lo0..hi0 at most.
        most = (a1 - a0) * max(hi0s[i] - lo0s[i] + 1, 0)
        if most > t_key.shape[0]:
            grown = max(2 * t_key.shape[0], most)
            t_key = np.empty(grown, dtype=np.int64)
            t_src = np.empty(grown, dtype=np.int64)
            t_v = np.empty(grown, dtype=np.int64)
            perm = np.empty(grown, dtype=np.int64)
        if tr_used + most > tr_v.shape[0]:
            tr_v = _grow(tr_v, tr_used, most)
            tr_dst = _grow(tr_dst, tr_used, most)
        n_t = 0
        for s in range(a0, a1):
            key = keys[s]
            tr_ptr[s] = tr_used + n_t
            lo, hi = _bounds(key, lo0s[i], hi0s[i], o0, o1, prev, older, plan)
            for v in range(lo, hi + 1):
                nk = _next_key(key, v, q0, q1, prev, plan)
                t_key[n_t] = nk
                t_src[n_t] = s
                t_v[n_t] = v
                tr_v[tr_used + n_t] = v
                n_t += 1
        if n_t == 0:
            return EMPTY, i, 0, empty, marg
        if n_t <= 32:  # few transitions: insertion sort, no allocation
            for x in range(n_t):
                perm[x] = x
            for x in range(1, n_t):
                y = perm[x]
                z = x
                while z > 0 and t_key[perm[z - 1]] > t_key[y]:
                    perm[z] = perm[z - 1]
                    z -= 1
                perm[z] = y
        else:
            # (into perm: an array reassigned each step costs reference counts)
            ranked = np.argsort(t_key[:n_t])
            for x in range(n_t):
                perm[x] = ranked[x]
        n_new = 1
        for x in range(1, n_t):
            if t_key[perm[x]] != t_key[perm[x - 1]]:
                n_new += 1
        if n_new > max_states:
            return TOO_LARGE, i, 0, empty, marg
        if a1 + n_new + 1 > keys.shape[0]:  # (tr_ptr: one more)
            grown = max(2 * keys.shape[0], a1 + n_new + 1)
            tr_ptr = np.concatenate((tr_ptr, np.zeros(grown - tr_ptr.shape[0], dtype=np.int64)))
            keys = np.concatenate((keys, np.zeros(grown - keys.shape[0], dtype=np.int64)))
            st_start = np.concatenate(
                (st_start, np.zeros(grown - st_start.shape[0], dtype=np.int64))
            )
            st_low = np.concatenate((st_low, np.zeros(grown - st_low.shape[0], dtype=np.int64)))
            st_len = np.concatenate((st_len, np.zeros(grown - st_len.shape[0], dtype=np.int64)))
        # the new states and their spans of mine totals, then their counts
        # (so that the pool grows once a step)
        x = 0
        t = a1
        end = used
        while x < n_t:
            y = x
            lo_m = 1 << 30
            hi_m = -1
            while y < n_t and t_key[perm[y]] == t_key[perm[x]]:
                s = t_src[perm[y]]
                v = t_v[perm[y]]
                lo_m = min(lo_m, st_low[s] + v)
                hi_m = max(hi_m, st_low[s] + st_len[s] - 1 + v)
                y += 1
            keys[t] = t_key[perm[x]]
            st_start[t] = end
            st_low[t] = lo_m
            st_len[t] = hi_m - lo_m + 1
            end += hi_m - lo_m + 1
            t += 1
            x = y
        lay_ptr[i + 2] = t
        tr_ptr[a1] = tr_used + n_t
        if end > pool.shape[0]:
            pool = _grow(pool, used, end - used)
        for b in range(used, end):
            pool[b] = 0
        size = sizes[i]
        t = a1 - 1
        for z in range(n_t):
            if z == 0 or t_key[perm[z]] != t_key[perm[z - 1]]:
                t += 1  # the transitions of state t follow each other
            s = t_src[perm[z]]
            v = t_v[perm[z]]
            tr_dst[tr_used + perm[z]] = t
            w = binom[size, v]
            base = st_start[t] + st_low[s] + v - st_low[t]
            if not add_scaled(pool, base, pool, st_start[s], st_len[s], w):
                return FALLBACK, -1, 0, empty, marg
        used = end
        tr_used += n_t

    # The polynomial and the marginals share one zeroed allocation, over the
    # mine totals the last state spans (every completion spans no more).
    last_state = lay_ptr[k]
    lowest, span = int(st_low[last_state]), int(st_len[last_state])
    out = np.zeros((k + 1) * span, dtype=np.int64)
    poly_out = out[:span]
    marg = out[span:].reshape((k, span))
    for m in range(span):
        poly_out[m] = pool[st_start[last_state] + m]

    # Backward: the co half of c_* holds layer i + 1's completions, the ho
    # half receives layer i's.  Only a completion of an entry the step sets
    # is read, so only the last layer's (its one state, the empty key,
    # completed once) starts set.  The completions' counts are appended to
    # bpool layer after layer and kept (about as many as the forward pool
    # holds): no layer's region has to be found room for again.
    widest = 1
    for i in range(k + 1):
        widest = max(widest, lay_ptr[i + 1] - lay_ptr[i])
    if widest > _ROOM:
        completions = np.empty(6 * widest, dtype=np.int64)
    # (two layers' by turns, from co and ho: no arrays swapped)
    c_start = completions[: 2 * widest]
    c_low = completions[2 * widest : 4 * widest]
    c_len = completions[4 * widest : 6 * widest]
    co, ho = 0, widest
    c_start[0] = 0
    c_low[0] = 0
    c_len[0] = 1
    bpool[0] = 1
    h_used = 1
    for i in range(k - 1, -1, -1):
        a0, a1 = lay_ptr[i], lay_ptr[i + 1]
        b0 = lay_ptr[i + 1]
        size = sizes[i]
        for h in range(ho, ho + a1 - a0):
            c_len[h] = 0
        s = a0 - 1
        while s + 1 < a1:
            # (the pool grows here, not in the loop below: see the forward
            # pass; a state's completions span at most the last state's
            # totals, as a layout through it has its prefix's mines and more)
            if h_used + span > bpool.shape[0]:
                bpool = _grow(bpool, h_used, span)
            while s + 1 < a1 and h_used + span <= bpool.shape[0]:
                s += 1
                n_tails = 0
                lo_m = 1 << 30
                hi_m = -1
                for e in range(tr_ptr[s], tr_ptr[s + 1]):  # (the forward pass's)
                    v = tr_v[e]
                    r = co + tr_dst[e] - b0  # (the state's completion)
                    if c_len[r] == 0:
                        continue  # no completion from there
                    tails[n_tails] = r
                    tail_v[n_tails] = v
                    n_tails += 1
                    lo_m = min(lo_m, c_low[r] + v)
                    hi_m = max(hi_m, c_low[r] + c_len[r] - 1 + v)
                if n_tails == 0:
                    continue
                length = hi_m - lo_m + 1
                for b in range(length):
                    buf[b] = 0
                    mined[b] = 0
                any_mined = False
                for z in range(n_tails):
                    r = tails[z]
                    v = tail_v[z]
                    w = binom[size, v]
                    into = c_low[r] + v - lo_m
                    if not add_scaled(buf, into, bpool, c_start[r], c_len[r], w):
                        return FALLBACK, -1, 0, empty, marg
                    if v:  # the completions weighted by the step's mines
                        if not add_scaled(mined, into, bpool, c_start[r], c_len[r], w * v):
                            return FALLBACK, -1, 0, empty, marg
                        any_mined = True
                for b in range(length):
                    bpool[h_used + b] = buf[b]
                h = ho + s - a0
                c_start[h] = h_used
                c_low[h] = lo_m
                c_len[h] = length
                h_used += length
                if any_mined:
                    # marginal of group i += this prefix's poly x mined completions
                    p0 = st_start[s]
                    pl = st_low[s]
                    for a in range(st_len[s]):
                        pa = pool[p0 + a]
                        if pa == 0:
                            continue
                        for b in range(length):
                            if mined[b] == 0:
                                continue
                            term = checked_mul(pa, mined[b])
                            if term < 0:
                                return FALLBACK, -1, 0, empty, marg
                            at = pl + a + lo_m + b - lowest
                            total = marg[i, at] + term
                            if total > LIMIT:
                                return FALLBACK, -1, 0, empty, marg
                            marg[i, at] = total
        # layer i's completions become the next step's; reuse the old buffers
        co, ho = ho, co
    return OK, -1, lowest, poly_out, marg


@subroutine
def count_part(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    j: int,
    max_states: int,
    number: NDArray[np.int64],
) -> tuple[int, int, int, int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Count part ``j`` of a structure (the arguments of :func:`count_parts`).

    Returns ``(status, step, low, first, last, counts, marginals)``: the
    :func:`count_component` status and step (-1 if :data:`OK`) and, where it
    is :data:`OK`, the part's layouts by mine total, ``low`` mines at
    ``counts[first]`` and one more at each index up to ``last`` (the
    first and the last not zero), and the same for each of its groups in
    elimination order, weighted by that group's mines
    (``marginals[x, first:last + 1]``).  ``number`` is scratch, -1 for
    each number, and left so.

    A part of one group with numbers needs every one of them to show the
    same count ``v``, and then has ``C(size, v)`` layouts: that is counted
    in place (a huge board has hundreds of thousands of such parts).
    """
    a, b = part_ptr[j], part_ptr[j + 1]
    k = b - a
    g = order[a]
    if k == 1 and grp_ptr[g + 1] > grp_ptr[g] and sizes[g] <= 60:
        size = sizes[g]
        v = need[grp_idx[grp_ptr[g]]]
        fits = 0 <= v <= size
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            fits = fits and need[grp_idx[p]] == v
        layouts = 1
        if fits:
            for x in range(v):
                layouts = layouts * (size - x) // (x + 1)
        both = np.empty(2, dtype=np.int64)  # (one allocation for the two)
        both[0] = layouts
        both[1] = v * layouts
        counts = both[:1]
        marginals = both[1:].reshape((1, 1))
        if not fits:
            return EMPTY, 0, 0, 0, 0, counts, marginals
        return OK, -1, v, 0, 0, counts, marginals
    # the part's inputs in elimination order, numbers renumbered from 0, in
    # one allocation (a part has at most as many numbers as links)
    links = 0
    for x in range(k):
        g = order[a + x]
        links += grp_ptr[g + 1] - grp_ptr[g]
    work = np.empty(2 * k + 1 + 3 * links, dtype=np.int64)
    p_sizes = work[:k]
    ptr = work[k : 2 * k + 1]
    idx = work[2 * k + 1 : 2 * k + 1 + links]
    ids = work[2 * k + 1 + links : 2 * k + 1 + 2 * links]
    ptr[0] = 0
    for x in range(k):
        g = order[a + x]
        p_sizes[x] = sizes[g]
        ptr[x + 1] = ptr[x] + grp_ptr[g + 1] - grp_ptr[g]
    count = 0
    for x in range(k):
        g = order[a + x]
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            if number[c] < 0:
                number[c] = count
                ids[count] = c
                count += 1
            idx[ptr[x] + p - grp_ptr[g]] = number[c]
    p_need = work[2 * k + 1 + 2 * links : 2 * k + 1 + 2 * links + count]
    for q in range(count):
        p_need[q] = need[ids[q]]
        number[ids[q]] = -1
    st, step, low, counts, marginals = count_component(p_sizes, ptr, idx, p_need, max_states)
    if st != OK:
        return st, step, 0, 0, 0, counts, marginals
    # (the first and the last total of the last state are layouts' totals)
    return OK, -1, low, 0, counts.shape[0] - 1, counts, marginals


@kernel(
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    nt.int64,
)
def count_parts(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    todo: NDArray[np.int64],
    max_states: int,
) -> NDArray[np.int64]:
    """Count the parts ``todo`` of a structure, one after the other.

    Group ``g`` has ``sizes[g]`` cells and the numbers
    ``grp_idx[grp_ptr[g]:grp_ptr[g + 1]]``; part ``j`` is
    ``order[part_ptr[j]:part_ptr[j + 1]]``, in elimination order.

    Returns one int64 array (one array is quicker to hand back than
    several), read by :func:`unpack`: ``(info, values, single, factors,
    summary)``.  Row ``t`` of ``info`` is ``(status, step, low, width, at)`` for the ``t``-th part:
    its :func:`count_component` status and step and, where it is
    :data:`OK`, its layouts by mine total from ``low`` on (``width``
    totals, the first and the last not zero) in ``values[at:at + width]``,
    followed by the same for each of its groups in elimination order,
    weighted by that group's mines (``width`` values each).  The parts of
    one mine total are also listed, a row per group, in ``single``: the
    group, its mine-weighted count and its part's count; ``factors`` holds
    those parts' counts other than 1.  ``summary`` is ``(low, wide,
    trouble)``: those parts' mine totals summed, how many parts of several
    totals were counted, and how many were not :data:`OK`.  Each part is
    counted by :func:`count_part`.
    """
    n_todo = todo.shape[0]
    # the scratch in one allocation (values and single move out as they grow)
    n_values = max(4 * n_todo, 16)
    n_rows = max(n_todo, 4)
    work = np.empty(5 * n_todo + 3 + need.shape[0] + n_todo + n_values + 3 * n_rows, dtype=np.int64)
    work[: 5 * n_todo + 3] = 0
    info = work[: 5 * n_todo].reshape((n_todo, 5))
    at = 5 * n_todo
    summary, at = _carve(work, at, 3)
    number, at = _carve(work, at, need.shape[0])  # renumbering, reset per part
    number[:] = -1
    factors, at = _carve(work, at, n_todo)
    values, at = _carve(work, at, n_values)
    used = 0
    single = work[at : at + 3 * n_rows].reshape((n_rows, 3))
    n_single = 0
    n_factors = 0
    for t in range(n_todo):
        j = todo[t]
        k = part_ptr[j + 1] - part_ptr[j]
        st, step, low, first, last, counts, marginals = count_part(
            sizes, grp_ptr, grp_idx, part_ptr, order, need, j, max_states, number
        )
        info[t, 0] = st
        info[t, 1] = step
        if st != OK:
            summary[2] += 1
            continue
        info[t, 2] = low
        w = last - first + 1
        info[t, 3] = w
        info[t, 4] = used
        values = _grow(values, used, (k + 1) * w)
        values[used : used + w] = counts[first : last + 1]
        for x in range(k):
            values[used + (x + 1) * w : used + (x + 2) * w] = marginals[x, first : last + 1]
        used += (k + 1) * w
        if w > 1:
            summary[1] += 1
            continue
        if n_single + k > single.shape[0]:
            bigger = np.zeros((2 * (n_single + k), 3), dtype=np.int64)
            bigger[:n_single] = single[:n_single]
            single = bigger
        for x in range(k):
            single[n_single, 0] = order[part_ptr[j] + x]
            single[n_single, 1] = marginals[x, first]
            single[n_single, 2] = counts[first]
            n_single += 1
        if counts[first] != 1:
            factors[n_factors] = counts[first]
            n_factors += 1
        summary[0] += info[t, 2]
    sizes_out = (n_todo * 5, used, n_single * 3, n_factors)
    out = np.empty(4 + 3 + sum(sizes_out), dtype=np.int64)
    out[0], out[1], out[2], out[3] = sizes_out
    out[4:7] = summary
    at = 7
    out[at : at + n_todo * 5] = info.ravel()
    at += n_todo * 5
    out[at : at + used] = values[:used]
    at += used
    out[at : at + n_single * 3] = single[:n_single].ravel()
    at += n_single * 3
    out[at : at + n_factors] = factors[:n_factors]
    return out


def unpack(out: NDArray[np.int64]) -> tuple[NDArray[np.int64], ...]:
    """:func:`count_parts`' array as ``(info, values, single, factors, summary)``."""
    n_info, n_values, n_single, n_factors = out[:4].tolist()
    at = 7
    info = out[at : at + n_info].reshape(-1, 5)
    at += n_info
    values = out[at : at + n_values]
    at += n_values
    single = out[at : at + n_single].reshape(-1, 3)
    at += n_single
    return info, values, single, out[at : at + n_factors], out[4:7]
