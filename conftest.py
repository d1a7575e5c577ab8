"""Collection rules for the whole repository (tests, doctests of src, README).

Modules of optional extras cannot even be imported without their extra, so
their doctests are not collected then; their tests skip by themselves
(``pytest.importorskip``).  CI installs every extra, so all of them run there.
"""

from __future__ import annotations

import importlib.util

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
