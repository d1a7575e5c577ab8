"""ZiNi, HZiNi and RZiNi of expert boards: ours (batched numpy) beside ms-toollib (Rust).

The same boards go to both: ``ns.metrics.zini`` / ``hzini`` / ``rzini`` on one
``(n, 16, 30)`` batch, and ms-toollib's ``cal_zini`` / ``cal_hzini`` /
``cal_rzini`` in a loop over the boards as lists (converted beforehand, not
timed).  Both count the same clicks (tests/test_metrics.py checks that ZiNi
and HZiNi agree board for board); this file measures time per board.

``test_per_board_times`` prints every case's time per board and ours / theirs.

Run: ``pytest benchmarks/bench_metrics.py --benchmark-columns=min,median,rounds -s``
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numsweeper as ns
from conftest import size

try:
    import ms_toollib
except ImportError:  # pragma: no cover - depends on the environment
    ms_toollib = None

ROWS, COLS, MINES = 16, 30, 99
BOARDS = size(10_000, 200)
RANDOM_BOARDS = size(300, 20)
ITERATIONS = ns.metrics.RZINI_ITERATIONS
NEEDS_PEER = "ms-toollib is not installed: pip install 'numsweeper[bench]' to compare with it"

# Seconds per board of each case that ran, for test_per_board_times.
PER_BOARD: dict[str, float] = {}


@pytest.fixture(scope="module")
def batch() -> ns.BoardBatch:
    return ns.generate_boards(BOARDS, ROWS, COLS, MINES, seed=2026)


@pytest.fixture(scope="module")
def as_lists(batch: ns.BoardBatch) -> list[list[list[int]]]:
    return np.where(batch.mines, -1, 0).tolist()  # type: ignore[no-any-return]


def _run(benchmark: Any, name: str, boards: int, function: Callable[[], object]) -> object:
    result = benchmark.pedantic(function, rounds=3, iterations=1, warmup_rounds=0)
    if benchmark.stats is not None:
        PER_BOARD[name] = benchmark.stats.stats.min / boards
        benchmark.extra_info["us_per_board"] = round(PER_BOARD[name] * 1e6, 1)
    return result


@pytest.mark.parametrize("name", ["zini", "hzini"])
def test_ours(benchmark: Any, batch: ns.BoardBatch, name: str) -> None:
    function = getattr(ns.metrics, name)
    values = _run(benchmark, f"ours {name}", BOARDS, lambda: function(batch))
    assert len(values) == BOARDS  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["zini", "hzini"])
def test_ms_toollib(benchmark: Any, as_lists: list[list[list[int]]], name: str) -> None:
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    function = getattr(ms_toollib, f"cal_{name}")
    values = _run(benchmark, f"ms-toollib {name}", BOARDS, lambda: [function(b) for b in as_lists])
    assert len(values) == BOARDS  # type: ignore[arg-type]


def test_ours_rzini(benchmark: Any, batch: ns.BoardBatch) -> None:
    boards = batch.mines[:RANDOM_BOARDS]
    values = _run(
        benchmark,
        "ours rzini",
        RANDOM_BOARDS,
        lambda: ns.metrics.rzini(boards, iterations=ITERATIONS, seed=1),
    )
    assert len(values) == RANDOM_BOARDS  # type: ignore[arg-type]


def test_ms_toollib_rzini(benchmark: Any, as_lists: list[list[list[int]]]) -> None:
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    boards = as_lists[:RANDOM_BOARDS]
    values = _run(
        benchmark,
        "ms-toollib rzini",
        RANDOM_BOARDS,
        lambda: [ms_toollib.cal_rzini(b, ITERATIONS) for b in boards],
    )
    assert len(values) == RANDOM_BOARDS  # type: ignore[arg-type]


def test_per_board_times() -> None:
    if not PER_BOARD:
        pytest.skip("no timings: benchmarks are disabled")
    for name, seconds in sorted(PER_BOARD.items()):
        print(f"{name:>18}: {seconds * 1e6:9.1f} us per board")
    for metric in ("zini", "hzini", "rzini"):
        ours, theirs = PER_BOARD.get(f"ours {metric}"), PER_BOARD.get(f"ms-toollib {metric}")
        if ours and theirs:
            print(f"{metric:>18}: ours / ms-toollib = {ours / theirs:.2f}")
