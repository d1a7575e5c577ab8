"""Real server processes: two on one PostgreSQL, ``kill -9`` under load, races across them.

Each server is ``python -m numsweeper serve`` on 127.0.0.1 (see
``server_support.py``); PostgreSQL is a throwaway cluster of the test's own.
Clients are threads with bounded loops and timeouts.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")
pytest.importorskip("psycopg")
websockets_client = pytest.importorskip("websockets.sync.client")

import server_support as support  # noqa: E402

SEED = 777
BIG_SEED = 9_876_543_210_987_654_321  # long enough that no pid or port in a log matches it


@pytest.fixture(scope="module")
def postgres() -> Iterator[support.Postgres]:
    if support.postgres_binaries() is None:
        pytest.skip("PostgreSQL's binaries are not installed (apt-get install postgresql)")
    with support.postgres_server() as server:
        yield server


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[support.ServerProcess]]:
    """Server processes the test starts; all stopped at the end."""
    started: list[support.ServerProcess] = []
    yield started
    for server in started:
        server.stop()


def serve(servers: list[support.ServerProcess], database: str, log: Path) -> support.ServerProcess:
    server = support.ServerProcess(database, log).start()
    servers.append(server)
    return server


def create(url: str, **body: Any) -> dict[str, Any]:
    answer = httpx2.post(f"{url}/api/games", json=body, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def post_move(client: Any, made: dict[str, Any], kind: str, row: int, col: int) -> Any:
    return client.post(
        f"/api/games/{made['id']}/moves",
        json={"kind": kind, "row": row, "col": col},
        headers={"Authorization": f"Bearer {made['token']}"},
    )


def read(url: str, made: dict[str, Any], what: str = "") -> Any:
    answer = httpx2.get(
        f"{url}/api/games/{made['id']}{what}",
        headers={"Authorization": f"Bearer {made['token']}"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_two_servers_on_one_postgres_apply_moves_to_one_game_in_one_order(
    postgres: support.Postgres, servers: list[support.ServerProcess], tmp_path: Path
) -> None:
    database = postgres.new_database()
    first = serve(servers, database, tmp_path / "a.log")
    second = serve(servers, database, tmp_path / "b.log")
    made = create(first.url, preset="expert", seed=SEED, first_click="opening")
    game = support.mirror(made, SEED)
    support.play(game, "reveal", 8, 15)
    with httpx2.Client(base_url=first.url, timeout=60) as client:
        assert post_move(client, made, "reveal", 8, 15).status_code == 200
    flags = support.mine_cells(game)[:3]  # toggled by everyone, never revealed
    safe = support.hidden_safe(game)
    clients, per_client = 8, 12
    plans = [
        [("flag", *flags[(i + j) % 3]) if j % 3 else ("reveal", *safe[(7 * i + j) % len(safe)])
         for j in range(per_client)]
        for i in range(clients)
    ]  # fmt: skip
    answers: list[list[dict[str, Any]]] = [[] for _ in range(clients)]
    failures: list[str] = []

    def player(i: int) -> None:
        url = (first, second)[i % 2].url
        with httpx2.Client(base_url=url, timeout=60) as client:
            for kind, r, c in plans[i]:
                answer = post_move(client, made, kind, r, c)
                if answer.status_code != 200:
                    failures.append(answer.text)
                    return
                answers[i].append(answer.json())

    threads = [threading.Thread(target=player, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    assert not failures
    log = read(second.url, made, "/moves")["moves"]
    everyone = [a for mine in answers for a in mine]
    assert len(everyone) == clients * per_client
    assert len(log) == 1 + len(everyone)  # the first reveal, then every acknowledged move
    assert sorted(a["move"]["seq"] for a in everyone) == list(range(1, len(log)))
    # Replay the server's order on the mirror: every answer is the board after exactly
    # the moves numbered up to its own.
    replay = support.mirror(made, SEED)
    boards = []
    for entry in log:
        support.play(replay, entry["kind"], entry["row"], entry["col"])
        boards.append(replay.snapshot())
    for answer in everyone:
        seq = answer["move"]["seq"]
        assert {k: log[seq][k] for k in ("kind", "row", "col")} == {
            k: answer["move"][k] for k in ("kind", "row", "col")
        }
        np.testing.assert_array_equal(answer["snapshot"]["cells"], boards[seq].cells)
        assert answer["snapshot"]["mines_left"] == boards[seq].mines_left
    for mine in answers:  # one client's moves keep its order
        seqs = [a["move"]["seq"] for a in mine]
        assert seqs == sorted(seqs)
    for server in (first, second):
        view = read(server.url, made)
        np.testing.assert_array_equal(view["snapshot"]["cells"], replay.snapshot().cells)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_under_load_keeps_every_acknowledged_move(
    backend: str,
    request: pytest.FixtureRequest,
    servers: list[support.ServerProcess],
    tmp_path: Path,
) -> None:
    if backend == "sqlite":
        database = f"sqlite:///{tmp_path / 'games.db'}"
    else:
        database = request.getfixturevalue("postgres").new_database()
    log_path = tmp_path / "server.log"
    server = serve(servers, database, log_path)
    players = 6
    games = [create(server.url, preset="intermediate", seed=BIG_SEED + i) for i in range(players)]
    mirrors = [support.mirror(made, BIG_SEED + i) for i, made in enumerate(games)]
    acked: list[list[tuple[str, int, int]]] = [[] for _ in range(players)]
    in_flight: list[tuple[str, int, int] | None] = [None] * players
    stop = threading.Event()

    def player(i: int) -> None:
        made, game = games[i], mirrors[i]
        with httpx2.Client(base_url=server.url, timeout=10) as client:
            for step in range(10_000):  # bounded; the kill ends it much sooner
                if stop.is_set():
                    return
                if step == 0:
                    kind, r, c = "reveal", 8, 8
                elif step % 4:
                    kind, r, c = "flag", *support.mine_cells(game)[step % 3]
                else:
                    cells = support.hidden_safe(game)
                    if len(cells) < 2:  # never win: keep the game going
                        kind, r, c = "flag", *support.mine_cells(game)[0]
                    else:
                        kind, r, c = "reveal", *cells[step % len(cells)]
                in_flight[i] = (kind, r, c)
                try:
                    answer = post_move(client, made, kind, r, c)
                except httpx2.HTTPError:
                    return  # the server died with this move in flight
                if answer.status_code != 200:
                    return
                support.play(game, kind, r, c)
                acked[i].append((kind, r, c))
                in_flight[i] = None

    threads = [threading.Thread(target=player, args=(i,)) for i in range(players)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while sum(map(len, acked)) < 60 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.kill()  # SIGKILL with requests in flight
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    assert sum(map(len, acked)) >= 60
    restarted = serve(servers, database, log_path)
    for i, made in enumerate(games):
        log = [
            (m["kind"], m["row"], m["col"]) for m in read(restarted.url, made, "/moves")["moves"]
        ]
        assert log[: len(acked[i])] == acked[i]  # every acknowledged move, in order
        extra = log[len(acked[i]) :]
        assert extra in ([], [in_flight[i]])  # at most the one in flight, whole
        replay = support.mirror(made, BIG_SEED + i)
        for kind, r, c in log:
            support.play(replay, kind, r, c)
        view = read(restarted.url, made)  # no half-applied move: the board is the log's
        np.testing.assert_array_equal(view["snapshot"]["cells"], replay.snapshot().cells)
        assert view["snapshot"]["mines_left"] == replay.snapshot().mines_left
        with httpx2.Client(base_url=restarted.url, timeout=30) as client:  # and play goes on
            target = support.hidden_safe(replay)[0]
            answer = post_move(client, made, "reveal", *target)
            assert answer.status_code == 200 and answer.json()["move"]["seq"] == len(log)
    text = log_path.read_text()  # the access log of every request, from both servers
    assert text.count('"POST /api/games/') >= sum(map(len, acked))
    for i in range(players):
        assert json.dumps(support.mine_cells(mirrors[i])) not in text
        assert str(BIG_SEED + i) not in text
    assert "mine_positions" not in text and "Traceback" not in text


def test_a_race_spans_two_servers_on_one_postgres(
    postgres: support.Postgres, servers: list[support.ServerProcess], tmp_path: Path
) -> None:
    database = postgres.new_database()
    first = serve(servers, database, tmp_path / "a.log")
    second = serve(servers, database, tmp_path / "b.log")
    host = httpx2.post(
        f"{first.url}/api/rooms",
        json={"preset": "beginner", "seed": SEED, "name": "Ann"},
        timeout=30,
    ).json()
    key = host["id"]
    bob = httpx2.post(
        f"{second.url}/api/rooms/{key}/players", json={"name": "Bob"}, timeout=30
    ).json()

    def address(server: support.ServerProcess) -> str:
        return f"ws://127.0.0.1:{server.port}/api/rooms/{key}/ws"

    def until(ws: Any, check: Any) -> dict[str, Any]:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message["type"] == "room" and check(message["room"]):
                return dict(message["room"])
        raise AssertionError("no such room view within 20 s")

    with (
        websockets_client.connect(address(first), open_timeout=30) as ann,
        websockets_client.connect(address(second), open_timeout=30) as bobs,
    ):
        ann.send(json.dumps({"type": "hello", "token": host["token"]}))
        bobs.send(json.dumps({"type": "hello", "token": bob["token"]}))
        until(ann, lambda room: len(room["players"]) == 2)
        until(bobs, lambda room: room["state"] == "waiting")
        ann.send(json.dumps({"type": "start"}))
        until(bobs, lambda room: room["state"] == "racing")  # seen through the database
        ann.send(json.dumps({"type": "move", "kind": "reveal", "row": 4, "col": 4}))
        view = until(bobs, lambda room: room["players"][0]["score"] > 0)
        game = support.mirror(view, SEED)
        support.play(game, "reveal", 4, 4)
        np.testing.assert_array_equal(view["snapshot"]["cells"], game.snapshot().cells)
        target = support.hidden_safe(game)[0]
        bobs.send(
            json.dumps({"type": "move", "kind": "reveal", "row": target[0], "col": target[1]})
        )
        view = until(ann, lambda room: room["players"][1]["score"] > 0)
        assert view["snapshot"]["cells"][target[0]][target[1]] >= 0
        assert set(np.unique(view["snapshot"]["cells"]).tolist()) <= {-1, *range(9)}
