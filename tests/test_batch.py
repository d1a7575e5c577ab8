"""Tests of generate_boards, iter_boards and BoardBatch."""

from __future__ import annotations

import hashlib
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import numsweeper as ns
from numsweeper._kernels import adjacent_counts, adjacent_counts_stack

PRESETS = [(9, 9, 10), (16, 16, 40), (16, 30, 99)]


def _digest(batch: ns.BoardBatch) -> str:
    return hashlib.sha256(np.packbits(batch.mines).tobytes()).hexdigest()[:16]


# -- exact mine counts, rules and counts -------------------------------------------


@pytest.mark.parametrize(
    ("rows", "cols", "mines"),
    [
        *PRESETS,
        (1, 1, 0),
        (1, 7, 6),
        (3, 3, 0),
        (9, 9, 70),  # dense: removals are the usual fix
        (9, 9, 80),
        (40, 50, 1),  # sparse: nearly every mine comes from the fix
        (300, 300, 20_000),  # a large board
    ],
)
def test_every_board_has_exactly_the_mines(rows: int, cols: int, mines: int) -> None:
    n = max(3, min(2000, 200_000 // (rows * cols)))
    batch = ns.generate_boards(n, rows, cols, mines, seed=rows * cols + mines)
    assert batch.mines.shape == batch.counts.shape == (n, rows, cols)
    assert batch.mines.dtype == bool and batch.counts.dtype == np.int8
    assert (batch.mines.sum(axis=(1, 2)) == mines).all()
    np.testing.assert_array_equal(batch.counts, adjacent_counts(batch.mines))


@given(
    arrays(
        bool,
        st.tuples(st.integers(0, 5), st.integers(1, 12), st.integers(1, 12)),
        elements=st.booleans(),
    )
)
def test_stack_counts_equal_adjacent_counts(mines: np.ndarray) -> None:
    np.testing.assert_array_equal(adjacent_counts_stack(mines), adjacent_counts(mines))
    out = np.full(mines.shape, 9, dtype=np.int8)
    assert adjacent_counts_stack(mines, out=out) is out
    np.testing.assert_array_equal(out, adjacent_counts(mines))
    if mines.size:
        # Views of a bigger array (not contiguous) count the same.
        wide = np.zeros(mines.shape[:2] + (mines.shape[2] + 3,), dtype=bool)
        wide[..., 1:-2] = mines
        np.testing.assert_array_equal(
            adjacent_counts_stack(wide[..., 1:-2]), adjacent_counts(mines)
        )


@pytest.mark.parametrize("rule", ["safe", "opening"])
def test_first_click_rules_hold_for_one_click_and_per_board_clicks(rule: str) -> None:
    n, rows, cols, mines = 3000, 16, 30, 99
    rng = np.random.default_rng(1)
    per_board = np.stack([rng.integers(0, rows, n), rng.integers(0, cols, n)], axis=1)
    for click in [(0, 0), (15, 29), (7, 12), per_board]:
        batch = ns.generate_boards(n, rows, cols, mines, seed=2, first_click=rule, click=click)
        at = np.broadcast_to(np.asarray(click), (n, 2))
        assert (batch.mines.sum(axis=(1, 2)) == mines).all()
        assert not batch.mines[np.arange(n), at[:, 0], at[:, 1]].any()
        if rule == "opening":
            assert not batch.counts[np.arange(n), at[:, 0], at[:, 1]].any()


def test_batches_that_cannot_fit_in_memory_are_refused_before_allocating() -> None:
    # (numpy's bare MemoryError came after a wait, or the system killed the process)
    with pytest.raises(
        ns.InvalidBoardError,
        match=r"^1000000000000 boards of 100x100 need 2 bytes per cell, more than the "
        r"[0-9.]+ GB this process may use",
    ):
        ns.generate_boards(10**12, 100, 100, 1)
    with pytest.raises(ns.InvalidBoardError, match=r"^1000000000000 games of 100x100 need 4 bytes"):
        ns.BatchGame.new(10**12, 100, 100, 1, first_click="safe")
    assert sum(len(b) for b in ns.iter_boards(5, 100, 100, 1, seed=1, chunk_size=2)) == 5


def test_opening_rule_at_the_limit_of_mines() -> None:
    # A 4x4 board holds at most 16 - 9 mines under the opening rule; with the
    # click at (1, 1) they fill every cell outside the 3x3 around it.
    batch = ns.generate_boards(50, 4, 4, 7, seed=3, first_click="opening", click=(1, 1))
    assert batch.mines[:, 3, :].all() and batch.mines[:, :, 3].all()
    assert not batch.mines[:, :3, :3].any()


# -- uniformity --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "cols", "mines", "rule", "click"),
    [
        (2, 3, 2, None, None),  # 15 layouts
        (2, 3, 5, None, None),  # dense: 6 layouts
        (3, 3, 1, None, None),  # sparse: 9 layouts
        (2, 3, 2, "safe", (0, 1)),  # 10 layouts
        (3, 4, 3, "opening", (0, 0)),  # 56 layouts on the 8 cells outside the 2x2
    ],
)
def test_layouts_are_uniform(
    rows: int, cols: int, mines: int, rule: str | None, click: tuple[int, int] | None
) -> None:
    size = rows * cols
    banned: set[int] = set()
    if click is not None:
        r, c = click
        reach = 0 if rule == "safe" else 1
        banned = {
            rr * cols + cc
            for rr in range(max(r - reach, 0), min(r + reach + 1, rows))
            for cc in range(max(c - reach, 0), min(c + reach + 1, cols))
        }
    allowed = [cell for cell in range(size) if cell not in banned]
    layouts = {
        sum(1 << cell for cell in combo): i for i, combo in enumerate(combinations(allowed, mines))
    }
    n = 400 * len(layouts)
    batch = ns.generate_boards(n, rows, cols, mines, seed=9, first_click=rule, click=click)
    codes = batch.mines.reshape(n, size) @ (1 << np.arange(size))
    index = np.array([layouts[int(code)] for code in codes])  # KeyError: a banned layout
    observed = np.bincount(index, minlength=len(layouts))
    assert stats.chisquare(observed).pvalue > 1e-4


def test_layouts_are_uniform_with_per_board_clicks() -> None:
    # 2x4 board, 2 mines, 'safe' rule; clicks alternate between two cells.
    clicks = np.array([(0, 0), (1, 3)] * 4200)
    batch = ns.generate_boards(len(clicks), 2, 4, 2, seed=5, first_click="safe", click=clicks)
    codes = batch.mines.reshape(len(clicks), 8) @ (1 << np.arange(8))
    for parity, banned in ((0, 0), (1, 7)):
        allowed = [cell for cell in range(8) if cell != banned]
        layouts = {
            sum(1 << c for c in combo): i for i, combo in enumerate(combinations(allowed, 2))
        }
        index = np.array([layouts[int(code)] for code in codes[parity::2]])
        assert stats.chisquare(np.bincount(index, minlength=len(layouts))).pvalue > 1e-4


def test_cells_are_equally_likely_on_an_expert_board() -> None:
    batch = ns.generate_boards(20_000, 16, 30, 99, seed=4)
    per_cell = batch.mines.sum(axis=0).ravel()
    assert stats.chisquare(per_cell).pvalue > 1e-4


# -- reproducibility ---------------------------------------------------------------


def test_known_values_pin_the_seeded_stream() -> None:
    beginner = ns.generate_boards(3, 9, 9, 10, seed=42)
    assert [np.flatnonzero(m).tolist() for m in beginner.mines] == [
        [21, 23, 26, 28, 29, 37, 53, 58, 64, 69],
        [0, 15, 17, 23, 25, 33, 39, 62, 75, 78],
        [3, 4, 15, 17, 26, 34, 38, 51, 61, 73],
    ]
    opening = ns.generate_boards(2, 5, 5, 5, seed=42, first_click="opening", click=(2, 2))
    assert [np.flatnonzero(m).tolist() for m in opening.mines] == [
        [1, 3, 14, 20, 21],
        [1, 2, 3, 14, 15],
    ]
    assert _digest(ns.generate_boards(1000, 16, 30, 99, seed=2024)) == "016a9c5f3a1b823c"
    # Two placement steps of 2**23 cells.
    assert _digest(ns.generate_boards(20_000, 16, 30, 99, seed=2024)) == "241befa96510f66d"


@pytest.mark.parametrize("seed", [0, 12345, np.random.SeedSequence(5)])
def test_same_seed_same_batch(seed: object) -> None:
    first = ns.generate_boards(500, 16, 30, 99, seed=seed)
    again = ns.generate_boards(500, 16, 30, 99, seed=seed)
    np.testing.assert_array_equal(first.mines, again.mines)
    other = ns.generate_boards(500, 16, 30, 99, seed=1)
    assert not np.array_equal(first.mines, other.mines)


def test_generator_seed_is_a_stream() -> None:
    rng = np.random.default_rng(8)
    first = ns.generate_boards(10, 9, 9, 10, seed=rng)
    second = ns.generate_boards(10, 9, 9, 10, seed=rng)
    assert not np.array_equal(first.mines, second.mines)
    again = ns.generate_boards(10, 9, 9, 10, seed=np.random.default_rng(8))
    np.testing.assert_array_equal(first.mines, again.mines)


# -- iter_boards -------------------------------------------------------------------


def test_iter_boards_chunks_come_from_child_seeds() -> None:
    chunks = list(ns.iter_boards(25, 9, 9, 10, seed=6, chunk_size=10))
    assert [len(c) for c in chunks] == [10, 10, 5]
    children = np.random.SeedSequence(6).spawn(3)
    for chunk, child, n in zip(chunks, children, [10, 10, 5], strict=True):
        expected = ns.generate_boards(n, 9, 9, 10, seed=child)
        np.testing.assert_array_equal(chunk.mines, expected.mines)
        np.testing.assert_array_equal(chunk.counts, expected.counts)


def test_iter_boards_is_reproducible_and_never_spawns_from_the_callers_seed() -> None:
    root = np.random.SeedSequence(11)
    first = np.concatenate([c.mines for c in ns.iter_boards(30, 9, 9, 10, seed=root, chunk_size=7)])
    again = np.concatenate([c.mines for c in ns.iter_boards(30, 9, 9, 10, seed=root, chunk_size=7)])
    np.testing.assert_array_equal(first, again)
    assert root.n_children_spawned == 0
    from_int = np.concatenate(
        [c.mines for c in ns.iter_boards(30, 9, 9, 10, seed=11, chunk_size=7)]
    )
    np.testing.assert_array_equal(first, from_int)


def test_iter_boards_slices_per_board_clicks() -> None:
    clicks = np.stack([np.arange(12) % 9, np.arange(12) % 7], axis=1)
    chunks = list(
        ns.iter_boards(12, 9, 9, 10, seed=1, chunk_size=5, first_click="opening", click=clicks)
    )
    mines = np.concatenate([c.mines for c in chunks])
    counts = np.concatenate([c.counts for c in chunks])
    assert not counts[np.arange(12), clicks[:, 0], clicks[:, 1]].any()
    assert not mines[np.arange(12), clicks[:, 0], clicks[:, 1]].any()


def test_iter_boards_checks_arguments_before_the_first_chunk() -> None:
    with pytest.raises(ns.InvalidBoardError, match="chunk_size"):
        ns.iter_boards(10, 9, 9, 10, chunk_size=0)
    with pytest.raises(ns.InvalidBoardError, match="mines"):
        ns.iter_boards(10, 9, 9, 81)
    with pytest.raises(TypeError, match="chunk_size"):
        ns.iter_boards(10, 9, 9, 10, chunk_size=2.5)  # type: ignore[arg-type]
    assert list(ns.iter_boards(0, 9, 9, 10)) == []


# -- BoardBatch --------------------------------------------------------------------


def test_batch_items_are_playable_boards_with_their_own_arrays() -> None:
    batch = ns.generate_boards(5, 9, 9, 10, seed=3)
    board = batch[-1]
    assert isinstance(board, ns.Board)
    np.testing.assert_array_equal(board.mines, batch.mines[4])
    np.testing.assert_array_equal(board.counts, batch.counts[4])
    assert not np.shares_memory(board.mines, batch.mines)
    assert not np.shares_memory(board.counts, batch.counts)
    game = ns.Game(batch[4])
    row, col = (int(v) for v in np.argwhere(~batch.mines[4])[0])
    assert len(game.reveal(row, col).cells) >= 1
    assert not batch.mines.flags.writeable and not batch.counts.flags.writeable
    assert len(batch) == 5 and batch.rows == 9 and batch.cols == 9 and batch.mine_count == 10
    assert repr(batch) == "<BoardBatch of 5 boards 9x9, 10 mines>"


def test_batch_index_errors() -> None:
    batch = ns.generate_boards(2, 3, 3, 1, seed=0)
    with pytest.raises(IndexError, match="out of range"):
        batch[2]
    with pytest.raises(TypeError, match="index"):
        batch[0.0]  # type: ignore[index]


def test_empty_batch() -> None:
    batch = ns.generate_boards(0, 16, 30, 99, seed=0)
    assert len(batch) == 0 and batch.mines.shape == (0, 16, 30) and batch.mine_count == 0


# -- errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((-1, 9, 9, 10), {}, ns.InvalidBoardError, "n must be >= 0, got -1"),
        ((2.0, 9, 9, 10), {}, TypeError, "n must be an integer"),
        ((2, 0, 9, 10), {}, ns.InvalidBoardError, "rows must be >= 1"),
        ((2, 9, 9, 81), {}, ns.InvalidBoardError, "mines must be in 0..80"),
        ((2, 9, 9, "10"), {}, TypeError, "mines must be an integer"),
        ((2, 9, 9, 10), {"first_click": "corner"}, ValueError, "'corner'"),
        ((2, 9, 9, 73), {"first_click": "opening", "click": (4, 4)}, ns.InvalidBoardError, "72"),
        ((2, 9, 9, 10), {"first_click": "safe"}, TypeError, "needs click"),
        ((2, 9, 9, 10), {"click": (0, 0)}, TypeError, "needs a first_click"),
        ((2, 9, 9, 10), {"first_click": "safe", "click": (9, 0)}, ns.OutOfBoundsError, r"\(9, 0\)"),
        ((2, 9, 9, 10), {"first_click": "safe", "click": (0, -1)}, ns.OutOfBoundsError, "off"),
        ((2, 9, 9, 10), {"first_click": "safe", "click": (1, 2, 3)}, ns.InvalidBoardError, "shape"),
        (
            (2, 9, 9, 10),
            {"first_click": "safe", "click": [[0, 0]] * 3},
            ns.InvalidBoardError,
            "(2, 2)",
        ),
        ((2, 9, 9, 10), {"first_click": "safe", "click": (0.5, 1)}, TypeError, "integers"),
    ],
)
def test_bad_arguments_raise_the_core_errors(
    args: tuple[object, ...], kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        ns.generate_boards(*args, seed=0, **kwargs)  # type: ignore[arg-type]


def test_hand_built_batch_is_checked_and_copied() -> None:
    mines = np.zeros((2, 3, 3), dtype=bool)
    mines[:, 0, 0] = True
    counts = adjacent_counts(mines)
    batch = ns.BoardBatch(mines, counts)
    mines[0, 2, 2] = True  # the caller's array stays writeable and unshared
    assert not batch.mines[0, 2, 2] and batch.mine_count == 1
    with pytest.raises(ValueError):
        batch.mines[0, 0, 0] = False
    uneven = np.zeros((2, 3, 3), dtype=bool)
    uneven[0, 0, 0] = True
    with pytest.raises(ns.InvalidBoardError, match="board 1 has 0"):
        ns.BoardBatch(uneven, adjacent_counts(uneven))
    wrong = counts.copy()
    wrong[1, 1, 1] = 0
    with pytest.raises(ns.InvalidBoardError, match="counts of board 1"):
        ns.BoardBatch(np.array(batch.mines), wrong)
    with pytest.raises(ns.InvalidBoardError, match="3-D bool"):
        ns.BoardBatch(mines[0], counts[0])
    with pytest.raises(ns.InvalidBoardError, match="int8"):
        ns.BoardBatch(mines, counts.astype(np.int16))
    full = np.ones((1, 2, 2), dtype=bool)
    with pytest.raises(ns.InvalidBoardError, match="mines must be in"):
        ns.BoardBatch(full, adjacent_counts(full))


def test_seed_sequence_children_already_spawned_are_not_reused() -> None:
    root = np.random.SeedSequence(2024)
    (first,) = root.spawn(1)
    reused = next(ns.iter_boards(5, 9, 9, 10, seed=root, chunk_size=5))
    assert not np.array_equal(reused.mines, ns.generate_boards(5, 9, 9, 10, seed=first).mines)
    assert root.n_children_spawned == 1  # the caller's sequence is not advanced


# -- strategies on the bulk path ----------------------------------------------------------


class Duck:
    """A strategy by duck typing: ``place`` only, not even a subclass."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def place(self, rows, cols, mines, *, safe=None):  # type: ignore[no-untyped-def]
        keys = self.rng.random(rows * cols)
        if safe is not None:
            keys[safe.reshape(-1)] = 2.0
        flat = np.zeros(rows * cols, dtype=bool)
        flat[np.argsort(keys)[:mines]] = True
        return flat.reshape(rows, cols)


def test_generate_boards_takes_any_strategy() -> None:
    batch = ns.generate_boards(50, 9, 9, 10, strategy=Duck(1), first_click="opening", click=(4, 4))
    assert (batch.mines.sum(axis=(1, 2)) == 10).all()
    assert not batch.mines[:, 3:6, 3:6].any()
    np.testing.assert_array_equal(batch.counts, adjacent_counts(batch.mines))
    again = ns.generate_boards(50, 9, 9, 10, strategy=Duck(1), first_click="opening", click=(4, 4))
    np.testing.assert_array_equal(batch.mines, again.mines)
    fixed = ns.generate_boards(3, 2, 3, 2, strategy=ns.FixedPlacement([(0, 0), (1, 2)]))
    assert fixed.mines.tolist() == [[[True, False, False], [False, False, True]]] * 3
    with pytest.raises(TypeError, match="not both"):
        ns.generate_boards(3, 2, 3, 2, strategy=Duck(1), seed=1)
    with pytest.raises(ns.InvalidBoardError, match="must stay safe on board 0"):
        ns.generate_boards(
            2,
            2,
            3,
            2,
            strategy=ns.FixedPlacement([(0, 0), (1, 2)]),
            first_click="safe",
            click=(0, 0),
        )


def test_the_default_strategy_is_the_one_sampler() -> None:
    by_strategy = ns.generate_boards(30, 16, 30, 99, strategy=ns.RandomPlacement(seed=6))
    by_seed = ns.generate_boards(30, 16, 30, 99, seed=6)
    np.testing.assert_array_equal(by_strategy.mines, by_seed.mines)


def test_iter_boards_reseeds_the_strategy_per_chunk() -> None:
    chunks = list(ns.iter_boards(6, 5, 5, 4, seed=2, strategy=Duck(0), chunk_size=2))
    again = list(ns.iter_boards(6, 5, 5, 4, seed=2, strategy=Duck(0), chunk_size=2))
    for a, b in zip(chunks, again, strict=True):
        np.testing.assert_array_equal(a.mines, b.mines)
    # Duck has no with_seed: each chunk gets a copy whose Generator draws
    # from the chunk's seed, so the chunks differ.
    assert not np.array_equal(chunks[0].mines, chunks[1].mines)
    assert not np.array_equal(chunks[1].mines, chunks[2].mines)
    random_chunks = list(
        ns.iter_boards(6, 5, 5, 4, seed=2, strategy=ns.RandomPlacement(), chunk_size=2)
    )
    child = np.random.SeedSequence(2).spawn(3)[1]
    np.testing.assert_array_equal(
        random_chunks[1].mines, ns.generate_boards(2, 5, 5, 4, seed=child).mines
    )
