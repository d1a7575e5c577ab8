"""No-guess boards: layouts that logic alone clears from the first click.

A layout is **no-guess from a first click** ``c`` when this process clears
it: reveal ``c``; then, again and again, reveal every hidden cell that is
safe in *every* layout consistent with the visible numbers and the total
mine count (what :func:`numsweeper.solver.analyze` lists in ``.safe``);
the layout is no-guess when every safe cell ends up revealed.  With
``use_mine_count=False`` the total is ignored, as some peers do: a weaker
process, so fewer layouts qualify.

:func:`is_no_guess` decides it for given layouts, and
:class:`NoGuessPlacement` lays no-guess boards wherever a placement strategy
goes (``Game.new``, ``generate_boards``, ``BatchGame``, ``simulate``).  Its
``method='uniform'`` is exactly uniform over the no-guess layouts of the
first click: it draws uniform candidates with
:class:`~numsweeper.RandomPlacement`'s sampler and keeps the no-guess ones.
``method='fast'`` repairs stuck candidates instead of dropping them, which
is not uniform (see ``docs/no_guess.md``).

How a candidate is decided, exactly
-----------------------------------
The process is monotone: a cell certainly safe for some visible state stays
so once more is revealed, so any order of reveals that only ever reveals
certainly safe cells ends in the same state.  A compiled kernel decides a
whole batch of candidates in one call, each with the cheapest sound step
that still makes progress:

1. the single-number rules (a number whose mines are all known makes its
   other hidden neighbours safe; one whose hidden neighbours equal its need
   makes them mines), driven by a work list, so a reveal costs a few
   operations;
2. when they are stuck, probes: a mine put on a hidden cell next to a number
   (one that is safe in the candidate) and propagated through the numbers;
   a contradiction proves the cell safe;
3. then, for each such cell, a depth-first search (with propagation) for a
   layout of its frontier component that fits every number with a mine
   there.  A search that fails proves the cell safe.  A layout found covers
   every safe cell it mines: the rest of the board keeps the candidate's
   mines, and with the mine count the cells next to no number take up the
   difference, which the total must allow (if not, a search within those
   bounds is tried).  A hidden cell next to no number can take a mine from
   another such cell; when the candidate has none there, a component layout
   with fewer mines is a certificate, and if no component has a layout with
   fewer mines at all, the mine count proves those cells safe;
4. when every safe cell is covered, the layouts found are a certificate that
   no cell is certainly safe: the candidate needs a guess;
5. when the certificate cannot be completed (the mine count binds in some
   other way, or a search exceeds its budget),
   :func:`numsweeper.solver.analyze` decides: it reveals what it proves
   safe and the kernel goes on, or it finds no safe cell and the candidate
   needs a guess.

Every step reveals only cells it proves safe, and a candidate is rejected
only on a certificate or the exact engine's word, so the decision is
exactly the definition's (the tests check it against an enumeration of
every layout of small boards, and against play by ``analyze``).  The kernel
compiles on first use after an install (about 20 seconds, announced on stderr,
cached on disk).

Examples
--------
>>> import numsweeper as ns
>>> batch = ns.generate_boards(
...     20, 9, 9, 10, strategy=ns.NoGuessPlacement(seed=1), first_click="opening", click=(2, 2)
... )
>>> bool(ns.is_no_guess(batch.mines, (2, 2)).all())
True
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._constants import FLAG, HIDDEN
from ._kernels import adjacent_counts_stack
from ._runner import Done, Hooks, Runner
from ._validate import (
    check_at_least,
    check_dims,
    check_mask,
    check_workers,
    count_text,
    make_rng,
    short_repr,
)
from .errors import GenerationError, InvalidBoardError, InvalidTypeError, OutOfBoundsError
from .placement import MinePlacementStrategy, RandomPlacement, SeedLike
from .solver._jit import announced
from .solver._jit import subroutine as _jit

__all__ = ["DEFAULT_MAX_ATTEMPTS", "METHODS", "NoGuessPlacement", "is_no_guess"]

#: Candidates drawn per board before :class:`NoGuessPlacement` gives up.
DEFAULT_MAX_ATTEMPTS = 10_000

#: The methods of :class:`NoGuessPlacement`.
METHODS = ("uniform", "fast")

# What the kernel says of a candidate.
_GUESS = 0  # proved to need a guess
_CLEAR = 1  # no-guess
_ASK = 2  # the certificate could not be completed: the exact engine decides
_LOST = 3  # the first click is a mine
_BROKEN = 4  # a revealed cell holds a mine: a bug, never expected

# Search nodes per certificate before the exact engine takes over.  A search
# either finds a layout in a few steps (it tries the candidate's own layout
# first) or refutes the mine by propagation; the budget only guards
# pathological components.
_BUDGET = 20_000

# Repairs per candidate of method='fast' before it is dropped.
_REPAIRS = 24

# Most candidates decided per kernel call in this process (fewer when few
# boards remain): bounds the work done past the last board needed.  Not part
# of the seeded output.
_DECIDE_STEP = 256

# Candidates per block (each block is drawn from its own SeedSequence child):
# between these, by the boards a group needs.  Part of the seeded output.
_MIN_BLOCK = 64
_MAX_BLOCK = 256

# The exact engine's state guard, and how far it may be raised when a count
# is relaxed (every relaxation is retried with 16 times more states).
_MAX_STATES = 50_000
_MAX_STATES_CAP = 50_000 * 16**2


# -- the kernel -------------------------------------------------------------------
#
# Boards are padded by one cell on every side and flattened: cell (i, j) of a
# board with `cols` columns is (i + 1) * (cols + 2) + j + 1, and the eight
# neighbours of p are p + nb[k].  The padding is "revealed" with count -1, so
# no loop needs a bounds check.


@_jit
def _push(q: int, queue: Any, inq: Any, qlen: int) -> int:
    """Put revealed number ``q`` on the work list (once)."""
    if not inq[q]:
        inq[q] = True
        queue[qlen] = q
        qlen += 1
    return qlen


@_jit
def _reveal(
    p: int, cnt: Any, rev: Any, nb: Any, flood: Any, queue: Any, inq: Any, qlen: int
) -> Any:
    """Reveal safe cell ``p`` and the area it floods; return (cells revealed, work list length).

    Every revealed number whose hidden neighbours changed goes on the work list.
    """
    if rev[p]:
        return 0, qlen
    rev[p] = True
    opened = 1
    top = 1
    flood[0] = p
    while top > 0:
        top -= 1
        q = flood[top]
        if cnt[q] == 0:
            for k in range(8):
                r = q + nb[k]
                if not rev[r]:
                    rev[r] = True
                    opened += 1
                    flood[top] = r
                    top += 1
        else:
            qlen = _push(q, queue, inq, qlen)
        for k in range(8):
            r = q + nb[k]
            if rev[r] and cnt[r] > 0:
                qlen = _push(r, queue, inq, qlen)
    return opened, qlen


@_jit
def _local(
    cnt: Any, rev: Any, kn: Any, nb: Any, flood: Any, queue: Any, inq: Any, qlen: int
) -> int:
    """Apply the single-number rules until the work list is empty; return cells revealed."""
    opened = 0
    while qlen > 0:
        qlen -= 1
        q = queue[qlen]
        inq[q] = False
        hidden = 0
        flagged = 0
        for k in range(8):
            r = q + nb[k]
            if kn[r]:
                flagged += 1
            elif not rev[r]:
                hidden += 1
        if hidden == 0:
            continue
        need = cnt[q] - flagged
        if need == 0:
            for k in range(8):
                r = q + nb[k]
                if not rev[r] and not kn[r]:
                    n, qlen = _reveal(r, cnt, rev, nb, flood, queue, inq, qlen)
                    opened += n
        elif need == hidden:
            for k in range(8):
                r = q + nb[k]
                if not rev[r] and not kn[r]:
                    kn[r] = True
                    for j in range(8):
                        s = r + nb[j]
                        if rev[s] and cnt[s] > 0:
                            qlen = _push(s, queue, inq, qlen)
    return opened


# A stuck position's frontier as a constraint problem, the tuple ``problem``:
#   vcell[v]       the padded cell of frontier variable v
#   vcons[v, :k]   the constraints on v, k = vncons[v]
#   cvars[c, :k]   the variables of constraint c, k = ccnt[c]
#   need[c]        the mines constraint c's number still needs
# and the search's work arrays, the tuple ``work``:
#   assign[v]      -1 unassigned, else 0 or 1
#   cm[c], cf[c]   mines assigned and variables unassigned of constraint c
#   trail          assigned variables, in order; tally[0] the mines among them
#   order, incomp  the component searched, in breadth-first order from its seed
#   pend, pval     propagation stack; dpos, dvar, dalt, dscan: decision stack


@_jit
def _assign(v: int, val: int, problem: Any, work: Any, tlen: int) -> Any:
    """Set variable ``v`` to ``val`` and propagate; return (no conflict, trail length)."""
    _, vcons, vncons, cvars, ccnt, need = problem
    assign, cm, cf, trail, tally, _, _, pend, pval, _, _, _, _ = work
    pend[0] = v
    pval[0] = val
    top = 1
    while top > 0:
        top -= 1
        u = pend[top]
        w = pval[top]
        if assign[u] >= 0:
            if assign[u] != w:
                return False, tlen
            continue
        assign[u] = w
        trail[tlen] = u
        tlen += 1
        tally[0] += w
        for i in range(vncons[u]):
            c = vcons[u, i]
            cf[c] -= 1
            cm[c] += w
        for i in range(vncons[u]):
            c = vcons[u, i]
            if cm[c] > need[c] or cm[c] + cf[c] < need[c]:
                return False, tlen
            if cf[c] == 0:
                continue
            if cm[c] == need[c]:
                force = 0
            elif cm[c] + cf[c] == need[c]:
                force = 1
            else:
                continue
            for j in range(ccnt[c]):
                z = cvars[c, j]
                if assign[z] < 0:
                    pend[top] = z
                    pval[top] = force
                    top += 1
    return True, tlen


@_jit
def _undo(pos: int, problem: Any, work: Any, tlen: int) -> int:
    """Take back the assignments made since trail position ``pos``."""
    _, vcons, vncons, _, _, _ = problem
    assign, cm, cf, trail, tally, _, _, _, _, _, _, _, _ = work
    while tlen > pos:
        tlen -= 1
        u = trail[tlen]
        w = assign[u]
        tally[0] -= w
        for i in range(vncons[u]):
            c = vcons[u, i]
            cf[c] += 1
            cm[c] -= w
        assign[u] = -1
    return tlen


@_jit
def _component(x: int, problem: Any, work: Any, stamp: int) -> int:
    """Put ``x``'s frontier component in ``order``, breadth first from ``x``; return its size.

    Its variables are marked ``stamp`` in ``incomp``.
    """
    _, vcons, vncons, cvars, ccnt, _ = problem
    order, incomp = work[5], work[6]
    order[0] = x
    incomp[x] = stamp
    size = 1
    head = 0
    while head < size:
        v = order[head]
        head += 1
        for i in range(vncons[v]):
            c = vcons[v, i]
            for j in range(ccnt[c]):
                u = cvars[c, j]
                if incomp[u] != stamp:
                    incomp[u] = stamp
                    order[size] = u
                    size += 1
    return size


@_jit
def _held(mine: Any, problem: Any, work: Any, size: int) -> int:
    """The candidate's own mines over ``order[:size]``."""
    vcell, order = problem[0], work[5]
    held = 0
    for h in range(size):
        if mine[vcell[order[h]]]:
            held += 1
    return held


@_jit
def _search(
    x: int,
    force: bool,
    lo: int,
    hi: int,
    budget: int,
    prefer: Any,
    problem: Any,
    work: Any,
    stamp: int,
) -> Any:
    """Look for a layout of ``x``'s frontier component that fits its numbers.

    With ``force``, the layout puts a mine on ``x``; its mines in the
    component number ``lo`` to ``hi``.  Every variable must be unassigned.
    Returns (result, component size, trail length): result 1 when found
    (the layout is in ``assign`` over ``order[:size]``), 0 when none
    exists, -1 when the search ran out of ``budget`` nodes (none when
    negative).  The caller takes the assignments back with :func:`_undo`.

    Forcing the mine and propagating refutes most cells at once, before
    the component is even listed.  Otherwise each variable first takes the
    value ``prefer`` gives it.
    """
    assign, _, _, _, tally, order, _, _, _, dpos, dvar, dalt, dscan = work
    tally[0] = 0
    tlen = 0
    ok = True
    if force:
        ok, tlen = _assign(x, 1, problem, work, tlen)
        if not ok:
            return 0, 0, tlen
    size = _component(x, problem, work, stamp)
    depth = 0
    scan = 0
    nodes = 0
    while True:
        if ok and (tally[0] > hi or tally[0] + size - tlen < lo):
            ok = False
        if ok:
            while scan < size and assign[order[scan]] >= 0:
                scan += 1
            if scan == size:
                return 1, size, tlen
            v = order[scan]
            val = prefer[v]
            dpos[depth] = tlen
            dvar[depth] = v
            dalt[depth] = 1 - val
            dscan[depth] = scan
            depth += 1
            ok, tlen = _assign(v, val, problem, work, tlen)
        else:
            while depth > 0 and dalt[depth - 1] < 0:
                depth -= 1
            if depth == 0:
                return 0, size, tlen
            level = depth - 1
            tlen = _undo(dpos[level], problem, work, tlen)
            scan = dscan[level]
            val = dalt[level]
            dalt[level] = -1
            ok, tlen = _assign(dvar[level], val, problem, work, tlen)
        nodes += 1
        if budget >= 0 and nodes > budget:
            return -1, size, tlen


@_jit
def _shift(mine: Any, problem: Any, work: Any, size: int) -> int:
    """Mines of the layout found over ``order[:size]``, minus the candidate's there."""
    vcell = problem[0]
    assign, order = work[0], work[5]
    delta = 0
    for h in range(size):
        v = order[h]
        delta += assign[v] - (1 if mine[vcell[v]] else 0)
    return delta


@_jit
def _exact(
    mine: Any,
    cnt: Any,
    rev: Any,
    kn: Any,
    nb: Any,
    rows: int,
    cols: int,
    use_count: bool,
    budget: int,
    cid: Any,
    problem: Any,
    work: Any,
    marks: Any,
    inner: Any,
    proved: Any,
) -> Any:
    """The exact stage for a stuck position.

    ``cid``, ``problem``, ``work``, ``marks`` (covered, prefer, fewer),
    ``inner`` and ``proved`` are scratch arrays of one cell each per
    padded cell (``pend`` and ``pval`` of 64).

    Returns (outcome, count, frontier): outcome 1 with ``count`` certainly
    safe cells in ``proved[:count]``; 0 when the position is proved stuck
    (``count`` hidden cells next to no number are in ``inner`` and the
    ``frontier`` cells in ``problem[0]``, which repairs use); 2 when the
    exact engine must decide.
    """
    vcell, vcons, vncons, cvars, ccnt, need = problem
    width = cols + 2
    nv = 0
    nc = 0
    n_inner = 0
    inner_mines = 0
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            p = i * width + j
            cid[p] = -1
            if rev[p] or kn[p]:
                continue
            edge = False
            for k in range(8):
                r = p + nb[k]
                if rev[r] and cnt[r] > 0:
                    edge = True
                    break
            if edge:
                vcell[nv] = p
                vncons[nv] = 0
                nv += 1
            else:
                inner[n_inner] = p
                n_inner += 1
                if mine[p]:
                    inner_mines += 1
    for v in range(nv):
        p = vcell[v]
        for k in range(8):
            r = p + nb[k]
            if not (rev[r] and cnt[r] > 0):
                continue
            c = cid[r]
            if c < 0:
                c = nc
                cid[r] = c
                nc += 1
                flagged = 0
                for t in range(8):
                    if kn[r + nb[t]]:
                        flagged += 1
                need[c] = cnt[r] - flagged
                ccnt[c] = 0
            cvars[c, ccnt[c]] = v
            ccnt[c] += 1
            vcons[v, vncons[v]] = c
            vncons[v] += 1

    assign, cm, cf, order, incomp = work[0], work[1], work[2], work[5], work[6]
    covered, prefer, fewer = marks
    assign[:nv] = -1
    incomp[:nv] = 0
    cm[:nc] = 0
    cf[:nc] = ccnt[:nc]
    covered[:nv] = False
    # The searches stay close to the candidate's own layout (which fits
    # every number), except that safe cells not yet shown to be able to
    # hold a mine take one when they can, so that one layout covers several.
    prefer[:nv] = 1
    n_proved = 0
    unsure = False
    freed = False  # a layout found moves a frontier mine to the inner cells
    # First the cheap proofs: a mine on x that propagation alone refutes.
    # When there are any, reveal them and let the local rules go on; the
    # certificate is only worth building for a position that may be stuck.
    for x in range(nv):
        if not mine[vcell[x]]:
            ok, tlen = _assign(x, 1, problem, work, 0)
            _undo(0, problem, work, tlen)
            if not ok:
                proved[n_proved] = vcell[x]
                n_proved += 1
    if n_proved:
        return 1, n_proved, nv
    stamp = 0
    wide = nv + 1
    for x in range(nv):
        if mine[vcell[x]] or covered[x]:
            continue
        stamp += 1
        found, size, tlen = _search(x, True, -1, wide, budget, prefer, problem, work, stamp)
        if found == 1:
            delta = _shift(mine, problem, work, size)
            # The rest of the board keeps the candidate's mines; the cells
            # next to no number take up the difference, which the total
            # must allow.  If it does not, look for a layout that it does.
            if use_count and not (0 <= inner_mines - delta <= n_inner):
                kept = _held(mine, problem, work, size)
                _undo(0, problem, work, tlen)
                stamp += 1
                lo, hi = kept + inner_mines - n_inner, kept + inner_mines
                found, size, tlen = _search(x, True, lo, hi, budget, prefer, problem, work, stamp)
                if found == 1:
                    delta = _shift(mine, problem, work, size)
                else:
                    found = 2  # (left uncovered: the exact engine decides)
        if found == 1:
            if delta < 0:
                freed = True
            for h in range(size):
                v = order[h]
                if assign[v] == 1:
                    covered[v] = True
        _undo(0, problem, work, tlen)
        if found == 0:
            proved[n_proved] = vcell[x]
            n_proved += 1
        elif found < 0:
            unsure = True
    if n_proved:
        return 1, n_proved, nv
    if use_count and n_inner > inner_mines and inner_mines == 0 and not freed:
        # Every mine is on the frontier, so an inner safe cell can hold one
        # only if some component can do with fewer mines than it has.  A
        # layout of one component with 1 to n_inner fewer is a certificate;
        # if no component has a layout with fewer at all, the inner cells
        # are certainly safe; anything else is the exact engine's call.
        for v in range(nv):
            fewer[v] = 1 if mine[vcell[v]] else 0
        stamp += 1
        seen = stamp
        for x in range(nv):
            if work[6][x] >= seen:  # (in a component already looked at)
                continue
            stamp += 1
            kept = _held(mine, problem, work, _component(x, problem, work, stamp))
            stamp += 1
            lo = kept - n_inner
            found, size, tlen = _search(x, False, lo, kept - 1, budget, fewer, problem, work, stamp)
            _undo(0, problem, work, tlen)
            if found == 1:
                freed = True
                break
            if found == 0:  # (none that the inner cells can take: any at all?)
                stamp += 1
                found, size, tlen = _search(
                    x, False, -1, kept - 1, budget, fewer, problem, work, stamp
                )
                _undo(0, problem, work, tlen)
            if found != 0:
                unsure = True
        if not freed and not unsure:
            for h in range(n_inner):
                proved[h] = inner[h]
            return 1, n_inner, nv
        if not freed:
            unsure = True
    if not unsure:
        for x in range(nv):
            if not mine[vcell[x]] and not covered[x]:
                unsure = True
                break
    if unsure:
        return 2, 0, nv
    return 0, n_inner, nv


@_jit
def _load(
    b: int,
    mines: Any,
    counts: Any,
    revealed: Any,
    known: Any,
    mine: Any,
    cnt: Any,
    rev: Any,
    kn: Any,
) -> None:
    """Copy board ``b`` into the padded work arrays."""
    _, rows, cols = mines.shape
    width = cols + 2
    mine[:] = False
    cnt[:] = -1
    rev[:] = True
    kn[:] = False
    for i in range(rows):
        for j in range(cols):
            p = (i + 1) * width + j + 1
            mine[p] = mines[b, i, j]
            cnt[p] = counts[b, i, j]
            rev[p] = revealed[b, i, j]
            kn[p] = known[b, i, j]


@_jit
def _repair(
    mine: Any,
    cnt: Any,
    nb: Any,
    vcell: Any,
    nv: int,
    inner: Any,
    n_inner: int,
    u1: float,
    u2: float,
) -> bool:
    """Move a mine off the stuck frontier onto a safe cell next to no number.

    The frontier mine is the ``u1`` quantile of the frontier mines, the
    destination the ``u2`` quantile of the inner safe cells (both in
    reading order).  Returns False when either set is empty.
    """
    frontier_mines = 0
    for v in range(nv):
        if mine[vcell[v]]:
            frontier_mines += 1
    free = 0
    for h in range(n_inner):
        if not mine[inner[h]]:
            free += 1
    if frontier_mines == 0 or free == 0:
        return False
    pick = min(int(u1 * frontier_mines), frontier_mines - 1)
    source = -1
    for v in range(nv):
        if mine[vcell[v]]:
            if pick == 0:
                source = vcell[v]
                break
            pick -= 1
    pick = min(int(u2 * free), free - 1)
    target = -1
    for h in range(n_inner):
        if not mine[inner[h]]:
            if pick == 0:
                target = inner[h]
                break
            pick -= 1
    mine[source] = False
    mine[target] = True
    for k in range(8):
        r = source + nb[k]
        if cnt[r] >= 0:
            cnt[r] -= 1
        r = target + nb[k]
        if cnt[r] >= 0:
            cnt[r] += 1
    return True


@_jit
def _decide_kernel(
    mines: Any,
    counts: Any,
    clicks: Any,
    todo: Any,
    revealed: Any,
    known: Any,
    use_count: bool,
    budget: int,
    repairs: int,
    noise: Any,
) -> Any:
    """Decide each board: reveal ``todo`` (the click at the start) and go on as far as logic goes.

    ``revealed`` and ``known`` (certain mines) are the state in and out.
    With ``repairs``, a stuck board has a frontier mine moved (``mines`` and
    ``counts`` change) and is decided again from its click, up to that many
    times, drawing on ``noise`` (two uniforms per repair).  Returns a status
    per board.
    """
    m, rows, cols = mines.shape
    width = cols + 2
    cells = (rows + 2) * width
    nb = np.array(
        [-width - 1, -width, -width + 1, -1, 1, width - 1, width, width + 1], dtype=np.int64
    )
    mine = np.zeros(cells, np.bool_)
    cnt = np.empty(cells, np.int8)
    rev = np.ones(cells, np.bool_)
    kn = np.zeros(cells, np.bool_)
    queue = np.empty(cells, np.int64)
    inq = np.zeros(cells, np.bool_)
    flood = np.empty(cells, np.int64)
    cid = np.empty(cells, np.int32)
    problem = (
        np.empty(cells, np.int32),  # vcell
        np.empty((cells, 8), np.int32),  # vcons
        np.empty(cells, np.int32),  # vncons
        np.empty((cells, 8), np.int32),  # cvars
        np.empty(cells, np.int32),  # ccnt
        np.empty(cells, np.int32),  # need
    )
    work = (
        np.empty(cells, np.int8),  # assign
        np.empty(cells, np.int32),  # cm
        np.empty(cells, np.int32),  # cf
        np.empty(cells, np.int32),  # trail
        np.zeros(1, np.int64),  # tally
        np.empty(cells, np.int32),  # order
        np.zeros(cells, np.int32),  # incomp
        np.empty(64 * cells, np.int32),  # pend
        np.empty(64 * cells, np.int8),  # pval
        np.empty(cells, np.int32),  # dpos
        np.empty(cells, np.int32),  # dvar
        np.empty(cells, np.int8),  # dalt
        np.empty(cells, np.int32),  # dscan
    )
    marks = (np.zeros(cells, np.bool_), np.ones(cells, np.int8), np.zeros(cells, np.int8))
    inner = np.empty(cells, np.int32)
    proved = np.empty(cells, np.int32)
    status = np.empty(m, np.int8)
    for b in range(m):
        _load(b, mines, counts, revealed, known, mine, cnt, rev, kn)
        start = (clicks[b, 0] + 1) * width + clicks[b, 1] + 1
        fixes = 0
        fresh = False
        while True:
            safe_left = 0
            for p in range(cells):
                if not mine[p] and not rev[p]:
                    safe_left += 1
            inq[:] = False
            qlen = 0
            outcome = -1
            if mine[start]:
                outcome = _LOST
            elif fresh:
                n, qlen = _reveal(start, cnt, rev, nb, flood, queue, inq, qlen)
                safe_left -= n
            else:
                for i in range(rows):
                    for j in range(cols):
                        if todo[b, i, j]:
                            p = (i + 1) * width + j + 1
                            if mine[p]:
                                outcome = _BROKEN
                            else:
                                n, qlen = _reveal(p, cnt, rev, nb, flood, queue, inq, qlen)
                                safe_left -= n
            n_inner = 0
            nv = 0
            while outcome < 0:
                safe_left -= _local(cnt, rev, kn, nb, flood, queue, inq, qlen)
                qlen = 0
                if safe_left == 0:
                    outcome = _CLEAR
                    break
                found, count, frontier = _exact(
                    mine,
                    cnt,
                    rev,
                    kn,
                    nb,
                    rows,
                    cols,
                    use_count,
                    budget,
                    cid,
                    problem,
                    work,
                    marks,
                    inner,
                    proved,
                )
                if found == 1:
                    for h in range(count):
                        n, qlen = _reveal(proved[h], cnt, rev, nb, flood, queue, inq, qlen)
                        safe_left -= n
                elif found == 0:
                    outcome = _GUESS
                    n_inner = count
                    nv = frontier
                else:
                    outcome = _ASK
            if outcome == _GUESS and fixes < repairs:
                u1, u2 = noise[b, 2 * fixes], noise[b, 2 * fixes + 1]
                if _repair(mine, cnt, nb, problem[0], nv, inner, n_inner, u1, u2):
                    fixes += 1
                    fresh = True
                    for p in range(cells):
                        rev[p] = cnt[p] < 0
                        kn[p] = False
                    continue
            break
        for p in range(cells):
            if rev[p] and mine[p]:
                outcome = _BROKEN
        status[b] = outcome
        for i in range(rows):
            for j in range(cols):
                p = (i + 1) * width + j + 1
                revealed[b, i, j] = rev[p]
                known[b, i, j] = kn[p]
                if fixes:
                    mines[b, i, j] = mine[p]
                    counts[b, i, j] = cnt[p]
    return status


# -- deciding boards --------------------------------------------------------------


def _visible(
    counts: NDArray[np.int8], revealed: NDArray[np.bool_], known: NDArray[np.bool_]
) -> NDArray[np.int8]:
    """What the player sees: revealed counts, certain mines as flags, hidden cells."""
    visible = np.where(revealed, counts, HIDDEN).astype(np.int8)
    visible[known] = FLAG
    return visible


def _settle(
    mines: NDArray[np.bool_],
    counts: NDArray[np.int8],
    clicks: NDArray[np.intp],
    *,
    use_count: bool,
    repairs: int = 0,
    noise: NDArray[np.float64] | None = None,
) -> NDArray[np.int8]:
    """A kernel status per board, with every ``_ASK`` settled by the exact engine.

    ``mines`` (m, rows, cols) and ``counts`` are changed in place when
    ``repairs`` moves mines.
    """
    m, rows, cols = mines.shape
    revealed = np.zeros((m, rows, cols), dtype=bool)
    known = np.zeros((m, rows, cols), dtype=bool)
    todo = np.zeros((m, rows, cols), dtype=bool)
    todo[np.arange(m), clicks[:, 0], clicks[:, 1]] = True
    if noise is None:
        noise = np.zeros((m, 2 * repairs), dtype=np.float64)
    budget = _BUDGET if use_count else -1
    with announced("_decide_kernel", "no-guess"):
        status: NDArray[np.int8] = _decide_kernel(
            mines, counts, clicks, todo, revealed, known, use_count, budget, repairs, noise
        )
    for b in np.flatnonzero(status == _ASK).tolist():
        status[b] = _ask(
            mines[b : b + 1], counts[b : b + 1], clicks[b : b + 1], revealed[b], known[b]
        )
    if (status == _BROKEN).any():
        raise RuntimeError("no-guess kernel revealed a mine: please report this bug")
    return status


def _ask(
    mines: NDArray[np.bool_],
    counts: NDArray[np.int8],
    click: NDArray[np.intp],
    revealed: NDArray[np.bool_],
    known: NDArray[np.bool_],
) -> int:
    """Settle one board the certificate could not: :func:`~numsweeper.solver.analyze` decides.

    The exact engine reveals what it proves safe and the kernel goes on,
    until the board is cleared or the engine finds no safe cell.
    """
    from .solver import analyze

    total = int(np.count_nonzero(mines))
    max_states = _MAX_STATES
    while True:
        visible = _visible(counts[0], revealed, known)
        analysis = analyze(visible, total, trust_flags=True, max_states=max_states)
        if not len(analysis.safe):
            if analysis.exact:
                return _GUESS
            if max_states >= _MAX_STATES_CAP:
                raise GenerationError(
                    f"cannot decide a {visible.shape[0]}x{visible.shape[1]} board exactly: "
                    f"its count needs more than {max_states:,} states"
                )
            max_states *= 16
            continue
        todo = np.zeros((1, *visible.shape), dtype=bool)
        todo[0, analysis.safe[:, 0], analysis.safe[:, 1]] = True
        # (the kernel carries on from the views' state, in place)
        status = _decide_kernel(
            mines,
            counts,
            click,
            todo,
            revealed[None],
            known[None],
            True,
            _BUDGET,
            0,
            np.zeros((1, 0)),
        )
        if status[0] != _ASK:
            return int(status[0])


def is_no_guess(mines: ArrayLike, click: ArrayLike, *, use_mine_count: bool = True) -> Any:
    """Whether each layout is no-guess from its first click.

    The process of the module's definition: reveal the click, then every
    cell that is certainly safe, until nothing certain is left; a layout is
    no-guess when that reveals every safe cell.  A layout whose click is a
    mine is not.

    Parameters
    ----------
    mines : array_like of bool, shape (rows, cols) or (n, rows, cols)
        The layouts (any mine counts; each board's own total is used).
    click : array_like of int, shape (2,) or (n, 2)
        The first click, ``(row, col)``: one for every board, or one each.
    use_mine_count : bool
        Use the total mine count when deciding what is certain (the
        definition); False ignores it, as some peers do.

    Returns
    -------
    bool or ndarray of bool, shape (n,)
        A bool for one layout, an array for a stack.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a 2-D or 3-D bool array, or ``click`` has the
        wrong shape.
    OutOfBoundsError
        If a click is off the board.
    InvalidTypeError
        If ``click`` does not hold integers or ``use_mine_count`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> layout = np.zeros((3, 3), dtype=bool)
    >>> layout[2, 2] = True
    >>> ns.is_no_guess(layout, (0, 0))
    True

    Here two cells share the last mine and nothing tells them apart:

    >>> layout = np.zeros((2, 4), dtype=bool)
    >>> layout[0, 3] = True
    >>> ns.is_no_guess(layout, (0, 0)), ns.is_no_guess(layout, (0, 0), use_mine_count=False)
    (False, False)
    """
    from .batch import _clicks

    array = np.asarray(mines)
    if array.dtype != bool or array.ndim not in (2, 3):
        raise InvalidBoardError(
            f"mines must be a 2-D or 3-D bool array, got {array.dtype} {array.shape}"
        )
    if not isinstance(use_mine_count, (bool, np.bool_)):
        raise InvalidTypeError(f"use_mine_count must be a bool, got {short_repr(use_mine_count)}")
    single = array.ndim == 2
    stack = np.array(array[None] if single else array, dtype=bool, order="C")
    n, rows, cols = stack.shape
    if rows == 0 or cols == 0:
        raise InvalidBoardError(f"mines must have at least one cell, got shape {array.shape}")
    clicks = np.ascontiguousarray(_clicks(click, n, rows, cols))
    counts = adjacent_counts_stack(stack)
    status = _settle(stack, counts, clicks, use_count=bool(use_mine_count))
    result = status == _CLEAR
    return bool(result[0]) if single else result


# -- the strategy -----------------------------------------------------------------


def _block_size(need: int) -> int:
    """Candidates per block for a group that needs ``need`` boards: a power of two."""
    target = 8 * need
    return int(min(_MAX_BLOCK, max(_MIN_BLOCK, 1 << max(0, (target - 1).bit_length()))))


def _child(root: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """Child ``index`` of ``root``, as ``root.spawn`` would give it, without spawning."""
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, index), pool_size=root.pool_size
    )


@dataclass(frozen=True)
class _Job:
    """What every block of one group shares: the board, the click, the method."""

    rows: int
    cols: int
    mines: int
    zone: NDArray[np.bool_]  # (rows, cols): cells kept safe
    click: tuple[int, int]
    method: str
    use_count: bool

    def draw(
        self, root: np.random.SeedSequence, index: int, size: int
    ) -> tuple[NDArray[np.bool_], NDArray[np.int8], NDArray[np.float64] | None]:
        """The candidates of block ``index``: layouts, counts, and the repairs' noise."""
        board_seed, noise_seed = _child(root, index).spawn(2)
        safe = np.broadcast_to(self.zone, (size, self.rows, self.cols))
        layouts = RandomPlacement(board_seed).place_batch(
            size, self.rows, self.cols, self.mines, safe=safe
        )
        counts = adjacent_counts_stack(layouts)
        noise = None
        if self.method == "fast":
            noise = np.random.default_rng(noise_seed).random((size, 2 * _REPAIRS))
        return layouts, counts, noise

    def decide(
        self,
        layouts: NDArray[np.bool_],
        counts: NDArray[np.int8],
        noise: NDArray[np.float64] | None,
    ) -> NDArray[np.bool_]:
        """Which candidates are no-guess (repaired in place for ``'fast'``)."""
        clicks = np.empty((len(layouts), 2), dtype=np.intp)
        clicks[:] = self.click
        repairs = _REPAIRS if self.method == "fast" else 0
        status = _settle(
            layouts, counts, clicks, use_count=self.use_count, repairs=repairs, noise=noise
        )
        accepted: NDArray[np.bool_] = status == _CLEAR
        return accepted


def _block_task(
    index: int,
    job: _Job,
    root: np.random.SeedSequence,
    block: int,
    size: int,
    *,
    hooks: Hooks | None = None,
) -> Done:
    """Decide a whole block (in a worker): which candidates pass, and those layouts."""
    layouts, counts, noise = job.draw(root, block, size)
    accepted = job.decide(layouts, counts, noise)
    return Done((accepted, layouts[accepted]))


@dataclass
class _Group:
    """The boards of one click: a stream of candidate blocks and what it accepted."""

    job: _Job
    root: np.random.SeedSequence
    boards: NDArray[np.intp]
    max_attempts: int
    size: int = 0
    kept: list[NDArray[np.bool_]] = field(default_factory=list)
    accepted: int = 0
    drawn: int = 0
    blocks: int = 0  # blocks handed out

    def __post_init__(self) -> None:
        self.size = _block_size(self.need)

    @property
    def need(self) -> int:
        return len(self.boards)

    @property
    def done(self) -> bool:
        return self.accepted >= self.need

    def absorb(self, accepted: NDArray[np.bool_], layouts: NDArray[np.bool_]) -> None:
        """Take the next candidates of the stream, in order: ``layouts`` are the accepted ones.

        Stops at the last board needed; raises when the attempts run out
        first (at least ``max_attempts`` candidates per board found so far,
        plus the next).
        """
        if self.done or not len(accepted):
            return
        total = self.accepted + np.cumsum(accepted)
        drawn = self.drawn + np.arange(1, len(accepted) + 1)
        # drawn >= max_attempts * (total + 1), without overflow for a huge max_attempts
        limit = min(self.max_attempts, int(np.iinfo(np.int64).max))
        short = (drawn // (total + 1) >= limit) & (total < self.need)
        finished = np.flatnonzero(total >= self.need)
        failed = np.flatnonzero(short)
        if failed.size and (not finished.size or failed[0] < finished[0]):
            self._give_up(int(drawn[failed[0]]), int(total[failed[0]]))
        if finished.size:
            take = self.need - self.accepted
            self.kept.append(layouts[:take])
            self.accepted = self.need
            self.drawn = int(drawn[finished[0]])
        else:
            self.kept.append(layouts)
            self.accepted = int(total[-1])
            self.drawn = int(drawn[-1])

    def _give_up(self, drawn: int, accepted: int) -> None:
        job = self.job
        found = (
            "no no-guess layout"
            if accepted == 0
            else f"only {accepted:,} of {count_text(self.need, 'no-guess layout')}"
        )
        raise GenerationError(
            f"{found} in {drawn:,} attempts (max_attempts={self.max_attempts:,} per board) "
            f"on a {job.rows}x{job.cols} board with {count_text(job.mines, 'mine')} "
            f"(density {job.mines / (job.rows * job.cols):.1%}), first click {job.click}, "
            f"method={job.method!r}; allow more attempts or use fewer mines"
        )

    def run_here(self) -> None:
        """Draw and decide blocks in this process until the group is done.

        Candidates are decided a few at a time, about as many as the rate so
        far says the remaining boards need, so little is decided in vain.
        """
        while not self.done:
            layouts, counts, noise = self.job.draw(self.root, self.blocks, self.size)
            self.blocks += 1
            start = 0
            while start < self.size:
                rate = (self.accepted + 1) / (self.drawn + 4)  # (a prior of 1 in 4)
                step = math.ceil(1.25 * (self.need - self.accepted) / rate)
                stop = min(start + min(max(step, 8), _DECIDE_STEP), self.size)
                part = layouts[start:stop]
                accepted = self.job.decide(
                    part, counts[start:stop], None if noise is None else noise[start:stop]
                )
                self.absorb(accepted, part[accepted])
                if self.done:
                    return
                start = stop

    def wanted(self, workers: int) -> int:
        """Blocks to hand out in the next wave: about enough, by the rate so far.

        The first wave gives each worker one block; a group that has found
        nothing yet doubles what it tried.  A short wave costs one more
        wave; blocks decided past the last board needed are wasted.
        """
        if not self.blocks:
            return workers
        if self.accepted == 0:
            blocks = self.blocks
        else:
            rate = self.accepted / self.drawn
            blocks = math.ceil(1.05 * (self.need - self.accepted) / (rate * self.size))
        # Never plan past the point where the attempts would run out.
        budget = self.max_attempts * (self.accepted + 1) - self.drawn
        return max(1, min(blocks, math.ceil(budget / self.size)))

    def layouts(self) -> NDArray[np.bool_]:
        return np.concatenate(self.kept)


def _run_waves(groups: list[_Group], workers: int) -> None:
    """Decide blocks in worker processes, wave by wave, merging each group's blocks in order."""
    while True:
        todo = [g for g in groups if not g.done]
        if not todo:
            return
        tasks: list[tuple[Any, ...]] = []
        owners: list[_Group] = []
        wanted = [group.wanted(workers) for group in todo]
        # Whole rounds of blocks, so that no worker waits for the others.
        wanted[0] += -sum(wanted) % workers
        for group, blocks in zip(todo, wanted, strict=True):
            for _ in range(blocks):
                tasks.append((len(tasks), group.job, group.root, group.blocks, group.size))
                owners.append(group)
                group.blocks += 1
        runner = Runner(workers, None)
        results: dict[int, Any] = {}
        for i, done in runner.run(_block_task, tasks):
            results[i] = done.value
        if runner.interrupted:
            raise KeyboardInterrupt
        for i, group in enumerate(owners):
            accepted, layouts = results[i]
            group.absorb(accepted, layouts)


class NoGuessPlacement(MinePlacementStrategy):
    """Boards that can be cleared from the first click without a guess.

    A no-guess layout is defined from a first click (see
    :mod:`numsweeper.noguess`), so this strategy needs a first-click rule,
    ``'safe'`` or ``'opening'``: :meth:`Game.new <numsweeper.Game.new>`,
    :class:`~numsweeper.BatchGame` and :func:`~numsweeper.simulate` lay the
    mines at each game's first reveal and tell it the click, and
    :func:`~numsweeper.generate_boards` takes ``click=``.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts: the same seed
        gives the same boards, for any number of ``workers``.
    method : {'uniform', 'fast'}
        ``'uniform'`` (default): exactly uniform over the no-guess layouts
        for the click and rule.  It draws uniform candidates (the sampler of
        :class:`~numsweeper.RandomPlacement`, avoiding the rule's safe
        cells) and keeps the no-guess ones, decided exactly.
        ``'fast'``: a candidate that gets stuck is repaired instead of
        dropped: a mine of the stuck frontier moves to a random safe cell
        next to no revealed number, and the board is decided again from
        its click (up to 24 times).  Every board it returns is no-guess,
        but not uniformly: repaired boards have fewer mines near the
        start.  ``docs/no_guess.md`` measures the bias.
    max_attempts : int
        Candidates per board before giving up: a group of boards with one
        click fails with :class:`~numsweeper.GenerationError` as soon as
        ``max_attempts * (found + 1)`` candidates have given ``found``
        boards, so an impossible request fails after ``max_attempts``
        candidates whatever the batch.
    use_mine_count : bool
        Decide with the total mine count (the definition, and the default);
        False ignores it, as some peers do: fewer layouts qualify.

    Raises
    ------
    InvalidBoardError
        For an unknown ``method`` or ``max_attempts`` below 1.
    InvalidTypeError
        If ``max_attempts`` is not an integer or ``use_mine_count`` not a bool.

    Notes
    -----
    Candidates are drawn and decided in blocks.  Each call of
    :meth:`place_batch` takes one root SeedSequence from the strategy's
    generator; the boards of each first click form a group with its own
    child, and block ``i`` of a group is that child's child ``i``.  Blocks
    are merged in order, so the boards do not depend on who decides the
    blocks: with ``workers > 1`` worker processes decide whole blocks (some
    of them past the last board needed), and the result is the same.

    Examples
    --------
    >>> import numsweeper as ns
    >>> strategy = ns.NoGuessPlacement(seed=7)
    >>> strategy.method, strategy.max_attempts, strategy.use_mine_count
    ('uniform', 10000, True)
    >>> game = ns.Game.new(16, 30, 99, strategy=strategy, first_click="opening")
    >>> _ = game.reveal(8, 15)
    >>> game.strategy is strategy
    True
    >>> batch = ns.generate_boards(
    ...     3, 9, 9, 10, strategy=ns.NoGuessPlacement(seed=1), first_click="safe", click=(0, 0)
    ... )
    >>> ns.is_no_guess(batch.mines, (0, 0)).tolist()
    [True, True, True]
    """

    #: Told the first click: ``place(..., click=)`` and ``place_batch(..., clicks=)``.
    uses_click = True
    #: Decides blocks in worker processes: ``place_batch(..., workers=)``.
    uses_workers = True

    def __init__(
        self,
        seed: SeedLike = None,
        *,
        method: str = "uniform",
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        use_mine_count: bool = True,
    ) -> None:
        if method not in METHODS:
            raise InvalidBoardError(f"method must be 'uniform' or 'fast', got {short_repr(method)}")
        max_attempts = check_at_least(max_attempts, "max_attempts", 1)
        if not isinstance(use_mine_count, (bool, np.bool_)):
            raise InvalidTypeError(
                f"use_mine_count must be a bool, got {short_repr(use_mine_count)}"
            )
        self._rng = make_rng(seed)
        self._method = method
        self._max_attempts = max_attempts
        self._use_count = bool(use_mine_count)

    @property
    def rng(self) -> np.random.Generator:
        """The generator this strategy draws its seeds from (a :class:`numpy.random.Generator`)."""
        return self._rng

    @property
    def method(self) -> str:
        """How candidates are drawn (str): ``'uniform'`` or ``'fast'``."""
        return self._method

    @property
    def max_attempts(self) -> int:
        """Candidates per board before giving up (int, at least 1)."""
        return self._max_attempts

    @property
    def use_mine_count(self) -> bool:
        """Whether the total mine count is used to decide what is certain (bool)."""
        return self._use_count

    def __repr__(self) -> str:
        return (
            f"NoGuessPlacement(method={self._method!r}, max_attempts={self._max_attempts}, "
            f"use_mine_count={self._use_count}, rng={self._rng!r})"
        )

    def with_seed(self, seed: Any) -> NoGuessPlacement:
        """This strategy drawing from ``seed``; see :meth:`MinePlacementStrategy.with_seed`.

        The method, attempts and mine-count rule are kept.

        Parameters
        ----------
        seed : None, int, SeedSequence or Generator
            As in :meth:`RandomPlacement.with_seed <numsweeper.RandomPlacement.with_seed>`.

        Returns
        -------
        NoGuessPlacement
            A copy with its own generator; this one is unchanged.

        Raises
        ------
        InvalidBoardError, InvalidTypeError
            For a seed :func:`numpy.random.default_rng` does not take.

        Examples
        --------
        >>> import numsweeper as ns
        >>> strategy = ns.NoGuessPlacement(seed=0, method="fast", max_attempts=50)
        >>> twin = strategy.with_seed(3)
        >>> twin.method, twin.max_attempts, twin.rng is strategy.rng
        ('fast', 50, False)
        """
        twin = copy.copy(self)
        twin._rng = make_rng(seed)
        return twin

    def place(
        self,
        rows: int,
        cols: int,
        mines: int,
        *,
        safe: NDArray[np.bool_] | None = None,
        click: tuple[int, int] | None = None,
    ) -> NDArray[np.bool_]:
        """Lay one no-guess board for ``click``: the first board of :meth:`place_batch`.

        Parameters
        ----------
        rows, cols, mines : int
            As in :meth:`MinePlacementStrategy.place`.
        safe : ndarray of bool, shape (rows, cols)
            The cells the first-click rule keeps safe (``click`` among them).
        click : tuple of (int, int)
            The first click ``(row, col)``.

        Returns
        -------
        ndarray of bool, shape (rows, cols)
            A no-guess layout of exactly ``mines`` mines, none where ``safe``
            is True.

        Raises
        ------
        InvalidBoardError
            Without a first click and its safe cells (no first-click rule),
            for a ``click`` that is not one pair or not kept safe, a size out
            of range, or too many mines.
        OutOfBoundsError
            For a click off the board.
        InvalidTypeError
            For a non-integer size, count or click, or a ``safe`` that is not
            of bools.
        GenerationError
            When ``max_attempts`` candidates give no no-guess layout.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> safe = np.zeros((9, 9), dtype=bool)
        >>> safe[4, 4] = True  # what the 'safe' rule keeps free: the click
        >>> layout = ns.NoGuessPlacement(seed=1).place(9, 9, 10, safe=safe, click=(4, 4))
        >>> int(layout.sum()), bool(layout[4, 4]), ns.is_no_guess(layout, (4, 4))
        (10, False, True)
        """
        zone = None
        if safe is not None:  # (checked as one board's, not as the batch it becomes)
            rows, cols, mines = check_dims(rows, cols, mines)
            zone = check_mask(safe, (rows, cols), "safe")[None]
        clicks = None
        if click is not None:
            clicks = np.asarray(click)
            if clicks.shape != (2,):
                raise InvalidBoardError(
                    f"click must be one (row, col) pair, got {short_repr(click)}"
                )
            clicks = clicks.reshape(1, 2)
        layout: NDArray[np.bool_] = self.place_batch(
            1, rows, cols, mines, safe=zone, clicks=clicks
        )[0]
        return layout

    def place_batch(
        self,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        safe: NDArray[np.bool_] | None = None,
        clicks: NDArray[np.intp] | None = None,
        workers: int = 1,
    ) -> NDArray[np.bool_]:
        """Lay ``n`` no-guess boards, one per first click.

        Parameters
        ----------
        n, rows, cols, mines : int
            As for :meth:`MinePlacementStrategy.place_batch`.
        safe : ndarray of bool, shape (n, rows, cols)
            The cells each board's first-click rule keeps safe (its click
            among them).
        clicks : ndarray of int, shape (n, 2)
            Each board's first click.
        workers : int
            Worker processes that decide blocks of candidates; the boards
            are the same for any number.

        Returns
        -------
        ndarray of bool, shape (n, rows, cols)

        Raises
        ------
        InvalidBoardError
            Without ``safe`` and ``clicks`` (no first-click rule), for a
            click that is not kept safe, too many mines, or ``workers``
            below 1.
        OutOfBoundsError
            For a click off the board.
        GenerationError
            When the attempts run out (see ``max_attempts``).
        InvalidTypeError
            If ``clicks`` does not hold integers or ``safe`` is not a bool array.

        Examples
        --------
        >>> import numpy as np
        >>> import numsweeper as ns
        >>> from numsweeper._rules import safe_zones
        >>> clicks = np.array([[0, 0], [4, 4]])
        >>> zones = safe_zones(9, 9, clicks, "opening")
        >>> boards = ns.NoGuessPlacement(seed=3).place_batch(2, 9, 9, 10, safe=zones, clicks=clicks)
        >>> ns.is_no_guess(boards, clicks).tolist()
        [True, True]
        """
        if safe is None or clicks is None:
            raise InvalidBoardError(
                "NoGuessPlacement needs a first-click rule ('safe' or 'opening') and the "
                "first click: a no-guess layout is defined from its first click"
            )
        n = check_at_least(n, "n", 0)
        rows, cols, mines = check_dims(rows, cols, mines)
        workers = check_workers(workers)
        clicks = np.asarray(clicks)
        if clicks.dtype == bool or not np.issubdtype(clicks.dtype, np.integer):
            raise InvalidTypeError(f"clicks must hold integers, got dtype {clicks.dtype}")
        safe = check_mask(safe, (n, rows, cols), "safe")
        if clicks.shape != (n, 2):
            raise InvalidBoardError(f"clicks must have shape ({n}, 2), got {clicks.shape}")
        out = np.empty((n, rows, cols), dtype=bool)
        if n == 0:
            return out
        r, c = clicks[:, 0], clicks[:, 1]
        off = (r < 0) | (r >= rows) | (c < 0) | (c >= cols)
        if off.any():
            i = int(np.argmax(off))
            raise OutOfBoundsError(
                f"click {(int(r[i]), int(c[i]))} of board {i} is off the {rows}x{cols} board"
            )
        if not safe[np.arange(n), r, c].all():
            i = int(np.argmin(safe[np.arange(n), r, c]))
            raise InvalidBoardError(
                f"the first click {(int(r[i]), int(c[i]))} of board {i} must be kept safe"
            )
        allowed = rows * cols - int(np.count_nonzero(safe.reshape(n, -1), axis=1).max())
        if mines > allowed:
            raise InvalidBoardError(
                f"cannot place {mines} mines: only {allowed} of {rows * cols} cells may hold one"
            )
        entropy = self._rng.integers(0, 2**63, size=2, dtype=np.int64)
        root = np.random.SeedSequence([int(v) for v in entropy])
        groups = self._groups(root, n, rows, cols, mines, safe, clicks)
        if workers == 1:
            for group in groups:
                group.run_here()
        else:
            _run_waves(groups, workers)
        for group in groups:
            out[group.boards] = group.layouts()
        return out

    def _groups(
        self,
        root: np.random.SeedSequence,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        safe: NDArray[np.bool_],
        clicks: NDArray[Any],
    ) -> list[_Group]:
        """The boards by first click (and safe cells), in sorted order, each with its seed."""
        key = np.concatenate(
            [
                np.ascontiguousarray(clicks, dtype=np.int64).view(np.uint8).reshape(n, -1),
                np.packbits(safe.reshape(n, -1), axis=1),
            ],
            axis=1,
        )
        _, first, which = np.unique(key, axis=0, return_index=True, return_inverse=True)
        which = which.reshape(-1)
        order = np.argsort(which, kind="stable")
        bounds = np.searchsorted(which[order], np.arange(len(first) + 1))
        groups = []
        for g, (i, child) in enumerate(zip(first.tolist(), root.spawn(len(first)), strict=True)):
            job = _Job(
                rows,
                cols,
                mines,
                np.ascontiguousarray(safe[i]),
                (int(clicks[i, 0]), int(clicks[i, 1])),
                self._method,
                self._use_count,
            )
            boards = order[bounds[g] : bounds[g + 1]]
            groups.append(_Group(job, child, boards, self._max_attempts))
        return groups
