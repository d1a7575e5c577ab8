"""Collection rules for the whole repository (tests, doctests of src, README).

Modules of optional extras cannot even be imported without their extra, so
their doctests are not collected then; their tests skip by themselves
(``pytest.importorskip``), as do the doctests of core methods that use an
extra.  CI installs every extra, so all of them run there.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import pytest

_EXTRAS = {
    "gymnasium": ["src/numsweeper/envs/*"],
    "anywidget": ["src/numsweeper/widget.py"],
    "starlette": ["src/numsweeper/server/*"],
}

collect_ignore_glob = [
    pattern
    for module, patterns in _EXTRAS.items()
    if importlib.util.find_spec(module) is None
    for pattern in patterns
]

#: Doctests of core modules that show an optional extra at work: skipped
#: without it.
_DOCTEST_EXTRAS = {
    "numsweeper.simulate.SimulationResult.to_pandas": "pandas",
    "numsweeper.simulate.SimulationResult.to_parquet": "pyarrow",
    "numsweeper.simulate.SimulationResult.from_parquet": "pyarrow",
    "numsweeper.game.Game.widget": "anywidget",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = _DOCTEST_EXTRAS.get(item.name)
        if module is not None and importlib.util.find_spec(module) is None:
            item.add_marker(pytest.mark.skip(reason=f"needs {module} (an optional extra)"))


@pytest.fixture(autouse=True)
def _doctest_temp_files(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files the examples write (``tempfile.mkdtemp()``) go under pytest's own
    temporary folder, which pytest cleans up, not loose in the system's."""
    if type(request.node).__name__ == "DoctestItem":
        folder: Path = request.getfixturevalue("tmp_path")
        monkeypatch.setattr(tempfile, "tempdir", str(folder))
