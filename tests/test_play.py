"""Terminal play: scripted sessions end to end, through a subprocess and run()."""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import time
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
        ("u 1", "u takes no arguments; type ? for help"),
        ("redo now", "redo takes no arguments; type ? for help"),
        ("r", "nothing to redo: no move was undone since the last new move"),
        ("reveal", "usage: reveal ROW COL, e.g. reveal 3 4"),  # only a bare r redoes
        ("save", "usage: save FILE, e.g. save game.json"),
        ("load  ", "usage: load FILE, e.g. load game.json"),
        (
            "save game.txt",
            "cannot save: a saved game's file name must end in .json or .npz, got 'game.txt'",
        ),
        (
            "load game.txt",
            "cannot load 'game.txt': a saved game's file name must end in .json or .npz, "
            "got 'game.txt'",
        ),
        (
            "save /nonexistent/a b.json",
            "cannot save to '/nonexistent/a b.json': No such file or directory",
        ),
        (
            "load /nonexistent/a.json",
            "cannot load '/nonexistent/a.json': No such file or directory",
        ),
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


@pytest.mark.parametrize("where", ["hint", "kernel", "import"])
def test_ctrl_c_during_a_hint_ends_the_game_as_interrupted(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    def hint(game: ns.Game) -> None:
        if where == "hint":
            raise KeyboardInterrupt
        # what numba raises when the Ctrl-C lands in a kernel's callback
        raise SystemError("CPUDispatcher(...) returned a result") from KeyboardInterrupt()

    fake = types.ModuleType("numsweeper.solver")
    fake.hint = hint  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numsweeper.solver", fake)
    if where == "import":  # the solver's first import, as Python reports a Ctrl-C in it

        def import_module(name: str) -> types.ModuleType:
            raise ImportError("initialization failed") from KeyboardInterrupt()

        monkeypatch.setattr(play.importlib, "import_module", import_module)
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


class Ticking(io.StringIO):
    """Commands whose reading moves a fake monotonic clock on by 7 s a line."""

    def __init__(self, text: str, clock: list[float]) -> None:
        super().__init__(text)
        self.clock = clock

    def readline(self, *args: int) -> str:  # type: ignore[override]
        self.clock[0] += 7
        return super().readline(*args)


def test_elapsed_time_runs_from_the_first_reveal(monkeypatch: pytest.MonkeyPatch) -> None:
    # The clock only moves between commands, however often it is read.
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    mines = layout(9, 9, 10, seed=0)
    safe = next((r, c) for r, c in np.argwhere(~mines).tolist() if (r, c) != (0, 0))
    mine = next((r, c) for r, c in np.argwhere(mines).tolist() if (r, c) != (0, 0))
    reference = ns.Game.new(9, 9, 10, seed=0)
    reference.reveal(*safe)
    assert reference.state is ns.GameState.IN_PROGRESS
    script = f"f 0 0\nb\nr {safe[0]} {safe[1]}\nb\nu\nb\nr\nb\nr {mine[0]} {mine[1]}\nq\n"
    out = io.StringIO()
    assert play.run(namespace(preset="beginner"), Ticking(script, clock), out) == 0
    times = [line.split("time: ")[1] for line in out.getvalue().splitlines() if "time:" in line]
    # created at 1000; the reveal is read at 1021; each later line 7 s on
    assert times == [
        "0 s   IN_PROGRESS",  # the first screen
        "0 s   IN_PROGRESS",  # f: a flag does not start the clock
        "0 s   IN_PROGRESS",  # b
        "0 s   IN_PROGRESS",  # r: the clock starts
        "7 s   IN_PROGRESS",  # b
        "0 s   IN_PROGRESS",  # u: the first reveal taken back
        "0 s   IN_PROGRESS",  # b
        "28 s   IN_PROGRESS",  # r: redone with its own time, 1021
        "35 s   IN_PROGRESS",  # b
        "42 s   LOST",  # the mine, and the clock stops
    ]
    assert out.getvalue().rstrip().endswith("after 42 s")


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


MOVES = st.sampled_from(["r", "f", "c", "x", "?", "h", "b", "", "u", "redo", "bare r"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(MOVES, st.integers(-1, 6), st.integers(-1, 6)), max_size=40),
    st.integers(0, 2**16),
)
def test_random_scripts_match_the_game_api(script: list[tuple[str, int, int]], seed: int) -> None:
    """Whatever is typed, the final screen is what the same moves give through Game."""
    reference = ns.Game.new(5, 6, 6, seed=seed)
    lines = []
    ended = False  # a move that ends the game ends the session; undo and redo never do
    for verb, r, c in script:
        if verb in ("r", "f", "c", "x"):
            lines.append(f"{verb} {r} {c}")
        else:
            lines.append("r" if verb == "bare r" else verb)
        if ended:
            continue
        with contextlib.suppress(ns.MinesweeperError):
            if verb == "u":
                reference.undo()
            elif verb in ("redo", "bare r"):
                reference.redo()
            elif verb in ("r", "f", "c"):
                action = {"r": reference.reveal, "f": reference.toggle_flag, "c": reference.chord}
                action[verb](r, c)
                ended = reference.state is not ns.GameState.IN_PROGRESS
    status, out = run("\n".join(lines) + "\nb\n", rows=5, cols=6, mines=6, seed=seed)
    assert status == 0
    screens = out.split("mines left:")
    last = out[: out.rindex("mines left:")].splitlines()[-5:]
    want = render_screen(reference.snapshot()).splitlines()[1:-1]
    assert last == want
    assert len(screens) >= 2


def screens(out: str, rows: int) -> list[str]:
    """Every board printed (one line of column labels), status line included."""
    lines = out.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("mines left:")]
    return ["\n".join(lines[i - rows - 1 : i + 1]) for i in ends]


def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop the clock, so that whole screens, times included, can be compared."""
    monkeypatch.setattr(time, "monotonic", lambda: 5000.0)


Cell = tuple[int, int]


def three_cells(seed: int) -> tuple[Cell, Cell, Cell]:
    """Two safe cells to reveal one after the other and a mine to flag, on beginner
    with first click none, such that neither reveal ends the game."""
    mines = layout(9, 9, 10, seed)
    game = ns.Game.new(9, 9, 10, seed=seed)
    first: Cell = tuple(np.argwhere(~mines)[0].tolist())
    game.reveal(*first)
    hidden = game.snapshot().cells == ns.HIDDEN
    second: Cell = tuple(np.argwhere(hidden & ~mines)[-1].tolist())
    game.reveal(*second)
    assert game.state is ns.GameState.IN_PROGRESS
    flag: Cell = tuple(np.argwhere(mines)[0].tolist())
    return first, second, flag


@pytest.mark.parametrize(("undo", "redo"), [("u", "r"), ("undo", "redo"), ("U", "R")])
def test_undo_and_redo_restore_the_board_exactly(
    monkeypatch: pytest.MonkeyPatch, undo: str, redo: str
) -> None:
    frozen_clock(monkeypatch)
    (r1, c1), (r2, c2), (fr, fc) = three_cells(seed=3)
    script = f"r {r1} {c1}\nf {fr} {fc}\nr {r2} {c2}\n{undo}\n{undo}\n{redo}\n{redo}\nq\n"
    status, out = run(script, preset="beginner", seed=3)
    assert status == 0
    shown = screens(out, 9)
    assert len(shown) == 8  # the first screen, three moves, two undos, two redos
    start, one, flagged, two, undo_two, undo_flag, redo_flag, redo_two = shown
    assert start.count("#") == 81 and two != flagged != one != start
    assert undo_two == flagged and undo_flag == one  # undo restores each screen exactly
    assert redo_flag == flagged and redo_two == two  # and a bare r redoes, not reveals
    game = ns.Game.new(9, 9, 10, seed=3)
    game.reveal(r1, c1)
    game.toggle_flag(fr, fc)
    game.reveal(r2, c2)
    assert two == render_screen(game.snapshot())
    said = [line for line in out.splitlines() if line.startswith(("undid", "redid"))]
    assert said == [
        f"undid reveal {r2} {c2}",
        f"undid flag {fr} {fc}",
        f"redid flag {fr} {fc}",
        f"redid reveal {r2} {c2}",
    ]


def test_nothing_to_undo_or_redo_says_so_and_a_new_move_ends_redo() -> None:
    status, out = run("u\nr\nr 4 4\nu\nf 0 0\nredo\nq\n", preset="beginner", seed=1)
    assert status == 0
    lines = out.splitlines()
    assert lines[12] == "nothing to undo: no move has been made"
    assert lines[13] == "nothing to redo: no move was undone since the last new move"
    assert "undid reveal 4 4" in lines
    assert lines[-2] == "nothing to redo: no move was undone since the last new move"
    assert len(screens(out, 9)) == 4  # the first, r 4 4, u and f; none for the refusals


@pytest.mark.parametrize("name", ["game.json", "my saved game.npz"])
def test_save_then_load_in_a_new_session_gives_the_same_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    frozen_clock(monkeypatch)
    (r1, c1), (r2, c2), (fr, fc) = three_cells(seed=5)
    path = tmp_path / name
    script = f"r {r1} {c1}\nf {fr} {fc}\nr {r2} {c2}\nsave   {path}  \nq\n"
    status, out = run(script, preset="beginner", seed=5)
    assert status == 0 and f"saved to {path}\n" in out and path.is_file()
    one, flagged, saved = screens(out, 9)[1:]
    # A new session on another board: the loaded game replaces it, moves and all.
    status, out = run(f"load {path}\nb\nu\nu\nq\n", preset="expert", seed=9)
    assert status == 0
    assert f"loaded {path}: 9x9, 10 mines, 3 moves" in out
    shown = screens(out, 9)
    assert shown[-4:] == [saved, saved, flagged, one]


def test_a_bad_file_prints_one_line_and_keeps_the_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    frozen_clock(monkeypatch)
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"format": "numsweeper-game", "version": 1, "rows": "9"}')
    torn = tmp_path / "torn.npz"
    torn.write_bytes(b"PK\x03\x04 not really")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    script = f"r 4 4\nload {damaged}\nload {torn}\nload {folder}\nb\nu\nq\n"
    status, out = run(script, preset="beginner", seed=2)
    assert status == 0
    lines = out.splitlines()
    at = lines.index(f"cannot load {str(damaged)!r}: rows must be an integer, got '9'")
    assert lines[at + 1].startswith(f"cannot load {str(torn)!r}: torn.npz is not an .npz archive")
    assert lines[at + 2] == f"cannot load {str(folder)!r}: Is a directory"
    assert lines[at + 3].startswith("   0 1 2")  # then the b screen, and nothing between
    start, revealed, again, undone = screens(out, 9)
    assert again == revealed != start  # the same game,
    assert f"undid reveal 4 4\n{undone}\nbye\n" in out and undone == start  # its moves too


def test_a_loaded_finished_game_stays_open_for_undo(tmp_path: Path) -> None:
    mines = layout(9, 9, 10, seed=6)
    safe = np.argwhere(~mines)[0].tolist()
    mine = np.argwhere(mines)[0].tolist()
    game = ns.Game.new(9, 9, 10, seed=6)
    game.reveal(*safe)
    game.reveal(*mine)
    path = tmp_path / "lost.npz"
    ns.save_game(game, path)
    script = f"load {path}\nr 0 0\nu\nr\nu\nr {mine[0]} {mine[1]}\nq\n"
    status, out = run(script, preset="beginner", seed=1)
    assert status == 0
    lines = out.splitlines()[12:]  # after the greeting and the first screen
    lost = f"*** LOST *** you hit a mine at {mine[0]} {mine[1]} after "
    assert lines[0] == f"loaded {path}: 9x9, 10 mines, 2 moves"
    assert "\n".join(lines[1:12]) == render_screen(game.snapshot(), elapsed=game.elapsed)
    assert lines[12].startswith(lost) and lines[12].endswith(" s -- u takes back the last move")
    assert lines[13] == "not allowed: cannot reveal (0, 0): the game is already LOST"
    assert lines[14] == f"undid reveal {mine[0]} {mine[1]}" and lines[25].endswith("IN_PROGRESS")
    assert lines[26] == f"redid reveal {mine[0]} {mine[1]}"  # redo into a loss stays open too
    assert lines[37].endswith("LOST") and lines[38].startswith(lost)
    assert lines[38].endswith("u takes back the last move")
    assert lines[39] == f"undid reveal {mine[0]} {mine[1]}" and lines[50].endswith("IN_PROGRESS")
    # A new move that loses ends the session as always: q is never read.
    assert lines[61].endswith("LOST") and lines[62].startswith(lost) and len(lines) == 63
    assert not lines[62].endswith("move") and "bye" not in out


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


def test_curses_mode_undoes_with_u() -> None:
    right, down = b"\x1bOC", b"\x1bOB"
    status, out = play_in_a_terminal(
        [b"f", right, down, b"f", b"u", right, b"u", b"u", b"q"],
        "--rows", "3", "--cols", "4", "--mines", "2", "--seed", "1",
    )  # fmt: skip
    assert status == 0
    assert "nothing to undo" in out  # the third u
    final = out[out.rindex("numsweeper: custom") :].replace("\r", "").splitlines()
    assert final[2:5] == ["0  # # # #", "1  # # # #", "2  # # # #"]


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
