"""The package's promises about itself: public names, docs, CI and README agree."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import numsweeper as ns

ROOT = Path(__file__).resolve().parents[1]


def test_all_names_exist() -> None:
    for name in ns.__all__:
        assert hasattr(ns, name), name


@pytest.mark.parametrize(
    "name", [n for n in ns.__all__ if inspect.isclass(getattr(ns, n)) or callable(getattr(ns, n))]
)
def test_public_names_have_numpydoc_examples(name: str) -> None:
    doc = inspect.getdoc(getattr(ns, name)) or ""
    assert "Examples\n--------" in doc, f"{name} has no Examples section"


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    test_command = next(c for c in commands if "pytest" in c and "[test]" in c)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_import_pulls_in_no_optional_dependency() -> None:
    code = (
        "import sys, numsweeper; "
        "print(sorted(m for m in ('matplotlib', 'tqdm', 'dask', 'IPython', 'gymnasium', "
        "'pandas', 'pyarrow', 'numba', 'anywidget') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_constants_are_distinct_negative_int8() -> None:
    import numpy as np

    codes = [ns.HIDDEN, ns.FLAG, ns.MINE, ns.EXPLODED, ns.WRONG_FLAG]
    assert all(isinstance(c, np.int8) and c < 0 for c in codes)
    assert len(set(int(c) for c in codes)) == len(codes)


def test_presets() -> None:
    assert dict(ns.PRESETS) == {
        "beginner": (9, 9, 10),
        "intermediate": (16, 16, 40),
        "expert": (16, 30, 99),
    }


def test_readme_quick_start_output_is_what_simulate_prints() -> None:
    readme = (ROOT / "README.md").read_text()
    command = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)[0]
    install, run = command.split(" && ")
    assert install.startswith("pip install") and run.startswith("numsweeper simulate ")
    shown = re.search(r"```text\n(.*?)\n```", readme, flags=re.S)
    assert shown is not None
    out = subprocess.run(
        [sys.executable, "-m", "numsweeper", *run.split()[1:]],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )

    def stable(text: str) -> list[str]:
        machine = ("games/s", "start-up")
        return [line for line in text.strip().splitlines() if not line.startswith(machine)]

    assert stable(out.stdout) == stable(shown.group(1))
