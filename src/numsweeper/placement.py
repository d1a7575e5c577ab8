"""Mine-placement strategies: where the mines of new boards go.

A strategy lays out one board (:meth:`MinePlacementStrategy.place`) and,
batched, many (:meth:`MinePlacementStrategy.place_batch`), so every part of
the library can be given any rule for laying mines: uniformly random and
seedable (:class:`RandomPlacement`), a fixed layout for tests and puzzles
(:class:`FixedPlacement`), or a subclass of your own.  A subclass needs only
``place``; the batched method then loops over it.

Examples
--------
>>> import numsweeper as ns
>>> layout = ns.RandomPlacement(seed=7).place(4, 5, 6)
>>> layout.shape, int(layout.sum())
((4, 5), 6)
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._rules import safe_zones
from ._validate import (
    check_at_least,
    check_fits,
    check_int,
    check_mask,
    count_text,
    dims_text,
    make_rng,
    short_repr,
)
from .errors import InvalidBoardError, InvalidTypeError

__all__ = [
    "FixedPlacement",
    "MinePlacementStrategy",
    "RandomPlacement",
    "SeedLike",
    "check_request",
    "check_strategy",
    "place_at_clicks",
    "place_boards",
    "reseeded",
]

#: Anything :func:`numpy.random.default_rng` accepts.
SeedLike: TypeAlias = "int | np.random.SeedSequence | np.random.Generator | None"

# Cells laid out per step of the sampler: bounds its scratch memory whatever
# the batch.  It fixes the order in which random numbers are drawn, so
# changing it changes which boards a seed gives.
_STEP_CELLS = 1 << 23

# Random bytes drawn at once (a multiple of 8, so the stream of raw words
# does not depend on it): bounds the scratch memory of one huge board.
_BYTES_STEP = 1 << 23


class MinePlacementStrategy(ABC):
    """Interface of every mine-placement rule.

    Subclass it and implement :meth:`place` to plug a new rule into
    :meth:`Game.new <numsweeper.Game.new>`, :meth:`Board.create
    <numsweeper.Board.create>`, :func:`~numsweeper.generate_boards`,
    :class:`~numsweeper.BatchGame` and :func:`~numsweeper.simulate`.  Override
    :meth:`place_batch` when a batch can be laid out faster than board by
    board, and :meth:`with_seed` when the rule is random.

    Two class attributes opt in to more information; strategies that leave
    them False are called exactly as described here:

    * ``uses_click = True``: the strategy is told the first click, for a
      rule defined from it (no-guess boards).  :meth:`place` then receives
      ``click=(row, col)`` and an overridden :meth:`place_batch` receives
      ``clicks=``, an ``(n, 2)`` int array, whenever the mines are laid at
      a first click; both are None when there is no first-click rule.
    * ``uses_workers = True``: an overridden :meth:`place_batch` receives
      ``workers=k`` when :func:`~numsweeper.generate_boards` is asked for
      ``k > 1`` worker processes, and must lay the same boards for any
      ``k``.  Other strategies run in the calling process whatever
      ``workers`` says.

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
    >>> ns.generate_boards(4, 2, 3, 2, strategy=TopRow()).mines.sum(axis=(1, 2))
    array([2, 2, 2, 2])
    """

    #: Whether :meth:`place` and :meth:`place_batch` are told the first click.
    uses_click: bool = False
    #: Whether :meth:`place_batch` takes ``workers=`` (processes it may use).
    uses_workers: bool = False

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
            Cells that must stay mine-free (for first-click rules); read-only.

        Returns
        -------
        ndarray of bool, shape (rows, cols)
            Exactly ``mines`` True cells, none where ``safe`` is True.

        Raises
        ------
        InvalidBoardError
            If the rule cannot honour the request (too many mines for the
            allowed cells, or a fixed layout that covers a safe cell).

        Examples
        --------
        What every strategy promises, here :class:`RandomPlacement`: five
        mines on the five cells that ``safe`` allows.

        >>> import numpy as np
        >>> import numsweeper as ns
        >>> safe = np.array([[True, False, False], [False, False, False]])
        >>> ns.RandomPlacement(seed=0).place(2, 3, 5, safe=safe).astype(int)
        array([[0, 1, 1],
               [1, 1, 1]])
        """

    def place_batch(
        self,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        safe: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.bool_]:
        """Lay out ``n`` boards; by default one :meth:`place` call per board.

        Parameters
        ----------
        n : int
            Number of boards, ``n >= 0``.
        rows, cols, mines : int
            As for :meth:`place`.
        safe : ndarray of bool, shape (n, rows, cols), optional
            Cells of each board that must stay mine-free; read-only.

        Returns
        -------
        ndarray of bool, shape (n, rows, cols)
            Exactly ``mines`` True cells per board, none where ``safe`` is True.

        Raises
        ------
        InvalidBoardError
            If the rule cannot honour the request, or :meth:`place` returns a
            layout of the wrong shape, type or count.

        Examples
        --------
        >>> import numsweeper as ns
        >>> ns.FixedPlacement([(0, 1)]).place_batch(2, 1, 3, 1).astype(int)
        array([[[0, 1, 0]],
        <BLANKLINE>
               [[0, 1, 0]]])
        """
        n, rows, cols, mines, safe = check_request(n, rows, cols, mines, safe)
        return _place_each(self, n, rows, cols, mines, safe, None)

    def with_seed(self, seed: Any) -> MinePlacementStrategy:
        """A strategy like this one that draws its randomness from ``seed``.

        Bulk runs (:func:`~numsweeper.iter_boards`,
        :func:`~numsweeper.simulate`) give each chunk its own seed this way,
        so that chunks draw independent boards in any process.  The default
        returns a deep copy in which every numpy ``Generator`` or
        ``RandomState`` attribute draws from ``seed`` instead (so a rule
        that keeps its randomness in one, such as ``self.rng``, needs no
        override); a rule with other randomness should override it.

        Parameters
        ----------
        seed : None, int, SeedSequence or Generator
            Anything :func:`numpy.random.default_rng` accepts.

        Returns
        -------
        MinePlacementStrategy
            A new strategy; this one is unchanged.

        Examples
        --------
        >>> import numsweeper as ns
        >>> a = ns.RandomPlacement(seed=0).with_seed(7).place(9, 9, 10)
        >>> b = ns.RandomPlacement(seed=7).place(9, 9, 10)
        >>> bool((a == b).all())
        True
        """
        twin: MinePlacementStrategy = _reseeded_copy(self, seed)
        return twin


def _place_each(
    strategy: Any,
    n: int,
    rows: int,
    cols: int,
    mines: int,
    safe: NDArray[np.bool_] | None,
    clicks: NDArray[np.intp] | None,
) -> NDArray[np.bool_]:
    """Lay ``n`` boards with one ``place`` call each, checked.

    A strategy with ``uses_click = True`` is told each board's click (None
    without ``clicks``).
    """
    out = np.empty((n, rows, cols), dtype=bool)
    tell = getattr(strategy, "uses_click", False) is True
    for i in range(n):
        zone = None if safe is None else safe[i]
        told: dict[str, Any] = {}
        if tell:
            told["click"] = None if clicks is None else (int(clicks[i, 0]), int(clicks[i, 1]))
        layout = np.asarray(strategy.place(rows, cols, mines, safe=zone, **told))
        _check_layouts(strategy, layout, (rows, cols), mines, zone, board=i)
        out[i] = layout
    return out


def check_request(
    n: int | None, rows: Any, cols: Any, mines: Any, safe: Any
) -> tuple[int, int, int, int, NDArray[np.bool_] | None]:
    """A placement request, checked: ``(n, rows, cols, mines, safe)``.

    What a strategy's public :meth:`~MinePlacementStrategy.place` (``n``
    None: one board, ``safe`` of shape ``(rows, cols)``) and
    :meth:`~MinePlacementStrategy.place_batch` (``safe`` of shape ``(n,
    rows, cols)``) check before they draw: integer sizes of at least one
    cell, ``0 <= mines <= rows * cols``, ``n >= 0``, a batch that fits in
    memory and a mask of bools of the board's shape.  (The library calls
    them with checked values; this keeps a direct call from failing deep in
    numpy.)

    Parameters
    ----------
    n : int or None
        Number of boards, or None for one board.
    rows, cols, mines : int
        Board dimensions and mine count.
    safe : array_like of bool or None
        Cells that must stay mine-free: shape ``(rows, cols)`` when ``n`` is
        None, else ``(n, rows, cols)``.

    Returns
    -------
    tuple of (int, int, int, int, ndarray of bool or None)
        ``(n, rows, cols, mines, safe)`` as Python ints (``n`` is 1 when
        given as None) and ``safe`` as an array.

    Raises
    ------
    InvalidBoardError
        For a size, count or mask shape out of range, naming it.
    InvalidTypeError
        For a non-integer size or count, or a mask that is not of bools.

    Examples
    --------
    >>> from numsweeper.placement import check_request
    >>> check_request(2, 3, 3, 4, None)
    (2, 3, 3, 4, None)
    >>> check_request(None, 3, 3, 10, None)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidBoardError: mines must be in 0..9 for a 3x3 board, got 10
    """
    count = 1 if n is None else check_at_least(n, "n", 0)
    r = check_at_least(rows, "rows", 1)
    c = check_at_least(cols, "cols", 1)
    m = check_int(mines, "mines")
    if not 0 <= m <= r * c:
        raise InvalidBoardError(
            f"mines must be in 0..{short_repr(r * c)} for a {dims_text(r, c)} board, "
            f"got {short_repr(m)}"
        )
    check_fits(count, r, c, 1, "board")
    mask = None
    if safe is not None:
        mask = check_mask(safe, (r, c) if n is None else (count, r, c), "safe")
    return count, r, c, m, mask


def _sample(
    rng: np.random.Generator,
    flat: NDArray[np.bool_],
    mines: int,
    safe: NDArray[np.bool_] | None,
) -> None:
    """Fill ``flat`` (m, cells) with uniform layouts of exactly ``mines`` mines each.

    Cells are first drawn as mines independently with a probability ``t/256``
    close to the density (one random byte per cell); cells in ``safe``
    (m, cells) are then cleared.  Each board's surplus or deficit is then
    corrected by setting uniformly drawn cells to mine-free or to mine, a
    batch of draws per round, until every board holds ``mines``.

    Every step treats the allowed cells of a board alike: it depends on the
    cells' contents and the board's mine count only, never on where a cell
    is.  The distribution of the result is therefore invariant under every
    permutation of the allowed cells, and since it holds exactly ``mines``
    mines it is uniform over those layouts.
    """
    m, size = flat.shape
    if mines == 0:
        flat[...] = False
        return
    if safe is None:
        allowed = np.full(m, size, dtype=np.int64)
    else:
        allowed = size - np.count_nonzero(safe, axis=1).astype(np.int64)
    # Aim the first draw about one standard deviation short of `mines` on the
    # side where correction draws mostly hit (free cells when mines are
    # sparse, mines when dense), so most boards need only that kind of fix.
    space = int(allowed.max())
    density = mines / space
    spread = np.sqrt(space * density * (1 - density))
    sparse = density <= 0.5
    aim = (mines - spread if sparse else mines + spread) / space
    threshold = int(np.clip(np.floor(aim * 256) if sparse else np.ceil(aim * 256), 0, 256))
    cells = flat.reshape(-1)
    if 0 < threshold < 256:
        for start in range(0, cells.size, _BYTES_STEP):
            stop = min(start + _BYTES_STEP, cells.size)
            # Little-endian bytes of the raw words: the same on every machine.
            words = rng.bit_generator.random_raw(-(-(stop - start) // 8))
            random_bytes = words.astype("<u8", copy=False).view(np.uint8)[: stop - start]
            np.less(random_bytes, threshold, out=cells[start:stop])
    else:
        flat[...] = threshold > 0
    safe_cells = None
    if safe is not None:
        np.greater(flat, safe, out=flat)  # clear the safe cells
        safe_cells = safe.reshape(-1)
    # int16 sums are several times faster than int64 ones.
    total = np.int16 if size < 2**15 else np.int64
    draw = np.uint16 if size <= 2**16 else np.int64
    need = mines - flat.view(np.uint8).sum(axis=1, dtype=total).astype(np.int64)
    todo = np.flatnonzero(need)
    while todo.size:
        for adding in (True, False):
            boards = todo[need[todo] > 0] if adding else todo[need[todo] < 0]
            if not boards.size:
                continue
            short = np.abs(need[boards])
            have = mines + (-short if adding else short)
            if adding and sparse and safe is not None:
                # Where most cells are kept safe, draws over the whole board
                # would rarely land on a free allowed cell: choose among
                # those cells directly (rare, so one board at a time).
                slow = (allowed[boards] - have) * 8 < size
                for board, count in zip(boards[slow].tolist(), short[slow].tolist(), strict=True):
                    free = np.flatnonzero(~flat[board] & ~safe[board])
                    flat[board, rng.choice(free, size=count, replace=False)] = True
                boards, short, have = boards[~slow], short[~slow], have[~slow]
            if adding == sparse:
                # The usual fix: as many draws as missing changes, which
                # most often hit and can never overshoot.
                draws = short
            else:
                # The rare one: enough draws to make about `short` changes,
                # given the share of cells that count; an overshoot is then
                # fixed the usual way.
                hits = (allowed[boards] - have) if adding else have
                draws = np.maximum(short * size // hits, 1)
            target = np.repeat(boards * size, draws)
            target += rng.integers(0, size, size=target.size, dtype=draw)
            if adding and safe_cells is not None:
                target = target[~safe_cells[target]]
            cells[target] = adding
        if todo.size * 4 > m:
            need = mines - flat.view(np.uint8).sum(axis=1, dtype=total).astype(np.int64)
        else:
            need[todo] = mines - flat[todo].view(np.uint8).sum(axis=1, dtype=total)
        todo = todo[need[todo] != 0]


class RandomPlacement(MinePlacementStrategy):
    """Uniformly random placement over every allowed layout, seedable.

    One sampler serves one board and a batch alike: ``place(...)`` is the
    first board of ``place_batch(1, ...)``, and
    :func:`~numsweeper.generate_boards` and :class:`~numsweeper.BatchGame`
    draw through :meth:`place_batch`.  Each allowed cell is first drawn as a
    mine with a probability close to the density; the surplus or deficit of
    each board is then removed or added uniformly at random.  Conditioned on
    its size a Bernoulli set is uniform, so the result is exactly uniform
    over the layouts with ``mines`` mines, while memory stays at one byte per
    cell plus a fixed scratch buffer.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Anything :func:`numpy.random.default_rng` accepts.  Two strategies made
        with the same seed place the same mines, call after call.

    Examples
    --------
    >>> import numsweeper as ns
    >>> ns.RandomPlacement(seed=1).place(3, 4, 3).astype(int)
    array([[1, 1, 0, 0],
           [0, 0, 1, 0],
           [0, 0, 0, 0]])
    >>> ns.RandomPlacement(seed=1).rng
    Generator(PCG64) at 0x...
    """

    def __init__(self, seed: Any = None) -> None:
        self._rng = make_rng(seed)

    @property
    def rng(self) -> np.random.Generator:
        """The generator this strategy draws from (a :class:`numpy.random.Generator`)."""
        return self._rng

    def __repr__(self) -> str:
        return f"RandomPlacement(rng={self._rng!r})"

    def with_seed(self, seed: Any) -> RandomPlacement:
        """This strategy drawing from ``seed``; see :meth:`MinePlacementStrategy.with_seed`.

        Parameters
        ----------
        seed : None, int, SeedSequence or Generator
            As in :meth:`MinePlacementStrategy.with_seed`.

        Returns
        -------
        RandomPlacement
            A copy that draws from ``seed``; this one is unchanged.

        Raises
        ------
        InvalidBoardError
            For a negative integer seed.
        InvalidTypeError
            For a seed of another type.

        Examples
        --------
        >>> import numsweeper as ns
        >>> strategy = ns.RandomPlacement(seed=2)
        >>> twin = strategy.with_seed(5)
        >>> twin is strategy
        False
        >>> bool((twin.place(9, 9, 10) == ns.RandomPlacement(seed=5).place(9, 9, 10)).all())
        True
        """
        twin = copy.copy(self)
        twin._rng = make_rng(seed)
        return twin

    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """Draw a uniformly random layout; see :meth:`MinePlacementStrategy.place`.

        Parameters
        ----------
        rows, cols : int
            Board dimensions, at least 1.
        mines : int
            Mines to place, ``0 <= mines <= rows * cols``.
        safe : ndarray of bool, shape (rows, cols), optional
            Cells to keep mine-free; read, never changed.

        Returns
        -------
        ndarray of bool, shape (rows, cols)
            A new layout, uniform over those with ``mines`` mines off ``safe``.

        Raises
        ------
        InvalidBoardError
            For a size or mine count out of range, a ``safe`` of the wrong
            shape, or more mines than the cells ``safe`` allows.
        InvalidTypeError
            For a non-integer size or count, or a ``safe`` that is not of bools.

        Examples
        --------
        >>> import numsweeper as ns
        >>> a = ns.RandomPlacement(seed=2).place(3, 4, 5)
        >>> b = ns.RandomPlacement(seed=2).place(3, 4, 5)  # the same seed: the same mines
        >>> a.shape, int(a.sum()), bool((a == b).all())
        ((3, 4), 5, True)
        """
        _, rows, cols, mines, zone = check_request(None, rows, cols, mines, safe)
        zone = None if zone is None else zone[None]
        layout: NDArray[np.bool_] = self.place_batch(1, rows, cols, mines, safe=zone)[0]
        return layout

    def place_batch(
        self,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        safe: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.bool_]:
        """Draw ``n`` uniformly random layouts; see :meth:`MinePlacementStrategy.place_batch`.

        Parameters
        ----------
        n : int
            How many boards to draw, ``n >= 0``.
        rows, cols, mines : int
            As for :meth:`place`.
        safe : ndarray of bool, shape (n, rows, cols), optional
            Each board's cells to keep mine-free; read, never changed.

        Returns
        -------
        ndarray of bool, shape (n, rows, cols)
            Independent layouts, each as from :meth:`place`.

        Raises
        ------
        InvalidBoardError
            For a size, count or ``n`` out of range, a batch too large for
            memory, a ``safe`` of the wrong shape, or more mines than the
            cells ``safe`` allows on some board.
        InvalidTypeError
            For a non-integer size or count, or a ``safe`` that is not of bools.

        Examples
        --------
        >>> import numsweeper as ns
        >>> ns.RandomPlacement(seed=1).place_batch(1000, 16, 30, 99).sum(axis=(1, 2)).min()
        np.int64(99)
        """
        n, rows, cols, mines, safe = check_request(n, rows, cols, mines, safe)
        size = rows * cols
        if safe is not None:
            allowed = size - np.count_nonzero(safe.reshape(n, size), axis=1)
            if n and mines > allowed.min():
                i = int(np.argmin(allowed))
                where = f" of board {i}" if n > 1 else ""
                raise InvalidBoardError(
                    f"cannot place {mines} mines: only {int(allowed[i])} of {size} "
                    f"cells{where} may hold one"
                )
        layout = np.empty((n, rows, cols), dtype=bool)
        flat = layout.reshape(n, size)
        step = max(1, _STEP_CELLS // size)
        for start in range(0, n, step):
            stop = min(start + step, n)
            zone = None if safe is None else safe[start:stop].reshape(stop - start, size)
            _sample(self._rng, flat[start:stop], mines, zone)
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
        If ``positions`` is a mask that is not 2-D, or holds an item that
        is not a ``(row, col)`` pair of integers.  A layout that does not
        fit the request fails later, in :meth:`place`.

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
                f"a mine position must be a (row, col) pair, got {short_repr(position)}"
            ) from None
        for value in (row, col):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise InvalidBoardError(f"mine position {short_repr(position)} must hold integers")
        return int(row), int(col)

    @property
    def positions(self) -> list[tuple[int, int]]:
        """The mines as ``(row, col)`` pairs, in the order given (reading order for a mask).

        Examples
        --------
        >>> import numsweeper as ns
        >>> ns.FixedPlacement([[False, True], [True, False]]).positions
        [(0, 1), (1, 0)]
        """
        if self._mask is not None:
            return [(int(r), int(c)) for r, c in np.argwhere(self._mask)]
        return list(self._pairs)

    def __repr__(self) -> str:
        if self._mask is not None:
            return f"FixedPlacement(<mask {self._mask.shape[0]}x{self._mask.shape[1]}>)"
        return f"FixedPlacement({self._pairs!r})"

    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """Return the fixed layout after checking it; see :meth:`MinePlacementStrategy.place`.

        Parameters
        ----------
        rows, cols, mines : int
            The board size and mine count the fixed layout must match.
        safe : ndarray of bool, shape (rows, cols), optional
            Cells the layout must not cover.

        Returns
        -------
        ndarray of bool, shape (rows, cols)
            A new copy of the fixed layout.

        Raises
        ------
        InvalidBoardError
            For a size or mine count out of range or a ``safe`` of the wrong
            shape; if the layout is off the board, gives a cell twice, has
            another shape or number of mines than asked, or covers a safe
            cell.
        InvalidTypeError
            For a non-integer size or count, or a ``safe`` that is not of bools.

        Examples
        --------
        >>> import numsweeper as ns
        >>> ns.FixedPlacement([(0, 1), (2, 0)]).place(3, 3, 2).astype(int)
        array([[0, 1, 0],
               [0, 0, 0],
               [1, 0, 0]])
        >>> ns.FixedPlacement([(0, 1)]).place(3, 3, 2)
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidBoardError: fixed layout has 1 mine, but mines=2
        """
        _, rows, cols, mines, safe = check_request(None, rows, cols, mines, safe)
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
                        f"mine position ({short_repr(row)}, {short_repr(col)}) is off the "
                        f"{rows}x{cols} board"
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

    def place_batch(
        self,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        safe: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.bool_]:
        """``n`` copies of the fixed layout; see :meth:`MinePlacementStrategy.place_batch`.

        Parameters
        ----------
        n, rows, cols, mines : int
            The number of copies (``n >= 0``); the rest as for :meth:`place`.
        safe : ndarray of bool, shape (n, rows, cols), optional
            Cells no copy may cover, per board.

        Returns
        -------
        ndarray of bool, shape (n, rows, cols)
            ``n`` copies of the fixed layout.

        Raises
        ------
        InvalidBoardError
            As for :meth:`place`, also for ``n`` below 0, a batch too large
            for memory, or a layout that covers a safe cell of some board.
        InvalidTypeError
            For a non-integer size or count, or a ``safe`` that is not of bools.

        Examples
        --------
        >>> import numsweeper as ns
        >>> batch = ns.FixedPlacement([(0, 1)]).place_batch(3, 2, 2, 1)
        >>> batch.shape, batch[:, 0, 1].tolist()
        ((3, 2, 2), [True, True, True])
        """
        n, rows, cols, mines, safe = check_request(n, rows, cols, mines, safe)
        layout = self.place(rows, cols, mines)
        out = np.repeat(layout[None], n, axis=0)
        if safe is not None and (out & safe).any():
            i, row, col = (int(v) for v in np.argwhere(out & safe)[0])
            raise InvalidBoardError(
                f"fixed layout puts a mine on ({row}, {col}), which must stay safe on board {i}"
            )
        return out


def reseeded(strategy: Any, seed: Any) -> Any:
    """``strategy.with_seed(seed)``; for a strategy without the method, what the default does.

    Parameters
    ----------
    strategy : MinePlacementStrategy
        Or any object with a ``place`` method.
    seed : None, int, SeedSequence or Generator
        Anything :func:`numpy.random.default_rng` accepts.

    Returns
    -------
    MinePlacementStrategy
        A new strategy that draws from ``seed``; ``strategy`` is unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.placement import reseeded
    >>> class Shuffle:  # a strategy without with_seed, its randomness in self.rng
    ...     def __init__(self):
    ...         self.rng = np.random.default_rng(0)
    ...     def place(self, rows, cols, mines, *, safe=None):
    ...         return (self.rng.permutation(rows * cols) < mines).reshape(rows, cols)
    >>> original = Shuffle()
    >>> a, b = reseeded(original, 1), reseeded(original, 1)
    >>> a is original, bool((a.place(4, 4, 3) == b.place(4, 4, 3)).all())
    (False, True)
    """
    with_seed = getattr(strategy, "with_seed", None)
    if callable(with_seed):
        return with_seed(seed)
    return _reseeded_copy(strategy, seed)


def strategy_for_copy(strategy: Any, placed: bool) -> Any:
    """The strategy a copy of a game gets: shared once the mines are laid, else a deep copy.

    A game calls its strategy only to lay its mines, so after that the copy
    may share it (which also lets games whose strategy cannot be copied be
    copied); before, the copy needs its own, in the same state, to lay what
    this game would.
    """
    return strategy if placed or strategy is None else copy.deepcopy(strategy)


def _reseeded_copy(strategy: Any, seed: Any) -> Any:
    """A deep copy of ``strategy`` whose numpy random generators draw from ``seed``.

    The first ``Generator`` or ``RandomState`` attribute (in attribute order)
    becomes ``default_rng(seed)`` (or a ``RandomState`` on its bit
    generator), each further one an independent child of it, so that a
    third-party strategy keeping its randomness in ``self.rng`` draws other
    boards in every chunk of a bulk run, reproducibly.
    """
    twin = copy.deepcopy(strategy)
    fields = getattr(twin, "__dict__", {})
    base: np.random.Generator | None = None
    for name, value in fields.items():
        if not isinstance(value, (np.random.Generator, np.random.RandomState)):
            continue
        if base is None:
            base = rng = make_rng(seed)
        else:
            rng = base.spawn(1)[0]
        if isinstance(value, np.random.RandomState):
            fields[name] = np.random.RandomState(rng.bit_generator)
        else:
            fields[name] = rng
    return twin


def check_strategy(strategy: Any) -> None:
    """Raise InvalidTypeError unless ``strategy`` is a placement strategy instance.

    Any object with a callable ``place`` passes; a class does not.

    Parameters
    ----------
    strategy : object
        The object to check.

    Raises
    ------
    InvalidTypeError
        If ``strategy`` is a class or has no ``place`` method.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.placement import check_strategy
    >>> check_strategy(ns.RandomPlacement(seed=0))  # an instance: nothing happens
    >>> check_strategy(ns.RandomPlacement)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidTypeError: strategy must be a MinePlacementStrategy instance ...
    """
    if isinstance(strategy, type) or not callable(getattr(strategy, "place", None)):
        raise InvalidTypeError(
            "strategy must be a MinePlacementStrategy instance (with a place method), "
            f"got {short_repr(strategy)}"
        )


def _check_layouts(
    strategy: Any,
    layouts: NDArray[Any],
    expected: tuple[int, ...],
    mines: int,
    safe: NDArray[np.bool_] | None,
    *,
    board: int | None = None,
) -> None:
    """Raise InvalidBoardError unless ``layouts`` honours the request.

    ``layouts`` should have shape ``expected``: one board ``(rows, cols)`` or
    a stack ``(n, rows, cols)``, with ``safe`` of the same shape.  ``board``
    is the index of a lone board in its batch, for the messages.
    """
    name = type(strategy).__name__
    if layouts.dtype != bool or layouts.shape != expected:
        raise InvalidBoardError(
            f"{name} returned {layouts.dtype} {layouts.shape}, expected bool {expected}"
        )

    def where(i: int) -> str:
        if layouts.ndim == 3:
            return f" on board {i}"
        return "" if board is None else f" on board {board}"

    rows, cols = expected[-2:]
    counts = np.count_nonzero(layouts.reshape(-1, rows * cols), axis=1)
    wrong = np.flatnonzero(counts != mines)
    if wrong.size:
        i = int(wrong[0])
        raise InvalidBoardError(f"{name} placed {int(counts[i])} mines{where(i)}, expected {mines}")
    if safe is not None and (layouts & safe).any():
        *index, row, col = (int(v) for v in np.argwhere(layouts & safe)[0])
        raise InvalidBoardError(
            f"{name} put a mine on ({row}, {col}){where(index[0] if index else 0)}, "
            "which must stay safe"
        )


def place_at_clicks(
    strategy: Any,
    n: int,
    rows: int,
    cols: int,
    mines: int,
    first_click: str | None,
    clicks: NDArray[np.intp] | None,
    *,
    workers: int = 1,
) -> NDArray[np.bool_]:
    """Layouts for boards whose first clicks are ``clicks``, under the rule ``first_click``.

    What :class:`~numsweeper.Game`, :class:`~numsweeper.BatchGame` and
    :func:`~numsweeper.generate_boards` lay mines with: the rule's cells
    around each click stay safe and the strategy is told the clicks (see
    :func:`place_boards`).  ``clicks`` is None, or ``(n, 2)``, without or
    with a rule.

    Parameters
    ----------
    strategy, n, rows, cols, mines, workers
        As in :func:`place_boards`.
    first_click : {'safe', 'opening'} or None
        The first-click rule whose cells around each click stay safe.
    clicks : ndarray of int, shape (n, 2), or None
        The first clicks; None lays the mines without a click.

    Returns
    -------
    ndarray of bool, shape (n, rows, cols)
        As from :func:`place_boards`.

    Raises
    ------
    InvalidBoardError, InvalidTypeError
        As from :func:`place_boards`.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.placement import place_at_clicks
    >>> layouts = place_at_clicks(ns.RandomPlacement(1), 1, 3, 3, 8, "safe", np.array([[1, 1]]))
    >>> layouts.shape, bool(layouts[0, 1, 1])
    ((1, 3, 3), False)
    """
    safe = None if clicks is None else safe_zones(rows, cols, clicks, first_click)
    return place_boards(strategy, n, rows, cols, mines, safe=safe, clicks=clicks, workers=workers)


def place_boards(
    strategy: Any,
    n: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    safe: NDArray[np.bool_] | None = None,
    clicks: NDArray[np.intp] | None = None,
    workers: int = 1,
) -> NDArray[np.bool_]:
    """Checked layouts from any strategy: what every part of the library lays mines with.

    One board asks :meth:`~MinePlacementStrategy.place`; a batch asks
    :meth:`~MinePlacementStrategy.place_batch`, or loops over ``place`` for
    a strategy that has no batched method.  The result is checked (shape,
    dtype, mine count, safe cells) and is the caller's own array.

    Parameters
    ----------
    strategy : MinePlacementStrategy
        Or any object with a ``place`` method of the same signature.
    n, rows, cols, mines : int
        Validated by the caller.
    safe : ndarray of bool, shape (n, rows, cols), optional
        Cells that must stay mine-free; the strategy sees them read-only.
    clicks : ndarray of int, shape (n, 2), optional
        The first clicks, when the mines are laid at a first click.  Only a
        strategy with ``uses_click = True`` is told them (as ``click=`` for
        one board, ``clicks=`` for a batch, None without clicks).
    workers : int
        Worker processes a strategy with ``uses_workers = True`` may use
        (passed to its ``place_batch`` when above 1); others ignore it.

    Returns
    -------
    ndarray of bool, shape (n, rows, cols)
        C-contiguous and not shared with the strategy.

    Raises
    ------
    InvalidBoardError
        If the strategy cannot honour the request or breaks it.
    InvalidTypeError
        If ``strategy`` is not a strategy instance.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.placement import place_boards
    >>> place_boards(ns.RandomPlacement(seed=0), 3, 9, 9, 10).shape
    (3, 9, 9)
    """
    check_strategy(strategy)
    shown = None
    if safe is not None:  # the strategy may read the mask, never change it
        shown = safe.view()
        shown.flags.writeable = False
    ours = type(strategy) in (RandomPlacement, FixedPlacement)
    told: dict[str, Any] = {}
    if getattr(strategy, "uses_click", False) is True:
        if clicks is not None:
            clicks = clicks.view()
            clicks.flags.writeable = False
        told["clicks"] = clicks
    parallel = workers > 1 and getattr(strategy, "uses_workers", False) is True
    if parallel:
        told["workers"] = workers
    batched = getattr(strategy, "place_batch", None)
    if told and getattr(type(strategy), "place_batch", None) is MinePlacementStrategy.place_batch:
        batched = None  # the default loop would not pass them on
    if n == 1 and not parallel:
        zone = None if shown is None else shown[0]
        if "clicks" in told:
            told = {"click": None if clicks is None else (int(clicks[0, 0]), int(clicks[0, 1]))}
        one = np.asarray(strategy.place(rows, cols, mines, safe=zone, **told))
        _check_layouts(strategy, one, (rows, cols), mines, zone)
        layouts = one[None]
    else:
        if callable(batched):
            layouts = np.asarray(batched(n, rows, cols, mines, safe=shown, **told))
        else:  # place only, or the default loop: one place call per board
            layouts = _place_each(strategy, n, rows, cols, mines, shown, told.get("clicks"))
            ours = True
        _check_layouts(strategy, layouts, (n, rows, cols), mines, safe)
    if not ours:
        # a strategy of the user's may hand out one buffer to every board
        return np.array(layouts, dtype=bool, order="C")
    return np.ascontiguousarray(layouts)
