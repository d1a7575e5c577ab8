"""ns.solver.analyze against brute-force enumeration of every layout."""

from __future__ import annotations

import contextlib
import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts
from numsweeper.solver import MAX_STATES, Analyzer, analyze
from numsweeper.solver.lookahead import _Prober
from numsweeper.solver.structure import frontier

H, F = int(ns.HIDDEN), int(ns.FLAG)
MAX_COMBOS = 20_000


def brute(
    cells: NDArray[np.int8], mines: int, trust_flags: bool = False
) -> tuple[int, NDArray[np.float64]] | None:
    """Every layout of ``mines`` mines on the board that explains ``cells``.

    Returns (number of layouts, mine probability per cell), or None when the
    enumeration would be too large to be a quick reference.
    """
    rows, cols = cells.shape
    known = (cells == F) if trust_flags else np.zeros(cells.shape, dtype=bool)
    unknown = (cells < 0) & ~known
    m = mines - int(known.sum())
    cand = [tuple(rc) for rc in np.argwhere(unknown).tolist()]
    if m < 0 or m > len(cand):
        return 0, np.full(cells.shape, np.nan)
    if math.comb(len(cand), m) > MAX_COMBOS:
        return None
    count = 0
    hits = np.zeros(cells.shape, dtype=np.int64)
    for combo in itertools.combinations(range(len(cand)), m):
        layout = known.copy()
        for i in combo:
            layout[cand[i]] = True
        counts = adjacent_counts(layout)
        shown = cells >= 0
        if np.array_equal(counts[shown], cells[shown].astype(np.int8)):
            count += 1
            hits += layout
    probs = np.full(cells.shape, np.nan)
    if count:
        for r in range(rows):
            for c in range(cols):
                if cells[r, c] < 0:
                    probs[r, c] = float(Fraction(int(hits[r, c]), count))
    return count, probs


def random_position(rng: np.random.Generator) -> tuple[NDArray[np.int8], int, NDArray[np.bool_]]:
    """A visible state of a random small board, plus its true mine layout."""
    rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 7))
    n = rows * cols
    mines = int(rng.integers(0, n))
    layout = np.zeros(n, dtype=bool)
    layout[rng.choice(n, mines, replace=False)] = True
    layout = layout.reshape(rows, cols)
    counts = adjacent_counts(layout)
    revealed = ~layout & (rng.random((rows, cols)) < rng.random())
    cells = np.where(revealed, counts, H).astype(np.int8)
    flags = ~revealed & (rng.random((rows, cols)) < 0.2)
    cells[flags] = F
    return cells, mines, layout


def test_against_brute_force_on_thousands_of_positions() -> None:
    rng = np.random.default_rng(2024)
    checked = 0
    while checked < 2000:
        cells, mines, layout = random_position(rng)
        trust = bool(rng.integers(2)) and not ((cells == F) & ~layout).any()
        ref = brute(cells, mines, trust)
        if ref is None:
            continue
        count, probs = ref
        assert count > 0  # a real layout explains it
        a = analyze(cells, mines, trust_flags=trust)
        assert a.exact
        assert a.layouts == count
        hidden = cells < 0
        if trust:
            hidden &= cells != F
        np.testing.assert_allclose(a.probabilities[hidden], probs[hidden], rtol=0, atol=1e-12)
        assert np.isnan(a.probabilities[cells >= 0]).all()
        if trust:
            assert (a.probabilities[cells == F] == 1.0).all()
        safe = np.zeros(cells.shape, dtype=bool)
        safe[tuple(a.safe.T)] = True
        certain = np.zeros(cells.shape, dtype=bool)
        certain[tuple(a.mines.T)] = True
        assert np.array_equal(safe, hidden & (probs == 0))
        expect_mine = hidden & (probs == 1)
        if trust:
            expect_mine |= cells == F
        assert np.array_equal(certain, expect_mine)
        checked += 1


def test_inconsistent_states_raise_exactly_when_no_layout_exists() -> None:
    rng = np.random.default_rng(7)
    raised = fine = 0
    while raised + fine < 600:
        rows, cols = int(rng.integers(1, 5)), int(rng.integers(1, 6))
        cells = rng.integers(-2, 4, size=(rows, cols)).astype(np.int8)
        mines = int(rng.integers(0, rows * cols + 1))
        ref = brute(cells, mines)
        if ref is None:
            continue
        if ref[0] == 0:
            with pytest.raises(ns.InvalidBoardError, match=r"cell \(\d+, \d+\)|no layout fits"):
                analyze(cells, mines)
            raised += 1
        else:
            assert analyze(cells, mines).layouts == ref[0]
            fine += 1
    assert raised > 100 and fine > 20


def test_contradiction_names_the_cell() -> None:
    cells = np.array([[1, H], [H, 2]], dtype=np.int8)  # 1 and 2 over the same two cells
    with pytest.raises(ns.InvalidBoardError, match=r"cell \([01], [01]\)"):
        analyze(cells, 2)
    cells = np.array([[H, 1, 0], [H, 2, 0]], dtype=np.int8)
    with pytest.raises(ns.InvalidBoardError, match=r"cell \([01], 1\)"):
        analyze(cells, 2)


def test_one_cell_s_questions_check_the_cell() -> None:
    a = analyze(np.array([[1, H]], dtype=np.int8), 1)
    assert a.probability(0, 1) == 1.0 and not a.certainly_safe(0, 1)
    assert a.probability(np.int64(0), np.uint8(1)) == 1.0  # numpy integers are integers
    for ask in (a.probability, a.certainly_safe):
        # (-1 once wrapped round to the last column, and gave nan there)
        for row, col, name in (
            (0, -1, "col -1"),
            (0, 2, "col 2"),
            (-1, 0, "row -1"),
            (1, 0, "row 1"),
        ):
            with pytest.raises(ns.OutOfBoundsError, match=rf"{name} is off the board"):
                ask(row, col)
        for bad in (1.0, np.bool_(True), "1"):
            with pytest.raises(ns.InvalidTypeError, match="col"):
                ask(0, bad)


def test_an_engine_s_memory_sizes_are_checked() -> None:
    for name in ("components", "structures"):
        with pytest.raises(ns.InvalidBoardError, match=rf"{name} must be >= 0, got -1"):
            ns.solver.Analyzer(**{name: -1})
        with pytest.raises(ns.InvalidTypeError, match=name):
            ns.solver.Analyzer(**{name: 2.5})
    engine = ns.solver.Analyzer(structures=0, components=0)  # remembers nothing, still counts
    assert engine.analyze(np.array([[1, H]], dtype=np.int8), 1).probability(0, 1) == 1.0


def test_accepts_snapshot_and_game() -> None:
    game = ns.Game.from_preset("intermediate", seed=5, first_click="opening")
    game.reveal(7, 7)
    game.toggle_flag(0, 0)
    by_game = analyze(game)
    by_snap = analyze(game.snapshot())
    by_array = analyze(game.snapshot().cells, 40)
    for other in (by_snap, by_array):
        np.testing.assert_array_equal(by_game.probabilities, other.probabilities)
        assert by_game.layouts == other.layouts
    assert np.isfinite(by_game.probabilities[0, 0])
    # The total may be given too, but not another one: a Snapshot's
    # mines_left (the total less the flags) is the likely slip.
    assert analyze(game, 40).layouts == analyze(game.snapshot(), 40).layouts == by_game.layouts
    won = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    won.reveal(2, 2)  # (no flag of the player's: a won game shows its mines as flags)
    assert analyze(won).layouts == analyze(won, 1).layouts == 1
    with pytest.raises(ns.InvalidBoardError, match=r"own 1 \(a won game shows every mine as a"):
        analyze(won, 2)
    for given in (game, game.snapshot()):
        with pytest.raises(
            ns.InvalidBoardError,
            match=r"mines=39 contradicts the game's own 40 \(39 left besides 1 flag\); leave",
        ):
            analyze(given, game.snapshot().mines_left)


def test_rejects_bad_input() -> None:
    with pytest.raises(ns.InvalidTypeError, match="mines is required when visible is an array"):
        analyze(np.zeros((2, 2), dtype=np.int8))
    with pytest.raises(ns.InvalidTypeError, match="visible must hold integers, got dtype float64"):
        analyze(np.zeros((2, 2)), 1)
    with pytest.raises(ns.InvalidBoardError, match="-3"):
        analyze(np.array([[int(ns.MINE), 1]], dtype=np.int8), 1)
    with pytest.raises(ns.InvalidBoardError, match="mines"):
        analyze(np.full((2, 2), H, dtype=np.int8), 5)
    with pytest.raises(ns.InvalidBoardError, match="flags exceed"):
        analyze(np.full((1, 2), F, dtype=np.int8), 1, trust_flags=True)
    with pytest.raises(ns.InvalidBoardError, match=r"cell \(0, 1\) holds 300, not a count"):
        analyze(np.array([[H, 300]]), 1)  # not wrapped into int8
    with pytest.raises(ns.InvalidBoardError, match="no layout fits 1 hidden mine among"):
        analyze(np.array([[0, H]], dtype=np.int8), 1)


def test_huge_board_stays_exact_without_overflow() -> None:
    # 4 million hidden cells: C(u, 600000) has ~10^6 digits, yet nothing
    # overflows and the probabilities are exact ratios.
    rows, cols, mines = 2000, 2000, 600_000
    cells = np.full((rows, cols), H, dtype=np.int8)
    cells[0, 0] = 1  # one mine among (0, 1), (1, 0), (1, 1)
    cells[0, 2] = 2  # and (0, 3), (1, 2), (1, 3) hold 2 minus what (0, 1), (1, 1) hold
    a = analyze(cells, mines)
    u = rows * cols - 8
    assert a.unconstrained == u
    # By hand: {(0,1), (1,1)} holds a mines, (1,0) holds 1 - a and
    # {(0,3), (1,2), (1,3)} holds 2 - a: a = 0 gives 3 layouts with K = 3,
    # a = 1 gives 2 * 3 layouts with K = 2.
    assert a.frontier_mines == {3: 3, 2: 6}
    r = Fraction(mines - 2, u - mines + 3)  # C(u, m - 3) / C(u, m - 2)
    assert a.probabilities[1, 0] == float(3 * r / (3 * r + 6))
    p_off = (3 * r * (mines - 3) + 6 * (mines - 2)) / ((3 * r + 6) * u)
    assert a.probabilities[5, 5] == float(p_off)


def test_layouts_exact_on_a_large_board() -> None:
    cells = np.full((300, 300), H, dtype=np.int8)
    cells[0, 0] = 1
    a = analyze(cells, 20_000)
    assert a.layouts == 3 * math.comb(300 * 300 - 4, 20_000 - 1)


def test_long_frontier_counts_fast() -> None:
    # A 4 x 400 strip: mines in row 1, and only the even columns of row 2
    # revealed.  One long component with astronomically many layouts.
    rng = np.random.default_rng(3)
    layout = np.zeros((4, 400), dtype=bool)
    layout[1] = rng.random(400) < 0.3
    cells = np.full(layout.shape, H, dtype=np.int8)
    cells[2, ::2] = adjacent_counts(layout)[2, ::2]
    a = analyze(cells, int(layout.sum()))
    assert a.exact and a.layouts > 2**40
    assert not layout[tuple(a.safe.T)].any()
    assert layout[tuple(a.mines.T)].all()


def test_guard_relaxes_but_stays_sound() -> None:
    rng = np.random.default_rng(1)
    for _ in range(30):
        cells, mines, layout = random_position(rng)
        cells[cells == F] = H
        exact = analyze(cells, mines)
        relaxed = analyze(cells, mines, max_states=1)
        assert not layout[tuple(relaxed.safe.T)].any()
        assert layout[tuple(relaxed.mines.T)].all()
        assert relaxed.layouts >= exact.layouts


def test_certain_cells_are_right_on_ten_thousand_mid_game_positions() -> None:
    rng = np.random.default_rng(11)
    positions = safe_seen = 0
    while positions < 10_000:
        rows, cols = int(rng.integers(5, 13)), int(rng.integers(5, 13))
        mines = int(rng.integers(1, rows * cols // 4 + 2))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        safe_cells = np.argwhere(~board.mines)
        for r, c in safe_cells[rng.permutation(len(safe_cells))[: int(rng.integers(1, 6))]]:
            board.reveal(int(r), int(c))
            if board.hidden_safe == 0:
                break
            cells = np.where(board.revealed, board.counts, H).astype(np.int8)
            a = analyze(cells, mines)
            assert not board.mines[tuple(a.safe.T)].any()
            assert board.mines[tuple(a.mines.T)].all()
            safe_seen += len(a.safe)
            positions += 1
    assert safe_seen > 10_000


def exact_probabilities(cells: NDArray[np.int8], mines: int) -> NDArray[np.float64]:
    """Each hidden cell's mine probability as the float nearest the exact ratio.

    A reference for the whole engine past the structure: every component is
    counted by the Python-integer count (not the kernel), and every group's
    probability is summed here one term at a time, with plain binomials,
    and rounded once.
    """
    from numsweeper.solver.longcount import count_exact

    shape = frontier(cells < 0, cells >= 0)
    need = cells.astype(np.int64).ravel()[shape.con_flat].tolist()
    counted = [
        count_exact(shape.groups(j), shape.group_cons, shape.sizes.tolist(), need, 10**9)
        for j in range(shape.n_parts)
    ]
    u = shape.unconstrained

    def product(ps: list[dict[int, int]]) -> dict[int, int]:
        out = {0: 1}
        for p in ps:
            step: dict[int, int] = {}
            for a, x in out.items():
                for b, y in p.items():
                    step[a + b] = step.get(a + b, 0) + x * y
            out = step
        return out

    def off(k: int) -> int:  # layouts of the unconstrained cells
        return math.comb(u, mines - k) if 0 <= mines - k <= u else 0

    polys = [poly for poly, _ in counted]
    whole = product(polys)
    grand = sum(n * off(k) for k, n in whole.items())
    probs = np.full(cells.size, np.nan)
    for j, (_, marginals) in enumerate(counted):
        others = product(polys[:j] + polys[j + 1 :])
        for g, row in zip(shape.groups(j), marginals, strict=True):
            num = sum(mined * n * off(a + b) for a, mined in row.items() for b, n in others.items())
            probs[shape.front_flat[shape.group_of == g]] = float(
                Fraction(num, grand * int(shape.sizes[g]))
            )
    rest = (cells < 0).ravel().copy()
    rest[shape.front_flat] = False
    if u:
        num = sum(n * off(k) * (mines - k) for k, n in whole.items())
        probs[rest] = float(Fraction(num, grand * u))
    return probs.reshape(cells.shape)


@pytest.mark.parametrize("compiled", [True, False])
def test_probabilities_are_the_floats_nearest_the_exact_ratios(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Expert mid-game positions and dense strips, where the ratios are far
    # from exact binary fractions: every probability must be the correctly
    # rounded exact value, bit for bit (no float sums or products), whether
    # a component's groups are summed in int64 by the kernel (where the
    # layouts are few enough) or in Python integers.
    from numsweeper.solver import analysis

    calls = [0]
    kernel = analysis.group_shares

    def counted(*args: Any) -> None:
        calls[0] += 1
        kernel(*args)

    monkeypatch.setattr(analysis, "group_shares", counted)
    if not compiled:
        monkeypatch.setattr(analysis, "_SMALL_GRAND", 0)
    rng = np.random.default_rng(31)
    inexact = 0
    for i in range(300):
        if i % 3:
            rows, cols, mines = 16, 30, 99
        else:
            rows, cols = 3, int(rng.integers(20, 60))
            mines = int(rng.integers(cols // 3, cols))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        safe_cells = np.argwhere(~board.mines)
        for r, c in safe_cells[rng.permutation(len(safe_cells))[: int(rng.integers(1, 12))]]:
            board.reveal(int(r), int(c))
        if board.hidden_safe == 0:
            continue
        cells = np.where(board.revealed, board.counts, H).astype(np.int8)
        got = analyze(cells, mines).probabilities
        want = exact_probabilities(cells, mines)
        np.testing.assert_array_equal(got, want)
        inexact += int(np.count_nonzero((want * 2**20) % 1 > 0))
    assert inexact > 3000
    assert (calls[0] > 50) if compiled else calls[0] == 0, calls


def test_component_cache_hits_match_fresh_counts() -> None:
    rng = np.random.default_rng(21)
    positions = []
    for _ in range(40):
        board = ns.Board.create(16, 30, 99, ns.RandomPlacement(rng))
        safe_cells = np.argwhere(~board.mines)
        for r, c in safe_cells[rng.permutation(len(safe_cells))[:12]]:
            board.reveal(int(r), int(c))
        positions.append(np.where(board.revealed, board.counts, H).astype(np.int8))
    fresh = [analyze(cells, 99) for cells in positions]  # each from an empty memory
    engine = Analyzer()
    for cells in positions:  # remember every position's components
        engine.analyze(cells, 99)
    assert len(engine.memory) > 40
    for cells, a in zip(positions, fresh, strict=True):
        again = engine.analyze(cells, 99)  # now every component is a hit
        np.testing.assert_array_equal(again.probabilities, a.probabilities)
        assert again.layouts == a.layouts
        np.testing.assert_array_equal(again.safe, a.safe)


def test_cache_hits_from_other_positions_give_each_group_its_own_marginals() -> None:
    # Successive positions of a game share most of their components, but a
    # group's id in one position need not be its id in the next (ids follow
    # each position's own constraints), so a hit must hand the remembered
    # marginals to the right groups whatever their ids.  Every position is
    # compared with a count from an empty memory.
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(8):
        board = ns.Board.create(16, 30, 99, ns.RandomPlacement(rng))
        safe_cells = np.argwhere(~board.mines)
        engine = Analyzer()
        for r, c in safe_cells[rng.permutation(len(safe_cells))[:40]]:
            board.reveal(int(r), int(c))
            cells = np.where(board.revealed, board.counts, H).astype(np.int8)
            shape = frontier(cells == H, cells >= 0)
            need = cells.astype(np.int8).ravel()[shape.con_flat]
            hits += sum(
                (need[shape.numbers[shape.cuts[j] : shape.cuts[j + 1]]].tobytes(), key)
                in engine.memory
                for j, key in enumerate(shape.shape_keys)
            )
            warm = engine.analyze(cells, 99)
            cold = analyze(cells, 99)
            np.testing.assert_array_equal(warm.probabilities, cold.probabilities)
            assert warm.layouts == cold.layouts
            np.testing.assert_array_equal(warm.safe, cold.safe)
            np.testing.assert_array_equal(warm.mines, cold.mines)
    assert hits > 150  # components found in the memory, counted in other positions


def _parse(rows: str) -> NDArray[np.int8]:
    return np.array(
        [[H if ch == "." else int(ch) for ch in row] for row in rows.split("/")], dtype=np.int8
    )


def test_relaxed_counts_do_not_depend_on_what_was_analysed_before() -> None:
    # Under a tiny guard, a piece of a relaxed component can itself overflow
    # and be relaxed again, at cuts its elimination order decides: the same
    # piece (the same key in the memory) must be counted in the same order
    # whichever position it comes from, or a remembered count from one
    # position would differ from the count another position makes afresh.
    def fresh(cells: NDArray[np.int8], mines: int, guard: int) -> ns.solver.Analysis:
        return analyze(cells, mines, max_states=guard)

    before = _parse("..1......./...313..../...203..../...202..../...102..../...101....")
    after = _parse(".....2..../...313..../...203..../...202..../...102..../...101....")
    cold = fresh(after, 21, 2)
    engine = Analyzer()
    engine.analyze(before, 21, max_states=2)
    warm = engine.analyze(after, 21, max_states=2)
    assert not cold.exact and warm.layouts == cold.layouts
    rng = np.random.default_rng(8)
    relaxed = 0
    for _ in range(30):
        rows, cols = 6, int(rng.integers(8, 12))
        mines = int(rng.integers(rows * cols // 5, rows * cols // 3))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        safe_cells = np.argwhere(~board.mines)
        positions = []
        for r, c in safe_cells[rng.permutation(len(safe_cells))[:14]]:
            board.reveal(int(r), int(c))
            positions.append(np.where(board.revealed, board.counts, H).astype(np.int8))
        guard = int(rng.choice([2, 3, 5]))
        want = [fresh(cells, mines, guard) for cells in positions]
        engine = Analyzer()
        for i in rng.permutation(len(positions)).tolist():  # one warm memory, any order
            a = want[i]
            got = engine.analyze(positions[i], mines, max_states=guard)
            assert got.layouts == a.layouts
            np.testing.assert_array_equal(got.probabilities, a.probabilities)
            relaxed += not a.exact
    assert relaxed > 100


def test_numbers_tried_on_one_cell_share_a_structure_and_match_brute_force() -> None:
    # The look-ahead's probes: one structure (which cells are numbers and
    # which hidden), every number tried in turn on one cell.  Each count
    # reuses the remembered structure; half the time a relaxed count of the
    # same structure runs first, and must leave nothing behind.
    rng = np.random.default_rng(31)
    checked = invalid = 0
    while checked < 150:
        cells, mines, _ = random_position(rng)
        cells[cells == F] = H
        shown = np.argwhere(cells >= 0)
        if not len(shown):
            continue
        r, c = (int(v) for v in shown[rng.integers(len(shown))])
        relax_first = bool(rng.integers(2))
        engine = Analyzer()
        tried = False
        for n in range(9):
            probe = cells.copy()
            probe[r, c] = n
            ref = brute(probe, mines)
            if ref is None:
                break
            count, probs = ref
            tried = True
            if relax_first:
                with contextlib.suppress(ns.InvalidBoardError):
                    engine.analyze(probe, mines, max_states=1)
            if count == 0:
                with pytest.raises(ns.InvalidBoardError):
                    engine.analyze(probe, mines)
                invalid += 1
                continue
            a = engine.analyze(probe, mines)
            assert a.exact and a.layouts == count
            np.testing.assert_allclose(a.probabilities, probs, rtol=0, atol=1e-12)
            checked += 1
        assert len(engine._shapes) == tried  # every number used one structure
    assert invalid > 40


def test_the_guard_counts_forward_states_only() -> None:
    # Every cut of this board's forward count holds at most 2 states, so a
    # guard of 2 counts it exactly and a guard of 1 does not.  The engine
    # before commit 0e26f58 also ran an independent count from the far end,
    # which holds up to 12 states at a cut here, so any guard below 12
    # relaxed the board (167,960 layouts instead of 48).
    cells = np.array(
        [
            [H, 4, H, H, H, 1],
            [H, H, 4, H, H, H],
            [5, H, H, H, 1, 1],
            [H, H, H, H, H, H],
            [2, 4, 5, H, H, 3],
            [H, 1, H, H, H, H],
            [0, H, H, H, H, H],
        ],
        dtype=np.int8,
    )
    from numsweeper.solver.longcount import _forward

    assert not analyze(cells, 17, max_states=1).exact
    guarded, free = analyze(cells, 17, max_states=2), analyze(cells, 17)
    assert guarded.exact and free.exact and guarded.layouts == free.layouts == 48
    np.testing.assert_array_equal(guarded.probabilities, free.probabilities)
    # the far end's count, which the guard no longer sees
    shape = frontier(cells == H, cells >= 0)
    need = cells.astype(np.int64).ravel()[shape.con_flat].tolist()
    assert shape.n_parts == 1
    order, sizes = shape.groups(0), shape.sizes.tolist()
    forward = _forward(order, shape.group_cons, sizes, need, 10**6)[0]
    backward = _forward(order[::-1], shape.group_cons, sizes, need, 10**6)[0]
    assert max(map(len, forward)) == 2 and max(map(len, backward)) == 12


def test_trusting_flags_or_not_back_to_back_matches_brute_force() -> None:
    # The same board with and without trusted flags has different unknown
    # cells, so the two must not share a cached structure.
    rng = np.random.default_rng(41)
    checked = 0
    while checked < 200:
        cells, mines, layout = random_position(rng)
        if not (cells == F).any() or ((cells == F) & ~layout).any():
            continue
        for trust in (False, True, False):
            ref = brute(cells, mines, trust)
            if ref is None:
                break
            a = analyze(cells, mines, trust_flags=trust)
            assert a.layouts == ref[0]
            np.testing.assert_allclose(a.probabilities, ref[1], rtol=0, atol=1e-12)
        else:
            checked += 1


def test_structure_memory_keeps_no_huge_boards() -> None:
    engine = Analyzer()
    cells = np.full((3000, 1500), H, dtype=np.int8)  # 4.5 million cells
    cells[0, 0] = 0
    cells[0, 1] = cells[1, 0] = cells[1, 1] = 0
    engine.analyze(cells, 1000)
    assert len(engine._shapes) == 0  # more cells than the memory may hold
    small = np.full((9, 9), H, dtype=np.int8)
    for n in range(12):
        small[n // 9, n % 9] = 0
        engine.analyze(small, 10)
    assert len(engine._shapes) == engine.structures == 8
    engine.clear()
    assert len(engine._shapes) == len(engine.memory) == 0


def test_prober_gives_exactly_what_analyze_gives() -> None:
    # The look-ahead analyses one cell shown as each number through a
    # prober, which does the number-independent work once: every number,
    # valid or not, must give analyze's floats bit for bit (or its error,
    # word for word), relaxed counts included.
    rng = np.random.default_rng(77)
    compared = raised = 0
    for i in range(600):
        if i % 10 == 0:  # now and then a large board
            board = ns.Board.create(16, 30, 99, ns.RandomPlacement(rng))
            for r, c in np.argwhere(~board.mines)[rng.permutation(381)[:40]].tolist():
                board.reveal(r, c)
            cells = np.where(board.revealed, board.counts, H).astype(np.int8)
            mines = 99
        else:
            cells, mines, _ = random_position(rng)
        hidden = np.argwhere(cells == H)
        if not len(hidden):
            continue
        r, c = (int(v) for v in hidden[rng.integers(len(hidden))])
        before = cells.copy()
        max_states = int(rng.choice([3, ns.solver.MAX_STATES]))
        engine = Analyzer()
        if i % 3 == 1:  # the policy's own: its position needs no checks
            prober = _Prober(engine, cells, mines, (r, c), max_states, checked=True)
        else:
            prober = engine.prober(cells, mines, (r, c), max_states)
        # half the time the prober counts first, each number from an empty memory
        first = i % 4 >= 2  # (large boards too: i % 10 == 0)
        for n in range(9):
            probe = cells.copy()
            probe[r, c] = n
            early: Any = None
            if first:  # each counts on its own, from an empty memory
                engine.clear()
                try:
                    early = prober(n)
                except ns.InvalidBoardError as exc:
                    early = exc
            try:
                want = analyze(probe, mines, max_states=max_states)
            except ns.InvalidBoardError as exc:
                if first:
                    assert isinstance(early, ns.InvalidBoardError)
                    assert str(early) == str(exc)
                else:
                    with pytest.raises(ns.InvalidBoardError) as got:
                        prober(n)
                    assert str(got.value) == str(exc)
                raised += 1
                continue
            assert not isinstance(early, Exception)
            a = prober(n) if not first else early
            np.testing.assert_array_equal(a.probabilities, want.probabilities)  # NaN = NaN
            assert a.probabilities.tobytes() == want.probabilities.tobytes()
            np.testing.assert_array_equal(a.safe, want.safe)
            np.testing.assert_array_equal(a.mines, want.mines)
            assert (a.layouts, a.exact, a.frontier_mines) == (
                want.layouts,
                want.exact,
                want.frontier_mines,
            )
            assert (a.unconstrained, a.mines_left) == (want.unconstrained, want.mines_left)
            compared += 1
        np.testing.assert_array_equal(cells, before)  # the position is left as it was
    assert compared > 800 and raised > 1000, (compared, raised)


def test_given_mines_count_as_the_flagged_position_does() -> None:
    # The influence factor's counts: some frontier cells given as mines,
    # counted on the position's own structure with shrunk groups and needs,
    # must equal the count of the position with those cells flagged and
    # trusted (None where that has no layout), mine total by mine total.
    engine = Analyzer()

    def by_total(cells: NDArray[np.int8], mines: int, **kw: Any) -> tuple[dict[int, int], int]:
        frontier_mines, _, left = Analyzer().layouts_by_total(cells, mines, **kw)
        return frontier_mines, left

    rng = np.random.default_rng(78)
    counted = impossible = relaxed = 0
    for i in range(200):
        rows, cols, mines = [(5, 6, 8), (9, 9, 10), (16, 16, 40), (16, 30, 99)][i % 4]
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        safe = np.argwhere(~board.mines)
        for r, c in safe[rng.permutation(len(safe))[: int(rng.integers(1, 40))]].tolist():
            board.reveal(r, c)
        cells = np.where(board.revealed, board.counts, H).astype(np.int8)
        cells[~board.revealed & (rng.random(cells.shape) < 0.05)] = F  # flags: hidden cells
        revealed = cells >= 0
        front = np.argwhere(~revealed & (adjacent_counts(revealed) > 0))
        if not len(front):
            continue
        max_states = int(rng.choice([1, ns.solver.MAX_STATES]))
        given = engine.given(cells, mines, max_states)
        for _ in range(8):
            k = int(rng.integers(1, min(5, len(front)) + 1))
            xs = [(r, c) for r, c in front[rng.choice(len(front), k, replace=False)].tolist()]
            flagged = np.where(cells == F, H, cells).astype(np.int8)
            flagged[tuple(np.array(xs).T)] = F
            want: tuple[dict[int, int], int] | None = None
            with contextlib.suppress(ns.InvalidBoardError):
                want = by_total(flagged, mines, trust_flags=True, max_states=max_states)
            got = given(xs)
            if max_states == 1 and got != want:
                # a relaxed count of the flagged position; given's was exact
                exact = None
                with contextlib.suppress(ns.InvalidBoardError):
                    exact = by_total(flagged, mines, trust_flags=True)
                assert got == exact
                relaxed += 1
                continue
            assert got == want
            impossible += got is None
            counted += got is not None
    assert counted > 350 and impossible > 200 and relaxed < counted / 10, (counted, impossible)
    corner = engine.given(np.array([[H, H, H], [H, H, 1]], dtype=np.int8), 1, MAX_STATES)
    with pytest.raises(ValueError, match=r"\(0, 0\) is not on the frontier"):
        corner([(0, 0)])
    with pytest.raises(ValueError, match="repeat"):
        corner([(1, 1), (1, 1)])
    with pytest.raises(ValueError, match=r"\(0, 4\) is not on the frontier"):
        corner([(0, 4)])  # off the board (flat index of (1, 1))


def test_layouts_is_the_plain_binomial_sum() -> None:
    # Analysis.layouts is computed with one binomial; it must be the plain
    # sum over frontier totals K of count_K * C(U, M - K), for any counts.
    from numsweeper.solver.analysis import layout_total

    rng = np.random.default_rng(5)
    nonzero = 0
    for _ in range(3000):
        totals = rng.choice(60, int(rng.integers(1, 12)), replace=False)
        frontier_mines = {int(k): int(rng.integers(1, 10**12)) for k in totals}
        u, m = int(rng.integers(0, 500)), int(rng.integers(0, 200))
        want = sum(c * math.comb(u, m - k) for k, c in frontier_mines.items() if 0 <= m - k <= u)
        assert layout_total(frontier_mines, u, m) == want
        nonzero += want > 0
    assert nonzero > 2000
