"""Terminal play: scripted sessions end to end, through a subprocess and run()."""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numsweeper as ns
from numsweeper import play
from numsweeper.play import render_screen

SRC = str(Path(play.__file__).resolve().parents[1])


def play_subprocess(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "numsweeper.play", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
    )


def namespace(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = dict(
        preset=None, rows=None, cols=None, mines=None, seed=0, first_click="none"
    )
    base.update(kw)
    return argparse.Namespace(**base)


def run(script: str, **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    status = play.run(namespace(**kw), io.StringIO(script), out)
    return status, out.getvalue()


def layout(rows: int, cols: int, mines: int, seed: int) -> np.ndarray:
    """The mines the CLI lays for these arguments (first_click none), via the same API."""
    board = ns.Game.new(rows, cols, mines, seed=seed).board
    assert board is not None
    return np.array(board.mines)


def test_scripted_win_through_a_pipe() -> None:
    mines = layout(6, 7, 5, seed=11)
    script = "".join(f"r {r} {c}\n" for r, c in np.argwhere(~mines).tolist())
    done = play_subprocess(
        script,
        "--rows",
        "6",
        "--cols",
        "7",
        "--mines",
        "5",
        "--seed",
        "11",
        "--first-click",
        "none",
    )
    assert done.returncode == 0, done.stderr
    assert "*** WON *** board cleared in" in done.stdout
    assert "custom 6x7, 5 mines, first click: none, seed 11" in done.stdout
    last = done.stdout.split("*** WON")[0].strip().splitlines()[-8:]
    assert last[0].split() == [str(c) for c in range(7)]
    assert last[-1].startswith("mines left: ") and last[-1].endswith("WON")
    grid = [line.split()[1:] for line in last[1:-1]]
    assert [row[0] for row in (line.split() for line in last[1:-1])] == [str(r) for r in range(6)]
    assert np.array_equal(np.array(grid) == "F", mines)  # a won board flags every mine


def test_scripted_loss_shows_the_board() -> None:
    mines = layout(9, 9, 10, seed=4)
    r, c = np.argwhere(mines)[0].tolist()
    safe = np.argwhere(~mines)[-1].tolist()
    done = play_subprocess(
        f"f {safe[0]} {safe[1]}\nr {r} {c}\nr 0 0\n",
        "--preset",
        "beginner",
        "--seed",
        "4",
        "--first-click",
        "none",
    )
    assert done.returncode == 0
    assert f"*** LOST *** you hit a mine at {r} {c}" in done.stdout
    board = done.stdout.split("*** LOST")[0].strip().splitlines()[-10:-1]
    cells = np.array([line.split()[1:] for line in board])
    assert cells[r, c] == "X"
    assert cells[safe[0], safe[1]] == "!"  # the wrong flag
    assert (cells == "*").sum() == 9
    assert "r 0 0" not in done.stdout and done.stdout.rstrip().endswith("s")  # input stops there


def test_quit_and_end_of_input_exit_zero() -> None:
    done = play_subprocess("q\nr 1 1\n", "--preset", "expert", "--seed", "2")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("bye")
    assert done.stdout.count("mines left: 99") == 1  # r 1 1 was never read
    done = play_subprocess("", "--preset", "intermediate")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("bye (end of input)")
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["1"] * 6  # tens digits of columns 10..15
    assert lines[2].split() == [str(c % 10) for c in range(16)]
    assert lines[3].startswith(" 0  # #") and lines[18].startswith("15  # #")


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("x 1 1", "unknown command 'x'; type ? for help"),
        ("r 1", "usage: r ROW COL, e.g. r 3 4"),
        ("f 1 2 3", "usage: f ROW COL, e.g. f 3 4"),
        ("c one two", "ROW and COL must be whole numbers, got 'one' 'two'"),
        ("r 9 0", "(9, 0) is off the board: rows 0..8, cols 0..8"),
        ("r -1 0", "(-1, 0) is off the board: rows 0..8, cols 0..8"),
        ("r 0 0", "(0, 0) is already revealed"),
        ("f 0 0", "not allowed: cannot flag revealed cell (0, 0)"),
        ("r 8 8", "not allowed: cannot reveal flagged cell (8, 8); unflag it first"),
        ("c 0 0", "nothing to chord at (0, 0): chord a revealed number"),
        ("c 3 3", "nothing to chord at (3, 3): chord a revealed number"),
        ("c 7 7", "nothing to chord at (7, 7): chord a revealed number"),
        (
            "c 4 4",
            "nothing to chord at (4, 4): it needs exactly 3 flags around it "
            "and a hidden cell to open",
        ),
        ("", ""),
        ("   ", ""),
        ("? 1", "? takes no arguments; type ? for help"),
    ],
)
def test_bad_commands_print_one_line_and_change_nothing(command: str, message: str) -> None:
    # A wall of mines on row 5 stops the flood from (0, 0), so the game goes on.
    game = ns.Game.new(9, 9, 10, strategy=ns.FixedPlacement([(5, c) for c in range(9)] + [(8, 8)]))
    out = io.StringIO()
    session = play._Session(game, out, color=False)
    game.reveal(0, 0)
    game.toggle_flag(8, 8)
    snap = game.snapshot()
    assert session.handle(command)
    assert out.getvalue() == (message + "\n" if message else "")
    assert game.snapshot() == snap


def test_hint_without_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numsweeper.solver", None)
    status, out = run("h\nq\n", preset="beginner")
    assert status == 0
    assert "hints need the solver (numsweeper.solver)" in out


def test_hint_with_a_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def hint(game: ns.Game) -> types.SimpleNamespace:
        seen.append(game.snapshot())
        certain = len(seen) > 1
        return types.SimpleNamespace(row=1, col=2, probability=0.125, certain=certain)

    fake = types.ModuleType("numsweeper.solver")
    fake.hint = hint  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numsweeper.solver", fake)
    status, out = run("h\nh\nq\n", preset="beginner")
    assert "hint: reveal 1 2 (mine probability 12.5%)" in out
    assert "hint: reveal 1 2 (certainly safe)" in out
    assert len(seen) == 2 and seen[0].rows == 9

    def broken(game: ns.Game) -> None:
        raise RuntimeError("too hard")

    fake.hint = broken  # type: ignore[attr-defined]
    status, out = run("h\nb\nq\n", preset="beginner")
    assert status == 0 and "no hint: too hard" in out
    assert out.count("IN_PROGRESS") == 2


@pytest.mark.parametrize("inside_kernel", [False, True])
def test_ctrl_c_during_a_hint_ends_the_game_as_interrupted(
    monkeypatch: pytest.MonkeyPatch, inside_kernel: bool
) -> None:
    def hint(game: ns.Game) -> None:
        if not inside_kernel:
            raise KeyboardInterrupt
        # what numba raises when the Ctrl-C lands in a kernel's callback
        raise SystemError("CPUDispatcher(...) returned a result") from KeyboardInterrupt()

    fake = types.ModuleType("numsweeper.solver")
    fake.hint = hint  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numsweeper.solver", fake)
    status, out = run("h\nr 0 0\n", preset="beginner")
    assert status == 130 and out.rstrip().endswith("interrupted")
    assert "no hint" not in out


def test_bad_arguments_exit_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert play.run(namespace(preset="expert", rows=3), io.StringIO(""), io.StringIO()) == 2
    assert "not both" in capsys.readouterr().err
    assert play.run(namespace(rows=3, cols=3), io.StringIO(""), io.StringIO()) == 2
    assert "all three" in capsys.readouterr().err
    assert play.run(namespace(rows=3, cols=3, mines=9), io.StringIO(""), io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "mines must be in 0..8" in err and err.endswith("(see --help)\n")  # as argparse's
    huge = namespace(rows=100_000, cols=100_000, mines=5)
    assert play.run(huge, io.StringIO(""), io.StringIO()) == 2
    assert "100000x100000 board is too big to play in a terminal" in capsys.readouterr().err
    edge = namespace(rows=1000, cols=1000, mines=5)
    assert play.run(edge, io.StringIO("q\n"), io.StringIO()) == 0
    done = play_subprocess("", "--preset", "huge")
    assert done.returncode == 2 and "invalid choice: 'huge'" in done.stderr


def test_first_click_rules() -> None:
    for seed in range(20):
        _, out = run("r 4 4\nq\n", preset="expert", seed=seed, first_click="opening")
        board = out.split("IN_PROGRESS")[1].splitlines()[1:]  # the screen after the click
        assert "." in " ".join(board[3:7])
        _, out = run("r 0 0\nq\n", preset="expert", seed=seed, first_click="safe")
        assert "LOST" not in out


def test_elapsed_time_runs_from_the_first_reveal(monkeypatch: pytest.MonkeyPatch) -> None:
    now = iter(range(0, 1000, 7))
    monkeypatch.setattr(play.time, "monotonic", lambda: float(next(now)))
    _, out = run("f 0 0\nb\nr 4 4\nb\nq\n", preset="beginner", first_click="opening")
    times = [line.split("time: ")[1] for line in out.splitlines() if "time:" in line]
    assert times[:3] == ["0 s   IN_PROGRESS"] * 3
    assert times[3] == "7 s   IN_PROGRESS" and times[4] == "14 s   IN_PROGRESS"


def test_colour_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Tty()
    play.run(namespace(preset="beginner", first_click="opening"), io.StringIO("r 4 4\n"), out)
    assert "\x1b[94m1\x1b[0m" in out.getvalue()  # a blue 1
    monkeypatch.setenv("NO_COLOR", "1")
    out = Tty()
    play.run(namespace(preset="beginner"), io.StringIO("q\n"), out)
    assert "\x1b[" not in out.getvalue()


def test_add_parser_registers_play() -> None:
    parser = argparse.ArgumentParser(prog="numsweeper")
    play.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        ["play", "--rows", "2", "--cols", "2", "--mines", "0", "--first-click", "opening"]
    )
    out = io.StringIO()
    assert args.func(args, io.StringIO("r 1 1\n"), out) == 0
    assert "*** WON ***" in out.getvalue()
    assert "custom 2x2, 0 mines, first click: opening" in out.getvalue()


MOVES = st.sampled_from(["r", "f", "c", "x", "?", "h", "b", ""])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(MOVES, st.integers(-1, 6), st.integers(-1, 6)), max_size=40),
    st.integers(0, 2**16),
)
def test_random_scripts_match_the_game_api(script: list[tuple[str, int, int]], seed: int) -> None:
    """Whatever is typed, the final screen is what the same moves give through Game."""
    reference = ns.Game.new(5, 6, 6, seed=seed)
    lines = []
    for verb, r, c in script:
        lines.append(f"{verb} {r} {c}" if verb in "rfcx" and verb else verb)
        if reference.state is not ns.GameState.IN_PROGRESS or verb not in ("r", "f", "c"):
            continue
        action = {"r": reference.reveal, "f": reference.toggle_flag, "c": reference.chord}[verb]
        with contextlib.suppress(ns.MinesweeperError):
            action(r, c)
    status, out = run("\n".join(lines) + "\nb\n", rows=5, cols=6, mines=6, seed=seed)
    assert status == 0
    screens = out.split("mines left:")
    last = out[: out.rindex("mines left:")].splitlines()[-5:]
    want = render_screen(reference.snapshot()).splitlines()[1:-1]
    assert last == want
    assert len(screens) >= 2


def play_in_a_terminal(keys: list[bytes], *args: str) -> tuple[int, str]:
    """Run --curses under a pseudo-terminal, typing ``keys`` one by one."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "numsweeper.play", "--curses", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin", "TERM": "xterm"},
        close_fds=True,
    )
    os.close(slave)
    output = b""

    def read(seconds: float, until: bytes = b"") -> None:
        nonlocal output
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (until and until in output):
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    output += os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    return

    try:
        read(20, until=b"mines left")  # the first screen is up
        for key in keys:
            os.write(master, key)
            read(0.1)
        status = proc.wait(timeout=20)
        read(0.3)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return status, output.decode("utf-8", "replace")


def test_curses_mode_plays_with_cursor_keys() -> None:
    right, down = b"\x1bOC", b"\x1bOB"  # xterm's keys in keypad mode
    status, out = play_in_a_terminal(
        [right, down, b"f", down, right, right, right, b"f", b"q"],
        "--rows", "4", "--cols", "5", "--mines", "3", "--seed", "1",
    )  # fmt: skip
    assert status == 0
    final = out[out.rindex("numsweeper: custom") :].replace("\r", "").splitlines()
    assert final[2] == "0  # # # # #"
    assert final[3] == "1  # F # # #"
    assert final[4] == "2  # # # # F"
    assert final[-1] == "bye"


def test_curses_mode_ends_with_the_result() -> None:
    status, out = play_in_a_terminal(
        [b" ", b"x"], "--rows", "2", "--cols", "3", "--mines", "0", "--seed", "1"
    )
    assert status == 0
    assert out.replace("\r", "").rstrip().endswith("board cleared in 0 s")
    assert "*** WON ***" in out


def test_curses_mode_needs_a_terminal() -> None:
    done = play_subprocess("q\n", "--curses")
    assert done.returncode == 2 and "--curses needs a terminal" in done.stderr


def test_ctrl_c_ends_with_130() -> None:
    class Interrupting(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    out = io.StringIO()
    assert play.run(namespace(preset="beginner"), Interrupting(), out) == 130
    assert out.getvalue().endswith("\ninterrupted\n")


def test_quit_with_an_argument_is_refused_and_the_game_goes_on() -> None:
    status, out = run("q now\nb\nq\n", preset="beginner")
    assert status == 0 and "q takes no arguments; type ? for help" in out
    assert out.count("bye") == 1 and out.rstrip().endswith("bye")


def test_undecodable_input_is_an_unknown_line_not_a_crash() -> None:
    class Garbled(io.StringIO):
        """Raises on its second line, as a strict UTF-8 stdin does on b'\\xff'."""

        calls = 0

        def readline(self, *args: int) -> str:  # type: ignore[override]
            Garbled.calls += 1
            if Garbled.calls == 2:
                raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
            return super().readline(*args)

    out = io.StringIO()
    status = play.run(namespace(preset="beginner"), Garbled("b\nb\nq\n"), out)
    assert status == 0 and "unreadable input" in out.getvalue()
    assert out.getvalue().rstrip().endswith("bye")


def test_a_closed_pipe_ends_quietly() -> None:
    src = str(Path(play.__file__).parents[1])
    done = subprocess.run(
        f"yes b | head -3000 | {sys.executable} -m numsweeper play --preset beginner --seed 1"
        " | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.startswith("numsweeper: beginner") and "Traceback" not in done.stderr
    assert "BrokenPipeError" not in done.stderr
