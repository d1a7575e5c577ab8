"""The solver: exact mine probabilities, a playing policy and hints.

Examples
--------
>>> import numsweeper as ns
>>> game = ns.Game.from_preset("beginner", seed=7, first_click="safe")
>>> _ = game.reveal(0, 0)
>>> a = ns.solver.analyze(game)
>>> a.probabilities.shape
(9, 9)
"""

from .analysis import MAX_STATES, Analysis, analyze

__all__ = ["MAX_STATES", "Analysis", "analyze"]
