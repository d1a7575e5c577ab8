"""Encodings shared by every layer: visible-cell codes and board presets."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

import numpy as np

__all__ = ["EXPLODED", "FLAG", "HIDDEN", "MINE", "PRESETS", "WRONG_FLAG"]

# Visible-state codes (int8).  0..8 is a revealed count; these are negative so
# that ``visible >= 0`` means "revealed" everywhere.

#: A hidden cell (not flagged).
HIDDEN: Final = np.int8(-1)
#: A flagged cell (hidden, and not clickable until unflagged).
FLAG: Final = np.int8(-2)
#: A mine shown after a loss (one that was not clicked and not flagged).
MINE: Final = np.int8(-3)
#: The mine whose reveal lost the game.
EXPLODED: Final = np.int8(-4)
#: A flag on a cell without a mine, shown after a loss.
WRONG_FLAG: Final = np.int8(-5)

#: The classic boards, ``name -> (rows, cols, mines)``: beginner 9 x 9 with 10
#: mines, intermediate 16 x 16 with 40, expert 16 x 30 with 99 (read-only).
PRESETS: Final[Mapping[str, tuple[int, int, int]]] = MappingProxyType(
    {
        "beginner": (9, 9, 10),
        "intermediate": (16, 16, 40),
        "expert": (16, 30, 99),
    }
)
