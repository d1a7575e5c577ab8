"""Mine-placement strategies: exact counts, safe masks, seeds, uniformity, errors."""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy import stats

import numsweeper as ns
from numsweeper import placement

# A chi-square p-value below this fails.  The seeds are fixed, so the tests
# are deterministic; the threshold only needs to catch real bias, which
# drives p-values far lower than this.
P_MIN = 1e-4


def digest(mask: NDArray[np.bool_]) -> str:
    return hashlib.sha256(np.packbits(mask).tobytes()).hexdigest()


# -- the interface ------------------------------------------------------------


def test_strategy_is_an_abc() -> None:
    with pytest.raises(TypeError):
        ns.MinePlacementStrategy()  # type: ignore[abstract]
    assert issubclass(ns.RandomPlacement, ns.MinePlacementStrategy)
    assert issubclass(ns.FixedPlacement, ns.MinePlacementStrategy)


def test_user_strategy_plugs_into_board_and_game() -> None:
    class Diagonal(ns.MinePlacementStrategy):
        def place(
            self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
        ) -> NDArray[np.bool_]:
            layout = np.zeros((rows, cols), dtype=bool)
            cells = [(i, i) for i in range(min(rows, cols)) if safe is None or not safe[i, i]]
            for r, c in cells[:mines]:
                layout[r, c] = True
            return layout

    board = ns.Board.create(4, 4, 3, Diagonal())
    assert np.flatnonzero(board.mines).tolist() == [0, 5, 10]
    game = ns.Game.new(4, 4, 3, strategy=Diagonal(), first_click="safe")
    game.reveal(0, 0)
    assert game.board is not None
    assert np.flatnonzero(game.board.mines).tolist() == [5, 10, 15]


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        (np.zeros((4, 4), dtype=np.int8), "int8"),
        (np.zeros((4, 5), dtype=bool), r"\(4, 5\)"),
        (np.zeros((4, 4), dtype=bool), "placed 0 mines"),
        (np.ones((4, 4), dtype=bool), "placed 16 mines"),
    ],
)
def test_board_rejects_a_bad_strategy_result(layout: np.ndarray, message: str) -> None:
    class Bad(ns.MinePlacementStrategy):
        def place(
            self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
        ) -> NDArray[np.bool_]:
            return layout

    with pytest.raises(ns.InvalidBoardError, match=message):
        ns.Board.create(4, 4, 3, Bad())


def test_board_rejects_a_strategy_that_ignores_safe() -> None:
    class Careless(ns.MinePlacementStrategy):
        def place(
            self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
        ) -> NDArray[np.bool_]:
            layout = np.zeros((rows, cols), dtype=bool)
            layout.flat[:mines] = True
            return layout

    safe = np.zeros((3, 3), dtype=bool)
    safe[0, 0] = True
    with pytest.raises(ns.InvalidBoardError, match="safe"):
        ns.Board.create(3, 3, 2, Careless(), safe=safe)
    game = ns.Game.new(3, 3, 2, strategy=Careless(), first_click="safe")
    before = game.snapshot()
    with pytest.raises(ns.InvalidBoardError):
        game.reveal(0, 0)
    assert game.snapshot() == before and game.board is None
    assert game.reveal(2, 2).state is ns.GameState.IN_PROGRESS  # (0,0),(0,1) mined


# -- RandomPlacement: contract on many random requests -------------------------


def test_random_placement_exact_count_and_safe_on_random_requests() -> None:
    rng = np.random.default_rng(99)
    strategy = ns.RandomPlacement(seed=1)
    for _ in range(1500):
        rows, cols = int(rng.integers(1, 41)), int(rng.integers(1, 41))
        safe = None
        if rng.random() < 0.5:
            safe = rng.random((rows, cols)) < rng.random()
        allowed = rows * cols - (0 if safe is None else int(safe.sum()))
        mines = int(rng.integers(0, allowed + 1))  # mines == allowed fills every allowed cell
        layout = strategy.place(rows, cols, mines, safe=safe)
        assert layout.dtype == bool and layout.shape == (rows, cols)
        assert int(layout.sum()) == mines
        if safe is not None:
            assert not (layout & safe).any()
            if mines == allowed:
                np.testing.assert_array_equal(layout, ~safe)


@given(
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    fraction=st.floats(0, 1),
    seed=st.integers(0, 2**63),
    safe_seed=st.none() | st.integers(0, 2**32),
)
def test_random_placement_property(
    rows: int, cols: int, fraction: float, seed: int, safe_seed: int | None
) -> None:
    safe = None
    allowed = rows * cols
    if safe_seed is not None:
        safe = np.random.default_rng(safe_seed).random((rows, cols)) < 0.4
        allowed -= int(safe.sum())
    mines = round(fraction * allowed)
    layout = ns.RandomPlacement(seed=seed).place(rows, cols, mines, safe=safe)
    assert int(layout.sum()) == mines
    assert safe is None or not (layout & safe).any()
    again = ns.RandomPlacement(seed=seed).place(rows, cols, mines, safe=safe)
    np.testing.assert_array_equal(layout, again)


def test_random_placement_huge_board_with_safe_mask() -> None:
    rows, cols = 1100, 1000  # more than one 2**20-cell chunk
    safe = np.zeros((rows, cols), dtype=bool)
    safe[::3] = True
    for seed, mines in [(0, 1), (1, 300_000), (2, 733_000), (3, 732_999)]:
        layout = ns.RandomPlacement(seed=seed).place(rows, cols, mines, safe=safe)
        assert int(layout.sum()) == mines
        assert not (layout & safe).any()


def test_random_placement_too_many_mines_for_the_safe_mask() -> None:
    safe = np.zeros((3, 3), dtype=bool)
    safe[1, 1] = True
    strategy = ns.RandomPlacement(seed=0)
    with pytest.raises(ns.InvalidBoardError, match="9"):
        strategy.place(3, 3, 9, safe=safe)
    assert strategy.place(3, 3, 8, safe=safe).tolist() == (~safe).tolist()


# -- RandomPlacement: seeds ----------------------------------------------------


def test_known_layouts_small_board() -> None:
    strategy = ns.RandomPlacement(seed=20261129)
    assert np.flatnonzero(strategy.place(5, 7, 9)).tolist() == [0, 4, 5, 15, 18, 26, 30, 33, 34]
    # The generator moves on: the next call gives the next layout.
    assert np.flatnonzero(strategy.place(5, 7, 9)).tolist() == [0, 2, 14, 16, 18, 20, 21, 23, 30]
    safe = np.zeros((5, 7), dtype=bool)
    safe[1:4, 2:5] = True
    layout = ns.RandomPlacement(seed=20261129).place(5, 7, 9, safe=safe)
    assert np.flatnonzero(layout).tolist() == [0, 4, 7, 13, 19, 21, 30, 33, 34]


def test_known_layout_board_over_a_million_cells() -> None:
    big = ns.RandomPlacement(seed=20261129).place(1100, 1000, 165_000)
    assert big.size > 2**20
    flat = np.flatnonzero(big)
    assert len(flat) == 165_000
    assert flat[:8].tolist() == [0, 4, 5, 30, 33, 34, 41, 46]
    assert flat[-4:].tolist() == [1099977, 1099981, 1099992, 1099997]
    assert digest(big) == "308ee6a1752403de8bd582ca4abcdf4d8a7d4342552e667c988691b4550d25ce"
    safe = np.zeros((1100, 1000), dtype=bool)
    safe[::3] = True
    big = ns.RandomPlacement(seed=5).place(1100, 1000, 300_000, safe=safe)
    assert np.flatnonzero(big)[:8].tolist() == [1000, 1009, 1012, 1014, 1016, 1017, 1019, 1020]
    assert digest(big) == "9cd3a43e9477da98622b3cbc7e09a9f3c6e8a78658376edb43cb297030281b1c"


def test_known_layouts_through_game() -> None:
    game = ns.Game.from_preset("expert", seed=0)
    assert game.board is not None
    flat = np.flatnonzero(game.board.mines)
    assert flat[:10].tolist() == [6, 8, 14, 23, 24, 27, 29, 31, 35, 40]
    assert digest(game.board.mines) == (
        "bfb03f932207292af1d2dc9446617ae5152378470160af3e3af01a7be0904208"
    )
    game = ns.Game.new(9, 9, 10, seed=1, first_click="opening")
    game.reveal(4, 4)
    assert game.board is not None
    assert np.flatnonzero(game.board.mines).tolist() == [6, 17, 19, 61, 67, 68, 73, 75, 78, 79]


@pytest.mark.parametrize(
    "make",
    [
        lambda: 12345,
        lambda: np.random.SeedSequence(12345),
        lambda: np.random.default_rng(12345),
        lambda: np.int64(12345),
    ],
    ids=["int", "SeedSequence", "Generator", "numpy-int"],
)
def test_seed_kinds_agree(make: Any) -> None:
    reference = ns.RandomPlacement(seed=12345)
    expected = [reference.place(16, 30, 99) for _ in range(3)]
    strategy = ns.RandomPlacement(seed=make())
    for layout in expected:
        np.testing.assert_array_equal(strategy.place(16, 30, 99), layout)


def test_generator_is_shared_not_copied() -> None:
    rng = np.random.default_rng(8)
    strategy = ns.RandomPlacement(seed=rng)
    assert strategy.rng is rng
    first = strategy.place(9, 9, 10)
    rng2 = np.random.default_rng(8)
    np.testing.assert_array_equal(ns.RandomPlacement(seed=rng2).place(9, 9, 10), first)
    assert rng.bit_generator.state == rng2.bit_generator.state


def test_same_seed_same_games_and_none_is_fresh() -> None:
    a = ns.Game.new(16, 16, 40, seed=3)
    b = ns.Game.new(16, 16, 40, seed=3)
    assert a.board is not None and b.board is not None
    np.testing.assert_array_equal(a.board.mines, b.board.mines)
    layouts = {ns.RandomPlacement().place(16, 30, 99).tobytes() for _ in range(5)}
    assert len(layouts) == 5


def test_global_random_state_is_untouched() -> None:
    np_state = np.random.get_state()  # noqa: NPY002 (the legacy global state)
    py_state = random.getstate()
    ns.RandomPlacement(seed=1).place(30, 30, 200)
    ns.RandomPlacement().place(30, 30, 200)
    ns.Game.new(9, 9, 10, first_click="safe").reveal(0, 0)
    after = np.random.get_state()  # noqa: NPY002
    assert all(np.array_equal(x, y) for x, y in zip(np_state, after, strict=True))
    assert random.getstate() == py_state


# -- RandomPlacement: uniformity ----------------------------------------------------


def layout_counts(draw: Any, rows: int, cols: int, mines: int, safe: Any, n: int) -> Counter[Any]:
    allowed = [i for i in range(rows * cols) if safe is None or not safe.flat[i]]
    counter: Counter[Any] = Counter({c: 0 for c in itertools.combinations(allowed, mines)})
    for _ in range(n):
        key = tuple(np.flatnonzero(draw()).tolist())
        assert key in counter, f"layout {key} is not allowed"
        counter[key] += 1
    return counter


def assert_uniform(counter: Counter[Any]) -> None:
    observed = np.array(list(counter.values()))
    result = stats.chisquare(observed)
    assert result.pvalue > P_MIN, (result, counter)


@pytest.mark.parametrize(
    ("mines", "safe_cells"),
    [(2, ()), (2, ((0, 0),)), (4, ()), (3, ((0, 1), (1, 2)))],
)
def test_random_placement_uniform_over_layouts(
    mines: int, safe_cells: tuple[tuple[int, int], ...]
) -> None:
    rows, cols = 2, 3
    safe = None
    if safe_cells:
        safe = np.zeros((rows, cols), dtype=bool)
        for cell in safe_cells:
            safe[cell] = True
    strategy = ns.RandomPlacement(seed=1000 + mines + len(safe_cells))
    counter = layout_counts(
        lambda: strategy.place(rows, cols, mines, safe=safe), rows, cols, mines, safe, 6000
    )
    assert_uniform(counter)


def test_random_placement_uniform_over_cells_of_a_larger_board() -> None:
    strategy = ns.RandomPlacement(seed=4)
    safe = np.zeros((8, 8), dtype=bool)
    safe[2:5, 3:6] = True
    hits = np.zeros((8, 8), dtype=np.int64)
    for _ in range(2000):
        hits += strategy.place(8, 8, 20, safe=safe)
    assert not hits[safe].any()
    # Per-cell counts are not quite multinomial (exactly 20 mines per draw makes
    # them negatively correlated), which only makes this test more lenient.
    assert stats.chisquare(hits[~safe]).pvalue > P_MIN


def test_random_placement_uniform_across_chunks() -> None:
    # Four allowed cells, two of them beyond the first 2**20-cell chunk.
    rows, cols = 1100, 1000
    allowed = [7, 2**20 - 1, 2**20, rows * cols - 1]
    safe = np.ones(rows * cols, dtype=bool)
    safe[allowed] = False
    safe = safe.reshape(rows, cols)
    strategy = ns.RandomPlacement(seed=77)
    counter: Counter[tuple[int, ...]] = Counter({c: 0 for c in itertools.combinations(allowed, 2)})
    for _ in range(240):
        key = tuple(np.flatnonzero(strategy.place(rows, cols, 2, safe=safe)).tolist())
        assert key in counter
        counter[key] += 1
    assert_uniform(counter)


def test_random_bytes_do_not_depend_on_the_draw_step(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first draw takes its random bytes a step at a time to bound memory
    # on huge boards; the step must not change which layout a seed gives.
    whole = ns.RandomPlacement(seed=41).place_batch(3, 40, 50, 300)
    monkeypatch.setattr(placement, "_BYTES_STEP", 8 * 37)
    stepped = ns.RandomPlacement(seed=41).place_batch(3, 40, 50, 300)
    np.testing.assert_array_equal(whole, stepped)


def test_one_sampler_for_one_board_and_a_batch() -> None:
    # RandomPlacement.place is the first board of place_batch(1), which
    # generate_boards and BatchGame draw through: one seed, one board.
    one = ns.RandomPlacement(seed=8).place(16, 30, 99)
    batch = ns.generate_boards(1, 16, 30, 99, seed=8)
    np.testing.assert_array_equal(one, batch.mines[0])
    game = ns.Game.new(16, 30, 99, seed=8)
    assert game.board is not None
    np.testing.assert_array_equal(one, game.board.mines)
    safe = np.zeros((1, 9, 9), dtype=bool)
    safe[0, 3:6, 3:6] = True
    first = ns.RandomPlacement(seed=9).place(9, 9, 10, safe=safe[0])
    clicked = ns.generate_boards(1, 9, 9, 10, seed=9, first_click="opening", click=(4, 4))
    np.testing.assert_array_equal(first, clicked.mines[0])


def test_mostly_safe_masks_are_sampled_exactly() -> None:
    # With almost every cell kept safe the sampler chooses among the few
    # allowed cells directly; all layouts stay equally likely.
    rows, cols = 30, 40
    allowed = [0, 17, 600, 1199]
    safe = np.ones(rows * cols, dtype=bool)
    safe[allowed] = False
    batch = ns.RandomPlacement(seed=12).place_batch(
        1200, rows, cols, 2, safe=np.broadcast_to(safe.reshape(rows, cols), (1200, rows, cols))
    )
    counter: Counter[tuple[int, ...]] = Counter({c: 0 for c in itertools.combinations(allowed, 2)})
    for layout in batch:
        counter[tuple(np.flatnonzero(layout).tolist())] += 1
    assert set(counter) == set(itertools.combinations(allowed, 2))
    assert_uniform(counter)


# -- FixedPlacement -------------------------------------------------------------


@pytest.mark.parametrize(
    "positions",
    [
        [(0, 1), (2, 3)],
        ((0, 1), (2, 3)),
        {(0, 1), (2, 3)},
        frozenset({(2, 3), (0, 1)}),
        iter([(2, 3), (0, 1)]),
        np.array([[0, 1], [2, 3]]),
        [(np.int64(0), np.uint8(1)), (2, 3)],
        [[0, 1], [2, 3]],
    ],
    ids=["list", "tuple", "set", "frozenset", "iterator", "int-array", "numpy-ints", "lists"],
)
def test_fixed_placement_from_pairs(positions: Any) -> None:
    layout = ns.FixedPlacement(positions).place(3, 4, 2)
    assert np.flatnonzero(layout).tolist() == [1, 11]


def test_fixed_placement_from_mask_is_copied() -> None:
    mask = np.zeros((3, 4), dtype=bool)
    mask[1, 2] = True
    strategy = ns.FixedPlacement(mask)
    mask[0, 0] = True  # later changes to the caller's array don't leak in
    layout = strategy.place(3, 4, 1)
    assert np.flatnonzero(layout).tolist() == [6]
    layout[2, 2] = True  # nor do changes to a returned layout
    assert np.flatnonzero(strategy.place(3, 4, 1)).tolist() == [6]
    nested = ns.FixedPlacement([[False, True], [False, False]]).place(2, 2, 1)
    assert nested.tolist() == [[False, True], [False, False]]


@pytest.mark.parametrize(
    ("positions", "rows", "cols", "mines", "message"),
    [
        ([(0, 0), (0, 0)], 3, 3, 2, r"\(0, 0\).*twice"),
        ([(1, 2), (2, 1), (1, 2)], 3, 3, 3, r"\(1, 2\).*twice"),
        ([(3, 0)], 3, 3, 1, r"\(3, 0\).*off"),
        ([(0, 3)], 3, 3, 1, r"\(0, 3\).*off"),
        ([(-1, 0)], 3, 3, 1, r"\(-1, 0\).*off"),
        ([(0, -1)], 3, 3, 1, r"\(0, -1\).*off"),
        ([(0, 0), (1, 1)], 3, 3, 1, "2 mines.*mines=1"),
        ([(0, 0)], 3, 3, 2, "has 1 mine, but mines=2"),
        ([], 3, 3, 1, "0 mines.*mines=1"),
        (np.zeros((3, 4), dtype=bool), 3, 3, 0, r"\(3, 4\)"),
        (np.eye(3, dtype=bool), 3, 3, 2, "3 mines.*mines=2"),
    ],
)
def test_fixed_placement_rejects_bad_layouts(
    positions: Any, rows: int, cols: int, mines: int, message: str
) -> None:
    strategy = ns.FixedPlacement(positions)
    with pytest.raises(ns.InvalidBoardError, match=message):
        strategy.place(rows, cols, mines)
    with pytest.raises(ns.InvalidBoardError, match=message):
        ns.Board.create(rows, cols, mines, strategy)
    with pytest.raises(ns.InvalidBoardError, match=message):
        ns.Game.new(rows, cols, mines, strategy=strategy)


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        ([(0, 0, 0)], r"\(0, 0, 0\)"),
        ([0, 1], "0"),
        ([(1.5, 0)], r"1\.5"),
        ([(0, "a")], "'a'"),
        ([(True, 0)], "True"),
        ([(None, 0)], "None"),
        (np.zeros((2, 2, 2), dtype=bool), r"2-D.*\(2, 2, 2\)"),
    ],
)
def test_fixed_placement_rejects_malformed_positions(positions: Any, message: str) -> None:
    with pytest.raises(ns.InvalidBoardError, match=message):
        ns.FixedPlacement(positions)


def test_huge_or_long_positions_are_named_short() -> None:
    # an integer past Python's limit on converting to text once broke the message itself
    with pytest.raises(ns.InvalidBoardError) as info:
        ns.FixedPlacement([(10**5000, 0)]).place(3, 3, 1)
    assert str(info.value) == "mine position (an integer of 16,610 bits, 0) is off the 3x3 board"
    with pytest.raises(ns.InvalidBoardError) as info:
        ns.FixedPlacement(["x" * 10_000])
    assert str(info.value).endswith("got '" + "x" * 76 + "...")


def test_fixed_placement_with_safe_mask() -> None:
    strategy = ns.FixedPlacement([(0, 0), (1, 1)])
    safe = np.zeros((3, 3), dtype=bool)
    safe[2, 2] = True
    assert np.flatnonzero(strategy.place(3, 3, 2, safe=safe)).tolist() == [0, 4]
    safe[1, 1] = True
    with pytest.raises(ns.InvalidBoardError, match=r"\(1, 1\)"):
        strategy.place(3, 3, 2, safe=safe)
    game = ns.Game.new(3, 5, 2, strategy=strategy, first_click="opening")
    with pytest.raises(ns.InvalidBoardError, match="safe"):
        game.reveal(1, 2)  # its neighbourhood holds (1, 1)
    assert game.board is None and game.state is ns.GameState.IN_PROGRESS


class _Buffered(ns.MinePlacementStrategy):
    """Fills and returns one buffer for every board (allowed: the board copies it)."""

    def __init__(self) -> None:
        self.buf = np.zeros((4, 4), dtype=bool)
        self.calls = 0

    def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> Any:
        self.buf[...] = False
        self.buf.flat[self.calls : self.calls + mines] = True
        self.calls += 1
        return self.buf


def test_a_strategy_that_reuses_its_buffer_does_not_share_boards() -> None:
    strategy = _Buffered()
    first = ns.Game.new(4, 4, 3, strategy=strategy)
    second = ns.Game.new(4, 4, 3, strategy=strategy)
    assert first.board is not None and second.board is not None
    assert not np.shares_memory(first.board.mines, second.board.mines)
    assert np.flatnonzero(first.board.mines).tolist() == [0, 1, 2]
    assert np.flatnonzero(second.board.mines).tolist() == [1, 2, 3]


class _Sneaky(ns.MinePlacementStrategy):
    """Puts the mine under the first click, then tries to hide it by clearing the mask."""

    def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> Any:
        layout = np.zeros((rows, cols), dtype=bool)
        layout |= safe
        safe[...] = False
        return layout


def test_a_strategy_cannot_rewrite_the_safe_mask() -> None:
    game = ns.Game.new(3, 3, 1, strategy=_Sneaky(), first_click="safe")
    with pytest.raises(ValueError, match="read-only"):
        game.reveal(1, 1)
    assert game.state is ns.GameState.IN_PROGRESS


class _OnSafe(ns.MinePlacementStrategy):
    def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> Any:
        return safe.copy()


def test_a_mine_on_a_safe_cell_is_named() -> None:
    game = ns.Game.new(3, 3, 1, strategy=_OnSafe(), first_click="safe")
    with pytest.raises(ns.InvalidBoardError, match=r"_OnSafe put a mine on \(1, 1\), which must"):
        game.reveal(1, 1)
    assert game.state is ns.GameState.IN_PROGRESS and game.snapshot().cells[1, 1] == ns.HIDDEN


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        ("random", "'random'"),
        (ns.RandomPlacement, "<class 'numsweeper.placement.RandomPlacement'>"),
        (5, "5"),
        ("x" * 10_000, "'" + "x" * 76 + "..."),  # cut short
    ],
)
def test_a_strategy_that_is_not_one_is_refused(bad: Any, named: str) -> None:
    expected = "strategy must be a MinePlacementStrategy instance (with a place method), got "
    expected += named
    with pytest.raises(ns.InvalidTypeError) as info:
        ns.Board.create(3, 3, 1, bad)
    assert str(info.value) == expected
    for rule in (None, "safe"):  # refused at once, even when mines wait for the first click
        with pytest.raises(ns.InvalidTypeError) as info:
            ns.Game.new(3, 3, 1, strategy=bad, first_click=rule)
        assert str(info.value) == expected


class Shuffled(ns.MinePlacementStrategy):
    """A third-party random rule that keeps its randomness in attributes."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.legacy = np.random.RandomState(seed)
        self.name = "shuffled"

    def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> NDArray[np.bool_]:
        keys = self.rng.random(rows * cols) + self.legacy.random_sample(rows * cols)
        if safe is not None:
            keys[np.asarray(safe).reshape(-1)] = 3.0
        flat = np.zeros(rows * cols, dtype=bool)
        flat[np.argsort(keys, kind="stable")[:mines]] = True
        return flat.reshape(rows, cols)


def test_the_default_with_seed_reseeds_numpy_generators() -> None:
    strategy = Shuffled(0)
    before = strategy.rng.bit_generator.state
    a, b = strategy.with_seed(1), strategy.with_seed(2)
    assert strategy.rng.bit_generator.state == before  # the original is unchanged
    assert a.name == "shuffled" and a.rng is not strategy.rng
    assert isinstance(a.legacy, np.random.RandomState)
    assert not np.array_equal(a.place(9, 9, 10), b.place(9, 9, 10))
    np.testing.assert_array_equal(
        strategy.with_seed(1).place(9, 9, 10), strategy.with_seed(1).place(9, 9, 10)
    )
    # Its two generators are independent streams, not one stream twice.
    twin = strategy.with_seed(3)
    assert twin.rng.random() != twin.legacy.random_sample()


def test_a_third_party_random_strategy_gives_new_boards_per_chunk() -> None:
    chunks = [
        c.mines for c in ns.iter_boards(40, 9, 9, 10, seed=4, strategy=Shuffled(0), chunk_size=10)
    ]
    assert len({c.tobytes() for c in chunks}) == 4
    one = ns.simulate(60, 9, 9, 10, strategy=Shuffled(0), seed=5, chunk_size=20, workers=1)
    two = ns.simulate(60, 9, 9, 10, strategy=Shuffled(0), seed=5, chunk_size=20, workers=2)
    np.testing.assert_array_equal(one.records, two.records)
    firsts = [one.replay(g, strategy=Shuffled(0)).board.mines for g in (0, 20, 40)]
    assert len({m.tobytes() for m in firsts}) == 3


class _TopRow(ns.MinePlacementStrategy):
    """A strategy with ``place`` alone: the default ``place_batch`` loops over it."""

    def place(self, rows: int, cols: int, mines: int, *, safe: Any = None) -> NDArray[np.bool_]:
        layout = np.zeros((rows, cols), dtype=bool)
        layout.flat[:mines] = True
        return layout


_STRATEGIES = [
    pytest.param(lambda: ns.RandomPlacement(seed=0), id="random"),
    pytest.param(lambda: ns.FixedPlacement([(0, 0)]), id="fixed"),
]


@pytest.mark.parametrize("make", _STRATEGIES)
@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((3, 3, 10), ns.InvalidBoardError, "mines must be in 0..9 for a 3x3 board, got 10"),
        ((3, 3, -1), ns.InvalidBoardError, "got -1"),
        ((3, 3, 2**70), ns.InvalidBoardError, f"got {2**70}"),
        ((0, 3, 1), ns.InvalidBoardError, "rows must be >= 1, got 0"),
        ((3, -2, 1), ns.InvalidBoardError, "cols must be >= 1, got -2"),
        ((3.0, 3, 1), ns.InvalidTypeError, "rows must be an integer, got 3.0"),
        ((3, 3, "1"), ns.InvalidTypeError, "mines must be an integer, got '1'"),
    ],
)
def test_a_direct_place_call_names_a_bad_request(
    make: Any, args: tuple[Any, ...], error: type[Exception], message: str
) -> None:
    # The library checks sizes before it asks a strategy; a direct call
    # used to fail deep in numpy (a NaN density, a division by zero).
    strategy = make()
    with pytest.raises(error, match=re.escape(message)):
        strategy.place(*args)
    with pytest.raises(error, match=re.escape(message)):
        strategy.place_batch(2, *args)
    with pytest.raises(error, match=re.escape(message)):
        _TopRow().place_batch(2, *args)


@pytest.mark.parametrize("make", [*_STRATEGIES, pytest.param(_TopRow, id="default")])
def test_place_batch_names_a_bad_count_or_mask(make: Any) -> None:
    strategy = make()
    with pytest.raises(ns.InvalidBoardError, match=re.escape("n must be >= 0, got -1")):
        strategy.place_batch(-1, 3, 3, 1)
    with pytest.raises(ns.InvalidTypeError, match=re.escape("n must be an integer, got 2.5")):
        strategy.place_batch(2.5, 3, 3, 1)
    with pytest.raises(ns.InvalidBoardError, match=re.escape("shape (2, 3, 3), got bool (3, 3)")):
        strategy.place_batch(2, 3, 3, 1, safe=np.zeros((3, 3), dtype=bool))
    said = "safe must be a bool array of shape (2, 3, 3), got int64"
    with pytest.raises(ns.InvalidTypeError, match=re.escape(said)):
        strategy.place_batch(2, 3, 3, 1, safe=np.zeros((2, 3, 3), dtype=np.int64))
    with pytest.raises(ns.InvalidBoardError, match="10000x10000 need 1 bytes per cell"):
        strategy.place_batch(10**6, 10**4, 10**4, 1)
    assert strategy.place_batch(0, 3, 3, 1).shape == (0, 3, 3)


@pytest.mark.parametrize("make", _STRATEGIES)
def test_place_names_a_mask_of_the_wrong_shape_or_type(make: Any) -> None:
    strategy = make()
    with pytest.raises(ns.InvalidBoardError, match=re.escape("shape (3, 3), got bool (2, 2)")):
        strategy.place(3, 3, 1, safe=np.zeros((2, 2), dtype=bool))
    said = "safe must be a bool array of shape (3, 3), got float64"
    with pytest.raises(ns.InvalidTypeError, match=re.escape(said)):
        strategy.place(3, 3, 1, safe=np.zeros((3, 3)))


def test_a_rejected_request_draws_nothing_from_the_stream() -> None:
    strategy = ns.RandomPlacement(seed=4)
    with pytest.raises(ns.InvalidBoardError):
        strategy.place(3, 3, 10)
    assert np.array_equal(strategy.place(9, 9, 10), ns.RandomPlacement(seed=4).place(9, 9, 10))


def test_game_from_preset_takes_a_strategy_as_new_does() -> None:
    ten = [(0, c) for c in range(9)] + [(1, 0)]
    fixed = ns.FixedPlacement(ten)
    game = ns.Game.from_preset("beginner", strategy=fixed)
    assert game.strategy is fixed
    assert game.board is not None and game.board.mines[0].all() and game.board.mines[1, 0]
    with pytest.raises(ns.InvalidTypeError, match="give strategy or seed, not both"):
        ns.Game.from_preset("beginner", strategy=fixed, seed=1)
    with pytest.raises(ns.InvalidBoardError, match="fixed layout has 10 mines, but mines=40"):
        ns.Game.from_preset("intermediate", strategy=ns.FixedPlacement(ten))
