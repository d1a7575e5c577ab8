"""ns.simulate: reproducible records, policies, executors, interruption."""

from __future__ import annotations

import csv
import dataclasses
import math
import sys
import time
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts, three_bv_solved
from numsweeper.metrics import three_bv
from numsweeper.simulate import RECORD_DTYPE


def first_hidden(
    visible: NDArray[np.int8], mines_left: NDArray[np.int64], rng: np.random.Generator
) -> NDArray[np.intp]:
    """A deterministic policy: the first hidden cell in raster order."""
    k, _, cols = visible.shape
    flat = (visible == ns.HIDDEN).reshape(k, -1).argmax(axis=1)
    return np.stack(np.divmod(flat, cols), axis=1)


class StopAfter:
    """The random policy, until Ctrl-C arrives on call number ``calls``.

    The countdown is a class attribute, like a clock outside the policy:
    ``simulate`` gives every chunk its own copy of the policy object.
    """

    remaining = 0

    def __init__(self, calls: int) -> None:
        StopAfter.remaining = calls
        self.inner = ns.RandomPolicy()

    def __call__(self, visible: Any, mines_left: Any, rng: np.random.Generator) -> Any:
        StopAfter.remaining -= 1
        if StopAfter.remaining < 0:
            raise KeyboardInterrupt
        return self.inner(visible, mines_left, rng)


class StopInsideKernel(StopAfter):
    """As StopAfter, but the Ctrl-C lands inside a compiled kernel's callback.

    numba then raises ``SystemError: ... returned a result with an exception
    set``, caused (through one more SystemError) by the KeyboardInterrupt.
    """

    def __call__(self, visible: Any, mines_left: Any, rng: np.random.Generator) -> Any:
        try:
            return super().__call__(visible, mines_left, rng)
        except KeyboardInterrupt as stop:
            inner = SystemError("<function _numba_unpickle> returned a result with an exception")
            inner.__cause__ = stop
            outer = SystemError("CPUDispatcher(<function count_component>) returned a result")
            raise outer from inner


class Counting:
    """A policy whose moves depend on how often it was called before."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, visible: Any, mines_left: Any, rng: np.random.Generator) -> Any:
        self.calls += 1
        k, _, cols = visible.shape
        hidden = (visible == ns.HIDDEN).reshape(k, -1)
        # the (calls % 3)-th hidden cell in raster order, or the last one
        rank = np.minimum(self.calls % 3, hidden.sum(axis=1) - 1)
        flat = np.array([np.flatnonzero(h)[r] for h, r in zip(hidden, rank, strict=True)])
        return np.stack(np.divmod(flat, cols), axis=1)


def solved_reference(mines: NDArray[np.bool_], revealed: NDArray[np.bool_]) -> int:
    """Plain-Python 3BV solved: BFS over openings, then isolated numbers."""
    rows, cols = mines.shape
    counts = adjacent_counts(mines)

    def neighbours(r: int, c: int) -> list[tuple[int, int]]:
        return [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
        ]

    def is_zero(r: int, c: int) -> bool:
        return not mines[r, c] and counts[r, c] == 0

    seen: set[tuple[int, int]] = set()
    solved = 0
    for r in range(rows):
        for c in range(cols):
            if is_zero(r, c) and (r, c) not in seen:
                touched = False
                queue = deque([(r, c)])
                seen.add((r, c))
                while queue:
                    cell = queue.popleft()
                    touched |= bool(revealed[cell])
                    for nb in neighbours(*cell):
                        if is_zero(*nb) and nb not in seen:
                            seen.add(nb)
                            queue.append(nb)
                solved += touched
            elif not mines[r, c] and revealed[r, c] and not is_zero(r, c):
                solved += not any(is_zero(*nb) for nb in neighbours(r, c))
    return solved


def test_three_bv_solved_matches_reference() -> None:
    rng = np.random.default_rng(0)
    # Up to 62 columns the packed path runs, beyond it the labelled one.
    for rows, cols, mines in [(5, 6, 4), (9, 9, 10), (8, 12, 30), (1, 9, 2), (4, 70, 20)]:
        boards = ns.generate_boards(150, rows, cols, mines, seed=rng).mines
        revealed = (rng.random(boards.shape) < rng.random((150, 1, 1))) & ~boards
        got = three_bv_solved(boards, adjacent_counts(boards), revealed)
        assert got.tolist() == [
            solved_reference(m, v) for m, v in zip(boards, revealed, strict=True)
        ]
        everything = three_bv_solved(boards, adjacent_counts(boards), ~boards)
        assert everything.tolist() == three_bv(boards).tolist()


def test_records_match_games_played_one_by_one() -> None:
    games, chunk_size, seed = 120, 50, 9
    result = ns.simulate(
        games, 8, 8, 10, policy=first_hidden, first_click=None, seed=seed, chunk_size=chunk_size
    )
    assert result.records["game"].tolist() == list(range(games))
    # Documented seeding: chunk i's boards come from child 0 of root child i.
    children = np.random.SeedSequence(seed).spawn(3)
    for chunk, child in enumerate(children):
        size = min(chunk_size, games - chunk * chunk_size)
        boards = ns.generate_boards(size, 8, 8, 10, seed=child.spawn(2)[0]).mines
        for j, layout in enumerate(boards):
            record = result.records[chunk * chunk_size + j]
            game = ns.Game(ns.Board(layout))
            clicks = 0
            while game.state is ns.GameState.IN_PROGRESS:
                cells = game.snapshot().cells
                ((r, c),) = first_hidden(
                    cells[None], np.zeros(1, np.int64), np.random.default_rng()
                )
                game.reveal(int(r), int(c))
                clicks += 1
            board = game.board
            assert board is not None
            assert record["chunk"] == chunk
            assert record["won"] == (game.state is ns.GameState.WON)
            assert record["clicks"] == clicks
            # A lost game shows the mine it hit as revealed; records count safe cells.
            assert record["revealed"] == int((board.revealed & ~layout).sum())
            assert record["three_bv"] == three_bv(layout)
            assert record["three_bv_solved"] == solved_reference(layout, board.revealed)


def test_same_records_for_any_executor() -> None:
    args = (600, 6, 6, 3)
    kw: dict[str, Any] = {"seed": 2024, "chunk_size": 70}
    serial = ns.simulate(*args, **kw)
    with ThreadPoolExecutor(3) as pool:
        threaded = ns.simulate(*args, executor=pool, **kw)
    pooled = ns.simulate(*args, workers=2, **kw)
    for other in (threaded, pooled):
        assert other.records.tobytes() == serial.records.tobytes()
        assert other.seed == serial.seed == 2024
    assert serial.records["won"].any()
    different = ns.simulate(*args, seed=2025, chunk_size=70)
    assert different.records.tobytes() != serial.records.tobytes()


def test_seed_none_is_recorded_and_repeats() -> None:
    first = ns.simulate(200, 9, 9, 10)
    assert isinstance(first.seed, int)
    again = ns.simulate(200, 9, 9, 10, seed=first.seed)
    assert again.records.tobytes() == first.records.tobytes()
    spawned = np.random.SeedSequence(5).spawn(2)[1]
    run = ns.simulate(200, 9, 9, 10, seed=spawned)
    assert run.spawn_key == (1,)
    repeat = ns.simulate(200, 9, 9, 10, seed=np.random.SeedSequence(run.seed, spawn_key=(1,)))
    assert repeat.records.tobytes() == run.records.tobytes()
    assert "spawn_key=(1,)" in run.summary()
    # A Generator is accepted and advanced, as everywhere else.
    gen = np.random.default_rng(3)
    assert ns.simulate(10, 9, 9, 10, seed=gen).seed != ns.simulate(10, 9, 9, 10, seed=gen).seed


@pytest.mark.parametrize("first_click", ["opening", "safe", None])
def test_records_are_consistent(first_click: str | None) -> None:
    result = ns.simulate(3000, 6, 6, 3, first_click=first_click, seed=1)
    rec = result.records
    won = rec["won"]
    assert won.any() and not won.all()
    assert (rec["revealed"][won] == 33).all()
    assert (rec["three_bv_solved"][won] == rec["three_bv"][won]).all()
    assert (rec["three_bv_solved"] <= rec["three_bv"]).all()
    assert (rec["clicks"] >= 1).all()
    if first_click == "opening":
        assert (rec["revealed"] >= 4).all()  # a corner click opens at least 2x2
    if first_click is None:  # the first click can be a mine
        assert (rec["revealed"] == 0).any()
    else:
        assert (rec["revealed"] >= 1).all()
    low, high = result.win_rate_ci
    assert low <= result.win_rate <= high


def test_first_click_only_stops_after_one_reveal() -> None:
    result = ns.simulate(500, 16, 30, 99, policy="first_click_only", seed=0)
    assert (result.records["clicks"] == 1).all()
    assert (result.records["three_bv_solved"] >= 1).all()
    assert result.policy == "first_click_only"


def test_wilson_interval_known_values() -> None:
    def result(wins: int, games: int) -> ns.SimulationResult:
        records = np.zeros(games, dtype=RECORD_DTYPE)
        records["won"][:wins] = True
        return ns.SimulationResult(records, 9, 9, 10, None, "x", 0, (), 1, games, 1.0)

    low, high = result(50, 100).win_rate_ci
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = result(0, 10).win_rate_ci
    assert (low, round(high, 4)) == (0.0, 0.2775)
    low, high = result(10, 10).win_rate_ci
    assert (round(low, 4), high) == (0.7225, 1.0)
    assert result(0, 0).win_rate_ci == (0.0, 1.0)
    # Tiny upper bounds keep two significant digits instead of rounding to 0.
    assert "win rate     0.00% (95% CI 0.00% to 0.0042%)" in result(0, 92_000).summary()
    assert "(95% CI 40.38% to 59.62%)" in result(50, 100).summary()
    assert math.isnan(result(0, 0).win_rate)


def test_ctrl_c_inside_a_compiled_kernel_is_still_an_interrupt() -> None:
    full = ns.simulate(1000, 9, 9, 10, seed=4, chunk_size=100)
    stopped = ns.simulate(1000, 9, 9, 10, policy=StopInsideKernel(25), seed=4, chunk_size=100)
    assert stopped.interrupted and 0 < stopped.games < 1000
    assert stopped.records.tobytes() == full.records[stopped.records["game"]].tobytes()


def test_other_system_errors_still_raise() -> None:
    class Broken:
        def __call__(self, visible: Any, mines_left: Any, rng: Any) -> Any:
            raise SystemError("a real bug") from ValueError("not a Ctrl-C")

    with pytest.raises(SystemError, match="a real bug"):
        ns.simulate(10, 9, 9, 10, policy=Broken(), seed=0)


def test_ctrl_c_keeps_finished_chunks() -> None:
    full = ns.simulate(1000, 9, 9, 10, seed=4, chunk_size=100)
    stopped = ns.simulate(1000, 9, 9, 10, policy=StopAfter(25), seed=4, chunk_size=100)
    assert stopped.interrupted and not full.interrupted
    # Whole chunks, and the games of the interrupted chunk that had finished
    # before the round it stopped in: each exactly as in the full run.
    assert 0 < stopped.games < 1000 and stopped.games % 100 != 0
    games = stopped.records["game"]
    assert (np.diff(games) > 0).all()
    whole = games[: (stopped.games // 100) * 100]
    assert (whole == np.arange(whole.size)).all()
    assert stopped.records.tobytes() == full.records[games].tobytes()
    summary = stopped.summary()
    assert f"games        {stopped.games} of 1000 (interrupted)" in summary
    # no confidence interval: the games kept are those that ended first
    rate = f"{100 * stopped.win_rate:.2f}% of the games that finished\n"
    assert f"win rate     {rate}" in summary and "CI" not in summary
    assert "note         an interrupted run keeps the games that ended first" in summary
    assert "note" not in full.summary() and "95% CI" in full.summary()
    with ThreadPoolExecutor(1) as pool:
        threaded = ns.simulate(
            1000, 9, 9, 10, policy=StopAfter(25), seed=4, chunk_size=100, executor=pool
        )
    assert threaded.interrupted
    assert threaded.records.tobytes() == stopped.records.tobytes()


def test_progress_bar_and_its_missing_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ns.simulate(300, 9, 9, 10, seed=0, chunk_size=100, progress=True)
    err = capsys.readouterr().err
    assert "300/300" in err
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(ImportError, match=r"pip install 'numsweeper\[progress\]'"):
        ns.simulate(10, 9, 9, 10, progress=True)


def test_solver_policy_without_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numsweeper.solver", None)
    with pytest.raises(ImportError, match=r"needs numsweeper\.solver"):
        ns.simulate(10, 9, 9, 10, policy="solver")


def test_solver_policy_is_built_with_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    rules: list[str | None] = []

    class FakeSolver(ns.RandomPolicy):
        def __init__(self, *, first_click: str | None) -> None:
            rules.append(first_click)

    module = type(sys)("numsweeper.solver")
    module.SolverPolicy = FakeSolver  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numsweeper.solver", module)
    result = ns.simulate(20, 9, 9, 10, policy="solver", first_click="safe", seed=0)
    assert result.policy == "solver" and result.games == 20
    assert set(rules) == {"safe"}


def test_bad_policies_are_reported() -> None:
    def revealed_cell(visible: Any, mines_left: Any, rng: Any) -> Any:
        return np.zeros((len(visible), 2), dtype=int)

    def wrong_shape(visible: Any, mines_left: Any, rng: Any) -> Any:
        return np.zeros((len(visible), 3), dtype=int)

    def off_board(visible: Any, mines_left: Any, rng: Any) -> Any:
        return np.full((len(visible), 2), 9)

    with pytest.raises(
        ns.InvalidBoardError, match=r"policy 'revealed_cell' chose \(0, 0\) in game \d+"
    ):
        ns.simulate(50, 9, 9, 10, policy=revealed_cell, first_click="opening", seed=0)
    with pytest.raises(ns.InvalidBoardError, match=r"shape \(5, 2\), got int64 \(5, 3\)"):
        ns.simulate(5, 9, 9, 10, policy=wrong_shape)
    with pytest.raises(ns.InvalidBoardError, match=r"chose \(9, 9\)"):
        ns.simulate(5, 9, 9, 10, policy=off_board)


def test_the_idle_workers_note_names_a_chunk_size_that_works() -> None:
    import re as regex

    from numsweeper._runner import idle_workers

    for workers in range(2, 9):
        for total in range(1, 60):
            for chunk in (1, 2, 3, 7, 2000):
                note = idle_workers(workers, total, chunk, "game", command_line=False)
                chunks = -(-total // chunk)
                assert (note is None) == (chunks >= workers)
                if note is None:
                    continue
                found = regex.search(r"chunk_size=(\d+) would give", note)
                if total >= workers:  # the size it names gives every worker a chunk
                    assert found and -(-total // int(found[1])) >= workers, note
                else:  # no size can: it says how many workers are enough
                    assert not found and note.endswith(f"busy: workers={total}"), note
    assert idle_workers(4, 3, 2000, "game", command_line=True) == (
        "4 workers but 1 chunk of up to 2,000 games, so 3 workers will have nothing to do; "
        "3 games can keep at most 3 busy: --workers 3"
    )
    for many in (1025, 10**5000):  # (multiprocessing failed deep inside)
        with pytest.raises(ns.InvalidBoardError, match=r"workers must be at most 1,024, got"):
            ns.simulate(1, 5, 5, 3, seed=0, workers=many)
        with pytest.raises(ns.InvalidBoardError, match=r"workers must be at most 1,024, got"):
            ns.generate_boards(1, 5, 5, 3, seed=0, workers=many)


def test_a_run_of_absurdly_many_chunks_is_refused_before_it_makes_them() -> None:
    # every chunk's task and seed are made up front: 2**40 of them ran out of memory
    with pytest.raises(
        ns.InvalidBoardError,
        match=r"^1099511627776 games in chunks of 1 make 1099511627776 chunks, more than "
        r"1,000,000: use a larger chunk size",
    ):
        ns.simulate(2**40, 5, 5, 3, seed=0, chunk_size=1)
    with pytest.raises(ns.InvalidBoardError, match=r"an integer of 16,610 bits games"):
        ns.simulate(10**5000, 5, 5, 3, seed=0)
    assert ns.simulate(10, 5, 5, 3, seed=0, chunk_size=1).games == 10


def test_more_workers_than_chunks_is_a_warning_that_names_the_fix() -> None:
    with pytest.warns(
        ns.IdleWorkersWarning,
        match=r"^3 workers but 2 chunks of up to 20 games, so 1 worker will have nothing to "
        r"do; chunk_size=10 would give each a share \(the games depend on the chunk size",
    ):
        idle = ns.simulate(30, 9, 9, 10, seed=1, workers=3, chunk_size=20)
    alone = ns.simulate(30, 9, 9, 10, seed=1, chunk_size=20)
    assert idle.records.tobytes() == alone.records.tobytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of these warn
        ns.simulate(30, 9, 9, 10, seed=1, workers=2, chunk_size=15)
        ns.simulate(0, 9, 9, 10, seed=1, workers=2)
        with ThreadPoolExecutor(3) as pool:  # (an executor's size is its own business)
            ns.simulate(30, 9, 9, 10, seed=1, executor=pool)


class _StringLimit:
    max_clicks = "3"

    def __call__(self, visible: Any, mines_left: Any, rng: Any) -> Any:
        return first_hidden(visible, mines_left, rng)


class _Explains:
    def __init__(self, said: Any) -> None:
        self.said = said

    def __call__(self, visible: Any, mines_left: Any, rng: Any) -> Any:
        self.k = len(visible)
        return first_hidden(visible, mines_left, rng)

    def explain(self) -> Any:
        return self.said(self.k) if callable(self.said) else self.said


def _ragged(visible: Any, mines_left: Any, rng: Any) -> Any:
    return [[0, 0]] * (len(visible) - 1) + [[0]]


def test_what_a_policy_or_an_executor_gets_wrong_is_ours_and_named() -> None:
    # each leaked a bare AttributeError, ValueError or numpy UFuncTypeError
    with pytest.raises(ns.InvalidTypeError, match=r"executor must be a concurrent.futures"):
        ns.simulate(2, 5, 5, 3, seed=0, executor=object())
    with pytest.raises(ns.InvalidBoardError, match=r"the cells of policy '_ragged' must be an int"):
        ns.simulate(2, 5, 5, 3, seed=0, policy=_ragged)
    with pytest.raises(ns.InvalidTypeError, match=r"the policy's max_clicks must be an integer"):
        ns.simulate(2, 5, 5, 3, seed=0, policy=_StringLimit())
    none = _StringLimit()
    none.max_clicks = 0  # type: ignore[assignment]  # (allowed: games end before a click)
    assert ns.simulate(2, 5, 5, 3, seed=0, policy=none).records["clicks"].tolist() == [0, 0]
    none.max_clicks = -1  # type: ignore[assignment]
    with pytest.raises(ns.InvalidBoardError, match=r"max_clicks must be >= 0, got -1"):
        ns.simulate(2, 5, 5, 3, seed=0, policy=none)
    bad = [
        ("abc", ns.InvalidTypeError, r"must return \(probabilities, guesses\), got 'abc'"),
        (([0.5], [True]), ns.InvalidBoardError, r"must give 2 probabilities and 2 guesses"),
        ((["x", "y"], [1, 1]), ns.InvalidTypeError, r"probabilities must be numbers, got \['x'"),
        (([0.5, 0.5], ["y", "n"]), ns.InvalidTypeError, r"guesses must be bools, got \['y'"),
        (([5.0, -1], [1, 0]), ns.InvalidBoardError, r"probabilities in 0..1 .* got \[5.0, -1\]"),
        (([0.5, 0.5], [7, -3]), ns.InvalidBoardError, r"0 or 1, got \[0.5, 0.5\] and \[7, -3\]"),
    ]
    for said, error, message in bad:
        with pytest.raises(error, match=message):
            ns.simulate(2, 5, 5, 3, seed=0, policy=_Explains(said), trace=True, first_click=None)
    # None is an unknown probability (NaN), and 1.0 a guess, as they always were
    unknown = _Explains(lambda k: ([None] * k, [1.0] * k))
    run = ns.simulate(1, 5, 5, 3, seed=0, policy=unknown, trace=True, first_click=None)
    assert run.moves is not None and np.isnan(run.moves["probability"]).all()
    assert run.moves["guess"].all()
    fine = _Explains(lambda k: ([0.25] * k, [1] * k))  # lists, and 0/1 for the guesses
    run = ns.simulate(2, 5, 5, 3, seed=0, policy=fine, trace=True, first_click=None)
    assert run.moves is not None and (run.moves["guess"] == 1).all()
    assert np.allclose(run.moves["probability"], 0.25)


def test_a_policy_class_or_a_rule_the_games_lack_is_refused_up_front() -> None:
    from numsweeper.solver import SolverPolicy

    with pytest.raises(
        ns.InvalidTypeError, match=r"got the class SolverPolicy; pass an instance, such as"
    ):
        ns.simulate(10, 9, 9, 10, policy=SolverPolicy, workers=2, chunk_size=5)
    with pytest.raises(ns.InvalidTypeError, match=r"got the class RandomPolicy"):
        ns.simulate(10, 9, 9, 10, policy=ns.RandomPolicy)
    # A solver made for 'opening' would call its first click certainly safe
    # in games that do not protect it.
    for rule in ("safe", "opening"):
        with pytest.raises(
            ns.InvalidBoardError,
            match=rf"the policy assumes first_click='{rule}', but these games have no "
            rf"first-click rule; pass first_click='{rule}'",
        ):
            ns.simulate(5, 9, 9, 10, policy=SolverPolicy(rule), first_click=None, seed=5)
    # A policy that assumes less than the games give is allowed.
    run = ns.simulate(5, 9, 9, 10, policy=SolverPolicy(None), first_click="safe", seed=5)
    assert run.games == 5
    run = ns.simulate(5, 9, 9, 10, policy=SolverPolicy("safe"), first_click="opening", seed=5)
    assert run.games == 5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"games": -1}, ns.InvalidBoardError, "games must be >= 0, got -1"),
        ({"games": 2.5}, ns.InvalidTypeError, "games must be an integer, got 2.5"),
        ({"mines": 81}, ns.InvalidBoardError, "mines must be in"),
        (
            {"mines": 73},
            ns.InvalidBoardError,
            r"mines must be in 0\.\.72 for a 9x9 board with first_click='opening'",
        ),
        ({"workers": 0}, ns.InvalidBoardError, "workers must be >= 1, got 0"),
        ({"chunk_size": 0}, ns.InvalidBoardError, "chunk_size must be >= 1, got 0"),
        ({"chunk_size": "10"}, ns.InvalidTypeError, "chunk_size must be an integer, got '10'"),
        ({"policy": "greedy"}, ns.InvalidBoardError, "unknown policy 'greedy'"),
        ({"policy": 3}, ns.InvalidTypeError, "policy must be a name or a callable, got 3"),
        ({"first_click": "corner"}, ns.InvalidBoardError, "first_click must be .*'corner'"),
        (
            {"workers": 2, "executor": ThreadPoolExecutor(1)},
            ns.InvalidTypeError,
            "not both: got workers=2",
        ),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    args = {"games": 10, "rows": 9, "cols": 9, "mines": 10} | kwargs
    with pytest.raises(error, match=match):
        ns.simulate(**args)
    executor = kwargs.get("executor")
    if executor is not None:
        executor.shutdown()


def test_no_games_and_csv(tmp_path: Path) -> None:
    empty = ns.simulate(0, 9, 9, 10, seed=0)
    assert empty.games == 0 and empty.records.dtype.names is not None
    assert "games        0" in empty.summary()
    assert "nan" not in empty.summary()
    assert "win rate     n/a\nmean 3BV     n/a\nmean clicks  n/a\n" in empty.summary()
    result = ns.simulate(30, 9, 9, 10, seed=0)
    path = tmp_path / "runs.csv"
    result.to_csv(path)
    with open(path, newline="") as handle:
        lines = handle.readlines()
    meta = [line for line in lines if line.startswith("# ")]
    rows = list(csv.reader(line for line in lines if not line.startswith("#")))
    assert "# seed: 0\n" in meta and '# policy: "random"\n' in meta
    assert rows[0] == list(result.records.dtype.names or ())
    assert len(rows) == 31
    assert [int(v) for v in rows[5]] == [int(v) for v in result.records[4].tolist()]
    assert repr(result).startswith("<SimulationResult 30 games 9x9/10, policy='random'")


def test_each_chunk_gets_its_own_copy_of_a_stateful_policy() -> None:
    policy = Counting()
    one = ns.simulate(300, 6, 6, 5, policy=policy, seed=8, chunk_size=50)
    two = ns.simulate(300, 6, 6, 5, policy=policy, seed=8, chunk_size=50, workers=2)
    assert np.array_equal(one.records, two.records)
    assert policy.calls == 0  # the caller's object is never played
    # a chunk replayed alone matches its place in the full run
    alone = ns.simulate(50, 6, 6, 5, policy=Counting(), seed=8, chunk_size=50)
    assert np.array_equal(alone.records[["won", "clicks"]], one.records[:50][["won", "clicks"]])


def _matches(game: ns.Game, record: np.void) -> bool:
    """A replayed game ends as its record says: outcome, cells revealed, 3BV."""
    assert game.board is not None
    revealed = int((game.snapshot().cells >= 0).sum())
    return (
        (game.state is ns.GameState.WON) == bool(record["won"])
        and revealed == int(record["revealed"])
        and int(three_bv(game.board.mines)) == int(record["three_bv"])
    )


def test_replay_gives_back_each_game_as_the_run_ended_it() -> None:
    result = ns.simulate(200, 9, 9, 10, first_click="safe", seed=7, chunk_size=30, workers=2)
    rec = result.records
    picks = {0, 29, 30, 199}
    picks |= set(rec["game"][rec["won"]][:3].tolist()) | set(rec["game"][~rec["won"]][:3].tolist())
    for i in sorted(picks):
        game = result.replay(i)
        assert _matches(game, rec[i]), i
    # games in one chunk are not interchangeable
    assert not all(_matches(result.replay(1), rec[i]) for i in (2, 3, 4))


def test_replay_a_run_with_an_unusual_root_or_a_callable_named_like_a_policy() -> None:
    root = np.random.SeedSequence(3, pool_size=8)
    result = ns.simulate(20, 9, 9, 10, seed=root, chunk_size=7)
    assert result.pool_size == 8 and "pool_size=8" in result.summary()
    for i in (0, 13, 19):
        assert _matches(result.replay(i), result.records[i])

    def random(visible: Any, mines_left: Any, rng: np.random.Generator) -> Any:
        return ns.FirstClickOnlyPolicy()(visible, mines_left, rng)

    named = ns.simulate(20, 9, 9, 10, policy=random, seed=1, chunk_size=7)
    assert named.policy == "random" and not named.policy_is_name
    with pytest.raises(ns.InvalidTypeError, match="'random' was a callable: pass it to replay"):
        named.replay(0)
    assert _matches(named.replay(5, random), named.records[5])


def test_replay_a_solver_game_and_a_used_seed_sequence() -> None:
    from numsweeper.solver import SolverPolicy

    root = np.random.SeedSequence(9)
    root.spawn(2)  # used before: the run's chunks are its children 2, 3, ...
    policy = SolverPolicy("opening")
    result = ns.simulate(12, 16, 16, 40, policy=policy, first_click="opening", seed=root,
                         chunk_size=5)  # fmt: skip
    assert result.first_child == 2 and "n_children_spawned=2" in result.summary()
    for i in (0, 7, 11):
        assert _matches(result.replay(i, policy), result.records[i])
    with pytest.raises(
        ns.InvalidTypeError, match="'SolverPolicy' was a callable: pass it to replay"
    ):
        result.replay(0)


def test_replay_refuses_a_missing_game_or_another_policy() -> None:
    result = ns.simulate(40, 9, 9, 10, seed=3, chunk_size=10)
    before = result.records.tobytes()
    for bad in (-1, 40, 10**9):
        with pytest.raises(
            ns.OutOfBoundsError, match=rf"game {bad} is not in this run's records \(games 0\.\.39\)"
        ):
            result.replay(bad)
    with pytest.raises(ns.InvalidTypeError, match=r"game must be an integer, got 1\.0"):
        result.replay(1.0)  # type: ignore[arg-type]
    rec = result.records
    longer = int(rec["game"][rec["clicks"] > 1][0])
    with pytest.raises(
        ns.InvalidBoardError, match=f"game {longer} did not replay as recorded: .*clicks 1"
    ):
        result.replay(longer, "first_click_only")
    with pytest.raises(ns.InvalidBoardError, match="unknown policy 'nope'; choose one of"):
        result.replay(3, "nope")
    with pytest.raises(ns.InvalidTypeError, match="policy must be a name or a callable, got 5"):
        result.replay(3, 5)  # type: ignore[arg-type]
    assert result.records.tobytes() == before  # a refused replay changes nothing
    with pytest.raises(
        ns.OutOfBoundsError, match=r"game 0 is not in this run's records \(no games\)"
    ):
        ns.simulate(0, 9, 9, 10, seed=0).replay(0)
    # a single-click policy on other boards: caught by what it revealed and the 3BV
    once = ns.simulate(10, 9, 9, 10, policy="first_click_only", seed=3)
    other = dataclasses.replace(once, seed=999)
    with pytest.raises(
        ns.InvalidBoardError, match=r"did not replay as recorded: .*(revealed|three_bv)"
    ):
        for i in range(10):
            other.replay(i)
    stopped = ns.simulate(1000, 9, 9, 10, policy=StopAfter(25), seed=4, chunk_size=100)
    with pytest.raises(
        ns.OutOfBoundsError,
        match=rf"game 999 .*\(games 0\.\.999, {stopped.games:,} games kept: interrupted\)",
    ):
        stopped.replay(999, ns.RandomPolicy())


def test_simulate_takes_a_strategy_and_stays_reproducible() -> None:
    fixed = ns.FixedPlacement([(0, 0), (0, 1), (5, 5)])
    result = ns.simulate(40, 6, 6, 3, strategy=fixed, first_click=None, seed=1, chunk_size=10)
    assert result.strategy == "FixedPlacement"
    assert (result.records["three_bv"] == ns.metrics.three_bv(fixed.place(6, 6, 3))).all()
    random = ns.RandomPlacement(seed=99)  # its own seed is replaced per chunk
    one = ns.simulate(300, 9, 9, 10, strategy=random, seed=4, chunk_size=50)
    two = ns.simulate(300, 9, 9, 10, strategy=random, seed=4, chunk_size=50, workers=2)
    default = ns.simulate(300, 9, 9, 10, seed=4, chunk_size=50)
    assert (one.records == two.records).all()
    # RandomPlacement reseeded by each chunk's board seed is the default.
    assert (one.records == default.records).all()
    lost = int(one.records["game"][~one.records["won"]][0])
    with pytest.raises(ns.InvalidTypeError, match="laid its mines with RandomPlacement: pass that"):
        one.replay(lost)
    assert one.replay(lost, strategy=random).state is ns.GameState.LOST
    with pytest.raises(TypeError, match="MinePlacementStrategy"):
        ns.simulate(10, 9, 9, 10, strategy="uniform")  # type: ignore[arg-type]


def test_a_policy_that_cannot_reach_workers_is_named_with_the_fix() -> None:
    def local(visible: Any, mines_left: Any, rng: Any) -> Any:
        return first_hidden(visible, mines_left, rng)

    for policy in (lambda v, m, r: first_hidden(v, m, r), local):
        with pytest.raises(
            ns.InvalidTypeError,
            match=r"'(<lambda>|local)' cannot be sent to worker processes.*top level",
        ):
            ns.simulate(10, 9, 9, 10, policy=policy, workers=2)
    assert ns.simulate(10, 9, 9, 10, policy=local, seed=1).games == 10  # fine in-process


def test_counts_are_formatted_the_same_everywhere() -> None:
    game = ns.Game.new(600, 900, 81_000, seed=0)
    assert repr(game) == "<Game 600x900, 81,000 mines, IN_PROGRESS, first_click=None>"
    assert "81,000 mines" in ns.simulate(2, 600, 900, 81_000, seed=0).summary()


def test_building_the_solver_counts_as_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first solver run after an install compiles its kernels while the
    # policy is built: that time is start-up, reported apart from games/s.
    module = sys.modules["numsweeper.simulate"]  # (ns.simulate is the function)
    checked = module._check_policy

    def slow(policy: Any, first_click: str | None) -> None:
        time.sleep(0.3)
        checked(policy, first_click)

    monkeypatch.setattr(module, "_check_policy", slow)
    result = ns.simulate(20, 9, 9, 10, policy="solver", seed=1)
    assert result.startup >= 0.3 and result.elapsed < result.startup + 30
    assert "start-up" in result.summary()
    assert ns.simulate(20, 9, 9, 10, policy="random", seed=1).startup < 0.3
