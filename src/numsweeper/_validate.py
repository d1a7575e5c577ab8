"""Up-front argument checks shared by the public API."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import lzma
import math
import os
import stat
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

import numpy as np
from numpy.typing import NDArray

from ._constants import FLAG, PRESETS
from .errors import InvalidBoardError, InvalidGameFileError, InvalidTypeError, OutOfBoundsError

FIRST_CLICK_RULES = (None, "safe", "opening")

#: What a damaged .npz (a saved game, a positions file) can make zipfile and
#: numpy raise: unsupported zip versions, compression methods or flag bits
#: (NotImplementedError), an encrypted member (RuntimeError), bad compressed
#: data, bad .npy headers.
NPZ_ERRORS = (
    ValueError,
    OSError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    struct.error,
    NotImplementedError,
    RuntimeError,
    TypeError,
    SyntaxError,
    KeyError,
    tokenize.TokenError,  # numpy reads .npy headers with ast.literal_eval
    RecursionError,
)

T = TypeVar("T")

#: A board coordinate: a Python or numpy integer (bools are refused at run time).
Index: TypeAlias = "int | np.integer[Any]"


def count_text(n: int, noun: str) -> str:
    """``'1 mine'``, ``'2 mines'``, ``'250,000 mines'``: a count with its noun.

    Every repr, caption and message counts this way, thousands separated.
    """
    shown = f"{n:,}" if n.bit_length() <= 13_000 else short_repr(n)  # (Python's 4,300 digits)
    return f"{shown} {noun}" if n == 1 else f"{shown} {noun}s"


def check_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, or raise InvalidTypeError naming it.

    Python and numpy integers pass; bools, floats, strings and None do not.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidTypeError(f"{name} must be an integer, got {short_repr(value)}")
    return int(value)


def check_at_least(value: Any, name: str, low: int) -> int:
    """Return ``value`` as an int ``>= low``, or raise our error naming it.

    A wrong type raises InvalidTypeError (:func:`check_int`), a smaller
    number InvalidBoardError; an integer too long to print is named by its
    size.
    """
    number = check_int(value, name)
    if number < low:
        raise InvalidBoardError(f"{name} must be >= {low}, got {short_repr(number)}")
    return number


def make_rng(seed: Any) -> np.random.Generator:
    """``numpy.random.default_rng(seed)``, with our errors for a bad seed.

    A seed of the wrong type raises InvalidTypeError, a bad value (a negative
    integer) InvalidBoardError; both name the seed and keep numpy's error as
    the cause.
    """
    return _seeded(np.random.default_rng, seed)


def make_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """``numpy.random.SeedSequence(seed)``, with the errors of :func:`make_rng`."""
    return _seeded(np.random.SeedSequence, seed)


#: Integer seeds (and the integers of a seed sequence) are below ``2**SEED_BITS``:
#: a saved game writes its seed as JSON text, which Python limits to 4,300 digits.
SEED_BITS = 14_000


def _seeded(make: Callable[[Any], T], seed: Any) -> T:
    if isinstance(seed, (bool, np.bool_)):  # numpy would take True as 1
        raise InvalidTypeError(_bad_seed(seed))
    parts = seed if isinstance(seed, (list, tuple)) else [seed]
    if parts is seed and not all(
        isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in parts
    ):
        raise InvalidTypeError(_bad_seed(seed))  # (numpy takes [[3]] and [True])
    if any(isinstance(x, int) and x > 0 and x.bit_length() > SEED_BITS for x in parts):
        raise InvalidBoardError(
            f"integer seeds must be below 2**{SEED_BITS}, got {short_repr(seed)}"
        )
    try:
        return make(seed)
    except TypeError as exc:
        raise InvalidTypeError(_bad_seed(seed)) from exc
    except ValueError as exc:
        raise InvalidBoardError(_bad_seed(seed)) from exc


def _bad_seed(seed: Any) -> str:
    """The message for a bad seed, which names it (a long one cut short)."""
    return (
        "seed must be None, an integer >= 0 (or a sequence of them), a SeedSequence or "
        f"a Generator, got {short_repr(seed)}"
    )


def short_repr(value: Any, limit: int = 80, _depth: int = 0) -> str:
    """``repr(value)``, cut to about ``limit`` characters, for error messages.

    Never raises: a huge integer (past Python's 4,300-digit limit on
    converting integers to text) is described by its bit length, also
    inside a short list or tuple (two levels deep at most).
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 13_000:
        sign = "a negative" if value < 0 else "an"
        return f"{sign} integer of {value.bit_length():,} bits"
    try:
        text = repr(value)
    except Exception:  # (any object's repr may fail; the message must not)
        try:
            if type(value) not in (list, tuple) or len(value) > 8 or _depth >= 2:
                return f"a {type(value).__name__}"
            inside = ", ".join(short_repr(item, limit, _depth + 1) for item in value)
        except Exception:
            return f"a {type(value).__name__}"
        text = f"[{inside}]" if isinstance(value, list) else f"({inside})"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_array(
    value: Any, name: str, dtype: Any = None, kind: str = "a rectangular array"
) -> NDArray[Any]:
    """``np.asarray(value, dtype)``, or InvalidBoardError naming ``value``.

    numpy raises a bare ``ValueError`` for a ragged nested list (rows of
    different lengths), or for text it cannot convert to ``dtype``.
    """
    try:
        return np.asarray(value, dtype=dtype)
    except ValueError:
        raise InvalidBoardError(f"{name} must be {kind}, got {short_repr(value)}") from None


def check_mask(mask: Any, shape: tuple[int, ...], name: str) -> NDArray[np.bool_]:
    """``mask`` as a bool array of ``shape``, or our error naming what it is.

    Not of bools: InvalidTypeError; bools of another shape (or a ragged
    list): InvalidBoardError.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper._validate import check_mask
    >>> check_mask(np.zeros(3, dtype=int), (3,), "active")
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidTypeError: active must be a bool array of shape (3,), got int64 (3,)
    """
    array = as_array(mask, name)
    if array.dtype != bool or array.shape != shape:
        # a wrong dtype is a wrong type; a bool mask of another shape, a wrong value
        error = InvalidTypeError if array.dtype != bool else InvalidBoardError
        raise error(
            f"{name} must be a bool array of shape {shape}, got {array.dtype} {array.shape}"
        )
    return array


def check_visible(visible: Any, ndims: tuple[int, ...], shape: str) -> NDArray[np.int8]:
    """Visible cells of a game in progress as int8: counts 0..8, HIDDEN or FLAG.

    ``ndims`` are the numbers of dimensions allowed and ``shape`` describes
    them in the error.  A value out of range is named with its cell, before
    any cast (300 is not wrapped to 44); non-integers raise InvalidTypeError.
    """
    cells = as_array(visible, "visible")
    if cells.dtype == bool or not np.issubdtype(cells.dtype, np.integer):
        raise InvalidTypeError(f"visible must hold integers, got dtype {cells.dtype}")
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
        raise OutOfBoundsError(f"row {short_repr(r)} is off the board (rows 0..{rows - 1})")
    if not 0 <= c < cols:
        raise OutOfBoundsError(f"col {short_repr(c)} is off the board (cols 0..{cols - 1})")
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
    raises InvalidBoardError, a non-string InvalidTypeError.
    """
    if rule is not None and not isinstance(rule, str):
        raise InvalidTypeError(
            f"first_click must be None ('none'), 'safe' or 'opening', got {short_repr(rule)}"
        )
    if rule == "none":
        return None
    if rule not in FIRST_CLICK_RULES:
        raise InvalidBoardError(
            f"first_click must be None ('none'), 'safe' or 'opening', got {short_repr(rule)}"
        )
    return rule


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
    wherever the first click lands.  A board whose arrays (4 bytes per
    cell) would not fit in the memory the process may use is refused before anything
    is allocated.
    """
    r = check_int(rows, "rows")
    c = check_int(cols, "cols")
    m = check_int(mines, "mines")
    if r < 1:
        raise InvalidBoardError(f"rows must be >= 1, got {short_repr(r)}")
    if c < 1:
        raise InvalidBoardError(f"cols must be >= 1, got {short_repr(c)}")
    check_fits(1, r, c, 4, "board")
    rule = first_click_rule(first_click)
    keep = first_click_area(r, c, rule)
    most = r * c - max(keep, 1)
    if not 0 <= m <= most:
        board = f"a {r}x{c} board"
        if keep > 1:
            board += f" with first_click={rule!r}, which keeps {keep} cells mine-free"
        raise InvalidBoardError(f"mines must be in 0..{most} for {board}, got {short_repr(m)}")
    return r, c, m, rule


#: The most worker processes a run may ask for.
MAX_WORKERS = 1024


def check_workers(workers: Any) -> int:
    """``workers`` as an int in ``1..MAX_WORKERS``, or our error naming it."""
    n = check_at_least(workers, "workers", 1)
    if n > MAX_WORKERS:  # (multiprocessing fails deep inside on absurd counts)
        raise InvalidBoardError(f"workers must be at most {MAX_WORKERS:,}, got {short_repr(n)}")
    return n


#: Needs that :func:`check_memory` passes without asking: memory_bytes reads the
#: cgroup's files (about 20 us), which made Game.new, with three checks of a
#: few hundred bytes, 2.4 times slower.
_ALWAYS_FITS = 1 << 20


def check_memory(need: int, text: str, error: type[Exception] = InvalidBoardError) -> None:
    """Refuse work that needs ``need`` bytes, more than :func:`memory_bytes`.

    ``text`` says what needs them; the message goes on with the memory there
    is.  Checked before anything is allocated or decoded.  A need of up to
    1 MiB always passes.

    Examples
    --------
    >>> from numsweeper._validate import check_memory
    >>> check_memory(10**20, "a table")
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidBoardError: a table, more than the ... GB this process may use
    """
    if need <= _ALWAYS_FITS:  # (a process that has imported numpy holds more than that)
        return
    have = memory_bytes()
    if need > have:
        raise error(f"{text}, more than the {have / 1e9:.1f} GB this process may use")


def check_fits(n: int, rows: int, cols: int, per_cell: int, what: str) -> None:
    """Refuse ``n`` boards of ``per_cell`` bytes a cell that would not fit in memory.

    ``what`` names one of them (``'board'``, ``'game'``).  Checked before
    anything is allocated: numpy's bare ``MemoryError`` would come after a
    long wait, or not at all (the system may grant the pages and then kill
    the process).
    """
    # 'a 9x9 board needs', '1000 games of 9x9 need'
    subject = (
        f"a {dims_text(rows, cols)} {what} needs"
        if n == 1
        else f"{short_repr(n)} {what}s of {dims_text(rows, cols)} need"
    )
    check_memory(per_cell * n * rows * cols, f"{subject} {per_cell} bytes per cell")


def dims_text(rows: int, cols: int) -> str:
    """``'9x9'``; sizes too long to print whole are cut or named by their size."""
    a, b = (short_repr(n) for n in (rows, cols))
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        return f"{a}x{b}"
    return " x ".join(x if x.lstrip("-").isdigit() else f"({x})" for x in (a, b))


def check_path(path: Any, error: type[Exception]) -> str:
    """``path`` as a str: a str or an os.PathLike, naming no NUL character.

    A bytes path, a file descriptor or None raises InvalidTypeError (``open``
    would take a descriptor, and close the caller's), a NUL ``error``.

    Examples
    --------
    >>> from numsweeper._validate import check_path
    >>> check_path(3, ValueError)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidTypeError: a file's path must be a str or an os.PathLike, got 3
    """
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(name, str):
        raise InvalidTypeError(
            f"a file's path must be a str or an os.PathLike, got {short_repr(path)}"
        )
    if "\0" in name:
        raise error(f"{short_repr(name)} holds a NUL character, which no file name can")
    return name


def check_regular_file(path: Any, error: type[Exception]) -> int:
    """The size of a file about to be read; ``error`` names a device or a pipe.

    Checked before anything opens it: ``/dev/zero`` never ends, opening a
    pipe with no writer blocks forever, and pyarrow reads a folder as a
    dataset of every file under it.  A folder raises IsADirectoryError, a
    missing file OSError (an unreadable one when it is opened), as ``open``
    would; the path itself is checked first (:func:`check_path`).
    """
    name = check_path(path, error)
    info = os.stat(name)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{name!r} is not a regular file")
    return info.st_size


def parse_json(text: str | bytes, what: str, error: type[Exception]) -> Any:
    """``json.loads(text)``; bad text (bad UTF-8, or nested too deep) raises ``error``."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise error(f"{what} is not valid JSON: {exc}"[:300]) from None


#: Where control groups are mounted, and where this process's own are named.
CGROUP_ROOT = "/sys/fs/cgroup"
CGROUP_SELF = "/proc/self/cgroup"


def _cgroup_limit_files() -> list[str]:
    """The files that may hold this process's memory limit (cgroup v2 and v1).

    Its own group's and every enclosing group's, up to the root: a limit
    set on a container, a systemd slice or a scope above the process binds
    it too.  Only the root's where the process's groups are not named.
    """
    lines: list[str] = []
    with contextlib.suppress(OSError, UnicodeDecodeError), open(CGROUP_SELF) as file:
        lines = file.read().splitlines()
    found = []
    for line in lines or ["0::/", "0:memory:/"]:
        _, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if controllers == "":  # v2: one hierarchy
            base, name = CGROUP_ROOT, "memory.max"
        elif "memory" in controllers.split(","):  # v1: the memory controller's own
            base, name = os.path.join(CGROUP_ROOT, "memory"), "memory.limit_in_bytes"
        else:
            continue
        parts = [part for part in path.split("/") if part and part != ".."]
        for k in range(len(parts), -1, -1):
            found.append(os.path.join(base, *parts[:k], name))
    return found


def memory_bytes() -> int:
    """Bytes of memory this process may use (a large figure where nothing says).

    The least of the machine's physical memory, the process's soft limits
    on its address space and its data (``ulimit -v``, ``ulimit -d``) and
    the limits of its control groups (a container's, a systemd slice's:
    ``max``, or v1's figure near 2**63, means none).
    """
    limits = []
    with contextlib.suppress(ValueError, OSError, AttributeError):  # (a system that will not say)
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    try:
        import resource
    except ImportError:  # (Windows has no such limits)
        pass
    else:
        for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
            soft = resource.getrlimit(kind)[0]
            if soft != resource.RLIM_INFINITY:
                limits.append(soft)
    for path in _cgroup_limit_files():
        with contextlib.suppress(OSError, ValueError), open(path, "rb") as file:  # (or 'max')
            limits.append(int(file.read()))
    return int(min(limits, default=1 << 40))


def check_first_click_fits(rows: int, cols: int, mines: int, rule: str | None) -> None:
    """Raise unless the rule can be honoured wherever the first click lands."""
    check_board(rows, cols, mines, rule)


def preset_dims(name: Any) -> tuple[int, int, int]:
    """``(rows, cols, mines)`` of a named preset; InvalidBoardError lists the valid names.

    (A name that is not a string is an unknown name too: a ValueError, as
    it always was.)
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise InvalidBoardError(
            f"unknown preset {short_repr(name)}; choose one of {', '.join(PRESETS)}"
        )
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


#: The compression methods np.savez and np.savez_compressed write.
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
#: Most bytes one read of a zip member asks for: zipfile inflates a member
#: into a buffer as large as the read asks, whatever the member declares.
_ZIP_READ = 1 << 20
#: Most bytes a .npy member's magic and header may take (numpy writes a few
#: hundred; its own reader checks its limit only after reading them all).
_NPY_HEADER_MOST = 1 << 16


def check_zip_member(info: zipfile.ZipInfo) -> None:
    """Refuse an .npz member that numpy would not have written.

    An encrypted member, or one compressed with bzip2 or LZMA (which zipfile
    unpacks without bounding what one read returns), is refused with
    :class:`~numsweeper.errors.InvalidGameFileError`.

    Examples
    --------
    >>> import zipfile
    >>> from numsweeper._validate import check_zip_member
    >>> check_zip_member(zipfile.ZipInfo("a.npy"))  # stored: fine
    >>> info = zipfile.ZipInfo("a.npy")
    >>> info.compress_type = zipfile.ZIP_BZIP2
    >>> check_zip_member(info)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidGameFileError: member 'a.npy' is encrypted or compressed ...
    """
    if info.compress_type not in ZIP_METHODS or info.flag_bits & 1:
        raise InvalidGameFileError(
            f"member {info.filename!r} is encrypted or compressed with method "
            f"{info.compress_type}; numpy writes stored or deflated members"[:300]
        )


#: Most bytes an .npz's zip directory may take: ours list a few members, and
#: zipfile makes an object of every entry when it opens an archive.
_ZIP_DIRECTORY_MOST = 1 << 16


def open_npz(file: Any) -> tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]:
    """An .npz archive and its members by name (``.npy`` stripped).

    Its zip directory is checked before zipfile reads it: one of more than
    64 KB (a few megabytes of it list a hundred thousand entries) is refused, as
    is a name listed twice.  ``file`` is a seekable binary file.  Raises
    :class:`~numsweeper.errors.InvalidGameFileError` for those, and what
    zipfile raises for a file that is not a zip archive.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from numsweeper._validate import open_npz
    >>> buffer = io.BytesIO()
    >>> np.savez(buffer, a=np.zeros(3), b=np.ones(2))
    >>> archive, members = open_npz(buffer)
    >>> sorted(members)
    ['a', 'b']
    """
    end_record = getattr(zipfile, "_EndRecData", None)  # (zipfile's own finder)
    if end_record is not None:
        end = end_record(file)
        if end is not None and end[5] > _ZIP_DIRECTORY_MOST:  # (5: the directory's size)
            raise InvalidGameFileError(
                f"its zip directory takes {end[5]:,} bytes, more than {_ZIP_DIRECTORY_MOST:,}"
            )
    file.seek(0)
    archive = zipfile.ZipFile(file)
    members: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        key = info.filename.removesuffix(".npy")
        if key in members:
            archive.close()
            raise InvalidGameFileError(f"member {info.filename!r} is listed twice"[:300])
        members[key] = info
    return archive, members


def _read_upto(stream: Any, n: int) -> bytearray:
    """Up to ``n`` bytes of a zip member, ``_ZIP_READ`` at a time (fewer at its end).

    The buffer grows as the data arrives: what a member claims, and
    declares, costs nothing until it is really there.
    """
    data = bytearray()
    while len(data) < n:
        chunk = stream.read(min(_ZIP_READ, n - len(data)))
        if not chunk:
            break
        data += chunk
    return data


class _Header:
    """A zip member as numpy's header reader sees it: ``left`` bytes in all."""

    def __init__(self, stream: Any, left: int) -> None:
        self.stream, self.left = stream, left

    def read(self, n: int = -1) -> bytes:
        want = self.left + 1 if n is None or n < 0 else min(n, self.left + 1)
        data = _read_upto(self.stream, want)
        if len(data) > self.left:
            raise ValueError(f"a .npy header longer than {_NPY_HEADER_MOST:,} bytes")
        self.left -= len(data)
        return bytes(data)


def read_npy(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    most: int,
    dtype: Any = None,
    ndim: int | None = None,
) -> NDArray[Any]:
    """One array of an .npz archive, read in bounded memory, never unpickled.

    The member's header is read and checked before its data: its .npy
    version (1.0 or 2.0), its type and number of dimensions when ``dtype``
    and ``ndim`` are given (any type but Python objects otherwise), and its
    size, at most ``most`` bytes of data.  The data is then read a chunk at
    a time, so a crafted member can make this hold no more than ``most``
    bytes, however far it claims to unpack.

    Parameters
    ----------
    archive : zipfile.ZipFile
    info : zipfile.ZipInfo
        The member, one of ``archive``'s.
    most : int
        The most bytes of data the member may hold.
    dtype : numpy dtype, optional
        The type the member must hold (little-endian on disk), returned as
        the native one.
    ndim : int, optional
        The number of dimensions it must have (with ``dtype``).

    Returns
    -------
    ndarray
        A writable array.

    Raises
    ------
    InvalidGameFileError
        Naming the member, for every kind of bad member.

    Examples
    --------
    >>> import io, zipfile
    >>> import numpy as np
    >>> from numsweeper._validate import read_npy
    >>> buffer = io.BytesIO()
    >>> np.savez_compressed(buffer, a=np.arange(6).reshape(2, 3))
    >>> archive = zipfile.ZipFile(buffer)
    >>> read_npy(archive, archive.getinfo("a.npy"), 1000).tolist()
    [[0, 1, 2], [3, 4, 5]]
    >>> read_npy(archive, archive.getinfo("a.npy"), 40)
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidGameFileError: a.npy claims 6 items, more than 5
    """
    key = info.filename
    check_zip_member(info)
    try:
        with archive.open(info) as stream:
            head = _Header(stream, _NPY_HEADER_MOST)
            version = np.lib.format.read_magic(head)
            if version == (1, 0):
                shape, fortran, found = np.lib.format.read_array_header_1_0(head)
            elif version == (2, 0):
                shape, fortran, found = np.lib.format.read_array_header_2_0(head)
            else:
                raise InvalidGameFileError(f"{key} has .npy version {version}, expected 1.0 or 2.0")
            if dtype is not None and (
                found != np.dtype(dtype).newbyteorder("<") or len(shape) != ndim
            ):
                raise InvalidGameFileError(
                    f"{key} must be a {ndim}-D {np.dtype(dtype).name} array, got {found} {shape}"
                )
            if found.hasobject:
                raise InvalidGameFileError(
                    f"{key} holds {found}: Object arrays cannot be loaded, since that would "
                    "unpickle them"
                )
            if found.itemsize == 0 or found.shape != ():
                raise InvalidGameFileError(
                    f"{key} holds items of type {found}, which numpy never writes"
                )
            if len(shape) > 64 or any(type(n) is not int or n < 0 for n in shape):
                raise InvalidGameFileError(f"{key} has a bad shape: {short_repr(shape)}")
            count = math.prod(shape)
            size = count * found.itemsize
            if size > most:
                raise InvalidGameFileError(
                    f"{key} claims {count} items, more than {most // found.itemsize}"
                    if most >= found.itemsize
                    else f"{key} claims items of {found.itemsize:,} bytes, more than {most:,}"
                )
            # (zipfile never unpacks a member past the size it declares)
            if size > info.file_size - (_NPY_HEADER_MOST - head.left):
                raise InvalidGameFileError(
                    f"{key} claims {count} items, more than its {info.file_size:,} bytes can hold"
                )
            data = _read_upto(stream, size)
            if len(data) < size:
                raise InvalidGameFileError(
                    f"{key} holds {len(data)} bytes of data, expected {size}"
                )
            if stream.read(1):
                raise InvalidGameFileError(
                    f"{key} holds more than the {size} bytes of data expected"
                )
            array = np.frombuffer(data, dtype=found)
            array = array.reshape(shape[::-1]).T if fortran else array.reshape(shape)
            return array if dtype is None else array.astype(dtype, copy=False)
    except InvalidGameFileError:
        raise
    except MemoryError:
        raise InvalidGameFileError(f"{key} does not fit in memory") from None
    except (*NPZ_ERRORS, Warning) as exc:  # (a header numpy warns about, under -W error)
        raise InvalidGameFileError(f"{key} is damaged: {exc}"[:300]) from None
