"""Games, moves, race rooms and the leaderboard in SQLite or PostgreSQL.

**What is stored.**  A game is its board size, first-click rule and seed
(which never leave the server), its mine layout once laid (bit-packed), and
its moves, one row each, numbered from 0.  The game's row also keeps what
its moves lead to (state, mines left, the number of moves, the times of the
first reveal and of the end) so that reads need not replay anything, and the
moves rebuild the game exactly: ``ns.Game.new`` on the stored layout, then
each move through the engine's public API.  A rebuilt game that disagrees
with its row is refused, never served.

**One move, one transaction.**  A move locks its game's row (``SELECT ...
FOR UPDATE`` on PostgreSQL; on SQLite the transaction is ``BEGIN
IMMEDIATE``, which takes the database's write lock), plays the move on the
game, inserts the move's row under the next number, updates the game's row
and commits; the server answers only after the commit.  So concurrent moves
on one game, from one server process or several, are applied one at a time
in one order, none is counted twice (the move's number is part of its
primary key), and after a crash every acknowledged move is there and no
half of one is.  Different games lock different rows and proceed in
parallel on PostgreSQL; SQLite has one writer at a time.

**A cache, checked on every use.**  Each process keeps recently used games
in memory (bounded by their cells), tagged with their number of moves; a
game is used only while that number equals its row's, so a move made by
another process makes the copy stale and the game is rebuilt.

Examples
--------
>>> import tempfile, pathlib
>>> from numsweeper.server.protocol import NewGame
>>> from numsweeper.server.settings import Settings
>>> from numsweeper.server.storage import Store
>>> path = pathlib.Path(tempfile.mkdtemp()) / "games.db"
>>> store = Store(Settings(database=f"sqlite:///{path}"))
>>> made = store.create_game(NewGame(9, 9, 10, "beginner", "safe", 7, "Ada"))
>>> answer = store.play(made["id"], made["token"], "reveal", 4, 4)
>>> answer["snapshot"]["state"], len(answer["changed"]) > 0
('in_progress', True)
>>> store.move_list(made["id"], made["token"])["moves"][0]["kind"]
'reveal'
>>> store.close()
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Row,
    String,
    Table,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url

import numsweeper as ns
from numsweeper._validate import first_click_rule

from .protocol import ApiError, NewGame, changed_cells, engine_error, snapshot_json
from .race import race_move, winners
from .settings import Settings, database_url

__all__ = ["SCHEMA_VERSION", "Store", "metadata"]

log = logging.getLogger("numsweeper.server")

#: The layout of the tables this module creates; a database of another
#: version is refused rather than misread.
SCHEMA_VERSION = 1

#: The SQLAlchemy :class:`~sqlalchemy.schema.MetaData` of those tables
#: (``metadata.create_all`` makes them).
metadata = MetaData()

_games = Table(
    "ns_games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=True),  # NULL for a race room's game
    Column("room", Boolean, nullable=False),
    Column("rows", Integer, nullable=False),
    Column("cols", Integer, nullable=False),
    Column("mines", Integer, nullable=False),
    Column("preset", String(16), nullable=True),
    Column("first_click", String(8), nullable=False),  # 'none', 'safe' or 'opening'
    Column("seed", String(40), nullable=False),  # decimal; lays the mines; never sent
    Column("seeded", Boolean, nullable=False),  # the client chose the seed
    Column("name", String(64), nullable=False),
    Column("layout", LargeBinary, nullable=True),  # np.packbits(mines), once laid
    Column("version", Integer, nullable=False),  # the number of moves
    Column("state", String(12), nullable=False),
    Column("mines_left", Integer, nullable=False),
    Column("created_at", Double, nullable=False),  # seconds since the epoch
    Column("started_at", Double, nullable=True),  # the first reveal
    Column("ended_at", Double, nullable=True),
)

_moves = Table(
    "ns_moves",
    metadata,
    Column("game_id", String(32), ForeignKey("ns_games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(6), nullable=False),
    Column("row", Integer, nullable=False),
    Column("col", Integer, nullable=False),
    Column("time", Double, nullable=False),  # seconds since the game was created
    Column("player", String(32), nullable=True),  # who made it, in a race
)

_scores = Table(
    "ns_scores",
    metadata,
    Column("game_id", String(32), ForeignKey("ns_games.id"), primary_key=True),
    Column("preset", String(16), nullable=False),
    Column("first_click", String(8), nullable=False),
    Column("name", String(64), nullable=False),
    Column("time", Double, nullable=False),
    Column("three_bv", Integer, nullable=False),
    Column("rate", Double, nullable=True),  # 3BV/s; NULL for a time of 0
    Column("finished_at", Double, nullable=False),
    Index("ns_scores_rank", "preset", "time"),
)

_rooms = Table(
    "ns_rooms",
    metadata,
    Column("id", String(32), ForeignKey("ns_games.id"), primary_key=True),  # = its game's id
    Column("host", String(32), nullable=False),
    Column("state", String(10), nullable=False),  # 'waiting', 'racing', 'finished'
    Column("version", Integer, nullable=False),  # bumped by every change
    Column("started_at", Double, nullable=True),
    Column("ended_at", Double, nullable=True),
)

_players = Table(
    "ns_players",
    metadata,
    Column("room_id", String(32), ForeignKey("ns_rooms.id"), primary_key=True),
    Column("id", String(32), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("token_hash", String(64), nullable=False, index=True),
    Column("name", String(64), nullable=False),
    Column("score", Integer, nullable=False),
    Column("still_in", Boolean, nullable=False),
    Column("hit_row", Integer, nullable=True),
    Column("hit_col", Integer, nullable=True),
)

_meta = Table(
    "ns_meta",
    metadata,
    Column("key", String(32), primary_key=True),
    Column("value", String(64), nullable=False),
)

_RULE_NAMES = {None: "none", "safe": "safe", "opening": "opening"}
_RULES = {name: rule for rule, name in _RULE_NAMES.items()}
_STRIPES = 64  # per-game locks within a process: a game hashes to one of these
_POOL: dict[str, Any] = {"pool_size": 8, "max_overflow": 32, "pool_timeout": 60}  # <= 40 in all
_ADVISORY_KEY = 0x6E756D73  # serializes schema creation between processes on PostgreSQL


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_NO_TOKEN = _hash("")  # compared against when there is no row, to take the same time


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class _Games:
    """Rebuilt games by id with their number of moves: an LRU bounded by cells."""

    def __init__(self, max_cells: int) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[int, ns.Game]] = OrderedDict()
        self._cells = 0
        self._max_cells = max_cells

    def get(self, key: str, version: int, *, take: bool = False) -> ns.Game | None:
        """The game if it holds exactly ``version`` moves; ``take`` removes it."""
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] != version:
                return None
            if take:
                self._drop(key)
            else:
                self._items.move_to_end(key)
            return item[1]

    def put(self, key: str, version: int, game: ns.Game) -> None:
        with self._lock:
            self._drop(key)
            self._items[key] = (version, game)
            self._cells += game.rows * game.cols
            while self._cells > self._max_cells and len(self._items) > 1:
                self._drop(next(iter(self._items)))

    def _drop(self, key: str) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self._cells -= item[1].rows * item[1].cols


def _play(game: ns.Game, kind: str, row: int, col: int) -> None:
    if kind == "reveal":
        game.reveal(row, col)
    elif kind == "flag":
        game.toggle_flag(row, col)
    else:
        game.chord(row, col)


def _layout(game: ns.Game) -> bytes | None:
    board = game.board
    return None if board is None else np.packbits(board.mines).tobytes()


def _mines_of(layout: bytes, rows: int, cols: int) -> Any:
    cells = np.unpackbits(np.frombuffer(layout, dtype=np.uint8), count=rows * cols)
    return cells.view(bool).reshape(rows, cols)


# A game's row without its layout (up to 125 kB), which only a rebuild reads;
# ``laid`` says whether there is one.
_GAME_ROW = [c for c in _games.c if c.name != "layout"] + [
    _games.c.layout.is_not(None).label("laid")
]


class Store:
    """The server's database: every operation the API offers, each one transaction.

    Methods are blocking (the app runs them in worker threads) and
    thread-safe.  They return the JSON-ready bodies of the API's answers and
    raise :class:`~numsweeper.server.protocol.ApiError` for refusals.

    Parameters
    ----------
    settings : Settings
        The database URL and limits.  The tables are created if missing.
    clock : callable, optional
        Seconds since the epoch; ``time.time`` by default.
    cache_cells : int
        The most cells of rebuilt games this process keeps in memory.

    Raises
    ------
    ValueError
        For an SQLite URL without a file (``sqlite://``).
    RuntimeError
        If the database holds tables of another schema version.
    sqlalchemy.exc.OperationalError
        If the database cannot be reached.

    Examples
    --------
    A game, a move and what the API would answer, in a fresh SQLite file:

    >>> import tempfile, pathlib
    >>> from numsweeper.server import Settings
    >>> from numsweeper.server.protocol import new_game_request
    >>> from numsweeper.server.storage import Store
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "games.db"
    >>> store = Store(Settings(database=f"sqlite:///{db}"))
    >>> new = new_game_request({"preset": "beginner", "seed": 1}, max_cells=10**6)
    >>> made = store.create_game(new)
    >>> answer = store.play(made["id"], made["token"], "reveal", 4, 4)
    >>> answer["snapshot"]["state"], answer["move"]["seq"]
    ('in_progress', 0)
    >>> [m["kind"] for m in store.move_list(made["id"], made["token"])["moves"]]
    ['reveal']
    >>> store.close()
    """

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.time,
        cache_cells: int = 20_000_000,
    ) -> None:
        self.settings = settings
        self._clock = clock
        url = make_url(database_url(settings.database))
        #: ``'sqlite'`` or ``'postgresql'``.
        self.kind = url.get_backend_name()
        # hide_parameters: an error's message would otherwise quote the statement's
        # values, a seed or a layout among them, into the log.
        if self.kind == "sqlite":
            if url.database in (None, "", ":memory:"):
                raise ValueError("an SQLite database needs a file: sqlite:///PATH")
            self._engine = create_engine(
                url, connect_args={"timeout": 60}, hide_parameters=True, **_POOL
            )
            event.listen(self._engine, "connect", _sqlite_connect)
            event.listen(self._engine, "begin", _sqlite_begin)
        else:
            self._engine = create_engine(url, hide_parameters=True, **_POOL)
        # SQLite has one writer at a time: queue this process's writers here
        # rather than in SQLite's busy loop, which sleeps.
        self._writer = threading.Lock() if self.kind == "sqlite" else None
        self._stripes = [threading.Lock() for _ in range(_STRIPES)]
        self._games = _Games(cache_cells)
        try:
            self._create_schema()
        except BaseException:
            self._engine.dispose()
            raise

    def close(self) -> None:
        """Close the database connections.

        Examples
        --------
        The store of a new SQLite file, closed when done:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> store.kind
        'sqlite'
        >>> store.close()
        """
        self._engine.dispose()

    # -- transactions -------------------------------------------------------------

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Connection]:
        writer = self._writer if write and self._writer else nullcontext()
        with writer, self._engine.connect() as conn:
            if self.kind == "sqlite":
                conn.execution_options(numsweeper_write=write)
            elif not write:
                conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                yield conn

    def _stripe(self, key: str) -> threading.Lock:
        return self._stripes[zlib.crc32(key.encode()) % _STRIPES]

    def _create_schema(self) -> None:
        with self._transaction(write=True) as conn:
            if self.kind == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_KEY})
            metadata.create_all(conn)
            found = conn.execute(select(_meta.c.value).where(_meta.c.key == "schema")).scalar()
            if found is None:
                conn.execute(insert(_meta).values(key="schema", value=str(SCHEMA_VERSION)))
            elif found != str(SCHEMA_VERSION):
                raise RuntimeError(
                    f"the database holds numsweeper schema version {found}; "
                    f"this server reads version {SCHEMA_VERSION}"
                )

    # -- games ------------------------------------------------------------------------

    def _game_values(
        self, key: str, new: NewGame, game: ns.Game, *, token: str | None, seed: int
    ) -> dict[str, Any]:
        return {
            "id": key,
            "token_hash": None if token is None else _hash(token),
            "room": token is None,
            "rows": new.rows,
            "cols": new.cols,
            "mines": new.mines,
            "preset": new.preset,
            "first_click": _RULE_NAMES[new.first_click],
            "seed": str(seed),
            "seeded": new.seed is not None,
            "name": new.name,
            "layout": _layout(game),
            "version": 0,
            "state": game.state.value,
            "mines_left": new.mines,
            "created_at": self._clock(),
            "started_at": None,
            "ended_at": None,
        }

    def create_game(self, new: NewGame) -> dict[str, Any]:
        """Start a game; ``{"id", "token", "snapshot", ...}`` (see :meth:`game_view`).

        Parameters
        ----------
        new : NewGame
            The checked request (:func:`~numsweeper.server.protocol.new_game_request`).

        Returns
        -------
        dict
            The game's ``id`` and the secret ``token`` its other calls need,
            then the fields of :meth:`game_view`.

        Raises
        ------
        ApiError
            422 if the engine refuses the board (say, too many mines for the
            first-click rule).

        Examples
        --------
        A game on a 3x3 board, its seed chosen by the client:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> made = store.create_game(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> sorted(made)
        ['cols', 'first_click', 'id', 'mines', 'name', 'preset', 'rows', 'snapshot', 'token']
        >>> made["snapshot"]["state"], made["snapshot"]["mines_left"]
        ('in_progress', 1)
        >>> store.close()
        """
        seed = new.seed if new.seed is not None else secrets.randbits(128)
        game = _created(new, seed)
        key, token = secrets.token_urlsafe(16), secrets.token_urlsafe(32)
        values = self._game_values(key, new, game, token=token, seed=seed)
        with self._transaction(write=True) as conn:
            conn.execute(insert(_games).values(**values))
        self._games.put(key, 0, game)
        return {"id": key, "token": token, **self._describe(values, game)}

    def _describe(self, row: Any, game: ns.Game) -> dict[str, Any]:
        get = row.get if isinstance(row, dict) else row._mapping.get
        return {
            "preset": get("preset"),
            "rows": get("rows"),
            "cols": get("cols"),
            "mines": get("mines"),
            "first_click": _RULES[str(get("first_click"))],
            "name": get("name"),
            "snapshot": snapshot_json(
                game.snapshot(), elapsed=self._elapsed(get("started_at"), get("ended_at"))
            ),
        }

    def _elapsed(self, started: float | None, ended: float | None) -> float:
        if started is None:
            return 0.0
        return (self._clock() if ended is None else ended) - started

    def _owned(self, conn: Connection, key: str, token: str, *, lock: bool) -> Row[Any]:
        """The game's row if ``token`` is its token; else the same 404 as for no game."""
        query = select(*_GAME_ROW).where(_games.c.id == key)
        found = conn.execute(query.with_for_update() if lock else query).one_or_none()
        expected = _NO_TOKEN if found is None or found.token_hash is None else found.token_hash
        matches = hmac.compare_digest(expected, _hash(token))
        if found is None or found.token_hash is None or not matches:
            raise ApiError(404, f"no game {key!r} for this token", "not_found")
        return found

    def _rebuilt(self, conn: Connection, row: Row[Any], *, take: bool) -> ns.Game:
        """The game of ``row``: the cached copy if current, else rebuilt from its moves."""
        game = self._games.get(row.id, row.version, take=take)
        if game is not None:
            return game
        if row.laid:
            layout = conn.execute(select(_games.c.layout).where(_games.c.id == row.id)).scalar_one()
            mines = _mines_of(layout, row.rows, row.cols)
            game = ns.Game.new(row.rows, row.cols, row.mines, strategy=ns.FixedPlacement(mines))
        else:
            game = ns.Game.new(
                row.rows,
                row.cols,
                row.mines,
                seed=int(row.seed),
                first_click=_RULES[row.first_click],
            )
        logged = conn.execute(
            select(_moves.c.kind, _moves.c.row, _moves.c.col)
            .where(_moves.c.game_id == row.id, _moves.c.seq < row.version)
            .order_by(_moves.c.seq)
        ).all()
        for kind, r, c in logged:
            if row.room:
                race_move(game, kind, r, c)
            else:
                _play(game, kind, r, c)
        if (len(logged), game.state.value, game.snapshot().mines_left) != (
            row.version,
            row.state,
            row.mines_left,
        ):
            raise RuntimeError(f"game {row.id!r}: its stored moves do not give its stored state")
        if not take:
            self._games.put(row.id, row.version, game)
        return game

    def game_view(self, key: str, token: str) -> dict[str, Any]:
        """A game as its player sees it.

        Parameters
        ----------
        key : str
            The game's id.
        token : str
            The token :meth:`create_game` gave for it.

        Returns
        -------
        dict
            ``{"id", "preset", "rows", "cols", "mines", "first_click", "name",
            "snapshot"}``, the snapshot as
            :func:`~numsweeper.server.protocol.snapshot_json` writes it.

        Raises
        ------
        ApiError
            404 if there is no such game or the token is not its own (one
            answer for both).
        RuntimeError
            If the stored moves do not give the stored state (a damaged
            database); nothing is served.

        Examples
        --------
        Its player's view, and the same 404 for a wrong token as for no game:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> made = store.create_game(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> view = store.game_view(made["id"], made["token"])
        >>> view["rows"], view["first_click"], view["name"]
        (3, 'safe', 'Ada')
        >>> store.game_view(made["id"], "not the token")
        Traceback (most recent call last):
            ...
        numsweeper.server.protocol.ApiError: no game '...' for this token
        >>> store.close()
        """
        with self._stripe(key), self._transaction(write=False) as conn:
            row = self._owned(conn, key, token, lock=False)
            return {"id": key, **self._describe(row, self._rebuilt(conn, row, take=False))}

    def move_list(self, key: str, token: str) -> dict[str, Any]:
        """A game's moves, oldest first.

        Parameters
        ----------
        key, token : str
            The game's id and token, as for :meth:`game_view`.

        Returns
        -------
        dict
            ``{"moves": [{"kind", "row", "col", "time"}, ...]}``; ``time`` in
            seconds since the game was created, rounded to milliseconds.

        Raises
        ------
        ApiError
            404 for no such game or another game's token.

        Examples
        --------
        A flag, then the list of moves:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> made = store.create_game(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> _ = store.play(made["id"], made["token"], "flag", 0, 0)
        >>> store.move_list(made["id"], made["token"])["moves"][0]["kind"]
        'flag'
        >>> store.close()
        """
        with self._transaction(write=False) as conn:
            row = self._owned(conn, key, token, lock=False)
            logged = conn.execute(
                select(_moves.c.kind, _moves.c.row, _moves.c.col, _moves.c.time)
                .where(_moves.c.game_id == key, _moves.c.seq < row.version)
                .order_by(_moves.c.seq)
            ).all()
        return {
            "moves": [{"kind": k, "row": r, "col": c, "time": round(t, 3)} for k, r, c, t in logged]
        }

    def play(self, key: str, token: str, kind: str, row: int, col: int) -> dict[str, Any]:
        """Play one move and commit it: ``{"snapshot", "changed", "move"}``.

        ``move`` is the move as the move list shows it, plus ``seq``: its
        place in that list (from 0).

        Parameters
        ----------
        key, token : str
            The game's id and token, as for :meth:`game_view`.
        kind : {'reveal', 'flag', 'chord'}
            The move (checked by the caller).
        row, col : int
            The cell.

        Returns
        -------
        dict
            ``{"snapshot", "changed", "move"}``: the position after the move,
            the cells whose visible code it changed
            (:func:`~numsweeper.server.protocol.changed_cells`) and the move.

        Raises
        ------
        ApiError
            404 for no such game or another game's token; 409 for a move
            the game's state forbids (after the end, a reveal of a flagged
            cell); 422 for a cell off the board.  A refused move changes
            nothing.
        RuntimeError
            If the stored moves do not give the stored state.

        Examples
        --------
        A flag is accepted and committed; a reveal of the flagged cell is refused:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> made = store.create_game(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> answer = store.play(made["id"], made["token"], "flag", 0, 0)
        >>> answer["changed"], answer["move"]["seq"], answer["snapshot"]["mines_left"]
        ([[0, 0]], 0, 0)
        >>> store.play(made["id"], made["token"], "reveal", 0, 0)
        Traceback (most recent call last):
            ...
        numsweeper.server.protocol.ApiError: cannot reveal flagged cell (0, 0); unflag it first
        >>> store.close()
        """
        with self._stripe(key):
            with self._transaction(write=True) as conn:
                found = self._owned(conn, key, token, lock=True)
                game = self._rebuilt(conn, found, take=True)
                before = game.snapshot()
                try:
                    _play(game, kind, row, col)
                except ns.MinesweeperError as exc:  # refused: the game is unchanged
                    self._games.put(key, found.version, game)
                    raise engine_error(exc) from None
                after = game.snapshot()
                move, values = self._record(conn, found, game, after, kind, row, col, player=None)
                if game.state is ns.GameState.WON and found.preset and not found.seeded:
                    self._score(conn, found, game, values)
            self._games.put(key, found.version + 1, game)
        elapsed = self._elapsed(values.get("started_at", found.started_at), values.get("ended_at"))
        return {
            "snapshot": snapshot_json(after, elapsed=elapsed),
            "changed": changed_cells(before, after),
            "move": move,
        }

    def _record(
        self,
        conn: Connection,
        found: Row[Any],
        game: ns.Game,
        after: ns.Snapshot,
        kind: str,
        row: int,
        col: int,
        *,
        player: str | None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Insert the move and bring the game's row up to date; the move's JSON and the row."""
        now = self._clock()
        seconds = max(0.0, now - found.created_at)
        conn.execute(
            insert(_moves).values(
                game_id=found.id,
                seq=found.version,
                kind=kind,
                row=row,
                col=col,
                time=seconds,
                player=player,
            )
        )
        values: dict[str, Any] = {
            "version": found.version + 1,
            "state": after.state.value,
            "mines_left": int(after.mines_left),
            "started_at": found.started_at,
            "ended_at": None,
        }
        if found.started_at is None and kind == "reveal":
            values["started_at"] = now
        if not found.laid and game.board is not None:
            values["layout"] = _layout(game)
        if after.state is not ns.GameState.IN_PROGRESS:
            values["ended_at"] = now
        conn.execute(update(_games).where(_games.c.id == found.id).values(**values))
        move = {"kind": kind, "row": row, "col": col, "time": round(seconds, 3)}
        return {**move, "seq": found.version}, values

    def _score(
        self, conn: Connection, found: Row[Any], game: ns.Game, values: dict[str, Any]
    ) -> None:
        board = game.board
        assert board is not None  # a won game has its mines
        seconds = values["ended_at"] - values["started_at"]
        three_bv = int(ns.metrics.three_bv(board.mines))
        conn.execute(
            insert(_scores).values(
                game_id=found.id,
                preset=found.preset,
                first_click=found.first_click,
                name=found.name,
                time=seconds,
                three_bv=three_bv,
                rate=three_bv / seconds if seconds > 0 else None,
                finished_at=values["ended_at"],
            )
        )

    def leaderboard(
        self, preset: str, *, first_click: str | None = None, any_rule: bool = True
    ) -> dict[str, Any]:
        """The best times of won games of a preset: ``{"preset", "entries": [...]}``.

        Games whose client chose the seed are not ranked (their layout was
        known in advance).  ``any_rule=False`` keeps only the given rule.

        Parameters
        ----------
        preset : str
            A preset's name; another name has no entries.
        first_click : {None, 'none', 'safe', 'opening'}
            The rule kept when ``any_rule`` is False.
        any_rule : bool
            Rank games of every first-click rule together (the default).

        Returns
        -------
        dict
            ``{"preset", "entries"}``: at most ``settings.leaderboard_size``
            entries ``{"rank", "name", "time", "three_bv", "three_bv_per_s",
            "first_click", "finished_at"}``, fastest first.

        Raises
        ------
        InvalidBoardError
            With ``any_rule=False``, for a ``first_click`` that is not a
            rule.
        InvalidTypeError
            With ``any_rule=False``, for a ``first_click`` that is not a
            string or None.

        Examples
        --------
        No won game of this preset and rule yet:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> store.leaderboard("expert", first_click="safe", any_rule=False)
        {'preset': 'expert', 'entries': []}
        >>> store.close()
        """
        query = select(_scores).where(_scores.c.preset == preset)
        if not any_rule:
            rule = first_click_rule(first_click)
            query = query.where(_scores.c.first_click == _RULE_NAMES[rule])
        query = query.order_by(
            _scores.c.time, _scores.c.three_bv.desc(), _scores.c.finished_at
        ).limit(self.settings.leaderboard_size)
        with self._transaction(write=False) as conn:
            found = conn.execute(query).all()
        return {
            "preset": preset,
            "entries": [
                {
                    "rank": i + 1,
                    "name": row.name,
                    "time": round(row.time, 3),
                    "three_bv": row.three_bv,
                    "three_bv_per_s": None if row.rate is None else round(row.rate, 3),
                    "first_click": _RULES[row.first_click],
                    "finished_at": _iso(row.finished_at),
                }
                for i, row in enumerate(found)
            ],
        }

    # -- race rooms -----------------------------------------------------------------------

    def create_room(self, new: NewGame) -> dict[str, Any]:
        """Open a race room with its host as the first player.

        Parameters
        ----------
        new : NewGame
            The board of the race, and the host's name.

        Returns
        -------
        dict
            ``{"id", "token", "player", "room"}``: the room's id, the host's
            token and player id, and :meth:`room_view`.

        Raises
        ------
        ApiError
            422 if the engine refuses the board.

        Examples
        --------
        A room waiting for players, its host the only one:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> host["room"]["state"], [p["name"] for p in host["room"]["players"]]
        ('waiting', ['Ada'])
        >>> host["room"]["host"] == host["player"]
        True
        >>> store.close()
        """
        seed = new.seed if new.seed is not None else secrets.randbits(128)
        game = _created(new, seed)
        key, token, player = (
            secrets.token_urlsafe(16),
            secrets.token_urlsafe(32),
            secrets.token_urlsafe(8),
        )
        with self._transaction(write=True) as conn:
            conn.execute(
                insert(_games).values(**self._game_values(key, new, game, token=None, seed=seed))
            )
            conn.execute(insert(_rooms).values(id=key, host=player, state="waiting", version=0))
            self._add_player(conn, key, player, token, new.name, seq=0)
        self._games.put(key, 0, game)
        return {"id": key, "token": token, "player": player, "room": self.room_view(key)}

    @staticmethod
    def _add_player(
        conn: Connection, room: str, player: str, token: str, name: str, *, seq: int
    ) -> None:
        conn.execute(
            insert(_players).values(
                room_id=room,
                id=player,
                seq=seq,
                token_hash=_hash(token),
                name=name,
                score=0,
                still_in=True,
            )
        )

    def _room(self, conn: Connection, key: str, *, lock: bool) -> Row[Any]:
        query = select(_rooms).where(_rooms.c.id == key)
        found = conn.execute(query.with_for_update() if lock else query).one_or_none()
        if found is None:
            raise ApiError(404, f"no race room {key!r}", "not_found")
        return found

    @staticmethod
    def _player(conn: Connection, key: str, token: str) -> Row[Any]:
        found = conn.execute(
            select(_players).where(_players.c.room_id == key, _players.c.token_hash == _hash(token))
        ).one_or_none()
        if found is None:
            raise ApiError(403, f"this token is not a player's of room {key!r}", "forbidden")
        return found

    def join_room(self, key: str, name: str) -> dict[str, Any]:
        """Add a player to a room that has not started: ``{"id", "token", "player", "room"}``.

        Parameters
        ----------
        key : str
            The room's id.
        name : str
            The player's name (checked by the caller).

        Returns
        -------
        dict
            As from :meth:`create_room`, with the new player's token and id.

        Raises
        ------
        ApiError
            404 for no such room; 409 once the race has started or when the
            room holds ``settings.max_players`` players.

        Examples
        --------
        A second player joins the host's room:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> guest = store.join_room(host["id"], "Bob")
        >>> [p["name"] for p in guest["room"]["players"]], guest["player"] != host["player"]
        (['Ada', 'Bob'], True)
        >>> store.close()
        """
        token, player = secrets.token_urlsafe(32), secrets.token_urlsafe(8)
        with self._transaction(write=True) as conn:
            room = self._room(conn, key, lock=True)
            if room.state != "waiting":
                raise ApiError(409, f"the race in room {key!r} has started; watch it", "conflict")
            count = conn.execute(
                select(func.count()).select_from(_players).where(_players.c.room_id == key)
            ).scalar_one()
            if count >= self.settings.max_players:
                raise ApiError(
                    409, f"room {key!r} is full ({self.settings.max_players} players)", "conflict"
                )
            self._add_player(conn, key, player, token, name, seq=count)
            conn.execute(update(_rooms).where(_rooms.c.id == key).values(version=room.version + 1))
        return {"id": key, "token": token, "player": player, "room": self.room_view(key)}

    def room_player(self, key: str, token: str) -> str:
        """The id of the player whose token this is (403 if none, 404 for no room).

        Parameters
        ----------
        key : str
            The room's id.
        token : str
            A player's token from :meth:`create_room` or :meth:`join_room`.

        Returns
        -------
        str
            The player's id, as :meth:`room_view` lists it.

        Raises
        ------
        ApiError
            404 for no such room; 403 if the token is no player's of it.

        Examples
        --------
        A player's token gives back the id of that player:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> store.room_player(host["id"], host["token"]) == host["player"]
        True
        >>> store.close()
        """
        with self._transaction(write=False) as conn:
            self._room(conn, key, lock=False)
            return str(self._player(conn, key, token).id)

    def start_room(self, key: str, token: str) -> dict[str, Any]:
        """Start the race (the host only): the room's view.

        Parameters
        ----------
        key : str
            The room's id.
        token : str
            The host's token.

        Returns
        -------
        dict
            :meth:`room_view`, its ``state`` now ``'racing'``.

        Raises
        ------
        ApiError
            404 for no such room; 403 for a token that is not the host's;
            409 if the race has already started.

        Examples
        --------
        Only the host may start the race:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> guest = store.join_room(host["id"], "Bob")
        >>> store.start_room(host["id"], guest["token"])
        Traceback (most recent call last):
            ...
        numsweeper.server.protocol.ApiError: only the room's host can start the race
        >>> store.start_room(host["id"], host["token"])["state"]
        'racing'
        >>> store.close()
        """
        with self._transaction(write=True) as conn:
            room = self._room(conn, key, lock=True)
            player = self._player(conn, key, token)
            if player.id != room.host:
                raise ApiError(403, "only the room's host can start the race", "forbidden")
            if room.state != "waiting":
                raise ApiError(409, f"the race in room {key!r} has already started", "conflict")
            conn.execute(
                update(_rooms)
                .where(_rooms.c.id == key)
                .values(state="racing", started_at=self._clock(), version=room.version + 1)
            )
        return self.room_view(key)

    def room_move(self, key: str, token: str, kind: str, row: int, col: int) -> dict[str, Any]:
        """Play a player's race move: ``{"room", "changed", "move"}``.

        ``move`` adds the ``player``, the points it ``scored`` and the mines it
        ``exploded`` to the usual move fields.

        Parameters
        ----------
        key : str
            The room's id.
        token : str
            The player's token.
        kind : {'reveal', 'chord'}
            The move; flags are private to each player's page.
        row, col : int
            The cell.

        Returns
        -------
        dict
            ``{"room", "changed", "move"}``: :meth:`room_view` after the
            move, the cells it changed and the move.

        Raises
        ------
        ApiError
            404 for no such room; 403 for a token that is no player's; 409
            before the start or after the end of the race, for a player who
            hit a mine, a flag or a move the game forbids; 422 for a cell off
            the board.  A refused move changes nothing.
        RuntimeError
            If the stored moves do not give the stored state.

        Examples
        --------
        The host's first move, once the race has started:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> _ = store.start_room(host["id"], host["token"])
        >>> answer = store.room_move(host["id"], host["token"], "reveal", 1, 1)
        >>> answer["changed"], answer["move"]["scored"], answer["move"]["exploded"]
        ([[1, 1]], 1, [])
        >>> store.close()
        """
        with self._stripe(key):
            with self._transaction(write=True) as conn:
                room = self._room(conn, key, lock=True)
                player = self._player(conn, key, token)
                if room.state != "racing":
                    words = {"waiting": "has not started", "finished": "is over"}[room.state]
                    raise ApiError(409, f"the race {words}", "conflict")
                if not player.still_in:
                    raise ApiError(409, "you hit a mine and are out of the race", "conflict")
                found = conn.execute(
                    select(*_GAME_ROW).where(_games.c.id == key).with_for_update()
                ).one()
                game = self._rebuilt(conn, found, take=True)
                before = game.snapshot()
                try:
                    outcome = race_move(game, kind, row, col)
                except ns.MinesweeperError as exc:
                    self._games.put(key, found.version, game)
                    raise engine_error(exc) from None
                after = game.snapshot()
                move, _ = self._record(conn, found, game, after, kind, row, col, player=player.id)
                hit = outcome.exploded[0] if outcome.exploded else (None, None)
                conn.execute(
                    update(_players)
                    .where(_players.c.room_id == key, _players.c.id == player.id)
                    .values(
                        score=player.score + outcome.scored,
                        still_in=not outcome.exploded,
                        hit_row=hit[0],
                        hit_col=hit[1],
                    )
                )
                left_in = conn.execute(
                    select(func.count())
                    .select_from(_players)
                    .where(_players.c.room_id == key, _players.c.still_in.is_(True))
                ).scalar_one()
                values: dict[str, Any] = {"version": room.version + 1}
                if game.state is not ns.GameState.IN_PROGRESS or left_in == 0:
                    values.update(state="finished", ended_at=self._clock())
                conn.execute(update(_rooms).where(_rooms.c.id == key).values(**values))
            self._games.put(key, found.version + 1, game)
        move.update(
            player=player.id,
            scored=outcome.scored,
            exploded=[list(cell) for cell in outcome.exploded],
        )
        return {
            "room": self.room_view(key),
            "changed": changed_cells(before, after),
            "move": move,
        }

    def room_version(self, key: str) -> int | None:
        """The room's version (bumped by every change), or ``None`` for no room.

        Watchers compare it to the version they last saw to learn that
        something changed, whichever process changed it.

        Parameters
        ----------
        key : str
            An id, of a room or of none.

        Returns
        -------
        int or None

        Examples
        --------
        A room's version goes up with each change:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> store.room_version(host["id"]), store.room_version("no such room")
        (0, None)
        >>> _ = store.join_room(host["id"], "Bob")
        >>> store.room_version(host["id"])
        1
        >>> store.close()
        """
        with self._transaction(write=False) as conn:
            found = conn.execute(select(_rooms.c.version).where(_rooms.c.id == key)).scalar()
        return None if found is None else int(found)

    def room_view(self, key: str) -> dict[str, Any]:
        """What everybody in a room sees.

        ``{"id", "state", "version", "host", "preset", "rows", "cols", "mines",
        "first_click", "players": [{"id", "name", "score", "still_in"}],
        "marked": [{"row", "col", "player"}], "winners", "mine_positions",
        "snapshot"}``; ``mine_positions`` (``[[row, col], ...]``, all of them)
        only once the race is over, else ``null``.

        Parameters
        ----------
        key : str
            The room's id.

        Returns
        -------
        dict
            The fields above, ready for JSON.

        Raises
        ------
        ApiError
            404 for no such room.
        RuntimeError
            If the stored moves do not give the stored state.

        Examples
        --------
        What a room shows before its race starts:

        >>> import tempfile
        >>> from numsweeper.server import Settings, protocol, storage
        >>> store = storage.Store(Settings(database=f"sqlite:///{tempfile.mkdtemp()}/games.db"))
        >>> host = store.create_room(protocol.NewGame(3, 3, 1, None, "safe", 7, "Ada"))
        >>> view = store.room_view(host["id"])
        >>> view["state"], view["rows"], view["mine_positions"], view["winners"]
        ('waiting', 3, None, [])
        >>> store.close()
        """
        with self._stripe(key), self._transaction(write=False) as conn:
            room = self._room(conn, key, lock=False)
            players = conn.execute(
                select(_players).where(_players.c.room_id == key).order_by(_players.c.seq)
            ).all()
            found = conn.execute(select(*_GAME_ROW).where(_games.c.id == key)).one()
            game = self._rebuilt(conn, found, take=False)
            snapshot = game.snapshot()
            board = game.board
        finished = room.state == "finished"
        mines = None
        if finished and board is not None:
            mines = [[int(r), int(c)] for r, c in np.argwhere(board.mines)]
        return {
            "id": key,
            "state": room.state,
            "version": room.version,
            "host": room.host,
            "preset": found.preset,
            "rows": found.rows,
            "cols": found.cols,
            "mines": found.mines,
            "first_click": _RULES[found.first_click],
            "players": [
                {"id": p.id, "name": p.name, "score": p.score, "still_in": p.still_in}
                for p in players
            ],
            "marked": [
                {"row": p.hit_row, "col": p.hit_col, "player": p.id}
                for p in players
                if p.hit_row is not None
            ],
            "winners": winners([(p.id, p.score, p.still_in) for p in players]) if finished else [],
            "mine_positions": mines,
            "snapshot": snapshot_json(
                snapshot, elapsed=self._elapsed(room.started_at, room.ended_at)
            ),
        }


def _created(new: NewGame, seed: int) -> ns.Game:
    try:
        return ns.Game.new(new.rows, new.cols, new.mines, seed=seed, first_click=new.first_click)
    except ns.MinesweeperError as exc:
        raise ApiError(422, str(exc)) from None


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let the begin hook below emit BEGIN, not the sqlite3 module (which defers it).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    for pragma in (
        "busy_timeout = 60000",
        "journal_mode = WAL",
        "synchronous = FULL",  # a commit is on disk before the move is acknowledged
        "foreign_keys = ON",
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    write = conn.get_execution_options().get("numsweeper_write", True)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
