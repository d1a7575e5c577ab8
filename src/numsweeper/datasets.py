"""Labelled positions for supervised learning: what a player saw, and what was true.

:func:`positions` plays games with a policy and keeps positions along the
way.  Each position comes with three arrays to train on directly: the
visible board, the **exact** mine probability of every hidden cell given
what is visible (from :func:`numsweeper.solver.analyze`), and the true
mines.  The probabilities are the best any model of the visible board can
do: a model trained on the true mines converges to them, and one trained on
the probabilities themselves gets there with less noise.

Sampling
--------
A position is the visible board when the policy chooses a reveal, from the
second reveal of a game on (before the first one every cell is hidden and,
under a first-click rule, the mines are not laid yet), while the game is in
progress.  ``sample`` decides which positions are kept:

``'game'`` (default)
    One position per game, uniformly at random among that game's positions
    (a reservoir of one), so positions are independent and each game counts
    once, long or short.  A game won or lost at its first reveal has no
    position and gives none.
``'move'``
    Every position of every game: many more positions per game played, but
    positions of one game are strongly correlated, and long games (mostly
    won ones) give more of them.

Class balance: mines are the minority class, though a larger share of the
hidden cells than of the board, since openings and reveals remove safe cells
first.  The policy moves the balance far more than the scheme does: the
random policy's games end within a few moves, while the solver's reach late
positions where many hidden cells are mines and many are certain.  The share
of mines among the hidden cells of the kept positions, and the share of
hidden cells whose probability is 0 or 1 (150 to 300 games per row, first
click ``'opening'``, seed 5):

============  ======  ================  ================
board         policy  'game': mines,    'move': mines,
                      certain           certain
============  ======  ================  ================
beginner      solver  0.38, 0.59        0.37, 0.56
beginner      random  0.26, 0.38        0.26, 0.41
intermediate  solver  0.33, 0.30        0.33, 0.31
intermediate  random  0.21, 0.15        0.21, 0.16
expert        solver  0.33, 0.20        0.37, 0.25
expert        random  0.22, 0.05        0.23, 0.05
============  ======  ================  ================

``'move'`` gives about 17, 80 and 190 positions per solver game on these
boards, but a game's positions share one layout and most of their cells:
count games, not positions, when judging how much a sample says.  Use the
``game`` array to weigh or split by game.

Reproducibility
---------------
Games are played in chunks of ``chunk_size`` games.  Chunk ``i`` is seeded
by child ``i`` of the root ``SeedSequence(seed)``, which it splits into the
seeds of its boards, its policy and its sampling; it plays with its own
fresh policy.  The positions therefore depend only on the arguments (and
``chunk_size``), and memory stays at one chunk of games besides the result.
:func:`iter_positions` yields the chunks one by one, to stream a dataset
larger than memory to files.

Examples
--------
>>> import numpy as np
>>> from numsweeper.datasets import positions
>>> data = positions(100, 9, 9, 10, seed=0)
>>> data.visible.shape, data.probabilities.dtype, data.mines.dtype
((100, 9, 9), dtype('float32'), dtype('bool'))
>>> hidden = data.visible < 0
>>> bool(np.isnan(data.probabilities[~hidden]).all())
True
>>> p = data.probabilities[hidden]
>>> bool(abs(p.mean() - data.mines[hidden].mean()) < 0.05)  # calibrated
True
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from . import FLAG, HIDDEN, BatchGame, RandomPolicy
from ._kernels import adjacent_counts_stack
from ._validate import (
    NPZ_ERRORS,
    check_at_least,
    check_board,
    check_regular_file,
    check_visible,
    first_click_rule,
    make_seed_sequence,
    memory_bytes,
    open_npz,
    parse_json,
    read_npy,
    root_seed_sequence,
    short_repr,
)
from .errors import InvalidBoardError, InvalidGameFileError, InvalidTypeError
from .solver import SolverPolicy, analyze

__all__ = ["SAMPLES", "Positions", "iter_positions", "load_positions", "positions"]

#: The sampling schemes of :func:`positions`.
SAMPLES: Final = ("game", "move")

#: Version of the ``.npz`` layout that :meth:`Positions.to_npz` writes.
FORMAT: Final = 1

# Chunks in a row without a position after which a run gives up: every game
# of such a board ends at its first reveal (no mines, or no safe cell left).
_EMPTY_CHUNKS = 100

_POLICIES: Final = ("solver", "random")

_ARRAYS: Final = ("visible", "probabilities", "mines", "game", "move", "exact")

# The settings that Positions.to_npz writes in the file's meta, besides its format.
_SETTINGS: Final = (
    "rows",
    "cols",
    "mine_count",
    "first_click",
    "policy",
    "sample",
    "seed",
    "chunk_size",
)

# The first bytes of a zip archive (numpy's .npz): a local file header, or
# the end record of an archive with no member.
_ZIP_MAGIC: Final = (b"PK\x03\x04", b"PK\x05\x06")
#: Most bytes of the settings (JSON, as a numpy string of 4 bytes a
#: character), as for a saved game's header: a real file's take well under
#: a kilobyte, and parsing a crafted list costs several times its text.
_META_MOST: Final = 1 << 24


@dataclass(frozen=True, eq=False)
class Positions:
    """Positions of played games, labelled with exact probabilities and the true mines.

    Attributes
    ----------
    visible : ndarray of int8, shape (n, rows, cols)
        What the player saw: counts ``0..8`` and :data:`~numsweeper.HIDDEN`
        (no flags: the policies only reveal).
    probabilities : ndarray of float32, shape (n, rows, cols)
        The exact probability that each hidden cell is a mine, given the
        visible board and the mine count, every consistent layout equally
        likely; NaN where revealed.
    mines : ndarray of bool, shape (n, rows, cols)
        The true mines.
    game : ndarray of int64, shape (n,)
        The game each position comes from (its index in the run).
    move : ndarray of int64, shape (n,)
        Reveals the game had made before the position (at least 1).
    exact : ndarray of bool, shape (n,)
        False where :func:`~numsweeper.solver.analyze` had to relax a
        component too large to count (see its ``max_states``); the
        probabilities of that position are then approximate.
    rows, cols, mine_count : int
        The board.
    first_click : {None, 'safe', 'opening'}
        The first-click rule of the games.
    policy : str
        Who played (a name, or a callable's name).
    sample : {'game', 'move'}
        Which positions were kept; see :mod:`numsweeper.datasets`.
    seed : int or tuple of int
        Entropy of the root ``SeedSequence``: with the same arguments and
        ``chunk_size`` it gives the same positions.  (A run given a
        SeedSequence with a spawn key, or children already spawned, is
        repeated by passing that SeedSequence again.)
    chunk_size : int
        Games per chunk.

    Examples
    --------
    >>> from numsweeper.datasets import positions
    >>> data = positions(5, 9, 9, 10, seed=1, sample="move")
    >>> len(data), data.game.tolist(), data.move.tolist()
    (5, [0, 0, 0, 0, 0], [1, 2, 3, 4, 5])
    """

    visible: NDArray[np.int8]
    probabilities: NDArray[np.float32]
    mines: NDArray[np.bool_]
    game: NDArray[np.int64]
    move: NDArray[np.int64]
    exact: NDArray[np.bool_]
    rows: int
    cols: int
    mine_count: int
    first_click: str | None
    policy: str
    sample: str
    seed: int | tuple[int, ...]
    chunk_size: int

    def __len__(self) -> int:
        return len(self.visible)

    def __repr__(self) -> str:
        return (
            f"<Positions: {len(self)} of {self.rows}x{self.cols}/{self.mine_count}, "
            f"policy={self.policy!r}, sample={self.sample!r}, seed={self.seed}>"
        )

    def to_npz(self, path: str | os.PathLike[str], *, compressed: bool = True) -> None:
        """Write the positions to an ``.npz`` file that loads without pickle.

        Parameters
        ----------
        path : str or path-like
            The file (overwritten); numpy adds ``.npz`` if it is missing.
        compressed : bool
            Deflate the arrays (visible boards and mines shrink several times).

        See Also
        --------
        load_positions : read it back.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> from numsweeper.datasets import load_positions, positions
        >>> data = positions(20, 9, 9, 10, seed=2)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "positions.npz"
        >>> data.to_npz(path)
        >>> back = load_positions(path)
        >>> bool((back.mines == data.mines).all()), back.seed, back.policy
        (True, 2, 'solver')
        """
        meta = {"format": FORMAT} | {key: getattr(self, key) for key in _SETTINGS}
        arrays = {name: getattr(self, name) for name in _ARRAYS}
        save = np.savez_compressed if compressed else np.savez
        save(path, meta=np.array(json.dumps(meta)), **arrays)


def load_positions(path: str | os.PathLike[str]) -> Positions:
    """Read positions written by :meth:`Positions.to_npz` (never unpickles).

    Every array and setting is checked: the arrays' types and shapes against
    each other and the board, the visible codes, the probabilities (NaN on
    the revealed cells, in ``0..1`` on the others), the mine count of every
    layout, and the type and range of every setting.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Positions

    Raises
    ------
    InvalidGameFileError
        For every kind of bad file, naming the file and what is wrong: not an
        ``.npz`` archive, damaged data, an unknown format, a missing or bad
        setting, arrays of the wrong type or shape, values out of range,
        arrays that would unpack past a quarter of the memory the process may use,
        settings past 16 MB, or an archive numpy would not write (a member
        listed twice or compressed other than stored or deflated, a zip
        directory past 64 KB).
    OSError
        If the file cannot be read (missing, a directory, no permission).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from numsweeper.datasets import load_positions, positions
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "positions.npz"
    >>> positions(3, 9, 9, 10, seed=0).to_npz(path)
    >>> load_positions(path)
    <Positions: 3 of 9x9/10, policy='solver', sample='game', seed=0>
    >>> _ = path.write_text("not an archive")
    >>> load_positions(path)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidGameFileError: '...positions.npz' is not an .npz archive
    """
    check_regular_file(path, InvalidGameFileError)
    where = repr(os.fspath(path))
    with open(path, "rb") as file:
        if file.read(4) not in _ZIP_MAGIC:
            raise InvalidGameFileError(f"{where} is not an .npz archive")
        file.seek(0)
        try:
            archive, members = open_npz(file)
        except (InvalidGameFileError, *NPZ_ERRORS) as exc:
            raise InvalidGameFileError(f"{where} is damaged: {exc}"[:300]) from None
        with archive:
            # Refuse at once what would unpack past a quarter of memory (a few
            # compressed megabytes can claim gigabytes); read_npy then holds
            # each member to what is left of it.
            left = limit = memory_bytes() // 4
            claimed = sum(info.file_size for info in members.values())
            if claimed > limit:
                raise InvalidGameFileError(
                    f"{where} unpacks to {claimed:,} bytes, more than a quarter of "
                    f"the memory this process may use ({limit:,})"
                )
            arrays: dict[str, Any] = {}
            for name in ("meta", *_ARRAYS):
                if name in members:
                    most = min(left, _META_MOST) if name == "meta" else left
                    try:
                        arrays[name] = read_npy(archive, members[name], most)
                    except InvalidGameFileError as exc:
                        raise InvalidGameFileError(f"{where}: {exc}"[:300]) from None
                    left -= arrays[name].nbytes
    missing = [name for name in ("meta", *_ARRAYS) if name not in arrays]
    if missing:
        raise InvalidGameFileError(f"{where} is not a positions file: no {missing[0]!r}")
    settings = _settings(arrays.pop("meta"), where)
    _check_arrays(arrays, settings, where)
    return Positions(**arrays, **settings)


def _settings(meta: NDArray[Any], where: str) -> dict[str, Any]:
    """The checked settings of a positions file, from its JSON ``meta``."""
    if meta.dtype.kind != "U" or meta.ndim != 0:
        raise InvalidGameFileError(
            f"{where}: meta must be a JSON text, got {meta.dtype} of shape {meta.shape}"
        )
    parsed = parse_json(str(meta), f"{where}: meta", InvalidGameFileError)
    found = parsed.get("format") if isinstance(parsed, dict) else None
    if type(found) is not int or found != FORMAT:
        raise InvalidGameFileError(f"{where} has an unknown format: {short_repr(parsed)}")
    missing = [key for key in _SETTINGS if key not in parsed]
    if missing:
        raise InvalidGameFileError(f"{where}: meta has no {missing[0]!r}")
    settings = {key: parsed[key] for key in _SETTINGS}

    def refuse(key: str, kind: str) -> InvalidGameFileError:
        return InvalidGameFileError(
            f"{where}: meta {key!r} must be {kind}, got {short_repr(settings[key])}"
        )

    try:
        board = check_board(
            settings["rows"], settings["cols"], settings["mine_count"], settings["first_click"]
        )
    except (InvalidBoardError, InvalidTypeError) as exc:
        raise InvalidGameFileError(f"{where}: bad board: {exc}"[:300]) from None
    if board[3] != settings["first_click"]:  # 'none' is the command line's spelling only
        raise refuse("first_click", "null, 'safe' or 'opening'")
    if not isinstance(settings["policy"], str):
        raise refuse("policy", "a string")
    if settings["sample"] not in SAMPLES:
        raise refuse("sample", f"one of {SAMPLES}")
    seed = settings["seed"]
    seed = tuple(seed) if isinstance(seed, list) else seed
    try:
        make_seed_sequence(seed)
    except (InvalidBoardError, InvalidTypeError):
        seed = None
    if seed is None:  # (None would be fresh entropy: nothing to replay)
        raise refuse("seed", "an integer >= 0 or a list of them")
    settings["seed"] = seed
    try:
        check_at_least(settings["chunk_size"], "chunk_size", 1)
    except (InvalidBoardError, InvalidTypeError):
        raise refuse("chunk_size", "an integer >= 1") from None
    return settings


def _check_arrays(arrays: dict[str, Any], settings: dict[str, Any], where: str) -> None:
    """Check the arrays of a positions file against each other and its settings."""
    visible = arrays["visible"]
    n = visible.shape[0] if visible.ndim else 0
    board = (n, settings["rows"], settings["cols"])
    expected = {
        "visible": (np.int8, board),
        "probabilities": (np.float32, board),
        "mines": (np.bool_, board),
        "game": (np.int64, (n,)),
        "move": (np.int64, (n,)),
        "exact": (np.bool_, (n,)),
    }
    for name, (dtype, shape) in expected.items():
        array = arrays[name]
        if array.dtype != dtype or array.shape != shape:
            raise InvalidGameFileError(
                f"{where}: {name} is {array.dtype} {array.shape}, "
                f"expected {np.dtype(dtype)} {shape}"
            )
    try:
        check_visible(visible, (3,), "(n, rows, cols)")
    except InvalidBoardError as exc:
        raise InvalidGameFileError(f"{where}: {exc}") from None
    p = arrays["probabilities"]
    wrong = (np.isnan(p) != (visible >= 0)) | (p < 0) | (p > 1)
    if wrong.any():
        i, r, c = (int(k) for k in np.argwhere(wrong)[0])
        raise InvalidGameFileError(
            f"{where}: probabilities[{i}, {r}, {c}] is {p[i, r, c]} where the cell shows "
            f"{int(visible[i, r, c])}; expected NaN on revealed cells, 0..1 on the others"
        )
    counts = arrays["mines"].sum(axis=(1, 2))
    if (counts != settings["mine_count"]).any():
        i = int(np.argmax(counts != settings["mine_count"]))
        raise InvalidGameFileError(
            f"{where}: position {i} has {int(counts[i])} mines, not {settings['mine_count']}"
        )
    _check_shown(visible, arrays["mines"], where)
    for name, low in (("game", 0), ("move", 1)):
        if n and arrays[name].min() < low:
            i = int(np.argmax(arrays[name] < low))
            raise InvalidGameFileError(
                f"{where}: {name}[{i}] is {int(arrays[name][i])}, below {low}"
            )


def _check_shown(visible: NDArray[np.int8], mines: NDArray[np.bool_], where: str) -> None:
    """Every position shows what its layout gives: no flag, no mine and the true count.

    The positions come from games in progress that only reveal, so each
    revealed cell is safe and shows the mines around it in ``mines`` (the
    labels): a file where they disagree would teach a model nonsense.
    Checked a block of positions at a time (a few bytes per cell of scratch).
    """
    n, rows, cols = visible.shape
    step = max(1, _CHECK_CELLS // max(rows * cols, 1))
    for start in range(0, n, step):
        shown = visible[start : start + step]
        laid = mines[start : start + step]
        revealed = shown >= 0
        around = adjacent_counts_stack(laid)
        wrong = (shown == FLAG) | (revealed & (laid | (shown != around)))
        if wrong.any():
            i, r, c = (int(k) for k in np.argwhere(wrong)[0])
            if shown[i, r, c] == FLAG:
                fault = "a flag, which games that only reveal never show"
            else:
                mine = "a mine" if laid[i, r, c] else f"{int(around[i, r, c])} mines around"
                fault = f"{int(shown[i, r, c])} where its layout has {mine}"
            raise InvalidGameFileError(
                f"{where}: position {start + i} shows {fault}, at ({r}, {c})"
            )


#: Cells of positions :func:`_check_shown` checks at a time.
_CHECK_CELLS = 1 << 22


Policy = Callable[[NDArray[np.int8], NDArray[np.int64], np.random.Generator], Any]


def positions(
    n: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    seed: Any = None,
    first_click: str | None = "opening",
    policy: str | Policy = "solver",
    sample: str = "game",
    chunk_size: int = 256,
) -> Positions:
    """Play games and keep ``n`` labelled positions along the way.

    Parameters
    ----------
    n : int
        Positions to keep, ``n >= 0``.
    rows, cols, mines : int
        The board, as for :meth:`Game.new <numsweeper.Game.new>`.
    seed : None, int, SeedSequence or Generator
        Root of all randomness (a SeedSequence is copied, never spawned
        from).  ``None`` draws fresh entropy, recorded in the result.
    first_click : {'opening', 'safe', None}
        The first-click rule of the games.
    policy : {'solver', 'random'} or callable
        Who plays: :class:`numsweeper.solver.SolverPolicy`,
        :class:`numsweeper.RandomPolicy`, or a callable following the
        :class:`numsweeper.Policy` protocol (every chunk plays with a deep
        copy of it, when it can be copied).
    sample : {'game', 'move'}
        Keep one position per game, or every position; see
        :mod:`numsweeper.datasets`.
    chunk_size : int
        Games per chunk, at least 1.

    Returns
    -------
    Positions
        The first ``n`` positions of the run, in the order of the games
        (and of the moves within a game).

    Raises
    ------
    InvalidBoardError
        For a bad board, too many mines for the rule, a negative seed, an
        unknown rule, policy or sample, a count out of range, a board whose
        games all end at their first reveal, or a policy that chooses a cell
        that is not hidden.
    InvalidTypeError
        For a count that is not an integer, a policy that is neither a name
        nor a callable, or a seed numpy cannot use.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.datasets import positions
    >>> data = positions(50, 16, 16, 40, seed=3, policy="random")
    >>> len(data), data.policy, data.sample
    (50, 'random', 'game')
    >>> again = positions(50, 16, 16, 40, seed=3, policy="random")
    >>> bool(np.array_equal(again.probabilities, data.probabilities, equal_nan=True))
    True
    """
    chunks = iter_positions(
        n,
        rows,
        cols,
        mines,
        seed=seed,
        first_click=first_click,
        policy=policy,
        sample=sample,
        chunk_size=chunk_size,
    )
    first = next(chunks)
    shape = (n, first.rows, first.cols)
    out: dict[str, NDArray[Any]] = {
        "visible": np.empty(shape, dtype=np.int8),
        "probabilities": np.empty(shape, dtype=np.float32),
        "mines": np.empty(shape, dtype=bool),
        "game": np.empty(n, dtype=np.int64),
        "move": np.empty(n, dtype=np.int64),
        "exact": np.empty(n, dtype=bool),
    }
    start = 0
    for chunk in (first, *chunks):
        stop = start + len(chunk)
        for name, array in out.items():
            array[start:stop] = getattr(chunk, name)
        start = stop
    return Positions(
        **out,
        rows=first.rows,
        cols=first.cols,
        mine_count=first.mine_count,
        first_click=first.first_click,
        policy=first.policy,
        sample=first.sample,
        seed=first.seed,
        chunk_size=first.chunk_size,
    )


def iter_positions(
    n: int,
    rows: int,
    cols: int,
    mines: int,
    *,
    seed: Any = None,
    first_click: str | None = "opening",
    policy: str | Policy = "solver",
    sample: str = "game",
    chunk_size: int = 256,
) -> Iterator[Positions]:
    """Stream the positions of :func:`positions`, one chunk of games at a time.

    Takes the arguments of :func:`positions` and yields the positions of
    each chunk of ``chunk_size`` games (the last one cut so that they add up
    to ``n``), so that a dataset larger than memory can be written chunk by
    chunk.  With ``n == 0`` it yields one empty chunk, which carries the
    run's settings.  All arguments are checked when it is called.

    Yields
    ------
    Positions

    Examples
    --------
    Without a first-click rule some games are lost at their first reveal and
    give no position, so chunks of 100 games give fewer than 100:

    >>> from numsweeper.datasets import iter_positions, positions
    >>> chunks = list(iter_positions(300, 9, 9, 10, seed=4, chunk_size=100, first_click=None))
    >>> [len(c) for c in chunks], chunks[3].game[:3].tolist()
    ([89, 89, 90, 32], [302, 303, 305])
    >>> whole = positions(300, 9, 9, 10, seed=4, chunk_size=100, first_click=None)
    >>> bool((whole.visible[89:178] == chunks[1].visible).all())
    True
    """
    n = check_at_least(n, "n", 0)
    chunk_size = check_at_least(chunk_size, "chunk_size", 1)
    BatchGame.new(0, rows, cols, mines, first_click=first_click)  # the engine's checks
    first_click = first_click_rule(first_click)  # ('none', the command line's spelling: None)
    rows, cols, mines = int(rows), int(cols), int(mines)
    if not isinstance(sample, str) or sample not in SAMPLES:
        raise InvalidBoardError(f"sample must be one of {SAMPLES}, got {short_repr(sample)}")
    if isinstance(policy, str):
        if policy not in _POLICIES:
            raise InvalidBoardError(
                f"unknown policy {short_repr(policy)}; choose one of {', '.join(_POLICIES)}"
            )
        name = policy
    elif callable(policy):
        name = str(getattr(policy, "__name__", type(policy).__name__))
    else:
        raise InvalidTypeError(f"policy must be a name or a callable, got {short_repr(policy)}")
    root = root_seed_sequence(seed)
    entropy = root.entropy
    assert entropy is not None  # SeedSequence draws fresh entropy for None
    settings = {
        "rows": rows,
        "cols": cols,
        "mine_count": mines,
        "first_click": first_click,
        "policy": name,
        "sample": sample,
        "seed": (
            int(entropy)
            if isinstance(entropy, (int, np.integer))
            else tuple(int(v) for v in entropy)
        ),
        "chunk_size": chunk_size,
    }
    return _chunks(n, root, policy, settings)


def _chunks(
    n: int, root: np.random.SeedSequence, policy: str | Policy, settings: dict[str, Any]
) -> Iterator[Positions]:
    rows, cols, mines = settings["rows"], settings["cols"], settings["mine_count"]
    if n == 0:
        yield _labelled([], np.zeros((0, rows, cols), dtype=bool), [], [], 0, settings)
        return
    left, chunk, empty = n, 0, 0
    while left:
        (child,) = root.spawn(1)
        played = _play(child, policy, settings)
        first_game = chunk * settings["chunk_size"]
        found = _labelled(*played, first_game=first_game, settings=settings, limit=left)
        empty = 0 if len(found) else empty + 1
        if empty == _EMPTY_CHUNKS:
            raise InvalidBoardError(
                f"no position in {_EMPTY_CHUNKS * settings['chunk_size']} games: every game "
                f"of {rows}x{cols} with {mines} mines ends at its first reveal"
            )
        if len(found):
            left -= len(found)
            yield found
        chunk += 1


def _play(
    seed: np.random.SeedSequence, policy: str | Policy, settings: dict[str, Any]
) -> tuple[
    list[NDArray[np.int8]], NDArray[np.bool_], list[NDArray[np.int64]], list[NDArray[np.int64]]
]:
    """Play one chunk of games: its kept positions, the layouts, and the game
    (in the chunk) and move of each position."""
    size, rows, cols = settings["chunk_size"], settings["rows"], settings["cols"]
    board_seed, policy_seed, sample_seed = seed.spawn(3)
    player = _player(policy, settings["first_click"])
    rng = np.random.default_rng(policy_seed)
    pick = np.random.default_rng(sample_seed)
    games = BatchGame.new(
        size,
        rows,
        cols,
        settings["mine_count"],
        seed=board_seed,
        first_click=settings["first_click"],
    )
    every = settings["sample"] == "move"
    kept: list[NDArray[np.int8]] = []
    kept_games: list[NDArray[np.int64]] = []
    kept_moves: list[NDArray[np.int64]] = []
    # 'game': a reservoir of one position per game
    reservoir = np.zeros((size if not every else 0, rows, cols), dtype=np.int8)
    seen = np.zeros(size, dtype=np.int64)
    chosen = np.zeros(size, dtype=np.int64)
    r = np.zeros(size, dtype=np.intp)
    c = np.zeros(size, dtype=np.intp)
    while True:
        moving = games.in_progress
        live = np.flatnonzero(moving)
        if not live.size:
            break
        visible = games.visible_of(live)
        moves = games.clicks[live]
        started = moves > 0
        g, v = live[started], visible[started]
        if every:
            kept.append(v)
            kept_games.append(g)
            kept_moves.append(moves[started])
        else:
            seen[g] += 1
            take = pick.random(g.size) * seen[g] < 1
            reservoir[g[take]] = v[take]
            chosen[g[take]] = moves[started][take]
        cells = np.asarray(player(visible, games.mines_left[live], rng))
        _check_cells(cells, visible, settings["policy"])
        r[live], c[live] = cells[:, 0], cells[:, 1]
        games.reveal(r, c, active=moving)
    layouts = np.asarray(games.mines)
    if every:
        return kept, layouts, kept_games, kept_moves
    have = np.flatnonzero(seen)
    return [reservoir[have]], layouts, [have], [chosen[have]]


def _labelled(
    visible: list[NDArray[np.int8]],
    layouts: NDArray[np.bool_],
    games: list[NDArray[np.int64]],
    moves: list[NDArray[np.int64]],
    first_game: int,
    settings: dict[str, Any],
    limit: int | None = None,
) -> Positions:
    """The first ``limit`` positions in the order of games and moves, with
    their probabilities (the others are never analysed).

    ``games`` index ``layouts``; the run numbers them from ``first_game``.
    """
    rows, cols = settings["rows"], settings["cols"]
    cells = np.concatenate(visible) if visible else np.zeros((0, rows, cols), dtype=np.int8)
    game = np.concatenate(games).astype(np.int64) if games else np.zeros(0, dtype=np.int64)
    move = np.concatenate(moves).astype(np.int64) if moves else np.zeros(0, dtype=np.int64)
    order = np.lexsort((move, game))[:limit]
    cells, game, move = cells[order], game[order], move[order]
    probabilities = np.empty(cells.shape, dtype=np.float32)
    exact = np.empty(len(cells), dtype=bool)
    for i, board in enumerate(cells):
        analysis = analyze(board, settings["mine_count"])
        probabilities[i] = analysis.probabilities
        exact[i] = analysis.exact
    return Positions(
        visible=cells,
        probabilities=probabilities,
        mines=layouts[game],
        game=game + first_game,
        move=move,
        exact=exact,
        **settings,
    )


def _player(policy: str | Policy, first_click: str | None) -> Policy:
    """A fresh policy for one chunk."""
    if policy == "solver":
        return SolverPolicy(first_click=first_click)
    if policy == "random":
        return RandomPolicy()
    assert callable(policy)
    try:
        return copy.deepcopy(policy)
    except (TypeError, copy.Error):
        return policy  # not copyable: shared, as the caller passed it


def _check_cells(cells: NDArray[Any], visible: NDArray[np.int8], name: str) -> None:
    """A policy must name a hidden, unflagged cell of every game."""
    k, rows, cols = visible.shape
    if cells.shape != (k, 2) or cells.dtype == bool or not np.issubdtype(cells.dtype, np.integer):
        raise InvalidBoardError(
            f"policy {name!r} must return an int array of shape ({k}, 2), "
            f"got {cells.dtype} {cells.shape}"
        )
    r, c = cells[:, 0], cells[:, 1]
    off = (r < 0) | (r >= rows) | (c < 0) | (c >= cols)
    bad = off.copy()
    bad[~off] = visible[np.flatnonzero(~off), r[~off], c[~off]] != HIDDEN
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidBoardError(
            f"policy {name!r} chose ({int(r[i])}, {int(c[i])}), "
            "which is not a hidden cell of its game"
        )
