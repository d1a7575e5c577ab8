"""Presentation: text grids, HTML tables and PNG images of boards.

The core calls into this module only lazily, from ``__str__`` and
``_repr_*_`` methods.  Nothing here decides game logic: it draws visible
codes (and, for a :class:`~numsweeper.Board`, its mines and counts).

Large boards never become giant HTML: above :data:`HTML_MAX_CELLS` cells the
display is a down-sampled PNG, encoded by :func:`png_bytes` with numpy and
zlib only, with a caption giving the true size.
"""

from __future__ import annotations

import base64
import html
import struct
import zlib
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._constants import EXPLODED, FLAG, HIDDEN, MINE, WRONG_FLAG
from ._validate import as_array, check_at_least, count_text, short_repr
from .errors import InvalidBoardError, InvalidTypeError

if TYPE_CHECKING:
    from .board import Board
    from .game import Snapshot

__all__ = [
    "BATCH_SHOW",
    "DIGIT_COLORS",
    "EVENT_RING_RADIUS",
    "HTML_MAX_CELLS",
    "IMAGE_MAX_SIDE",
    "POOLED",
    "POOL_BELOW",
    "SYMBOLS",
    "batch_html",
    "board_text",
    "boards_html",
    "cell_rgb",
    "check_visible",
    "downsample",
    "png_bytes",
    "ring_events",
    "to_html",
    "visible_text",
]

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

    Parameters
    ----------
    cells : array_like of int8, shape (rows, cols)
        Visible codes, as in :attr:`Snapshot.cells <numsweeper.Snapshot.cells>`.

    Returns
    -------
    str
        ``rows`` lines of ``cols`` characters (see :data:`SYMBOLS`), joined
        by newlines without a final one; a value that is no code shows as
        ``?``.

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

    Parameters
    ----------
    board : Board
        The board to draw.

    Returns
    -------
    str
        One line per row, as from :func:`visible_text`.

    Examples
    --------
    >>> import numsweeper as ns
    >>> print(ns.Board([[True, False, False]]))
    *1.
    """
    cells = np.where(board.mines, MINE, board.counts).astype(np.int8)
    return visible_text(cells)


# -- rich display (HTML and PNG) -----------------------------------------------

#: Boards with more cells than this display as a down-sampled PNG image inside
#: the HTML instead of a table (one ``<td>`` per cell stops being useful, and
#: notebooks would grow by megabytes).  64 x 64 = 4096 cells; expert is 480.
HTML_MAX_CELLS: Final = 4096

#: Longest side, in pixels, of the down-sampled image of a large board.
IMAGE_MAX_SIDE: Final = 512

#: Boards a batch display shows at most.
BATCH_SHOW: Final = 6

#: Colour of each visible code in images (RGB), chosen to read at one pixel a
#: cell: hidden cells mid grey, revealed cells light, numbers tinted with their
#: traditional colour, flags orange, mines near black, the exploded mine red,
#: wrong flags magenta.
DIGIT_COLORS: Final[Mapping[int, str]] = MappingProxyType(
    {
        1: "#0000ff",  # blue
        2: "#008000",  # green
        3: "#ff0000",  # red
        4: "#000080",  # navy
        5: "#800000",  # maroon
        6: "#008080",  # teal
        7: "#000000",  # black
        8: "#808080",  # grey
    }
)

_REVEALED_RGB = (0xE4, 0xE4, 0xE4)


def _hex(color: str) -> tuple[int, int, int]:
    return (int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16))


def _palette() -> NDArray[np.uint8]:
    """RGB per visible code, indexed by ``code % 256`` (so negatives work)."""
    lut = np.zeros((256, 3), dtype=np.uint8)
    lut[0] = _REVEALED_RGB
    for n, color in DIGIT_COLORS.items():
        # Half digit colour, half revealed background: numbers stay legible as
        # a fringe around openings without looking like mines.
        lut[n] = (np.add(_hex(color), _REVEALED_RGB) // 2).astype(np.uint8)
    lut[int(HIDDEN) % 256] = (0x9E, 0x9E, 0x9E)
    lut[int(FLAG) % 256] = (0xFF, 0x8C, 0x00)
    lut[int(MINE) % 256] = (0x20, 0x20, 0x20)
    lut[int(EXPLODED) % 256] = (0xFF, 0x00, 0x00)
    lut[int(WRONG_FLAG) % 256] = (0xFF, 0x00, 0xFF)
    return lut


_PALETTE = _palette()
# Channels as contiguous lookup tables: gathering through a strided column
# of _PALETTE is several times slower.
_CHANNELS = tuple(np.ascontiguousarray(_PALETTE[:, k]) for k in range(3))
# Every visible code lies in this range and every value in it is a code.
_LOWEST, _HIGHEST = min(SYMBOLS), max(SYMBOLS)
# Cells coloured per step of downsample(): bounds its scratch memory.
_BAND_CELLS = 1 << 22


def _check_caption(caption: Any) -> None:
    if caption is not None and not isinstance(caption, str):
        raise InvalidTypeError(f"caption must be a string, got {short_repr(caption)}")


def check_visible(cells: ArrayLike, *, ndim: int = 2) -> NDArray[np.int8]:
    """Return ``cells`` as an int8 array of visible codes, or raise.

    Parameters
    ----------
    cells : array_like of int
        Visible codes: ``0..8`` or one of the named negative constants.
    ndim : int
        The number of dimensions required (2 for a board, 3 for a batch).

    Returns
    -------
    ndarray of int8

    Raises
    ------
    InvalidBoardError
        If the shape is wrong or a value is not a visible code.
    InvalidTypeError
        If the values are not integers.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.render import check_visible
    >>> check_visible([[0, 1], [ns.HIDDEN, ns.FLAG]]).dtype
    dtype('int8')
    >>> check_visible([[9]])
    Traceback (most recent call last):
        ...
    numsweeper.errors.InvalidBoardError: cell (0, 0) holds 9, which is not a visible code
    """
    array = as_array(cells, "visible cells")
    if array.ndim != ndim or 0 in array.shape:
        raise InvalidBoardError(
            f"visible cells must be a non-empty {ndim}-D array, got shape {array.shape}"
        )
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise InvalidTypeError(f"visible cells must hold integers, got dtype {array.dtype}")
    # Two reductions instead of a per-cell lookup: codes are one contiguous range.
    if array.min() < _LOWEST or array.max() > _HIGHEST:
        bad = (array < _LOWEST) | (array > _HIGHEST)
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidBoardError(
            f"cell {where} holds {array[where].item()!r}, which is not a visible code"
        )
    return array.astype(np.int8, copy=False)


def cell_rgb(cells: NDArray[np.int8]) -> NDArray[np.uint8]:
    """Colour each visible code, one pixel per cell.

    Parameters
    ----------
    cells : ndarray of int8, shape (rows, cols)
        Visible codes.

    Returns
    -------
    ndarray of uint8, shape (rows, cols, 3)

    Raises
    ------
    InvalidBoardError, InvalidTypeError
        As :func:`check_visible`.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.render import cell_rgb
    >>> cell_rgb(np.array([[ns.EXPLODED, 0]], np.int8)).tolist()
    [[[255, 0, 0], [228, 228, 228]]]
    """
    return _PALETTE[check_visible(cells).view(np.uint8)]


#: Categories :func:`downsample` pools, highest priority first: a block holding
#: any cell of a pooled category takes that category's colour.
POOLED: Final = ("exploded", "wrong flag", "flag", "mine", "revealed", "hidden")

#: A category is pooled when at most this fraction of the image's blocks hold
#: it (the exploded mine always is); commoner ones are averaged, so that their
#: density shows as a shade instead of filling the picture.
POOL_BELOW: Final = 0.5

# Bit of each visible code's category (by code % 256), in POOLED's order.
_CATEGORY = np.zeros(256, dtype=np.uint8)
_CATEGORY[:9] = 1 << POOLED.index("revealed")
for _marked, _name in (
    (EXPLODED, "exploded"),
    (WRONG_FLAG, "wrong flag"),
    (FLAG, "flag"),
    (MINE, "mine"),
    (HIDDEN, "hidden"),
):
    _CATEGORY[int(_marked) % 256] = 1 << POOLED.index(_name)
# The colour a pooled block takes: the category's own (revealed: blank).
_POOLED_RGB = np.array(
    [_PALETTE[int(code) % 256] for code in (EXPLODED, WRONG_FLAG, FLAG, MINE, 0, HIDDEN)],
    dtype=np.uint8,
)


def downsample(cells: NDArray[np.int8], *, max_side: int = IMAGE_MAX_SIDE) -> NDArray[np.uint8]:
    """Colour a board of any size as an image at most ``max_side`` pixels a side.

    Each pixel covers an ``f`` x ``f`` block of cells, ``f = ceil(max(rows,
    cols) / max_side)``, and is the block's mean colour, except that rare
    categories are max-pooled: a category (see :data:`POOLED`) found in at
    most :data:`POOL_BELOW` of the blocks paints every block that holds one
    of its cells, the highest-priority category winning.  So a few openings,
    flags or mines on a huge board stay visible instead of fading into the
    average, and the exploded mine (always pooled) is a pure red pixel.
    Memory is one byte per cell of scratch plus the output.

    Parameters
    ----------
    cells : ndarray of int8, shape (rows, cols)
        Visible codes.
    max_side : int
        Longest side of the result, in pixels (at least 1).

    Returns
    -------
    ndarray of uint8, shape (ceil(rows / f), ceil(cols / f), 3)

    Raises
    ------
    InvalidBoardError, InvalidTypeError
        As :func:`check_visible`; or if ``max_side`` is not an integer
        ``>= 1``.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.render import downsample
    >>> cells = np.full((1000, 300), ns.HIDDEN, np.int8)
    >>> cells[999, 299] = ns.EXPLODED
    >>> cells[:2, :2] = 0  # a tiny opening: 4 of the first block's 100 cells
    >>> image = downsample(cells, max_side=100)
    >>> image.shape, image[-1, -1].tolist(), image[1, 1].tolist()
    ((100, 30, 3), [255, 0, 0], [158, 158, 158])
    >>> image[0, 0].tolist()  # pooled: the opening shows
    [228, 228, 228]
    """
    max_side = check_at_least(max_side, "max_side", 1)
    codes = check_visible(cells)
    rows, cols = codes.shape
    f = -(-max(rows, cols) // max_side)
    if f == 1:
        return cell_rgb(codes)
    row_starts = np.arange(0, rows, f)
    col_starts = np.arange(0, cols, f)
    # Sum each channel, and OR the category bits, over blocks of f rows, a
    # band of whole blocks at a time (reshape-reduce is far faster than
    # reduceat over the long axis).
    row_sums = np.empty((3, len(row_starts), cols), dtype=np.uint32)
    row_kinds = np.empty((len(row_starts), cols), dtype=np.uint8)
    band = f * max(1, _BAND_CELLS // (f * cols))
    for top in range(0, rows, band):
        index = codes[top : top + band].view(np.uint8)
        height = index.shape[0]
        full = height - height % f
        blocks = slice(top // f, top // f + -(-height // f))
        out = row_sums[:, blocks]
        for channel, lut in enumerate(_CHANNELS):
            values = lut[index]
            out[channel, : full // f] = values[:full].reshape(-1, f, cols).sum(1, np.uint32)
            if full < height:
                out[channel, -1] = values[full:].sum(0, np.uint32)
        kinds = _CATEGORY[index]
        row_kinds[blocks][: full // f] = np.bitwise_or.reduce(
            kinds[:full].reshape(-1, f, cols), axis=1
        )
        if full < height:
            row_kinds[blocks][-1] = np.bitwise_or.reduce(kinds[full:], axis=0)
    sums = np.add.reduceat(row_sums, col_starts, axis=2)
    area = np.outer(np.diff(row_starts, append=rows), np.diff(col_starts, append=cols))
    image = ((sums + area // 2) // area).astype(np.uint8).transpose(1, 2, 0)
    kinds = np.bitwise_or.reduceat(row_kinds, col_starts, axis=1)
    # Lowest priority first, so that higher ones paint over it.
    for bit in reversed(range(len(POOLED))):
        held = (kinds >> bit) & 1 == 1
        if bit == 0 or np.count_nonzero(held) <= POOL_BELOW * held.size:
            image[held] = _POOLED_RGB[bit]
    return np.ascontiguousarray(image)


def png_bytes(rgb: ArrayLike) -> bytes:
    """Encode an RGB image as PNG with nothing but numpy and zlib.

    Parameters
    ----------
    rgb : array_like of uint8, shape (height, width, 3)
        The pixels, row by row.

    Returns
    -------
    bytes
        A valid 8-bit truecolour PNG file.

    Raises
    ------
    InvalidBoardError
        If ``rgb`` is not a non-empty uint8 array of shape ``(height, width, 3)``.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.render import png_bytes
    >>> data = png_bytes(np.zeros((2, 3, 3), np.uint8))
    >>> data[:8], int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    (b'\\x89PNG\\r\\n\\x1a\\n', 3, 2)
    """
    image = np.asarray(rgb)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8 or 0 in image.shape:
        raise InvalidBoardError(
            f"rgb must be a non-empty uint8 array of shape (h, w, 3), "
            f"got {image.dtype} {image.shape}"
        )
    height, width = image.shape[:2]
    raw = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # filter byte 0: None
    raw[:, 1:] = image.reshape(height, 3 * width)

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)),
            chunk(b"IEND", b""),
        )
    )


_RAISED = "inset 2px 2px #fff,inset -2px -2px #7b7b7b"
_CSS = (
    "<style>"
    ".ns-view{display:inline-block;margin:2px 8px 8px 0;vertical-align:top}"
    ".ns-caption{font:12px sans-serif;color:#444;margin:0 0 3px 0}"
    "table.ns-board{border-collapse:separate!important;border-spacing:0!important;"
    "border:none!important;margin:0!important;table-layout:fixed}"
    "table.ns-board.ns-framed{border:3px solid!important;"
    "border-color:#7b7b7b #fff #fff #7b7b7b!important}"
    "table.ns-board tr{background:none!important}"
    "table.ns-board td,table.ns-board th{width:18px!important;min-width:18px;max-width:18px;"
    "height:18px!important;padding:0!important;border:none!important;box-sizing:border-box;"
    "text-align:center!important;vertical-align:middle!important;"
    "font:bold 13px/18px Verdana,Tahoma,sans-serif!important}"
    "table.ns-board td{background:#c0c0c0!important;box-shadow:inset 1px 1px #808080}"
    "table.ns-board th{background:none!important;color:#888!important;"
    "font:9px/18px monospace!important}"
    f"table.ns-board td.ns-hidden,table.ns-board td.ns-flag{{box-shadow:{_RAISED}}}"
    "table.ns-board td.ns-flag,table.ns-board td.ns-wrong{color:#e00000!important}"
    "table.ns-board td.ns-mine{color:#000!important}"
    "table.ns-board td.ns-exploded{color:#000!important;background:#ff0000!important}"
    "table.ns-board td.ns-wrong{background:"
    "linear-gradient(45deg,transparent 44%,#000 44%,#000 56%,transparent 56%),"
    "linear-gradient(-45deg,transparent 44%,#000 44%,#000 56%,transparent 56%),"
    "#c0c0c0!important}"
    + "".join(
        f"table.ns-board td.ns-n{n}{{color:{color}!important}}" for n, color in DIGIT_COLORS.items()
    )
    + ".ns-batch{display:flex;flex-wrap:wrap;align-items:flex-start}"
    "img.ns-image{image-rendering:pixelated;image-rendering:crisp-edges;"
    "border:1px solid #7b7b7b}"
    "</style>"
)

# One <td> per code, indexed by code % 256.
_TD = np.full(256, "", dtype=object)
_TD[0] = '<td class="ns-n0"></td>'
for _n in range(1, 9):
    _TD[_n] = f'<td class="ns-n{_n}">{_n}</td>'
_TD[int(HIDDEN) % 256] = '<td class="ns-hidden"></td>'
_TD[int(FLAG) % 256] = '<td class="ns-flag">&#9873;</td>'
_TD[int(MINE) % 256] = '<td class="ns-mine">&#9679;</td>'
_TD[int(EXPLODED) % 256] = '<td class="ns-exploded">&#9679;</td>'
_TD[int(WRONG_FLAG) % 256] = '<td class="ns-wrong">&#9873;</td>'

#: Largest side for which single-board tables get row and column labels.
_LABEL_MAX_SIDE = 40


def _table(codes: NDArray[np.int8], labels: bool) -> str:
    cells = _TD[codes.view(np.uint8)]
    # The sunken frame would enclose the labels too, so labelled tables go without.
    parts = ['<table class="ns-board">' if labels else '<table class="ns-board ns-framed">']
    if labels:
        parts.append(
            "<tr><th></th>" + "".join(f"<th>{c}</th>" for c in range(codes.shape[1])) + "</tr>"
        )
    for r, row in enumerate(cells):
        head = f"<th>{r}</th>" if labels else ""
        parts.append("<tr>" + head + "".join(row) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


#: Radius, in image pixels, of the ring drawn around an exploded mine on a
#: down-sampled image, where the mine itself is a single pixel.
EVENT_RING_RADIUS: Final = 6

# Pixel offsets of a ring one and a half pixels thick.
_RING = np.argwhere(np.abs(np.hypot(*np.mgrid[-8:9, -8:9]) - EVENT_RING_RADIUS) < 0.75) - 8


def ring_events(rgb: NDArray[np.uint8], points: ArrayLike, *, color: str = "#ff0000") -> None:
    """Draw a ring of radius :data:`EVENT_RING_RADIUS` pixels around each point, in place.

    Parameters
    ----------
    rgb : ndarray of uint8, shape (height, width, 3)
        The image (changed in place).
    points : array_like of int, shape (k, 2)
        ``(row, col)`` of each event, in image pixels.
    color : str
        ``'#rrggbb'``.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.render import ring_events
    >>> image = np.zeros((20, 20, 3), np.uint8)
    >>> ring_events(image, [[10, 10]])
    >>> image[10, 16].tolist(), image[10, 10].tolist()
    ([255, 0, 0], [0, 0, 0])
    """
    centres = np.asarray(points, dtype=np.intp).reshape(-1, 2)
    at = (centres[:, None, :] + _RING[None]).reshape(-1, 2)
    height, width = rgb.shape[:2]
    inside = (at[:, 0] >= 0) & (at[:, 0] < height) & (at[:, 1] >= 0) & (at[:, 1] < width)
    rgb[at[inside, 0], at[inside, 1]] = _hex(color)


def _image(codes: NDArray[np.int8], max_side: int) -> str:
    rows, cols = codes.shape
    rgb = downsample(codes, max_side=max_side)
    height, width = rgb.shape[:2]
    f = -(-max(rows, cols) // max_side)
    if f > 1 and codes.min() <= EXPLODED:  # a cheap test before looking for the mine
        ring_events(rgb, np.argwhere(codes == EXPLODED) // f)
    # Small images are blown up by the browser (pixelated) to a readable size.
    zoom = max(1, 256 // max(height, width))
    data = base64.b64encode(png_bytes(rgb)).decode("ascii")
    note = f"{rows:,}&#215;{cols:,} = {rows * cols:,} cells, " + (
        f"down-sampled: 1 pixel = {f}&#215;{f} cells" if f > 1 else "1 pixel per cell"
    )
    return (
        f'<img class="ns-image" width="{width * zoom}" height="{height * zoom}" '
        f'alt="{rows}x{cols} board" src="data:image/png;base64,{data}"/>'
        f'<div class="ns-caption ns-size">{note}</div>'
    )


def _view(
    codes: NDArray[np.int8],
    caption: str,
    *,
    max_cells: int,
    labels: bool | None,
    max_side: int = IMAGE_MAX_SIDE,
) -> str:
    rows, cols = codes.shape
    if rows * cols > max_cells:
        body = _image(codes, max_side)
    else:
        if labels is None:
            labels = max(rows, cols) <= _LABEL_MAX_SIDE
        body = _table(codes, labels)
    return f'<div class="ns-view"><div class="ns-caption">{html.escape(caption)}</div>{body}</div>'


def _layout_codes(mines: NDArray[np.bool_], counts: NDArray[np.int8]) -> NDArray[np.int8]:
    return np.where(mines, MINE, counts).astype(np.int8)


def _status(snap: Snapshot) -> str:
    # Mines left only while playing: a won board shows every mine flagged
    # whatever the player flagged, so the count would contradict the picture.
    if snap.state.name == "IN_PROGRESS":
        return f" · IN_PROGRESS · mines left: {snap.mines_left}"
    return f" · {snap.state.name}"


def to_html(
    obj: Any,
    *,
    caption: str | None = None,
    max_cells: int = HTML_MAX_CELLS,
    labels: bool | None = None,
) -> str:
    """Render a board, game, snapshot or visible array as HTML in the classic look.

    Hidden cells are raised grey squares, digits wear their traditional
    colours (1 blue, 2 green, 3 red, 4 navy, 5 maroon, 6 teal, 7 black,
    8 grey), flags are red, the exploded mine sits on red and wrong flags are
    crossed out.  A :class:`~numsweeper.Board` shows its mines and counts.
    Boards above ``max_cells`` cells become a down-sampled PNG (see
    :func:`downsample`) with a caption giving the true size, so the HTML stays
    small at any size.  This is what the ``_repr_html_`` methods return.

    Parameters
    ----------
    obj : Board, Game, Snapshot or array_like of int8, shape (rows, cols)
        What to show; an array holds visible codes.
    caption : str, optional
        Text above the board (escaped); by default a summary of ``obj``.
    max_cells : int
        Largest board drawn as a table, :data:`HTML_MAX_CELLS` by default.
    labels : bool, optional
        Row and column numbers around the table; by default shown up to 40
        cells a side.

    Returns
    -------
    str
        A self-contained HTML fragment (its own ``<style>``).

    Raises
    ------
    TypeError
        If ``obj`` is none of the types above, an array does not hold
        integers, or ``caption`` is not a string.
    InvalidBoardError
        If an array is not 2-D or holds a value that is not a visible code.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.render import to_html
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.reveal(2, 2)
    >>> page = to_html(game)
    >>> page.count("<td"), page.count('class="ns-flag"'), page.count('class="ns-n1"')
    (9, 1, 3)
    >>> "<img" in to_html(ns.Board.create(100, 100, 10, ns.RandomPlacement(seed=0)))
    True
    """
    from .board import Board
    from .game import Game, Snapshot

    summary: str
    if isinstance(obj, Board):
        codes = _layout_codes(obj.mines, obj.counts)
        summary = f"Board {obj.rows}×{obj.cols}, {count_text(obj.mine_count, 'mine')}"
    elif isinstance(obj, Game):
        snap = obj.snapshot()
        codes = snap.cells
        summary = f"Game {obj.rows}×{obj.cols}, {count_text(obj.mine_count, 'mine')}" + _status(
            snap
        )
    elif isinstance(obj, Snapshot):
        codes = obj.cells
        summary = f"Snapshot {obj.rows}×{obj.cols}" + _status(obj)
    elif isinstance(obj, (np.ndarray, list, tuple)):
        codes = check_visible(obj)
        summary = f"{codes.shape[0]}×{codes.shape[1]} cells"
    else:
        raise InvalidTypeError(
            f"to_html needs a Board, Game, Snapshot or array of visible codes, "
            f"got {type(obj).__name__}"
        )
    _check_caption(caption)
    return _CSS + _view(
        codes, summary if caption is None else caption, max_cells=max_cells, labels=labels
    )


def _state_name(state: Any) -> str:
    return str(getattr(state, "name", state))


def batch_html(
    visible: ArrayLike,
    *,
    states: Sequence[Any] | None = None,
    mines_left: ArrayLike | None = None,
    caption: str | None = None,
    limit: int = BATCH_SHOW,
    max_cells: int = HTML_MAX_CELLS,
    total: int | None = None,
) -> str:
    """Show the first boards of a batch of games in a grid, with their indices.

    Only the first ``limit`` boards are touched, so a batch of any length
    displays at once.  Each board is a table, or an image above
    ``max_cells`` cells, as in :func:`to_html`.  A batch that can hand out
    its first games alone passes just those, with ``total`` its length.

    Parameters
    ----------
    visible : array_like of int8, shape (n, rows, cols)
        Visible codes of each game (``BatchGame.visible``).
    states : sequence of GameState, shape (n,), optional
        Shown next to each index.
    mines_left : array_like of int, shape (n,), optional
        Shown next to each index.
    caption : str, optional
        Text above the grid (escaped); by default the batch's size.
    limit : int
        Boards shown at most, :data:`BATCH_SHOW` by default.
    max_cells : int
        Largest board drawn as a table.
    total : int, optional
        Games in the whole batch, for the caption, when ``visible`` holds
        only the first ones; ``len(visible)`` by default.

    Returns
    -------
    str
        A self-contained HTML fragment.

    Raises
    ------
    InvalidBoardError
        If ``visible`` is not 3-D or its first boards hold invalid codes.
    ValueError
        If ``total`` is smaller than ``len(visible)``.
    TypeError
        If ``visible`` does not hold integers, or ``caption`` is not a string.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.render import batch_html
    >>> visible = np.full((10, 4, 5), ns.HIDDEN, np.int8)
    >>> page = batch_html(visible, states=[ns.GameState.IN_PROGRESS] * 10)
    >>> page.count("<table"), page.count("<td"), "#5 · IN_PROGRESS" in page
    (6, 120, True)
    >>> games = ns.BatchGame.new(1000, 16, 30, 99, seed=0)
    >>> first = np.arange(3)
    >>> page = batch_html(games.visible_of(first), states=games.states[first], total=len(games))
    >>> "1,000 games 16×30, showing #0–#2" in page
    True
    """
    array = as_array(visible, "visible")
    if array.ndim != 3:
        raise InvalidBoardError(f"visible must be 3-D (n, rows, cols), got shape {array.shape}")
    given, rows, cols = array.shape
    n = given if total is None else int(total)
    if n < given:
        raise InvalidBoardError(
            f"total must be at least len(visible) = {given}, got {short_repr(total)}"
        )
    shown = min(given, max(int(limit), 0))
    _check_caption(caption)
    head = caption
    if head is None:
        head = f"{n:,} games {rows}×{cols}" + (f", showing #0–#{shown - 1}" if shown < n else "")
    views = []
    if shown:
        codes = check_visible(array[:shown], ndim=3)
        left = None if mines_left is None else np.asarray(mines_left)
        for i in range(shown):
            label = f"#{i}"
            if states is not None:
                label += f" · {_state_name(states[i])}"
            if left is not None:
                label += f" · {int(left[i])} left"
            views.append(_view(codes[i], label, max_cells=max_cells, labels=False, max_side=256))
    return (
        _CSS
        + f'<div class="ns-caption">{html.escape(head)}</div>'
        + f'<div class="ns-batch">{"".join(views)}</div>'
    )


def boards_html(
    mines: ArrayLike,
    counts: ArrayLike,
    *,
    caption: str | None = None,
    limit: int = BATCH_SHOW,
    max_cells: int = HTML_MAX_CELLS,
) -> str:
    """Show the first layouts of a board batch (mines and counts) with indices.

    Parameters
    ----------
    mines : array_like of bool, shape (n, rows, cols)
        Mine layouts (``BoardBatch.mines``).
    counts : array_like of int8, shape (n, rows, cols)
        Adjacent counts (``BoardBatch.counts``).
    caption : str, optional
        Text above the grid (escaped); by default the batch's size.
    limit : int
        Boards shown at most.
    max_cells : int
        Largest board drawn as a table.

    Returns
    -------
    str
        A self-contained HTML fragment.

    Raises
    ------
    InvalidBoardError
        If the arrays are not 3-D of one shape.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.render import boards_html
    >>> batch = ns.generate_boards(1000, 9, 9, 10, seed=0)
    >>> page = boards_html(batch.mines, batch.counts, limit=2)
    >>> page.count("<td"), page.count('class="ns-mine"')
    (162, 20)
    """
    m, c = np.asarray(mines), np.asarray(counts)
    if m.ndim != 3 or m.shape != c.shape:
        raise InvalidBoardError(
            f"mines and counts must be 3-D of one shape, got {m.shape} and {c.shape}"
        )
    n, rows, cols = m.shape
    shown = min(n, max(int(limit), 0))
    if caption is None:
        mine_count = int(np.count_nonzero(m[0])) if n else 0
        boards = f"{n:,} board" if n == 1 else f"{n:,} boards"
        caption = f"{boards} {rows}×{cols}, {count_text(mine_count, 'mine')}"
        if shown < n:
            caption += f", showing #0–#{shown - 1}"
    codes = _layout_codes(m[:shown], c[:shown])
    return batch_html(codes, caption=caption, limit=shown, max_cells=max_cells)
