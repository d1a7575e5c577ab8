"""Saved games: ``save_game``, ``load_game`` and the record behind ``Game.to_dict``.

A saved game is data, never code: no pickle anywhere.  It holds a format
name and version, the board size, the mine layout, the first-click rule, a
description of the strategy (and, while the mines wait for the first click,
what it needs to lay the same ones), the starting position of a game begun
on a played board, the moves with their times, and the state they lead to.

Two encodings, chosen by the file's suffix:

``.json``
    Human-readable, for small boards and for clients.  Mines are listed as
    ``[row, col]`` pairs and moves as ``[kind, row, col, time]``.
``.npz``
    For large boards: the same header as JSON, with the layout and the start
    position bit-packed and the moves as arrays, compressed.  A 10,000 x
    10,000 game takes about 0.1 byte per cell.

Loading checks every field, refuses sizes that would not fit in memory
before allocating anything, plays the recorded moves on the recorded layout
through the rules, and refuses a file whose moves do not reproduce its
recorded state.  Every way a file can be bad raises
:class:`~numsweeper.InvalidGameFileError`.

Examples
--------
>>> import numsweeper as ns, tempfile, pathlib
>>> game = ns.Game.new(9, 9, 10, seed=1, first_click="safe")
>>> _ = game.reveal(4, 4)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "game.json"
>>> ns.save_game(game, path)
>>> again = ns.load_game(path)
>>> again.snapshot() == game.snapshot(), again.moves == game.moves
(True, True)
"""

from __future__ import annotations

import io
import json
import math
import os
import uuid
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _validate
from ._rules import GameArrays
from ._validate import (
    NPZ_ERRORS,
    SEED_BITS,
    check_at_least,
    check_board,
    check_path,
    check_regular_file,
    check_zip_member,
    count_text,
    dims_text,
    open_npz,
    parse_json,
    read_npy,
    short_repr,
)
from .errors import InvalidBoardError, InvalidGameFileError, InvalidTypeError, MinesweeperError
from .game import MOVE_KINDS, Game, GameState, Move, elapsed_time
from .placement import FixedPlacement, MinePlacementStrategy, RandomPlacement

__all__ = ["FORMAT", "VERSION", "game_from_dict", "game_to_dict", "load_game", "save_game"]

#: The ``format`` field of every saved game.
FORMAT = "numsweeper-game"
#: The version this numsweeper writes (and the newest it reads).
VERSION = 1

_STATE_NAMES = {state.value: state for state in GameState}
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_SUFFIXES = (".json", ".npz")
_NPZ_MEMBERS = {
    "header": np.uint8,
    "mines": np.uint8,
    "start_revealed": np.uint8,
    "start_flagged": np.uint8,
    "move_kind": np.uint8,
    "move_row": np.int64,
    "move_col": np.int64,
    "move_time": np.float64,
}
# What one move costs a loaded Game in memory: its Move object and its places
# in the game's lists.  Measured 298 bytes: the peak RSS of
# load_game (in a fresh process, above a warm-up load) of an .npz of a 4x4
# game with 1,000,000 flag moves.
_MOVE_BYTES = 320
# What loading a board costs at its peak, per cell, without and with a start
# position: the game's own arrays, the layout unpacked beside them and the
# flood of a reveal (ndimage.label's int32 labels), and the start position
# unpacked too while it is replayed.  Measured as above on the .npz of
# Game.new(3000, 3000, 90_000, seed=1, first_click="opening") after
# reveal(1500, 1500), which floods most of the board: 11.9 bytes a cell (RSS),
# 13.0 (tracemalloc); with a start position (Game(board) of a board with one
# number revealed, then that reveal) 16.1 and 15.3.
_LOAD_BYTES = (14, 17)


def _check_load(header: dict[str, Any], start: bool, max_cells: int | None) -> None:
    """Refuse a board past ``max_cells``, or that would not fit in memory while it loads.

    Checked from the header, before anything of the board is allocated.
    """
    rows, cols = header["rows"], header["cols"]
    if max_cells is not None and rows * cols > max_cells:
        raise InvalidGameFileError(
            f"the {dims_text(rows, cols)} board has {count_text(rows * cols, 'cell')}, "
            f"more than the {max_cells:,} allowed"
        )
    per_cell = _LOAD_BYTES[1] if start else _LOAD_BYTES[0]
    begun = " with a start position" if start else ""
    _validate.check_memory(
        per_cell * rows * cols,
        f"loading the {dims_text(rows, cols)} board{begun} takes about {per_cell} bytes per cell",
        InvalidGameFileError,
    )


# -- writing -------------------------------------------------------------------


def save_game(game: Game, path: str | os.PathLike[str]) -> None:
    """Write a game to ``path``: ``.json`` (readable) or ``.npz`` (compact).

    The file is written whole to a temporary file first and then moved into
    place, so an existing save is never left half-written.  It gets the
    permissions of any new file (the umask decides).

    Parameters
    ----------
    game : Game
        The game; it is not changed.
    path : str or path-like
        Ends in ``.json`` or ``.npz``.

    Raises
    ------
    InvalidBoardError
        For another suffix, or a game whose mines are not laid yet with a
        strategy that cannot be written down (reveal a cell first).
    TypeError
        If ``game`` is not a Game.

    Examples
    --------
    >>> import numsweeper as ns, tempfile, pathlib
    >>> game = ns.Game.new(1000, 1000, 150_000, seed=1)
    >>> _ = game.toggle_flag(0, 0)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "big.npz"
    >>> ns.save_game(game, path)
    >>> path.stat().st_size < 0.3 * 1000 * 1000
    True
    >>> ns.load_game(path).moves == game.moves
    True
    """
    if not isinstance(game, Game):
        raise InvalidTypeError(f"save_game needs a Game, got {type(game).__name__}")
    target = Path(path)
    suffix = _suffix(target)
    record = game._export()
    header = _header(record)
    if suffix == ".json":
        header.update(_json_body(record))
        payload = _pretty(header).encode()
    else:
        payload = _npz_bytes(header, record)
    _write_atomically(target, payload)


def game_to_dict(game: Game) -> dict[str, Any]:
    """The JSON-safe record of ``game``: what :meth:`Game.to_dict` returns.

    Examples
    --------
    >>> import json, numsweeper as ns
    >>> from numsweeper.records import game_to_dict
    >>> game = ns.Game.new(4, 4, 2, strategy=ns.FixedPlacement([(0, 0), (0, 1)]))
    >>> _ = game.reveal(3, 3)
    >>> record = game_to_dict(game)
    >>> record["state"], record["mine_positions"], len(json.dumps(record)) > 0
    ('won', [[0, 0], [0, 1]], True)
    """
    record = game._export()
    data = _header(record)
    data.update(_json_body(record))
    return data


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise InvalidBoardError(
            f"a saved game's file name must end in .json or .npz, got {str(path)!r}"
        )
    return suffix


def _describe(strategy: MinePlacementStrategy | None, placed: bool) -> dict[str, Any] | None:
    """The strategy as data: its type and seed where known, and, while the
    mines are not laid, everything needed to lay the same ones."""
    if strategy is None:
        return None
    out: dict[str, Any] = {"type": type(strategy).__name__}
    if isinstance(strategy, RandomPlacement):
        seq = getattr(strategy.rng.bit_generator, "seed_seq", None)
        entropy = getattr(seq, "entropy", None)
        simple = isinstance(entropy, int) and not getattr(seq, "spawn_key", ())
        out["seed"] = entropy if simple else None
        if not placed and type(strategy) is RandomPlacement:
            state = strategy.rng.bit_generator.state
            if _readable(state):  # numpy's own bit generators: the loader rebuilds them
                out["state"] = _jsonable(state)
    elif isinstance(strategy, FixedPlacement) and not placed:
        out["mine_positions"] = [list(p) for p in strategy.positions]
    if not placed and "state" not in out and "mine_positions" not in out:
        raise InvalidBoardError(
            f"cannot save this game: its mines are not laid yet and its strategy "
            f"{type(strategy).__name__} cannot be written to a file; reveal a cell first"
        )
    return out


def _readable(state: Any) -> bool:
    """Whether the loader can rebuild a bit generator from ``state``."""
    return isinstance(state, dict) and state.get("bit_generator") in _BIT_GENERATORS


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    return value


def _header(record: dict[str, Any]) -> dict[str, Any]:
    """The fields both encodings share, in the order a reader meets them."""
    layout = record["layout"]
    return {
        "format": FORMAT,
        "version": VERSION,
        "rows": record["rows"],
        "cols": record["cols"],
        "mines": record["mines"],
        "first_click": record["first_click"],
        "strategy": _describe(record["strategy"], layout is not None),
        "state": record["state"].value,
        "mines_left": record["mines_left"],
        "hidden_safe": record["hidden_safe"],
        "cells_sha256": record["cells_sha256"],
        "elapsed": record["elapsed"],
        "saved_at": record["saved_at"],
    }


def _positions(packed: NDArray[np.uint8], rows: int, cols: int) -> list[list[int]]:
    cells = np.flatnonzero(np.unpackbits(packed, count=rows * cols))
    return [[int(r), int(c)] for r, c in zip(*np.divmod(cells, cols), strict=True)]


def _json_body(record: dict[str, Any]) -> dict[str, Any]:
    rows, cols = record["rows"], record["cols"]
    layout, start = record["layout"], record["start"]
    return {
        "mine_positions": None if layout is None else _positions(layout, rows, cols),
        "start": None
        if start is None
        else {
            "revealed": _positions(start[0], rows, cols),
            "flagged": _positions(start[1], rows, cols),
        },
        "moves": [[m.kind, m.row, m.col, m.time] for m in record["moves"]],
    }


def _pretty(data: dict[str, Any]) -> str:
    """JSON with one field per line, and one item per line in long lists."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {json.dumps(item)}" for item in value)
            lines.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _npz_bytes(header: dict[str, Any], record: dict[str, Any]) -> bytes:
    moves = record["moves"]
    arrays: dict[str, NDArray[Any]] = {
        "header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
        "move_kind": np.array([MOVE_KINDS.index(m.kind) for m in moves], dtype=np.uint8),
        "move_row": np.array([m.row for m in moves], dtype=np.int64),
        "move_col": np.array([m.col for m in moves], dtype=np.int64),
        "move_time": np.array([m.time for m in moves], dtype=np.float64),
    }
    if record["layout"] is not None:
        arrays["mines"] = record["layout"]
    if record["start"] is not None:
        arrays["start_revealed"], arrays["start_flagged"] = record["start"]
    # The members np.savez_compressed writes, but deflated at level 1: on a
    # packed layout six times faster than its level 6, for a file 1% larger.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for key, array in arrays.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _write_atomically(target: Path, payload: bytes) -> None:
    # A new name beside the target, opened with mode 0o666 so that the umask
    # applies as for any new file (tempfile.mkstemp would give 0o600).
    # An error names the file the caller asked for, not the temporary one.
    temporary = target.parent / f".{target.name}.{uuid.uuid4().hex}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(temporary, flags, 0o666)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.replace(temporary, target)
    except BaseException as exc:
        os.unlink(temporary)
        if isinstance(exc, OSError) and exc.errno is not None:
            raise type(exc)(exc.errno, exc.strerror, str(target)) from None
        raise


# -- reading -------------------------------------------------------------------


def load_game(path: str | os.PathLike[str], *, max_cells: int | None = None) -> Game:
    """Read a game that :func:`save_game` wrote, replay its moves and verify them.

    The moves are played on the recorded layout through the rules, with
    their recorded times; the game's clock resumes where it stood when it
    was saved.  Under a first-click rule, a game saved before its first
    reveal lays the same mines it would have laid.  The game's strategy is
    rebuilt from the file: a RandomPlacement of the recorded seed, or the
    FixedPlacement that waits to lay its mines; a game whose mines another
    strategy laid needs none and has ``None``.  There is nothing to redo.

    Parameters
    ----------
    path : str or path-like
        A ``.json`` or ``.npz`` file.
    max_cells : int, optional
        The most cells the board may have: a larger one is refused as soon
        as the file's header is read, before anything of the board is
        allocated (a terminal or a server that plays games of a bounded
        size).  None means any size that fits in memory.

    Returns
    -------
    Game

    Raises
    ------
    InvalidGameFileError
        For every kind of bad file: another suffix, truncated or damaged
        data, an unknown format or version, wrong types, a size that would
        not fit in memory while it loads (about 14 bytes per cell, 17 with
        a start position; refused before allocating), a layout that
        disagrees with the mine count, moves off the board or after the
        end, moves that do not reproduce the recorded state, or a board
        of more than ``max_cells`` cells.
    InvalidTypeError
        If ``path`` is not a str or an os.PathLike (bytes, a file
        descriptor, None).
    OSError
        If the file cannot be read (missing, a directory, no permission).

    Examples
    --------
    >>> import numsweeper as ns, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "game.json"
    >>> _ = path.write_text('{"format": "numsweeper-game", "version": 1, "rows": "9"}')
    >>> ns.load_game(path)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidGameFileError: rows must be an integer, got '9'
    >>> ns.save_game(ns.Game.new(30, 40, 99, seed=1), path)
    >>> ns.load_game(path, max_cells=1000)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidGameFileError: the 30x40 board has 1,200 cells, more than ... allowed
    """
    if max_cells is not None:
        check_at_least(max_cells, "max_cells", 1)
    target = Path(check_path(path, InvalidGameFileError))
    suffix = target.suffix.lower()
    if suffix not in _SUFFIXES:
        raise InvalidGameFileError(
            f"a saved game's file name must end in .json or .npz, got {str(target)!r}"
        )
    raw = _read(target)
    if suffix == ".json":
        return _from_record(parse_json(raw, target.name, InvalidGameFileError), max_cells)
    return _from_npz(raw, target.name, max_cells)


def _read(target: Path) -> bytes:
    """The bytes of a saved game's file: a regular file no larger than memory allows.

    A device or a pipe (which may never end, or block the open itself) is
    refused before it is opened, and a file larger than memory allows before
    it is read: a quarter of it for ``.npz`` (whose members are checked
    again as they unpack), a fortieth for ``.json``, whose games take about
    32 bytes of memory per byte of file while they load (measured).
    """
    size = check_regular_file(target, InvalidGameFileError)
    share = 40 if target.suffix.lower() == ".json" else 4
    limit = _validate.memory_bytes() // share
    if size > limit:
        raise InvalidGameFileError(
            f"{target.name} holds {size:,} bytes, more than the {limit:,} a "
            f"{target.suffix.lower()} game may take (1/{share} of the memory this process may use)"
        )
    with target.open("rb") as file:  # (a byte more: to see a file that grew since)
        raw = file.read(size + 1)
    if len(raw) > size:
        raise InvalidGameFileError(f"{target.name} grew while it was being read")
    return raw


def game_from_dict(data: Any) -> Game:
    """The game a :func:`game_to_dict` record describes: what :meth:`Game.from_dict` does.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.records import game_from_dict, game_to_dict
    >>> game = ns.Game.new(4, 4, 2, strategy=ns.FixedPlacement([(0, 0), (0, 1)]))
    >>> _ = game.reveal(3, 3)
    >>> again = game_from_dict(game_to_dict(game))
    >>> again.state, again.moves == game.moves
    (<GameState.WON: 'won'>, True)
    """
    return _from_record(data, None)


def _from_record(data: Any, max_cells: int | None) -> Game:
    """:func:`game_from_dict`, refusing a board of more than ``max_cells`` cells."""
    header = _check_header(data)
    _check_load(header, data.get("start") is not None, max_cells)
    rows, cols = header["rows"], header["cols"]
    layout = None
    positions = _get(data, "mine_positions", (list, type(None)))
    if positions is not None:
        layout = _mask_of(positions, rows, cols, "mine_positions")
    start = None
    begun = _get(data, "start", (dict, type(None)))
    if begun is not None:
        revealed, flagged = (
            _mask_of(_get(begun, name, list, f"start.{name}"), rows, cols, f"start.{name}")
            for name in ("revealed", "flagged")
        )
        start = (revealed, flagged)
    moves = _get(data, "moves", list)
    made = []
    for i, item in enumerate(moves):
        if not isinstance(item, list) or len(item) != 4:
            raise InvalidGameFileError(f"move {i} must be [kind, row, col, time], got {item!r}")
        kind = item[0]
        if not isinstance(kind, str):
            raise InvalidGameFileError(f"move {i} has kind {kind!r}, not a string")
        made.append(_move(i, kind, *item[1:]))
    return _restore(header, layout, start, made)


def _from_npz(raw: bytes, name: str, max_cells: int | None) -> Game:
    try:
        archive, members = open_npz(io.BytesIO(raw))
    except InvalidGameFileError as exc:
        raise InvalidGameFileError(f"{name}: {exc}"[:300]) from None
    except NPZ_ERRORS as exc:
        raise InvalidGameFileError(f"{name} is not an .npz archive: {exc}"[:300]) from None
    with archive:
        for key, info in members.items():
            if key not in _NPZ_MEMBERS:
                raise InvalidGameFileError(
                    f"{name} holds an unexpected member {info.filename!r}"[:300]
                )
            try:
                check_zip_member(info)
            except InvalidGameFileError as exc:
                raise InvalidGameFileError(f"{name}'s {exc}"[:300]) from None
        if "header" not in members:
            raise InvalidGameFileError(f"{name} has no header")
        text = _member(archive, members["header"], np.uint8, 1 << 24).tobytes()
        header = _check_header(parse_json(text, f"{name}'s header", InvalidGameFileError))
        _check_load(header, "start_revealed" in members or "start_flagged" in members, max_cells)
        rows, cols = header["rows"], header["cols"]
        packed = -(-rows * cols // 8)

        def bits(key: str) -> NDArray[np.bool_] | None:
            if key not in members:
                return None
            array = _member(archive, members[key], np.uint8, packed)
            if array.size != packed:
                raise InvalidGameFileError(
                    f"{key} holds {array.size} bytes, but a {rows}x{cols} board packs into {packed}"
                )
            return np.unpackbits(array, count=rows * cols).view(bool).reshape(rows, cols)

        layout = bits("mines")
        start = None
        if "start_revealed" in members or "start_flagged" in members:
            revealed, flagged = bits("start_revealed"), bits("start_flagged")
            if revealed is None or flagged is None:
                raise InvalidGameFileError(f"{name} holds only half of a start position")
            start = (revealed, flagged)
        limit = _validate.memory_bytes() // _MOVE_BYTES
        columns = []
        for key in ("move_kind", "move_row", "move_col", "move_time"):
            if key not in members:
                raise InvalidGameFileError(f"{name} has no {key}")
            columns.append(_member(archive, members[key], _NPZ_MEMBERS[key], limit))
    if len({len(column) for column in columns}) != 1:
        raise InvalidGameFileError(
            "the move arrays differ in length: " + ", ".join(str(len(c)) for c in columns)
        )
    kinds, move_rows, move_cols, times = columns
    moves = []
    for i, (code, row, col, when) in enumerate(
        zip(kinds.tolist(), move_rows.tolist(), move_cols.tolist(), times.tolist(), strict=True)
    ):
        if code >= len(MOVE_KINDS):
            raise InvalidGameFileError(f"move {i} has kind code {code}, not one of 0..2")
        moves.append(_move(i, MOVE_KINDS[code], row, col, when))
    return _restore(header, layout, start, moves)


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, dtype: Any, most: int) -> NDArray[Any]:
    """One 1-D array of at most ``most`` items of an .npz, its header checked first."""
    return read_npy(archive, info, most * np.dtype(dtype).itemsize, dtype, 1)


# -- checks shared by both encodings ---------------------------------------------


def _get(data: Any, key: str, kinds: Any, name: str | None = None) -> Any:
    if not isinstance(data, dict):
        raise InvalidGameFileError(f"a saved game must be a JSON object, got {type(data).__name__}")
    if key not in data:
        raise InvalidGameFileError(f"the saved game has no {name or key!r} field")
    value = data[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise InvalidGameFileError(
            f"{name or key} must be {_kind_names(kinds)}, got {short_repr(value)}"[:300]
        )
    return value


def _tuple(kinds: Any) -> tuple[Any, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _kind_names(kinds: Any) -> str:
    names = {int: "an integer", float: "a number", str: "a string", list: "a list"}
    names.update({dict: "an object", type(None): "null"})
    return " or ".join(names.get(k, k.__name__) for k in _tuple(kinds))


def _integer(data: Any, key: str) -> int:
    value: int = _get(data, key, int)
    return value


def _number(data: Any, key: str) -> float:
    value = _get(data, key, (int, float))
    try:
        seconds = float(value)
    except OverflowError:  # an integer beyond any float
        seconds = math.inf
    if not math.isfinite(seconds) or seconds < 0:
        raise InvalidGameFileError(
            f"{key} must be a finite number >= 0, got {short_repr(value)}"[:300]
        )
    return seconds


def _check_header(data: Any) -> dict[str, Any]:
    """The header fields, checked (the board size against memory too: :func:`check_board`)."""
    if not isinstance(data, dict):
        raise InvalidGameFileError(f"a saved game must be a JSON object, got {type(data).__name__}")
    found = data.get("format")
    if found != FORMAT:
        raise InvalidGameFileError(
            f"not a numsweeper game: format is {found!r}, expected {FORMAT!r}"[:300]
        )
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        raise InvalidGameFileError(
            f"unknown {FORMAT} version {version!r}; this numsweeper reads version {VERSION}"[:300]
        )
    rows, cols, mines = (_integer(data, key) for key in ("rows", "cols", "mines"))
    if rows < 1 or cols < 1:
        raise InvalidGameFileError(f"the board must be at least 1x1, got {dims_text(rows, cols)}")
    first_click = _get(data, "first_click", (str, type(None)))
    if first_click not in (None, "safe", "opening"):
        raise InvalidGameFileError(
            f"first_click must be null, 'safe' or 'opening', got {first_click!r}"[:300]
        )
    try:
        check_board(rows, cols, mines, first_click)
    except InvalidBoardError as exc:
        raise InvalidGameFileError(f"bad board: {exc}"[:300]) from None
    state = _get(data, "state", str)
    if state not in _STATE_NAMES:
        raise InvalidGameFileError(
            f"state must be one of {', '.join(_STATE_NAMES)}, got {state!r}"[:300]
        )
    digest = _get(data, "cells_sha256", str)
    return {
        "rows": rows,
        "cols": cols,
        "mines": mines,
        "first_click": first_click,
        "strategy": _get(data, "strategy", (dict, type(None))),
        "state": _STATE_NAMES[state],
        "mines_left": _integer(data, "mines_left"),
        "hidden_safe": _integer(data, "hidden_safe"),
        "cells_sha256": digest,
        "elapsed": _number(data, "elapsed"),
        "saved_at": _number(data, "saved_at"),
    }


def _mask_of(positions: Any, rows: int, cols: int, name: str) -> NDArray[np.bool_]:
    if not isinstance(positions, list):
        raise InvalidGameFileError(f"{name} must be a list of [row, col] pairs")
    mask = np.zeros((rows, cols), dtype=bool)
    for item in positions:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in item)
        ):
            raise InvalidGameFileError(f"{name} must hold [row, col] integer pairs, got {item!r}")
        row, col = item
        if not (0 <= row < rows and 0 <= col < cols):
            raise InvalidGameFileError(f"{name} names {(row, col)}, off the {rows}x{cols} board")
        if mask[row, col]:
            raise InvalidGameFileError(f"{name} names {(row, col)} twice")
        mask[row, col] = True
    return mask


def _move(i: int, kind: str, row: Any, col: Any, when: Any) -> Move:
    try:
        return Move(kind, row, col, when)
    except (MinesweeperError, TypeError, OverflowError) as exc:  # OverflowError: float(10**400)
        raise InvalidGameFileError(f"move {i} is not a move: {exc}"[:300]) from None


def _kind_and_seed(described: dict[str, Any]) -> tuple[str, int | None]:
    """The checked ``type`` and ``seed`` of a strategy's description."""
    kind = described.get("type")
    if not isinstance(kind, str):
        raise InvalidGameFileError(f"strategy.type must be a string, got {kind!r}"[:300])
    seed = described.get("seed")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS
    ):
        raise InvalidGameFileError(
            f"strategy.seed must be null or an integer in 0..2**{SEED_BITS} - 1, "
            f"got {short_repr(seed)}"[:300]
        )
    return kind, seed


def _seed_sequence(seed: int | None) -> np.random.SeedSequence:
    """The seed sequence of a rebuilt RandomPlacement: it reports ``seed`` as the saved one did.

    A bit generator made without one would report its fresh entropy as a seed.
    """
    if seed is None:
        # Fresh entropy under a spawn key: a sequence with no simple seed to report.
        return np.random.SeedSequence(spawn_key=(0,))
    return np.random.SeedSequence(seed)


def _laid_by(described: dict[str, Any] | None) -> MinePlacementStrategy | None:
    """The strategy of a loaded game whose mines are laid, where the file says enough.

    A RandomPlacement of the recorded seed, so that saving the game again
    records it again.  Other strategies are not needed once the mines are
    laid: ``None``.
    """
    if described is None:
        return None
    kind, seed = _kind_and_seed(described)
    if kind != "RandomPlacement":
        return None
    return RandomPlacement(_seed_sequence(seed))


def _strategy(described: dict[str, Any] | None, header: dict[str, Any]) -> Any:
    """The strategy a game waiting for its first click lays its mines with."""
    if described is None:
        raise InvalidGameFileError("a game whose mines are not laid needs its strategy")
    kind, seed = _kind_and_seed(described)
    rows, cols, mines = header["rows"], header["cols"], header["mines"]
    if kind == "FixedPlacement" and "mine_positions" in described:
        mask = _mask_of(described["mine_positions"], rows, cols, "strategy.mine_positions")
        if int(mask.sum()) != mines:
            raise InvalidGameFileError(
                f"strategy.mine_positions names {int(mask.sum())} mines, but mines={mines}"
            )
        return FixedPlacement(mask)
    state = described.get("state")
    if kind != "RandomPlacement" or not isinstance(state, dict):
        raise InvalidGameFileError(
            f"cannot restore strategy {kind!r}: only RandomPlacement with a generator state "
            "and FixedPlacement with its positions can lay a saved game's mines"[:300]
        )
    name = state.get("bit_generator")
    if name not in _BIT_GENERATORS:
        raise InvalidGameFileError(f"unknown bit generator {name!r}"[:300])
    generator = getattr(np.random, name)(_seed_sequence(seed))
    generator.state = _checked_state(state, generator.state)
    return RandomPlacement(np.random.Generator(generator))


#: The integer fields of numpy's bit-generator states, by name: their ranges.
#: (numpy checks none of them: an MT19937 ``pos`` or a Philox ``buffer_pos``
#: out of range reads and writes outside the generator's own memory.)
_STATE_FIELDS = {
    "pos": (0, 624),  # MT19937: the next word of its 624
    "buffer_pos": (0, 4),  # Philox: the next word of its 4
    "has_uint32": (0, 1),
    "uinteger": (0, 2**32 - 1),
    "state": (0, 2**128 - 1),  # PCG64's
    "inc": (1, 2**128 - 1),  # PCG64's increment, odd (checked below)
}


def _checked_state(state: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """A bit generator's saved state, checked against a fresh one of its kind.

    The same fields, nested the same way; each array of the fresh state's
    length with every value in its dtype's range, each integer in its
    field's range.  A state that would never move on is refused too: a zero
    MT19937 state, or an even PCG64 increment (which can fall into a fixed
    point).  Returns the state with its arrays as numpy arrays.
    """

    def checked(value: Any, like: Any, where: str) -> Any:
        if isinstance(like, dict):
            if not isinstance(value, dict) or set(value) != set(like):
                raise InvalidGameFileError(
                    f"bad generator state: {where or 'it'} must hold the fields "
                    f"{sorted(like)}, got {short_repr(value)}"[:300]
                )
            return {k: checked(value[k], like[k], f"{where}.{k}".lstrip(".")) for k in like}
        if isinstance(like, str):
            if value != like:
                raise InvalidGameFileError(f"bad generator state: {where} must be {like!r}"[:300])
            return value
        if isinstance(like, np.ndarray):
            info = np.iinfo(like.dtype)
            if (
                not isinstance(value, list)
                or len(value) != like.size
                or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
                or not all(info.min <= v <= info.max for v in value)
            ):
                raise InvalidGameFileError(
                    f"bad generator state: {where} must be {like.size} integers in "
                    f"{info.min}..{info.max}, got {short_repr(value)}"[:300]
                )
            return np.array(value, dtype=like.dtype)
        low, high = _STATE_FIELDS.get(where.rsplit(".", 1)[-1], (0, -1))
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidGameFileError(
                f"bad generator state: {where} must be an integer in {low}..{high}, "
                f"got {short_repr(value)}"[:300]
            )
        return value

    out: dict[str, Any] = checked(state, fresh, "")
    inner = out["state"]
    # MT19937's state is the top bit of key[0] and the other 623 words: all
    # zero, it gives zeros forever
    if "pos" in inner and not (inner["key"][0] >> 31 or inner["key"][1:].any()):
        raise InvalidGameFileError(
            "bad generator state: state.key is zero (all but the low 31 bits of "
            "its first word, which MT19937 ignores), where MT19937 would stall"
        )
    if "inc" in inner and inner["inc"] % 2 == 0:
        raise InvalidGameFileError(
            f"bad generator state: state.inc must be odd, got {short_repr(inner['inc'])}"[:300]
        )
    return out


def _restore(
    header: dict[str, Any],
    layout: NDArray[np.bool_] | None,
    start: tuple[NDArray[np.bool_], NDArray[np.bool_]] | None,
    moves: list[Move],
) -> Game:
    """Replay ``moves`` from the layout and start position; check the result."""
    rows, cols, mines = header["rows"], header["cols"], header["mines"]
    strategy = _laid_by(header["strategy"])
    if layout is None:
        if header["first_click"] is None:
            raise InvalidGameFileError("a game without a first-click rule needs its mine layout")
        if start is not None:
            raise InvalidGameFileError("a game begun on a played board needs its mine layout")
        strategy = _strategy(header["strategy"], header)
        arrays = GameArrays.blank(1, rows, cols, mines)
    else:
        if int(np.count_nonzero(layout)) != mines:
            raise InvalidGameFileError(
                f"the layout holds {int(np.count_nonzero(layout))} mines, but mines={mines}"
            )
        arrays = GameArrays.laid(np.ascontiguousarray(layout)[None])
    packed = None if start is None else (np.packbits(start[0]), np.packbits(start[1]))
    if start is not None and (start[0] & start[1]).any():
        raise InvalidGameFileError("the start position flags a revealed cell")
    for i, move in enumerate(moves):
        if i and move.time < moves[i - 1].time:
            raise InvalidGameFileError(f"move {i} is earlier than move {i - 1}")
    if moves and header["saved_at"] < moves[-1].time:
        # The clock resumes at saved_at: later moves would be stamped before this one.
        raise InvalidGameFileError(
            f"saved_at is {header['saved_at']!r}, earlier than the last move at {moves[-1].time!r}"
        )
    try:
        game = Game._from_moves(
            arrays,
            first_click=header["first_click"],
            strategy=strategy,
            moves=[],
            start=packed,
            created=0.0,
        )
        for i, move in enumerate(moves):
            _play(game, i, move)
    except InvalidGameFileError:
        raise
    except MinesweeperError as exc:
        raise InvalidGameFileError(f"the game cannot be set up: {exc}") from None
    record = game._export()
    for key in ("state", "mines_left", "hidden_safe", "cells_sha256"):
        if record[key] != header[key]:
            raise InvalidGameFileError(
                f"the moves do not reproduce the recorded game: {key} is "
                f"{_shown(record[key])}, the file says {_shown(header[key])}"
            )
    expected = _elapsed(moves, record["state"], header["saved_at"])
    if expected != header["elapsed"]:
        raise InvalidGameFileError(
            f"elapsed is {header['elapsed']!r}, but the moves and saved_at give {expected!r}"
        )
    game._resume(header["saved_at"])
    return game


def _play(game: Game, i: int, move: Move) -> None:
    try:
        game._play(move.kind, move.row, move.col, when=move.time)
    except MinesweeperError as exc:
        raise InvalidGameFileError(
            f"move {i} ({move.kind} {move.row} {move.col}) is refused: {exc}"
        ) from None


def _elapsed(moves: list[Move], state: GameState, saved_at: float) -> float:
    """The elapsed time a save records, from its moves (as ``Game.elapsed`` counts it)."""
    start = next((m.time for m in moves if m.kind == "reveal"), None)
    return elapsed_time(start, moves, state is not GameState.IN_PROGRESS, saved_at)


def _shown(value: Any) -> str:
    return value.name if isinstance(value, GameState) else short_repr(value)
