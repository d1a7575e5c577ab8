"""``numsweeper serve``: run the game service with uvicorn.

Importing this module imports neither uvicorn nor Starlette, so that
``numsweeper --help`` works without the ``serve`` extra; ``serve`` itself
says how to install it when it is missing.

Examples
--------
>>> import argparse
>>> from numsweeper.server import cli
>>> parser = argparse.ArgumentParser(prog="numsweeper")
>>> _ = cli.add_parser(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["serve", "--port", "8080", "--db", "sqlite:///games.db"])
>>> args.host, args.port, args.db, args.workers, args.func is cli.run
('127.0.0.1', 8080, 'sqlite:///games.db', 1, True)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .._validate import non_negative_int, positive_int
from .settings import ENVIRONMENT_VARIABLE, Settings, database_url, default_database

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Serve Minesweeper over HTTP: a web page at /, a JSON API under /api (games,
moves, a leaderboard, race rooms over WebSocket), with games kept in SQLite
or PostgreSQL.  Every move is committed before it is acknowledged, and
several server processes can share one PostgreSQL database.
"""


#: The largest TCP port.
_MAX_PORT = 65535


def _port(text: str) -> int:
    """An argparse type: a TCP port, 0..65535 (0: any free port)."""
    value = non_negative_int(text)
    if value > _MAX_PORT:
        raise argparse.ArgumentTypeError(f"must be <= {_MAX_PORT}, got {value}")
    return value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``serve`` subcommand on an argparse subparsers object.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers()`` returned.

    Returns
    -------
    argparse.ArgumentParser
        The ``serve`` parser; its ``func`` default is :func:`run`.

    Notes
    -----
    Every argument is checked as it is parsed (a port in 0..65535, counts
    of at least 1), so a bad one is a usage error before :func:`run` opens
    or creates any database.

    Examples
    --------
    >>> import argparse
    >>> from numsweeper.server.cli import add_parser
    >>> parser = argparse.ArgumentParser(prog="numsweeper")
    >>> _ = add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["serve", "--port", "8080"])
    >>> args.host, args.port, args.func.__name__
    ('127.0.0.1', 8080, 'run')
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="serve the game over HTTP: a web page, an API, race rooms",
        description=_DESCRIPTION,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument("--port", type=_port, default=8000, help="port, 0..65535 (default: 8000)")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DB "
        "(default: an SQLite file in ~/.local/share/numsweeper)",
    )
    parser.add_argument(
        "--workers", type=positive_int, default=1, help="server processes (default: 1)"
    )
    parser.add_argument(
        "--max-cells",
        type=positive_int,
        default=1_000_000,
        help="the largest board, in cells (default: 1000000)",
    )
    parser.add_argument(
        "--log-level",
        choices=["critical", "error", "warning", "info", "debug"],
        default="info",
        help="default: info",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; the exit code (2 for a missing extra or a bad database).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``serve`` options (see :func:`add_parser`).  Without
        ``--db`` the default database's directory is created.

    Returns
    -------
    int
        0 once the server has stopped; 2, with the reason on stderr, when
        the ``serve`` extra or the database's driver is missing or the
        database cannot be used (nothing is served then).

    Examples
    --------
    A database that cannot be used is refused before anything is served:

    >>> import argparse
    >>> from numsweeper.server import cli
    >>> parser = argparse.ArgumentParser(prog="numsweeper")
    >>> _ = cli.add_parser(parser.add_subparsers(dest="command"))
    >>> cli.run(parser.parse_args(["serve", "--db", "mysql://games"]))
    2
    """
    try:
        import uvicorn
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import SQLAlchemyError

        from .app import create_app
        from .storage import Store
    except ImportError as exc:
        print(
            f"numsweeper serve: error: needs the serve extra ({exc.name} is missing): "
            "pip install 'numsweeper[serve]'",
            file=sys.stderr,
        )
        return 2
    if args.db is None:
        args.db = default_database()
        Path(args.db.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    try:
        settings = Settings(database=args.db, max_cells=args.max_cells)
        Store(settings).close()  # reachable, and its tables made, before any worker starts
    except ImportError as exc:  # the database's driver
        print(
            f"numsweeper serve: error: {args.db.partition(':')[0]} needs {exc.name}: "
            "pip install 'numsweeper[serve]'",
            file=sys.stderr,
        )
        return 2
    except (ValueError, RuntimeError, SQLAlchemyError) as exc:
        reason = str(exc).splitlines()[0]
        print(f"numsweeper serve: error: {reason}", file=sys.stderr)
        return 2
    shown = make_url(database_url(settings.database)).render_as_string(hide_password=True)
    print(f"numsweeper serve: games in {shown}", file=sys.stderr)
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": args.log_level,
        "ws_max_size": settings.max_body,
        "server_header": False,
    }
    if args.workers == 1:
        uvicorn.run(create_app(settings), **options)
    else:
        os.environ[ENVIRONMENT_VARIABLE] = settings.to_json()
        uvicorn.run(
            "numsweeper.server.app:create_app_from_environment",
            factory=True,
            workers=args.workers,
            **options,
        )
    return 0
