"""Lock-step games and bulk statistics.

- BatchGame playing expert games with the random policy, against the same
  kind of games played one by one through Game (per-game time is what to
  compare: the one-by-one baseline plays fewer games).
- The ways to flood many boards at once: reachability on packed boards (what
  ``flood_batch`` uses for 64 boards or more, up to 62 columns), one
  ``ndimage.label`` over the stacked boards (what it uses for fewer or
  wider boards), or a windowed ``flood_from`` per board; and the two kernels
  on the five boards of a policy's round.
- ``numsweeper stats``: time and traced peak memory for growing board counts
  (the peak must not grow).
"""

from __future__ import annotations

import contextlib
import io
import tracemalloc

import numpy as np
import pytest

import numsweeper as ns
from conftest import size
from numsweeper import cli
from numsweeper._kernels import _flood_labelled, _flood_packed, flood_batch, flood_from

ROWS, COLS, MINES = ns.PRESETS["expert"]
GAMES = size(10_000, 200)
ONE_BY_ONE = size(500, 20)
POLICY = ns.RandomPolicy()


def play_batch(n: int, seed: int) -> ns.BatchGame:
    """Play ``n`` expert games to the end in lock-step."""
    games = ns.BatchGame.new(n, ROWS, COLS, MINES, seed=seed, first_click="opening")
    rng = np.random.default_rng(seed)
    rows = np.zeros(n, dtype=np.intp)
    cols = np.zeros(n, dtype=np.intp)
    while True:
        moving = games.in_progress
        live = np.flatnonzero(moving)
        if not live.size:
            return games
        cells = POLICY(games.visible_of(live), games.mines_left[live], rng)
        rows[live], cols[live] = cells[:, 0], cells[:, 1]
        games.reveal(rows, cols, active=moving)


def play_one_by_one(n: int, seed: int) -> list[ns.Game]:
    """Play ``n`` expert games to the end, one Game at a time.

    The same policy (a uniform hidden cell), written the cheap scalar way a
    one-game loop would: no batch machinery is charged to the baseline.
    """
    rng = np.random.default_rng(seed)
    played = []
    for child in np.random.SeedSequence(seed).spawn(n):
        game = ns.Game.new(ROWS, COLS, MINES, seed=child, first_click="opening")
        while game.state is ns.GameState.IN_PROGRESS:
            hidden = np.flatnonzero(game.snapshot().cells.ravel() == ns.HIDDEN)
            r, c = divmod(int(hidden[rng.integers(hidden.size)]), COLS)
            game.reveal(r, c)
        played.append(game)
    return played


def _per_game(benchmark, games: int) -> None:
    if benchmark.stats is not None:  # None under --benchmark-disable
        stats = benchmark.stats.stats
        benchmark.extra_info["us_per_game_min"] = round(1e6 * stats.min / games, 1)
        benchmark.extra_info["us_per_game_median"] = round(1e6 * stats.median / games, 1)


@pytest.mark.benchmark(group="play expert games, random policy (compare us_per_game)")
def test_batchgame_random_policy(benchmark) -> None:
    games = benchmark.pedantic(play_batch, args=(GAMES, 1), rounds=5, warmup_rounds=1)
    assert not games.in_progress.any()
    _per_game(benchmark, GAMES)


@pytest.mark.benchmark(group="play expert games, random policy (compare us_per_game)")
def test_game_one_by_one_random_policy(benchmark) -> None:
    played = benchmark.pedantic(play_one_by_one, args=(ONE_BY_ONE, 1), rounds=3)
    assert all(g.state is not ns.GameState.IN_PROGRESS for g in played)
    _per_game(benchmark, ONE_BY_ONE)


# --- flooding many boards: stacked label vs a windowed flood per board ---------


@pytest.fixture(scope="module")
def first_clicks() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Expert boards with an opening first click, the click's cells and open mask."""
    rng = np.random.default_rng(5)
    clicks = np.stack([rng.integers(0, ROWS, GAMES), rng.integers(0, COLS, GAMES)], axis=1)
    boards = ns.generate_boards(
        GAMES, ROWS, COLS, MINES, seed=rng, first_click="opening", click=clicks
    )
    return np.asarray(boards.counts), ~boards.mines, clicks[:, 0], clicks[:, 1]


@pytest.mark.benchmark(group="flood the first click of 10,000 expert boards")
def test_flood_packed(benchmark, first_clicks) -> None:
    counts, open_, rows, cols = first_clicks
    games = np.arange(len(rows))
    region = benchmark(_flood_packed, counts, open_, games, rows, cols)
    assert region[games, rows, cols].all()


@pytest.mark.benchmark(group="flood the first click of 10,000 expert boards")
def test_flood_stacked_label(benchmark, first_clicks) -> None:
    counts, open_, rows, cols = first_clicks
    games = np.arange(len(rows))
    region = benchmark(_flood_labelled, counts, open_, games, rows, cols)
    assert region[games, rows, cols].all()


def _first(first_clicks, n: int):
    """``n`` of those boards: as many as a round of games may flood."""
    counts, open_, rows, cols = first_clicks
    return counts[:n], open_[:n], np.arange(n), rows[:n], cols[:n]


@pytest.mark.parametrize("n", [1, 5, 50, 100])
@pytest.mark.parametrize(
    ("kernel", "other"),
    [(_flood_packed, _flood_labelled), (_flood_labelled, _flood_packed)],
    ids=["packed", "labelled"],
)
def test_flood_few(benchmark, first_clicks, n, kernel, other) -> None:
    # flood_batch labels below 64 boards: the two kernels side by side
    benchmark.group = f"flood {n} expert boards"
    few = _first(first_clicks, n)
    region = benchmark(kernel, *few)
    np.testing.assert_array_equal(region, other(*few))


@pytest.mark.benchmark(group="flood the first click of 10,000 expert boards")
def test_flood_windowed_per_board(benchmark, first_clicks) -> None:
    counts, open_, rows, cols = first_clicks
    mines = ~open_

    def per_board() -> int:
        total = 0
        for i in range(len(rows)):
            _, mask = flood_from(counts[i], (mines[i],), int(rows[i]), int(cols[i]))
            total += int(np.count_nonzero(mask))
        return total

    stacked = flood_batch(counts, open_, np.arange(len(rows)), rows, cols)
    assert benchmark.pedantic(per_board, rounds=3) == int(np.count_nonzero(stacked))


# --- numsweeper stats: time and memory ------------------------------------------


@pytest.mark.parametrize("boards", [size(100_000, 2_000), size(1_000_000, 4_000)])
@pytest.mark.benchmark(group="numsweeper stats, expert (peak memory must not grow)")
def test_stats_command(benchmark, boards: int) -> None:
    argv = ["stats", "--boards", str(boards), "--seed", "1", "--no-progress"]

    def run() -> int:
        with contextlib.redirect_stdout(io.StringIO()):
            return cli.main(argv)

    tracemalloc.start()
    try:
        assert benchmark.pedantic(run, rounds=1) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    benchmark.extra_info["traced_peak_mb"] = round(peak / 2**20, 1)
