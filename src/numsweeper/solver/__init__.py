"""The solver: exact mine probabilities, a playing policy and hints.

It reads only what a player sees (visible states), never hidden mines.

Its modules load on first use (``numsweeper.solver.analyze`` and the
others), so ``import numsweeper`` does not load numba; the solver's
compiled kernels load then too, and compile the first time after an
install, which a line on stderr announces.

Examples
--------
>>> import numsweeper as ns
>>> game = ns.Game.from_preset("beginner", seed=7, first_click="safe")
>>> _ = game.reveal(0, 0)
>>> a = ns.solver.analyze(game)
>>> a.probabilities.shape
(9, 9)
>>> h = ns.solver.hint(game)
>>> 0.0 <= h.probability <= 1.0
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis import MAX_STATES, Analysis, Analyzer, analyze
    from .local import local_rules
    from .policy import Hint, SolverPolicy, hint

__all__ = [
    "MAX_STATES",
    "Analysis",
    "Analyzer",
    "Hint",
    "SolverPolicy",
    "analyze",
    "hint",
    "local_rules",
]

# where each public name lives
_HOMES = {
    "MAX_STATES": "analysis",
    "Analysis": "analysis",
    "Analyzer": "analysis",
    "analyze": "analysis",
    "Hint": "policy",
    "SolverPolicy": "policy",
    "hint": "policy",
    "local_rules": "local",
}


def __getattr__(name: str) -> Any:
    """Import the module that holds ``name`` (PEP 562), and keep the name here."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # (what ``from .home import name`` would have bound)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
