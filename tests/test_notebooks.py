"""Notebooks: committed with their outputs, public API only, small outputs.

CI executes them as well, in a fresh kernel at reduced size::

    NUMSWEEPER_NB_SMALL=1 pytest --nbmake notebooks
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

# Public modules a notebook may import besides the package itself.
PUBLIC_MODULES = {"plot", "solver", "metrics", "envs", "datasets", "widget"}


def load(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def code_cells(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [cell for cell in load(path)["cells"] if cell["cell_type"] == "code"]


def test_there_are_notebooks() -> None:
    names = {p.name for p in NOTEBOOKS}
    assert {
        "01_quickstart.ipynb",
        "02_board_statistics.ipynb",
        "03_large_grids.ipynb",
        "04_solver.ipynb",
        "05_learning.ipynb",
    } <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_with_outputs_in_order(path: Path) -> None:
    cells = code_cells(path)
    counts = [cell["execution_count"] for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), "execute the whole notebook top to bottom"
    for cell in cells:
        for output in cell["outputs"]:
            assert output["output_type"] != "error", "".join(cell["source"])
            assert output.get("name") != "stderr", "".join(output.get("text", ""))
    assert sum(bool(cell["outputs"]) for cell in cells) >= len(cells) // 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_public_api_only(path: Path) -> None:
    source = "\n".join("".join(cell["source"]) for cell in code_cells(path))
    assert "import numsweeper as ns" in source
    assert not re.search(r"\._[a-z]", source), "private name used"
    for module in re.findall(r"numsweeper\.(\w+)", source):
        assert module in PUBLIC_MODULES, f"imports numsweeper.{module}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_stay_small(path: Path) -> None:
    assert path.stat().st_size < 1_500_000


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_one_switch_shrinks_the_sizes(path: Path) -> None:
    source = "\n".join("".join(cell["source"]) for cell in code_cells(path))
    env = set(re.findall(r"NUMSWEEPER_\w+", source))
    assert env <= {"NUMSWEEPER_NB_SMALL"}
