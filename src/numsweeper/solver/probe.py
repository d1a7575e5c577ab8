"""The exact engine's readings, compiled: a position with one cell shown, or some cells mines.

Private to :mod:`numsweeper.solver.lookahead` and :mod:`numsweeper.solver.
guess`.  The look-ahead (:func:`~numsweeper.solver.guess.hill_guess`)
asks of each number ``n`` a candidate cell may show two things: the
share of the layouts in which it shows ``n``, and the two best living
safeties after it (its *outlook*, :func:`outlook`).  :func:`probe_outlook`
answers both in one call, from the count of the cell's own component (the
rest of the frontier is counted once per cell, in Python) to the outlook,
without an :class:`~numsweeper.solver.analysis.Analysis`: the same
integers as the exact engine's, in int64, and the same floats.  The
guess's influence factor asks of small sets of frontier cells the share
of the layouts in which they are all mines, by the frontier's mine total;
:func:`given_shares` answers that from the count of the parts the cells
are in (the others are counted once per position).

Every integer is checked against :data:`~numsweeper.solver.counting.LIMIT`;
where one would not fit, or a count is not plain (no layout, too many
states, a count past int64), the kernel says so and the caller takes the
exact engine's path.  The floats are the engine's because each is the
quotient of two integers below ``2**53``: both convert to floats exactly,
and the division rounds correctly, as Python's ``int / int`` does for the
same ratio, whatever factor the two programmes scale it by.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from ._jit import helper, kernel, readonly
from .counting import EMPTY, FALLBACK, LIMIT, OK, add_scaled, checked_mul, count_part

__all__ = ["given_shares", "outlook", "probe_outlook"]

#: Integers below this convert to floats exactly.
_EXACT_FLOATS = 2**53


@helper
def _convolve(a: NDArray[np.int64], b: NDArray[np.int64]) -> tuple[bool, NDArray[np.int64]]:
    """The product of two polynomials of counts, checked (False if past ``LIMIT``)."""
    out = np.zeros(a.shape[0] + b.shape[0] - 1, dtype=np.int64)
    for i in range(a.shape[0]):
        if not add_scaled(out, i, b, 0, b.shape[0], a[i]):
            return False, out
    return True, out


@helper
def _dot(a: NDArray[np.int64], b: NDArray[np.int64], at: int) -> int:
    """``sum(a[t] * b[at + t])``, or -1 if a term or the sum passes ``LIMIT``."""
    total = 0
    for t in range(a.shape[0]):
        term = checked_mul(a[t], b[at + t])
        if term < 0:
            return -1
        total += term
        if total > LIMIT:
            return -1
    return total


@helper
def _ratio(num: int, whole: int) -> float:
    """``num / whole`` if both convert to floats exactly, else -1.0 (``0 <= num``)."""
    if whole <= 0 or whole >= _EXACT_FLOATS or num > whole:
        return -1.0
    return num / whole


@helper
def _reduced_ratio(num: int, whole: int) -> float:
    """:func:`_ratio` of ``num / whole`` in lowest terms (the same float)."""
    if whole >= _EXACT_FLOATS:
        common = math.gcd(num, whole)
        num, whole = num // common, whole // common
    return _ratio(num, whole)


@helper
def _weights(
    scaled: NDArray[np.int64], low: int, mines: int, unconstrained: int
) -> tuple[bool, NDArray[np.int64]]:
    """Integers proportional to ``C(u, m - low - k)`` for each total ``low + k``.

    The exact engine's weights (``_binomial_weights``, reduced by their
    common factor): the smallest integers in that proportion, 0 where
    ``scaled[k]`` is 0 or the mines left do not fit off the frontier.
    From ``n0``, the fewest mines off the frontier, each next weight is
    the last times ``(u - j) / (j + 1)``: the ones before are scaled by
    what that fraction's denominator does not cancel, which keeps them
    the smallest integers of their proportion.  False if one would pass
    ``LIMIT``, or if no total fits (the caller then takes the engine's
    path, which raises).
    """
    n_totals = scaled.shape[0]
    context = np.zeros(n_totals, dtype=np.int64)
    first, last = -1, -1
    for k in range(n_totals):
        if scaled[k] and 0 <= mines - low - k <= unconstrained:
            if first < 0:
                first = k
            last = k
    if first < 0:
        return False, context
    n0, n1 = mines - low - last, mines - low - first
    x = np.zeros(n1 - n0 + 1, dtype=np.int64)  # x[i] ~ C(u, n0 + i)
    x[0] = 1
    for j in range(n0, n1):
        up, down = unconstrained - j, j + 1
        g = math.gcd(up, down)
        up, down = up // g, down // g
        i = j - n0
        g = math.gcd(x[i], down)
        step = checked_mul(x[i] // g, up)
        if step < 0:
            return False, context
        scale = down // g  # (prime to step: x stays the smallest integers)
        if scale > 1:
            for t in range(i + 1):
                x[t] = checked_mul(x[t], scale)
                if x[t] < 0:
                    return False, context
        x[i + 1] = step
    common = 0
    for k in range(first, last + 1):
        if scaled[k]:
            context[k] = x[mines - low - k - n0]
            common = math.gcd(common, context[k])
    for k in range(first, last + 1):
        context[k] //= common
    return True, context


#: :func:`outlook` finds this many cells by scanning before it sorts them all.
_LAZY_STEPS = 8


@helper
def _next_safest(q: NDArray[np.float64], taken: NDArray[np.bool_]) -> int:
    """The first index of the least ``q`` not yet ``taken`` (now taken), or -1.

    Taken in turn, these are the indices in the order of a stable sort of
    ``q`` (NaN-free).
    """
    best = -1
    for j in range(q.shape[0]):
        if not taken[j] and (best < 0 or q[j] < q[best]):
            best = j
    if best >= 0:
        taken[best] = True
    return best


@kernel(
    readonly(nt.int8[:, ::1]),
    readonly(nt.int64[::1]),
    readonly(nt.float64[::1]),
    nt.float64,
    nt.int64,
)
def outlook(
    probe: NDArray[np.int8],
    front_flat: NDArray[np.intp],
    front_p: NDArray[np.float64],
    off_p: float,
    off_at: int,
) -> tuple[float, float, bool]:
    """The two best living safeties after a click, and whether a living cell is safe.

    Parameters
    ----------
    probe : ndarray of int8, shape (rows, cols)
        Visible state after the click.
    front_flat, front_p : ndarray of intp and of float64, shape (k,)
        Its frontier cells (flat indices) and their mine probabilities
        (:meth:`Analysis.frontier_probabilities`).
    off_p : float
        The mine probability of its other hidden cells
        (:attr:`Analysis.off_probability`).
    off_at : int
        Flat index of a hidden cell next to no number, or -1 if there is
        none.

    Returns
    -------
    s1, s2 : float
        The two best safeties among the living cells and two copies of the
        off-frontier safety (0 where there are fewer cells).
    live_safe : bool
        Whether some living cell is certainly safe.

    Notes
    -----
    A hidden cell that is not a certain mine is *dead* when none of its
    neighbours is undecided, or when its undecided neighbours are exactly
    those of some revealed number: its own number is then that number's
    need plus the certain mines around it (a sufficient test: Hill's).  Only
    as many cells as needed are tested, safest first (a stable sort: by
    probability, then row-major), on a bordered byte grid (1 undecided, 2
    revealed).  The first few are found by scanning (two or three usually
    do), the rest, if any, by sorting.
    """
    rows, cols = probe.shape
    q = np.full(rows * cols, off_p)  # (read at hidden cells only)
    for i in range(front_flat.shape[0]):
        q[front_flat[i]] = front_p[i]
    width = cols + 2
    kind = np.zeros((rows + 2) * width, dtype=np.uint8)
    n_hidden = 0
    for r in range(rows):
        for c in range(cols):
            v = probe[r, c]
            if v >= 0:
                kind[(r + 1) * width + c + 1] = 2
            elif 0.0 < q[r * cols + c] < 1.0:
                kind[(r + 1) * width + c + 1] = 1
            if v == -1:  # HIDDEN: clickable (a flag is hidden, not clickable)
                n_hidden += 1
    flat = np.empty(n_hidden, dtype=np.int64)
    qf = np.empty(n_hidden, dtype=np.float64)
    j = 0
    lazy = _LAZY_STEPS  # (a NaN would sort last: then sort from the start)
    for r in range(rows):
        for c in range(cols):
            if probe[r, c] == -1:
                flat[j] = r * cols + c
                qf[j] = q[r * cols + c]
                if np.isnan(qf[j]):
                    lazy = 0
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
    taken = np.zeros(n_hidden, dtype=np.bool_)
    ranked = np.empty(0, dtype=np.int64)
    for step in range(n_hidden):
        jj = _next_safest(qf, taken) if step < lazy else -1
        if jj < 0:
            if step == lazy:  # (the first steps took the sort's first cells)
                ranked = np.argsort(qf, kind="mergesort")  # stable
            jj = ranked[step]
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
    floor = 1.0 - off_p if off_at >= 0 else 0.0
    found[4] = floor
    found[5] = floor
    best = np.sort(found)
    return best[5], best[4], live_safe


@kernel(
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    nt.int64,
    nt.int64,
    readonly(nt.int64[::1]),
    readonly(nt.float64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int8[:, ::1]),
    nt.int64,
)
def probe_outlook(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    own: int,
    max_states: int,
    rest: NDArray[np.int64],
    rest_p: NDArray[np.float64],
    front_flat: NDArray[np.intp],
    group_of: NDArray[np.intp],
    probe: NDArray[np.int8],
    off_at: int,
) -> tuple[int, int, int, int, float, float, bool]:
    """The layouts and the outlook of a position with one cell shown as a number.

    Parameters
    ----------
    sizes, grp_ptr, grp_idx, part_ptr, order : ndarray of int64
        The position's structure, as :func:`~numsweeper.solver.counting.
        count_parts` takes it.
    need : ndarray of int64, shape (n_cons,)
        What each number needs, the cell's own number included.
    own : int
        The part the cell's number is in (counted here), or -1 if it has
        no hidden neighbour.
    max_states : int
        The guard on that count.
    rest : ndarray of int64
        Every other part, counted: ``(u, m, low, k)``, the cells off the
        frontier, the mines, the parts of one mine total's mines summed
        and how many parts of several totals follow, each as ``(low,
        width, n_groups)``, its ``width`` counts by mine total from
        ``low`` on, its groups and their mine-weighted counts (a row of
        ``width`` per group).
    rest_p : ndarray of float64, shape (n_groups,)
        The mine probability of each group of a part of one mine total
        (the same whatever the cell shows; the others are not read).
    front_flat, group_of : ndarray of intp, shape (n_front,)
        The frontier cells and their groups.
    probe : ndarray of int8, shape (rows, cols)
        The visible state with the cell shown.
    off_at : int
        As :func:`outlook` takes it.

    Returns
    -------
    status : int
        :data:`~numsweeper.solver.counting.OK`; ``EMPTY`` if no layout of
        the cell's own part fits its numbers (the exact engine's count of
        that part finds none either, and raises); or ``FALLBACK`` if the
        answer needs the exact engine (see the module notes).  The rest is
        meaningless unless the status is ``OK``.
    grand, w_ref, n_ref : int
        The position has ``factor * grand * C(u, n_ref) / w_ref`` layouts,
        ``factor`` the product of the counts of the parts of one total.
    s1, s2, live_safe : float, float, bool
        Its :func:`outlook`.

    Notes
    -----
    The cell's own part is taken as a part of several totals even if it
    has one: its groups' probabilities are the same ratios.  Each part's
    context (the weight of each of its totals, given the others) is the
    product of the other parts' counts correlated with the weights, one
    product per part: a position has a handful of such parts.
    """
    fail = (FALLBACK, 0, 0, 0, 0.0, 0.0, False)
    n_rest = rest[3]
    if own < 0:
        data = rest.copy()
    else:
        number = np.full(need.shape[0], -1, dtype=np.int64)
        status, _, own_low, first, last, counts, marginals = count_part(
            sizes, grp_ptr, grp_idx, part_ptr, order, need, own, max_states, number
        )
        if status == EMPTY:
            return (EMPTY, 0, 0, 0, 0.0, 0.0, False)
        if status != OK:
            return fail
        # appended to the rest's parts, in their form
        width = last - first + 1
        a, b = part_ptr[own], part_ptr[own + 1]
        at = rest.shape[0]
        data = np.empty(at + 3 + (b - a + 1) * (width + 1), dtype=np.int64)
        data[:at] = rest
        data[at] = own_low
        data[at + 1] = width
        data[at + 2] = b - a
        at += 3
        data[at : at + width] = counts[first : last + 1]
        at += width
        data[at : at + b - a] = order[a:b]
        at += b - a
        for x in range(b - a):
            data[at : at + width] = marginals[x, first : last + 1]
            at += width
        n_rest += 1
    u, m, low = data[0], data[1], data[2]
    # where each part's counts start in data; its groups and rows follow
    starts = np.empty(n_rest, dtype=np.int64)
    at = 4
    for c in range(n_rest):
        low += data[at]
        starts[c] = at + 3
        at += 3 + data[at + 1] + data[at + 2] * (data[at + 1] + 1)
    scaled = np.ones(1, dtype=np.int64)
    for c in range(n_rest):
        s = starts[c]
        fits, scaled = _convolve(scaled, data[s : s + data[s - 2]])
        if not fits:
            return fail
    fits, context = _weights(scaled, low, m, u)
    grand = _dot(scaled, context, 0) if fits else -1
    if grand <= 0:
        return fail
    k_ref = 0
    while context[k_ref] == 0:
        k_ref += 1
    group_p = rest_p.copy()
    for c in range(n_rest):
        others = np.ones(1, dtype=np.int64)
        for d in range(n_rest):
            if d != c:
                s = starts[d]
                fits, others = _convolve(others, data[s : s + data[s - 2]])
                if not fits:
                    return fail
        s = starts[c]
        width, n_groups = data[s - 2], data[s - 1]
        weights = np.empty(width, dtype=np.int64)
        for t in range(width):
            weights[t] = _dot(others, context, t)
            if weights[t] < 0:
                return fail
        rows = s + width + n_groups
        for i in range(n_groups):
            g = data[s + width + i]
            num = _dot(data[rows + i * width : rows + (i + 1) * width], weights, 0)
            p = _ratio(num, checked_mul(grand, sizes[g])) if num >= 0 else -1.0
            if p < 0.0:
                return fail
            group_p[g] = p
    off_p = np.nan
    if u:
        mined = 0
        for k in range(scaled.shape[0]):
            term = checked_mul(scaled[k], context[k])
            if term > 0:  # (then the total fits: m - low - k >= 0)
                term = checked_mul(term, m - low - k)
            if term < 0 or mined + term > LIMIT:
                return fail
            mined += term
        off_p = _ratio(mined, checked_mul(grand, u))
        if off_p < 0.0:
            return fail
    s1, s2, live_safe = outlook(probe, front_flat, group_p[group_of], off_p, off_at)
    return OK, grand, context[k_ref], m - low - k_ref, s1, s2, live_safe


@kernel(
    *[readonly(nt.int64[::1])] * 6,  # the structure and the numbers
    readonly(nt.int64[:, ::1]),  # the counted parts
    *[readonly(nt.int64[::1])] * 4,
    *[nt.int64] * 3,
)
def given_shares(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    info: NDArray[np.int64],
    values: NDArray[np.int64],
    front_flat: NDArray[np.intp],
    group_of: NDArray[np.intp],
    given: NDArray[np.int64],
    mines: int,
    unconstrained: int,
    max_states: int,
) -> tuple[int, NDArray[np.float64], NDArray[np.float64], int]:
    """The shares of a position's layouts with some frontier cells all mines.

    Parameters
    ----------
    sizes, grp_ptr, grp_idx, part_ptr, order : ndarray of int64
        The position's structure, as :func:`~numsweeper.solver.counting.
        count_parts` takes it.
    need : ndarray of int64, shape (n_cons,)
        What each number shows.
    info, values : ndarray of int64
        Every part of the position counted, as :func:`~numsweeper.solver.
        counting.count_parts` gives them (``todo`` all parts in order).
    front_flat, group_of : ndarray of intp, shape (n_front,)
        The frontier cells (flat indices) and their groups.
    given : ndarray of int64, shape (x,)
        The cells that are mines (flat indices).
    mines : int
        Total mine count (flags count as hidden cells).
    unconstrained : int
        Hidden cells next to no number.
    max_states : int
        The guard on the counts of the parts the given cells are in.

    Returns
    -------
    status : int
        :data:`~numsweeper.solver.counting.OK`, or ``FALLBACK`` if the
        answer needs the exact engine (a part not counted plainly, a given
        cell repeated or off the frontier, an integer past the bounds of
        the module notes); the rest is then meaningless.
    ks : ndarray of float64, shape (t,)
        The mine totals ``k`` of the rest of the frontier with the given
        cells all mines, increasing, each with a layout and room off the
        frontier for the ``m - k`` mines left; none if no layout has the
        given cells all mines.
    share : ndarray of float64, shape (t,)
        For each, ``layouts(k) * C(u, m - k) / layouts``: the share of the
        position's layouts (``u`` its unconstrained cells).
    m : int
        The mines besides the given cells.

    Notes
    -----
    The given cells come out of their groups and out of the needs of
    their numbers (:meth:`Analyzer.given`'s count), so only the parts they
    are in are counted again.  The parts of one mine total that they are
    not in are a factor and a shift, the same with and without them, so
    both the layouts and the position's are left without that factor.
    Totals count the given cells as mines, so that one set of weights
    (:func:`_weights`, over both ranges) serves both.
    """
    fail = FALLBACK, np.empty(0), np.empty(0), 0
    n_parts = part_ptr.shape[0] - 1
    x = given.shape[0]
    m = mines - x
    reduced = sizes.copy()
    left = need.copy()
    part_of = np.empty(sizes.shape[0], dtype=np.int64)
    for j in range(n_parts):
        for p in range(part_ptr[j], part_ptr[j + 1]):
            part_of[order[p]] = j
    touched = np.zeros(n_parts, dtype=np.bool_)
    for a in range(x):
        i = np.searchsorted(front_flat, given[a])
        if i == front_flat.shape[0] or front_flat[i] != given[a]:
            return fail
        for b in range(a):
            if given[b] == given[a]:
                return fail
        g = group_of[i]
        reduced[g] -= 1
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            left[grp_idx[p]] -= 1
        touched[part_of[g]] = True
    none = OK, np.empty(0), np.empty(0), m
    if m < 0:
        return none
    for c in range(left.shape[0]):
        if left[c] < 0:
            return none  # more mines than a number shows
    # polynomials by mine total, from low_given and low_whole on
    with_given = np.ones(1, dtype=np.int64)
    whole = np.ones(1, dtype=np.int64)
    low_given, low_whole = x, 0
    number = np.full(need.shape[0], -1, dtype=np.int64)
    for j in range(n_parts):
        if info[j, 0] != OK:
            return fail
        low, width, at = info[j, 2], info[j, 3], info[j, 4]
        low_whole += low
        if touched[j]:
            status, _, low, first, last, counts, _ = count_part(
                reduced, grp_ptr, grp_idx, part_ptr, order, left, j, max_states, number
            )
            if status == EMPTY:
                return none
            if status != OK:
                return fail
            fits, with_given = _convolve(with_given, counts[first : last + 1])
        elif width > 1:
            fits, with_given = _convolve(with_given, values[at : at + width])
        else:
            fits = True  # (a factor of both: left out)
        low_given += low
        if fits and (touched[j] or width > 1):
            fits, whole = _convolve(whole, values[at : at + width])
        if not fits:
            return fail
    low = min(low_given, low_whole)
    high = max(low_given + with_given.shape[0], low_whole + whole.shape[0])
    either = np.zeros(high - low, dtype=np.int64)  # a layout with the total, either way
    for t in range(with_given.shape[0]):
        if with_given[t]:
            either[low_given - low + t] = 1
    for t in range(whole.shape[0]):
        if whole[t]:
            either[low_whole - low + t] = 1
    fits, weights = _weights(either, low, mines, unconstrained)
    total = _dot(whole, weights, low_whole - low) if fits else -1
    if total <= 0:
        return fail
    ks = np.empty(with_given.shape[0])
    share = np.empty(with_given.shape[0])
    n = 0
    for t in range(with_given.shape[0]):
        k = low_given + t  # (the given cells counted)
        if with_given[t] and 0 <= mines - k <= unconstrained:
            num = checked_mul(with_given[t], weights[k - low])
            ratio = _reduced_ratio(num, total) if num >= 0 else -1.0
            if ratio < 0.0:
                return fail
            ks[n] = k - x
            share[n] = ratio
            n += 1
    return OK, ks[:n], share[:n], m
