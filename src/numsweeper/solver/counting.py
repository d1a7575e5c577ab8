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

Poly = dict[int, int]  # mine total -> weighted layout count


@helper
def checked_mul(a: int, b: int) -> int:
    """``a * b``, or -1 if it would pass :data:`LIMIT` (``a, b >= 0``)."""
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
    oc_pos: NDArray[np.int64],
    oc_cap: NDArray[np.int64],
    shift: NDArray[np.int64],
    mask: NDArray[np.int64],
) -> tuple[int, int]:
    """The mines a step's group may hold from state ``key``: its older
    constraints' remaining needs, less what the cells after it can hold."""
    for o in range(o0, o1):
        j = prev + oc_pos[o]
        val = (key >> shift[j]) & mask[j]
        if val - oc_cap[o] > lo:
            lo = val - oc_cap[o]
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
    src: NDArray[np.int64],
    dec: NDArray[np.int64],
    fval: NDArray[np.int64],
    shift: NDArray[np.int64],
    mask: NDArray[np.int64],
) -> int:
    """The state after a step's group takes ``v`` mines from state ``key``."""
    nk = 0
    for p in range(q0, q1):
        j = src[p]
        val = (key >> shift[prev + j]) & mask[prev + j] if j >= 0 else fval[p]
        nk |= (val - dec[p] * v) << shift[p]
    return nk


@helper
def _plan_entry(
    src: NDArray[np.int64],
    dec: NDArray[np.int64],
    fval: NDArray[np.int64],
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
    src[q + na] = j
    dec[q + na] = d
    if j < 0:
        fval[q + na] = value
    new_active[na] = c
    return na + 1


@subroutine
def count_component(
    sizes: NDArray[np.int64],
    con_ptr: NDArray[np.int64],
    con_idx: NDArray[np.int64],
    need: NDArray[np.int64],
    max_states: int,
) -> tuple[int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Polynomial and per-group marginals of one component, or FALLBACK.

    ``sizes[i]`` is the size of the ``i``-th group in elimination order and
    ``con_idx[con_ptr[i]:con_ptr[i + 1]]`` its constraints, numbered
    ``0..len(need) - 1``.  Returns ``(status, step, poly, marginals)``:
    ``poly[m]`` counts the layouts with ``m`` mines, ``marginals[i, m]``
    sums the mines of group ``i`` over them; ``step`` is the step an
    :data:`EMPTY` or :data:`TOO_LARGE` status happened at (else -1).  Group
    sizes above 60 fall back (their binomials would not fit in int64;
    frontier groups hold at most 8 cells).  A component whose marginals
    would hold more than ``_MOST_MARGINALS`` counts (a frontier of tens of
    thousands of groups, on a huge board) is :data:`TOO_LARGE` at its middle
    step, so that the caller relaxes it there.
    """
    k = sizes.shape[0]
    n_cons = need.shape[0]
    width = 1
    for i in range(k):
        width += sizes[i]
    empty = np.zeros(0, dtype=np.int64)
    if k * width > _MOST_MARGINALS:  # relax the middle cut: split it in two
        return TOO_LARGE, k // 2 - 1, empty, np.zeros((0, 0), dtype=np.int64)
    poly_out = np.zeros(width, dtype=np.int64)
    marg = np.zeros((k, width), dtype=np.int64)

    big = 1
    for i in range(k):
        big = max(big, sizes[i])
    if big > 60:
        return FALLBACK, -1, empty, marg
    binom = np.zeros((big + 1, big + 1), dtype=np.int64)
    for n in range(big + 1):
        binom[n, 0] = 1
        for v in range(1, n + 1):
            binom[n, v] = binom[n - 1, v - 1] + (binom[n - 1, v] if v <= n - 1 else 0)

    first = np.full(n_cons, -1, dtype=np.int64)
    last = np.full(n_cons, -1, dtype=np.int64)
    cap = np.zeros(n_cons, dtype=np.int64)
    for i in range(k):
        for p in range(con_ptr[i], con_ptr[i + 1]):
            c = con_idx[p]
            if first[c] < 0:
                first[c] = i
            last[c] = i
            cap[c] += sizes[i]

    # Step plans, flattened: for step i, new key position p takes the old
    # position src[p] (or the fresh need fval[p] if src[p] < 0), minus v if
    # dec[p]; old positions oc_pos (with capacity oc_cap after the step)
    # bound v; lo0..hi0 bounds v from the constraints the step opens.
    plan_ptr = np.zeros(k + 1, dtype=np.int64)
    room = min(n_cons, _WIDEST) * k + 1  # a step keeps at most that many
    src = np.empty(room, dtype=np.int64)
    dec = np.empty(room, dtype=np.int64)
    fval = np.empty(room, dtype=np.int64)  # read only where src < 0, set there
    shift = np.empty(room, dtype=np.int64)  # position p's first bit in the key
    mask = np.empty(room, dtype=np.int64)  # and its bits (its need fits them)
    oc_ptr = np.zeros(k + 1, dtype=np.int64)
    oc_pos = np.zeros(con_idx.shape[0] + 1, dtype=np.int64)
    oc_cap = np.zeros(con_idx.shape[0] + 1, dtype=np.int64)
    lo0s = np.zeros(k, dtype=np.int64)
    hi0s = np.zeros(k, dtype=np.int64)
    active = np.zeros(_WIDEST, dtype=np.int64)
    n_active = 0
    mark = np.full(n_cons, -1, dtype=np.int64)
    new_active = np.zeros(_WIDEST, dtype=np.int64)
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
                na = _plan_entry(src, dec, fval, new_active, q, na, j, 0, 0, c)
                if na < 0:
                    return FALLBACK, -1, empty, marg
        for j in range(n_active):  # the step's older constraints
            c = active[j]
            if mark[c] == i:
                oc_pos[oq] = j
                oc_cap[oq] = cap[c]
                oq += 1
                if last[c] > i:
                    na = _plan_entry(src, dec, fval, new_active, q, na, j, 1, 0, c)
                    if na < 0:
                        return FALLBACK, -1, empty, marg
        lo0 = 0
        hi0 = sizes[i]
        for p in range(con_ptr[i], con_ptr[i + 1]):  # constraints it opens
            c = con_idx[p]
            if first[c] == i:
                lo0 = max(lo0, need[c] - cap[c])
                hi0 = min(hi0, need[c])
                if last[c] > i:
                    na = _plan_entry(src, dec, fval, new_active, q, na, -1, 1, need[c], c)
                    if na < 0:
                        return FALLBACK, -1, empty, marg
        plan_ptr[i + 1] = q + na
        place = 0
        for p in range(na):
            bits = 0
            while (1 << bits) <= need[new_active[p]]:
                bits += 1
            shift[q + p] = place
            mask[q + p] = (1 << bits) - 1
            place += bits
            if place > 62:
                return FALLBACK, -1, empty, marg
        oc_ptr[i + 1] = oq
        lo0s[i] = lo0
        hi0s[i] = hi0
        for p in range(na):
            active[p] = new_active[p]
        n_active = na

    # Forward: layer i holds states lay_ptr[i]:lay_ptr[i + 1] of the key and
    # poly arrays (keys sorted within a layer).
    cap_states = 64
    keys = np.zeros(cap_states, dtype=np.int64)
    st_start = np.zeros(cap_states, dtype=np.int64)
    st_low = np.zeros(cap_states, dtype=np.int64)
    st_len = np.zeros(cap_states, dtype=np.int64)
    pool = np.zeros(256, dtype=np.int64)
    used = 1
    pool[0] = 1
    st_len[0] = 1
    lay_ptr = np.zeros(k + 2, dtype=np.int64)
    lay_ptr[1] = 1
    t_key = np.zeros(64, dtype=np.int64)
    t_src = np.zeros(64, dtype=np.int64)
    t_v = np.zeros(64, dtype=np.int64)
    perm = np.zeros(64, dtype=np.int64)
    for i in range(k):
        a0, a1 = lay_ptr[i], lay_ptr[i + 1]
        q0, q1 = plan_ptr[i], plan_ptr[i + 1]
        o0, o1 = oc_ptr[i], oc_ptr[i + 1]
        prev = plan_ptr[i - 1] if i else 0  # the old key's positions
        n_t = 0
        for s in range(a0, a1):
            key = keys[s]
            lo, hi = _bounds(key, lo0s[i], hi0s[i], o0, o1, prev, oc_pos, oc_cap, shift, mask)
            for v in range(lo, hi + 1):
                nk = _next_key(key, v, q0, q1, prev, src, dec, fval, shift, mask)
                if n_t == t_key.shape[0]:
                    t_key = np.concatenate((t_key, np.zeros(n_t, dtype=np.int64)))
                    t_src = np.concatenate((t_src, np.zeros(n_t, dtype=np.int64)))
                    t_v = np.concatenate((t_v, np.zeros(n_t, dtype=np.int64)))
                t_key[n_t] = nk
                t_src[n_t] = s
                t_v[n_t] = v
                n_t += 1
        if n_t == 0:
            return EMPTY, i, empty, marg
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
            perm = np.argsort(t_key[:n_t])
        n_new = 1
        for x in range(1, n_t):
            if t_key[perm[x]] != t_key[perm[x - 1]]:
                n_new += 1
        if n_new > max_states:
            return TOO_LARGE, i, empty, marg
        if a1 + n_new > keys.shape[0]:
            grown = max(2 * keys.shape[0], a1 + n_new)
            keys = np.concatenate((keys, np.zeros(grown - keys.shape[0], dtype=np.int64)))
            st_start = np.concatenate(
                (st_start, np.zeros(grown - st_start.shape[0], dtype=np.int64))
            )
            st_low = np.concatenate((st_low, np.zeros(grown - st_low.shape[0], dtype=np.int64)))
            st_len = np.concatenate((st_len, np.zeros(grown - st_len.shape[0], dtype=np.int64)))
        size = sizes[i]
        x = 0
        t = a1
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
            length = hi_m - lo_m + 1
            pool = _grow(pool, used, length)
            pool[used : used + length] = 0
            for z in range(x, y):
                s = t_src[perm[z]]
                v = t_v[perm[z]]
                w = binom[size, v]
                base = used + st_low[s] + v - lo_m
                if not add_scaled(pool, base, pool, st_start[s], st_len[s], w):
                    return FALLBACK, -1, empty, marg
            keys[t] = t_key[perm[x]]
            st_start[t] = used
            st_low[t] = lo_m
            st_len[t] = length
            used += length
            t += 1
            x = y
        lay_ptr[i + 2] = t

    last_state = lay_ptr[k]
    for m in range(st_len[last_state]):
        poly_out[st_low[last_state] + m] = pool[st_start[last_state] + m]

    # Backward: completions of layer i + 1's states (c_*), then layer i's.
    widest = 1
    for i in range(k + 1):
        widest = max(widest, lay_ptr[i + 1] - lay_ptr[i])
    c_start = np.zeros(widest, dtype=np.int64)
    c_low = np.zeros(widest, dtype=np.int64)
    c_len = np.ones(widest, dtype=np.int64)
    cpool = np.ones(64, dtype=np.int64)
    h_start = np.zeros(widest, dtype=np.int64)
    h_low = np.zeros(widest, dtype=np.int64)
    h_len = np.zeros(widest, dtype=np.int64)
    hpool = np.zeros(64, dtype=np.int64)
    buf = np.zeros(2 * width + 2, dtype=np.int64)
    mined = np.zeros(2 * width + 2, dtype=np.int64)
    tails = np.zeros(big + 2, dtype=np.int64)  # one per v in 0..size
    tail_v = np.zeros(big + 2, dtype=np.int64)
    for i in range(k - 1, -1, -1):
        a0, a1 = lay_ptr[i], lay_ptr[i + 1]
        b0, b1 = lay_ptr[i + 1], lay_ptr[i + 2]
        q0, q1 = plan_ptr[i], plan_ptr[i + 1]
        o0, o1 = oc_ptr[i], oc_ptr[i + 1]
        prev = plan_ptr[i - 1] if i else 0
        size = sizes[i]
        h_len[: a1 - a0] = 0
        h_used = 0
        for s in range(a0, a1):
            key = keys[s]
            lo, hi = _bounds(key, lo0s[i], hi0s[i], o0, o1, prev, oc_pos, oc_cap, shift, mask)
            n_tails = 0
            lo_m = 1 << 30
            hi_m = -1
            for v in range(lo, hi + 1):
                nk = _next_key(key, v, q0, q1, prev, src, dec, fval, shift, mask)
                # binary search among layer i + 1's sorted keys
                left, right = b0, b1
                while left < right:
                    mid = (left + right) // 2
                    if keys[mid] < nk:
                        left = mid + 1
                    else:
                        right = mid
                if left == b1 or keys[left] != nk:
                    continue
                r = left - b0
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
            buf[:length] = 0
            mined[:length] = 0
            any_mined = False
            for z in range(n_tails):
                r = tails[z]
                v = tail_v[z]
                w = binom[size, v]
                base = c_low[r] + v - lo_m
                if not add_scaled(buf, base, cpool, c_start[r], c_len[r], w):
                    return FALLBACK, -1, empty, marg
                if v:  # the completions weighted by the step's mines
                    if not add_scaled(mined, base, cpool, c_start[r], c_len[r], w * v):
                        return FALLBACK, -1, empty, marg
                    any_mined = True
            hpool = _grow(hpool, h_used, length)
            hpool[h_used : h_used + length] = buf[:length]
            h = s - a0
            h_start[h] = h_used
            h_low[h] = lo_m
            h_len[h] = length
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
                            return FALLBACK, -1, empty, marg
                        at = pl + a + lo_m + b
                        total = marg[i, at] + term
                        if total > LIMIT:
                            return FALLBACK, -1, empty, marg
                        marg[i, at] = total
        # layer i's completions become the next step's; reuse the old buffers
        c_start, h_start = h_start, c_start
        c_low, h_low = h_low, c_low
        c_len, h_len = h_len, c_len
        cpool, hpool = hpool, cpool
    return OK, -1, poly_out, marg


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
        counts = np.full(1, layouts, dtype=np.int64)
        marginals = np.full((1, 1), v * layouts, dtype=np.int64)
        if not fits:
            return EMPTY, 0, 0, 0, 0, counts, marginals
        return OK, -1, v, 0, 0, counts, marginals
    # the part's inputs in elimination order, numbers renumbered from 0
    p_sizes = np.empty(k, dtype=np.int64)
    ptr = np.zeros(k + 1, dtype=np.int64)
    for x in range(k):
        g = order[a + x]
        p_sizes[x] = sizes[g]
        ptr[x + 1] = ptr[x] + grp_ptr[g + 1] - grp_ptr[g]
    idx = np.empty(ptr[k], dtype=np.int64)
    ids = np.empty(ptr[k], dtype=np.int64)
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
    p_need = np.empty(count, dtype=np.int64)
    for q in range(count):
        p_need[q] = need[ids[q]]
        number[ids[q]] = -1
    st, step, counts, marginals = count_component(p_sizes, ptr, idx, p_need, max_states)
    if st != OK:
        return st, step, 0, 0, 0, counts, marginals
    first = 0
    while counts[first] == 0:
        first += 1
    last = counts.shape[0] - 1
    while counts[last] == 0:
        last -= 1
    return OK, -1, first, first, last, counts, marginals


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
    info = np.zeros((n_todo, 5), dtype=np.int64)
    values = np.zeros(max(4 * n_todo, 16), dtype=np.int64)
    used = 0
    single = np.zeros((max(n_todo, 4), 3), dtype=np.int64)
    n_single = 0
    factors = np.ones(n_todo, dtype=np.int64)
    n_factors = 0
    summary = np.zeros(3, dtype=np.int64)
    number = np.full(need.shape[0], -1, dtype=np.int64)  # renumbering, reset per part
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
