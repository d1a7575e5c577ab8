"""The ``numsweeper`` command: bulk simulation and board statistics from the shell.

Presentation only: every subcommand calls the same public API as any user.
Run ``numsweeper --help`` or ``python -m numsweeper --help``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from . import __version__
from ._constants import PRESETS
from ._runner import Done, Hooks, Runner, check_chunks, from_ctrl_c, idle_workers
from ._validate import (
    check_board,
    check_workers,
    count_text,
    non_negative_int,
    positive_int,
    rule_text,
)
from .batch import DEFAULT_CHUNK_SIZE, generate_boards
from .errors import IdleWorkersWarning, MinesweeperError
from .metrics import board_stats
from .simulate import POLICY_NAMES, simulate

__all__ = ["SUBCOMMAND_MODULES", "main"]

# ---------------------------------------------------------------------------
# Subcommands that live in modules of their own.  Each module exposes
# ``add_parser(subparsers)``, which adds one subcommand to the ``argparse``
# sub-parsers and sets ``func`` (a callable ``args -> exit code``).
SUBCOMMAND_MODULES: list[str] = ["numsweeper.play", "numsweeper.server.cli"]
# ---------------------------------------------------------------------------

_RULES = {"none": None, "safe": "safe", "opening": "opening"}
_PERCENTILES = (1, 5, 25, 50, 75, 95, 99)
_STATS = (("3BV", "three_bv"), ("openings", "openings"), ("islands", "islands"))


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit with code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _add_board_options(parser: argparse.ArgumentParser, *, rule: str) -> None:
    board = parser.add_argument_group("board (a preset, or --rows/--cols/--mines together)")
    board.add_argument(
        "--preset", choices=list(PRESETS), default="expert", help="board preset (default: expert)"
    )
    board.add_argument("--rows", type=positive_int, help="rows (replaces --preset)")
    board.add_argument("--cols", type=positive_int, help="columns (replaces --preset)")
    board.add_argument("--mines", type=non_negative_int, help="mines (replaces --preset)")
    board.add_argument(
        "--first-click",
        choices=list(_RULES),
        default=rule,
        help=f"first-click rule (default: {rule})",
    )
    parser.add_argument("--seed", type=non_negative_int, help="root seed (default: fresh, printed)")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: on when stderr is a terminal and tqdm is installed)",
    )


def _board(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[int, int, int]:
    """Rows, cols and mines from --preset or --rows/--cols/--mines, validated."""
    given = [args.rows, args.cols, args.mines]
    if any(v is not None for v in given):
        if any(v is None for v in given):
            parser.error("--rows, --cols and --mines must be given together")
        dims = (args.rows, args.cols, args.mines)
    else:
        dims = PRESETS[args.preset]
    try:
        rows, cols, mines, _ = check_board(*dims, args.first_click)
    except MinesweeperError as exc:
        parser.error(str(exc))
    return rows, cols, mines


def _want_progress(parser: argparse.ArgumentParser, args: argparse.Namespace) -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        if args.progress:
            parser.error("--progress needs tqdm: pip install 'numsweeper[progress]'")
        return False
    return bool(sys.stderr.isatty()) if args.progress is None else bool(args.progress)


# -- simulate ------------------------------------------------------------------


def _add_simulate(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play many games with a policy and summarise them",
        description="Play many games with a policy, in reproducible chunks, and print a "
        "summary: games, win rate with its 95% Wilson interval, mean 3BV, games per "
        "second and the seed that repeats the run.",
    )
    parser.add_argument("--games", type=positive_int, default=10_000, help="default: 10000")
    parser.add_argument(
        "--policy", choices=list(POLICY_NAMES), default="random", help="default: random"
    )
    _add_workers(parser)
    parser.add_argument(
        "--chunk-size",
        type=positive_int,
        default=2000,
        help="games per chunk; a worker plays one chunk at a time, and the games depend on "
        "the chunk size as on --seed (default: 2000)",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write one record per game, with the run's metadata: .csv, or .parquet "
        "(needs the tables extra)",
    )
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help="also record every move and write them here (.csv or .parquet)",
    )
    _add_no_guess(parser)
    _add_board_options(parser, rule="opening")
    parser.set_defaults(func=_simulate, parser=parser)


def _add_no_guess(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-guess",
        nargs="?",
        const="uniform",
        choices=["uniform", "fast"],
        metavar="METHOD",
        help="no-guess boards from the first click (needs --first-click safe or opening): "
        "'uniform' (the default METHOD) is exactly uniform over them, 'fast' repairs "
        "candidates and is biased",
    )
    parser.add_argument(
        "--max-attempts",
        type=int,
        default=None,
        metavar="N",
        help="with --no-guess: candidate layouts per board before giving up (default: 10,000)",
    )


def _no_guess(parser: argparse.ArgumentParser, args: argparse.Namespace, rule: str | None) -> None:
    """Refuse --no-guess without a first-click rule: no-guess is defined from the first click."""
    if args.no_guess is not None and rule is None:
        parser.error("--no-guess needs --first-click safe or opening")
    if args.max_attempts is not None:
        if args.no_guess is None:
            parser.error("--max-attempts needs --no-guess")
        if args.max_attempts < 1:
            parser.error(f"--max-attempts must be >= 1, got {args.max_attempts}")


def _add_workers(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=positive_int, default=1, help="worker processes (default: 1)"
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the chunks on this running dask.distributed scheduler, e.g. "
        "tcp://10.0.0.5:8786 (needs the dask extra); results are those of --workers 1",
    )


def _note_idle_workers(args: argparse.Namespace, total: int, noun: str) -> None:
    """Say on stderr when a run has fewer chunks than ``--workers``: some would sit idle."""
    note = idle_workers(args.workers, total, args.chunk_size, noun, command_line=True)
    if note is not None:
        print(f"numsweeper {args.command}: note: {note}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _executor(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Iterator[Any]:
    """The dask client's executor for --scheduler (closed afterwards), or None."""
    if args.scheduler is None:
        yield None
        return
    try:
        distributed = importlib.import_module("dask.distributed")
    except ImportError:
        parser.error("--scheduler needs dask.distributed: pip install 'numsweeper[dask]'")
    try:
        client = distributed.Client(args.scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        parser.error(f"--scheduler {args.scheduler!r}: {exc}")
    with client:
        yield client.get_executor()


def _check_out(parser: argparse.ArgumentParser, out: str | None, option: str = "--out") -> None:
    """Refuse an output path that cannot be written before any game is played."""
    if out is None:
        return
    if not out:
        parser.error(f"{option} needs a file name")
    path = Path(out)
    if out.endswith(("/", os.sep)) or path.is_dir():
        parser.error(f"{option} {out!r} is a directory")
    if not path.parent.is_dir():
        parser.error(f"{option} {out!r}: no directory {str(path.parent)!r}")
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        parser.error(f"{option} {out!r} is not writable")
    if not out.endswith((".csv", ".parquet")):
        parser.error(f"{option} {out!r} must end in .csv or .parquet")


def _simulate(args: argparse.Namespace) -> int:
    parser = args.parser
    rows, cols, mines = _board(parser, args)
    _no_guess(parser, args, _RULES[args.first_click])
    _check_out(parser, args.out)
    _check_out(parser, args.trace, "--trace")
    if args.out and args.trace and Path(args.out).resolve() == Path(args.trace).resolve():
        parser.error(f"--out and --trace both name {args.out!r}: give each its own file")
    for out in (args.out, args.trace):
        if out is not None and out.endswith(".parquet"):
            try:
                importlib.import_module("pyarrow")
            except ImportError:
                parser.error(f"{out!r}: Parquet needs pyarrow: pip install 'numsweeper[tables]'")
    progress = _want_progress(parser, args)
    check_workers(args.workers)
    _note_idle_workers(args, args.games, "game")
    with _executor(parser, args) as executor, warnings.catch_warnings():
        warnings.simplefilter("ignore", IdleWorkersWarning)  # (the note above said it)
        try:
            result = simulate(
                args.games,
                rows,
                cols,
                mines,
                policy=args.policy,
                first_click=_RULES[args.first_click],
                seed=args.seed,
                strategy=_strategy(args.no_guess, max_attempts=args.max_attempts),
                workers=args.workers,
                executor=executor,
                chunk_size=args.chunk_size,
                progress=progress,
                trace=args.trace is not None,
            )
        except ImportError as exc:  # policy='solver' before the solver exists
            parser.error(str(exc))
    print(result.summary())
    for option, out, which in (("--out", args.out, "records"), ("--trace", args.trace, "moves")):
        if not out:
            continue
        try:
            if out.endswith(".parquet"):
                result.to_parquet(out, which=which)
            else:
                result.to_csv(out, which=which)
        except OSError as exc:  # the path went bad while the games ran
            reason = exc.strerror or str(exc)
            print(f"{parser.prog}: error: {option} {out!r}: {reason}", file=sys.stderr)
            return 2
        print(f"{which:<12} {out}")
    return 130 if result.interrupted else 0


def _strategy(method: str | None, seed: Any = None, max_attempts: int | None = None) -> Any:
    """``NoGuessPlacement(seed, method=method)`` for --no-guess, else None (uniform boards)."""
    if method is None:
        return None
    from .noguess import DEFAULT_MAX_ATTEMPTS, NoGuessPlacement

    return NoGuessPlacement(seed, method=method, max_attempts=max_attempts or DEFAULT_MAX_ATTEMPTS)


# -- stats ---------------------------------------------------------------------


def _add_stats(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="3BV, openings and islands of many random boards",
        description="Generate boards in chunks (constant memory) and print the mean, sd "
        "and percentiles of 3BV, openings and islands, with a histogram of 3BV.",
    )
    parser.add_argument(
        "--boards", type=positive_int, default=100_000, help="number of boards (default: 100000)"
    )
    parser.add_argument(
        "--click",
        nargs=2,
        type=non_negative_int,
        metavar=("ROW", "COL"),
        help="the first click that --first-click keeps safe (required with a rule)",
    )
    parser.add_argument(
        "--chunk-size",
        type=positive_int,
        default=DEFAULT_CHUNK_SIZE,
        help="boards per chunk; memory grows with it, and the boards depend on it as on "
        f"--seed (default: {DEFAULT_CHUNK_SIZE})",
    )
    _add_workers(parser)
    _add_no_guess(parser)
    _add_board_options(parser, rule="none")
    parser.set_defaults(func=_stats, parser=parser)


def _stats_chunk(
    index: int,
    seed: np.random.SeedSequence,
    size: int,
    rows: int,
    cols: int,
    mines: int,
    rule: str | None,
    click: tuple[int, int] | None,
    no_guess: str | None = None,
    max_attempts: int | None = None,
    *,
    hooks: Hooks | None = None,
) -> Done:
    """Histograms of 3BV, openings and islands over one chunk of boards."""
    strategy = _strategy(no_guess, seed, max_attempts)
    boards = generate_boards(
        size,
        rows,
        cols,
        mines,
        seed=seed if strategy is None else None,
        strategy=strategy,
        first_click=rule,
        click=click,
    )
    stats = board_stats(boards)
    if hooks is not None and hooks.report is not None:
        hooks.report(size, 0)
    return Done({key: np.bincount(stats[key]) for _, key in _STATS})


def _stats(args: argparse.Namespace) -> int:
    parser = args.parser
    rows, cols, mines = _board(parser, args)
    rule = _RULES[args.first_click]
    if args.click is not None:
        if rule is None:
            parser.error("--click needs --first-click safe or opening")
        if not (args.click[0] < rows and args.click[1] < cols):
            parser.error(f"--click {args.click[0]} {args.click[1]} is off the {rows}x{cols} board")
    elif rule is not None:
        parser.error(f"--first-click {args.first_click} needs --click ROW COL")
    _no_guess(parser, args, rule)
    check_workers(args.workers)
    check_chunks(args.boards, args.chunk_size, "boards")
    _note_idle_workers(args, args.boards, "board")
    if args.seed is None:  # drawn here, so that the report can print it
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)  # (a fresh SeedSequence draws one int)
        args.seed = entropy
    bar = None
    if _want_progress(parser, args):
        from tqdm import tqdm

        bar = tqdm(total=args.boards, unit="board", file=sys.stderr, dynamic_ncols=True)

    # Chunk i is iter_boards' chunk i: child i of the root seed, whoever runs it.
    root = np.random.SeedSequence(args.seed)
    starts = range(0, args.boards, args.chunk_size)
    children = root.spawn(len(starts))
    click = None if args.click is None else tuple(args.click)
    tasks = [
        (i, child, min(args.chunk_size, args.boards - start), rows, cols, mines, rule, click)
        + (args.no_guess, args.max_attempts)
        for i, (start, child) in enumerate(zip(starts, children, strict=True))
    ]
    with _executor(parser, args) as executor:
        runner = Runner(
            args.workers,
            executor,
            on_progress=None if bar is None else (lambda boards, _: bar.update(boards)),
        )
        hists, done = _gather(runner, tasks, bar)
    interrupted = runner.interrupted
    elapsed = time.perf_counter() - runner.began
    print(_stats_report(hists, rows, cols, mines, rule, args, done, elapsed))
    return 130 if interrupted else 0


def _gather(
    runner: Runner, tasks: list[tuple[Any, ...]], bar: Any
) -> tuple[dict[str, NDArray[np.int64]], int]:
    """Sum the chunks' histograms as they come."""
    # Exact histograms of small integers: constant memory, exact percentiles.
    # They grow to the largest value seen, not to the board's cell count.
    hists = {key: np.zeros(1, dtype=np.int64) for _, key in _STATS}
    done = 0
    try:
        for i, chunk in runner.run(_stats_chunk, tasks):
            for _, key in _STATS:
                counts = chunk.value[key]
                if len(counts) > len(hists[key]):
                    hists[key] = np.pad(hists[key], (0, len(counts) - len(hists[key])))
                hists[key][: len(counts)] += counts
            done += tasks[i][2]
            if bar is not None and runner.executor is not None:
                bar.update(tasks[i][2])  # (other executors report per chunk)
    finally:
        if bar is not None:
            bar.n = done
            bar.refresh()
            bar.close()
    return hists, done


def _percentile(hist: NDArray[np.int64], q: float) -> int:
    """The smallest value whose cumulative share reaches ``q`` percent."""
    cumulative = np.cumsum(hist)
    return int(np.searchsorted(cumulative, q / 100 * cumulative[-1]))


def _stats_report(
    hists: dict[str, NDArray[np.int64]],
    rows: int,
    cols: int,
    mines: int,
    rule: str | None,
    args: argparse.Namespace,
    done: int,
    elapsed: float,
) -> str:
    click = "" if args.click is None or rule is None else f" at {tuple(args.click)}"
    if args.no_guess is not None:
        click += f", no-guess ({args.no_guess})"
    rate = done / elapsed if elapsed > 0 else math.inf
    lines = [
        f"{'board':<9} {rows}x{cols}, {count_text(mines, 'mine')}, first click {rule_text(rule)}"
        f"{click}",
        f"{'boards':<9} {done:,}"
        + (f" of {args.boards:,} (interrupted)" if done < args.boards else ""),
        f"{'seed':<9} {args.seed} (chunks of {args.chunk_size:,})",
        f"{'time':<9} {elapsed:.1f} s ({rate:,.0f} boards/s)",
        "",
    ]
    if not done:
        return "\n".join(lines[:-1])
    header = f"{'':<9} {'mean':>8} {'sd':>7} {'min':>5}"
    header += "".join(f" {f'{q}%':>5}" for q in _PERCENTILES) + f" {'max':>5}"
    lines.append(header)
    for label, key in _STATS:
        hist = hists[key]
        values = np.arange(len(hist))
        mean = float(values @ hist) / done
        sd = math.sqrt(max(float((values - mean) ** 2 @ hist) / done, 0.0))
        present = np.flatnonzero(hist)
        row = f"{label:<9} {mean:>8.2f} {sd:>7.2f} {int(present[0]):>5}"
        row += "".join(f" {_percentile(hist, q):>5}" for q in _PERCENTILES)
        lines.append(row + f" {int(present[-1]):>5}")
    lines += ["", "3BV histogram", *_histogram(hists["three_bv"])]
    return "\n".join(lines)


def _histogram(hist: NDArray[np.int64], *, bins: int = 20, width: int = 50) -> list[str]:
    """Text bars over [min, max] of a histogram of integers."""
    present = np.flatnonzero(hist)
    low, high = int(present[0]), int(present[-1])
    step = max(1, math.ceil((high - low + 1) / bins))
    edges = range(low, high + 1, step)
    counts = [int(hist[e : e + step].sum()) for e in edges]
    top = max(counts)
    digits = len(str(high))
    out = []
    for edge, count in zip(edges, counts, strict=True):
        label = (
            f"{edge:>{digits}}" if step == 1 else f"{edge:>{digits}}-{edge + step - 1:<{digits}}"
        )
        bar = "#" * max(round(width * count / top), 1 if count else 0)
        out.append(f"{label}  {bar:<{width}} {count:,}")
    return out


# -- entry point -----------------------------------------------------------------

_BUILTIN: tuple[Callable[[Any], None], ...] = (_add_simulate, _add_stats)


def build_parser() -> argparse.ArgumentParser:
    """The ``numsweeper`` argument parser with every registered subcommand.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> from numsweeper.cli import build_parser
    >>> args = build_parser().parse_args(["simulate", "--games", "5", "--seed", "1"])
    >>> args.games, args.seed, args.preset
    (5, 1, 'expert')
    """
    parser = _Parser(
        prog="numsweeper",
        description="A vectorized Minesweeper engine: bulk simulation and board statistics.",
    )
    parser.add_argument("--version", action="version", version=f"numsweeper {__version__}")
    subparsers = parser.add_subparsers(
        title="commands", metavar="COMMAND", dest="command", required=True
    )
    subparsers._parser_class = _Parser  # one-line errors in every subcommand too
    for add in _BUILTIN:
        add(subparsers)
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``numsweeper`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit code: 0 on success, 2 for bad arguments, when memory runs
        out or when ``--no-guess`` finds no layout in ``--max-attempts``,
        130 after Ctrl-C (the summary of the work done is still printed),
        141 when the reader of the output goes away.

    Examples
    --------
    >>> from numsweeper.cli import main
    >>> main(["simulate", "--preset", "beginner", "--games", "200", "--seed", "7"])
    ... # doctest: +ELLIPSIS
    board        9x9, 10 mines, first click opening
    policy       random
    games        200
    ...
    seed         7
    0
    """
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        _abort(args.command)
    except BrokenPipeError:
        # The reader went away (``numsweeper ... | head``): stop quietly, and keep
        # Python from reporting the same error again when it flushes stdout.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # as a shell reports a pipe that closed: 128 + SIGPIPE
    except MinesweeperError as exc:  # raised on purpose: a one-line error, as argparse's
        # (GenerationError: --no-guess on a board with (almost) no such layouts)
        print(f"numsweeper {args.command}: error: {exc}", file=sys.stderr, flush=True)
        return 2
    except MemoryError as exc:
        print(
            f"numsweeper {args.command}: error: out of memory ({exc}); "
            "try a smaller board, --chunk-size or --games",
            file=sys.stderr,
        )
        return 2
    except (ImportError, SystemError) as exc:
        # A Ctrl-C can land inside code that wraps it: an import of a compiled
        # module (as when the summary first imports scipy.stats) or a numba
        # kernel.  Other errors keep their traceback.
        if from_ctrl_c(exc):
            _abort(args.command)
        raise
    return code


def _abort(command: str) -> NoReturn:
    """Leave at once after a second Ctrl-C (the first one winds the run down).

    Workers notice that their parent is gone and exit too.
    """
    print(f"numsweeper {command}: aborted", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(130)
