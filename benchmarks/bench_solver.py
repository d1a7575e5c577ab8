"""Solver benchmarks (pytest-benchmark) and the win-rate driver (command line).

``pytest benchmarks/bench_solver.py`` times ``analyze`` on typical and hard
expert positions beside a plain-Python backtracking counter, the batched local
rules beside a cell-by-cell loop, whole expert games, and ``hint`` on a huge
board beside the first click that opened it.

``python benchmarks/bench_solver.py --positions`` prints the median/p99 of
``analyze`` over seeded expert positions and the policy's time split;
``python benchmarks/bench_solver.py expert safe --throughput --workers 2``
times 1,000 games of the policy in ``ns.simulate`` on both cores;
``--huge`` times ``hint`` on a 5000 x 5000 board after its first click (and
its peak memory), and ``analyze`` on a 2000 x 2000 expert-density board in
mid-game; ``--split 300`` prints where 300 expert games in ``ns.simulate``
spend their time, the guess's parts included (with ``--kernels``, each
compiled kernel's calls too); ``--fingerprint`` hashes the
fingerprint chunks' games (the check that a change leaves every move the
same).

Run as a script with a preset it measures SolverPolicy win rates,
reproducibly, in fixed seeded chunks.  Each chunk plays ``chunk`` games in
lock-step through ``ns.Game`` (one policy call per step for the whole chunk,
as ``ns.simulate`` does with ``BatchGame``), with the chunk's own child
``SeedSequence``, so results are identical for any number of workers.  (The
win-rate table was started before ``simulate`` existed; this driver keeps
its boards, which ``Game.new`` draws, so every chunk stays reproducible.)

Usage::

    PYTHONPATH=src python benchmarks/bench_solver.py expert safe \
        --games 2000 --seed 20261129 --workers 2 --out results.jsonl

Each finished chunk is appended to ``--out`` as one JSON line, so an
interrupted run keeps what it finished; ``--summary`` prints the table rows.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

import numsweeper as ns
from baselines import plain_endgame_values
from numsweeper.solver import Analyzer, SolverPolicy, analyze, local_rules

try:  # under pytest, benchmarks/ is on sys.path
    from conftest import size
except ImportError:  # run as a script

    def size(full: int, small: int) -> int:
        return full


H = int(ns.HIDDEN)


def wilson(wins: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a binomial proportion (scipy's, as ``simulate`` uses)."""
    if n == 0:
        return 0.0, 1.0
    ci = binomtest(wins, n).proportion_ci(method="wilson")
    return float(ci.low), float(ci.high)


def play_chunk(task: tuple[str, str, int, int, int]) -> dict[str, Any]:
    """Play one chunk of games; return its tallies.

    Besides the policy's own time split, ``timings['moves']`` is the time
    the games took to play the moves (snapshots and reveals), and
    ``fingerprint`` hashes every game's final visible board and result.
    """
    preset, rule, seed, index, size = task
    rows, cols, mines = ns.PRESETS[preset]
    chunk_seed = np.random.SeedSequence(seed, spawn_key=(index,))
    policy = SolverPolicy(first_click=rule)
    rng = np.random.default_rng(chunk_seed.spawn(1)[0])
    start_cpu, start = time.process_time(), time.perf_counter()
    games = [
        ns.Game.new(rows, cols, mines, seed=child, first_click=rule)
        for child in chunk_seed.spawn(size)
    ]
    live = list(range(size))
    moves = 0.0
    while live:
        t = time.perf_counter()
        snaps = [games[i].snapshot() for i in live]
        visible = np.stack([s.cells for s in snaps])
        left = np.array([s.mines_left for s in snaps])
        moves += time.perf_counter() - t
        clicks = policy(visible, left, rng)
        t = time.perf_counter()
        for i, (r, c) in zip(live, clicks.tolist(), strict=True):
            games[i].reveal(r, c)
        live = [i for i in live if games[i].state is ns.GameState.IN_PROGRESS]
        moves += time.perf_counter() - t
    wins = sum(g.state is ns.GameState.WON for g in games)
    digest = hashlib.sha256()
    for game in games:
        digest.update(game.snapshot().cells.tobytes())
        digest.update(game.state.name.encode())
    return {
        "preset": preset,
        "rule": rule,
        "seed": seed,
        "chunk": index,
        "games": size,
        "wins": int(wins),
        "wall": time.perf_counter() - start,
        "cpu": time.process_time() - start_cpu,
        "counts": policy.counts,
        "timings": {**policy.timings, "moves": moves},
        "fingerprint": digest.hexdigest()[:16],
    }


#: The fingerprint chunks (seed 20261129, the win-rate runs' chunk seeding):
#: (preset, rule, chunk, games) and the hash of every game's final visible
#: board and result, pinned at commit 4991d32's policy (the table's).  Two
#: engines play the same moves on a chunk when the hashes are equal.
FINGERPRINTS = {
    ("expert", "safe", 1, 60): "64e4bd0714865e14",
    ("expert", "opening", 3, 40): "ca74b4ff7f6bd2fb",
    ("intermediate", "safe", 2, 200): "3d91b76f0d804d00",
    ("beginner", "opening", 4, 300): "9cf4703531e758c2",
    ("expert", "safe", 7, 300): "860c0b31777c766e",
    ("expert", "opening", 8, 300): "822fd8ab7e371885",
}


def fingerprint(workers: int = 1) -> bool:
    """Play the fingerprint chunks; print each hash and whether it is the pinned one."""
    tasks = [(preset, rule, 20261129, chunk, n) for preset, rule, chunk, n in FINGERPRINTS]
    same = True
    with ProcessPoolExecutor(workers) as pool:
        for task, rec in zip(tasks, pool.map(play_chunk, tasks), strict=True):
            want = FINGERPRINTS[task[0], task[1], task[3], task[4]]
            same &= rec["fingerprint"] == want
            print(
                f"{task[0]} {task[1]!r} chunk {task[3]} ({task[4]} games): {rec['wins']} won, "
                f"{rec['fingerprint']} ({'same' if rec['fingerprint'] == want else 'DIFFERENT'}), "
                f"{rec['cpu']:.2f} cpu-s"
            )
    return same


# -- positions ---------------------------------------------------------------


class _Recorder(SolverPolicy):
    """A SolverPolicy that keeps every position the local rules leave stuck.

    Some of them the policy then answers from its memory of proven-safe
    cells without calling the exact engine; the benchmark times a cold
    ``analyze`` on every one of them all the same.
    """

    def __init__(self, first_click: str | None) -> None:
        super().__init__(first_click)
        self.positions: list[tuple[np.ndarray, int]] = []

    def _choose(self, cells: np.ndarray, mines: int) -> Any:
        self.positions.append((cells.copy(), mines))
        return super()._choose(cells, mines)


def stuck_positions(games: int, seed: int = 1) -> list[tuple[np.ndarray, int]]:
    """Typical expert positions: where the solver needed the exact engine."""
    policy = _Recorder("safe")
    rng = np.random.default_rng(seed)
    for child in np.random.SeedSequence(seed).spawn(games):
        game = ns.Game.new(16, 30, 99, seed=child, first_click="safe")
        while game.state is ns.GameState.IN_PROGRESS:
            snap = game.snapshot()
            ((r, c),) = policy(snap.cells[None], [snap.mines_left], rng).tolist()
            game.reveal(r, c)
    return policy.positions


def hard_positions(n: int, seed: int = 2, frac: float = 0.25) -> list[tuple[np.ndarray, int]]:
    """Expert boards with a quarter of the safe cells revealed at random.

    Not reachable in play (zeros would flood), but their frontiers are wide
    2-D sheets: the worst case for the counting engine.
    """
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        board = ns.Board.create(16, 30, 99, ns.RandomPlacement(rng))
        shown = ~board.mines & (rng.random((16, 30)) < frac)
        out.append((np.where(shown, board.counts, H).astype(np.int8), 99))
    return out


def backtrack_count(cells: np.ndarray, mines: int) -> int:
    """Plain-Python baseline: count layouts cell by cell (the classic "tank").

    Enumerates frontier cells one at a time with constraint pruning and
    weights each frontier solution by C(U, M - K).
    """
    rows, cols = cells.shape
    hidden = cells < 0
    nbrs = {
        (r, c): [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        for r in range(rows)
        for c in range(cols)
    }
    numbers = [(r, c) for r in range(rows) for c in range(cols) if cells[r, c] >= 0]
    front = sorted({x for n in numbers for x in nbrs[n] if hidden[x]})
    need = {n: int(cells[n]) for n in numbers}
    left = {n: sum(hidden[x] for x in nbrs[n]) for n in numbers}
    of = {x: [n for n in nbrs[x] if n in need] for x in front}
    u = int(hidden.sum()) - len(front)
    by_k: dict[int, int] = {}

    def go(i: int, k: int) -> None:
        if i == len(front):
            by_k[k] = by_k.get(k, 0) + 1
            return
        x = front[i]
        for bit in (0, 1):
            ok = True
            for n in of[x]:
                need[n] -= bit
                left[n] -= 1
                if need[n] < 0 or need[n] > left[n]:
                    ok = False
            if ok:
                go(i + 1, k + bit)
            for n in of[x]:
                need[n] += bit
                left[n] += 1

    go(0, 0)
    return sum(n * math.comb(u, mines - k) for k, n in by_k.items() if 0 <= mines - k <= u)


def local_reference(cells: np.ndarray) -> np.ndarray:
    """Plain-Python single-number rules on one board: the proved-safe mask."""
    rows, cols = cells.shape
    safe = np.zeros(cells.shape, dtype=bool)
    mine = np.zeros(cells.shape, dtype=bool)
    changed = True
    while changed:
        changed = False
        for r in range(rows):
            for c in range(cols):
                if cells[r, c] < 0:
                    continue
                nb = [
                    (r + dr, c + dc)
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
                ]
                free = [x for x in nb if cells[x] < 0 and not mine[x] and not safe[x]]
                known = sum(bool(mine[x]) for x in nb)
                if not free:
                    continue
                if cells[r, c] - known == len(free):
                    for x in free:
                        mine[x] = True
                    changed = True
                elif cells[r, c] == known:
                    for x in free:
                        safe[x] = True
                    changed = True
    return safe


# -- pytest-benchmark cases ---------------------------------------------------

_CACHE: dict[str, Any] = {}


def _typical() -> list[tuple[np.ndarray, int]]:
    if "typical" not in _CACHE:
        _CACHE["typical"] = stuck_positions(size(20, 2))
    return _CACHE["typical"]  # type: ignore[no-any-return]


def _cold(cells: np.ndarray, mines: int) -> Any:
    """``analyze`` from an empty memory (each call makes a fresh engine)."""
    return analyze(cells, mines)


def _expected_mines(positions: list[tuple[np.ndarray, int]], analyses: list[Any]) -> None:
    """Each exact analysis's probabilities add up to the mines hidden (no flags
    here): an identity the count must keep whatever the frontier.  (A relaxed
    one, past ``MAX_STATES`` on a huge tangled board, keeps only bounds.)"""
    assert len(analyses) == len(positions)
    for (cells, mines), a in zip(positions, analyses, strict=True):
        if not a.exact:
            continue
        hidden = a.probabilities[cells < 0]
        assert abs(float(hidden.sum()) - mines) < 1e-6 * max(mines, 1), (hidden.sum(), mines)


def _small_frontier(positions: list[tuple[np.ndarray, int]]) -> list[tuple[np.ndarray, int]]:
    return [
        (c, m) for c, m in positions if np.count_nonzero((c < 0) & (adjacent(c >= 0) > 0)) <= 22
    ]


def test_analyze_typical_expert(benchmark: Any) -> None:
    positions = _typical()
    analyses = benchmark(lambda: [_cold(c, m) for c, m in positions])
    _expected_mines(positions, analyses)
    small = _small_frontier(positions)[:2]
    assert [analyze(c, m).layouts for c, m in small] == [backtrack_count(c, m) for c, m in small]


def test_backtrack_typical_expert_baseline(benchmark: Any) -> None:
    # the plain-Python counter on the same positions, capped to the ones it
    # finishes quickly (small frontiers); compare per position
    positions = [(c, m) for c, m in _typical() if np.count_nonzero(c < 0) > 0][: size(40, 3)]
    positions = _small_frontier(positions)
    assert all(backtrack_count(c, m) == analyze(c, m).layouts for c, m in positions[:3])
    benchmark(lambda: [backtrack_count(c, m) for c, m in positions])
    benchmark.extra_info["positions"] = len(positions)


def test_analyze_same_small_frontier_positions(benchmark: Any) -> None:
    positions = _small_frontier(_typical()[: size(40, 3)])
    analyses = benchmark(lambda: [_cold(c, m) for c, m in positions])
    _expected_mines(positions, analyses)
    benchmark.extra_info["positions"] = len(positions)


def _strip(cols: int) -> tuple[np.ndarray, int]:
    """A 4-row strip: mines in row 1, every other cell of row 2 revealed.

    One long frontier component whose layouts grow exponentially with
    ``cols`` while every cut stays narrow.
    """
    rng = np.random.default_rng(3)
    layout = np.zeros((4, cols), dtype=bool)
    layout[1] = rng.random(cols) < 0.3
    cells = np.full(layout.shape, H, dtype=np.int8)
    cells[2, ::2] = adjacent(layout)[2, ::2]
    return cells, int(layout.sum())


def test_analyze_long_frontier(benchmark: Any) -> None:
    cells, mines = _strip(size(22, 10))
    a = benchmark(_cold, cells, mines)
    _expected_mines([(cells, mines)], [a])


def test_backtrack_long_frontier_baseline(benchmark: Any) -> None:
    cells, mines = _strip(size(22, 10))
    assert backtrack_count(cells, mines) == analyze(cells, mines).layouts
    benchmark.pedantic(backtrack_count, (cells, mines), rounds=3, iterations=1)


def test_analyze_hard_expert(benchmark: Any) -> None:
    positions = hard_positions(size(5, 1))
    analyses = benchmark.pedantic(
        lambda: [_cold(c, m) for c, m in positions], rounds=1, iterations=1
    )
    _expected_mines(positions, analyses)


def _probes() -> list[list[tuple[np.ndarray, int]]]:
    """Look-ahead probes: per typical position, every number its safest
    frontier cell can show, in the order the policy tries them."""
    if "probes" not in _CACHE:
        groups = []
        cells_of = []  # (the position, its mines, the cell, the numbers it shows)
        for cells, mines in _typical():
            p = analyze(cells, mines).probabilities
            front = (cells == H) & (adjacent(cells >= 0) > 0)
            if not front.any():
                continue
            r, c = np.unravel_index(np.argmin(np.where(front, p, np.inf)), p.shape)
            probes = []
            for n in range(9):
                probe = cells.copy()
                probe[r, c] = n
                with contextlib.suppress(ns.InvalidBoardError):
                    analyze(probe, mines)
                    probes.append((probe, mines))
            groups.append(probes)
            cells_of.append((cells, mines, (int(r), int(c)), [int(x[r, c]) for x, _ in probes]))
        _CACHE["probes"] = groups
        _CACHE["probe_cells"] = cells_of
    return _CACHE["probes"]  # type: ignore[no-any-return]


def _look_ahead(groups: list[list[tuple[np.ndarray, int]]]) -> list[Any]:
    """Analyse each cell's probes in turn, with one fresh engine per cell."""
    out = []
    for probes in groups:
        engine = Analyzer()
        out.extend(engine.analyze(cells, mines) for cells, mines in probes)
    return out


def previous_layouts(cells: np.ndarray, mines: int) -> int:
    """The layouts of a position as the engine before commit 0e26f58 counted
    them: a structure built for the position, each component counted in
    Python by :func:`two_pass_count_component`."""
    from numsweeper.solver.analysis import layout_total
    from numsweeper.solver.structure import frontier

    shape = frontier(cells < 0, cells >= 0)
    need = cells.astype(np.int64).ravel()[shape.con_flat].tolist()
    product = {0: 1}
    for j in range(shape.n_parts):
        poly, _ = two_pass_count_component(
            shape.groups(j), shape.group_cons, shape.sizes.tolist(), need, 10**9
        )
        step: dict[int, int] = {}
        for a, x in product.items():
            for b, y in poly.items():
                step[a + b] = step.get(a + b, 0) + x * y
        product = step
    return layout_total(product, shape.unconstrained, mines)


def two_pass_count_component(
    order: list[int],
    group_cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[dict[int, int], list[dict[int, int]]]:
    """The component count before commit 0e26f58: forward, then an
    independent count from the other end, then the marginals."""
    from numsweeper.solver.longcount import _forward

    fwd, fwd_active, plans = _forward(order, group_cons, sizes, need, max_states)
    bwd, bwd_active, _ = _forward(order[::-1], group_cons, sizes, need, max_states)
    n = len(order)
    marginals = []
    for i, g in enumerate(order):
        get_keep, get_drop, fresh_needs, old_cons, lo0, hi0 = plans[i]
        right = bwd[n - i - 1]
        after_pos = {c: j for j, c in enumerate(fwd_active[i + 1])}
        pairs = [(need[c], after_pos[c]) for c in bwd_active[n - i - 1]]
        weights = [math.comb(sizes[g], v) * v for v in range(sizes[g] + 1)]
        acc: dict[int, int] = {}
        for key, poly in fwd[i].items():
            lo, hi = lo0, hi0
            for j, cap in old_cons:
                lo, hi = max(lo, key[j] - cap), min(hi, key[j])
            fixed = get_keep(key)
            base = get_drop(key) + fresh_needs
            for v in range(max(lo, 1), hi + 1):
                after = fixed + tuple([x - v for x in base])
                tail = right.get(tuple([total - after[j] for total, j in pairs]))
                if tail is None:
                    continue
                for m1, p1 in poly.items():
                    for m2, p2 in tail.items():
                        acc[m1 + m2 + v] = acc.get(m1 + m2 + v, 0) + weights[v] * p1 * p2
        marginals.append(acc)
    return fwd[n][()], marginals


def test_analyze_look_ahead_probes(benchmark: Any) -> None:
    groups = _probes()
    analyses = benchmark(_look_ahead, groups)
    _expected_mines([p for g in groups for p in g], analyses)
    benchmark.extra_info["probes"] = sum(len(g) for g in groups)


def test_look_ahead_probes_compiled(benchmark: Any) -> None:
    # the same probes as the look-ahead reads them: a prober per cell (its
    # structure, and the other parts counted by probe_rest), then one
    # probe_outlook call per number; the same layouts as the analyses
    _probes()
    cells_of = _CACHE["probe_cells"]

    def looks() -> list[Any]:
        found = []
        for cells, mines, cell, numbers in cells_of:
            prober = Analyzer().prober(cells, mines, cell, ns.solver.MAX_STATES)
            found.extend(prober.look(n, -1) for n in numbers)
        return found

    found = benchmark(looks)
    want = [a.layouts for a in _look_ahead(_probes())]
    assert len(found) == len(want)
    assert all(f is None or f[0] == w for f, w in zip(found, want, strict=True))
    assert sum(f is not None for f in found) > 0.9 * len(found)
    benchmark.extra_info["probes"] = len(found)


def test_analyze_look_ahead_probes_previous_engine_baseline(benchmark: Any) -> None:
    # the engine before commit 0e26f58: a structure per probe, counted in
    # Python by a forward and an independent backward count; the same layouts
    groups = _probes()
    probes = [probe for group in groups for probe in group]
    want = [a.layouts for a in _look_ahead(groups)]
    got = benchmark.pedantic(
        lambda: [previous_layouts(c, m) for c, m in probes], rounds=size(3, 1), iterations=1
    )
    assert got == want
    benchmark.extra_info["probes"] = len(probes)


#: A late expert position from a real game (99 mines; ``.`` hidden) where
#: the endgame search lists 192 layouts over 30 undecided cells, 10 of them
#: unconstrained: the listing that checked each number only at its last cell
#: explored a large dead tree here.  Shared with the tests.
def _data_rows(name: str) -> list[str]:
    """The board rows of a position file in tests/data (``#`` lines are notes)."""
    text = (Path(__file__).parent.parent / "tests" / "data" / name).read_text()
    return [row for row in text.splitlines() if not row.startswith("#")]


_LATE_EXPERT = _data_rows("late_expert.txt")


def _late_expert() -> tuple[np.ndarray, Any, int, list[tuple[int, int]]]:
    cells = np.array(
        [[H if ch == "." else int(ch) for ch in row] for row in _LATE_EXPERT], dtype=np.int8
    )
    a = analyze(cells, 99)
    p = a.probabilities
    known = (cells < 0) & (p == 1.0)
    unknown = [(int(r), int(c)) for r, c in np.argwhere((cells < 0) & (p > 0) & (p < 1)).tolist()]
    return cells, known, a.mines_left - int(np.count_nonzero(known)), unknown


def test_endgame_layouts_late_expert(benchmark: Any) -> None:
    from numsweeper.solver.endgame import list_layouts

    cells, known, mines, unknown = _late_expert()
    out = benchmark(list_layouts, cells, known, mines, unknown)
    assert out is not None and len(out) == analyze(cells, 99).layouts == 192


def test_endgame_layouts_unpruned_baseline(benchmark: Any) -> None:
    # the plain backtracking the endgame used before: cells in row-major
    # order, each number checked only once its last cell is placed
    cells, known, mines, unknown = _late_expert()
    out = benchmark.pedantic(
        unpruned_layouts, (cells, known, mines, unknown), rounds=size(3, 1), iterations=1
    )
    assert len(out) == 192


def _dense_expert() -> tuple[np.ndarray, Any]:
    rows = _data_rows("dense_expert.txt")
    cells = np.array([[H if ch == "." else int(ch) for ch in row] for row in rows], dtype=np.int8)
    return cells, analyze(cells, 99)


def _search_dense() -> dict[tuple[int, int], float] | None:
    from numsweeper.solver.endgame import endgame_values

    cells, a = _dense_expert()
    return endgame_values(cells, a, 100_000, every=False)


def test_endgame_search_dense_expert(benchmark: Any) -> None:
    # A dense late position (1,242 layouts over 28 undecided cells, 19 of
    # 118 hidden cells safe) that only the density trigger searches: the
    # listing and the search.  (The same search in Python took 8-13 times
    # as long before numba became required; see benchmarks/README.md.)
    values = benchmark.pedantic(_search_dense, rounds=size(5, 2), iterations=1)
    assert values is not None and max(values.values()) == 442 / 1242  # the exact best


def _late_endgame() -> tuple[np.ndarray, Any]:
    cells = _late_expert()[0]
    return cells, analyze(cells, 99)


def _plain_late_values(cells: np.ndarray, a: Any) -> dict[tuple[int, int], float]:
    """:func:`baselines.plain_endgame_values`, on the layouts the engine lists."""
    from numsweeper.solver.endgame import list_layouts

    _, known, mines, unknown = _late_expert()
    rows = list_layouts(cells, known, mines, unknown)
    layouts = [
        frozenset(i for i in range(len(unknown)) if int(row[i >> 6]) >> (i & 63) & 1)
        for row in rows
    ]
    clickable = [bool(cells[rc] == H) for rc in unknown]
    return plain_endgame_values(unknown, layouts, clickable)


def test_endgame_search_late_expert(benchmark: Any) -> None:
    # The late expert position (192 layouts over 30 undecided cells): every
    # click's value, the listing and the search, beside the plain expectimax
    # below on the same layouts (its listing compiled too).
    from numsweeper.solver.endgame import endgame_values

    cells, a = _late_endgame()
    values = benchmark(endgame_values, cells, a, 10**6)
    assert values == _plain_late_values(cells, a)
    benchmark.extra_info["clicks"] = len(values)


def test_endgame_search_plain_baseline(benchmark: Any) -> None:
    cells, a = _late_endgame()
    values = benchmark.pedantic(_plain_late_values, (cells, a), rounds=size(5, 2), iterations=1)
    assert max(values.values()) == 48 / 192


def unpruned_layouts(
    cells: np.ndarray, known: np.ndarray, mines: int, unknown: list[tuple[int, int]]
) -> list[int]:
    index = {rc: i for i, rc in enumerate(unknown)}
    known_nb = adjacent(known)
    cons = []
    for r, c in np.argwhere(cells >= 0).tolist():
        members = [
            index[(r + dr, c + dc)]
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (r + dr, c + dc) in index
        ]
        if members:
            cons.append((int(cells[r, c] - known_nb[r, c]), members))
    n = len(unknown)
    of_cell: list[list[int]] = [[] for _ in range(n)]
    for j, (_, members) in enumerate(cons):
        for i in members:
            of_cell[i].append(j)
    last = [max(ms) for _, ms in cons]
    need = [v for v, _ in cons]
    out: list[int] = []

    def place(i: int, left: int, lay: int) -> None:
        if left < 0 or left > n - i:
            return
        if i == n:
            if left == 0:
                out.append(lay)
            return
        for bit in (0, 1):
            for j in of_cell[i]:
                need[j] -= bit
            if all(need[j] >= 0 and (last[j] != i or need[j] == 0) for j in of_cell[i]):
                place(i + 1, left - bit, lay | (bit << i))
            for j in of_cell[i]:
                need[j] += bit

    place(0, mines, 0)
    return out


def _batch(k: int) -> np.ndarray:
    return np.stack([c for c, _ in (_typical() * k)[:k]])


def test_local_rules_batch(benchmark: Any) -> None:
    batch = _batch(size(256, 4))
    safe = benchmark(local_rules, batch)[0]
    assert all(np.array_equal(local_reference(b), safe[i]) for i, b in enumerate(batch[:2]))


def _first_safe_by_masks(batch: np.ndarray) -> np.ndarray:
    """The policy's step before session 9: the masks, then numpy passes."""
    safe = local_rules(batch)[0] & (batch == ns.HIDDEN)
    flat = safe.reshape(len(batch), -1)
    return np.where(flat.any(axis=1), np.argmax(flat, axis=1), -1)


def test_policy_first_safe_step(benchmark: Any) -> None:
    # What SolverPolicy.__call__ asks of the local rules on every move: the
    # first hidden cell proved safe per game, from one compiled call
    from numsweeper.solver.local import _first_safe

    batch = _batch(size(256, 4))
    first = benchmark(lambda: _first_safe(batch)[0])
    assert first.tolist() == _first_safe_by_masks(batch).tolist()


def test_policy_first_safe_by_masks_baseline(benchmark: Any) -> None:
    batch = _batch(size(256, 4))
    benchmark(_first_safe_by_masks, batch)


def _remembered() -> tuple[Any, list[tuple[np.ndarray, int]]]:
    """A full memory of proved-safe cells (256 entries) and the positions to check.

    Each entry is one of the typical stuck positions with a tenth of its
    numbers hidden again (a position it then extends), remembering three
    of its hidden cells; the positions are the typical ones, and each
    again with one more mine (which no entry fits).
    """
    from numsweeper.solver.policy import _KnownSafe

    positions = _typical()
    rng = np.random.default_rng(11)
    known = _KnownSafe()
    for k in range(256):
        cells, mines = positions[k % len(positions)]
        seen = np.where(rng.random(cells.shape) < 0.1, ns.HIDDEN, cells).astype(np.int8)
        hidden = np.argwhere(cells == ns.HIDDEN)
        picks = hidden[rng.choice(len(hidden), size=3, replace=False)]
        known.add(seen, mines, [(int(r), int(c)) for r, c in picks])
    return known, positions + [(cells, mines + 1) for cells, mines in positions]


def _find_by_xor(known: Any, cells: np.ndarray, mines: int) -> tuple[int, int] | None:
    """The memory's check before session 9: every entry's words XOR-ed in numpy."""
    flat = cells.reshape(-1)
    here = known._words(flat, known.shown.shape[1]).view(np.uint64)
    fits = (((known.shown ^ here) & known.mask) == 0).all(axis=1) & (known.mines == mines)
    open_ = known.safe[fits].any(axis=0) & (flat == ns.HIDDEN)
    if not open_.any():
        return None
    r, c = divmod(int(np.argmax(open_)), cells.shape[1])
    return r, c


def test_policy_remembered_safe_find(benchmark: Any) -> None:
    # A stuck position checked against the memory of proved-safe cells
    # (one compiled pass that stops at each entry's first differing word)
    known, positions = _remembered()
    found = benchmark(lambda: [known.find(cells, mines) for cells, mines in positions])
    assert found == [_find_by_xor(known, cells, mines) for cells, mines in positions]
    assert any(f is not None for f in found) and any(f is None for f in found)
    benchmark.extra_info["positions"] = len(positions)


def test_policy_remembered_safe_by_xor_baseline(benchmark: Any) -> None:
    known, positions = _remembered()
    benchmark(lambda: [_find_by_xor(known, cells, mines) for cells, mines in positions])


def test_local_rules_plain_python_baseline(benchmark: Any) -> None:
    batch = _batch(size(256, 4))[: size(16, 2)]
    assert all(np.array_equal(local_reference(b), local_rules(b)[0]) for b in batch[:2])
    benchmark(lambda: [local_reference(b) for b in batch])
    benchmark.extra_info["boards"] = len(batch)


def test_policy_expert_games(benchmark: Any) -> None:
    n = size(40, 1)
    tally = benchmark.pedantic(
        lambda: play_chunk(("expert", "safe", 99, 0, n)), rounds=1, iterations=1
    )
    assert tally["games"] == n and 0 <= tally["wins"] <= n
    assert tally["fingerprint"] == play_chunk(("expert", "safe", 99, 0, n))["fingerprint"]
    benchmark.extra_info["games"] = n


# -- the guess -----------------------------------------------------------------


class _Guesses(SolverPolicy):
    """A SolverPolicy that keeps every position where it had to guess."""

    def __init__(self, first_click: str | None) -> None:
        super().__init__(first_click)
        self.positions: list[tuple[np.ndarray, int]] = []

    def _guess(self, cells: np.ndarray, mines: int, a: Any, clickable: np.ndarray) -> Any:
        self.positions.append((cells.copy(), mines))
        return super()._guess(cells, mines, a, clickable)


def _guess_positions() -> list[tuple[np.ndarray, int]]:
    """Expert positions where the policy guessed (Hill's guess, not the endgame)."""
    if "guesses" not in _CACHE:
        policy = _Guesses("safe")
        rng = np.random.default_rng(3)
        for child in np.random.SeedSequence(3).spawn(size(30, 3)):
            game = ns.Game.new(16, 30, 99, seed=child, first_click="safe")
            while game.state is ns.GameState.IN_PROGRESS:
                snap = game.snapshot()
                ((r, c),) = policy(snap.cells[None], [snap.mines_left], rng).tolist()
                game.reveal(r, c)
        _CACHE["guesses"] = policy.positions[: size(60, 4)]
    return _CACHE["guesses"]  # type: ignore[no-any-return]


def _guess_each(how: str) -> list[tuple[int, int] | None]:
    """Analyse each guess position from an empty memory and choose its guess."""
    moves = []
    for cells, mines in _guess_positions():
        policy = SolverPolicy(guess="hill" if how == "plain" else how)  # a fresh memory
        a = policy._analyze(cells, mines)
        if how == "plain":
            moves.append(plain_hill_guess(cells, mines, a))
        else:
            moves.append(policy._guess(cells, mines, a, cells == H))
    return moves


def _every_number(
    cells: np.ndarray, mines: int, r: int, c: int
) -> Iterator[tuple[np.ndarray, Any]]:
    """Each state ``(r, c)`` can show, with its analysis."""
    for n in range(9):
        probe = cells.copy()
        probe[r, c] = n
        with contextlib.suppress(ns.InvalidBoardError):
            yield probe, analyze(probe, mines)


def plain_hill_guess(cells: np.ndarray, mines: int, a: Any) -> tuple[int, int] | None:
    """Hill's guess as its rule reads: every candidate's every number
    analysed, death tested cell by cell on whole boards, no early stops."""
    from numsweeper.solver import guess as g
    from numsweeper.solver.influence import _Influence

    p = np.where(cells == H, a.probabilities, np.inf)
    influence = _Influence(Analyzer(), cells, mines, a, SolverPolicy().max_states)
    hidden_nb = adjacent(cells < 0)
    chosen: dict[bool, tuple[tuple[float, int, int, int], tuple[int, int]]] = {}
    for r, c in g.candidates(cells, p).tolist():
        pr = float(p[r, c])
        factor = influence.factor(r, c, pr)
        top = chosen[True][0][0] if True in chosen else None
        if top is not None and (1 - pr) * factor + 1e-9 < top:
            continue  # the rule's skip, in order of probability
        terms = []
        for probe, b in _every_number(cells, mines, r, c):
            q = b.probabilities
            live = (probe == H) & ~dead_cells(probe, q)
            off = (probe == H) & (adjacent(probe >= 0) == 0)
            floor = [1.0 - float(q[off][0])] * 2 if off.any() else []
            s = sorted([*(1.0 - q[live]).tolist(), *floor, 0.0, 0.0], reverse=True)
            terms.append((b.layouts / a.layouts, 4 * s[0] + s[1], bool((q[live] == 0).any())))
        score = sum(w * v / 5 for w, v, _ in terms)
        progress = sum(w for w, _, safe in terms if safe)
        key = (score * factor * (1 + g.PROGRESS * progress), -int(hidden_nb[r, c]), -r, -c)
        told = len(terms) > 1  # more than one number: the click can tell something
        if told not in chosen or key > chosen[told][0]:
            chosen[told] = key, (r, c)
    for told in (True, False):
        if told in chosen:
            return chosen[told][1]
    return None


def dead_cells(cells: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hill's dead cells over a whole board, cell by cell with plain sets.

    A hidden cell that is not a certain mine is dead when none of its
    neighbours is undecided, or when its undecided neighbours are exactly
    those of some revealed number.
    """
    rows, cols = cells.shape
    undecided = (cells < 0) & (q > 0) & (q < 1)

    def around(r: int, c: int, reach: int = 1) -> list[tuple[int, int]]:
        return [
            (i, j)
            for i in range(max(r - reach, 0), min(r + reach + 1, rows))
            for j in range(max(c - reach, 0), min(c + reach + 1, cols))
        ]

    dead = np.zeros(cells.shape, dtype=bool)
    for r, c in np.argwhere((cells < 0) & ~(q >= 1)).tolist():
        own = {x for x in around(r, c) if x != (r, c) and undecided[x]}
        dead[r, c] = not own or any(
            cells[x] >= 0 and own == {y for y in around(*x) if undecided[y]}
            for x in around(r, c, 2)
        )
    return dead


def test_guess_hill_expert(benchmark: Any) -> None:
    # analysis + guess at every guess of 30 expert games, from empty memories
    moves = benchmark(_guess_each, "hill")
    positions = _guess_positions()
    assert len(moves) == len(positions)
    assert all(
        m is not None and cells[m] == H for (cells, _), m in zip(positions, moves, strict=True)
    )
    benchmark.extra_info["positions"] = len(moves)


def test_guess_lookahead_expert(benchmark: Any) -> None:
    # the same positions with the older, cheaper secondary-safety guess
    moves = benchmark(_guess_each, "lookahead")
    positions = _guess_positions()
    assert all(
        m is not None and cells[m] == H for (cells, _), m in zip(positions, moves, strict=True)
    )


def test_guess_hill_plain_baseline(benchmark: Any) -> None:
    # the same rule without early stops or lazy death tests; same moves
    plain = benchmark.pedantic(_guess_each, args=("plain",), rounds=1, iterations=1)
    assert plain == _guess_each("hill")


def adjacent(mask: np.ndarray) -> np.ndarray:
    from numsweeper._kernels import adjacent_counts

    return adjacent_counts(mask)


def position_stats(games: int) -> None:
    """Print analyze median/p99 on typical and hard positions, and the split."""
    typical = stuck_positions(games)
    hard = hard_positions(20)
    runs = (("typical, cold", typical, True), ("typical, in game order", typical, False))
    for name, positions, cold in (*runs, ("hard, cold", hard, True)):
        times = []
        inexact = 0
        engine = Analyzer()
        for cells, mines in positions:
            if cold:
                engine = Analyzer()
            t = time.perf_counter()
            a = engine.analyze(cells, mines)
            times.append(time.perf_counter() - t)
            inexact += not a.exact
        ms = 1e3 * np.array(times)
        print(
            f"{name}: {len(ms)} positions, median {np.median(ms):.2f} ms, "
            f"p99 {np.percentile(ms, 99):.1f} ms, max {ms.max():.1f} ms, relaxed {inexact}"
        )
    with _engine_clock() as clock:
        rec = play_chunk(("expert", "safe", 7, 0, games))
    total = sum(rec["timings"].values())
    split = ", ".join(f"{k} {v:.2f}s ({100 * v / total:.0f}%)" for k, v in rec["timings"].items())
    print(
        f"policy on {games} expert games: {rec['cpu']:.1f} cpu-s, "
        f"{games / rec['cpu']:.2f} games/cpu-s; wall {rec['wall']:.2f} s, of which {split}; "
        f"moves: {rec['counts']}"
    )
    print(
        f"of the games' wall time ({rec['wall']:.1f}s): analyses {clock['analyze']:.2f}s "
        f"({100 * clock['analyze'] / rec['wall']:.0f}%), of which the component counts "
        f"{clock['count']:.2f}s ({100 * clock['count'] / rec['wall']:.0f}%)"
    )


@contextlib.contextmanager
def _engine_clock() -> Iterator[dict[str, float]]:
    """Wall seconds spent in the exact engine and in its component counts, while active.

    The engine: every analysis (the policy's, the look-ahead's probes and
    the influence factor's counts), timed where the engine object takes it.
    """
    from numsweeper.solver import analysis, components, lookahead

    clock = {"analyze": 0.0, "count": 0.0}
    patched = [
        (analysis.Analyzer, "analyze", "analyze"),
        (analysis.Analyzer, "layouts_by_total", "analyze"),
        (lookahead._Prober, "__call__", "analyze"),
        (lookahead._Given, "__call__", "analyze"),
        (components, "count_parts", "count"),
        (components, "count_exact", "count"),
    ]
    saved = [getattr(owner, name) for owner, name, _ in patched]
    depth = {"analyze": 0, "count": 0}

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth[name] += 1
            t = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                depth[name] -= 1
                if not depth[name]:  # (an analysis may call another)
                    clock[name] += time.perf_counter() - t

        return wrapper

    for (owner, name, label), func in zip(patched, saved, strict=True):
        setattr(owner, name, timed(label, func))
    try:
        yield clock
    finally:
        for (owner, name, _), func in zip(patched, saved, strict=True):
            setattr(owner, name, func)


def _kernel_patches() -> list[tuple[Any, str, str]]:
    """Every compiled solver kernel, wherever a solver module holds it.

    ``(module, name, label)`` for each module attribute that is one of the
    kernels (a numba dispatcher compiled for its signature when its module
    loads; the subroutines and helpers they call are inside them).
    """
    import importlib
    import pkgutil

    import numba

    from numsweeper import solver

    modules = [
        importlib.import_module(info.name)
        for info in pkgutil.iter_modules(solver.__path__, "numsweeper.solver.")
    ]
    kernels = {
        id(obj): f"kernel {name}"
        for module in modules
        for name, obj in vars(module).items()
        if isinstance(obj, numba.core.registry.CPUDispatcher)
        and obj.py_func.__module__ == module.__name__
        and obj.signatures
    }
    return [
        (module, name, kernels[id(obj)])
        for module in modules
        for name, obj in vars(module).items()
        if id(obj) in kernels
    ]


def time_split(games: int, kernels: bool = False) -> dict[str, float]:
    """Print where ``games`` expert 'safe' solver games in ``ns.simulate`` spend time.

    One process, seed 20261130, chunks of 50 (the ``--throughput`` games),
    after a warm-up.  Each part is wall time inside the named routine (an
    outer call only): the policy, its moves for stuck boards (``choose``),
    Hill's guess and, within it, the look-ahead's probes (``probe``: one
    compiled look or one analysis each), the probes' set-up (``prober``: the structure with the
    cell shown), the influence factor and its patterns (which clicks have
    any); the exact engine's
    probabilities (``probabilities``, probes included), the main analyses
    (``analyze``), the local rules, the endgame search and the forced-pair
    check.  With ``kernels``, also each compiled kernel's own calls (the
    same games; the parts above include them).  Returns the seconds by
    part, with ``wall``.
    """
    from numsweeper.solver import analysis, influence, lookahead, policy

    seconds: dict[str, float] = {}
    depth: dict[str, int] = {}
    patched = [
        (policy.SolverPolicy, "__call__", "policy"),
        (policy.SolverPolicy, "_choose", "choose"),
        (policy, "hill_guess", "guess"),
        (lookahead._Prober, "__call__", "probe"),
        (lookahead._Prober, "look", "probe"),
        (lookahead._Prober, "__init__", "prober"),
        (influence._Influence, "factor", "influence factor"),
        (influence._Influence, "pattern_counts", "patterns"),
        (analysis, "_probabilities", "probabilities"),
        (policy.SolverPolicy, "_analyze", "analyze"),
        (policy, "_first_safe", "local rules"),
        (policy, "best_click", "endgame"),
        (policy, "forced_pair", "forced pair"),
    ]
    if kernels:
        patched += _kernel_patches()
    saved = [getattr(owner, name) for owner, name, _ in patched]

    def timed(label: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth[label] = depth.get(label, 0) + 1
            t = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                depth[label] -= 1
                if not depth[label]:
                    seconds[label] = seconds.get(label, 0.0) + time.perf_counter() - t

        return wrapper

    rows, cols, mines = ns.PRESETS["expert"]

    def play(n: int, seed: int) -> Any:
        return ns.simulate(
            n, rows, cols, mines, policy=SolverPolicy("safe"), first_click="safe",
            seed=seed, chunk_size=50,
        )  # fmt: skip

    play(10, 1)  # (kernels loaded, caches warm)
    for (owner, name, label), func in zip(patched, saved, strict=True):
        setattr(owner, name, timed(label, func))
    try:
        start = time.perf_counter()
        result = play(games, 20261130)
        seconds["wall"] = wall = time.perf_counter() - start
    finally:
        for (owner, name, _), func in zip(patched, saved, strict=True):
            setattr(owner, name, func)
    print(
        f"{games} expert 'safe' games in ns.simulate, one process: {wall:.2f} s, {result.wins} won"
    )
    seconds["moves"] = wall - seconds.get("policy", 0.0)  # the games' own moves and the loop
    labels = list(dict.fromkeys([p[2] for p in patched] + ["moves"]))
    width = max(17, *(len(label) for label in labels))
    for label in labels:
        if label in seconds:
            share = 100 * seconds[label] / wall
            print(f"  {label:{width}s} {seconds[label]:6.2f} s  {share:5.1f}%")
    return seconds


# -- huge boards -------------------------------------------------------------------


def huge_game(side: int, density: float = 0.01, seed: int = 1) -> tuple[ns.Game, float]:
    """A ``side`` x ``side`` game with ``density`` mines, after its first click.

    The click is in a corner under 'safe' (on 5000 x 5000 at 1% it floods
    about 24.7 million cells); returns the game and the click's seconds.
    """
    game = ns.Game.new(side, side, int(side * side * density), seed=seed, first_click="safe")
    t = time.perf_counter()
    game.reveal(0, 0)
    return game, time.perf_counter() - t


def expert_density_mid_game(
    side: int, density: float = 0.206, share: float = 0.5, seed: int = 2
) -> tuple[np.ndarray, int]:
    """A ``side`` x ``side`` board at expert density, half played.

    Play with lucky guesses: every cell the local rules prove safe is
    revealed (zeros flood), and where they are stuck one in a hundred of the
    safe cells next to the revealed area is revealed too, until ``share``
    of the safe cells show.  The frontier is long and tangled, as in a real
    game.  Returns the visible cells and the mine count.
    """
    from scipy import ndimage

    rng = np.random.default_rng(seed)
    board = ns.Board.create(side, side, int(side * side * density), ns.RandomPlacement(rng))
    mines, counts = board.mines, board.counts
    zero = ~mines & (counts == 0)
    labels, _ = ndimage.label(zero, structure=np.ones((3, 3)))
    revealed = np.zeros_like(mines)
    square = np.ones((3, 3), dtype=bool)

    def reveal(cells: np.ndarray) -> None:
        new = cells & ~revealed
        hit = np.unique(labels[new & zero])
        hit = hit[hit > 0]
        if len(hit):
            new |= ndimage.binary_dilation(np.isin(labels, hit), square) & ~mines
        revealed[new] = True

    first = np.zeros_like(mines)
    first[tuple(np.argwhere(zero)[0])] = True  # the first zero, row-major
    reveal(first)
    goal = share * np.count_nonzero(~mines)
    while np.count_nonzero(revealed) < goal:
        visible = np.where(revealed, counts, H).astype(np.int8)
        safe, _ = local_rules(visible)
        if not safe.any():
            edge = np.flatnonzero(~revealed & ~mines & (adjacent(revealed) > 0))
            safe = np.zeros(mines.size, dtype=bool)
            safe[rng.choice(edge, max(1, len(edge) // 100), replace=False)] = True
            safe = safe.reshape(mines.shape)
        reveal(safe)
    return np.where(revealed, counts, H).astype(np.int8), board.mine_count


def peak_bytes(func: Callable[[], Any]) -> tuple[Any, float, float]:
    """``func()``, its seconds, and the most memory it held at once (bytes).

    The peak is the process's resident high-water mark above what it held
    before, where Linux can reset that mark (``/proc/self/clear_refs``), or
    else what tracemalloc saw (numpy's arrays, not those numba allocates).
    """
    import gc
    import tracemalloc

    def status(key: str) -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) * 1024
        raise KeyError(key)

    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")
        before = status("VmRSS")
    except OSError:
        tracemalloc.start()
        t = time.perf_counter()
        out = func()
        took = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return out, took, peak
    t = time.perf_counter()
    out = func()
    took = time.perf_counter() - t
    return out, took, status("VmHWM") - before


def _huge() -> tuple[ns.Game, float]:
    if "huge" not in _CACHE:
        _CACHE["huge"] = huge_game(size(5000, 300))
    return _CACHE["huge"]  # type: ignore[no-any-return]


def test_huge_board_first_click_baseline(benchmark: Any) -> None:
    # the yardstick: the click that floods the board (a new game each round)
    side = size(5000, 300)

    def fresh() -> tuple[tuple[ns.Game, int, int], dict[str, Any]]:
        game = ns.Game.new(side, side, side * side // 100, seed=1, first_click="safe")
        return (game, 0, 0), {}

    opened = benchmark.pedantic(ns.Game.reveal, setup=fresh, rounds=size(3, 1), iterations=1)
    assert len(opened) > side * side // 2  # (1% mines: the first click floods most of it)


def test_huge_board_hint_after_the_first_click(benchmark: Any) -> None:
    # issue target: at most 2x the first click's time, at most 16 bytes per
    # cell of extra peak memory (5000 x 5000 at 1%, about 24.7 M cells opened)
    game, click = _huge()
    hint, _, peak = peak_bytes(lambda: ns.solver.hint(game))
    assert hint.certain
    cells = game.rows * game.cols
    assert peak <= 16 * cells, f"{peak / cells:.1f} bytes per cell"
    benchmark.pedantic(ns.solver.hint, (game,), rounds=size(3, 1), iterations=1)
    benchmark.extra_info.update(click_s=click, peak_bytes_per_cell=peak / cells)


def test_analyze_expert_density_mid_game(benchmark: Any) -> None:
    # reported, no target: 2000 x 2000 at 20.6%, half the safe cells shown
    if "mid" not in _CACHE:
        _CACHE["mid"] = expert_density_mid_game(size(2000, 120))
    cells, mines = _CACHE["mid"]
    a = benchmark.pedantic(analyze, (cells, mines), rounds=1, iterations=1)
    _expected_mines([(cells, mines)], [a])
    benchmark.extra_info.update(
        frontier=len(a.frontier_probabilities()[0]), exact=a.exact, undecided=int(a.undecided.sum())
    )


def _long_polynomials() -> tuple[list[int], list[int]]:
    # the shape of the tangled board's top contexts: a sibling of a few
    # hundred terms of ~2,000 bits against a context of ~30,000-bit weights
    rng = np.random.default_rng(3)
    terms = size(400, 60)
    a = [int.from_bytes(rng.bytes(250), "little") for _ in range(terms)]
    b = [int.from_bytes(rng.bytes(3750), "little") for _ in range(terms + terms // 2)]
    return a, b


def _term_by_term(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def test_long_polynomial_product(benchmark: Any) -> None:
    # solver.longcount.convolve: one packed multiplication (GMP with gmpy2)
    from numsweeper.solver.longcount import _gmp, convolve

    a, b = _long_polynomials()
    got = benchmark(convolve, a, b)
    assert got[len(a) - 1] == sum(x * y for x, y in zip(a, b[len(a) - 1 :: -1], strict=False))
    benchmark.extra_info.update(gmp=_gmp() is not None)


def test_long_polynomial_product_term_by_term_baseline(benchmark: Any) -> None:
    a, b = _long_polynomials()
    got = benchmark.pedantic(_term_by_term, (a, b), rounds=size(3, 1), iterations=1)
    assert got[len(a) - 1] == sum(x * y for x, y in zip(a, b[len(a) - 1 :: -1], strict=False))


def huge(side: int = 5000, mid_side: int = 2000) -> None:
    """Print the huge-board figures: hint after the first click, and mid-game analyze."""
    print(f"{side} x {side}, 1% mines:", flush=True)
    ns.solver.hint(huge_game(20)[0])  # load the kernels, untimed
    game, click = huge_game(side)
    snap = game.snapshot()
    opened = int(np.count_nonzero(snap.cells >= 0))
    hint, took, peak = peak_bytes(functools.partial(ns.solver.hint, game))
    cells = side * side
    print(
        f"  first click {click:.2f} s ({opened:,} cells opened); hint {took:.2f} s "
        f"= {took / click:.2f}x the click, peak {peak / 1e6:.0f} MB = {peak / cells:.1f} "
        f"bytes per cell; {hint}",
        flush=True,
    )
    del game, snap
    print(f"{mid_side} x {mid_side}, 20.6% mines, half the safe cells shown:", flush=True)
    t = time.perf_counter()
    visible, mines = expert_density_mid_game(mid_side)
    made = time.perf_counter() - t
    a, took, peak = peak_bytes(lambda: analyze(visible, mines))
    front, _ = a.frontier_probabilities()
    print(
        f"  (position made in {made:.1f} s) analyze {took:.2f} s, peak {peak / 1e6:.0f} MB "
        f"= {peak / mid_side**2:.1f} bytes per cell; {len(front):,} frontier cells, "
        f"{int(a.undecided.sum()):,} undecided, exact={a.exact}",
        flush=True,
    )


def tangled(side: int) -> tuple[float, float]:
    """Time ``analyze`` on the ``side`` x ``side`` tangled position (expert
    density, half the safe cells shown); print it with the seconds spent in
    the Python-integer count (``count_exact``) and the peak memory above
    the position.  Returns both times.

    The position is made once per side and kept in the system's temporary
    directory, so that runs of different code analyse the same cells.
    """
    import tempfile

    from numsweeper.solver import components

    path = Path(tempfile.gettempdir()) / f"numsweeper_tangled_{side}.npz"
    if not path.exists():
        visible, mines = expert_density_mid_game(side)
        np.savez(path, visible=visible, mines=mines)
    with np.load(path) as saved:
        visible, mines = saved["visible"], int(saved["mines"])
    analyze(np.full((3, 3), H, dtype=np.int8), 1)  # (kernels loaded)
    spent = [0.0]
    counted = components.count_exact

    def timed(*args: Any) -> Any:
        t = time.process_time()
        try:
            return counted(*args)
        finally:
            spent[0] += time.process_time() - t

    components.count_exact = timed
    try:

        def run() -> tuple[Any, float]:
            t = time.process_time()
            return analyze(visible, mines), time.process_time() - t

        (a, took), _, peak = peak_bytes(run)
    finally:
        components.count_exact = counted
    print(
        f"{side} x {side} tangled: analyze {took:.2f} CPU s, of which the Python-integer "
        f"count {spent[0]:.2f} s; exact={a.exact}; peak {peak / 2**20:,.0f} MB above the "
        f"position ({peak / visible.size:,.0f} B/cell)"
    )
    return took, spent[0]


def throughput(preset: str, rule: str, games: int, workers: int, guess: str) -> float:
    """Time ``games`` solver games in ``ns.simulate`` (workers started
    and kernels loaded included) and print the rate; return games/s.

    The same games as ``numsweeper simulate --policy solver --chunk-size 50
    --seed 20261130``, whose own figure also counts interpreter start-up.
    """
    rows, cols, mines = ns.PRESETS[preset]
    start = time.perf_counter()
    result = ns.simulate(
        games,
        rows,
        cols,
        mines,
        policy=SolverPolicy(rule, guess=guess),
        first_click=rule,
        seed=20261130,
        workers=workers,
        chunk_size=50,
    )
    rate = games / (time.perf_counter() - start)
    print(
        f"{preset} {rule!r} guess={guess!r}, {workers} worker(s): {rate:.1f} games/s, "
        f"{result.wins} of {games} won"
    )
    return rate


def summary(path: Path) -> None:
    """Print one Markdown row per (preset, rule) from a results file."""
    cells: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        cells.setdefault((rec["preset"], rec["rule"], rec["seed"]), []).append(rec)
    for (preset, rule, seed), recs in sorted(cells.items()):
        n = sum(r["games"] for r in recs)
        w = sum(r["wins"] for r in recs)
        lo, hi = wilson(w, n)
        cpu = sum(r["cpu"] for r in recs)
        chunks = sorted(r["chunk"] for r in recs)
        print(
            f"| {preset} | {rule} | {100 * w / n:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}] "
            f"| {w}/{n} | seed {seed}, chunks {chunks[0]}..{chunks[-1]} ({len(chunks)}) "
            f"| {cpu:.0f} cpu-s, {n / cpu:.2f} games/cpu-s |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset", nargs="?", choices=sorted(ns.PRESETS))
    parser.add_argument("rule", nargs="?", choices=["safe", "opening"])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--first-chunk", type=int, default=0)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("solver_winrates.jsonl"))
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--positions", type=int, default=0, metavar="GAMES")
    parser.add_argument(
        "--huge",
        action="store_true",
        help="time hint on 5000 x 5000 at 1%% after the first click, and analyze on "
        "2000 x 2000 at expert density in mid-game",
    )
    parser.add_argument(
        "--fingerprint",
        action="store_true",
        help="hash the fingerprint chunks' games (--workers) and compare with the pinned hashes",
    )
    parser.add_argument(
        "--throughput",
        action="store_true",
        help="time ns.simulate with the solver policy (preset and rule; --games, --workers, "
        "--guess; seed 20261130, chunks of 50) and print games/s",
    )
    parser.add_argument(
        "--tangled",
        type=int,
        default=0,
        metavar="SIDE",
        help="time analyze on the SIDE x SIDE tangled position and its Python-integer count",
    )
    parser.add_argument(
        "--split",
        type=int,
        default=0,
        metavar="GAMES",
        help="time GAMES expert games in ns.simulate (one process) and print where the "
        "time goes, the guess's parts included",
    )
    parser.add_argument(
        "--kernels",
        action="store_true",
        help="with --split: also time each compiled solver kernel's calls",
    )
    parser.add_argument(
        "--guess",
        choices=["hill", "lookahead"],
        default="hill",
        help="with --throughput: the policy's guess",
    )
    args = parser.parse_args(argv)
    if args.positions:
        position_stats(args.positions)
        return 0
    if args.huge:
        huge()
        return 0
    if args.split:
        time_split(args.split, kernels=args.kernels)
        return 0
    if args.tangled:
        tangled(args.tangled)
        return 0
    if args.fingerprint:
        return 0 if fingerprint(args.workers) else 1
    if args.throughput:
        if args.preset is None or args.rule is None:
            parser.error("preset and rule are required")
        throughput(args.preset, args.rule, args.games, args.workers, args.guess)
        return 0
    if args.summary:
        summary(args.out)
        return 0
    if args.preset is None or args.rule is None:
        parser.error("preset and rule are required")
    n_chunks = -(-args.games // args.chunk)
    tasks = [
        (args.preset, args.rule, args.seed, args.first_chunk + j, args.chunk)
        for j in range(n_chunks)
    ]
    with ProcessPoolExecutor(args.workers) as pool, args.out.open("a") as out:
        for rec in pool.map(play_chunk, tasks):
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(
                rec["preset"],
                rec["rule"],
                rec["chunk"],
                rec["wins"],
                "/",
                rec["games"],
                f"{rec['cpu']:.0f}s",
                file=sys.stderr,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
