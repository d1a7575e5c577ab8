"""Recorded games: undo after a big flood, and copy, save and load per cell.

Side by side in one run, each case asserting what it measured:

- *undo of a one-cell click* on a 100 x 100 board and on a 10,000 x 10,000
  board whose first click flooded millions of cells (issue target: the big
  board costs at most 10x the small one), and, for scale, undo of the flood
  itself (O(cells it opened));
- ``game.copy()``, ``ns.save_game(game, "x.npz")`` and ``ns.load_game`` on a
  10,000 x 10,000 game in progress (15% mines outside a sparse corner, a few
  hundred moves including a flood of millions of cells) and on a 1,000 x
  1,000 game played the same way, reported in ns per cell; the npz file must
  take at most 0.3 byte per cell, and the game that loading returns must hold
  at most 4 bytes per cell, like ``Board.create`` (measured with tracemalloc,
  which traces numpy's allocations, and as the resident memory of a fresh
  process), plus the undo records of its moves;
- ``.json`` save and load of an expert game in progress.

Times per cell are in each case's ``extra_info`` (``--benchmark-json``).

Run: ``pytest benchmarks/bench_records.py --benchmark-columns=min,median,mean,rounds
--benchmark-sort=name``
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import numsweeper as ns
from conftest import size

# --- boards with a sparse corner that one click floods --------------------------

DENSITY = 0.15  # mines outside the sparse corner
CORNER_DENSITY = 0.001  # inside it: the first click floods nearly all of it


def _corner_layout(n: int, seed: int) -> tuple[np.ndarray, tuple[int, int]]:
    """An ``n`` x ``n`` layout at 15% mines whose top-left ``n/4`` x ``n/4``
    corner holds 0.1%, and a zero cell in the middle of that corner."""
    mines = ns.RandomPlacement(seed=seed).place(n, n, int(DENSITY * n * n))
    side = n // 4
    rng = np.random.default_rng(seed)
    mines[:side, :side] = rng.random((side, side)) < CORNER_DENSITY
    counts = ns.Board(mines[: side + 1, : side + 1].copy()).counts[:side, :side]
    zeros = np.argwhere((counts == 0) & ~mines[:side, :side])
    r, c = zeros[np.argmin(np.abs(zeros - side // 2).sum(axis=1))]
    return mines, (int(r), int(c))


def _flood(game: ns.Game, click: tuple[int, int], n: int) -> int:
    """Play the flooding first click; check that it opened nearly all the corner."""
    opened = len(game.reveal(*click))
    assert opened >= 0.9 * (n // 4) ** 2
    return opened


# --- undo of a one-cell click after a flood of millions of cells ---------------

UNDO_SIZES = [100, size(10_000, 1_000)]
MILLIONS = size(2_000_000, 50_000)  # what the big board's flood must open
UNDO_MEDIAN: dict[int, float] = {}  # seconds, per board size, for the ratio


class Flooded(NamedTuple):
    game: ns.Game
    n: int
    flood_click: tuple[int, int]
    opened: int  # cells the flood opened
    digit: tuple[int, int]  # a hidden safe cell showing a number, far from the flood


@pytest.fixture(scope="module", params=UNDO_SIZES, ids=lambda n: f"{n}x{n}")
def flooded(request: pytest.FixtureRequest) -> Flooded:
    n = request.param
    mines, click = _corner_layout(n, seed=n)
    game = ns.Game(ns.Board(mines))
    opened = _flood(game, click, n)
    if n == UNDO_SIZES[-1]:
        assert opened >= MILLIONS, f"the flood opened only {opened:,} cells"
    board = game.board
    assert board is not None
    far = n // 2
    candidates = (board.counts[far:, far:] > 0) & ~board.mines[far:, far:]
    r, c = np.argwhere(candidates)[0] + far
    assert not board.revealed[r, c]
    return Flooded(game, n, click, opened, (int(r), int(c)))


@pytest.mark.benchmark(group="undo of a one-cell click after a big flood")
def test_undo_one_cell(benchmark: Any, flooded: Flooded) -> None:
    game, n = flooded.game, flooded.n
    board = game.board
    assert board is not None
    before = board.hidden_safe
    game.reveal(*flooded.digit)
    game.undo()
    undone: list[ns.Move] = []

    def undo() -> None:
        undone.append(game.undo())

    def redo() -> None:
        game.redo()

    benchmark.pedantic(undo, setup=redo, rounds=500, warmup_rounds=5)
    assert undone[-1].kind == "reveal"
    assert (undone[-1].row, undone[-1].col) == flooded.digit
    assert not board.revealed[flooded.digit]
    assert board.hidden_safe == before
    assert len(game.moves) == 1  # the flood, still there
    if benchmark.stats is not None:
        UNDO_MEDIAN[n] = benchmark.stats.stats.median
        benchmark.extra_info["flood_cells"] = flooded.opened
        small, big = UNDO_SIZES
        if n == big and small in UNDO_MEDIAN:
            ratio = UNDO_MEDIAN[big] / UNDO_MEDIAN[small]
            benchmark.extra_info["ratio_to_100x100"] = round(ratio, 2)
            assert ratio <= 10, f"undo on {big}x{big} costs {ratio:.1f}x the 100x100 one"


@pytest.mark.benchmark(group="undo of the flood itself (per cell opened)")
def test_undo_flood(benchmark: Any, flooded: Flooded) -> None:
    game = flooded.game
    board = game.board
    assert board is not None
    before = board.hidden_safe
    game.undo()
    after = board.hidden_safe
    assert after == before + flooded.opened
    undone: list[ns.Move] = []

    def undo() -> None:
        undone.append(game.undo())

    def redo() -> None:
        game.redo()

    benchmark.pedantic(undo, setup=redo, rounds=5)
    assert board.hidden_safe == after
    assert not board.revealed[flooded.flood_click]
    assert not game.moves
    game.redo()  # as the fixture left it
    assert board.hidden_safe == before
    if benchmark.stats is not None:
        median = benchmark.stats.stats.median
        benchmark.extra_info["flood_cells"] = flooded.opened
        benchmark.extra_info["ns_per_cell_opened"] = round(1e9 * median / flooded.opened, 2)


# --- copy, save and load per cell ---------------------------------------------

RECORD_SIZES = [size(10_000, 500), size(1_000, 100)]
REVEALS, FLAGS, CHORDS = 250, 40, 10  # besides the flood
NPZ_BYTES_PER_CELL = 0.3  # target
HELD_BYTES_PER_CELL = 4  # target, like Board.create: mines, counts, revealed, flagged


class Played(NamedTuple):
    game: ns.Game
    cells: int
    path: Path  # where the npz cases save


def _midgame(game: ns.Game, rng: np.random.Generator) -> None:
    """A few hundred moves that never hit a mine: reveals of random safe cells,
    flags on random mines, and chords on numbers whose mines are all flagged."""
    board = game.board
    assert board is not None
    mines = board.mines
    rows, cols = mines.shape
    revealed = 0
    while revealed < REVEALS:
        r, c = (int(v) for v in rng.integers(0, (rows, cols)))
        if not (mines[r, c] or board.revealed[r, c]):
            game.reveal(r, c)
            revealed += 1
    flagged = 0
    while flagged < FLAGS:
        r, c = (int(v) for v in rng.integers(0, (rows, cols)))
        if mines[r, c] and not board.flagged[r, c]:
            game.toggle_flag(r, c)
            flagged += 1
    chorded = 0
    for r, c in np.argwhere(board.revealed & (board.counts > 0)):
        window = np.s_[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2]
        if not (~board.revealed[window] & ~mines[window]).any():
            continue  # nothing to open
        for i, j in np.argwhere(mines[window] & ~board.flagged[window]):
            game.toggle_flag(int(i) + max(r - 1, 0), int(j) + max(c - 1, 0))
        game.chord(int(r), int(c))
        chorded += 1
        if chorded == CHORDS:
            break
    assert chorded == CHORDS
    assert game.state is ns.GameState.IN_PROGRESS


@pytest.fixture(scope="module", params=RECORD_SIZES, ids=lambda n: f"{n}x{n}")
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Played:
    n = request.param
    mines, click = _corner_layout(n, seed=7 + n)
    game = ns.Game(ns.Board(mines))
    _flood(game, click, n)
    _midgame(game, np.random.default_rng(n))
    assert len(game.moves) >= 300
    path = tmp_path_factory.mktemp(f"records{n}") / "x.npz"
    return Played(game, n * n, path)


def _per_cell(benchmark: Any, cells: int) -> None:
    if benchmark.stats is not None:
        stats = benchmark.stats.stats
        benchmark.extra_info["ns_per_cell_median"] = round(1e9 * stats.median / cells, 2)
        benchmark.extra_info["ns_per_cell_min"] = round(1e9 * stats.min / cells, 2)


def _undo_records(game: ns.Game) -> int:
    """Bytes a game may hold for its moves besides its arrays: the windows of
    the cells its moves opened, bit-packed (2 bits per opened cell leaves room
    for the windows' corners), and 1 kB per move for the objects."""
    board = game.board
    assert board is not None
    opened = board.mines.size - game.mine_count - board.hidden_safe
    return opened // 4 + 1024 * len(game.moves)


def _traced(function: Any) -> tuple[Any, int, int]:
    """``function()``, and the bytes it left allocated and its peak (tracemalloc)."""
    tracemalloc.start()
    try:
        result = function()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, held, peak


def _same_game(a: ns.Game, b: ns.Game) -> None:
    board_a, board_b = a.board, b.board
    assert board_a is not None and board_b is not None
    assert a.moves == b.moves and a.state is b.state
    assert board_a.hidden_safe == board_b.hidden_safe
    assert board_a.flag_count == board_b.flag_count
    assert np.array_equal(board_a.mines, board_b.mines)
    assert np.array_equal(board_a.revealed, board_b.revealed)
    assert np.array_equal(board_a.flagged, board_b.flagged)


@pytest.mark.benchmark(group="game.copy(), per cell")
def test_copy(benchmark: Any, played: Played) -> None:
    game, cells = played.game, played.cells
    twin = benchmark.pedantic(game.copy, rounds=3)
    _per_cell(benchmark, cells)
    _same_game(twin, game)
    assert twin.board is not None and game.board is not None
    assert not np.shares_memory(twin.board.revealed, game.board.revealed)
    del twin
    twin, held, _ = _traced(game.copy)
    assert twin.moves == game.moves
    benchmark.extra_info["held_bytes_per_cell"] = round(held / cells, 3)
    assert held <= HELD_BYTES_PER_CELL * cells + _undo_records(game)


@pytest.mark.benchmark(group="save_game .npz, per cell")
def test_save_npz(benchmark: Any, played: Played) -> None:
    game, cells, path = played
    benchmark.pedantic(ns.save_game, args=(game, path), rounds=3)
    _per_cell(benchmark, cells)
    file_bytes = path.stat().st_size
    benchmark.extra_info["file_bytes_per_cell"] = round(file_bytes / cells, 4)
    # Besides the layout, a few kB of header and zip directory, and the moves
    # (25 bytes each before compression): they matter only on small boards.
    assert file_bytes <= NPZ_BYTES_PER_CELL * cells + 4096 + 25 * len(game.moves)


_RSS_SCRIPT = textwrap.dedent(
    """
    import os, resource, sys
    import numsweeper as ns

    def rss():
        # (resident, peak resident) bytes of this process
        try:
            with open("/proc/self/status") as status:
                fields = dict(line.split(":", 1) for line in status)
            return tuple(int(fields[k].split()[0]) * 1024 for k in ("VmRSS", "VmHWM"))
        except OSError:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            peak *= 1 if sys.platform == "darwin" else 1024
            return peak, peak

    before, _ = rss()
    game = ns.load_game(sys.argv[1])
    after, peak = rss()
    print(after - before, peak - before)
    """
)


@pytest.mark.benchmark(group="load_game .npz, per cell")
def test_load_npz(benchmark: Any, played: Played) -> None:
    game, cells, path = played
    ns.save_game(game, path)
    loaded = benchmark.pedantic(ns.load_game, args=(path,), rounds=3)
    _per_cell(benchmark, cells)
    _same_game(loaded, game)
    del loaded
    allowed = HELD_BYTES_PER_CELL * cells + _undo_records(game)

    loaded, held, peak = _traced(lambda: ns.load_game(path))
    _same_game(loaded, game)
    del loaded
    benchmark.extra_info["traced_held_bytes_per_cell"] = round(held / cells, 3)
    benchmark.extra_info["traced_peak_bytes_per_cell"] = round(peak / cells, 3)
    assert held <= allowed, f"loading holds {held / cells:.3f} bytes per cell"

    # The same in a fresh process, as resident memory (the system hands out
    # zeroed pages lazily, so this can be lower); allow 8 MiB for the allocator.
    out = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, str(path)], capture_output=True, text=True, check=True
    ).stdout
    resident, resident_peak = (int(v) for v in out.split())
    benchmark.extra_info["rss_held_bytes_per_cell"] = round(resident / cells, 3)
    benchmark.extra_info["rss_peak_bytes_per_cell"] = round(resident_peak / cells, 3)
    assert resident <= allowed + (8 << 20), f"loading keeps {resident / cells:.3f} B/cell resident"


# --- .json on an expert game ----------------------------------------------------


@pytest.fixture(scope="module")
def expert(tmp_path_factory: pytest.TempPathFactory) -> Played:
    game = ns.Game.from_preset("expert", seed=2026, first_click="opening")
    game.reveal(8, 15)
    board = game.board
    assert board is not None
    rng = np.random.default_rng(1)
    hidden_safe = np.argwhere(~board.mines & ~board.revealed)
    for r, c in hidden_safe[rng.permutation(len(hidden_safe))][:30]:
        if not board.revealed[r, c] and board.hidden_safe > 1:
            game.reveal(int(r), int(c))
    for r, c in np.argwhere(board.mines)[:10]:
        game.toggle_flag(int(r), int(c))
    assert game.state is ns.GameState.IN_PROGRESS
    path = tmp_path_factory.mktemp("expert") / "x.json"
    return Played(game, game.rows * game.cols, path)


@pytest.mark.benchmark(group="save_game .json, expert, per cell")
def test_save_json_expert(benchmark: Any, expert: Played) -> None:
    game, cells, path = expert
    benchmark(ns.save_game, game, path)
    _per_cell(benchmark, cells)
    benchmark.extra_info["file_bytes_per_cell"] = round(path.stat().st_size / cells, 2)
    assert ns.load_game(path).moves == game.moves


@pytest.mark.benchmark(group="load_game .json, expert, per cell")
def test_load_json_expert(benchmark: Any, expert: Played) -> None:
    game, cells, path = expert
    ns.save_game(game, path)
    loaded = benchmark(ns.load_game, path)
    _per_cell(benchmark, cells)
    _same_game(loaded, game)
