"""The board widget's Python side: front-end messages drive the game, state flows back.

Messages go through ipywidgets' own entry point (``_handle_msg``, what a
kernel's comm calls), and what the widget sends is caught at its comm, so
these tests see the wire protocol a real front end sees.  The browser side
is tested in test_widget_browser.py.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from importlib import resources
from typing import Any

import numpy as np
import pytest

pytest.importorskip("anywidget")

import numsweeper as ns
from numsweeper.render import downsample, png_bytes
from numsweeper.widget import (
    DOM_MAX_CELLS,
    OVERLAY_CERTAIN_MINE,
    OVERLAY_CERTAIN_SAFE,
    OVERLAY_NONE,
    VIEW_MAX_CELLS,
    BoardWidget,
    overlay_codes,
    widget,
)

# Mines of a hand-built 5 x 6 board:
#   * 1 . . 1 *       row 0
#   1 1 . . 1 1       row 1
#   . . . . . .       row 2
#   1 1 1 . . .       row 3
#   1 * 1 . . .       row 4
MINES = [(0, 0), (0, 5), (4, 1)]


def hand_game() -> ns.Game:
    return ns.Game.new(5, 6, 3, strategy=ns.FixedPlacement(MINES))


class Front:
    """A front end's copy of the model, fed by the messages the widget sends."""

    def __init__(self, board: BoardWidget) -> None:
        self.board = board
        self.sent: list[dict[str, Any]] = []
        self.state: dict[str, Any] = dict(board.get_state())

        def record(
            msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **_: Any
        ) -> None:
            if msg_type == "comm_msg" and data.get("method") == "update":
                state = dict(data["state"])
                for path, buffer in zip(data.get("buffer_paths", []), buffers or [], strict=True):
                    state[path[0]] = bytes(buffer)
                self.sent.append(state)
                self.state.update(state)

        board.comm.publish_msg = record

    def custom(self, content: dict[str, Any]) -> None:
        """What ``model.send(content)`` does in the browser."""
        self.board._handle_msg(
            {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
        )

    def update(self, **state: Any) -> None:
        """What ``model.set(...); model.save_changes()`` does in the browser."""
        self.board._handle_msg(
            {"content": {"data": {"method": "update", "state": state}}, "buffers": []}
        )

    def cells(self) -> np.ndarray:
        rows, cols = self.state["rows"], self.state["cols"]
        if self.state["large"]:
            _, _, rows, cols = self.state["view_shape"]
        return np.frombuffer(self.state["cells"], np.int8).reshape(rows, cols)

    def overlay(self) -> np.ndarray:
        codes = np.frombuffer(self.state["overlay_codes"], np.uint8)
        return codes.reshape(self.state["rows"], self.state["cols"])


def test_the_widget_shows_the_game() -> None:
    game = hand_game()
    board = widget(game)
    front = Front(board)
    assert (front.state["rows"], front.state["cols"], front.state["mine_count"]) == (5, 6, 3)
    assert np.array_equal(front.cells(), game.snapshot().cells)
    assert (front.state["state"], front.state["mines_left"], front.state["moves"]) == (
        "IN_PROGRESS",
        3,
        0,
    )
    assert not front.state["large"] and not front.state["can_undo"] and not front.state["running"]
    assert repr(board) == f"<BoardWidget {game!r}>"
    with pytest.raises(ns.InvalidTypeError, match=r"needs a Game, got Board$"):
        widget(game.board)  # type: ignore[arg-type]


def test_messages_play_the_game_and_the_state_flows_back() -> None:
    game = hand_game()
    front = Front(widget(game))
    front.custom({"type": "click", "row": 2, "col": 2})  # the opening
    assert game.moves[-1].kind == "reveal"
    assert np.array_equal(front.cells(), game.snapshot().cells)
    assert front.cells()[2, 2] == 0 and front.cells()[0, 0] == ns.HIDDEN
    assert front.state["moves"] == 1 and front.state["can_undo"] and front.state["running"]
    front.custom({"type": "flag", "row": 0, "col": 0})
    assert front.cells()[0, 0] == ns.FLAG and front.state["mines_left"] == 2
    # The opening revealed every safe cell but the isolated 1 at (4, 0).
    assert (np.argwhere(front.cells() == ns.HIDDEN) == [[0, 5], [4, 0], [4, 1]]).all()
    # (3, 1) shows 1 and its mine (4, 1) is not flagged: a click does nothing;
    # (1, 0) is satisfied but has no hidden neighbour: nothing either.
    front.custom({"type": "click", "row": 3, "col": 1})
    front.custom({"type": "click", "row": 1, "col": 0})
    assert len(game.moves) == 2 and front.state["message"] == ""
    front.custom({"type": "chord", "row": 3, "col": 1})  # an explicit chord is a move
    assert len(game.moves) == 3 and front.state["moves"] == 3
    front.custom({"type": "flag", "row": 4, "col": 1})
    front.custom({"type": "click", "row": 3, "col": 0})  # now satisfied: a chord
    assert [m.kind for m in game.moves] == ["reveal", "flag", "chord", "flag", "chord"]
    assert front.state["state"] == "WON" and not front.state["running"]
    assert np.array_equal(front.cells(), game.snapshot().cells)
    # Each action sent one batched update (the two idle clicks too).
    assert len(front.sent) == 7


def test_refused_actions_explain_themselves_and_change_nothing() -> None:
    game = hand_game()
    front = Front(widget(game))
    front.custom({"type": "undo"})
    assert "nothing to undo" in front.state["message"]
    front.custom({"type": "click", "row": 2, "col": 2})
    assert front.state["message"] == ""  # cleared by the next action
    before = game.snapshot()
    for message, words in [
        ({"type": "flag", "row": 2, "col": 2}, "revealed"),
        ({"type": "click", "row": 9, "col": 0}, "off the board|out of"),
        ({"type": "click", "row": "2", "col": 0}, "^row and col must be integers, got '2' and 0$"),
        ({"type": "dance"}, "^unknown widget action 'dance'$"),
        # a huge message is named, cut short
        ({"type": "d" * 100_000}, r"^unknown widget action 'd{76}\.\.\.$"),
        ({"type": "click", "row": 0, "col": "9" * 100_000}, r"got 0 and '9{76}\.\.\.$"),
    ]:
        front.custom(message)
        assert front.state["message"], message
        assert re.search(words, front.state["message"]), front.state["message"]
        assert game.snapshot() == before
    front.custom({"type": "flag", "row": 0, "col": 0})
    front.custom({"type": "click", "row": 0, "col": 0})
    assert "flagged" in front.state["message"]
    front.custom({"type": "click", "row": 4, "col": 1})  # boom
    assert front.state["state"] == "LOST" and not front.state["running"]
    front.custom({"type": "click", "row": 0, "col": 3})
    assert "LOST" in front.state["message"]


def test_undo_redo_and_their_buttons() -> None:
    game = hand_game()
    front = Front(widget(game))
    front.custom({"type": "click", "row": 2, "col": 2})
    front.custom({"type": "flag", "row": 0, "col": 0})
    front.custom({"type": "undo"})
    assert front.state["can_redo"] and front.state["moves"] == 1
    assert front.cells()[0, 0] == ns.HIDDEN and front.state["mines_left"] == 3
    front.custom({"type": "undo"})
    assert not front.state["can_undo"] and (front.cells() == ns.HIDDEN).all()
    front.custom({"type": "redo"})
    front.custom({"type": "redo"})
    assert not front.state["can_redo"] and front.cells()[0, 0] == ns.FLAG
    front.custom({"type": "redo"})
    assert "nothing to redo" in front.state["message"]
    front.custom({"type": "undo"})
    front.custom({"type": "flag", "row": 0, "col": 5})  # a new move forgets the redo
    assert not front.state["can_redo"]
    front.custom({"type": "click", "row": 4, "col": 1})
    assert front.state["state"] == "LOST"
    front.custom({"type": "undo"})  # a loss can be taken back
    assert front.state["state"] == "IN_PROGRESS"


def test_new_games_are_dealt_from_the_seed() -> None:
    fronts = [Front(widget(ns.Game.new(9, 9, 10, first_click="opening"), seed=7)) for _ in "ab"]
    layouts = []
    for front in fronts:
        old = front.board.game
        front.custom({"type": "new"})
        game = front.board.game
        assert game is not old
        assert (game.rows, game.cols, game.mine_count, game.first_click) == (9, 9, 10, "opening")
        assert front.state["moves"] == 0 and (front.cells() == ns.HIDDEN).all()
        front.custom({"type": "click", "row": 4, "col": 4})
        assert front.state["moves"] == 1
        assert game.board is not None
        layouts.append(game.board.mines)
    assert np.array_equal(*layouts)
    fronts[0].custom({"type": "new"})
    fronts[0].custom({"type": "click", "row": 4, "col": 4})
    assert not np.array_equal(fronts[0].board.game.board.mines, layouts[0])  # type: ignore[union-attr]


def test_the_front_end_never_receives_the_mines_while_playing() -> None:
    game = ns.Game.from_preset("expert", seed=5, first_click="opening")
    front = Front(widget(game, overlay=True))
    rng = np.random.default_rng(5)
    front.custom({"type": "click", "row": 8, "col": 15})
    board = game.board
    assert board is not None
    for _ in range(30):  # safe clicks and right flags, picked from the answer sheet
        hidden = np.argwhere(game.snapshot().cells == ns.HIDDEN)
        r, c = hidden[rng.integers(len(hidden))].tolist()
        front.custom({"type": "flag" if board.mines[r, c] else "click", "row": r, "col": c})
    assert game.state is ns.GameState.IN_PROGRESS
    hidden = np.argwhere((game.snapshot().cells == ns.HIDDEN) & board.mines)
    front.custom({"type": "click", "row": int(hidden[0, 0]), "col": int(hidden[0, 1])})
    assert front.state["state"] == "LOST"
    playing = front.sent[:-1]
    assert len(playing) == 31
    shown = [ns.MINE, ns.EXPLODED, ns.WRONG_FLAG]
    for state in playing:  # every move changed the cells, and none showed a mine
        assert not np.isin(np.frombuffer(state["cells"], np.int8), shown).any()
    assert (front.cells() == ns.EXPLODED).sum() == 1  # once lost, mines show
    assert (front.cells() == ns.MINE).sum() > 50
    assert set(front.state) >= {"cells", "overlay_codes"}
    assert not any(
        "mine" in name and name not in ("mine_count", "mines_left") for name in front.state
    )


def test_overlay_shows_the_analysis_and_the_hint_after_every_move() -> None:
    game = ns.Game.from_preset("beginner", seed=11, first_click="opening")
    front = Front(widget(game))
    assert front.state["overlay_codes"] == b"" and front.state["hint"] == []
    front.update(overlay=True)  # the front end's toggle
    assert front.overlay().shape == (9, 9)
    assert (front.overlay() == 12).all()  # before the first click: 10 mines in 81 cells
    hint = ns.solver.hint(game)
    assert front.state["hint"] == [hint.row, hint.col]
    for _ in range(3):
        front.custom({"type": "click", "row": hint.row, "col": hint.col})
        if game.state is not ns.GameState.IN_PROGRESS:
            break
        analysis = ns.solver.analyze(game.snapshot(), game.mine_count)
        np.testing.assert_array_equal(
            front.overlay(), overlay_codes(game.snapshot().cells, analysis)
        )
        hint = ns.solver.hint(game)
        assert front.state["hint"] == [hint.row, hint.col]
        assert f"({hint.row}, {hint.col})" in front.state["hint_text"]
    front.update(overlay=False)
    assert front.state["overlay_codes"] == b"" and front.state["hint"] == []


def test_overlay_codes() -> None:
    cells = np.array([[ns.HIDDEN, ns.FLAG, ns.HIDDEN], [1, 2, 1], [0, 0, 0]], np.int8)
    codes = overlay_codes(cells, ns.solver.analyze(cells, 2))
    assert codes.tolist() == [
        [OVERLAY_CERTAIN_MINE, OVERLAY_CERTAIN_SAFE, OVERLAY_CERTAIN_MINE],
        [OVERLAY_NONE] * 3,
        [OVERLAY_NONE] * 3,
    ]
    cells = np.array([[ns.HIDDEN] * 3 + [1], [ns.HIDDEN] * 4], np.int8)
    analysis = ns.solver.analyze(cells, 1)
    codes = overlay_codes(cells, analysis)
    p = analysis.probabilities
    uncertain = (cells < 0) & (p > 0) & (p < 1)
    assert uncertain.any()
    np.testing.assert_array_equal(codes[uncertain], np.clip(np.rint(p[uncertain] * 100), 1, 99))


def test_a_large_board_is_sent_as_windows() -> None:
    game = ns.Game.new(3000, 4000, 1_200_000, seed=2)
    front = Front(widget(game))
    assert front.state["large"] and DOM_MAX_CELLS < 3000 * 4000
    assert front.state["view_shape"] == [0, 0, 3000, 4000]
    assert front.state["cells"] == b""
    image = front.state["view_image"]
    assert image == png_bytes(downsample(game.snapshot().cells, max_side=512))
    assert len(image) < 600_000  # what crosses to the browser, for 12 million cells
    # Zoom in: the front end asks for a window of cells, and plays in it.
    front.update(view=[1000.4, 2000.0, 40.0, 50.5])
    assert front.state["view_shape"] == [1000, 2000, 41, 51]
    assert front.state["view_image"] == b""
    window = front.cells()
    assert np.array_equal(window, game.snapshot().cells[1000:1041, 2000:2051])
    board = game.board
    assert board is not None
    r, c = (np.argwhere(~board.mines[1000:1041, 2000:2051])[0] + (1000, 2000)).tolist()
    front.custom({"type": "click", "row": r, "col": c})
    assert game.moves[-1].kind == "reveal" and front.cells()[r - 1000, c - 2000] >= 0
    assert front.state["events"] == [[r, c, "last"]]
    # A wider window is an image again; views past the edges are clipped.
    front.update(view=[-50.0, 3900.0, 200.0, 300.0])
    assert front.state["view_shape"] == [0, 3700, 200, 300]
    assert front.state["cells"] == b"" and front.state["view_image"].startswith(b"\x89PNG")
    front.update(view=[0.0, 0.0, float("nan"), 1.0])  # nonsense: the whole board
    assert front.state["view_shape"] == [0, 0, 3000, 4000]
    mine = np.argwhere(board.mines)[0].tolist()
    front.custom({"type": "click", "row": mine[0], "col": mine[1]})
    assert front.state["state"] == "LOST"
    assert front.state["events"] == [[*mine, "exploded"], [*mine, "last"]]
    front.update(overlay=True)
    assert front.state["overlay_codes"] == b"" and "at most 4,096 cells" in front.state["hint_text"]


def test_windows_of_cells_stop_at_the_size_limit() -> None:
    front = Front(widget(ns.Game.new(100, 100, 500, seed=1)))
    front.update(view=[0.0, 0.0, VIEW_MAX_CELLS, VIEW_MAX_CELLS])
    assert front.cells().shape == (VIEW_MAX_CELLS, VIEW_MAX_CELLS)
    front.update(view=[0.0, 0.0, VIEW_MAX_CELLS, VIEW_MAX_CELLS + 1])
    assert front.state["cells"] == b"" and front.state["view_image"]


def test_refresh_after_playing_from_python() -> None:
    game = hand_game()
    board = widget(game)
    front = Front(board)
    game.reveal(2, 2)
    assert front.state["moves"] == 0
    board.refresh()
    assert front.state["moves"] == 1 and np.array_equal(front.cells(), game.snapshot().cells)
    assert 0 <= front.state["elapsed"] <= game.elapsed
    # A click reads the game, not what was last sent: (4, 0), hidden on the
    # page, was revealed from Python, so clicking it is not a reveal but an
    # unsatisfied number's click, which does nothing.
    game.reveal(4, 0)
    front.custom({"type": "click", "row": 4, "col": 0})
    assert [m.kind for m in game.moves] == ["reveal", "reveal"]
    assert front.state["moves"] == 2 and front.cells()[4, 0] == 1


def test_game_widget_and_the_shipped_front_end() -> None:
    game = hand_game()
    board = game.widget(overlay=True)
    assert isinstance(board, BoardWidget) and board.overlay and board.game is game
    static = resources.files("numsweeper") / "static"
    esm = (static / "widget.js").read_text(encoding="utf-8")
    assert "export default { render }" in esm
    assert board.get_state()["_esm"] == esm
    assert ".nsw-cell" in (static / "widget.css").read_text(encoding="utf-8")


def test_missing_anywidget_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anywidget", None)
    monkeypatch.delitem(sys.modules, "numsweeper.widget", raising=False)
    with pytest.raises(ImportError, match=r"pip install numsweeper\[widget\]"):
        importlib.import_module("numsweeper.widget")


def test_core_does_not_import_the_widget() -> None:
    code = (
        "import sys, numsweeper\n"
        "print('anywidget' in sys.modules, 'numsweeper.widget' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("seed", "error"),
    [(-1, ns.InvalidBoardError), ("x", ns.InvalidTypeError), (True, ns.InvalidTypeError)],
)
def test_a_bad_seed_is_named_before_the_widget_exists(seed: Any, error: type[Exception]) -> None:
    game = ns.Game.new(9, 9, 10, seed=1)
    with pytest.raises(error, match=re.escape(f"got {seed!r}")):
        widget(game, seed=seed)
    with pytest.raises(error, match=re.escape(f"got {seed!r}")):
        game.widget(seed=seed)
