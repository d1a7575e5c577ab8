"""SolverPolicy, local rules, endgame search and hints."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts
from numsweeper.solver import MAX_STATES, Analyzer, SolverPolicy, analyze, hint, local_rules
from numsweeper.solver.endgame import best_click, endgame_values, list_layouts
from numsweeper.solver.guess import forced_pair
from reference import capture

H = int(ns.HIDDEN)


def local_reference(cells: NDArray[np.int8]) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """The single-number rules, cell by cell, to a fixed point."""
    rows, cols = cells.shape
    safe: set[tuple[int, int]] = set()
    mines: set[tuple[int, int]] = set()
    changed = True
    while changed:
        changed = False
        for r, c in itertools.product(range(rows), range(cols)):
            if cells[r, c] < 0:
                continue
            nb = [
                (r + dr, c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
            ]
            hidden = [x for x in nb if cells[x] < 0]
            known = [x for x in hidden if x in mines]
            free = [x for x in hidden if x not in mines and x not in safe]
            if not free:
                continue
            if cells[r, c] - len(known) == len(free):
                mines.update(free)
                changed = True
            elif cells[r, c] == len(known):
                safe.update(free)
                changed = True
    return safe, mines


def random_positions(
    rng: np.random.Generator, n: int
) -> list[tuple[NDArray[np.int8], NDArray[np.bool_]]]:
    out = []
    while len(out) < n:
        rows, cols = int(rng.integers(3, 10)), int(rng.integers(3, 10))
        mines = int(rng.integers(1, rows * cols // 3 + 1))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        safe = np.argwhere(~board.mines)
        for r, c in safe[rng.permutation(len(safe))[: int(rng.integers(1, 5))]]:
            board.reveal(int(r), int(c))
        if board.hidden_safe:
            out.append((np.where(board.revealed, board.counts, H).astype(np.int8), board.mines))
    return out


def test_local_rules_match_the_cell_by_cell_reference_over_a_batch() -> None:
    rng = np.random.default_rng(0)
    for cells, layout in random_positions(rng, 300):
        safe, mines = local_rules(cells)
        ref_safe, ref_mines = local_reference(cells)
        assert {tuple(x) for x in np.argwhere(safe).tolist()} == ref_safe
        assert {tuple(x) for x in np.argwhere(mines).tolist()} == ref_mines
        assert not layout[safe].any() and layout[mines].all()
    # a batch gives the same answer as the boards one by one
    boards = [ns.Board.create(9, 9, 12, ns.RandomPlacement(rng)) for _ in range(20)]
    for board in boards:
        safe_cells = np.argwhere(~board.mines)
        board.reveal(*(int(v) for v in safe_cells[rng.integers(len(safe_cells))]))
    batch = np.stack([np.where(b.revealed, b.counts, H).astype(np.int8) for b in boards])
    safe, mines = local_rules(batch)
    assert len(batch) >= 2
    for i in range(len(batch)):
        s1, m1 = local_rules(batch[i])
        assert np.array_equal(safe[i], s1) and np.array_equal(mines[i], m1)


def test_the_command_line_spelling_none_is_no_rule() -> None:
    policy = SolverPolicy("none")
    assert policy.first_click is None and repr(policy) == "SolverPolicy(first_click=None)"
    visible = np.full((1, 9, 9), ns.HIDDEN, dtype=np.int8)
    policy(visible, np.array([10]), np.random.default_rng(0))
    probabilities, guesses = policy.explain()  # a blind first click, as with None
    assert probabilities.tolist() == [10 / 81] and guesses.tolist() == [True]


def test_first_clicks() -> None:
    rng = np.random.default_rng(0)
    expert = np.full((1, 16, 30), H, dtype=np.int8)
    beginner = np.full((1, 9, 9), H, dtype=np.int8)
    assert SolverPolicy("safe")(expert, [99], rng).tolist() == [[0, 0]]
    assert SolverPolicy(None)(beginner, [10], rng).tolist() == [[0, 0]]
    assert SolverPolicy("opening")(expert, [99], rng).tolist() == [[3, 3]]
    assert SolverPolicy("opening")(beginner, [10], rng).tolist() == [[2, 2]]
    intermediate = np.full((1, 16, 16), H, dtype=np.int8)
    assert SolverPolicy("opening")(intermediate, [40], rng).tolist() == [[2, 2]]
    tiny = np.full((1, 3, 4), H, dtype=np.int8)
    assert SolverPolicy("opening")(tiny, [2], rng).tolist() == [[1, 1]]
    # (3, 3) from 400 cells on
    for shape, click in (((20, 20), [3, 3]), ((19, 21), [2, 2]), ((8, 60), [3, 3])):
        board = np.full((1, *shape), H, dtype=np.int8)
        assert SolverPolicy("opening")(board, [40], rng).tolist() == [click]
    with pytest.raises(ValueError, match="first_click"):
        SolverPolicy("corner")


def test_start_overrides_the_opening_click_only() -> None:
    rng = np.random.default_rng(0)
    fresh = np.full((2, 9, 9), H, dtype=np.int8)
    for rule in (None, "safe", "opening"):
        policy = SolverPolicy(rule, start=(4, np.int64(7)))
        assert policy(fresh, [10, 10], rng).tolist() == [[4, 7], [4, 7]]
        assert policy.counts["first"] == 2
    # after the first click the start plays no part: same moves as without it
    for seed in range(3):
        game = ns.Game.from_preset("beginner", seed=seed, first_click="safe")
        game.reveal(4, 7)
        with_start, without = SolverPolicy("safe", start=(4, 7)), SolverPolicy("safe")
        while game.state is ns.GameState.IN_PROGRESS:
            snap = game.snapshot()
            move = with_start(snap.cells[None], [snap.mines_left], rng)
            assert move.tolist() == without(snap.cells[None], [snap.mines_left], rng).tolist()
            game.reveal(*(int(v) for v in move[0]))
    # in a game under the 'safe' rule that click is safe, so it is revealed
    game = ns.Game.from_preset("beginner", seed=5, first_click="safe")
    (move,) = SolverPolicy("safe", start=(8, 3))(game.snapshot().cells[None], [10], rng)
    game.reveal(*(int(v) for v in move))
    assert game.snapshot().cells[8, 3] >= 0 and game.snapshot().cells[0, 0] == H
    policy = SolverPolicy("opening", start=(1, 2))
    assert repr(policy) == "SolverPolicy(first_click='opening', start=(1, 2))"
    assert repr(SolverPolicy("safe")) == "SolverPolicy(first_click='safe')"


def test_a_bad_start_is_refused_and_names_the_value() -> None:
    with pytest.raises(ns.OutOfBoundsError, match=r"start \(-1, 0\) is off every board"):
        SolverPolicy("safe", start=(-1, 0))
    with pytest.raises(ns.OutOfBoundsError, match=r"start \(0, -2\)"):
        SolverPolicy("safe", start=(0, -2))
    for bad in ((1,), (1, 2, 3), [], [[1, 2]]):
        with pytest.raises(ns.InvalidBoardError, match=r"start must be a \(row, col\) pair, got"):
            SolverPolicy("safe", start=bad)  # type: ignore[arg-type]
    for bad in ("ab", 5, 1.5):
        with pytest.raises(ns.InvalidTypeError, match=r"start must be a \(row, col\) pair, got"):
            SolverPolicy("safe", start=bad)  # type: ignore[arg-type]
    with pytest.raises(ns.InvalidBoardError) as info:
        SolverPolicy("safe", start=list(range(10_000)))  # type: ignore[arg-type]
    assert str(info.value).startswith("start must be a (row, col) pair, got [0, 1, 2, 3, 4")
    assert len(str(info.value)) < 200
    with pytest.raises(ns.OutOfBoundsError) as info:
        SolverPolicy("safe", start=(0, -(10**5000)))
    assert str(info.value) == (
        "start (0, a negative integer of 16,610 bits) is off every board (negative)"
    )
    for bad, which in (((1, (2, 3)), "col"), (np.eye(2, dtype=int), "row")):
        with pytest.raises(TypeError, match=f"start {which} must be an integer"):
            SolverPolicy("safe", start=bad)  # type: ignore[arg-type]
    assert SolverPolicy("safe", start=np.array([1, 2])).start == (1, 2)
    assert SolverPolicy("safe", start=[np.int8(3), 4]).start == (3, 4)
    for bad in ((1.0, 2), (True, 1), (1, None)):
        with pytest.raises(TypeError, match=r"start (row|col) must be an integer"):
            SolverPolicy("safe", start=bad)  # type: ignore[arg-type]
    # off this board: raised at the first move, and nothing is played
    policy = SolverPolicy("safe", start=(9, 0))
    fresh = np.full((1, 9, 9), H, dtype=np.int8)
    with pytest.raises(ns.OutOfBoundsError, match=r"start \(9, 0\) is off the 9x9 board"):
        policy(fresh, [10], None)
    assert policy.counts["first"] == 0
    # ... but a start that fits plays on a bigger board
    assert policy(np.full((1, 16, 16), H, dtype=np.int8), [40], None).tolist() == [[9, 0]]


def test_a_policy_pickled_before_start_opens_as_it_did() -> None:
    import pickle

    old = SolverPolicy("opening")
    del old.start  # as such a policy was
    clone = pickle.loads(pickle.dumps(old))
    assert clone.start is None
    fresh = np.full((1, 16, 30), H, dtype=np.int8)
    assert clone(fresh, [99], None).tolist() == [[3, 3]]


def test_moves_are_legal_and_depend_only_on_the_visible_state() -> None:
    rng = np.random.default_rng(5)
    policy = SolverPolicy("safe")
    positions = random_positions(rng, 60)
    by_shape: dict[tuple[int, ...], list[NDArray[np.int8]]] = {}
    for cells, _ in positions:
        by_shape.setdefault(cells.shape, []).append(cells)
    for group in by_shape.values():
        batch = np.stack(group)
        flags = np.zeros(len(group), dtype=np.int64)
        left = np.array([int(np.count_nonzero(c < 0)) // 4 + 1 for c in group]) + flags
        try:
            moves = policy(batch, left, rng)
        except ns.InvalidBoardError:
            continue  # the guessed mine count may not fit; not the point here
        assert moves.shape == (len(group), 2)
        assert (batch[np.arange(len(group)), moves[:, 0], moves[:, 1]] == H).all()
        again = np.stack([policy(b[None], [n], rng)[0] for b, n in zip(batch, left, strict=True)])
        assert np.array_equal(moves, again)


def test_same_visible_state_different_hidden_layouts_same_answer() -> None:
    rng = np.random.default_rng(9)
    found = 0
    while found < 40:
        rows, cols, mines = 4, 5, int(rng.integers(2, 6))
        board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
        board.reveal(*(int(v) for v in np.argwhere(~board.mines)[0]))
        cells = np.where(board.revealed, board.counts, H).astype(np.int8)
        hidden = [tuple(x) for x in np.argwhere(cells < 0).tolist()]
        # another layout that shows the same cells
        twins = []
        for combo in itertools.combinations(hidden, mines):
            layout = np.zeros((rows, cols), dtype=bool)
            layout[tuple(np.array(combo).T)] = True
            if np.array_equal(adjacent_counts(layout)[cells >= 0], cells[cells >= 0]):
                twins.append(layout)
            if len(twins) == 2:
                break
        if len(twins) < 2 or board.hidden_safe == 0:
            continue
        games = []
        for layout in twins:
            game = ns.Game(ns.Board(layout))
            for r, c in np.argwhere(cells >= 0).tolist():
                if game.snapshot().cells[r, c] < 0:
                    game.reveal(r, c)
            games.append(game)
        snaps = [g.snapshot() for g in games]
        assert snaps[0] == snaps[1]
        a0, a1 = (analyze(s) for s in snaps)
        np.testing.assert_array_equal(a0.probabilities, a1.probabilities)
        assert a0.layouts == a1.layouts
        policy = SolverPolicy("safe")
        m0, m1 = (policy(s.cells[None], [s.mines_left], rng) for s in snaps)
        assert np.array_equal(m0, m1)
        assert hint(snaps[0]) == hint(snaps[1])
        found += 1


def test_endgame_search_on_two_fifty_fifties() -> None:
    # Two disjoint 50/50s: no click helps, any undecided cell is optimal.
    cells = np.array([[H, H], [1, 1], [0, 0], [1, 1], [H, H]], dtype=np.int8)
    a = analyze(cells, 2)
    assert a.layouts == 4
    move = best_click(cells, a, 10_000)
    assert move is not None and cells[move] == H and a.probabilities[move] == 0.5


def test_endgame_search_gives_up_when_its_work_exceeds_the_budget() -> None:
    # The budget bounds work (layouts examined per state), not only states:
    # a search with few but wide states gives up instead of running on.
    cells = np.array([[H, H], [1, 1], [0, 0], [1, 1], [H, H]], dtype=np.int8)
    a = analyze(cells, 2)
    assert best_click(cells, a, 4) is not None  # the search needs 4 states
    # ... and 32 layout-cells of work (4 states x 2 layouts x 4 cells): a
    # limit of exactly 4 * 4 * 2 would still pass, 4 * 4 must not
    assert endgame_values(cells, a, 4, every=False, work_per_state=4) is None
    assert endgame_values(cells, a, 8, every=False, work_per_state=4) is not None


def test_endgame_moves_are_legal_on_random_endgames() -> None:
    # Random small endgames: the search returns a legal, undecided cell.
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 30:
        rows, cols = 3, 4
        board = ns.Board.create(rows, cols, 3, ns.RandomPlacement(rng))
        safe = np.argwhere(~board.mines)
        for r, c in safe[rng.permutation(len(safe))[:4]]:
            board.reveal(int(r), int(c))
        cells = np.where(board.revealed, board.counts, H).astype(np.int8)
        a = analyze(cells, 3)
        if board.hidden_safe == 0 or len(a.safe) or a.layouts > 24:
            continue
        move = best_click(cells, a, 100_000)
        if move is None:
            continue
        assert a.probabilities[move] < 1.0 and cells[move] == H
        checked += 1


def play(preset: str, rule: str, n: int, seed: int) -> tuple[int, SolverPolicy]:
    rows, cols, mines = ns.PRESETS[preset]
    policy = SolverPolicy(rule)
    rng = np.random.default_rng(seed)
    wins = 0
    for child in np.random.SeedSequence(seed).spawn(n):
        game = ns.Game.new(rows, cols, mines, seed=child, first_click=rule)
        while game.state is ns.GameState.IN_PROGRESS:
            snap = game.snapshot()
            ((r, c),) = policy(snap.cells[None], [snap.mines_left], rng)
            hidden_before = snap.cells[r, c] == ns.HIDDEN
            assert hidden_before
            game.reveal(int(r), int(c))
        wins += game.state is ns.GameState.WON
    return wins, policy


def test_plays_beginner_well() -> None:
    wins, policy = play("beginner", "safe", 60, seed=1)
    assert wins >= 48  # ~92% expected; 48/60 is far below
    assert policy.counts["local"] > policy.counts["exact"] > 0


def test_hint_refuses_what_is_not_a_game_or_snapshot() -> None:
    for bad in (np.full((3, 3), H, dtype=np.int8), [[H]], None):
        with pytest.raises(
            ns.InvalidTypeError, match=f"Game or a Snapshot, got {type(bad).__name__}"
        ):
            hint(bad)  # type: ignore[arg-type]


def test_a_won_game_is_analysed_its_hidden_cells_certain_mines() -> None:
    game = ns.Game.new(3, 3, 2, strategy=ns.FixedPlacement([(0, 0), (2, 2)]))
    game.reveal(0, 2)  # zeros: the two floods reveal every safe cell
    game.reveal(2, 0)
    assert game.state is ns.GameState.WON
    a = analyze(game)
    assert a.mines.tolist() == [[0, 0], [2, 2]] and a.layouts == 1 and not len(a.safe)
    before = capture(game)
    with pytest.raises(ns.GameOverError, match=r"^no hint: the game is already WON$"):
        hint(game)
    assert capture(game) == before


def test_hint_follows_the_policy() -> None:
    game = ns.Game.from_preset("intermediate", seed=4, first_click="opening")
    assert hint(game) == ns.solver.Hint(2, 2, 0.0, True)
    game.reveal(2, 2)
    for _ in range(20):
        if game.state is not ns.GameState.IN_PROGRESS:
            break
        h = hint(game)
        snap = game.snapshot()
        ((r, c),) = SolverPolicy("opening")(snap.cells[None], [snap.mines_left], None)
        assert (h.row, h.col) == (r, c)
        a = analyze(game)
        assert h.probability == a.probabilities[r, c]
        assert h.certain == (h.probability == 0.0)
        game.reveal(h.row, h.col)
    lost = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
    lost.reveal(0, 0)
    before = capture(lost)
    with pytest.raises(ns.GameOverError, match=r"^no hint: the game is already LOST$"):
        hint(lost)
    assert capture(lost) == before


@pytest.mark.parametrize("first_click", [None, "safe"])
def test_traced_moves_carry_the_policy_s_probability_and_guess(first_click: str | None) -> None:
    result = ns.simulate(
        60, 9, 9, 10, policy="solver", first_click=first_click, seed=12, chunk_size=25, trace=True
    )
    moves, records = result.moves, result.records
    assert moves is not None
    p, guess = moves["probability"], moves["guess"]
    assert not np.isnan(p).any() and ((p >= 0) & (p < 1)).all()
    assert np.isin(guess, [0, 1]).all()
    assert (guess == 1).tolist() == (p > 0).tolist()  # guesses exactly where a mine may be
    assert 0 < (guess == 1).sum() < len(moves)
    first = moves[moves["step"] == 1]
    assert (first["probability"] == (0 if first_click else np.float32(10 / 81))).all()
    lost = records["game"][~records["won"]]
    assert len(lost)
    for game in lost.tolist():  # a lost game ends on a guess
        assert moves[moves["game"] == game][-1]["guess"] == 1
    for game in (0, int(lost[0])):  # each move's probability is the exact one before it
        board = result.replay(game).board
        assert board is not None
        replay = ns.Game.new(
            9, 9, 10, strategy=ns.FixedPlacement(board.mines.copy()), first_click=first_click
        )
        for move in moves[moves["game"] == game]:
            r, c = int(move["row"]), int(move["col"])
            if move["step"] > 1:  # (analyze knows nothing of the first-click rule)
                assert move["probability"] == np.float32(analyze(replay).probability(r, c))
            replay.reveal(r, c)


def test_explain_before_any_move_and_for_an_empty_batch() -> None:
    policy = SolverPolicy("safe")
    probabilities, guesses = policy.explain()
    assert probabilities.shape == guesses.shape == (0,)
    policy(np.full((2, 9, 9), H, dtype=np.int8), [10, 10])
    probabilities, guesses = policy.explain()
    assert probabilities.tolist() == [0.0, 0.0] and guesses.tolist() == [False, False]
    policy(np.zeros((0, 9, 9), dtype=np.int8), np.zeros(0, dtype=int))
    assert policy.explain()[0].shape == (0,)


def test_remembered_safe_cells_match_a_plain_reference() -> None:
    # _KnownSafe compares positions a word at a time: against the plain rule
    # (every number an entry saw shows the same here, same mine total), on
    # boards whose sizes are not whole words, with entries that fit, entries
    # from other positions and entries overwritten when the memory wraps.
    from numsweeper.solver.policy import _KnownSafe

    rng = np.random.default_rng(8)
    checked = found = 0
    for rows, cols in [(9, 9), (5, 13), (16, 30), (1, 3)]:
        known = _KnownSafe()
        entries: list[tuple[NDArray[np.int8], int, list[tuple[int, int]]]] = []
        for _ in range(300):
            base = rng.integers(-2, 9, size=(rows, cols)).astype(np.int8)
            if entries and rng.random() < 0.5:  # an entry that a later position extends
                base = entries[int(rng.integers(len(entries)))][0].copy()
            seen = np.where(rng.random((rows, cols)) < 0.5, base, H).astype(np.int8)
            mines = int(rng.integers(1, 3))
            safe = [(int(r), int(c)) for r, c in np.argwhere(seen == H)[:3].tolist()] or [(0, 0)]
            known.add(seen, mines, safe)
            entries = (entries + [(seen, mines, safe)])[-len(known.mines) :]
            here = np.where(rng.random((rows, cols)) < 0.3, H, base).astype(np.int8)
            for m in (1, 2):
                want = None
                fitting = [
                    safe
                    for seen_e, m_e, safe in entries
                    if m_e == m and ((seen_e < 0) | (seen_e == here)).all()
                ]
                open_ = [rc for safe in fitting for rc in safe if here[rc] == H]
                if open_:
                    want = min(open_)
                    found += 1
                assert known.find(here, m) == want
                checked += 1
    assert checked == 2400 and found > 300, found


@pytest.mark.parametrize(
    "view",
    [
        lambda b: np.ascontiguousarray(b[:, ::-1, ::-1])[:, ::-1, ::-1],  # negative strides
        lambda b: np.repeat(b, 2, axis=2)[:, :, ::2],  # every other column of a wider array
    ],
    ids=["reversed", "strided"],
)
def test_remembered_safe_cells_read_any_view_of_a_board(view: Any) -> None:
    # The policy remembers from the first position and reads the memory on
    # the second: the compiled check must take boards that are views, as
    # the policy's other steps do, and give the moves of contiguous boards.
    first = np.full((1, 2, 5), H, dtype=np.int8)
    first[0, 0, 2] = 1
    second = first.copy()
    second[0, 0, 3] = 1
    plain, viewed = SolverPolicy(), SolverPolicy()
    for cells in (first, second):
        want = plain(cells, np.array([1]))
        assert viewed(view(cells), np.array([1])).tolist() == want.tolist()
    assert plain.counts == viewed.counts
    assert viewed.counts["remembered"] >= 1


@pytest.mark.parametrize(
    ("rows", "cols", "entries"), [(16, 30, 256), (100, 100, 200), (1000, 1000, 2), (1500, 1500, 0)]
)
def test_remembered_safe_cells_keep_their_entries(rows: int, cols: int, entries: int) -> None:
    # Which entries are still held decides which safe cell comes first, so
    # the memory's size per board is part of the moves: pinned.
    from numsweeper.solver.policy import _KnownSafe

    known = _KnownSafe()
    known.add(np.full((rows, cols), H, dtype=np.int8), 1, [(0, 0)])
    assert len(known.mines) == entries


def test_remembered_safe_cells_are_safe_and_need_a_compatible_position() -> None:
    rng = np.random.default_rng(21)
    used = 0
    for child in np.random.SeedSequence(21).spawn(40):
        game = ns.Game.new(16, 16, 40, seed=child, first_click="opening")
        policy = SolverPolicy("opening")
        while game.state is ns.GameState.IN_PROGRESS:
            snap = game.snapshot()
            mines = snap.mines_left
            remembered = policy._known.find(snap.cells, mines)
            if remembered is not None and policy._analyzed(snap.cells, mines) is None:
                used += 1
                # what a fresh analysis of this very position says
                assert analyze(snap.cells, mines).probabilities[remembered] == 0.0
                assert not game.board.mines[remembered]
                # a position that contradicts a number every entry saw (the
                # opening click) matches no entry
                other = snap.cells.copy()
                other[3, 3] += 1
                assert policy._known.find(other, mines) is None
                assert policy._known.find(snap.cells, mines + 1) is None
            ((r, c),) = policy(snap.cells[None], [mines], rng)
            game.reveal(int(r), int(c))
    assert used > 20


def test_remembered_cells_change_the_order_of_safe_moves_not_the_outcome() -> None:
    def outcomes(remember: bool) -> list[tuple[bool, bytes]]:
        policy = SolverPolicy("safe")
        if not remember:
            policy._known.find = lambda cells, mines: None  # type: ignore[method-assign]
        out = []
        played.append(policy)
        for child in np.random.SeedSequence(8).spawn(30):
            game = ns.Game.new(16, 16, 40, seed=child, first_click="safe")
            while game.state is ns.GameState.IN_PROGRESS:
                snap = game.snapshot()
                ((r, c),) = policy(snap.cells[None], [snap.mines_left], None)
                game.reveal(int(r), int(c))
            out.append((game.state is ns.GameState.WON, game.snapshot().cells.tobytes()))
        return out

    played: list[SolverPolicy] = []
    assert outcomes(True) == outcomes(False)
    assert played[0].counts["remembered"] > 10 and played[1].counts["remembered"] == 0


def test_memory_is_per_board_shape_and_mine_total() -> None:
    policy = SolverPolicy("safe")
    v = np.array([[1, 1, 1, H], [H, H, H, H], [H, H, H, H]], dtype=np.int8)
    policy._known.add(v, 2, [(2, 0)])
    assert policy._known.find(v, 2) == (2, 0)
    assert policy._known.find(v, 3) is None  # another mine total
    assert policy._known.find(v.reshape(4, 3), 2) is None  # same cells, other shape
    v2 = v.copy()
    v2[0, 0] = 2  # contradicts a number the entry saw
    assert policy._known.find(v2, 2) is None
    policy._known.add(v.T.copy(), 2, [(0, 2)])  # a new shape starts afresh
    assert policy._known.find(v, 2) is None


def test_copies_and_pickles_start_without_memory() -> None:
    import copy
    import pickle

    policy = SolverPolicy("opening", candidates=5)
    seed = 0
    while not (policy._analyses and len(policy._known.mines)):
        game = ns.Game.from_preset("intermediate", seed=seed, first_click="opening")
        while game.state is ns.GameState.IN_PROGRESS:
            snap = game.snapshot()
            ((r, c),) = policy(snap.cells[None], [snap.mines_left], None)
            game.reveal(int(r), int(c))
        seed += 1
    assert len(policy._engine.memory)
    for clone in (copy.deepcopy(policy), pickle.loads(pickle.dumps(policy))):
        assert not clone._analyses and not len(clone._known.mines)
        assert not len(clone._engine.memory)
        assert clone.candidates == 5 and clone.first_click == "opening"


def test_a_policy_pickled_before_the_density_trigger_plays_as_it_did() -> None:
    # Policies pickled before commit cf96a28 have no endgame_dense and no
    # endgame_max_layouts: they must unpickle, and search only up to their
    # own endgame_layouts (as then), not by the new density rule.
    import pickle

    old = SolverPolicy("safe", endgame_layouts=300)
    del old.endgame_dense, old.endgame_max_layouts, old.guess  # as such a policy was
    clone = pickle.loads(pickle.dumps(old))  # the bytes an old pickle holds
    assert (clone.endgame_dense, clone.endgame_max_layouts) == (0.0, 300)
    assert clone.guess == "lookahead"  # and it guessed the old way
    for layouts, mines_left in ((300, 90), (301, 90), (800, 90), (1500, 95)):
        a = SimpleNamespace(layouts=layouts, mines_left=mines_left)
        cells = np.full((10, 10), H, dtype=np.int8)
        assert clone._searchable(cells, a) == (layouts <= 300)
    # while a new policy searches the dense ones
    new = SolverPolicy("safe", endgame_layouts=300)
    a = SimpleNamespace(layouts=1500, mines_left=95)
    assert new._searchable(np.full((10, 10), H, dtype=np.int8), a)


def test_memory_stays_small_on_huge_boards() -> None:
    policy = SolverPolicy("safe")
    big = np.full((2000, 2000), H, dtype=np.int8)
    big[0, :3] = 1
    policy._known.add(big, 10, [(1, 0)])
    assert policy._known.shown.nbytes + policy._known.safe.nbytes <= 4_000_000


def _small_position(
    rng: np.random.Generator, min_rows: int, shown: float, flags: float = 0.0
) -> tuple[np.ndarray, int]:
    """A random visible state of a board of at most 4x5 cells, and its mine count."""
    rows, cols = int(rng.integers(min_rows, 5)), int(rng.integers(2, 6))
    n = rows * cols
    mines = int(rng.integers(1, n // 2 + 1))
    layout = np.zeros(n, dtype=bool)
    layout[rng.choice(n, mines, replace=False)] = True
    layout = layout.reshape(rows, cols)
    revealed = ~layout & (rng.random((rows, cols)) < shown)
    cells = np.where(revealed, adjacent_counts(layout), H).astype(np.int8)
    # the player's flags, right or wrong, are guesses: they count as hidden
    cells[~revealed & (rng.random((rows, cols)) < flags)] = int(ns.FLAG)
    return cells, mines


def test_the_endgame_search_takes_more_layouts_when_few_hidden_cells_are_safe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Past endgame_layouts, a position is searched when layouts * d**3 is at
    # most endgame_dense (d: the safe share of hidden cells), up to
    # endgame_max_layouts.  Dense and sparse positions of 401 to 3,000
    # layouts on 6x7 boards: the search is tried on exactly the dense ones.
    from numsweeper.solver import policy as module

    tried: list[int] = []

    def search(cells: NDArray[np.int8], a: Any, budget: int) -> tuple[int, int] | None:
        tried.append(a.layouts)
        return None

    monkeypatch.setattr(module, "best_click", search)
    rng = np.random.default_rng(41)
    seen = {True: 0, False: 0}
    while min(seen.values()) < 5:
        mines = int(rng.integers(8, 22))
        board = ns.Board.create(6, 7, mines, ns.RandomPlacement(rng))
        shown = ~board.mines & (rng.random((6, 7)) < 0.5)
        cells = np.where(shown, board.counts, H).astype(np.int8)
        a = analyze(cells, mines)
        if len(a.safe) or not 400 < a.layouts <= 3000:
            continue
        hidden = np.count_nonzero(cells < 0)
        dense = a.layouts * ((hidden - mines) / hidden) ** 3 <= 250
        for limit, searched in ((3000, dense), (a.layouts - 1, False)):
            tried.clear()
            SolverPolicy("safe", endgame_max_layouts=limit)(cells[None], np.array([mines]), rng)
            assert tried == ([a.layouts] if searched else [])
        seen[bool(dense)] += 1


def as_ints(lays: NDArray[np.uint64] | None) -> list[int]:
    """The listed layouts as bitmasks (cell ``i`` is bit ``i``), sorted."""
    assert lays is not None
    return sorted(sum(int(w) << (64 * k) for k, w in enumerate(row)) for row in lays.tolist())


def test_endgame_layouts_are_every_fitting_layout() -> None:
    # The endgame's enumeration (constrained cells first, pruned early) gives
    # exactly the layouts a brute force over every subset finds.
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(800):
        cells, mines = _small_position(rng, 1, 0.4)
        hidden = cells < 0
        known = hidden & (rng.random(cells.shape) < 0.15)
        unknown = [(int(r), int(c)) for r, c in np.argwhere(hidden & ~known).tolist()]
        left = mines - int(np.count_nonzero(known))
        shown = cells >= 0
        touches = adjacent_counts(hidden & ~known) > 0
        if not unknown or left < 0:
            continue
        if np.any((adjacent_counts(known) != cells)[shown & ~touches]):
            continue  # a number the known mines alone must explain: out of contract
        expected = []
        for bits in itertools.product((0, 1), repeat=len(unknown)):
            if sum(bits) != left:
                continue
            lay = known.copy()
            for (r, c), b in zip(unknown, bits, strict=True):
                lay[r, c] = bool(b)
            if np.array_equal(adjacent_counts(lay)[shown], cells[shown]):
                expected.append(sum(b << i for i, b in enumerate(bits)))
        assert as_ints(list_layouts(cells, known, left, unknown)) == sorted(expected)
        checked += bool(expected)
    assert checked > 300


#: A late expert position (99 mines, ``.`` hidden): 192 layouts over 30
#: undecided cells, 10 of them unconstrained (shared with bench_solver.py).
_LATE_EXPERT = [
    row
    for row in (Path(__file__).parent / "data" / "late_expert.txt").read_text().splitlines()
    if not row.startswith("#")
]


def test_endgame_layout_listing_prunes_dead_branches_early() -> None:
    # The listing takes about 3,000 steps here; the old one (each number
    # checked only at its last cell, unconstrained cells interleaved) took
    # about 100 times as many.  A step limit stops it on any position.
    cells = np.array(
        [[H if ch == "." else int(ch) for ch in row] for row in _LATE_EXPERT], dtype=np.int8
    )
    a = analyze(cells, 99)
    p = a.probabilities
    known = (cells < 0) & (p == 1.0)
    unknown = [(int(r), int(c)) for r, c in np.argwhere((cells < 0) & (p > 0) & (p < 1)).tolist()]
    mines = a.mines_left - int(np.count_nonzero(known))
    assert len(as_ints(list_layouts(cells, known, mines, unknown, 10_000))) == a.layouts == 192
    assert list_layouts(cells, known, mines, unknown, 1_000) is None


def test_forced_pairs_can_never_be_told_apart_and_hold_at_most_one_mine() -> None:
    rng = np.random.default_rng(55)
    found = 0
    for _ in range(3000):
        cells, mines = _small_position(rng, 2, 0.7, flags=0.2)
        rows, cols = cells.shape
        a = analyze(cells, mines)
        pair = forced_pair(cells, mines, a, Analyzer(), MAX_STATES)
        if pair is None:
            continue
        found += 1
        x, y = pair
        hidden = [tuple(v) for v in np.argwhere(cells < 0).tolist()]
        shown = cells >= 0
        witnesses = {
            (r + dr, c + dc)
            for r, c in pair
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        }
        # cells that touch exactly one of the pair could tell them apart
        one_sided = [
            z
            for z in witnesses - {x, y}
            if (max(abs(z[0] - x[0]), abs(z[1] - x[1])) <= 1)
            != (max(abs(z[0] - y[0]), abs(z[1] - y[1])) <= 1)
        ]
        for combo in itertools.combinations(hidden, mines):
            lay = np.zeros((rows, cols), dtype=bool)
            lay[tuple(np.array(combo).T)] = True
            if not np.array_equal(adjacent_counts(lay)[shown], cells[shown]):
                continue
            assert not (lay[x] and lay[y])
            assert all(lay[z] for z in one_sided)
    assert found > 20


def test_clicking_either_cell_of_a_forced_pair_is_an_optimal_move() -> None:
    # "Guess a forced pair first" claims more than a coin flip: no other play
    # wins more often.  Check it against the exact expectimax (the endgame
    # search, run to the end) on every small position where a pair is found.
    rng = np.random.default_rng(21)
    checked = 0
    for _ in range(3000):
        cells, mines = _small_position(rng, 1, 0.6)
        a = analyze(cells, mines)
        pair = forced_pair(cells, mines, a, Analyzer(), MAX_STATES)
        if pair is None or len(a.safe):
            continue
        values = endgame_values(cells, a, 10**6)
        assert values is not None
        best = max(values.values())
        for cell in pair:
            assert values[cell] >= best - 1e-12, (cells.tolist(), mines, cell, values)
        checked += 1
    assert checked > 300


def plain_click_values(cells: np.ndarray, mines: int) -> dict[tuple[int, int], float]:
    """Win probability of each first click under perfect play, by the
    textbook expectimax: enumerate the layouts, reveal certainly safe cells
    one at a time, try every other cell that is not certainly a mine."""
    hidden = [tuple(rc) for rc in np.argwhere(cells < 0).tolist()]
    shown = cells >= 0
    layouts = []
    for combo in itertools.combinations(hidden, mines):
        lay = np.zeros(cells.shape, dtype=bool)
        for c in combo:
            lay[c] = True
        if np.array_equal(adjacent_counts(lay)[shown], cells[shown]):
            layouts.append((frozenset(combo), adjacent_counts(lay)))

    def split(group: tuple[int, ...], cell: tuple[int, int]) -> list[tuple[int, ...]]:
        parts: dict[int, list[int]] = {}
        for i in group:
            if cell not in layouts[i][0]:
                parts.setdefault(int(layouts[i][1][cell]), []).append(i)
        return [tuple(q) for q in parts.values()]

    Seen = frozenset[tuple[int, int]]

    def mine(c: tuple[int, int], group: tuple[int, ...]) -> bool:
        return all(c in layouts[i][0] for i in group)

    @functools.cache
    def value(group: tuple[int, ...], seen: Seen) -> float:
        open_ = [c for c in hidden if c not in seen]
        if all(mine(c, group) for c in open_):
            return 1.0  # only mines are left: won
        for c in open_:
            if not any(c in layouts[i][0] for i in group):  # certainly safe
                return click(group, seen, c)
        return max(click(group, seen, c) for c in open_ if not mine(c, group))

    def click(group: tuple[int, ...], seen: Seen, c: tuple[int, int]) -> float:
        return sum(len(q) * value(q, seen | {c}) for q in split(group, c)) / len(group)

    root = tuple(range(len(layouts)))
    return {
        c: click(root, frozenset(), c)
        for c in hidden
        if any(c in layouts[i][0] for i in root) and not all(c in layouts[i][0] for i in root)
    }


def test_endgame_values_match_a_plain_expectimax() -> None:
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(1500):
        cells, mines = _small_position(rng, 1, 0.5)
        a = analyze(cells, mines)
        if len(a.safe) or a.layouts > 40 or np.count_nonzero(cells < 0) > 14:
            continue
        values = endgame_values(cells, a, 10**6)
        if values is None:
            continue
        ref = plain_click_values(cells, mines)
        assert values.keys() == ref.keys()
        for cell, v in ref.items():
            assert abs(values[cell] - v) < 1e-12, (cells.tolist(), mines, cell, values, ref)
        checked += 1
    assert checked > 150


def test_the_pruned_endgame_search_finds_the_best_click() -> None:
    # The move search skips clicks that cannot win more than the best so
    # far, and dead clicks (which can tie with the best live click): the
    # clicks it counts in full have their exact values, and its move is a
    # best click of the full count.  Flagged cells cannot be clicked, so
    # with flags no click waits (a dead click can make a flagged cell safe
    # and so tell more than any clickable cell: the first fixed case).
    F = int(ns.FLAG)
    fixed = [
        (np.array([[1, 3, H, H, 1], [F, F, H, 4, H], [H, H, F, H, 1]], dtype=np.int8), 6),
        (np.array([[H, F, H, H, H], [F, F, 2, 2, F]], dtype=np.int8), 5),
    ]
    rng = np.random.default_rng(31)
    checked = pruned = flagged = 0
    for k in range(1500):
        if k < len(fixed):
            cells, mines = fixed[k]
        else:
            cells, mines = _small_position(rng, 1, 0.5, flags=0.2 * (k % 2))
        a = analyze(cells, mines)
        if len(a.safe) or a.layouts > 300:
            continue
        values = endgame_values(cells, a, 10**6)
        if values is None:
            continue
        some = endgame_values(cells, a, 10**6, every=False)
        assert some is not None and set(some) <= set(values)
        assert all(values[cell] == v for cell, v in some.items())
        move = best_click(cells, a, 10**6)
        assert move is not None and values[move] == max(values.values()), (cells.tolist(), mines)
        checked += 1
        pruned += len(some) < len(values)
        flagged += bool((cells == F).any())
    assert checked > 200 and pruned > 50 and flagged > 50


def test_a_forced_fifty_fifty_is_guessed_before_a_safer_avoidable_guess() -> None:
    # Two sealed vertical 50/50s at columns 0 and 5 (nothing beyond the top
    # and bottom edges can tell their cells apart) and four more mines among
    # the 20 cells on the right, each 20%: too many layouts for the endgame
    # search, so the rule itself must pick the pair.
    v = np.array([[H, 1, 0, 0, 1] + [H] * 11] * 2, dtype=np.int8)
    a = analyze(v, 6)
    assert a.probabilities[0, 0] == 0.5 and a.probabilities[0, 10] == 0.2
    assert a.layouts > 1000
    pairs = {(0, 0), (1, 0), (0, 5), (1, 5)}
    forced = SolverPolicy("safe")
    ((r, c),) = forced(v[None], [6], None)
    assert (r, c) in pairs and forced.counts["forced"] == 1
    ((r, c),) = SolverPolicy("safe", fifty_fifty=False)(v[None], [6], None)
    assert (r, c) not in pairs


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("tolerance", -0.1),
        ("candidates", 0),
        ("endgame_layouts", -1),
        ("endgame_dense", float("nan")),
        ("endgame_dense", float("inf")),
        ("endgame_max_layouts", -5),
        ("endgame_cells", -1),
        ("endgame_nodes", 0),
        ("max_states", 0),
    ],
)
def test_policy_settings_out_of_range_are_rejected(name: str, value: float) -> None:
    with pytest.raises(ns.InvalidBoardError, match=f"{name} must be .* got {value!r}$"):
        SolverPolicy("safe", **{name: value})
    SolverPolicy("safe", **{name: 0 if name in ("tolerance", "endgame_dense") else 1})


def test_analyze_refuses_a_guard_below_one_instead_of_looping() -> None:
    cells = np.array([[1, H], [H, H]], dtype=np.int8)
    for bad in (0, -5):
        with pytest.raises(ValueError, match=f"max_states must be >= 1, got {bad}$"):
            analyze(cells, 1, max_states=bad)
    with pytest.raises(TypeError, match="max_states must be an integer, got None"):
        analyze(cells, 1, max_states=None)  # type: ignore[arg-type]
    assert analyze(cells, 1, max_states=1).layouts >= 3  # relaxed, an upper bound


def test_a_won_snapshot_is_analysed_like_the_won_game() -> None:
    game = ns.Game.new(3, 3, 2, strategy=ns.FixedPlacement([(0, 0), (2, 2)]))
    game.toggle_flag(2, 2)  # one flag of the player's; the win shows both mines flagged
    game.reveal(0, 2)
    game.reveal(2, 0)
    assert game.state is ns.GameState.WON and game.snapshot().mines_left == 1
    by_snapshot, by_game = analyze(game.snapshot()), analyze(game)
    assert by_snapshot.mines.tolist() == by_game.mines.tolist() == [[0, 0], [2, 2]]
    assert by_snapshot.layouts == by_game.layouts == 1


def test_a_flagged_opening_is_never_the_move() -> None:
    for rule, opening, nearest in (
        (None, (0, 0), [0, 1]),
        ("safe", (0, 0), [0, 1]),
        ("opening", (2, 2), [1, 1]),
    ):
        game = ns.Game.new(9, 9, 10, seed=1, first_click=rule)
        game.toggle_flag(*opening)
        h = hint(game)
        snap = game.snapshot()
        move = SolverPolicy(rule)(snap.cells[None], [snap.mines_left], None)
        assert [h.row, h.col] == move[0].tolist() == nearest
        game.reveal(h.row, h.col)  # a legal move
    policy = SolverPolicy("safe", start=(4, 4))
    cells = np.full((1, 9, 9), H, dtype=np.int8)
    cells[0, 3:6, 3:6] = ns.FLAG
    assert policy(cells, [10], None).tolist() == [[2, 2]]  # nearest, row-major on ties


def test_no_move_when_every_hidden_cell_is_flagged() -> None:
    game = ns.Game.new(2, 2, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.toggle_flag(0, 0)
    game.toggle_flag(1, 1)
    game.reveal(0, 1)
    game.reveal(1, 0)
    assert game.state is ns.GameState.IN_PROGRESS
    with pytest.raises(ns.IllegalMoveError, match=r"^no hidden, unflagged cell to reveal: unflag"):
        hint(game)
    snap = game.snapshot()
    with pytest.raises(ns.IllegalMoveError, match="game 0 has no hidden, unflagged cell"):
        SolverPolicy()(snap.cells[None], [snap.mines_left], None)


def test_hint_before_the_first_click_agrees_with_analyze_about_flags() -> None:
    game = ns.Game.new(3, 3, 2, seed=0)  # no rule: the first click is a guess
    game.toggle_flag(1, 1)
    for trust in (False, True):
        h = hint(game, trust_flags=trust)
        p = analyze(game, trust_flags=trust).probabilities[h.row, h.col]
        assert h.probability == p and not h.certain
    assert hint(game).probability == pytest.approx(2 / 9)
    assert hint(game, trust_flags=True).probability == pytest.approx(1 / 8)


def test_hint_once_the_mines_are_laid_is_no_longer_protected_by_the_rule() -> None:
    # Undoing the first reveal keeps the layout it laid (so does replay(0)):
    # the first-click rule no longer protects any cell, so the opening is a
    # guess, with the probability analyze gives (10 mines in 81 cells).
    game = ns.Game.from_preset("beginner", seed=6, first_click="safe")
    assert hint(game) == ns.solver.Hint(0, 0, 0.0, True)  # (mines not yet laid)
    game.reveal(4, 4)
    game.undo()
    for waiting in (game, game.replay(0)):
        h = hint(waiting)
        assert h.probability == pytest.approx(10 / 81) and not h.certain
        assert h.probability == analyze(waiting).probability(h.row, h.col)


def test_hint_trusting_flags_takes_the_cells_they_settle_and_never_a_mine() -> None:
    # Right flags make cells certain that the untrusted rules cannot see.
    game = ns.Game.new(4, 4, 4, strategy=ns.FixedPlacement([(0, 2), (2, 2), (3, 0), (3, 2)]))
    game.reveal(0, 0)
    for r, c in [(0, 2), (2, 2), (3, 0)]:
        game.toggle_flag(r, c)
    trusted = analyze(game, trust_flags=True)
    h = hint(game, trust_flags=True)
    assert h.certain and trusted.certainly_safe(h.row, h.col)
    assert not game.board.mines[h.row, h.col]
    # Random positions of real games, every mine flagged that a number shows:
    rng = np.random.default_rng(4)
    checked = 0
    for seed in range(150):
        game = ns.Game.from_preset("beginner", seed=seed, first_click="opening")
        game.reveal(4, 4)
        while game.state is ns.GameState.IN_PROGRESS and checked < 400:
            mines = game.board.mines
            shown = adjacent_counts(game.board.revealed) > 0
            for r, c in np.argwhere(mines & shown & (rng.random(mines.shape) < 0.7)).tolist():
                if not game.board.flagged[r, c]:
                    game.toggle_flag(r, c)
            trusted = analyze(game, trust_flags=True)
            h = hint(game, trust_flags=True)
            hidden = game.snapshot().cells == H
            sure = [(r, c) for r, c in trusted.safe.tolist() if hidden[r, c]]
            assert trusted.probability(h.row, h.col) < 1.0
            assert h.certain == bool(sure)
            checked += 1
            game.reveal(h.row, h.col)
    assert checked == 400


@pytest.mark.parametrize(
    ("visible", "mines_left", "error", "message"),
    [
        ([[[256, H], [H, H]]], [1], ns.InvalidBoardError, r"cell \(0, 0\) of game 0 holds 256"),
        ([[[9, H], [H, H]]], [1], ns.InvalidBoardError, "holds 9, not a count 0..8"),
        ([[[0.9, H], [H, H]]], [1], TypeError, "visible must hold integers, got dtype float64"),
        ([[[True, False]]], [1], TypeError, "got dtype bool"),
        (np.zeros((1, 0, 4), dtype=np.int8), [1], ns.InvalidBoardError, r"got \(1, 0, 4\)"),
        ([[H, H]], [1], ns.InvalidBoardError, r"shape \(k, rows, cols\), got \(1, 2\)"),
        ([[[H, H]]] * 2, [1, 1, 1], ns.InvalidBoardError, r"one count per game \(2\), got"),
        (
            [[[H, H]]],
            [1.5],
            ns.InvalidTypeError,
            "mines_left must hold integers, got dtype float64",
        ),
    ],
)
def test_the_policy_refuses_what_no_game_shows(
    visible: Any, mines_left: Any, error: type, message: str
) -> None:
    policy = SolverPolicy("safe")
    with pytest.raises(error, match=message):
        policy(np.asarray(visible), mines_left, None)
    assert policy.counts["first"] == 0 and policy.counts["local"] == 0


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("candidates", 1.5, "candidates must be an integer, got 1.5"),
        ("candidates", True, "candidates must be an integer, got True"),
        ("endgame_nodes", "many", "endgame_nodes must be an integer, got 'many'"),
        ("tolerance", "0.1", "tolerance must be a number, got '0.1'"),
        ("endgame_dense", None, "endgame_dense must be a number, got None"),
    ],
)
def test_policy_settings_of_the_wrong_type_are_named(name: str, value: Any, message: str) -> None:
    with pytest.raises(ns.InvalidTypeError, match=message):
        SolverPolicy("safe", **{name: value})


def test_policy_settings_name_a_huge_or_unknown_value() -> None:
    with pytest.raises(ns.InvalidBoardError) as info:
        SolverPolicy("safe", tolerance=10**400)  # past float's range
    assert str(info.value) == "tolerance must be a finite number >= 0, got 1" + "0" * 76 + "..."
    with pytest.raises(ns.InvalidBoardError) as info:
        SolverPolicy("safe", guess="coin")
    assert str(info.value) == "guess must be one of ('hill', 'lookahead'), got 'coin'"


def test_a_start_given_as_a_mapping_is_not_a_pair() -> None:
    with pytest.raises(ns.InvalidTypeError, match=r"start must be a \(row, col\) pair, got \{1: 2"):
        SolverPolicy("safe", start={1: 2, 3: 4})  # type: ignore[arg-type]
    assert SolverPolicy("safe", candidates=np.int64(10**12)).candidates == 10**12


@pytest.mark.parametrize(
    ("visible", "error", "message"),
    [
        (np.array([1, H], dtype=np.int8), ns.InvalidBoardError, r"got \(2,\)"),
        (np.zeros((2, 0), dtype=np.int8), ns.InvalidBoardError, r"got \(2, 0\)"),
        (np.array([[9, H]]), ns.InvalidBoardError, r"cell \(0, 0\) holds 9"),
        (np.array([[[0, -3]]]), ns.InvalidBoardError, r"cell \(0, 1\) of game 0 holds -3"),
        (np.array([[0.5, H]]), TypeError, "must hold integers, got dtype float64"),
        ([[1, H], [1, H]], None, ""),  # a list is fine
    ],
)
def test_local_rules_checks_its_input(visible: Any, error: type | None, message: str) -> None:
    if error is None:
        got = local_rules(visible)
        want = local_rules(np.asarray(visible, dtype=np.int8))
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        return
    with pytest.raises(error, match=message):
        local_rules(visible)


def test_local_rules_checks_its_round_limit() -> None:
    cells = np.array([[1, H], [1, H], [0, 0]], dtype=np.int8)
    with pytest.raises(TypeError, match=r"max_rounds must be an integer, got 1\.5"):
        local_rules(cells, max_rounds=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_rounds must be >= 0, got -1"):
        local_rules(cells, max_rounds=-1)
    assert not local_rules(cells, max_rounds=0)[0].any()
