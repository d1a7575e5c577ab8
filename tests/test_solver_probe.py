"""The look-ahead's compiled probes (solver/probe.py): the exact engine's numbers, bit for bit."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper.solver import MAX_STATES, Analyzer, SolverPolicy, analyze, guess, policy
from numsweeper.solver._jit import frozen
from numsweeper.solver.analysis import _combine

H = int(ns.HIDDEN)
Cell = tuple[int, int]
#: One probe: the position, its mines, the cell, the number it shows, off_at.
Probe = tuple[NDArray[np.int8], int, Cell, int, int]


@pytest.fixture(scope="module")
def expert_probes() -> list[Probe]:
    """Every probe the policy's look-ahead makes in 30 expert games."""
    found: list[Probe] = []
    made = policy.SolverPolicy._probe

    class Recorded:
        def __init__(self, shown: Any, cells: NDArray[np.int8], mines: int, cell: Cell) -> None:
            self.shown, self.cells, self.mines, self.cell = shown, cells.copy(), mines, cell

        def __call__(self, n: int) -> Any:
            return self.shown(n)

        def look(self, n: int, off_at: int) -> Any:
            found.append((self.cells, self.mines, self.cell, n, off_at))
            return self.shown.look(n, off_at)

    def recording(self: SolverPolicy, cells: NDArray[np.int8], mines: int, cell: Cell) -> Any:
        return Recorded(made(self, cells, mines, cell), cells, mines, cell)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policy.SolverPolicy, "_probe", recording)
        rows, cols, mines = ns.PRESETS["expert"]
        solver = SolverPolicy("safe")
        ns.simulate(30, rows, cols, mines, policy=solver, first_click="safe", seed=5, workers=1)
    return found


def engines_reading(probe: NDArray[np.int8], mines: int, off_at: int) -> tuple[Any, ...]:
    """What the look-ahead reads of ``analyze(probe)``: layouts and outlook."""
    b = analyze(probe, mines)
    front_flat, front_p = b.frontier_probabilities()
    s1, s2, live_safe = guess.outlook(frozen(probe), front_flat, front_p, b.off_probability, off_at)
    return b.layouts, s1, s2, live_safe


def test_compiled_probes_of_expert_games_are_the_engines_bit_for_bit(
    expert_probes: list[Probe],
) -> None:
    # Every probe of 30 games: where the compiled path answers, its layouts,
    # weight (layouts over the position's), safeties and live flag are the
    # exact engine's; where the cell cannot show the number, it leaves the
    # error to the engine; and it answers nearly every other probe.
    totals: dict[bytes, int] = {}
    probers: dict[tuple[bytes, Cell], Any] = {}
    compiled = fallback = raised = looked = 0
    found: Any
    for cells, mines, cell, n, off_at in expert_probes:
        key = cells.tobytes()
        if key not in totals:
            totals[key] = analyze(cells, mines).layouts
        prober = probers.get((key, cell))
        if prober is None:
            prober = probers[key, cell] = Analyzer().prober(cells, mines, cell, MAX_STATES)
        try:
            found = prober.look(n, off_at)
        except ns.InvalidBoardError:
            found = "raised"
        probe = cells.copy()
        probe[cell] = n
        try:
            want = engines_reading(probe, mines, off_at)
        except ns.InvalidBoardError:
            assert found is None or found == "raised"
            with pytest.raises(ns.InvalidBoardError):
                prober(n)
            raised += 1
            looked += found == "raised"
            continue
        assert found != "raised"  # (only where the engine raises)
        if found is None:
            fallback += 1
            continue
        assert found == want  # (floats compared with ==)
        layouts, s1, s2, live_safe = found
        assert layouts / totals[key] == want[0] / totals[key]
        assert type(s1) is type(s2) is float and type(live_safe) is bool
        compiled += 1
    assert compiled > 1500 and raised > 100, (compiled, fallback, raised)
    assert fallback < 0.1 * compiled, (compiled, fallback)
    assert looked > 0.8 * raised, (looked, raised)  # most errors found compiled


def test_a_number_the_cell_cannot_show_is_left_to_the_engine() -> None:
    cells = np.array([[1, H, H], [H, H, H]], dtype=np.int8)
    prober = Analyzer().prober(cells, 1, (0, 1), MAX_STATES)
    for n in (2, 5, 8):  # more than its 4 hidden neighbours, or than the 1 mine allows
        assert prober.look(n, -1) is None
        with pytest.raises(ns.InvalidBoardError):
            prober(n)
    probe = cells.copy()
    probe[0, 1] = 1
    assert prober.look(1, -1) == engines_reading(probe, 1, -1)


def test_a_number_no_layout_fits_raises_as_the_engine_does() -> None:
    # A 0 beside the corner's 1 leaves that 1 no mine: the compiled count of
    # the cell's part finds no layout, so look raises where prober(0) does.
    cells = np.array([[1, H, H], [H, H, H]], dtype=np.int8)
    prober = Analyzer().prober(cells, 1, (0, 1), MAX_STATES)
    with pytest.raises(ns.InvalidBoardError, match=r"cell \(0, 1\) show 0"):
        prober.look(0, -1)
    with pytest.raises(ns.InvalidBoardError, match=r"number at cell \(0, 0\)"):
        prober(0)
    probe = cells.copy()
    probe[0, 1] = 1
    assert prober.look(1, -1) == engines_reading(probe, 1, -1)  # (nothing left behind)


@pytest.mark.parametrize(("pairs", "why"), [(1, "fits"), (2, "ratio"), (3, "int64")])
def test_a_huge_open_area_falls_back_where_int64_or_exact_floats_end(pairs: int, why: str) -> None:
    # A 60 x 60 board with few numbers: C(about 3580, mines off the
    # frontier) over the frontier's totals.  One pair of 2s spans 3 totals and fits;
    # two span 5, whose weights fit int64 but whose layouts, times the
    # cells off the frontier, pass 2**53 (the off-frontier probability is
    # no exact float's ratio); three pass int64 itself.
    cells = np.full((60, 60), H, dtype=np.int8)
    cells[0, 0:3] = 1
    for i in range(pairs):
        cells[5, 5 + 9 * i : 7 + 9 * i] = 2
    probe = cells.copy()
    probe[1, 1] = 1
    counted = Analyzer()._count(probe, 700, False, MAX_STATES)
    combined = _combine(counted)
    fits_int64 = max(combined.context) < 2**61 and combined.grand < 2**61
    assert fits_int64 == (why != "int64")
    assert (combined.grand * counted.shape.unconstrained < 2**53) == (why == "fits")
    found = Analyzer().prober(cells, 700, (1, 1), MAX_STATES).look(1, 0)
    if why == "fits":
        assert found == engines_reading(probe, 700, 0)
    else:
        assert found is None


def test_the_policy_keeps_analyses_but_no_compiled_probe() -> None:
    # A number looked at compiled is not kept; one analysed is, and read
    # from then on, and the look gives what reading it gives (so the look
    # need not ask the policy's memory first).
    game = ns.Game.from_preset("expert", seed=3, first_click="safe")
    game.reveal(8, 15)
    cells, mines = game.snapshot().cells, game.mine_count
    solver = SolverPolicy("safe")
    front_flat, front_p = analyze(cells, mines).frontier_probabilities()
    r, c = divmod(int(front_flat[(front_p > 0) & (front_p < 1)][0]), cells.shape[1])
    shown = solver._probe(cells, mines, (r, c))
    probe = cells.copy()
    numbers = []
    for n in range(9):
        with contextlib.suppress(ns.InvalidBoardError):  # (no layout shows n)
            if shown.look(n, -1) is not None:
                numbers.append(n)
    assert numbers
    probe[r, c] = numbers[0]
    assert solver._analyzed(probe, mines) is None  # looked at, not kept
    kept = shown(numbers[0])  # analysed: kept, and read from then on
    assert solver._analyzed(probe, mines) is kept
    assert shown(numbers[0]) is kept
    front, front_p = kept.frontier_probabilities()
    read = guess.outlook(frozen(probe), front, front_p, kept.off_probability, -1)
    assert shown.look(numbers[0], -1) == (kept.layouts, *read)


def test_a_prober_shared_between_threads_answers_each_its_own_number() -> None:
    # look() once wrote the number into arrays the prober keeps, so a second
    # thread could count the first one's number (a reviewer saw 2 wrong
    # answers in 6,000); each call now fills its own copies.
    import sys
    import threading

    cells = np.full((6, 6), H, dtype=np.int8)
    cells[0, 0:3] = 1, 1, 2
    prober = Analyzer().prober(cells, 8, (1, 1), MAX_STATES)
    expected = {n: prober.look(n, -1) for n in (1, 2)}
    assert expected[1] is not None and expected[1] != expected[2]
    wrong: list[Any] = []

    def work(n: int) -> None:
        for _ in range(1500):
            got = prober.look(n, -1)
            if got != expected[n]:
                wrong.append((n, got))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in (1, 2, 1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []


def test_hill_guess_takes_a_prober_that_only_analyses(expert_probes: list[Probe]) -> None:
    # A prober written as a plain function of the number (no look) still
    # works: every number is then analysed in full, to the same move.
    positions = {(c.tobytes(), m): (c, m) for c, m, _, _, _ in expert_probes[:400]}
    assert len(positions) >= 5
    engine = Analyzer()
    for cells, mines in list(positions.values())[:8]:
        a = analyze(cells, mines)

        def plain(c: NDArray[np.int8], m: int, cell: Cell) -> Any:
            def shown(n: int) -> Any:
                shown_cells = c.copy()
                shown_cells[cell] = n
                return analyze(shown_cells, m)

            return shown

        def compiled(c: NDArray[np.int8], m: int, cell: Cell) -> Any:
            return engine.prober(c, m, cell, MAX_STATES)

        args = cells, mines, a, cells == H
        assert guess.hill_guess(*args, plain, Analyzer(), MAX_STATES) == guess.hill_guess(
            *args, compiled, Analyzer(), MAX_STATES
        )


def test_the_rest_counted_compiled_is_the_engines_count_of_the_other_parts() -> None:
    # probe_rest against count_frontier of every part but the cell's own, on
    # random positions with several parts: the same parts of several totals
    # (their counts and every group's row, whatever the groups' order), the
    # same mines of the parts of one total, their counts, and their groups'
    # probabilities as Python divides the integers; and not OK exactly where
    # the engine finds no layout or relaxes a part (the guard binds).
    from numsweeper._kernels import adjacent_counts
    from numsweeper.solver.analysis import _single_shares
    from numsweeper.solver.components import count_frontier
    from numsweeper.solver.probe import probe_rest
    from numsweeper.solver.structure import frontier

    rng = np.random.default_rng(529)
    checked = wide = empty = relaxed = 0
    for _ in range(800):
        rows, cols = rng.integers(3, 9, size=2)
        mines = rng.random((rows, cols)) < rng.uniform(0.1, 0.35)
        counts = adjacent_counts(mines)
        shown = ~mines & (rng.random((rows, cols)) < rng.uniform(0.2, 0.6))
        cells = np.where(shown, counts, H).astype(np.int8)
        if rng.random() < 0.2:  # a number no layout fits, now and then
            at = np.argwhere(shown)
            if len(at):
                r, c = at[rng.integers(len(at))]
                cells[r, c] = min(int(cells[r, c]) + 1 + int(rng.integers(3)), 8)
        revealed = cells >= 0
        shape = frontier(~revealed, revealed)
        if shape.n_parts == 0:
            continue
        need = cells.ravel()[shape.con_flat].astype(np.int64)
        own = int(rng.integers(-1, shape.n_parts))
        total = int(mines.sum())
        # (a tight guard now and then: a relaxed count is not plain either)
        max_states = MAX_STATES if rng.random() < 0.7 else 3
        status, rest, rest_p, coeffs = probe_rest(
            *shape.count_args, frozen(need), own, max_states, shape.unconstrained, total
        )
        others = [j for j in range(shape.n_parts) if j != own]
        try:
            engine = count_frontier(shape, need, max_states, None, only=others)
        except ns.InvalidBoardError:
            assert status != 0
            empty += 1
            continue
        if not engine.exact:
            assert status != 0
            relaxed += 1
            continue
        assert status == 0
        assert rest[:3].tolist() == [shape.unconstrained, total, engine.single_low]
        assert sorted(coeffs.tolist()) == sorted(
            [1] * (len(coeffs) - len(engine.single_coeffs)) + engine.single_coeffs.tolist()
        )
        want_p = _single_shares(engine, shape)[0]
        assert np.array_equal(rest_p, want_p, equal_nan=True)
        parts, at = [], 4
        for _ in range(int(rest[3])):
            low, width, k = rest[at : at + 3].tolist()
            at += 3
            counted = rest[at : at + width].tolist()
            at += width
            groups = rest[at : at + k].tolist()
            at += k
            marginals = {}
            for g in groups:
                marginals[g] = rest[at : at + width].tolist()
                at += width
            parts.append((low, counted, marginals))
        assert at == len(rest)
        want = [
            (comp.low, comp.coeffs, dict(zip(comp.groups, comp.marginals.tolist(), strict=True)))
            for comp in engine.components
        ]
        assert sorted(parts, key=repr) == sorted(want, key=repr)
        checked += 1
        wide += len(parts)
    assert checked > 300 and wide > 50 and empty > 20 and relaxed > 10, (
        checked,
        wide,
        empty,
        relaxed,
    )
