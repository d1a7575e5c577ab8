"""The solver's hot paths, compiled by numba.

Optional: imported only when numba is installed (``pip install
numsweeper[fast]``), and switched off by ``NUMSWEEPER_PURE_PYTHON=1``.
Each kernel returns exactly what the pure-Python code it stands for
returns, so results and moves are the same with or without numba:

- :func:`count_component`: a frontier component's count (``analysis.
  _count_component``);
- :func:`frontier_structure`: a position's constraints, groups and
  components, each in elimination order, with their cache keys
  (``analysis._frontier_numpy``, ``_split`` and ``_elimination_order``);
- :func:`split_and_order` and :func:`count_inputs`: a position's components
  and their elimination order (part of the above), and a component's
  inputs to the count;
- :func:`local_rules_stack`: ``policy.local_rules``;
- :func:`endgame_layouts` and :func:`endgame_wins`: the endgame search's
  layout listing and win counts (``policy._layouts`` and
  ``policy._endgame_wins``);
- :func:`outlook`: the guess's look-ahead outlook (``_guess.outlook``).

The component count runs the same dynamic programme as the pure-Python one
(a forward count of partial layouts, cut by cut, then a backward sweep over
the same states for the completions and the mine-weighted marginals) on
int64 arrays.  Every multiplication and addition is checked against
``_LIMIT``: if a count would leave int64 it gives up (:data:`FALLBACK`) and
the caller runs the pure-Python count, which has arbitrary precision.  If
no layout survives a step (:data:`EMPTY`) or a layer grows past
``max_states`` (:data:`TOO_LARGE`) it returns that step, and the caller
raises what the pure-Python count would raise there.

A state is the remaining need of each constraint the cut separates, packed
into one int64 as bit fields (constraint ``c`` takes the bits of
``need[c]``).  Components whose cuts separate more than ``_WIDEST`` constraints,
or whose states do not fit that packing, fall back too.  Each state's
counts by mine total are a short run of int64s in a pool: ``start``,
``low`` (the smallest mine total) and ``length``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict, List

OK = 0
FALLBACK = 1  # a count would leave int64, or a cut is too wide to pack
EMPTY = 2  # no layout survives the step returned
TOO_LARGE = 3  # the step returned leaves more than max_states states
_LIMIT = 1 << 61  # every stored count stays at or below this: sums never wrap
_WIDEST = 64  # most constraints one cut may separate


@njit(cache=True, inline="always")
def _mul(a: int, b: int) -> int:
    """``a * b``, or -1 if it would pass ``_LIMIT`` (a, b >= 0)."""
    if a == 0 or b == 0:
        return 0
    if a > _LIMIT // b:
        return -1
    return a * b


@njit(cache=True, inline="always")
def _grow(pool: np.ndarray, used: int, extra: int) -> np.ndarray:
    if used + extra <= pool.shape[0]:
        return pool
    bigger = np.zeros(max(2 * pool.shape[0], used + extra), dtype=np.int64)
    bigger[:used] = pool[:used]
    return bigger


@njit(cache=True, inline="always")
def _add_scaled(
    dst: np.ndarray, at: int, src: np.ndarray, start: int, length: int, w: int
) -> bool:  # pragma: no cover - compiled
    """``dst[at:at + length] += w * src[start:start + length]``, checked:
    False (and ``dst`` partly updated) if a count would pass ``_LIMIT``."""
    for m in range(length):
        term = _mul(w, src[start + m])
        if term < 0:
            return False
        total = dst[at + m] + term
        if total > _LIMIT:
            return False
        dst[at + m] = total
    return True


@njit(cache=True, inline="always")
def _bounds(
    key: int,
    lo: int,
    hi: int,
    o0: int,
    o1: int,
    prev: int,
    oc_pos: np.ndarray,
    oc_cap: np.ndarray,
    shift: np.ndarray,
    mask: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover - compiled
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


@njit(cache=True, inline="always")
def _next_key(
    key: int,
    v: int,
    q0: int,
    q1: int,
    prev: int,
    src: np.ndarray,
    dec: np.ndarray,
    fval: np.ndarray,
    shift: np.ndarray,
    mask: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """The state after a step's group takes ``v`` mines from state ``key``."""
    nk = 0
    for p in range(q0, q1):
        j = src[p]
        val = (key >> shift[prev + j]) & mask[prev + j] if j >= 0 else fval[p]
        nk |= (val - dec[p] * v) << shift[p]
    return nk


@njit(cache=True, inline="always")
def _plan_entry(
    src: np.ndarray,
    dec: np.ndarray,
    fval: np.ndarray,
    new_active: np.ndarray,
    q: int,
    na: int,
    j: int,
    d: int,
    value: int,
    c: int,
) -> int:  # pragma: no cover - compiled
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


@njit(cache=True)
def count_component(
    sizes: np.ndarray,
    con_ptr: np.ndarray,
    con_idx: np.ndarray,
    need: np.ndarray,
    max_states: int,
) -> tuple[int, int, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Polynomial and per-group marginals of one component, or FALLBACK.

    ``sizes[i]`` is the size of the ``i``-th group in elimination order and
    ``con_idx[con_ptr[i]:con_ptr[i + 1]]`` its constraints, numbered
    ``0..len(need) - 1``.  Returns ``(status, step, poly, marginals)``:
    ``poly[m]`` counts the layouts with ``m`` mines, ``marginals[i, m]``
    sums the mines of group ``i`` over them; ``step`` is the step an
    :data:`EMPTY` or :data:`TOO_LARGE` status happened at (else -1).  Group
    sizes above 60 fall back (their binomials would not fit in int64;
    frontier groups hold at most 8 cells).
    """
    k = sizes.shape[0]
    n_cons = need.shape[0]
    width = 1
    for i in range(k):
        width += sizes[i]
    empty = np.zeros(0, dtype=np.int64)
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
                if not _add_scaled(pool, base, pool, st_start[s], st_len[s], w):
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
                if not _add_scaled(buf, base, cpool, c_start[r], c_len[r], w):
                    return FALLBACK, -1, empty, marg
                if v:  # the completions weighted by the step's mines
                    if not _add_scaled(mined, base, cpool, c_start[r], c_len[r], w * v):
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
                        term = _mul(pa, mined[b])
                        if term < 0:
                            return FALLBACK, -1, empty, marg
                        at = pl + a + lo_m + b
                        total = marg[i, at] + term
                        if total > _LIMIT:
                            return FALLBACK, -1, empty, marg
                        marg[i, at] = total
        # layer i's completions become the next step's; reuse the old buffers
        c_start, h_start = h_start, c_start
        c_low, h_low = h_low, c_low
        c_len, h_len = h_len, c_len
        cpool, hpool = hpool, cpool
    return OK, -1, poly_out, marg


@njit(cache=True)
def split_and_order(
    grp_ptr: np.ndarray, grp_idx: np.ndarray, n_cons: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Components of the groups and each one's elimination order.

    Group ``g``'s constraints are ``grp_idx[grp_ptr[g]:grp_ptr[g + 1]]``.
    Two groups are adjacent when they share a constraint.  Returns
    ``(part_ptr, order)``: part ``i`` is ``order[part_ptr[i]:part_ptr[i + 1]]``,
    listed in its Cuthill-McKee order exactly as the pure-Python
    ``_elimination_order`` gives it (start at the group of least degree,
    then breadth first, neighbours by increasing degree; ties by group id).
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


@njit(cache=True)
def count_inputs(
    order: np.ndarray, sizes: np.ndarray, grp_ptr: np.ndarray, grp_idx: np.ndarray, n_cons: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The inputs of :func:`count_component` for groups in ``order``.

    Returns the groups' sizes in that order, their constraints renumbered
    from 0 in order of first appearance (CSR: ``ptr``, ``idx``), and the
    original id of each renumbered constraint.
    """
    n = order.shape[0]
    out_sizes = np.zeros(n, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        g = order[x]
        out_sizes[x] = sizes[g]
        ptr[x + 1] = ptr[x] + grp_ptr[g + 1] - grp_ptr[g]
    idx = np.zeros(ptr[n], dtype=np.int64)
    number = np.full(n_cons, -1, dtype=np.int64)
    ids = np.zeros(ptr[n], dtype=np.int64)
    count = 0
    for x in range(n):
        g = order[x]
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            if number[c] < 0:
                number[c] = count
                ids[count] = c
                count += 1
            idx[ptr[x] + p - grp_ptr[g]] = number[c]
    return out_sizes, ptr, idx, ids[:count]


@njit(cache=True)
def frontier_structure(
    unknown: np.ndarray, revealed: np.ndarray
) -> tuple[np.ndarray, ...]:  # pragma: no cover - compiled
    """A position's structure, as ``analysis._frontier_numpy`` builds it.

    ``unknown`` and ``revealed`` are ``(rows, cols)`` masks.  Returns
    ``(free, con_flat, front_flat, group_of, sigs, sizes, ptr, idx,
    part_ptr, order, key_rows, numbers, cuts)``: hidden neighbours per cell;
    the constraints (numbers with a hidden neighbour) and the frontier cells,
    by flat index; each frontier cell's group, groups numbered in the
    lexicographic order of their signatures ``sigs`` (constraint ids, sorted,
    after -1 padding to 8); group sizes and constraints (CSR); the parts and
    their elimination orders (:func:`split_and_order`); the shape-key rows
    of the groups by part, then id (the board positions of their numbers,
    then their size); and each part's constraints, in increasing order,
    between the bounds ``cuts``.
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
    sig = np.full((n_front, 8), -1, dtype=np.int64)
    for j in range(n_front):
        r, c = front_flat[j] // cols, front_flat[j] % cols
        k = 0
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for cc in range(max(c - 1, 0), min(c + 2, cols)):
                if (rr != r or cc != c) and revealed[rr, cc]:
                    flat = rr * cols + cc
                    i = np.searchsorted(con_flat, flat)  # a number next to a hidden cell
                    sig[j, k] = i
                    k += 1
        row = sig[j]
        row[:k].sort()
        # move the k ids to the end, -1 padding first
        for x in range(k - 1, -1, -1):
            row[8 - k + x] = row[x]
        for x in range(8 - k):
            row[x] = -1
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
    numbers, cuts = _split_by(np.arange(n_cons), con_part, n_parts)
    return (
        free,
        con_flat,
        front_flat,
        group_of,
        sigs,
        sizes,
        ptr,
        idx,
        part_ptr,
        order,
        key_rows,
        numbers,
        cuts,
    )


@njit(cache=True)
def local_rules_stack(
    visible: np.ndarray, max_rounds: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``policy.local_rules`` on a ``(k, rows, cols)`` int8 stack: the same rounds.

    Each round applies both single-number rules to the state the previous
    round left, all at once, as the vectorized version does; only numbers
    next to a cell the previous round decided are looked at again (the
    others cannot fire), and their needs and free-neighbour counts are kept
    up to date instead of recounted.
    """
    k, rows, cols = visible.shape
    safe = np.zeros(visible.shape, dtype=np.bool_)
    mines = np.zeros(visible.shape, dtype=np.bool_)
    n = rows * cols
    need = np.zeros(n, dtype=np.int64)
    n_free = np.zeros(n, dtype=np.int64)
    active = np.zeros(n, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    to_mine = np.zeros(n, dtype=np.bool_)
    to_safe = np.zeros(n, dtype=np.bool_)
    decided = np.zeros(n, dtype=np.int64)
    across = np.zeros(n, dtype=np.int64)
    for b in range(k):
        cells = visible[b].reshape(n)
        is_safe = safe[b].reshape(n)
        is_mine = mines[b].reshape(n)
        # hidden neighbours of every cell: 3-wide row sums, then column sums
        for r in range(rows):
            for c in range(cols):
                x = 0
                for cc in range(max(c - 1, 0), min(c + 2, cols)):
                    x += cells[r * cols + cc] < 0
                across[r * cols + c] = x
        n_active = 0
        for r in range(rows):
            for c in range(cols):
                i = r * cols + c
                if cells[i] < 0:
                    continue
                x = 0
                for rr in range(max(r - 1, 0), min(r + 2, rows)):
                    x += across[rr * cols + c]
                need[i] = cells[i]
                n_free[i] = x  # a number is not hidden itself
                if x:  # a number with no hidden neighbour never fires
                    active[n_active] = i
                    n_active += 1
        for step in range(max_rounds):
            n_decided = 0
            for a in range(n_active):
                i = active[a]
                if n_free[i] == 0:
                    continue
                fire_mine = need[i] == n_free[i]
                fire_safe = need[i] == 0
                if not (fire_mine or fire_safe):
                    continue
                r, c = i // cols, i % cols
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        rr, cc = r + dr, c + dc
                        if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols:
                            j = rr * cols + cc
                            if cells[j] >= 0 or is_safe[j] or is_mine[j]:
                                continue
                            if not (to_mine[j] or to_safe[j]):
                                decided[n_decided] = j
                                n_decided += 1
                            if fire_mine:
                                to_mine[j] = True
                            if fire_safe:
                                to_safe[j] = True
            if n_decided == 0:
                break
            # apply them all at once, and look again at their numbers
            n_active = 0
            for d in range(n_decided):
                j = decided[d]
                if to_mine[j]:
                    is_mine[j] = True
                if to_safe[j]:
                    is_safe[j] = True
                r, c = j // cols, j % cols
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        rr, cc = r + dr, c + dc
                        if (dr or dc) and 0 <= rr < rows and 0 <= cc < cols:
                            i = rr * cols + cc
                            if cells[i] < 0:
                                continue
                            n_free[i] -= 1
                            if to_mine[j]:
                                need[i] -= 1
                            if stamp[i] != step:
                                stamp[i] = step
                                active[n_active] = i
                                n_active += 1
                to_mine[j] = False
                to_safe[j] = False
            # numbers are stamped by round; the next board starts afresh
        stamp[:] = -1
    return safe, mines


#: The endgame search memoises states (sets of layouts left) by two 64-bit
#: hashes of the layout indices, and keeps each state's indices in a pool to
#: check a hit against: a hash collision costs a recount, never a wrong count.
_memo_key = types.UniTuple(types.uint64, 2)  # type: ignore[no-untyped-call]


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _shown(lay: np.ndarray, mask: np.ndarray) -> int:
    """How many of ``mask``'s cells the multi-word layout ``lay`` mines."""
    total = 0
    for w in range(lay.shape[0]):
        total += _popcount(lay[w] & mask[w])
    return total


@njit(cache=True, inline="always")
def _bit(words: np.ndarray, i: int) -> bool:
    return bool((words[i >> 6] >> np.uint64(i & 63)) & np.uint64(1))


@njit(cache=True, inline="always")
def _mix(x: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a well-spread hash of one layout index."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _key(group: np.ndarray) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    h1 = np.uint64(group.shape[0])
    h2 = np.uint64(0x9E3779B97F4A7C15)
    for j in group:
        h1 += _mix(np.uint64(j))
        h2 = (h2 ^ _mix(np.uint64(j) + np.uint64(0x632BE59BD9B4E019))) * np.uint64(0x100000001B3)
    return (h1, h2)


@njit(cache=True)
def _split_by(
    group: np.ndarray, labels: np.ndarray, n_labels: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``group``'s entries sorted by label (stably), and where each label starts.

    A counting sort; ``starts`` has ``n_labels + 1`` entries (one array,
    whose second half tracks where each label fills meanwhile).  The search
    sorts a state's layouts with it, :func:`frontier_structure` the
    constraints by part.
    """
    starts = np.zeros(2 * n_labels + 1, dtype=np.int64)
    for x in range(group.shape[0]):
        starts[labels[x] + 1] += 1
    for k in range(n_labels):
        starts[k + 1] += starts[k]
        starts[n_labels + 1 + k] = starts[k]
    out = np.empty(group.shape[0], dtype=np.int64)
    for x in range(group.shape[0]):
        fill = n_labels + 1 + labels[x]
        out[starts[fill]] = group[x]
        starts[fill] += 1
    return out, starts[: n_labels + 1]


@njit(cache=True)
def _clicked(
    group: np.ndarray, lays: np.ndarray, nbr: np.ndarray, i: int, scratch: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The layouts where cell ``i`` is safe, split by the number it shows.

    :func:`_split_by` over the labels (the number, 9 for a mine), which
    ``scratch`` holds meanwhile.
    """
    labels = scratch[: group.shape[0]]
    for x in range(group.shape[0]):
        lay = lays[group[x]]
        labels[x] = 9 if _bit(lay, i) else _shown(lay, nbr[i])
    return _split_by(group, labels, 10)


@njit(cache=True)
def _recall(
    group: np.ndarray, key: tuple[np.uint64, np.uint64], memo: Dict, pool: List
) -> int:  # pragma: no cover - compiled
    """The memoised count of ``group``, or -1 (also on a hash collision)."""
    if key not in memo:
        return -1
    at = memo[key]
    stored = pool[0]
    m = group.shape[0]
    if stored[at] != m:
        return -1
    for x in range(m):
        if stored[at + 2 + x] != group[x]:
            return -1
    return int(stored[at + 1])


@njit(cache=True)
def _store(
    group: np.ndarray,
    key: tuple[np.uint64, np.uint64],
    result: int,
    memo: Dict,
    pool: List,
    used: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Memoise ``group``'s count (unless its key is taken by another group)."""
    if key in memo:
        return
    m = group.shape[0]
    at = used[0]
    stored = pool[0]
    if at + m + 2 > stored.shape[0]:
        bigger = np.empty(max(2 * stored.shape[0], at + m + 2), dtype=np.int64)
        bigger[:at] = stored[:at]
        pool[0] = bigger
        stored = bigger
    stored[at] = m
    stored[at + 1] = result
    stored[at + 2 : at + 2 + m] = group
    used[0] = at + m + 2
    memo[key] = at


@njit(cache=True, inline="always")
def _beats(value: int, i: int, top: int, top_i: int, by_index: bool) -> bool:
    return value > top or (by_index and value == top and i < top_i)


@njit(cache=True)
def _wins(
    group: np.ndarray,
    lays: np.ndarray,
    nbr: np.ndarray,
    clickable: np.ndarray,
    memo: Dict,
    pool: List,
    left: np.ndarray,
    out: np.ndarray,
    every: bool,
    above: np.ndarray,
    scratch: np.ndarray,
    defer: bool,
) -> int:  # pragma: no cover - compiled
    """Layouts of ``group`` won under perfect play; -1 past the budget.

    With a non-empty ``out`` the group is the search's root: the count of
    each click it counts in full (each click, with ``every``) goes to
    ``out[i]``, and the root is neither a budgeted state nor memoised (as
    in the Python search, which also explains the pruning).  ``left`` holds
    the states and the layout-cells the search may still examine, then the
    pool's used length.  ``above`` is the union of the layouts of the state
    that split off this one: a cell already safe there shows the same
    number in all of this group (that state was split by it), so only the
    cells safe here and not there can split the group further.  ``scratch``
    (10 entries per layout) holds labels while a state splits its group;
    every recursive call overwrites it, so nothing reads it after one.
    ``defer``: dead clicks wait (only when no undecided cell is flagged).
    """
    root = out.shape[0] > 0
    none = out[:0]
    m = group.shape[0]
    n = nbr.shape[0]
    words = lays.shape[1]
    key = (np.uint64(0), np.uint64(0))  # the root's (unused) key
    if not root:
        if m == 1:
            return 1
        key = _key(group)
        got = _recall(group, key, memo, pool)
        if got >= 0:
            return got
        left[0] -= 1
        left[1] -= m * n
        if left[0] < 0 or left[1] < 0:
            return -1
    masks = np.empty(3 * words, dtype=np.uint64)
    union = masks[:words]
    varying = masks[words : 2 * words]
    fresh = masks[2 * words :]
    for w in range(words):
        union[w] = 0
        inter = np.uint64(0xFFFFFFFFFFFFFFFF)
        for x in range(m):
            union[w] |= lays[group[x], w]
            inter &= lays[group[x], w]
        varying[w] = union[w] & ~inter
        fresh[w] = above[w] & ~union[w]
    # Reveal every certainly safe cell at once: split by all their numbers
    # (the root has none: its undecided cells are not certainly safe).
    labels = scratch[:m]
    labels[:] = 0
    n_labels = 1
    if not root:
        for i in range(n):
            if not _bit(fresh, i) or _shown(varying, nbr[i]) == 0:
                continue
            renumber = scratch[m : m + 9 * n_labels]
            renumber[:] = -1
            count = 0
            for x in range(m):
                code = labels[x] * 9 + _shown(lays[group[x]], nbr[i])
                if renumber[code] < 0:
                    renumber[code] = count
                    count += 1
                labels[x] = renumber[code]
            n_labels = count
    if n_labels > 1:
        result = 0
        ordered, starts = _split_by(group, labels, n_labels)
        for k in range(n_labels):
            part = ordered[starts[k] : starts[k + 1]]
            won = _wins(
                part, lays, nbr, clickable, memo, pool, left, none, every, union, scratch, defer
            )
            if won < 0:
                return -1
            result += won
        if not root:
            _store(group, key, result, memo, pool, left[2:])
        return result
    # The clicks, by the layouts where they are safe (most first).  A
    # click's split by the number it shows is made only when it is tried;
    # a dead one waits until every click has turned out dead.
    n_cells = 0
    for i in range(n):
        if _bit(varying, i) and clickable[i]:
            n_cells += 1
    # per click: its cell, its safe layouts, and the order and the dead
    # clicks waiting (both as click numbers)
    table = np.empty(4 * n_cells, dtype=np.int64)
    cells = table[:n_cells]
    safe = table[n_cells : 2 * n_cells]
    order = table[2 * n_cells : 3 * n_cells]
    waiting = table[3 * n_cells :]
    c = 0
    for i in range(n):
        if _bit(varying, i) and clickable[i]:
            cells[c] = i
            safe[c] = m
            c += 1
    for x in range(m):
        lay = lays[group[x]]
        for c in range(n_cells):
            if _bit(lay, cells[c]):
                safe[c] -= 1
    full_count = root and every
    # most safe layouts first, then the lower cell (insertion sort: few clicks)
    for c in range(n_cells):
        k = c
        while k > 0 and (
            safe[order[k - 1]] < safe[c]
            or (safe[order[k - 1]] == safe[c] and cells[order[k - 1]] > cells[c])
        ):
            order[k] = order[k - 1]
            k -= 1
        order[k] = c
    n_waiting = 0
    any_live = False
    top = 0
    top_i = n
    tried = order
    last = False
    while True:
        for c in tried:
            i = cells[c]
            if not full_count and not _beats(safe[c], i, top, top_i, root):
                break
            ordered, starts = _clicked(group, lays, nbr, i, scratch)
            if defer and not (full_count or last):
                shown = 0
                for k in range(9):
                    shown += starts[k + 1] > starts[k]
                if shown < 2:
                    waiting[n_waiting] = c
                    n_waiting += 1
                    continue
                any_live = True
            total = 0
            rest = safe[c]
            done = True
            for k in range(9):
                if starts[k + 1] > starts[k]:
                    part = ordered[starts[k] : starts[k + 1]]
                    rest -= part.shape[0]
                    won = _wins(
                        part,
                        lays,
                        nbr,
                        clickable,
                        memo,
                        pool,
                        left,
                        none,
                        every,
                        union,
                        scratch,
                        defer,
                    )
                    if won < 0:
                        return -1
                    total += won
                    if not full_count and not _beats(total + rest, i, top, top_i, root):
                        done = False
                        break
            if done:
                if root:
                    out[i] = total
                if _beats(total, i, top, top_i, True):
                    top = total
                    top_i = i
        if last or any_live or full_count or n_waiting == 0:
            break
        tried = waiting[:n_waiting]  # every click is dead: try them after all
        last = True
    if not root:
        _store(group, key, top, memo, pool, left[2:])
    return top


@njit(cache=True)
def endgame_wins(
    lays: np.ndarray, nbr: np.ndarray, clickable: np.ndarray, budget: int, work: int, every: bool
) -> np.ndarray:  # pragma: no cover - compiled
    """Layouts won by clicking each undecided cell, then playing perfectly.

    ``lays`` are the layouts as bitmasks over the undecided cells, one row
    of 64-bit words per layout (cell ``i`` is bit ``i % 64`` of word
    ``i // 64``), and ``nbr[i]`` the mask of cell ``i``'s undecided
    neighbours in the same words.  Returns one count per cell, -1 for a
    cell that is not a risky clickable choice (or, without ``every``, one
    the search did not need to count in full), or an empty array once the
    search needs more than ``budget`` states or ``work`` layout-cells.
    """
    n = nbr.shape[0]
    memo = Dict.empty(key_type=_memo_key, value_type=types.int64)
    pool = List()
    pool.append(np.empty(1 << 12, dtype=np.int64))
    left = np.array([budget, work, 0], dtype=np.int64)
    out = np.full(n, -1, dtype=np.int64)
    everything = np.full(lays.shape[1], np.uint64(0xFFFFFFFFFFFFFFFF))
    scratch = np.empty(10 * lays.shape[0], dtype=np.int64)
    root = np.arange(lays.shape[0])
    defer = bool(clickable.all())  # dead clicks wait only when no cell is flagged
    won = _wins(
        root, lays, nbr, clickable, memo, pool, left, out, every, everything, scratch, defer
    )
    if won < 0:
        return np.zeros(0, dtype=np.int64)
    return out


@njit(cache=True)
def endgame_layouts(
    order: np.ndarray,
    step_ptr: np.ndarray,
    step_cons: np.ndarray,
    step_room: np.ndarray,
    need: np.ndarray,
    mines: int,
    limit: int,
    words: int,
) -> tuple[np.ndarray, bool]:  # pragma: no cover - compiled
    """Every layout of ``mines`` mines that meets the numbers (``policy._layouts``).

    Step ``k`` places cell ``order[k]``; the numbers it touches are
    ``step_cons[step_ptr[k]:step_ptr[k + 1]]``, with as many of their cells
    still unplaced after it in ``step_room``.  ``need`` holds each number's
    mines still to place (restored when the listing completes).  The same depth-first
    search as the Python listing, step for step, without recursion: returns
    the layouts (rows of ``words`` 64-bit words, in the order found) and
    True, or no layouts and False after ``limit`` steps.
    """
    n = order.shape[0]
    out = np.zeros((64, words), dtype=np.uint64)
    found = 0
    lay = np.zeros(words, dtype=np.uint64)
    choice = np.full(n + 1, -1, dtype=np.int64)
    applied = np.zeros(n + 1, dtype=np.bool_)
    steps = limit
    k = 0
    left = mines
    entering = True
    while True:
        if entering:
            steps -= 1
            if steps < 0:
                return out[:0], False
            if left < 0 or left > n - k or k == n:
                if k == n and left == 0:
                    if found == out.shape[0]:
                        bigger = np.zeros((2 * found, words), dtype=np.uint64)
                        bigger[:found] = out
                        out = bigger
                    out[found] = lay
                    found += 1
                if k == 0:
                    break
                k -= 1
                entering = False
                continue
            choice[k] = -1
            applied[k] = False
            entering = False
        # undo the choice made at step k, then try the next one
        b = choice[k]
        cell = order[k]
        if applied[k]:
            for t in range(step_ptr[k], step_ptr[k + 1]):
                need[step_cons[t]] += b
            if b == 1:
                lay[cell >> 6] &= ~(np.uint64(1) << np.uint64(cell & 63))
            left += b
            applied[k] = False
        b += 1
        if b > 1:
            if k == 0:
                break
            k -= 1
            continue
        choice[k] = b
        fits = True
        for t in range(step_ptr[k], step_ptr[k + 1]):
            rest = need[step_cons[t]] - b
            if rest < 0 or rest > step_room[t]:
                fits = False
        if fits:
            for t in range(step_ptr[k], step_ptr[k + 1]):
                need[step_cons[t]] -= b
            if b == 1:
                lay[cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)
            left -= b
            applied[k] = True
            k += 1
            entering = True
    return out[:found], True


@njit(cache=True)
def outlook(
    probe: np.ndarray, q: np.ndarray, off_at: int
) -> tuple[float, float, bool]:  # pragma: no cover - compiled
    """``_guess.outlook``: the two best living safeties after a click, and
    whether a living cell is certainly safe.

    ``probe`` is the ``(rows, cols)`` int8 visible state after the click and
    ``q`` its mine probabilities.  The same rule on the same bordered byte
    grid (1 undecided, 2 revealed), the hidden cells taken in the same
    order (by probability, then row-major: a stable sort), so the same
    floats come out.
    """
    rows, cols = probe.shape
    width = cols + 2
    kind = np.zeros((rows + 2) * width, dtype=np.uint8)
    n_hidden = 0
    for r in range(rows):
        for c in range(cols):
            v = probe[r, c]
            if v >= 0:
                kind[(r + 1) * width + c + 1] = 2
            elif 0.0 < q[r, c] < 1.0:
                kind[(r + 1) * width + c + 1] = 1
            if v == -1:  # HIDDEN: clickable (a flag is hidden, not clickable)
                n_hidden += 1
    flat = np.empty(n_hidden, dtype=np.int64)
    qf = np.empty(n_hidden, dtype=np.float64)
    j = 0
    for r in range(rows):
        for c in range(cols):
            if probe[r, c] == -1:
                flat[j] = r * cols + c
                qf[j] = q[r, c]
                j += 1
    # the neighbour offsets in increasing order; with the cell's own, 0
    around = np.array(
        [-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1], dtype=np.int64
    )
    with_own = np.array(
        [-width - 1, -width, -width + 1, -1, 0, 1, width - 1, width, width + 1], dtype=np.int64
    )
    own = np.empty(8, dtype=np.int64)
    theirs = np.empty(9, dtype=np.int64)
    found = np.zeros(6, dtype=np.float64)  # the safeties found, then 0, 0, floor, floor
    n_found = 0
    live_safe = False
    for jj in np.argsort(qf, kind="mergesort"):  # stable
        qi = qf[jj]
        if qi < 1.0:
            r, c = flat[jj] // cols, flat[jj] % cols
            i = (r + 1) * width + c + 1
            n_own = 0
            for o in around:
                if kind[i + o] & 1:
                    own[n_own] = i + o
                    n_own += 1
            if n_own == 0:
                continue  # no undecided neighbour
            # a number with the same undecided neighbours touches all of them,
            # so it is next to the first of them (own is in increasing order)
            dead = False
            for o in around:
                v = own[0] + o
                if not kind[v] & 2:
                    continue
                n_theirs = 0
                for p in with_own:
                    if kind[v + p] & 1:
                        theirs[n_theirs] = v + p
                        n_theirs += 1
                if n_theirs == n_own:
                    same = True
                    for k in range(n_own):
                        if theirs[k] != own[k]:
                            same = False
                            break
                    if same:
                        dead = True
                        break
            if dead:
                continue
        if n_found == 0 and qi == 0.0:
            live_safe = True
        found[n_found] = 1.0 - qi
        n_found += 1
        if n_found == 2:
            break
    floor = 1.0 - q.ravel()[off_at] if off_at >= 0 else 0.0
    found[4] = floor
    found[5] = floor
    best = np.sort(found)
    return best[5], best[4], live_safe
