"""Solver benchmarks (pytest-benchmark) and the win-rate driver (command line).

``pytest benchmarks/bench_solver.py`` times ``analyze`` on typical and hard
expert positions beside a plain-Python backtracking counter, the batched local
rules beside a cell-by-cell loop, and whole expert games.

``python benchmarks/bench_solver.py --positions`` prints the median/p99 of
``analyze`` over seeded expert positions and the policy's time split;
``python benchmarks/bench_solver.py expert safe --throughput --workers 2``
times 1,000 games of the policy in ``ns.simulate`` on both cores.

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
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import numsweeper as ns
from numsweeper.solver import SolverPolicy, analyze, local_rules

try:  # under pytest, benchmarks/ is on sys.path
    from conftest import size
except ImportError:  # run as a script

    def size(full: int, small: int) -> int:
        return full


H = int(ns.HIDDEN)


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95% interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play_chunk(task: tuple[str, str, int, int, int]) -> dict[str, Any]:
    """Play one chunk of games; return its tallies."""
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
    while live:
        snaps = [games[i].snapshot() for i in live]
        visible = np.stack([s.cells for s in snaps])
        left = np.array([s.mines_left for s in snaps])
        clicks = policy(visible, left, rng)
        for i, (r, c) in zip(live, clicks.tolist(), strict=True):
            games[i].reveal(r, c)
        live = [i for i in live if games[i].state is ns.GameState.IN_PROGRESS]
    wins = sum(g.state is ns.GameState.WON for g in games)
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
        "timings": policy.timings,
    }


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


@contextlib.contextmanager
def _engine(name: str) -> Iterator[None]:
    """Count with the ``'default'`` engine (the compiled kernel when numba
    is installed), the ``'pure Python'`` one, or the ``'previous'`` one (pure
    Python, as before commit 0e26f58)."""
    from numsweeper.solver import analysis

    saved = analysis._KERNEL[:], analysis._count_component
    if name != "default":
        analysis._KERNEL[:] = [None]
    else:  # load the compiled kernel (once per process, not timed)
        analyze(np.array([[H, 1, 0]], dtype=np.int8), 1)
    if name == "previous":
        analysis._count_component = two_pass_count_component  # type: ignore[assignment]
    analysis._CACHE.clear()
    try:
        yield
    finally:
        analysis._KERNEL[:], analysis._count_component = saved  # type: ignore[assignment]
        analysis._CACHE.clear()


def _cold(cells: np.ndarray, mines: int) -> Any:
    from numsweeper.solver import analysis

    analysis._CACHE.clear()
    analysis._SHAPES.clear()
    return analyze(cells, mines)


def test_analyze_typical_expert(benchmark: Any) -> None:
    positions = _typical()
    with _engine("default"):
        benchmark(lambda: [_cold(c, m) for c, m in positions])


def test_analyze_typical_expert_pure_python(benchmark: Any) -> None:
    # without numba: the same counts in Python integers
    positions = _typical()
    with _engine("pure Python"):
        benchmark(lambda: [_cold(c, m) for c, m in positions])


def test_backtrack_typical_expert_baseline(benchmark: Any) -> None:
    # the plain-Python counter on the same positions, capped to the ones it
    # finishes quickly (small frontiers); compare per position
    positions = [(c, m) for c, m in _typical() if np.count_nonzero(c < 0) > 0][: size(40, 3)]
    positions = [
        (c, m) for c, m in positions if np.count_nonzero((c < 0) & (adjacent(c >= 0) > 0)) <= 22
    ]
    assert all(backtrack_count(c, m) == analyze(c, m).layouts for c, m in positions[:3])
    benchmark(lambda: [backtrack_count(c, m) for c, m in positions])
    benchmark.extra_info["positions"] = len(positions)


def test_analyze_same_small_frontier_positions(benchmark: Any) -> None:
    positions = [(c, m) for c, m in _typical()][: size(40, 3)]
    positions = [
        (c, m) for c, m in positions if np.count_nonzero((c < 0) & (adjacent(c >= 0) > 0)) <= 22
    ]
    benchmark(lambda: [_cold(c, m) for c, m in positions])
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
    benchmark(_cold, cells, mines)


def test_backtrack_long_frontier_baseline(benchmark: Any) -> None:
    cells, mines = _strip(size(22, 10))
    assert backtrack_count(cells, mines) == analyze(cells, mines).layouts
    benchmark.pedantic(backtrack_count, (cells, mines), rounds=3, iterations=1)


def test_analyze_hard_expert(benchmark: Any) -> None:
    positions = hard_positions(size(5, 1))
    with _engine("default"):
        benchmark.pedantic(lambda: [_cold(c, m) for c, m in positions], rounds=1, iterations=1)


def test_analyze_hard_expert_pure_python(benchmark: Any) -> None:
    positions = hard_positions(size(5, 1))
    with _engine("pure Python"):
        benchmark.pedantic(lambda: [_cold(c, m) for c, m in positions], rounds=1, iterations=1)


def _probes() -> list[list[tuple[np.ndarray, int]]]:
    """Look-ahead probes: per typical position, every number its safest
    frontier cell can show, in the order the policy tries them."""
    if "probes" not in _CACHE:
        groups = []
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
        _CACHE["probes"] = groups
    return _CACHE["probes"]  # type: ignore[no-any-return]


def _look_ahead(groups: list[list[tuple[np.ndarray, int]]], engine: str) -> list[Any]:
    """Analyse each cell's probes in turn, caches cleared per cell.

    ``engine`` as in :func:`_engine`.  ``'previous'`` also drops the cached
    structure before every probe.  It keeps the later one-pass step plans
    and cache keys, so it is a little faster than the real previous engine.
    """
    from numsweeper.solver import analysis

    out = []
    with _engine(engine):
        for probes in groups:
            analysis._CACHE.clear()
            analysis._SHAPES.clear()
            for cells, mines in probes:
                if engine == "previous":
                    analysis._SHAPES.clear()
                out.append(analyze(cells, mines))
    return out


def two_pass_count_component(
    order: list[int],
    group_cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[dict[int, int], list[dict[int, int]]]:
    """The component count before commit 0e26f58: forward, then an
    independent count from the other end, then the marginals."""
    from numsweeper.solver.analysis import _forward

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
    benchmark(_look_ahead, groups, "default")
    benchmark.extra_info["probes"] = sum(len(g) for g in groups)


def test_analyze_look_ahead_probes_pure_python(benchmark: Any) -> None:
    groups = _probes()
    benchmark(_look_ahead, groups, "pure Python")
    benchmark.extra_info["probes"] = sum(len(g) for g in groups)


def test_analyze_look_ahead_probes_previous_engine_baseline(benchmark: Any) -> None:
    groups = _probes()
    runs = [_look_ahead(groups, e) for e in ("default", "pure Python", "previous")]
    for a, b, c in zip(*runs, strict=True):  # the same exact answers
        for other in (b, c):
            np.testing.assert_array_equal(a.probabilities, other.probabilities)
            assert a.layouts == other.layouts
    benchmark(_look_ahead, groups, "previous")
    benchmark.extra_info["probes"] = sum(len(g) for g in groups)


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
    from numsweeper.solver.policy import _layouts

    cells, known, mines, unknown = _late_expert()
    index = {rc: i for i, rc in enumerate(unknown)}
    out = benchmark(_layouts, cells, known, mines, unknown, index)
    assert len(out) == analyze(cells, 99).layouts == 192


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


def _search_dense(engine: str) -> dict[tuple[int, int], float] | None:
    from numsweeper.solver.policy import _endgame_values

    cells, a = _dense_expert()
    with _engine(engine):
        return _endgame_values(cells, a, 100_000, every=False)


def test_endgame_search_dense_expert(benchmark: Any) -> None:
    # A dense late position (1,242 layouts over 28 undecided cells, 19 of
    # 118 hidden cells safe) that only the density trigger searches: the
    # compiled listing and search, beside the same search in Python.
    values = _search_dense("default")  # compiles the kernels, untimed
    assert values is not None and values == _search_dense("pure Python")
    benchmark.pedantic(_search_dense, ("default",), rounds=size(5, 2), iterations=1)


def test_endgame_search_dense_expert_python_baseline(benchmark: Any) -> None:
    values = benchmark.pedantic(_search_dense, ("pure Python",), rounds=size(3, 1), iterations=1)
    assert values is not None and max(values.values()) == 442 / 1242  # the exact best


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
    benchmark(local_rules, batch)


def test_local_rules_plain_python_baseline(benchmark: Any) -> None:
    batch = _batch(size(256, 4))[: size(16, 2)]
    assert all(np.array_equal(local_reference(b), local_rules(b)[0]) for b in batch[:2])
    benchmark(lambda: [local_reference(b) for b in batch])
    benchmark.extra_info["boards"] = len(batch)


def test_policy_expert_games(benchmark: Any) -> None:
    n = size(40, 1)
    with _engine("default"):
        benchmark.pedantic(lambda: play_chunk(("expert", "safe", 99, 0, n)), rounds=1, iterations=1)
    benchmark.extra_info["games"] = n


def test_policy_expert_games_pure_python(benchmark: Any) -> None:
    n = size(40, 1)
    with _engine("pure Python"):
        benchmark.pedantic(lambda: play_chunk(("expert", "safe", 99, 0, n)), rounds=1, iterations=1)
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


def _guess_each(how: str) -> list[tuple[int, int]]:
    """Analyse each guess position from cold caches and choose its guess."""
    from numsweeper.solver import analysis

    moves = []
    for cells, mines in _guess_positions():
        analysis._CACHE.clear()
        analysis._SHAPES.clear()
        policy = SolverPolicy(guess="hill" if how == "plain" else how)  # a fresh memory
        a = policy._analyze(cells, mines)
        if how == "plain":
            moves.append(plain_hill_guess(cells, mines, a))
        else:
            h = policy._guess(cells, mines, a, cells == H)
            moves.append((h.row, h.col))
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
    from numsweeper.solver import _guess as g

    p = np.where(cells == H, a.probabilities, np.inf)
    influence = g._Influence(cells, mines, a, SolverPolicy().max_states)
    hidden_nb = adjacent(cells < 0)
    chosen: dict[bool, tuple[tuple[float, int, int, int], tuple[int, int]]] = {}
    for r, c in g.candidates(cells, p).tolist():
        pr = float(p[r, c])
        factor = influence.factor(influence.patterns(r, c), pr)
        top = chosen[True][0][0] if True in chosen else None
        if top is not None and (1 - pr) * factor + 1e-9 < top:
            continue  # the rule's skip, in order of probability
        terms = []
        for probe, b in _every_number(cells, mines, r, c):
            q = b.probabilities
            live = (probe == H) & ~g.dead_cells(probe, q)
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


def test_guess_hill_expert(benchmark: Any) -> None:
    # analysis + guess at every guess of 30 expert games, cold caches
    with _engine("default"):
        moves = benchmark(_guess_each, "hill")
    benchmark.extra_info["positions"] = len(moves)


def test_guess_lookahead_expert(benchmark: Any) -> None:
    # the same positions with the older, cheaper secondary-safety guess
    with _engine("default"):
        benchmark(_guess_each, "lookahead")


def test_guess_hill_plain_baseline(benchmark: Any) -> None:
    # the same rule without early stops or lazy death tests; same moves
    with _engine("default"):
        plain = benchmark.pedantic(_guess_each, args=("plain",), rounds=1, iterations=1)
        assert plain == _guess_each("hill")


def adjacent(mask: np.ndarray) -> np.ndarray:
    from numsweeper._kernels import adjacent_counts

    return adjacent_counts(mask)


def position_stats(games: int, engine: str = "default") -> None:
    """Print analyze median/p99 on typical and hard positions, and the split."""
    with _engine(engine):
        _position_stats(games)
    print(f"engine: {engine}")


def _position_stats(games: int) -> None:
    from numsweeper.solver import analysis

    typical = stuck_positions(games)
    hard = hard_positions(20)
    runs = (("typical, cold cache", typical, True), ("typical, in game order", typical, False))
    for name, positions, cold in (*runs, ("hard, cold cache", hard, True)):
        times = []
        inexact = 0
        analysis._CACHE.clear()
        for cells, mines in positions:
            if cold:
                analysis._CACHE.clear()
            t = time.perf_counter()
            a = analyze(cells, mines)
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
    split = ", ".join(f"{k} {v:.1f}s ({100 * v / total:.0f}%)" for k, v in rec["timings"].items())
    print(
        f"policy on {games} expert games: {rec['cpu']:.1f} cpu-s, "
        f"{games / rec['cpu']:.2f} games/cpu-s; split: {split}; moves: {rec['counts']}"
    )
    print(
        f"of the games' wall time ({rec['wall']:.1f}s): the exact engine {clock['analyze']:.1f}s "
        f"({100 * clock['analyze'] / rec['wall']:.0f}%), of which DP counting "
        f"{clock['count']:.1f}s ({100 * clock['count'] / rec['wall']:.0f}%)"
    )


@contextlib.contextmanager
def _engine_clock() -> Iterator[dict[str, float]]:
    """Wall seconds spent in the exact engine and in its DP counting, while active.

    The engine: the policy's analyses, the look-ahead's probes
    (``_Prober``) and the influence factor's counts (``_Given``).
    """
    from numsweeper.solver import analysis, policy

    clock = {"analyze": 0.0, "count": 0.0}
    patched = [
        (policy, "analyze", "analyze"),
        (analysis._Prober, "__init__", "analyze"),
        (analysis._Prober, "__call__", "analyze"),
        (analysis._Given, "__init__", "analyze"),
        (analysis._Given, "__call__", "analyze"),
        (analysis, "_count_component", "count"),
        (analysis, "_count_compiled", "count"),
    ]
    saved = [getattr(owner, name) for owner, name, _ in patched]

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                clock[name] += time.perf_counter() - t

        return wrapper

    for (owner, name, label), func in zip(patched, saved, strict=True):
        setattr(owner, name, timed(label, func))
    try:
        yield clock
    finally:
        for (owner, name, _), func in zip(patched, saved, strict=True):
            setattr(owner, name, func)


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
        "--pure-python", action="store_true", help="with --positions: count without numba"
    )
    parser.add_argument(
        "--throughput",
        action="store_true",
        help="time ns.simulate with the solver policy (preset and rule; --games, --workers, "
        "--guess; seed 20261130, chunks of 50) and print games/s",
    )
    parser.add_argument(
        "--guess",
        choices=["hill", "lookahead"],
        default="hill",
        help="with --throughput: the policy's guess",
    )
    args = parser.parse_args(argv)
    if args.positions:
        position_stats(args.positions, "pure Python" if args.pure_python else "default")
        return 0
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
