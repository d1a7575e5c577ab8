"""Bulk boards: generate, count and measure 3BV of expert boards.

The job of issue #3: generating plus counting plus 3BV for 100,000 expert
boards (16 x 30, 99 mines) must cost at least 10x less per board than the
strongest peer, ms-toollib (Rust), driven the way its users drive it: a loop
of ``laymine(16, 30, 99, 0, 0)`` plus ``cal_bbbv``.  Side by side in one run:

- ``ours_stream``: ``ns.iter_boards`` in chunks of 10,000 plus
  ``ns.metrics.three_bv`` on each chunk (the documented way to run many boards);
- ``ours_one_batch``: one ``ns.generate_boards(100_000, ...)`` plus
  ``three_bv`` on it (pays for touching 96 MB of fresh memory);
- ``ms_toollib``: the peer's loop;
- ``naive_numpy``: float keys + argpartition, ``adjacent_counts``,
  ``ndimage.label`` on the stack (the straightforward vectorized version);
- ``plain_python``: ``random.sample``, loops and a BFS, on fewer boards.

``test_per_board_ratios`` prints every case's time per board and the ratios,
and requires ours to be 10x faster than ms-toollib per board (full size only).

Run: ``pytest benchmarks/bench_bulk.py --benchmark-columns=min,median,rounds -s``
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import ndimage

import numsweeper as ns
from conftest import SMALL, size
from numsweeper._kernels import adjacent_counts

try:
    import ms_toollib
except ImportError:  # pragma: no cover - depends on the environment
    ms_toollib = None

ROWS, COLS, MINES = 16, 30, 99
BOARDS = size(100_000, 2_000)
PEER_BOARDS = size(100_000, 200)
NAIVE_BOARDS = size(20_000, 200)
PLAIN_BOARDS = size(1_000, 20)
NEEDS_PEER = "ms-toollib is not installed: pip install 'numsweeper[bench]' to compare with it"

# Seconds per board of each case that ran, for test_per_board_ratios.
PER_BOARD: dict[str, float] = {}


def _run(benchmark: Any, name: str, boards: int, function: Callable[[], object]) -> object:
    result = benchmark.pedantic(function, rounds=3, iterations=1, warmup_rounds=0)
    if benchmark.stats is not None:
        PER_BOARD[name] = benchmark.stats.stats.min / boards
        benchmark.extra_info["us_per_board"] = round(PER_BOARD[name] * 1e6, 3)
    return result


# -- ours ------------------------------------------------------------------------


def ours_stream(n: int, seed: int) -> np.ndarray:
    chunks = ns.iter_boards(n, ROWS, COLS, MINES, seed=seed, chunk_size=10_000)
    return np.concatenate([ns.metrics.three_bv(chunk) for chunk in chunks])


def ours_one_batch(n: int, seed: int) -> np.ndarray:
    batch = ns.generate_boards(n, ROWS, COLS, MINES, seed=seed)
    return ns.metrics.three_bv(batch)  # type: ignore[no-any-return]


def test_ours_stream(benchmark: Any) -> None:
    values = _run(benchmark, "ours_stream", BOARDS, lambda: ours_stream(BOARDS, 1))
    assert len(values) == BOARDS  # type: ignore[arg-type]


def test_ours_one_batch(benchmark: Any) -> None:
    values = _run(benchmark, "ours_one_batch", BOARDS, lambda: ours_one_batch(BOARDS, 1))
    assert len(values) == BOARDS  # type: ignore[arg-type]


# -- the peer --------------------------------------------------------------------


def peer_loop(n: int) -> list[int]:
    laymine, cal_bbbv = ms_toollib.laymine, ms_toollib.cal_bbbv
    return [cal_bbbv(laymine(ROWS, COLS, MINES, 0, 0)) for _ in range(n)]


def test_ms_toollib(benchmark: Any) -> None:
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    values = _run(benchmark, "ms_toollib", PEER_BOARDS, lambda: peer_loop(PEER_BOARDS))
    assert len(values) == PEER_BOARDS  # type: ignore[arg-type]


def test_ours_agrees_with_ms_toollib() -> None:
    """Same boards, same 3BV and openings: both use the community definitions."""
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    boards = np.array([ms_toollib.laymine(ROWS, COLS, MINES, 0, 0) for _ in range(2_000)])
    mines = boards == -1
    np.testing.assert_array_equal(
        ns.metrics.three_bv(mines), [ms_toollib.cal_bbbv(b) for b in boards.tolist()]
    )
    np.testing.assert_array_equal(
        ns.metrics.openings(mines), [ms_toollib.cal_op(b) for b in boards.tolist()]
    )


# -- baselines -------------------------------------------------------------------

_STACKED = np.zeros((3, 3, 3), dtype=bool)
_STACKED[1] = True


def naive_numpy(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = rng.random((n, ROWS * COLS), dtype=np.float32)
    mines = np.zeros((n, ROWS * COLS), dtype=bool)
    np.put_along_axis(mines, np.argpartition(keys, MINES - 1, axis=1)[:, :MINES], True, axis=1)
    mines = mines.reshape(n, ROWS, COLS)
    counts = adjacent_counts(mines)
    zero = ~mines & (counts == 0)
    labels, _ = ndimage.label(zero, structure=_STACKED)
    top = np.maximum.accumulate(labels.reshape(n, -1).max(axis=1))
    openings = np.diff(top, prepend=0)
    near_zero = ndimage.binary_dilation(zero, structure=np.ones((1, 3, 3), dtype=bool))
    isolated = ~mines & ~near_zero
    return openings + np.count_nonzero(isolated, axis=(1, 2))


def test_naive_numpy(benchmark: Any) -> None:
    values = _run(benchmark, "naive_numpy", NAIVE_BOARDS, lambda: naive_numpy(NAIVE_BOARDS, 1))
    assert len(values) == NAIVE_BOARDS  # type: ignore[arg-type]


def plain_python(n: int, seed: int) -> list[int]:
    generator = random.Random(seed)
    cells = [(r, c) for r in range(ROWS) for c in range(COLS)]
    around = {
        (r, c): [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < ROWS and 0 <= c + dc < COLS
        ]
        for r, c in cells
    }
    out = []
    for _ in range(n):
        mines = set(generator.sample(cells, MINES))
        count = {cell: sum(nb in mines for nb in around[cell]) for cell in cells}
        zero = {cell for cell in cells if cell not in mines and count[cell] == 0}
        clicks, seen = 0, set()
        for start in zero:
            if start in seen:
                continue
            clicks += 1
            seen.add(start)
            queue = deque([start])
            while queue:
                for nb in around[queue.popleft()]:
                    if nb in zero and nb not in seen:
                        seen.add(nb)
                        queue.append(nb)
        clicks += sum(
            1
            for cell in cells
            if cell not in mines and count[cell] and not any(nb in zero for nb in around[cell])
        )
        out.append(clicks)
    return out


def test_plain_python(benchmark: Any) -> None:
    values = _run(benchmark, "plain_python", PLAIN_BOARDS, lambda: plain_python(PLAIN_BOARDS, 1))
    assert len(values) == PLAIN_BOARDS  # type: ignore[arg-type]


def test_baselines_agree_in_distribution() -> None:
    """The baselines measure the same thing: their mean 3BV is ours within noise."""
    ours = ours_stream(20_000, 3)
    naive = naive_numpy(20_000, 3)
    plain = np.array(plain_python(500, 3))
    se = ours.std() / np.sqrt(20_000)
    assert abs(naive.mean() - ours.mean()) < 6 * se * np.sqrt(2)
    assert abs(plain.mean() - ours.mean()) < 6 * ours.std() / np.sqrt(500)


# -- the verdict -----------------------------------------------------------------


def test_per_board_ratios() -> None:
    if not PER_BOARD:
        pytest.skip("no timings: benchmarks are disabled")
    reference = PER_BOARD.get("ours_stream")
    print("\ncase               us/board   x ours_stream")
    for name, seconds in sorted(PER_BOARD.items(), key=lambda item: item[1]):
        ratio = f"{seconds / reference:10.1f}" if reference else ""
        print(f"{name:<16} {seconds * 1e6:10.2f} {ratio}")
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    if not SMALL and reference and "ms_toollib" in PER_BOARD:
        assert PER_BOARD["ms_toollib"] / reference >= 10
