"""The structure kernel's scratch: int32 ids on the board, int64 beyond 2**31 cells.

:func:`~numsweeper.solver.structure.frontier_structure` keeps the
constraints' ids on the padded board as int32 when they fit and as int64
on boards too large for that.  A board large enough to take the int64 path
would need gigabytes, so these tests call the body for each id type
directly, on small boards, and hold the two to the same outputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from numsweeper.solver._jit import frozen
from numsweeper.solver.structure import _INT32_CELLS, _structure, frontier_structure


def _boards(seed: int) -> list[tuple[NDArray[np.bool_], NDArray[np.bool_]]]:
    """(unknown, revealed) pairs: edge shapes, all hidden, all revealed, flags, both, mixes."""
    rng = np.random.default_rng(seed)
    shapes = [(1, 1), (1, 2), (2, 1), (1, 40), (40, 1), (3, 3), (16, 30), (23, 7)]
    shapes += [(int(rng.integers(1, 30)), int(rng.integers(1, 30))) for _ in range(40)]
    out = []
    for rows, cols in shapes:
        shape = (rows, cols)
        out.append((np.ones(shape, bool), np.zeros(shape, bool)))
        out.append((np.zeros(shape, bool), np.ones(shape, bool)))
        kinds = rng.integers(3, size=shape)  # hidden, number, flag
        out.append((kinds == 0, kinds == 1))
        out.append((rng.random(shape) < 0.5, rng.random(shape) < 0.5))  # some cells both
        for density in (0.05, 0.2, 0.5, 0.9):
            unknown = rng.random(shape) < density
            out.append((unknown, ~unknown))
    return out


def _same(got: tuple[Any, ...], want: tuple[Any, ...]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray)
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
        else:
            assert int(a) == int(b)


def test_the_int32_bound_holds_every_id() -> None:
    # an id is below the board's cells, so at most _INT32_CELLS - 1
    assert np.iinfo(np.int32).max >= _INT32_CELLS - 1


@pytest.mark.parametrize("seed", [0, 1])
def test_int64_and_int32_ids_give_the_same_structure(seed: int) -> None:
    for unknown, revealed in _boards(seed):
        u, r = frozen(np.ascontiguousarray(unknown)), frozen(np.ascontiguousarray(revealed))
        want = frontier_structure(u, r)
        assert want[0].dtype == np.int8 and want[1].dtype == np.int64
        _same(_structure(u, r, np.int64), want)
        _same(_structure(u, r, np.int32), want)
