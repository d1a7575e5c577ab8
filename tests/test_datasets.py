"""numsweeper.datasets: labelled positions, their sampling, reproducibility and files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper.datasets import Positions, iter_positions, load_positions, positions
from reference import adjacent_counts


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


def test_load_refuses_other_files(tmp_path: Path, solver_positions: Positions) -> None:
    np.savez(tmp_path / "other.npz", visible=solver_positions.visible)
    with pytest.raises(ValueError, match="not a positions file"):
        load_positions(tmp_path / "other.npz")
    solver_positions.to_npz(tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz") as good:
        arrays = {name: good[name] for name in good.files}
    arrays["mines"] = arrays["mines"].astype(np.int64)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=r"mines is int64 \(400, 9, 9\), expected bool"):
        load_positions(tmp_path / "bad.npz")
    arrays["meta"] = np.array('{"format": 99}')
    np.savez(tmp_path / "future.npz", **arrays)
    with pytest.raises(ValueError, match="unknown format"):
        load_positions(tmp_path / "future.npz")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": -1}, ValueError, "n must be >= 0"),
        ({"n": 2.0}, TypeError, "n must be an integer"),
        ({"chunk_size": 0}, ValueError, "chunk_size must be >= 1"),
        ({"sample": "all"}, ValueError, "sample must be one of"),
        ({"policy": "best"}, ValueError, "unknown policy 'best'"),
        ({"policy": 3}, TypeError, "policy must be a name or a callable"),
        ({"mines": 81}, ns.InvalidBoardError, "mines must be in"),
        ({"first_click": "corner"}, ns.InvalidBoardError, "first_click must be"),
        ({"seed": -1}, ns.InvalidBoardError, "seed must be"),
        ({"seed": True}, TypeError, "seed must be"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], error: type, match: str) -> None:
    arguments: dict[str, Any] = {"n": 5, "rows": 9, "cols": 9, "mines": 10} | kwargs
    with pytest.raises(error, match=match):
        positions(**arguments)


def test_a_policy_must_choose_hidden_cells() -> None:
    def top_left(visible: Any, mines_left: Any, rng: Any) -> NDArray[np.intp]:
        return np.zeros((len(visible), 2), dtype=np.intp)

    with pytest.raises(ValueError, match=r"policy 'top_left' chose \(0, 0\)"):
        positions(5, 9, 9, 10, seed=0, policy=top_left, first_click=None)


def test_boards_without_positions_are_refused() -> None:
    # No mines: every game is won at its first reveal.
    with pytest.raises(ValueError, match="ends at its first reveal"):
        positions(1, 4, 4, 0, seed=0, chunk_size=1)
