"""No-guess boards: ours against ms-toollib's ``laymine_solvable``, per board.

Issue #9 (tracker issue 23): ``NoGuessPlacement(method='uniform')`` lays
expert boards with an opening start at least 5x faster per board, on 2
cores, than ms-toollib's ``laymine_solvable(16, 30, 99, 8, 15, max_times)``
(Rust, single-threaded), under our stricter definition (which uses the mine
count).  Side by side in one run, for beginner, intermediate and expert, all
with an opening start at the peer's cell (the board's centre):

- ``uniform_w1`` / ``uniform_w2``: ``generate_boards(n, ...,
  strategy=NoGuessPlacement(method='uniform'), first_click='opening',
  click=centre, workers=1 or 2)``: exactly uniform over the no-guess boards;
- ``fast_w1`` / ``fast_w2``: the same with ``method='fast'`` (repairs,
  biased; see ``docs/no_guess.md``);
- ``peer``: a loop of ``ms_toollib.laymine_solvable(rows, cols, mines, row,
  col, 1_000_000)``, one board per call, as its users call it.

``test_per_board_ratios`` prints each case's time per board and its ratio
to the peer, and (at full size) requires the target ratio.  Timings are
the minimum of three rounds; the machine is shared, so compare the ratios
of one run.

Run: ``pytest benchmarks/bench_noguess.py --benchmark-columns=min,median,rounds -s``
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numsweeper as ns
from conftest import SMALL, size

try:
    import ms_toollib
except ImportError:  # pragma: no cover - depends on the environment
    ms_toollib = None

NEEDS_PEER = "ms-toollib is not installed: pip install 'numsweeper[bench]' to compare with it"

# (boards of ours per round, boards of the peer per round)
PRESETS = {
    "beginner": ((9, 9, 10), size(10_000, 100), size(10_000, 50)),
    "intermediate": ((16, 16, 40), size(4_000, 60), size(2_000, 20)),
    "expert": ((16, 30, 99), size(2_000, 30), size(300, 5)),
}
CASES = {
    "uniform_w1": ("uniform", 1),
    "uniform_w2": ("uniform", 2),
    "fast_w1": ("fast", 1),
    "fast_w2": ("fast", 2),
}
# The target of the issue: this case against the peer, at least this ratio.
TARGET = ("expert", "uniform_w2", 5.0)

# Seconds per board of each case that ran, for test_per_board_ratios.
PER_BOARD: dict[tuple[str, str], float] = {}


def _centre(board: tuple[int, int, int]) -> tuple[int, int]:
    return board[0] // 2, board[1] // 2


def _record(benchmark: Any, key: tuple[str, str], boards: int) -> None:
    if benchmark.stats is not None:
        PER_BOARD[key] = benchmark.stats.stats.min / boards
        benchmark.extra_info["us_per_board"] = round(PER_BOARD[key] * 1e6, 2)


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Load (or compile) the kernels and the exact engine before any clock starts."""
    strategy = ns.NoGuessPlacement(seed=0)
    for board, _, _ in PRESETS.values():
        ns.generate_boards(
            20, *board, strategy=strategy, first_click="opening", click=_centre(board)
        )


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("case", list(CASES))
def test_ours(benchmark: Any, preset: str, case: str) -> None:
    board, boards, _ = PRESETS[preset]
    method, workers = CASES[case]
    seeds = iter(range(1_000))

    def lay() -> ns.BoardBatch:
        strategy = ns.NoGuessPlacement(seed=next(seeds), method=method)
        return ns.generate_boards(
            boards,
            *board,
            strategy=strategy,
            first_click="opening",
            click=_centre(board),
            workers=workers,
        )

    batch = benchmark.pedantic(lay, rounds=3, iterations=1, warmup_rounds=0)
    _record(benchmark, (preset, case), boards)
    assert len(batch) == boards
    if SMALL:
        assert ns.is_no_guess(batch.mines, _centre(board)).all()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_peer(benchmark: Any, preset: str) -> None:
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    board, _, boards = PRESETS[preset]
    row, col = _centre(board)

    def lay() -> list[Any]:
        solvable = ms_toollib.laymine_solvable
        return [solvable(*board, row, col, 1_000_000) for _ in range(boards)]

    layouts = benchmark.pedantic(lay, rounds=3, iterations=1, warmup_rounds=0)
    _record(benchmark, (preset, "peer"), boards)
    assert all(done for _, done in layouts)


def test_peer_boards_are_no_guess_for_us_too() -> None:
    """The peer's boards pass our stricter check, and its weaker one: we compare like with like."""
    if ms_toollib is None:
        pytest.skip(NEEDS_PEER)
    for board, _, _ in PRESETS.values():
        row, col = _centre(board)
        layouts = [ms_toollib.laymine_solvable(*board, row, col, 1_000_000)[0] for _ in range(20)]
        mines = np.array(layouts) == -1
        assert ns.is_no_guess(mines, (row, col), use_mine_count=False).all()


def test_per_board_ratios() -> None:
    if not PER_BOARD:
        pytest.skip("no timings: benchmarks are disabled")
    lines = []
    for preset in PRESETS:
        peer = PER_BOARD.get((preset, "peer"))
        for case in [*CASES, "peer"]:
            seconds = PER_BOARD.get((preset, case))
            if seconds is None:
                continue
            ratio = "" if peer is None else f"  peer/ours {peer / seconds:6.2f}x"
            lines.append(f"{preset:<13} {case:<11} {seconds * 1e3:8.3f} ms/board{ratio}")
    print("\n" + "\n".join(lines))
    preset, case, target = TARGET
    ours, peer = PER_BOARD.get((preset, case)), PER_BOARD.get((preset, "peer"))
    if SMALL or ours is None or peer is None:
        return
    assert peer / ours >= target, f"{preset} {case}: {peer / ours:.2f}x, target {target}x"
