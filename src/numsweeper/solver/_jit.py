"""The solver's compiled kernels: numba, with an on-disk cache and a notice.

Every hot routine of the solver is written once, as a numba kernel beside
the Python code that calls it.  :func:`kernel` compiles one when its module
is imported, for the argument types it names, and numba keeps the machine
code in its on-disk cache, so the compile happens once per install (about a
minute for all of them) and later processes load the kernels in a fraction
of a second.  While a kernel compiles, a line on stderr says so.

The cache is keyed on all of the package's sources.  numba checks a cached
kernel only against its own module's source, but our kernels inline or
call helpers from other modules (probe.py's call counting.py's, endgame.py
inlines structure.py's): an edit of counting.py alone would leave the old
machine code in probe.py's kernels.  So :func:`kernel`, :func:`helper` and
:func:`subroutine` point numba's cache (its documented ``CACHE_DIR``
setting, which numba reads when a cached function is decorated) at a
directory named by a hash of every ``.py`` file of the package, for just
the time they decorate, then restore it; other libraries' caches stay
where they were.  The directory is ``numsweeper/__pycache__/kernels-<hash>``,
or, in a read-only install, ``<pkg>-<path hash>-kernels-<hash>`` in numba's
user-wide cache directory, or in the user's own ``NUMBA_CACHE_DIR`` if
they set one.  Any edit of the package (any module: the safe side) thus
recompiles every kernel once, and the directories of other hashes are
removed, best effort (a process still running older code that compiles
later makes its directory again).  Hashing the sources, about a megabyte
in 50 files, takes about 1.5 ms when the first kernel module is imported.

Why a directory per hash, not one stamp file that wipes stale caches:
the code compiled from one set of sources can only ever land in, and load
from, that set's directory, so a process still running older code (say, a
no-guess kernel compiling lazily hours after it started) cannot refill the
cache with stale kernels under a new stamp, and the simulation's worker
processes, importing the solver at the same time, share one directory
with nothing to delete and numba's own atomic writes.  Should no directory
be writable, or the sources not be readable as files, numba caches as it
did before (by each module's own source alone); nothing fails at import.

The modules that hold kernels are imported on the solver's first use (see
``numsweeper/solver/__init__.py``), so ``import numsweeper`` does not load
numba.  With ``NUMBA_DISABLE_JIT=1`` every kernel runs as plain Python (the
tests use that to check the source itself; the cache then plays no part);
that is far too slow to play with.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba.core import event

__all__ = ["announced", "frozen", "helper", "kernel", "readonly", "subroutine"]

F = TypeVar("F", bound=Callable[..., Any])
A = TypeVar("A", bound=np.ndarray[Any, Any])

#: The package whose sources key the kernels' cache: ``numsweeper``.
_PACKAGE = Path(__file__).resolve().parent.parent
#: Held while numba's ``CACHE_DIR`` points at our directory.
_LOCK = threading.RLock()
_HASH = re.compile(r"[0-9a-f]{16}")
#: Cache directories of other sources are removed once untouched this long (s).
_STALE_AFTER = 24 * 3600
#: numba's settings (their attributes are set at run time: untyped).
_config: Any = numba.config


class _Notice(event.Listener):
    """Says on stderr that a kernel compiles, and how long it took."""

    def __init__(self, name: str, what: str = "solver") -> None:
        self.name = name
        self.what = what
        self.depth = 0  # (the kernel's helpers compile inside its own compile)
        self.began = 0.0

    def on_start(self, event: Any) -> None:
        if self.depth == 0:
            self.began = time.perf_counter()
            print(
                f"numsweeper: compiling the {self.what} kernel {self.name} (once per install)...",
                file=sys.stderr,
                flush=True,
            )
        self.depth += 1

    def on_end(self, event: Any) -> None:
        self.depth -= 1
        if self.depth == 0:
            took = time.perf_counter() - self.began
            print(f"numsweeper: ... {self.name} compiled in {took:.1f} s", file=sys.stderr)


def _source_hash(package: Path) -> str:
    """A hash of the names and bytes of every ``.py`` file under ``package``."""
    files = []
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        files += [os.path.join(folder, name) for name in names if name.endswith(".py")]
    if not files:  # (not files on disk: in a zip, say)
        raise FileNotFoundError(package)
    digest = hashlib.sha256()
    for file in sorted(files):
        with open(file, "rb") as f:
            data = f.read()
        name = file[len(str(package)) + 1 :].replace(os.sep, "/")
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:16]


def _writable(directory: Path) -> bool:
    """Makes ``directory`` if need be; whether a file can be written in it (as numba checks)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def _prune(root: Path, prefix: str, keep: str) -> None:
    """Removes, best effort, the cache directories of other source hashes.

    Only those untouched for :data:`_STALE_AFTER` seconds: a process still
    running older code may be writing a kernel into its own directory
    (numba makes the directory, then writes a file in it, and would fail
    if the directory went in between).
    """
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        stale = entry.name != keep and entry.name.startswith(prefix)
        if stale and _HASH.fullmatch(entry.name[len(prefix) :]) and entry.is_dir():
            try:
                if now - entry.stat().st_mtime < _STALE_AFTER:
                    continue
            except OSError:
                continue
            shutil.rmtree(entry.path, ignore_errors=True)


def _user_wide_cache() -> Path | None:
    """numba's user-wide cache directory (``~/.cache/numba`` on Linux), if known."""
    try:
        from numba.misc.appdirs import AppDirs
    except ImportError:
        return None
    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)  # type: ignore[no-untyped-call]


@functools.cache
def cache_dir(package: Path) -> str | None:
    """Where numba caches the kernels of ``package``: named by a hash of its sources.

    ``None`` when there is no such place (numba then caches as it does by
    default) or no compiling (``NUMBA_DISABLE_JIT=1``).  The first call
    makes the directory and removes those of other hashes untouched for a
    day.

    Parameters
    ----------
    package : Path
        The package's directory (its ``.py`` files, at any depth, key the
        cache).

    Returns
    -------
    str or None
        The directory.

    Examples
    --------
    >>> from pathlib import Path
    >>> import numsweeper
    >>> from numsweeper.solver._jit import cache_dir
    >>> home = cache_dir(Path(numsweeper.__file__).parent)
    >>> home is None or "kernels-" in home
    True
    """
    if _config.DISABLE_JIT:
        return None
    try:
        key = _source_hash(package)
        elsewhere = hashlib.sha1(str(package).encode()).hexdigest()[:12]
        elsewhere = f"{package.name}-{elsewhere}-kernels-"
        places: list[tuple[Path | None, str]]
        if _config.CACHE_DIR:  # the user's choice, which numba honours first
            places = [(Path(_config.CACHE_DIR), elsewhere)]
        else:
            places = [(package / "__pycache__", "kernels-"), (_user_wide_cache(), elsewhere)]
        for root, prefix in places:
            if root is not None and _writable(root / (prefix + key)):
                _prune(root, prefix, keep=prefix + key)
                return str(root / (prefix + key))
    except OSError:  # (sources not readable as files)
        pass
    return None


@contextlib.contextmanager
def _cached_by_source() -> Iterator[None]:
    """Within this block, numba caches what is decorated in :func:`cache_dir`."""
    home = cache_dir(_PACKAGE)
    if home is None:
        yield
        return
    with _LOCK:
        saved = _config.CACHE_DIR
        _config.CACHE_DIR = home
        try:
            yield
        finally:
            # (unless numba reloaded its settings from a changed environment)
            if home == _config.CACHE_DIR:
                _config.CACHE_DIR = saved


def announced(name: str, what: str) -> contextlib.AbstractContextManager[Any]:
    """Within this block, a compile of kernel ``name`` (of ``what``) is announced on stderr.

    For kernels compiled lazily, at their first call (no signature): wrap
    the calls.  Loading a kernel from numba's cache is silent.
    """
    return event.install_listener("numba:compile", _Notice(name, what))


def readonly(array: Any) -> Any:
    """The numba type of a read-only ``array`` type.

    A kernel that only reads an argument names it so: it then takes
    writable and read-only arrays alike (the structure's arrays are
    read-only).
    """
    return array.copy(readonly=True)


def frozen(array: A) -> A:
    """A read-only view of ``array``, to pass where a kernel reads it.

    numba dispatches a call in C only when each argument's type is the one
    compiled; a writable array passed as a read-only one takes a slow path
    in Python (tens of microseconds), so callers pass views like this one.
    """
    view = array.view()
    view.flags.writeable = False
    return view


def kernel(*signature: Any) -> Callable[[F], F]:
    """Compile ``func`` now for ``signature`` (numba ``njit``, cached on disk).

    ``signature`` is the tuple of argument types; the return type is
    inferred.  The kernel accepts exactly those types (a C-contiguous array
    where the signature says so), so no call ever compiles it again.
    """

    def decorate(func: F) -> F:
        notice = event.install_listener("numba:compile", _Notice(func.__name__))
        with notice, _cached_by_source():
            return cast(F, numba.njit(signature, cache=True)(func))

    return decorate


def helper(func: F) -> F:
    """A small function that kernels call, inlined into each of them."""
    with _cached_by_source():
        return cast(F, numba.njit(cache=True, inline="always")(func))


def subroutine(func: F) -> F:
    """A function that kernels call (recursive, or too large to inline).

    It compiles with the first kernel that calls it, inside that kernel's
    notice; Python code calls kernels, never subroutines.
    """
    with _cached_by_source():
        return cast(F, numba.njit(cache=True)(func))
