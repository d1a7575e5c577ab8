"""Race mode's rules: several players, one board, moves in one order.

The rules, as the page shows them:

- Players join a room through its link until the host starts the race.
- Everybody plays the same board.  A move is a reveal or a chord; flags are
  private (the page keeps them, the server never sees them).
- Each safe cell a move reveals scores one point for the player who made it.
- A player who reveals a mine is **out**: the move is taken back, the mine
  is marked on the board for everybody (it shows as a flag and counts
  towards the mines left), the player's points stand but they make no more
  moves, and the board plays on for the others.
- The race ends when every safe cell is revealed or nobody is left in.  The
  winners are the players still in with the most points; if nobody is left
  in, nobody wins.

These functions are pure: the server applies :func:`race_move` to each move
as it comes, and again to the stored moves to rebuild a room after a
restart, which gives the same board.

Examples
--------
>>> import numsweeper as ns
>>> from numsweeper.server.race import race_move
>>> game = ns.Game.new(1, 4, 1, strategy=ns.FixedPlacement([(0, 0)]))
>>> race_move(game, "reveal", 0, 3)
RaceOutcome(scored=3, exploded=())
>>> game.state.name
'WON'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numsweeper as ns

__all__ = ["RACE_MOVE_KINDS", "RaceOutcome", "race_move", "winners"]

#: The moves a race player can make.
RACE_MOVE_KINDS = ("reveal", "chord")


@dataclass(frozen=True)
class RaceOutcome:
    """What one race move did.

    Attributes
    ----------
    scored : int
        Safe cells it revealed: the player's points for it.
    exploded : tuple of (row, col)
        The mines it hit (the player is out); they are now marked.

    Examples
    --------
    >>> import numsweeper as ns
    >>> from numsweeper.server.race import race_move
    >>> game = ns.Game.new(2, 3, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> race_move(game, "reveal", 1, 2)  # an opening: four safe cells
    RaceOutcome(scored=4, exploded=())
    """

    scored: int
    exploded: tuple[tuple[int, int], ...]


def race_move(game: ns.Game, kind: str, row: int, col: int) -> RaceOutcome:
    """Play one race move on the room's game.

    Parameters
    ----------
    game : Game
        The room's game.
    kind : {'reveal', 'chord'}
    row, col : int

    Returns
    -------
    RaceOutcome

    Raises
    ------
    MinesweeperError
        As the game raises it (off the board, a marked cell, after the end),
        leaving the game unchanged; ``IllegalMoveError`` for a flag.

    Examples
    --------
    A mine is taken back and marked, and the board plays on:

    >>> import numsweeper as ns
    >>> from numsweeper.server.race import race_move
    >>> game = ns.Game.new(1, 4, 1, strategy=ns.FixedPlacement([(0, 0)]))
    >>> race_move(game, "reveal", 0, 0)
    RaceOutcome(scored=0, exploded=((0, 0),))
    >>> print(game.snapshot())
    F###
    >>> game.state.name
    'IN_PROGRESS'
    """
    if kind == "reveal":
        result = game.reveal(row, col)
    elif kind == "chord":
        result = game.chord(row, col)
    else:
        raise ns.IllegalMoveError(
            f"a race has no shared {kind!r} moves: flags are private; "
            f"play {' or '.join(map(repr, RACE_MOVE_KINDS))}"
        )
    if result.state is not ns.GameState.LOST:
        return RaceOutcome(len(result), ())
    shown = game.snapshot().cells
    hit = tuple((int(r), int(c)) for r, c in result.cells if shown[r, c] == ns.EXPLODED)
    game.undo()
    for r, c in hit:
        game.toggle_flag(r, c)
    return RaceOutcome(0, hit)


def winners(players: Sequence[tuple[str, int, bool]]) -> list[str]:
    """The winners of a finished race: the players still in with the most points.

    Parameters
    ----------
    players : sequence of (id, score, still_in)

    Returns
    -------
    list of str
        Their ids, in the given order; empty when nobody is still in.

    Examples
    --------
    >>> from numsweeper.server.race import winners
    >>> winners([("a", 30, False), ("b", 12, True), ("c", 12, True)])
    ['b', 'c']
    >>> winners([("a", 30, False)])
    []
    """
    alive = [(pid, score) for pid, score, still_in in players if still_in]
    if not alive:
        return []
    best = max(score for _, score in alive)
    return [pid for pid, score in alive if score == best]
