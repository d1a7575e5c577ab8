"""Saved games: round trips, verification on load, bad files, fuzzing, size, old files."""

from __future__ import annotations

import copy
import io
import json
import os
import re
import stat
import struct
import tempfile
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zipfile import ZIP_DEFLATED

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import numsweeper as ns
from numsweeper import _validate, records
from reference import HAND_MINES, fixed_game
from zip_bombs import npy_claiming_header, one_member_zip

S = ns.GameState
DATA = Path(__file__).parent / "data"
WAYS = [".json", ".npz", "dict"]

# One character per visible code, for expected snapshots written by hand.
CODES = {"#": ns.HIDDEN, "F": ns.FLAG, "*": ns.MINE, "X": ns.EXPLODED, "!": ns.WRONG_FLAG, ".": 0}


def cells(text: str) -> np.ndarray:
    """The visible codes a triple-quoted grid shows."""
    rows = [line.strip() for line in text.strip().splitlines()]
    return np.array([[CODES.get(ch, ch) for ch in row] for row in rows], dtype=np.int8)


def header_of(path: Path) -> dict[str, Any]:
    """The header a saved file holds, read without the library."""
    if path.suffix == ".json":
        data: dict[str, Any] = json.loads(path.read_text())
        return data
    with np.load(path) as archive:
        header: dict[str, Any] = json.loads(archive["header"].tobytes())
        return header


def round_trip(game: ns.Game, how: str, folder: Path) -> tuple[ns.Game, float, float]:
    """The game saved and loaded ``how``, the elapsed time saved, and the clock before saving."""
    before = time.monotonic()
    if how == "dict":
        record = json.loads(json.dumps(game.to_dict()))
        return ns.Game.from_dict(record), record["elapsed"], before
    path = folder / f"game{how}"
    ns.save_game(game, path)
    return ns.load_game(path), header_of(path)["elapsed"], before


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A record without the fields that name the moment it was made."""
    return {k: v for k, v in record.items() if k not in ("saved_at", "elapsed")}


def assert_same_game(loaded: ns.Game, game: ns.Game, saved: float, before: float) -> None:
    assert loaded.snapshot() == game.snapshot()
    assert loaded.moves == game.moves  # kinds, cells and times
    assert loaded.state is game.state
    assert (loaded.rows, loaded.cols, loaded.mine_count) == (game.rows, game.cols, game.mine_count)
    assert loaded.first_click == game.first_click
    if game.board is None:
        assert loaded.board is None
    else:
        assert loaded.board is not None
        assert np.array_equal(loaded.board.mines, game.board.mines)
        assert np.array_equal(loaded.board.revealed, game.board.revealed)
        assert np.array_equal(loaded.board.flagged, game.board.flagged)
    ticking = game.state is S.IN_PROGRESS and any(m.kind == "reveal" for m in game.moves)
    if ticking:  # the clock resumes from the saved value
        assert saved <= loaded.elapsed <= saved + (time.monotonic() - before)
    else:
        assert loaded.elapsed == game.elapsed == saved


# -- games to save ---------------------------------------------------------------
#
# HAND_MINES on 4x4, with the counts:   * 1 . .
#                                       1 2 1 1
#                                       . 2 * 2
#                                       . 2 * 2


def hand_in_progress() -> ns.Game:
    game = fixed_game(4, 4, HAND_MINES)
    game.reveal(0, 3)  # floods the top right
    game.toggle_flag(0, 0)
    game.chord(0, 1)  # opens (1, 0)
    game.toggle_flag(2, 2)
    game.chord(1, 2)  # opens (2, 1) and (2, 3)
    game.toggle_flag(3, 3)
    game.toggle_flag(3, 3)  # on and off again
    assert (
        game.snapshot().cells.tolist()
        == cells(
            """
        F1..
        1211
        #2F2
        ####
        """
        ).tolist()
    )
    return game


def hand_won() -> ns.Game:
    game = hand_in_progress()
    game.reveal(3, 0)
    game.reveal(3, 3)
    assert game.state is S.WON
    return game


def hand_lost_by_reveal() -> ns.Game:
    game = hand_in_progress()
    game.reveal(3, 2)
    assert (
        game.snapshot().cells.tolist()
        == cells(
            """
        F1..
        1211
        #2F2
        ##X#
        """
        ).tolist()
    )
    return game


def hand_lost_by_chord() -> ns.Game:
    game = hand_in_progress()
    game.toggle_flag(3, 3)  # wrong: (3, 2) is the mine
    game.chord(2, 3)
    assert (
        game.snapshot().cells.tolist()
        == cells(
            """
        F1..
        1211
        #2F2
        ##X!
        """
        ).tolist()
    )
    return game


def hand_fresh() -> ns.Game:
    return fixed_game(4, 4, HAND_MINES)


def seeded(rule: str | None) -> Callable[[], ns.Game]:
    def make() -> ns.Game:
        game = ns.Game.new(9, 9, 10, seed=11, first_click=rule)
        game.toggle_flag(0, 0)
        game.reveal(4, 4)
        game.toggle_flag(0, 0)
        board = game.board
        assert board is not None
        mine = tuple(int(v) for v in np.argwhere(board.mines)[0])
        game.toggle_flag(*mine)
        return game

    return make


def unplaced() -> ns.Game:
    game = ns.Game.new(9, 9, 10, seed=5, first_click="safe")
    game.toggle_flag(0, 0)
    game.toggle_flag(8, 8)
    game.toggle_flag(0, 0)
    assert game.board is None
    return game


def unplaced_fixed() -> ns.Game:
    game = fixed_game(4, 4, HAND_MINES, first_click="safe")
    game.toggle_flag(1, 1)
    assert game.board is None
    return game


def board_start() -> ns.Game:
    board = ns.Board.create(4, 4, 3, ns.FixedPlacement(HAND_MINES))
    board.reveal(0, 3)
    board.toggle_flag(0, 0)
    game = ns.Game(board)
    game.chord(0, 1)  # opens (1, 0)
    game.toggle_flag(3, 2)
    return game


def board_start_won() -> ns.Game:
    board = ns.Board.create(1, 3, 1, ns.FixedPlacement([(0, 0)]))
    board.reveal(0, 2)  # clears the board before the game begins
    game = ns.Game(board)
    assert game.state is S.WON and game.moves == ()
    return game


def after_undo() -> ns.Game:
    game = hand_in_progress()
    game.undo()
    game.undo()
    game.toggle_flag(3, 0)  # a new move after undo
    game.undo()  # leaves one move to redo
    assert len(game.moves) == 5
    return game


def undone_first_reveal() -> ns.Game:
    game = ns.Game.new(9, 9, 10, seed=3, first_click="opening")
    game.reveal(4, 4)
    game.undo()  # keeps the mines it laid
    assert game.board is not None and game.moves == ()
    return game


GAMES: dict[str, Callable[[], ns.Game]] = {
    "fresh": hand_fresh,
    "in_progress": hand_in_progress,
    "won": hand_won,
    "lost_by_reveal": hand_lost_by_reveal,
    "lost_by_chord": hand_lost_by_chord,
    "first_click_none": seeded(None),
    "first_click_safe": seeded("safe"),
    "first_click_opening": seeded("opening"),
    "unplaced_random": unplaced,
    "unplaced_fixed": unplaced_fixed,
    "board_start": board_start,
    "board_start_won": board_start_won,
    "after_undo": after_undo,
    "undone_first_reveal": undone_first_reveal,
}


# -- round trips -----------------------------------------------------------------


@pytest.mark.parametrize("how", WAYS)
@pytest.mark.parametrize("name", GAMES)
def test_round_trip(name: str, how: str, tmp_path: Path) -> None:
    game = GAMES[name]()
    loaded, saved, before = round_trip(game, how, tmp_path)
    assert_same_game(loaded, game, saved, before)
    # Saving the loaded game writes the same record: nothing is lost on the
    # way (a strategy other than RandomPlacement is not needed once its
    # mines are laid, and comes back as None).
    expected = comparable(game.to_dict())
    if isinstance(game.strategy, ns.FixedPlacement) and game.board is not None:
        expected["strategy"] = None
    assert comparable(loaded.to_dict()) == expected


@pytest.mark.parametrize("how", WAYS)
@pytest.mark.parametrize("name", GAMES)
def test_loaded_game_plays_on_like_the_original(name: str, how: str, tmp_path: Path) -> None:
    game = GAMES[name]()
    loaded, _, _ = round_trip(game, how, tmp_path)
    for twin in (game, loaded):
        for row, col in [(3, 0), (3, 1), (1, 1), (0, 2)]:
            if twin.state is S.IN_PROGRESS:
                try:
                    twin.reveal(row, col)
                except ns.IllegalMoveError:
                    twin.toggle_flag(row, col)
    assert loaded.snapshot() == game.snapshot()
    assert [(m.kind, m.row, m.col) for m in loaded.moves] == [
        (m.kind, m.row, m.col) for m in game.moves
    ]
    if game.board is not None:
        assert loaded.board is not None
        assert np.array_equal(loaded.board.mines, game.board.mines)


@pytest.mark.parametrize("how", WAYS)
@pytest.mark.parametrize("rule", ["safe", "opening"])
@pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"])
def test_unplaced_game_lays_the_same_mines(
    rule: str, bit_generator: str, how: str, tmp_path: Path
) -> None:
    strategy = ns.RandomPlacement(np.random.Generator(getattr(np.random, bit_generator)(17)))
    game = ns.Game.new(16, 16, 40, strategy=strategy, first_click=rule)
    game.toggle_flag(15, 15)
    loaded, _, _ = round_trip(game, how, tmp_path)
    assert loaded.board is None
    assert loaded.to_dict()["strategy"] == game.to_dict()["strategy"]
    assert loaded.to_dict()["strategy"]["seed"] == 17
    for twin in (game, loaded):
        twin.reveal(7, 9)
    assert game.board is not None and loaded.board is not None
    assert np.array_equal(loaded.board.mines, game.board.mines)
    assert loaded.snapshot() == game.snapshot()


def test_unplaced_game_of_a_spawned_seed_records_no_seed(tmp_path: Path) -> None:
    (child,) = np.random.SeedSequence(5).spawn(1)
    game = ns.Game.new(9, 9, 10, seed=child, first_click="safe")
    record = game.to_dict()
    assert record["strategy"]["seed"] is None
    loaded = ns.Game.from_dict(record)
    assert loaded.to_dict()["strategy"] == record["strategy"]
    assert comparable(ns.Game.from_dict(loaded.to_dict()).to_dict()) == comparable(record)
    for twin in (game, loaded):
        twin.reveal(0, 0)
    assert game.board is not None and loaded.board is not None
    assert np.array_equal(loaded.board.mines, game.board.mines)


def test_placed_random_game_keeps_its_seed() -> None:
    game = ns.Game.new(9, 9, 10, seed=123)
    loaded = ns.Game.from_dict(game.to_dict())
    assert isinstance(loaded.strategy, ns.RandomPlacement)
    assert loaded.to_dict()["strategy"] == {"type": "RandomPlacement", "seed": 123}


def test_loaded_game_has_nothing_to_redo(tmp_path: Path) -> None:
    game = hand_in_progress()
    undone = game.undo()
    for how in WAYS:
        loaded, _, _ = round_trip(game, how, tmp_path)
        assert loaded.moves == game.moves
        with pytest.raises(ns.IllegalMoveError, match="nothing to redo"):
            loaded.redo()
    assert game.redo() == undone  # the original still can


@pytest.mark.parametrize("how", WAYS)
def test_finished_game_keeps_its_time(how: str, tmp_path: Path) -> None:
    game = hand_lost_by_chord()
    time.sleep(0.01)  # the clock of a finished game has stopped
    loaded, saved, _ = round_trip(game, how, tmp_path)
    time.sleep(0.01)
    assert loaded.elapsed == game.elapsed == saved >= 0
    assert loaded.snapshot().cells[3, 2] == ns.EXPLODED


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_in_progress_clock_resumes(suffix: str, tmp_path: Path) -> None:
    game = hand_in_progress()
    time.sleep(0.05)
    path = tmp_path / f"game{suffix}"
    ns.save_game(game, path)
    saved = header_of(path)["elapsed"]
    assert saved >= 0.05
    loaded = ns.load_game(path)
    first = loaded.elapsed
    time.sleep(0.05)
    assert saved <= first < loaded.elapsed  # still running
    loaded.reveal(3, 0)  # stamped after every recorded move
    assert loaded.moves[-1].time >= game.moves[-1].time + 0.05


def test_record_fields() -> None:
    game = fixed_game(2, 3, [(0, 0)], first_click="safe")
    game.reveal(0, 2)  # floods all but (1, 0)
    game.toggle_flag(0, 0)
    record = game.to_dict()
    assert list(record) == [
        "format",
        "version",
        "rows",
        "cols",
        "mines",
        "first_click",
        "strategy",
        "state",
        "mines_left",
        "hidden_safe",
        "cells_sha256",
        "elapsed",
        "saved_at",
        "mine_positions",
        "start",
        "moves",
    ]
    assert record["format"] == "numsweeper-game" and record["version"] == 1
    assert (record["rows"], record["cols"], record["mines"]) == (2, 3, 1)
    assert record["first_click"] == "safe"
    assert record["strategy"] == {"type": "FixedPlacement"}
    assert record["state"] == "in_progress"
    assert (record["mines_left"], record["hidden_safe"]) == (0, 1)
    assert record["mine_positions"] == [[0, 0]]
    assert record["start"] is None
    assert record["moves"] == [
        ["reveal", 0, 2, game.moves[0].time],
        ["flag", 0, 0, game.moves[1].time],
    ]
    assert 0 <= record["elapsed"] <= record["saved_at"] - record["moves"][0][3] + 1e-9
    assert json.loads(json.dumps(record)) == record


def test_start_position_is_recorded() -> None:
    record = board_start().to_dict()
    assert record["start"] == {
        "revealed": [[0, 1], [0, 2], [0, 3], [1, 1], [1, 2], [1, 3]],
        "flagged": [[0, 0]],
    }
    assert record["strategy"] is None and record["first_click"] is None


def test_npz_members(tmp_path: Path) -> None:
    path = tmp_path / "game.npz"
    ns.save_game(board_start(), path)
    with np.load(path) as archive:
        assert sorted(archive.files) == sorted(records._NPZ_MEMBERS)
        assert archive["move_kind"].tolist() == [2, 1]  # chord, flag
        layout = np.unpackbits(archive["mines"], count=16).reshape(4, 4)
        assert np.argwhere(layout).tolist() == [[0, 0], [2, 2], [3, 2]]


# -- property: random boards, random moves ------------------------------------------

KEEP = {None: 1, "safe": 1, "opening": 9}


@given(data=st.data())
def test_round_trip_property(data: st.DataObject) -> None:
    rows, cols = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7))
    mines = data.draw(st.integers(0, rows * cols - 1))
    rule = data.draw(st.sampled_from([None, "safe", "opening"]))
    if rows * cols - mines < KEEP[rule]:
        rule = None
    game = ns.Game.new(rows, cols, mines, seed=data.draw(st.integers(0, 2**32)), first_click=rule)
    actions = st.tuples(
        st.sampled_from(["reveal", "toggle_flag", "chord", "undo", "redo"]),
        st.integers(-1, rows),
        st.integers(-1, cols),
    )
    for action, row, col in data.draw(st.lists(actions, max_size=25)):
        try:
            if action in ("undo", "redo"):
                getattr(game, action)()
            else:
                getattr(game, action)(row, col)
        except ns.MinesweeperError:
            pass  # refused: not a move
    with tempfile.TemporaryDirectory() as folder:
        for how in WAYS:
            loaded, saved, before = round_trip(game, how, Path(folder))
            assert_same_game(loaded, game, saved, before)
    if game.board is None:  # both lay the same mines at the same first click
        row, col = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1))
        for twin in (game, loaded):
            if twin.snapshot().cells[row, col] == ns.FLAG:
                twin.toggle_flag(row, col)
            twin.reveal(row, col)
        assert loaded.board is not None and game.board is not None
        assert np.array_equal(loaded.board.mines, game.board.mines)
        assert loaded.snapshot() == game.snapshot()


# -- bad files ----------------------------------------------------------------------


def good_record(make: Callable[[], ns.Game] = hand_in_progress) -> dict[str, Any]:
    """A valid record, as JSON gives it back."""
    data: dict[str, Any] = json.loads(json.dumps(make().to_dict()))
    return data


def npy(array: np.ndarray, *, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def npz_members(make: Callable[[], ns.Game] = hand_in_progress) -> dict[str, bytes]:
    """The members of a saved .npz, name to .npy bytes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.npz"
        ns.save_game(make(), path)
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in archive.namelist()}


def write_zip(
    path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED
) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def header_member(header: dict[str, Any]) -> bytes:
    return npy(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))


def header_in(members: dict[str, bytes]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(np.load(io.BytesIO(members["header.npy"])).tobytes())
    return data


def refused_everywhere(record: dict[str, Any], match: str, folder: Path) -> None:
    """``record`` is refused, with ``match``, by from_dict and as a .json file."""
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.Game.from_dict(record)
    path = folder / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(path)


# Header fields: (field, value or DELETE, message).
DELETE = object()
HEADER_CASES = [
    ("version", 2, "unknown numsweeper-game version 2; this numsweeper reads version 1"),
    ("version", 0, "unknown numsweeper-game version 0"),
    ("version", "1", "unknown numsweeper-game version '1'"),
    ("version", True, "unknown numsweeper-game version True"),
    ("version", DELETE, "unknown numsweeper-game version None"),
    ("format", "chess", "not a numsweeper game: format is 'chess'"),
    ("format", DELETE, "not a numsweeper game: format is None"),
    ("rows", "4", "rows must be an integer, got '4'"),
    ("cols", 4.0, "cols must be an integer, got 4.0"),
    ("mines", True, "mines must be an integer, got True"),
    ("rows", DELETE, "the saved game has no 'rows' field"),
    ("rows", 0, "the board must be at least 1x1, got 0x4"),
    ("mines", 16, r"mines must be in 0\.\.15 for a 4x4 board, got 16"),
    ("mines", -1, r"mines must be in 0\.\.15 for a 4x4 board, got -1"),
    ("mines", 2, "the layout holds 3 mines, but mines=2"),
    ("first_click", "always", "first_click must be null, 'safe' or 'opening', got 'always'"),
    ("first_click", 1, "first_click must be a string or null, got 1"),
    ("strategy", "RandomPlacement", "strategy must be an object or null"),
    ("strategy", {"type": 5}, "strategy.type must be a string, got 5"),
    ("state", "paused", "state must be one of in_progress, won, lost, got 'paused'"),
    ("state", "won", "do not reproduce the recorded game: state is IN_PROGRESS, the file says WON"),
    ("mines_left", 2, "do not reproduce the recorded game: mines_left is 1, the file says 2"),
    ("mines_left", 1.0, "mines_left must be an integer, got 1.0"),
    ("hidden_safe", 3, "do not reproduce the recorded game: hidden_safe is 4, the file says 3"),
    (
        "cells_sha256",
        "0" * 64,
        "do not reproduce the recorded game: cells_sha256 is '[0-9a-f]{64}'",
    ),
    ("cells_sha256", None, "cells_sha256 must be a string, got None"),
    ("elapsed", -1.0, "elapsed must be a finite number >= 0, got -1.0"),
    ("elapsed", 10**400, "elapsed must be a finite number >= 0, got 1000000000"),
    ("elapsed", float("inf"), "elapsed must be a finite number >= 0, got inf"),
    ("elapsed", float("nan"), "elapsed must be a finite number >= 0, got nan"),
    ("saved_at", "soon", "saved_at must be an integer or a number, got 'soon'"),
]


@pytest.mark.parametrize(
    ("field", "value", "match"),
    HEADER_CASES,
    ids=[f"{field}={value!r}"[:32] for field, value, _ in HEADER_CASES],
)
def test_bad_header_field(field: str, value: Any, match: str, tmp_path: Path) -> None:
    record = good_record()
    if value is DELETE:
        del record[field]
    else:
        record[field] = value
    refused_everywhere(record, match, tmp_path)
    members = npz_members()
    header = header_in(members)
    if value is DELETE:
        del header[field]
    else:
        header[field] = value
    members["header.npy"] = header_member(header)
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(write_zip(tmp_path / "bad.npz", members))


@pytest.mark.parametrize("delta", [1.0, -1e-9])
def test_tampered_elapsed(delta: float, tmp_path: Path) -> None:
    record = good_record()
    record["elapsed"] += delta
    refused_everywhere(record, "elapsed is .*, but the moves and saved_at give", tmp_path)


def test_saved_at_before_the_last_move(tmp_path: Path) -> None:
    # Consistent with its elapsed, but the clock would resume before the
    # last move: moves made after loading would be stamped earlier than it.
    record = good_record()
    record["saved_at"] = record["moves"][-1][3] / 2
    record["elapsed"] = max(0.0, record["saved_at"] - record["moves"][0][3])
    refused_everywhere(record, "saved_at is .*, earlier than the last move at", tmp_path)


TIME = "<the move's own time>"


def set_move(index: int, value: Any) -> Callable[[dict[str, Any]], None]:
    """Replace a move; a ``TIME`` in it stands for the replaced move's time."""

    def edit(record: dict[str, Any]) -> None:
        when = record["moves"][index][3]
        if isinstance(value, list):
            record["moves"][index] = [when if v == TIME else v for v in value]
        else:
            record["moves"][index] = value

    return edit


def set_field(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        record[name] = value

    return edit


def swap_times(record: dict[str, Any]) -> None:
    moves = record["moves"]
    moves[1][3], moves[2][3] = moves[2][3], moves[1][3]


def reveal_the_flag(record: dict[str, Any]) -> None:
    # After flag (0, 0) at index 1, reveal it; then it goes on as saved.
    record["moves"].insert(2, ["reveal", 0, 0, record["moves"][1][3]])


BODY_CASES = [
    (set_field("mine_positions", [[0, 0], [0, 0], [2, 2]]), r"mine_positions names \(0, 0\) twice"),
    (set_field("mine_positions", [[0, 0], [2, 2], [4, 2]]), r"names \(4, 2\), off the 4x4 board"),
    (set_field("mine_positions", [[0, 0], [2, -1], [3, 2]]), r"names \(2, -1\), off the 4x4"),
    (set_field("mine_positions", [[0.0, 0], [2, 2], [3, 2]]), r"integer pairs, got \[0\.0, 0\]"),
    (set_field("mine_positions", [[True, 0], [2, 2], [3, 2]]), r"integer pairs, got \[True, 0\]"),
    (set_field("mine_positions", [[0, 0, 0], [2, 2], [3, 2]]), r"integer pairs, got \[0, 0, 0\]"),
    (set_field("mine_positions", [[0, 0], [2, 2]]), "the layout holds 2 mines, but mines=3"),
    (set_field("mine_positions", {"0": 0}), r"mine_positions must be a list or null, got \{"),
    (set_field("moves", "reveal 0 3"), "moves must be a list, got 'reveal 0 3'"),
    (
        set_move(0, ["reveal", 1.0, 3, TIME]),
        "move 0 is not a move: row must be an integer, got 1.0",
    ),
    (
        set_move(0, ["reveal", 0, 3.0, TIME]),
        "move 0 is not a move: col must be an integer, got 3.0",
    ),
    (set_move(0, ["reveal", False, 3, TIME]), "move 0 is not a move: row must be an integer"),
    (set_move(0, ["reveal", 0, 3]), r"move 0 must be \[kind, row, col, time\], got \['reveal'"),
    (set_move(0, {"kind": "reveal"}), r"move 0 must be \[kind, row, col, time\]"),
    (set_move(0, [1, 0, 3, TIME]), "move 0 has kind 1, not a string"),
    (set_move(0, ["dig", 0, 3, TIME]), "move 0 is not a move: move kind must be one of"),
    (set_move(0, ["reveal", 0, 3, -0.5]), "move 0 is not a move: move time must be finite"),
    (set_move(0, ["reveal", 0, 3, True]), "move 0 is not a move: move time must be a number"),
    (set_move(0, ["reveal", 0, 3, 10**400]), "move 0 is not a move: int too large to convert"),
    (
        set_move(0, ["reveal", 4, 0, TIME]),
        r"move 0 \(reveal 4 0\) is refused: row 4 is off the board",
    ),
    (set_move(0, ["reveal", 0, -1, TIME]), r"move 0 \(reveal 0 -1\) is refused: col -1 is off the"),
    (set_move(0, ["flag", 10**30, 0, TIME]), r"move 0 \(flag 1000000000000000000000000000000 0\)"),
    (set_move(-1, ["reveal", 3, 2, TIME]), "do not reproduce the recorded game: state is LOST"),
    (reveal_the_flag, r"move 2 \(reveal 0 0\) is refused: cannot reveal flagged cell \(0, 0\)"),
    (swap_times, "move 2 is earlier than move 1"),
    (set_field("start", [[0, 0]]), r"start must be an object or null, got \[\[0, 0\]\]"),
    (set_field("start", {"revealed": []}), "the saved game has no 'start.flagged' field"),
    (
        set_field("start", {"revealed": [[0, 0]], "flagged": [[0, 0]]}),
        "the start position flags a revealed cell",
    ),
    (set_field("start", {"revealed": [], "flagged": [[9, 9]]}), r"start\.flagged names \(9, 9\)"),
]


@pytest.mark.parametrize(("edit", "match"), BODY_CASES, ids=[m[:40] for _, m in BODY_CASES])
def test_bad_body(edit: Callable[[dict[str, Any]], None], match: str, tmp_path: Path) -> None:
    record = good_record()
    edit(record)
    refused_everywhere(record, match, tmp_path)


@pytest.mark.parametrize("kind", ["reveal", "flag", "chord"])
def test_move_after_the_end(kind: str, tmp_path: Path) -> None:
    for make, state in [(hand_won, "WON"), (hand_lost_by_chord, "LOST")]:
        record = good_record(make)
        record["moves"].append([kind, 3, 3, record["moves"][-1][3]])
        match = rf"move 9 \({kind} 3 3\) is refused: .* the game is already {state}"
        refused_everywhere(record, match, tmp_path)


def test_not_a_record(tmp_path: Path) -> None:
    for value, name in [([1, 2], "list"), ("game", "str"), (None, "NoneType"), (3, "int")]:
        with pytest.raises(ns.InvalidGameFileError, match=f"must be a JSON object, got {name}"):
            ns.Game.from_dict(value)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(value))
        with pytest.raises(ns.InvalidGameFileError, match=f"must be a JSON object, got {name}"):
            ns.load_game(path)


@pytest.mark.parametrize("cut", [0, 1, 100, 0.5, -3, -2])
def test_truncated_json(cut: float, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    ns.save_game(hand_in_progress(), path)
    data = path.read_bytes()
    path.write_bytes(data[: int(cut * len(data)) if isinstance(cut, float) else cut])
    with pytest.raises(ns.InvalidGameFileError, match=r"game\.json is not valid JSON"):
        ns.load_game(path)


def test_json_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(ns.InvalidGameFileError, match=r"game\.json is not valid JSON: 'utf-8'"):
        ns.load_game(path)
    path.write_bytes(b"[" * 100_000)
    with pytest.raises(ns.InvalidGameFileError, match=r"game\.json is not valid JSON"):
        ns.load_game(path)


@pytest.mark.parametrize("cut", [0, 4, 100, 0.5, -22, -1])
def test_truncated_npz(cut: float, tmp_path: Path) -> None:
    path = tmp_path / "game.npz"
    ns.save_game(hand_in_progress(), path)
    data = path.read_bytes()
    path.write_bytes(data[: int(cut * len(data)) if isinstance(cut, float) else cut])
    with pytest.raises(ns.InvalidGameFileError, match=r"game\.npz is not an \.npz archive"):
        ns.load_game(path)


def test_memory_limit_counts_moves_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A machine of 1 GiB: 10 million moves (about 3 GB as Move objects in a
    # Game, 320 bytes each) are refused from the .npy header, before their
    # data is read.
    monkeypatch.setattr(_validate, "memory_bytes", lambda: 1 << 30)
    members = npz_members()
    buffer = io.BytesIO()
    header = {"descr": "|u1", "fortran_order": False, "shape": (10**7,)}
    np.lib.format.write_array_header_1_0(buffer, header)
    members["move_kind.npy"] = buffer.getvalue()
    match = f"move_kind.npy claims 10000000 items, more than {2**30 // 320}"
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(write_zip(tmp_path / "moves.npz", members))
    # And a board of 5e8 cells needs 2 GB at 4 bytes per cell.
    record = good_record()
    record.update(rows=1000, cols=500_000, mine_positions=[])
    match = (
        "bad board: a 1000x500000 board needs 4 bytes per cell, "
        "more than the 1.1 GB this process may use"
    )
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.Game.from_dict(record)


@pytest.mark.parametrize(
    ("begun", "memory", "match"),
    [
        (False, 300, "loading the 8000x8000 board takes about 14 bytes per cell"),
        (True, 500, "8000x8000 board with a start position takes about 17 bytes per cell"),
    ],
)
def test_a_board_that_fits_but_cannot_be_loaded_is_refused_first(
    monkeypatch: pytest.MonkeyPatch, begun: bool, memory: int, match: str
) -> None:
    # A game of 8,000 x 8,000 cells takes 4 bytes a cell (256 MB: it fits),
    # but loading one peaks near 14 (its layout unpacked beside it and the
    # flood's labels), or 17 with a start position: refused from the header,
    # before any allocation.
    monkeypatch.setattr(_validate, "memory_bytes", lambda: memory * 2**20)
    record = good_record()
    record.update(rows=8000, cols=8000, mine_positions=[])
    if begun:
        record["start"] = {"revealed": [], "flagged": []}
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match=match):
            ns.Game.from_dict(record)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    assert _validate.check_board(8000, 8000, 0) == (8000, 8000, 0, None)  # (the game fits)


@pytest.mark.parametrize("side", [10**6, 10**9, 10**30])
def test_huge_board_is_refused_before_allocating(side: int, tmp_path: Path) -> None:
    record = good_record()
    record.update(rows=side, cols=side, mine_positions=[])
    members = npz_members()
    header = header_in(members)
    header.update(rows=side, cols=side)
    members["header.npy"] = header_member(header)
    path = write_zip(tmp_path / "huge.npz", members)
    match = f"a {side}x{side} board needs 4 bytes per cell, more than the [0-9.]+ GB this process"
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match=match):
            ns.Game.from_dict(record)
        with pytest.raises(ns.InvalidGameFileError, match=match):
            ns.load_game(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


# -- bad .npz archives ------------------------------------------------------------------


def test_a_header_claiming_gigabytes_is_read_in_bounded_memory(tmp_path: Path) -> None:
    # numpy reads a .npy header whole before checking its length, and zipfile
    # inflates one read in one piece: a 30 KB member declaring 5 MB, whose
    # header claims 2 GiB, made load_game hold 30 MB (and 1,000 times its
    # size in general). The header is now read a chunk at a time, 64 KB at
    # the most.
    path = tmp_path / "bomb.npz"
    bomb = one_member_zip("header.npy", npy_claiming_header(30_000_000), ZIP_DEFLATED, 5_000_000)
    path.write_bytes(bomb)
    assert path.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match="header longer than 65,536 bytes"):
            ns.load_game(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak


class Detonator:
    """Pickles as a call that makes a directory: proof that a pickle ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (os.mkdir, (str(self.marker),))


@pytest.mark.parametrize(
    ("member", "match"),
    [
        ("move_time.npy", "move_time.npy must be a 1-D float64 array, got object"),
        ("header.npy", "header.npy must be a 1-D uint8 array, got object"),
        ("mines.npy", "mines.npy must be a 1-D uint8 array, got object"),
        ("payload.npy", "holds an unexpected member 'payload.npy'"),
    ],
)
def test_pickled_member_never_runs(member: str, match: str, tmp_path: Path) -> None:
    def payload(marker: Path) -> bytes:
        return npy(np.array([Detonator(marker)], dtype=object), allow_pickle=True)

    # The payload is live: unpickling it makes its marker.
    proof = tmp_path / "proof"
    np.load(io.BytesIO(payload(proof)), allow_pickle=True)
    assert proof.is_dir()

    marker = tmp_path / "marker"
    members = npz_members()
    members[member] = payload(marker)
    path = write_zip(tmp_path / "evil.npz", members)
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(path)
    assert not marker.exists()


def edit_members(make: Callable[[dict[str, bytes]], None]) -> Callable[[], dict[str, bytes]]:
    def members() -> dict[str, bytes]:
        found = npz_members(board_start)
        make(found)
        return found

    return members


def drop(name: str) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        del members[name]

    return edit


def put(name: str, array: Any) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        members[name] = npy(np.asarray(array))

    return edit


def chop(name: str, count: int) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        members[name] = members[name][:-count]

    return edit


def grow(name: str, count: int) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        members[name] = members[name] + bytes(count)

    return edit


def npy_version(name: str, major: int) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        data = bytearray(members[name])
        data[6] = major
        members[name] = bytes(data)

    return edit


def corrupt_magic(name: str) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        members[name] = b"\x00" + members[name][1:]

    return edit


def claim(name: str, count: int) -> Callable[[dict[str, bytes]], None]:
    """An .npy header claiming ``count`` items, with a few bytes of data."""

    def edit(members: dict[str, bytes]) -> None:
        buffer = io.BytesIO()
        header = {"descr": "|u1", "fortran_order": False, "shape": (count,)}
        np.lib.format.write_array_header_1_0(buffer, header)
        members[name] = buffer.getvalue() + b"\0" * 8

    return edit


def raw_header(name: str, text: bytes) -> Callable[[dict[str, bytes]], None]:
    """An .npy member whose header is ``text``, padded as numpy pads it."""

    def edit(members: dict[str, bytes]) -> None:
        body = text + b" " * (63 - len(text) % 64) + b"\n"
        members[name] = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body

    return edit


# board_start: a 4x4 board with a start position and two moves (chord, flag).
NPZ_CASES = [
    (drop("header.npy"), "game.npz has no header"),
    (drop("move_time.npy"), "game.npz has no move_time"),
    (drop("move_kind.npy"), "game.npz has no move_kind"),
    (drop("start_flagged.npy"), "game.npz holds only half of a start position"),
    (drop("mines.npy"), "a game without a first-click rule needs its mine layout"),
    (put("notes.npy", [1, 2]), "game.npz holds an unexpected member 'notes.npy'"),
    (put("move_row.npy", np.array([0, 3], np.int32)), "move_row.npy must be a 1-D int64 array"),
    (put("move_row.npy", np.array([0, 3], ">i8")), r"move_row.npy must be a 1-D int64 array"),
    (put("move_col.npy", [1.0, 2.0]), "move_col.npy must be a 1-D int64 array, got float64"),
    (put("move_time.npy", [1, 2]), "move_time.npy must be a 1-D float64 array, got int64"),
    (put("mines.npy", np.ones(2, bool)), "mines.npy must be a 1-D uint8 array, got bool"),
    (put("mines.npy", np.ones((1, 2), np.uint8)), r"must be a 1-D uint8 array, got uint8 \(1, 2\)"),
    (put("mines.npy", np.array([128], np.uint8)), "mines holds 1 bytes, but a 4x4 board packs"),
    (put("start_revealed.npy", np.zeros(1, np.uint8)), "start_revealed holds 1 bytes, but a"),
    (put("start_flagged.npy", np.zeros(3, np.uint8)), "start_flagged.npy claims 3 items, more"),
    (put("move_col.npy", [1]), "the move arrays differ in length: 2, 2, 1, 2"),
    (put("move_kind.npy", np.array([2, 3], np.uint8)), "move 1 has kind code 3, not one of 0..2"),
    (put("move_row.npy", [0, -1]), r"move 1 \(flag -1 2\) is refused: row -1 is off the board"),
    (put("move_time.npy", [0.5, np.nan]), "move 1 is not a move: move time must be finite"),
    (put("header.npy", np.frombuffer(b"{'x': 1}", np.uint8)), "header is not valid JSON"),
    (put("header.npy", np.frombuffer(b"[1]", np.uint8)), "must be a JSON object, got list"),
    (chop("move_time.npy", 3), "move_time.npy claims 2 items, more than its 141 bytes can hold"),
    (grow("move_time.npy", 3), "move_time.npy holds more than the 16 bytes of data"),
    (chop("header.npy", 200), "header.npy"),
    (npy_version("move_row.npy", 3), r"move_row.npy has .npy version \(3, 0\), expected"),
    (npy_version("move_row.npy", 9), r"move_row.npy has .npy version \(9, 0\)"),
    (corrupt_magic("move_row.npy"), "move_row.npy is damaged: the magic string is not correct"),
    (claim("move_kind.npy", 10**12), "move_kind.npy claims 1000000000000 items, more than"),
    # numpy parses the header with ast.literal_eval, which can fail in tokenize.
    (raw_header("move_row.npy", b"{'descr': \n"), "move_row.npy is damaged"),
    (raw_header("move_row.npy", b"(" * 200), "move_row.npy is damaged"),
    (claim("header.npy", 1 << 30), "header.npy claims 1073741824 items, more than 16777216"),
]


@pytest.mark.parametrize(("members", "match"), [(edit_members(e), m) for e, m in NPZ_CASES])
def test_bad_npz(members: Callable[[], dict[str, bytes]], match: str, tmp_path: Path) -> None:
    path = write_zip(tmp_path / "game.npz", members())
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(path)


@pytest.mark.parametrize(
    ("compression", "method"), [(zipfile.ZIP_BZIP2, 12), (zipfile.ZIP_LZMA, 14)]
)
def test_npz_of_another_compression(compression: int, method: int, tmp_path: Path) -> None:
    path = write_zip(tmp_path / "game.npz", npz_members(), compression)
    match = f"member 'header.npy' is encrypted or compressed with method {method}"
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(path)


def patched(data: bytes, signature: bytes, offset: int, value: bytes) -> bytes:
    """``data`` with ``value`` written ``offset`` bytes into every zip record of ``signature``."""
    out = bytearray(data)
    start = out.find(signature)
    assert start >= 0
    while start >= 0:
        out[start + offset : start + offset + len(value)] = value
        start = out.find(signature, start + 1)
    return bytes(out)


LOCAL, CENTRAL = b"PK\x03\x04", b"PK\x01\x02"


@pytest.mark.parametrize(
    ("signature", "offset", "value", "match"),
    [
        (CENTRAL, 6, struct.pack("<H", 99), "not an .npz archive: zip file version 9.9"),
        (CENTRAL, 8, struct.pack("<H", 1), "is encrypted or compressed with method 8"),
        (CENTRAL, 8, struct.pack("<H", 0x20), r"is damaged: compressed patched data"),
        (CENTRAL, 8, struct.pack("<H", 0x40), r"is damaged: strong encryption"),
        (CENTRAL, 16, b"\0\0\0\0", "is damaged: Bad CRC-32"),
        (LOCAL, 26, struct.pack("<H", 2), "is damaged: File name in directory"),
    ],
    ids=["version", "encrypted", "patched", "strong-encryption", "crc", "name"],
)
def test_damaged_zip(
    signature: bytes, offset: int, value: bytes, match: str, tmp_path: Path
) -> None:
    path = tmp_path / "game.npz"
    ns.save_game(hand_in_progress(), path)
    path.write_bytes(patched(path.read_bytes(), signature, offset, value))
    with pytest.raises(ns.InvalidGameFileError, match=match):
        ns.load_game(path)


# -- strategies of games whose mines are not laid -------------------------------------


def strategy_of(record: dict[str, Any]) -> dict[str, Any]:
    strategy: dict[str, Any] = record["strategy"]
    return strategy


UNPLACED_CASES: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (
        lambda r: r.update(strategy={"type": "MyPlacement", "seed": 1}),
        "cannot restore strategy 'MyPlacement': only RandomPlacement with a generator state",
    ),
    (
        lambda r: strategy_of(r).pop("state"),
        "cannot restore strategy 'RandomPlacement'",
    ),
    (lambda r: r.update(strategy=None), "a game whose mines are not laid needs its strategy"),
    (lambda r: r.update(strategy={}), "strategy.type must be a string, got None"),
    (
        lambda r: strategy_of(r).update(seed="5"),
        r"strategy.seed must be null or an integer in 0\.\.2\*\*14000 - 1, got '5'",
    ),
    (lambda r: strategy_of(r).update(seed=-5), r"strategy.seed .* got -5"),
    (
        lambda r: strategy_of(r).update(seed=2**14_000),
        r"strategy.seed .* got an integer of 14,001 bits",
    ),
    (
        lambda r: strategy_of(r)["state"].update(bit_generator="Xoshiro256"),
        "unknown bit generator 'Xoshiro256'",
    ),
    (lambda r: strategy_of(r)["state"].update(state="x"), "bad generator state"),
    (lambda r: strategy_of(r)["state"].pop("state"), "bad generator state"),
    (lambda r: strategy_of(r)["state"]["state"].update(inc=-1), "bad generator state"),
    (lambda r: r.update(first_click=None), "without a first-click rule needs its mine layout"),
    (
        lambda r: r.update(start={"revealed": [], "flagged": []}),
        "a game begun on a played board needs its mine layout",
    ),
]


#: Generator states that numpy takes without a check: out-of-range positions
#: read and write outside the generator's memory (a crash), and a state that
#: never moves on makes laying the mines loop forever.
EVIL_STATES: list[tuple[dict[str, Any], str]] = [
    (
        {"bit_generator": "MT19937", "state": {"key": [1] * 624, "pos": 1_000_000}},
        r"state\.pos must be an integer in 0\.\.624, got 1000000",
    ),
    (
        {
            "bit_generator": "Philox",
            "state": {"counter": [0] * 4, "key": [0] * 2},
            "buffer": [0] * 4,
            "buffer_pos": -100_000_000,
            "has_uint32": 0,
            "uinteger": 0,
        },
        r"buffer_pos must be an integer in 0\.\.4, got -100000000",
    ),
    (
        {"bit_generator": "MT19937", "state": {"key": [0] * 624, "pos": 624}},
        "state.key is zero",
    ),
    (  # (MT19937 uses only the top bit of the first word)
        {"bit_generator": "MT19937", "state": {"key": [2**31 - 1] + [0] * 623, "pos": 624}},
        "state.key is zero",
    ),
    (
        {"bit_generator": "PCG64", "state": {"state": 0, "inc": 2}, "has_uint32": 0, "uinteger": 0},
        "state.inc must be odd, got 2",
    ),
    (
        {
            "bit_generator": "SFC64",
            "state": {"state": [1, 2, 3, 2**64]},
            "has_uint32": 0,
            "uinteger": 0,
        },
        r"state\.state must be 4 integers in 0\.\.18446744073709551615",
    ),
    (
        {
            "bit_generator": "SFC64",
            "state": {"state": [1, 2, 3, 4]},
            "has_uint32": 0,
            "uinteger": 0,
            "x": 1,
        },
        "it must hold the fields",
    ),
]


@pytest.mark.parametrize(("state", "match"), EVIL_STATES)
def test_generator_states_are_checked_before_use(
    state: dict[str, Any], match: str, tmp_path: Path
) -> None:
    record = good_record(unplaced)
    strategy_of(record)["state"] = state
    refused_everywhere(record, "bad generator state: " + match, tmp_path)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
@pytest.mark.parametrize("kind", ["MT19937", "PCG64", "PCG64DXSM", "Philox", "SFC64"])
def test_every_generator_kind_lays_the_same_mines_after_a_round_trip(
    kind: str, suffix: str, tmp_path: Path
) -> None:
    generator = getattr(np.random, kind)(5)
    generator.random_raw(3)  # (mid-stream: MT19937's pos, Philox's buffer)
    strategy = ns.RandomPlacement(np.random.Generator(generator))
    strategy.rng.integers(0, 10, dtype=np.uint32)  # (PCG64 and SFC64: has_uint32)
    game = ns.Game.new(9, 9, 10, strategy=strategy, first_click="safe")
    path = tmp_path / f"waiting{suffix}"
    ns.save_game(game, path)
    loaded = ns.load_game(path)
    game.reveal(4, 4)
    loaded.reveal(4, 4)
    assert np.array_equal(loaded.snapshot().cells, game.snapshot().cells)
    assert loaded.to_dict()["mine_positions"] == game.to_dict()["mine_positions"]


@pytest.mark.parametrize(("edit", "match"), UNPLACED_CASES)
def test_bad_unplaced_strategy(
    edit: Callable[[dict[str, Any]], None], match: str, tmp_path: Path
) -> None:
    record = good_record(unplaced)
    edit(record)
    refused_everywhere(record, match, tmp_path)


def test_bad_unplaced_fixed_placement(tmp_path: Path) -> None:
    record = good_record(unplaced_fixed)
    assert strategy_of(record) == {
        "type": "FixedPlacement",
        "mine_positions": [[0, 0], [2, 2], [3, 2]],
    }
    wrong = copy.deepcopy(record)
    strategy_of(wrong)["mine_positions"] = [[0, 0], [2, 2]]
    refused_everywhere(wrong, "strategy.mine_positions names 2 mines, but mines=3", tmp_path)
    wrong = copy.deepcopy(record)
    strategy_of(wrong)["mine_positions"] = [[0, 0], [2, 2], [2, 2]]
    refused_everywhere(wrong, r"strategy.mine_positions names \(2, 2\) twice", tmp_path)
    # The first reveal lands on a fixed mine that the rule keeps safe.
    wrong = copy.deepcopy(record)
    wrong["moves"].append(["reveal", 0, 0, record["moves"][-1][3]])
    match = r"move 1 \(reveal 0 0\) is refused: fixed layout puts a mine on \(0, 0\)"
    refused_everywhere(wrong, match, tmp_path)


class Corner(ns.MinePlacementStrategy):
    """Mines along the top row: a strategy no file can describe."""

    def place(
        self, rows: int, cols: int, mines: int, *, safe: np.ndarray | None = None
    ) -> np.ndarray:
        layout = np.zeros((rows, cols), dtype=bool)
        layout.flat[:mines] = True
        return layout


def test_save_refuses_an_unplaced_game_it_cannot_describe(tmp_path: Path) -> None:
    game = ns.Game.new(4, 4, 2, strategy=Corner(), first_click="safe")
    for suffix in (".json", ".npz"):
        with pytest.raises(ns.InvalidBoardError, match="cannot save this game: its mines are not"):
            ns.save_game(game, tmp_path / f"game{suffix}")
    assert list(tmp_path.iterdir()) == []  # nothing half-written
    game.reveal(3, 3)  # once laid, the mines are saved
    loaded, saved, before = round_trip(game, ".json", tmp_path)
    assert_same_game(loaded, game, saved, before)
    assert loaded.strategy is None and loaded.to_dict()["strategy"] is None


# -- paths -------------------------------------------------------------------------------


def test_file_names(tmp_path: Path) -> None:
    game = hand_in_progress()
    with pytest.raises(
        ns.InvalidBoardError, match=r"must end in \.json or \.npz, got '.*game\.txt'"
    ):
        ns.save_game(game, tmp_path / "game.txt")
    with pytest.raises(ns.InvalidGameFileError, match=r"must end in \.json or \.npz"):
        ns.load_game(tmp_path / "game.pickle")
    with pytest.raises(TypeError, match="save_game needs a Game, got dict"):
        ns.save_game(game.to_dict(), tmp_path / "game.json")  # type: ignore[arg-type]
    for suffix in (".JSON", ".Npz"):
        ns.save_game(game, tmp_path / f"game{suffix}")
        assert ns.load_game(tmp_path / f"game{suffix}").moves == game.moves


def test_unreadable_paths_raise_os_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(FileNotFoundError, match=re.escape(f"'{missing}'")):
        ns.load_game(missing)
    (tmp_path / "folder.npz").mkdir()
    with pytest.raises(OSError, match=re.escape(f"'{tmp_path / 'folder.npz'}'")):
        ns.load_game(tmp_path / "folder.npz")
    # A save names the file asked for, not the temporary one it writes first,
    # and leaves no temporary file behind.
    folder = tmp_path / "no" / "such"
    with pytest.raises(FileNotFoundError, match=re.escape(f"'{folder / 'game.json'}'")):
        ns.save_game(hand_in_progress(), folder / "game.json")
    with pytest.raises(IsADirectoryError, match=re.escape(f"'{tmp_path / 'folder.npz'}'")):
        ns.save_game(hand_in_progress(), tmp_path / "folder.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["folder.npz"]


def test_save_replaces_a_file_whole_with_usual_permissions(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("")
    path = tmp_path / "game.json"
    ns.save_game(hand_fresh(), path)
    ns.save_game(hand_won(), path)
    assert ns.load_game(path).state is S.WON
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "plain.txt"]
    # The umask decides, as for any new file (not a private temporary file's 0o600).
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


# -- fuzzing -----------------------------------------------------------------------------


def assert_consistent(game: ns.Game, folder: Path) -> None:
    """A game a damaged file gave is still a game: its own record loads back the same."""
    for how in WAYS:
        again, _, _ = round_trip(game, how, folder)
        assert again.snapshot() == game.snapshot()
        assert again.moves == game.moves
        assert again.state is game.state


def mutated(data: bytes, rng: np.random.Generator) -> bytes:
    """``data`` after one to three random edits: flips, new bytes, cuts, inserts, copies."""
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        at = int(rng.integers(0, len(out) + 1))
        op = int(rng.integers(0, 6))
        if op == 0 and at < len(out):
            out[at] ^= 1 << int(rng.integers(0, 8))
        elif op == 1 and at < len(out):
            out[at] = int(rng.integers(0, 256))
        elif op == 2:
            del out[at:]
        elif op == 3:
            out[at:at] = rng.bytes(int(rng.integers(1, 9)))
        elif op == 4:
            end = at + int(rng.integers(1, 65))
            out[at:at] = out[at:end]
        else:
            del out[at : at + int(rng.integers(1, 17))]
    return bytes(out)


def unplaced_on(name: str) -> Callable[[], ns.Game]:
    """A game waiting for its first click, on one of numpy's bit generators."""

    def make() -> ns.Game:
        generator = np.random.Generator(getattr(np.random, name)(7))
        game = ns.Game.new(6, 7, 5, strategy=ns.RandomPlacement(generator), first_click="safe")
        game.toggle_flag(1, 1)
        return game

    make.__name__ = f"unplaced_{name}"
    return make


# Every bit generator's state: each checks a bad state in its own way.
FUZZ_GAMES = [
    hand_in_progress,
    hand_lost_by_chord,
    unplaced,
    board_start,
    *(unplaced_on(name) for name in ("MT19937", "Philox", "SFC64", "PCG64DXSM")),
]


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_byte_fuzz(suffix: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(20240611)
    sources = [(DATA / f"game_v1{suffix}").read_bytes()]
    for make in FUZZ_GAMES:
        path = tmp_path / f"source{suffix}"
        ns.save_game(make(), path)
        sources.append(path.read_bytes())
    target = tmp_path / f"fuzzed{suffix}"
    loaded = refused = 0
    for i in range(1500):
        target.write_bytes(mutated(sources[i % len(sources)], rng))
        try:
            game = ns.load_game(target)
        except ns.InvalidGameFileError as exc:
            assert str(exc)  # names what is wrong
            refused += 1
            continue
        loaded += 1
        assert_consistent(game, tmp_path)
    # Most damage is caught; some is harmless (JSON spacing, zip metadata).
    assert refused > 1200 and loaded + refused == 1500


JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([-1, 0, 1, 2, 3, 4, 16, 2**31, 2**63, 10**30, 10**400]),
    st.floats(),
    st.text(max_size=6),
    st.sampled_from(["reveal", "flag", "chord", "won", "lost", "in_progress", "safe", "opening"]),
    st.sampled_from(["RandomPlacement", "FixedPlacement", "PCG64", "MT19937", "numsweeper-game"]),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path into a JSON value, the value itself included."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths_in(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths_in(item, (*prefix, index))
    return found


def edited(record: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    if not path:
        return value
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return record


@settings(max_examples=400)
@given(data=st.data())
def test_structural_fuzz(data: st.DataObject) -> None:
    make = data.draw(st.sampled_from(FUZZ_GAMES))
    record: Any = good_record(make)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths_in(record)))
        # A value from elsewhere in the record is plausible but wrong in a new place.
        elsewhere = [copy.deepcopy(_at(record, p)) for p in paths_in(record)]
        value = data.draw(JSON_VALUES | st.sampled_from(elsewhere))
        record = edited(record, path, value, bool(path) and data.draw(st.booleans()))
    try:
        game = ns.Game.from_dict(record)
    except ns.InvalidGameFileError as exc:
        assert str(exc)
        event("refused")
        return
    event("loaded")
    with tempfile.TemporaryDirectory() as folder:
        assert_consistent(game, Path(folder))


def _at(record: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        record = record[key]
    return record


# -- size on disk --------------------------------------------------------------------------


def test_large_game_is_compact(tmp_path: Path) -> None:
    side = 2000
    game = ns.Game.new(side, side, round(0.206 * side * side), seed=8, first_click="opening")
    game.reveal(side // 2, side // 2)
    board = game.board
    assert board is not None
    for row, col in np.argwhere(board.mines[:40, :40]).tolist():
        game.toggle_flag(row, col)
    assert game.state is S.IN_PROGRESS and len(game.moves) > 100
    path = tmp_path / "large.npz"
    ns.save_game(game, path)
    assert path.stat().st_size <= 0.3 * side * side
    loaded = ns.load_game(path)
    assert loaded.snapshot() == game.snapshot() and loaded.moves == game.moves


# -- version 1 files ------------------------------------------------------------------------
#
# tests/data/game_v1.json and game_v1.npz were written once by format version 1
# (numsweeper 0.1.0) with time.monotonic replaced by a clock that the script
# advanced by hand, so the times are exact.  Keep them: every later version
# must still read them and give these games.
#
# game_v1.json: Game.new(16, 16, 40, seed=2024, first_click="opening"), the
# moves below, saved 4 seconds after the last.
# game_v1.npz: a 9x9 Board on V1_NPZ_MINES after board.reveal(0, 4) and
# board.toggle_flag(0, 0), played as ns.Game(board), lost by a chord next to a
# wrong flag, saved 10 seconds later.

V1_JSON_MINES = [
    (0, 6), (0, 11), (1, 4), (2, 8), (2, 10), (2, 11), (3, 7), (4, 6), (4, 9), (5, 8),
    (5, 13), (5, 15), (6, 0), (6, 2), (6, 7), (6, 12), (6, 15), (7, 1), (7, 2), (7, 13),
    (7, 14), (8, 3), (9, 6), (9, 10), (9, 13), (10, 3), (11, 4), (12, 6), (12, 8), (13, 2),
    (13, 8), (13, 12), (14, 1), (14, 3), (14, 8), (14, 12), (14, 15), (15, 0), (15, 1), (15, 9),
]  # fmt: skip
V1_JSON_MOVES = [
    ns.Move("flag", 0, 0, 0.5),
    ns.Move("flag", 0, 0, 1.5),
    ns.Move("reveal", 8, 8, 3.0),
    ns.Move("flag", 9, 10, 5.0),
    ns.Move("chord", 9, 9, 5.75),
    ns.Move("flag", 9, 6, 7.0),
    ns.Move("chord", 9, 7, 7.5),
    ns.Move("reveal", 12, 10, 10.5),
    ns.Move("reveal", 8, 8, 10.75),
    ns.Move("flag", 0, 15, 11.75),
]
V1_JSON_CELLS = """
    ###############F
    ################
    ################
    ################
    ################
    #########211####
    ########21.1####
    #######11..1####
    ######11.111##31
    ######F1.1F###1.
    ######11.111111.
    #######211......
    #########2.111..
    #########3.2#211
    #########312####
    ################
"""
V1_NPZ_MINES = [(0, 0), (0, 8), (2, 4), (4, 1), (4, 7), (5, 5), (6, 3), (7, 6), (8, 0), (8, 8)]
V1_NPZ_MOVES = [
    ns.Move("flag", 7, 6, 1.0),
    ns.Move("reveal", 8, 3, 3.0),
    ns.Move("flag", 4, 0, 4.5),
    ns.Move("chord", 3, 0, 5.0),
]
V1_NPZ_CELLS = """
    F1.....1*
    11.111.11
    ...1*1...
    1111#1111
    !X#####*#
    #####*###
    ###*#####
    #11111F##
    *1...1##*
"""


def test_version_1_json_fixture() -> None:
    path = DATA / "game_v1.json"
    assert header_of(path)["version"] == 1
    before = time.monotonic()
    game = ns.load_game(path)
    assert (game.rows, game.cols, game.mine_count, game.first_click) == (16, 16, 40, "opening")
    assert list(game.moves) == V1_JSON_MOVES
    assert game.state is S.IN_PROGRESS
    snap = game.snapshot()
    assert snap.mines_left == 37
    assert snap.cells.tolist() == cells(V1_JSON_CELLS).tolist()
    assert game.board is not None
    assert [tuple(p) for p in np.argwhere(game.board.mines).tolist()] == V1_JSON_MINES
    assert game.board.hidden_safe == 156
    assert 12.75 <= game.elapsed <= 12.75 + (time.monotonic() - before)
    assert game.to_dict()["strategy"] == {"type": "RandomPlacement", "seed": 2024}
    game.reveal(15, 15)  # the game goes on
    assert game.moves[-1].time >= 15.75


def test_version_1_npz_fixture() -> None:
    path = DATA / "game_v1.npz"
    assert header_of(path)["version"] == 1
    game = ns.load_game(path)
    assert (game.rows, game.cols, game.mine_count, game.first_click) == (9, 9, 10, None)
    assert list(game.moves) == V1_NPZ_MOVES
    assert game.state is S.LOST
    assert game.elapsed == 2.0
    snap = game.snapshot()
    assert snap.mines_left == 7
    assert snap.cells.tolist() == cells(V1_NPZ_CELLS).tolist()
    assert game.board is not None
    assert [tuple(p) for p in np.argwhere(game.board.mines).tolist()] == V1_NPZ_MINES
    hidden = {(0, 0), (0, 8), (2, 4), (3, 4)}
    assert game.to_dict()["start"] == {
        "revealed": [[r, c] for r in range(4) for c in range(9) if (r, c) not in hidden],
        "flagged": [[0, 0]],
    }
    assert game.strategy is None
    # Taking back the losing chord shows the position before it.
    assert game.undo() == V1_NPZ_MOVES[-1]
    before = game.snapshot()
    assert before.state is S.IN_PROGRESS and before.cells[4, 0] == ns.FLAG


def test_a_short_mt19937_key_is_a_bad_file() -> None:
    # MT19937 checks its state with an IndexError, not a ValueError.
    data = unplaced_on("MT19937")().to_dict()
    data["strategy"]["state"]["state"]["key"] = data["strategy"]["state"]["state"]["key"][:5]
    with pytest.raises(ns.InvalidGameFileError, match="bad generator state"):
        ns.Game.from_dict(data)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_devices_and_pipes_are_refused_before_they_are_opened(tmp_path: Path) -> None:
    # /dev/zero never ends; opening a pipe with no writer blocks forever.
    endless = tmp_path / "endless.json"
    endless.symlink_to("/dev/zero")
    pipe = tmp_path / "pipe.npz"
    os.mkfifo(pipe)
    for path in (endless, pipe):
        with pytest.raises(ns.InvalidGameFileError, match=f"{path.name}' is not a regular file"):
            ns.load_game(path)


@pytest.mark.parametrize(("suffix", "share"), [(".json", 40), (".npz", 4)])
def test_a_file_past_its_share_of_memory_is_refused_unread(
    suffix: str, share: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A .json game takes about 32 bytes of memory per byte of file while it
    # loads, an .npz one's members are checked again as they unpack.
    path = tmp_path / f"game{suffix}"
    ns.save_game(hand_in_progress(), path)
    size = path.stat().st_size
    monkeypatch.setattr(_validate, "memory_bytes", lambda: share * (size - 1))
    said = (
        f"game{suffix} holds {size:,} bytes, more than the {size - 1:,} a {suffix} game "
        f"may take (1/{share} of the memory this process may use)"
    )
    with pytest.raises(ns.InvalidGameFileError, match=re.escape(said)):
        ns.load_game(path)
    monkeypatch.setattr(_validate, "memory_bytes", lambda: share * size)
    assert ns.load_game(path).snapshot() == hand_in_progress().snapshot()
