"""The influence factor's compiled counts (solver/influence.py, probe.py): the same floats."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper.solver import MAX_STATES, Analyzer, SolverPolicy, analyze, influence
from numsweeper.solver._jit import frozen

H = int(ns.HIDDEN)
Cell = tuple[int, int]


class Position:
    """One position the guess scored: its sets counted and its factors asked for."""

    def __init__(self, cells: NDArray[np.int8], mines: int) -> None:
        self.cells, self.mines = cells.copy(), mines
        self.counts: list[frozenset[Cell]] = []
        self.factors: list[tuple[int, int, float]] = []


@pytest.fixture(scope="module")
def expert_positions() -> list[Position]:
    """Every influence count and factor of the guesses in 30 expert games."""
    found: list[Position] = []
    made, count = influence._Influence.__init__, influence._Influence.count
    factor = influence._Influence.factor

    def recording_init(self: Any, engine: Any, cells: Any, mines: int, *args: Any) -> None:
        made(self, engine, cells, mines, *args)
        self.recorded = Position(cells, mines)
        found.append(self.recorded)

    def recording_count(self: Any, xs: frozenset[Cell]) -> float:
        self.recorded.counts.append(xs)
        return count(self, xs)  # type: ignore[no-any-return]

    def recording_factor(self: Any, r: int, c: int, p: float) -> float:
        self.recorded.factors.append((r, c, p))
        self.compiled = False  # (every set the factor counts, recorded)
        return factor(self, r, c, p)  # type: ignore[no-any-return]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(influence._Influence, "__init__", recording_init)
        patch.setattr(influence._Influence, "count", recording_count)
        patch.setattr(influence._Influence, "factor", recording_factor)
        rows, cols, mines = ns.PRESETS["expert"]
        solver = SolverPolicy("safe")
        ns.simulate(30, rows, cols, mines, policy=solver, first_click="safe", seed=5, workers=1)
    return found


def numpy_count(influence: Any, xs: frozenset[Cell]) -> float:
    """The count as it was before the kernels: the engine's layouts in Python
    integers, their shares as ``int / int``, and numpy's loop over the cells
    off the frontier."""
    if any(influence.kind[x, y] == 3 for x, y in xs):
        return 0.0
    xf = frozenset((x, y) for x, y in xs if influence.front[x, y])
    d = influence._counted(xf)
    if d is None:
        return 0.0
    ks, share, m = d
    u = influence.a.unconstrained
    for i in range(len(xs) - len(xf)):
        share = share * np.maximum(m - ks - i, 0) / (u - i)
    return float(share.sum())


def influences(cells: NDArray[np.int8], mines: int, max_states: int = MAX_STATES) -> Any:
    """The position's influence, and one that counts as before (both fresh)."""
    engine = Analyzer()
    a = engine.analyze(cells, mines, max_states=max_states)
    new = influence._Influence(engine, cells, mines, a, max_states)
    old = influence._Influence(Analyzer(), cells, mines, a, max_states)
    old.count = lambda xs: numpy_count(old, xs)
    old.compiled = False
    return new, old


def test_influence_of_expert_games_is_the_engines_bit_for_bit(
    expert_positions: list[Position],
) -> None:
    # Every count and factor the guess asked for in 30 games: the compiled
    # shares and loop give the floats the Python integers and numpy gave,
    # both set by set and in the factor's one compiled call.  The kernels
    # answer nearly every set themselves, and every factor of a position
    # whose parts all count plainly.
    compiled = fallback = n_counts = n_factors = in_python = not_plain = 0
    for position in expert_positions:
        new, old = influences(position.cells, position.mines)
        assert new.a.exact
        for xs in position.counts:
            got = new.count(xs)
            assert type(got) is float
            assert got == old.count(xs), (xs, got, old.count(xs))
            n_counts += 1
        for r, c, p in position.factors:
            got = new.factor(r, c, p)
            assert type(got) is float
            assert got == old.factor(r, c, p), (r, c, p)
            n_factors += 1
        for xf in new.dists:
            if new.given.look(xf) is None:
                fallback += 1
            else:
                compiled += 1
        in_python += new.counted_in_python
        if new._given().shares_args() is None:
            not_plain += len(position.factors)
    assert n_counts > 3000 and n_factors > 500, (n_counts, n_factors)
    assert fallback < 0.05 * compiled, (compiled, fallback)
    assert in_python == not_plain < 0.1 * n_factors, (in_python, not_plain, n_factors)


def test_the_off_frontier_cells_are_counted_in_numpys_order() -> None:
    # Shares times (m - k - i) / (u - i), cell by cell, then summed as numpy
    # sums (pairwise, past 8 and past 128 terms): the same floats.
    rng = np.random.default_rng(8)
    for length in [0, 1, 7, 8, 9, 16, 23, 127, 128, 129, 200, 300, 1000]:
        for _ in range(20):
            ks = np.sort(rng.choice(2 * length + 5, length, replace=False)).astype(np.float64)
            share = rng.random(length) * 10.0 ** rng.integers(-12, 1, length)
            m, u = int(ks.max(initial=0)) + int(rng.integers(0, 5)), int(rng.integers(8, 400))
            for off in range(5):
                want = share
                for i in range(off):
                    want = want * np.maximum(m - ks - i, 0) / (u - i)
                got = influence.off_frontier_share(frozen(ks), frozen(share), m, u, off)
                assert got == float(want.sum())


def test_no_layout_with_the_cells_all_mines_is_no_share() -> None:
    game = ns.Game.new(2, 3, 2, strategy=ns.FixedPlacement([(0, 2), (1, 1)]))
    game.reveal(0, 0)  # a 1 in the corner, 5 hidden cells around
    given = Analyzer().given(game.snapshot().cells, 2, MAX_STATES)
    assert given([(0, 1), (1, 0)]) is None  # the 1 would see two
    ks, share, m = given.look([(0, 1), (1, 0)])
    assert len(ks) == len(share) == 0 and m == 0
    assert given.look([(0, 1), (0, 1)]) is None  # a repeated cell is the engine's error
    assert given.look([(1, 2)]) is None  # not on the frontier
    with pytest.raises(ns.InvalidBoardError):
        given([(1, 2)])


@pytest.mark.parametrize(("pairs", "compiled"), [(6, True), (7, False), (8, False)])
def test_a_huge_open_area_falls_back_where_int64_ends(pairs: int, compiled: bool) -> None:
    # Pairs of 1s along the top of a 60-column-high board, each pair a part
    # of two mine totals, with hundreds of cells off the frontier: six pairs
    # make a total past 2**53 whose ratios reduce below it; seven make one
    # past int64, eight weights past it.  Either way the floats are the
    # engine's.
    cells = np.full((60, 4 * pairs + 2), H, dtype=np.int8)
    for t in range(pairs):
        cells[0, 4 * t + 1 : 4 * t + 3] = 1
    new, old = influences(cells, 300)
    for xs in ([(1, 1)], [(1, 0), (1, 4)], [(1, 1), (30, 3)], [(30, 3), (40, 3)], []):
        xf = frozenset(x for x in xs if x[0] == 1)
        assert new.count(frozenset(xs)) == old.count(frozenset(xs))
        assert (new.given.look(xf) is not None) == compiled
    # the factors too, in one compiled call each or set by set
    p = new.a.probabilities
    for r, c in [(1, 0), (1, 1), (1, 4), (2, 2), (30, 3)]:
        assert new.factor(r, c, float(p[r, c])) == old.factor(r, c, float(p[r, c]))
    assert (new.counted_in_python == 0) == compiled


def test_a_count_past_the_guard_falls_back() -> None:
    # A position whose part passes max_states is relaxed: the analysis is
    # not exact, and the kernel's counts (of every part) are not tried.
    game = ns.Game.from_preset("expert", seed=3, first_click="safe")
    game.reveal(8, 15)
    cells, mines = game.snapshot().cells, game.mine_count
    given = Analyzer().given(cells, mines, 2)
    front, p = analyze(cells, mines).frontier_probabilities()
    r, c = divmod(int(front[(p > 0) & (p < 1)][0]), cells.shape[1])
    assert given.look([(r, c)]) is None
    assert given([(r, c)]) is not None
    new, old = influences(cells, mines, max_states=2)
    assert not new.a.exact
    assert new.count(frozenset([(r, c)])) == old.count(frozenset([(r, c)]))
    assert new.given is None or new.given.parts is None


def test_a_full_table_of_counts_still_counts(
    expert_positions: list[Position], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The compiled counts keep at most 3/4 of their table: with four slots,
    # three sets are kept and the rest counted afresh each time, the same
    # floats.
    monkeypatch.setattr(influence, "_TABLE", 4)
    checked = 0
    for position in expert_positions[:40]:
        new, old = influences(position.cells, position.mines)
        for r, c, p in position.factors:
            assert new.factor(r, c, p) == old.factor(r, c, p)
            checked += 1
        if new.table is not None:
            keys, _, used = new.table
            assert len(keys) == 4 and used[0] == 3
    assert checked > 20
