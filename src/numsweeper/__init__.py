"""numsweeper: a vectorized Minesweeper engine on NumPy and SciPy.

Examples
--------
>>> import numsweeper as ns
>>> game = ns.Game.from_preset("beginner", seed=42, first_click="opening")
>>> result = game.reveal(4, 4)
>>> result.state
<GameState.IN_PROGRESS: 'in_progress'>
"""

from . import metrics, solver
from ._constants import EXPLODED, FLAG, HIDDEN, MINE, PRESETS, WRONG_FLAG
from .batch import BoardBatch, generate_boards, iter_boards
from .batchgame import BatchGame, MoveStatus
from .board import Board, Uncovered
from .errors import (
    GameOverError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidGameFileError,
    MinesweeperError,
    OutOfBoundsError,
)
from .game import Game, GameState, Move, RevealResult, Snapshot
from .leetcode import update_board
from .placement import FixedPlacement, MinePlacementStrategy, RandomPlacement
from .records import load_game, save_game
from .simulate import FirstClickOnlyPolicy, Policy, RandomPolicy, SimulationResult, simulate

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
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidGameFileError",
    "MinePlacementStrategy",
    "MinesweeperError",
    "Move",
    "MoveStatus",
    "OutOfBoundsError",
    "Policy",
    "RandomPlacement",
    "RandomPolicy",
    "RevealResult",
    "SimulationResult",
    "Snapshot",
    "Uncovered",
    "generate_boards",
    "iter_boards",
    "load_game",
    "metrics",
    "save_game",
    "simulate",
    "solver",
    "update_board",
]
