"""Matplotlib plots of boards and of metric distributions.

Needs the optional extra ``numsweeper[plot]`` (matplotlib); ``import
numsweeper`` never imports this module.  Every function takes ``ax=None``
(a new figure through :mod:`matplotlib.pyplot`) or an existing ``Axes``,
draws on it and returns it.  Nothing here needs a display: the figures work
under the headless ``Agg`` backend.

Examples
--------
>>> import numsweeper as ns
>>> from matplotlib.figure import Figure
>>> from numsweeper.plot import plot_board
>>> game = ns.Game.from_preset("beginner", seed=1, first_click="opening")
>>> _ = game.reveal(4, 4)
>>> ax = plot_board(game, Figure().add_subplot())
>>> ax.get_title()
'Game 9×9, 10 mines · IN_PROGRESS'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

try:
    from matplotlib.axes import Axes
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import MaxNLocator
except ImportError as exc:  # pragma: no cover - exercised by a monkeypatched import
    raise ImportError(
        "numsweeper.plot needs matplotlib; install it with: pip install numsweeper[plot]"
    ) from exc

from ._constants import EXPLODED, FLAG, HIDDEN, MINE, WRONG_FLAG
from ._validate import as_array, count_text
from .board import Board
from .errors import InvalidBoardError, InvalidTypeError
from .game import Game, Snapshot
from .render import DIGIT_COLORS, check_visible, downsample

__all__ = ["LABEL_GAP_PX", "MIN_FONT_SIZE", "TEXT_MAX_CELLS", "plot_board", "plot_distribution"]

#: Boards up to this many cells get digits, flags and mines drawn as text and
#: a grid; larger ones are drawn as an image alone (text would be unreadable).
TEXT_MAX_CELLS = 1024

#: Labels in a cell are sized to the cell, leaving at least this many pixels
#: between neighbouring labels; below :data:`MIN_FONT_SIZE` points they are
#: left out (the colours still tell).
LABEL_GAP_PX = 3.0

#: Smallest font size, in points, of a label in a cell: cells too small for
#: it show their colours alone.
MIN_FONT_SIZE = 3.5

# Width (and height) of a cell's label in ems, with room to spare: one bold
# digit or symbol is about 0.7 em wide and 1.2 em tall as drawn; two regular
# digits are about 1.3 em wide.
_TEXT_EMS = 1.3
_PERCENT_EMS = 1.45
_TICK_SIZE = 7
# Markers of events on large boards: hollow, a fixed number of points wide.
_EVENT_STYLE: dict[str, Any] = {
    "marker": "o",
    "markersize": 14,
    "markerfacecolor": "none",
    "markeredgecolor": "#ff0000",
    "markeredgewidth": 2,
}

# Longest side of the image handed to imshow: larger boards are block-averaged
# first (see numsweeper.render.downsample) so drawing costs the same at 10^8.
_IMAGE_SIDE = 2048

_BACKGROUND = {
    int(HIDDEN): "#a9a9a9",
    int(FLAG): "#a9a9a9",
    int(MINE): "#e4e4e4",
    int(EXPLODED): "#ff0000",
    int(WRONG_FLAG): "#e4e4e4",
}
_MARKS = {int(FLAG): ("F", "#d00000"), int(MINE): ("*", "#000000"), int(EXPLODED): ("*", "#000")}
_MARKS[int(WRONG_FLAG)] = ("X", "#d00000")

# Where plot_distribution may put its legend.
_Top = Literal["upper right", "upper left", "upper center"]

# Safe green through yellow to mine red, for probabilities.
_HEAT = LinearSegmentedColormap.from_list("numsweeper_heat", ["#1a9850", "#fee08b", "#d73027"])


def _codes(obj: Any, show_mines: bool) -> tuple[NDArray[np.int8], NDArray[np.bool_], str]:
    """Visible codes, mines under hidden cells to mark, and a title for ``obj``."""
    no_mines = np.zeros((0, 0), dtype=bool)
    if isinstance(obj, Board):
        return (
            np.where(obj.mines, MINE, obj.counts).astype(np.int8),
            no_mines,
            f"Board {obj.rows}×{obj.cols}, {count_text(obj.mine_count, 'mine')}",
        )
    if show_mines and not isinstance(obj, Game):
        raise InvalidBoardError(
            f"show_mines=True needs a Game or Board, got {type(obj).__name__}: "
            "a visible state does not know where the mines are"
        )
    if isinstance(obj, Game):
        snap = obj.snapshot()
        board = obj.board
        hidden_mines = no_mines
        if show_mines and board is not None:
            hidden_mines = (snap.cells == HIDDEN) & board.mines
        title = f"Game {obj.rows}×{obj.cols}, {count_text(obj.mine_count, 'mine')}"
        title += f" · {snap.state.name}"
        return snap.cells, hidden_mines, title
    if isinstance(obj, Snapshot):
        return obj.cells, no_mines, f"{obj.rows}×{obj.cols} · {obj.state.name}"
    if isinstance(obj, (np.ndarray, list, tuple)):
        cells = check_visible(obj)
        return cells, no_mines, f"{cells.shape[0]}×{cells.shape[1]}"
    raise InvalidTypeError(
        f"plot_board needs a Board, Game, Snapshot or array of visible codes, "
        f"got {type(obj).__name__}"
    )


def _new_axes() -> Axes:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def _check_probabilities(probabilities: Any, shape: tuple[int, int]) -> NDArray[np.float64]:
    values = getattr(probabilities, "probabilities", probabilities)  # an Analysis works too
    raw = as_array(values, "probabilities")
    if raw.dtype == bool or raw.dtype.kind not in "iuf":  # (complex ones were cast silently)
        raise InvalidTypeError(f"probabilities must be real numbers, got dtype {raw.dtype}")
    array = raw.astype(np.float64)
    if array.shape != shape:
        raise InvalidBoardError(
            f"probabilities must have the board's shape {shape}, got {array.shape}"
        )
    finite = array[np.isfinite(array)]
    if ((finite < 0) | (finite > 1)).any() or np.isinf(array).any():
        raise InvalidBoardError("probabilities must lie in [0, 1] (NaN for revealed cells)")
    return array


def _block_nanmean(values: NDArray[np.float64], f: int) -> NDArray[np.float64]:
    """Mean of the finite values in each f x f block; NaN where a block has none."""
    rows, cols = values.shape
    starts = np.arange(0, rows, f), np.arange(0, cols, f)
    finite = np.isfinite(values)
    totals = np.add.reduceat(np.where(finite, values, 0.0), starts[0], axis=0)
    totals = np.add.reduceat(totals, starts[1], axis=1)
    counts = np.add.reduceat(finite.astype(np.int64), starts[0], axis=0)
    counts = np.add.reduceat(counts, starts[1], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)


def plot_board(
    obj: Any,
    ax: Axes | None = None,
    *,
    show_mines: bool = False,
    probabilities: ArrayLike | None = None,
) -> Axes:
    """Draw a board crisply at any size, optionally under a probability heat map.

    Small boards (up to :data:`TEXT_MAX_CELLS` cells) show a grid, digits in
    their traditional colours, ``F`` for flags, ``*`` for mines (the exploded
    one on red) and ``X`` for wrong flags.  Labels are sized to the cells as
    the axes hold them when drawn here, with :data:`LABEL_GAP_PX` pixels
    between neighbours, and left out below :data:`MIN_FONT_SIZE` points;
    ticks are integers, thinned to what fits.  Larger boards are one image
    with nearest-neighbour interpolation, each pixel a cell (down-sampled
    above 2048 cells a side by :func:`numsweeper.render.downsample`, which
    keeps sparse openings, flags and mines visible), with rings of a fixed
    screen size at the exploded mine and at a game's last click.  Axes are
    in cell coordinates at every size: ``x`` is the column, ``y`` the row.

    Parameters
    ----------
    obj : Board, Game, Snapshot or array_like of int8, shape (rows, cols)
        A :class:`~numsweeper.Board` shows its mines and counts; a game or
        snapshot shows what the player sees; an array holds visible codes.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure by default.
    show_mines : bool
        For a :class:`~numsweeper.Game`, also mark the mines under hidden
        cells (a grey ``*`` on the hidden cell; a dark pixel on large
        boards).
    probabilities : array_like of float, shape (rows, cols), optional
        Mine probabilities of hidden cells (NaN elsewhere), such as
        ``numsweeper.solver.analyze(...).probabilities`` (the analysis itself
        is accepted too), overlaid as a heat map with a colour bar.  On small
        boards each uncertain hidden cell also shows its whole percentage
        (1 to 99; certain cells are left to their colour).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        If ``obj`` is none of the types above, an array does not hold
        integers, or ``probabilities`` are not real numbers.
    ValueError
        If ``show_mines`` is set for a visible state alone, or
        ``probabilities`` has the wrong shape or values outside [0, 1].
    InvalidBoardError
        If an array is not 2-D or holds a value that is not a visible code.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from matplotlib.figure import Figure
    >>> from numsweeper.plot import plot_board
    >>> board = ns.Board.create(16, 30, 99, ns.RandomPlacement(seed=0))
    >>> ax = plot_board(board, Figure().add_subplot())
    >>> ax.images[0].get_array().shape
    (16, 30, 3)
    >>> len(ax.texts) == int(np.count_nonzero(board.mines | (board.counts > 0)))
    True
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> _ = game.toggle_flag(0, 0)
    >>> heat = np.full((3, 3), 1 / 8)
    >>> ax = plot_board(game, Figure().add_subplot(), probabilities=heat)
    >>> len(ax.images), ax.images[1].get_clim()
    (2, (0.0, 1.0))
    """
    cells, hidden_mines, title = _codes(obj, show_mines)
    rows, cols = cells.shape
    heat = None if probabilities is None else _check_probabilities(probabilities, (rows, cols))
    if ax is None:
        ax = _new_axes()
    extent = (-0.5, cols - 0.5, rows - 0.5, -0.5)
    small = rows * cols <= TEXT_MAX_CELLS
    if small:
        palette = np.array(
            [_hex(_BACKGROUND.get(code, "#e4e4e4")) for code in range(-128, 128)], dtype=np.uint8
        )
        rgb = palette[cells.astype(np.int16) + 128]
    else:
        # At one pixel a cell, a hidden mine can only be a darker pixel.
        shown = np.where(hidden_mines, MINE, cells).astype(np.int8) if hidden_mines.size else cells
        rgb = downsample(shown, max_side=_IMAGE_SIDE)
    ax.imshow(rgb, interpolation="nearest", extent=extent, aspect="equal")
    if heat is not None:
        f = -(-max(rows, cols) // _IMAGE_SIDE)
        overlay = heat if f == 1 else _block_nanmean(heat, f)
        image = ax.imshow(
            np.ma.masked_invalid(overlay),
            cmap=_HEAT,
            vmin=0.0,
            vmax=1.0,
            alpha=0.8,
            interpolation="nearest",
            extent=extent,
            aspect="equal",
        )
        ax.figure.colorbar(image, ax=ax, label="mine probability", shrink=0.8)
    # Sized now that the colour bar has taken its share of the figure.
    cell = _cell_points(ax, rows, cols)
    _integer_ticks(ax, cell * cols, cell * rows, len(str(max(rows, cols) - 1)))
    if small:
        _draw_marks(ax, cells, hidden_mines, cell)
        if heat is not None:
            if hidden_mines.size:  # a mine's mark takes the cell
                heat = np.where(hidden_mines, np.nan, heat)
            _draw_percentages(ax, heat, cells, cell)
        ax.set_xticks(np.arange(-0.5, cols, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, rows, 1), minor=True)
        ax.grid(which="minor", color="#7b7b7b", linewidth=0.6)
        ax.tick_params(which="minor", length=0)
    else:
        _mark_events(ax, cells, obj)
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_xlabel("col")
    ax.set_ylabel("row")
    ax.set_title(title)
    return ax


def _hex(color: str) -> tuple[int, int, int]:
    return (int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16))


def _root(ax: Axes) -> Figure:
    """The figure an axes is drawn on (through any subfigures)."""
    figure = ax.figure
    return figure if isinstance(figure, Figure) else figure.figure


def _cell_points(ax: Axes, rows: int, cols: int) -> float:
    """Side of one cell in points: the axes box fitted to the board's aspect."""
    box = ax.get_window_extent()  # pixels, before the aspect shrinks one side
    points = 72.0 / _root(ax).dpi
    return float(min(box.width / cols, box.height / rows) * points)


def _integer_ticks(ax: Axes, width: float, height: float, digits: int) -> None:
    """As many integer ticks (1, 2 or 5 cells apart, times 10^k) as fit the axes' sides.

    A label takes about 0.65 em a digit across and 1.25 em up, plus room to
    spare; ``width`` and ``height`` are the board's sides in points.
    """
    across = _TICK_SIZE * 0.65 * max(digits, 2) + 8.0
    up = _TICK_SIZE * 1.25 + 6.0
    for axis, length, space in ((ax.xaxis, width, across), (ax.yaxis, height, up)):
        bins = max(1, int(length // space))
        axis.set_major_locator(
            MaxNLocator(nbins=bins, integer=True, min_n_ticks=1, steps=[1, 2, 5, 10])
        )
    ax.tick_params(labelsize=_TICK_SIZE, length=2)


def _font_size(cell: float, ems: float, largest: float, dpi: float) -> float | None:
    """Font size (points) for text ``ems`` em wide or tall in a cell; None if too small.

    Neighbouring labels keep :data:`LABEL_GAP_PX` between them.
    """
    size = min(largest, (cell - LABEL_GAP_PX * 72.0 / dpi) / ems)
    return size if size >= MIN_FONT_SIZE else None


def _draw_marks(
    ax: Axes, cells: NDArray[np.int8], hidden_mines: NDArray[np.bool_], cell: float
) -> None:
    """Digits in their colours, symbols for flags and mines, and hidden mines in grey."""
    size = _font_size(cell, _TEXT_EMS, 9.0, _root(ax).dpi)
    if size is None:
        return
    for r, c in np.argwhere((cells > 0) | (cells < HIDDEN)).tolist():
        code = int(cells[r, c])
        if code in DIGIT_COLORS:
            text, color = str(code), DIGIT_COLORS[code]
        elif code in _MARKS:
            text, color = _MARKS[code]
        else:  # pragma: no cover - every code above 0 or below HIDDEN is covered
            continue
        ax.text(c, r, text, ha="center", va="center", color=color, fontsize=size, weight="bold")
    for r, c in np.argwhere(hidden_mines).tolist():  # on the raised grey, in grey
        ax.text(c, r, "*", ha="center", va="center", color="#404040", fontsize=size)


def _draw_percentages(
    ax: Axes, heat: NDArray[np.float64], cells: NDArray[np.int8], cell: float
) -> None:
    """The mine probability of each hidden cell in whole percent, where it fits.

    Certain cells (0 and 100%) go unlabelled: their colour says it, and so
    every label has at most two digits.
    """
    size = _font_size(cell, _PERCENT_EMS, 7.0, _root(ax).dpi)
    if size is None:
        return
    uncertain = (cells == HIDDEN) & (heat > 0) & (heat < 1)
    for r, c in np.argwhere(uncertain).tolist():
        percent = min(max(round(100 * float(heat[r, c])), 1), 99)
        ax.text(c, r, str(percent), ha="center", va="center", fontsize=size)


def _mark_events(ax: Axes, cells: NDArray[np.int8], obj: Any) -> None:
    """Rings of a fixed screen size at the exploded mine and the last click.

    On a large board a cell is a pixel or less, so a loss is a red dot
    nobody finds; markers are sized in points, not cells.
    """
    if cells.min() <= EXPLODED:
        rows, cols = np.nonzero(cells == EXPLODED)
        ax.plot(cols, rows, linestyle="none", label="exploded mine", **_EVENT_STYLE)
    moves = obj.moves if isinstance(obj, Game) else ()
    if moves:
        last = moves[-1]
        style = {**_EVENT_STYLE, "markeredgecolor": "#1f4fff", "marker": "s"}
        ax.plot([last.col], [last.row], linestyle="none", label="last click", **style)


def plot_distribution(
    values: ArrayLike,
    ax: Axes | None = None,
    *,
    label: str | None = None,
    bins: int | str | Sequence[float] | None = None,
) -> Axes:
    """Histogram of a metric (3BV, openings, clicks...) with its mean and sd marked.

    Bars show the fraction of values per bin, so histograms of different
    sample sizes can share one ``ax``: call again with another ``label``.
    The mean is a solid line, mean +/- sd dashed lines, and the legend gives
    both with the sample size.  The legend goes to the top corner (or the
    top middle) with the lowest bars under it, and the y axis leaves room
    above those bars, so it never hides a peak.

    Parameters
    ----------
    values : array_like of number, shape (n,)
        The sample, ``n >= 1``, all finite.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure by default.
    label : str, optional
        Name of the sample in the legend.
    bins : int, str or array_like, optional
        As for :meth:`matplotlib.axes.Axes.hist`; by default one bin per
        integer for integer data spanning at most 400 values, else ``'auto'``.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If ``values`` is empty, not 1-D, holds NaN or infinity, or spans
        more than a float can hold.
    TypeError
        If ``values`` are not real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from numsweeper.plot import plot_distribution
    >>> sample = np.random.default_rng(0).normal(174, 19, 10_000).round()
    >>> ax = plot_distribution(sample, Figure().add_subplot(), label="expert 3BV")
    >>> ax.get_legend().get_texts()[0].get_text()
    'expert 3BV: mean 174.1, sd 19.0 (n=10,000)'
    """
    array = as_array(values, "values")
    if array.dtype == bool or array.dtype.kind not in "iuf":
        raise InvalidTypeError(f"values must be real numbers, got dtype {array.dtype}")
    array = array.ravel() if array.ndim == 0 else array
    if array.ndim != 1 or array.size == 0:
        raise InvalidBoardError(f"values must be a non-empty 1-D array, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise InvalidBoardError("values must be finite (no NaN or infinity)")
    data = array.astype(np.float64)
    if not np.isfinite(float(data.max()) - float(data.min())):
        raise InvalidBoardError(
            f"values must span less than a float can hold, got {data.min():g} to {data.max():g}"
        )
    if ax is None:
        ax = _new_axes()
    if bins is None:
        lo, hi = float(data.min()), float(data.max())
        integral = bool(np.all(data == np.round(data)))
        if integral and hi - lo <= 400:
            bins = (np.arange(lo, hi + 2) - 0.5).tolist()
        else:  # weighted hist cannot estimate edges itself
            bins = np.histogram_bin_edges(data, "auto").tolist()
    mean = float(data.mean())
    sd = float(data.std(ddof=1)) if data.size > 1 else 0.0
    name = f"{label}: " if label else ""
    text = f"{name}mean {mean:.1f}, sd {sd:.1f} (n={data.size:,})"
    weights = np.full(data.size, 1.0 / data.size)
    color = f"C{len(ax.containers) % 10}"  # one colour per histogram sharing this ax
    ax.hist(data, bins=bins, weights=weights, color=color, alpha=0.55, label=text)
    ax.axvline(mean, color=color, linewidth=1.5)
    for edge in (mean - sd, mean + sd):
        ax.axvline(edge, color=color, linewidth=1.0, linestyle="--")
    ax.set_ylabel("fraction")
    if label and not ax.get_xlabel():
        ax.set_xlabel(label)
    _legend_clear_of_bars(ax)
    return ax


def _legend_clear_of_bars(ax: Axes) -> None:
    """Put the legend in the top corner (or middle) with the lowest bars under it.

    Then leave headroom above the data so that those bars end below the
    legend: the top margin is set with ``Axes.set_ymargin``, so the y axis
    still autoscales when more histograms are added.  Placing it needs one
    draw without rendering, to learn the legend's size.
    """
    ax.set_ymargin(0.05)
    bars = [
        (p.get_x(), p.get_x() + p.get_width(), p.get_height())
        for p in ax.patches
        if isinstance(p, Rectangle)
    ]
    legend = ax.legend(fontsize=8, loc="upper right")
    tallest = max((h for _, _, h in bars), default=0.0)
    if tallest <= 0:
        return
    _root(ax).draw_without_rendering()
    box, frame = legend.get_window_extent(), ax.get_window_extent()
    share = (frame.y1 - box.y0) / frame.height  # of the axes' height, with padding
    if share >= 0.9:  # no room to make: let matplotlib choose
        ax.legend(fontsize=8, loc="best")
        return
    pad = frame.x1 - box.x1
    spans: dict[_Top, tuple[float, float]] = {
        "upper right": (box.x0, box.x1),
        "upper left": (frame.x0 + pad, frame.x0 + pad + box.width),
        "upper center": (
            frame.x0 + (frame.width - box.width) / 2,
            frame.x0 + (frame.width + box.width) / 2,
        ),
    }
    to_data = ax.transData.inverted()
    best: tuple[float, _Top] | None = None
    for loc, (left, right) in spans.items():
        (x0, _), (x1, _) = to_data.transform([(left, frame.y0), (right, frame.y0)])
        under = max((h for a, b, h in bars if b > x0 and a < x1), default=0.0)
        top = under * 1.04 / (1 - share)  # the legend's bottom clears those bars
        if best is None or top < best[0] - 1e-12:
            best = (top, loc)
    assert best is not None
    ax.legend(fontsize=8, loc=best[1])
    ax.set_ymargin(max(0.05, best[0] / tallest - 1))
