"""The numsweeper command: output, exit codes, one-line errors."""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import numsweeper as ns
from numsweeper import cli
from numsweeper.metrics import board_stats


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def field(out: str, name: str) -> str:
    for line in out.splitlines():
        if line.startswith(name + " "):
            return line[len(name) :].strip()
    raise AssertionError(f"no {name!r} line in:\n{out}")


def test_simulate_prints_the_summary_of_ns_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "simulate",
        "--preset",
        "beginner",
        "--games",
        "300",
        "--seed",
        "5",
        "--workers",
        "2",
        "--chunk-size",
        "150",
    )
    assert code == 0 and err == ""
    expected = ns.simulate(300, 9, 9, 10, seed=5, chunk_size=150)
    assert field(out, "games") == "300"
    assert field(out, "seed") == "5"
    assert field(out, "win rate") == field(expected.summary(), "win rate")
    assert field(out, "mean 3BV") == field(expected.summary(), "mean 3BV")
    assert float(field(out, "games/s").replace(",", "")) > 0


def test_simulate_and_stats_say_when_workers_would_sit_idle(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # One chunk of the default 2,000 games: the second worker gets nothing.
    code, out, err = run(
        capsys, *("simulate", "--preset", "beginner", "--games", "30", "--seed", "1"),
        *("--workers", "2"),
    )  # fmt: skip
    assert code == 0
    assert err == (
        "numsweeper simulate: note: 2 workers but 1 chunk of up to 2,000 games, so 1 worker "
        "will have nothing to do; --chunk-size 15 would give each a share (the games depend "
        "on the chunk size, as on --seed)\n"
    )
    assert field(out, "win rate") == field(ns.simulate(30, 9, 9, 10, seed=1).summary(), "win rate")
    said = {
        "20": "",  # three chunks for three workers: nothing to say
        "30": "numsweeper stats: note: 3 workers but 2 chunks of up to 30 boards, so 1 worker "
        "will have nothing to do; --chunk-size 16 would give each a share (the boards depend "
        "on the chunk size, as on --seed)\n",
    }
    for size, note in said.items():
        code, _, err = run(
            capsys, *("stats", "--preset", "beginner", "--boards", "50", "--seed", "1"),
            *("--workers", "3", "--chunk-size", size),
        )  # fmt: skip
        assert (code, err) == (0, note)


@pytest.mark.parametrize(
    ("argv", "what"), [(["simulate", "--games"], "games"), (["stats", "--boards"], "boards")]
)
def test_too_many_chunks_is_a_one_line_error(
    argv: list[str], what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *argv, "10000000000", "--chunk-size", "10")
    assert (code, out) == (2, "")
    assert err == (
        f"numsweeper {argv[0]}: error: 10000000000 {what} in chunks of 10 make 1000000000 "
        "chunks, more than 1,000,000: use a larger chunk size\n"
    )


def test_too_many_workers_is_refused_before_any_note(capsys: pytest.CaptureFixture[str]) -> None:
    for command, count in (("simulate", "--games"), ("stats", "--boards")):
        code, out, err = run(capsys, command, count, "5", "--workers", "2000")
        assert (code, out) == (2, "")
        assert err == f"numsweeper {command}: error: workers must be at most 1,024, got 2000\n"


def test_simulate_refuses_one_file_for_both_records_and_trace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(
        capsys, *("simulate", "--games", "3", "--seed", "1", "--out", "r.csv"),
        *("--trace", str(tmp_path / "r.csv")),
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert "--out and --trace both name 'r.csv': give each its own file" in err
    assert not (tmp_path / "r.csv").exists()


def test_simulate_custom_board_rule_policy_and_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "games.csv"
    code, out, _ = run(
        capsys,
        *("simulate", "--rows", "5", "--cols", "6", "--mines", "4", "--games", "40"),
        *("--first-click", "none", "--policy", "first_click_only", "--seed", "2"),
        *("--chunk-size", "15", "--out", str(path)),
    )
    assert code == 0
    assert field(out, "board") == "5x6, 4 mines, first click none"
    assert field(out, "policy") == "first_click_only"
    with open(path, newline="") as handle:  # the run's metadata comes first, as # lines
        rows = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    assert len(rows) == 40 and {r["clicks"] for r in rows} == {"1"}
    expected = ns.simulate(
        40, 5, 6, 4, policy="first_click_only", first_click=None, seed=2, chunk_size=15
    )
    assert [int(r["revealed"]) for r in rows] == expected.records["revealed"].tolist()


def test_stats_match_the_boards_they_stream(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *("stats", "--preset", "intermediate", "--boards", "700", "--chunk-size", "300"),
        *("--seed", "3", "--first-click", "opening", "--click", "0", "0"),
    )
    assert code == 0
    chunks = ns.iter_boards(
        700, 16, 16, 40, seed=3, chunk_size=300, first_click="opening", click=(0, 0)
    )
    parts = [board_stats(chunk) for chunk in chunks]
    lines = out.splitlines()
    assert field(out, "board") == "16x16, 40 mines, first click opening at (0, 0)"
    assert field(out, "boards") == "700"
    for label, key in (("3BV", "three_bv"), ("openings", "openings"), ("islands", "islands")):
        values = np.concatenate([p[key] for p in parts])
        row = next(line for line in lines if line.startswith(label + " ")).split()
        assert float(row[1]) == pytest.approx(values.mean(), abs=0.005)
        assert float(row[2]) == pytest.approx(values.std(), abs=0.005)
        expected = [values.min()]
        expected += [np.percentile(values, q, method="inverted_cdf") for q in cli._PERCENTILES]
        expected += [values.max()]
        assert [int(v) for v in row[3:]] == [int(v) for v in expected]
    bars = lines[lines.index("3BV histogram") + 1 :]
    counts = [int(line.split()[-1].replace(",", "")) for line in bars]
    assert sum(counts) == 700 and max(len(line) for line in bars) < 80


def _table(out: str) -> list[str]:
    return out.split("\n\n", 1)[1].splitlines()


def test_stats_without_a_rule_and_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "stats", "--preset", "beginner", "--boards", "50")
    assert code == 0 and field(out, "board") == "9x9, 10 mines, first click none"
    # the fresh seed is printed, with the chunk size, and repeats the run
    seed, chunks = field(out, "seed").split(" (chunks of ")
    assert chunks == f"{ns.batch.DEFAULT_CHUNK_SIZE:,})"
    again = run(capsys, "stats", "--preset", "beginner", "--boards", "50", "--seed", seed)[1]
    assert _table(again) == _table(out)
    other = run(capsys, "stats", "--preset", "beginner", "--boards", "50")[1]
    assert field(other, "seed") != field(out, "seed")


def test_ctrl_c_prints_what_was_done(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = cli.board_stats

    def interrupted(boards: ns.BoardBatch) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(boards)

    monkeypatch.setattr(cli, "board_stats", interrupted)
    code, out, _ = run(
        capsys, "stats", "--preset", "beginner", "--boards", "100", "--chunk-size", "20"
    )
    assert code == 130
    assert field(out, "boards") == "40 of 100 (interrupted)"


@pytest.mark.parametrize("command", [[], ["simulate"], ["stats"], ["play"]])
def test_help_everywhere(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run(capsys, *command, "--help")
    assert code == 0 and out.startswith("usage: numsweeper")
    assert "%%" not in out  # descriptions are printed as written, not %-formatted


def test_simulate_help_names_the_interval(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "simulate", "--help")
    assert "95% Wilson interval" in " ".join(out.split())


def test_a_bad_out_path_is_refused_before_any_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    played = []
    monkeypatch.setattr(cli, "simulate", lambda *a, **k: played.append(1))
    code, out, err = run(capsys, "simulate", "--out", str(tmp_path / "missing" / "x.csv"))
    assert code == 2 and out == "" and "no directory" in err and not played
    for directory in (str(tmp_path), f"{tmp_path}/new/"):
        code, _, err = run(capsys, "simulate", "--out", directory)
        assert code == 2 and f"--out {directory!r} is a directory" in err and not played
    code, _, err = run(capsys, "simulate", "--out", "")
    assert code == 2 and "--out needs a file name" in err and not played
    # a directory we may not write to (faked: the tests may run as root)
    monkeypatch.setattr(cli.os, "access", lambda path, mode: Path(path) != tmp_path)
    code, _, err = run(capsys, "simulate", "--out", str(tmp_path / "x.csv"))
    assert code == 2 and "is not writable" in err and not played


def test_an_out_path_that_fails_late_keeps_the_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def fail(self: Any, path: Any, which: str = "records") -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(ns.SimulationResult, "to_csv", fail)
    out_path = str(tmp_path / "x.csv")
    code, out, err = run(capsys, "simulate", "--games", "5", "--seed", "1", "--out", out_path)
    assert code == 2 and field(out, "games") == "5"
    assert err == f"numsweeper simulate: error: --out {out_path!r}: Permission denied\n"


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        ([], "the following arguments are required: COMMAND"),
        (["play-well"], "invalid choice: 'play-well'"),
        (["simulate", "--games", "x"], "argument --games: invalid integer 'x'"),
        (["simulate", "--games", "-3"], "argument --games: must be >= 1, got -3"),
        (["simulate", "--games", "0"], "argument --games: must be >= 1, got 0"),
        (["simulate", "--out", "/no/such/dir/runs.csv"], "--out '/no/such/dir/runs.csv': no "
         "directory '/no/such/dir'"),
        (["simulate", "--out", "."], "--out '.' is a directory"),
        (["simulate", "--workers", "0"], "argument --workers: must be >= 1, got 0"),
        (["simulate", "--preset", "huge"], "argument --preset: invalid choice: 'huge'"),
        (["simulate", "--rows", "5"], "--rows, --cols and --mines must be given together"),
        (["simulate", "--rows", "3", "--cols", "3", "--mines", "1"], "mines must be in 0..0 for "
         "a 3x3 board with first_click='opening', which keeps 9 cells mine-free, got 1"),
        # The true limit for the rule, in the first message.
        (["simulate", "--rows", "5", "--cols", "5", "--mines", "30"], "mines must be in 0..16"),
        (["stats", "--rows", "5", "--cols", "5", "--mines", "30"], "mines must be in 0..24 for "
         "a 5x5 board, got 30"),
        (["simulate", "--rows", "3", "--cols", "3", "--mines", "9", "--first-click", "none"],
         "mines must be in 0..8 for a 3x3 board, got 9"),
        (["simulate", "--policy", "greedy"], "argument --policy: invalid choice: 'greedy'"),
        (["simulate", "--first-click", "corner"], "argument --first-click: invalid choice"),
        (["stats", "--boards", "0"], "argument --boards: must be >= 1, got 0"),
        (["play", "--seed", "-1"], "argument --seed: must be >= 0, got -1"),
        (["play", "--rows", "-3"], "argument --rows: must be >= 1, got -3"),
        (["play", "--mines", "x"], "argument --mines: invalid integer 'x'"),
        (["stats", "--click", "1"], "argument --click: expected 2 arguments"),
        (["stats", "--click", "1", "2"], "--click needs --first-click safe or opening"),
        (["stats", "--first-click", "opening"], "--first-click opening needs --click ROW COL"),
        (["stats", "--first-click", "safe", "--click", "16", "0"], "--click 16 0 is off the"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], reason: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and reason in err
    assert err.startswith("numsweeper") and err.endswith("(see --help)\n")


@pytest.mark.parametrize("db", [True, False], ids=["db", "default-db"])
@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--port", "99999"], "argument --port: must be <= 65535, got 99999"),
        (["--port", "65536"], "argument --port: must be <= 65535, got 65536"),
        (["--port", "-1"], "argument --port: must be >= 0, got -1"),
        (["--port", "http"], "argument --port: invalid integer 'http'"),
        (["--workers", "0"], "argument --workers: must be >= 1, got 0"),
        (["--max-cells", "x"], "argument --max-cells: invalid integer 'x'"),
    ],
)
def test_serve_refuses_bad_arguments_before_touching_a_database(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    reason: str,
    db: bool,
) -> None:
    # the default database lives under these: never the user's own
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    where = ["--db", f"sqlite:///{tmp_path / 'games' / 'games.db'}"] if db else []
    code, out, err = run(capsys, "serve", *where, *argv)
    assert code == 2 and out == ""
    assert err == f"numsweeper serve: error: {reason} (see --help)\n"
    assert list(tmp_path.iterdir()) == []  # no database, no directory


@pytest.mark.parametrize("port", ["0", "65535", "8_080"])
def test_serve_takes_every_port(port: str) -> None:
    assert cli.build_parser().parse_args(["serve", "--port", port]).port == int(port)


def test_missing_extras_and_modules_are_argument_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "numsweeper.solver", None)
    code, _, err = run(capsys, "simulate", "--games", "5", "--policy", "solver")
    assert code == 2 and "needs numsweeper.solver" in err and err.count("\n") == 1
    monkeypatch.setitem(sys.modules, "tqdm", None)
    code, _, err = run(capsys, "simulate", "--games", "5", "--progress")
    assert code == 2 and "pip install 'numsweeper[progress]'" in err
    code, _, err = run(capsys, "simulate", "--games", "5", "--preset", "beginner")
    assert code == 0 and err == ""  # without tqdm, no bar unless asked for


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "simulate", "--preset", "beginner", "--games", "50", "--progress", "--seed", "1"
    )
    assert code == 0 and "50/50" in err and "50/50" not in out


def test_registered_subcommand_modules(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = type(sys)("fake_play")

    def add_parser(subparsers: Any) -> None:
        parser = subparsers.add_parser("hello", help="say hello")
        parser.add_argument("--name", default="world")
        parser.set_defaults(func=lambda args: print(f"hello {args.name}") or 0)

    module.add_parser = add_parser  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_play", module)
    monkeypatch.setattr(cli, "SUBCOMMAND_MODULES", ["fake_play"])
    assert run(capsys, "hello", "--name", "sweeper") == (0, "hello sweeper\n", "")
    code, _, err = run(capsys, "hello", "--nope")
    assert code == 2 and err.count("\n") == 1
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)


def test_python_dash_m(tmp_path: Path) -> None:
    src = Path(cli.__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "numsweeper", "simulate", "--games", "1", "--seed", "1"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(src)},
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "games        1" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "numsweeper", "stats", "--boards", "many"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(src)},
        cwd=tmp_path,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_play_is_a_numsweeper_subcommand() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "numsweeper", "play", "--preset", "beginner", "--seed", "1"],
        input="r 4 4\nq\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "mines left: 10" in out.stdout
    assert out.stdout.count("0 1 2 3 4 5 6 7 8") >= 2  # the board before and after the move


def test_stats_histograms_grow_with_the_values_not_the_board(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 2,000 x 2,000 cells with one mine: the old histograms held 3 x 4,000,001
    # counters; the figures must not depend on how they are sized
    board = ["--rows", "2000", "--cols", "2000", "--mines", "1"]
    code, out, _ = run(capsys, "stats", *board, "--boards", "2", "--seed", "1")
    assert code == 0 and field(out, "board") == "2000x2000, 1 mine, first click none"
    boards = ns.generate_boards(2, 2000, 2000, 1, seed=np.random.SeedSequence(1).spawn(1)[0])
    stats = board_stats(boards)
    row = field(out, "3BV").split()
    assert float(row[0]) == pytest.approx(float(np.mean(stats["three_bv"])), abs=0.005)
    assert int(row[2]) == int(np.min(stats["three_bv"]))


def test_out_of_memory_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def huge(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError("Unable to allocate 74.5 GiB")

    monkeypatch.setattr(cli, "generate_boards", huge)
    code, out, err = run(capsys, "stats", "--boards", "5", "--seed", "1")
    assert code == 2 and out == ""
    assert err == (
        "numsweeper stats: error: out of memory (Unable to allocate 74.5 GiB); "
        "try a smaller board, --chunk-size or --games\n"
    )
