"""The endgame search: the click that wins most often, when few layouts remain.

When few layouts of the mines are left (a few hundred, or up to a few
thousand late in a dense game), the policy lists them all and searches
every line of play: an exhaustive expectimax whose states are sets of
layouts.  Cells safe in every layout of a state are revealed for free
(more information never hurts), then the search tries each undecided cell
and sums over the numbers it could show.  It counts layouts won in exact
integers, so equal clicks tie exactly.

Both the listing and the search are compiled kernels.  The search memoises
states by two 64-bit hashes of their layout indices (a collision costs a
recount, never a wrong count), prunes clicks that cannot beat the best one
found (bounded by the layouts where they are safe), and tries *dead* clicks
(one number wherever they are safe) only when every click is dead.  Its
budget counts states and the layout-cells they examine, both the same in
any order of search.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from .._constants import HIDDEN
from .._kernels import adjacent_counts
from ._jit import frozen, helper, kernel, readonly, subroutine
from .analysis import Analysis
from .structure import sort_by_label

__all__ = ["best_click", "endgame_values", "list_layouts"]

_INT62 = 2**62  # caps the limits passed to the kernels (int64)
_NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]

#: The endgame search may examine ``budget * WORK_PER_STATE`` layout-cells
#: in all, and its layout listing may take as many steps.  In expert games a
#: state examines about 140-180 on average (at most about 550), so a search
#: of wide states stops at the work limit before it reaches ``budget``
#: states.  No search of up to 300 layouts in 1,200 measured expert games
#: reached either limit; above 1,000 layouts (the density rule) about a third
#: of the searches stop at one (see docs/win_rates.md, "Seventh round").
WORK_PER_STATE = 200

#: How :func:`list_layouts` places the cells: the cell of each step, the
#: numbers (constraint ids) it touches, how many of each number's cells are
#: still unplaced after it, and each number's mines still to place.
_Placement = tuple[list[int], list[list[int]], list[list[int]], list[int]]


def best_click(cells: NDArray[np.int8], a: Analysis, budget: int) -> tuple[int, int] | None:
    """Best click by exhaustive search over the few remaining layouts.

    The click with the highest win probability from :func:`endgame_values`
    (among the clicks it counts in full, ties to the first cell in row-major
    order; a dead click that ties is not counted), or None.
    """
    values = endgame_values(cells, a, budget, every=False)
    if not values:
        return None
    return max(values, key=lambda rc: (values[rc], -rc[0], -rc[1]))


def endgame_values(
    cells: NDArray[np.int8],
    a: Analysis,
    budget: int,
    every: bool = True,
    work_per_state: int = WORK_PER_STATE,
) -> dict[tuple[int, int], float] | None:
    """Win probability of each undecided click under perfect play after it.

    Every layout is equally likely.  A click's value is the layouts it wins
    over the number of layouts.  With ``every`` each click of the position
    gets its value; without, only those the search had to count in full,
    which include a best one.  Certain mines are fixed, so only undecided
    cells enter the layouts.  Returns None if the search needs more than
    ``budget`` states, or examines more than ``budget * work_per_state``
    layout-cells, or no click is undecided.
    """
    p = a.probabilities
    known = (cells < 0) & (p == 1.0)
    undecided = (cells < 0) & (p > 0.0) & (p < 1.0)
    unknown = [(int(r), int(c)) for r, c in np.argwhere(undecided).tolist()]
    mines = a.mines_left - int(np.count_nonzero(known))
    limit = budget * work_per_state
    lays = list_layouts(cells, known, mines, unknown, limit)
    if lays is None or len(lays) != a.layouts:
        return None
    index = {rc: i for i, rc in enumerate(unknown)}
    nbr = np.zeros((len(unknown), lays.shape[1]), dtype=np.uint64)
    for i, (r, c) in enumerate(unknown):
        for dr, dc in _NEIGHBOURS:
            j = index.get((r + dr, c + dc), -1)
            if j >= 0:
                nbr[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    clickable = np.array([cells[r, c] == HIDDEN for r, c in unknown], dtype=np.bool_)
    wins = endgame_wins(
        frozen(lays),
        frozen(nbr),
        frozen(clickable),
        min(budget, _INT62),
        min(limit, _INT62),
        bool(every),
    )
    won = {i: w for i, w in enumerate(wins.tolist()) if w >= 0}
    if not won:  # (an empty array: past the budget)
        return None
    return {unknown[i]: w / len(lays) for i, w in won.items()}


def list_layouts(
    cells: NDArray[np.int8],
    known: NDArray[np.bool_],
    mines: int,
    unknown: list[tuple[int, int]],
    limit: int = _INT62,
) -> NDArray[np.uint64] | None:
    """Every layout of ``mines`` mines over ``unknown`` that fits the numbers.

    ``known`` marks certain mines outside ``unknown``; cells neither known
    nor in ``unknown`` are certainly safe.  Returns one row of 64-bit words
    per layout (cell ``i`` of ``unknown`` is bit ``i % 64`` of word
    ``i // 64``), or None after ``limit`` placement steps.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.solver.endgame import list_layouts
    >>> cells = np.array([[1, -1, -1]], dtype=np.int8)
    >>> list_layouts(cells, cells == 9, 1, [(0, 1), (0, 2)]).tolist()
    [[1]]
    """
    index = {rc: i for i, rc in enumerate(unknown)}
    order, of_step, room, need = _placement(cells, known, unknown, index)
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(js) for js in of_step])
    words = max(1, -(-len(unknown) // 64))
    lays, complete = endgame_layouts(
        frozen(np.array(order, dtype=np.int64)),
        frozen(ptr),
        frozen(np.array([j for js in of_step for j in js], dtype=np.int64)),
        frozen(np.array([r for rs in room for r in rs], dtype=np.int64)),
        np.array(need, dtype=np.int64),
        mines,
        min(limit, _INT62),
        words,
    )
    return lays if complete else None


def _placement(
    cells: NDArray[np.int8],
    known: NDArray[np.bool_],
    unknown: list[tuple[int, int]],
    index: dict[tuple[int, int], int],
) -> _Placement:
    """The order in which :func:`list_layouts` places cells, and its checks.

    The cells some number constrains come first (row-major), so that a
    branch that can no longer meet a number stops at once; the
    unconstrained cells, placed last, never dead-end.
    """
    cons: list[tuple[int, list[int]]] = []
    known_nb = adjacent_counts(known)
    placed = np.zeros(cells.shape, dtype=bool)
    if unknown:
        placed[tuple(np.array(unknown).T)] = True
    # (the numbers next to a cell to place, row-major; the others have no members)
    for r, c in np.argwhere((cells >= 0) & (adjacent_counts(placed) > 0)).tolist():
        members = [index[(r + dr, c + dc)] for dr, dc in _NEIGHBOURS if (r + dr, c + dc) in index]
        if members:
            cons.append((int(cells[r, c] - known_nb[r, c]), members))
    n = len(unknown)
    seen = sorted({i for _, members in cons for i in members})
    order = seen + sorted(set(range(n)) - set(seen))
    at = {i: k for k, i in enumerate(order)}
    of_step: list[list[int]] = [[] for _ in range(n)]
    for j, (_, members) in enumerate(cons):
        for i in members:
            of_step[at[i]].append(j)
    # room[k][t]: cells of the t-th number of step k still unplaced after it
    room = [[sum(at[i] > k for i in cons[j][1]) for j in of_step[k]] for k in range(n)]
    return order, of_step, room, [v for v, _ in cons]


# -- kernels ------------------------------------------------------------------


@helper
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    # the bytes' sum by shifts, not the usual wrapping multiply, which numpy
    # warns of when the kernels run uncompiled
    x = x + (x >> np.uint64(8))
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return int(x & np.uint64(0x7F))


@helper
def _bit(words: NDArray[Any], i: int) -> bool:
    return bool((words[i >> 6] >> np.uint64(i & 63)) & np.uint64(1))


@helper
def _mix(x: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a well-spread hash of one layout index."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@helper
def _key(idx: NDArray[Any], start: int, m: int) -> tuple[np.uint64, np.uint64]:
    """Two 64-bit hashes of the layout indices ``idx[start:start + m]``."""
    h1 = np.uint64(m)
    h2 = np.uint64(0x9E3779B97F4A7C15)
    for x in range(start, start + m):
        j = np.uint64(idx[x])
        h1 += _mix(j)
        h2 = (h2 ^ _mix(j + np.uint64(0x632BE59BD9B4E019))) * np.uint64(0x100000001B3)
    return (h1, h2)


@helper
def _slot(slots: NDArray[Any], h1: np.uint64, h2: np.uint64) -> int:
    """The memo's slot of the key ``(h1, h2)``: its own, or the empty one it would take.

    Open addressing with linear probing; a slot is ``(h1, h2, place + 1)``,
    0 in the last column while empty.  The table's size is a power of two
    and it always has an empty slot (:func:`_store` keeps it at most half
    full), so the probe ends.
    """
    mask = slots.shape[0] - 1
    s = np.int64(h1 & np.uint64(mask))
    while slots[s, 2] != 0 and (slots[s, 0] != h1 or slots[s, 1] != h2):
        s = (s + 1) & mask
    return int(s)


@helper
def _recall(
    idx: NDArray[Any],
    start: int,
    m: int,
    h1: np.uint64,
    h2: np.uint64,
    slots: NDArray[Any],
    pool: NDArray[Any],
) -> int:
    """The memoised count of the state ``idx[start:start + m]``, or -1.

    -1 also on a hash collision: a hit counts only if the pool holds the
    state's own indices.  1 for a state of one layout (never memoised).
    (No early returns: see :func:`_search`.)
    """
    at = int(slots[_slot(slots, h1, h2), 2]) - 1  # (-1: an empty slot)
    same = at >= 0 and pool[at] == m
    for x in range(m if same else 0):
        same &= pool[at + 2 + x] == idx[start + x]
    won = pool[at + 1]
    return 1 if m == 1 else int(won) if same else -1


@helper
def _put(
    idx: NDArray[Any],
    start: int,
    m: int,
    h1: np.uint64,
    h2: np.uint64,
    result: int,
    slots: NDArray[Any],
    pool: NDArray[Any],
    used: NDArray[Any],
) -> bool:
    """Memoise the state's count unless its key is taken (by another state).

    ``used`` holds the pool's used length and the slots taken.  True once
    it is memoised or its key is taken; False (and nothing done) if the
    pool has no room for it or the slots would be more than half full:
    :func:`_store` grows them first.  (No early returns: see :func:`_search`.)
    """
    s = _slot(slots, h1, h2)
    at = used[0]
    fits = at + m + 2 <= pool.shape[0] and 2 * (used[1] + 1) <= slots.shape[0]
    put = slots[s, 2] == 0 and fits
    if put:
        slots[s, 0], slots[s, 1], slots[s, 2] = h1, h2, np.uint64(at + 1)
        pool[at] = m
        pool[at + 1] = result
    for x in range(m if put else 0):
        pool[at + 2 + x] = idx[start + x]
    used[0] += m + 2 if put else 0
    used[1] += put
    return bool(slots[s, 2] != 0)


@helper
def _store(
    idx: NDArray[Any],
    start: int,
    m: int,
    h1: np.uint64,
    h2: np.uint64,
    result: int,
    slots: NDArray[Any],
    pool: NDArray[Any],
    used: NDArray[Any],
) -> tuple[NDArray[Any], NDArray[Any]]:
    """:func:`_put`, growing the pool or the slots first if it must.

    Returns the slots and the pool, each possibly grown (the slots are
    kept at most half full).
    """
    if _put(idx, start, m, h1, h2, result, slots, pool, used):
        return slots, pool
    at = used[0]
    if at + m + 2 > pool.shape[0]:
        bigger = np.empty(max(2 * pool.shape[0], at + m + 2), dtype=np.int64)
        bigger[:at] = pool[:at]
        pool = bigger
    if 2 * (used[1] + 1) > slots.shape[0]:
        grown = np.zeros((2 * slots.shape[0], 3), dtype=np.uint64)
        for t in range(slots.shape[0]):
            if slots[t, 2] != 0:
                grown[_slot(grown, slots[t, 0], slots[t, 1])] = slots[t]
        slots = grown
    _put(idx, start, m, h1, h2, result, slots, pool, used)
    return slots, pool


@helper
def _meets(varying: NDArray[Any], nbr: NDArray[Any], i: int) -> bool:
    """Whether any neighbour of cell ``i`` is in ``varying``."""
    for w in range(varying.shape[0]):  # noqa: SIM110 (any() of a generator does not compile)
        if varying[w] & nbr[i, w]:
            return True
    return False


@helper
def _beats(value: int, i: int, top: int, top_i: int, by_index: bool) -> bool:
    return value > top or (by_index and value == top and i < top_i)


# A state of the search (a row of ``frames``; its memo key is the same row
# of ``keys``): its layouts, its place in the stacks, and where its loop
# over parts or clicks stands.
(
    _START,  # its layout indices: idx[_START:_START + _M]
    _M,  # how many layouts it has
    _SP,  # the tops of the three stacks (idx, ints, union) when it was
    _ISP,  # entered, restored when it ends; its own union of layouts is
    _USP,  # the first entry it pushed: union[_USP:_USP + words]
    _ORD,  # its layouts sorted by part or by number: idx[_ORD:_ORD + _M]
    _STARTS,  # where each part (or number) starts in them: ints[_STARTS:]
    _TABLE,  # its clicks: cells, safe layouts, order, waiting (4 x _N_CELLS ints)
    _N_CELLS,  # how many clicks it has
    _N_LABELS,  # > 1: it splits by the numbers of its newly safe cells
    _K,  # the part (or, of a click, the number) in hand
    _ACC,  # the parts' sum, or the click's total so far
    _REST,  # the click's safe layouts not yet counted
    _CUR,  # the click in hand (a click number), -1 between clicks
    _POS,  # the place in the list of clicks being tried
    _LAST,  # 1 in the last pass: over the dead clicks that waited
    _N_WAITING,  # how many dead clicks wait
    _ANY_LIVE,  # 1 once a click turned out live
    _TOP,  # the best click's count so far
    _TOP_I,  # its cell (n while there is none)
    _N_FIELDS,
) = range(21)

#: ints for a click's split by number: the 11 starts of the numbers 0-8
#: and of a mine (9), and 10 of scratch for the sort (``sort_by_label``)
_CLICK_STARTS = 21


# Where :func:`_search` stands when it hands back to :func:`endgame_wins`
# (a row of ``regs``), to go on from there when it is called again.
(
    _DEPTH,  # the state on top
    _ENTERING,  # 1: it enters the state ``_AT_START``/``_AT_M`` (at ``_DEPTH``)
    _STORED,  # 1: the state on top is memoised (by the kernel): it leaves it
    _AT_START,  # the state to enter: its layouts idx[_AT_START:_AT_START + _AT_M],
    _AT_M,
    _ABOVE,  # and the union of the state it split off: union[_ABOVE:]
    _RET,  # the count of the state just left (or, to memoise, of the state on top)
    _STACK,  # the tops of the three stacks (idx, ints, union)
    _ISTACK,
    _USTACK,
    _STATES,  # the budget left: states, and layout-cells
    _CELLS_LEFT,
    _SKIP,  # the cell clicked to reach the state to enter (-1: none)
    _N_REGS,
) = range(14)

# What :func:`_search` hands back.
_DONE, _OVER, _GROW_STACKS, _GROW_MEMO = range(4)


@subroutine
def _search(
    lays: NDArray[Any],
    nbr: NDArray[Any],
    clickable: NDArray[Any],
    reads: NDArray[Any],
    every: bool,
    out: NDArray[Any],
    scratch: NDArray[Any],
    masks: NDArray[Any],
    idx: NDArray[Any],
    ints: NDArray[Any],
    union: NDArray[Any],
    frames: NDArray[Any],
    keys: NDArray[Any],
    slots: NDArray[Any],
    pool: NDArray[Any],
    used: NDArray[Any],
    regs: NDArray[Any],
) -> int:
    """:func:`endgame_wins`' search, from where ``regs`` says, until it ends.

    Returns ``_DONE`` (the counts are in ``out``), ``_OVER`` (past the
    budget), or, when an array is too small for the next step, which to
    grow, with ``regs`` saying where to go on: ``_GROW_STACKS`` before it
    enters a state (whose key waits in ``keys[_DEPTH]``: ``keys`` has a row
    more than ``frames``), ``_GROW_MEMO`` when memoising the state on top
    would fill more than half the slots or overflow the pool (the kernel
    then memoises it with :func:`_store`, which grows them).  It never
    replaces an array: numba would count references to an array that a
    loop may replace at every step.  Its helpers (inlined) take arrays,
    but each array's last use in them is one that every path reaches, so
    numba's pruning removes the counts of those calls too.
    """
    n = nbr.shape[0]
    n_lays = lays.shape[0]
    words = lays.shape[1]
    defer = True  # dead clicks wait only when no cell is flagged
    for i in range(n):
        defer = defer and clickable[i]
    labels, renumber = scratch, scratch[n_lays:]
    varying, fresh = masks[:words], masks[words:]
    depth = regs[_DEPTH]
    entering, stored = regs[_ENTERING] == 1, regs[_STORED] == 1
    start, m, above, skip = regs[_AT_START], regs[_AT_M], regs[_ABOVE], regs[_SKIP]
    ret = regs[_RET]
    sp, isp, usp = regs[_STACK], regs[_ISTACK], regs[_USTACK]
    states, cells_left = regs[_STATES], regs[_CELLS_LEFT]
    key = (keys[depth, 0], keys[depth, 1])
    while True:
        if not stored:
            if entering:
                if (
                    depth == frames.shape[0]
                    or usp + words > union.shape[0]
                    or sp + m > idx.shape[0]
                    or isp + max(2 * m + 1, 4 * n + _CLICK_STARTS) > ints.shape[0]
                ):
                    regs[_DEPTH], regs[_ENTERING], regs[_STORED] = depth, 1, 0
                    regs[_AT_START], regs[_AT_M], regs[_ABOVE] = start, m, above
                    regs[_SKIP] = skip
                    regs[_STACK], regs[_ISTACK], regs[_USTACK] = sp, isp, usp
                    regs[_STATES], regs[_CELLS_LEFT] = states, cells_left
                    keys[depth, 0], keys[depth, 1] = key  # (keys has a row more)
                    return _GROW_STACKS
                root = depth == 0
                if not root:
                    states -= 1
                    cells_left -= m * n
                    if states < 0 or cells_left < 0:
                        return _OVER
                keys[depth, 0], keys[depth, 1] = key
                frames[depth, _START], frames[depth, _M] = start, m
                frames[depth, _SP], frames[depth, _ISP], frames[depth, _USP] = sp, isp, usp
                for w in range(words):
                    u = np.uint64(0)
                    inter = np.uint64(0xFFFFFFFFFFFFFFFF)
                    for x in range(start, start + m):
                        u |= lays[idx[x], w]
                        inter &= lays[idx[x], w]
                    union[usp + w] = u
                    varying[w] = u & ~inter
                    fresh[w] = union[above + w] & ~u
                usp += words
                # Reveal every certainly safe cell at once: split by all their
                # numbers (the root has none: its undecided cells are not safe).
                # The cell clicked to get here shows one number in all of them
                # (its part is theirs): its split would change no label.
                for x in range(m):
                    labels[x] = 0
                n_labels = 1
                for i in range(n if not root else 0):
                    if i == skip or not _bit(fresh, i) or not _meets(varying, nbr, i):
                        continue
                    for code in range(9 * n_labels):
                        renumber[code] = -1
                    count = 0
                    for x in range(m):
                        code = labels[x] * 9 + reads[i, idx[start + x]]
                        if renumber[code] < 0:
                            renumber[code] = count
                            count += 1
                        labels[x] = renumber[code]
                    n_labels = count
                at = sp  # its layouts sorted by part, or by a click's number
                frames[depth, _ORD] = at
                sp += m
                frames[depth, _N_LABELS] = n_labels
                frames[depth, _K], frames[depth, _ACC] = 0, 0
                n_cells = 0
                if n_labels == 1:
                    for i in range(n):
                        n_cells += _bit(varying, i) and clickable[i]
                need = 2 * n_labels + 1 if n_labels > 1 else 4 * n_cells + _CLICK_STARTS
                sb = isp
                frames[depth, _STARTS] = sb
                isp += need
                if n_labels > 1:
                    sort_by_label(idx, start, m, labels, n_labels, idx, at, ints, sb)
                else:
                    # the clicks (cells, safe, order, waiting: ints[tb:]), by the
                    # layouts where they are safe, most first, then the lower cell
                    tb = sb + _CLICK_STARTS
                    frames[depth, _TABLE], frames[depth, _N_CELLS] = tb, n_cells
                    c = 0
                    for i in range(n):
                        if _bit(varying, i) and clickable[i]:
                            ints[tb + c] = i
                            c += 1
                    for c in range(n_cells):
                        i = ints[tb + c]
                        mined = 0
                        for x in range(start, start + m):
                            mined += reads[i, idx[x]] == 9
                        ints[tb + n_cells + c] = m - mined
                    order = tb + 2 * n_cells
                    for c in range(n_cells):  # (insertion sort: few clicks)
                        safe, cell = ints[tb + n_cells + c], ints[tb + c]
                        k = c
                        while k > 0:
                            before = ints[order + k - 1]
                            safe_b = ints[tb + n_cells + before]
                            if safe_b > safe or (safe_b == safe and ints[tb + before] < cell):
                                break
                            ints[order + k] = before
                            k -= 1
                        ints[order + k] = c
                    frames[depth, _CUR], frames[depth, _POS], frames[depth, _LAST] = -1, 0, 0
                    frames[depth, _N_WAITING], frames[depth, _ANY_LIVE] = 0, 0
                    frames[depth, _TOP], frames[depth, _TOP_I] = 0, n
                entering = False
                returning = False
            else:
                returning = True
            # Go on with the state on top, with ``ret`` from its part in hand.
            # (Scalar reads and writes only: a view of a stack would cost a
            # reference count at every step.)
            root = depth == 0
            sb = frames[depth, _STARTS]  # its parts start at ints[sb:]
            at = frames[depth, _ORD]
            child = -1  # the part to enter next: its start, size and key
            child_m = 0
            child_key = (np.uint64(0), np.uint64(0))
            child_skip = -1  # (the cell clicked, for a number's part)
            if frames[depth, _N_LABELS] > 1:
                if returning:
                    frames[depth, _ACC] += ret
                    frames[depth, _K] += 1
                while frames[depth, _K] < frames[depth, _N_LABELS]:
                    k = frames[depth, _K]
                    p0 = at + ints[sb + k]
                    pm = ints[sb + k + 1] - ints[sb + k]
                    h1, h2 = _key(idx, p0, pm)
                    won = _recall(idx, p0, pm, h1, h2, slots, pool)
                    if won < 0:
                        child, child_m, child_key = p0, pm, (h1, h2)
                        break
                    frames[depth, _ACC] += won
                    frames[depth, _K] += 1
                if child < 0:
                    ret = frames[depth, _ACC]
            else:
                nc = frames[depth, _N_CELLS]
                tb = frames[depth, _TABLE]  # cells, safe, order, waiting: ints[tb:]
                full_count = root and every
                finished = False
                while child < 0 and not finished:
                    c = frames[depth, _CUR]
                    if c >= 0:  # a click in hand: its numbers from _K on
                        i = ints[tb + c]
                        top, top_i = frames[depth, _TOP], frames[depth, _TOP_I]
                        done = True
                        if returning:
                            returning = False
                            frames[depth, _ACC] += ret
                            bound = frames[depth, _ACC] + frames[depth, _REST]
                            done = full_count or _beats(bound, i, top, top_i, root)
                            frames[depth, _K] += 1
                        while done and frames[depth, _K] < 9:
                            k = frames[depth, _K]
                            if ints[sb + k + 1] > ints[sb + k]:
                                p0 = at + ints[sb + k]
                                pm = ints[sb + k + 1] - ints[sb + k]
                                frames[depth, _REST] -= pm
                                h1, h2 = _key(idx, p0, pm)
                                won = _recall(idx, p0, pm, h1, h2, slots, pool)
                                if won < 0:
                                    child, child_m, child_key = p0, pm, (h1, h2)
                                    child_skip = i
                                    break
                                frames[depth, _ACC] += won
                                bound = frames[depth, _ACC] + frames[depth, _REST]
                                done = full_count or _beats(bound, i, top, top_i, root)
                            frames[depth, _K] += 1
                        if child >= 0:
                            break
                        total = frames[depth, _ACC]
                        if done:
                            if root:
                                out[i] = total
                            if _beats(total, i, top, top_i, True):
                                frames[depth, _TOP], frames[depth, _TOP_I] = total, i
                        frames[depth, _CUR] = -1
                        frames[depth, _POS] += 1
                        continue
                    # the next click to try, if any
                    last = frames[depth, _LAST] == 1
                    pos = frames[depth, _POS]
                    go = pos < (frames[depth, _N_WAITING] if last else nc)
                    if go:
                        c = ints[tb + 3 * nc + pos] if last else ints[tb + 2 * nc + pos]
                        i = ints[tb + c]
                        top, top_i = frames[depth, _TOP], frames[depth, _TOP_I]
                        go = full_count or _beats(ints[tb + nc + c], i, top, top_i, root)
                    if not go:  # the pass is over
                        if (
                            last
                            or frames[depth, _ANY_LIVE] == 1
                            or full_count
                            or frames[depth, _N_WAITING] == 0
                        ):
                            finished = True
                        else:  # every click is dead: try them after all
                            frames[depth, _LAST], frames[depth, _POS] = 1, 0
                        continue
                    # the click's layouts where it is safe, by the number it shows
                    start, m = frames[depth, _START], frames[depth, _M]
                    for x in range(m):
                        labels[x] = reads[i, idx[start + x]]
                    sort_by_label(idx, start, m, labels, 10, idx, at, ints, sb)
                    if defer and not (full_count or last):
                        shown = 0
                        for k in range(9):
                            shown += ints[sb + k + 1] > ints[sb + k]
                        if shown < 2:
                            ints[tb + 3 * nc + frames[depth, _N_WAITING]] = c
                            frames[depth, _N_WAITING] += 1
                            frames[depth, _POS] += 1
                            continue
                        frames[depth, _ANY_LIVE] = 1
                    frames[depth, _CUR], frames[depth, _K] = c, 0
                    frames[depth, _ACC], frames[depth, _REST] = 0, ints[tb + nc + c]
                if child < 0:
                    ret = frames[depth, _TOP]
            if child >= 0:  # enter the part
                start, m, above, key = child, child_m, frames[depth, _USP], child_key
                skip = child_skip
                depth += 1
                entering = True
                continue
        # The state is counted: memoise it (the kernel does, with _store,
        # when the memo must grow first) and hand its count back.
        root = depth == 0
        if not root and not stored:
            h1, h2 = keys[depth, 0], keys[depth, 1]
            start, m = frames[depth, _START], frames[depth, _M]
            if not _put(idx, start, m, h1, h2, ret, slots, pool, used):
                regs[_DEPTH], regs[_ENTERING], regs[_STORED] = depth, 0, 1
                regs[_RET] = ret
                regs[_STACK], regs[_ISTACK], regs[_USTACK] = sp, isp, usp
                regs[_STATES], regs[_CELLS_LEFT] = states, cells_left
                return _GROW_MEMO
        stored = False
        sp, isp, usp = frames[depth, _SP], frames[depth, _ISP], frames[depth, _USP]
        if root:
            return _DONE
        depth -= 1


@kernel(
    readonly(nt.uint64[:, ::1]),
    readonly(nt.uint64[:, ::1]),
    readonly(nt.bool_[::1]),
    nt.int64,
    nt.int64,
    nt.bool_,
)
def endgame_wins(
    lays: NDArray[np.uint64],
    nbr: NDArray[np.uint64],
    clickable: NDArray[np.bool_],
    budget: int,
    work: int,
    every: bool,
) -> NDArray[np.int64]:
    """Layouts won by clicking each undecided cell, then playing perfectly.

    ``lays`` are the layouts as bitmasks over the undecided cells, one row
    of 64-bit words per layout (cell ``i`` is bit ``i % 64`` of word
    ``i // 64``), and ``nbr[i]`` the mask of cell ``i``'s undecided
    neighbours in the same words (at most 8: a cell shows 0-8, and 9 stands
    for a mine).  Returns one count per cell, -1 for a cell that is not a
    risky clickable choice (or, without ``every``, one the search did not
    need to count in full), or an empty array once the search needs more
    than ``budget`` states or ``work`` layout-cells.  A table of the number
    each cell shows in each layout (a byte per cell and layout) is made
    first, outside the ``work`` budget.

    The search is a depth-first expectimax over states (sets of layouts)
    kept on explicit stacks, not a recursion: numba would increment and
    decrement the reference count of every array of every call.  It runs
    in :func:`_search`, which hands back here to grow an array.  A state's
    count is the layouts it wins under perfect play:

    * The root (every layout) tries each click; its counts go to the
      result (those it counts in full; each click's, with ``every``).  It is
      neither a budgeted state nor memoised.
    * Any other state costs one state and ``m * n`` layout-cells of the
      budget (``m`` layouts, ``n`` cells).  A cell already safe in the state
      it split off shows the same number in all of its layouts (that state
      was split by it), so only cells safe here and not there can split it
      (but the click that made it, which shows one number in all of them):
      if their numbers split it, its count is the sum of its parts'.
      Otherwise it tries its clicks, most safe layouts first (then the
      lower cell), and its count is the best click's: a click's count is
      the sum over the numbers it shows of those states' counts.  A click
      that cannot beat the best so far (bounded by its safe layouts) is
      not tried, nor finished.  Dead clicks (one number wherever they are
      safe) wait until every click has turned out dead, unless a cell is
      flagged.  A state of one layout counts 1; others are memoised by two
      hashes of their layout indices.
    """
    n = nbr.shape[0]
    n_lays = lays.shape[0]
    words = lays.shape[1]
    out = np.full(n, -1, dtype=np.int64)
    # what each cell shows in each layout (9: a mine), read in every state
    reads = np.empty((n, n_lays), dtype=np.int8)
    for i in range(n):
        word, bit = i >> 6, np.uint64(i & 63)
        for g in range(n_lays):
            shown = 9
            if not (lays[g, word] >> bit) & np.uint64(1):
                shown = 0
                for w in range(words):
                    shown += _popcount(lays[g, w] & nbr[i, w])
            reads[i, g] = shown
    slots = np.zeros((1 << 10, 3), dtype=np.uint64)
    pool = np.empty(1 << 12, dtype=np.int64)
    used = np.zeros(2, dtype=np.int64)
    scratch = np.empty(10 * n_lays + 9, dtype=np.int64)  # labels, then renumber
    masks = np.empty(2 * words, dtype=np.uint64)  # varying, then fresh
    # the stacks: layout indices, ints (starts and click tables), unions
    idx = np.empty(4 * n_lays + 16, dtype=np.int64)
    ints = np.empty(64 * n_lays + 256, dtype=np.int64)
    union = np.empty(8 * words, dtype=np.uint64)
    frames = np.zeros((16, _N_FIELDS), dtype=np.int64)
    keys = np.zeros((17, 2), dtype=np.uint64)  # (and the next state's, below the top)
    regs = np.zeros(_N_REGS, dtype=np.int64)
    idx[:n_lays] = np.arange(n_lays)
    union[:words] = np.uint64(0xFFFFFFFFFFFFFFFF)  # (the root's "above")
    regs[_ENTERING], regs[_AT_M], regs[_SKIP] = 1, n_lays, -1  # enter the root
    regs[_STACK], regs[_USTACK] = n_lays, words
    regs[_STATES], regs[_CELLS_LEFT] = budget, work
    # The search runs in a subroutine that never replaces an array (numba
    # would count references to an array that a loop may replace at every
    # step); it hands back here to grow one, then goes on.
    while True:
        status = _search(
            lays, nbr, clickable, reads, every, out, scratch, masks,
            idx, ints, union, frames, keys, slots, pool, used, regs,
        )  # fmt: skip
        if status == _DONE:
            return out
        if status == _OVER:
            return np.zeros(0, dtype=np.int64)
        if status == _GROW_STACKS:
            m = regs[_AT_M]
            if regs[_DEPTH] == frames.shape[0]:
                frames = np.concatenate((frames, np.zeros_like(frames)))
                keys = np.concatenate((keys, np.zeros_like(keys)))
            if regs[_USTACK] + words > union.shape[0]:
                union = np.concatenate((union, np.empty_like(union)))
            if regs[_STACK] + m > idx.shape[0]:
                idx = np.concatenate((idx, np.empty(idx.shape[0] + m, dtype=np.int64)))
            need = max(2 * m + 1, 4 * n + _CLICK_STARTS)
            if regs[_ISTACK] + need > ints.shape[0]:
                ints = np.concatenate((ints, np.empty(ints.shape[0] + need, dtype=np.int64)))
        else:  # _GROW_MEMO: memoise the state on top here
            d = regs[_DEPTH]
            start, m, h1, h2 = frames[d, _START], frames[d, _M], keys[d, 0], keys[d, 1]
            slots, pool = _store(idx, start, m, h1, h2, regs[_RET], slots, pool, used)


@kernel(
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    nt.int64[::1],
    nt.int64,
    nt.int64,
    nt.int64,
)
def endgame_layouts(
    order: NDArray[np.int64],
    step_ptr: NDArray[np.int64],
    step_cons: NDArray[np.int64],
    step_room: NDArray[np.int64],
    need: NDArray[np.int64],
    mines: int,
    limit: int,
    words: int,
) -> tuple[NDArray[np.uint64], bool]:
    """Every layout of ``mines`` mines that meets the numbers.

    Step ``k`` places cell ``order[k]``; the numbers it touches are
    ``step_cons[step_ptr[k]:step_ptr[k + 1]]``, with as many of their cells
    still unplaced after it in ``step_room``.  ``need`` holds each number's
    mines still to place (restored when the listing completes).  A
    depth-first search, without recursion, that checks at every step that
    each number can still be met by its unplaced cells: returns the layouts
    (rows of ``words`` 64-bit words, in the order found) and True, or no
    layouts and False after ``limit`` steps (numbers that can each still be
    met but not together can still grow a dead tree).
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
