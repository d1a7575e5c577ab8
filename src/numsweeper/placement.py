"""Mine-placement strategies: where the mines of a new board go.

A strategy is an object with one method, :meth:`MinePlacementStrategy.place`,
so a :class:`~numsweeper.Game` can be given any rule for laying mines:
uniformly random and seedable (:class:`RandomPlacement`), a fixed layout for
tests and puzzles (:class:`FixedPlacement`), or a subclass of your own.

Examples
--------
>>> import numsweeper as ns
>>> layout = ns.RandomPlacement(seed=7).place(4, 5, 6)
>>> layout.shape, int(layout.sum())
((4, 5), 6)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import count_text, make_rng
from .errors import InvalidBoardError

__all__ = ["FixedPlacement", "MinePlacementStrategy", "RandomPlacement", "SeedLike"]

#: Anything :func:`numpy.random.default_rng` accepts.
SeedLike: TypeAlias = "int | np.random.SeedSequence | np.random.Generator | None"

# Cells drawn per step when sampling huge boards: bounds the float32 scratch
# memory to 4 MiB whatever the board size.  Part of the seeded output, so
# changing it changes which layout a seed gives.
_CHUNK = 1 << 20


class MinePlacementStrategy(ABC):
    """Interface of every mine-placement rule.

    Subclass it and implement :meth:`place` to plug a new rule into
    :meth:`numsweeper.Game.new` or :meth:`numsweeper.Board.create`.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> class TopRow(ns.MinePlacementStrategy):
    ...     def place(self, rows, cols, mines, *, safe=None):
    ...         layout = np.zeros((rows, cols), dtype=bool)
    ...         layout[0, :mines] = True
    ...         return layout
    >>> ns.Board.create(2, 3, 2, TopRow()).mines.astype(int)
    array([[1, 1, 0],
           [0, 0, 0]])
    """

    @abstractmethod
    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """Lay out ``mines`` mines on a ``rows`` x ``cols`` board.

        Parameters
        ----------
        rows, cols : int
            Board dimensions (already validated by the caller).
        mines : int
            The exact number of mines to place.
        safe : ndarray of bool, shape (rows, cols), optional
            Cells that must stay mine-free (for first-click rules).

        Returns
        -------
        ndarray of bool, shape (rows, cols)
            Exactly ``mines`` True cells, none where ``safe`` is True.

        Raises
        ------
        InvalidBoardError
            If the rule cannot honour the request (too many mines for the
            allowed cells, or a fixed layout that covers a safe cell).
        """


def _sample_true(
    rng: np.random.Generator, mask: NDArray[np.bool_], count: int, total: int
) -> NDArray[np.intp]:
    """Flat indices of ``count`` cells drawn uniformly from the True cells of ``mask``.

    ``total`` is ``mask.sum()``.  Ranks are drawn without replacement, then
    mapped to positions chunk by chunk, so the scratch memory is one chunk.
    """
    ranks = np.sort(rng.choice(total, size=count, replace=False))
    flat = mask.reshape(-1)
    found: list[NDArray[np.intp]] = []
    seen = 0
    lo = 0
    for start in range(0, flat.size, _CHUNK):
        if lo == ranks.size:
            break
        chunk = flat[start : start + _CHUNK]
        here = int(np.count_nonzero(chunk))
        hi = int(np.searchsorted(ranks, seen + here))
        if hi > lo:
            found.append(np.flatnonzero(chunk)[ranks[lo:hi] - seen] + start)
            lo = hi
        seen += here
    return np.concatenate(found) if found else np.empty(0, dtype=np.intp)


class RandomPlacement(MinePlacementStrategy):
    """Uniformly random placement over every allowed layout, seedable.

    Each allowed cell is first drawn as a mine with probability
    ``mines / allowed``; the surplus or deficit is then removed or added
    uniformly at random.  Conditioned on its size a Bernoulli set is uniform,
    so the result is exactly uniform over the layouts with ``mines`` mines,
    while memory stays at one byte per cell plus a fixed scratch buffer.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts.  Two strategies made
        with the same seed place the same mines, call after call.

    Examples
    --------
    >>> import numsweeper as ns
    >>> ns.RandomPlacement(seed=1).place(3, 4, 3).astype(int)
    array([[0, 0, 0, 0],
           [1, 1, 0, 0],
           [1, 0, 0, 0]])
    """

    def __init__(self, seed: Any = None) -> None:
        self._rng = make_rng(seed)

    @property
    def rng(self) -> np.random.Generator:
        """The generator this strategy draws from."""
        return self._rng

    def __repr__(self) -> str:
        return f"RandomPlacement(rng={self._rng!r})"

    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """Draw a uniformly random layout; see :class:`MinePlacementStrategy`."""
        n = rows * cols
        safe_count = 0 if safe is None else int(np.count_nonzero(safe))
        allowed = n - safe_count
        if mines > allowed:
            raise InvalidBoardError(
                f"cannot place {mines} mines: only {allowed} of {n} cells may hold one"
            )
        flat = np.empty(n, dtype=bool)
        p = mines / allowed if allowed else 0.0
        for start in range(0, n, _CHUNK):
            stop = min(start + _CHUNK, n)
            np.less(self._rng.random(stop - start, dtype=np.float32), p, out=flat[start:stop])
        layout = flat.reshape(rows, cols)
        if safe is not None:
            layout &= ~safe
        drawn = int(np.count_nonzero(flat))
        if drawn > mines:
            flat[_sample_true(self._rng, layout, drawn - mines, drawn)] = False
        elif drawn < mines:
            free = ~layout if safe is None else ~(layout | safe)
            flat[_sample_true(self._rng, free, mines - drawn, allowed - drawn)] = True
        return layout


class FixedPlacement(MinePlacementStrategy):
    """A fixed, known layout: for tests, puzzles and replays.

    Parameters
    ----------
    positions : array_like of bool, shape (rows, cols), or iterable of (row, col)
        The mines, as a mask or as coordinate pairs.

    Raises
    ------
    InvalidBoardError
        From :meth:`place`, if the layout is off the board, has duplicates,
        disagrees with the requested size or count, or covers a safe cell.

    Examples
    --------
    >>> import numsweeper as ns
    >>> board = ns.Board.create(2, 3, 2, ns.FixedPlacement([(0, 0), (1, 2)]))
    >>> board.counts
    array([[0, 2, 1],
           [1, 2, 0]], dtype=int8)
    """

    def __init__(self, positions: ArrayLike | Iterable[tuple[int, int]]) -> None:
        as_array = np.asarray(positions) if not isinstance(positions, (set, frozenset)) else None
        if as_array is not None and as_array.dtype == bool:
            if as_array.ndim != 2:
                raise InvalidBoardError(f"a mine mask must be 2-D, got shape {as_array.shape}")
            self._mask: NDArray[np.bool_] | None = as_array.copy()
            self._pairs: list[tuple[int, int]] = []
        else:
            self._mask = None
            self._pairs = [self._pair(p) for p in positions]  # type: ignore[union-attr]

    @staticmethod
    def _pair(position: Any) -> tuple[int, int]:
        try:
            row, col = position
        except (TypeError, ValueError):
            raise InvalidBoardError(
                f"a mine position must be a (row, col) pair, got {position!r}"
            ) from None
        for value in (row, col):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise InvalidBoardError(f"mine position {position!r} must hold integers")
        return int(row), int(col)

    def __repr__(self) -> str:
        if self._mask is not None:
            return f"FixedPlacement(<mask {self._mask.shape[0]}x{self._mask.shape[1]}>)"
        return f"FixedPlacement({self._pairs!r})"

    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """Return the fixed layout after checking it; see :class:`MinePlacementStrategy`."""
        if self._mask is not None:
            if self._mask.shape != (rows, cols):
                raise InvalidBoardError(
                    f"mine mask has shape {self._mask.shape}, but the board is {(rows, cols)}"
                )
            layout = self._mask.copy()
        else:
            layout = np.zeros((rows, cols), dtype=bool)
            for row, col in self._pairs:
                if not (0 <= row < rows and 0 <= col < cols):
                    raise InvalidBoardError(
                        f"mine position {(row, col)} is off the {rows}x{cols} board"
                    )
                if layout[row, col]:
                    raise InvalidBoardError(f"mine position {(row, col)} is given twice")
                layout[row, col] = True
        placed = int(np.count_nonzero(layout))
        if placed != mines:
            raise InvalidBoardError(
                f"fixed layout has {count_text(placed, 'mine')}, but mines={mines}"
            )
        if safe is not None and (layout & safe).any():
            row, col = (int(v) for v in np.argwhere(layout & safe)[0])
            raise InvalidBoardError(
                f"fixed layout puts a mine on ({row}, {col}), which must stay safe"
            )
        return layout
