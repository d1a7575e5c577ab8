"""The game service under load: many clients, each playing a game of many moves.

``CLIENTS`` concurrent clients (200; 20 under ``NUMSWEEPER_BENCH_SMALL=1``)
each create a seeded expert game and play ``MOVES`` moves on it (100; 20
small), one after another, against ``numsweeper serve`` on 127.0.0.1:

- on an SQLite file (one server process);
- on PostgreSQL with default durability (fsync on), one and two server
  processes (``--workers 2``).

A client picks its moves with a local mirror of its game (same seed, so it
knows the mines): the opening reveal, then flags toggled on mines and reveals
of safe cells, never winning, so that every game makes exactly ``MOVES``
moves.  Every answer must be a 200 that shows the mirror's board.  At the end
each game's move list on the server must equal its client's acknowledged
moves exactly: none lost, none duplicated.

Reported in ``extra_info`` (``--benchmark-json``) and printed: moves/s over
the whole run, the p50 and p99 latency of a move as the client sees it, and
the CPU time per move of the server's processes and of the clients (the
database's own processes are not counted).  The clients share the machine's
two cores with the server.

Run: ``pytest benchmarks/bench_server.py -s --benchmark-disable``
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

httpx2 = pytest.importorskip("httpx2")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")
pytest.importorskip("psycopg")

# The server processes and the throwaway PostgreSQL are the tests' own helpers.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import numsweeper as ns  # noqa: E402
import server_support as support  # noqa: E402
from conftest import size  # noqa: E402

CLIENTS = size(200, 20)
MOVES = size(100, 20)
SEED = 9000


async def _client(
    http: Any, i: int, latencies: list[float]
) -> tuple[dict[str, Any], list[tuple[str, int, int]]]:
    """Create a game and play MOVES moves; the game and the moves acknowledged."""
    answer = await http.post("/api/games", json={"preset": "expert", "seed": SEED + i,
                                                 "first_click": "opening"})  # fmt: skip
    assert answer.status_code == 201, answer.text
    made = answer.json()
    game = support.mirror(made, SEED + i)
    headers = {"Authorization": f"Bearer {made['token']}"}
    rng = np.random.default_rng(i)
    acked = []
    for step in range(MOVES):
        if step == 0:
            kind, r, c = "reveal", 8, 15
        else:
            safe = support.hidden_safe(game)
            if step % 3 and len(safe) > 1:
                kind, r, c = "reveal", *safe[rng.integers(len(safe))]
            else:
                mines = support.mine_cells(game)
                kind, r, c = "flag", *mines[rng.integers(len(mines))]
        began = time.perf_counter()
        answer = await http.post(
            f"/api/games/{made['id']}/moves",
            json={"kind": kind, "row": r, "col": c},
            headers=headers,
        )
        latencies.append(time.perf_counter() - began)
        assert answer.status_code == 200, answer.text
        support.play(game, kind, r, c)
        assert answer.json()["move"]["seq"] == step
        assert answer.json()["snapshot"]["cells"] == game.snapshot().cells.tolist()
        acked.append((kind, r, c))
    assert game.state is ns.GameState.IN_PROGRESS
    return made, acked


def _cpu_seconds(group: int) -> float:
    """CPU time used so far by the processes of a process group (Linux /proc)."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone
            continue
        if int(fields[2]) == group:  # fields[0] is the state; [2] the group, [11:13] the times
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def _load(url: str) -> dict[str, Any]:
    latencies: list[float] = []
    limits = httpx2.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx2.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        began = time.perf_counter()
        played = await asyncio.wait_for(
            asyncio.gather(*(_client(http, i, latencies) for i in range(CLIENTS))), timeout=900
        )
        seconds = time.perf_counter() - began
        for made, acked in played:  # the server's logs are the clients' acknowledged moves
            answer = await http.get(
                f"/api/games/{made['id']}/moves",
                headers={"Authorization": f"Bearer {made['token']}"},
            )
            logged = [(m["kind"], m["row"], m["col"]) for m in answer.json()["moves"]]
            assert logged == acked
    moves = CLIENTS * MOVES
    assert len(latencies) == moves
    p50, p99 = (float(q) for q in np.percentile(latencies, [50, 99]))
    return {
        "clients": CLIENTS,
        "moves": moves,
        "seconds": round(seconds, 2),
        "moves_per_s": round(moves / seconds, 1),
        "p50_ms": round(1000 * p50, 1),
        "p99_ms": round(1000 * p99, 1),
    }


@pytest.fixture(scope="module")
def postgres() -> Any:
    if support.postgres_binaries() is None:
        pytest.skip("PostgreSQL's binaries are not installed")
    with support.postgres_server(durable=True) as server:
        yield server


@pytest.mark.parametrize(
    ("backend", "workers"), [("sqlite", 1), ("postgresql", 1), ("postgresql", 2)]
)
def test_load(
    backend: str, workers: int, request: pytest.FixtureRequest, tmp_path: Path, benchmark: Any
) -> None:
    if backend == "sqlite":
        database = f"sqlite:///{tmp_path / 'games.db'}"
    else:
        database = request.getfixturevalue("postgres").new_database()
    server = support.ServerProcess(database, tmp_path / "server.log", workers=workers).start()
    assert server.process is not None
    try:
        group = server.process.pid  # the server runs in a session of its own
        server_cpu, client_cpu = _cpu_seconds(group), time.process_time()
        result = benchmark.pedantic(lambda: asyncio.run(_load(server.url)), rounds=1, iterations=1)
        server_cpu = _cpu_seconds(group) - server_cpu
        client_cpu = time.process_time() - client_cpu
    finally:
        server.stop()
    result["server_cpu_ms_per_move"] = round(1000 * server_cpu / result["moves"], 2)
    result["client_cpu_ms_per_move"] = round(1000 * client_cpu / result["moves"], 2)
    result["load_average"] = round(os.getloadavg()[0], 1)
    benchmark.extra_info.update(result)
    print(f"\n{backend} x{workers}: {result}")
