"""Core engine benchmarks: per-click cost, big floods, board creation, update_board.

Each group pairs numsweeper with a plain-Python baseline (``baselines.py``)
in the same run; compare the ratios, not the absolute times.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import numsweeper as ns
from baselines import bfs_reveal, classic_update_board
from conftest import size

# --- per-click cost follows the region, not the board -------------------------
# Each click is played on a Game and taken back with game.undo() (O(cells the
# click changed)) in the untimed setup, so the same click is timed every round.

PATCH = 100  # the same 100x100 mine pattern sits at the top-left of every board


def _patch() -> np.ndarray:
    return ns.RandomPlacement(seed=2024).place(PATCH, PATCH, 1_500)


def _click_cells(mines: np.ndarray) -> tuple[tuple[int, int], tuple[int, int], int]:
    """A digit cell and a zero cell whose opening has 15..40 cells, inside the patch."""
    board = ns.Board(mines)
    counts = board.counts
    digit = tuple(
        int(v) for v in np.argwhere((counts[40:60, 40:60] > 0) & ~mines[40:60, 40:60])[0] + 40
    )
    for r, c in np.argwhere((counts[30:70, 30:70] == 0) & ~mines[30:70, 30:70]) + 30:
        probe = ns.Board(mines)
        k = len(probe.reveal(int(r), int(c)).cells)
        if 15 <= k <= 40:
            return digit, (int(r), int(c)), k  # type: ignore[return-value]
    raise AssertionError("no opening of 15..40 cells in the patch")


@pytest.fixture(scope="module", params=[100, 1_000, 10_000], ids=lambda n: f"{n}x{n}")
def big_board(request: pytest.FixtureRequest) -> tuple[ns.Game, tuple, tuple, int]:
    n = size(request.param, min(request.param, 1_000))
    mines = ns.RandomPlacement(seed=n).place(n, n, int(0.15 * n * n))
    mines[:PATCH, :PATCH] = _patch()
    digit, zero, k = _click_cells(mines[:PATCH, :PATCH].copy())
    return ns.Game(ns.Board(mines)), digit, zero, k


def _time_click(benchmark, game: ns.Game, cell: tuple[int, int], rounds: int) -> int:
    """Time ``game.reveal(*cell)`` round after round, taking it back with ``game.undo()``
    in each round's untimed setup; returns the cells the last click revealed."""
    box: list[ns.RevealResult] = []

    def setup() -> None:
        if box:
            game.undo()
            box.clear()

    def click() -> None:
        box.append(game.reveal(*cell))

    benchmark.pedantic(click, setup=setup, rounds=rounds, warmup_rounds=5)
    opened = len(box[-1])
    game.undo()  # leave the module's game as it was for the next case
    assert not game.moves
    return opened


@pytest.mark.benchmark(group="click: opening of ~20 cells")
def test_click_opening(benchmark, big_board) -> None:
    game, _, zero, k = big_board
    assert _time_click(benchmark, game, zero, rounds=200) == k


@pytest.mark.benchmark(group="click: one digit")
def test_click_digit(benchmark, big_board) -> None:
    game, digit, _, _ = big_board
    assert _time_click(benchmark, game, digit, rounds=500) == 1


@pytest.mark.benchmark(group="click: opening of ~20 cells")
def test_click_opening_python_bfs(benchmark) -> None:
    mines = _patch()
    _, zero, k = _click_cells(mines)
    as_lists = mines.tolist()
    cells = benchmark(bfs_reveal, as_lists, *zero)
    assert len(cells) == k


# --- one click that floods a 2,000 x 2,000 board -----------------------------

FLOOD = size(2_000, 300)


@pytest.fixture(scope="module")
def sparse_mines() -> np.ndarray:
    return ns.RandomPlacement(seed=5).place(FLOOD, FLOOD, 5)


@pytest.mark.benchmark(group=f"flood {FLOOD}x{FLOOD}, 5 mines")
def test_flood_numsweeper(benchmark, sparse_mines) -> None:
    boards: list[ns.Board] = []
    result = benchmark.pedantic(
        lambda: boards[-1].reveal(0, 0),
        setup=lambda: boards.append(ns.Board(sparse_mines)),
        rounds=5,
    )
    assert len(result.cells) > 0.99 * FLOOD * FLOOD


@pytest.mark.benchmark(group=f"flood {FLOOD}x{FLOOD}, 5 mines")
def test_flood_python_bfs(benchmark, sparse_mines) -> None:
    as_lists = sparse_mines.tolist()
    cells = benchmark.pedantic(bfs_reveal, args=(as_lists, 0, 0), rounds=1)
    assert len(cells) > 0.99 * FLOOD * FLOOD


# --- Board.create: time and memory at 10,000 x 10,000, 15% mines -------------

CREATE = size(10_000, 500)


@pytest.mark.benchmark(group=f"Board.create {CREATE}x{CREATE}, 15% mines")
def test_board_create(benchmark) -> None:
    mines = int(0.15 * CREATE * CREATE)
    board = benchmark.pedantic(
        ns.Board.create, args=(CREATE, CREATE, mines, ns.RandomPlacement(seed=1)), rounds=3
    )
    del board
    tracemalloc.start()
    board = ns.Board.create(CREATE, CREATE, mines, ns.RandomPlacement(seed=1))
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    cells = CREATE * CREATE
    benchmark.extra_info.update(peak_bytes_per_cell=peak / cells, held_bytes_per_cell=held / cells)
    assert board.mine_count == mines
    assert peak / cells <= 10
    assert held / cells <= 8


# --- update_board against the classic DFS ------------------------------------


def _copy(grid: list[list[str]]) -> list[list[str]]:
    return [row[:] for row in grid]


SOLVERS = [ns.update_board, classic_update_board]
DENSITIES = (0.05, 0.10, 0.15, 0.20, 0.25)


def _leetcode_cases(n: int, side: int, seed: int) -> list[tuple[list[list[str]], list[int]]]:
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        density = DENSITIES[i % len(DENSITIES)]
        grid = np.where(rng.random((side, side)) < density, "M", "E").tolist()
        cases.append((grid, [int(v) for v in rng.integers(0, side, 2)]))
    return cases


SMALL_CASES = _leetcode_cases(size(500, 50), 50, seed=11)


@pytest.mark.benchmark(group="update_board 50x50, random densities and clicks")
@pytest.mark.parametrize(
    "solve", [ns.update_board, classic_update_board], ids=["numsweeper", "classic_dfs"]
)
def test_update_board_small(benchmark, solve) -> None:
    state: dict[str, list] = {}

    def setup() -> None:
        state["boards"] = [_copy(grid) for grid, _ in SMALL_CASES]

    def run() -> None:
        for board, (_, click) in zip(state["boards"], SMALL_CASES, strict=True):
            solve(board, click)

    benchmark.pedantic(run, setup=setup, rounds=10)
    expected = [classic_update_board(_copy(g), c) for g, c in SMALL_CASES]
    assert state["boards"] == expected


LARGE = size(1_000, 200)


@pytest.fixture(scope="module")
def large_case() -> tuple[list[list[str]], list[int]]:
    rng = np.random.default_rng(3)
    grid = np.where(rng.random((LARGE, LARGE)) < 0.01, "M", "E")
    zero = np.argwhere(grid == "E")[0]
    return grid.tolist(), [int(v) for v in zero]


@pytest.mark.benchmark(group=f"update_board {LARGE}x{LARGE}, 1% mines, one flood")
@pytest.mark.parametrize(
    "solve", [ns.update_board, classic_update_board], ids=["numsweeper", "classic_dfs"]
)
def test_update_board_large(benchmark, solve, large_case) -> None:
    grid, click = large_case
    boards: list[list[list[str]]] = []
    result = benchmark.pedantic(
        lambda: solve(boards[-1], click),
        setup=lambda: boards.append(_copy(grid)),
        rounds=3 if solve is classic_update_board else 10,
    )
    assert result == classic_update_board(_copy(grid), click)
