"""Play Minesweeper in a terminal: ``numsweeper play``.

A line-oriented front end on the public :class:`~numsweeper.Game` API, so it
works the same typed by hand or scripted through a pipe::

    $ printf 'r 4 4\\nf 0 0\\nq\\n' | numsweeper play --preset beginner --seed 1

Commands (``ROW COL`` count from 0, as the labels show):

===============  ====================================================
``r ROW COL``    reveal a cell
``f ROW COL``    flag or unflag a cell
``c ROW COL``    chord: reveal around a number whose flags are all set
``u``            undo: take back the last move (also ``undo``)
``r``            redo: play the last move taken back again (also ``redo``)
``save FILE``    save the game to FILE, ``.json`` or ``.npz``
``load FILE``    replace the game with one saved in FILE
``h``            hint (needs :mod:`numsweeper.solver`)
``b``            show the board again
``?``            help
``q``            quit
===============  ====================================================

A malformed or illegal command prints one line and changes nothing.  A
move that wins or loses shows WON or LOST and the full board, and ends the
session.  ``q`` and the end of input exit with status 0.

``r`` with ``ROW COL`` reveals; alone it redoes.  FILE is the rest of the
line, spaces included (``~`` is the home directory); ``save`` replaces an
existing file.  The clock is the game's own (:attr:`Game.elapsed
<numsweeper.Game.elapsed>`), so it follows undo, redo, save and load.
Undo, redo and load never end the session: when they lead to a finished
game it is shown with its result, and ``u`` takes the last move back.

``--curses`` plays full screen instead: arrow keys move a cursor, space or
``r`` reveals (there is always a cell under the cursor, so ``r`` never
redoes there), ``f`` flags, ``c`` chords, ``u`` undoes, ``h`` hints and
``q`` quits; boards larger than the terminal scroll with the cursor.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import secrets
import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ._constants import EXPLODED, FLAG, HIDDEN, MINE, PRESETS, WRONG_FLAG
from ._runner import from_ctrl_c
from ._validate import non_negative_int, positive_int
from .errors import MinesweeperError
from .game import Game, GameState, Snapshot
from .records import load_game, save_game
from .render import SYMBOLS

__all__ = ["HELP", "add_parser", "main", "render_screen", "run"]

HELP = """\
commands (ROW and COL count from 0, as labelled):
  r ROW COL   reveal a cell            f ROW COL   flag or unflag a cell
  c ROW COL   chord around a number    h           hint
  u           undo the last move       r           redo (r without ROW COL)
  save FILE   save (.json or .npz)     load FILE   load a saved game
  b           show the board again     ?           this help
  q           quit
symbols: # hidden  F flag  . empty  1-8 mines around  * mine  X exploded  ! wrong flag"""

_VERBS = {
    "r": "reveal",
    "reveal": "reveal",
    "o": "reveal",
    "open": "reveal",
    "f": "flag",
    "flag": "flag",
    "c": "chord",
    "chord": "chord",
    "u": "undo",
    "undo": "undo",
    "redo": "redo",
    "save": "save",
    "load": "load",
    "h": "hint",
    "hint": "hint",
    "b": "board",
    "board": "board",
    "?": "help",
    "help": "help",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
}

# ANSI colours for a real terminal: the traditional digit colours as near as
# 16-colour terminals get.
_ANSI = {
    1: "94",
    2: "32",
    3: "91",
    4: "34",
    5: "31",
    6: "36",
    7: "37",
    8: "90",
    int(FLAG): "1;91",
    int(MINE): "1",
    int(EXPLODED): "1;97;41",
    int(WRONG_FLAG): "1;95",
    int(HIDDEN): "90",
}


#: The largest board ``play`` draws (1000 x 1000): bigger ones cannot be
#: read on a screen, and would take long to build before the first frame.
_MAX_CELLS = 1_000_000


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    size = parser.add_argument_group("board (a preset, or all of --rows, --cols and --mines)")
    size.add_argument("--preset", choices=list(PRESETS), help="named board (default: beginner)")
    size.add_argument("--rows", type=positive_int, metavar="R", help="number of rows")
    size.add_argument("--cols", type=positive_int, metavar="C", help="number of columns")
    size.add_argument("--mines", type=non_negative_int, metavar="M", help="number of mines")
    parser.add_argument(
        "--seed", type=non_negative_int, metavar="S", help="seed for the layout (random, printed)"
    )
    parser.add_argument(
        "--first-click",
        choices=["safe", "opening", "none"],
        default="safe",
        help="safe: the first cell is never a mine (default); opening: it always opens "
        "an area; none: mines are laid before the first click",
    )
    parser.add_argument(
        "--curses",
        action="store_true",
        help="full-screen mode with cursor keys (needs a terminal)",
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``play`` subcommand on an argparse subparsers object.

    The subcommand's handler is stored as the ``func`` default, so a CLI can
    dispatch with ``args.func(args)``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers()`` returned.

    Returns
    -------
    argparse.ArgumentParser
        The ``play`` parser.

    Examples
    --------
    >>> import argparse
    >>> from numsweeper import play
    >>> parser = argparse.ArgumentParser(prog="numsweeper")
    >>> _ = play.add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["play", "--preset", "expert", "--seed", "3"])
    >>> args.command, args.preset, args.seed, args.first_click, args.func is play.run
    ('play', 'expert', 3, 'safe', True)
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "play",
        help="play a game in the terminal",
        description="Play Minesweeper in the terminal; commands are read line by line, "
        "so a game can be scripted through a pipe.",
        epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    parser.set_defaults(func=run)
    return parser


def _new_game(args: argparse.Namespace) -> tuple[Game, str]:
    """The game the arguments ask for, and a one-line description of it."""
    dims = (args.rows, args.cols, args.mines)
    given = [d is not None for d in dims]
    if args.preset is not None and any(given):
        raise ValueError("give --preset or --rows/--cols/--mines, not both")
    if any(given) and not all(given):
        raise ValueError("--rows, --cols and --mines go together: give all three")
    if all(given) and args.rows * args.cols > _MAX_CELLS:
        raise ValueError(
            f"a {args.rows}x{args.cols} board is too big to play in a terminal "
            f"(at most {_MAX_CELLS:,} cells; the Game API takes any size)"
        )
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    rule = None if args.first_click == "none" else args.first_click
    if all(given):
        name = "custom"
        game = Game.new(args.rows, args.cols, args.mines, seed=seed, first_click=rule)
    else:
        name = args.preset or "beginner"
        game = Game.from_preset(name, seed=seed, first_click=rule)
    mines = f"{game.mine_count} mine{'' if game.mine_count == 1 else 's'}"
    about = f"{name} {game.rows}x{game.cols}, {mines}, first click: {args.first_click}, seed {seed}"
    return game, about


def render_screen(snap: Snapshot, *, elapsed: float = 0.0, color: bool = False) -> str:
    """Draw a snapshot with row and column labels and a status line.

    Columns take two characters each; labels of 10 or more columns are
    written downwards (tens above units).

    Parameters
    ----------
    snap : Snapshot
        What to draw.
    elapsed : float
        Seconds shown in the status line.
    color : bool
        Use ANSI colours (for a real terminal).

    Returns
    -------
    str

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.play import render_screen
    >>> game = ns.Game.new(3, 11, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.reveal(2, 10)
    >>> print(render_screen(game.snapshot(), elapsed=7.4))
                           1
       0 1 2 3 4 5 6 7 8 9 0
    0  F 1 . . . . . . . . .
    1  1 1 . . . . . . . . .
    2  . . . . . . . . . . .
    mines left: 1   time: 7 s   WON
    """
    rows, cols = snap.rows, snap.cols
    pad = len(str(rows - 1))
    labels = [str(c).rjust(len(str(cols - 1))) for c in range(cols)]
    lines = []
    for place in range(len(labels[0])):
        digits = " ".join(label[place] for label in labels)
        lines.append(" " * (pad + 2) + digits)
    codes = snap.cells
    symbols = np.array([SYMBOLS[code] for code in range(-5, 9)], dtype=object)
    if color:
        symbols = np.array(
            [
                f"\x1b[{_ANSI[code]}m{SYMBOLS[code]}\x1b[0m" if code in _ANSI else SYMBOLS[code]
                for code in range(-5, 9)
            ],
            dtype=object,
        )
    grid = symbols[codes.astype(np.intp) + 5]
    for r in range(rows):
        lines.append(f"{r:>{pad}}  " + " ".join(grid[r]))
    lines.append(f"mines left: {snap.mines_left}   time: {int(elapsed)} s   {snap.state.name}")
    return "\n".join(lines)


class _Session:
    """One game at the terminal: parses commands and prints the results."""

    def __init__(
        self,
        game: Game,
        out: TextIO,
        *,
        color: bool,
    ) -> None:
        self.game = game
        self.out = out
        self.color = color

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def show(self) -> None:
        self.say(render_screen(self.game.snapshot(), elapsed=self.game.elapsed, color=self.color))

    def handle(self, line: str) -> bool:
        """Carry out one command line; False when the session should end."""
        words = line.replace(",", " ").split()
        if not words:
            return True
        verb = _VERBS.get(words[0].lower())
        if verb is None:
            self.say(f"unknown command {words[0]!r}; type ? for help")
            return True
        if len(words) == 1 and words[0].lower() == "r":
            verb = "redo"  # ``r ROW COL`` reveals; a bare ``r`` has no cell to reveal
        if verb in ("save", "load"):
            parts = line.split(maxsplit=1)  # the file name keeps its spaces and commas
            if len(parts) < 2:
                self.say(f"usage: {words[0]} FILE, e.g. {words[0]} game.json")
            elif verb == "save":
                self.save(Path(parts[1].strip()).expanduser())
            else:
                self.load(Path(parts[1].strip()).expanduser())
            return True
        if verb in ("help", "board", "hint", "quit", "undo", "redo"):
            if len(words) > 1:
                self.say(f"{words[0]} takes no arguments; type ? for help")
            elif verb == "quit":
                self.say("bye")
                return False
            elif verb == "help":
                self.say(HELP)
            elif verb == "board":
                self.show()
            elif verb == "hint":
                self.hint()
            else:
                self.step(verb)
            return True
        return self.move(verb, words)

    def move(self, verb: str, words: list[str]) -> bool:
        if len(words) != 3:
            self.say(f"usage: {words[0]} ROW COL, e.g. {words[0]} 3 4")
            return True
        try:
            row, col = int(words[1]), int(words[2])
        except ValueError:
            self.say(f"ROW and COL must be whole numbers, got {words[1]!r} {words[2]!r}")
            return True
        game = self.game
        if not (0 <= row < game.rows and 0 <= col < game.cols):
            self.say(
                f"({row}, {col}) is off the board: rows 0..{game.rows - 1}, cols 0..{game.cols - 1}"
            )
            return True
        before = game.snapshot()
        try:
            if verb == "flag":
                game.toggle_flag(row, col)
            else:
                result = game.reveal(row, col) if verb == "reveal" else game.chord(row, col)
                if len(result) == 0:
                    self.say(self.no_op(verb, before, row, col))
                    return True
        except MinesweeperError as exc:
            self.say(f"not allowed: {exc}")
            return True
        self.show()
        if game.state is not GameState.IN_PROGRESS:
            self.finish()
            return False
        return True

    def no_op(self, verb: str, before: Snapshot, row: int, col: int) -> str:
        if verb == "reveal":
            return f"({row}, {col}) is already revealed"
        value = int(before.cells[row, col])
        if value <= 0:
            return f"nothing to chord at ({row}, {col}): chord a revealed number"
        return (
            f"nothing to chord at ({row}, {col}): it needs exactly {value} "
            f"flag{'s' if value > 1 else ''} around it and a hidden cell to open"
        )

    def step(self, verb: str) -> None:
        """Undo or redo one move and show the board; a finished game stays open."""
        try:
            move = self.game.undo() if verb == "undo" else self.game.redo()
        except MinesweeperError as exc:
            self.say(_one_line(exc))
            return
        self.say(f"{'undid' if verb == 'undo' else 'redid'} {move.kind} {move.row} {move.col}")
        self.show()
        if self.game.state is not GameState.IN_PROGRESS:
            self.finish(undoable=True)

    def save(self, path: Path) -> None:
        try:
            save_game(self.game, path)
        except OSError as exc:  # (strerror: the message would name save's temporary file)
            self.say(f"cannot save to {str(path)!r}: {exc.strerror or _one_line(exc)}")
        except (MinesweeperError, ValueError) as exc:  # (ValueError: a NUL in the name)
            self.say(f"cannot save: {_one_line(exc)}")
        else:
            self.say(f"saved to {path}")

    def load(self, path: Path) -> None:
        """Replace the game with a saved one; on any failure keep the current game."""
        try:
            game = load_game(path, max_cells=_MAX_CELLS)  # (refused from its header)
        except OSError as exc:
            self.say(f"cannot load {str(path)!r}: {exc.strerror or _one_line(exc)}")
            return
        except (MinesweeperError, ValueError) as exc:
            self.say(f"cannot load {str(path)!r}: {_one_line(exc)}")
            return
        except MemoryError:
            self.say(f"cannot load {str(path)!r}: it does not fit in memory")
            return
        self.game = game
        count = len(game.moves)
        self.say(
            f"loaded {path}: {game.rows}x{game.cols}, "
            f"{game.mine_count} mine{'' if game.mine_count == 1 else 's'}, "
            f"{count} move{'' if count == 1 else 's'}"
        )
        self.show()
        if game.state is not GameState.IN_PROGRESS:
            self.finish(undoable=True)

    def finish(self, *, undoable: bool = False) -> None:
        """Say how the game ended; ``undoable`` adds how to take the end back."""
        seconds = int(self.game.elapsed)
        if self.game.state is GameState.WON:
            text = f"*** WON *** board cleared in {seconds} s"
        else:
            hit = np.argwhere(self.game.snapshot().cells == EXPLODED).tolist()
            where = f" at {', '.join(f'{r} {c}' for r, c in hit)}" if hit else ""
            text = f"*** LOST *** you hit a mine{where} after {seconds} s"
        if undoable and self.game.moves:
            text += " -- u takes back the last move"
        self.say(text)

    def hint(self) -> None:
        try:
            # Looked up at run time: the solver is optional for this module.
            hint = importlib.import_module("numsweeper.solver").hint
        except (ImportError, AttributeError) as exc:
            if from_ctrl_c(exc):  # (a Ctrl-C in a compiled module's import)
                raise KeyboardInterrupt from exc
            self.say("hints need the solver (numsweeper.solver), which this installation lacks")
            return
        try:
            advice = hint(self.game)
        except SystemError as exc:
            if from_ctrl_c(exc):  # (a Ctrl-C inside a compiled kernel)
                raise KeyboardInterrupt from exc
            self.say(f"no hint: {exc}")
            return
        except Exception as exc:  # a failing hint must not end the game
            self.say(f"no hint: {exc}")
            return
        row, col = int(advice.row), int(advice.col)
        if advice.certain:
            self.say(f"hint: reveal {row} {col} (certainly safe)")
        else:
            self.say(f"hint: reveal {row} {col} (mine probability {advice.probability:.1%})")


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line, as every message of a session is."""
    return " ".join(str(exc).split())


def run(
    args: argparse.Namespace,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game, reading commands from ``stdin``; return the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``play`` arguments: ``preset``, ``rows``, ``cols``, ``mines``,
        ``seed``, ``first_click`` and optionally ``curses`` (full-screen
        mode, which needs both streams to be a terminal).
    stdin, stdout : text streams, optional
        Where commands come from and where the board goes;
        ``sys.stdin`` and ``sys.stdout`` (looked up at call time) by default.

    Returns
    -------
    int
        0 when the game ends, on ``q`` and at the end of input; 2 for bad
        arguments, or ``--curses`` without a terminal (the message goes to
        standard error); 130 after Ctrl-C.

    Examples
    --------
    >>> import argparse, io
    >>> from numsweeper import play
    >>> args = argparse.Namespace(preset=None, rows=1, cols=3, mines=1, seed=0,
    ...                           first_click="none")
    >>> out = io.StringIO()
    >>> play.run(args, io.StringIO("zap\\nq\\n"), out)
    0
    >>> print(out.getvalue())
    numsweeper: custom 1x3, 1 mine, first click: none, seed 0 -- type ? for help
       0 1 2
    0  # # #
    mines left: 1   time: 0 s   IN_PROGRESS
    unknown command 'zap'; type ? for help
    bye
    <BLANKLINE>
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    try:
        game, about = _new_game(args)
    except (ValueError, TypeError) as exc:
        print(f"numsweeper play: error: {exc} (see --help)", file=sys.stderr)
        return 2
    interactive = bool(getattr(stdin, "isatty", lambda: False)())
    if getattr(args, "curses", False):
        if not (interactive and stdout.isatty()):
            print("numsweeper play: error: --curses needs a terminal", file=sys.stderr)
            return 2
        return _run_curses(game, about, stdout)
    color = bool(getattr(stdout, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ
    session = _Session(game, stdout, color=color)
    session.say(f"numsweeper: {about} -- type ? for help")
    session.show()
    while True:
        if interactive:
            stdout.write("> ")
            stdout.flush()
        try:
            line = stdin.readline()
            if line and not session.handle(line):  # (a slow hint can be interrupted)
                return 0
        except KeyboardInterrupt:
            session.say("\ninterrupted")
            return 130
        except UnicodeDecodeError:  # (the rest of that line is lost with it)
            session.say("unreadable input (not text in the terminal's encoding); type ? for help")
            continue
        if not line:
            session.say("bye (end of input)")
            return 0


_CURSES_KEYS = "arrows move  space/r reveal  f flag  c chord  u undo  h hint  q quit"


class _Quiet(_Session):
    """A session that keeps its last message instead of printing it."""

    def __init__(self, game: Game) -> None:
        super().__init__(game, sys.stdout, color=False)
        self.message = ""

    def say(self, text: str) -> None:
        self.message = text

    def show(self) -> None:
        pass


def _run_curses(game: Game, about: str, stdout: TextIO) -> int:
    """Full-screen play; afterwards the final board is printed as in line mode."""
    import curses

    session = _Quiet(game)
    session.message = "? " + _CURSES_KEYS

    def loop(screen: Any) -> None:
        curses.curs_set(0)
        screen.keypad(True)
        screen.timeout(500)  # redraw the clock twice a second
        digit_pair = _curses_colors(curses)
        row = col = 0
        top = left = 0
        while True:
            height, width = screen.getmaxyx()
            view_rows = max(height - 5, 1)
            view_cols = max((width - 6) // 2, 1)
            top = min(max(top, row - view_rows + 1), row)
            left = min(max(left, col - view_cols + 1), col)
            snap = game.snapshot()
            screen.erase()
            _put(screen, 0, 0, f"numsweeper: {about}")
            units = " ".join(str(c % 10) for c in range(left, min(left + view_cols, game.cols)))
            _put(screen, 1, 5, units)
            for i in range(min(view_rows, game.rows - top)):
                r = top + i
                _put(screen, 2 + i, 0, f"{r:>4} ")
                for j in range(min(view_cols, game.cols - left)):
                    c = left + j
                    code = int(snap.cells[r, c])
                    attr = digit_pair.get(code, 0)
                    if (r, c) == (row, col):
                        attr |= curses.A_REVERSE
                    _put(screen, 2 + i, 5 + 2 * j, SYMBOLS[code], attr)
            status = (
                f"row {row} col {col}   mines left: {snap.mines_left}   "
                f"time: {int(game.elapsed)} s   {snap.state.name}"
            )
            _put(screen, height - 2, 0, status)
            _put(screen, height - 1, 0, session.message)
            screen.refresh()
            key = screen.getch()
            if key == -1:
                continue
            if game.state is not GameState.IN_PROGRESS:
                return
            moves = {
                curses.KEY_UP: (-1, 0),
                curses.KEY_DOWN: (1, 0),
                curses.KEY_LEFT: (0, -1),
                curses.KEY_RIGHT: (0, 1),
            }
            if key in moves:
                dr, dc = moves[key]
                row = min(max(row + dr, 0), game.rows - 1)
                col = min(max(col + dc, 0), game.cols - 1)
                continue
            char = chr(key).lower() if 0 <= key < 256 else ""
            if char == "q":
                session.message = "bye"
                return
            command = {" ": "r", "r": "r", "f": "f", "c": "c"}.get(char)
            if command:
                session.message = ""
                session.handle(f"{command} {row} {col}")
                if game.state is not GameState.IN_PROGRESS:
                    session.message += "  (press any key)"
            elif char == "u":
                session.handle("u")
            elif char == "h":
                session.hint()
            else:
                session.message = "? " + _CURSES_KEYS

    try:
        curses.wrapper(loop)  # restores the terminal however the loop ends
    except KeyboardInterrupt:
        print("interrupted", file=stdout)
        return 130
    print(f"numsweeper: {about}", file=stdout)
    print(render_screen(game.snapshot(), elapsed=game.elapsed), file=stdout)
    print(session.message.replace("  (press any key)", ""), file=stdout, flush=True)
    return 0


def _curses_colors(curses: Any) -> dict[int, int]:
    """Colour attributes per visible code, where the terminal has colours."""
    if not curses.has_colors():
        return {}
    curses.start_color()
    curses.use_default_colors()
    palette = {
        1: curses.COLOR_BLUE,
        2: curses.COLOR_GREEN,
        3: curses.COLOR_RED,
        4: curses.COLOR_BLUE,
        5: curses.COLOR_RED,
        6: curses.COLOR_CYAN,
        7: curses.COLOR_WHITE,
        8: curses.COLOR_WHITE,
        int(FLAG): curses.COLOR_RED,
        int(EXPLODED): curses.COLOR_RED,
        int(WRONG_FLAG): curses.COLOR_MAGENTA,
    }
    attrs = {}
    for pair, (code, color) in enumerate(palette.items(), start=1):
        curses.init_pair(pair, color, -1)
        attrs[code] = curses.color_pair(pair) | (curses.A_BOLD if code in (4, 5, 7) else 0)
    return attrs


def _put(screen: Any, y: int, x: int, text: str, attr: int = 0) -> None:
    """Write what fits of ``text``; curses raises on the last cell otherwise."""
    height, width = screen.getmaxyx()
    if 0 <= y < height and x < width:
        import curses

        with contextlib.suppress(curses.error):
            screen.addnstr(y, x, text, width - x - (1 if y == height - 1 else 0), attr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m numsweeper.play``: parse ``argv`` and play.

    Parameters
    ----------
    argv : list of str, optional
        Arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit status of :func:`run`.

    Examples
    --------
    >>> import io, sys
    >>> from numsweeper.play import main
    >>> main(["--rows", "2"])
    2
    """
    parser = argparse.ArgumentParser(
        prog="numsweeper play",
        description="Play Minesweeper in the terminal.",
        epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
