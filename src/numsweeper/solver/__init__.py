"""The solver: exact mine probabilities, a playing policy and hints.

It reads only what a player sees (visible states), never hidden mines.

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

from .analysis import MAX_STATES, Analysis, analyze
from .policy import Hint, SolverPolicy, hint, local_rules

__all__ = ["MAX_STATES", "Analysis", "Hint", "SolverPolicy", "analyze", "hint", "local_rules"]
