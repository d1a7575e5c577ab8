"""The game service behind ``numsweeper serve``: an ASGI app, a database and a web page.

Needs the ``serve`` extra (``pip install 'numsweeper[serve]'``: Starlette,
uvicorn, SQLAlchemy and psycopg); ``import numsweeper`` never imports it,
and neither does ``numsweeper --help``.  It uses only the engine's public
API.

- :mod:`~numsweeper.server.protocol`: the JSON a client sends and gets;
- :mod:`~numsweeper.server.race`: race mode's rules;
- :mod:`~numsweeper.server.storage`: games, moves, rooms and the leaderboard
  in SQLite or PostgreSQL, one transaction per move;
- :mod:`~numsweeper.server.app`: the Starlette app (HTTP API, WebSocket, page);
- :mod:`~numsweeper.server.cli`: the ``serve`` subcommand.

``docs/server.md`` describes the API, the storage and race mode.

Examples
--------
>>> import tempfile, pathlib
>>> from starlette.testclient import TestClient
>>> from numsweeper.server import Settings, create_app
>>> db = pathlib.Path(tempfile.mkdtemp()) / "games.db"
>>> with TestClient(create_app(Settings(database=f"sqlite:///{db}"))) as client:
...     made = client.post("/api/games", json={"preset": "beginner", "seed": 1}).json()
...     auth = {"Authorization": f"Bearer {made['token']}"}
...     answer = client.post(
...         f"/api/games/{made['id']}/moves",
...         json={"kind": "reveal", "row": 4, "col": 4},
...         headers=auth,
...     ).json()
>>> answer["snapshot"]["state"], answer["snapshot"]["cells"][4][4] >= 0
('in_progress', True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .settings import Settings

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    # The app pulls in Starlette and SQLAlchemy: only when asked for.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
