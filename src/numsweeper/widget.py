"""An interactive board for Jupyter: play a :class:`~numsweeper.Game`, see the solver's view.

Needs the optional extra ``numsweeper[widget]`` (anywidget); ``import
numsweeper`` never imports this module.  The widget works wherever anywidget
does: JupyterLab, Notebook 7, VS Code, Colab.

The Python :class:`~numsweeper.Game` is the single source of truth.  The
front end (``static/widget.js``, a plain ES module) sends actions (a click, a
flag, undo, redo, a new game) as messages; Python plays them through the
game's public methods and sends back what the player sees: the visible codes
of :meth:`Game.snapshot`, never the mine layout while the game is on.

- **Play.**  Left-click reveals a hidden cell, or chords a revealed number
  whose flags are all placed; right-click flags.  A counter shows the mines
  left, the state and the time; buttons undo, redo and start a new game.
- **Analysis overlay.**  A toggle colours every hidden cell by its mine
  probability from :func:`numsweeper.solver.analyze`, marks the cells that
  are certainly safe or certainly mines, and highlights
  :func:`numsweeper.solver.hint`'s move, after every move.
- **Large boards.**  Above :data:`DOM_MAX_CELLS` cells the board is a canvas
  showing a window of it, with pan (drag) and zoom (wheel or buttons): while
  the window is wider than :data:`VIEW_MAX_CELLS` cells a side it is a
  down-sampled image (:func:`numsweeper.render.downsample`), closer in it is
  drawn cell by cell and can be played.  Only the window crosses to the
  browser, so a board of 10^8 cells costs what its window costs.

Examples
--------
>>> import numsweeper as ns
>>> from numsweeper.widget import widget
>>> game = ns.Game.from_preset("beginner", seed=3, first_click="safe")
>>> board = widget(game)
>>> board.handle({"type": "click", "row": 4, "col": 4})
>>> board.state, board.moves, game.state.name
('IN_PROGRESS', 1, 'IN_PROGRESS')
>>> board.handle({"type": "undo"})
>>> board.moves, board.can_redo
(0, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

try:
    import anywidget
    import traitlets
except ImportError as exc:  # pragma: no cover - exercised by a monkeypatched import
    raise ImportError(
        "numsweeper.widget needs anywidget; install it with: pip install numsweeper[widget]"
    ) from exc

from . import solver
from ._constants import EXPLODED, FLAG, HIDDEN
from ._validate import make_rng, short_repr
from .errors import IllegalMoveError, InvalidBoardError, InvalidTypeError, MinesweeperError
from .game import Game, GameState, Snapshot
from .render import downsample, png_bytes

__all__ = [
    "DOM_MAX_CELLS",
    "OVERLAY_CERTAIN_MINE",
    "OVERLAY_CERTAIN_SAFE",
    "OVERLAY_NONE",
    "VIEW_MAX_CELLS",
    "VIEW_SIDE",
    "BoardWidget",
    "widget",
]

_STATIC = Path(__file__).parent / "static"

#: Boards with at most this many cells are drawn one element per cell (64 x
#: 64; expert is 480); larger ones on a canvas that shows a window of them.
DOM_MAX_CELLS: Final = 4096

#: Longest side, in pixels, of the canvas of a large board and of the image
#: sent for a zoomed-out window.
VIEW_SIDE: Final = 512

#: A window of a large board at most this many cells a side is sent cell by
#: cell (and can be played); a wider one as a down-sampled image.
VIEW_MAX_CELLS: Final = 64

# Overlay codes (``BoardWidget.overlay_codes``, one uint8 per cell): 0..100
# is a hidden cell's mine probability in whole percent (1..99 unless
# certain), and the three below mark the rest.

#: Overlay code of a hidden or flagged cell that is certainly safe.
OVERLAY_CERTAIN_SAFE: Final = 101
#: Overlay code of a hidden or flagged cell that is certainly a mine.
OVERLAY_CERTAIN_MINE: Final = 102
#: Overlay code of a revealed cell, which has no probability.
OVERLAY_NONE: Final = 255

# Events ringed on a large board, at most this many exploded mines.
_MAX_EVENTS = 16


class BoardWidget(anywidget.AnyWidget):
    """A Jupyter widget playing a :class:`~numsweeper.Game`; make one with :func:`widget`.

    The synced traits are what the front end shows; they are written by
    Python only, except ``overlay`` and ``view``, which the front end sets.

    Parameters
    ----------
    game : Game
        The game to play, as in :func:`widget`.
    seed : None, int, SeedSequence or Generator, optional
        Seeds the games that "new game" deals.
    overlay : bool
        Start with the analysis overlay on.

    Raises
    ------
    InvalidTypeError
        If ``game`` is not a :class:`~numsweeper.Game`, or ``seed`` is of a
        kind numpy cannot seed from.
    InvalidBoardError
        If ``seed`` is a negative integer.
    traitlets.TraitError
        If ``overlay`` is not a bool.

    Attributes
    ----------
    game : Game
        The game being played (a new one after "new game").
    rows, cols, mine_count : int
        The board's size.
    cells : bytes
        Visible codes, int8, row-major: the whole board (small boards), or
        the window ``view_shape`` when it is sent cell by cell.
    state : str
        ``'IN_PROGRESS'``, ``'WON'`` or ``'LOST'``.
    mines_left, moves : int
        Mines minus flags; moves made.
    elapsed : float
        The game's time when last updated; ``running`` says whether it is
        still counting.
    can_undo, can_redo : bool
        Whether there is a move to take back, or to play again.
    message : str
        Why the last action was refused, or empty.
    overlay : bool
        Whether the analysis overlay is on (set by the front end).
    overlay_codes : bytes
        One uint8 per cell while the overlay is on (see
        :data:`OVERLAY_NONE` and neighbours).
    hint : list of int
        ``[row, col]`` of the solver's move, or empty.
    hint_text : str
        The hint in words, or why there is none.
    large : bool
        Whether the board is drawn on a canvas, in windows.
    view : list of float
        ``[top, left, height, width]`` in cells: the window the front end
        shows (set by the front end).
    view_shape : list of int
        The window last sent, as whole cells.
    view_image : bytes
        A PNG of that window when it is too wide to send cell by cell.
    events : list
        ``[row, col, kind]`` of the exploded mines (``'exploded'``) and the
        last click (``'last'``), for markers of a fixed screen size.

    Examples
    --------
    The traits can be read without a front end:

    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.widget import BoardWidget
    >>> board = BoardWidget(ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)])))
    >>> board.rows, board.cols, board.state, board.mines_left, board.large
    (3, 3, 'IN_PROGRESS', 1, False)
    >>> bool((np.frombuffer(board.cells, np.int8) == ns.HIDDEN).all())
    True
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    rows = traitlets.Int(0).tag(sync=True)
    cols = traitlets.Int(0).tag(sync=True)
    mine_count = traitlets.Int(0).tag(sync=True)
    cells = traitlets.Bytes(b"").tag(sync=True)
    state = traitlets.Unicode("IN_PROGRESS").tag(sync=True)
    mines_left = traitlets.Int(0).tag(sync=True)
    moves = traitlets.Int(0).tag(sync=True)
    elapsed = traitlets.Float(0.0).tag(sync=True)
    running = traitlets.Bool(False).tag(sync=True)
    can_undo = traitlets.Bool(False).tag(sync=True)
    can_redo = traitlets.Bool(False).tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    overlay = traitlets.Bool(False).tag(sync=True)
    overlay_codes = traitlets.Bytes(b"").tag(sync=True)
    hint = traitlets.List(traitlets.Int(), default_value=[]).tag(sync=True)
    hint_text = traitlets.Unicode("").tag(sync=True)
    large = traitlets.Bool(False).tag(sync=True)
    view = traitlets.List(traitlets.Float(), default_value=[]).tag(sync=True)
    view_shape = traitlets.List(traitlets.Int(), default_value=[]).tag(sync=True)
    view_image = traitlets.Bytes(b"").tag(sync=True)
    events = traitlets.List(traitlets.List(), default_value=[]).tag(sync=True)

    def __init__(self, game: Game, *, seed: Any = None, overlay: bool = False) -> None:
        if not isinstance(game, Game):
            raise InvalidTypeError(f"widget needs a Game, got {type(game).__name__}")
        rng = make_rng(seed)
        super().__init__()
        self.game = game
        self._rng = rng
        self._redo_depth = 0
        self._snapshot: Snapshot | None = None
        self._adopt(game)
        self.overlay = overlay
        self.on_msg(self._on_message)
        self.observe(self._on_overlay, names="overlay")
        self.observe(self._on_view, names="view")
        self.refresh()

    def __repr__(self) -> str:
        return f"<BoardWidget {self.game!r}>"

    # -- actions ------------------------------------------------------------------

    def handle(self, message: Mapping[str, Any]) -> None:
        """Play one front-end message and update what the front end shows.

        Parameters
        ----------
        message : mapping
            ``{"type": "click" | "flag" | "chord", "row": r, "col": c}`` or
            ``{"type": "undo" | "redo" | "new"}``.  A click reveals a hidden
            cell and chords a revealed number whose flags are all placed;
            anything else it does nothing.

        Notes
        -----
        A refused action (a flag on a revealed cell, a move after the game
        ended, undo with nothing to undo, a malformed message) changes
        nothing and is explained in :attr:`message`; it never raises, since
        there is no one to catch it in a browser.

        Raises
        ------
        AttributeError
            Only if ``message`` is not a mapping (a bug of the caller, never
            a refused action).

        Examples
        --------
        >>> import numsweeper as ns
        >>> from numsweeper.widget import widget
        >>> board = widget(ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)])))
        >>> board.handle({"type": "flag", "row": 5, "col": 0})
        >>> board.message, board.moves
        ('row 5 is off the board (rows 0..2)', 0)
        >>> board.handle({"type": "click", "row": 2, "col": 2})
        >>> board.state, board.moves, board.message
        ('WON', 1, '')
        """
        kind = message.get("type")
        try:
            if kind in ("click", "flag", "chord"):
                row, col = message.get("row"), message.get("col")
                played = self._play(str(kind), row, col)
                if played:
                    self._redo_depth = 0
            elif kind == "undo":
                self.game.undo()
                self._redo_depth += 1
            elif kind == "redo":
                self.game.redo()
                self._redo_depth -= 1
            elif kind == "new":
                self.new_game()
                return
            else:
                raise InvalidBoardError(f"unknown widget action {short_repr(kind)}")
        except (MinesweeperError, TypeError, ValueError) as exc:
            self.refresh(message=str(exc))
            return
        self.refresh()

    def _play(self, kind: str, row: Any, col: Any) -> bool:
        """Play a click, flag or chord; return whether a move was made."""
        game = self.game
        if kind == "flag":
            game.toggle_flag(row, col)
            return True
        if kind == "chord":
            game.chord(row, col)
            return True
        snap = self._current()
        if game.state is not GameState.IN_PROGRESS:
            game.reveal(row, col)  # raises GameOverError, which says why
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (row, col)):
            raise InvalidTypeError(
                f"row and col must be integers, got {short_repr(row)} and {short_repr(col)}"
            )
        if not (0 <= row < game.rows and 0 <= col < game.cols):
            game.reveal(row, col)  # raises OutOfBoundsError
        code = int(snap.cells[row, col])
        if code == HIDDEN:
            game.reveal(row, col)
            return True
        if code == FLAG:
            raise IllegalMoveError(
                f"cell ({row}, {col}) is flagged: right-click to remove the flag"
            )
        if code > 0 and _satisfied(snap.cells, row, col):
            game.chord(row, col)
            return True
        return False

    def new_game(self) -> None:
        """Start a new game of the same size, mine count and first-click rule.

        Its mines are placed uniformly at random by a generator spawned from
        the widget's ``seed``, so a seeded widget deals the same sequence of
        games.

        Examples
        --------
        >>> import numsweeper as ns
        >>> from numsweeper.widget import widget
        >>> board = widget(ns.Game.new(9, 9, 10, seed=1), seed=7)
        >>> twin = widget(ns.Game.new(9, 9, 10, seed=1), seed=7)
        >>> first = board.game
        >>> board.new_game()
        >>> twin.new_game()
        >>> board.game is first, board.game.mine_count, board.moves
        (False, 10, 0)
        >>> for b in (board, twin):
        ...     b.handle({"type": "click", "row": 4, "col": 4})
        >>> board.cells == twin.cells  # the same game
        True
        """
        old = self.game
        (child,) = self._rng.spawn(1)
        game = Game.new(old.rows, old.cols, old.mine_count, seed=child, first_click=old.first_click)
        self._adopt(game)
        self.refresh()

    def _adopt(self, game: Game) -> None:
        self.game = game
        self._redo_depth = 0
        self._snapshot = None
        large = game.rows * game.cols > DOM_MAX_CELLS
        with self.hold_sync():
            self.rows, self.cols, self.mine_count = game.rows, game.cols, game.mine_count
            self.large = large
            if not large:
                self.view = []
            elif len(self.view) != 4:  # a new game of the same size keeps the view
                self.view = [0.0, 0.0, float(game.rows), float(game.cols)]

    # -- what the front end shows ---------------------------------------------------

    def refresh(self, *, message: str = "") -> None:
        """Send the game's current position to the front end.

        Call it after playing the game from Python while the widget is
        shown; actions made through the widget refresh it themselves.

        Parameters
        ----------
        message : str
            Shown as :attr:`message`, why the last action was refused; empty
            by default, which clears an earlier one.

        Examples
        --------
        >>> import numsweeper as ns
        >>> from numsweeper.widget import widget
        >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
        >>> board = widget(game)
        >>> game.toggle_flag(0, 0)  # played from Python: the widget still shows 1 mine left
        True
        >>> board.mines_left
        1
        >>> board.refresh()
        >>> board.mines_left, board.can_undo
        (0, True)
        """
        game = self.game
        snap = self._snapshot = game.snapshot()
        moves = game.moves
        with self.hold_sync():
            self.state = snap.state.name
            self.mines_left = snap.mines_left
            self.moves = len(moves)
            self.elapsed = game.elapsed
            self.running = snap.state is GameState.IN_PROGRESS and any(
                move.kind == "reveal" for move in moves
            )
            self.can_undo = bool(moves)
            self.can_redo = self._redo_depth > 0
            self.message = message
            if self.large:
                self._send_view(snap.cells)
            else:
                self.cells = snap.cells.tobytes()
            self._send_analysis(snap)
            self.events = _events(snap.cells, moves[-1] if moves else None)

    def _current(self) -> Snapshot:
        """The last snapshot sent, unless the game moved since (played from Python)."""
        game = self.game
        snap = self._snapshot
        if snap is None or self.moves != len(game.moves) or snap.state is not game.state:
            snap = self._snapshot = game.snapshot()
        return snap

    def _send_analysis(self, snap: Snapshot) -> None:
        hint: list[int] = []
        text = ""
        codes = b""
        if self.overlay and not self.large and snap.state is GameState.IN_PROGRESS:
            try:
                analysis = solver.analyze(snap, self.game.mine_count)
                codes = overlay_codes(snap.cells, analysis).tobytes()
                move = solver.hint(self.game)
                hint = [move.row, move.col]
                risk = "safe" if move.certain else f"{move.probability:.0%} risk"
                text = f"hint: reveal ({move.row}, {move.col}), {risk}"
            except MinesweeperError as exc:
                text = f"no hint: {exc}"
        elif self.overlay and self.large:
            text = f"the analysis overlay needs a board of at most {DOM_MAX_CELLS:,} cells"
        self.overlay_codes = codes
        self.hint = hint
        self.hint_text = text

    def _send_view(self, cells: NDArray[np.int8]) -> None:
        top, left, height, width = self._window()
        window = cells[top : top + height, left : left + width]
        self.view_shape = [top, left, height, width]
        if max(height, width) <= VIEW_MAX_CELLS:
            self.cells = window.tobytes()
            self.view_image = b""
        else:
            self.cells = b""
            self.view_image = png_bytes(downsample(window, max_side=VIEW_SIDE))

    def _window(self) -> tuple[int, int, int, int]:
        """The front end's view as whole cells on the board: top, left, height, width."""
        rows, cols = self.rows, self.cols
        view = list(self.view)
        if len(view) != 4 or not all(math.isfinite(v) for v in view):
            view = [0.0, 0.0, float(rows), float(cols)]
        top, left, height, width = view
        # Every cell the view touches, kept on the board.
        bottom, right = math.ceil(top + height), math.ceil(left + width)
        top, left = math.floor(top), math.floor(left)
        height = min(max(1, bottom - top), rows)
        width = min(max(1, right - left), cols)
        top = min(max(0, top), rows - height)
        left = min(max(0, left), cols - width)
        return top, left, height, width

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, Mapping):
            self.handle(content)

    def _on_overlay(self, _change: Any) -> None:
        with self.hold_sync():
            self._send_analysis(self._current())

    def _on_view(self, _change: Any) -> None:
        if self.large:
            self._send_view(self._current().cells)


def _satisfied(cells: NDArray[np.int8], row: int, col: int) -> bool:
    """Whether a revealed number has as many flags around it as it shows, and a hidden cell."""
    block = cells[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2]
    flags = int(np.count_nonzero(block == FLAG))
    return flags == int(cells[row, col]) and bool((block == HIDDEN).any())


def _events(cells: NDArray[np.int8], last: Any) -> list[list[Any]]:
    events: list[list[Any]] = []
    if cells.min() <= EXPLODED:  # a cheap test before looking for the mine
        for r, c in np.argwhere(cells == EXPLODED)[:_MAX_EVENTS].tolist():
            events.append([r, c, "exploded"])
    if last is not None:
        events.append([last.row, last.col, "last"])
    return events


def overlay_codes(cells: NDArray[np.int8], analysis: solver.Analysis) -> NDArray[np.uint8]:
    """Encode an analysis for the overlay: one uint8 per cell.

    Parameters
    ----------
    cells : ndarray of int8, shape (rows, cols)
        Visible codes.
    analysis : numsweeper.solver.Analysis
        Of the same position.

    Returns
    -------
    ndarray of uint8, shape (rows, cols)
        For hidden and flagged cells, the mine probability in whole percent
        (1..99), or :data:`OVERLAY_CERTAIN_SAFE` / :data:`OVERLAY_CERTAIN_MINE`;
        :data:`OVERLAY_NONE` for revealed cells.

    Examples
    --------
    >>> import numpy as np
    >>> import numsweeper as ns
    >>> from numsweeper.widget import overlay_codes
    >>> H = ns.HIDDEN
    >>> cells = np.array([[H, H, H], [1, 2, 1], [0, 0, 0]], dtype=np.int8)
    >>> overlay_codes(cells, ns.solver.analyze(cells, 2)).tolist()
    [[102, 101, 102], [255, 255, 255], [255, 255, 255]]
    >>> overlay_codes(cells[:1], ns.solver.analyze(cells[:1], 1)).tolist()
    [[33, 33, 33]]
    """
    shown = (cells == HIDDEN) | (cells == FLAG)
    percent = np.clip(np.rint(np.nan_to_num(analysis.probabilities) * 100), 1, 99)
    codes = np.where(shown, percent, OVERLAY_NONE).astype(np.uint8)
    safe, mines = analysis.safe, analysis.mines
    codes[safe[:, 0], safe[:, 1]] = OVERLAY_CERTAIN_SAFE
    codes[mines[:, 0], mines[:, 1]] = OVERLAY_CERTAIN_MINE
    return codes


def widget(game: Game, *, seed: Any = None, overlay: bool = False) -> BoardWidget:
    """An interactive board playing ``game`` in Jupyter.

    Parameters
    ----------
    game : Game
        The game to play; moves made in the widget are made on it.  Play it
        from Python too, then call :meth:`BoardWidget.refresh`.
    seed : None, int, SeedSequence or Generator, optional
        Seeds the games that "new game" deals (each from a spawned child).
    overlay : bool
        Start with the analysis overlay on.

    Returns
    -------
    BoardWidget
        Display it (the last expression of a cell) to play.

    Raises
    ------
    InvalidTypeError
        If ``game`` is not a Game, or ``seed`` is not a seed.
    InvalidBoardError
        If ``seed`` is a negative integer.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.widget import widget
    >>> game = ns.Game.new(3, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> board = widget(game, overlay=True)
    >>> len(board.overlay_codes), board.hint_text.startswith("hint: reveal")
    (9, True)
    >>> board.handle({"type": "click", "row": 2, "col": 2})
    >>> board.state, board.mines_left, board.overlay_codes
    ('WON', 1, b'')
    """
    return BoardWidget(game, seed=seed, overlay=overlay)
