"""The count of one frontier component in Python integers, for counts past int64.

The same forward dynamic programme and backward sweep as the compiled
count (:mod:`numsweeper.solver.counting`, whose notes describe it), on
Python integers: :func:`count_exact` counts a component whose counts
would not fit in int64, or whose cuts separate more numbers than the
compiled states pack, and relaxes (:class:`TooLarge`) or names the number
no layout meets (:class:`Empty`).  This is the one routine written twice,
since no int64 kernel can hold those counts.  The polynomial products it
and the exact engine need on long Python integers are here too:
:func:`convolve` (Kronecker substitution, GMP where installed) and
:func:`middle`.
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
from numpy.typing import NDArray

from .counting import Poly

__all__ = [
    "Empty",
    "TooLarge",
    "convolve",
    "count_exact",
    "long_ints",
    "middle",
]


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
    >>> from numsweeper.solver.longcount import convolve
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
    >>> from numsweeper.solver.longcount import middle
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
    >>> from numsweeper.solver.longcount import long_ints
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
