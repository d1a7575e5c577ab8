"""Encodings shared by every layer: visible-cell codes and board presets."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

import numpy as np

__all__ = ["EXPLODED", "FLAG", "HIDDEN", "MINE", "PRESETS", "WRONG_FLAG"]

# Visible-state codes (int8).  0..8 is a revealed count; these are negative so
# that ``visible >= 0`` means "revealed" everywhere.
HIDDEN: Final = np.int8(-1)
FLAG: Final = np.int8(-2)
MINE: Final = np.int8(-3)
EXPLODED: Final = np.int8(-4)
WRONG_FLAG: Final = np.int8(-5)

PRESETS: Final[Mapping[str, tuple[int, int, int]]] = MappingProxyType(
    {
        "beginner": (9, 9, 10),
        "intermediate": (16, 16, 40),
        "expert": (16, 30, 99),
    }
)
