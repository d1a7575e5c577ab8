"""Draw the README's pictures from the public API, so they stay current.

Writes ``docs/images/board.png`` (an expert game in mid-play, drawn by
``numsweeper.plot.plot_board``) and ``docs/images/distribution.png`` (3BV
of the three presets, drawn by ``numsweeper.plot.plot_distribution``).  Needs the
``plot`` extra.  Run from anywhere::

    python scripts/make_figures.py [--out DIR] [--boards N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

import numsweeper as ns
from numsweeper.plot import plot_board, plot_distribution

ROOT = Path(__file__).resolve().parents[1]
# Keep the files byte-stable across matplotlib versions.
PNG_METADATA = {"Software": None}


def mid_game(seed: int = 12, moves: int = 60) -> ns.Game:
    """An expert game some way in: flagged mines and a few open areas.

    Moves are chosen from the answer sheet (``game.board``): flag a mine next
    to a revealed number, or reveal a safe cell next to one.
    """
    game = ns.Game.from_preset("expert", seed=seed, first_click="opening")
    game.reveal(7, 12)
    board = game.board
    assert board is not None
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        cells = game.snapshot().cells
        revealed = cells >= 0
        near = np.zeros_like(revealed)
        near[:-1] |= revealed[1:]
        near[1:] |= revealed[:-1]
        near[:, :-1] |= revealed[:, 1:]
        near[:, 1:] |= revealed[:, :-1]
        near[:-1, :-1] |= revealed[1:, 1:]
        near[1:, 1:] |= revealed[:-1, :-1]
        near[:-1, 1:] |= revealed[1:, :-1]
        near[1:, :-1] |= revealed[:-1, 1:]
        frontier = np.argwhere(near & (cells == ns.HIDDEN))
        if not len(frontier) or game.state is not ns.GameState.IN_PROGRESS:
            break
        r, c = frontier[rng.integers(len(frontier))].tolist()
        if board.mines[r, c]:
            game.toggle_flag(r, c)
        else:
            game.reveal(r, c)
    return game


def board_png(path: Path) -> None:
    fig, ax = plt.subplots(figsize=(9, 5.4), dpi=100)
    plot_board(mid_game(), ax)
    fig.tight_layout()
    fig.savefig(path, metadata=PNG_METADATA)
    plt.close(fig)


def distribution_png(path: Path, boards: int) -> None:
    """3BV of uniform boards for the three presets, on one axis."""
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=100)
    for name, (rows, cols, mines) in ns.PRESETS.items():
        chunks = ns.iter_boards(boards, rows, cols, mines, seed=2024, chunk_size=50_000)
        values = np.concatenate([ns.metrics.three_bv(chunk) for chunk in chunks])
        plot_distribution(values, ax, label=f"{name} {rows}x{cols}/{mines}")
    ax.set_xlabel("3BV (fewest clicks that clear the board)")
    ax.set_title(f"3BV of {boards:,} uniform boards per preset")
    fig.tight_layout()
    fig.savefig(path, metadata=PNG_METADATA)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--boards", type=int, default=100_000)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    board_png(args.out / "board.png")
    distribution_png(args.out / "distribution.png", args.boards)
    print("wrote", args.out / "board.png", "and", args.out / "distribution.png")


if __name__ == "__main__":
    main()
