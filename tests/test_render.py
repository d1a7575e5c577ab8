"""HTML and PNG rendering: structure on small boards, the size cut-off, the encoder."""

from __future__ import annotations

import html
import re
import struct
import zlib
from html.parser import HTMLParser

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import numsweeper as ns
from numsweeper import render
from numsweeper.render import (
    HTML_MAX_CELLS,
    batch_html,
    boards_html,
    cell_rgb,
    downsample,
    png_bytes,
    to_html,
    visible_text,
)

CODES = [*range(9), ns.HIDDEN, ns.FLAG, ns.MINE, ns.EXPLODED, ns.WRONG_FLAG]


def boards(side: int) -> st.SearchStrategy[np.ndarray]:
    shape = st.tuples(st.integers(1, side), st.integers(1, side))
    return arrays(np.int8, shape, elements=st.sampled_from(CODES))


# Plain reference: the class and text every code must get.
EXPECTED = {
    **{n: (f"ns-n{n}", str(n) if n else "") for n in range(9)},
    int(ns.HIDDEN): ("ns-hidden", ""),
    int(ns.FLAG): ("ns-flag", "\u2691"),
    int(ns.MINE): ("ns-mine", "\u25cf"),
    int(ns.EXPLODED): ("ns-exploded", "\u25cf"),
    int(ns.WRONG_FLAG): ("ns-wrong", "\u2691"),
}


class Cells(HTMLParser):
    """Collect the rows of <td> (class, text) and the <th> labels of the first table."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str]]] = []
        self.th: list[str] = []
        self.imgs: list[dict[str, str | None]] = []
        self._in: str | None = None
        self._text = ""
        self._class = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._in, self._text = tag, ""
            self._class = dict(attrs).get("class") or ""
        elif tag == "img":
            self.imgs.append(dict(attrs))

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self.rows[-1].append((self._class, self._text))
        elif tag == "th":
            self.th.append(self._text)
        if tag in ("td", "th"):
            self._in = None


def parse(page: str) -> Cells:
    parser = Cells()
    parser.feed(page)
    return parser


def cell_grid(page: str) -> list[list[tuple[str, str]]]:
    return [row for row in parse(page).rows if row]


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.int8, st.tuples(st.integers(1, 12), st.integers(1, 12)), elements=st.sampled_from(CODES)
    )
)
def test_every_cell_gets_its_class_and_text(cells: np.ndarray) -> None:
    grid = cell_grid(to_html(cells))
    assert grid == [[EXPECTED[int(v)] for v in row] for row in cells.tolist()]


def test_snapshot_game_and_board_display() -> None:
    game = ns.Game.new(3, 4, 2, strategy=ns.FixedPlacement([(0, 0), (2, 3)]))
    game.reveal(0, 3)
    game.toggle_flag(1, 0)  # a wrong flag
    snap = game.snapshot()
    assert snap._repr_html_() == to_html(snap)
    assert game._repr_html_() == to_html(game)
    assert "IN_PROGRESS" in game._repr_html_() and "mines left: 1" in game._repr_html_()
    assert [c for c, _ in cell_grid(to_html(snap))[1]] == ["ns-flag", "ns-n1", "ns-n1", "ns-n1"]
    game.reveal(0, 0)  # boom
    grid = cell_grid(game._repr_html_())
    assert grid[0][0] == ("ns-exploded", "\u25cf")
    assert grid[1][0] == ("ns-wrong", "\u2691")
    assert grid[2][3] == ("ns-mine", "\u25cf")
    assert "LOST" in game._repr_html_()
    assert "mines left" not in game._repr_html_()  # only while playing

    board = game.board
    assert board is not None
    grid = cell_grid(board._repr_html_())
    want = np.where(board.mines, ns.MINE, board.counts).tolist()
    assert grid == [[EXPECTED[v] for v in row] for row in want]
    assert "Board 3×4, 2 mines" in board._repr_html_()


def test_text_rendering_is_unchanged() -> None:
    game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    game.reveal(1, 2)
    assert str(game.snapshot()) == "#1.\n#1."
    assert str(game) == visible_text(game.snapshot().cells)
    assert str(ns.Board([[True, False, False]])) == "*1."


def test_labels_and_caption_escaping() -> None:
    cells = np.full((2, 3), ns.HIDDEN, np.int8)
    page = to_html(cells, caption='<script>alert("x")</script> & co')
    assert "<script>" not in page
    assert html.escape('<script>alert("x")</script> & co') in page
    assert parse(page).th == ["", "0", "1", "2", "0", "1"]
    assert parse(to_html(cells, labels=False)).th == []
    assert parse(to_html(np.full((2, 41), ns.HIDDEN, np.int8))).th == []


@pytest.mark.parametrize(
    ("bad", "error", "words"),
    [
        ([[9]], ns.InvalidBoardError, "cell (0, 0) holds 9, which is not a visible code"),
        ([[-6]], ns.InvalidBoardError, "cell (0, 0) holds -6"),
        ([[300]], ns.InvalidBoardError, "cell (0, 0) holds 300"),  # (not wrapped to 44)
        ([0, 1], ns.InvalidBoardError, "must be a non-empty 2-D array, got shape (2,)"),
        ([[0], [0, 1]], ns.InvalidBoardError, "must be a rectangular array, got [[0], [0, 1]]"),
        ([[0.5]], ns.InvalidTypeError, "must hold integers, got dtype float64"),
        ([[True]], ns.InvalidTypeError, "must hold integers, got dtype bool"),
    ],
)
def test_bad_arrays_are_rejected(bad: object, error: type[Exception], words: str) -> None:
    # the same checks for every function that takes visible codes
    for call in (to_html, cell_rgb, downsample):
        with pytest.raises(error, match=re.escape(words)):
            call(bad)


def test_a_caption_or_an_image_side_of_the_wrong_type_is_named() -> None:
    cells = np.zeros((2, 2), np.int8)
    with pytest.raises(ns.InvalidTypeError, match="caption must be a string, got 5"):
        to_html(cells, caption=5)  # type: ignore[arg-type]
    with pytest.raises(ns.InvalidTypeError, match="caption must be a string, got 5"):
        batch_html(cells[None], caption=5)  # type: ignore[arg-type]
    with pytest.raises(ns.InvalidBoardError, match="max_side must be >= 1, got 0"):
        downsample(cells, max_side=0)
    with pytest.raises(ns.InvalidTypeError, match=r"max_side must be an integer, got 2\.5"):
        downsample(cells, max_side=2.5)  # type: ignore[arg-type]


def test_unknown_objects_are_rejected() -> None:
    with pytest.raises(TypeError, match="got str"):
        to_html("###")


def test_size_cut_off() -> None:
    at_limit = np.zeros((64, HTML_MAX_CELLS // 64), np.int8)
    page = to_html(at_limit)
    assert page.count("<td") == HTML_MAX_CELLS and "<img" not in page
    over = np.zeros((64, HTML_MAX_CELLS // 64 + 1), np.int8)
    page = to_html(over)
    assert "<td" not in page and page.count("<img") == 1
    assert f"64&#215;65 = {64 * 65:,} cells" in page
    assert "<td" not in to_html(np.zeros((3, 3), np.int8), max_cells=8)


def test_large_board_html_stays_small() -> None:
    game = ns.Game.new(2000, 1500, 450_000, seed=1)
    game.reveal(5, 5)
    page = to_html(game)
    assert len(page) < 400_000
    (img,) = parse(page).imgs
    assert "2,000&#215;1,500 = 3,000,000 cells" in page
    assert "1 pixel = 4&#215;4 cells" in page
    png = decode_png(base64_payload(img["src"]))
    assert png.shape == (500, 375, 3)


def base64_payload(src: str | None) -> bytes:
    import base64

    assert src is not None and src.startswith("data:image/png;base64,")
    return base64.b64decode(src.split(",", 1)[1])


def decode_png(data: bytes) -> np.ndarray:
    """A plain PNG reader for 8-bit RGB, filter 0: checks every CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks.append((tag, body))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, kind, _, _, _ = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, kind) == (8, 2)
    raw = zlib.decompress(b"".join(b for t, b in chunks if t == b"IDAT"))
    rows = [raw[i * (1 + 3 * width) : (i + 1) * (1 + 3 * width)] for i in range(height)]
    assert all(row[0] == 0 for row in rows)
    return np.array([list(row[1:]) for row in rows], np.uint8).reshape(height, width, 3)


@settings(max_examples=30, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 9), st.integers(1, 9), st.just(3))))
def test_png_round_trip(rgb: np.ndarray) -> None:
    assert np.array_equal(decode_png(png_bytes(rgb)), rgb)


def test_png_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="uint8"):
        png_bytes(np.zeros((2, 2, 3), np.float64))
    with pytest.raises(ValueError, match="shape"):
        png_bytes(np.zeros((2, 2), np.uint8))


# The category of each code, as render.POOLED names them, and its pooled colour.
CATEGORY = {
    **{n: "revealed" for n in range(9)},
    int(ns.HIDDEN): "hidden",
    int(ns.FLAG): "flag",
    int(ns.MINE): "mine",
    int(ns.EXPLODED): "exploded",
    int(ns.WRONG_FLAG): "wrong flag",
}
POOLED_COLOUR = {
    "exploded": (255, 0, 0),
    "wrong flag": (255, 0, 255),
    "flag": (255, 140, 0),
    "mine": (32, 32, 32),
    "revealed": (228, 228, 228),
    "hidden": (158, 158, 158),
}


def reference_downsample(cells: np.ndarray, max_side: int) -> np.ndarray:
    """Block means, then rare categories pooled, one block and one cell at a time."""
    rows, cols = cells.shape
    f = -(-max(rows, cols) // max_side)
    if f == 1:
        return render.cell_rgb(cells)
    out = np.zeros((-(-rows // f), -(-cols // f), 3), np.uint8)
    held: dict[tuple[int, int], set[str]] = {}
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            block = cells[i * f : (i + 1) * f, j * f : (j + 1) * f]
            colours = [render.cell_rgb(np.array([[v]], np.int8))[0, 0] for v in block.ravel()]
            total = np.sum(colours, axis=0)
            out[i, j] = (total + len(colours) // 2) // len(colours)
            held[i, j] = {CATEGORY[int(v)] for v in block.ravel()}
    blocks = len(held)
    priority = list(render.POOLED)
    for name in reversed(priority):
        where = [key for key, names in held.items() if name in names]
        if name == "exploded" or len(where) <= render.POOL_BELOW * blocks:
            for key in where:
                out[key] = POOLED_COLOUR[name]
    return out


@settings(max_examples=40, deadline=None)
@given(
    arrays(
        np.int8, st.tuples(st.integers(1, 25), st.integers(1, 25)), elements=st.sampled_from(CODES)
    ),
    st.integers(1, 8),
)
def test_downsample_matches_block_means(cells: np.ndarray, max_side: int) -> None:
    got = downsample(cells, max_side=max_side)
    assert max(got.shape[:2]) <= max_side
    assert np.array_equal(got, reference_downsample(cells, max_side))


def test_downsample_in_bands_matches_block_means(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "_BAND_CELLS", 40)  # several bands, a ragged last one
    rng = np.random.default_rng(3)
    for shape, side in [((37, 23), 5), ((50, 9), 7), ((9, 50), 4)]:
        cells = rng.choice(np.array(CODES, np.int8), size=shape)
        assert np.array_equal(downsample(cells, max_side=side), reference_downsample(cells, side))


def test_digit_colours_are_traditional() -> None:
    assert dict(render.DIGIT_COLORS) == {
        1: "#0000ff",
        2: "#008000",
        3: "#ff0000",
        4: "#000080",
        5: "#800000",
        6: "#008080",
        7: "#000000",
        8: "#808080",
    }
    for n, colour in render.DIGIT_COLORS.items():
        assert re.search(rf"td\.ns-n{n}\{{color:{colour}", to_html(np.zeros((1, 1), np.int8)))


def test_batch_shows_first_boards_with_indices() -> None:
    visible = np.full((10, 3, 4), ns.HIDDEN, np.int8)
    visible[2, 0, 0] = ns.FLAG
    states = [ns.GameState.IN_PROGRESS] * 9 + [ns.GameState.WON]
    page = batch_html(visible, states=states, mines_left=np.arange(10))
    assert page.count("<table") == render.BATCH_SHOW
    assert page.count("<td") == render.BATCH_SHOW * 12
    assert page.count('class="ns-flag"') == 1
    for i in range(render.BATCH_SHOW):
        assert f"#{i} · IN_PROGRESS · {i} left" in page
    assert "#6" not in page.replace("#0–#5", "")
    assert "10 games 3×4, showing #0–#5" in page
    assert batch_html(visible, limit=20).count("<table") == 10
    assert batch_html(visible[:0]).count("<table") == 0


def test_batch_only_validates_what_it_shows() -> None:
    visible = np.zeros((3, 2, 2), np.int8)
    visible[2, 0, 0] = 42
    assert batch_html(visible, limit=2).count("<table") == 2
    with pytest.raises(ns.InvalidBoardError, match="42"):
        batch_html(visible)
    with pytest.raises(ns.InvalidBoardError, match="3-D"):
        batch_html(np.zeros((2, 2), np.int8))


def test_batch_of_large_boards_shows_images() -> None:
    page = batch_html(np.zeros((2, 100, 100), np.int8))
    assert page.count("<img") == 2 and "<td" not in page


def test_boards_html_shows_layouts() -> None:
    batch = ns.generate_boards(50, 5, 6, 7, seed=3)
    page = boards_html(batch.mines, batch.counts, limit=3)
    assert "50 boards 5×6, 7 mines, showing #0–#2" in page
    tables = page.split("<table")[1:]
    assert len(tables) == 3
    for i, table in enumerate(tables):
        grid = cell_grid("<table" + table)
        want = np.where(batch.mines[i], ns.MINE, batch.counts[i]).tolist()
        assert grid == [[EXPECTED[v] for v in row] for row in want]
    with pytest.raises(ns.InvalidBoardError, match="one shape"):
        boards_html(batch.mines, batch.counts[:, :2])


def test_batch_game_display_matches_its_games() -> None:
    games = ns.BatchGame.new(50, 6, 7, 8, seed=2, first_click="opening")
    n = len(games)
    games.reveal(np.full(n, 3), np.full(n, 3))
    games.toggle_flag(np.zeros(n, np.intp), np.zeros(n, np.intp))
    first = np.arange(4)
    page = batch_html(
        games.visible_of(first),
        states=games.states[first],
        mines_left=games.mines_left[first],
        total=n,
    )
    assert "50 games 6×7, showing #0–#3" in page
    tables = page.split("<table")[1:]
    assert len(tables) == 4
    for i, table in enumerate(tables):
        snap = games[i].snapshot()
        want = [[EXPECTED[v] for v in row] for row in snap.cells.tolist()]
        assert cell_grid("<table" + table) == want
        assert f"#{i} · {snap.state.name} · {snap.mines_left} left" in page
    with pytest.raises(ValueError, match="total"):
        batch_html(games.visible_of(first), total=3)


def test_batch_objects_display_themselves() -> None:
    batch = ns.generate_boards(50, 5, 6, 7, seed=3)
    assert batch._repr_html_() == boards_html(batch.mines, batch.counts)
    assert "50 boards 5×6, 7 mines" in batch._repr_html_()
    games = ns.BatchGame(batch)
    games.reveal(np.full(50, 2), np.full(50, 2))
    page = games._repr_html_()
    assert page.count("<table") == render.BATCH_SHOW
    assert f"50 games 5×6, showing #0–#{render.BATCH_SHOW - 1}" in page
    for i in range(render.BATCH_SHOW):
        assert f"#{i} · {games.states[i].name}" in page


def test_captions_count_one_mine_and_one_board_in_the_singular() -> None:
    game = ns.Game.new(1, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    assert "Game 1×3, 1 mine ·" in game._repr_html_()
    assert game.board is not None and "Board 1×3, 1 mine<" in game.board._repr_html_()
    one = ns.generate_boards(1, 3, 3, 1, seed=0)._repr_html_()
    assert "1 board 3×3, 1 mine<" in one
    many = ns.generate_boards(2, 3, 3, 2, seed=0)._repr_html_()
    assert "2 boards 3×3, 2 mines<" in many


def test_pooled_colours_are_the_palette() -> None:
    for name, colour in POOLED_COLOUR.items():
        code = next(code for code, kind in CATEGORY.items() if kind == name)  # 0 for revealed
        assert tuple(render.cell_rgb(np.array([[code]], np.int8))[0, 0]) == colour
    assert tuple(render.POOLED) == tuple(POOLED_COLOUR)


def test_downsample_keeps_sparse_features_of_a_huge_board() -> None:
    """A few openings, flags and mines on 10^7 cells: each still shows, at its place."""
    cells = np.full((4000, 2500), ns.HIDDEN, np.int8)
    cells[1000:1003, 1000:1003] = 0  # 9 cells of the 64 in a block
    cells[3999, 0] = ns.FLAG
    cells[20, 2499] = ns.MINE
    cells[2222, 1111] = ns.EXPLODED
    image = downsample(cells, max_side=500)  # 8x8 cells a pixel
    assert image.shape == (500, 313, 3)
    assert tuple(image[125, 125]) == POOLED_COLOUR["revealed"]
    assert tuple(image[499, 0]) == POOLED_COLOUR["flag"]
    assert tuple(image[2, 312]) == POOLED_COLOUR["mine"]
    assert tuple(image[277, 138]) == POOLED_COLOUR["exploded"]
    plain = np.all(image == POOLED_COLOUR["hidden"], axis=2)
    assert np.count_nonzero(~plain) == 4


def test_common_categories_are_averaged_not_pooled() -> None:
    """Mines in most blocks would blacken the picture: their density shows as a shade."""
    rng = np.random.default_rng(0)
    cells = np.where(rng.random((400, 400)) < 0.2, ns.MINE, 0).astype(np.int8)
    image = downsample(cells, max_side=100)
    mine, blank = np.array(POOLED_COLOUR["mine"]), np.array(POOLED_COLOUR["revealed"])
    expected = (blank * 0.8 + mine * 0.2).round()
    assert abs(image.reshape(-1, 3).mean(axis=0) - expected).max() < 4


def test_exploded_mine_is_ringed_on_a_large_html_image() -> None:
    game = ns.Game.new(1500, 1500, 1000, seed=3)
    board = game.board
    assert board is not None
    r, c = np.argwhere(board.mines)[500]
    game.reveal(r, c)
    (img,) = parse(to_html(game)).imgs
    png = decode_png(base64_payload(img["src"]))
    f = 3
    centre = np.array([r // f, c // f])
    red = np.argwhere(np.all(png == (255, 0, 0), axis=2))
    distance = np.hypot(*(red - centre).T)
    assert (distance == 0).sum() == 1  # the mine itself
    ring = distance[distance > 0]
    assert len(ring) > 20
    assert np.all(np.abs(ring - render.EVENT_RING_RADIUS) < 1)
    assert "<img" not in to_html(ns.Game.new(10, 10, 5, seed=1))  # small boards: a table
