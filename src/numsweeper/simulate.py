"""Bulk, reproducible game simulation: ``ns.simulate`` and its policies.

Games are played in fixed chunks by :class:`~numsweeper.BatchGame`.  Every
chunk draws from its own child :class:`numpy.random.SeedSequence`, so the
records are identical whatever runs the chunks: this process, a process pool
or any :class:`concurrent.futures.Executor`, a ``dask.distributed`` cluster's
included.  Results come with their metadata, as CSV, pandas or Parquet
tables, and optionally with a trace of every move.
"""

from __future__ import annotations

import array
import copy
import csv
import functools
import json
import math
import pickle
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, fields
from dataclasses import replace as dataclasses_replace
from os import PathLike
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ._constants import HIDDEN
from ._kernels import three_bv_solved
from ._runner import Done, Hooks, Runner, check_chunks, from_ctrl_c, idle_workers
from ._validate import (
    as_array,
    check_at_least,
    check_board,
    check_int,
    check_memory,
    check_regular_file,
    check_workers,
    count_text,
    make_seed_sequence,
    parse_json,
    root_seed_sequence,
    rule_text,
    short_repr,
)
from .batchgame import BatchGame
from .errors import IdleWorkersWarning, InvalidBoardError, InvalidTypeError, OutOfBoundsError
from .game import MOVE_KINDS, Game
from .placement import MinePlacementStrategy, RandomPlacement, check_strategy, reseeded

__all__ = [
    "RECORD_DTYPE",
    "TRACE_DTYPE",
    "FirstClickOnlyPolicy",
    "Policy",
    "RandomPolicy",
    "SimulationResult",
    "simulate",
]

#: One record per game.  ``game`` is the game's index in the run, ``chunk``
#: the chunk that played it (seeded by the run's root SeedSequence's child
#: ``first_child + chunk``, see SimulationResult); ``clicks`` counts
#: reveals, ``revealed`` safe cells.
RECORD_DTYPE = np.dtype(
    [
        ("game", np.int64),
        ("chunk", np.int32),
        ("won", np.bool_),
        ("clicks", np.int32),
        ("revealed", np.int32),
        ("three_bv", np.int32),
        ("three_bv_solved", np.int32),
    ]
)

#: One row per move of a traced run (``simulate(..., trace=True)``): the
#: game, its click number (``step``, from 1), the cell, ``kind`` (an index
#: into ``numsweeper.game.MOVE_KINDS``; policies reveal, so 0), ``cells``
#: (safe cells the move revealed), ``state`` after the move (0 in progress,
#: 1 won, 2 lost), and what the policy says of its choice when it can
#: (:meth:`Policy.explain`): ``probability`` that the cell held a mine (NaN
#: when unknown) and ``guess`` (1 a guess, 0 a certain cell, -1 unknown).
TRACE_DTYPE = np.dtype(
    [
        ("game", np.int64),
        ("step", np.int32),
        ("row", np.int32),
        ("col", np.int32),
        ("kind", np.int8),
        ("cells", np.int32),
        ("state", np.int8),
        ("probability", np.float32),
        ("guess", np.int8),
    ]
)

# What a saved table keeps of a run besides its records (see to_csv).
_FORMAT = "numsweeper-simulation"
# What from_parquet holds at its peak per byte of a row (RECORD_DTYPE's 29,
# TRACE_DTYPE's 31): pyarrow's table, each column as numpy, the result.
# Measured 2.8 for records (10,000,000 rows) and 3.3 for a trace (5,000,000):
# peak RSS of from_parquet, /tmp/hw/m_pq.py and m_pqmv.py in the report.
_PARQUET_BYTES = 4
# What from_csv holds at its peak per byte of the file: 8 bytes a value as it
# is parsed (a value takes 2 bytes of text at least), then the table.  5.6
# measured on 2,000,000 records of single digits, 4.7 on a trace of them.
_CSV_BYTES = 8


class Policy(Protocol):
    """What a policy is: a callable choosing one cell to reveal per game.

    Parameters
    ----------
    visible : ndarray of int8, shape (k, rows, cols)
        The visible states of the ``k`` games still in progress.
    mines_left : ndarray of int, shape (k,)
        Mines minus flags of those games.
    rng : numpy.random.Generator
        The only randomness a policy may use.

    Returns
    -------
    array_like of int, shape (k, 2)
        ``(row, col)`` of a hidden, unflagged cell for each game.

    Notes
    -----
    Optional attributes: ``max_clicks`` (an int ``>= 0``) ends each game
    after that many reveals; ``first_click`` names the first-click rule the policy
    assumes (:func:`simulate` refuses games with no rule for a policy that
    assumes ``'safe'`` or ``'opening'``); and a method ``explain()``
    returns, for the policy's last call, ``(probabilities, guesses)``:
    arrays of shape ``(k,)`` with the mine probability of each chosen cell
    (NaN where unknown) and whether the choice was a guess.  A traced run
    (``simulate(..., trace=True)``) records them with every move.

    Examples
    --------
    A policy that always reveals the first hidden cell in reading order:

    >>> import numpy as np
    >>> import numsweeper as ns
    >>> def first_hidden(visible, mines_left, rng):
    ...     k, rows, cols = visible.shape
    ...     flat = (visible == ns.HIDDEN).reshape(k, -1).argmax(axis=1)
    ...     return np.stack(np.divmod(flat, cols), axis=1)
    >>> result = ns.simulate(100, 9, 9, 10, policy=first_hidden, seed=0)
    >>> result.policy, result.games
    ('first_hidden', 100)
    """

    def __call__(
        self, visible: NDArray[np.int8], mines_left: NDArray[np.int64], rng: np.random.Generator
    ) -> Any: ...


class RandomPolicy:
    """Reveal a uniformly random hidden, unflagged cell in every game.

    The first click, too, is uniform over the board; first-click rules keep
    it safe.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> visible = np.full((2, 3, 3), ns.HIDDEN, dtype=np.int8)
    >>> visible[0, :, :2] = 1
    >>> cells = ns.RandomPolicy()(visible, np.array([1, 1]), np.random.default_rng(0))
    >>> cells.shape, bool((cells[0, 1] == 2))
    ((2, 2), True)
    """

    #: Rejection rounds before falling back to a full scan of the board.
    ROUNDS = 4

    def __call__(
        self, visible: NDArray[np.int8], mines_left: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.intp]:
        k, rows, cols = visible.shape
        flat = visible.reshape(k, rows * cols)
        cells = np.empty(k, dtype=np.intp)
        # Uniform draws kept only on hidden cells are uniform over hidden
        # cells.  Early in a game most cells are hidden, so a few O(k) rounds
        # settle nearly every game without touching whole boards.
        todo = np.arange(k)
        for _ in range(self.ROUNDS):
            if not todo.size:
                break
            draw = rng.integers(0, rows * cols, todo.size)
            ok = flat[todo, draw] == HIDDEN
            cells[todo[ok]] = draw[ok]
            todo = todo[~ok]
        if todo.size:
            keys = rng.random((todo.size, rows * cols), dtype=np.float32)
            keys[flat[todo] != HIDDEN] = -1.0
            cells[todo] = keys.argmax(axis=1)
        return np.stack(np.divmod(cells, cols), axis=1)

    def __repr__(self) -> str:
        return "RandomPolicy()"


class FirstClickOnlyPolicy(RandomPolicy):
    """Make one uniformly random first click per game, then stop.

    For opening statistics: ``simulate`` honours ``max_clicks`` and ends
    each game after that many reveals (a game still in progress counts as not
    won).

    Examples
    --------
    >>> import numsweeper as ns
    >>> result = ns.simulate(100, 9, 9, 10, policy="first_click_only", seed=0)
    >>> int(result.records["clicks"].max())
    1
    """

    max_clicks = 1

    def __repr__(self) -> str:
        return "FirstClickOnlyPolicy()"


_POLICIES: dict[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "first_click_only": FirstClickOnlyPolicy,
}

POLICY_NAMES = (*_POLICIES, "solver")


def _read_csv(
    path: str | PathLike[str], dtype: np.dtype[Any]
) -> tuple[NDArray[np.void], dict[str, Any]]:
    """A table that :meth:`SimulationResult.to_csv` wrote, and its ``#`` metadata.

    A file too big for memory is refused before it is opened; then its
    lines are read once, the header checked before any row, and each value
    kept as 8 bytes as it is parsed.
    """
    size = check_regular_file(path, InvalidBoardError)
    where = str(path)
    need = size * _CSV_BYTES
    check_memory(
        need,
        f"{where!r} holds {count_text(size, 'byte')} (to_parquet writes large runs compactly); "
        f"read as CSV they take about {need / 1e9:.1f} GB, {_CSV_BYTES} bytes each",
    )
    meta: dict[str, Any] = {}
    names = list(dtype.names or ())
    # Plain ASCII numbers only, so "2.7" or "1e300" in an integer column is
    # refused here instead of being cast (and " 7", "7_0" or "٧" too, which
    # int() would take).
    parse = [_float_text if dtype[name].kind == "f" else _int_text for name in names]
    columns: list[array.array[Any]] = [array.array("d" if k is _float_text else "q") for k in parse]
    header = None
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = csv.reader(_table_lines(handle, meta, where))
            header = next(rows, [])
            if header != names:
                raise InvalidBoardError(
                    f"{where!r} is not such a simulation table: its columns are "
                    f"{short_repr(header, 300)}, expected {names}"
                )
            for i, row in enumerate(rows):
                if len(row) != len(names):
                    raise InvalidBoardError(
                        f"{where!r}: row {i} has {len(row)} values, expected {len(names)}"
                    )
                for j, text in enumerate(row):
                    try:
                        columns[j].append(parse[j](text))
                    except (ValueError, OverflowError):
                        raise InvalidBoardError(
                            _misfit(where, i, names[j], text, dtype[names[j]])
                        ) from None
    except UnicodeDecodeError as exc:
        raise InvalidBoardError(f"{where!r} is not a UTF-8 text table: {exc}") from None
    except csv.Error as exc:  # (a field past csv's limit of 131,072 characters)
        line = "its header" if header is None else f"row {len(columns[-1])}"
        raise InvalidBoardError(f"{where!r}: {line}: {exc}"[:300]) from None
    table = np.zeros(len(columns[0]), dtype=dtype)
    for name, column in zip(names, columns, strict=True):
        values = np.frombuffer(column, np.float64 if column.typecode == "d" else np.int64)
        table[name] = _column(values, dtype[name], where, name)
    return table, meta


_INT_TEXT = re.compile(r"[+-]?[0-9]+").fullmatch
_FLOAT_TEXT = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:nan|inf|infinity))"
).fullmatch


def _int_text(text: str) -> int:
    """``int(text)`` of a plain ASCII integer (sign and digits); else ValueError."""
    if _INT_TEXT(text) is None:
        raise ValueError(text)
    return int(text)


def _float_text(text: str) -> float:
    """``float(text)`` of a plain ASCII decimal, ``nan`` or ``inf``; else ValueError."""
    if _FLOAT_TEXT(text) is None:
        raise ValueError(text)
    return float(text)


def _table_lines(handle: Any, meta: dict[str, Any], where: str) -> Iterator[str]:
    """The lines of a CSV table file but its ``# key: value`` lines, parsed into ``meta``."""
    for line in handle:
        if line.startswith("# "):
            key, _, value = line[2:].partition(": ")
            meta[key] = parse_json(value, f"{where!r}: metadata line {key!r}", InvalidBoardError)
        else:
            yield line


def _column(values: NDArray[Any], dtype: np.dtype[Any], where: str, name: str) -> NDArray[Any]:
    """``values`` read for column ``name``; InvalidBoardError names the first that does not fit.

    Nothing is rounded, wrapped or cast: an integer column takes integers in
    its dtype's range (``won``: 0 and 1, or booleans), a float column
    finite numbers in its dtype's range, or NaN.
    """
    kinds = {"f": "f", "b": "biu"}.get(dtype.kind, "iu")
    if values.dtype.kind not in kinds:
        bad = np.ones(len(values), dtype=bool)
    elif dtype.kind == "f":
        wide = values.astype(np.float64)
        bad = ~(np.isnan(wide) | (np.abs(wide) <= np.finfo(dtype).max))
    else:
        low, high = _int_range(dtype)
        bad = (values < low) | (values > high)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidBoardError(_misfit(where, i, name, values[i : i + 1].tolist()[0], dtype))
    return values


def _check_span(table: NDArray[np.void], name: str, low: float, high: float, where: str) -> None:
    """Refuse the first value of column ``name`` outside ``low..high`` (NaN passes: none)."""
    values = table[name]
    bad = (values < low) | (values > high)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidBoardError(
            f"{where!r}: row {i}, column {name!r} holds {values[i].item()!r}, not in {low}..{high}"
        )


_INT32_MAX = int(np.iinfo(np.int32).max)


def _int_range(dtype: np.dtype[Any]) -> tuple[int, int]:
    if dtype.kind == "b":
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _misfit(where: str, row: int, name: str, value: Any, dtype: np.dtype[Any]) -> str:
    """The message for a value that does not fit its column: file, row, column, value."""
    if dtype.kind == "f":
        wanted = f"a number within +-{float(np.finfo(dtype).max):.4g}, or nan"
    else:
        low, high = _int_range(dtype)
        wanted = f"an integer in {low}..{high}"
    return f"{where!r}: row {row}, column {name!r} holds {short_repr(value)}, not {wanted}"


def _typed(value: Any, name: str, kinds: tuple[type, ...], wanted: str) -> Any:
    """``value`` if it is one of ``kinds`` (a bool only if asked for), else InvalidTypeError."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise InvalidTypeError(f"{name} must be {wanted}, got {short_repr(value)}")
    return value


def _run_fields(meta: dict[str, Any], games: int) -> dict[str, Any]:
    """The fields of a run read from its metadata, each checked for its type and range.

    ``games`` is the number of records read.  Raises InvalidBoardError or
    InvalidTypeError naming the field and its value.
    """
    value = {key: tuple(item) if isinstance(item, list) else item for key, item in meta.items()}
    rows, cols, mines, first_click = check_board(
        value["rows"], value["cols"], value["mines"], value["first_click"]
    )
    seed = _typed(value["seed"], "seed", (int, tuple), "an integer >= 0 or a list of them")
    make_seed_sequence(seed)
    spawn_key = _typed(value["spawn_key"], "spawn_key", (tuple,), "a list of integers >= 0")
    policy = _typed(value["policy"], "policy", (str,), "a name")
    policy_is_name = _typed(value["policy_is_name"], "policy_is_name", (bool,), "true or false")
    if policy_is_name:
        _known_policy(policy)
    seconds: dict[str, float] = {}
    for name in ("elapsed", "startup"):
        seconds[name] = _typed(value[name], name, (int, float), "a number of seconds")
        if not 0 <= seconds[name] < math.inf:
            raise InvalidBoardError(
                f"{name} must be a number of seconds >= 0, got {short_repr(value[name])}"
            )
    return {
        "rows": rows,
        "cols": cols,
        "mines": mines,
        "first_click": first_click,
        "policy": policy,
        "seed": seed,
        "spawn_key": tuple(check_at_least(key, "spawn_key", 0) for key in spawn_key),
        "chunk_size": check_at_least(value["chunk_size"], "chunk_size", 1),
        "requested": check_at_least(value["requested"], "requested", games),
        "interrupted": _typed(value["interrupted"], "interrupted", (bool,), "true or false"),
        "first_child": check_at_least(value["first_child"], "first_child", 0),
        "pool_size": _pool_size(value["pool_size"]),
        "policy_is_name": policy_is_name,
        "strategy": _typed(value["strategy"], "strategy", (str, type(None)), "a name or null"),
        **seconds,
    }


def _trail_of(run: SimulationResult, trail: NDArray[np.void], where: str) -> NDArray[np.void]:
    """A run's trace read from a file, checked against the run and its records.

    Every code is one the trace dtype knows, every cell on the board and
    every probability in 0..1 (or NaN, for none).  A traced run records
    every reveal of every game it kept, so each game's trace rows are its
    clicks, and the trace names no other game; a trace of another run (or
    an edited one) would credit one game's moves to another.
    """
    spans = {
        "kind": (0, len(MOVE_KINDS) - 1),
        "row": (0, run.rows - 1),
        "col": (0, run.cols - 1),
        "state": (0, 2),
        "probability": (0, 1),
        "guess": (-1, 1),
    }
    for name, (low, high) in spans.items():
        _check_span(trail, name, low, high, where)
    records = run.records
    games = records["game"]
    stray = np.flatnonzero(~np.isin(trail["game"], games))
    if stray.size:
        i = int(stray[0])
        raise InvalidBoardError(
            f"{where!r}: row {i} holds a move of game {int(trail['game'][i])}, "
            "which the records do not hold"
        )
    order = np.argsort(games, kind="stable")
    row = order[np.searchsorted(games, trail["game"], sorter=order)]  # each move's record
    made = np.bincount(row, minlength=len(games))
    wrong = np.flatnonzero(made != records["clicks"])
    if wrong.size:
        g = int(wrong[0])
        raise InvalidBoardError(
            f"{where!r}: game {int(games[g])} has {int(made[g])} moves in the trace, "
            f"but {int(records['clicks'][g])} clicks in the records"
        )
    return trail


#: The largest SeedSequence pool a record may name (numpy's default is 4 words).
_MAX_POOL = 1 << 16


def _pool_size(value: Any) -> int:
    """A recorded SeedSequence pool size: numpy's least (4) up to :data:`_MAX_POOL` words."""
    size = check_at_least(value, "pool_size", 4)
    if size > _MAX_POOL:  # (replay would allocate it: 4 bytes a word)
        raise InvalidBoardError(f"pool_size must be at most {_MAX_POOL:,}, got {short_repr(size)}")
    return size


def _need(module: str, what: str) -> Any:
    """Import an optional dependency, or say which extra brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"{what} needs {module.split('.')[0]}: pip install 'numsweeper[tables]'"
        ) from None


def _percent(share: float) -> str:
    """Two decimals, or two significant digits for shares below 0.1%."""
    if 0 < 100 * share < 0.1:
        return f"{100 * share:.2g}%"
    return f"{100 * share:.2f}%"


def _mean(values: NDArray[Any]) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def _make_policy(policy: str | Policy, first_click: str | None) -> Policy:
    if not isinstance(policy, str):
        # Each chunk plays with a fresh copy, as it would in a worker process,
        # so whatever a policy remembers never leaks from one chunk to the next.
        try:
            return copy.deepcopy(policy)
        except (TypeError, copy.Error, pickle.PicklingError):
            return policy  # not copyable: shared, as the caller passed it
    if policy == "solver":
        try:
            from .solver import SolverPolicy  # type: ignore[import-not-found,unused-ignore]
        except ModuleNotFoundError as exc:
            if exc.name not in ("numsweeper.solver", __package__ + ".solver"):
                raise
            raise ImportError(
                "policy='solver' needs numsweeper.solver, which this installation does not "
                "have yet; use policy='random' or pass a policy callable"
            ) from None
        return SolverPolicy(first_click=first_click)  # type: ignore[no-any-return,unused-ignore]
    return _POLICIES[policy]()


def _check_policy(policy: Any, first_click: str | None) -> None:
    """Raise unless ``policy`` is a known name (that can be built) or a callable."""
    if isinstance(policy, str):
        _known_policy(policy)
        _make_policy(policy, first_click)  # fail now, not in a worker
        return
    if isinstance(policy, type):  # (callable, but calling it makes a policy)
        raise InvalidTypeError(
            f"policy must be a name or a callable, got the class {policy.__name__}; "
            f"pass an instance, such as {policy.__name__}()"
        )
    if not callable(policy):
        raise InvalidTypeError(f"policy must be a name or a callable, got {short_repr(policy)}")
    limit = getattr(policy, "max_clicks", None)
    if limit is not None:
        check_at_least(limit, "the policy's max_clicks", 0)
    assumed = getattr(policy, "first_click", None)
    if first_click is None and assumed in ("safe", "opening"):
        # Its opening move would be called certainly safe (explain(), traces) when it is not.
        raise InvalidBoardError(
            f"the policy assumes first_click={assumed!r}, but these games have no "
            f"first-click rule; pass first_click={assumed!r}, or a policy made for "
            "first_click=None"
        )


def _known_policy(name: str) -> None:
    """Raise InvalidBoardError unless ``name`` is one of POLICY_NAMES."""
    if name not in POLICY_NAMES:
        raise InvalidBoardError(
            f"unknown policy {short_repr(name)}; choose one of {', '.join(POLICY_NAMES)}"
        )


def _check_picklable(value: Any, what: str) -> None:
    """Worker processes receive the policy and strategy pickled: say so when they cannot be."""
    if value is None or isinstance(value, str):
        return
    try:
        pickle.dumps(value)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise InvalidTypeError(
            f"the {what} {_policy_name(value)!r} cannot be sent to worker processes ({exc}); "
            "define it at the top level of a module (not a lambda or a function defined "
            "inside another), or use workers=1"
        ) from None


def _policy_name(policy: str | Policy) -> str:
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "__name__", type(policy).__name__))


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """The records of a :func:`simulate` run and what reproduces them.

    Attributes
    ----------
    records : ndarray of RECORD_DTYPE, shape (games,)
        One record per game played, in game order: ``game``, ``chunk``,
        ``won``, ``clicks`` (reveals), ``revealed`` (safe cells),
        ``three_bv`` and ``three_bv_solved``.
    rows, cols, mines : int
        The board.
    first_click : {None, 'safe', 'opening'}
        The first-click rule.
    policy : str
        The policy's name (a class or function name for a callable).
    seed : int or tuple of int
        Entropy of the root :class:`numpy.random.SeedSequence`; the same
        root and ``chunk_size`` give the same records.
    spawn_key : tuple of int
        Spawn key of the root, ``()`` unless a spawned SeedSequence was
        given.  To repeat a run, pass ``SeedSequence(seed,
        spawn_key=spawn_key, pool_size=pool_size,
        n_children_spawned=first_child)``, or just ``seed`` when the other
        three are at their defaults.
    chunk_size : int
        Games per chunk.
    requested : int
        Games asked for; more than ``len(records)`` if interrupted.
    elapsed : float
        Wall-clock seconds.
    interrupted : bool
        True when Ctrl-C stopped the run early; ``records`` then holds every
        game that had finished: whole chunks, and the games of the stopped
        chunks that ended before the round they stopped in.
    first_child : int
        Children the root had spawned before the run (0 unless a used
        SeedSequence was given): chunk ``i`` is seeded by the root's child
        ``first_child + i``.
    pool_size : int
        The root's pool size (numpy's default 4 unless given).
    policy_is_name : bool
        Whether the policy was given by name (so :meth:`replay` can rebuild
        it) rather than as a callable.
    strategy : str or None
        The class name of the run's placement strategy, ``None`` for the
        default uniform one.
    moves : ndarray of TRACE_DTYPE, shape (moves,), or None
        Every move of every recorded game, game by game, when the run was
        traced (``simulate(..., trace=True)``).
    startup : float
        Seconds spent before the first game: starting worker processes and
        warming up the policy (compiling its kernels).  Not in ``elapsed``.

    Examples
    --------
    >>> import numsweeper as ns
    >>> result = ns.simulate(2000, 9, 9, 10, seed=5)
    >>> len(result.records), result.seed, result.policy
    (2000, 5, 'random')
    >>> low, high = result.win_rate_ci
    >>> low <= result.win_rate <= high
    True
    """

    records: NDArray[np.void]
    rows: int
    cols: int
    mines: int
    first_click: str | None
    policy: str
    seed: int | tuple[int, ...]
    spawn_key: tuple[int, ...]
    chunk_size: int
    requested: int
    elapsed: float
    interrupted: bool = False
    first_child: int = 0
    pool_size: int = 4
    policy_is_name: bool = True
    strategy: str | None = None
    moves: NDArray[np.void] | None = None
    startup: float = 0.0

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)

    @property
    def wins(self) -> int:
        """Games won."""
        return int(np.count_nonzero(self.records["won"]))

    @property
    def win_rate(self) -> float:
        """Fraction of games won (nan for no games)."""
        return self.wins / self.games if self.games else math.nan

    @property
    def win_rate_ci(self) -> tuple[float, float]:
        """Wilson score 95% interval of the win rate ((0, 1) for no games)."""
        if not self.games:
            return (0.0, 1.0)
        from scipy.stats import binomtest

        ci = binomtest(self.wins, self.games).proportion_ci(method="wilson")
        # The bounds are exactly 0 and 1 at the extremes; floats land nearby.
        low = 0.0 if self.wins == 0 else max(0.0, float(ci.low))
        high = 1.0 if self.wins == self.games else min(1.0, float(ci.high))
        return (low, high)

    @property
    def games_per_second(self) -> float:
        """Throughput of the run (start-up not counted)."""
        return self.games / self.elapsed if self.elapsed > 0 else math.inf

    def summary(self) -> str:
        """A short text table of the run.

        Examples
        --------
        >>> import numsweeper as ns
        >>> print(ns.simulate(500, 9, 9, 10, seed=1).summary())  # doctest: +ELLIPSIS
        board        9x9, 10 mines, first click opening
        policy       random
        games        500
        win rate     ...% (95% CI ...% to ...%)
        mean 3BV     ... (solved ...)
        mean clicks  ...
        games/s      ...
        seed         1
        """
        low, high = self.win_rate_ci
        rec = self.records
        games = f"{self.games}"
        if self.interrupted:
            games += f" of {self.requested} (interrupted)"
        if self.games:
            interval = f" (95% CI {_percent(low)} to {_percent(high)})"
            if self.interrupted:  # the games kept are not a sample of the run's games
                interval = " of the games that finished"
            rates = [
                ("win rate", f"{_percent(self.win_rate)}{interval}"),
                (
                    "mean 3BV",
                    f"{_mean(rec['three_bv']):.2f} (solved {_mean(rec['three_bv_solved']):.2f})",
                ),
                ("mean clicks", f"{_mean(rec['clicks']):.2f}"),
            ]
        else:  # no game to average over
            rates = [(name, "n/a") for name in ("win rate", "mean 3BV", "mean clicks")]
        lines = [
            (
                "board",
                f"{self.rows}x{self.cols}, {count_text(self.mines, 'mine')}, "
                f"first click {rule_text(self.first_click)}",
            ),
            ("policy", self.policy),
            *([("strategy", self.strategy)] if self.strategy is not None else []),
            ("games", games),
            *rates,
            *(
                [
                    (
                        "note",
                        "an interrupted run keeps the games that ended first (short ones, "
                        "most of them lost): its rates and means are not estimates",
                    )
                ]
                if self.interrupted and self.games
                else []
            ),
            ("games/s", f"{self.games_per_second:,.0f}"),
            *([("start-up", f"{self.startup:.1f} s (not in games/s)")] if self.startup > 0 else []),
            ("seed", self._seed_text()),
        ]
        return "\n".join(f"{name:<12} {value}" for name, value in lines)

    def _seed_text(self) -> str:
        extra = [f"spawn_key={self.spawn_key}"] if self.spawn_key else []
        if self.pool_size != 4:
            extra.append(f"pool_size={self.pool_size}")
        if self.first_child:
            extra.append(f"n_children_spawned={self.first_child}")
        if extra:
            return f"SeedSequence({self.seed}, {', '.join(extra)})"
        return str(self.seed)

    def replay(
        self,
        game: int,
        policy: str | Policy | None = None,
        strategy: MinePlacementStrategy | None = None,
    ) -> Game:
        """Game ``game`` of this run, played again to where the run left it.

        The game's chunk is rebuilt from the run's seed and played again
        with ``policy``, then the game comes back as a
        :class:`~numsweeper.Game` in its final state (its board, mines
        and moves), to inspect a loss or step through it.

        Parameters
        ----------
        game : int
            The game's index in the run (its ``game`` record).
        policy : str or callable, optional
            The run's policy.  A policy named by a string (``'random'``,
            ``'solver'``, ...) is rebuilt by default; a callable must be
            passed again, as the result keeps only its name.
        strategy : MinePlacementStrategy, optional
            The run's strategy, if it was given one: the result keeps only
            its name, so it must be passed again.

        Returns
        -------
        Game
            A new, independent game with the run's board, after the moves
            the run made in it.

        Raises
        ------
        OutOfBoundsError
            If no record has that index (negative, past the end, or in a
            chunk that a Ctrl-C stopped).
        InvalidTypeError
            If ``game`` is not an integer, a callable policy or the run's
            strategy is missing, or ``policy`` is neither a name nor a
            callable.
        InvalidBoardError
            For an unknown policy name, or if the game does not end as
            recorded (outcome, clicks, cells revealed, 3BV): another policy
            than the run's, or one whose moves depend on more than its
            arguments.

        Notes
        -----
        The whole chunk is played again (``chunk_size`` games), so choose a
        small ``chunk_size`` for runs whose games you mean to replay.

        Examples
        --------
        >>> import numsweeper as ns
        >>> result = ns.simulate(60, 9, 9, 10, policy="solver", first_click="safe",
        ...                      seed=2, chunk_size=20)
        >>> lost = int(result.records["game"][~result.records["won"]][0])
        >>> game = result.replay(lost)
        >>> game.state, int((game.snapshot().cells == ns.EXPLODED).sum())
        (<GameState.LOST: 'lost'>, 1)
        """
        i = check_int(game, "game")
        hits = np.flatnonzero(self.records["game"] == i)
        if not hits.size:
            span = f"games 0..{self.requested - 1}" if self.requested else "no games"
            if self.interrupted:
                span += f", {count_text(self.games, 'game')} kept: interrupted"
            raise OutOfBoundsError(f"game {short_repr(i)} is not in this run's records ({span})")
        record = self.records[hits[0]]
        if policy is None:
            if not self.policy_is_name:
                raise InvalidTypeError(
                    f"this run's policy {self.policy!r} was a callable: pass it to replay"
                )
            policy = self.policy
        _check_policy(policy, self.first_click)
        from .metrics import three_bv

        chunk = int(record["chunk"])
        start = chunk * self.chunk_size
        size = min(self.chunk_size, self.requested - start)
        seed = np.random.SeedSequence(
            self.seed,
            spawn_key=(*self.spawn_key, self.first_child + chunk),
            pool_size=self.pool_size,
        )
        if strategy is None and self.strategy is not None:
            raise InvalidTypeError(
                f"this run laid its mines with {self.strategy}: pass that strategy to replay"
            )
        batch, _, _, _ = _play_batch(
            start, size, self.rows, self.cols, self.mines, self.first_click, policy, seed, strategy
        )
        j = i - start
        replayed = batch[j]
        names = ("won", "clicks", "revealed", "three_bv")
        now = (
            bool(batch.won[j]),
            int(batch.clicks[j]),
            int(batch.revealed_count[j]),
            int(three_bv(batch.mines[j])),
        )
        then = tuple(record[name].item() for name in names)
        if now != then:
            differ = ", ".join(
                f"{name} {a} (recorded {b})"
                for name, a, b in zip(names, now, then, strict=True)
                if a != b
            )
            raise InvalidBoardError(
                f"game {i} did not replay as recorded: {differ}; replay with the run's own "
                f"policy ({self.policy!r}), which must depend only on its arguments"
            )
        return replayed

    def metadata(self) -> dict[str, Any]:
        """What reproduces and describes the run, as JSON-safe values.

        The keys are the fields of this class except ``records`` and
        ``moves``, plus ``format`` and the numsweeper ``version`` that made
        it.  :meth:`to_csv`, :meth:`to_pandas` and :meth:`to_parquet` carry
        it with the records.

        Examples
        --------
        >>> import numsweeper as ns
        >>> meta = ns.simulate(10, 9, 9, 10, seed=3).metadata()
        >>> meta["seed"], meta["rows"], meta["first_click"], meta["chunk_size"]
        (3, 9, 'opening', 2000)
        """
        from . import __version__

        meta: dict[str, Any] = {"format": _FORMAT, "version": __version__}
        for item in fields(self):
            if item.name not in ("records", "moves"):
                value = getattr(self, item.name)
                meta[item.name] = list(value) if isinstance(value, tuple) else value
        return meta

    def _table(self, which: str) -> NDArray[np.void]:
        if which == "records":
            return self.records
        if which == "moves":
            if self.moves is None:
                raise InvalidBoardError(
                    "which='moves', but this run has no trace: simulate(..., trace=True) makes one"
                )
            return self.moves
        raise InvalidBoardError(f"which must be 'records' or 'moves', got {short_repr(which)}")

    def to_csv(self, path: str | PathLike[str], which: str = "records") -> None:
        """Write the records (or the trace) as CSV, the run's metadata first as ``#`` lines.

        Each metadata line is ``# key: value`` with a JSON value; then comes
        a header row and one row per game (per move).  ``pandas.read_csv(path,
        comment="#")`` reads the table; :meth:`from_csv` reads both.

        Parameters
        ----------
        path : str or path-like
            The file to write (overwritten).
        which : {'records', 'moves'}
            One row per game, or one row per move of a traced run.

        Raises
        ------
        InvalidBoardError
            For another ``which``, or ``'moves'`` of a run without a trace.

        Examples
        --------
        >>> import numsweeper as ns, tempfile, pathlib
        >>> result = ns.simulate(3, 9, 9, 10, seed=0)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "games.csv"
        >>> result.to_csv(path)
        >>> lines = path.read_text().splitlines()
        >>> lines[0], lines[lines.index("# seed: 0") + 1][:14]
        ('# format: "numsweeper-simulation"', '# spawn_key: [')
        >>> [line for line in lines if not line.startswith("#")][0]
        'game,chunk,won,clicks,revealed,three_bv,three_bv_solved'
        >>> again = ns.SimulationResult.from_csv(path)
        >>> bool((again.records == result.records).all()), again.seed
        (True, 0)
        """
        table = self._table(which)
        names = table.dtype.names
        assert names is not None
        with open(path, "w", newline="") as handle:
            for key, value in {**self.metadata(), "table": which}.items():
                handle.write(f"# {key}: {json.dumps(value)}\n")
            writer = csv.writer(handle)
            writer.writerow(names)
            columns = [
                table[name].tolist()
                if table.dtype[name].kind == "f"
                else table[name].astype(np.int64).tolist()
                for name in names
            ]
            writer.writerows(zip(*columns, strict=True))

    @classmethod
    def from_csv(
        cls, path: str | PathLike[str], *, moves: str | PathLike[str] | None = None
    ) -> SimulationResult:
        """Read a run that :meth:`to_csv` wrote: its records and its metadata.

        Parameters
        ----------
        path : str or path-like
            The records.
        moves : str or path-like, optional
            The run's trace, written with ``to_csv(..., which='moves')``.

        Raises
        ------
        InvalidBoardError
            If a file is not such a table: no metadata, other columns, a
            value that does not fit its column (a fraction or a number out
            of range in an integer column, anything but 0 or 1 in ``won``),
            a metadata field of the wrong type or out of range, or a game
            in a chunk that its run does not play.  The message names the
            file, the column and row or the field, and the value.  Nothing
            in a file is rounded, wrapped or run.  A file larger than memory
            can read (about 8 bytes per byte of it) is refused before it is
            opened.
        OSError
            If a file cannot be read (missing, a directory, no permission).

        Examples
        --------
        >>> import numsweeper as ns, tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> run = ns.simulate(4, 9, 9, 10, seed=3, trace=True)
        >>> run.to_csv(folder / "games.csv")
        >>> run.to_csv(folder / "moves.csv", which="moves")
        >>> again = ns.SimulationResult.from_csv(folder / "games.csv", moves=folder / "moves.csv")
        >>> again.games, again.seed, bool((again.records == run.records).all())
        (4, 3, True)
        >>> bool((again.moves["cells"] == run.moves["cells"]).all())  # (and every column)
        True
        """
        records, meta = _read_csv(path, RECORD_DTYPE)
        result = cls._with_metadata(records, meta, str(path))
        if moves is not None:
            trail, _ = _read_csv(moves, TRACE_DTYPE)
            result = dataclasses_replace(result, moves=_trail_of(result, trail, str(moves)))
        return result

    @classmethod
    def _with_metadata(
        cls, records: NDArray[np.void], meta: dict[str, Any], where: str
    ) -> SimulationResult:
        if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
            raise InvalidBoardError(f"{where!r} carries no numsweeper simulation metadata")
        for item in fields(cls):
            if item.name not in ("records", "moves", *meta):
                raise InvalidBoardError(f"{where!r}: the metadata has no {item.name!r}")
        try:
            result = cls(records=records, **_run_fields(meta, len(records)))
        except (InvalidBoardError, InvalidTypeError) as exc:
            raise InvalidBoardError(f"{where!r}: metadata: {exc}") from None
        # replay finds a game's chunk from these two columns.
        game, chunk = records["game"], records["chunk"]
        bad = (game < 0) | (game >= result.requested) | (chunk != game // result.chunk_size)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidBoardError(
                f"{where!r}: row {i} holds game {game[i]} in chunk {chunk[i]}, which a run of "
                f"{result.requested} games in chunks of {result.chunk_size} does not play"
            )
        order = np.argsort(game, kind="stable")
        again = order[1:][game[order][1:] == game[order][:-1]]
        if again.size:
            i = int(again.min())
            raise InvalidBoardError(f"{where!r}: row {i} holds game {game[i]} a second time")
        safe = result.rows * result.cols - result.mines
        for name, low, high in (("clicks", 0, _INT32_MAX), ("revealed", 0, safe)):
            _check_span(records, name, low, high, where)
        return result

    def to_pandas(self, which: str = "records") -> Any:
        """The records (or, with ``which='moves'``, the trace) as a pandas DataFrame.

        The run's :meth:`metadata` is in ``DataFrame.attrs``.  Needs pandas
        (the ``tables`` extra).

        Parameters
        ----------
        which : {'records', 'moves'}
            One row per game, or one row per move of a traced run.

        Raises
        ------
        InvalidBoardError
            For another ``which``, or ``'moves'`` of a run without a trace.

        Examples
        --------
        >>> import numsweeper as ns
        >>> frame = ns.simulate(20, 9, 9, 10, seed=2).to_pandas()
        >>> len(frame), frame.attrs["seed"]
        (20, 2)
        """
        pandas = _need("pandas", "to_pandas")
        frame = pandas.DataFrame(self._table(which))
        frame.attrs.update(self.metadata())
        return frame

    def to_parquet(self, path: str | PathLike[str], which: str = "records") -> None:
        """Write the records (or the trace) and the run's metadata to a Parquet file.

        The metadata goes in the file's schema metadata under ``numsweeper``,
        as JSON.  Needs pyarrow (the ``tables`` extra).

        Parameters
        ----------
        path : str or path-like
            The file to write (overwritten).
        which : {'records', 'moves'}
            As in :meth:`to_csv`.

        Examples
        --------
        >>> import numsweeper as ns, tempfile, pathlib, pyarrow.parquet
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "games.parquet"
        >>> ns.simulate(5, 9, 9, 10, seed=4).to_parquet(path)
        >>> pyarrow.parquet.read_table(path).num_rows
        5
        """
        pyarrow = _need("pyarrow", "to_parquet")
        parquet = _need("pyarrow.parquet", "to_parquet")
        table = self._table(which)
        frame = pyarrow.table({name: table[name] for name in table.dtype.names or ()})
        meta = json.dumps({**self.metadata(), "table": which}).encode()
        parquet.write_table(frame.replace_schema_metadata({b"numsweeper": meta}), str(path))

    @classmethod
    def from_parquet(
        cls, path: str | PathLike[str], *, moves: str | PathLike[str] | None = None
    ) -> SimulationResult:
        """Read a run that :meth:`to_parquet` wrote (and its trace, if given).

        Raises
        ------
        InvalidBoardError
            If a file is not Parquet or is damaged, carries no numsweeper
            metadata or other columns, or holds more rows than memory can
            take (about four times their bytes; refused from the file's
            footer, before any column is read), or for any bad value or
            metadata field, as in :meth:`from_csv`.
        OSError
            If a file cannot be read (missing, a directory, no permission).

        Examples
        --------
        >>> import numsweeper as ns, tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "games.parquet"
        >>> run = ns.simulate(5, 9, 9, 10, seed=4)
        >>> run.to_parquet(path)
        >>> again = ns.SimulationResult.from_parquet(path)
        >>> bool((again.records == run.records).all()), again.seed
        (True, 4)
        """
        pyarrow = _need("pyarrow", "from_parquet")
        parquet = _need("pyarrow.parquet", "from_parquet")

        def read(
            file: str | PathLike[str], dtype: np.dtype[Any]
        ) -> tuple[NDArray[np.void], dict[str, Any]]:
            check_regular_file(file, InvalidBoardError)
            target = str(file)
            try:
                with parquet.ParquetFile(target) as opened:  # (its footer only, so far)
                    schema = opened.schema_arrow
                    raw = (schema.metadata or {}).get(b"numsweeper")
                    if raw is None:
                        raise InvalidBoardError(
                            f"{target!r} carries no numsweeper simulation metadata"
                        )
                    names = list(dtype.names or ())
                    if schema.names != names:
                        raise InvalidBoardError(
                            f"{target!r} has columns {schema.names}, expected {names}"
                        )
                    rows = opened.metadata.num_rows
                    check_memory(
                        rows * dtype.itemsize * _PARQUET_BYTES,
                        f"{target!r} holds {count_text(rows, 'row')}, which take about "
                        f"{dtype.itemsize * _PARQUET_BYTES} bytes each to read",
                    )
                    table = opened.read()
            except (FileNotFoundError, PermissionError, IsADirectoryError):
                raise
            except (pyarrow.ArrowException, OSError) as exc:  # (a damaged footer: OSError)
                kind = "a Parquet" if isinstance(exc, ValueError) else "a readable Parquet"
                raise InvalidBoardError(f"{target!r} is not {kind} file: {exc}"[:300]) from None
            out = np.zeros(table.num_rows, dtype=dtype)
            for name in names:
                column = table.column(name)
                if column.null_count:  # (to_numpy would make the column float, or objects)
                    i = int(np.argmax(column.is_null().to_numpy()))
                    raise InvalidBoardError(_misfit(target, i, name, None, dtype[name]))
                out[name] = _column(column.to_numpy(), dtype[name], target, name)
            return out, parse_json(raw, f"{target!r}: its numsweeper metadata", InvalidBoardError)

        records, meta = read(path, RECORD_DTYPE)
        result = cls._with_metadata(records, meta, str(path))
        if moves is not None:
            trail, _ = read(moves, TRACE_DTYPE)
            result = dataclasses_replace(result, moves=_trail_of(result, trail, str(moves)))
        return result

    def __repr__(self) -> str:
        return (
            f"<SimulationResult {self.games} games {self.rows}x{self.cols}/{self.mines}, "
            f"policy={self.policy!r}, win rate {self.win_rate:.4f}, seed={self.seed}>"
        )


def _play_chunk(
    chunk: int,
    start: int,
    games: int,
    rows: int,
    cols: int,
    mines: int,
    first_click: str | None,
    policy_spec: str | Policy,
    seed: np.random.SeedSequence,
    strategy: MinePlacementStrategy | None = None,
    trace: bool = False,
    *,
    hooks: Hooks | None = None,
) -> Done:
    """Play one chunk of games; a pure function of its arguments.

    Returns ``Done((records, moves))``: the records of every game, and its
    moves when ``trace`` (else None).  When asked to stop (or interrupted
    here by Ctrl-C), only the games that had finished come back, and
    ``Done.interrupted`` is set.
    """
    from .metrics import three_bv

    batch, finished, interrupted, moves = _play_batch(
        start,
        games,
        rows,
        cols,
        mines,
        first_click,
        policy_spec,
        seed,
        strategy,
        hooks=hooks,
        trace=trace,
    )
    kept = np.flatnonzero(finished)
    records = np.zeros(kept.size, dtype=RECORD_DTYPE)
    records["game"] = start + kept
    records["chunk"] = chunk
    records["won"] = batch.won[kept]
    records["clicks"] = batch.clicks[kept]
    records["revealed"] = batch.revealed_count[kept]
    if kept.size:
        mines_of = batch.mines[kept]
        records["three_bv"] = three_bv(mines_of)
        records["three_bv_solved"] = three_bv_solved(
            mines_of, batch.counts[kept], batch.revealed[kept]
        )
    trail = None
    if trace:
        trail = np.concatenate(moves) if moves else np.zeros(0, dtype=TRACE_DTYPE)
        trail = trail[finished[trail["game"] - start]]
        # One game's moves together, in the order it made them.
        trail = trail[np.argsort(trail["game"], kind="stable")]
    return Done((records, trail), interrupted)


def _play_batch(
    start: int,
    games: int,
    rows: int,
    cols: int,
    mines: int,
    first_click: str | None,
    policy_spec: str | Policy,
    seed: np.random.SeedSequence,
    strategy: MinePlacementStrategy | None = None,
    *,
    hooks: Hooks | None = None,
    trace: bool = False,
) -> tuple[BatchGame, NDArray[np.bool_], bool, list[NDArray[np.void]]]:
    """The games of one chunk, played round by round (``start`` names them).

    Returns the batch, which games are finished (as of the last whole round),
    whether the chunk stopped early, and the moves of each round when
    ``trace``.  Finished games report to ``hooks`` after every round.
    """
    policy = _make_policy(policy_spec, first_click)
    board_seed, policy_seed = seed.spawn(2)
    rng = np.random.default_rng(policy_seed)
    dealer = RandomPlacement(board_seed) if strategy is None else reseeded(strategy, board_seed)
    batch = BatchGame.new(games, rows, cols, mines, strategy=dealer, first_click=first_click)
    limit = getattr(policy, "max_clicks", None)
    explain = getattr(policy, "explain", None) if trace else None
    chosen = f"the cells of policy {_policy_name(policy_spec)!r}"
    r = np.zeros(games, dtype=np.intp)
    c = np.zeros(games, dtype=np.intp)
    finished = np.zeros(games, dtype=bool)
    moves: list[NDArray[np.void]] = []
    interrupted = False
    try:
        while True:
            moving = batch.in_progress
            if limit is not None:
                moving &= batch.clicks < limit
            newly = ~moving & ~finished
            finished = ~moving
            if hooks is not None:
                count = int(np.count_nonzero(newly))
                if count and hooks.report is not None:
                    hooks.report(count, int(np.count_nonzero(newly & batch.won)))
                if hooks.stopping():
                    interrupted = True
                    break
            live = np.flatnonzero(moving)
            if not live.size:
                break
            visible = batch._visible_of(live)
            chose = policy(visible, batch.mines_left[live], rng)
            cells = as_array(chose, chosen, kind="an int array of shape (k, 2)")
            _check_clicks(cells, visible, live, start, policy_spec)
            r[live] = cells[:, 0]
            c[live] = cells[:, 1]
            if trace:
                info = explain() if callable(explain) else None
                before = batch.revealed_count[live]
            batch.reveal(r, c, active=moving)
            if trace:
                moves.append(_trace_rows(batch, start, live, cells, before, info))
    except KeyboardInterrupt:
        interrupted = True
    except SystemError as exc:
        if not from_ctrl_c(exc):
            raise
        interrupted = True
    return batch, finished, interrupted, moves


def _trace_rows(
    batch: BatchGame,
    start: int,
    live: NDArray[np.intp],
    cells: NDArray[Any],
    before: NDArray[np.int64],
    info: Any,
) -> NDArray[np.void]:
    """The trace of one round: one reveal by each game in ``live``."""
    rows = np.zeros(live.size, dtype=TRACE_DTYPE)
    rows["game"] = start + live
    rows["step"] = batch.clicks[live]
    rows["row"] = cells[:, 0]
    rows["col"] = cells[:, 1]
    rows["kind"] = MOVE_KINDS.index("reveal")
    rows["cells"] = batch.revealed_count[live] - before
    rows["state"] = batch.won[live] + 2 * batch.lost[live].astype(np.int8)
    rows["probability"] = np.nan
    rows["guess"] = -1
    if info is not None:
        probabilities, guesses = _explained(info, live.size)
        rows["probability"] = probabilities
        rows["guess"] = guesses
    return rows


def _explained(info: Any, k: int) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
    """A policy's ``explain()`` for ``k`` games, checked: ``(probabilities, guesses)``.

    Probabilities are numbers in ``0..1`` or NaN (None counts as NaN, as any
    object numpy turns into a float), guesses bools or 0/1.  A value of the
    wrong kind is an InvalidTypeError; of the wrong shape or range an
    InvalidBoardError (one per game moved: a single value is not spread).
    """
    try:
        probabilities, guesses = info
    except (TypeError, ValueError):
        raise InvalidTypeError(
            f"explain() must return (probabilities, guesses), got {short_repr(info)}"
        ) from None
    p = as_array(probabilities, "explain()'s probabilities")
    g = as_array(guesses, "explain()'s guesses")
    try:
        if p.dtype == bool or p.dtype.kind not in "iufO":
            raise TypeError
        p = p.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidTypeError(
            f"explain()'s probabilities must be numbers, got {short_repr(probabilities)}"
        ) from None
    if g.dtype.kind not in "biuf":
        raise InvalidTypeError(f"explain()'s guesses must be bools, got {short_repr(guesses)}")
    if p.shape != (k,) or g.shape != (k,):
        raise InvalidBoardError(
            f"explain() must give {k} probabilities and {k} guesses (one per game moved), "
            f"got shapes {p.shape} and {g.shape}"
        )
    if ((p < 0) | (p > 1)).any() or not np.isin(g, (0, 1)).all():
        raise InvalidBoardError(
            "explain() must give probabilities in 0..1 (or NaN) and guesses of 0 or 1, "
            f"got {short_repr(probabilities)} and {short_repr(guesses)}"
        )
    return p.astype(np.float32), g.astype(bool)


def _check_clicks(
    cells: NDArray[Any],
    visible: NDArray[np.int8],
    live: NDArray[np.intp],
    start: int,
    policy: str | Policy,
) -> None:
    """A policy must name a hidden, unflagged cell of every live game."""
    k, rows, cols = visible.shape
    name = _policy_name(policy)
    if cells.shape != (k, 2) or cells.dtype == bool or not np.issubdtype(cells.dtype, np.integer):
        raise InvalidBoardError(
            f"policy {name!r} must return an int array of shape ({k}, 2), "
            f"got {cells.dtype} {cells.shape}"
        )
    r, c = cells[:, 0], cells[:, 1]
    bad = (r < 0) | (r >= rows) | (c < 0) | (c >= cols)
    bad[~bad] = visible[np.flatnonzero(~bad), r[~bad], c[~bad]] != HIDDEN
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidBoardError(
            f"policy {name!r} chose ({int(r[i])}, {int(c[i])}) in game {start + int(live[i])}, "
            "which is not a hidden, unflagged cell"
        )


class _Bar:
    """A tqdm bar that counts finished games, with the win rate so far."""

    def __init__(self, total: int) -> None:
        try:
            from tqdm import tqdm
        except ImportError:
            raise ImportError(
                "progress=True needs tqdm: pip install 'numsweeper[progress]'"
            ) from None
        self.bar = tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True)
        self.wins = 0

    def update(self, games: int, wins: int) -> None:
        if self.bar.n == 0 and games:
            self.bar.reset(total=self.bar.total)  # its rate from the first game, not start-up
        self.wins += wins
        self.bar.update(games)
        if self.bar.n:
            self.bar.set_postfix_str(f"win rate {self.wins / self.bar.n:.1%}", refresh=False)

    def stopping(self) -> None:
        self.bar.set_description_str("Ctrl-C: finishing the current round (again to abort)")

    def close(self, games: int, wins: int) -> None:
        # The games kept, exactly: what the summary and the table will say.
        self.bar.n, self.wins = games, wins
        if games:
            self.bar.set_postfix_str(f"win rate {wins / games:.1%}", refresh=False)
        self.bar.refresh()
        self.bar.close()


def _count_on(bar: _Bar) -> Callable[[Done], None]:
    """Move ``bar`` by a finished chunk's games (for executors, which report per chunk)."""

    def count(done: Done) -> None:
        records = done.value[0]
        bar.update(len(records), int(np.count_nonzero(records["won"])))

    return count


def _warm_up(policy: str, first_click: str | None) -> None:
    """Play a few small games, so that the policy's kernels compile before the clock starts."""
    _, _, interrupted, _ = _play_batch(
        0, 4, 9, 9, 10, first_click, policy, np.random.SeedSequence(0)
    )
    if interrupted:
        raise KeyboardInterrupt


def simulate(
    games: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    policy: str | Policy = "random",
    first_click: str | None = "opening",
    seed: Any = None,
    strategy: MinePlacementStrategy | None = None,
    workers: int = 1,
    executor: Executor | None = None,
    chunk_size: int = 2000,
    progress: bool = False,
    trace: bool = False,
) -> SimulationResult:
    """Play ``games`` games with a policy and record every one of them.

    Parameters
    ----------
    games : int
        Number of games, ``>= 0``.
    rows, cols, mines : int
        The board, as for :meth:`Game.new <numsweeper.Game.new>`.
    policy : {'random', 'first_click_only', 'solver'} or callable
        Who plays.  A callable follows the :class:`Policy` protocol,
        ``policy(visible, mines_left, rng) -> (k, 2) cells``; it must be
        picklable to run in worker processes.  ``'random'`` reveals a uniform
        hidden cell, ``'first_click_only'`` makes the first click only, and
        ``'solver'`` uses ``numsweeper.solver.SolverPolicy``.  A policy may
        set ``max_clicks`` to end games after that many reveals.  It chooses
        the first click too.  Every chunk plays with its own deep copy of a
        policy object (if it can be copied), so state a policy keeps between
        calls never carries from one chunk to another.
    first_click : {'opening', 'safe', None}
        The first-click rule of every game.
    seed : None, int, SeedSequence or Generator
        Root of all randomness.  ``None`` draws fresh entropy, recorded in
        the result so the run can be repeated.
    strategy : MinePlacementStrategy, optional
        Where the mines go; uniformly random by default.  ``seed`` still
        seeds every chunk and policy: chunk ``i`` lays its boards with
        ``strategy.with_seed(...)`` of its own board seed, so a random
        strategy should override
        :meth:`~numsweeper.MinePlacementStrategy.with_seed`.  It must be
        picklable to run in worker processes.
    workers : int
        Worker processes; ``1`` plays in this process.  A worker plays one
        chunk at a time, so a run of fewer chunks than workers leaves some
        of them idle (600 games in the default chunk are one chunk).
    executor : concurrent.futures.Executor, optional
        Run the chunks on this executor instead (``workers`` must be 1).
    chunk_size : int
        Games per chunk.  Chunk ``i`` plays games ``i * chunk_size`` onwards
        with child ``i`` of the root ``SeedSequence`` (counted from the
        children it had already spawned, if any), so records depend on
        ``seed`` and ``chunk_size`` only, never on who runs the chunks.
    progress : bool
        Show a tqdm progress bar on stderr (needs the ``progress`` extra): it
        moves as games finish (per chunk on another executor), with the win
        rate so far.
    trace : bool
        Also record every move of every game in :attr:`SimulationResult.moves`
        (``TRACE_DTYPE``: the cell, the cells it revealed, the state after,
        and what the policy's ``explain()`` says of its choice).

    Returns
    -------
    SimulationResult
        After a Ctrl-C, every game finished so far, with ``interrupted=True``.

    Raises
    ------
    InvalidBoardError
        For a bad board, too many mines for the first-click rule, a
        negative ``seed``, an unknown policy or rule, bad counts (more than
        1,024 workers, or more than a million chunks), a policy that assumes
        a first-click rule the games lack, or a policy that chooses a cell
        that is not hidden or explains a number of games other than it moved.
    ImportError
        For ``progress=True`` without tqdm, or ``policy='solver'`` without
        the solver module.
    InvalidTypeError
        For non-integer counts, a policy or strategy of the wrong kind (a
        class instead of an instance, or one that cannot reach worker
        processes), both ``workers`` and ``executor``, an ``executor``
        without ``submit``, a ``seed`` of a kind numpy cannot seed from, a
        policy's ``max_clicks`` that is not an integer, or an ``explain()``
        of the wrong kind.

    Warns
    -----
    IdleWorkersWarning
        When ``workers`` outnumber the chunks, naming the ``chunk_size`` that
        would give each a share.

    Notes
    -----
    Chunk ``i`` spawns two children from its ``SeedSequence``: the first
    seeds ``BatchGame.new`` (the boards), the second the ``rng`` handed to
    the policy.  With ``first_click=None`` the boards of chunk ``i`` are
    therefore ``generate_boards(size, rows, cols, mines, seed=child_i.spawn(2)[0])``.
    Memory is a few bytes per cell per game of one chunk per worker, so
    ``games`` may be as large as patience allows, in at most a million
    chunks (each chunk's task and seed are made before the first runs).  The first Ctrl-C stops
    cleanly: running chunks stop after the round they are in and keep their
    finished games (on another executor, running chunks cannot be told, and
    only finished chunks are kept); a second one raises ``KeyboardInterrupt``
    at once.  Worker processes exit when the process that started them dies.

    Examples
    --------
    >>> import numsweeper as ns
    >>> result = ns.simulate(1000, 6, 6, 3, seed=42, chunk_size=250)
    >>> result.games, 0.05 < result.win_rate < 0.95
    (1000, True)
    >>> again = ns.simulate(1000, 6, 6, 3, seed=42, chunk_size=250, workers=2)
    >>> bool((again.records == result.records).all())
    True
    """
    games = check_at_least(games, "games", 0)
    rows, cols, mines, first_click = check_board(rows, cols, mines, first_click)
    workers = check_workers(workers)
    chunk_size = check_at_least(chunk_size, "chunk_size", 1)
    check_chunks(games, chunk_size, "games")  # (every chunk's task is made up front)
    if executor is not None and workers != 1:
        raise InvalidTypeError(f"give workers or executor, not both: got workers={workers}")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise InvalidTypeError(
            f"executor must be a concurrent.futures.Executor, got {short_repr(executor)}"
        )
    checking = time.perf_counter()
    _check_policy(policy, first_click)  # (builds a solver: its kernels load or compile)
    checking = time.perf_counter() - checking if policy == "solver" else 0.0
    if strategy is not None:
        check_strategy(strategy)
    if executor is None and workers > 1:
        _check_picklable(policy, "policy")
        _check_picklable(strategy, "strategy")
    bar = _Bar(games) if progress else None

    root = root_seed_sequence(seed)
    entropy = root.entropy
    assert entropy is not None  # SeedSequence draws fresh entropy for None
    chunks = [
        (i, start, min(chunk_size, games - start))
        for i, start in enumerate(range(0, games, chunk_size))
    ]
    if executor is None:
        note = idle_workers(workers, games, chunk_size, "game", command_line=False)
        if note is not None:
            warnings.warn(note, IdleWorkersWarning, stacklevel=2)
    first_child = root.n_children_spawned
    children = root.spawn(len(chunks))
    tasks = [
        (i, start, size, rows, cols, mines, first_click, policy, child, strategy, trace)
        for (i, start, size), child in zip(chunks, children, strict=True)
    ]
    runner = Runner(
        workers,
        executor,
        on_progress=None if bar is None else bar.update,
        on_stopping=None if bar is None else bar.stopping,
        on_chunk=None if bar is None else _count_on(bar),
        # Only the solver has kernels to compile; a caller's callable is
        # never called more often than the games need.
        warm_up=functools.partial(_warm_up, policy, first_click)
        if games and policy == "solver"
        else None,
    )
    done: dict[int, tuple[NDArray[np.void], NDArray[np.void] | None]] = {}
    try:
        for i, chunk in runner.run(_play_chunk, tasks):
            done[i] = chunk.value
    finally:
        if bar is not None:
            kept = sum(len(records) for records, _ in done.values())
            bar.close(kept, sum(int(records["won"].sum()) for records, _ in done.values()))
    elapsed = time.perf_counter() - runner.began
    ordered = [done[i] for i in sorted(done)]
    records = (
        np.concatenate([r for r, _ in ordered]) if ordered else np.zeros(0, dtype=RECORD_DTYPE)
    )
    moves = None
    if trace:
        moves = np.concatenate([m for _, m in ordered]) if ordered else np.zeros(0, TRACE_DTYPE)
    return SimulationResult(
        records=records,
        rows=rows,
        cols=cols,
        mines=mines,
        first_click=first_click,
        policy=_policy_name(policy),
        seed=(
            int(entropy)  # a numpy integer seed prints as a plain one
            if isinstance(entropy, (int, np.integer))
            else tuple(int(v) for v in entropy)
        ),
        spawn_key=tuple(root.spawn_key),
        chunk_size=chunk_size,
        requested=games,
        elapsed=elapsed,
        interrupted=runner.interrupted,
        first_child=first_child,
        pool_size=root.pool_size,
        policy_is_name=isinstance(policy, str),
        strategy=None if strategy is None else type(strategy).__name__,
        moves=moves,
        startup=checking + runner.startup,
    )
