"""The exact engine's readings, compiled: a position with one cell shown, or some cells mines.

Private to :mod:`numsweeper.solver.lookahead` and :mod:`numsweeper.solver.
guess`.  The look-ahead (:func:`~numsweeper.solver.guess.hill_guess`)
asks of each number ``n`` a candidate cell may show two things: the
share of the layouts in which it shows ``n``, and the two best living
safeties after it (its *outlook*, :func:`outlook`).  :func:`probe_outlook`
answers both in one call, from the count of the cell's own component (the
rest of the frontier is counted once per cell, by :func:`probe_rest`) to the outlook,
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

from ._jit import helper, kernel, readonly, subroutine
from .counting import EMPTY, FALLBACK, LIMIT, OK, _grow, add_scaled, checked_mul, count_part

__all__ = ["given_shares", "outlook", "probe_outlook", "probe_rest"]

#: Integers below this convert to floats exactly.
_EXACT_FLOATS = 2**53


@helper
def _convolve(
    a: NDArray[np.int64],
    a_at: int,
    a_len: int,
    b: NDArray[np.int64],
    b_at: int,
    b_len: int,
    out: NDArray[np.int64],
    out_at: int,
) -> bool:
    """The product of two polynomials of counts, checked (False if past ``LIMIT``).

    ``out[out_at:out_at + a_len + b_len - 1]`` becomes the product of
    ``a[a_at:a_at + a_len]`` and ``b[b_at:b_at + b_len]`` (no slice is made:
    a view costs a reference count, in a loop); ``out`` does not overlap
    either.
    """
    for t in range(a_len + b_len - 1):
        out[out_at + t] = 0
    fits = True
    for i in range(a_len):
        fits = add_scaled(out, out_at + i, b, b_at, b_len, a[a_at + i])
        if not fits:
            break  # (out partly summed)
    return fits


@helper
def _convolved(
    a: NDArray[np.int64], b: NDArray[np.int64], b_at: int, b_len: int
) -> tuple[bool, NDArray[np.int64]]:
    """:func:`_convolve` of ``a`` and ``b[b_at:b_at + b_len]`` into a new array."""
    out = np.empty(a.shape[0] + b_len - 1, dtype=np.int64)
    return _convolve(a, 0, a.shape[0], b, b_at, b_len, out, 0), out


@helper
def _dot(a: NDArray[np.int64], a_at: int, n: int, b: NDArray[np.int64], b_at: int) -> int:
    """``sum(a[a_at + t] * b[b_at + t])`` for ``t < n``; -1 if a term or it passes ``LIMIT``."""
    total = 0
    for t in range(n):
        term = checked_mul(a[a_at + t], b[b_at + t])
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
    scaled: NDArray[np.int64],
    s_at: int,
    n_totals: int,
    low: int,
    mines: int,
    unconstrained: int,
    out: NDArray[np.int64],
    out_at: int,
    x: NDArray[np.int64],
    x_at: int,
) -> bool:
    """Integers proportional to ``C(u, m - low - k)`` for each total ``low + k``.

    The exact engine's weights (``_binomial_weights``, reduced by their
    common factor), one for each of the ``n_totals`` counts from
    ``scaled[s_at]`` on, into ``out`` from ``out_at`` on: the smallest
    integers in that proportion, 0 where the count is 0 or the mines
    left do not fit off the frontier.  From ``n0``, the fewest mines off
    the frontier, each next weight is the last times ``(u - j) / (j +
    1)``: the ones before are scaled by what that fraction's denominator
    does not cancel, which keeps them the smallest integers of their
    proportion.  ``x`` from ``x_at`` on is scratch for ``n_totals`` of
    them.  False if one would pass ``LIMIT``, or if no total fits (the
    caller then takes the engine's path, which raises).
    """
    first, last = -1, -1
    for k in range(n_totals):
        out[out_at + k] = 0
        if scaled[s_at + k] and 0 <= mines - low - k <= unconstrained:
            if first < 0:
                first = k
            last = k
    if first < 0:
        return False
    n0, n1 = mines - low - last, mines - low - first
    for i in range(n1 - n0 + 1):  # x[x_at + i] ~ C(u, n0 + i)
        x[x_at + i] = 0
    x[x_at] = 1
    for j in range(n0, n1):
        up, down = unconstrained - j, j + 1
        g = math.gcd(up, down)
        up, down = up // g, down // g
        i = x_at + j - n0
        g = math.gcd(x[i], down)
        step = checked_mul(x[i] // g, up)
        if step < 0:
            return False
        scale = down // g  # (prime to step: x stays the smallest integers)
        if scale > 1:
            for t in range(x_at, i + 1):
                x[t] = checked_mul(x[t], scale)
                if x[t] < 0:
                    return False
        x[i + 1] = step
    common = 0
    for k in range(first, last + 1):
        if scaled[s_at + k]:
            out[out_at + k] = x[x_at + mines - low - k - n0]
            common = math.gcd(common, out[out_at + k])
    for k in range(first, last + 1):
        out[out_at + k] //= common
    return True


#: :func:`outlook` takes this many cells from its merge, then scans every hidden
#: cell for each next one (the same order, a longer way: the tests set this low
#: to check that the two agree; where the frontier has a cell twice it scans).
_LAZY_STEPS = 1 << 30


@helper
def _before(qa: float, fa: int, qb: float, fb: int) -> bool:
    """Whether cell ``fa`` (probability ``qa``) comes before cell ``fb``.

    The order of a stable sort of the hidden cells by probability (NaN
    last, as NumPy sorts): by probability, then row-major.
    """
    if np.isnan(qa):
        return np.isnan(qb) and fa < fb
    if np.isnan(qb):
        return True
    return qa < qb or (qa == qb and fa < fb)


@helper
def _kind(
    cells: NDArray[np.int8], q: NDArray[np.float64], rows: int, cols: int, r: int, c: int
) -> int:
    """Cell ``(r, c)``'s kind: 2 revealed, 1 undecided (a hidden cell not certain), else 0.

    0 off the board.  ``cells`` and ``q`` are the board and its
    probabilities, flat.
    """
    if r < 0 or r >= rows or c < 0 or c >= cols:
        return 0
    f = r * cols + c
    if cells[f] >= 0:
        return 2
    return 1 if 0.0 < q[f] < 1.0 else 0


@helper
def _dead(cells: NDArray[np.int8], q: NDArray[np.float64], rows: int, cols: int, f: int) -> bool:
    """Whether hidden cell ``f`` is dead (see :func:`outlook`), its kinds read in place.

    Its undecided neighbours are the same as a number's when each of
    the number's is next to ``f`` and there are as many: no list is
    kept.
    """
    r, c = f // cols, f % cols
    n_own = 0
    first_r, first_c = -1, -1  # its first undecided neighbour, row-major
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if (dr or dc) and _kind(cells, q, rows, cols, r + dr, c + dc) == 1:
                if n_own == 0:
                    first_r, first_c = r + dr, c + dc
                n_own += 1
    if n_own == 0:
        return True  # no undecided neighbour
    # a number with the same undecided neighbours touches all of them,
    # so it is next to the first of them
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            vr, vc = first_r + dr, first_c + dc
            if not (dr or dc) or _kind(cells, q, rows, cols, vr, vc) != 2:
                continue
            n_theirs = 0
            same = True
            for pr in range(vr - 1, vr + 2):
                for pc in range(vc - 1, vc + 2):
                    if _kind(cells, q, rows, cols, pr, pc) == 1:
                        n_theirs += 1
                        if (pr == r and pc == c) or abs(pr - r) > 1 or abs(pc - c) > 1:
                            same = False  # (not one of f's undecided neighbours)
            if same and n_theirs == n_own:
                return True
    return False


@helper
def _outlook(
    probe: NDArray[np.int8],
    front_flat: NDArray[np.intp],
    fp: NDArray[np.float64],
    fp_at: int,
    off_p: float,
    off_at: int,
    lazy: int,
) -> tuple[float, float, bool]:
    """:func:`outlook`, the frontier's probabilities from ``fp[fp_at]`` on.

    A call on a real position costs mostly what it sets up, so it sets
    up little: one array of probabilities, no grid of kinds (read in
    place around the few cells tested), no list of hidden cells.  Each
    next cell is the first after the last taken (:func:`_before`): the
    least of the frontier's, or the next off-frontier hidden cell
    (their probabilities are all ``off_p``), found by a pointer.  Where
    the frontier is not in increasing order (a cell repeated), or after
    ``lazy`` cells (:data:`_LAZY_STEPS`), every hidden cell is scanned
    instead.
    """
    rows, cols = probe.shape
    n = rows * cols
    cells = probe.reshape(n)
    n_front = front_flat.shape[0]
    q = np.empty(n)  # (read at hidden cells only)
    for f in range(n):
        q[f] = off_p
    ordered = True
    for i in range(n_front):
        q[front_flat[i]] = fp[fp_at + i]
        if i and front_flat[i] <= front_flat[i - 1]:
            ordered = False
    # the next off-frontier hidden cell (n if none), and the first frontier
    # cell from it on
    o_cell, o_front = -1, 0
    f1 = f2 = 0.0  # the two best safeties (0 where there are fewer cells)
    n_found = 0
    live_safe = False
    last_q, last_f = 0.0, -1  # the cell taken last
    for step in range(n + 1):
        merge = ordered and step < lazy
        if merge and o_cell == last_f:  # (none yet, or it was taken)
            o_cell += 1
            while o_cell < n:
                while o_front < n_front and front_flat[o_front] < o_cell:
                    o_front += 1
                if cells[o_cell] == -1 and not (
                    o_front < n_front and front_flat[o_front] == o_cell
                ):
                    break
                o_cell += 1
        best_q, best_f = 0.0, -1
        if merge:
            if o_cell < n:
                best_q, best_f = off_p, o_cell
            for i in range(n_front):
                f = front_flat[i]
                qf = fp[fp_at + i]
                if (
                    cells[f] == -1  # HIDDEN: clickable (a flag is hidden, not clickable)
                    and (last_f < 0 or _before(last_q, last_f, qf, f))
                    and (best_f < 0 or _before(qf, f, best_q, best_f))
                ):
                    best_q, best_f = qf, f
        else:
            for f in range(n):
                if (
                    cells[f] == -1
                    and (last_f < 0 or _before(last_q, last_f, q[f], f))
                    and (best_f < 0 or _before(q[f], f, best_q, best_f))
                ):
                    best_q, best_f = q[f], f
        if best_f < 0:
            break
        last_q, last_f = best_q, best_f
        if best_q < 1.0 and _dead(cells, q, rows, cols, best_f):
            continue
        if n_found == 0:
            if best_q == 0.0:
                live_safe = True
            f1 = 1.0 - best_q
        else:
            f2 = 1.0 - best_q
        n_found += 1
        if n_found == 2:
            break
    floor = 1.0 - off_p if off_at >= 0 else 0.0
    if np.isnan(f1) or np.isnan(f2) or np.isnan(floor):
        best = np.sort(np.array([f1, f2, 0.0, 0.0, floor, floor]))  # (NaN last)
        return best[5], best[4], live_safe
    # the two largest of f1, f2, 0, 0, floor, floor: what a sort puts last
    hi, lo = (f1, f2) if f1 >= f2 else (f2, f1)
    for v in (0.0, 0.0, floor, floor):
        if v > hi:
            hi, lo = v, hi
        elif v > lo:
            lo = v
    return np.float64(hi), np.float64(lo), live_safe  # (as the sort's, uncompiled too)


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
    as many cells as needed are tested, safest first (in the order of a
    stable sort: by probability, NaN last, then row-major); two or three
    usually do.
    """
    return _outlook(probe, front_flat, front_p, 0, off_p, off_at, _LAZY_STEPS)


@helper
def _put_part(
    buf: NDArray[np.int64],
    at: int,
    low: int,
    first: int,
    width: int,
    counts: NDArray[np.int64],
    marginals: NDArray[np.int64],
    order: NDArray[np.int64],
    a: int,
    b: int,
) -> int:
    """Write a counted part into ``buf`` from ``at`` on, in ``rest``'s form; where it ends.

    ``(low, width, n_groups)``, its ``width`` counts from ``counts[first]``
    on, its groups ``order[a:b]`` and their rows of ``marginals``.
    """
    buf[at], buf[at + 1], buf[at + 2] = low, width, b - a
    at += 3
    for t in range(width):
        buf[at + t] = counts[first + t]
    at += width
    for x in range(b - a):
        buf[at + x] = order[a + x]
    at += b - a
    for x in range(b - a):
        for t in range(width):
            buf[at + t] = marginals[x, first + t]
        at += width
    return at


@kernel(
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    nt.int64,
    nt.int64,
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
    shows: NDArray[np.int64],
    shown_at: int,
    n: int,
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
    shows, shown_at, n : ndarray of int64, shape (n_cons,), int, int
        What each number shows; the cell's own is number ``shown_at`` (-1
        if it has no hidden neighbour), and it shows ``n``.
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
        The visible state with the cell shown (as any number: only
        whether a cell is revealed is read).
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
    # the parts' widths, for the scratch's size
    spread, widest = 0, 0
    at = 4
    for _ in range(n_rest):
        width = rest[at + 1]
        spread += max(width - 1, 0)
        widest = max(widest, width)
        at += 3 + width + rest[at + 2] * (width + 1)
    extra = 0
    if own >= 0:
        need = shows.copy()
        if shown_at >= 0:
            need[shown_at] = n
        number = np.full(need.shape[0], -1, dtype=np.int64)
        status, _, own_low, first, last, counts, marginals = count_part(
            sizes, grp_ptr, grp_idx, part_ptr, order, need, own, max_states, number
        )
        if status == EMPTY:
            return (EMPTY, 0, 0, 0, 0.0, 0.0, False)
        if status != OK:
            return fail
        width = last - first + 1
        a, b = part_ptr[own], part_ptr[own + 1]
        extra = 3 + width + (b - a) * (width + 1)  # (what _put_part writes)
        spread += max(width - 1, 0)
        widest = max(widest, width)
    # one scratch for all: data (the rest's parts and the cell's own, in their
    # form), where each part's counts start, two products by turns for the
    # counts of all parts, the weights and their scratch, two for the counts of
    # all parts but one, and that part's weights
    size = spread + 1  # (the longest product, or a longer one)
    n_data = rest.shape[0] + extra
    n_parts = n_rest + (1 if own >= 0 else 0)
    buf = np.empty(n_data + n_parts + 6 * size + widest, dtype=np.int64)
    starts = n_data
    prod = starts + n_parts
    context = prod + 2 * size
    spare = context + size
    others = spare + size
    weights = others + 2 * size
    for i in range(rest.shape[0]):
        buf[i] = rest[i]
    if own >= 0:
        # appended to the rest's parts, in their form
        _put_part(buf, rest.shape[0], own_low, first, width, counts, marginals, order, a, b)
        n_rest += 1
    u, m, low = buf[0], buf[1], buf[2]
    # where each part's counts start in data; its groups and rows follow
    at = 4
    for c in range(n_rest):
        low += buf[at]
        buf[starts + c] = at + 3
        at += 3 + buf[at + 1] + buf[at + 2] * (buf[at + 1] + 1)
    scaled, n_totals = prod, 1
    buf[scaled] = 1
    for c in range(n_rest):
        s = buf[starts + c]
        into = prod + size if scaled == prod else prod
        if not _convolve(buf, scaled, n_totals, buf, s, buf[s - 2], buf, into):
            return fail
        scaled, n_totals = into, n_totals + buf[s - 2] - 1
    fits = _weights(buf, scaled, n_totals, low, m, u, buf, context, buf, spare)
    grand = _dot(buf, scaled, n_totals, buf, context) if fits else -1
    if grand <= 0:
        return fail
    k_ref = 0
    while buf[context + k_ref] == 0:
        k_ref += 1
    # the groups' probabilities, then the frontier cells'
    n_groups = rest_p.shape[0]
    group_p = np.empty(n_groups + group_of.shape[0])
    for g in range(n_groups):
        group_p[g] = rest_p[g]
    for c in range(n_rest):
        prod_c, n_prod = others, 1
        buf[prod_c] = 1
        for d in range(n_rest):
            if d != c:
                s = buf[starts + d]
                into = others + size if prod_c == others else others
                if not _convolve(buf, prod_c, n_prod, buf, s, buf[s - 2], buf, into):
                    return fail
                prod_c, n_prod = into, n_prod + buf[s - 2] - 1
        s = buf[starts + c]
        width, n_groups = buf[s - 2], buf[s - 1]
        for t in range(width):
            buf[weights + t] = _dot(buf, prod_c, n_prod, buf, context + t)
            if buf[weights + t] < 0:
                return fail
        rows = s + width + n_groups
        for i in range(n_groups):
            g = buf[s + width + i]
            num = _dot(buf, rows + i * width, width, buf, weights)
            p = _ratio(num, checked_mul(grand, sizes[g])) if num >= 0 else -1.0
            if p < 0.0:
                return fail
            group_p[g] = p
    off_p = np.nan
    if u:
        mined = 0
        for k in range(n_totals):
            term = checked_mul(buf[scaled + k], buf[context + k])
            if term > 0:  # (then the total fits: m - low - k >= 0)
                term = checked_mul(term, m - low - k)
            if term < 0 or mined + term > LIMIT:
                return fail
            mined += term
        off_p = _ratio(mined, checked_mul(grand, u))
        if off_p < 0.0:
            return fail
    front_at = rest_p.shape[0]
    for i in range(group_of.shape[0]):
        group_p[front_at + i] = group_p[group_of[i]]
    s1, s2, live_safe = _outlook(probe, front_flat, group_p, front_at, off_p, off_at, _LAZY_STEPS)
    return OK, grand, buf[context + k_ref], m - low - k_ref, s1, s2, live_safe


@kernel(*[readonly(nt.int64[::1])] * 6, *[nt.int64] * 4)
def probe_rest(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    own: int,
    max_states: int,
    unconstrained: int,
    mines: int,
) -> tuple[int, NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """Every part but the cell's own counted, as :func:`probe_outlook` takes them.

    Parameters
    ----------
    sizes, grp_ptr, grp_idx, part_ptr, order : ndarray of int64
        The structure of the position with the cell shown, as
        :func:`~numsweeper.solver.counting.count_parts` takes it.
    need : ndarray of int64, shape (n_cons,)
        What each number shows (the cell's own is not read).
    own : int
        The cell's own part (not counted), or -1.
    max_states : int
        The guard on the counts.
    unconstrained, mines : int
        The cells off the frontier and the mines, for the head of ``rest``.

    Returns
    -------
    status : int
        :data:`~numsweeper.solver.counting.OK`, else the status of the
        first part not counted plainly (no layout, too many states, a
        count past int64), or ``FALLBACK`` where a probability's terms do
        not convert to floats exactly; the rest is then meaningless.
    rest : ndarray of int64
        :func:`probe_outlook`'s ``rest``: the parts of several mine totals,
        each with its groups in elimination order.
    rest_p : ndarray of float64, shape (n_groups,)
        The mine probability of each group of a part of one total (its
        mine-weighted count over its part's count times its size, as
        Python divides the two), NaN elsewhere.
    coeffs : ndarray of int64
        The counts of the parts of one total (their product is
        :func:`probe_outlook`'s ``factor``).

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.solver.probe import probe_rest
    >>> from numsweeper.solver.structure import frontier
    >>> cells = np.array([[1, -1, -1, -1, 2], [-1, -1, -1, -1, -1]], dtype=np.int8)
    >>> shape = frontier(cells < 0, cells >= 0)  # two parts: the 1's and the 2's
    >>> need = cells.ravel()[shape.con_flat].astype(np.int64)
    >>> status, rest, rest_p, coeffs = probe_rest(*shape.count_args, need, 1, 10, 2, 3)
    >>> rest.tolist(), rest_p.round(3).tolist(), coeffs.tolist()  # the 1's: C(3, 1)
    ([2, 3, 1, 0], [0.333, nan], [3])
    """
    n_groups = sizes.shape[0]
    rest_p = np.full(n_groups, np.nan)
    coeffs = np.empty(part_ptr.shape[0], dtype=np.int64)
    rest = np.empty(16, dtype=np.int64)
    number = np.full(need.shape[0], -1, dtype=np.int64)
    rest[0], rest[1], rest[2], rest[3] = unconstrained, mines, 0, 0
    used, n_coeffs = 4, 0
    for j in range(part_ptr.shape[0] - 1):
        if j == own:
            continue
        status, _, low, first, last, counts, marginals = count_part(
            sizes, grp_ptr, grp_idx, part_ptr, order, need, j, max_states, number
        )
        if status != OK:
            return status, rest[:0], rest_p, coeffs[:0]
        a, b = part_ptr[j], part_ptr[j + 1]
        width = last - first + 1
        if width == 1:  # one total: a factor, and its groups' own ratios
            for x in range(b - a):
                g = order[a + x]
                p = _reduced_ratio(marginals[x, first], checked_mul(counts[first], sizes[g]))
                if p < 0.0:
                    return FALLBACK, rest[:0], rest_p, coeffs[:0]
                rest_p[g] = p
            rest[2] += low
            coeffs[n_coeffs] = counts[first]
            n_coeffs += 1
            continue
        rest = _grow(rest, used, 3 + width + (b - a) * (width + 1))
        used = _put_part(rest, used, low, first, width, counts, marginals, order, a, b)
        rest[3] += 1
    return OK, rest[:used], rest_p, coeffs[:n_coeffs]


@helper
def _no_shares(status: int, m: int) -> tuple[int, NDArray[np.float64], NDArray[np.float64], int]:
    """:func:`given_shares`'s answer with no totals (made only where it is the answer)."""
    return status, np.empty(0), np.empty(0), m


@subroutine
def shares_given(
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
    """:func:`given_shares` for the arrays of any kernel (``given`` writable too)."""
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
            return _no_shares(FALLBACK, 0)
        for b in range(a):
            if given[b] == given[a]:
                return _no_shares(FALLBACK, 0)
        g = group_of[i]
        reduced[g] -= 1
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            left[grp_idx[p]] -= 1
        touched[part_of[g]] = True
    if m < 0:
        return _no_shares(OK, m)
    for c in range(left.shape[0]):
        if left[c] < 0:
            return _no_shares(OK, m)  # more mines than a number shows
    # polynomials by mine total, from low_given and low_whole on
    with_given = np.ones(1, dtype=np.int64)
    whole = np.ones(1, dtype=np.int64)
    low_given, low_whole = x, 0
    number = np.full(need.shape[0], -1, dtype=np.int64)
    for j in range(n_parts):
        if info[j, 0] != OK:
            return _no_shares(FALLBACK, 0)
        low, width, at = info[j, 2], info[j, 3], info[j, 4]
        low_whole += low
        if touched[j]:
            status, _, low, first, last, counts, _ = count_part(
                reduced, grp_ptr, grp_idx, part_ptr, order, left, j, max_states, number
            )
            if status == EMPTY:
                return _no_shares(OK, m)
            if status != OK:
                return _no_shares(FALLBACK, 0)
            fits, with_given = _convolved(with_given, counts, first, last - first + 1)
        elif width > 1:
            fits, with_given = _convolved(with_given, values, at, width)
        else:
            fits = True  # (a factor of both: left out)
        low_given += low
        if fits and (touched[j] or width > 1):
            fits, whole = _convolved(whole, values, at, width)
        if not fits:
            return _no_shares(FALLBACK, 0)
    low = min(low_given, low_whole)
    high = max(low_given + with_given.shape[0], low_whole + whole.shape[0])
    n_totals = high - low
    # a layout with the total, either way; the weights; their scratch
    either = np.zeros(3 * n_totals, dtype=np.int64)
    for t in range(with_given.shape[0]):
        if with_given[t]:
            either[low_given - low + t] = 1
    for t in range(whole.shape[0]):
        if whole[t]:
            either[low_whole - low + t] = 1
    weights = n_totals
    fits = _weights(
        either, 0, n_totals, low, mines, unconstrained, either, weights, either, 2 * n_totals
    )
    total = _dot(whole, 0, whole.shape[0], either, weights + low_whole - low) if fits else -1
    if total <= 0:
        return _no_shares(FALLBACK, 0)
    ks = np.empty(with_given.shape[0])
    share = np.empty(with_given.shape[0])
    n = 0
    for t in range(with_given.shape[0]):
        k = low_given + t  # (the given cells counted)
        if with_given[t] and 0 <= mines - k <= unconstrained:
            num = checked_mul(with_given[t], either[weights + k - low])
            ratio = _reduced_ratio(num, total) if num >= 0 else -1.0
            if ratio < 0.0:
                return _no_shares(FALLBACK, 0)
            ks[n] = k - x
            share[n] = ratio
            n += 1
    return OK, ks[:n], share[:n], m


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
    return shares_given(
        sizes, grp_ptr, grp_idx, part_ptr, order, need, info, values,
        front_flat, group_of, given, mines, unconstrained, max_states,
    )  # fmt: skip
