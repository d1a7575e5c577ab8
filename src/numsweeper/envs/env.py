"""One Minesweeper game as a Gymnasium environment: :class:`MinesweeperEnv`."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from numpy.typing import NDArray

from .. import Game, GameOverError, GameState, InvalidBoardError, InvalidTypeError
from .._validate import short_repr
from ._common import (
    RENDER_MODES,
    Rewards,
    SlotPlacement,
    action_masks,
    check_render_mode,
    check_seed,
    decode,
    frame,
    observation_space,
    observe,
    settings_of,
    step_rewards,
)

__all__ = ["MinesweeperEnv"]


class MinesweeperEnv(gym.Env[NDArray[np.int8], np.int64]):
    """One game of Minesweeper per episode, played through :class:`~numsweeper.Game`.

    Registered as ``numsweeper/Minesweeper-v0`` when :mod:`numsweeper.envs`
    is imported; see that module for the whole contract (observations,
    actions, the action mask, rewards, seeding).

    Parameters
    ----------
    preset : {'beginner', 'intermediate', 'expert'}, optional
        The board; ``'beginner'`` when neither a preset nor a size is given.
    rows, cols, mines : int, optional
        A board of any size instead of a preset (all three).
    first_click : {'opening', 'safe', None}, default 'opening'
        The first-click rule.  Under ``'opening'`` and ``'safe'`` the mines
        are laid at the first reveal, so the first reveal never loses
        (``'opening'`` keeps the clicked cell and its neighbours mine-free,
        so it always opens an area); with ``None`` the mines are laid at
        :meth:`reset` and the first reveal can lose.
    flags : bool, default False
        Double the action space: actions ``rows * cols`` and up toggle the
        flag of cell ``action - rows * cols``.
    rewards : Rewards or mapping of str to float, optional
        The rewards (:class:`~numsweeper.envs.Rewards`); a mapping replaces
        the defaults it names.
    observation : {'codes', 'onehot'}, default 'codes'
        The encoding of the observation.
    render_mode : {None, 'ansi', 'rgb_array'}
        ``'ansi'`` renders the text grid of :func:`numsweeper.render.visible_text`,
        ``'rgb_array'`` an image of 16 x 16 pixels per cell in the colours of
        :func:`numsweeper.render.cell_rgb`.

    Raises
    ------
    InvalidBoardError
        For an unknown preset, rule, observation or render mode, a preset
        given with a size, bad dimensions, or too many mines for the
        first-click rule.
    InvalidTypeError
        For a size that is not an integer, or rewards that are not numbers.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import numsweeper.envs
    >>> env = gym.make("numsweeper/Minesweeper-v0", preset="beginner", render_mode="ansi")
    >>> obs, info = env.reset(seed=7)
    >>> obs.shape, obs.dtype, int(info["action_mask"].sum())
    ((9, 9), dtype('int8'), 81)
    >>> obs, reward, terminated, truncated, info = env.step(4 * 9 + 4)  # the centre
    >>> env.render().splitlines()[:4]
    ['.....1###', '....13###', '....1####', '111.122##']
    >>> round(reward, 4), terminated, truncated, info["mines_left"]
    (0.5493, False, False, 10)
    """

    # Gymnasium reads it from the class (gymnasium.make checks render_mode against it).
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        preset: str | None = None,
        *,
        rows: int | None = None,
        cols: int | None = None,
        mines: int | None = None,
        first_click: str | None = "opening",
        flags: bool = False,
        rewards: Rewards | Mapping[str, Any] | None = None,
        observation: str = "codes",
        render_mode: str | None = None,
    ) -> None:
        self.settings = settings_of(
            preset,
            rows,
            cols,
            mines,
            first_click=first_click,
            flags=flags,
            observation=observation,
            rewards=rewards,
        )
        self.render_mode = check_render_mode(render_mode)
        self.observation_space = observation_space(self.settings)
        self.action_space = spaces.Discrete(self.settings.actions)
        self._dealer = SlotPlacement(1)
        self._game: Game | None = None
        # What the player sees now: the visible codes (1, rows, cols), the
        # useful actions (actions,) and the mine counter.
        self._cells = np.zeros((1, 0, 0), dtype=np.int8)
        self._mask = np.zeros(0, dtype=bool)
        self._mines_left = 0
        self._placed = False

    @property
    def game(self) -> Game | None:
        """The :class:`~numsweeper.Game` of the episode (``None`` before the first :meth:`reset`).

        Read it to inspect a position; play through :meth:`step`.
        """
        return self._game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.int8], dict[str, Any]]:
        """Start a new game on a board dealt from :attr:`np_random`.

        Parameters
        ----------
        seed : int, optional
            Reseed :attr:`np_random` first, as every Gymnasium environment
            does; the same seed and actions give the same episodes.
        options : dict, optional
            Unused.

        Returns
        -------
        observation : ndarray of int8
            Every cell hidden.
        info : dict
            ``action_mask``, ``mines_left`` and ``won``; see
            :mod:`numsweeper.envs`.

        Raises
        ------
        InvalidBoardError
            For a negative seed (which changes nothing).
        InvalidTypeError
            For a seed that is not an integer (which changes nothing).

        Examples
        --------
        >>> from numsweeper.envs import MinesweeperEnv
        >>> env = MinesweeperEnv("beginner")
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, bool((obs == -1).all()), info["mines_left"], info["won"]
        ((9, 9), True, 10, False)
        >>> env.reset(seed=-1)
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidBoardError: seed must be >= 0, got -1
        """
        super().reset(seed=check_seed(seed))
        s = self.settings
        self._dealer.rngs[0] = self.np_random
        self._placed = s.first_click is None
        with self._dealer.dealing([0] if self._placed else []):
            self._game = Game.new(
                s.rows, s.cols, s.mines, strategy=self._dealer, first_click=s.first_click
            )
        self._look()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[NDArray[np.int8], float, bool, bool, dict[str, Any]]:
        """Reveal a cell, or toggle a flag, or do nothing for a masked action.

        Parameters
        ----------
        action : int
            An element of :attr:`action_space`.

        Returns
        -------
        observation, reward, terminated, truncated, info
            ``terminated`` when the game is won or lost; ``truncated`` is
            always False (wrap the environment in ``TimeLimit``, or pass
            ``max_episode_steps`` to ``gymnasium.make``, to cut episodes).

        Raises
        ------
        ResetNeeded
            Before the first :meth:`reset`.
        GameOverError
            After the episode ended, until the next :meth:`reset`.
        InvalidTypeError
            If ``action`` is not an integer.
        InvalidBoardError
            If ``action`` is outside the action space.

        Examples
        --------
        >>> from numsweeper.envs import MinesweeperEnv
        >>> env = MinesweeperEnv("beginner")
        >>> _ = env.reset(seed=7)
        >>> obs, reward, terminated, truncated, info = env.step(4 * 9 + 4)  # reveal (4, 4)
        >>> int(obs[4, 4]), round(reward, 4), terminated, truncated
        (0, 0.5493, False, False)
        >>> env.step(4 * 9 + 4)[1]  # revealed already: a masked action
        -0.1
        >>> env.step(81)
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidBoardError: action must be in 0..80, got 81
        """
        game = self._game
        if game is None:
            raise ResetNeeded("call reset() before step()")
        if game.state is not GameState.IN_PROGRESS:
            raise GameOverError(f"the episode ended ({game.state.name}): call reset()")
        s = self.settings
        a = _action(action)
        if not 0 <= a < s.actions:
            raise InvalidBoardError(f"action must be in 0..{s.actions - 1}, got {short_repr(a)}")
        flag, row, col = decode(np.array([a]), s)
        useful = bool(self._mask[a])
        opened = 0
        r, c = int(row[0]), int(col[0])
        if useful and flag[0]:
            game.toggle_flag(r, c)
        elif useful:
            with self._dealer.dealing([] if self._placed else [0]):
                cells = game.reveal(r, c).cells
            self._placed = True
            opened = len(cells) - (self._state() is GameState.LOST)
        if useful:
            self._look()
        state = self._state()
        reward = step_rewards(
            s.rewards,
            s.per_cell,
            opened=np.array([opened]),
            won=np.array([state is GameState.WON]),
            lost=np.array([state is GameState.LOST]),
            flagged=np.array([useful and bool(flag[0])]),
            useless=np.array([not useful]),
        )
        terminated = state is not GameState.IN_PROGRESS
        return self._observe(), float(reward[0]), terminated, False, self._info()

    def _look(self) -> None:
        """Read what the player sees after a change."""
        assert self._game is not None
        snap = self._game.snapshot()
        self._cells = np.array(snap.cells)[None]
        self._mask = action_masks(self._cells, self.settings.flags)[0]
        self._mines_left = snap.mines_left

    def _state(self) -> GameState:
        assert self._game is not None
        return self._game.state

    def _observe(self) -> NDArray[np.int8]:
        observation: NDArray[np.int8] = observe(self._cells.copy(), self.settings.observation)[0]
        return observation

    def _info(self) -> dict[str, Any]:
        assert self._game is not None
        return {
            "action_mask": self._mask.copy(),
            "mines_left": self._mines_left,
            "won": self._game.state is GameState.WON,
        }

    def render(self) -> str | NDArray[np.uint8] | None:
        """The frame of :attr:`render_mode`, or None without one.

        Returns
        -------
        str, ndarray of uint8 or None
            For ``'ansi'``, the visible board as text, one line per row
            (:func:`numsweeper.render.visible_text`) ending in a newline; for
            ``'rgb_array'``, an image of shape ``(rows * PIXELS, cols *
            PIXELS, 3)``; None when :attr:`render_mode` is None.

        Raises
        ------
        ResetNeeded
            Before the first :meth:`reset`.

        Examples
        --------
        >>> from numsweeper.envs import MinesweeperEnv
        >>> env = MinesweeperEnv(rows=3, cols=4, mines=1, render_mode="ansi")
        >>> _ = env.reset(seed=0)
        >>> print(env.render(), end="")
        ####
        ####
        ####
        >>> env = MinesweeperEnv(rows=3, cols=4, mines=1, render_mode="rgb_array")
        >>> _ = env.reset(seed=0)
        >>> env.render().shape  # 16 x 16 pixels per cell
        (48, 64, 3)
        """
        if self.render_mode is None:
            return None
        if self._game is None:
            raise ResetNeeded("call reset() before render()")
        return frame(self._cells[0], self.render_mode)


def _action(action: Any) -> int:
    """An action as an int: anything with ``__index__`` but a bool (0-d arrays too)."""
    if not isinstance(action, (bool, np.bool_)):
        try:
            return operator.index(action)
        except TypeError:
            pass
    raise InvalidTypeError(f"action must be an integer, got {short_repr(action)}")
