"""Exception hierarchy of numsweeper.

Every error raised on purpose by the library derives from
:class:`MinesweeperError`.  Errors about bad values also derive from the
matching built-in (:class:`ValueError`, :class:`IndexError` or
:class:`TypeError`), so code that catches the built-ins keeps working.

Examples
--------
>>> import numsweeper as ns
>>> issubclass(ns.InvalidBoardError, ValueError)
True
>>> try:
...     ns.Board.create(3, 3, 9)
... except ns.MinesweeperError as exc:
...     print(type(exc).__name__)
InvalidBoardError
"""

from __future__ import annotations

__all__ = [
    "GameOverError",
    "GenerationError",
    "IdleWorkersWarning",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidGameFileError",
    "InvalidTypeError",
    "MinesweeperError",
    "OutOfBoundsError",
]


class MinesweeperError(Exception):
    """Base class of every error that numsweeper raises on purpose.

    Examples
    --------
    >>> import numsweeper as ns
    >>> issubclass(ns.GameOverError, ns.MinesweeperError)
    True
    """


class InvalidBoardError(MinesweeperError, ValueError):
    """A bad value: board dimensions, mine counts, layouts, seeds, visible states, settings.

    Examples
    --------
    >>> import numsweeper as ns
    >>> ns.Board.create(0, 5, 1)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidBoardError: rows must be >= 1, got 0
    """


class InvalidGameFileError(InvalidBoardError):
    """A saved game that cannot be loaded: damaged, of an unknown version, or inconsistent.

    Raised by :func:`~numsweeper.load_game`, :meth:`Game.from_dict
    <numsweeper.Game.from_dict>` and :func:`~numsweeper.datasets.load_positions`
    for every way a file or record can be bad
    (truncated data, wrong types, impossible sizes, moves that the rules
    refuse or that do not reproduce the recorded state); the message names
    what is wrong.  A file is data: nothing in it is ever run.

    Examples
    --------
    >>> import numsweeper as ns
    >>> issubclass(ns.InvalidGameFileError, ns.InvalidBoardError)
    True
    >>> ns.Game.from_dict({"format": "numsweeper-game", "version": 99})
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidGameFileError: unknown numsweeper-game version 99; ...
    """


class InvalidTypeError(MinesweeperError, TypeError):
    """An argument of the wrong type: a float for a coordinate, a wrong dtype, not a Game.

    It is also a :class:`TypeError`, which such mistakes raised before it
    existed; the message names the argument and the value given.

    Examples
    --------
    >>> import numsweeper as ns
    >>> issubclass(ns.InvalidTypeError, TypeError)
    True
    >>> ns.Game.new(3, 3, 1).reveal(1.0, 2)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidTypeError: row must be an integer, got 1.0
    """


class OutOfBoundsError(MinesweeperError, IndexError):
    """A coordinate that lies off the board (negative ones included).

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(3, 3, 1)
    >>> game.reveal(-1, 0)
    Traceback (most recent call last):
        ...
    numsweeper.errors.OutOfBoundsError: row -1 is off the board (rows 0..2)
    """


class IllegalMoveError(MinesweeperError, ValueError):
    """A move the rules forbid: revealing a flag, or flagging a revealed cell.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(3, 3, 1)
    >>> game.toggle_flag(0, 0)
    True
    >>> game.reveal(0, 0)
    Traceback (most recent call last):
        ...
    numsweeper.errors.IllegalMoveError: cannot reveal flagged cell (0, 0); unflag it first
    """


class GameOverError(MinesweeperError):
    """Any reveal, flag or chord once the game is WON or LOST.

    Examples
    --------
    >>> import numsweeper as ns
    >>> game = ns.Game.new(2, 2, 0)
    >>> game.reveal(0, 0).state
    <GameState.WON: 'won'>
    >>> game.toggle_flag(1, 1)
    Traceback (most recent call last):
        ...
    numsweeper.errors.GameOverError: cannot toggle_flag (1, 1): the game is already WON
    """


class GenerationError(MinesweeperError):
    """A board generator gave up: it found no acceptable layout in its budget.

    Raised by :class:`~numsweeper.NoGuessPlacement` when ``max_attempts``
    candidate layouts per board run out; the message names the attempts,
    the board and its density.  Nothing is returned in that case: never a
    board that breaks the generator's promise.

    Examples
    --------
    >>> import numsweeper as ns
    >>> strategy = ns.NoGuessPlacement(seed=0, max_attempts=50)
    >>> ns.Game.new(9, 9, 70, strategy=strategy, first_click="safe").reveal(4, 4)
    Traceback (most recent call last):
        ...
    numsweeper.errors.GenerationError: no no-guess layout in 50 attempts ...
    """


class IdleWorkersWarning(UserWarning):
    """A run started more worker processes than it has chunks of work.

    A worker plays one chunk at a time, so the extra workers sit idle.
    The chunk size is part of the seeding (the games depend on it as on
    the seed), so :func:`~numsweeper.simulate` does not change it for you:
    the warning names the one that would give every worker a share.

    Examples
    --------
    >>> import warnings
    >>> import numsweeper as ns
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ns.simulate(30, 9, 9, 10, seed=1, workers=2)
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    2 workers but 1 chunk of up to 2,000 games, so 1 worker will have nothing to do;
    chunk_size=15 would give each a share (the games depend on the chunk size, as on
    the seed)
    """
