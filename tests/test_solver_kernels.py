"""The solver's compiled kernels, against plain references.

Each kernel is the one implementation of its routine; these tests hold it to
a plain reference written for the test (the structure's groups, components
and elimination orders; the local rules round for round; the endgame's values
by a plain expectimax), or, for the component count, to its Python-integer
twin, which counts what int64 cannot hold.  The same source also runs
uncompiled (``NUMBA_DISABLE_JIT=1``) and with numba's bounds checks on.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

import numsweeper as ns
from numsweeper._kernels import adjacent_counts
from numsweeper.solver import analyze, endgame, local_rules
from numsweeper.solver._jit import frozen
from numsweeper.solver.counting import EMPTY, FALLBACK, OK, TOO_LARGE, count_parts, unpack
from numsweeper.solver.endgame import endgame_values
from numsweeper.solver.local import first_safe_stack
from numsweeper.solver.longcount import Empty, TooLarge, count_exact
from numsweeper.solver.structure import Frontier, frontier

H, F = int(ns.HIDDEN), int(ns.FLAG)
_NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


def mid_game(
    rng: np.random.Generator, rows: int, cols: int, mines: int, clicks: int
) -> NDArray[np.int8]:
    board = ns.Board.create(rows, cols, mines, ns.RandomPlacement(rng))
    safe_cells = np.argwhere(~board.mines)
    for r, c in safe_cells[rng.permutation(len(safe_cells))[:clicks]]:
        board.reveal(int(r), int(c))
    return np.where(board.revealed, board.counts, H).astype(np.int8)


# -- the component count ----------------------------------------------------------


def kernel_count(
    order: list[int], cons: list[list[int]], sizes: list[int], need: list[int], guard: int
) -> tuple[str, Any]:
    """What the kernel makes of one component given as lists, comparably."""
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum([len(cons[g]) for g in order], out=ptr[1:])
    info, values, single, _, _ = unpack(
        count_parts(
            np.array([sizes[g] for g in order], dtype=np.int64),
            ptr,
            np.array([c for g in order for c in cons[g]], dtype=np.int64),
            np.array([0, len(order)], dtype=np.int64),
            np.arange(len(order), dtype=np.int64),
            np.array(need, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            guard,
        )
    )
    status, step, low, width, at = info[0].tolist()
    if status == FALLBACK:
        return "fallback", None
    if status == EMPTY:
        return "empty", step
    if status == TOO_LARGE:
        return "too large", step
    assert status == OK
    poly = dict(enumerate(values[at : at + width].tolist(), start=low))
    rows = values[at + width : at + (len(order) + 1) * width].reshape(len(order), width)
    marginals = [dict(enumerate(row, start=low)) for row in rows.tolist()]
    if width == 1:  # also listed group by group
        assert single[:, 0].tolist() == [order[i] for i in range(len(order))]
        assert single[:, 1].tolist() == [m[low] for m in marginals]
        assert (single[:, 2] == poly[low]).all()
    return "ok", (poly, marginals)


def python_count(
    order: list[int], cons: list[list[int]], sizes: list[int], need: list[int], guard: int
) -> tuple[str, Any]:
    """The Python-integer count of the same component, in the same terms."""
    try:
        poly, marginals = count_exact(order, cons, sizes, need, guard)
    except Empty as exc:
        return "empty", exc.constraint
    except TooLarge as exc:
        return "too large", sorted(exc.active)
    low, high = min(poly), max(poly)
    span = range(low, high + 1)
    return "ok", (
        {m: poly.get(m, 0) for m in span},
        [{m: marg.get(m, 0) for m in span} for marg in marginals],
    )


@pytest.fixture(params=[False, True], ids=["as-is", "packed"])
def packing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the Python count packs every finished forward layer of two
    or more states (it does so only once they hold thousands of states)."""
    from numsweeper.solver import longcount

    if request.param:
        monkeypatch.setattr(longcount, "_PACK_STATES", 0)
        monkeypatch.setattr(longcount, "_PACK_LAYER", 2)
    return bool(request.param)


def test_count_kernel_matches_the_python_integer_count(packing: bool) -> None:
    # Abstract banded components with large groups: counts and marginals
    # from small to far beyond 2**61, so every overflow check is exercised;
    # the kernel must agree exactly, stop at the same step (empty, or too
    # many states), or hand the component back.
    rng = np.random.default_rng(0)
    seen = {"ok": 0, "fallback": 0, "empty": 0, "too large": 0}
    for _ in range(300):
        k, n_cons = int(rng.integers(1, 22)), int(rng.integers(1, 10))
        sizes = [int(rng.integers(1, 9)) for _ in range(k)]
        cons = []
        for g in range(k):
            centre = g * n_cons / k
            picks = rng.normal(centre, 1.5, int(rng.integers(1, 4)))
            cons.append(sorted({int(np.clip(round(x), 0, n_cons - 1)) for x in picks}))
        used = sorted({c for cs in cons for c in cs})
        need = [0] * n_cons
        for c in used:
            room = sum(sizes[g] for g in range(k) if c in cons[g])
            need[c] = min(8, room // 2 + int(rng.integers(-1, 2)))
        order = list(range(k))
        guard = int(rng.choice([50, 10**6]))
        got = kernel_count(order, cons, sizes, need, guard)
        want = python_count(order, cons, sizes, need, guard)
        seen[got[0]] += 1
        if got[0] == "fallback":
            assert want[0] == "ok"
            assert max(want[1][0].values()) * 8 > 2**55  # it fell back for a reason
        elif got[0] == "ok":
            assert got == want
        else:  # the same kind of stop; the caller names what the step means
            assert got[0] == want[0]
    assert min(seen.values()) > 5, seen


def test_python_count_of_long_components_matches_the_kernel(packing: bool) -> None:
    # A chain of numbers, each with a group of its own and a group shared
    # with the next (2 or 3 cells each): long polynomials, so the Python
    # count's backward sweep multiplies them as convolutions, while the
    # counts still fit the kernel's int64 for an exact comparison.  (With
    # ``packing``, the backward sweep reads every layer packed.)
    from numsweeper.solver.longcount import _forward, _Packed

    rng = np.random.default_rng(3)
    long_products = 0
    for n_cons in (10, 14, 18):
        order = list(range(2 * n_cons))
        cons = [[g // 2] if g % 2 else sorted({g // 2, min(g // 2 + 1, n_cons - 1)}) for g in order]
        sizes = [int(rng.integers(2, 4)) for _ in order]
        need = [int(rng.integers(1, 4)) for _ in range(n_cons)]
        got = kernel_count(order, cons, sizes, need, 10**6)
        assert got[0] == "ok"
        assert got == python_count(order, cons, sizes, need, 10**6)
        layers = _forward(order, cons, sizes, need, 10**6)[0]
        assert any(isinstance(x, _Packed) for x in layers) == packing
        poly = got[1][0]
        long_products += len(poly) ** 2 >= 64
    assert long_products == 3


def test_count_kernel_matches_the_python_count_past_its_first_rooms() -> None:
    # Components of 30-45 groups with cuts several numbers wide: layers of
    # hundreds of states, so the kernel outgrows every first allocation (its
    # states, a step's transitions and their sort, the kept transitions, the
    # pools and the completions) and must still agree exactly.  The needs
    # come from a layout, so that every component has one.
    from numsweeper.solver.counting import _ROOM
    from numsweeper.solver.longcount import _forward

    rng = np.random.default_rng(5)
    wide = 0
    for _ in range(8):
        k = int(rng.integers(30, 46))
        n_cons = k // 2
        sizes = [int(rng.integers(1, 4)) for _ in range(k)]
        cons = []
        for g in range(k):
            picks = rng.normal(g * n_cons / k, 3.0, int(rng.integers(1, 4)))
            cons.append(sorted({int(np.clip(round(x), 0, n_cons - 1)) for x in picks}))
        mined = [int(rng.binomial(size, 0.3)) for size in sizes]
        need = [min(8, sum(mined[g] for g in range(k) if c in cons[g])) for c in range(n_cons)]
        order = list(range(k))
        got = kernel_count(order, cons, sizes, need, 10**6)
        want = python_count(order, cons, sizes, need, 10**6)
        assert got[0] == want[0] == "ok" or (got[0] == "fallback" and want[0] == "ok")
        if got[0] == "ok":
            assert got == want
            lengths = [len(layer) for layer in _forward(order, cons, sizes, need, 10**6)[0]]
            wide += sum(lengths) > 3 * k and max(lengths) > _ROOM
    assert wide >= 4, wide


def test_packed_layers_read_back_as_the_dicts_they_pack() -> None:
    # keys, their order, and each polynomial (gaps, and coefficients past
    # int64 too) come back as they went in; lookups by key as well
    from numsweeper.solver.longcount import _Packed

    rng = np.random.default_rng(6)
    for big in (False, True):
        layer: dict[tuple[int, ...], dict[int, int]] = {}
        while len(layer) < 200:
            key = tuple(int(x) for x in rng.integers(0, 9, 5))
            low = int(rng.integers(0, 3000))
            poly = {}
            for m in rng.choice(40, int(rng.integers(1, 12)), replace=False).tolist():
                poly[low + m] = int(rng.integers(1, 2**62)) * (3**50 if big and m % 3 else 1)
            layer[key] = poly
        packed = _Packed(layer, 5)
        assert len(packed) == len(layer) and list(packed) == list(layer)
        assert list(packed.items()) == list(layer.items()) and len(packed.items()) == len(layer)
        states, read = packed.reading()
        assert [(key, read(at)) for key, at in states] == list(layer.items())
        assert [list(p) for _, p in packed.items()] == [list(p) for p in layer.values()]
        key = list(layer)[57]
        assert packed[key] == layer[key] and packed.get((9,) * 5) is None
    with pytest.raises(ValueError):  # a need past a byte: the caller keeps the dict
        _Packed({(300,): {0: 1}}, 1)


def test_python_count_with_needs_past_a_byte_keeps_those_layers_as_dicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Not a board's (a need is at most 8), but the count takes any: with
    # packing forced, layers whose keys pass a byte stay dicts, the others
    # are packed, and the count is the one without packing.
    from numsweeper.solver import longcount

    order = list(range(8))
    cons = [[0, 1] if g % 2 else [0] for g in order]  # number 0 over every group
    sizes = [40] * 8
    need = [300, 150]
    want = longcount.count_exact(order, cons, sizes, need, 10**6)
    monkeypatch.setattr(longcount, "_PACK_STATES", 0)
    monkeypatch.setattr(longcount, "_PACK_LAYER", 2)
    layers = longcount._forward(order, cons, sizes, need, 10**6)[0]
    kinds = {isinstance(x, longcount._Packed) for x in layers if len(x) > 1}
    assert kinds == {True, False}  # some keys fit in bytes, some do not
    assert longcount.count_exact(order, cons, sizes, need, 10**6) == want


def test_long_polynomial_products_add_what_term_by_term_products_add() -> None:
    # the packed branch of the Python count's product, against a plain loop
    from numsweeper.solver.longcount import _PACKED, _add_product

    rng = np.random.default_rng(4)
    for _ in range(200):
        a = {int(k): int(rng.integers(1, 2**62)) * 2**70 for k in rng.choice(40, 12, replace=False)}
        b = {int(k) - 5: int(rng.integers(1, 2**62)) for k in rng.choice(30, 9, replace=False)}
        start = {int(k): int(rng.integers(1, 99)) for k in rng.choice(90, 5)}
        want = dict(start)
        for m1, p1 in a.items():
            for m2, p2 in b.items():
                want[m1 + m2] = want.get(m1 + m2, 0) + p1 * p2
        got = dict(start)
        assert len(a) * len(b) >= _PACKED
        _add_product(got, a, b)
        assert got == want  # the same keys: no zero entry is added


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 2**200) | st.sampled_from([0, 1]), min_size=1, max_size=90),
    st.lists(st.integers(0, 2**64) | st.sampled_from([0, 1]), min_size=1, max_size=90),
)
def test_convolve_is_the_term_by_term_product(a: list[int], b: list[int]) -> None:
    # both branches: short products term by term, long ones packed into one integer
    from numsweeper.solver.longcount import convolve

    want = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            want[i + j] += x * y
    assert convolve(a, b) == want
    assert convolve(b, a) == want
    assert convolve(a, []) == [] == convolve([], b)


def test_convolve_packs_slots_wide_enough_for_the_largest_sums() -> None:
    # every coefficient at its largest: a slot a byte too narrow would carry
    from numsweeper.solver.longcount import convolve

    for bits, n in ((1, 64), (61, 100), (64, 257), (300, 33)):
        top = 2**bits - 1
        got = convolve([top] * n, [top] * n)
        assert got == [min(k + 1, 2 * n - 1 - k) * top * top for k in range(2 * n - 1)]


@pytest.mark.parametrize("gmp", [False, True])
def test_convolve_of_long_polynomials_with_and_without_gmp(
    gmp: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # products of megabit packed integers: Python's own, or GMP's (extra bigint)
    from numsweeper.solver import longcount

    if gmp:
        pytest.importorskip("gmpy2")
        assert longcount._gmp() is not None
    else:
        monkeypatch.setattr(longcount, "_gmp", lambda: None)
    rng = np.random.default_rng(9)
    a = [int(x) << 900 for x in rng.integers(0, 2**62, 400)]
    b = [int(x) << 1500 for x in rng.integers(0, 2**62, 300)]
    got = longcount.convolve(a, b)
    assert len(got) == 699
    for k in (0, 1, 150, 298, 299, 399, 400, 698):  # term by term, at a few powers
        want = sum(a[i] * b[k - i] for i in range(max(0, k - 299), min(k, 399) + 1))
        assert got[k] == want
    prime = 2**127 - 1  # and every coefficient at once: the values at a few points

    def value(poly: list[int], x: int) -> int:
        return sum(c * pow(x, i, prime) for i, c in enumerate(poly)) % prime

    for x in (3, 2**61 + 7, 123456789):
        assert value(got, x) == value(a, x) * value(b, x) % prime


@pytest.mark.parametrize("gmp", [False, True])
def test_middle_is_the_correlation_term_by_term(gmp: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # the product tree's contexts: sums directly, or (GMP) the middle of one product
    from numsweeper.solver import longcount

    if gmp:
        pytest.importorskip("gmpy2")
    else:
        monkeypatch.setattr(longcount, "_gmp", lambda: None)
    rng = np.random.default_rng(12)
    for la, n in ((1, 1), (3, 2), (40, 2), (2, 40), (30, 30), (120, 7)):
        a = [int(x) << int(rng.integers(0, 3000)) for x in rng.integers(0, 2**40, la)]
        a[0] = 0
        b = [int(x) << int(rng.integers(0, 3000)) for x in rng.integers(0, 2**40, n + la - 1)]
        want = [sum(a[t] * b[k + t] for t in range(la)) for k in range(n)]
        assert longcount.middle(a, b, n) == want


def test_counts_beyond_int64_fall_back_to_exact_python_integers() -> None:
    # A 3 x 400 strip: hidden rows 0 and 2, numbers in row 1.  One component
    # of 800 cells with far more than 2**61 layouts.
    rng = np.random.default_rng(8)
    layout = np.zeros((3, 400), dtype=bool)
    layout[[0, 2]] = rng.random((2, 400)) < 0.3
    cells = np.full(layout.shape, H, dtype=np.int8)
    cells[1] = adjacent_counts(layout)[1]
    mines = int(layout.sum())
    shape = frontier(cells == H, cells >= 0)
    need = cells.astype(np.int64).ravel()[shape.con_flat].tolist()
    assert shape.n_parts == 1
    order, sizes = shape.groups(0), shape.sizes.tolist()
    assert kernel_count(order, shape.group_cons, sizes, need, 10**6)[0] == "fallback"
    a = analyze(cells, mines)
    poly, _ = count_exact(order, shape.group_cons, sizes, need, 10**6)
    assert a.layouts == poly[mines] > 2**100
    assert not layout[tuple(a.safe.T)].any()


def test_relaxed_pieces_name_the_same_inconsistent_number() -> None:
    # Under a tiny guard the count relaxes and splits a component; with two
    # inconsistent pieces, they are counted in a fixed order and so name the
    # same cell whatever else was counted before.
    cells = np.array(
        [[0, 3, H, H, H], [H, 1, H, H, 1], [H, H, 1, H, 2], [H, H, H, 1, H], [H, H, 0, 2, H]],
        dtype=np.int8,
    )
    engine = ns.solver.Analyzer()
    for _ in range(2):
        with pytest.raises(ns.InvalidBoardError, match=r"the number at cell \(3, 3\) together"):
            engine.analyze(cells, 6, max_states=2)


# -- the structure -------------------------------------------------------------------


def plain_structure(unknown: NDArray[np.bool_], revealed: NDArray[np.bool_]) -> dict[str, Any]:
    """Numbers, frontier, groups and parts, cell by cell with plain sets.

    Parts are Cuthill-McKee ordered: from the group of least degree (ties:
    lower id), breadth first, each group's new neighbours by (degree, id).
    """
    rows, cols = unknown.shape
    cells = [(r, c) for r in range(rows) for c in range(cols)]

    def near(r: int, c: int) -> list[tuple[int, int]]:
        return [
            (r + dr, c + dc) for dr, dc in _NEIGHBOURS if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]

    numbers = [x for x in cells if revealed[x] and any(unknown[y] for y in near(*x))]
    con_id = {x: j for j, x in enumerate(numbers)}
    front = [x for x in cells if unknown[x] and any(y in con_id for y in near(*x))]
    sig = {x: tuple(sorted(con_id[y] for y in near(*x) if y in con_id)) for x in front}
    padded = {x: (-1,) * (8 - len(s)) + s for x, s in sig.items()}
    sizes = Counter(padded.values())
    groups = sorted(sizes)
    gid = {s: g for g, s in enumerate(groups)}
    cons = [[c for c in s if c >= 0] for s in groups]
    by_con: dict[int, set[int]] = {}
    for g, cs in enumerate(cons):
        for c in cs:
            by_con.setdefault(c, set()).add(g)
    adjacent = [{h for c in cs for h in by_con[c]} - {g} for g, cs in enumerate(cons)]
    seen: set[int] = set()
    parts = []
    for s in range(len(groups)):
        if s in seen:
            continue
        members, stack = {s}, [s]
        while stack:
            for h in adjacent[stack.pop()] - members:
                members.add(h)
                stack.append(h)
        rank = {g: (len(adjacent[g]), g) for g in members}
        order = [min(members, key=rank.__getitem__)]
        seen.add(order[0])
        for g in order:  # (grows as it goes: breadth first)
            new = sorted(adjacent[g] - seen, key=rank.__getitem__)
            seen.update(new)
            order += new
        parts.append(order)
    return {
        "con_flat": [r * cols + c for r, c in numbers],
        "front_flat": [r * cols + c for r, c in front],
        "group_of": [gid[padded[x]] for x in front],
        "sigs": [list(s) for s in groups],
        "sizes": [sizes[s] for s in groups],
        "parts": parts,
        "unconstrained": int(unknown.sum()) - len(front),
    }


def described(shape: Frontier) -> dict[str, Any]:
    return {
        "con_flat": shape.con_flat.tolist(),
        "front_flat": shape.front_flat.tolist(),
        "group_of": shape.group_of.tolist(),
        "sigs": shape.sigs.tolist(),
        "sizes": shape.sizes.tolist(),
        "parts": [shape.groups(j) for j in range(shape.n_parts)],
        "unconstrained": shape.unconstrained,
    }


def test_structure_matches_a_plain_reference() -> None:
    # Random masks (flags, with trust_flags, are neither unknown nor
    # revealed) and mid-game expert positions: the same numbers, frontier,
    # groups, parts and elimination orders; and shape keys that tell parts
    # apart exactly when their groups' numbers and sizes differ.
    rng = np.random.default_rng(23)
    parts = 0
    for i in range(600):
        rows, cols = int(rng.integers(1, 12)), int(rng.integers(1, 16))
        if i % 3:
            revealed = rng.random((rows, cols)) < rng.uniform(0, 1)
            unknown = ~revealed & (rng.random((rows, cols)) < (0.8 if i % 2 else 1.0))
        else:
            cells = mid_game(rng, 16, 30, 99, int(rng.integers(0, 25)))
            revealed, unknown = cells >= 0, cells < 0
        shape = frontier(unknown, revealed)
        assert described(shape) == plain_structure(unknown, revealed)
        assert np.array_equal(shape.free_grid, adjacent_counts(unknown))
        for field in dataclasses.fields(shape)[1:-1]:  # (views of one buffer)
            array = getattr(shape, field.name)
            assert array.dtype == np.int64 and array.flags.c_contiguous, field.name
            assert not array.flags.writeable, field.name
        assert type(shape.unconstrained) is int
        for j in range(shape.n_parts):
            groups = shape.key_groups(j)
            assert shape.cons(j) == sorted({c for g in groups for c in shape.group_cons[g]})
            want = []
            for g in groups:
                where = [int(shape.con_flat[c]) for c in shape.group_cons[g]]
                want.append([-1] * (8 - len(where)) + where + [int(shape.sizes[g])])
            assert shape.key_rows[shape.bounds[j] : shape.bounds[j + 1]].tolist() == want
        parts += shape.n_parts
    assert parts > 1500
    # a board of 45,000 numbers: the signature sort packs 3 ids per key
    revealed = np.random.default_rng(1).random((300, 300)) < 0.5
    shape = frontier(~revealed, revealed)
    assert len(shape.con_flat) > 40_000
    assert described(shape) == plain_structure(~revealed, revealed)


# -- the local rules -----------------------------------------------------------------


def rounds_reference(
    visible: NDArray[np.int8], max_rounds: int
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """The local rules as synchronous rounds over whole boards (numpy)."""
    number = visible >= 0
    unknown = ~number
    safe = np.zeros(visible.shape, dtype=bool)
    mines = np.zeros(visible.shape, dtype=bool)
    value = np.where(number, visible, 0).astype(np.int8)
    for _ in range(max_rounds):
        free = unknown & ~safe & ~mines
        need = value - adjacent_counts(mines)
        n_free = adjacent_counts(free)
        active = number & (n_free > 0)
        new_mines = free & (adjacent_counts(active & (need == n_free)) > 0)
        new_safe = free & (adjacent_counts(active & (need == 0)) > 0)
        if not (new_mines.any() or new_safe.any()):
            break
        mines |= new_mines
        safe |= new_safe
    return safe, mines


def random_stack(rng: np.random.Generator) -> NDArray[np.int8]:
    """A batch of random positions: flags, and now and then inconsistent numbers."""
    rows, cols = int(rng.integers(1, 17)), int(rng.integers(1, 31))
    batch = []
    for _ in range(int(rng.integers(1, 6))):
        layout = rng.random((rows, cols)) < rng.random() * 0.4
        shown = ~layout & (rng.random((rows, cols)) < rng.random())
        cells = np.where(shown, adjacent_counts(layout), H).astype(np.int8)
        cells[~shown & (rng.random((rows, cols)) < 0.1)] = F
        if rng.random() < 0.2:
            cells[shown & (rng.random((rows, cols)) < 0.1)] = int(rng.integers(0, 9))
        batch.append(cells)
    return np.stack(batch)


def test_local_rules_match_the_rounds_over_whole_boards() -> None:
    # Random batches, flags, inconsistent numbers, and round limits that
    # stop the iteration early: the same cells, round for round.
    rng = np.random.default_rng(12)
    compared = limited = 0
    for _ in range(300):
        stack = random_stack(rng)
        for rounds in (1, 2, 3, 32):
            got = local_rules(stack, max_rounds=rounds)
            want = rounds_reference(stack, rounds)
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)
            compared += 1
            limited += rounds < 32 and not np.array_equal(want[0], rounds_reference(stack, 32)[0])
    assert compared == 1200 and limited > 20  # the round limit did bite
    # one 2-D board, and other integer dtypes, go through the same kernel
    for board in (stack[0], stack[0].astype(np.int64), stack.astype(np.int16)):
        for a, b in zip(local_rules(board), rounds_reference(board, 32), strict=True):
            assert a.shape == board.shape
            np.testing.assert_array_equal(a, b)


def chain(rng: np.random.Generator, cols: int) -> NDArray[np.int8]:
    """A 2 x ``cols`` position the rules settle one cell a round, right to left.

    The top row is revealed, and so is the bottom row's last cell; each
    number then settles the hidden cell left of the ones settled before it,
    so the first cells in row-major order are settled last.
    """
    bits = [bool(rng.random() < 0.5)]
    bits.append(not bits[0])  # (the first number then settles nothing alone)
    while len(bits) < cols - 1:  # no three alike: no number settles all its cells
        bits.append(not bits[-1] if bits[-1] == bits[-2] else bool(rng.random() < 0.5))
    layout = np.zeros((2, cols), dtype=bool)
    layout[1, :-1] = bits
    cells = np.full((2, cols), H, dtype=np.int8)
    cells[0] = adjacent_counts(layout)[0]
    cells[1, -1] = adjacent_counts(layout)[1, -1]
    return cells


def test_first_safe_is_the_first_hidden_cell_of_the_safe_mask() -> None:
    # What the policy reads of the rules (the first unflagged cell proved
    # safe, whether a cell is revealed, the flags) is what the masks of
    # local_rules say, on random batches and on chains longer than the
    # round limit (where the limit decides whether a first cell is found).
    rng = np.random.default_rng(5)
    stacks = [random_stack(rng) for _ in range(1000)]
    stacks += [np.stack([chain(rng, 60 + i % 5) for _ in range(3)]) for i in range(50)]
    limited = 0
    for stack in stacks:
        k = len(stack)
        found = {}
        for rounds in (0, 1, 2, 32, 64):
            safe = local_rules(stack, max_rounds=rounds)[0].reshape(k, -1)
            safe &= stack.reshape(k, -1) == H
            first, revealed, flags = first_safe_stack(frozen(stack), rounds)
            assert first.tolist() == np.where(safe.any(axis=1), safe.argmax(axis=1), -1).tolist()
            assert revealed.tolist() == (stack >= 0).any(axis=(1, 2)).tolist()
            assert flags.tolist() == (stack == F).sum(axis=(1, 2)).tolist()
            found[rounds] = first.tolist()
        limited += found[32] != found[64]
    assert limited >= 40  # the round limit did bite on the chains


def test_local_rules_look_near_the_last_rounds_cells_on_boards_of_any_size() -> None:
    # After the first round the rounds look only at the numbers next to the
    # cells the round before decided: at the rows between the first and last
    # of them, or (when they lie far apart) at a list of them.  So check
    # boards taller and wider than the random batches: chains settled a row
    # a round (bottom up, down a tall board, alone or beside random
    # positions), chains along the top and bottom of a tall board (the
    # list), and mid-game positions, round for round and with the first
    # safe cell from the masks.
    rng = np.random.default_rng(8)
    stacks = []
    for i in range(12):
        column = np.ascontiguousarray(chain(rng, 40 + i).T)  # (40 + i, 2)
        beside = random_stack(rng)[0][:1].repeat(len(column), axis=0)  # (rows of one board)
        stacks += [column[None], np.concatenate([beside, column], axis=1)[None]]
        apart = np.full((70 + i, 40 + i), H, dtype=np.int8)
        apart[:2], apart[-2:] = chain(rng, 40 + i), chain(rng, 40 + i)[::-1]
        stacks.append(apart[None])
        stacks.append(
            mid_game(rng, int(rng.integers(17, 60)), int(rng.integers(31, 90)), 150, 6)[None]
        )
    limited = 0
    for stack in stacks:
        k = len(stack)
        found = {}
        for rounds in (0, 1, 2, 17, 32, 100):
            safe, mines = local_rules(stack, max_rounds=rounds)
            want = rounds_reference(stack, rounds)
            np.testing.assert_array_equal(safe, want[0])
            np.testing.assert_array_equal(mines, want[1])
            first = first_safe_stack(frozen(stack), rounds)[0]
            hidden_safe = (safe & (stack == H)).reshape(k, -1)
            expected = np.where(hidden_safe.any(axis=1), hidden_safe.argmax(axis=1), -1)
            assert first.tolist() == expected.tolist()
            found[rounds] = safe.sum()
        limited += found[17] < found[100]
    assert limited >= 12  # the chains ran on past 17 rounds


# -- the endgame search -----------------------------------------------------------------


def plain_values(cells: NDArray[np.int8], a: Any) -> dict[tuple[int, int], float]:
    """Each undecided click's win probability by a plain expectimax.

    States are sets of layouts; every cell safe in all of them is revealed
    (its number splits the state); then the best click.  No pruning, no
    budget, no memo beyond the cache of states.
    """
    p = a.probabilities
    known = (cells < 0) & (p == 1.0)
    undecided = (cells < 0) & (p > 0.0) & (p < 1.0)
    cand = [tuple(x) for x in np.argwhere(undecided).tolist()]
    mines = a.mines_left - int(np.count_nonzero(known))
    shown = cells >= 0
    layouts = []
    for bits in _subsets(len(cand), mines):
        lay = known.copy()
        for i in bits:
            lay[cand[i]] = True
        if np.array_equal(adjacent_counts(lay)[shown], cells[shown]):
            layouts.append(frozenset(bits))
    index = {x: i for i, x in enumerate(cand)}
    nbr = [
        [index[(r + dr, c + dc)] for dr, dc in _NEIGHBOURS if (r + dr, c + dc) in index]
        for r, c in cand
    ]
    clickable = [cells[x] == H for x in cand]

    def split(state: frozenset[frozenset[int]], i: int) -> list[frozenset[frozenset[int]]]:
        parts: dict[int, set[frozenset[int]]] = {}
        for lay in state:
            if i not in lay:
                parts.setdefault(sum(j in lay for j in nbr[i]), set()).add(lay)
        return [frozenset(q) for q in parts.values()]

    @functools.cache
    def wins(state: frozenset[frozenset[int]]) -> int:
        if len(state) == 1:
            return 1
        for i in range(len(cand)):
            if all(i not in lay for lay in state):
                parts = split(state, i)
                if len(parts) > 1:
                    return sum(wins(q) for q in parts)
        # (with no click left, only flagged cells undecided: none won)
        return max((sum(wins(q) for q in split(state, i)) for i in clicks(state)), default=0)

    def clicks(state: frozenset[frozenset[int]]) -> list[int]:
        return [
            i
            for i in range(len(cand))
            if clickable[i]
            and any(i in lay for lay in state)
            and any(i not in lay for lay in state)
        ]

    root = frozenset(layouts)
    return {cand[i]: sum(wins(q) for q in split(root, i)) / len(root) for i in clicks(root)}


def _subsets(n: int, k: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(n), k)) if 0 <= k <= n else []


def test_endgame_values_match_a_plain_expectimax() -> None:
    # Random endgames on small boards, some cells flagged (hidden, not
    # clickable): every click's exact value.  A search stopped by its
    # budget (of states, or of layouts examined per state) returns None,
    # never a partial value.
    rng = np.random.default_rng(23)
    searched = stopped = 0
    for _ in range(1500):
        rows, cols = int(rng.integers(3, 6)), int(rng.integers(3, 7))
        mines = int(rng.integers(2, rows * cols // 3 + 2))
        cells = mid_game(rng, rows, cols, mines, int(rng.integers(2, 8)))
        if rng.random() < 0.3:
            cells[(cells == H) & (rng.random(cells.shape) < 0.2)] = F
        if not (cells == H).any():
            continue
        a = analyze(cells, mines)
        if a.layouts > 60:
            continue  # the plain search would take long
        want = plain_values(cells, a)
        got = endgame_values(cells, a, 10**6)
        assert got == (want or None)
        searched += bool(want)
        for budget, work in ((1, 200), (3, 200), (10, 3)):
            small = endgame_values(cells, a, budget, work_per_state=work)
            assert small is None or small == want
            stopped += small is None and bool(want)
    assert searched > 300 and stopped > 100


def test_endgame_takes_many_layouts_and_wide_positions() -> None:
    # The listing and the search take any number of layouts, and more than
    # 64 undecided cells (layouts of several 64-bit words): positions of 65
    # to 128 undecided cells (numbers shown at scattered cells of a sparse
    # board, without the flood fill) give the plain expectimax's values.
    rng = np.random.default_rng(29)
    wide = 0
    for _ in range(5000):
        if wide >= 10:
            break
        rows, cols = int(rng.integers(10, 13)), int(rng.integers(10, 13))
        board = ns.Board.create(rows, cols, 1, ns.RandomPlacement(rng))
        shown = ~board.mines & (rng.random((rows, cols)) < 0.1)
        cells = np.where(shown, board.counts, H).astype(np.int8)
        a = analyze(cells, 1)
        undecided = int(np.count_nonzero((cells < 0) & (a.probabilities > 0)))
        if undecided <= 64 or a.layouts > 200:
            continue
        assert endgame_values(cells, a, 10**6) == plain_values(cells, a)
        wide += 1
    assert wide == 10


def _memo_key(idx: np.ndarray, start: int, m: int) -> tuple[np.uint64, np.uint64]:
    """The endgame memo's key of ``idx[start:start + m]``, as the kernels pass it."""
    h1, h2 = endgame._key(idx, start, m)
    return np.uint64(h1), np.uint64(h2)


def test_endgame_memo_checks_a_hash_hit_against_the_stored_layouts() -> None:
    # The search keys its memo by two hashes of a state's layout indices;
    # a hit counts only if the stored indices are the state's own, and a
    # taken key is never overwritten by another state.  A forced collision
    # (two different states under one key) must miss, not return the count.
    slots = np.zeros((4, 3), dtype=np.uint64)
    pool = np.empty(4, dtype=np.int64)  # grows as states are stored
    used = np.zeros(2, dtype=np.int64)
    idx = np.array([1, 4, 6, 2, 4, 7])  # two states: idx[0:3] and idx[3:6]
    h1, h2 = _memo_key(idx, 0, 3)
    assert endgame._recall(idx, 0, 3, h1, h2, slots, pool) == -1
    slots, pool = endgame._store(idx, 0, 3, h1, h2, 5, slots, pool, used)
    assert endgame._recall(idx, 0, 3, h1, h2, slots, pool) == 5
    assert endgame._recall(idx, 3, 3, h1, h2, slots, pool) == -1  # same key, other state
    assert endgame._recall(idx, 0, 2, h1, h2, slots, pool) == -1  # a prefix of it
    slots, pool = endgame._store(idx, 3, 3, h1, h2, 9, slots, pool, used)  # taken: ignored
    assert endgame._recall(idx, 0, 3, h1, h2, slots, pool) == 5
    o1, o2 = _memo_key(idx, 3, 3)
    assert (o1, o2) != (h1, h2)
    assert endgame._recall(idx, 3, 3, o1, o2, slots, pool) == -1
    slots, pool = endgame._store(idx, 3, 3, o1, o2, 9, slots, pool, used)
    assert endgame._recall(idx, 3, 3, o1, o2, slots, pool) == 9
    assert endgame._recall(idx, 0, 3, h1, h2, slots, pool) == 5


def test_endgame_memo_grows_and_keeps_every_state() -> None:
    # The slots stay at most half full and the pool grows: after many
    # states (several growths of both), each one is still found, with its
    # own count, and no state that was not stored is.
    rng = np.random.default_rng(3)
    slots = np.zeros((4, 3), dtype=np.uint64)
    pool = np.empty(4, dtype=np.int64)
    used = np.zeros(2, dtype=np.int64)
    states = [np.sort(rng.choice(500, size=rng.integers(2, 12), replace=False)) for _ in range(300)]
    for count, state in enumerate(states):
        slots, pool = endgame._store(
            state, 0, len(state), *_memo_key(state, 0, len(state)), count, slots, pool, used
        )
    assert 2 * used[1] <= slots.shape[0] and used[1] == len({tuple(x) for x in states})
    for state in states:  # (a state stored twice keeps its first count)
        first = next(c for c, x in enumerate(states) if np.array_equal(x, state))
        h1, h2 = _memo_key(state, 0, len(state))
        assert endgame._recall(state, 0, len(state), h1, h2, slots, pool) == first
    other = np.array([501, 502, 503])
    assert endgame._recall(other, 0, 3, *_memo_key(other, 0, 3), slots, pool) == -1


# -- how the kernels are built and run ---------------------------------------------------


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_kernel_says_on_stderr_when_it_compiles(tmp_path: Path) -> None:
    # Compiled into a scratch cache: the first import compiles and says so,
    # the second loads the cached machine code and says nothing.
    code = "import numsweeper.solver.local"
    first = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert "compiling the solver kernel local_rules_stack (once per install)" in first.stderr
    again = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert again.returncode == 0 and again.stderr == ""


def test_import_numsweeper_does_not_load_numba() -> None:
    code = "import sys, numsweeper; print('numba' in sys.modules)"
    run = _run(code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False"]


#: Runs the kernels' source as plain Python (``NUMBA_DISABLE_JIT=1``) on small
#: positions and prints what it found, to compare with the compiled run.
_UNCOMPILED = """
import warnings
warnings.simplefilter("ignore", RuntimeWarning)  # (the endgame's hashes wrap, as meant)
import numpy as np
import numsweeper as ns
from numsweeper.solver.endgame import endgame_values
rng = np.random.default_rng(4)
out = []
for _ in range(40):
    board = ns.Board.create(5, 6, 7, ns.RandomPlacement(rng))
    for r, c in np.argwhere(~board.mines)[rng.permutation(23)[:4]].tolist():
        board.reveal(r, c)
    cells = np.where(board.revealed, board.counts, ns.HIDDEN).astype(np.int8)
    a = ns.solver.analyze(cells, 7)
    safe, mines = ns.solver.local_rules(cells)
    values = endgame_values(cells, a, 10**6) if a.layouts <= 200 else None
    out.append((a.probabilities.tobytes().hex(), a.layouts, safe.tobytes().hex(),
                mines.tobytes().hex(), sorted((values or {}).items())))
result = ns.simulate(6, 9, 9, 10, policy="solver", first_click="safe", seed=1)
out.append(result.records.tobytes().hex())
print(hash(repr(out)))
"""


def test_the_source_runs_uncompiled_with_the_same_results() -> None:
    # One source: the kernels' code, run as Python, gives what the compiled
    # kernels give (a few seconds: it is far too slow to play with).
    compiled = _run(_UNCOMPILED, PYTHONHASHSEED="0")
    uncompiled = _run(_UNCOMPILED, PYTHONHASHSEED="0", NUMBA_DISABLE_JIT="1")
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    assert uncompiled.returncode == 0, uncompiled.stderr[-3000:]
    assert compiled.stdout == uncompiled.stdout


def test_kernels_stay_in_bounds(tmp_path: Path) -> None:
    # numba does not check indices: a kernel writing past an array would
    # corrupt memory silently.  Run this module's comparisons again with
    # numba's bounds checking on (compiled afresh into a scratch cache),
    # and those of the kernels tested elsewhere: the probes, the outlook's
    # scan, the remembered safe cells and the influence factor.
    env = {"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    here = Path(__file__).parent
    others = [
        f"{here / file}{test}"
        for file, test in [
            ("test_solver_probe.py", ""),
            (
                "test_solver_guess.py",
                "::test_outlook_takes_the_safest_cells_in_the_order_of_a_stable_sort",
            ),
            ("test_solver_policy.py", "::test_remembered_safe_cells_match_a_plain_reference"),
            ("test_solver_influence.py", ""),
            ("test_solver_guess.py", "::test_influence_factors_match_the_rule_over_listed_layouts"),
        ]
    ]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            __file__,
            *others,
            "-k",
            "not stay_in_bounds and not uncompiled and not compiles and not numba",
        ],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout


def test_analyses_through_gmp_are_the_analyses_in_python_integers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every product and weighted sum sent to GMP (the threshold at one bit),
    # against none: the same probabilities, certainties and layout totals.
    gmpy2 = pytest.importorskip("gmpy2")
    from numsweeper.solver import longcount

    made = [0]

    def mpz(value: int) -> Any:
        made[0] += 1
        return gmpy2.mpz(value)

    rng = np.random.default_rng(31)
    for _ in range(150):
        layout = np.zeros(16 * 30, dtype=bool)
        layout[rng.choice(16 * 30, 99, replace=False)] = True
        layout = layout.reshape(16, 30)
        revealed = ~layout & (rng.random(layout.shape) < rng.uniform(0.2, 0.8))
        cells = np.where(revealed, adjacent_counts(layout), H).astype(np.int8)
        with monkeypatch.context() as patch:
            patch.setattr(longcount, "_gmp", lambda: None)
            plain = analyze(cells, 99)
        with monkeypatch.context() as patch:
            patch.setattr(longcount, "_GMP_BITS", 1)
            patch.setattr(longcount, "_gmp", lambda: mpz)
            gmp = analyze(cells, 99)
        assert plain.layouts == gmp.layouts > 0
        assert np.array_equal(plain.probabilities, gmp.probabilities, equal_nan=True)
        assert plain.safe.tolist() == gmp.safe.tolist()
        assert plain.mines.tolist() == gmp.mines.tolist()
    assert made[0] > 1000  # (GMP did the work)
