"""Real parts for the server's tests: a throwaway PostgreSQL, server processes, mirrors.

- :func:`postgres_server` runs a PostgreSQL cluster of its own from the
  installed binaries (``/usr/lib/postgresql/*/bin``, or ``$NUMSWEEPER_PG_BIN``)
  in a temporary directory, on a free port of 127.0.0.1, as an unprivileged
  user when the tests run as root (PostgreSQL refuses to run as root), and
  removes it afterwards.  Nothing depends on a system-wide cluster.
- :class:`ServerProcess` runs ``python -m numsweeper serve`` on 127.0.0.1.
- :func:`mirror` is the local twin of a seeded server game: the same seed and
  rule lay the same mines, so a test knows the layout the server hides.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import numsweeper as ns


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- PostgreSQL ----------------------------------------------------------------------


def postgres_binaries() -> Path | None:
    """The directory holding initdb, pg_ctl and postgres, or None."""
    given = os.environ.get("NUMSWEEPER_PG_BIN")
    found = [given] if given else glob.glob("/usr/lib/postgresql/*/bin")
    found = [d for d in found if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists()]
    if not found:
        return None
    return Path(
        max(found, key=lambda d: int(Path(d).parent.name) if Path(d).parent.name.isdigit() else 0)
    )


@dataclass
class Postgres:
    """A running throwaway cluster; :meth:`new_database` makes a fresh database."""

    port: int
    user: str = "ns"
    count: int = 0

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        self.count += 1
        name = f"t{self.count}_{os.getpid()}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_user() -> dict[str, Any]:
    """Popen arguments that drop root (PostgreSQL will not run as root)."""
    if os.geteuid() != 0:
        return {}
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as")


@contextlib.contextmanager
def postgres_server(*, durable: bool = False) -> Iterator[Postgres]:
    """Start a PostgreSQL cluster in a temporary directory; stop and remove it afterwards.

    Tests kill server processes, never the database, so by default it skips
    fsync for speed; ``durable=True`` keeps PostgreSQL's defaults (benchmarks).
    """
    binaries = postgres_binaries()
    if binaries is None:
        raise RuntimeError("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    root = Path(tempfile.mkdtemp(prefix="numsweeper-pg-"))
    user = _as_user()
    if user:
        os.chown(root, user["user"], user["group"])
    data, log = root / "data", root / "server.log"
    run = {"cwd": root, "check": True, "capture_output": True, "timeout": 120, **user}
    started = False
    try:
        subprocess.run(
            [binaries / "initdb", "-D", data, "-U", "ns", "-A", "trust", "-E", "UTF8",
             "--locale=C", "--no-sync", "--no-instructions"],
            **run,
        )  # fmt: skip
        for _ in range(3):  # a free port can be taken before the server binds it
            port = free_port()
            options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c max_connections=200"
            if not durable:
                options += " -c fsync=off -c full_page_writes=off"
            done = subprocess.run(
                [binaries / "pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o", options,
                 "start"],
                **{**run, "check": False},
            )  # fmt: skip
            if done.returncode == 0:
                started = True
                break
        if not started:
            raise RuntimeError(f"PostgreSQL did not start: {log.read_text()[-2000:]}")
        yield Postgres(port)
    finally:
        if started:
            subprocess.run(
                [binaries / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"],
                **{**run, "check": False},
            )
        shutil.rmtree(root, ignore_errors=True)


# -- server processes ----------------------------------------------------------------


class ServerProcess:
    """``numsweeper serve`` in a process of its own, on 127.0.0.1.

    Its output, access log included, goes to ``log``.  :meth:`start` waits until ``/api/health``
    answers; :meth:`kill` sends SIGKILL (no shutdown at all).
    """

    def __init__(self, database: str, log: Path, *, workers: int = 1) -> None:
        self.database = database
        self.log = log
        self.workers = workers
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> ServerProcess:
        import httpx2

        for _ in range(3):
            self.port = free_port()
            with self.log.open("ab") as out:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "numsweeper", "serve", "--host", "127.0.0.1",
                     "--port", str(self.port), "--db", self.database, "--log-level", "info",
                     "--workers", str(self.workers)],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )  # fmt: skip
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.process.poll() is None:
                with contextlib.suppress(httpx2.HTTPError):
                    if httpx2.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                        return self
                time.sleep(0.1)
            self.stop()
        raise RuntimeError(f"the server did not start: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL the server (and its workers): no chance to clean up."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


# -- local mirrors ---------------------------------------------------------------------


def mirror(view: dict[str, Any], seed: int) -> ns.Game:
    """The local twin of the seeded server game (or room) that ``view`` describes."""
    return ns.Game.new(
        view["rows"], view["cols"], view["mines"], seed=seed, first_click=view["first_click"]
    )


def play(game: ns.Game, kind: str, row: int, col: int) -> None:
    {"reveal": game.reveal, "flag": game.toggle_flag, "chord": game.chord}[kind](row, col)


def hidden_safe(game: ns.Game) -> list[tuple[int, int]]:
    """The safe cells the mirror still hides, row-major (its mines must be laid)."""
    board = game.board
    assert board is not None
    cells = np.argwhere((game.snapshot().cells == ns.HIDDEN) & ~board.mines)
    return [(int(r), int(c)) for r, c in cells]


def mine_cells(game: ns.Game) -> list[tuple[int, int]]:
    board = game.board
    assert board is not None
    return [(int(r), int(c)) for r, c in np.argwhere(board.mines)]
