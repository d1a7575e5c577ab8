"""numsweeper: a vectorized Minesweeper engine on NumPy and SciPy.

Examples
--------
>>> import numsweeper as ns
>>> game = ns.Game.from_preset("beginner", seed=42, first_click="opening")
>>> result = game.reveal(4, 4)
>>> result.state
<GameState.IN_PROGRESS: 'in_progress'>
"""

import importlib
from typing import TYPE_CHECKING, Any

from . import metrics, solver
from ._constants import EXPLODED, FLAG, HIDDEN, MINE, PRESETS, WRONG_FLAG
from .batch import BoardBatch, generate_boards, iter_boards
from .batchgame import BatchGame, MoveStatus
from .board import Board, Uncovered
from .errors import (
    GameOverError,
    GenerationError,
    IdleWorkersWarning,
    IllegalMoveError,
    InvalidBoardError,
    InvalidGameFileError,
    InvalidTypeError,
    MinesweeperError,
    OutOfBoundsError,
)
from .game import Game, GameState, Move, RevealResult, Snapshot
from .leetcode import update_board
from .placement import FixedPlacement, MinePlacementStrategy, RandomPlacement
from .records import load_game, save_game
from .simulate import FirstClickOnlyPolicy, Policy, RandomPolicy, SimulationResult, simulate

if TYPE_CHECKING:
    from .noguess import NoGuessPlacement, is_no_guess

__version__ = "0.1.0"

__all__ = [
    "EXPLODED",
    "FLAG",
    "HIDDEN",
    "MINE",
    "PRESETS",
    "WRONG_FLAG",
    "BatchGame",
    "Board",
    "BoardBatch",
    "FirstClickOnlyPolicy",
    "FixedPlacement",
    "Game",
    "GameOverError",
    "GameState",
    "GenerationError",
    "IdleWorkersWarning",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidGameFileError",
    "InvalidTypeError",
    "MinePlacementStrategy",
    "MinesweeperError",
    "Move",
    "MoveStatus",
    "NoGuessPlacement",
    "OutOfBoundsError",
    "Policy",
    "RandomPlacement",
    "RandomPolicy",
    "RevealResult",
    "SimulationResult",
    "Snapshot",
    "Uncovered",
    "generate_boards",
    "is_no_guess",
    "iter_boards",
    "load_game",
    "metrics",
    "save_game",
    "simulate",
    "solver",
    "update_board",
]

# Names whose module loads on first use: numsweeper.noguess compiles its
# kernels with numba, which ``import numsweeper`` does not load.
_LAZY = {"NoGuessPlacement": "noguess", "is_no_guess": "noguess"}


def __getattr__(name: str) -> Any:
    """Import the module that holds ``name`` (PEP 562), and keep the name here."""
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
