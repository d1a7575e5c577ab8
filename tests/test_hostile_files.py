"""Crafted files: refused with our errors, and a huge declared size before it costs memory."""

from __future__ import annotations

from pathlib import Path

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
    parquet = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "games.parquet"
    run.to_parquet(path)
    ns.SimulationResult.from_parquet(path)  # fits as it is

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("a column was read")

    monkeypatch.setattr(parquet.ParquetFile, "read", no_reading)
    monkeypatch.setattr(parquet, "read_table", no_reading)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 6 * RECORD_DTYPE.itemsize)
    with pytest.raises(ns.InvalidBoardError, match=r"games\.parquet' holds 6 rows, which take"):
        ns.SimulationResult.from_parquet(path)
    monkeypatch.undo()
    assert ns.SimulationResult.from_parquet(path).games == 6


def test_a_missing_parquet_file_is_still_an_os_error(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow.parquet")
    with pytest.raises(FileNotFoundError):
        ns.SimulationResult.from_parquet(tmp_path / "none.parquet")
