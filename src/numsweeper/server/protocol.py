"""The HTTP API's JSON: reading requests and writing the shapes clients rely on.

Pure functions of the engine's public API, with no web framework, so that
every rule about what a client may send or see is tested on its own.

Every refusal is an :class:`ApiError`, carrying the HTTP status and a
message that names the bad value; the app turns it into
``{"error": message, "code": code}``.

Examples
--------
>>> import numsweeper as ns
>>> from numsweeper.server import protocol
>>> protocol.move_request({"kind": "reveal", "row": 2, "col": 3})
('reveal', 2, 3)
>>> protocol.move_request({"kind": "reveal", "row": "2", "col": 3})
Traceback (most recent call last):
    ...
numsweeper.server.protocol.ApiError: row must be an integer, got '2'
>>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
>>> protocol.snapshot_json(game.snapshot(), elapsed=0.0)
{'cells': [[-1, -1], [-1, -1]], 'state': 'in_progress', 'mines_left': 1, 'elapsed': 0.0}
"""

from __future__ import annotations

import json
import math
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

import numsweeper as ns

__all__ = [
    "DEFAULT_FIRST_CLICK",
    "FIRST_CLICK_RULES",
    "MAX_NAME",
    "MAX_SEED",
    "MOVE_KINDS",
    "ApiError",
    "NewGame",
    "changed_cells",
    "engine_error",
    "move_request",
    "new_game_request",
    "parse_json",
    "player_name",
    "snapshot_json",
]

#: What a move may be.
MOVE_KINDS = ("reveal", "flag", "chord")
#: The first-click rules a client may ask for (``None``: mines laid at once).
FIRST_CLICK_RULES = (None, "safe", "opening")
#: The rule of a game that does not name one: the classic safe first click.
DEFAULT_FIRST_CLICK = "safe"
#: Seeds are integers in ``0 .. MAX_SEED - 1``.
MAX_SEED = 2**128
#: The longest player name, in characters.
MAX_NAME = 32


class ApiError(Exception):
    """A request the server refuses: an HTTP status, a short code and a message.

    Parameters
    ----------
    status : int
        The HTTP status (4xx).
    message : str
        What is wrong, naming the bad value.
    code : str
        A stable machine-readable word: ``'bad_json'``, ``'invalid'``,
        ``'unauthorized'``, ``'not_found'``, ``'conflict'``,
        ``'too_large'``.

    Examples
    --------
    >>> from numsweeper.server.protocol import ApiError
    >>> err = ApiError(404, "no game 'x' for this token", "not_found")
    >>> err.status, err.body()
    (404, {'error': "no game 'x' for this token", 'code': 'not_found'})
    """

    def __init__(self, status: int, message: str, code: str = "invalid") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code

    def body(self) -> dict[str, str]:
        """The JSON body of the response.

        Returns
        -------
        dict of str to str
            ``{"error": message, "code": code}``.

        Examples
        --------
        >>> from numsweeper.server.protocol import ApiError
        >>> ApiError(422, "row must be an integer, got 'a'").body()
        {'error': "row must be an integer, got 'a'", 'code': 'invalid'}
        """
        return {"error": self.message, "code": self.code}


@dataclass(frozen=True)
class NewGame:
    """A validated request for a new game or race room.

    Attributes
    ----------
    rows, cols, mines : int
        The board.
    preset : str or None
        The preset's name when the client named one.
    first_click : {None, 'safe', 'opening'}
        The first-click rule.
    seed : int or None
        The client's seed; ``None`` for a fresh one that never leaves the server.
    name : str
        The player's name (for the leaderboard or a race).

    Examples
    --------
    >>> from numsweeper.server.protocol import new_game_request
    >>> new = new_game_request({"preset": "expert"}, max_cells=10**6)
    >>> new.rows, new.cols, new.mines, new.first_click, new.seed, new.name
    (16, 30, 99, 'safe', None, 'anonymous')
    """

    rows: int
    cols: int
    mines: int
    preset: str | None
    first_click: str | None
    seed: int | None
    name: str


def parse_json(raw: bytes) -> Any:
    """The JSON value of a request body; malformed JSON is a 400.

    ``NaN`` and ``Infinity``, which JSON does not have, are refused too.

    Parameters
    ----------
    raw : bytes
        The request body.

    Returns
    -------
    object
        What :func:`json.loads` makes of it: a dict, list, str, int, float,
        bool or None.

    Raises
    ------
    ApiError
        400 with code ``'bad_json'``, if ``raw`` is not UTF-8 text or not
        valid JSON (``NaN`` and ``Infinity`` included, and nesting too deep
        to parse).

    Examples
    --------
    >>> from numsweeper.server.protocol import parse_json
    >>> parse_json(b'{"row": 1}')
    {'row': 1}
    >>> parse_json(b'{"row": ')
    Traceback (most recent call last):
        ...
    numsweeper.server.protocol.ApiError: request body is not valid JSON: Expecting value...
    """

    def refuse_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        text = raw.decode("utf-8")
        return json.loads(text, parse_constant=refuse_constant)
    except UnicodeDecodeError:
        raise ApiError(400, "request body is not UTF-8 text", "bad_json") from None
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, f"request body is not valid JSON: {exc}", "bad_json") from None


def _object(body: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(422, f"request body must be a JSON object, got {_kind(body)}")
    for key in body:
        if key not in allowed:
            raise ApiError(422, f"unknown field {key!r}; expected {', '.join(allowed)}")
    return body


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


def _integer(body: dict[str, Any], key: str) -> int:
    if key not in body:
        raise ApiError(422, f"missing field {key!r}")
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(422, f"{key} must be an integer, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def player_name(value: Any) -> str:
    """A player's name: 1 to :data:`MAX_NAME` printable characters, trimmed.

    Parameters
    ----------
    value : object
        The ``name`` field of a request.

    Returns
    -------
    str
        ``value`` with the white space around it removed.

    Raises
    ------
    ApiError
        422, if ``value`` is not a string, or once trimmed is empty, longer
        than :data:`MAX_NAME` or holds a character that is not printable.

    Examples
    --------
    >>> from numsweeper.server.protocol import player_name
    >>> player_name("  Ada ")
    'Ada'
    >>> player_name("")
    Traceback (most recent call last):
        ...
    numsweeper.server.protocol.ApiError: name must be 1 to 32 printable characters, got ''
    """
    if not isinstance(value, str):
        raise ApiError(422, f"name must be a string, got {_shown(value)}")
    name = value.strip()
    printable = all(unicodedata.category(ch)[0] != "C" for ch in name)
    if not 1 <= len(name) <= MAX_NAME or not printable:
        raise ApiError(
            422, f"name must be 1 to {MAX_NAME} printable characters, got {_shown(value)}"
        )
    return name


def new_game_request(
    body: Any, *, max_cells: int, first_click: str | None = DEFAULT_FIRST_CLICK
) -> NewGame:
    """Read ``{"preset": ...}`` or ``{"rows", "cols", "mines"}``, plus options.

    Parameters
    ----------
    body : object
        The parsed JSON.  Fields: ``preset`` (a name in ``ns.PRESETS``) or
        all of ``rows``, ``cols`` and ``mines``; optional ``first_click``
        (``null``, ``"safe"`` or ``"opening"``), ``seed`` (an integer in
        ``0 .. 2**128 - 1``) and ``name``.
    max_cells : int
        The server's cap on ``rows * cols``.
    first_click : {None, 'safe', 'opening'}
        The rule when the body names none.

    Returns
    -------
    NewGame

    Raises
    ------
    ApiError
        422, naming the field, for anything else.

    Examples
    --------
    >>> from numsweeper.server.protocol import new_game_request
    >>> new_game_request({"rows": 2000, "cols": 2000, "mines": 10}, max_cells=10**6)
    Traceback (most recent call last):
        ...
    numsweeper.server.protocol.ApiError: a 2000x2000 board has 4000000 cells; this server ...
    """
    fields = ("preset", "rows", "cols", "mines", "first_click", "seed", "name")
    body = _object(body, fields)
    dims = [key for key in ("rows", "cols", "mines") if key in body]
    preset = body.get("preset")
    if preset is not None:
        if dims:
            raise ApiError(422, "give either a preset or rows, cols and mines, not both")
        if not isinstance(preset, str) or preset not in ns.PRESETS:
            raise ApiError(
                422, f"unknown preset {_shown(preset)}; choose one of {', '.join(ns.PRESETS)}"
            )
        rows, cols, mines = ns.PRESETS[preset]
    elif not dims:
        raise ApiError(422, "give a preset or rows, cols and mines")
    else:
        rows, cols, mines = (_integer(body, key) for key in ("rows", "cols", "mines"))
        for key, value in (("rows", rows), ("cols", cols)):
            if value < 1:
                raise ApiError(422, f"{key} must be >= 1, got {value}")
        if rows * cols > max_cells:
            raise ApiError(
                422,
                f"a {rows}x{cols} board has {rows * cols} cells; "
                f"this server allows at most {max_cells}",
            )
        if not 0 <= mines < rows * cols:
            raise ApiError(
                422, f"mines must be in 0..{rows * cols - 1} for a {rows}x{cols} board, got {mines}"
            )
    rule = body.get("first_click", first_click)
    if rule not in FIRST_CLICK_RULES:
        raise ApiError(422, f"first_click must be null, 'safe' or 'opening', got {_shown(rule)}")
    seed = body.get("seed")
    if seed is not None:
        seed = _integer(body, "seed")
        if not 0 <= seed < MAX_SEED:
            raise ApiError(422, f"seed must be in 0..2**128-1, got {_shown(seed)}")
    name = player_name(body["name"]) if body.get("name") is not None else "anonymous"
    return NewGame(rows, cols, mines, preset, rule, seed, name)


def move_request(body: Any, *, kinds: tuple[str, ...] = MOVE_KINDS) -> tuple[str, int, int]:
    """Read ``{"kind": "reveal"|"flag"|"chord", "row": int, "col": int}``.

    Whether the cell is on the board is the game's to say.

    Parameters
    ----------
    body : object
        The parsed JSON.
    kinds : tuple of str
        The kinds this endpoint takes.

    Returns
    -------
    (kind, row, col)

    Raises
    ------
    ApiError
        422, naming the field.

    Examples
    --------
    >>> from numsweeper.server.protocol import move_request
    >>> move_request({"kind": "dig", "row": 0, "col": 0})
    Traceback (most recent call last):
        ...
    numsweeper.server.protocol.ApiError: kind must be one of 'reveal', 'flag', 'chord', got 'dig'
    """
    body = _object(body, ("kind", "row", "col"))
    if "kind" not in body:
        raise ApiError(422, "missing field 'kind'")
    kind = body["kind"]
    if not isinstance(kind, str) or kind not in kinds:
        raise ApiError(
            422, f"kind must be one of {', '.join(map(repr, kinds))}, got {_shown(kind)}"
        )
    return kind, _integer(body, "row"), _integer(body, "col")


def engine_error(exc: ns.MinesweeperError) -> ApiError:
    """The HTTP refusal of a move the engine refused.

    A move after the end or on a cell in the wrong state conflicts with the
    game (409); an off-board cell or another bad value is invalid (422).

    Parameters
    ----------
    exc : MinesweeperError
        What the engine raised.

    Returns
    -------
    ApiError
        To raise in its place, with the engine's message.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.server.protocol import engine_error
    >>> game = ns.Game.new(2, 2, 0)
    >>> try:
    ...     game.reveal(5, 0)
    ... except ns.MinesweeperError as exc:
    ...     err = engine_error(exc)
    >>> err.status, err.code
    (422, 'invalid')
    """
    if isinstance(exc, (ns.GameOverError, ns.IllegalMoveError)):
        return ApiError(409, str(exc), "conflict")
    return ApiError(422, str(exc), "invalid")


def snapshot_json(snapshot: ns.Snapshot, *, elapsed: float) -> dict[str, Any]:
    """``{"cells", "state", "mines_left", "elapsed"}``: what a player sees.

    ``cells`` are the engine's visible codes, so a game in progress shows
    no mine: a hidden mine and a hidden safe cell are both
    :data:`~numsweeper.HIDDEN`.

    Parameters
    ----------
    snapshot : Snapshot
    elapsed : float
        The player's time in seconds (the server's clock).

    Returns
    -------
    dict

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.server.protocol import snapshot_json
    >>> game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.reveal(1, 1)
    >>> snapshot_json(game.snapshot(), elapsed=1.23456)
    {'cells': [[-1, -1], [-1, 1]], 'state': 'in_progress', 'mines_left': 1, 'elapsed': 1.235}
    """
    return {
        "cells": snapshot.cells.tolist(),
        "state": snapshot.state.value,
        "mines_left": int(snapshot.mines_left),
        "elapsed": round(max(0.0, elapsed), 3) if math.isfinite(elapsed) else 0.0,
    }


def changed_cells(before: ns.Snapshot, after: ns.Snapshot) -> list[list[int]]:
    """``[[row, col], ...]``, row-major: the cells whose visible code changed.

    After a loss this includes the mines the end uncovers.

    Parameters
    ----------
    before, after : Snapshot
        Two snapshots of the same game.

    Returns
    -------
    list of [int, int]
        The changed cells as ``[row, col]`` pairs of Python ints.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.server.protocol import changed_cells
    >>> game = ns.Game.new(1, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> before = game.snapshot()
    >>> _ = game.toggle_flag(0, 2)
    >>> changed_cells(before, game.snapshot())
    [[0, 2]]
    """
    diff: NDArray[np.intp] = np.argwhere(before.cells != after.cells)
    return [[int(r), int(c)] for r, c in diff]
