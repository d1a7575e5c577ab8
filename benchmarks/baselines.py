"""Plain-Python baselines that the benchmarks measure our engine against.

They are deliberately the obvious code a newcomer would write: lists of lists,
a deque BFS, and the classic recursive DFS of LeetCode 529.
"""

from __future__ import annotations

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
