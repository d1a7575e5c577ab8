"""The compiled kernels (numba, optional) against the pure-Python code they replace.

Each kernel must give exactly the same results: the component count the same
integers, errors and relaxed cuts (and, where int64 cannot hold a count, it
must hand the component back to the Python count); the structure the same
components and elimination orders; the local rules the same cells round for
round; the endgame search the same win counts and the same budget stops.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts
from numsweeper.solver import analysis, analyze

pytest.importorskip("numba")  # the optional extra: pip install numsweeper[fast]
pytestmark = pytest.mark.skipif(
    os.environ.get("NUMSWEEPER_PURE_PYTHON", "") not in ("", "0"),
    reason="NUMSWEEPER_PURE_PYTHON turns the kernels off",
)

H = int(ns.HIDDEN)


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    # Counted components are cached whichever engine counted them.
    analysis._CACHE.clear()
    analysis._SHAPES.clear()
    yield
    analysis._CACHE.clear()
    analysis._SHAPES.clear()


def both(cells: NDArray[np.int8], mines: int, **kw: int) -> tuple[object, object]:
    """``analyze`` by the compiled count, then by the pure-Python one.

    Each result is the Analysis or the InvalidBoardError message.
    """
    out: list[object] = []
    for kernel in (analysis._kernel(), None):
        assert (kernel is None) == bool(out)
        saved = analysis._KERNEL[:]
        analysis._KERNEL[:] = [kernel]
        analysis._CACHE.clear()
        analysis._SHAPES.clear()
        try:
            out.append(analyze(cells, mines, **kw))
        except ns.InvalidBoardError as exc:
            out.append(str(exc))
        finally:
            analysis._KERNEL[:] = saved
    return out[0], out[1]


def assert_same(a: object, b: object) -> None:
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert isinstance(a, ns.solver.Analysis) and isinstance(b, ns.solver.Analysis)
    assert a.layouts == b.layouts and type(a.layouts) is int
    assert a.exact == b.exact
    assert a.frontier_mines == b.frontier_mines
    np.testing.assert_array_equal(a.probabilities, b.probabilities)  # bit for bit
    np.testing.assert_array_equal(a.safe, b.safe)
    np.testing.assert_array_equal(a.mines, b.mines)


def mid_game(
    rng: np.random.Generator, rows: int, cols: int, mines: int, clicks: int
) -> NDArray[np.int8]:
    board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
    safe_cells = np.argwhere(~board.mines)
    for r, c in safe_cells[rng.permutation(len(safe_cells))[:clicks]]:
        board.reveal(int(r), int(c))
    return np.where(board.revealed, board.counts, H).astype(np.int8)


def test_the_kernel_is_used_when_numba_is_installed() -> None:
    kernel = analysis._kernel()
    assert kernel is not None
    rng = np.random.default_rng(5)
    cells = mid_game(rng, 16, 30, 99, 12)
    shape = analysis._frontier(cells == H, cells >= 0)
    need = (cells.astype(np.int16)).ravel()[shape.con_flat].tolist()
    counted = 0
    for part in shape.parts:
        order = analysis._elimination_order(part.groups, shape.group_cons)
        inputs = analysis._kernel_inputs(order, shape.group_cons, shape.sizes)
        assert shape.csr is not None
        compiled_inputs = kernel.count_inputs(np.array(order), *shape.csr, len(need))
        for a, b in zip(inputs, compiled_inputs, strict=True):
            np.testing.assert_array_equal(a, b)
        need_array = np.array(need, dtype=np.int64)
        got = analysis._count_compiled(kernel, inputs, order, shape.group_cons, need_array, 10**6)
        assert got is not None  # an expert frontier fits int64
        want = analysis._count_component(order, shape.group_cons, shape.sizes, need, 10**6)
        assert comparable(got) == comparable(want)
        counted += 1
    assert counted > 0


def test_compiled_structure_matches_the_python_split_and_order() -> None:
    # Components of the groups, each in the same Cuthill-McKee order.
    rng = np.random.default_rng(17)
    compared = 0
    for i in range(300):
        if i % 2:
            cells = mid_game(rng, 16, 30, 99, int(rng.integers(1, 25)))
        else:
            rows, cols = int(rng.integers(3, 10)), int(rng.integers(3, 12))
            cells = mid_game(rng, rows, cols, int(rng.integers(1, rows * cols // 3 + 2)), 4)
        analysis._SHAPES.clear()
        shape = analysis._frontier(cells == H, cells >= 0)
        got = sorted(tuple(part.order or ()) for part in shape.parts)
        groups = list(range(len(shape.sizes)))
        want = sorted(
            tuple(analysis._elimination_order(part, shape.group_cons))
            for part in analysis._split(groups, shape.group_cons)
        )
        assert got == want
        compared += len(got)
    assert compared > 500


def test_compiled_frontier_matches_the_numpy_one() -> None:
    # Random masks (flags, with trust_flags, are neither unknown nor
    # revealed): the same arrays, and the same parts with the same keys.
    rng = np.random.default_rng(23)
    kernel = analysis._kernel()
    parts = 0

    def described(shape: analysis._Frontier) -> list[tuple[object, ...]]:
        # (the compiled parts come in elimination order, the numpy ones not yet)
        return sorted((p.cons, p.canon, p.shape_key, sorted(p.groups)) for p in shape.parts)

    for i in range(1500):
        rows, cols = int(rng.integers(1, 20)), int(rng.integers(1, 32))
        if i % 3:
            revealed = rng.random((rows, cols)) < rng.uniform(0, 1)
            unknown = ~revealed & (rng.random((rows, cols)) < (0.8 if i % 2 else 1.0))
        else:
            cells = mid_game(rng, 16, 30, 99, int(rng.integers(0, 25)))
            revealed, unknown = cells >= 0, cells < 0
        want = analysis._frontier_numpy(unknown, revealed)
        got = analysis._frontier_compiled(kernel, unknown, revealed)
        for name in ("free_grid", "con_flat", "front_flat", "group_of", "sigs"):
            a, b = getattr(want, name), getattr(got, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
        assert (want.where, want.sizes, want.unconstrained) == (
            got.where,
            got.sizes,
            got.unconstrained,
        )
        assert (want.csr is None) == (got.csr is None)
        for a, b in zip(want.csr or (), got.csr or (), strict=True):
            np.testing.assert_array_equal(a, b)

        assert described(want) == described(got)
        assert all(p.order is not None and sorted(p.order) == p.canon for p in got.parts)
        parts += len(got.parts)
    assert parts > 3000
    # a board of 45,000 numbers: the signature sort packs 3 ids per key
    revealed = np.random.default_rng(1).random((300, 300)) < 0.5
    want = analysis._frontier_numpy(~revealed, revealed)
    got = analysis._frontier_compiled(kernel, ~revealed, revealed)
    assert len(got.con_flat) > 40_000
    for name in ("con_flat", "front_flat", "group_of", "sigs"):
        np.testing.assert_array_equal(getattr(want, name), getattr(got, name))
    assert described(want) == described(got)


def test_same_results_on_1500_positions() -> None:
    # Small boards (numbers of every kind, inconsistent states included,
    # relaxed counts under a tiny guard) and expert mid-game positions.
    rng = np.random.default_rng(2026)
    kinds = {"ok": 0, "error": 0, "relaxed": 0}
    for i in range(1500):
        if i % 5:
            rows, cols = int(rng.integers(2, 8)), int(rng.integers(2, 9))
            mines = int(rng.integers(1, rows * cols))
            cells = mid_game(rng, rows, cols, mines, int(rng.integers(1, 6)))
            if rng.random() < 0.3:  # a wrong number somewhere: often no layout fits
                shown = np.argwhere(cells >= 0)
                r, c = shown[rng.integers(len(shown))]
                cells[r, c] = int(rng.integers(0, 9))
        else:
            mines = 99
            cells = mid_game(rng, 16, 30, mines, int(rng.integers(3, 20)))
        guard = int(rng.choice([1, 2, 4, analysis.MAX_STATES]))
        a, b = both(cells, mines, max_states=guard)
        assert_same(a, b)
        if isinstance(a, str):
            kinds["error"] += 1
        elif not a.exact:  # type: ignore[attr-defined]
            kinds["relaxed"] += 1
        else:
            kinds["ok"] += 1
    assert min(kinds.values()) > 50, kinds


def test_counts_beyond_int64_fall_back_to_exact_python_integers() -> None:
    # A 3 x 400 strip: hidden rows 0 and 2, numbers in row 1.  One component
    # of 800 cells with far more than 2**61 layouts.
    rng = np.random.default_rng(8)
    layout = np.zeros((3, 400), dtype=bool)
    layout[[0, 2]] = rng.random((2, 400)) < 0.3
    cells = np.full(layout.shape, H, dtype=np.int8)
    cells[1] = adjacent_counts(layout)[1]
    mines = int(layout.sum())
    kernel = analysis._kernel()
    shape = analysis._frontier(cells == H, cells >= 0)
    need = cells.astype(np.int64).ravel()[shape.con_flat].tolist()
    (part,) = shape.parts
    order = analysis._elimination_order(part.groups, shape.group_cons)
    inputs = analysis._kernel_inputs(order, shape.group_cons, shape.sizes)
    numbered_need = np.array(need, dtype=np.int64)[inputs[3]]
    status = kernel.count_component(*inputs[:3], numbered_need, 10**6)[0]
    assert status == kernel.FALLBACK
    a, b = both(cells, mines)
    assert_same(a, b)
    assert a.layouts > 2**100  # type: ignore[attr-defined]
    assert not layout[tuple(a.safe.T)].any()  # type: ignore[attr-defined]


def test_policy_moves_are_the_same_with_either_engine() -> None:
    def play(rule: str) -> list[tuple[bool, int]]:
        analysis._CACHE.clear()
        analysis._SHAPES.clear()
        result = ns.simulate(40, 16, 30, 99, policy="solver", first_click=rule, seed=3)
        won, clicks = result.records["won"].tolist(), result.records["clicks"].tolist()
        return list(zip(won, clicks, strict=True))

    for rule in ("safe", "opening"):
        compiled = play(rule)
        saved = analysis._KERNEL[:]
        analysis._KERNEL[:] = [None]
        try:
            python = play(rule)
        finally:
            analysis._KERNEL[:] = saved
        assert compiled == python


def test_compiled_local_rules_match_the_vectorized_rounds() -> None:
    # Random batches, flags, inconsistent numbers, and round limits that
    # stop the iteration early: the same cells, round for round.
    from numsweeper.solver import policy

    rng = np.random.default_rng(12)
    kernel = analysis._kernel()
    compared = limited = 0
    for _ in range(300):
        rows, cols = int(rng.integers(1, 17)), int(rng.integers(1, 31))
        batch = []
        for _ in range(int(rng.integers(1, 6))):
            layout = rng.random((rows, cols)) < rng.random() * 0.4
            shown = ~layout & (rng.random((rows, cols)) < rng.random())
            cells = np.where(shown, adjacent_counts(layout), H).astype(np.int8)
            cells[~shown & (rng.random((rows, cols)) < 0.1)] = int(ns.FLAG)
            if rng.random() < 0.2:
                cells[shown & (rng.random((rows, cols)) < 0.1)] = int(rng.integers(0, 9))
            batch.append(cells)
        stack = np.stack(batch)
        for rounds in (1, 2, 3, 32):
            compiled = policy.local_rules(stack, max_rounds=rounds)
            analysis._KERNEL[:] = [None]
            try:
                python = policy.local_rules(stack, max_rounds=rounds)
            finally:
                analysis._KERNEL[:] = [kernel]
            for got, want in zip(compiled, python, strict=True):
                np.testing.assert_array_equal(got, want)
            compared += 1
            limited += rounds < 32 and not np.array_equal(
                python[0], policy.local_rules(stack, max_rounds=32)[0]
            )
    assert compared == 1200 and limited > 20  # the round limit did bite
    # one 2-D board, and other integer dtypes, go through the same kernel
    for board in (stack[0], stack[0].astype(np.int64), stack.astype(np.int16)):
        compiled = policy.local_rules(board)
        analysis._KERNEL[:] = [None]
        try:
            python = policy.local_rules(board)
        finally:
            analysis._KERNEL[:] = [kernel]
        for got, want in zip(compiled, python, strict=True):
            assert got.shape == board.shape
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("work_per_state", [200, 3])
def test_compiled_endgame_wins_match_the_python_search(
    work_per_state: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Random endgames on small boards, with budgets that stop some searches:
    # by their number of states, or (a tiny work allowance per state) by
    # the layouts they examine; every click counted, or only those the
    # pruned search needs; some cells flagged.
    from numsweeper.solver import policy

    monkeypatch.setattr(policy, "_WORK_PER_STATE", work_per_state)
    rng = np.random.default_rng(23)
    kernel = analysis._kernel()
    searched = stopped = 0
    for _ in range(3000):
        rows, cols = int(rng.integers(3, 7)), int(rng.integers(3, 8))
        mines = int(rng.integers(2, rows * cols // 3 + 2))
        cells = mid_game(rng, rows, cols, mines, int(rng.integers(2, 8)))
        if rng.random() < 0.3:  # flagged cells are hidden but cannot be clicked
            cells[(cells == H) & (rng.random(cells.shape) < 0.2)] = int(ns.FLAG)
        if not (cells == H).any():
            continue
        a = analyze(cells, mines)
        if a.layouts > 320:
            continue  # the Python search would take long
        budget = int(rng.choice([1, 3, 10, 10**6]))
        every = bool(rng.integers(2))
        compiled = policy._endgame_values(cells, a, budget, every)
        analysis._KERNEL[:] = [None]
        try:
            python = policy._endgame_values(cells, a, budget, every)
        finally:
            analysis._KERNEL[:] = [kernel]
        assert compiled == python
        searched += python is not None
        stopped += python is None and policy._endgame_values(cells, a, 10**6) is not None
    assert searched > 300 and stopped > 30


def test_compiled_endgame_takes_many_layouts_and_wide_positions() -> None:
    # The compiled listing and search take any number of layouts, and more
    # than 64 undecided cells (layouts of several 64-bit words).  Positions
    # of 320 to 1,000 layouts on small boards, and of 65 to 128 undecided
    # cells (numbers shown at scattered cells of a sparse 10x10 to 12x12
    # board, without the flood fill): the same values as the Python search.
    from numsweeper.solver import policy

    rng = np.random.default_rng(29)
    kernel = analysis._kernel()
    many = wide = 0
    for _ in range(5000):
        if many >= 15 and wide >= 15:
            break
        if many < 15:
            rows, cols = int(rng.integers(5, 7)), int(rng.integers(5, 8))
            mines = int(rng.integers(rows * cols // 4, rows * cols // 3 + 2))
            cells = mid_game(rng, rows, cols, mines, int(rng.integers(2, 5)))
        else:  # a sparse board
            rows, cols = int(rng.integers(10, 13)), int(rng.integers(10, 13))
            mines = int(rng.integers(1, 3))
            board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
            shown = ~board.mines & (rng.random((rows, cols)) < 0.1)
            cells = np.where(shown, board.counts, H).astype(np.int8)
        a = analyze(cells, mines)
        p = a.probabilities
        undecided = int(np.count_nonzero((cells < 0) & (p > 0) & (p < 1)))
        if not (320 < a.layouts <= 1000 if many < 15 else undecided > 64 and a.layouts <= 200):
            continue
        compiled = policy._endgame_values(cells, a, 10**6)
        analysis._KERNEL[:] = [None]
        try:
            python = policy._endgame_values(cells, a, 10**6)
        finally:
            analysis._KERNEL[:] = [kernel]
        assert compiled == python
        assert python is not None
        if many < 15:
            many += 1
        else:
            wide += 1
    assert many == wide == 15


def test_the_environment_can_turn_the_kernels_off() -> None:
    code = (
        "import numpy as np; from numsweeper.solver import analysis, analyze; "
        "a = analyze(np.array([[-1, 1, 0]], dtype=np.int8), 1); "
        "print(analysis._kernel() is None, a.layouts)"
    )
    for value, off in (("1", True), ("0", False), ("", False)):
        env = {**os.environ, "NUMSWEEPER_PURE_PYTHON": value}
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == [str(off), "1"]


def test_relaxed_pieces_name_the_same_inconsistent_number() -> None:
    # Under a tiny guard the count relaxes and splits a component; with two
    # inconsistent pieces, both engines must count them in the same order
    # and so name the same cell (found by review: they named (0, 0) and
    # (4, 3) when the pieces followed each engine's own group order).
    cells = np.array(
        [[0, 3, H, H, H], [H, 1, H, H, 1], [H, H, 1, H, 2], [H, H, H, 1, H], [H, H, 0, 2, H]],
        dtype=np.int8,
    )
    a, b = both(cells, 6, max_states=2)
    assert isinstance(a, str) and a == b


def comparable(counted: tuple[Any, ...]) -> tuple[dict[int, int], int, list[list[int]]]:
    """A compiled count, or a pure-Python one in the same banded form."""
    if len(counted) == 2:  # _count_component's (polynomial, marginal dicts)
        counted = analysis._banded(*counted)
    poly, low, band = counted
    return poly, low, band.tolist()


def outcome(count: Any, *args: Any) -> tuple[str, object]:
    """What a count returns or raises, comparably."""
    try:
        got = count(*args)
    except analysis._Empty as exc:
        return "empty", exc.constraint
    except analysis._TooLarge as exc:
        return "too large", sorted(exc.active)
    return ("fallback", None) if got is None else ("ok", comparable(got))


def test_count_kernel_matches_python_on_counts_near_int64() -> None:
    # Abstract banded components with large groups: counts and marginals
    # from small to far beyond 2**61, so every overflow check is exercised;
    # the kernel must agree exactly or hand the component back.
    rng = np.random.default_rng(0)
    kernel = analysis._kernel()
    seen = {"ok": 0, "fallback": 0, "empty": 0, "too large": 0}
    for _ in range(200):
        k, n_cons = int(rng.integers(8, 22)), int(rng.integers(1, 10))
        sizes = [int(rng.integers(5, 9)) for _ in range(k)]
        cons = []
        for g in range(k):
            centre = g * n_cons / k
            picks = rng.normal(centre, 1.5, int(rng.integers(1, 4)))
            cons.append(sorted({int(np.clip(round(x), 0, n_cons - 1)) for x in picks}))
        used = sorted({c for cs in cons for c in cs})
        need = [0] * n_cons
        for c in used:
            room = sum(sizes[g] for g in range(k) if c in cons[g])
            need[c] = min(8, room // 2 + int(rng.integers(-1, 2)))
        order = list(range(k))
        guard = int(rng.choice([50, 10**6]))
        want = outcome(analysis._count_component, order, cons, sizes, need, guard)
        inputs = analysis._kernel_inputs(order, cons, sizes)
        need_array = np.array(need, dtype=np.int64)
        got = outcome(analysis._count_compiled, kernel, inputs, order, cons, need_array, guard)
        seen[got[0]] += 1
        if got[0] != "fallback":
            assert got == want
        else:
            assert want[0] == "ok"
            poly = want[1][0]  # type: ignore[index]
            assert max(poly.values()) * 8 > 2**55  # it fell back for a reason
    assert min(seen.values()) > 5, seen


def test_kernels_stay_in_bounds(tmp_path: Any) -> None:
    # numba does not check indices: a kernel writing past an array would
    # corrupt memory silently.  Run this module's comparisons again with
    # numba's bounds checking on (compiled afresh into a scratch cache).
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            __file__,
            "-k",
            "not stay_in_bounds and not environment",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout


def test_endgame_memo_checks_a_hash_hit_against_the_stored_layouts() -> None:
    # The search keys its memo by two hashes of a state's layout indices;
    # a hit counts only if the stored indices are the state's own, and a
    # taken key is never overwritten by another state.  A forced collision
    # (two different states under one key) must miss, not return the count.
    from numba import types
    from numba.typed import Dict, List

    kernel = analysis._kernel()
    memo = Dict.empty(key_type=kernel._memo_key, value_type=types.int64)
    pool = List()
    pool.append(np.empty(4, dtype=np.int64))  # grows as states are stored
    used = np.zeros(1, dtype=np.int64)
    first, other = np.array([1, 4, 6]), np.array([2, 4, 7])
    key = kernel._key(first)
    assert kernel._recall(first, key, memo, pool) == -1
    kernel._store(first, key, 5, memo, pool, used)
    assert kernel._recall(first, key, memo, pool) == 5
    assert kernel._recall(other, key, memo, pool) == -1  # same key, other state
    assert kernel._recall(first[:2], key, memo, pool) == -1  # a prefix of it
    kernel._store(other, key, 9, memo, pool, used)  # the key is taken: ignored
    assert kernel._recall(first, key, memo, pool) == 5
    assert kernel._recall(other, kernel._key(other), memo, pool) == -1
    kernel._store(other, kernel._key(other), 9, memo, pool, used)
    assert kernel._recall(other, kernel._key(other), memo, pool) == 9
    assert kernel._key(first) != kernel._key(other)
