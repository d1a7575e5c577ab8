"""The count of one frontier component, by mine total.

A component (a *part* of :class:`~numsweeper.solver.structure.Frontier`) is
counted with a forward dynamic programme over its groups in elimination
order: a transfer-matrix count whose state is the remaining need of the
numbers that straddle the current cut.  That gives the component's
polynomial ``P(x) = sum_m layouts(m) x^m``; a backward sweep over the same
states counts their completions and, per group, the mine-weighted
polynomial that the marginals need.  Walking the forward states backwards,
rather than counting again from the other end, visits only states that some
prefix reaches.  Its cost follows the width of the frontier (how many
numbers one cut separates), not the number of layouts.

The count is one compiled kernel (:func:`count_parts` runs it over many parts
in one call) on int64 arrays, every product and sum checked against 2**61.
A component whose counts would not fit is counted again by
:func:`count_exact`, the same programme in Python integers: the one routine
written twice, since no int64 kernel can hold those counts.

A state is the remaining need of each number the cut separates, packed
into one int64 as bit fields (number ``c`` takes the bits of ``need[c]``).
Components whose cuts separate more than ``_WIDEST`` numbers, or whose
states do not fit that packing, fall back to the Python count too.  Each
state's counts by mine total are a short run of int64s in a pool:
``start``, ``low`` (the smallest mine total) and ``length``.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import accumulate, chain
from operator import itemgetter, mul
from typing import Any

import numpy as np
from numba import types as nt
from numpy.typing import NDArray

from ._jit import helper, kernel, readonly, subroutine

__all__ = [
    "EMPTY",
    "FALLBACK",
    "LIMIT",
    "OK",
    "TOO_LARGE",
    "Empty",
    "Poly",
    "TooLarge",
    "add_scaled",
    "checked_mul",
    "convolve",
    "count_exact",
    "count_part",
    "count_parts",
    "long_ints",
    "middle",
    "unpack",
]

OK = 0
FALLBACK = 1  # a count would leave int64, or a cut is too wide to pack
EMPTY = 2  # no layout survives the step returned
TOO_LARGE = 3  # the step returned leaves more than max_states states
LIMIT = 1 << 61  # every stored count stays at or below this: sums never wrap
_WIDEST = 64  # most constraints one cut may separate
_MOST_MARGINALS = 1 << 24  # most counts a component's marginals may hold (128 MB)

Poly = dict[int, int]  # mine total -> weighted layout count


class TooLarge(Exception):
    """A layer of the count grew past ``max_states``: relax ``active``."""

    def __init__(self, active: list[int]) -> None:
        self.active = active


class Empty(Exception):
    """No layout fits; ``constraint`` is the number to name."""

    def __init__(self, constraint: int) -> None:
        self.constraint = constraint


#: One forward step of :func:`count_exact`: how a state's key and the step
#: group's mines ``v`` give the next key (keep getter, drop getter, needs of
#: the numbers it opens, (key position, capacity after) of the group's older
#: numbers, and the bounds on ``v`` from the numbers it opens).
_StepPlan = tuple[
    Callable[[tuple[int, ...]], tuple[int, ...]],
    Callable[[tuple[int, ...]], tuple[int, ...]],
    tuple[int, ...],
    list[tuple[int, int]],
    int,
    int,
]


def _getter(index: list[int]) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """A fast ``lambda key: tuple(key[j] for j in index)``."""
    if not index:
        return lambda key: ()
    if len(index) == 1:
        j = index[0]
        return lambda key: (key[j],)
    return itemgetter(*index)


def count_exact(
    order: list[int],
    group_cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[Poly, list[Poly]]:
    """A component's polynomial and per-group mine-weighted polynomials, exactly.

    The kernel's programme (see the module notes) in Python integers, for
    the components whose counts do not fit in int64.  ``order`` lists the
    component's groups in elimination order, ``group_cons[g]`` group
    ``g``'s numbers and ``need[c]`` what number ``c`` still needs.  Raises
    ``Empty`` if no layout survives a step (naming a number that ends
    there, or else one of the step's), and ``TooLarge`` (with the numbers
    the cut separates) if a layer grows past ``max_states`` states.
    """
    fwd, _, plans = _forward(order, group_cons, sizes, need, max_states)
    n = len(order)
    polynomial = fwd[n][()]
    marginals: list[Poly] = [{} for _ in order]
    weights = {size: [math.comb(size, v) for v in range(size + 1)] for size in set(sizes)}
    # after[key]: completions of order[i+1:] from that state of layer i + 1
    after: dict[tuple[int, ...], Poly] = {(): {0: 1}}
    for i in range(n - 1, -1, -1):
        get_keep, get_drop, fresh_needs, old_cons, lo0, hi0 = plans[i]
        weight = weights[sizes[order[i]]]
        here: dict[tuple[int, ...], Poly] = {}
        acc = marginals[i]
        states, read = _reading(fwd[i])
        for key, poly in states:
            lo, hi = _span(key, old_cons, lo0, hi0)
            if lo > hi:
                continue
            fixed = get_keep(key)
            base = get_drop(key) + fresh_needs
            if lo == hi:  # one value of v: the completions are one tail, shifted
                tail = after.get(fixed + tuple([x - lo for x in base]))
                if tail is None:
                    continue
                if lo == 0:  # (weight 1 and no mine: the tail itself, shared)
                    here[key] = tail
                    continue
                w = weight[lo]
                if w == 1:
                    completions = {m2 + lo: p2 for m2, p2 in tail.items()}
                else:
                    completions = {m2 + lo: w * p2 for m2, p2 in tail.items()}
                spread = completions if lo == 1 else {m2: lo * p2 for m2, p2 in completions.items()}
                _add_product(acc, read(poly), spread)
                here[key] = completions
                continue
            completions = {}
            spread = {}  # the completions weighted by the group's mines v
            for v in range(lo, hi + 1):
                tail = after.get(fixed + tuple([x - v for x in base]))
                if tail is None:
                    continue  # no completion from there
                w = weight[v]
                for m2, p2 in tail.items():
                    completions[m2 + v] = completions.get(m2 + v, 0) + w * p2
                if v:  # v = 0 adds no mines
                    wv = w * v
                    for m2, p2 in tail.items():
                        spread[m2 + v] = spread.get(m2 + v, 0) + wv * p2
            if spread:  # the group's marginal gains prefix times weighted completion
                _add_product(acc, read(poly), spread)
            if completions:
                here[key] = completions
        after = here
    return polynomial, marginals


def _span(
    key: tuple[int, ...], old_cons: list[tuple[int, int]], lo: int, hi: int
) -> tuple[int, int]:
    """The mines the step's group may take from state ``key``: ``lo..hi``.

    ``lo, hi`` are the bounds from the numbers the step opens; each older
    number at key position ``j`` with ``cap`` cells left after the group
    needs at least ``key[j] - cap`` of them and takes at most ``key[j]``.
    (Empty when ``lo > hi``.)
    """
    for j, cap in old_cons:
        k = key[j]
        if k - cap > lo:
            lo = k - cap
        if k < hi:
            hi = k
    return lo, hi


#: Past this many coefficient pairs a product is one multiplication of
#: packed integers (:func:`convolve`).
_PACKED = 64


def convolve(a: list[int], b: list[int]) -> list[int]:
    """The product of two polynomials of non-negative Python integers.

    ``a[i]`` is the coefficient of ``x**i``; the result has
    ``len(a) + len(b) - 1`` coefficients (none if either is empty).  Long
    products pack each polynomial into one integer, every coefficient in a
    slot wide enough for any coefficient of the product, and multiply the
    two integers once (Kronecker substitution): Python's multiplication
    is subquadratic, so a product of polynomials thousands of terms long
    with coefficients thousands of bits long costs far less than term by
    term.  The coefficients must not be negative (a slot cannot borrow).

    Parameters
    ----------
    a, b : list of int
        Coefficients, lowest power first, each ``>= 0``.

    Returns
    -------
    list of int
        The product's coefficients.

    Examples
    --------
    >>> from numsweeper.solver.counting import convolve
    >>> convolve([1, 2], [3, 0, 1])  # (1 + 2x)(3 + x^2)
    [3, 6, 1, 2]
    >>> convolve([1] * 100, [1] * 100)[99], convolve([2**70] * 40, [2**90] * 40)[39] == 40 * 2**160
    (100, True)
    """
    if not a or not b:
        return []
    if len(a) * len(b) < _PACKED:
        out = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out
    # each coefficient of the product sums at most min(len) products
    bits = max(a).bit_length() + max(b).bit_length() + min(len(a), len(b)).bit_length()
    width = bits // 8 + 1  # bytes per slot
    x = int.from_bytes(b"".join(v.to_bytes(width, "little") for v in a), "little")
    y = int.from_bytes(b"".join(v.to_bytes(width, "little") for v in b), "little")
    n = len(a) + len(b) - 1
    z = _times(x, y).to_bytes(width * n, "little")
    return [int.from_bytes(z[k : k + width], "little") for k in range(0, width * n, width)]


def middle(a: list[int], b: list[int], n: int) -> list[int]:
    """The first ``n`` terms of the correlation of ``b`` with ``a``.

    Term ``k`` is ``sum(a[t] * b[k + t] for t in range(len(a)))`` (``b``
    holds at least ``n + len(a) - 1`` values, all ``>= 0``): the middle of
    the product of ``a`` reversed and ``b``.  With GMP (extra ``bigint``) a
    long one is that one product (:func:`convolve`); in Python's integers
    the sums themselves cost less, since they skip the product's two ends.

    Examples
    --------
    >>> from numsweeper.solver.counting import middle
    >>> middle([1, 2], [5, 6, 7], 2)  # 1*5 + 2*6, 1*6 + 2*7
    [17, 20]
    """
    if len(a) * n >= _PACKED and _gmp() is not None:
        start = len(a) - 1
        return convolve(a[::-1], b)[start : start + n]
    return [sum(map(mul, a, b[k : k + len(a)])) for k in range(n)]


#: Past this many bits (of the smaller factor) a multiplication goes to GMP.
_GMP_BITS = 4096


def _times(x: int, y: int) -> int:
    """``x * y``; GMP's (gmpy2, extra ``bigint``) when both are long.

    Python multiplies long integers by Karatsuba's method; GMP switches to
    FFT methods, tens of times faster at millions of bits (a tangled
    frontier's products).  The product is the same integer either way.
    """
    if min(x.bit_length(), y.bit_length()) < _GMP_BITS:
        return x * y
    mpz = _gmp()
    return x * y if mpz is None else int(mpz(x) * mpz(y))


def long_ints(values: list[int]) -> list[Any]:
    """``values`` as GMP integers (gmpy2) if some are long and gmpy2 is installed.

    For many sums of products with the same long values: GMP multiplies a
    long integer by a short one several times faster than Python does.
    Otherwise ``values`` itself.  Either way ``int(sum(map(operator.mul,
    row, long_ints(values))))`` is the same Python integer.

    Examples
    --------
    >>> import operator
    >>> from numsweeper.solver.counting import long_ints
    >>> weights = long_ints([3**9000, 5**4000])
    >>> int(sum(map(operator.mul, [2, 7], weights))) == 2 * 3**9000 + 7 * 5**4000
    True
    """
    if not values or max(values).bit_length() < _GMP_BITS:
        return values
    mpz = _gmp()
    return values if mpz is None else [mpz(v) for v in values]


@functools.cache
def _gmp() -> Callable[[int], Any] | None:
    """gmpy2's ``mpz`` when installed (imported on first need), else None."""
    try:
        import gmpy2
    except ImportError:
        return None
    return gmpy2.mpz  # type: ignore[no-any-return]


def _add_product(acc: Poly, a: Poly, b: Poly) -> None:
    """``acc += a * b`` for polynomials of non-negative Python integers.

    Long products are one :func:`convolve`; the entries ``acc`` gains are
    the nonzero ones, as term by term.
    """
    if len(a) * len(b) < _PACKED:
        for m1, p1 in a.items():
            for m2, p2 in b.items():
                t = m1 + m2
                acc[t] = acc.get(t, 0) + p1 * p2
        return
    a_low, b_low = min(a), min(b)
    x = [0] * (max(a) - a_low + 1)
    y = [0] * (max(b) - b_low + 1)
    for m, p in a.items():
        x[m - a_low] = p
    for m, p in b.items():
        y[m - b_low] = p
    for k, p in enumerate(convolve(x, y), start=a_low + b_low):
        if p:
            acc[k] = acc.get(k, 0) + p


def _forward(
    order: list[int],
    group_cons: list[list[int]],
    sizes: list[int],
    need: list[int],
    max_states: int,
) -> tuple[list[Mapping[tuple[int, ...], Poly]], list[list[int]], list[_StepPlan]]:
    """Count partial layouts cut by cut.

    Returns the layers (layer ``i``: the state after placing ``order[:i]``,
    keyed by the remaining need of the numbers in ``actives[i]``), the
    active number lists and each step's plan.  The layers are read-only:
    a state's polynomial may be the very dict of a state before it (or of
    the final layer's one state), and long layers are :class:`_Packed`.
    """
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    capacity: dict[int, int] = {}
    for i, g in enumerate(order):
        for c in group_cons[g]:
            first.setdefault(c, i)
            last[c] = i
            capacity[c] = capacity.get(c, 0) + sizes[g]
    weights = {size: [math.comb(size, v) for v in range(size + 1)] for size in set(sizes)}
    layer: dict[tuple[int, ...], Poly] = {(): {0: 1}}
    layers: list[Mapping[tuple[int, ...], Poly]] = [layer]
    loose, packed = 0, 0  # states in the layers from ``packed`` on, which are not packed
    active: list[int] = []
    actives = [active]
    plans: list[_StepPlan] = []
    for i, g in enumerate(order):
        cons = group_cons[g]
        size = sizes[g]
        in_cons = set(cons)
        # bounds on v from each of g's numbers: need - capacity left after g
        for c in cons:
            capacity[c] -= size
        # New key = unchanged needs + needs that drop by v (old, then opened).
        keep: list[int] = []
        drop: list[int] = []
        keep_at: list[int] = []
        drop_at: list[int] = []
        old_cons: list[tuple[int, int]] = []
        for j, c in enumerate(active):
            if c in in_cons:
                old_cons.append((j, capacity[c]))
                if last[c] > i:
                    drop.append(c)
                    drop_at.append(j)
            elif last[c] > i:
                keep.append(c)
                keep_at.append(j)
        opened = [c for c in cons if first[c] == i]
        fresh = [c for c in opened if last[c] > i]
        new_active = keep + drop + fresh
        get_keep = _getter(keep_at)
        get_drop = _getter(drop_at)
        fresh_needs = tuple([need[c] for c in fresh])
        lo0, hi0 = 0, size
        for c in opened:
            lo0 = max(lo0, need[c] - capacity[c])
            hi0 = min(hi0, need[c])
        plans.append((get_keep, get_drop, fresh_needs, old_cons, lo0, hi0))
        weight = weights[size]
        new_layer: dict[tuple[int, ...], Poly] = {}
        # A state reached only with v = 0 holds its parent's polynomial
        # itself (no copy; the layers are read-only once built), until a
        # second parent adds to it.  (On a tangled board's groups of one
        # cell, nearly every weight is 1.)
        borrowed: set[tuple[int, ...]] = set()
        for key, poly in layer.items():
            lo, hi = _span(key, old_cons, lo0, hi0)
            if lo > hi:
                continue
            fixed = get_keep(key)
            base = get_drop(key) + fresh_needs
            for v in range(lo, hi + 1):
                new_key = fixed + tuple([x - v for x in base])
                w = weight[v]
                target = new_layer.get(new_key)
                if target is None:
                    if v == 0:
                        new_layer[new_key] = poly
                        borrowed.add(new_key)
                    elif w == 1:
                        new_layer[new_key] = {m + v: p for m, p in poly.items()}
                    else:
                        new_layer[new_key] = {m + v: w * p for m, p in poly.items()}
                    continue
                if new_key in borrowed:
                    borrowed.discard(new_key)
                    new_layer[new_key] = target = dict(target)
                if w == 1:
                    for m, p in poly.items():
                        target[m + v] = target.get(m + v, 0) + p
                else:
                    for m, p in poly.items():
                        target[m + v] = target.get(m + v, 0) + w * p
        if not new_layer:
            ending = [c for c in cons if last[c] == i]
            raise Empty((ending or cons)[0])
        if len(new_layer) > max_states:
            raise TooLarge(new_active)
        # The finished layers wait for the backward sweep: once they hold
        # many states, they are packed, in a sixth of the memory (a tangled
        # board's components; packing costs about what reading them back
        # does, so small counts, and counts that stop early, are left be).
        loose += len(layer)
        if loose > _PACK_STATES:
            for j in range(packed, len(layers)):
                if len(layers[j]) >= _PACK_LAYER:  # (short ones: not worth the call)
                    with contextlib.suppress(ValueError):  # (a need past 255, not a board's)
                        layers[j] = _Packed(layers[j], len(actives[j]))  # type: ignore[arg-type]
            loose, packed = 0, len(layers)
        layer = new_layer
        active = new_active
        layers.append(layer)
        actives.append(active)
    return layers, actives, plans


#: Forward layers are packed (:class:`_Packed`) once this many states wait.
_PACK_STATES = 1 << 15
#: ... those of at least this many states.
_PACK_LAYER = 64


class _Packed(Mapping[tuple[int, ...], Poly]):
    """A finished forward layer, read-only and packed: the same mapping in less memory.

    The keys (remaining needs, each ``0..255``, ``size`` to a key) are one
    bytes object; the polynomials' powers and coefficients are two flat
    int64 arrays (the coefficients a list if one passes int64), each
    polynomial a run of them, in its dict's order.  A tangled board's
    components have layers of hundreds of thousands of states: as dicts of
    dicts of Python integers a state of 21 terms takes about 2 kB, packed
    about 350 bytes.  Packing costs a few C-level passes per layer, and
    reading a polynomial a few per polynomial, not a Python step per
    coefficient.  Raises ``ValueError`` if a key does not fit in bytes
    (the caller then keeps the dict).
    """

    __slots__ = ("_blob", "_ends", "_index", "_powers", "_size", "_values")

    def __init__(self, layer: dict[tuple[int, ...], Poly], size: int) -> None:
        self._size = size
        self._index: dict[tuple[int, ...], int] | None = None
        self._blob = bytes(chain.from_iterable(layer))  # (ValueError if a need passes 255)
        powers: list[int] = []
        values: list[int] = []
        for poly in layer.values():
            powers.extend(poly)
            values.extend(poly.values())
        self._ends = np.fromiter(accumulate(map(len, layer.values())), np.int64, len(layer))
        self._powers = np.array(powers, dtype=np.int64)
        self._values: NDArray[np.int64] | list[int] = (
            np.array(values, dtype=np.int64) if max(values, default=0) < 2**63 else values
        )

    def __len__(self) -> int:
        return len(self._ends)

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        blob, size = self._blob, self._size
        return (tuple(blob[i * size : (i + 1) * size]) for i in range(len(self._ends)))

    def __getitem__(self, key: tuple[int, ...]) -> Poly:
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self)}
        i = self._index[key]
        start = int(self._ends[i - 1]) if i else 0
        return _unpacked(self._powers, self._values, start, int(self._ends[i]))

    def reading(self) -> tuple[Iterator[tuple[tuple[int, ...], Any]], Callable[[Any], Poly]]:
        """``(key, place)`` pairs, and the function that reads a place's polynomial.

        For a reader that needs few of the polynomials: only those are
        unpacked, each from its own slice of the arrays (the layer never
        is as a whole).
        """
        powers, values = self._powers, self._values
        ends = self._ends.tolist()

        def read(i: int) -> Poly:
            return _unpacked(powers, values, ends[i - 1] if i else 0, ends[i])

        return zip(self, range(len(ends)), strict=True), read


def _unpacked(
    powers: NDArray[np.int64], values: NDArray[np.int64] | list[int], start: int, end: int
) -> Poly:
    """The polynomial of a :class:`_Packed` layer held at ``start:end``."""
    part = values[start:end]
    listed = part if isinstance(part, list) else part.tolist()
    return dict(zip(powers[start:end].tolist(), listed, strict=True))


def _reading(
    layer: Mapping[tuple[int, ...], Poly],
) -> tuple[Iterable[tuple[tuple[int, ...], Any]], Callable[[Any], Poly]]:
    """A layer's ``(key, place)`` pairs and the reader of a place's polynomial
    (:meth:`_Packed.reading`; a dict's place is its polynomial)."""
    if isinstance(layer, _Packed):
        return layer.reading()
    return layer.items(), _itself


def _itself(poly: Poly) -> Poly:
    return poly


# -- kernels ------------------------------------------------------------------


@helper
def checked_mul(a: int, b: int) -> int:
    """``a * b``, or -1 if it would pass :data:`LIMIT` (``a, b >= 0``)."""
    if a == 0 or b == 0:
        return 0
    if a > LIMIT // b:
        return -1
    return a * b


@helper
def _grow(pool: NDArray[np.int64], used: int, extra: int) -> NDArray[np.int64]:
    if used + extra <= pool.shape[0]:
        return pool
    bigger = np.zeros(max(2 * pool.shape[0], used + extra), dtype=np.int64)
    bigger[:used] = pool[:used]
    return bigger


@helper
def add_scaled(
    dst: NDArray[np.int64], at: int, src: NDArray[np.int64], start: int, length: int, w: int
) -> bool:
    """``dst[at:at + length] += w * src[start:start + length]``, checked:
    False (and ``dst`` partly updated) if a count would pass :data:`LIMIT`."""
    for m in range(length):
        term = checked_mul(w, src[start + m])
        if term < 0:
            return False
        total = dst[at + m] + term
        if total > LIMIT:
            return False
        dst[at + m] = total
    return True


@helper
def _bounds(
    key: int,
    lo: int,
    hi: int,
    o0: int,
    o1: int,
    prev: int,
    oc_pos: NDArray[np.int64],
    oc_cap: NDArray[np.int64],
    shift: NDArray[np.int64],
    mask: NDArray[np.int64],
) -> tuple[int, int]:
    """The mines a step's group may hold from state ``key``: its older
    constraints' remaining needs, less what the cells after it can hold."""
    for o in range(o0, o1):
        j = prev + oc_pos[o]
        val = (key >> shift[j]) & mask[j]
        if val - oc_cap[o] > lo:
            lo = val - oc_cap[o]
        if val < hi:
            hi = val
    return lo, hi


@helper
def _next_key(
    key: int,
    v: int,
    q0: int,
    q1: int,
    prev: int,
    src: NDArray[np.int64],
    dec: NDArray[np.int64],
    fval: NDArray[np.int64],
    shift: NDArray[np.int64],
    mask: NDArray[np.int64],
) -> int:
    """The state after a step's group takes ``v`` mines from state ``key``."""
    nk = 0
    for p in range(q0, q1):
        j = src[p]
        val = (key >> shift[prev + j]) & mask[prev + j] if j >= 0 else fval[p]
        nk |= (val - dec[p] * v) << shift[p]
    return nk


@helper
def _plan_entry(
    src: NDArray[np.int64],
    dec: NDArray[np.int64],
    fval: NDArray[np.int64],
    new_active: NDArray[np.int64],
    q: int,
    na: int,
    j: int,
    d: int,
    value: int,
    c: int,
) -> int:
    """Append constraint ``c`` to a step's plan (at ``q + na``); -1 if full.

    Its value comes from position ``j`` of the previous state (``j = -1``:
    the constant ``value``, a newly opened constraint), less ``d`` times
    the group's mines; returns the new number of entries.
    """
    if na == _WIDEST:
        return -1
    src[q + na] = j
    dec[q + na] = d
    if j < 0:
        fval[q + na] = value
    new_active[na] = c
    return na + 1


@subroutine
def count_component(
    sizes: NDArray[np.int64],
    con_ptr: NDArray[np.int64],
    con_idx: NDArray[np.int64],
    need: NDArray[np.int64],
    max_states: int,
) -> tuple[int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Polynomial and per-group marginals of one component, or FALLBACK.

    ``sizes[i]`` is the size of the ``i``-th group in elimination order and
    ``con_idx[con_ptr[i]:con_ptr[i + 1]]`` its constraints, numbered
    ``0..len(need) - 1``.  Returns ``(status, step, poly, marginals)``:
    ``poly[m]`` counts the layouts with ``m`` mines, ``marginals[i, m]``
    sums the mines of group ``i`` over them; ``step`` is the step an
    :data:`EMPTY` or :data:`TOO_LARGE` status happened at (else -1).  Group
    sizes above 60 fall back (their binomials would not fit in int64;
    frontier groups hold at most 8 cells).  A component whose marginals
    would hold more than ``_MOST_MARGINALS`` counts (a frontier of tens of
    thousands of groups, on a huge board) is :data:`TOO_LARGE` at its middle
    step, so that the caller relaxes it there.
    """
    k = sizes.shape[0]
    n_cons = need.shape[0]
    width = 1
    for i in range(k):
        width += sizes[i]
    empty = np.zeros(0, dtype=np.int64)
    if k * width > _MOST_MARGINALS:  # relax the middle cut: split it in two
        return TOO_LARGE, k // 2 - 1, empty, np.zeros((0, 0), dtype=np.int64)
    poly_out = np.zeros(width, dtype=np.int64)
    marg = np.zeros((k, width), dtype=np.int64)

    big = 1
    for i in range(k):
        big = max(big, sizes[i])
    if big > 60:
        return FALLBACK, -1, empty, marg
    binom = np.zeros((big + 1, big + 1), dtype=np.int64)
    for n in range(big + 1):
        binom[n, 0] = 1
        for v in range(1, n + 1):
            binom[n, v] = binom[n - 1, v - 1] + (binom[n - 1, v] if v <= n - 1 else 0)

    first = np.full(n_cons, -1, dtype=np.int64)
    last = np.full(n_cons, -1, dtype=np.int64)
    cap = np.zeros(n_cons, dtype=np.int64)
    for i in range(k):
        for p in range(con_ptr[i], con_ptr[i + 1]):
            c = con_idx[p]
            if first[c] < 0:
                first[c] = i
            last[c] = i
            cap[c] += sizes[i]

    # Step plans, flattened: for step i, new key position p takes the old
    # position src[p] (or the fresh need fval[p] if src[p] < 0), minus v if
    # dec[p]; old positions oc_pos (with capacity oc_cap after the step)
    # bound v; lo0..hi0 bounds v from the constraints the step opens.
    plan_ptr = np.zeros(k + 1, dtype=np.int64)
    room = min(n_cons, _WIDEST) * k + 1  # a step keeps at most that many
    src = np.empty(room, dtype=np.int64)
    dec = np.empty(room, dtype=np.int64)
    fval = np.empty(room, dtype=np.int64)  # read only where src < 0, set there
    shift = np.empty(room, dtype=np.int64)  # position p's first bit in the key
    mask = np.empty(room, dtype=np.int64)  # and its bits (its need fits them)
    oc_ptr = np.zeros(k + 1, dtype=np.int64)
    oc_pos = np.zeros(con_idx.shape[0] + 1, dtype=np.int64)
    oc_cap = np.zeros(con_idx.shape[0] + 1, dtype=np.int64)
    lo0s = np.zeros(k, dtype=np.int64)
    hi0s = np.zeros(k, dtype=np.int64)
    active = np.zeros(_WIDEST, dtype=np.int64)
    n_active = 0
    mark = np.full(n_cons, -1, dtype=np.int64)
    new_active = np.zeros(_WIDEST, dtype=np.int64)
    for i in range(k):
        for p in range(con_ptr[i], con_ptr[i + 1]):
            c = con_idx[p]
            mark[c] = i
            cap[c] -= sizes[i]
        q = plan_ptr[i]
        na = 0
        oq = oc_ptr[i]
        for j in range(n_active):  # kept constraints
            c = active[j]
            if mark[c] != i and last[c] > i:
                na = _plan_entry(src, dec, fval, new_active, q, na, j, 0, 0, c)
                if na < 0:
                    return FALLBACK, -1, empty, marg
        for j in range(n_active):  # the step's older constraints
            c = active[j]
            if mark[c] == i:
                oc_pos[oq] = j
                oc_cap[oq] = cap[c]
                oq += 1
                if last[c] > i:
                    na = _plan_entry(src, dec, fval, new_active, q, na, j, 1, 0, c)
                    if na < 0:
                        return FALLBACK, -1, empty, marg
        lo0 = 0
        hi0 = sizes[i]
        for p in range(con_ptr[i], con_ptr[i + 1]):  # constraints it opens
            c = con_idx[p]
            if first[c] == i:
                lo0 = max(lo0, need[c] - cap[c])
                hi0 = min(hi0, need[c])
                if last[c] > i:
                    na = _plan_entry(src, dec, fval, new_active, q, na, -1, 1, need[c], c)
                    if na < 0:
                        return FALLBACK, -1, empty, marg
        plan_ptr[i + 1] = q + na
        place = 0
        for p in range(na):
            bits = 0
            while (1 << bits) <= need[new_active[p]]:
                bits += 1
            shift[q + p] = place
            mask[q + p] = (1 << bits) - 1
            place += bits
            if place > 62:
                return FALLBACK, -1, empty, marg
        oc_ptr[i + 1] = oq
        lo0s[i] = lo0
        hi0s[i] = hi0
        for p in range(na):
            active[p] = new_active[p]
        n_active = na

    # Forward: layer i holds states lay_ptr[i]:lay_ptr[i + 1] of the key and
    # poly arrays (keys sorted within a layer).
    cap_states = 64
    keys = np.zeros(cap_states, dtype=np.int64)
    st_start = np.zeros(cap_states, dtype=np.int64)
    st_low = np.zeros(cap_states, dtype=np.int64)
    st_len = np.zeros(cap_states, dtype=np.int64)
    pool = np.zeros(256, dtype=np.int64)
    used = 1
    pool[0] = 1
    st_len[0] = 1
    lay_ptr = np.zeros(k + 2, dtype=np.int64)
    lay_ptr[1] = 1
    t_key = np.zeros(64, dtype=np.int64)
    t_src = np.zeros(64, dtype=np.int64)
    t_v = np.zeros(64, dtype=np.int64)
    perm = np.zeros(64, dtype=np.int64)
    for i in range(k):
        a0, a1 = lay_ptr[i], lay_ptr[i + 1]
        q0, q1 = plan_ptr[i], plan_ptr[i + 1]
        o0, o1 = oc_ptr[i], oc_ptr[i + 1]
        prev = plan_ptr[i - 1] if i else 0  # the old key's positions
        n_t = 0
        for s in range(a0, a1):
            key = keys[s]
            lo, hi = _bounds(key, lo0s[i], hi0s[i], o0, o1, prev, oc_pos, oc_cap, shift, mask)
            for v in range(lo, hi + 1):
                nk = _next_key(key, v, q0, q1, prev, src, dec, fval, shift, mask)
                if n_t == t_key.shape[0]:
                    t_key = np.concatenate((t_key, np.zeros(n_t, dtype=np.int64)))
                    t_src = np.concatenate((t_src, np.zeros(n_t, dtype=np.int64)))
                    t_v = np.concatenate((t_v, np.zeros(n_t, dtype=np.int64)))
                t_key[n_t] = nk
                t_src[n_t] = s
                t_v[n_t] = v
                n_t += 1
        if n_t == 0:
            return EMPTY, i, empty, marg
        if n_t <= 32:  # few transitions: insertion sort, no allocation
            for x in range(n_t):
                perm[x] = x
            for x in range(1, n_t):
                y = perm[x]
                z = x
                while z > 0 and t_key[perm[z - 1]] > t_key[y]:
                    perm[z] = perm[z - 1]
                    z -= 1
                perm[z] = y
        else:
            perm = np.argsort(t_key[:n_t])
        n_new = 1
        for x in range(1, n_t):
            if t_key[perm[x]] != t_key[perm[x - 1]]:
                n_new += 1
        if n_new > max_states:
            return TOO_LARGE, i, empty, marg
        if a1 + n_new > keys.shape[0]:
            grown = max(2 * keys.shape[0], a1 + n_new)
            keys = np.concatenate((keys, np.zeros(grown - keys.shape[0], dtype=np.int64)))
            st_start = np.concatenate(
                (st_start, np.zeros(grown - st_start.shape[0], dtype=np.int64))
            )
            st_low = np.concatenate((st_low, np.zeros(grown - st_low.shape[0], dtype=np.int64)))
            st_len = np.concatenate((st_len, np.zeros(grown - st_len.shape[0], dtype=np.int64)))
        size = sizes[i]
        x = 0
        t = a1
        while x < n_t:
            y = x
            lo_m = 1 << 30
            hi_m = -1
            while y < n_t and t_key[perm[y]] == t_key[perm[x]]:
                s = t_src[perm[y]]
                v = t_v[perm[y]]
                lo_m = min(lo_m, st_low[s] + v)
                hi_m = max(hi_m, st_low[s] + st_len[s] - 1 + v)
                y += 1
            length = hi_m - lo_m + 1
            pool = _grow(pool, used, length)
            pool[used : used + length] = 0
            for z in range(x, y):
                s = t_src[perm[z]]
                v = t_v[perm[z]]
                w = binom[size, v]
                base = used + st_low[s] + v - lo_m
                if not add_scaled(pool, base, pool, st_start[s], st_len[s], w):
                    return FALLBACK, -1, empty, marg
            keys[t] = t_key[perm[x]]
            st_start[t] = used
            st_low[t] = lo_m
            st_len[t] = length
            used += length
            t += 1
            x = y
        lay_ptr[i + 2] = t

    last_state = lay_ptr[k]
    for m in range(st_len[last_state]):
        poly_out[st_low[last_state] + m] = pool[st_start[last_state] + m]

    # Backward: completions of layer i + 1's states (c_*), then layer i's.
    widest = 1
    for i in range(k + 1):
        widest = max(widest, lay_ptr[i + 1] - lay_ptr[i])
    c_start = np.zeros(widest, dtype=np.int64)
    c_low = np.zeros(widest, dtype=np.int64)
    c_len = np.ones(widest, dtype=np.int64)
    cpool = np.ones(64, dtype=np.int64)
    h_start = np.zeros(widest, dtype=np.int64)
    h_low = np.zeros(widest, dtype=np.int64)
    h_len = np.zeros(widest, dtype=np.int64)
    hpool = np.zeros(64, dtype=np.int64)
    buf = np.zeros(2 * width + 2, dtype=np.int64)
    mined = np.zeros(2 * width + 2, dtype=np.int64)
    tails = np.zeros(big + 2, dtype=np.int64)  # one per v in 0..size
    tail_v = np.zeros(big + 2, dtype=np.int64)
    for i in range(k - 1, -1, -1):
        a0, a1 = lay_ptr[i], lay_ptr[i + 1]
        b0, b1 = lay_ptr[i + 1], lay_ptr[i + 2]
        q0, q1 = plan_ptr[i], plan_ptr[i + 1]
        o0, o1 = oc_ptr[i], oc_ptr[i + 1]
        prev = plan_ptr[i - 1] if i else 0
        size = sizes[i]
        h_len[: a1 - a0] = 0
        h_used = 0
        for s in range(a0, a1):
            key = keys[s]
            lo, hi = _bounds(key, lo0s[i], hi0s[i], o0, o1, prev, oc_pos, oc_cap, shift, mask)
            n_tails = 0
            lo_m = 1 << 30
            hi_m = -1
            for v in range(lo, hi + 1):
                nk = _next_key(key, v, q0, q1, prev, src, dec, fval, shift, mask)
                # binary search among layer i + 1's sorted keys
                left, right = b0, b1
                while left < right:
                    mid = (left + right) // 2
                    if keys[mid] < nk:
                        left = mid + 1
                    else:
                        right = mid
                if left == b1 or keys[left] != nk:
                    continue
                r = left - b0
                if c_len[r] == 0:
                    continue  # no completion from there
                tails[n_tails] = r
                tail_v[n_tails] = v
                n_tails += 1
                lo_m = min(lo_m, c_low[r] + v)
                hi_m = max(hi_m, c_low[r] + c_len[r] - 1 + v)
            if n_tails == 0:
                continue
            length = hi_m - lo_m + 1
            buf[:length] = 0
            mined[:length] = 0
            any_mined = False
            for z in range(n_tails):
                r = tails[z]
                v = tail_v[z]
                w = binom[size, v]
                base = c_low[r] + v - lo_m
                if not add_scaled(buf, base, cpool, c_start[r], c_len[r], w):
                    return FALLBACK, -1, empty, marg
                if v:  # the completions weighted by the step's mines
                    if not add_scaled(mined, base, cpool, c_start[r], c_len[r], w * v):
                        return FALLBACK, -1, empty, marg
                    any_mined = True
            hpool = _grow(hpool, h_used, length)
            hpool[h_used : h_used + length] = buf[:length]
            h = s - a0
            h_start[h] = h_used
            h_low[h] = lo_m
            h_len[h] = length
            h_used += length
            if any_mined:
                # marginal of group i += this prefix's poly x mined completions
                p0 = st_start[s]
                pl = st_low[s]
                for a in range(st_len[s]):
                    pa = pool[p0 + a]
                    if pa == 0:
                        continue
                    for b in range(length):
                        if mined[b] == 0:
                            continue
                        term = checked_mul(pa, mined[b])
                        if term < 0:
                            return FALLBACK, -1, empty, marg
                        at = pl + a + lo_m + b
                        total = marg[i, at] + term
                        if total > LIMIT:
                            return FALLBACK, -1, empty, marg
                        marg[i, at] = total
        # layer i's completions become the next step's; reuse the old buffers
        c_start, h_start = h_start, c_start
        c_low, h_low = h_low, c_low
        c_len, h_len = h_len, c_len
        cpool, hpool = hpool, cpool
    return OK, -1, poly_out, marg


@subroutine
def count_part(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    j: int,
    max_states: int,
    number: NDArray[np.int64],
) -> tuple[int, int, int, int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Count part ``j`` of a structure (the arguments of :func:`count_parts`).

    Returns ``(status, step, low, first, last, counts, marginals)``: the
    :func:`count_component` status and step (-1 if :data:`OK`) and, where it
    is :data:`OK`, the part's layouts by mine total, ``low`` mines at
    ``counts[first]`` and one more at each index up to ``last`` (the
    first and the last not zero), and the same for each of its groups in
    elimination order, weighted by that group's mines
    (``marginals[x, first:last + 1]``).  ``number`` is scratch, -1 for
    each number, and left so.

    A part of one group with numbers needs every one of them to show the
    same count ``v``, and then has ``C(size, v)`` layouts: that is counted
    in place (a huge board has hundreds of thousands of such parts).
    """
    a, b = part_ptr[j], part_ptr[j + 1]
    k = b - a
    g = order[a]
    if k == 1 and grp_ptr[g + 1] > grp_ptr[g] and sizes[g] <= 60:
        size = sizes[g]
        v = need[grp_idx[grp_ptr[g]]]
        fits = 0 <= v <= size
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            fits = fits and need[grp_idx[p]] == v
        layouts = 1
        if fits:
            for x in range(v):
                layouts = layouts * (size - x) // (x + 1)
        counts = np.full(1, layouts, dtype=np.int64)
        marginals = np.full((1, 1), v * layouts, dtype=np.int64)
        if not fits:
            return EMPTY, 0, 0, 0, 0, counts, marginals
        return OK, -1, v, 0, 0, counts, marginals
    # the part's inputs in elimination order, numbers renumbered from 0
    p_sizes = np.empty(k, dtype=np.int64)
    ptr = np.zeros(k + 1, dtype=np.int64)
    for x in range(k):
        g = order[a + x]
        p_sizes[x] = sizes[g]
        ptr[x + 1] = ptr[x] + grp_ptr[g + 1] - grp_ptr[g]
    idx = np.empty(ptr[k], dtype=np.int64)
    ids = np.empty(ptr[k], dtype=np.int64)
    count = 0
    for x in range(k):
        g = order[a + x]
        for p in range(grp_ptr[g], grp_ptr[g + 1]):
            c = grp_idx[p]
            if number[c] < 0:
                number[c] = count
                ids[count] = c
                count += 1
            idx[ptr[x] + p - grp_ptr[g]] = number[c]
    p_need = np.empty(count, dtype=np.int64)
    for q in range(count):
        p_need[q] = need[ids[q]]
        number[ids[q]] = -1
    st, step, counts, marginals = count_component(p_sizes, ptr, idx, p_need, max_states)
    if st != OK:
        return st, step, 0, 0, 0, counts, marginals
    first = 0
    while counts[first] == 0:
        first += 1
    last = counts.shape[0] - 1
    while counts[last] == 0:
        last -= 1
    return OK, -1, first, first, last, counts, marginals


@kernel(
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    readonly(nt.int64[::1]),
    nt.int64,
)
def count_parts(
    sizes: NDArray[np.int64],
    grp_ptr: NDArray[np.int64],
    grp_idx: NDArray[np.int64],
    part_ptr: NDArray[np.int64],
    order: NDArray[np.int64],
    need: NDArray[np.int64],
    todo: NDArray[np.int64],
    max_states: int,
) -> NDArray[np.int64]:
    """Count the parts ``todo`` of a structure, one after the other.

    Group ``g`` has ``sizes[g]`` cells and the numbers
    ``grp_idx[grp_ptr[g]:grp_ptr[g + 1]]``; part ``j`` is
    ``order[part_ptr[j]:part_ptr[j + 1]]``, in elimination order.

    Returns one int64 array (one array is quicker to hand back than
    several), read by :func:`unpack`: ``(info, values, single, factors,
    summary)``.  Row ``t`` of ``info`` is ``(status, step, low, width, at)`` for the ``t``-th part:
    its :func:`count_component` status and step and, where it is
    :data:`OK`, its layouts by mine total from ``low`` on (``width``
    totals, the first and the last not zero) in ``values[at:at + width]``,
    followed by the same for each of its groups in elimination order,
    weighted by that group's mines (``width`` values each).  The parts of
    one mine total are also listed, a row per group, in ``single``: the
    group, its mine-weighted count and its part's count; ``factors`` holds
    those parts' counts other than 1.  ``summary`` is ``(low, wide,
    trouble)``: those parts' mine totals summed, how many parts of several
    totals were counted, and how many were not :data:`OK`.  Each part is
    counted by :func:`count_part`.
    """
    n_todo = todo.shape[0]
    info = np.zeros((n_todo, 5), dtype=np.int64)
    values = np.zeros(max(4 * n_todo, 16), dtype=np.int64)
    used = 0
    single = np.zeros((max(n_todo, 4), 3), dtype=np.int64)
    n_single = 0
    factors = np.ones(n_todo, dtype=np.int64)
    n_factors = 0
    summary = np.zeros(3, dtype=np.int64)
    number = np.full(need.shape[0], -1, dtype=np.int64)  # renumbering, reset per part
    for t in range(n_todo):
        j = todo[t]
        k = part_ptr[j + 1] - part_ptr[j]
        st, step, low, first, last, counts, marginals = count_part(
            sizes, grp_ptr, grp_idx, part_ptr, order, need, j, max_states, number
        )
        info[t, 0] = st
        info[t, 1] = step
        if st != OK:
            summary[2] += 1
            continue
        info[t, 2] = low
        w = last - first + 1
        info[t, 3] = w
        info[t, 4] = used
        values = _grow(values, used, (k + 1) * w)
        values[used : used + w] = counts[first : last + 1]
        for x in range(k):
            values[used + (x + 1) * w : used + (x + 2) * w] = marginals[x, first : last + 1]
        used += (k + 1) * w
        if w > 1:
            summary[1] += 1
            continue
        if n_single + k > single.shape[0]:
            bigger = np.zeros((2 * (n_single + k), 3), dtype=np.int64)
            bigger[:n_single] = single[:n_single]
            single = bigger
        for x in range(k):
            single[n_single, 0] = order[part_ptr[j] + x]
            single[n_single, 1] = marginals[x, first]
            single[n_single, 2] = counts[first]
            n_single += 1
        if counts[first] != 1:
            factors[n_factors] = counts[first]
            n_factors += 1
        summary[0] += info[t, 2]
    sizes_out = (n_todo * 5, used, n_single * 3, n_factors)
    out = np.empty(4 + 3 + sum(sizes_out), dtype=np.int64)
    out[0], out[1], out[2], out[3] = sizes_out
    out[4:7] = summary
    at = 7
    out[at : at + n_todo * 5] = info.ravel()
    at += n_todo * 5
    out[at : at + used] = values[:used]
    at += used
    out[at : at + n_single * 3] = single[:n_single].ravel()
    at += n_single * 3
    out[at : at + n_factors] = factors[:n_factors]
    return out


def unpack(out: NDArray[np.int64]) -> tuple[NDArray[np.int64], ...]:
    """:func:`count_parts`' array as ``(info, values, single, factors, summary)``."""
    n_info, n_values, n_single, n_factors = out[:4].tolist()
    at = 7
    info = out[at : at + n_info].reshape(-1, 5)
    at += n_info
    values = out[at : at + n_values]
    at += n_values
    single = out[at : at + n_single].reshape(-1, 3)
    at += n_single
    return info, values, single, out[at : at + n_factors], out[4:7]
