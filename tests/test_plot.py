"""ns.plot: headless PNGs, what is drawn, argument checks, and the missing-extra error."""

from __future__ import annotations

import importlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import matplotlib
import matplotlib.axes
import matplotlib.image
import matplotlib.text
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from scipy import ndimage

import numsweeper as ns
from numsweeper.plot import TEXT_MAX_CELLS, plot_board, plot_distribution

SRC = str(Path(ns.__file__).resolve().parents[1])


def axes() -> matplotlib.axes.Axes:
    return Figure(figsize=(4, 3), dpi=50).add_subplot()


def png_pixels(ax: matplotlib.axes.Axes) -> np.ndarray:
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png")
    buffer.seek(0)
    return matplotlib.image.imread(buffer, format="png")


def lost_game() -> ns.Game:
    game = ns.Game.new(4, 5, 3, strategy=ns.FixedPlacement([(0, 0), (1, 1), (3, 4)]))
    game.reveal(3, 0)
    game.toggle_flag(0, 4)  # wrong
    game.toggle_flag(1, 1)  # right
    game.reveal(0, 0)
    return game


def test_board_png_is_headless_sized_and_not_blank() -> None:
    pixels = png_pixels(plot_board(lost_game(), axes()))
    assert pixels.shape[:2] == (150, 200)
    colours = np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0)
    assert len(colours) > 20
    assert pixels[..., :3].std() > 0.1


def test_small_board_marks_every_cell_that_needs_one() -> None:
    game = lost_game()
    cells = game.snapshot().cells
    ax = plot_board(game, axes())
    marks = sorted(
        (round(t.get_position()[1]), round(t.get_position()[0]), t.get_text()) for t in ax.texts
    )
    symbol = {int(ns.FLAG): "F", int(ns.MINE): "*", int(ns.EXPLODED): "*", int(ns.WRONG_FLAG): "X"}
    want = sorted(
        (r, c, str(v) if v > 0 else symbol[v])
        for (r, c), v in np.ndenumerate(cells.astype(int))
        if v > 0 or v in symbol
    )
    assert marks == want
    assert ax.get_title() == "Game 4×5, 3 mines · LOST"
    image = ax.images[0].get_array()
    assert image.shape == (4, 5, 3)
    assert tuple(image[0, 0]) == (255, 0, 0)  # the exploded mine on red


def test_board_shows_layout_and_game_can_show_mines() -> None:
    game = ns.Game.new(5, 5, 4, strategy=ns.FixedPlacement([(0, 0), (0, 4), (4, 0), (3, 3)]))
    game.reveal(0, 2)
    game.toggle_flag(0, 0)
    assert game.state is ns.GameState.IN_PROGRESS
    assert [t.get_text() for t in plot_board(game, axes()).texts].count("*") == 0
    shown = plot_board(game, axes(), show_mines=True)
    assert [t.get_text() for t in shown.texts].count("*") == 3  # the flagged one stays a flag
    assert [t.get_text() for t in shown.texts].count("F") == 1
    assert game.board is not None
    layout = plot_board(game.board, axes())
    assert [t.get_text() for t in layout.texts].count("*") == 4
    assert len(layout.texts) == int(np.count_nonzero(game.board.mines | (game.board.counts > 0)))
    with pytest.raises(ValueError, match="show_mines"):
        plot_board(game.snapshot(), axes(), show_mines=True)
    with pytest.raises(TypeError, match="got dict"):
        plot_board({}, axes())
    with pytest.raises(ns.InvalidBoardError):
        plot_board([[0, 12]], axes())


def test_unplaced_game_with_show_mines_shows_hidden_cells() -> None:
    game = ns.Game.new(4, 4, 3, seed=0, first_click="safe")
    assert len(plot_board(game, axes(), show_mines=True).texts) == 0


def test_large_board_is_one_crisp_image_without_text() -> None:
    side = 5000
    cells = np.full((side, side // 2), ns.HIDDEN, np.int8)
    cells[:100, :100] = 0
    ax = plot_board(cells, axes())
    (image,) = ax.images
    assert image.get_array().shape == (1667, 834, 3)  # 3x3 cells a pixel
    assert image.get_interpolation() == "nearest"
    assert len(ax.texts) == 0
    assert ax.get_xlim() == (-0.5, side // 2 - 0.5)  # cell coordinates at any size
    assert ax.get_ylim() == (side - 0.5, -0.5)
    pixels = png_pixels(ax)
    assert pixels[..., :3].std() > 0.05


def test_text_threshold() -> None:
    rows = TEXT_MAX_CELLS // 32
    big = Figure(figsize=(8, 8), dpi=100)
    assert len(plot_board(np.ones((rows, 32), np.int8), big.add_subplot()).texts) == TEXT_MAX_CELLS
    assert len(plot_board(np.ones((rows, 33), np.int8), big.add_subplot()).texts) == 0
    # Cells too small for legible text go without: 32 cells across 2 inches.
    tiny = Figure(figsize=(2.5, 2.5), dpi=100).add_subplot()
    assert len(plot_board(np.ones((rows, 32), np.int8), tiny).texts) == 0


def test_probability_heat_map() -> None:
    game = lost_game()
    cells = game.snapshot().cells
    heat = np.where(cells < 0, 0.25, np.nan)
    heat[2, 2] = np.nan if cells[2, 2] >= 0 else 0.9
    ax = plot_board(ns.Game.new(4, 5, 3, seed=1), axes(), probabilities=heat)
    _, overlay = ax.images
    assert overlay.get_clim() == (0.0, 1.0)
    assert np.ma.is_masked(overlay.get_array())
    assert np.array_equal(overlay.get_array().mask, np.isnan(heat))
    assert len(ax.figure.axes) == 2  # the colour bar
    assert [t.get_text() for t in ax.texts].count("25") == int(np.sum(heat == 0.25))
    analysis = SimpleNamespace(probabilities=np.full((4, 5), 0.5))
    assert len(plot_board(ns.Game.new(4, 5, 3), axes(), probabilities=analysis).images) == 2
    with pytest.raises(ValueError, match=r"shape \(4, 5\)"):
        plot_board(game, axes(), probabilities=np.zeros((5, 4)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plot_board(game, axes(), probabilities=np.full((4, 5), 1.5))
    with pytest.raises(ns.InvalidTypeError, match="real numbers, got dtype complex128"):
        plot_board(game, axes(), probabilities=np.full((4, 5), 0.5 + 0j))  # (was cast silently)
    with pytest.raises(ns.InvalidTypeError, match="real numbers, got dtype <U1"):
        plot_board(game, axes(), probabilities=[["a"] * 5] * 4)


def test_large_probability_map_is_block_averaged() -> None:
    heat = np.full((4100, 10), np.nan)
    heat[:3] = 0.3
    heat[3, 0] = 0.9
    heat[0, 9] = np.nan
    ax = plot_board(np.full((4100, 10), ns.HIDDEN, np.int8), axes(), probabilities=heat)
    shown = ax.images[1].get_array()
    assert shown.shape == (1367, 4)  # 3x3 cells a pixel
    assert shown[0, 0] == pytest.approx(0.3)
    assert shown[1, 0] == pytest.approx(0.9)
    assert shown[0, 3] == pytest.approx(0.3)  # the last, partial block
    assert shown.mask[2:].all()


def test_distribution_marks_mean_and_sd() -> None:
    values = np.random.default_rng(5).integers(100, 250, 5000)
    ax = plot_distribution(values, axes(), label="3BV")
    mean, sd = values.mean(), values.std(ddof=1)
    lines = sorted(line.get_xdata()[0] for line in ax.lines)
    assert lines == pytest.approx([mean - sd, mean, mean + sd])
    text = ax.get_legend().get_texts()[0].get_text()
    assert text == f"3BV: mean {mean:.1f}, sd {sd:.1f} (n=5,000)"
    heights = [p.get_height() for p in ax.patches]
    assert sum(heights) == pytest.approx(1.0)
    assert len(heights) == values.max() - values.min() + 1  # one bin per integer
    assert ax.get_xlabel() == "3BV"


def test_distributions_share_an_axes() -> None:
    ax = axes()
    plot_distribution([1.5, 2.5, 2.0], ax, label="a")
    plot_distribution(np.arange(10), ax, label="b")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("a: mean 2.0, sd 0.5 (n=3)")
    assert labels[1].startswith("b: mean 4.5")
    colours = {line.get_color() for line in ax.lines}
    assert colours == {"C0", "C1"}
    plot_distribution([7], ax)  # one value: sd 0, no label needed


@pytest.mark.parametrize(
    ("values", "error", "words"),
    [
        ([], ns.InvalidBoardError, "non-empty 1-D array"),
        ([1.0, np.nan], ns.InvalidBoardError, "must be finite"),
        ([[1, 2]], ns.InvalidBoardError, "non-empty 1-D array, got shape (1, 2)"),
        (["a"], ns.InvalidTypeError, "must be real numbers, got dtype <U1"),
        ([1 + 2j], ns.InvalidTypeError, "must be real numbers, got dtype complex128"),
        ([1e308, -1e308], ns.InvalidBoardError, "span less than a float can hold"),
        ([[1], [1, 2]], ns.InvalidBoardError, "must be a rectangular array"),
    ],
)
def test_distribution_rejects_bad_values(
    values: object, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=re.escape(words)):
        plot_distribution(values, axes())


def test_new_figure_when_no_axes_given() -> None:
    import matplotlib.pyplot as plt

    try:
        ax = plot_board(ns.Board.create(3, 3, 1, ns.RandomPlacement(seed=0)))
        ax2 = plot_distribution([1, 2, 3])
        assert ax.figure is not ax2.figure
        assert plt.get_fignums() != []
    finally:
        plt.close("all")


def test_missing_matplotlib_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "matplotlib"] + ["matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "numsweeper.plot", raising=False)
    with pytest.raises(ImportError, match=r"pip install numsweeper\[plot\]"):
        importlib.import_module("numsweeper.plot")


def test_core_imports_without_matplotlib() -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import numsweeper as ns\n"
        "game = ns.Game.from_preset('expert', seed=0)\n"
        "assert '<table' in game._repr_html_()\n"
        "try:\n"
        "    from numsweeper import plot\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "pip install numsweeper[plot]" in out.stdout


def test_show_mines_on_a_large_board_darkens_their_pixels() -> None:
    game = ns.Game.new(100, 100, 2, strategy=ns.FixedPlacement([(50, 50), (0, 99)]))
    game.toggle_flag(0, 99)
    plain = plot_board(game, axes()).images[0].get_array()
    shown = plot_board(game, axes(), show_mines=True).images[0].get_array()
    assert tuple(plain[50, 50]) == (0x9E, 0x9E, 0x9E)
    assert tuple(shown[50, 50]) == (0x20, 0x20, 0x20)
    assert tuple(shown[0, 99]) == tuple(plain[0, 99]) == (0xFF, 0x8C, 0x00)  # flags stay flags
    assert np.count_nonzero((shown != plain).any(axis=2)) == 1


def test_make_figures_script(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[1] / "scripts" / "make_figures.py"
    subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path), "--boards", "300"],
        check=True,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    for name, shape in [("board.png", (540, 900)), ("distribution.png", (450, 900))]:
        pixels = matplotlib.image.imread(tmp_path / name)
        assert pixels.shape[:2] == shape
        assert pixels[..., :3].std() > 0.05


# -- legibility at matplotlib's default size ---------------------------------------


def expert_mid_game() -> ns.Game:
    """An expert game with openings, flags and a frontier full of probabilities."""
    game = ns.Game.from_preset("expert", seed=12, first_click="opening")
    game.reveal(7, 12)
    board = game.board
    assert board is not None
    rng = np.random.default_rng(12)
    for _ in range(60):
        cells = game.snapshot().cells
        near = ndimage.binary_dilation(cells >= 0, np.ones((3, 3), bool)) & (cells == ns.HIDDEN)
        frontier = np.argwhere(near)
        r, c = frontier[rng.integers(len(frontier))].tolist()
        if board.mines[r, c]:
            game.toggle_flag(r, c)
        else:
            game.reveal(r, c)
    assert game.state is ns.GameState.IN_PROGRESS
    return game


def text_boxes(figure: Figure) -> tuple[list[str], np.ndarray]:
    """Every text a draw of the figure puts on the canvas, and its window extent.

    Texts are caught as the renderer draws them, so tick labels outside the
    view (which exist but are not drawn) do not count.
    """
    drawn: list[matplotlib.text.Text] = []
    draw_text = RendererAgg.draw_text

    def record(
        self: RendererAgg, gc: Any, x: float, y: float, s: str, *args: Any, **kw: Any
    ) -> Any:
        mtext = kw.get("mtext", args[3] if len(args) > 3 else None)
        if mtext is not None and s.strip():
            drawn.append(mtext)
        return draw_text(self, gc, x, y, s, *args, **kw)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RendererAgg, "draw_text", record)
        FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = np.array([tuple(t.get_window_extent(renderer).extents) for t in drawn])
    return [t.get_text() for t in drawn], boxes.reshape(-1, 4)


def closest_pairs(boxes: np.ndarray, gap: float) -> list[tuple[int, int]]:
    """Pairs of boxes that overlap or come closer than ``gap`` pixels."""
    x0, y0, x1, y1 = boxes.T
    dx = np.maximum(x0[:, None] - x1[None, :], x0[None, :] - x1[:, None])
    dy = np.maximum(y0[:, None] - y1[None, :], y0[None, :] - y1[:, None])
    # Boxes apart along either axis by dx or dy; their distance is the larger.
    distance = np.maximum(dx, dy)
    close = np.triu(distance < gap, k=1)
    return [(int(i), int(j)) for i, j in np.argwhere(close)]


@pytest.mark.parametrize("show_mines", [False, True])
def test_no_two_labels_touch_on_expert_at_default_size(show_mines: bool) -> None:
    game = expert_mid_game()
    analysis = ns.solver.analyze(game)
    figure = Figure()  # matplotlib's default size and dpi
    ax = plot_board(game, figure.add_subplot(), probabilities=analysis, show_mines=show_mines)
    labels, boxes = text_boxes(figure)
    percentages = [
        t.get_text() for t in ax.texts if t.get_text().isdigit() and len(t.get_text()) == 2
    ]
    assert len(percentages) > 100, "the test needs the frontier's percentages on the board"
    assert all(len(t.get_text()) <= 2 for t in ax.texts)  # no "100" overflowing its cell
    pairs = closest_pairs(boxes, 2.0)
    assert not pairs, [(labels[i], labels[j]) for i, j in pairs[:10]]


@pytest.mark.parametrize(
    ("rows", "cols", "figsize"),
    [
        (9, 9, None),
        (16, 16, None),
        (32, 32, None),
        (16, 30, (4, 3)),
        (30, 30, (12, 3)),
        (1, 40, None),
    ],
)
def test_labels_and_ticks_never_touch(
    rows: int, cols: int, figsize: tuple[int, int] | None
) -> None:
    rng = np.random.default_rng(rows * cols)
    cells = rng.choice(np.array([*range(9), ns.HIDDEN, ns.FLAG], np.int8), size=(rows, cols))
    heat = np.where(cells == ns.HIDDEN, rng.random((rows, cols)), np.nan)
    figure = Figure() if figsize is None else Figure(figsize=figsize)
    plot_board(cells, figure.add_subplot(), probabilities=heat)
    labels, boxes = text_boxes(figure)
    pairs = closest_pairs(boxes, 2.0)
    assert not pairs, [(labels[i], labels[j]) for i, j in pairs[:10]]


def test_ticks_thin_out_to_integers() -> None:
    figure = Figure()
    ax = plot_board(np.zeros((16, 30), np.int8), figure.add_subplot())
    FigureCanvasAgg(figure).draw()
    xs = [t for t in ax.get_xticks() if -0.5 <= t <= 29.5]
    assert 3 <= len(xs) < 30
    assert all(float(t).is_integer() for t in xs)


def test_percentages_are_whole_and_leave_certain_cells_to_colour() -> None:
    cells = np.full((2, 3), ns.HIDDEN, np.int8)
    heat = np.array([[0.0, 1.0, 0.004], [0.996, 0.5, np.nan]])
    ax = plot_board(cells, Figure().add_subplot(), probabilities=heat)
    assert sorted(t.get_text() for t in ax.texts) == ["1", "50", "99"]


def test_distribution_legend_sits_where_the_bars_are_not() -> None:
    rng = np.random.default_rng(3)
    figure = Figure()
    ax = figure.add_subplot()
    # One bell centred under the legend's natural place, with a long label.
    plot_distribution(rng.normal(174, 19, 20_000).round(), ax, label="expert 3BV of uniform boards")
    assert_legend_clear(ax)
    for mean, sd in [(15.6, 5.2), (65, 12)]:  # shares of the axes, the tallest last
        plot_distribution(rng.normal(mean, sd, 20_000).round(), ax, label=f"mean {mean}")
    assert_legend_clear(ax)
    assert ax.get_ylim()[1] >= max(p.get_height() for p in ax.patches)  # y still autoscales


def assert_legend_clear(ax: matplotlib.axes.Axes) -> None:
    FigureCanvasAgg(ax.figure).draw()
    legend = ax.get_legend().get_window_extent()
    for patch in ax.patches:
        bar = patch.get_window_extent()
        if bar.height < 0.5:
            continue
        overlap = min(legend.x1, bar.x1) - max(legend.x0, bar.x0) > 0.5 and bar.y1 > legend.y0
        assert not overlap, (patch.get_x(), patch.get_height())


# -- huge sparse boards ---------------------------------------------------------------


def huge_lost_game(side: int) -> ns.Game:
    game = ns.Game.new(side, side, side * side // 100, seed=side)
    board = game.board
    assert board is not None
    rng = np.random.default_rng(side)
    zeros = np.argwhere(~board.mines & (board.counts == 0))
    for k in rng.choice(len(zeros), 3):
        game.reveal(*zeros[k])
    mine = np.argwhere(board.mines)[len(zeros) % 50]
    game.reveal(*mine)
    assert game.state is ns.GameState.LOST
    return game


def test_events_are_marked_at_a_fixed_screen_size() -> None:
    sizes = []
    for side in (300, 1500):
        game = huge_lost_game(side)
        ax = plot_board(game, Figure().add_subplot())
        marks = {line.get_label(): line for line in ax.lines}
        assert set(marks) == {"exploded mine", "last click"}
        boom = np.argwhere(game.snapshot().cells == ns.EXPLODED)[0]
        assert (marks["exploded mine"].get_ydata()[0], marks["exploded mine"].get_xdata()[0]) == (
            boom[0],
            boom[1],
        )
        last = game.moves[-1]
        assert (marks["last click"].get_ydata()[0], marks["last click"].get_xdata()[0]) == (
            last.row,
            last.col,
        )
        sizes.append({name: line.get_markersize() for name, line in marks.items()})
    assert sizes[0] == sizes[1] and min(sizes[0].values()) >= 10  # points, not cells
    snapshot_marks = plot_board(huge_lost_game(300).snapshot(), Figure().add_subplot()).lines
    assert [line.get_label() for line in snapshot_marks] == ["exploded mine"]  # no moves known
    assert not plot_board(np.full((100, 100), ns.HIDDEN, np.int8), axes()).lines


def test_revealed_areas_of_a_huge_board_stay_visible() -> None:
    cells = np.full((4100, 300), ns.HIDDEN, np.int8)
    cells[99, 201] = 0  # 1 cell of the 9 in a 3x3 block
    ax = plot_board(cells, axes())
    image = ax.images[0].get_array()
    assert image.shape == (1367, 100, 3)
    assert tuple(image[33, 67]) == (0xE4, 0xE4, 0xE4)  # pooled: shown as revealed
    assert tuple(image[0, 0]) == (0x9E, 0x9E, 0x9E)
    assert np.count_nonzero((image != image[0, 0]).any(axis=2)) == 1
