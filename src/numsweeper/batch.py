"""Many boards at once: ``(n, rows, cols)`` arrays built by the shared kernels.

:func:`generate_boards` draws a whole batch in memory; :func:`iter_boards`
streams any number of boards in fixed chunks, each from its own child
:class:`numpy.random.SeedSequence`, so that memory stays bounded and chunks
can be handed to different workers without changing a single board.

Sizes: a board costs 2 bytes per cell (bool mines plus int8 counts), so an
expert board (16 x 30) takes 960 bytes and a million of them about 1 GB.
Past a few hundred thousand boards, stream them with :func:`iter_boards` and
reduce each chunk (for example with :func:`numsweeper.metrics.board_stats`)
instead of holding the whole batch.

Examples
--------
>>> import numsweeper as ns
>>> total = 0
>>> for chunk in ns.iter_boards(25_000, 16, 30, 99, seed=1, chunk_size=10_000):
...     total += int(ns.metrics.three_bv(chunk).sum())
>>> len(chunk), total // 25_000
(5000, 173)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._kernels import adjacent_counts_stack
from ._validate import (
    as_array,
    check_at_least,
    check_board,
    check_dims,
    check_fits,
    check_int,
    check_workers,
    count_text,
    root_seed_sequence,
    short_repr,
)
from .board import Board
from .errors import InvalidBoardError, InvalidTypeError, OutOfBoundsError
from .placement import (
    MinePlacementStrategy,
    RandomPlacement,
    check_strategy,
    place_at_clicks,
    reseeded,
)

__all__ = ["DEFAULT_CHUNK_SIZE", "BoardBatch", "generate_boards", "iter_boards"]

#: Boards per chunk of :func:`iter_boards` unless told otherwise.
DEFAULT_CHUNK_SIZE = 10_000

# Cells counted per step: small enough to stay in cache; not part of the
# seeded output.
_COUNT_CELLS = 1 << 19


@dataclass(frozen=True, eq=False)
class BoardBatch:
    """``n`` boards of one size and mine count, as stacked arrays.

    Attributes
    ----------
    mines : ndarray of bool, shape (n, rows, cols), read-only
        Mine layouts.
    counts : ndarray of int8, shape (n, rows, cols), read-only
        Adjacent-mine counts.

    Raises
    ------
    InvalidBoardError
        If ``mines`` is not a 3-D bool array, ``counts`` not int8 of its
        shape, a board is empty or has a mine count out of range, the
        boards' mine counts differ, or some counts do not match their
        mines.

    Examples
    --------
    >>> import numsweeper as ns
    >>> batch = ns.generate_boards(4, 9, 9, 10, seed=0)
    >>> len(batch), batch.mines.shape, batch.counts.dtype
    (4, (4, 9, 9), dtype('int8'))
    >>> batch.rows, batch.cols, batch.mine_count
    (9, 9, 10)
    >>> batch[2].mine_count
    10
    """

    mines: NDArray[np.bool_]
    counts: NDArray[np.int8]

    def __post_init__(self) -> None:
        mines, counts = np.asarray(self.mines), np.asarray(self.counts)
        if mines.dtype != bool or mines.ndim != 3:
            raise InvalidBoardError(
                f"mines must be a 3-D bool array, got {mines.dtype} {mines.shape}"
            )
        if counts.dtype != np.int8 or counts.shape != mines.shape:
            raise InvalidBoardError(
                f"counts must be int8 of shape {mines.shape}, got {counts.dtype} {counts.shape}"
            )
        per_board = np.count_nonzero(mines, axis=(1, 2))
        if len(per_board):
            check_dims(mines.shape[1], mines.shape[2], int(per_board[0]))
            if (per_board != per_board[0]).any():
                i = int(np.argmax(per_board != per_board[0]))
                raise InvalidBoardError(
                    f"every board needs the same mine count: board 0 has {int(per_board[0])}, "
                    f"board {i} has {int(per_board[i])}"
                )
        wrong = (counts != adjacent_counts_stack(mines)).any(axis=(1, 2))
        if wrong.any():
            raise InvalidBoardError(
                f"counts of board {int(np.argmax(wrong))} do not match its mines"
            )
        self._freeze(mines.copy(), counts.copy())

    def _freeze(self, mines: NDArray[np.bool_], counts: NDArray[np.int8]) -> None:
        for array in (mines, counts):
            array.flags.writeable = False
        object.__setattr__(self, "mines", mines)
        object.__setattr__(self, "counts", counts)

    @classmethod
    def _trusted(cls, mines: NDArray[np.bool_], counts: NDArray[np.int8]) -> BoardBatch:
        """Wrap arrays this package just built, skipping the checks and copies."""
        batch = cls.__new__(cls)
        batch._freeze(mines, counts)
        return batch

    def __len__(self) -> int:
        """Number of boards, ``n``.

        Examples
        --------
        >>> import numsweeper as ns
        >>> len(ns.generate_boards(3, 9, 9, 10, seed=0))
        3
        """
        return int(self.mines.shape[0])

    @property
    def rows(self) -> int:
        """Rows of each board (int)."""
        return int(self.mines.shape[1])

    @property
    def cols(self) -> int:
        """Columns of each board (int)."""
        return int(self.mines.shape[2])

    @property
    def mine_count(self) -> int:
        """Mines on each board (int; 0 for an empty batch)."""
        return int(np.count_nonzero(self.mines[0])) if len(self) else 0

    def __getitem__(self, index: int) -> Board:
        """Board ``index``, ready to play (a fresh copy of its arrays).

        Parameters
        ----------
        index : int
            Position in the batch; negative counts from the end.

        Returns
        -------
        Board
            A new board with this layout, nothing revealed; changing it
            leaves the batch as it was.

        Raises
        ------
        OutOfBoundsError
            If ``index`` is not in ``-n..n-1``.
        InvalidTypeError
            If ``index`` is not an integer (slices included).

        Examples
        --------
        >>> import numsweeper as ns
        >>> batch = ns.generate_boards(2, 3, 3, 1, seed=0)
        >>> board = batch[-1]
        >>> bool((board.mines == batch.mines[1]).all()), bool(board.revealed.any())
        (True, False)
        """
        i = check_int(index, "index")
        if not -len(self) <= i < len(self):
            raise OutOfBoundsError(f"board index {i} out of range for a batch of {len(self)}")
        return Board._from_arrays(self.mines[i], self.counts[i])

    def _repr_html_(self) -> str:
        from .render import boards_html

        return boards_html(self.mines, self.counts)

    def __repr__(self) -> str:
        return (
            f"<BoardBatch of {count_text(len(self), 'board')} {self.rows}x{self.cols}, "
            f"{count_text(self.mine_count, 'mine')}>"
        )


def _clicks(click: ArrayLike, n: int, rows: int, cols: int) -> NDArray[np.intp]:
    """Validate first clicks: one ``(row, col)`` for all boards, or ``(n, 2)``."""
    array = as_array(click, "click")
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise InvalidTypeError(f"click must hold integers, got {short_repr(click)}")
    if array.shape == (2,):
        array = np.broadcast_to(array, (n, 2))
    if array.shape != (n, 2):
        raise InvalidBoardError(f"click must have shape (2,) or ({n}, 2), got {array.shape}")
    off = (array[:, 0] < 0) | (array[:, 0] >= rows) | (array[:, 1] < 0) | (array[:, 1] >= cols)
    if off.any():
        i = int(np.argmax(off))
        raise OutOfBoundsError(
            f"click {tuple(int(v) for v in array[i])} for board {i} is off the {rows}x{cols} board"
        )
    return array.astype(np.intp)


def _check(
    n: Any,
    rows: Any,
    cols: Any,
    mines: Any,
    first_click: Any,
    click: ArrayLike | None,
) -> tuple[int, int, int, int, NDArray[np.intp] | None]:
    """Validate the arguments shared by generate_boards and iter_boards."""
    n = check_at_least(n, "n", 0)
    rows, cols, mines, first_click = check_board(rows, cols, mines, first_click)
    if first_click is None:
        if click is not None:
            raise InvalidTypeError(
                f"click={short_repr(click)} needs a first_click rule ('safe' or 'opening')"
            )
        return n, rows, cols, mines, None
    if click is None:
        raise InvalidTypeError(f"first_click={first_click!r} needs click=(row, col)")
    return n, rows, cols, mines, _clicks(click, n, rows, cols)


def _strategy(strategy: Any, seed: Any) -> MinePlacementStrategy:
    """The strategy to lay mines with: ``strategy``, or ``RandomPlacement(seed)``."""
    if strategy is None:
        return RandomPlacement(seed)
    if seed is not None:
        raise InvalidTypeError("give strategy or seed, not both")
    check_strategy(strategy)
    return strategy  # type: ignore[no-any-return]


def generate_boards(
    n: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    seed: Any = None,
    strategy: MinePlacementStrategy | None = None,
    first_click: str | None = None,
    click: ArrayLike | None = None,
    workers: int = 1,
) -> BoardBatch:
    """Generate ``n`` boards with exactly ``mines`` mines each, uniformly random by default.

    Parameters
    ----------
    n : int
        Number of boards, ``n >= 0``.
    rows, cols, mines : int
        Size and mine count of every board, as for :meth:`Board.create`.
    seed : None, int, SeedSequence or Generator, optional
        Seed of the default strategy, ``RandomPlacement(seed)``: the same
        seed gives the same batch on any machine, and
        ``generate_boards(1, ..., seed=s)`` lays the board that
        ``Game.new(..., seed=s)`` lays.
    strategy : MinePlacementStrategy, optional
        Where the mines go, through its batched
        :meth:`~numsweeper.MinePlacementStrategy.place_batch`; give
        ``strategy`` or ``seed``, not both.
    first_click : {None, 'safe', 'opening'}
        Keep the first click (and, for ``'opening'``, its neighbours)
        mine-free.  Each board is uniform over the layouts that honour it.
    click : array_like of int, shape (2,) or (n, 2)
        The first click, required with a rule and refused without one: one
        ``(row, col)`` for every board, or one per board.  A strategy with
        ``uses_click = True`` (:class:`~numsweeper.NoGuessPlacement`) is
        told the clicks.
    workers : int
        Worker processes for a strategy that opts in to parallel generation
        (``uses_workers = True``, as :class:`~numsweeper.NoGuessPlacement`
        does); the boards are the same for any number.  Other strategies,
        the default uniform one included, lay every board in this process
        and ignore it: their boards cost microseconds each.

    Returns
    -------
    BoardBatch
        Mines and counts of every board.

    Raises
    ------
    InvalidBoardError
        For bad dimensions or mine counts, a negative ``n`` or ``seed``, too
        many mines for the rule, a ``click`` of the wrong shape, or a
        strategy that cannot honour the request.
    GenerationError
        If the strategy gives up (a :class:`~numsweeper.NoGuessPlacement`
        out of attempts).
    OutOfBoundsError
        If a click is off the board.
    ValueError
        For an unknown ``first_click``, or ``workers`` below 1.
    TypeError
        If a size or ``workers`` is not an integer, ``click`` is missing or not wanted,
        both ``seed`` and ``strategy`` are given, ``strategy`` is not a
        strategy, or ``seed`` is of a kind numpy cannot seed from.

    Notes
    -----
    The whole batch lives in memory (2 bytes per cell, plus one for the
    first-click masks) and the default sampler builds it a few million cells
    at a time, with no Python loop per board.  For more boards than fit in
    memory, use :func:`iter_boards`.

    Examples
    --------
    >>> import numsweeper as ns
    >>> batch = ns.generate_boards(3, 16, 30, 99, seed=1, first_click="opening", click=(3, 3))
    >>> batch.mines.sum(axis=(1, 2))
    array([99, 99, 99])
    >>> bool(batch.counts[:, 3, 3].any()), bool(batch.mines[:, 2:5, 2:5].any())
    (False, False)
    """
    n, rows, cols, mines, clicks = _check(n, rows, cols, mines, first_click, click)
    check_fits(n, rows, cols, 2, "board")  # (mines and counts; iter_boards streams them)
    workers = check_workers(workers)
    strategy = _strategy(strategy, seed)
    layout = place_at_clicks(strategy, n, rows, cols, mines, first_click, clicks, workers=workers)
    counts = np.empty((n, rows, cols), dtype=np.int8)
    size = rows * cols
    count_step = max(1, _COUNT_CELLS // size)
    for start in range(0, n, count_step):
        stop = min(start + count_step, n)
        adjacent_counts_stack(layout[start:stop], out=counts[start:stop])
    return BoardBatch._trusted(layout, counts)


def iter_boards(
    n: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    seed: Any = None,
    strategy: MinePlacementStrategy | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    first_click: str | None = None,
    click: ArrayLike | None = None,
) -> Iterator[BoardBatch]:
    """Stream ``n`` random boards as :class:`BoardBatch` chunks, in bounded memory.

    Chunk ``i`` holds boards ``i * chunk_size`` up to the next chunk (the
    last one may be shorter) and is ``generate_boards(..., seed=child_i)``,
    where ``child_i`` is child ``i`` of the root ``SeedSequence(seed)``.  A
    chunk therefore does not depend on any other: workers may build chunks
    in any order and get the same boards.  The boards do depend on
    ``chunk_size``, so keep it fixed to reproduce a run.

    Parameters
    ----------
    n, rows, cols, mines : int
        As for :func:`generate_boards`.
    seed : None, int, SeedSequence or Generator, optional
        Root of the chunk seeds.  A SeedSequence is copied, never spawned
        from, so passing the same one twice gives the same boards.
    strategy : MinePlacementStrategy, optional
        Where the mines go (uniformly random by default).  Chunk ``i`` lays
        its boards with ``strategy.with_seed(child_i)``, so ``seed`` still
        seeds every chunk.
    chunk_size : int
        Boards per chunk, at least 1.
    first_click, click
        As for :func:`generate_boards`; ``click`` may hold one pair for every
        board or an ``(n, 2)`` array.

    Yields
    ------
    BoardBatch
        ``ceil(n / chunk_size)`` chunks.

    Raises
    ------
    InvalidBoardError, OutOfBoundsError, ValueError, TypeError
        As for :func:`generate_boards`, or for a ``chunk_size`` below 1.  All
        arguments are checked when the iterator is created.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> chunks = list(ns.iter_boards(5, 9, 9, 10, seed=3, chunk_size=2))
    >>> [len(c) for c in chunks]
    [2, 2, 1]
    >>> child = np.random.SeedSequence(3).spawn(3)[2]
    >>> bool((chunks[2].mines == ns.generate_boards(1, 9, 9, 10, seed=child).mines).all())
    True
    """
    n, rows, cols, mines, clicks = _check(n, rows, cols, mines, first_click, click)
    chunk_size = check_at_least(chunk_size, "chunk_size", 1)
    if strategy is not None:
        check_strategy(strategy)
    root = root_seed_sequence(seed)

    def chunks() -> Iterator[BoardBatch]:
        for start in range(0, n, chunk_size):
            stop = min(start + chunk_size, n)
            (child,) = root.spawn(1)
            at = None if clicks is None else clicks[start:stop]
            yield generate_boards(
                stop - start,
                rows,
                cols,
                mines,
                seed=child if strategy is None else None,
                strategy=None if strategy is None else reseeded(strategy, child),
                first_click=first_click,
                click=at,
            )

    return chunks()
