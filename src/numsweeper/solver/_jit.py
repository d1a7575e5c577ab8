"""The solver's compiled kernels: numba, with an on-disk cache and a notice.

Every hot routine of the solver is written once, as a numba kernel beside
the Python code that calls it.  :func:`kernel` compiles one when its module
is imported, for the argument types it names, and numba keeps the machine
code in its on-disk cache (``__pycache__`` next to the module), so the
compile happens once per install (about a minute for all of them) and
later processes load the kernels in a fraction of a second.  While a kernel
compiles, a line on stderr says so.

The modules that hold kernels are imported on the solver's first use (see
``numsweeper/solver/__init__.py``), so ``import numsweeper`` does not load
numba.  With ``NUMBA_DISABLE_JIT=1`` every kernel runs as plain Python (the
tests use that to check the source itself); that is far too slow to play
with.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba.core import event

__all__ = ["announced", "frozen", "helper", "kernel", "readonly", "subroutine"]

F = TypeVar("F", bound=Callable[..., Any])
A = TypeVar("A", bound=np.ndarray[Any, Any])


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
        with event.install_listener("numba:compile", _Notice(func.__name__)):
            return cast(F, numba.njit(signature, cache=True)(func))

    return decorate


def helper(func: F) -> F:
    """A small function that kernels call, inlined into each of them."""
    return cast(F, numba.njit(cache=True, inline="always")(func))


def subroutine(func: F) -> F:
    """A function that kernels call (recursive, or too large to inline).

    It compiles with the first kernel that calls it, inside that kernel's
    notice; Python code calls kernels, never subroutines.
    """
    return cast(F, numba.njit(cache=True)(func))
