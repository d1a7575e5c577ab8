"""Many threads on one game: every action holds the game's lock, so nothing is corrupted."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts

S = ns.GameState


@contextmanager
def busy_switching() -> Iterator[None]:
    """Make the interpreter switch threads very often, to shake out races."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


class Log:
    """What one thread saw: cells its moves uncovered and its successful toggles."""

    def __init__(self) -> None:
        self.cells: list[NDArray[np.intp]] = []
        self.toggles: Counter[tuple[int, int]] = Counter()
        self.errors: Counter[str] = Counter()
        self.snapshots: list[ns.Snapshot] = []


def run_threads(workers: list[Callable[[], None]]) -> None:
    failures: list[BaseException] = []

    def wrap(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except BaseException as exc:  # re-raised in the main thread
                failures.append(exc)

        return run

    threads = [threading.Thread(target=wrap(w)) for w in workers]
    with busy_switching():
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if failures:
        raise failures[0]


def worker(
    game: ns.Game,
    log: Log,
    rng: np.random.Generator,
    start: threading.Barrier,
    steps: int,
    choose: Callable[[np.random.Generator], tuple[str, int, int]],
) -> Callable[[], None]:
    def work() -> None:
        start.wait()
        for _ in range(steps):
            action, r, c = choose(rng)
            try:
                if action == "reveal":
                    log.cells.append(game.reveal(r, c).cells)
                elif action == "chord":
                    log.cells.append(game.chord(r, c).cells)
                elif action == "flag":
                    game.toggle_flag(r, c)
                    log.toggles[(r, c)] += 1
                else:
                    log.snapshots.append(game.snapshot())
            except ns.IllegalMoveError:
                log.errors["illegal"] += 1
            except ns.GameOverError:
                log.errors["over"] += 1
                return

    return work


def check_invariants(game: ns.Game, logs: list[Log]) -> None:
    board = game.board
    assert board is not None
    mines, revealed, flagged = board.mines, board.revealed, board.flagged
    counts = adjacent_counts(mines)
    np.testing.assert_array_equal(board.counts, counts)
    # A mine is never "revealed"; a revealed cell is never flagged.
    assert not (revealed & mines).any()
    assert not (revealed & flagged).any()
    # The O(1) counters agree with the arrays.
    assert board.hidden_safe == int((~revealed & ~mines).sum())
    assert board.flag_count == int(flagged.sum())
    # Each safe cell was uncovered by exactly one move, and every move's
    # cells came back in row-major order.
    uncovered = [cells for log in logs for cells in log.cells if len(cells)]
    for cells in uncovered:
        keys = cells[:, 0] * board.cols + cells[:, 1]
        assert (np.diff(keys) > 0).all()
    every = np.concatenate(uncovered) if uncovered else np.empty((0, 2), dtype=np.intp)
    safe = every[~mines[every[:, 0], every[:, 1]]]
    keys = safe[:, 0] * board.cols + safe[:, 1]
    assert len(np.unique(keys)) == len(keys), "a cell was revealed twice"
    assert set(keys.tolist()) == set(np.flatnonzero(revealed).tolist())
    exploded = every[mines[every[:, 0], every[:, 1]]]
    # A flag is up exactly where the successful toggles were odd.
    toggles: Counter[tuple[int, int]] = Counter()
    for log in logs:
        toggles.update(log.toggles)
    odd = {cell for cell, n in toggles.items() if n % 2}
    assert odd == {(int(r), int(c)) for r, c in np.argwhere(flagged)}
    # The state follows the arrays.
    if len(exploded):
        assert game.state is S.LOST
    elif board.hidden_safe == 0:
        assert game.state is S.WON
    else:
        assert game.state is S.IN_PROGRESS
    # The snapshot shows exactly the arrays.
    snap = game.snapshot()
    assert snap.state is game.state
    assert snap.mines_left == board.mine_count - board.flag_count
    cells = snap.cells
    np.testing.assert_array_equal(cells[revealed], counts[revealed])
    hidden = ~revealed
    if game.state is S.IN_PROGRESS:
        assert (cells[hidden & flagged] == ns.FLAG).all()
        assert (cells[hidden & ~flagged] == ns.HIDDEN).all()
    elif game.state is S.WON:
        assert (cells[mines] == ns.FLAG).all()
    else:
        assert (cells[exploded[:, 0], exploded[:, 1]] == ns.EXPLODED).all()
        assert (cells[flagged & ~mines] == ns.WRONG_FLAG).all()
    # Snapshots taken during the run were each internally consistent.
    for log in logs:
        for old in log.snapshots:
            shown = old.cells >= 0
            assert (shown <= revealed).all()  # what was revealed stays revealed
            np.testing.assert_array_equal(old.cells[shown], counts[shown])
            if old.state is S.IN_PROGRESS:
                flags = int((old.cells == ns.FLAG).sum())
                assert old.mines_left == board.mine_count - flags


def test_many_threads_play_one_big_game_without_losing() -> None:
    # Flags go only on mines and reveals only on safe cells, so the game
    # cannot be lost; every chord is then safe too.
    seeds = np.random.SeedSequence(2026).spawn(9)
    game = ns.Game.new(240, 260, 7000, seed=seeds[0])
    board = game.board
    assert board is not None
    safe_cells = np.argwhere(~board.mines)
    mine_cells = np.argwhere(board.mines)
    near = np.argwhere(board.counts > 0)

    def revealer(rng: np.random.Generator) -> tuple[str, int, int]:
        r, c = safe_cells[rng.integers(len(safe_cells))]
        return "reveal", int(r), int(c)

    def flagger(rng: np.random.Generator) -> tuple[str, int, int]:
        r, c = mine_cells[rng.integers(len(mine_cells))]
        return ("flag" if rng.random() < 0.9 else "snapshot"), int(r), int(c)

    def chorder(rng: np.random.Generator) -> tuple[str, int, int]:
        r, c = near[rng.integers(len(near))]
        return ("chord" if rng.random() < 0.9 else "snapshot"), int(r), int(c)

    roles = [revealer, revealer, revealer, flagger, flagger, chorder, chorder, chorder]
    logs = [Log() for _ in roles]
    start = threading.Barrier(len(roles))
    run_threads(
        [
            worker(game, log, np.random.default_rng(seed), start, 500, role)
            for log, seed, role in zip(logs, seeds[1:], roles, strict=True)
        ]
    )
    assert game.state is not S.LOST
    assert sum(log.errors["illegal"] for log in logs) == 0
    assert sum(len(cells) for log in logs for cells in log.cells) > 1000
    check_invariants(game, logs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_many_threads_doing_anything(seed: int) -> None:
    # Any action on any cell: refused moves, wrong flags, lost games.
    seeds = np.random.SeedSequence(seed).spawn(9)
    game = ns.Game.new(150, 150, 1500, seed=seeds[0])
    board = game.board
    assert board is not None
    safe_cells = np.argwhere(~board.mines)
    mine_cells = np.argwhere(board.mines)

    def anything(rng: np.random.Generator) -> tuple[str, int, int]:
        # Mostly sensible play, so the game lasts, with a dose of nonsense.
        roll = rng.random()
        r, c = int(rng.integers(150)), int(rng.integers(150))
        if roll < 0.45:
            r, c = safe_cells[rng.integers(len(safe_cells))]
            return "reveal", int(r), int(c)
        if roll < 0.452:
            return "reveal", r, c
        if roll < 0.75:
            if rng.random() < 0.8:
                r, c = mine_cells[rng.integers(len(mine_cells))]
            return "flag", int(r), int(c)
        if roll < 0.95:
            return "chord", r, c
        return "snapshot", r, c

    logs = [Log() for _ in range(8)]
    start = threading.Barrier(len(logs))
    run_threads(
        [
            worker(game, log, np.random.default_rng(s), start, 300, anything)
            for log, s in zip(logs, seeds[1:], strict=True)
        ]
    )
    check_invariants(game, logs)


def test_actions_wait_for_the_lock() -> None:
    # While one thread is inside reveal (laying the mines of a first click),
    # another thread's flag must wait, then land on the new board.
    entered, release = threading.Event(), threading.Event()

    class Slow(ns.MinePlacementStrategy):
        def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> Any:
            entered.set()
            assert release.wait(10)
            layout = np.zeros((rows, cols), dtype=bool)
            layout[:, 1] = True  # a wall: the click's flood stays right of it
            return layout

    game = ns.Game.new(4, 4, 4, strategy=Slow(), first_click="safe")
    flagged = threading.Event()
    results: list[Any] = []

    def click() -> None:
        results.append(game.reveal(3, 3))

    def flag() -> None:
        results.append(game.toggle_flag(0, 0))
        flagged.set()

    clicker = threading.Thread(target=click)
    clicker.start()
    assert entered.wait(10)
    flagger = threading.Thread(target=flag)
    flagger.start()
    assert not flagged.wait(0.3), "toggle_flag ran while reveal held the game"
    snapper = threading.Thread(target=lambda: results.append(game.snapshot()))
    snapper.start()
    release.set()
    for t in (clicker, flagger, snapper):
        t.join(10)
    assert flagged.is_set()
    board = game.board
    assert board is not None and board.flagged[0, 0] and board.flag_count == 1
    assert board.mines[:, 1].all() and board.mine_count == 4
    assert board.revealed[:, 2:].all() and not board.revealed[:, :2].any()
    assert game.state is S.IN_PROGRESS
