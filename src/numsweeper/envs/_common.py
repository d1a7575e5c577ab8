"""What the single and the vector environment share: one source for each rule.

The board size, the spaces, the observation and action-mask encodings, the
rewards of a step and the frames of the renderers are written once here and
applied to a stack of ``n`` games; the single environment is a stack of one.
So is the way boards are dealt: :class:`SlotPlacement` lays each board from
the random stream of the environment slot it is dealt to.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Final

import numpy as np
from gymnasium import spaces
from numpy.typing import ArrayLike, NDArray

from .. import (
    EXPLODED,
    FLAG,
    HIDDEN,
    MINE,
    WRONG_FLAG,
    BatchGame,
    InvalidBoardError,
    InvalidTypeError,
    MinePlacementStrategy,
)
from .._validate import check_at_least, first_click_rule, preset_dims, short_repr
from ..render import cell_rgb, visible_text

__all__ = [
    "OBSERVATIONS",
    "ONEHOT_CODES",
    "PIXELS",
    "RENDER_MODES",
    "Rewards",
    "Settings",
    "SlotPlacement",
    "action_masks",
    "check_render_mode",
    "check_seed",
    "decode",
    "frame",
    "lay_by_keys",
    "observation_space",
    "observe",
    "settings_of",
    "step_rewards",
]

#: The visible code that each one-hot channel marks: channel ``k`` is 1 where
#: the cell shows ``ONEHOT_CODES[k]``.  Counts 0..8 come first, then
#: HIDDEN, FLAG, MINE, EXPLODED and WRONG_FLAG (the last three only in the
#: final observation of an episode).
ONEHOT_CODES: Final[tuple[int, ...]] = (
    *range(9),
    int(HIDDEN),
    int(FLAG),
    int(MINE),
    int(EXPLODED),
    int(WRONG_FLAG),
)

#: Observation encodings: ``'codes'`` (int8 visible codes, ``(rows, cols)``)
#: or ``'onehot'`` (int8 0/1, ``(len(ONEHOT_CODES), rows, cols)``).
OBSERVATIONS: Final = ("codes", "onehot")

#: Render modes of both environments.
RENDER_MODES: Final = ("ansi", "rgb_array")

#: Side of one cell in an ``rgb_array`` frame, in pixels.
PIXELS: Final = 16

# Channel of each visible code, indexed by ``code % 256`` (so negatives work).
_CHANNEL = np.zeros(256, dtype=np.intp)
_CHANNEL[[code % 256 for code in ONEHOT_CODES]] = np.arange(len(ONEHOT_CODES))

# Larger than the key of every cell that may hold a mine.
_SAFE_KEY = np.uint32(0xFFFFFFFF)


@dataclass(frozen=True)
class Rewards:
    """The reward of each kind of step.

    Parameters
    ----------
    win : float, default 1.0
        Added on the step that reveals the last safe cell.
    loss : float, default -1.0
        The reward of the step that reveals a mine.
    progress : float, default 1.0
        Shared equally among the safe cells: a step earns
        ``progress * opened / (rows * cols - mines)`` for the ``opened`` safe
        cells it reveals, so a cleared board earns ``progress`` in all,
        whatever its size.
    useless : float, default -0.1
        The reward of a masked (useless) action, which changes nothing.
    flag : float, default 0.0
        The reward of a flag toggle.  It cannot depend on whether the flag is
        right: that would tell the agent where the mines are.

    Raises
    ------
    InvalidTypeError
        If a value is not a real number.
    InvalidBoardError
        If a value is not finite.

    Examples
    --------
    >>> from numsweeper.envs import Rewards
    >>> Rewards()
    Rewards(win=1.0, loss=-1.0, progress=1.0, useless=-0.1, flag=0.0)
    >>> Rewards.of({"loss": -10}).loss
    -10.0
    """

    win: float = 1.0
    loss: float = -1.0
    progress: float = 1.0
    useless: float = -0.1
    flag: float = 0.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)
            ):
                raise InvalidTypeError(
                    f"reward {item.name!r} must be a real number, got {short_repr(value)}"
                )
            try:
                number = float(value)
            except OverflowError:  # an integer too large for a float
                number = math.inf
            if not math.isfinite(number):
                raise InvalidBoardError(
                    f"reward {item.name!r} must be finite, got {short_repr(value)}"
                )
            object.__setattr__(self, item.name, number)

    @classmethod
    def of(cls, rewards: Rewards | Mapping[str, Any] | None) -> Rewards:
        """``rewards`` as :class:`Rewards`: the defaults, or them with some values replaced.

        Parameters
        ----------
        rewards : Rewards, mapping of str to float, or None
            A mapping replaces the values it names.

        Returns
        -------
        Rewards

        Raises
        ------
        InvalidTypeError
            If ``rewards`` is of another type, a mapping names an unknown
            reward, or a value is not a real number.
        InvalidBoardError
            If a value is not finite.

        Examples
        --------
        >>> from numsweeper.envs import Rewards
        >>> Rewards.of(None) == Rewards()
        True
        >>> Rewards.of({"win": 5, "useless": 0})
        Rewards(win=5.0, loss=-1.0, progress=1.0, useless=0.0, flag=0.0)
        >>> Rewards.of({"lose": -1})
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidTypeError: unknown reward 'lose'; the rewards are [...]
        """
        if rewards is None:
            return cls()
        if isinstance(rewards, Rewards):
            return rewards
        if not isinstance(rewards, Mapping):
            raise InvalidTypeError(
                f"rewards must be a Rewards or a mapping, got {short_repr(rewards)}"
            )
        names = {item.name for item in fields(cls)}
        unknown = sorted(set(rewards) - names, key=str)
        if unknown:
            raise InvalidTypeError(
                f"unknown reward {short_repr(unknown[0])}; the rewards are {sorted(names)}"
            )
        return cls(**rewards)


@dataclass(frozen=True)
class Settings:
    """The checked settings of an environment's games (its ``settings`` attribute).

    Attributes
    ----------
    rows, cols, mines : int
        The board.
    first_click : {None, 'safe', 'opening'}
        The first-click rule.
    flags : bool
        Whether the action space has flag toggles.
    observation : {'codes', 'onehot'}
        The observation's encoding.
    rewards : Rewards
        The rewards.

    Examples
    --------
    >>> from numsweeper.envs import MinesweeperEnv
    >>> s = MinesweeperEnv("expert", flags=True).settings
    >>> s.rows, s.cols, s.mines, s.cells, s.actions
    (16, 30, 99, 480, 960)
    >>> s.per_cell == s.rewards.progress / (480 - 99)
    True
    """

    rows: int
    cols: int
    mines: int
    first_click: str | None
    flags: bool
    observation: str
    rewards: Rewards

    @property
    def cells(self) -> int:
        """Cells of a board, ``rows * cols`` (int)."""
        return self.rows * self.cols

    @property
    def actions(self) -> int:
        """Size of the action space (int): a reveal per cell, plus a flag toggle each with flags."""
        return self.cells * (2 if self.flags else 1)

    @property
    def per_cell(self) -> float:
        """The reward of one safe cell revealed (float): ``rewards.progress`` per safe cell."""
        return self.rewards.progress / (self.cells - self.mines)


def settings_of(
    preset: str | None,
    rows: int | None,
    cols: int | None,
    mines: int | None,
    *,
    first_click: str | None,
    flags: bool,
    observation: str,
    rewards: Rewards | Mapping[str, Any] | None,
) -> Settings:
    """Check an environment's settings; ``'beginner'`` when no size is given.

    Raises
    ------
    InvalidBoardError
        For an unknown preset, first-click rule or observation, a preset
        given together with a size, bad dimensions or too many mines for the
        first-click rule.
    InvalidTypeError
        If a size is not an integer, ``flags`` is not a bool, or a reward is
        not a number.
    """
    if rows is None and cols is None and mines is None:
        rows, cols, mines = preset_dims("beginner" if preset is None else preset)
    elif preset is not None:
        raise InvalidBoardError(
            f"give a preset or rows, cols and mines, not both (preset={short_repr(preset)})"
        )
    elif rows is None or cols is None or mines is None:
        raise InvalidBoardError(f"give all of rows, cols and mines, got {rows=}, {cols=}, {mines=}")
    if not isinstance(flags, (bool, np.bool_)):
        raise InvalidTypeError(f"flags must be a bool, got {short_repr(flags)}")
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise InvalidBoardError(
            f"observation must be one of {OBSERVATIONS}, got {short_repr(observation)}"
        )
    # The engine's own checks of the sizes and the rule, on a batch of none.
    BatchGame.new(0, rows, cols, mines, first_click=first_click)
    first_click = first_click_rule(first_click)  # ('none', the command line's spelling: None)
    return Settings(
        rows=int(rows),
        cols=int(cols),
        mines=int(mines),
        first_click=first_click,
        flags=bool(flags),
        observation=observation,
        rewards=Rewards.of(rewards),
    )


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` if it is None or one of :data:`RENDER_MODES`, else InvalidBoardError."""
    if render_mode is not None and (
        not isinstance(render_mode, str) or render_mode not in RENDER_MODES
    ):
        raise InvalidBoardError(
            f"render_mode must be None or one of {RENDER_MODES}, got {short_repr(render_mode)}"
        )
    return render_mode


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """A seed of an environment's random stream: None or an integer >= 0, as an int.

    What Gymnasium's ``reset(seed=...)`` takes (numpy integers too), checked
    with our errors, which name the seed (``name`` says which one): a wrong
    type raises InvalidTypeError, a negative integer InvalidBoardError.
    """
    return None if seed is None else check_at_least(seed, name, 0)


def observation_space(board: Settings) -> spaces.Box[np.int8]:
    """The observation space of one game."""
    shape: tuple[int, ...]
    if board.observation == "onehot":
        low, high, shape = 0, 1, (len(ONEHOT_CODES), board.rows, board.cols)
    else:
        low, high, shape = int(WRONG_FLAG), 8, (board.rows, board.cols)
    space: spaces.Box[np.int8] = spaces.Box(low, high, shape=shape, dtype=np.int8)
    return space


def observe(codes: NDArray[np.int8], encoding: str) -> NDArray[np.int8]:
    """Observations of ``n`` games from their visible codes ``(n, rows, cols)``.

    ``'codes'`` returns ``codes`` itself; ``'onehot'`` a new int8 array of
    shape ``(n, len(ONEHOT_CODES), rows, cols)``.
    """
    if encoding == "codes":
        return codes
    n, rows, cols = codes.shape
    out = np.zeros((n, len(ONEHOT_CODES), rows, cols), dtype=np.int8)
    game, row, col = np.indices((n, rows, cols), sparse=True)
    out[game, _CHANNEL[codes.view(np.uint8)], row, col] = 1
    return out


def action_masks(codes: NDArray[np.int8], flags: bool) -> NDArray[np.bool_]:
    """Bool ``(n, actions)``: the useful actions of ``n`` games.

    A reveal is useful on a hidden, unflagged cell; a flag toggle (with
    flags) on a cell that is not revealed, to flag or unflag it.
    """
    n = codes.shape[0]
    flat = codes.reshape(n, -1)
    reveal: NDArray[np.bool_] = flat == HIDDEN
    if not flags:
        return reveal
    masks: NDArray[np.bool_] = np.concatenate([reveal, reveal | (flat == FLAG)], axis=1)
    return masks


def decode(
    actions: NDArray[np.int64], board: Settings
) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.int64]]:
    """``(flag, row, col)`` of each action: a flag toggle or a reveal, and its cell."""
    flag = actions >= board.cells
    row, col = np.divmod(actions - flag * board.cells, board.cols)
    return flag, row, col


def step_rewards(
    rewards: Rewards,
    per_cell: float,
    *,
    opened: NDArray[np.int64],
    won: NDArray[np.bool_],
    lost: NDArray[np.bool_],
    flagged: NDArray[np.bool_],
    useless: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """The reward of each of ``n`` steps (float64 ``(n,)``), as :class:`Rewards` describes."""
    out = per_cell * opened.astype(np.float64)
    out += np.where(won, rewards.win, 0.0)
    out += np.where(lost, rewards.loss, 0.0)
    out = np.where(flagged, rewards.flag, out)
    return np.where(useless, rewards.useless, out)


def frame(codes: NDArray[np.int8], render_mode: str) -> str | NDArray[np.uint8]:
    """One game's frame: the text grid, or an RGB image of :data:`PIXELS` per cell.

    The image uses the colours of :func:`numsweeper.render.cell_rgb`, with
    a darker line between cells.
    """
    if render_mode == "ansi":
        return visible_text(codes) + "\n"
    image = np.repeat(np.repeat(cell_rgb(codes), PIXELS, axis=0), PIXELS, axis=1)
    image[PIXELS - 1 :: PIXELS] //= 2
    image[:, PIXELS - 1 :: PIXELS] //= 2
    return image


def lay_by_keys(
    words: NDArray[np.uint64], mines: int, safe: NDArray[np.bool_] | None
) -> NDArray[np.bool_]:
    """Put the mines of each board on its allowed cells with the smallest keys.

    Parameters
    ----------
    words : ndarray of uint64, shape (k, cells)
        One random 64-bit key per cell of each board.
    mines : int
        Mines per board; at most the allowed cells of each board.
    safe : ndarray of bool, shape (k, cells), optional
        Cells that must stay mine-free.

    Returns
    -------
    ndarray of bool, shape (k, cells)

    Notes
    -----
    With independent uniform keys, the allowed cells holding the ``mines``
    smallest keys are a uniformly random set of ``mines`` allowed cells
    (keys that tie, with probability below ``cells**2 / 2**65`` per board,
    are ordered by cell index).  The threshold is found on the upper 32 bits
    of the keys, which numpy partitions several times faster; the rare
    boards whose threshold is shared by more cells than it admits are
    settled on the full keys.  The result depends on the keys only, not on
    how numpy partitions, so it is the same on every machine.

    Examples
    --------
    >>> import numpy as np
    >>> from numsweeper.envs._common import lay_by_keys
    >>> words = np.array([[5, 1, 4, 2]], dtype=np.uint64) << np.uint64(40)
    >>> lay_by_keys(words, 2, None).astype(int)
    array([[0, 1, 0, 1]])
    >>> lay_by_keys(words, 2, np.array([[False, True, False, False]])).astype(int)
    array([[0, 0, 1, 1]])
    """
    k = words.shape[0]
    if mines == 0:
        return np.zeros(words.shape, dtype=bool)
    high = (words >> np.uint64(32)).astype(np.uint32)
    if safe is not None:
        high[safe] = _SAFE_KEY
    threshold = np.partition(high, mines - 1, axis=1)[:, mines - 1, None]
    layout = high < threshold
    tied = high == threshold
    need = mines - np.count_nonzero(layout, axis=1)
    # Usually the threshold is one cell's key, and that cell is a mine.
    simple = np.count_nonzero(tied, axis=1) == need
    layout |= tied & simple[:, None]
    for board in np.flatnonzero(~simple).tolist():
        cells = np.flatnonzero(tied[board])
        last = np.zeros(cells.size, dtype=bool) if safe is None else safe[board, cells]
        order = np.lexsort((cells, words[board, cells], last))
        layout[board, cells[order[: need[board]]]] = True
    assert layout.shape == (k, words.shape[1])
    return layout


class SlotPlacement(MinePlacementStrategy):
    """Lay each board from the random stream of the environment slot it goes to.

    Slot ``i`` draws from ``rngs[i]`` (the single environment's
    ``np_random``, or slot ``i`` of the vector environment, seeded the same
    way), one 64-bit word per cell per board, and :func:`lay_by_keys` turns
    the words into a layout.  A board therefore depends only on its slot's
    seed and on how many boards that slot was dealt before, never on the
    other slots: the vector environment deals slot ``i`` exactly what a
    single environment seeded like it deals.

    The engine does not tell a strategy which games it lays, only how many,
    in increasing game order; :meth:`dealing` names the slots before each
    call of the engine that may lay boards, and the strategy refuses a count
    that differs.

    Parameters
    ----------
    slots : int
        Number of slots.
    """

    def __init__(self, slots: int) -> None:
        self.rngs: list[np.random.Generator | None] = [None] * slots
        self._queue = np.zeros(0, dtype=np.intp)

    @contextmanager
    def dealing(self, slots: ArrayLike) -> Iterator[None]:
        """Within the block, the boards laid go to ``slots`` (in increasing game order)."""
        self._queue = np.asarray(slots, dtype=np.intp)
        try:
            yield
            if self._queue.size:
                raise RuntimeError(
                    f"the engine laid no board for slots {self._queue.tolist()}, "
                    "which were waiting for their first reveal"
                )
        finally:
            self._queue = np.zeros(0, dtype=np.intp)

    def place(
        self, rows: int, cols: int, mines: int, *, safe: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_]:
        """Lay the one board of the slot being dealt; see :meth:`place_batch`."""
        zone = None if safe is None else np.asarray(safe)[None]
        layout: NDArray[np.bool_] = self.place_batch(1, rows, cols, mines, safe=zone)[0]
        return layout

    def place_batch(
        self,
        n: int,
        rows: int,
        cols: int,
        mines: int,
        *,
        safe: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.bool_]:
        """Lay board ``j`` from the stream of the ``j``-th slot being dealt.

        Raises
        ------
        RuntimeError
            If ``n`` is not the number of slots being dealt, or a slot has no
            stream yet.
        """
        slots, self._queue = self._queue, np.zeros(0, dtype=np.intp)
        if slots.size != n:
            raise RuntimeError(f"asked for {n} boards while dealing to slots {slots.tolist()}")
        cells = rows * cols
        words = np.empty((n, cells), dtype=np.uint64)
        for j, slot in enumerate(slots.tolist()):
            rng = self.rngs[slot]
            if rng is None:
                raise RuntimeError(f"slot {slot} has no random stream: reset the environment")
            words[j] = rng.bit_generator.random_raw(cells)
        zone = None if safe is None else np.asarray(safe).reshape(n, cells)
        return lay_by_keys(words, mines, zone).reshape(n, rows, cols)
