"""Bulk runs at scale: traces, tables, live progress, interruption and Dask."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._runner import Hooks
from numsweeper.game import MOVE_KINDS
from numsweeper.simulate import TRACE_DTYPE, _play_chunk

simulate_module = sys.modules["numsweeper.simulate"]  # (ns.simulate is the function)


class Explaining(ns.RandomPolicy):
    """The random policy, saying what it knows of each choice: the density of mines left."""

    def __call__(self, visible: Any, mines_left: Any, rng: np.random.Generator) -> Any:
        cells = super().__call__(visible, mines_left, rng)
        hidden = (visible == ns.HIDDEN).sum(axis=(1, 2))
        self.last = (np.asarray(mines_left) / hidden, np.ones(len(cells), dtype=bool))
        return cells

    def explain(self) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        return self.last


# -- traces -----------------------------------------------------------------------------


@pytest.mark.parametrize("first_click", [None, "safe", "opening"])
def test_traces_agree_with_the_records(first_click: str | None) -> None:
    result = ns.simulate(300, 9, 9, 10, first_click=first_click, seed=3, chunk_size=70, trace=True)
    moves, records = result.moves, result.records
    assert moves is not None and moves.dtype == TRACE_DTYPE
    per_game = np.bincount(moves["game"], minlength=300)
    assert (per_game == records["clicks"]).all()
    assert (np.diff(moves["game"]) >= 0).all()  # game by game
    for game in range(300):  # every game: its steps, its end, its cells
        mine = moves[moves["game"] == game]
        assert mine["step"].tolist() == list(range(1, len(mine) + 1))
        assert (mine["kind"] == MOVE_KINDS.index("reveal")).all()
        assert (mine["state"][:-1] == 0).all()
        assert mine["state"][-1] == (1 if records["won"][game] else 2)
        assert int(mine["cells"].sum()) == records["revealed"][game]
    assert np.isnan(moves["probability"]).all() and (moves["guess"] == -1).all()


def test_a_trace_reproduces_each_game_through_game_records() -> None:
    result = ns.simulate(120, 9, 9, 10, first_click="safe", seed=8, chunk_size=40, trace=True)
    assert result.moves is not None
    for game in (0, 7, 55, 119):
        replayed = result.replay(game)
        board = replayed.board
        assert board is not None
        fresh = ns.Game.new(
            9, 9, 10, strategy=ns.FixedPlacement(board.mines.copy()), first_click="safe"
        )
        trail = result.moves[result.moves["game"] == game]
        for move in trail:
            cells = fresh.reveal(int(move["row"]), int(move["col"])).cells
            opened = int((~board.mines[cells[:, 0], cells[:, 1]]).sum()) if len(cells) else 0
            assert opened == move["cells"]
        assert fresh.snapshot() == replayed.snapshot()
        assert [(m.row, m.col) for m in fresh.moves] == [(m.row, m.col) for m in replayed.moves]


def test_traces_are_the_same_for_any_worker_count_and_carry_explanations() -> None:
    one = ns.simulate(200, 8, 8, 9, policy=Explaining(), seed=5, chunk_size=30, trace=True)
    two = ns.simulate(
        200, 8, 8, 9, policy=Explaining(), seed=5, chunk_size=30, trace=True, workers=2
    )
    assert one.moves is not None and two.moves is not None
    assert one.moves.tobytes() == two.moves.tobytes()
    assert (one.moves["guess"] == 1).all()
    assert ((one.moves["probability"] > 0) & (one.moves["probability"] < 1)).all()
    untraced = ns.simulate(200, 8, 8, 9, policy=Explaining(), seed=5, chunk_size=30)
    assert untraced.moves is None and (untraced.records == one.records).all()


# -- tables with metadata -----------------------------------------------------------------


def test_csv_round_trip_keeps_records_metadata_and_replay(tmp_path: Path) -> None:
    result = ns.simulate(90, 9, 9, 10, first_click="safe", seed=4, chunk_size=40, trace=True)
    result.to_csv(tmp_path / "runs.csv")
    result.to_csv(tmp_path / "moves.csv", which="moves")
    again = ns.SimulationResult.from_csv(tmp_path / "runs.csv", moves=tmp_path / "moves.csv")
    assert again.records.tobytes() == result.records.tobytes()
    assert again.moves is not None and result.moves is not None
    for name in TRACE_DTYPE.names or ():  # (NaN probabilities: field by field)
        nan = TRACE_DTYPE[name].kind == "f"
        assert np.array_equal(again.moves[name], result.moves[name], equal_nan=nan)
    for name in ("seed", "chunk_size", "first_click", "policy", "rows", "mines", "requested"):
        assert getattr(again, name) == getattr(result, name)
    lost = int(again.records["game"][~again.records["won"]][0])
    assert again.replay(lost).snapshot() == result.replay(lost).snapshot()
    assert again.summary().splitlines()[:4] == result.summary().splitlines()[:4]
    with pytest.raises(ValueError, match="no trace"):
        ns.simulate(5, 9, 9, 10, seed=0).to_csv(tmp_path / "x.csv", which="moves")
    (tmp_path / "bad.csv").write_text("game,won\n1,2\n")
    with pytest.raises(ns.InvalidBoardError, match="columns"):
        ns.SimulationResult.from_csv(tmp_path / "bad.csv")
    records_only = (tmp_path / "runs.csv").read_text().split("\n")
    (tmp_path / "anon.csv").write_text("\n".join(x for x in records_only if not x.startswith("#")))
    with pytest.raises(ns.InvalidBoardError, match="metadata"):
        ns.SimulationResult.from_csv(tmp_path / "anon.csv")


def test_pandas_and_parquet(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    result = ns.simulate(60, 9, 9, 10, seed=6, chunk_size=25, trace=True)
    frame = result.to_pandas()
    assert len(frame) == 60 and list(frame.columns) == list(result.records.dtype.names or ())
    assert frame.attrs["seed"] == 6 and frame.attrs["chunk_size"] == 25
    assert frame.attrs["version"] == ns.__version__ and frame.attrs["rows"] == 9
    moves = result.to_pandas("moves")
    assert len(moves) == len(result.moves)  # type: ignore[arg-type]
    result.to_parquet(tmp_path / "runs.parquet")
    result.to_parquet(tmp_path / "moves.parquet", which="moves")
    again = ns.SimulationResult.from_parquet(
        tmp_path / "runs.parquet", moves=tmp_path / "moves.parquet"
    )
    assert again.records.tobytes() == result.records.tobytes()
    assert again.moves is not None and again.moves.tobytes() == result.moves.tobytes()  # type: ignore[union-attr]
    assert again.metadata() == result.metadata()
    assert pandas.read_parquet(tmp_path / "runs.parquet")["won"].sum() == result.wins
    with pytest.raises(ValueError, match="'records' or 'moves'"):
        result.to_pandas("games")


# -- live progress --------------------------------------------------------------------------


def test_chunks_report_games_as_they_finish() -> None:
    reports: list[tuple[int, int]] = []
    hooks = Hooks(report=lambda games, wins: reports.append((games, wins)))
    child = np.random.SeedSequence(1)
    done = _play_chunk(0, 0, 500, 9, 9, 10, "opening", "random", child, hooks=hooks)
    records, _ = done.value
    assert len(reports) > 3  # many reports within one chunk, not one at its end
    assert sum(g for g, _ in reports) == 500 == len(records)
    assert sum(w for _, w in reports) == int(records["won"].sum())


def test_the_bar_moves_within_chunks_in_worker_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("tqdm")
    updates: list[int] = []
    original = simulate_module._Bar.update

    def spy(self: Any, games: int, wins: int) -> None:
        updates.append(games)
        original(self, games, wins)

    monkeypatch.setattr(simulate_module._Bar, "update", spy)
    result = ns.simulate(800, 9, 9, 10, seed=2, chunk_size=400, workers=2, progress=True)
    assert len(updates) > 2 * 2  # more than once per chunk
    assert sum(updates) == result.games == 800


def test_a_stop_request_returns_the_finished_games_only() -> None:
    calls = {"n": 0}

    def stopping() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    # (a chunk spawns from its SeedSequence: each run gets a fresh one)
    done = _play_chunk(
        0,
        100,
        400,
        16,
        30,
        99,
        "opening",
        "random",
        np.random.SeedSequence(9),
        trace=True,
        hooks=Hooks(stopping=stopping),
    )
    records, moves = done.value
    assert done.interrupted and 0 < len(records) < 400
    full, full_moves = _play_chunk(
        0, 100, 400, 16, 30, 99, "opening", "random", np.random.SeedSequence(9), trace=True
    ).value
    assert records.tobytes() == full[records["game"] - 100].tobytes()
    kept = np.isin(full_moves["game"], records["game"])
    assert moves.tobytes() == full_moves[kept].tobytes()


# -- real signals on real processes ------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(*extra: str, tmp_path: Path) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        "-m",
        "numsweeper",
        "simulate",
        "--preset",
        "expert",
        "--games",
        "2000000",
        "--chunk-size",
        "400",
        "--seed",
        "1",
        "--no-progress",
        *extra,
    ]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 30
    while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # let the chunks get going
    return process


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_worker_outlives_its_parent(sig: signal.Signals, tmp_path: Path) -> None:
    process = _start("--workers", "2", tmp_path=tmp_path)
    workers = [pid for pid in _children(process.pid) if _alive(pid)]
    assert len(workers) >= 2
    os.kill(process.pid, sig)
    process.communicate(timeout=10)
    deadline = time.monotonic() + 2.0
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)]


@needs_proc
@pytest.mark.parametrize("workers", ["1", "2"])
def test_first_ctrl_c_stops_with_a_summary_that_matches_the_file_and_bar(
    workers: str, tmp_path: Path
) -> None:
    pytest.importorskip("tqdm")
    process = _start("--workers", workers, "--out", "runs.csv", "--progress", tmp_path=tmp_path)
    workers_seen = _children(process.pid)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole group
    began = time.monotonic()
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert time.monotonic() - began < 5  # (about 1 s when idle; CI machines are busy)
    games = next(line for line in out.splitlines() if line.startswith("games"))
    count = int(games.split()[1])
    assert games.endswith("of 2000000 (interrupted)") and count > 0
    shown = re.findall(r"(\d+)/2000000", err)
    assert shown and int(shown[-1]) == count  # the bar's last word is the summary's
    rows = [
        line
        for line in (tmp_path / "runs.csv").read_text().splitlines()
        if not line.startswith("#")
    ]
    assert len(rows) == count + 1  # the header, then exactly the games counted
    again = ns.SimulationResult.from_csv(tmp_path / "runs.csv")
    assert again.games == count and again.interrupted
    deadline = time.monotonic() + 2.0
    while any(_alive(pid) for pid in workers_seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers_seen if _alive(pid)]


@needs_proc
def test_second_ctrl_c_aborts_at_once(tmp_path: Path) -> None:
    # The second Ctrl-C must land while the first winds the run down, which
    # can take well under 0.15 s on a quiet machine: a run that finished
    # first (its summary printed) proves nothing, so try again, sooner.
    for pause in (0.15, 0.05, 0.02, 0.01):
        process = _start("--workers", "2", "--policy", "random", tmp_path=tmp_path)
        workers = _children(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(pause)  # the first is being handled: the chunks wind down
        began = time.monotonic()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=20)
        if "aborted" in err or "games" not in out:
            break
    assert process.returncode == 130
    assert "aborted" in err and "games" not in out  # no summary: it left at once
    assert time.monotonic() - began < 2
    deadline = time.monotonic() + 2.0
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)]


_WRAPPED = """
import sys
from numsweeper import cli

def interrupted(args):
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        raise ImportError("initialization failed") from exc

def broken(args):
    raise ImportError("a real error")

def broken_while_stopping(args):
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        raise ImportError("a real error")  # (its context, not its cause)

cases = {"ctrl-c": interrupted, "error": broken, "error-in-handler": broken_while_stopping}
cli._simulate = cases[sys.argv[1]]
sys.exit(cli.main(["simulate", "--preset", "beginner", "--games", "5"]))
"""


@pytest.mark.parametrize("case", ["ctrl-c", "error", "error-in-handler"])
def test_a_ctrl_c_wrapped_in_another_error_still_aborts(case: str, tmp_path: Path) -> None:
    # The second Ctrl-C can land while the summary first imports scipy.stats:
    # Python reports it as ``ImportError: initialization failed``, raised
    # from the KeyboardInterrupt.  Other errors, even one raised while a
    # Ctrl-C is being handled, still propagate with their traceback.
    script = tmp_path / "run.py"
    script.write_text(_WRAPPED)
    out = subprocess.run(
        [sys.executable, str(script), case], capture_output=True, text=True, timeout=60
    )
    if case == "ctrl-c":
        assert out.returncode == 130, out.stderr
        assert "numsweeper simulate: aborted" in out.stderr and "Traceback" not in out.stderr
    else:
        assert out.returncode == 1
        assert "ImportError: a real error" in out.stderr and "aborted" not in out.stderr


# -- dask --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Any:
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            host="127.0.0.1",
        ) as local,
        distributed.Client(local) as client,
    ):
        yield local, client


def test_dask_gives_the_records_of_one_process(cluster: Any) -> None:
    _, client = cluster
    serial = ns.simulate(600, 9, 9, 10, seed=11, chunk_size=50, trace=True)
    spread = ns.simulate(
        600, 9, 9, 10, seed=11, chunk_size=50, trace=True, executor=client.get_executor()
    )
    assert spread.records.tobytes() == serial.records.tobytes()
    assert spread.moves.tobytes() == serial.moves.tobytes()  # type: ignore[union-attr]


class DieOnce(ns.RandomPolicy):
    """The random policy, except that the first call anywhere kills its worker process."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __call__(self, visible: Any, mines_left: Any, rng: np.random.Generator) -> Any:
        if not os.path.exists(self.marker):
            Path(self.marker).touch()
            os._exit(1)  # a worker dies in the middle of a chunk
        return super().__call__(visible, mines_left, rng)


def test_dask_reschedules_the_chunks_of_a_killed_worker(cluster: Any, tmp_path: Path) -> None:
    _, client = cluster
    marker = str(tmp_path / "died")
    serial = ns.simulate(3000, 16, 30, 99, seed=12, chunk_size=100, policy=ns.RandomPolicy())
    pids = set(client.run(os.getpid).values())
    spread = ns.simulate(
        3000,
        16,
        30,
        99,
        seed=12,
        chunk_size=100,
        policy=DieOnce(marker),
        executor=client.get_executor(),
    )
    assert os.path.exists(marker)  # a worker did die, in the middle of the run
    assert spread.records.tobytes() == serial.records.tobytes()
    client.wait_for_workers(2, timeout=60)
    assert set(client.run(os.getpid).values()) != pids  # the nanny started a new one


def test_cli_runs_on_a_scheduler(cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from numsweeper.cli import main

    local, _ = cluster
    args = ["--preset", "beginner", "--seed", "5", "--no-progress"]
    assert main(["simulate", "--games", "300", "--chunk-size", "50", *args]) == 0
    serial = capsys.readouterr().out
    assert (
        main(
            [
                "simulate",
                "--games",
                "300",
                "--chunk-size",
                "50",
                *args,
                "--scheduler",
                local.scheduler_address,
            ]
        )
        == 0
    )
    spread = capsys.readouterr().out
    drop = ("games/s", "start-up")
    assert [x for x in serial.splitlines() if not x.startswith(drop)] == [
        x for x in spread.splitlines() if not x.startswith(drop)
    ]
    stats = ["stats", "--boards", "3000", "--chunk-size", "700", *args]
    assert main(stats) == 0
    one = capsys.readouterr().out
    assert main([*stats, "--scheduler", local.scheduler_address]) == 0
    two = capsys.readouterr().out
    assert main([*stats, "--workers", "2"]) == 0
    three = capsys.readouterr().out
    keep = [x for x in one.splitlines() if not x.startswith("time")]
    assert keep == [x for x in two.splitlines() if not x.startswith("time")]
    assert keep == [x for x in three.splitlines() if not x.startswith("time")]


# -- start-up is timed apart -----------------------------------------------------------------


def _nap() -> None:
    time.sleep(0.3)


def _square(index: int, value: int, *, hooks: Any = None) -> Any:
    from numsweeper._runner import Done

    return Done(value * value)


@pytest.mark.parametrize("workers", [1, 2])
def test_warm_up_is_start_up_not_run_time(workers: int) -> None:
    from numsweeper._runner import Runner

    runner = Runner(workers, None, warm_up=_nap)
    began = time.perf_counter()
    out = dict(runner.run(_square, [(i, i) for i in range(6)]))
    assert {i: done.value for i, done in out.items()} == {i: i * i for i in range(6)}
    assert runner.startup >= 0.3 and runner.began >= began + 0.3


_SCRIPT = """
import multiprocessing, sys
import numsweeper as ns
if __name__ == "__main__":
    multiprocessing.set_start_method(sys.argv[1], force=True)
    games = int(sys.argv[2])
    result = ns.simulate(games, 9, 9, 10, seed=1, chunk_size=100, workers=2)
    print(result.records.tobytes().hex())
"""


@needs_proc
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_under_every_start_method(method: str, tmp_path: Path) -> None:
    # Python 3.14 starts workers with forkserver on Linux: a worker's parent
    # process is then not the run's, and workers must still watch the run.
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT)
    out = subprocess.run(
        [sys.executable, str(script), method, "600"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    serial = ns.simulate(600, 9, 9, 10, seed=1, chunk_size=100)
    assert bytes.fromhex(out.stdout.strip()) == serial.records.tobytes()
    # And when that run is killed, its workers go too.
    process = subprocess.Popen(
        [sys.executable, str(script), method, "5000000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while len(_descendants(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    workers = _descendants(process.pid)
    assert len(workers) >= 2
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    deadline = time.monotonic() + 2.0
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)]


def _descendants(pid: int) -> list[int]:
    """Children, grandchildren...: forkserver's workers are the server's children."""
    found, frontier = [], [pid]
    while frontier:
        children = [child for parent in frontier for child in _children(parent)]
        found += children
        frontier = children
    return [p for p in found if _alive(p)]
