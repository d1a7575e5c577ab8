"""The board widget's front end in a real headless Chromium (Debian's chromium + chromium-driver).

A tiny HTTP server on 127.0.0.1 serves a page that loads the widget's ES
module exactly as shipped and renders it with a stand-in for anywidget's
model (``get``, ``set``, ``save_changes``, ``on``, ``off``, ``send``).  The
stand-in relays to Python as a kernel's comm would: ``send`` and
``save_changes`` reach the real :class:`~numsweeper.widget.BoardWidget`
through ``_handle_msg``, and the updates the widget sends back (state and
binary buffers) are applied to the page's model, firing ``change:`` events.
The test clicks cells and checks that the board on the page changes as the
game does.  Screenshots are saved under the test's temporary directory
(printed with ``-s``).
"""

from __future__ import annotations

import base64
import json
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("anywidget")
pytest.importorskip("selenium")

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

import numsweeper as ns
from numsweeper.widget import BoardWidget, widget

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT = 20  # seconds any expected change may take on a slow shared machine

if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip(
        "Chromium and its driver are not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>numsweeper widget</title>
<link rel="stylesheet" href="/widget.css"></head>
<body style="margin: 12px">
<div id="widget"></div>
<script type="module">
// anywidget's model, standing in for Jupyter's: changes go to Python and back.
function toView(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new DataView(bytes.buffer);
}
class Model {
  constructor() { this.state = {}; this.listeners = {}; this.dirty = {}; this.busy = 0; }
  get(name) { return this.state[name]; }
  set(name, value) {
    this.state[name] = value;
    this.dirty[name] = value;
    this.emit("change:" + name);
  }
  on(name, callback) { (this.listeners[name] ||= []).push(callback); }
  off(name, callback) {
    this.listeners[name] = (this.listeners[name] || []).filter((f) => f !== callback);
  }
  emit(name) { for (const f of this.listeners[name] || []) f(); }
  save_changes() {
    const state = this.dirty;
    this.dirty = {};
    return this.post({method: "update", state});
  }
  send(content) { return this.post({method: "custom", content}); }
  async post(data) {
    this.busy++;
    try {
      const reply = await fetch("/msg", {method: "POST", body: JSON.stringify(data)});
      this.apply(await reply.json());
    } finally { this.busy--; }
  }
  apply(messages) {
    for (const {state, buffer_paths, buffers} of messages) {
      buffer_paths.forEach((path, i) => { state[path[0]] = toView(buffers[i]); });
      for (const name of Object.keys(state)) {
        this.state[name] = state[name];
        this.emit("change:" + name);
      }
    }
  }
}
const model = new Model();
window.model = model;
model.apply(await (await fetch("/state")).json());
const module = await import("/widget.js");
module.default.render({model, el: document.getElementById("widget")});
window.rendered = true;
</script></body></html>
"""


class Harness:
    """Serves the page and relays the page's model to one widget, message by message."""

    def __init__(self) -> None:
        self.board: BoardWidget | None = None
        self.outbox: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        harness = self
        static = resources.files("numsweeper") / "static"

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/":
                    self.reply(PAGE.encode(), "text/html")
                elif self.path in ("/widget.js", "/widget.css"):
                    kind = "text/javascript" if self.path.endswith(".js") else "text/css"
                    self.reply((static / self.path[1:]).read_bytes(), kind)
                elif self.path == "/state":
                    with harness.lock:
                        self.reply(json.dumps([harness.full_state()]).encode(), "application/json")
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with harness.lock:
                    assert harness.board is not None
                    harness.outbox.clear()
                    harness.board._handle_msg({"content": {"data": data}, "buffers": []})
                    sent = json.dumps(harness.outbox).encode()
                self.reply(sent, "application/json")

            def reply(self, body: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def show(self, board: BoardWidget) -> None:
        """Relay the page to ``board``: what it sends through its comm goes to the page."""

        def record(msg_type: str, data: Any = None, buffers: Any = None, **_: Any) -> None:
            if msg_type == "comm_msg":
                self.outbox.append(_encoded(data, buffers or []))

        board.comm.publish_msg = record
        self.board = board

    def full_state(self) -> dict[str, Any]:
        assert self.board is not None
        state = {k: v for k, v in self.board.get_state().items() if not k.startswith("_")}
        binary = [k for k, v in state.items() if isinstance(v, bytes)]
        return _encoded(
            {
                "method": "update",
                "state": {k: v for k, v in state.items() if k not in binary},
                "buffer_paths": [[k] for k in binary],
            },
            [state[k] for k in binary],
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _encoded(data: dict[str, Any], buffers: list[Any]) -> dict[str, Any]:
    return {
        "state": data["state"],
        "buffer_paths": data.get("buffer_paths", []),
        "buffers": [base64.b64encode(bytes(b)).decode() for b in buffers],
    }


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    served = Harness()
    yield served
    served.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("widget_screenshots")
    print(f"\nscreenshots in {folder}")
    return folder


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=900,760",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium_profile')}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield browser
    browser.quit()


def open_widget(driver: WebDriver, harness: Harness, board: BoardWidget) -> None:
    harness.show(board)
    driver.get(harness.url)
    wait(driver, lambda: driver.execute_script("return window.rendered === true"), "render")


def wait(driver: WebDriver, check: Callable[[], Any], what: str) -> Any:
    return WebDriverWait(driver, WAIT, poll_frequency=0.05).until(lambda _: check(), what)


def settled(driver: WebDriver) -> bool:
    return bool(driver.execute_script("return window.model.busy === 0"))


def page_codes(driver: WebDriver) -> np.ndarray:
    """The visible codes the page shows, from its cells' data-code."""
    rows, cols, codes = driver.execute_script(
        "const cells = [...document.querySelectorAll('.nsw-grid .nsw-cell')];"
        "return [window.model.get('rows'), window.model.get('cols'),"
        " cells.map(cell => Number(cell.dataset.code))]"
    )
    return np.array(codes, np.int8).reshape(rows, cols)


def cell(driver: WebDriver, r: int, c: int) -> Any:
    return driver.find_element(By.CSS_SELECTOR, f'.nsw-cell[data-r="{r}"][data-c="{c}"]')


def text(driver: WebDriver, selector: str) -> str:
    return str(driver.find_element(By.CSS_SELECTOR, selector).text)


def act(driver: WebDriver, action: Callable[[], Any]) -> None:
    """Do something on the page and wait until Python has answered."""
    action()
    wait(driver, lambda: settled(driver), "the round trip to Python")


def chordable_game() -> tuple[ns.Game, tuple[int, int], tuple[int, int], tuple[int, int]]:
    """An expert-sized game whose first click (a zero cell) leaves a 1 to chord.

    Returns the game, the click, the 1 and its mine: once the mine is
    flagged, clicking the 1 chords open a hidden safe cell next to it.
    """
    for seed in range(100):
        rng = np.random.default_rng(seed)
        flat = rng.choice(16 * 30, 99, replace=False)
        mines = [(int(k) // 30, int(k) % 30) for k in flat]
        game = ns.Game.new(16, 30, 99, strategy=ns.FixedPlacement(mines))
        board = game.board
        assert board is not None
        zero = np.argwhere(~board.mines & (board.counts == 0))
        if not len(zero):
            continue
        trial = game.copy()
        trial.reveal(*zero[0])
        cells = trial.snapshot().cells
        for r, c in np.argwhere(cells == 1).tolist():
            around = (slice(max(r - 1, 0), r + 2), slice(max(c - 1, 0), c + 2))
            if ((cells[around] == ns.HIDDEN) & ~board.mines[around]).any():
                mr, mc = np.argwhere(board.mines[around])[0] + (max(r - 1, 0), max(c - 1, 0))
                return game, tuple(zero[0].tolist()), (r, c), (int(mr), int(mc))
    raise AssertionError("no layout to chord on")  # pragma: no cover


def test_playing_a_small_board_by_clicking(
    driver: WebDriver, harness: Harness, artifacts: Path
) -> None:
    game, first, number, mine = chordable_game()
    board = game.board
    assert board is not None
    open_widget(driver, harness, widget(game, seed=1))
    assert (page_codes(driver) == ns.HIDDEN).all()
    assert text(driver, ".nsw-counter") == "Mines left: 99"
    assert len(driver.find_elements(By.CSS_SELECTOR, ".nsw-grid .nsw-cell")) == 480

    act(driver, lambda: cell(driver, *first).click())
    assert len(game.moves) == 1
    assert (page_codes(driver) == game.snapshot().cells).all()
    assert int((page_codes(driver) >= 0).sum()) > 1  # an opening
    driver.save_screenshot(str(artifacts / "widget_opening.png"))

    # Right-click flags the 1's mine; the counter follows.
    act(driver, lambda: ActionChains(driver).context_click(cell(driver, *mine)).perform())
    assert page_codes(driver)[mine] == ns.FLAG
    assert text(driver, ".nsw-counter") == "Mines left: 98"

    # Clicking the satisfied 1 chords: its hidden safe neighbours open.
    hidden = int((page_codes(driver) == ns.HIDDEN).sum())
    act(driver, lambda: cell(driver, *number).click())
    assert game.moves[-1].kind == "chord"
    assert int((page_codes(driver) == ns.HIDDEN).sum()) < hidden
    assert (page_codes(driver) == game.snapshot().cells).all()

    # The analysis overlay colours hidden cells and rings the hint.
    act(driver, lambda: driver.find_element(By.CSS_SELECTOR, ".nsw-toggle input").click())
    assert board_widget(harness).overlay
    overlaid = driver.find_elements(By.CSS_SELECTOR, ".nsw-cell[data-overlay]")
    hidden = int(((game.snapshot().cells == ns.HIDDEN) | (game.snapshot().cells == ns.FLAG)).sum())
    assert len(overlaid) == hidden
    hint = ns.solver.hint(game)
    assert "nsw-hint" in cell(driver, hint.row, hint.col).get_attribute("class")
    assert text(driver, ".nsw-status").startswith("hint: reveal")
    driver.save_screenshot(str(artifacts / "widget_overlay.png"))

    # Undo takes the last move back on the page too; redo plays it again.
    before = page_codes(driver)
    moves = len(game.moves)
    act(driver, lambda: driver.find_element(By.CSS_SELECTOR, ".nsw-undo").click())
    assert len(game.moves) == moves - 1
    assert (page_codes(driver) == game.snapshot().cells).all()
    act(driver, lambda: driver.find_element(By.CSS_SELECTOR, ".nsw-redo").click())
    assert (page_codes(driver) == before).all()

    # A refused action says why.
    revealed = np.argwhere(page_codes(driver) >= 0)[0].tolist()
    act(driver, lambda: ActionChains(driver).context_click(cell(driver, *revealed)).perform())
    assert "revealed" in text(driver, ".nsw-status")

    # Losing: the exploded mine shows, the state says so.
    boom = np.argwhere(board.mines & (game.snapshot().cells == ns.HIDDEN))[0].tolist()
    act(driver, lambda: cell(driver, *boom).click())
    assert text(driver, ".nsw-state") == "Lost"
    assert page_codes(driver)[boom[0], boom[1]] == ns.EXPLODED
    driver.save_screenshot(str(artifacts / "widget_lost.png"))

    # New game: a fresh board of the same size, all hidden.
    act(driver, lambda: driver.find_element(By.CSS_SELECTOR, ".nsw-new").click())
    assert board_widget(harness).game is not game
    assert (page_codes(driver) == ns.HIDDEN).all() and text(driver, ".nsw-state") == "Playing"


def test_a_huge_board_is_a_canvas_that_zooms_in_to_play(
    driver: WebDriver, harness: Harness, artifacts: Path
) -> None:
    game = ns.Game.new(2000, 3000, 600_000, seed=4)
    open_widget(driver, harness, widget(game))
    # No element per cell: one canvas showing a down-sampled image.
    assert driver.execute_script("return document.querySelectorAll('*').length") < 100
    canvas = driver.find_element(By.CSS_SELECTOR, ".nsw-canvas")
    wait(driver, lambda: canvas.get_attribute("data-mode") == "image", "the overview image")
    driver.save_screenshot(str(artifacts / "widget_huge.png"))
    for _ in range(6):  # 3000 columns, halved until a window is sent cell by cell
        shown = canvas.get_attribute("data-view")
        driver.find_element(By.CSS_SELECTOR, ".nsw-zoom-in").click()
        wait(driver, lambda s=shown: canvas.get_attribute("data-view") != s, "the zoomed window")
    wait(driver, lambda: canvas.get_attribute("data-mode") == "cells", "a window of cells")
    wait(driver, lambda: settled(driver), "the round trip to Python")
    top, left, height, width = board_widget(harness).view_shape
    assert max(height, width) <= 64
    # Click the middle of the canvas: the cell under it is revealed in Python.
    view = driver.execute_script("return window.model.get('view')")
    row = int(view[0] + view[2] / 2)
    col = int(view[1] + view[3] / 2)
    act(driver, lambda: ActionChains(driver).move_to_element(canvas).click().perform())
    wait(driver, lambda: len(game.moves) == 1, "the click to reach Python")
    move = game.moves[0]
    assert abs(move.row - row) <= 1 and abs(move.col - col) <= 1
    assert top <= move.row < top + height and left <= move.col < left + width
    driver.save_screenshot(str(artifacts / "widget_huge_zoomed.png"))


# -- helpers ---------------------------------------------------------------------------


def board_widget(harness: Harness) -> BoardWidget:
    assert harness.board is not None
    return harness.board
