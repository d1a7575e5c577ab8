"""Presentation: text grids of boards and snapshots.

The core calls into this module only lazily, from ``__str__`` and
``_repr_*_`` methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ._constants import EXPLODED, FLAG, HIDDEN, MINE, WRONG_FLAG

if TYPE_CHECKING:
    from .board import Board

__all__ = ["SYMBOLS", "board_text", "visible_text"]

#: One character per visible code: digits for counts, '.' for 0.
SYMBOLS: dict[int, str] = {
    0: ".",
    **{n: str(n) for n in range(1, 9)},
    int(HIDDEN): "#",
    int(FLAG): "F",
    int(MINE): "*",
    int(EXPLODED): "X",
    int(WRONG_FLAG): "!",
}

_LOOKUP = np.full(256, ord("?"), dtype=np.uint8)
for _code, _char in SYMBOLS.items():
    _LOOKUP[_code % 256] = ord(_char)


def visible_text(cells: NDArray[np.int8]) -> str:
    """Render visible codes as one character per cell, one line per row.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.render import visible_text
    >>> print(visible_text(np.array([[0, 1, ns.HIDDEN], [ns.FLAG, ns.MINE, ns.EXPLODED]], np.int8)))
    .1#
    F*X
    """
    codes = _LOOKUP[np.asarray(cells, dtype=np.int8).view(np.uint8)]
    return "\n".join(row.tobytes().decode("ascii") for row in codes)


def board_text(board: Board) -> str:
    """Render a board's mines (``*``) and counts, ignoring what is revealed.

    Examples
    --------
    >>> import numsweeper as ns
    >>> print(ns.Board([[True, False, False]]))
    *1.
    """
    cells = np.where(board.mines, MINE, board.counts).astype(np.int8)
    return visible_text(cells)
