"""Up-front argument checks shared by the public API."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

import numpy as np
from numpy.typing import NDArray

from ._constants import FLAG, PRESETS
from .errors import InvalidBoardError, OutOfBoundsError

FIRST_CLICK_RULES = (None, "safe", "opening")

T = TypeVar("T")

#: A board coordinate: a Python or numpy integer (bools are refused at run time).
Index: TypeAlias = "int | np.integer[Any]"


def count_text(n: int, noun: str) -> str:
    """``'1 mine'``, ``'2 mines'``, ``'250,000 mines'``: a count with its noun.

    Every repr, caption and message counts this way, thousands separated.
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def check_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, or raise TypeError naming it.

    Python and numpy integers pass; bools, floats, strings and None do not.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    return int(value)


def make_rng(seed: Any) -> np.random.Generator:
    """``numpy.random.default_rng(seed)``, with our errors for a bad seed.

    A seed of the wrong type raises TypeError, a bad value (a negative
    integer) InvalidBoardError; both name the seed and keep numpy's error as
    the cause.
    """
    return _seeded(np.random.default_rng, seed)


def make_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """``numpy.random.SeedSequence(seed)``, with the errors of :func:`make_rng`."""
    return _seeded(np.random.SeedSequence, seed)


def _seeded(make: Callable[[Any], T], seed: Any) -> T:
    kinds = "seed must be None, an integer >= 0 (or a sequence of them), a SeedSequence or "
    kinds += f"a Generator, got {seed!r}"
    if isinstance(seed, (bool, np.bool_)):  # numpy would take True as 1
        raise TypeError(kinds)
    try:
        return make(seed)
    except TypeError as exc:
        raise TypeError(kinds) from exc
    except ValueError as exc:
        raise InvalidBoardError(kinds) from exc


def check_visible(visible: Any, ndims: tuple[int, ...], shape: str) -> NDArray[np.int8]:
    """Visible cells of a game in progress as int8: counts 0..8, HIDDEN or FLAG.

    ``ndims`` are the numbers of dimensions allowed and ``shape`` describes
    them in the error.  A value out of range is named with its cell, before
    any cast (300 is not wrapped to 44); non-integers raise TypeError.
    """
    cells = np.asarray(visible)
    if cells.dtype == bool or not np.issubdtype(cells.dtype, np.integer):
        raise TypeError(f"visible must hold integers, got dtype {cells.dtype}")
    if cells.ndim not in ndims or 0 in cells.shape[-2:]:
        raise InvalidBoardError(f"visible must have shape {shape}, got {cells.shape}")
    if cells.size and (cells.min() < FLAG or cells.max() > 8):
        bad = tuple(int(v) for v in np.argwhere((cells < FLAG) | (cells > 8))[0])
        games = bad[:-2]  # the leading indices of a batch, if any
        where = f"({bad[-2]}, {bad[-1]})"
        if games:
            where += f" of game {games[0] if len(games) == 1 else games}"
        raise InvalidBoardError(
            f"visible cell {where} holds {int(cells[bad])}, not a count 0..8, HIDDEN or FLAG"
        )
    return cells.astype(np.int8, copy=False)


def check_coord(row: Any, col: Any, rows: int, cols: int) -> tuple[int, int]:
    """Validate a ``(row, col)`` click: integers, on the board, never wrapped."""
    r = check_int(row, "row")
    c = check_int(col, "col")
    if not 0 <= r < rows:
        raise OutOfBoundsError(f"row {r} is off the board (rows 0..{rows - 1})")
    if not 0 <= c < cols:
        raise OutOfBoundsError(f"col {c} is off the board (cols 0..{cols - 1})")
    return r, c


def check_dims(rows: Any, cols: Any, mines: Any) -> tuple[int, int, int]:
    """Validate board dimensions and a mine count: ``0 <= mines < rows * cols``.

    :func:`check_board` without a first-click rule, which keeps one cell safe.
    """
    r, c, m, _ = check_board(rows, cols, mines)
    return r, c, m


def first_click_rule(rule: Any) -> str | None:
    """A first-click rule as the library keeps it: None, 'safe' or 'opening'.

    ``'none'`` (the command line's spelling) means None.  An unknown rule
    raises InvalidBoardError, a non-string TypeError.
    """
    if rule is not None and not isinstance(rule, str):
        raise TypeError(f"first_click must be None ('none'), 'safe' or 'opening', got {rule!r}")
    if rule == "none":
        return None
    if rule not in FIRST_CLICK_RULES:
        raise InvalidBoardError(
            f"first_click must be None ('none'), 'safe' or 'opening', got {rule!r}"
        )
    return rule


def check_first_click(rule: Any) -> None:
    """Reject an unknown first-click rule; see :func:`first_click_rule`."""
    first_click_rule(rule)


def rule_text(rule: str | None) -> str:
    """A first-click rule as every command prints it: ``none``, ``safe`` or ``opening``."""
    return "none" if rule is None else rule


def first_click_area(rows: int, cols: int, rule: str | None) -> int:
    """The most cells a first-click rule may keep mine-free on this board."""
    if rule == "safe":
        return 1
    if rule == "opening":
        return min(rows, 3) * min(cols, 3)
    return 0


def check_board(
    rows: Any, cols: Any, mines: Any, first_click: Any = None
) -> tuple[int, int, int, str | None]:
    """Validate a board and its first-click rule; return them, the rule normalized.

    The mine count is checked against the true limit for the rule in one
    message: at least one safe cell, and the cells the rule keeps mine-free
    wherever the first click lands.
    """
    r = check_int(rows, "rows")
    c = check_int(cols, "cols")
    m = check_int(mines, "mines")
    if r < 1:
        raise InvalidBoardError(f"rows must be >= 1, got {r}")
    if c < 1:
        raise InvalidBoardError(f"cols must be >= 1, got {c}")
    rule = first_click_rule(first_click)
    keep = first_click_area(r, c, rule)
    most = r * c - max(keep, 1)
    if not 0 <= m <= most:
        board = f"a {r}x{c} board"
        if keep > 1:
            board += f" with first_click={rule!r}, which keeps {keep} cells mine-free"
        raise InvalidBoardError(f"mines must be in 0..{most} for {board}, got {m}")
    return r, c, m, rule


def check_first_click_fits(rows: int, cols: int, mines: int, rule: str | None) -> None:
    """Raise unless the rule can be honoured wherever the first click lands."""
    check_board(rows, cols, mines, rule)


def preset_dims(name: Any) -> tuple[int, int, int]:
    """``(rows, cols, mines)`` of a named preset; ValueError lists the valid names."""
    if not isinstance(name, str) or name not in PRESETS:
        raise InvalidBoardError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[name]


# -- command-line argument types (argparse) --------------------------------------


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (underscores allowed), else a one-line error."""
    value = _cli_integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0 (underscores allowed), else a one-line error."""
    value = _cli_integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _cli_integer(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None


def root_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """A fresh root :class:`~numpy.random.SeedSequence` for chunked work.

    Never the caller's own object, since spawning children mutates it: a
    SeedSequence is copied (same entropy, spawn key and children already
    spawned, so its next children are the ones the caller would get), a Generator gives
    one draw of entropy, anything else goes to ``SeedSequence(seed)``.
    """
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(
            seed.entropy,
            spawn_key=seed.spawn_key,
            pool_size=seed.pool_size,
            n_children_spawned=seed.n_children_spawned,
        )
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(0, 2**63)))
    return make_seed_sequence(seed)
