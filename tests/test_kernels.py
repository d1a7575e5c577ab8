"""The pure array kernels against plain loops, scipy and a textbook BFS."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis.extra import numpy as hnp
from scipy import ndimage

import numsweeper as ns
from numsweeper._kernels import adjacent_counts, flood_from, visible_cells
from reference import LOST, WON, RefGame, random_dims, random_layout
from reference import adjacent_counts as ref_counts

KERNEL = np.ones((3, 3), dtype=np.int8)
KERNEL[1, 1] = 0


def scipy_counts(mines: np.ndarray) -> np.ndarray:
    """The 3x3 correlation the design names, with zero padding."""
    return ndimage.correlate(mines.astype(np.int8), KERNEL, mode="constant", cval=0)


# -- adjacent_counts ----------------------------------------------------------


def test_adjacent_counts_small_known_values() -> None:
    mines = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 1]], dtype=bool)
    assert adjacent_counts(mines).tolist() == [[0, 1, 0], [1, 2, 1], [0, 1, 0]]


def test_adjacent_counts_reaches_eight_and_ignores_own_cell() -> None:
    mines = np.ones((3, 3), dtype=bool)
    counts = adjacent_counts(mines)
    assert counts[1, 1] == 8
    assert counts.tolist() == [[3, 5, 3], [5, 8, 5], [3, 5, 3]]
    assert adjacent_counts(np.ones((1, 1), dtype=bool)).tolist() == [[0]]


def test_adjacent_counts_matches_loops_on_random_boards() -> None:
    rng = np.random.default_rng(20261129)
    for _ in range(400):
        rows, cols = random_dims(rng)
        mines = rng.random((rows, cols)) < rng.random()
        got = adjacent_counts(mines)
        assert got.dtype == np.int8 and got.shape == (rows, cols)
        assert got.tolist() == ref_counts(mines.tolist())


def test_adjacent_counts_matches_scipy_on_thousands_of_boards() -> None:
    rng = np.random.default_rng(7)
    for _ in range(3000):
        rows, cols = random_dims(rng)
        mines = rng.random((rows, cols)) < rng.random()
        np.testing.assert_array_equal(adjacent_counts(mines), scipy_counts(mines))


@given(hnp.arrays(bool, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=40)))
def test_adjacent_counts_property(mines: np.ndarray) -> None:
    assert adjacent_counts(mines).tolist() == ref_counts(mines.tolist())


@pytest.mark.parametrize("lead", [(1,), (5,), (2, 3)])
def test_adjacent_counts_batched_equals_board_by_board(lead: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(lead) * 10 + lead[0])
    for rows, cols in [(1, 1), (1, 7), (6, 1), (9, 9), (16, 30), (23, 17)]:
        mines = rng.random((*lead, rows, cols)) < 0.3
        batched = adjacent_counts(mines)
        assert batched.shape == mines.shape and batched.dtype == np.int8
        for index in np.ndindex(*lead):
            # Neighbouring boards of a batch must never count each other's mines.
            np.testing.assert_array_equal(batched[index], scipy_counts(mines[index]))


def test_adjacent_counts_batch_boards_do_not_leak() -> None:
    mines = np.zeros((3, 4, 4), dtype=bool)
    mines[0] = True  # a full board next to empty ones
    counts = adjacent_counts(mines)
    assert not counts[1:].any()
    mines[:] = False
    mines[1, 0, 0] = mines[1, 3, 3] = True  # corners touch the other boards' edges
    counts = adjacent_counts(mines)
    assert not counts[0].any() and not counts[2].any()


def test_adjacent_counts_leaves_input_alone_and_takes_views() -> None:
    rng = np.random.default_rng(3)
    mines = rng.random((30, 20)) < 0.3
    before = mines.copy()
    for view in (mines.T, mines[::2, ::3], mines[5:, 2:-1]):
        np.testing.assert_array_equal(adjacent_counts(view), scipy_counts(view))
    np.testing.assert_array_equal(mines, before)
    read_only = mines.copy()
    read_only.flags.writeable = False
    np.testing.assert_array_equal(adjacent_counts(read_only), scipy_counts(mines))


# -- flood_from ----------------------------------------------------------------


def ref_flood(
    mines: np.ndarray, revealed: np.ndarray, flagged: np.ndarray, row: int, col: int
) -> set[tuple[int, int]]:
    ref = RefGame(mines.tolist())
    ref.revealed = revealed.tolist()
    ref.flagged = flagged.tolist()
    return ref._open(row, col)


def kernel_flood(
    mines: np.ndarray, revealed: np.ndarray, flagged: np.ndarray, row: int, col: int
) -> set[tuple[int, int]]:
    counts = adjacent_counts(mines)
    (r0, c0), mask = flood_from(counts, [mines, revealed, flagged], row, col)
    assert mask.dtype == bool
    assert 0 <= r0 <= row < r0 + mask.shape[0] <= mines.shape[0]
    assert 0 <= c0 <= col < c0 + mask.shape[1] <= mines.shape[1]
    return {(int(r) + r0, int(c) + c0) for r, c in np.argwhere(mask)}


def test_flood_from_matches_bfs_on_thousands_of_boards() -> None:
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 1500:
        rows, cols = random_dims(rng)
        mines = random_layout(rng, rows, cols)
        counts = adjacent_counts(mines)
        revealed = (rng.random((rows, cols)) < rng.choice([0.0, 0.1, 0.3])) & ~mines
        flagged = (rng.random((rows, cols)) < rng.choice([0.0, 0.05, 0.2])) & ~revealed
        start = np.argwhere(~mines & ~revealed & ~flagged & (counts == 0))
        if not len(start):
            continue
        row, col = (int(v) for v in start[rng.integers(len(start))])
        got = kernel_flood(mines, revealed, flagged, row, col)
        assert got == ref_flood(mines, revealed, flagged, row, col)
        assert not any(mines[c] or revealed[c] or flagged[c] for c in got)
        checked += 1


def test_flood_from_joins_parts_connected_only_outside_the_first_window() -> None:
    # A wall hangs from the top edge: its two sides meet only below it, far
    # outside the first labelling window around the click.
    mines = np.zeros((60, 60), dtype=bool)
    mines[:50, 30] = True
    no = np.zeros_like(mines)
    got = kernel_flood(mines, no, no, 10, 27)
    assert got == ref_flood(mines, no, no, 10, 27)
    assert (10, 33) in got and (0, 59) in got
    assert len(got) == 60 * 60 - 50


def test_flood_from_snake_spanning_a_large_board() -> None:
    # Horizontal walls with alternating gaps make one long zig-zag path.
    rows, cols = 120, 90
    mines = np.zeros((rows, cols), dtype=bool)
    for i, r in enumerate(range(4, rows - 2, 4)):
        mines[r, :] = True
        mines[r, (cols - 3 if i % 2 == 0 else 0) :][:3] = False
    no = np.zeros_like(mines)
    got = kernel_flood(mines, no, no, 0, 0)
    assert got == ref_flood(mines, no, no, 0, 0)
    assert (rows - 1, cols - 1) in got


def test_flood_from_flags_block_and_are_not_revealed() -> None:
    mines = np.zeros((5, 5), dtype=bool)
    flagged = np.zeros_like(mines)
    flagged[:, 2] = True  # a wall of flags splits the board
    got = kernel_flood(mines, np.zeros_like(mines), flagged, 2, 0)
    assert got == {(r, c) for r in range(5) for c in range(2)}


def test_flood_from_does_not_cross_revealed_cells() -> None:
    mines = np.zeros((5, 5), dtype=bool)
    revealed = np.zeros_like(mines)
    revealed[:, 2] = True
    got = kernel_flood(mines, revealed, np.zeros_like(mines), 0, 4)
    assert got == {(r, c) for r in range(5) for c in range(3, 5)}


def test_flood_from_leaves_inputs_alone() -> None:
    rng = np.random.default_rng(5)
    mines = rng.random((30, 30)) < 0.05
    counts = adjacent_counts(mines)
    flagged = rng.random((30, 30)) < 0.05
    before = [a.copy() for a in (counts, mines, flagged)]
    start = np.argwhere(~mines & ~flagged & (counts == 0))[0]
    flood_from(counts, [mines, flagged], int(start[0]), int(start[1]))
    for a, b in zip((counts, mines, flagged), before, strict=True):
        np.testing.assert_array_equal(a, b)


# -- visible_cells --------------------------------------------------------------


def random_ref_state(rng: np.random.Generator, rows: int, cols: int, end: str) -> RefGame:
    """A reference game with random reveals and flags, ended as asked."""
    mines = random_layout(rng, rows, cols)
    ref = RefGame(mines)
    for r, c in np.argwhere(~mines):
        if rng.random() < 0.3:
            ref.revealed[r][c] = True
    for r, c in np.argwhere(rng.random((rows, cols)) < 0.2):
        if not ref.revealed[r][c]:
            ref.flagged[r][c] = True
    if end == LOST and mines.any():
        hit = np.argwhere(mines & ~np.array(ref.flagged))
        if len(hit):
            ref.exploded.add(tuple(int(v) for v in hit[rng.integers(len(hit))]))
            ref.state = LOST
    if end == WON:
        ref.revealed = (~mines).tolist()
        ref.flagged = [
            [f and m for f, m in zip(fr, mr, strict=True)]
            for fr, mr in zip(ref.flagged, mines.tolist(), strict=True)
        ]
        ref.state = WON
    return ref


def kernel_visible(refs: list[RefGame]) -> np.ndarray:
    def stack(name: str) -> np.ndarray:
        return np.array([getattr(ref, name) for ref in refs], dtype=bool)

    counts = np.array([ref.counts for ref in refs], dtype=np.int8)
    exploded = np.zeros(counts.shape, dtype=bool)
    for i, ref in enumerate(refs):
        for r, c in ref.exploded:
            exploded[i, r, c] = True
    lost = np.array([ref.state == LOST for ref in refs])
    won = np.array([ref.state == WON for ref in refs])
    # The engine marks a mine it uncovered as revealed: that is what exploded means.
    revealed = stack("revealed") | exploded
    return visible_cells(counts, revealed, stack("flagged"), stack("mines"), lost=lost, won=won)


def test_visible_cells_batched_matches_reference() -> None:
    rng = np.random.default_rng(17)
    for _ in range(60):
        rows, cols = random_dims(rng, 12)
        refs = [random_ref_state(rng, rows, cols, end) for end in ("", LOST, WON, "", LOST)]
        got = kernel_visible(refs)
        assert got.dtype == np.int8
        assert got.tolist() == [ref.visible() for ref in refs]
        # One board at a time, with scalar flags, gives the same.
        for i, ref in enumerate(refs):
            assert kernel_visible([ref])[0].tolist() == got[i].tolist()


def test_visible_cells_in_progress_hides_mines() -> None:
    mines = np.array([[True, False], [False, True]])
    no = np.zeros_like(mines)
    counts = adjacent_counts(mines)
    flagged = np.array([[True, True], [False, False]])
    got = visible_cells(counts, no, flagged, mines)
    assert got.tolist() == [[ns.FLAG, ns.FLAG], [ns.HIDDEN, ns.HIDDEN]]
