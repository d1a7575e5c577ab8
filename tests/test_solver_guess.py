"""The policy's guesses (David Hill's): dead cells, outlook, influence counts, choice."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts
from numsweeper.solver import MAX_STATES, Analyzer, SolverPolicy, analyze, guess, influence
from numsweeper.solver.analysis import Analysis

H = int(ns.HIDDEN)
Cell = tuple[int, int]


def prober(cells: NDArray[np.int8], mines: int, cell: Cell) -> guess.Shown:
    """What the look-ahead analyses a cell's numbers with (a fresh engine)."""
    return Analyzer().prober(cells, mines, cell, MAX_STATES)


def influence_of(cells: NDArray[np.int8], mines: int, a: Analysis) -> Any:
    return influence._Influence(Analyzer(), cells, mines, a, MAX_STATES)


def dead_cells(cells: NDArray[np.int8], probabilities: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Hidden cells whose number, if safe, the numbers shown already tell.

    Hill's sufficient rule, cell by cell with plain sets: a hidden cell that
    is not a certain mine is dead when none of its neighbours is undecided,
    or when its undecided neighbours are exactly those of some revealed
    number.  (The reference for the compiled outlook, which tests lazily.)
    """
    rows, cols = cells.shape
    hidden = cells < 0
    undecided = hidden & (probabilities > 0) & (probabilities < 1)

    def around(r: int, c: int, reach: int = 1) -> list[Cell]:
        return [
            (i, j)
            for i in range(max(r - reach, 0), min(r + reach + 1, rows))
            for j in range(max(c - reach, 0), min(c + reach + 1, cols))
        ]

    def undecided_near(r: int, c: int) -> set[Cell]:
        return {x for x in around(r, c) if x != (r, c) and undecided[x]}

    dead = np.zeros(cells.shape, dtype=bool)
    for r, c in np.argwhere(hidden & ~(probabilities >= 1)).tolist():
        own = undecided_near(r, c)
        dead[r, c] = not own or any(
            cells[x] >= 0 and own == {y for y in around(*x) if undecided[y]}
            for x in around(r, c, 2)
        )
    return dead


def layouts_of(cells: NDArray[np.int8], mines: int) -> NDArray[np.bool_]:
    """Every layout of ``mines`` mines that explains ``cells``, stacked."""
    hidden = np.flatnonzero(cells < 0)
    combos = np.array(list(itertools.combinations(range(len(hidden)), mines)), dtype=np.intp)
    flat = np.zeros((len(combos), cells.size), dtype=bool)
    flat[np.arange(len(combos))[:, None], hidden[combos.reshape(len(combos), -1)]] = True
    every = flat.reshape(-1, *cells.shape)
    shown = cells >= 0
    fits = (adjacent_counts(every)[:, shown] == cells[shown]).all(axis=1)
    return every[fits]


def small_positions(seed: int, n: int, max_cells: int = 24) -> list[tuple[NDArray[np.int8], int]]:
    """Random visible states of at most ``max_cells`` cells, with few enough layouts to list."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        rows, cols = int(rng.integers(3, 6)), int(rng.integers(3, 7))
        if rows * cols > max_cells:
            continue
        mines = int(rng.integers(2, rows * cols // 3 + 1))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        shown = ~board.mines & (rng.random((rows, cols)) < rng.uniform(0.15, 0.6))
        if not shown.any() or math.comb(int((~shown).sum()), mines) > 20_000:
            continue
        out.append((np.where(shown, board.counts, H).astype(np.int8), mines))
    return out


def listed(
    seed: int, n: int
) -> Iterator[tuple[NDArray[np.int8], int, NDArray[np.bool_], Analysis]]:
    """small_positions() that some layout explains, with their layouts and analyses."""
    for cells, mines in small_positions(seed, n):
        lay = layouts_of(cells, mines)
        if len(lay):
            yield cells, mines, lay, analyze(cells, mines)


def plain_outlook(probe: NDArray[np.int8], q: NDArray[np.float64]) -> tuple[float, float, bool]:
    """outlook() from whole masks and plain sets."""
    clickable = probe == H
    live = clickable & ~dead_cells(probe, q)
    safeties = sorted((1.0 - q[live]).tolist(), reverse=True)
    off = clickable & (adjacent_counts(probe >= 0) == 0)
    floor = 1.0 - float(q[off][0]) if off.any() else 0.0
    best = sorted([*safeties[:2], 0.0, 0.0, floor, floor], reverse=True)
    return best[0], best[1], bool((q[live] == 0.0).any())


def test_dead_cells_show_the_same_number_in_every_layout_where_they_are_safe() -> None:
    # The test is sufficient, not necessary: every cell it calls dead has one
    # possible number, checked against every layout; and it does find some.
    found = 0
    for cells, _, lay, a in listed(1, 400):
        dead = dead_cells(cells, a.probabilities)
        numbers = np.stack([adjacent_counts(x) for x in lay])
        for r, c in np.argwhere(dead).tolist():
            safe_here = ~lay[:, r, c]
            assert safe_here.any()  # dead cells are never certain mines
            assert len(set(numbers[safe_here, r, c].tolist())) == 1
            found += 1
    assert found > 200


def test_outlook_matches_whole_masks_and_plain_sets() -> None:
    # Random mid-game expert positions (many numbers, many equal neighbour
    # sets) and small dense ones, some with flags (hidden, not clickable):
    # outlook() tests cells lazily, the reference whole boards cell by cell.
    rng = np.random.default_rng(2)
    positions = [(c, m) for c, m in small_positions(3, 300, max_cells=30)]
    while len(positions) < 500:
        board = ns.Board.create(16, 30, 99, ns.RandomPlacement(rng))
        safe = np.argwhere(~board.mines)
        for r, c in safe[rng.permutation(len(safe))[: int(rng.integers(1, 40))]].tolist():
            board.reveal(r, c)
        if board.hidden_safe:
            positions.append((np.where(board.revealed, board.counts, H).astype(np.int8), 99))
    matched = 0
    for k, (cells, mines) in enumerate(positions):
        if k % 3 == 0:
            cells = cells.copy()
            cells[(cells == H) & (rng.random(cells.shape) < 0.1)] = ns.FLAG
        try:
            a = analyze(cells, mines)
        except ns.InvalidBoardError:
            continue
        off = (cells == H) & (adjacent_counts(cells >= 0) == 0)
        off_at = int(np.argmax(off)) if off.any() else -1
        front, front_p = a.frontier_probabilities()
        got = guess.outlook(cells, front, front_p, a.off_probability, off_at)
        assert got == plain_outlook(cells, a.probabilities)
        matched += 1
    assert matched >= 450


@pytest.mark.parametrize("lazy", [0, 1, 3])
def test_outlook_takes_the_safest_cells_in_the_order_of_a_stable_sort(
    lazy: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # outlook() takes its cells, safest first, from the frontier's merge
    # with a pointer over the off-frontier cells, and after _LAZY_STEPS of
    # them by scanning every hidden cell for the next (the way it takes
    # where the frontier lists a cell twice): the kernel as Python, with the
    # scan from the first, second or fourth cell on, gives the compiled
    # kernel's floats.  Dense expert positions have many dead cells, so
    # the scan runs often.
    from numsweeper.solver import probe

    monkeypatch.setattr(probe, "_LAZY_STEPS", lazy)
    rng = np.random.default_rng(4)
    checked = 0
    while checked < 60:
        board = ns.Board.create(16, 30, 99, ns.RandomPlacement(rng))
        safe = np.argwhere(~board.mines)
        for r, c in safe[rng.permutation(len(safe))[: int(rng.integers(20, 200))]].tolist():
            board.reveal(r, c)
        cells = np.where(board.revealed, board.counts, H).astype(np.int8)
        try:
            a = analyze(cells, 99)
        except ns.InvalidBoardError:
            continue
        front, front_p = a.frontier_probabilities()
        args = (cells, front, front_p, a.off_probability, -1)
        assert probe.outlook.py_func(*args) == guess.outlook(*args)
        checked += 1


def test_influence_counts_match_the_listed_layouts() -> None:
    # count(xs): the share of layouts with every cell of xs a mine, from one
    # flagged analysis of the frontier cells and a closed form for the rest.
    rng = np.random.default_rng(4)
    checked = off_frontier = 0
    for cells, mines, lay, a in listed(5, 250):
        influence = influence_of(cells, mines, a)
        hidden = [tuple(rc) for rc in np.argwhere(cells < 0).tolist()]
        for _ in range(6):
            k = int(rng.integers(1, min(5, len(hidden)) + 1))
            xs = frozenset(hidden[i] for i in rng.choice(len(hidden), k, replace=False))
            expected = np.all([lay[:, r, c] for r, c in xs], axis=0).sum() / len(lay)
            assert influence.count(xs) == pytest.approx(expected, abs=1e-12)
            checked += 1
            off_frontier += any(not influence.front[x] for x in xs)
    assert checked > 1000 and off_frontier > 300


def test_influence_tallies_match_the_listed_layouts() -> None:
    # A 2 x 2 box's tally: the share of layouts with one diagonal (and the
    # hidden outer corners) mines and the other diagonal safe, by inclusion
    # and exclusion; no pattern when a number borders it.
    rng = np.random.default_rng(6)
    nonzero = 0
    for cells, mines, lay, a in listed(7, 300):
        influence = influence_of(cells, mines, a)
        rows, cols = cells.shape
        for _ in range(5):
            x, y = int(rng.integers(0, rows - 1)), int(rng.integers(0, cols - 1))
            d1, d2 = [(x, y), (x + 1, y + 1)], [(x, y + 1), (x + 1, y)]
            outer = [(x - 1, y - 1), (x - 1, y + 2), (x + 2, y - 1), (x + 2, y + 2)]
            # the box whose top left the click is, if it holds: mines d1
            patterns, tallies = influence.tallies(x, y)
            box = [
                t
                for row, t in zip(patterns.tolist(), tallies.tolist(), strict=True)
                if row[0] == 2
                and {x * cols + y, (x + 1) * cols + y + 1} <= set(row[3 : 3 + row[1]])
                and sorted(row[8:10]) == [x * cols + y + 1, (x + 1) * cols + y]
            ]
            assert len(box) <= 1
            got = box[0] if box else 0.0
            on = [(i, j) for i, j in outer if 0 <= i < rows and 0 <= j < cols]
            sure = lay.all(axis=0)  # certain mines
            free = ~lay.any(axis=0)  # certainly safe (or revealed)
            missing = [cell for cell in on if not sure[cell]]
            if (
                any(cells[cell] >= 0 for cell in missing)
                or len(missing) > 3
                or any(sure[cell] or free[cell] for cell in d1 + d2)
            ):
                assert got == 0.0
                continue
            mask = np.all([lay[:, i, j] for i, j in d1 + missing], axis=0)
            mask &= np.all([~lay[:, i, j] for i, j in d2], axis=0)
            assert got == pytest.approx(mask.sum() / len(lay), abs=1e-12)
            nonzero += got > 0
    assert nonzero > 50


def plain_guess(
    cells: NDArray[np.int8],
    mines: int,
    a: Analysis,
    record: dict[Cell, tuple[float, int, int, int] | str] | None = None,
) -> Cell | None:
    """hill_guess without its early stops, and with plain outlooks."""
    record = {} if record is None else record
    engine = Analyzer()  # (remembers the structure each candidate's numbers share)
    clickable = cells == H
    p = np.where(clickable, a.probabilities, np.inf)
    influence = influence_of(cells, mines, a)
    hidden_nb = adjacent_counts(cells < 0)
    best_key = dead_key = None
    best = dead = None
    for r, c in guess.candidates(cells, p).tolist():
        pr = float(p[r, c])
        factor = influence.factor(r, c, pr)
        if best_key is not None and (1 - pr) * factor + 1e-9 < best_key[0]:
            record[r, c] = "skip"
            continue  # the rule's skip, in order of probability
        score = progress = 0.0
        outcomes = 0
        for n in range(9):
            probe = cells.copy()
            probe[r, c] = n
            try:
                b = engine.analyze(probe, mines)
            except ns.InvalidBoardError:
                continue
            weight = b.layouts / a.layouts
            outcomes += 1
            s1, s2, live_safe = plain_outlook(probe, b.probabilities)
            score += weight * (4 * s1 + s2) / 5
            progress += weight * live_safe
        key = (score * factor * (1 + guess.PROGRESS * progress), -int(hidden_nb[r, c]), -r, -c)
        record[r, c] = key
        if outcomes <= 1:
            if dead_key is None or key > dead_key:
                dead_key, dead = key, (r, c)
        elif best_key is None or key > best_key:
            best_key, best = key, (r, c)
    return best if best is not None else dead


def stuck(
    seed: int, shape: tuple[int, int, int], reveals: int, n: int
) -> Iterator[tuple[NDArray[np.int8], Analysis]]:
    """n positions of random reveals (up to ``reveals``) with no certainly safe cell."""
    rng = np.random.default_rng(seed)
    rows, cols, mines = shape
    found = 0
    while found < n:
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        safe = np.argwhere(~board.mines)
        for r, c in safe[rng.permutation(len(safe))[: int(rng.integers(1, reveals))]].tolist():
            board.reveal(r, c)
        cells = np.where(board.revealed, board.counts, H).astype(np.int8)
        if board.hidden_safe:
            a = analyze(cells, mines)
            if not len(a.safe):
                found += 1
                yield cells, a


def test_the_guess_is_the_plain_rule_without_its_early_stops() -> None:
    # Stuck positions of the three classic boards, some with flags (hidden,
    # not clickable): hill_guess, whose look-ahead stops once a candidate
    # cannot win, picks what the plain rule picks, with fewer analyses.
    rng = np.random.default_rng(10)
    calls = {"hill": 0}

    class Counted:
        """A prober that counts the numbers it is asked (looked at or analysed)."""

        def __init__(self, cells: NDArray[np.int8], mines: int, cell: Cell) -> None:
            self.shown = prober(cells, mines, cell)

        def __call__(self, n: int) -> Analysis:
            calls["hill"] += 1
            return self.shown(n)

        def look(self, n: int, off_at: int) -> tuple[int, float, float, bool] | None:
            found = self.shown.look(n, off_at)
            calls["hill"] += found is not None
            return found

    plain_calls = stops = 0
    boards = [(4, 4, 3), (5, 5, 4), (4, 6, 6), (9, 9, 10), (16, 16, 40), (16, 30, 99)]
    for shape, reveals, n in zip(
        boards, (3, 3, 4, 6, 15, 30), (100, 100, 100, 40, 10, 5), strict=True
    ):
        for cells, a in stuck(8 + n, shape, reveals, n):
            hidden = np.argwhere(cells == H)
            for r, c in hidden[rng.random(len(hidden)) < 0.05].tolist():
                cells[r, c] = ns.FLAG  # flags count as hidden cells
            a = analyze(cells, shape[2])
            clickable = cells == H
            if len(a.safe) and clickable[tuple(a.safe.T)].any():
                continue
            fate: dict[Cell, Any] = {}
            got = guess.hill_guess(
                cells, shape[2], a, clickable, Counted, Analyzer(), MAX_STATES, fate
            )
            assert got is not None and clickable[got]
            plain: dict[Cell, Any] = {}
            assert got == plain_guess(cells, shape[2], a, plain)
            assert fate.keys() == plain.keys()  # the same candidates
            top = plain[got]
            for cell, how in fate.items():
                if how == "stop":  # stopped early: it could not have won
                    assert isinstance(plain[cell], tuple) and plain[cell] < top
                    stops += 1
                else:  # skipped by the rule, or scored: the same float key
                    assert how == plain[cell]
            plain_calls += sum(
                9 for r, c in guess.candidates(cells, np.where(clickable, a.probabilities, np.inf))
            )
    assert calls["hill"] < plain_calls / 4 and stops > 50  # the stops do cut the look-ahead


def test_when_every_candidate_is_dead_the_best_of_them_is_the_guess() -> None:
    # [1, H, H] with one mine: each cell, if safe, must show 1.
    H_ = H
    cells = np.array([[1, H_, H_]], dtype=np.int8)
    a = analyze(cells, 1)
    got = guess.hill_guess(cells, 1, a, cells == H, prober, Analyzer(), MAX_STATES)
    assert got == plain_guess(cells, 1, a) == (0, 2)  # fewer hidden neighbours


def plain_candidates(cells: NDArray[np.int8], p: NDArray[np.float64]) -> list[Cell]:
    """candidates(), cell by cell as the rule reads."""
    rows, cols = cells.shape
    best = float(p.min())

    def near(r: int, c: int) -> list[Cell]:
        return [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
        ]

    clickable = [(r, c) for r in range(rows) for c in range(cols) if np.isfinite(p[r, c])]
    front = [x for x in clickable if any(cells[y] >= 0 for y in near(*x))]
    off = [x for x in clickable if x not in front]
    ok = [x for x in front if 1 - p[x] >= 0.9 * (1 - best) - 1e-9]
    if off and 1 - p[off[0]] >= 0.9 * (1 - best) - 1e-9:
        for r, c in off:
            hidden_near = sum(cells[y] < 0 for y in near(r, c))
            two_away = [(r + 2, c), (r - 2, c), (r, c + 2), (r, c - 2)]
            number = any(0 <= x < rows and 0 <= y < cols and cells[x, y] >= 0 for x, y in two_away)
            if len(off) < 30 or hidden_near in (2, 3) or number:
                ok.append((r, c))
    return sorted(ok, key=lambda x: (p[x], x))


def test_candidates_follow_the_rule_cell_by_cell() -> None:
    many_off = 0
    for cells, a in itertools.chain(
        stuck(11, (16, 30, 99), 20, 40), stuck(12, (9, 9, 10), 4, 40), stuck(13, (5, 5, 4), 3, 40)
    ):
        p = np.where(cells == H, a.probabilities, np.inf)
        got = [tuple(x) for x in guess.candidates(cells, p).tolist()]
        assert got == plain_candidates(cells, p)
        many_off += np.count_nonzero(np.isfinite(p) & (adjacent_counts(cells >= 0) == 0)) >= 30
    assert many_off > 20


def plain_factor(cells: NDArray[np.int8], lay: NDArray[np.bool_], r: int, c: int) -> float:
    """The influence factor of (r, c), from the listed layouts, as the rule reads."""
    rows, cols = cells.shape
    sure, free = lay.all(axis=0), ~lay.any(axis=0)

    def share(mines: list[Cell], safe: list[Cell], outer: list[Cell]) -> float:
        cells_in = mines + safe
        if not all(0 <= x < rows and 0 <= y < cols for x, y in cells_in):
            return 0.0
        if any(sure[x] or free[x] for x in cells_in):  # revealed cells are free
            return 0.0
        hidden_outer = [x for x in outer if 0 <= x[0] < rows and 0 <= x[1] < cols and not sure[x]]
        if any(cells[x] >= 0 for x in hidden_outer) or len(hidden_outer) > 3:
            return 0.0
        hit = np.ones(len(lay), dtype=bool)
        for x in mines + hidden_outer:
            hit &= lay[:, x[0], x[1]]
        for x in safe:
            hit &= ~lay[:, x[0], x[1]]
        return float(hit.sum() / len(lay))

    me = (r, c)
    side = lambda x, y: [(x + k, y) for k in (-1, 0, 1)]  # noqa: E731
    row = lambda x, y: [(x, y + k) for k in (-1, 0, 1)]  # noqa: E731
    # a pair with the click the mine: left/right, then up/down
    horizontal = max(
        share([me], [(r, c + 1)], side(r, c - 1) + side(r, c + 2)),
        share([me], [(r, c - 1)], side(r, c - 2) + side(r, c + 1)),
    )
    vertical = max(
        share([me], [(r + 1, c)], row(r - 1, c) + row(r + 2, c)),
        share([me], [(r - 1, c)], row(r - 2, c) + row(r + 1, c)),
    )
    boxes = []
    for x, y in ((r, c), (r - 1, c), (r, c - 1), (r - 1, c - 1)):
        d1, d2 = [(x, y), (x + 1, y + 1)], [(x, y + 1), (x + 1, y)]
        mines, safe = (d1, d2) if me in d1 else (d2, d1)
        corners = [(x - 1, y - 1), (x - 1, y + 2), (x + 2, y - 1), (x + 2, y + 2)]
        boxes.append(share(mines, safe, corners))
    p = float(lay[:, r, c].mean())
    infl = horizontal + vertical + max(boxes)
    if infl <= 0 or not 0 < p < 1:
        return 1.0
    return 1.0 + guess.INFLUENCE * min(infl, p, 1 - p) / (1 - p)


def test_influence_factors_match_the_rule_over_listed_layouts() -> None:
    # a click whose patterns hold in more layouts than it is safe: capped
    cells = np.array([[H, 0, H, 1, H, H], [H, 1, 2, H, H, H], [H, H, H, H, H, H]], dtype=np.int8)
    lay = layouts_of(cells, 6)
    a = analyze(cells, 6)
    influence = influence_of(cells, 6, a)
    pr = float(a.probabilities[0, 5])
    patterns, tallies = influence.tallies(0, 5)
    best = [max(tallies[patterns[:, 0] == g], default=0.0) for g in range(3)]
    assert sum(best) > 1 - pr
    assert influence.factor(0, 5, pr) == pytest.approx(plain_factor(cells, lay, 0, 5))
    assert influence.factor(0, 5, pr) == pytest.approx(1 + guess.INFLUENCE)
    above = 0
    for cells, mines, lay, a in listed(14, 200):
        influence = influence_of(cells, mines, a)
        counted = influence_of(cells, mines, a)
        counted.compiled = False  # (every set counted in Python)
        for r, c in np.argwhere(cells == H).tolist():
            pr = float(a.probabilities[r, c])
            got = influence.factor(r, c, pr)
            assert got == pytest.approx(plain_factor(cells, lay, r, c), abs=1e-9)
            assert got == counted.factor(r, c, pr)
            above += got > 1
    assert influence.counted_in_python == 0 < counted.counted_in_python
    assert above > 100


def test_guess_setting() -> None:
    assert SolverPolicy().guess == "hill"
    with pytest.raises(ValueError, match="guess must be one of"):
        SolverPolicy(guess="best")
    # both guesses play legal moves on stuck expert positions; they differ
    rng = np.random.default_rng(9)
    differ = 0
    for cells, _ in stuck(9, (16, 30, 99), 30, 30):
        moves = [
            SolverPolicy(guess=g)(cells[None], [99], rng)[0].tolist() for g in ("hill", "lookahead")
        ]
        assert all(cells[r, c] == H for r, c in moves)
        differ += moves[0] != moves[1]
    assert differ > 0
