"""numsweeper.datasets: labelled positions, their sampling, reproducibility and files."""

from __future__ import annotations

import json
import os
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper.datasets import Positions, iter_positions, load_positions, positions
from reference import adjacent_counts
from zip_bombs import npy_claiming_header, one_member_zip


def first_hidden(
    visible: NDArray[np.int8], mines_left: NDArray[np.int64], rng: np.random.Generator
) -> NDArray[np.intp]:
    """A deterministic policy: the first hidden cell in raster order."""
    k, _, cols = visible.shape
    flat = (visible == ns.HIDDEN).reshape(k, -1).argmax(axis=1)
    return np.stack(np.divmod(flat, cols), axis=1)


def same(a: Positions, b: Positions) -> bool:
    return all(
        np.array_equal(getattr(a, name), getattr(b, name), equal_nan=name == "probabilities")
        for name in ("visible", "probabilities", "mines", "game", "move", "exact")
    )


@pytest.fixture(scope="module")
def solver_positions() -> Positions:
    return positions(400, 9, 9, 10, seed=1, sample="move", chunk_size=50)


def test_arrays_to_train_on(solver_positions: Positions) -> None:
    data = solver_positions
    assert len(data) == 400
    assert data.visible.shape == data.probabilities.shape == data.mines.shape == (400, 9, 9)
    assert (data.visible.dtype, data.probabilities.dtype, data.mines.dtype) == (
        np.int8,
        np.float32,
        np.bool_,
    )
    hidden = data.visible == ns.HIDDEN
    assert set(np.unique(data.visible).tolist()) <= {*range(9), int(ns.HIDDEN)}
    assert np.isnan(data.probabilities[~hidden]).all()
    p = data.probabilities[hidden]
    assert ((p >= 0) & (p <= 1)).all()
    assert data.exact.all()
    assert (data.mines.sum(axis=(1, 2)) == 10).all()


def test_positions_are_true_to_their_games(solver_positions: Positions) -> None:
    data = solver_positions
    for visible, mines in zip(data.visible, data.mines, strict=True):
        revealed = visible >= 0
        assert not (mines & revealed).any()
        counts = np.array(adjacent_counts(mines.tolist()))
        np.testing.assert_array_equal(visible[revealed], counts[revealed])
        # in progress, after the first reveal: revealed cells, and safe cells left
        assert revealed.any() and (~revealed).sum() > 10


def test_probabilities_are_the_solvers(solver_positions: Positions) -> None:
    data = solver_positions
    for i in range(0, len(data), 37):
        expected = ns.solver.analyze(data.visible[i], 10).probabilities.astype(np.float32)
        np.testing.assert_array_equal(data.probabilities[i], expected)


def test_probabilities_are_calibrated() -> None:
    # One position per game, so that positions are independent.
    data = positions(600, 9, 9, 10, seed=3, chunk_size=200)
    hidden = data.visible == ns.HIDDEN
    p, mine = data.probabilities[hidden].astype(np.float64), data.mines[hidden]
    # certain cells are certain
    assert not mine[p == 0].any() and mine[p == 1].all()
    # and the uncertain ones hold as many mines as they promise, within noise
    middle = (p > 0) & (p < 1)
    surplus = float((mine[middle] - p[middle]).sum())
    assert abs(surplus) < 5 * np.sqrt(float((p[middle] * (1 - p[middle])).sum()))
    # likelier cells are mines more often
    low, high = middle & (p < 0.2), middle & (p > 0.5)
    assert mine[low].mean() < 0.2 < 0.5 < mine[high].mean()


def test_move_sampling_keeps_every_position_in_order(solver_positions: Positions) -> None:
    data = solver_positions
    assert (np.diff(data.game) >= 0).all()
    for game in np.unique(data.game)[:-1]:  # the last one may be cut
        moves = data.move[data.game == game]
        np.testing.assert_array_equal(moves, np.arange(1, len(moves) + 1))


def test_game_sampling_keeps_one_uniform_position_per_game() -> None:
    # The same seed plays the same games under either sample, so 'move' tells
    # how many positions each game had, and 'game' which one it kept.
    every = positions(3000, 9, 9, 10, seed=8, sample="move", policy="random", chunk_size=500)
    one = positions(300, 9, 9, 10, seed=8, sample="game", policy="random", chunk_size=500)
    assert len(np.unique(one.game)) == 300 and (np.diff(one.game) > 0).all()
    lengths = np.bincount(every.game, minlength=one.game.max() + 1)
    games = one.game[one.game <= every.game.max() - 1]
    length = lengths[games]
    chosen = one.move[np.isin(one.game, games)]
    assert ((chosen >= 1) & (chosen <= length)).all()
    # each kept move is uniform on 1..length: mean (length + 1) / 2, variance (length² - 1) / 12
    z = (chosen - (length + 1) / 2).sum() / np.sqrt(((length**2 - 1) / 12).sum())
    assert abs(z) < 4
    for game, move in zip(games[:30], chosen[:30], strict=False):
        row = np.flatnonzero((every.game == game) & (every.move == move))
        np.testing.assert_array_equal(every.visible[row[0]], one.visible[one.game == game][0])


def test_reproducible_from_the_seed_and_chunked() -> None:
    a = positions(120, 16, 16, 40, seed=5, chunk_size=40)
    assert same(a, positions(120, 16, 16, 40, seed=np.random.SeedSequence(5), chunk_size=40))
    assert not same(a, positions(120, 16, 16, 40, seed=6, chunk_size=40))
    chunks = list(iter_positions(120, 16, 16, 40, seed=5, chunk_size=40))
    assert sum(len(c) for c in chunks) == 120
    np.testing.assert_array_equal(np.concatenate([c.visible for c in chunks]), a.visible)
    # chunk 1 is a function of child 1 of the root alone
    root = np.random.SeedSequence(5)
    root.spawn(1)
    alone = next(iter_positions(40, 16, 16, 40, seed=root, chunk_size=40))
    np.testing.assert_array_equal(alone.visible, chunks[1].visible)
    np.testing.assert_array_equal(alone.game + 40, chunks[1].game)
    assert a.seed == 5 and a.chunk_size == 40


def test_the_command_line_spelling_none_is_no_rule(tmp_path: Path) -> None:
    # 'none' was kept as a string, and the file the result wrote was refused
    data = positions(3, 9, 9, 10, seed=0, first_click="none", policy="random")
    assert data.first_click is None
    expected = positions(3, 9, 9, 10, seed=0, first_click=None, policy="random")
    np.testing.assert_array_equal(data.visible, expected.visible)
    data.to_npz(tmp_path / "none.npz")
    assert load_positions(tmp_path / "none.npz").first_click is None


def test_fresh_entropy_is_recorded() -> None:
    a = positions(5, 9, 9, 10, seed=None, policy="random")
    assert not isinstance(a.seed, tuple) and a.seed > 0
    assert same(a, positions(5, 9, 9, 10, seed=a.seed, policy="random"))


def test_a_callable_policy_plays() -> None:
    data = positions(30, 9, 9, 10, seed=2, policy=first_hidden, first_click="safe")
    assert data.policy == "first_hidden" and data.first_click == "safe"
    assert len(data) == 30


def test_no_positions() -> None:
    data = positions(0, 9, 9, 10, seed=0)
    assert len(data) == 0 and data.probabilities.shape == (0, 9, 9)


def test_npz_round_trip_without_pickle(tmp_path: Path, solver_positions: Positions) -> None:
    path = tmp_path / "positions.npz"
    solver_positions.to_npz(path)
    with np.load(path, allow_pickle=False) as raw:
        assert {"visible", "probabilities", "mines", "meta"} <= set(raw.files)
    back = load_positions(path)
    assert same(back, solver_positions)
    for name in ("rows", "cols", "mine_count", "first_click", "policy", "sample", "seed"):
        assert getattr(back, name) == getattr(solver_positions, name)
    solver_positions.to_npz(tmp_path / "plain.npz", compressed=False)
    assert same(load_positions(tmp_path / "plain.npz"), solver_positions)


@pytest.mark.parametrize("seed", [[], [1, 2], 2**100, np.int64(3)])
def test_every_seed_the_writer_takes_reads_back(tmp_path: Path, seed: Any) -> None:
    made = positions(3, 5, 5, 3, seed=seed, policy="random")
    made.to_npz(tmp_path / "p.npz")
    back = load_positions(tmp_path / "p.npz")
    assert same(back, made) and back.seed == made.seed


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.npz")  # (opening it with no writer would block forever)
    with pytest.raises(ns.InvalidGameFileError, match=r"pipe\.npz' is not a regular file"):
        load_positions(tmp_path / "pipe.npz")


def test_load_refuses_other_files(tmp_path: Path, solver_positions: Positions) -> None:
    np.savez(tmp_path / "other.npz", visible=solver_positions.visible)
    with pytest.raises(ns.InvalidGameFileError, match=r"other\.npz' is not a positions file"):
        load_positions(tmp_path / "other.npz")
    solver_positions.to_npz(tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz") as good:
        arrays = {name: good[name] for name in good.files}
    arrays["mines"] = arrays["mines"].astype(np.int64)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(
        ns.InvalidGameFileError, match=r"bad.npz': mines is int64 \(400, 9, 9\), expected bool"
    ):
        load_positions(tmp_path / "bad.npz")
    arrays["meta"] = np.array('{"format": 99}')
    np.savez(tmp_path / "future.npz", **arrays)
    with pytest.raises(ns.InvalidGameFileError, match=r"future\.npz' has an unknown format"):
        load_positions(tmp_path / "future.npz")
    np.save(tmp_path / "plain.npy", solver_positions.visible)
    with pytest.raises(ns.InvalidGameFileError, match=r"plain\.npy' is not an \.npz archive"):
        load_positions(tmp_path / "plain.npy")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04junk")
    with pytest.raises(ns.InvalidGameFileError, match=r"junk\.npz' is damaged: File is not a zip"):
        load_positions(tmp_path / "junk.npz")
    with pytest.raises(FileNotFoundError, match=re.escape(f"'{tmp_path / 'missing.npz'}'")):
        load_positions(tmp_path / "missing.npz")


ARRAYS = ("visible", "probabilities", "mines", "game", "move", "exact")


@pytest.fixture(scope="module")
def small_arrays() -> dict[str, Any]:
    """The arrays of a small positions file, and its meta as a dict."""
    data = positions(5, 5, 5, 3, seed=0, policy="random")
    arrays: dict[str, Any] = dict(vars(data))
    meta = {"format": 1} | {key: arrays.pop(key) for key in list(arrays) if key not in ARRAYS}
    return arrays | {"meta": meta}


def with_meta(**changes: Any) -> dict[str, Any]:
    return {"meta": changes}


def hidden_probability(arrays: dict[str, Any]) -> NDArray[np.float32]:
    p = arrays["probabilities"].copy()
    p[0][arrays["visible"][0] == ns.HIDDEN] = 1.5
    return p


def revealed_probability(arrays: dict[str, Any]) -> NDArray[np.float32]:
    p = arrays["probabilities"].copy()
    p[0][arrays["visible"][0] >= 0] = 0.25
    return p


def bad_visible(arrays: dict[str, Any]) -> NDArray[np.int8]:
    v = arrays["visible"].copy()
    v[0, 0, 0] = 100
    return v


def extra_mine(arrays: dict[str, Any]) -> NDArray[np.bool_]:
    m = arrays["mines"].copy()
    m[2] = True
    return m


def flag_shown(arrays: dict[str, Any]) -> NDArray[np.int8]:
    v = arrays["visible"].copy()
    r, c = np.argwhere(v[1] == ns.HIDDEN)[0]
    v[1, r, c] = ns.FLAG
    return v


def moved_mine(arrays: dict[str, Any]) -> NDArray[np.bool_]:
    """Position 0's mines moved one cell on: the numbers it shows no longer fit."""
    return np.concatenate([np.roll(arrays["mines"][:1], 1, axis=2), arrays["mines"][1:]])


# (what to change, what the error says): None in meta drops the key.
BAD_FILES: list[tuple[dict[str, Any], str]] = [
    (with_meta(seed=None), "meta has no 'seed'"),
    (with_meta(chunk_size=None), "meta has no 'chunk_size'"),
    (with_meta(format=True), "has an unknown format: {'format': True"),
    (with_meta(format="1"), "has an unknown format"),
    (with_meta(rows=5.0), "bad board: rows must be an integer, got 5.0"),
    (with_meta(rows=0), "bad board: rows must be >= 1, got 0"),
    (with_meta(cols=True), "bad board: cols must be an integer, got True"),
    (with_meta(mine_count=25), "bad board: mines must be in 0..16 .* got 25"),
    (with_meta(first_click="bogus"), "bad board: first_click must be .* got 'bogus'"),
    (with_meta(first_click=3), "bad board: first_click must be .* got 3"),
    (with_meta(first_click="none"), "meta 'first_click' must be null, .* got 'none'"),
    (with_meta(policy=7), "meta 'policy' must be a string, got 7"),
    (with_meta(sample=7), r"meta 'sample' must be one of \('game', 'move'\), got 7"),
    (with_meta(sample="all"), "meta 'sample' must be one of .* got 'all'"),
    (with_meta(seed=-1), "meta 'seed' must be an integer >= 0 or a list of them, got -1"),
    (with_meta(seed=[1, -2]), r"meta 'seed' must be .* got \[1, -2\]"),
    (with_meta(seed=True), "meta 'seed' must be .* got True"),
    (with_meta(seed="0"), "meta 'seed' must be .* got '0'"),
    (with_meta(chunk_size=0), "meta 'chunk_size' must be an integer >= 1, got 0"),
    (with_meta(chunk_size=2.5), "meta 'chunk_size' must be an integer >= 1, got 2.5"),
    ({"meta": "{"}, "meta is not valid JSON"),
    ({"meta": "[1, 2]"}, r"has an unknown format: \[1, 2\]"),
    ({"meta": np.array(5)}, r"meta must be a JSON text, got int64 of shape \(\)"),
    ({"visible": bad_visible}, r"visible cell \(0, 0\) of game 0 holds 100, not a count"),
    ({"visible": lambda a: a["visible"][:4]}, r"probabilities is float32 \(5, 5, 5\), expected"),
    ({"visible": lambda a: a["visible"][0]}, r"visible is int8 \(5, 5\), expected int8"),
    ({"mines": lambda a: a["mines"][:, :4]}, r"mines is bool \(5, 4, 5\), expected bool \(5,"),
    ({"game": lambda a: a["game"][:3]}, r"game is int64 \(3,\), expected int64 \(5,\)"),
    ({"exact": lambda a: a["exact"].astype(np.int8)}, "exact is int8 .* expected bool"),
    ({"probabilities": hidden_probability}, r"probabilities\[0, .* is 1.5 where the cell shows -1"),
    ({"probabilities": revealed_probability}, r"probabilities\[0, .* is 0.25 where the cell"),
    ({"mines": extra_mine}, "position 2 has 25 mines, not 3"),
    ({"visible": flag_shown}, r"position 1 shows a flag, which games that only reveal never"),
    ({"mines": moved_mine}, r"position 0 shows \d where its layout has (a mine|\d mines around)"),
    ({"game": lambda a: a["game"] - 3}, r"game\[0\] is -3, below 0"),
    ({"move": lambda a: a["move"] * 0}, r"move\[0\] is 0, below 1"),
    ({"move": None}, "is not a positions file: no 'move'"),
]


@pytest.mark.parametrize(("change", "match"), BAD_FILES, ids=[m for _, m in BAD_FILES])
def test_load_refuses_bad_files(
    tmp_path: Path, small_arrays: dict[str, Any], change: dict[str, Any], match: str
) -> None:
    arrays = {name: value for name, value in small_arrays.items() if name != "meta"}
    meta = dict(small_arrays["meta"])
    for name, value in change.items():
        if name == "meta" and isinstance(value, dict):
            meta = {k: v for k, v in (meta | value).items() if v is not None}
        elif name == "meta":
            meta = value
        elif value is None:
            del arrays[name]
        else:
            arrays[name] = value(small_arrays)
    text = meta if not isinstance(meta, dict) else json.dumps(meta)
    path = tmp_path / "bad.npz"
    np.savez(path, meta=np.array(text), **arrays)
    with pytest.raises(ns.InvalidGameFileError, match=rf"bad\.npz':? {match}"):
        load_positions(path)


def test_the_small_file_itself_loads(tmp_path: Path, small_arrays: dict[str, Any]) -> None:
    # the file that test_load_refuses_bad_files damages is good as it is
    arrays = {name: value for name, value in small_arrays.items() if name != "meta"}
    np.savez(tmp_path / "good.npz", meta=np.array(json.dumps(small_arrays["meta"])), **arrays)
    data = load_positions(tmp_path / "good.npz")
    assert len(data) == 5 and data.sample == "game" and data.seed == 0
    for name in ("rows", "cols", "mine_count", "first_click", "policy", "chunk_size"):
        assert getattr(data, name) == small_arrays["meta"][name]


UNPICKLED: list[str] = []


class Payload:
    """An object whose unpickling would leave a mark."""

    def __reduce__(self) -> tuple[Any, ...]:
        return UNPICKLED.append, ("unpickled",)


def test_load_never_unpickles(tmp_path: Path, small_arrays: dict[str, Any]) -> None:
    arrays = {name: value for name, value in small_arrays.items() if name != "meta"}
    arrays["game"] = np.array([Payload()] * 5, dtype=object)
    np.savez(tmp_path / "pickle.npz", meta=np.array(json.dumps(small_arrays["meta"])), **arrays)
    with pytest.raises(
        ns.InvalidGameFileError, match=r"pickle\.npz': game\.npy holds object: Object"
    ):
        load_positions(tmp_path / "pickle.npz")
    assert UNPICKLED == []


def test_a_file_that_unpacks_past_memory_is_refused_unread(
    tmp_path: Path, small_arrays: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A few compressed kilobytes can claim megabytes (or gigabytes): the
    # sizes the archive declares are checked against a quarter of memory
    # before any member is unpacked.
    import tracemalloc

    from numsweeper import datasets

    arrays = {name: value for name, value in small_arrays.items() if name != "meta"}
    meta = np.array(json.dumps(small_arrays["meta"]))
    good, bomb = tmp_path / "good.npz", tmp_path / "bomb.npz"
    np.savez_compressed(good, meta=meta, **arrays)
    np.savez_compressed(bomb, meta=meta, **(arrays | {"probabilities": np.zeros(6_000_000)}))
    assert bomb.stat().st_size < 200_000  # 48 MB of zeros, compressed
    monkeypatch.setattr(datasets, "memory_bytes", lambda: 40_000_000)  # a quarter: 10 MB
    assert len(load_positions(good)) == 5
    tracemalloc.start()
    try:
        with pytest.raises(
            ns.InvalidGameFileError,
            match=r"bomb\.npz' unpacks to 48,00\d,\d{3} bytes, more than a quarter of the "
            r"memory this process may use \(10,000,000\)",
        ):
            load_positions(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak


@pytest.mark.parametrize(
    ("payload", "method", "declared", "match"),
    [
        # bzip2 unpacks a whole block however little the member declares
        (b"\x93NUMPY" + bytes(30_000_000), zipfile.ZIP_BZIP2, 128, "compressed with method 12"),
        # numpy reads a header whole, in one read that zipfile inflates at once
        (npy_claiming_header(30_000_000), zipfile.ZIP_DEFLATED, 5_000_000, "header longer than"),
    ],
    ids=["bzip2", "header"],
)
def test_members_that_unpack_past_their_declared_size_are_refused_unread(
    tmp_path: Path, payload: bytes, method: int, declared: int, match: str
) -> None:
    import tracemalloc

    bomb = tmp_path / "bomb.npz"
    bomb.write_bytes(one_member_zip("meta.npy", payload, method, declared))
    assert bomb.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match=rf"bomb\.npz': .*{match}"):
            load_positions(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak  # (the old reader held 30 MB and more)


def test_settings_past_16_megabytes_are_refused_unread(
    tmp_path: Path, small_arrays: dict[str, Any]
) -> None:
    # Real settings take well under a kilobyte; a crafted JSON list costs
    # several times its text to parse.
    import tracemalloc

    arrays = {name: value for name, value in small_arrays.items() if name != "meta"}
    fat = np.array("[" + "[]," * 1_500_000 + "[]]")  # 18 MB as a numpy string
    np.savez_compressed(tmp_path / "fat.npz", meta=fat, **arrays)
    del fat
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match=r"fat\.npz': meta\.npy claims"):
            load_positions(tmp_path / "fat.npz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak


@pytest.mark.parametrize("compressed", [True, False])
def test_damaged_files_are_refused_with_our_error(tmp_path: Path, compressed: bool) -> None:
    # Truncated, or with one byte flipped here and there: every such file
    # loads (a byte the format ignores) or raises InvalidGameFileError.
    path = tmp_path / "good.npz"
    positions(2, 4, 4, 2, seed=0, policy="random").to_npz(path, compressed=compressed)
    raw = path.read_bytes()
    damaged = [raw[:k] for k in range(0, len(raw), 11)]
    for i in range(0, len(raw), 5):
        flipped = bytearray(raw)
        flipped[i] ^= 0xFF
        damaged.append(bytes(flipped))
    refused = 0
    for content in damaged:
        path.write_bytes(content)
        try:
            load_positions(path)
        except ns.InvalidGameFileError as exc:
            assert "good.npz'" in str(exc)
            refused += 1
    assert refused > len(damaged) // 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": -1}, ns.InvalidBoardError, "n must be >= 0, got -1"),
        ({"n": 2.0}, ns.InvalidTypeError, "n must be an integer, got 2.0"),
        ({"n": "5"}, ns.InvalidTypeError, "n must be an integer, got '5'"),
        ({"chunk_size": 0}, ns.InvalidBoardError, "chunk_size must be >= 1, got 0"),
        ({"chunk_size": None}, ns.InvalidTypeError, "chunk_size must be an integer, got None"),
        ({"sample": "all"}, ns.InvalidBoardError, "sample must be one of .*, got 'all'"),
        ({"sample": ["game"]}, ns.InvalidBoardError, r"sample must be .*, got \['game'\]"),
        ({"policy": "best"}, ns.InvalidBoardError, "unknown policy 'best'"),
        ({"policy": 3}, ns.InvalidTypeError, "policy must be a name or a callable, got 3"),
        ({"mines": 81}, ns.InvalidBoardError, "mines must be in .*, got 81"),
        ({"first_click": "corner"}, ns.InvalidBoardError, "first_click must be .*'corner'"),
        ({"seed": -1}, ns.InvalidBoardError, "seed must be .*, got -1"),
        ({"seed": True}, ns.InvalidTypeError, "seed must be .*, got True"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], error: type, match: str) -> None:
    arguments: dict[str, Any] = {"n": 5, "rows": 9, "cols": 9, "mines": 10} | kwargs
    with pytest.raises(error, match=match):
        iter_positions(**arguments)  # when called, not when first iterated
    with pytest.raises(error, match=match):
        positions(**arguments)


def test_a_policy_must_choose_hidden_cells() -> None:
    def top_left(visible: Any, mines_left: Any, rng: Any) -> NDArray[np.intp]:
        return np.zeros((len(visible), 2), dtype=np.intp)

    with pytest.raises(ns.InvalidBoardError, match=r"policy 'top_left' chose \(0, 0\)"):
        positions(5, 9, 9, 10, seed=0, policy=top_left, first_click=None)


def test_boards_without_positions_are_refused() -> None:
    # No mines: every game is won at its first reveal.
    with pytest.raises(ns.InvalidBoardError, match="ends at its first reveal"):
        positions(1, 4, 4, 0, seed=0, chunk_size=1)
