"""The Starlette app: the HTTP API, race rooms over WebSocket, and the page at ``/``.

Handlers read and check the request (:mod:`~numsweeper.server.protocol`),
run the blocking database work in a worker thread
(:class:`~numsweeper.server.storage.Store`), and answer only after it has
committed.  Every refusal is a 4xx with ``{"error": message, "code": code}``.

Examples
--------
>>> import tempfile, pathlib
>>> from starlette.testclient import TestClient
>>> from numsweeper.server.app import create_app
>>> from numsweeper.server.settings import Settings
>>> db = pathlib.Path(tempfile.mkdtemp()) / "games.db"
>>> with TestClient(create_app(Settings(database=f"sqlite:///{db}"))) as client:
...     bad = client.post("/api/games", json={"rows": 3, "cols": "x", "mines": 1})
>>> bad.status_code, bad.json()
(422, {'error': "cols must be an integer, got 'x'", 'code': 'invalid'})
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import numsweeper as ns

from .protocol import (
    ApiError,
    move_request,
    new_game_request,
    parse_json,
    player_name,
)
from .race import RACE_MOVE_KINDS
from .settings import ENVIRONMENT_VARIABLE, Settings
from .storage import Store

__all__ = ["create_app", "create_app_from_environment"]

log = logging.getLogger("numsweeper.server")

T = TypeVar("T")

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MAX_TOKEN = 256
_SEND_TIMEOUT = 10.0  # seconds a WebSocket peer may take to accept a message
_HELLO_TIMEOUT = 10.0
_API_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
_PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
}
_STATUS_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}


def _static() -> Path:
    return Path(str(resources.files("numsweeper.server") / "static"))


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=_API_HEADERS)


class _Peer:
    """One WebSocket, its sends kept in order, and the room version it was last sent."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket
        self.version: int | None = None
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await asyncio.wait_for(self.socket.send_json(message), _SEND_TIMEOUT)


class _Watch:
    def __init__(self) -> None:
        self.peers: set[_Peer] = set()
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class RoomHub:
    """Pushes each room's view to the WebSockets of this process that watch it.

    One task per room sends the views, so each socket gets them in order,
    and only the views it has not had.  A change made through this process
    wakes the task at once (:meth:`notify`); changes made through other
    server processes sharing the database are seen by checking the room's
    version every ``poll_interval`` seconds.  Tasks run only while a room has
    sockets.

    Parameters
    ----------
    store : Store
    poll_interval : float
    """

    def __init__(self, store: Store, *, poll_interval: float) -> None:
        self._store = store
        self._poll = poll_interval
        self._rooms: dict[str, _Watch] = {}

    def join(self, key: str, peer: _Peer) -> None:
        """Watch room ``key``: ``peer`` gets its view now and after every change."""
        watch = self._rooms.get(key)
        if watch is None:
            watch = self._rooms[key] = _Watch()
            watch.task = asyncio.create_task(self._watch(key, watch))
        watch.peers.add(peer)
        watch.wake.set()

    def leave(self, key: str, peer: _Peer) -> None:
        """Stop sending room ``key`` to ``peer``."""
        watch = self._rooms.get(key)
        if watch is None:
            return
        watch.peers.discard(peer)
        if not watch.peers:
            del self._rooms[key]
            if watch.task is not None:
                watch.task.cancel()

    def notify(self, key: str) -> None:
        """Room ``key`` changed: send its view to its peers."""
        watch = self._rooms.get(key)
        if watch is not None:
            watch.wake.set()

    async def close(self) -> None:
        """Stop every watcher."""
        tasks = [w.task for w in self._rooms.values() if w.task is not None]
        self._rooms.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch(self, key: str, watch: _Watch) -> None:
        while True:
            watch.wake.clear()  # a change from now on wakes the wait below
            try:
                await self._send_news(key, watch)
            except Exception:  # the database went away for a moment: try again later
                log.exception("room %s: cannot read its view", key)
            with suppress(TimeoutError):
                await asyncio.wait_for(watch.wake.wait(), self._poll)

    async def _send_news(self, key: str, watch: _Watch) -> None:
        version = await run_in_threadpool(self._store.room_version, key)
        behind = [peer for peer in watch.peers if peer.version != version]
        if version is None or not behind:
            return
        view = await run_in_threadpool(self._store.room_view, key)
        message = {"type": "room", "room": view}

        async def send(peer: _Peer) -> None:
            await peer.send(message)
            peer.version = view["version"]

        await asyncio.gather(*(send(peer) for peer in behind), return_exceptions=True)


class _Service:
    """The app's handlers, sharing one store and one hub."""

    def __init__(self, settings: Settings, store: Store | None) -> None:
        self.settings = settings
        self._given = store
        self._store = store
        self._hub: RoomHub | None = None

    @asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        if self._store is None:
            self._store = await run_in_threadpool(Store, self.settings)
        self._hub = RoomHub(self._store, poll_interval=self.settings.poll_interval)
        try:
            yield
        finally:
            await self._hub.close()
            if self._given is None:
                self._store.close()
                self._store = None

    @property
    def store(self) -> Store:
        assert self._store is not None, "the app has not started"
        return self._store

    @property
    def hub(self) -> RoomHub:
        assert self._hub is not None, "the app has not started"
        return self._hub

    async def _run(self, work: Callable[..., T], *args: Any) -> T:
        return await run_in_threadpool(work, *args)

    # -- request parts --------------------------------------------------------------

    async def _body(self, request: Request) -> Any:
        limit = self.settings.max_body
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise ApiError(
                413, f"request body of {length} bytes exceeds {limit} bytes", "too_large"
            )
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, f"request body exceeds {limit} bytes", "too_large")
            chunks.append(chunk)
        return parse_json(b"".join(chunks))

    @staticmethod
    def _token(request: Request) -> str:
        header = request.headers.get("authorization")
        if header is None:
            raise ApiError(401, "missing header 'Authorization: Bearer <token>'", "unauthorized")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > _MAX_TOKEN:
            raise ApiError(401, "the Authorization header must be 'Bearer <token>'", "unauthorized")
        return token

    @staticmethod
    def _key(request: Request, what: str) -> str:
        key = str(request.path_params["key"])
        if not _ID.fullmatch(key):
            raise ApiError(404, f"no {what} {key[:64]!r}", "not_found")
        return key

    # -- pages and health --------------------------------------------------------

    async def page(self, _request: Request) -> Response:
        return FileResponse(_static() / "index.html", headers=_PAGE_HEADERS)

    async def health(self, _request: Request) -> Response:
        return _json({"status": "ok", "database": self.store.kind, "version": ns.__version__})

    # -- games -------------------------------------------------------------------

    async def create_game(self, request: Request) -> Response:
        new = new_game_request(await self._body(request), max_cells=self.settings.max_cells)
        return _json(await self._run(self.store.create_game, new), 201)

    async def game(self, request: Request) -> Response:
        key, token = self._key(request, "game"), self._token(request)
        return _json(await self._run(self.store.game_view, key, token))

    async def play(self, request: Request) -> Response:
        key, token = self._key(request, "game"), self._token(request)
        kind, row, col = move_request(await self._body(request))
        return _json(await self._run(self.store.play, key, token, kind, row, col))

    async def moves(self, request: Request) -> Response:
        key, token = self._key(request, "game"), self._token(request)
        return _json(await self._run(self.store.move_list, key, token))

    async def leaderboard(self, request: Request) -> Response:
        params = request.query_params
        preset = params.get("preset", "expert")
        if preset not in ns.PRESETS:
            raise ApiError(
                422, f"unknown preset {preset[:40]!r}; choose one of {', '.join(ns.PRESETS)}"
            )
        rule = params.get("first_click")
        try:  # (the store checks the rule, as every entry point does)
            board = await self._run(
                lambda: self.store.leaderboard(preset, first_click=rule, any_rule=rule is None)
            )
        except ns.InvalidBoardError as exc:
            raise ApiError(422, str(exc)) from None
        return _json(board)

    # -- race rooms ----------------------------------------------------------------

    async def create_room(self, request: Request) -> Response:
        new = new_game_request(
            await self._body(request), max_cells=self.settings.max_cells, first_click="opening"
        )
        return _json(await self._run(self.store.create_room, new), 201)

    async def room(self, request: Request) -> Response:
        return _json(await self._run(self.store.room_view, self._key(request, "race room")))

    async def join(self, request: Request) -> Response:
        key = self._key(request, "race room")
        body = await self._body(request)
        if not isinstance(body, dict) or set(body) - {"name"}:
            raise ApiError(422, 'request body must be {"name": ...}')
        answer = await self._run(self.store.join_room, key, player_name(body.get("name")))
        self.hub.notify(key)
        return _json(answer, 201)

    async def start(self, request: Request) -> Response:
        key, token = self._key(request, "race room"), self._token(request)
        answer = await self._run(self.store.start_room, key, token)
        self.hub.notify(key)
        return _json(answer)

    async def room_move(self, request: Request) -> Response:
        key, token = self._key(request, "race room"), self._token(request)
        kind, row, col = move_request(await self._body(request), kinds=RACE_MOVE_KINDS)
        answer = await self._run(self.store.room_move, key, token, kind, row, col)
        self.hub.notify(key)
        return _json(answer)

    async def room_socket(self, socket: WebSocket) -> None:
        """``/api/rooms/{id}/ws``: live views of a room, and its players' moves.

        The client first sends ``{"type": "hello", "token": TOKEN}`` (a
        player) or ``{"type": "hello"}`` (a spectator), then
        ``{"type": "start"}`` (the host) and ``{"type": "move", "kind",
        "row", "col"}``.  The server sends ``{"type": "room", "room": VIEW}``
        after every change, ``{"type": "moved", "move", "changed"}`` to the
        player whose move it played, and ``{"type": "error", "error",
        "code"}`` for a refusal.
        """
        await socket.accept()
        key = str(socket.path_params["key"])
        peer = _Peer(socket)
        try:
            token = await self._hello(socket, key)
        except ApiError as exc:
            await peer.send({"type": "error", **exc.body()})
            await socket.close(code=4000 + exc.status)
            return
        except (WebSocketDisconnect, TimeoutError):
            return
        try:
            self.hub.join(key, peer)
            while True:
                text = await _receive(socket)
                try:
                    await self._message(peer, key, token, text)
                except ApiError as exc:
                    await peer.send({"type": "error", **exc.body()})
        except WebSocketDisconnect:
            pass
        finally:
            self.hub.leave(key, peer)

    async def _hello(self, socket: WebSocket, key: str) -> str | None:
        text = await asyncio.wait_for(_receive(socket), _HELLO_TIMEOUT)
        hello = parse_json(text.encode())
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            raise ApiError(400, 'the first message must be {"type": "hello", "token": ...}')
        if not _ID.fullmatch(key):
            raise ApiError(404, f"no race room {key[:64]!r}", "not_found")
        token = hello.get("token")
        if token is None:
            if await self._run(self.store.room_version, key) is None:
                raise ApiError(404, f"no race room {key!r}", "not_found")
            return None
        if not isinstance(token, str) or not token or len(token) > _MAX_TOKEN:
            raise ApiError(401, "token must be a non-empty string", "unauthorized")
        await self._run(self.store.room_player, key, token)
        return token

    async def _message(self, peer: _Peer, key: str, token: str | None, text: str) -> None:
        if len(text) > self.settings.max_body:
            raise ApiError(413, f"message exceeds {self.settings.max_body} bytes", "too_large")
        message = parse_json(text.encode())
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "ping":
            await peer.send({"type": "pong"})
            return
        if kind not in ("start", "move"):
            raise ApiError(422, f"message type must be 'start', 'move' or 'ping', got {kind!r}")
        if token is None:
            raise ApiError(401, "spectators cannot play: join the room first", "unauthorized")
        if kind == "start":
            await self._run(self.store.start_room, key, token)
        else:
            fields = {k: v for k, v in message.items() if k != "type"}
            move, row, col = move_request(fields, kinds=RACE_MOVE_KINDS)
            answer = await self._run(self.store.room_move, key, token, move, row, col)
            await peer.send({"type": "moved", "move": answer["move"], "changed": answer["changed"]})
        self.hub.notify(key)


async def _receive(socket: WebSocket) -> str:
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    if message.get("text") is not None:
        return str(message["text"])
    try:
        return bytes(message.get("bytes") or b"").decode("utf-8")
    except UnicodeDecodeError:
        return ""


async def _api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    headers = dict(_API_HEADERS)
    if exc.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _STATUS_CODES.get(exc.status_code, "error")
    return JSONResponse(
        {"error": str(exc.detail), "code": code},
        status_code=exc.status_code,
        headers={**_API_HEADERS, **(exc.headers or {})},
    )


async def _server_error(_request: Request, exc: Exception) -> Response:
    log.error("internal error: %s", type(exc).__name__)
    return JSONResponse(
        {"error": "internal server error", "code": "internal"},
        status_code=500,
        headers=_API_HEADERS,
    )


def create_app(settings: Settings, *, store: Store | None = None) -> Starlette:
    """The ASGI app of ``numsweeper serve``.

    Parameters
    ----------
    settings : Settings
        The database and limits.
    store : Store, optional
        An open store to use (and leave open); by default the app opens one
        at startup and closes it at shutdown.

    Returns
    -------
    starlette.applications.Starlette

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from starlette.testclient import TestClient
    >>> from numsweeper.server.app import create_app
    >>> from numsweeper.server.settings import Settings
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "games.db"
    >>> with TestClient(create_app(Settings(database=f"sqlite:///{db}"))) as client:
    ...     print(client.get("/api/health").json()["status"])
    ok
    """
    service = _Service(settings, store)
    routes = [
        Route("/", service.page),
        Route("/api/health", service.health),
        Route("/api/games", service.create_game, methods=["POST"]),
        Route("/api/games/{key}", service.game),
        Route("/api/games/{key}/moves", service.play, methods=["POST"]),
        Route("/api/games/{key}/moves", service.moves, methods=["GET"]),
        Route("/api/leaderboard", service.leaderboard),
        Route("/api/rooms", service.create_room, methods=["POST"]),
        Route("/api/rooms/{key}", service.room),
        Route("/api/rooms/{key}/players", service.join, methods=["POST"]),
        Route("/api/rooms/{key}/start", service.start, methods=["POST"]),
        Route("/api/rooms/{key}/moves", service.room_move, methods=["POST"]),
        WebSocketRoute("/api/rooms/{key}/ws", service.room_socket),
        Mount("/static", StaticFiles(directory=_static()), name="static"),
    ]
    return Starlette(
        routes=routes,
        lifespan=service.lifespan,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )


def create_app_from_environment() -> Starlette:
    """The app of the settings in ``$NUMSWEEPER_SERVE_SETTINGS`` (for ``--workers``).

    ``numsweeper serve --workers N`` passes the settings to uvicorn's worker
    processes this way: uvicorn imports this factory by name in each one.

    Returns
    -------
    starlette.applications.Starlette
        As :func:`create_app` makes it for those settings.

    Raises
    ------
    KeyError
        If the variable is not set.
    InvalidBoardError, InvalidTypeError
        If it does not hold valid settings (see :meth:`Settings.from_json`).

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> from unittest import mock
    >>> from numsweeper.server import Settings
    >>> from numsweeper.server.app import create_app_from_environment
    >>> from numsweeper.server.settings import ENVIRONMENT_VARIABLE
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "games.db"
    >>> settings = Settings(database=f"sqlite:///{db}")
    >>> with mock.patch.dict(os.environ, {ENVIRONMENT_VARIABLE: settings.to_json()}):
    ...     app = create_app_from_environment()
    >>> type(app).__name__
    'Starlette'
    """
    return create_app(Settings.from_json(os.environ[ENVIRONMENT_VARIABLE]))
