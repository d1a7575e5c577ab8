"""Plain-Python baselines that the benchmarks measure our engine against.

They are deliberately the obvious code a newcomer would write: lists of lists,
a deque BFS, the classic recursive DFS of LeetCode 529, and an expectimax
over sets of layouts cached by ``functools``.
"""

from __future__ import annotations

import functools
import sys
from collections import deque


def bfs_reveal(mines: list[list[bool]], row: int, col: int) -> list[tuple[int, int]]:
    """Reveal from ``(row, col)`` by breadth-first search, counting neighbours as it goes."""
    rows, cols = len(mines), len(mines[0])

    def count(r: int, c: int) -> int:
        return sum(
            mines[i][j]
            for i in range(max(r - 1, 0), min(r + 2, rows))
            for j in range(max(c - 1, 0), min(c + 2, cols))
        )

    seen = [[False] * cols for _ in range(rows)]
    seen[row][col] = True
    queue = deque([(row, col)])
    out = []
    while queue:
        r, c = queue.popleft()
        out.append((r, c))
        if count(r, c):
            continue
        for i in range(max(r - 1, 0), min(r + 2, rows)):
            for j in range(max(c - 1, 0), min(c + 2, cols)):
                if not seen[i][j] and not mines[i][j]:
                    seen[i][j] = True
                    queue.append((i, j))
    return out


def classic_update_board(board: list[list[str]], click: list[int]) -> list[list[str]]:
    """The classic recursive DFS answer to LeetCode 529, as published."""
    rows, cols = len(board), len(board[0])
    row, col = click
    if board[row][col] == "M":
        board[row][col] = "X"
        return board

    def dfs(r: int, c: int) -> None:
        mine_count = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == 0 and dc == 0:
                    continue
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == "M":
                    mine_count += 1
        if mine_count > 0:
            board[r][c] = str(mine_count)
        else:
            board[r][c] = "B"
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr == 0 and dc == 0:
                        continue
                    nr, nc = r + dr, c + dc
                    if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == "E":
                        dfs(nr, nc)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, rows * cols + 1000))
    try:
        dfs(row, col)
    finally:
        sys.setrecursionlimit(limit)
    return board


def plain_endgame_values(
    undecided: list[tuple[int, int]], layouts: list[frozenset[int]], clickable: list[bool]
) -> dict[tuple[int, int], float]:
    """Each click's win probability under perfect play, by a plain expectimax.

    ``layouts`` are the mine layouts still possible, each the set of indices
    into ``undecided`` (the cells that are mines in some layouts and safe in
    others) that hold a mine; every layout is equally likely.  A state is a
    set of layouts: a cell safe in all of them is revealed for free (its
    number splits the state), else every clickable cell is tried and the
    best kept.  No pruning, no budget; states are cached by ``functools``.
    """
    index = {rc: i for i, rc in enumerate(undecided)}
    neighbours = [
        [
            index[(r + dr, c + dc)]
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and (r + dr, c + dc) in index
        ]
        for r, c in undecided
    ]

    def split(state: frozenset[frozenset[int]], i: int) -> list[frozenset[frozenset[int]]]:
        """The layouts where ``i`` is safe, by the number it shows."""
        parts: dict[int, set[frozenset[int]]] = {}
        for layout in state:
            if i not in layout:
                shown = sum(j in layout for j in neighbours[i])
                parts.setdefault(shown, set()).add(layout)
        return [frozenset(part) for part in parts.values()]

    def clicks(state: frozenset[frozenset[int]]) -> list[int]:
        """Clickable cells that are a mine in some layouts of ``state`` and safe in others."""
        return [
            i
            for i in range(len(undecided))
            if clickable[i]
            and any(i in layout for layout in state)
            and any(i not in layout for layout in state)
        ]

    @functools.cache
    def wins(state: frozenset[frozenset[int]]) -> int:
        if len(state) == 1:
            return 1
        for i in range(len(undecided)):
            if all(i not in layout for layout in state):  # safe everywhere: free
                parts = split(state, i)
                if len(parts) > 1:
                    return sum(wins(part) for part in parts)
        return max((sum(wins(part) for part in split(state, i)) for i in clicks(state)), default=0)

    root = frozenset(layouts)
    return {
        undecided[i]: sum(wins(part) for part in split(root, i)) / len(root) for i in clicks(root)
    }
