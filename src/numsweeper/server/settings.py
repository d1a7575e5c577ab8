"""What a server is configured with: its database and its limits.

Plain data, importable without the ``serve`` extra (the CLI reads it to
parse its options before anything heavy is imported).

Examples
--------
>>> from numsweeper.server.settings import Settings, database_url
>>> Settings(database="sqlite:////tmp/games.db").max_cells
1000000
>>> database_url("postgresql://ns@127.0.0.1:5432/games")
'postgresql+psycopg://ns@127.0.0.1:5432/games'
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path

from .._validate import check_at_least, parse_json, short_repr
from ..errors import InvalidBoardError, InvalidTypeError

__all__ = ["ENVIRONMENT_VARIABLE", "Settings", "database_url", "default_database"]

#: Where ``numsweeper serve --workers N`` hands its settings to the worker processes.
ENVIRONMENT_VARIABLE = "NUMSWEEPER_SERVE_SETTINGS"

_SCHEMES = {
    "sqlite": "sqlite",
    "postgresql": "postgresql+psycopg",
    "postgres": "postgresql+psycopg",
    "postgresql+psycopg": "postgresql+psycopg",
}


@dataclass(frozen=True)
class Settings:
    """A server's configuration.

    Attributes
    ----------
    database : str
        A database URL: ``sqlite:///PATH`` or ``postgresql://USER:PASSWORD@HOST:PORT/DB``.
    max_cells : int
        The largest board a game may have, in cells.
    max_body : int
        The largest request body accepted, in bytes.
    max_players : int
        Players per race room.
    poll_interval : float
        Seconds between checks for race moves made through other server
        processes (moves made through this process are pushed at once).
    leaderboard_size : int
        Entries a leaderboard returns at most.

    Raises
    ------
    InvalidBoardError
        For an unsupported database URL, a count below 1, or a
        ``poll_interval`` that is not a finite number above 0.
    InvalidTypeError
        If ``database`` is not a string, a count not an integer, or
        ``poll_interval`` not a number.

    Examples
    --------
    >>> from numsweeper.server.settings import Settings
    >>> s = Settings(database="sqlite:///games.db", max_cells=10_000)
    >>> Settings.from_json(s.to_json()) == s
    True
    """

    database: str
    max_cells: int = 1_000_000
    max_body: int = 16 * 1024
    max_players: int = 8
    poll_interval: float = 0.5
    leaderboard_size: int = 20

    def __post_init__(self) -> None:
        if not isinstance(self.database, str):  # a Path, say
            raise InvalidTypeError(
                f"database must be a URL string, got {short_repr(self.database)}"
            )
        database_url(self.database)  # refuse an unsupported URL early
        for name in ("max_cells", "max_body", "max_players", "leaderboard_size"):
            # (as plain ints: numpy integers pass, and to_json can write them)
            object.__setattr__(self, name, check_at_least(getattr(self, name), name, 1))
        interval = self.poll_interval
        if isinstance(interval, bool) or not isinstance(interval, numbers.Real):
            raise InvalidTypeError(f"poll_interval must be a number, got {short_repr(interval)}")
        try:
            seconds = float(interval)
        except OverflowError:  # (an integer beyond any float)
            seconds = math.inf
        if not 0 < seconds < math.inf:
            raise InvalidBoardError(
                f"poll_interval must be a finite number > 0, got {short_repr(interval)}"
            )
        object.__setattr__(self, "poll_interval", seconds)

    def to_json(self) -> str:
        """These settings as JSON (for worker processes).

        Returns
        -------
        str
            A JSON object of every field, which :meth:`from_json` reads back.

        Examples
        --------
        >>> from numsweeper.server.settings import Settings
        >>> Settings(database="sqlite:///games.db", max_players=4).to_json()
        '{"database": "sqlite:///games.db", "max_cells": 1000000, "max_body": 16384, ...}'
        """
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Settings:
        """The settings :meth:`to_json` wrote, checked as the constructor checks them.

        Parameters
        ----------
        text : str or bytes
            A JSON object with ``database`` and any of the other fields;
            those left out take their defaults.

        Returns
        -------
        Settings

        Raises
        ------
        InvalidBoardError
            If ``text`` is not valid JSON, not an object with ``database``,
            names an unknown field, or holds a value the constructor refuses
            as out of range.
        InvalidTypeError
            For a value of the wrong type, as the constructor says.

        Examples
        --------
        >>> from numsweeper.server.settings import Settings
        >>> Settings.from_json('{"database": "sqlite:///games.db", "max_players": 4}').max_players
        4
        >>> Settings.from_json('{"database": "sqlite:///games.db", "max_players": 0}')
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidBoardError: max_players must be >= 1, got 0
        """
        data = parse_json(text, "settings", InvalidBoardError)
        fields = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(data, dict) or not set(data) <= fields or "database" not in data:
            raise InvalidBoardError(
                f"settings must be a JSON object with 'database' and some of {sorted(fields)}, "
                f"got {short_repr(data)}"
            )
        return cls(**data)


def database_url(url: str) -> str:
    """The SQLAlchemy URL of a database URL, with the driver this server uses.

    Parameters
    ----------
    url : str
        ``sqlite:///PATH`` (``sqlite://`` alone is an in-memory database,
        for tests), ``postgresql://...`` or ``postgres://...``.

    Returns
    -------
    str

    Raises
    ------
    InvalidBoardError
        For another scheme (it is a :class:`ValueError`).

    Examples
    --------
    >>> from numsweeper.server.settings import database_url
    >>> database_url("sqlite:///games.db")
    'sqlite:///games.db'
    >>> database_url("mysql://x")
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidBoardError: unsupported database URL 'mysql://...': use ...
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in _SCHEMES:
        shown = f"{scheme}://..." if sep else url[:40]
        raise InvalidBoardError(
            f"unsupported database URL {shown!r}: use sqlite:///PATH or postgresql://..."
        )
    return f"{_SCHEMES[scheme]}://{rest}"


def default_database() -> str:
    """The default database: an SQLite file in the user's data directory.

    ``$XDG_DATA_HOME/numsweeper/games.db``, or
    ``~/.local/share/numsweeper/games.db`` (``numsweeper serve`` creates
    the directory).

    Returns
    -------
    str
        An ``sqlite:///`` URL for :class:`Settings`.

    Examples
    --------
    >>> from numsweeper.server.settings import default_database
    >>> default_database().startswith("sqlite:///") and default_database().endswith("games.db")
    True
    """
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'numsweeper' / 'games.db'}"
