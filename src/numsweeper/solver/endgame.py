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
from numba import types
from numba import types as nt
from numba.typed import Dict, List
from numpy.typing import NDArray

from .._constants import HIDDEN
from .._kernels import adjacent_counts
from ._jit import frozen, helper, kernel, readonly, subroutine
from .analysis import Analysis
from .structure import group_by_label

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


#: The endgame search memoises states (sets of layouts left) by two 64-bit
#: hashes of the layout indices, and keeps each state's indices in a pool to
#: check a hit against: a hash collision costs a recount, never a wrong count.
_memo_key = types.UniTuple(types.uint64, 2)  # type: ignore[no-untyped-call]

#: What every state of one search shares: the layouts, each cell's neighbour
#: mask, what each cell shows in each layout, which cells may be clicked, the
#: memo and its pool, the budget left, scratch space, ``every`` and ``defer``
#: (see :func:`_wins`).
_Search = tuple[Any, ...]


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
def _shown(lay: NDArray[Any], mask: NDArray[Any]) -> int:
    """How many of ``mask``'s cells the multi-word layout ``lay`` mines."""
    total = 0
    for w in range(lay.shape[0]):
        total += _popcount(lay[w] & mask[w])
    return total


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
def _key(group: NDArray[Any]) -> tuple[np.uint64, np.uint64]:
    h1 = np.uint64(group.shape[0])
    h2 = np.uint64(0x9E3779B97F4A7C15)
    for j in group:
        h1 += _mix(np.uint64(j))
        h2 = (h2 ^ _mix(np.uint64(j) + np.uint64(0x632BE59BD9B4E019))) * np.uint64(0x100000001B3)
    return (h1, h2)


@helper
def _clicked(
    group: NDArray[Any], reads: NDArray[Any], i: int, scratch: NDArray[Any]
) -> tuple[NDArray[Any], NDArray[Any]]:
    """The layouts where cell ``i`` is safe, split by the number it shows.

    :func:`~numsweeper.solver.structure.group_by_label` over the labels
    (``reads[i]``: the number, 9 for a mine), which ``scratch`` holds
    meanwhile.
    """
    labels = scratch[: group.shape[0]]
    for x in range(group.shape[0]):
        labels[x] = reads[i, group[x]]
    return group_by_label(group, labels, 10)


@helper
def _recall(group: NDArray[Any], key: tuple[np.uint64, np.uint64], memo: Dict, pool: List) -> int:
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


@helper
def _store(
    group: NDArray[Any],
    key: tuple[np.uint64, np.uint64],
    result: int,
    memo: Dict,
    pool: List,
    used: NDArray[Any],
) -> None:
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


@helper
def _beats(value: int, i: int, top: int, top_i: int, by_index: bool) -> bool:
    return value > top or (by_index and value == top and i < top_i)


@helper
def _known(part: NDArray[Any], memo: Dict, pool: List) -> tuple[int, tuple[np.uint64, np.uint64]]:
    """A state's count if known without a search (-1 if not), and its key.

    1 if the state has one layout left, else its memoised count.  The search
    asks before it calls itself on a state: each call increments and
    decrements the reference count of each of its arrays, which used to cost
    more than the work of the many states whose count is known.
    """
    if part.shape[0] == 1:
        return 1, (np.uint64(0), np.uint64(0))
    key = _key(part)
    return _recall(part, key, memo, pool), key


@subroutine
def _wins(
    group: NDArray[Any],
    search: _Search,
    out: NDArray[Any],
    above: NDArray[Any],
    key: tuple[np.uint64, np.uint64],
) -> int:
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
    ``reads[i, g]`` is the number cell ``i`` shows in layout ``g`` (9 for
    a mine), and ``key`` the state's memo key (the root has none).
    """
    lays, nbr, reads, clickable, memo, pool, left, scratch, every, defer = search
    root = out.shape[0] > 0
    none = out[:0]
    m = group.shape[0]
    n = nbr.shape[0]
    words = lays.shape[1]
    if not root:  # (a state not yet counted, of two layouts or more: see _known)
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
                code = labels[x] * 9 + reads[i, group[x]]
                if renumber[code] < 0:
                    renumber[code] = count
                    count += 1
                labels[x] = renumber[code]
            n_labels = count
    if n_labels > 1:
        result = 0
        ordered, starts = group_by_label(group, labels, n_labels)
        for k in range(n_labels):
            part = ordered[starts[k] : starts[k + 1]]
            won, part_key = _known(part, memo, pool)
            if won < 0:
                won = _wins(part, search, none, union, part_key)
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
    for c in range(n_cells):
        mined = 0
        for x in range(m):
            mined += reads[cells[c], group[x]] == 9
        safe[c] -= mined
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
            ordered, starts = _clicked(group, reads, i, scratch)
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
                    won, part_key = _known(part, memo, pool)
                    if won < 0:
                        won = _wins(part, search, none, union, part_key)
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
    # what each cell shows in each layout (9: a mine), read in every state
    reads = np.empty((n, lays.shape[0]), dtype=np.int8)
    for i in range(n):
        for g in range(lays.shape[0]):
            reads[i, g] = 9 if _bit(lays[g], i) else _shown(lays[g], nbr[i])
    none = (np.uint64(0), np.uint64(0))  # (the root's key, never used)
    search = (lays, nbr, reads, clickable, memo, pool, left, scratch, every, defer)
    won = _wins(root, search, out, everything, none)
    if won < 0:
        return np.zeros(0, dtype=np.int64)
    return out


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
