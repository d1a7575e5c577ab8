"""Scaling of bulk runs: one solver run on 1 and 2 workers, by --workers and by Dask.

Run the figure of ``benchmarks/README.md`` (minutes, on an otherwise idle machine)::

    python benchmarks/bench_scaling.py --games 20000 --preset intermediate

Every configuration plays the same games (same seed and chunk size) and must
give the same records; the table reports games per second (start-up apart),
the speedup over one worker of the same kind and the parallel efficiency.
Under pytest, a small run checks that the four configurations agree.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numsweeper as ns
from conftest import size

CHUNK = 100


def run(games: int, preset: str, workers: int, dask: bool, seed: int = 20261201) -> Any:
    rows, cols, mines = ns.PRESETS[preset]
    # (four chunks or more from four games on: two workers both have work)
    chunk = min(CHUNK, max(1, games // 4))
    kwargs: dict[str, Any] = {"policy": "solver", "seed": seed, "chunk_size": chunk}
    if not dask:
        began = time.perf_counter()
        result = ns.simulate(games, rows, cols, mines, workers=workers, **kwargs)
        return result, time.perf_counter() - began
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            host="127.0.0.1",
        ) as cluster,
        Client(cluster) as client,
    ):
        # Warm every worker (imports, compiled kernels) outside the clock, as
        # --workers does in its start-up.
        ns.simulate(2 * workers, rows, cols, mines, executor=client.get_executor(), **kwargs)
        began = time.perf_counter()
        result = ns.simulate(games, rows, cols, mines, executor=client.get_executor(), **kwargs)
        return result, time.perf_counter() - began


def table(games: int, preset: str) -> list[tuple[str, int, float, float]]:
    rows = []
    reference = None
    for dask in (False, True):
        base = None
        for workers in (1, 2):
            result, wall = run(games, preset, workers, dask)
            if reference is None:
                reference = result.records
            assert (result.records == reference).all(), "records differ between runs"
            rate = result.games_per_second
            base = base or rate
            label = "dask LocalCluster" if dask else "--workers"
            rows.append((label, workers, rate, rate / base))
            print(
                f"{label:<18} {workers} worker(s): {rate:8.1f} games/s "
                f"(wall {wall:6.1f} s, start-up {result.startup:4.1f} s), "
                f"speedup {rate / base:4.2f}, efficiency {rate / base / workers:4.0%}",
                flush=True,
            )
    return rows


def test_every_way_gives_the_same_records() -> None:
    import pytest

    pytest.importorskip("dask.distributed")
    table(size(400, 40), "beginner")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--preset", choices=list(ns.PRESETS), default="intermediate")
    args = parser.parse_args()
    table(args.games, args.preset)
