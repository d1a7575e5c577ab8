"""Crafted files: refused with our errors, and a huge declared size before it costs memory."""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import re
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import numsweeper as ns
from numsweeper import _validate
from numsweeper.simulate import RECORD_DTYPE


@pytest.fixture(scope="module")
def run() -> ns.SimulationResult:
    return ns.simulate(6, 5, 5, 3, seed=1, chunk_size=3, trace=True)


def test_parquet_with_a_damaged_footer_is_our_error(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "bad.parquet"
    # the magic at both ends, and a footer of zeros that thrift cannot decode
    path.write_bytes(b"PAR1" + bytes(100) + (16).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(ns.InvalidBoardError, match="is not a readable Parquet file"):
        ns.SimulationResult.from_parquet(path)


def test_parquet_rows_past_memory_are_refused_before_reading(
    run: ns.SimulationResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "games.parquet"
    run.to_parquet(path)
    table = parquet.read_table(path)  # (6 rows, written 2,000 times: 12,000 of them)
    parquet.write_table(pyarrow.concat_tables([table] * 2000), path)

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("a column was read")

    monkeypatch.setattr(parquet.ParquetFile, "read", no_reading)
    monkeypatch.setattr(parquet, "read_table", no_reading)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 12_000 * RECORD_DTYPE.itemsize)
    with pytest.raises(ns.InvalidBoardError, match=r"games\.parquet' holds 12,000 rows, which"):
        ns.SimulationResult.from_parquet(path)


def test_a_missing_parquet_file_is_still_an_os_error(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow.parquet")
    with pytest.raises(FileNotFoundError):
        ns.SimulationResult.from_parquet(tmp_path / "none.parquet")


def _readers() -> list[tuple[object, type[Exception]]]:
    from numsweeper.datasets import load_positions

    return [
        (ns.SimulationResult.from_csv, ns.InvalidBoardError),
        (ns.SimulationResult.from_parquet, ns.InvalidBoardError),
        (ns.load_game, ns.InvalidGameFileError),
        (load_positions, ns.InvalidGameFileError),
    ]


@pytest.mark.parametrize(("read", "error"), _readers())
def test_a_directory_is_refused_before_any_reader_sees_it(
    read: Any, error: type[Exception], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runs.parquet"  # (a name each reader takes)
    folder.mkdir()
    (folder / "part-0.parquet").write_bytes(b"PAR1")
    parquet = pytest.importorskip("pyarrow.parquet")
    for name in ("ParquetFile", "read_table"):  # (pyarrow would crawl it as a dataset)
        monkeypatch.setattr(parquet, name, None)
    target = folder if read is not ns.load_game else folder.rename(tmp_path / "game.json")
    with pytest.raises(IsADirectoryError, match=re.escape(str(target))):
        read(target)


@pytest.mark.parametrize(("read", "error"), _readers())
@pytest.mark.parametrize("path", [None, b"games.csv", 1.5], ids=repr)
def test_a_path_of_the_wrong_type_is_named(read: Any, error: type[Exception], path: Any) -> None:
    with pytest.raises(ns.InvalidTypeError, match=f"must be a str or an os.PathLike, got {path!r}"):
        read(path)


@pytest.mark.parametrize(("read", "error"), _readers())
def test_a_file_descriptor_is_refused_and_left_open(
    read: Any, error: type[Exception], tmp_path: Path
) -> None:
    path = tmp_path / "games.csv"
    path.write_text("game\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(ns.InvalidTypeError, match=f"got {fd}$"):
            read(fd)
        assert os.fstat(fd).st_size == 5  # still the caller's
    finally:
        os.close(fd)


@pytest.mark.parametrize(("read", "error"), _readers())
def test_a_nul_in_the_path_is_named(read: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"'games\\x00\.json' holds a NUL character"):
        read("games\0.json")


@pytest.mark.parametrize(
    ("address_space", "data", "v2", "v1", "expected"),
    [
        (None, None, None, None, 8 << 30),  # nothing but the machine
        (3 << 30, None, None, None, 3 << 30),  # ulimit -v
        (3 << 30, 2 << 30, None, None, 2 << 30),  # ulimit -d
        (None, None, b"max\n", None, 8 << 30),  # a v2 group without a limit
        (None, None, b"1073741824\n", None, 1 << 30),
        (None, None, None, b"9223372036854771712\n", 8 << 30),  # v1's 'no limit'
        (None, 4 << 30, None, b"536870912\n", 1 << 29),
    ],
)
def test_memory_bytes_is_the_least_of_every_limit(
    address_space: int | None,
    data: int | None,
    v2: bytes | None,
    v1: bytes | None,
    expected: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resource = pytest.importorskip("resource")
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": (8 << 30) // 4096}
    monkeypatch.setattr(os, "sysconf", pages.__getitem__)
    soft = {resource.RLIMIT_AS: address_space, resource.RLIMIT_DATA: data}
    monkeypatch.setattr(
        resource,
        "getrlimit",
        lambda kind: (resource.RLIM_INFINITY if soft[kind] is None else soft[kind],) * 2,
    )
    (tmp_path / "memory").mkdir()
    for name, text in (("memory.max", v2), ("memory/memory.limit_in_bytes", v1)):
        if text is not None:
            (tmp_path / name).write_bytes(text)
    (tmp_path / "self").write_text("4:memory:/\n0::/\n")
    monkeypatch.setattr(_validate, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(_validate, "CGROUP_SELF", str(tmp_path / "self"))
    assert _validate.memory_bytes() == expected


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_memory_bytes_finds_the_limit_of_an_enclosing_group(
    version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process in a nested group (a systemd scope in a slice with a
    # limit, a container's sub-group) is bound by every group above it.
    monkeypatch.setattr(os, "sysconf", {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 1 << 21}.__getitem__)
    base, name, line = {
        "v2": (tmp_path, "memory.max", "0::/slice/scope\n"),
        "v1": (tmp_path / "memory", "memory.limit_in_bytes", "7:cpu,memory:/slice/scope\n"),
    }[version]
    (base / "slice" / "scope").mkdir(parents=True)
    (base / "slice" / "scope" / name).write_bytes(
        b"max\n" if version == "v2" else b"9223372036854771712\n"
    )
    (base / "slice" / name).write_bytes(b"1073741824\n")
    (tmp_path / "self").write_text("3:pids:/other\n" + line)
    monkeypatch.setattr(_validate, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(_validate, "CGROUP_SELF", str(tmp_path / "self"))
    assert _validate.memory_bytes() == 1 << 30
    (base / "slice" / "scope" / name).write_bytes(b"536870912\n")  # the tighter one wins
    assert _validate.memory_bytes() == 1 << 29


def test_a_member_too_big_for_memory_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.npz"
    ns.save_game(ns.Game.new(9, 9, 10, seed=1), path)

    def no_memory(stream: object, n: int) -> bytearray:
        raise MemoryError

    monkeypatch.setattr(_validate, "_read_upto", no_memory)
    with pytest.raises(ns.InvalidGameFileError, match=r"header\.npy does not fit in memory$"):
        ns.load_game(path)


def test_a_csv_too_big_for_memory_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "games.csv"
    with path.open("wb") as file:  # (sparse: 64 MB of NULs, one line, that cost no disk)
        file.truncate(64 << 20)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 64 << 20)
    with pytest.raises(ns.InvalidBoardError, match=r"holds 67,108,864 bytes.*to_parquet"):
        ns.SimulationResult.from_csv(path)


def test_a_csv_header_is_checked_before_any_row(tmp_path: Path) -> None:
    path = tmp_path / "games.csv"
    path.write_text("game,chunk\n" + "x" * 200_000 + "\n")  # (a row csv cannot even read)
    with pytest.raises(ns.InvalidBoardError, match=r"its columns are \['game', 'chunk'\]"):
        ns.SimulationResult.from_csv(path)


def test_a_csv_field_past_csvs_limit_names_its_row(
    run: ns.SimulationResult, tmp_path: Path
) -> None:
    path = tmp_path / "games.csv"
    run.to_csv(path)
    path.write_text(path.read_text() + "1" * 200_000 + ",0,0,0,0,0,0\n")
    with pytest.raises(ns.InvalidBoardError, match=r"games\.csv': row 6: field larger than"):
        ns.SimulationResult.from_csv(path)
    run.to_csv(path)
    assert ns.SimulationResult.from_csv(path).records.tolist() == run.records.tolist()


def test_a_saved_game_past_its_share_of_memory_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    with path.open("wb") as file:  # (sparse: no disk)
        file.truncate(64 << 20)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 4 << 20)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("opened")

    monkeypatch.setattr(Path, "open", never)
    with pytest.raises(
        ns.InvalidGameFileError, match=r"game\.json holds 67,108,864 bytes, more than the 104,857"
    ):
        ns.load_game(path)


@pytest.mark.parametrize(("begun", "per_cell"), [(False, 14), (True, 17)])
def test_loading_a_board_is_refused_at_its_measured_peak(
    begun: bool, per_cell: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = ns.Game.new(1000, 1000, 10, seed=1)
    record = game.to_dict()
    if begun:
        record["start"] = {"revealed": [], "flagged": []}
    monkeypatch.setattr(_validate, "memory_bytes", lambda: per_cell * 10**6 - 1)
    with pytest.raises(ns.InvalidGameFileError, match=f"about {per_cell} bytes per cell"):
        ns.Game.from_dict(record)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: per_cell * 10**6)
    assert ns.Game.from_dict(record).snapshot() == game.snapshot()


def test_moves_are_refused_at_their_measured_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = ns.Game.new(4, 4, 2, strategy=ns.FixedPlacement([(0, 0), (0, 1)]))
    for _ in range(1000):
        game.toggle_flag(3, 3)
    path = tmp_path / "game.npz"
    ns.save_game(game, path)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 320 * 1000 - 1)
    with pytest.raises(ns.InvalidGameFileError, match="claims 1000 items, more than 999"):
        ns.load_game(path)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 320 * 1000)
    assert ns.load_game(path).moves == game.moves


def _huge_record(side: int) -> dict[str, Any]:
    """A saved game of a ``side`` x ``side`` board in a few hundred bytes."""
    record = ns.Game.new(3, 3, 0, seed=1).to_dict()
    record.update(rows=side, cols=side)
    return record


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_max_cells_refuses_a_board_from_its_header(
    suffix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / f"game{suffix}"
    ns.save_game(ns.Game.new(1000, 1001, 10, seed=1), path)  # (just past the cap)
    unpacked = []
    monkeypatch.setattr(np, "unpackbits", lambda *a, **k: unpacked.append(a))
    with pytest.raises(
        ns.InvalidGameFileError,
        match=r"the 1000x1001 board has 1,001,000 cells, more than the 1,000,000 allowed",
    ):
        ns.load_game(path, max_cells=1_000_000)
    assert unpacked == []  # (the layout was never unpacked)
    monkeypatch.undo()
    assert ns.load_game(path, max_cells=1_001_000).rows == 1000


def test_max_cells_refuses_a_huge_board_without_allocating_it(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_huge_record(15_000)))  # (its mine list is empty)
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match="15000x15000 board"):
            ns.load_game(path, max_cells=1_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


@pytest.mark.parametrize(
    ("max_cells", "error"),
    [(0, ns.InvalidBoardError), (-5, ns.InvalidBoardError), ("10", ns.InvalidTypeError)],
)
def test_a_bad_max_cells_is_named(max_cells: Any, error: type[Exception], tmp_path: Path) -> None:
    with pytest.raises(error, match=f"max_cells must be .*, got {max_cells!r}"):
        ns.load_game(tmp_path / "game.json", max_cells=max_cells)


def _session(script: str) -> str:
    from numsweeper import play

    args = argparse.Namespace(preset=None, rows=5, cols=5, mines=3, seed=0, first_click="none")
    out = io.StringIO()
    assert play.run(args, io.StringIO(script), out) == 0
    return out.getvalue()


def test_the_terminal_refuses_a_huge_saved_game_and_keeps_its_own(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(_huge_record(15_000)))
    out = _session(f"f 0 0\nload {path}\nf 1 1\nq\n")
    assert "15000x15000 board has 225,000,000 cells, more than the 1,000,000 allowed" in out
    assert "mines left: 1" in out  # both flags on the game in progress


def test_the_terminal_survives_a_memory_error_while_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from numsweeper import play

    def out_of_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(play, "load_game", out_of_memory)
    path = tmp_path / "game.json"
    out = _session(f"f 0 0\nload {path}\nf 1 1\nq\n")
    assert f"cannot load {str(path)!r}: it does not fit in memory" in out
    assert "mines left: 1" in out and out.endswith("bye\n")


@pytest.mark.parametrize(("name", "value"), [("clicks", 7), ("won", True), ("game", 2)])
def test_a_null_in_parquet_is_named_at_its_own_row(
    name: str, value: object, run: ns.SimulationResult, tmp_path: Path
) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "games.parquet"
    run.to_parquet(path)
    table = parquet.read_table(path)
    values = [value] * table.num_rows
    values[3] = None
    column = pyarrow.array(values, table.schema.field(name).type)
    parquet.write_table(table.set_column(table.column_names.index(name), name, column), path)
    with pytest.raises(ns.InvalidBoardError, match=f"row 3, column '{name}' holds None, not"):
        ns.SimulationResult.from_parquet(path)


def _with_records(run: ns.SimulationResult, path: Path, **edit: tuple[int, int]) -> Path:
    """``run`` written as CSV, with ``edit[column] = (row, value)`` changed in its records."""
    records = run.records.copy()
    for name, (row, value) in edit.items():
        records[name][row] = value
    dataclasses.replace(run, records=records).to_csv(path)
    return path


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"clicks": (4, -1)}, "row 4, column 'clicks' holds -1, not in 0..2147483647"),
        ({"revealed": (2, -3)}, "row 2, column 'revealed' holds -3, not in 0..22"),
        ({"revealed": (5, 23)}, "row 5, column 'revealed' holds 23, not in 0..22"),
    ],
)
def test_records_that_no_run_can_hold_are_named(
    edit: dict[str, tuple[int, int]], said: str, run: ns.SimulationResult, tmp_path: Path
) -> None:
    path = _with_records(run, tmp_path / "games.csv", **edit)
    with pytest.raises(ns.InvalidBoardError, match=re.escape(said)):
        ns.SimulationResult.from_csv(path)


def test_a_game_recorded_twice_is_named(run: ns.SimulationResult, tmp_path: Path) -> None:
    records = run.records.copy()
    records[4] = records[3]  # (game 3 of chunk 1, a second time)
    path = tmp_path / "games.csv"
    dataclasses.replace(run, records=records).to_csv(path)
    with pytest.raises(ns.InvalidBoardError, match="row 4 holds game 3 a second time"):
        ns.SimulationResult.from_csv(path)


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("kind", 3, "3, not in 0..2"),
        ("row", 5, "5, not in 0..4"),
        ("col", -1, "-1, not in 0..4"),
        ("probability", 1.5, "1.5, not in 0..1"),
        ("probability", -0.25, "-0.25, not in 0..1"),
    ],
)
def test_a_trace_row_that_no_run_can_hold_is_named(
    name: str, value: float, shown: str, run: ns.SimulationResult, tmp_path: Path
) -> None:
    moves = run.moves.copy()
    moves[name][7] = value
    run.to_csv(tmp_path / "games.csv")
    dataclasses.replace(run, moves=moves).to_csv(tmp_path / "moves.csv", which="moves")
    with pytest.raises(ns.InvalidBoardError, match=f"row 7, column '{name}' holds {shown}"):
        ns.SimulationResult.from_csv(tmp_path / "games.csv", moves=tmp_path / "moves.csv")
    assert np.isnan(run.moves["probability"]).all()  # (NaN: no probability, as written)
    run.to_csv(tmp_path / "moves.csv", which="moves")
    again = ns.SimulationResult.from_csv(tmp_path / "games.csv", moves=tmp_path / "moves.csv")
    assert again.moves.tobytes() == run.moves.tobytes()


@pytest.mark.parametrize("seed", [[[3]], [True], [1, [2]]])
def test_a_run_seed_that_is_not_integers_is_named(
    seed: Any, run: ns.SimulationResult, tmp_path: Path
) -> None:
    path = tmp_path / "games.csv"
    run.to_csv(path)
    lines = [
        f"# seed: {json.dumps(seed)}" if line.startswith("# seed: ") else line
        for line in path.read_text().splitlines()
    ]
    path.write_text("\n".join(lines) + "\n")
    shown = re.escape(repr(tuple(seed)))  # (the metadata's lists are read as tuples)
    with pytest.raises(ns.InvalidBoardError, match=f"metadata: seed must be .*, got {shown}"):
        ns.SimulationResult.from_csv(path)


@pytest.mark.parametrize("seed", [[[3]], [True]])
def test_a_positions_seed_that_is_not_integers_is_named(seed: Any, tmp_path: Path) -> None:
    from numsweeper.datasets import load_positions, positions

    path = tmp_path / "positions.npz"
    dataclasses.replace(positions(2, 5, 5, 3, seed=0, policy="random"), seed=seed).to_npz(path)
    said = f"meta 'seed' must be an integer >= 0 or a list of them, got {seed!r}"
    with pytest.raises(ns.InvalidGameFileError, match=re.escape(said)):
        load_positions(path)


def test_an_interrupted_run_still_reads_back(tmp_path: Path) -> None:
    run = ns.simulate(6, 5, 5, 3, seed=1, chunk_size=3, trace=True)
    kept = dataclasses.replace(
        run,
        records=run.records[3:],
        moves=run.moves[run.moves["game"] >= 3],
        interrupted=True,
    )
    kept.to_csv(tmp_path / "games.csv")
    kept.to_csv(tmp_path / "moves.csv", which="moves")
    again = ns.SimulationResult.from_csv(tmp_path / "games.csv", moves=tmp_path / "moves.csv")
    assert again.records.tobytes() == kept.records.tobytes() and again.interrupted


def test_a_saved_game_that_grows_while_it_is_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (as if a byte were appended between measuring the file and reading it)
    from numsweeper import records

    path = tmp_path / "game.json"
    ns.save_game(ns.Game.new(9, 9, 10, seed=1), path)
    size = path.stat().st_size
    monkeypatch.setattr(records, "check_regular_file", lambda target, error: size - 1)
    with pytest.raises(ns.InvalidGameFileError, match=r"game\.json grew while it was being read"):
        ns.load_game(path)
