"""SimulationResult.from_csv and from_parquet: a bad value is refused, never cast."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import numsweeper as ns

HEADER = "game,chunk,won,clicks,revealed,three_bv,three_bv_solved"
# numsweeper._validate's message for any bad seed
SEED = (
    "seed must be None, an integer >= 0 (or a sequence of them), a SeedSequence or a Generator, "
    "got "
)


@pytest.fixture(scope="module")
def run() -> ns.SimulationResult:
    return ns.simulate(20, 5, 5, 3, seed=1, chunk_size=10, trace=True)


def refused(path: Path, *parts: str, moves: Path | None = None) -> None:
    """Reading ``path`` raises InvalidBoardError naming the file and every one of ``parts``."""
    read = (
        ns.SimulationResult.from_parquet
        if path.suffix == ".parquet"
        else ns.SimulationResult.from_csv
    )
    with pytest.raises(ns.InvalidBoardError) as caught:
        read(path, moves=moves)
    message = str(caught.value)
    for part in (repr(str(moves or path)), *parts):
        assert part in message, (part, message)


def saved(result: ns.SimulationResult, path: Path, **meta: Any) -> Path:
    """``result`` written to ``path`` (CSV or Parquet), with metadata fields replaced."""
    if path.suffix == ".parquet":
        parquet = pytest.importorskip("pyarrow.parquet")
        result.to_parquet(path)
        table = parquet.read_table(path)
        data = json.loads(table.schema.metadata[b"numsweeper"]) | meta
        parquet.write_table(
            table.replace_schema_metadata({b"numsweeper": json.dumps(data).encode()}), path
        )
    else:
        result.to_csv(path)
        lines = path.read_text().splitlines()
        for key, value in meta.items():
            (i,) = [i for i, line in enumerate(lines) if line.startswith(f"# {key}: ")]
            lines[i] = f"# {key}: {json.dumps(value)}"
        path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("text", ["\u0667", "7_0", " 7", "7 ", "+ 7", "0x7", "7.0"])
def test_an_integer_must_be_plain_ascii_digits(
    run: ns.SimulationResult, tmp_path: Path, text: str
) -> None:
    # int() would take the first four as 7 or 70: a table holds only what
    # to_csv writes, so anything else is refused with the text named
    path = saved(run, tmp_path / "run.csv")
    lines = path.read_text().splitlines()
    row = lines[lines.index(HEADER) + 1].split(",")
    lines[lines.index(HEADER) + 1] = ",".join([row[0], row[1], row[2], text, *row[4:]])
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    refused(tmp_path / "bad.csv", f"row 0, column 'clicks' holds {text!r}, not an integer")


@pytest.mark.parametrize("text", ["1_0.5", " 0.5", "\u0661.\u0665", "0.5e", "nanx"])
def test_a_float_must_be_a_plain_ascii_decimal(
    run: ns.SimulationResult, tmp_path: Path, text: str
) -> None:
    path = saved(run, tmp_path / "run.csv")
    run.to_csv(tmp_path / "moves.csv", which="moves")
    moves = (tmp_path / "moves.csv").read_text().splitlines()
    first = next(i for i, line in enumerate(moves) if line.startswith("game,step"))
    assert moves[first].split(",")[7] == "probability"
    cells = moves[first + 1].split(",")
    cells[7] = text
    moves[first + 1] = ",".join(cells)
    (tmp_path / "moves.csv").write_text("\n".join(moves) + "\n")
    said = f"row 0, column 'probability' holds {text!r}, not a number"
    refused(path, said, moves=tmp_path / "moves.csv")


def test_the_reviewers_file_is_refused_before_replay(
    run: ns.SimulationResult, tmp_path: Path
) -> None:
    path = saved(run, tmp_path / "run.csv")
    lines = path.read_text().splitlines()
    lines[lines.index(HEADER) + 1] = "1e300,0,7,nan,15,8,1"
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    refused(tmp_path / "bad.csv", "row 0, column 'game' holds '1e300'")
    refused(saved(run, tmp_path / "c.csv", chunk_size=0), "chunk_size must be >= 1, got 0")
    refused(saved(run, tmp_path / "m.csv", rows="five"), "rows must be an integer, got 'five'")
    # what to_csv writes reads back exactly, won as 0 and 1
    again = ns.SimulationResult.from_csv(path)
    assert again.records.tobytes() == run.records.tobytes()
    assert {line.split(",")[2] for line in lines[lines.index(HEADER) + 2 :]} <= {"0", "1"}


@pytest.mark.parametrize(
    ("column", "text", "shown"),
    [
        ("game", "1e300", "'1e300'"),
        ("game", "99999999999999999999", "'99999999999999999999'"),
        ("clicks", "nan", "'nan'"),
        ("clicks", "2.7", "'2.7'"),
        ("three_bv", "", "''"),
        ("revealed", "3000000000", "3000000000, not an integer in -2147483648..2147483647"),
        ("won", "7", "7, not an integer in 0..1"),
        ("won", "-1", "-1, not an integer in 0..1"),
        ("won", "true", "'true'"),
    ],
)
def test_a_csv_value_that_does_not_fit_its_column(
    run: ns.SimulationResult, tmp_path: Path, column: str, text: str, shown: str
) -> None:
    path = saved(run, tmp_path / "run.csv")
    lines = path.read_text().splitlines()
    at = lines.index(HEADER) + 2  # row 1
    cells = lines[at].split(",")
    cells[HEADER.split(",").index(column)] = text
    lines[at] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    refused(path, f"row 1, column {column!r} holds {shown}")


def test_a_csv_row_of_the_wrong_length_and_a_bad_trace(
    run: ns.SimulationResult, tmp_path: Path
) -> None:
    path = saved(run, tmp_path / "run.csv")
    lines = path.read_text().splitlines()
    lines[lines.index(HEADER) + 3] += ",9"
    (tmp_path / "long.csv").write_text("\n".join(lines) + "\n")
    refused(tmp_path / "long.csv", "row 2 has 8 values, expected 7")
    run.to_csv(tmp_path / "moves.csv", which="moves")
    moves = (tmp_path / "moves.csv").read_text().splitlines()
    first = next(i for i, line in enumerate(moves) if line.startswith("game,step"))
    cells = moves[first + 1].split(",")
    cells[7] = "1e300"  # probability, a float32
    moves[first + 1] = ",".join(cells)
    (tmp_path / "moves.csv").write_text("\n".join(moves) + "\n")
    refused(path, "row 0, column 'probability' holds 1e+300", moves=tmp_path / "moves.csv")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_trace_must_be_the_records_own(
    run: ns.SimulationResult, tmp_path: Path, suffix: str
) -> None:
    # A trace credited to the wrong games gave wrong efficiency() figures, or a bare IndexError.
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    records = saved(run, tmp_path / f"run{suffix}")
    fewer = dataclasses.replace(run, records=run.records[run.records["game"] != 1])
    saved(fewer, tmp_path / f"fewer{suffix}")
    write = run.to_csv if suffix == ".csv" else run.to_parquet
    write(tmp_path / f"moves{suffix}", which="moves")
    moves = tmp_path / f"moves{suffix}"
    again = ns.SimulationResult.from_csv if suffix == ".csv" else ns.SimulationResult.from_parquet
    assert (
        ns.metrics.efficiency(again(records, moves=moves)).clicks == run.records["clicks"]
    ).all()
    first = int(np.flatnonzero(run.moves["game"] == 1)[0])
    refused(
        tmp_path / f"fewer{suffix}",
        f"row {first} holds a move of game 1, which the records do not hold",
        moves=moves,
    )
    other = dataclasses.replace(run, moves=run.moves[run.moves["game"] != 3])
    (other.to_csv if suffix == ".csv" else other.to_parquet)(
        tmp_path / f"m3{suffix}", which="moves"
    )
    clicks = int(run.records["clicks"][run.records["game"] == 3][0])
    refused(
        records,
        f"game 3 has 0 moves in the trace, but {clicks} clicks",
        moves=tmp_path / f"m3{suffix}",
    )


@pytest.mark.parametrize(
    ("column", "values", "shown"),
    [
        ("game", [1e300] + [1.0] * 19, "holds 1e+300"),
        ("game", [False] * 20, "holds False"),
        ("clicks", [None] + [1] * 19, "holds None"),
        ("clicks", [2**40] * 20, "holds 1099511627776, not an integer in -2147483648..2147483647"),
        ("clicks", ["1"] * 20, "holds '1'"),
        ("won", [7] + [0] * 19, "holds 7, not an integer in 0..1"),
    ],
)
def test_a_parquet_value_that_does_not_fit_its_column(
    run: ns.SimulationResult, tmp_path: Path, column: str, values: list[Any], shown: str
) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    path = saved(run, tmp_path / "run.parquet")
    table = parquet.read_table(path)
    at = table.column_names.index(column)
    parquet.write_table(table.set_column(at, column, pyarrow.array(values)), path)
    refused(path, f"row 0, column {column!r} {shown}")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize(
    ("meta", "said"),
    [
        ({"rows": "five"}, "rows must be an integer, got 'five'"),
        ({"rows": 0}, "rows must be >= 1, got 0"),
        ({"mines": 30}, "mines must be in 0..16 for a 5x5 board"),
        (
            {"first_click": "corner"},
            "first_click must be None ('none'), 'safe' or 'opening', got 'corner'",
        ),
        (
            {"seed": -1},
            SEED + "-1",
        ),
        (
            {"seed": [1, -2]},
            SEED + "(1, -2)",
        ),
        ({"seed": None}, "seed must be an integer >= 0 or a list of them, got None"),
        ({"seed": True}, "seed must be an integer >= 0 or a list of them, got True"),
        ({"spawn_key": [-1]}, "spawn_key must be >= 0, got -1"),
        ({"spawn_key": 3}, "spawn_key must be a list of integers >= 0, got 3"),
        ({"chunk_size": 0}, "chunk_size must be >= 1, got 0"),
        ({"chunk_size": 2.5}, "chunk_size must be an integer, got 2.5"),
        ({"requested": 5}, "requested must be >= 20, got 5"),
        ({"first_child": -1}, "first_child must be >= 0, got -1"),
        ({"pool_size": 2}, "pool_size must be >= 4, got 2"),
        ({"pool_size": 10**12}, "pool_size must be at most 65,536, got 1000000000000"),
        ({"interrupted": 0}, "interrupted must be true or false, got 0"),
        ({"policy_is_name": "yes"}, "policy_is_name must be true or false, got 'yes'"),
        ({"policy": "smart"}, "unknown policy 'smart'"),
        ({"policy": 3}, "policy must be a name, got 3"),
        ({"strategy": 3}, "strategy must be a name or null, got 3"),
        ({"elapsed": float("nan")}, "elapsed must be a number of seconds >= 0, got nan"),
        ({"startup": -1.0}, "startup must be a number of seconds >= 0, got -1.0"),
        ({"elapsed": "fast"}, "elapsed must be a number of seconds, got 'fast'"),
    ],
)
def test_a_bad_metadata_field(
    run: ns.SimulationResult, tmp_path: Path, suffix: str, meta: dict[str, Any], said: str
) -> None:
    refused(saved(run, tmp_path / f"run{suffix}", **meta), "metadata: " + said)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_good_metadata_and_records_that_disagree(
    run: ns.SimulationResult, tmp_path: Path, suffix: str
) -> None:
    # a callable's name is any name; "none" is the command line's first_click
    path = saved(run, tmp_path / f"ok{suffix}", policy="mine", policy_is_name=False)
    again = saved(run, tmp_path / f"ok2{suffix}", first_click="none")
    read = (
        ns.SimulationResult.from_parquet if suffix == ".parquet" else ns.SimulationResult.from_csv
    )
    assert read(path).policy == "mine" and read(again).first_click is None
    records = run.records.copy()
    records["chunk"][3] = 1  # game 3 is in chunk 0 of 10 games
    moved = dataclasses.replace(run, records=records)
    refused(saved(moved, tmp_path / f"moved{suffix}"), "row 3 holds game 3 in chunk 1")
    records = run.records.copy()
    records["game"][19] = 20  # past the 20 games requested
    refused(saved(dataclasses.replace(run, records=records), tmp_path / f"past{suffix}"),
            "row 19 holds game 20 in chunk 1, which a run of 20 games")  # fmt: skip
    fewer = dataclasses.replace(run, records=run.records[:0], requested=0)
    assert read(saved(fewer, tmp_path / f"none{suffix}")).games == 0


def test_parquet_metadata_that_is_not_json(run: ns.SimulationResult, tmp_path: Path) -> None:
    parquet = pytest.importorskip("pyarrow.parquet")
    path = saved(run, tmp_path / "run.parquet")
    table = parquet.read_table(path)
    for raw, said in [
        (b"{oops", "metadata is not valid JSON"),
        (b"[1, 2]", "no numsweeper simulation"),
    ]:
        parquet.write_table(table.replace_schema_metadata({b"numsweeper": raw}), path)
        refused(path, said)
    assert np.array_equal(
        ns.SimulationResult.from_parquet(saved(run, tmp_path / "ok.parquet")).records, run.records
    )


def test_a_file_that_is_not_parquet_at_all(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow.parquet")
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1 not really")
    refused(junk, "is not a Parquet file")


def test_a_csv_file_that_is_not_text(tmp_path: Path) -> None:
    binary = tmp_path / "junk.csv"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    refused(binary, "is not a UTF-8 text table")
    missing = tmp_path / "missing.csv"
    # (an unreadable file stays an OSError)
    with pytest.raises(FileNotFoundError, match=re.escape(f"'{missing}'")):
        ns.SimulationResult.from_csv(missing)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    # (opening a pipe with no writer would block forever)
    have_parquet = importlib.util.find_spec("pyarrow") is not None
    for name in ("run.csv", "run.parquet")[: 2 if have_parquet else 1]:
        os.mkfifo(tmp_path / name)
        words = re.escape(f"'{tmp_path / name}' is not a regular file")
        with pytest.raises(ns.InvalidBoardError, match=words):
            reader = "from_parquet" if name.endswith(".parquet") else "from_csv"
            getattr(ns.SimulationResult, reader)(tmp_path / name)


def test_metadata_nested_past_the_parser_is_our_error(
    run: ns.SimulationResult, tmp_path: Path
) -> None:
    deep = "[" * 100_000
    path = saved(run, tmp_path / "run.csv")
    text = path.read_text().replace("# rows: 5", f"# rows: {deep}")
    path.write_text(text)
    refused(path, "metadata line 'rows' is not valid JSON")
