"""The game service's API, in process, on SQLite and on a real PostgreSQL.

Every test that takes ``client`` or ``store`` runs twice: on an SQLite file
and on a fresh database of a throwaway PostgreSQL cluster (see
``server_support.py``).  A fake clock makes times exact.  Seeded games have a
local mirror that knows their mines, so tests can play them to the end and
check that the server never shows what the mirror hides.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx2")  # what starlette.testclient uses

import sqlalchemy as sa
from starlette.testclient import TestClient

import numsweeper as ns
import server_support as support
from numsweeper.cli import build_parser
from numsweeper.server import Settings, create_app
from numsweeper.server.protocol import ApiError, NewGame
from numsweeper.server.storage import Store

SEED = 20240611
VIEW_KEYS = {"id", "preset", "rows", "cols", "mines", "first_click", "name", "snapshot"}
SNAPSHOT_KEYS = {"cells", "state", "mines_left", "elapsed"}
MOVE_KEYS = {"kind", "row", "col", "time", "seq"}
API_HEADERS = {"content-type", "content-length", "cache-control", "x-content-type-options"}
VISIBLE_IN_PROGRESS = {int(ns.HIDDEN), int(ns.FLAG), *range(9)}


class Clock:
    """Seconds since the epoch that only move when told to."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="module")
def postgres() -> Iterator[support.Postgres]:
    if support.postgres_binaries() is None:
        pytest.skip("PostgreSQL's binaries are not installed (apt-get install postgresql)")
    with support.postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    server: support.Postgres = request.getfixturevalue("postgres")
    return server.new_database()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(database: str, clock: Clock) -> Iterator[Store]:
    opened = Store(Settings(database=database, max_cells=10_000), clock=clock)
    yield opened
    opened.close()


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    with TestClient(create_app(store.settings, store=store)) as test_client:
        yield test_client


def auth(made: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {made['token']}"}


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def move(client: TestClient, made: dict[str, Any], kind: str, row: int, col: int) -> Any:
    return client.post(
        f"/api/games/{made['id']}/moves",
        json={"kind": kind, "row": row, "col": col},
        headers=auth(made),
    )


def seen(client: TestClient, made: dict[str, Any]) -> tuple[Any, Any]:
    """The game's view and move list: what a rejected request must leave alone."""
    view = client.get(f"/api/games/{made['id']}", headers=auth(made))
    moves = client.get(f"/api/games/{made['id']}/moves", headers=auth(made))
    assert view.status_code == moves.status_code == 200
    return view.json(), moves.json()


def check_hides_mines(answer: Any, game: ns.Game) -> None:
    """A response about a game in progress shows exactly what its mirror's player sees."""
    assert set(answer.headers) == API_HEADERS
    text = answer.text
    for word in ("mine_positions", "layout", "seed", "strategy", "token_hash"):
        assert word not in text
    body = answer.json()
    snapshot = body["snapshot"]
    assert set(snapshot) == SNAPSHOT_KEYS
    assert snapshot["state"] == "in_progress"
    cells = np.array(snapshot["cells"])
    assert set(np.unique(cells).tolist()) <= VISIBLE_IN_PROGRESS
    np.testing.assert_array_equal(cells, game.snapshot().cells)
    assert snapshot["mines_left"] == game.snapshot().mines_left


# -- creating games ---------------------------------------------------------------------


def test_a_preset_game_starts_hidden_with_an_unguessable_id(client: TestClient) -> None:
    made = [new_game(client, preset="expert") for _ in range(3)]
    first = made[0]
    assert set(first) == VIEW_KEYS | {"token"}
    assert (first["rows"], first["cols"], first["mines"]) == (16, 30, 99)
    assert first["first_click"] == "safe" and first["name"] == "anonymous"
    assert first["snapshot"] == {
        "cells": [[-1] * 30 for _ in range(16)],
        "state": "in_progress",
        "mines_left": 99,
        "elapsed": 0.0,
    }
    ids = {m["id"] for m in made}
    tokens = {m["token"] for m in made}
    assert len(ids) == len(tokens) == 3
    assert all(len(key) >= 22 for key in ids)  # 128 random bits
    assert all(len(token) >= 43 for token in tokens)  # 256 random bits


def test_a_sized_game_with_a_rule_and_a_name(client: TestClient) -> None:
    made = new_game(client, rows=5, cols=7, mines=3, first_click="opening", name=" Ada ")
    assert (made["rows"], made["cols"], made["mines"], made["preset"]) == (5, 7, 3, None)
    assert made["first_click"] == "opening" and made["name"] == "Ada"
    view, moves = seen(client, made)
    assert view == {k: v for k, v in made.items() if k != "token"}
    assert moves == {"moves": []}


def test_without_a_rule_the_mines_are_laid_at_once(client: TestClient) -> None:
    made = new_game(client, rows=4, cols=4, mines=15, first_click=None, seed=1)
    answer = move(client, made, "reveal", 0, 0)  # 15 mines in 16 cells: almost surely a mine
    game = support.mirror(made, 1)
    support.play(game, "reveal", 0, 0)
    assert answer.json()["snapshot"]["state"] == game.state.value


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "give a preset or rows, cols and mines"),
        ({"preset": "huge"}, "unknown preset 'huge'"),
        ({"preset": 3}, "unknown preset 3"),
        ({"preset": "expert", "rows": 3}, "not both"),
        ({"rows": 3, "cols": 3}, "missing field 'mines'"),
        ({"rows": 3, "cols": "3", "mines": 1}, "cols must be an integer, got '3'"),
        ({"rows": 3.0, "cols": 3, "mines": 1}, "rows must be an integer, got 3.0"),
        ({"rows": True, "cols": 3, "mines": 1}, "rows must be an integer, got True"),
        ({"rows": 0, "cols": 3, "mines": 0}, "rows must be >= 1, got 0"),
        ({"rows": 3, "cols": 3, "mines": 9}, "mines must be in 0..8 for a 3x3 board, got 9"),
        ({"rows": 101, "cols": 100, "mines": 9}, "a 101x100 board has 10100 cells"),
        ({"rows": 3, "cols": 3, "mines": 1, "first_click": "lucky"}, "first_click must be"),
        ({"rows": 3, "cols": 3, "mines": 1, "first_click": "opening"}, "first_click='opening'"),
        ({"preset": "expert", "seed": -1}, "seed must be in 0..2**128-1, got -1"),
        ({"preset": "expert", "seed": "7"}, "seed must be an integer, got '7'"),
        ({"preset": "expert", "name": ""}, "name must be 1 to 32 printable characters"),
        ({"preset": "expert", "name": "x" * 33}, "name must be 1 to 32 printable characters"),
        ({"preset": "expert", "colour": "red"}, "unknown field 'colour'"),
        ([1, 2], "request body must be a JSON object, got an array"),
    ],
)
def test_a_bad_new_game_is_refused_naming_the_value(
    client: TestClient, body: Any, words: str
) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 422
    assert words in answer.json()["error"]
    assert answer.json()["code"] == "invalid"


def test_the_default_cap_is_a_million_cells(tmp_path: Any) -> None:
    settings = Settings(database=f"sqlite:///{tmp_path / 'g.db'}")
    assert settings.max_cells == 10**6
    with TestClient(create_app(settings)) as client:
        assert new_game(client, rows=1000, cols=1000, mines=1)["rows"] == 1000
        answer = client.post("/api/games", json={"rows": 1001, "cols": 1000, "mines": 1})
        assert answer.status_code == 422 and "1001000 cells" in answer.json()["error"]


# -- playing ---------------------------------------------------------------------------


def play_to_the_end(
    client: TestClient, made: dict[str, Any], game: ns.Game, *, lose: bool
) -> list[Any]:
    """Reveal safe cells until won (or a mine once two moves are made); return the answers."""
    answers = []
    support.play(game, "reveal", 4, 4)
    answers.append(move(client, made, "reveal", 4, 4))
    flag = support.mine_cells(game)[0]
    for kind in ("flag", "flag", "flag"):  # on, off, on
        support.play(game, kind, *flag)
        answers.append(move(client, made, kind, *flag))
    while game.state is ns.GameState.IN_PROGRESS:
        cells = support.hidden_safe(game)
        target = support.mine_cells(game)[-1] if lose else cells[0]
        support.play(game, "reveal", *target)
        answers.append(move(client, made, "reveal", *target))
    return answers


@pytest.mark.parametrize("lose", [False, True], ids=["won", "lost"])
def test_a_seeded_game_played_to_the_end_hides_its_mines_until_then(
    client: TestClient, lose: bool
) -> None:
    made = new_game(client, preset="beginner", seed=SEED)
    game = support.mirror(made, SEED)
    answers = play_to_the_end(client, made, game, lose=lose)
    before = ns.Snapshot(np.full((9, 9), ns.HIDDEN), ns.GameState.IN_PROGRESS, 10)
    sent = []
    local = support.mirror(made, SEED)
    for i, answer in enumerate(answers):
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert set(body) == {"snapshot", "changed", "move"}
        assert set(body["move"]) == MOVE_KEYS and body["move"]["seq"] == i
        kind, row, col = body["move"]["kind"], body["move"]["row"], body["move"]["col"]
        sent.append((kind, row, col))
        support.play(local, kind, row, col)
        after = local.snapshot()
        changed = np.argwhere(before.cells != after.cells).tolist()
        assert body["changed"] == changed
        if i < len(answers) - 1:
            check_hides_mines(answer, local)
        before = after
    final = answers[-1].json()["snapshot"]
    np.testing.assert_array_equal(final["cells"], game.snapshot().cells)
    assert final["state"] == ("lost" if lose else "won")
    if lose:
        assert int(ns.EXPLODED) in np.array(final["cells"])
        flagged = support.mine_cells(game)[0]  # play_to_the_end left it flagged
        shown = {tuple(cell) for cell in answers[-1].json()["changed"]}
        assert shown == set(support.mine_cells(game)) - {flagged}  # every other mine shows
    view, moves = seen(client, made)
    assert view["snapshot"] == final
    assert [(m["kind"], m["row"], m["col"]) for m in moves["moves"]] == sent
    assert all(set(m) == {"kind", "row", "col", "time"} for m in moves["moves"])
    # After the end, every move is refused and changes nothing.
    for kind in ("reveal", "flag", "chord"):
        refused = move(client, made, kind, 0, 0)
        assert refused.status_code == 409
        assert f"already {final['state'].upper()}" in refused.json()["error"]
    assert seen(client, made) == (view, moves)


def test_every_read_before_the_end_hides_the_mines(client: TestClient, store: Store) -> None:
    """An unseeded game: not even its hidden seed appears in any response."""
    made = new_game(client, preset="beginner")
    with store._engine.connect() as conn:  # the test's own look at what the server hides
        seed = conn.execute(sa.text("SELECT seed FROM ns_games WHERE id = :i"), {"i": made["id"]})
        hidden_seed = seed.scalar_one()
    first = move(client, made, "reveal", 4, 4)
    assert first.status_code == 200
    snapshot = ns.Snapshot(
        np.array(first.json()["snapshot"]["cells"]), ns.GameState.IN_PROGRESS, 10
    )
    for answer in (
        first,
        client.get(f"/api/games/{made['id']}", headers=auth(made)),
        client.get(f"/api/games/{made['id']}/moves", headers=auth(made)),
        client.post("/api/games", json={"preset": "beginner"}),
    ):
        assert hidden_seed not in answer.text
        assert set(answer.headers) == API_HEADERS
        for word in ("mine_positions", "layout", "seed", "strategy"):
            assert word not in answer.text
    view = client.get(f"/api/games/{made['id']}", headers=auth(made)).json()
    assert view["snapshot"]["cells"] == snapshot.cells.tolist()
    assert set(np.unique(snapshot.cells).tolist()) <= VISIBLE_IN_PROGRESS


def test_a_chord_opens_the_neighbours_of_a_satisfied_number(client: TestClient) -> None:
    made = new_game(client, preset="beginner", seed=SEED)
    game = support.mirror(made, SEED)
    support.play(game, "reveal", 4, 4)
    move(client, made, "reveal", 4, 4)
    cells, board = game.snapshot().cells, game.board
    assert board is not None
    for r, c in zip(*np.nonzero(cells > 0), strict=True):
        around = (slice(max(r - 1, 0), r + 2), slice(max(c - 1, 0), c + 2))
        if (cells[around] == ns.HIDDEN).sum() > board.mines[around].sum():
            break  # a number with hidden safe neighbours
    for y, x in np.argwhere(board.mines[around]):
        y, x = y + around[0].start, x + around[1].start
        support.play(game, "flag", y, x)
        assert move(client, made, "flag", int(y), int(x)).status_code == 200
    support.play(game, "chord", r, c)
    answer = move(client, made, "chord", int(r), int(c))
    assert answer.status_code == 200
    assert len(answer.json()["changed"]) > 0
    np.testing.assert_array_equal(answer.json()["snapshot"]["cells"], game.snapshot().cells)


def test_elapsed_runs_from_the_first_reveal_to_the_end(client: TestClient, clock: Clock) -> None:
    made = new_game(client, preset="beginner", seed=SEED)
    game = support.mirror(made, SEED)
    clock.advance(100)  # waiting before the first click is free
    assert seen(client, made)[0]["snapshot"]["elapsed"] == 0.0
    support.play(game, "reveal", 4, 4)
    first = move(client, made, "reveal", 4, 4).json()
    assert first["snapshot"]["elapsed"] == 0.0 and first["move"]["time"] == 100.0
    clock.advance(2.5)
    assert seen(client, made)[0]["snapshot"]["elapsed"] == 2.5
    while game.state is ns.GameState.IN_PROGRESS:
        clock.advance(0.5)
        target = support.hidden_safe(game)[0]
        support.play(game, "reveal", *target)
        last = move(client, made, "reveal", *target).json()
    clock.advance(60)  # the clock stops at the end
    assert seen(client, made)[0]["snapshot"]["elapsed"] == last["snapshot"]["elapsed"]
    assert last["snapshot"]["elapsed"] == pytest.approx(2.5 + 0.5 * (len(game.moves) - 1))


# -- refusals ------------------------------------------------------------------------------


BAD_MOVES = [
    (b'{"kind": "reveal", "row": 1', 400, "not valid JSON"),
    (b'{"kind": "reveal", "row": NaN, "col": 0}', 400, "NaN"),
    (b"\xff\xfe", 400, "not UTF-8"),
    (b"[1, 2]", 422, "must be a JSON object, got an array"),
    (b'"reveal"', 422, "must be a JSON object, got a string"),
    (b'{"kind": "reveal", "row": "1", "col": 0}', 422, "row must be an integer, got '1'"),
    (b'{"kind": "reveal", "row": 1.5, "col": 0}', 422, "row must be an integer, got 1.5"),
    (b'{"kind": "reveal", "row": 1, "col": true}', 422, "col must be an integer, got True"),
    (b'{"kind": "reveal", "row": 1, "col": null}', 422, "col must be an integer, got None"),
    (b'{"kind": "dig", "row": 0, "col": 0}', 422, "got 'dig'"),
    (b'{"kind": ["reveal"], "row": 0, "col": 0}', 422, "got ['reveal']"),
    (b'{"row": 0, "col": 0}', 422, "missing field 'kind'"),
    (b'{"kind": "reveal", "row": 0}', 422, "missing field 'col'"),
    (b'{"kind": "reveal", "row": 0, "col": 0, "x": 1}', 422, "unknown field 'x'"),
    (b'{"kind": "reveal", "row": 9, "col": 0}', 422, "row 9 is off the board"),
    (b'{"kind": "reveal", "row": 0, "col": -1}', 422, "col -1 is off the board"),
    (b'{"kind": "flag", "row": 4, "col": 4}', 409, "cannot flag revealed cell (4, 4)"),
    (b'{"kind": "reveal", "row": 0, "col": 99999999999999999999}', 422, "off the board"),
    (b'{"kind": "reveal", "row": 0, "col": 0}' + b" " * 20_000, 413, "exceeds 16384 bytes"),
]


@pytest.mark.parametrize(("raw", "status", "words"), BAD_MOVES)
def test_a_bad_move_is_refused_naming_the_value_and_changes_nothing(
    client: TestClient, raw: bytes, status: int, words: str
) -> None:
    made = new_game(client, preset="beginner", seed=SEED)
    move(client, made, "reveal", 4, 4)
    before = seen(client, made)
    answer = client.post(f"/api/games/{made['id']}/moves", content=raw, headers=auth(made))
    assert answer.status_code == status
    assert words in answer.json()["error"], answer.json()
    assert set(answer.json()) == {"error", "code"}
    assert seen(client, made) == before
    assert move(client, made, "reveal", 4, 4).status_code == 200  # and the server is fine


def test_a_move_on_a_flag_conflicts(client: TestClient) -> None:
    made = new_game(client, preset="beginner", seed=SEED)
    move(client, made, "reveal", 4, 4)
    game = support.mirror(made, SEED)
    support.play(game, "reveal", 4, 4)
    target = support.hidden_safe(game)[0]
    move(client, made, "flag", *target)
    before = seen(client, made)
    answer = move(client, made, "reveal", *target)
    assert answer.status_code == 409 and "cannot reveal flagged cell" in answer.json()["error"]
    assert seen(client, made) == before


def test_tokens_guard_every_game_and_hide_whether_it_exists(client: TestClient) -> None:
    made = new_game(client, preset="beginner", seed=SEED)
    other = new_game(client, preset="beginner", seed=SEED)
    move(client, made, "reveal", 4, 4)
    before = seen(client, made)
    paths = [
        ("GET", "/api/games/{}"),
        ("GET", "/api/games/{}/moves"),
        ("POST", "/api/games/{}/moves"),
    ]
    body = {"kind": "reveal", "row": 0, "col": 0}
    for method, path in paths:
        url = path.format(made["id"])
        missing = client.request(method, url, json=body)
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert "Authorization: Bearer <token>" in missing.json()["error"]
        basic = client.request(method, url, json=body, headers={"Authorization": "Basic abc"})
        assert basic.status_code == 401 and "Bearer <token>" in basic.json()["error"]
        empty = client.request(method, url, json=body, headers={"Authorization": "Bearer "})
        assert empty.status_code == 401
        wrong = client.request(method, url, json=body, headers=auth(other))
        unknown_id = "A" * 22
        absent = client.request(method, path.format(unknown_id), json=body, headers=auth(made))
        assert wrong.status_code == absent.status_code == 404
        assert wrong.json()["error"].replace(made["id"], "ID") == absent.json()["error"].replace(
            unknown_id, "ID"
        )
        odd = client.request(method, path.format("..%2Fetc"), json=body, headers=auth(made))
        assert odd.status_code == 404 and odd.json()["code"] == "not_found"
    assert seen(client, made) == before


def test_unknown_routes_and_methods_answer_json(client: TestClient) -> None:
    assert client.get("/api/nothing").json() == {"error": "Not Found", "code": "not_found"}
    answer = client.delete("/api/games")
    assert answer.status_code == 405 and answer.json()["code"] == "method_not_allowed"


def test_the_page_is_shipped_with_the_package() -> None:
    """A wheel carries the page only if pyproject.toml lists it as package data."""
    root = Path(__file__).resolve().parents[1]
    with (root / "pyproject.toml").open("rb") as stream:
        shipped = tomllib.load(stream)["tool"]["setuptools"]["package-data"]["numsweeper"]
    assert "server/static/*" in shipped
    static = root / "src" / "numsweeper" / "server" / "static"
    assert {p.name for p in static.iterdir()} >= {"index.html", "app.js", "style.css"}


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert '<div id="board"' in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/api/health").json()["status"] == "ok"


# -- durability and serialization ------------------------------------------------------------


@contextlib.contextmanager
def restarted(database: str, clock: Clock) -> Iterator[TestClient]:
    """A client of a new app on a new store: nothing cached from before."""
    settings = Settings(database=database)
    store = Store(settings, clock=clock)
    try:
        with TestClient(create_app(settings, store=store)) as client:
            yield client
    finally:
        store.close()


def test_games_survive_a_restart_of_the_app(database: str, clock: Clock) -> None:
    with restarted(database, clock) as client:
        made = new_game(client, preset="intermediate", seed=SEED, first_click="opening")
        move(client, made, "flag", 0, 0)  # before the first reveal: the mines are not laid yet
        move(client, made, "reveal", 8, 8)
        before = seen(client, made)
    with restarted(database, clock) as client:  # the game is rebuilt from its moves
        assert seen(client, made) == before
        game = support.mirror(made, SEED)
        for kind, r, c in (("flag", 0, 0), ("reveal", 8, 8)):
            support.play(game, kind, r, c)
        target = support.hidden_safe(game)[0]
        support.play(game, "reveal", *target)
        answer = move(client, made, "reveal", *target)
        assert answer.json()["move"]["seq"] == 2
        np.testing.assert_array_equal(answer.json()["snapshot"]["cells"], game.snapshot().cells)


def test_concurrent_moves_on_one_game_are_applied_one_at_a_time(store: Store) -> None:
    """Threads toggle flags, several on the same cells: every answer is one step of one order."""
    made = store.create_game(NewGame(16, 30, 99, "expert", "safe", SEED, "t"))
    threads, per_thread = 6, 15
    cells = [(0, 0), (0, 1), (5, 5)]
    answers: list[list[dict[str, Any]]] = [[] for _ in range(threads)]

    def hammer(i: int) -> None:
        for j in range(per_thread):
            r, c = cells[(i + j) % len(cells)]
            answers[i].append(store.play(made["id"], made["token"], "flag", r, c))

    workers = [threading.Thread(target=hammer, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    log = store.move_list(made["id"], made["token"])["moves"]
    everyone = [a for mine in answers for a in mine]
    assert len(log) == len(everyone) == threads * per_thread
    assert sorted(a["move"]["seq"] for a in everyone) == list(range(len(log)))
    for a in everyone:  # each answer shows the board after exactly the moves before it, in order
        seq = a["move"]["seq"]
        assert (log[seq]["row"], log[seq]["col"]) == (a["move"]["row"], a["move"]["col"])
        flips = sum(
            (m["row"], m["col"]) == (a["move"]["row"], a["move"]["col"]) for m in log[: seq + 1]
        )
        shown = a["snapshot"]["cells"][a["move"]["row"]][a["move"]["col"]]
        assert shown == (ns.FLAG if flips % 2 else ns.HIDDEN)
        assert a["snapshot"]["mines_left"] == 99 - sum(
            sum((m["row"], m["col"]) == cell for m in log[: seq + 1]) % 2 for cell in cells
        )
    for mine in answers:  # each thread's moves are in the log in its own order
        seqs = [a["move"]["seq"] for a in mine]
        assert seqs == sorted(seqs)


def test_a_store_refuses_a_database_of_another_schema(database: str) -> None:
    Store(Settings(database=database)).close()
    engine = sa.create_engine(
        database.replace("postgresql://", "postgresql+psycopg://", 1), poolclass=sa.NullPool
    )
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE ns_meta SET value = '99' WHERE key = 'schema'"))
    engine.dispose()
    with pytest.raises(RuntimeError, match="schema version 99"):
        Store(Settings(database=database))


# -- leaderboard -------------------------------------------------------------------------


def solve(client: TestClient, made: dict[str, Any], clock: Clock, step: float) -> str:
    """Play an unseeded game with the solver's hints, as a player would; its final state."""
    snapshot = made["snapshot"]
    while snapshot["state"] == "in_progress":
        seen_now = ns.Snapshot(
            np.array(snapshot["cells"]), ns.GameState.IN_PROGRESS, snapshot["mines_left"]
        )
        hint = ns.solver.hint(seen_now)
        clock.advance(step)
        snapshot = move(client, made, "reveal", hint.row, hint.col).json()["snapshot"]
    return str(snapshot["state"])


@pytest.mark.parametrize(
    ("rule", "error", "named"),
    [("safest", ns.InvalidBoardError, "'safest'"), (3, ns.InvalidTypeError, "got 3")],
)
def test_a_leaderboard_of_an_unknown_rule_is_refused(
    store: Store, rule: Any, error: type[Exception], named: str
) -> None:
    with pytest.raises(error, match=re.escape(named)):
        store.leaderboard("beginner", first_click=rule, any_rule=False)
    # 'none' is the command line's spelling of no rule
    assert store.leaderboard("beginner", first_click="none", any_rule=False)["entries"] == []


def test_the_leaderboard_ranks_won_unseeded_games_by_time(client: TestClient, clock: Clock) -> None:
    won: list[float] = []
    for attempt in range(30):  # the solver wins most beginner games
        made = new_game(client, preset="beginner", name=f"p{attempt}")
        step = 1.0 + attempt  # a slower player each game
        if solve(client, made, clock, step) == "won":
            won.append(seen(client, made)[0]["snapshot"]["elapsed"])
        if len(won) == 2:
            break
    assert len(won) == 2
    seeded = new_game(client, preset="beginner", seed=SEED)
    game = support.mirror(seeded, SEED)
    support.play(game, "reveal", 4, 4)
    move(client, seeded, "reveal", 4, 4)
    while game.state is ns.GameState.IN_PROGRESS:  # a won game with a known layout
        target = support.hidden_safe(game)[0]
        support.play(game, "reveal", *target)
        move(client, seeded, "reveal", *target)
    board = client.get("/api/leaderboard?preset=beginner").json()
    assert board["preset"] == "beginner"
    entries = board["entries"]
    assert [e["time"] for e in entries] == sorted(won)  # the seeded game is not ranked
    assert [e["rank"] for e in entries] == [1, 2]
    for entry in entries:
        assert set(entry) == {
            "rank", "name", "time", "three_bv", "three_bv_per_s", "first_click", "finished_at"
        }  # fmt: skip
        assert entry["name"].startswith("p") and entry["first_click"] == "safe"
        assert entry["three_bv"] >= 1
        assert entry["three_bv_per_s"] == pytest.approx(entry["three_bv"] / entry["time"], abs=1e-3)
        assert entry["finished_at"].endswith("Z")
    assert client.get("/api/leaderboard?preset=expert").json()["entries"] == []
    assert (
        client.get("/api/leaderboard?preset=beginner&first_click=opening").json()["entries"] == []
    )
    bad = client.get("/api/leaderboard?preset=giant")
    assert bad.status_code == 422 and "'giant'" in bad.json()["error"]
    bad = client.get("/api/leaderboard?preset=beginner&first_click=lucky")
    assert bad.status_code == 422
    assert (
        bad.json()["error"] == "first_click must be None ('none'), 'safe' or 'opening', got 'lucky'"
    )
    assert client.get("/api/leaderboard?preset=beginner&first_click=none").status_code == 200


# -- race rooms --------------------------------------------------------------------------------


def new_room(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def room_move(client: TestClient, key: str, token: str, kind: str, row: int, col: int) -> Any:
    return client.post(
        f"/api/rooms/{key}/moves",
        json={"kind": kind, "row": row, "col": col},
        headers={"Authorization": f"Bearer {token}"},
    )


def test_a_race_scores_cells_knocks_out_on_a_mine_and_plays_on(client: TestClient) -> None:
    host = new_room(client, preset="beginner", seed=SEED, name="Ann")
    key = host["id"]
    room = host["room"]
    assert room["state"] == "waiting" and room["first_click"] == "opening"
    assert room["players"] == [{"id": host["player"], "name": "Ann", "score": 0, "still_in": True}]
    bob = client.post(f"/api/rooms/{key}/players", json={"name": "Bob"}).json()
    assert [p["name"] for p in bob["room"]["players"]] == ["Ann", "Bob"]
    early = room_move(client, key, host["token"], "reveal", 4, 4)
    assert early.status_code == 409 and "has not started" in early.json()["error"]
    not_host = client.post(
        f"/api/rooms/{key}/start", headers={"Authorization": f"Bearer {bob['token']}"}
    )
    assert not_host.status_code == 403
    started = client.post(f"/api/rooms/{key}/start", headers=auth(host))
    assert started.json()["state"] == "racing"
    late = client.post(f"/api/rooms/{key}/players", json={"name": "Cy"})
    assert late.status_code == 409 and "has started" in late.json()["error"]

    game = support.mirror(room, SEED)
    support.play(game, "reveal", 4, 4)
    first = room_move(client, key, host["token"], "reveal", 4, 4).json()
    opened = int((game.snapshot().cells >= 0).sum())
    assert first["move"]["scored"] == opened and first["move"]["player"] == host["player"]
    assert first["room"]["mine_positions"] is None
    flag = room_move(client, key, bob["token"], "flag", 0, 0)
    assert flag.status_code == 422
    assert "one of 'reveal', 'chord', got 'flag'" in flag.json()["error"]
    safe = support.hidden_safe(game)[0]
    support.play(game, "reveal", *safe)
    bob_move = room_move(client, key, bob["token"], "reveal", *safe).json()
    mine = support.mine_cells(game)[0]
    boom = room_move(client, key, bob["token"], "reveal", *mine).json()
    assert boom["move"]["exploded"] == [list(mine)] and boom["move"]["scored"] == 0
    assert boom["changed"] == [list(mine)]  # marked, and nothing else moved
    view = boom["room"]
    assert view["state"] == "racing"
    assert view["marked"] == [{"row": mine[0], "col": mine[1], "player": bob["player"]}]
    assert view["snapshot"]["cells"][mine[0]][mine[1]] == ns.FLAG
    assert view["snapshot"]["mines_left"] == 9
    assert set(np.unique(view["snapshot"]["cells"]).tolist()) <= VISIBLE_IN_PROGRESS
    again = room_move(client, key, bob["token"], "reveal", *support.hidden_safe(game)[0])
    assert again.status_code == 409 and "you hit a mine" in again.json()["error"]
    on_mark = room_move(client, key, host["token"], "reveal", *mine)
    assert on_mark.status_code == 409
    while game.state is ns.GameState.IN_PROGRESS:  # Ann clears the board
        target = support.hidden_safe(game)[0]
        support.play(game, "reveal", *target)
        last = room_move(client, key, host["token"], "reveal", *target).json()
    final = last["room"]
    assert final["state"] == "finished" and final["winners"] == [host["player"]]
    scores = {p["name"]: p["score"] for p in final["players"]}
    assert scores["Bob"] == bob_move["move"]["scored"] >= 1
    assert scores["Ann"] + scores["Bob"] == 81 - 10  # every safe cell scored once
    assert sorted(map(tuple, final["mine_positions"])) == support.mine_cells(game)
    over = room_move(client, key, host["token"], "reveal", 0, 0)
    assert over.status_code == 409 and "is over" in over.json()["error"]
    # A room's game is no single-player game, whatever the token.
    assert client.get(f"/api/games/{key}", headers=auth(host)).status_code == 404


def test_a_race_with_nobody_left_has_no_winner_and_survives_a_restart(
    database: str, clock: Clock
) -> None:
    with restarted(database, clock) as client:
        host = new_room(client, preset="beginner", seed=SEED, name="Ann")
        key = host["id"]
        client.post(f"/api/rooms/{key}/start", headers=auth(host))
        game = support.mirror(host["room"], SEED)
        support.play(game, "reveal", 4, 4)
        room_move(client, key, host["token"], "reveal", 4, 4)
        before = client.get(f"/api/rooms/{key}").json()
    with restarted(database, clock) as client:
        assert client.get(f"/api/rooms/{key}").json() == before
        mine = support.mine_cells(game)[3]
        final = room_move(client, key, host["token"], "reveal", *mine).json()["room"]
    assert final["state"] == "finished" and final["winners"] == []
    assert final["players"][0]["still_in"] is False
    assert len(final["mine_positions"]) == 10


def test_race_rooms_refuse_strangers_and_crowds(tmp_path: Any) -> None:
    settings = Settings(database=f"sqlite:///{tmp_path / 'g.db'}", max_players=2)
    with TestClient(create_app(settings)) as client:
        host = new_room(client, preset="beginner", name="Ann")
        key = host["id"]
        assert client.get("/api/rooms/nope").status_code == 404
        stranger = room_move(client, key, "x" * 43, "reveal", 0, 0)
        assert stranger.status_code == 403 and "not a player" in stranger.json()["error"]
        assert client.post(f"/api/rooms/{key}/players", json={"name": "Bob"}).status_code == 201
        full = client.post(f"/api/rooms/{key}/players", json={"name": "Cy"})
        assert full.status_code == 409 and "is full (2 players)" in full.json()["error"]
        bad = client.post(f"/api/rooms/{key}/players", json={"name": "\x00"})
        assert bad.status_code == 422 and "name" in bad.json()["error"]


def test_a_race_room_pushes_every_change_to_its_sockets(client: TestClient) -> None:
    host = new_room(client, preset="beginner", seed=SEED, name="Ann")
    key = host["id"]
    bob = client.post(f"/api/rooms/{key}/players", json={"name": "Bob"}).json()
    with (
        client.websocket_connect(f"/api/rooms/{key}/ws") as ann_socket,
        client.websocket_connect(f"/api/rooms/{key}/ws") as bob_socket,
        client.websocket_connect(f"/api/rooms/{key}/ws") as watcher,
    ):
        ann_socket.send_json({"type": "hello", "token": host["token"]})
        bob_socket.send_json({"type": "hello", "token": bob["token"]})
        watcher.send_json({"type": "hello"})
        for socket in (ann_socket, bob_socket, watcher):
            hello = socket.receive_json()
            assert hello["type"] == "room" and hello["room"]["state"] == "waiting"
        bob_socket.send_json({"type": "start"})
        assert bob_socket.receive_json() == {
            "type": "error",
            "error": "only the room's host can start the race",
            "code": "forbidden",
        }
        ann_socket.send_json({"type": "start"})
        for socket in (ann_socket, bob_socket, watcher):
            assert socket.receive_json()["room"]["state"] == "racing"
        ann_socket.send_json({"type": "move", "kind": "reveal", "row": 4, "col": 4})
        # Ann gets her move's answer and the new view, in either order.
        got = {m["type"]: m for m in (ann_socket.receive_json(), ann_socket.receive_json())}
        moved = got["moved"]
        assert moved["move"]["scored"] > 0
        for view in (
            got["room"]["room"],
            bob_socket.receive_json()["room"],
            watcher.receive_json()["room"],
        ):
            assert view["snapshot"]["cells"][4][4] >= 0
            assert view["players"][0]["score"] == moved["move"]["scored"]
        watcher.send_json({"type": "move", "kind": "reveal", "row": 0, "col": 0})
        assert watcher.receive_json()["code"] == "unauthorized"
        bob_socket.send_text("{oops")
        assert bob_socket.receive_json()["code"] == "bad_json"
        bob_socket.send_json({"type": "move", "kind": "flag", "row": 0, "col": 0})
        assert "one of 'reveal', 'chord', got 'flag'" in bob_socket.receive_json()["error"]
        ann_socket.send_json({"type": "ping"})
        assert ann_socket.receive_json() == {"type": "pong"}
    with client.websocket_connect(f"/api/rooms/{key}/ws") as socket:
        socket.send_json({"type": "hello", "token": "wrong"})
        assert socket.receive_json()["code"] == "forbidden"
    with client.websocket_connect("/api/rooms/nope/ws") as socket:
        socket.send_json({"type": "hello"})
        assert socket.receive_json()["code"] == "not_found"


# -- the command ---------------------------------------------------------------------------


def test_serve_is_a_subcommand() -> None:
    args = build_parser().parse_args(["serve", "--db", "sqlite:///x.db", "--workers", "2"])
    assert (args.host, args.port, args.db, args.workers) == ("127.0.0.1", 8000, "sqlite:///x.db", 2)


def test_serve_refuses_a_bad_database_url(capsys: pytest.CaptureFixture[str]) -> None:
    from numsweeper.cli import main

    assert main(["serve", "--db", "mysql://x/y"]) == 2
    assert "unsupported database URL 'mysql://...'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"max_cells": 0}, ns.InvalidBoardError, "max_cells must be >= 1, got 0"),
        ({"max_body": "16"}, ns.InvalidTypeError, "max_body must be an integer, got '16'"),
        ({"max_players": True}, ns.InvalidTypeError, "max_players must be an integer, got True"),
        ({"leaderboard_size": -(10**5000)}, ns.InvalidBoardError, "a negative integer of 16,610"),
        ({"poll_interval": 0}, ns.InvalidBoardError, "interval must be a finite number > 0, got 0"),
        ({"poll_interval": float("nan")}, ns.InvalidBoardError, "a finite number > 0, got nan"),
        ({"poll_interval": 10**400}, ns.InvalidBoardError, "a finite number > 0, got 1000"),
        ({"poll_interval": "0.5"}, ns.InvalidTypeError, "interval must be a number, got '0.5'"),
        ({"database": "mysql://u:secret@h/db"}, ns.InvalidBoardError, "URL 'mysql://...': use"),
        ({"database": Path("g.db")}, ns.InvalidTypeError, f"a URL string, got {Path('g.db')!r}"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_naming_the_value(
    changes: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        Settings(**{"database": "sqlite://", **changes})
    assert message in str(info.value)
    assert "secret" not in str(info.value)  # a URL's password is never shown


def test_settings_from_bad_json_are_refused_naming_the_value() -> None:
    with pytest.raises(ns.InvalidBoardError, match="max_cells must be >= 1, got -1"):
        Settings.from_json('{"database": "sqlite://", "max_cells": -1}')
    for text in ("{oops", "[1]", '{"database": "sqlite://", "colour": 1}', '{"max_cells": 5}'):
        with pytest.raises(ns.InvalidBoardError, match="settings "):
            Settings.from_json(text)


def test_settings_take_numpy_numbers_and_keep_plain_ones() -> None:
    from fractions import Fraction

    s = Settings("sqlite://", max_cells=np.int64(500), poll_interval=Fraction(1, 4))
    assert (s.max_cells, s.poll_interval) == (500, 0.25)
    assert type(s.max_cells) is int and type(s.poll_interval) is float
    assert Settings.from_json(s.to_json()) == s


def test_api_errors_carry_their_status() -> None:
    err = ApiError(409, "taken", "conflict")
    assert (err.status, err.body()) == (409, {"error": "taken", "code": "conflict"})
    assert json.dumps(err.body())
