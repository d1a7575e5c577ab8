"""The kernels' on-disk cache is keyed on all the package's sources (solver/_jit.py).

numba checks a cached function only against its own module's source; a
kernel that calls or inlines code from another module must still be
compiled again when only that module changes.  Each test builds a small
package of two modules, a kernel in ``a.py`` and what it calls in ``b.py``,
made with numsweeper's own decorators pointed at that package, and runs it
in fresh processes, so that numba's cache on disk is really used.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import numsweeper

_B = """
from numsweeper.solver._jit import helper, subroutine

STEP = {step}


@helper
def inlined(x):
    return x + STEP


@subroutine
def called(x):
    return x * STEP
"""

_A = """
from numba import types as nt

from numsweeper.solver._jit import kernel

from .b import called, inlined


@kernel(nt.int64)
def run(x):
    return inlined(x) * 1000 + called(x)
"""

#: Imports the package (its kernel compiles or loads) and prints run(3) and
#: numba's cache setting once the decorators are done with it.
_MAIN = """
import sys
from pathlib import Path

import numba

from numsweeper.solver import _jit

_jit._PACKAGE = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(Path(sys.argv[1]).parent))
from pkg.a import run

print(run(3), repr(numba.config.CACHE_DIR))
"""

_NOTICE = "numsweeper: compiling the solver kernel run"


def _package(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(_A)
    (package / "b.py").write_text(_B.format(step=1))
    (root / "main.py").write_text(_MAIN)
    return package


def _run(package: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    src = str(Path(numsweeper.__file__).parent.parent)
    environ["PYTHONPATH"] = os.pathsep.join([src, environ.get("PYTHONPATH", "")])
    # (no stale .pyc of an edit made within the same second; numba's user-wide
    # cache directory in the scratch directory)
    environ["PYTHONDONTWRITEBYTECODE"] = "1"
    environ["XDG_CACHE_HOME"] = str(package.parent / "xdg")
    environ.update(env)
    run = subprocess.run(
        [sys.executable, str(package.parent / "main.py"), str(package)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def _kernel_dirs(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("*kernels-*")) if root.is_dir() else []


@pytest.mark.parametrize("where", ["in the package", "user-wide", "the user's"])
def test_an_edit_of_only_a_called_module_recompiles_the_kernel(tmp_path: Path, where: str) -> None:
    package = _package(tmp_path)
    env: dict[str, str] = {}
    if where == "user-wide":  # the package's own directory is not writable
        (package / "__pycache__").write_text("not a directory")
        home = tmp_path / "xdg" / "numba"
    elif where == "the user's":
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
        home = tmp_path / "mine"
    else:
        home = package / "__pycache__"
    setting = repr(env.get("NUMBA_CACHE_DIR", ""))

    first = _run(package, **env)
    assert first.stdout.split() == ["4003", setting]  # (and the setting is restored)
    assert _NOTICE in first.stderr
    before = _kernel_dirs(home)

    if where == "in the package":
        again = _run(package, **env)  # loads from the cache
        assert again.stdout.split() == ["4003", setting]
        assert "compiling" not in again.stderr, again.stderr

    # (the first hash's directory untouched for two days: stale)
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(home / before[0], (two_days_ago, two_days_ago))
    (package / "b.py").write_text(_B.format(step=2))  # a.py unchanged
    edited = _run(package, **env)
    assert edited.stdout.split() == ["5006", setting]
    assert _NOTICE in edited.stderr

    # One directory per hash of the sources, where it should be, holding the
    # cached kernel; the stale directory of the old hash is gone.
    after = _kernel_dirs(home)
    assert len(before) == len(after) == 1, (before, after)
    assert before != after
    assert list((home / after[0]).rglob("a.run-*.nbi"))

    # A directory used within the day stays (another process may be
    # writing into it).
    (package / "b.py").write_text(_B.format(step=3))
    assert _run(package, **env).stdout.split() == ["6009", setting]
    assert len(_kernel_dirs(home)) == 2


def test_nothing_is_cached_without_compiling(tmp_path: Path) -> None:
    package = _package(tmp_path)
    run = _run(package, NUMBA_DISABLE_JIT="1")
    assert run.stdout.split() == ["4003", "''"]
    assert _kernel_dirs(package / "__pycache__") == []
    assert _kernel_dirs(tmp_path / "xdg" / "numba") == []
