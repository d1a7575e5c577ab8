"""Many games in one :class:`~numsweeper.BatchGame`: :class:`MinesweeperVectorEnv`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from .. import BatchGame, InvalidBoardError, InvalidTypeError
from .._validate import check_at_least, short_repr
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

__all__ = ["MinesweeperVectorEnv"]


class MinesweeperVectorEnv(VectorEnv[NDArray[np.int8], NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` games of Minesweeper stepped together in one :class:`~numsweeper.BatchGame`.

    It behaves exactly as ``gymnasium.vector.SyncVectorEnv`` over
    :class:`~numsweeper.envs.MinesweeperEnv` (wrapped in ``TimeLimit`` when
    ``max_episode_steps`` is given): for the same seed and actions, the same
    observations, rewards, terminations, truncations and infos, step by step.
    A step costs a few vectorized calls whatever ``num_envs``, with no Python
    loop over the games, except one call per board dealt to draw it from its
    slot's random stream.

    Parameters
    ----------
    num_envs : int
        Number of games, at least 1.
    preset, rows, cols, mines, first_click, flags, rewards, observation, render_mode
        As for :class:`~numsweeper.envs.MinesweeperEnv`.
    max_episode_steps : int, optional
        Truncate an episode after this many steps, as ``TimeLimit`` does.

    Raises
    ------
    InvalidBoardError
        For ``num_envs < 1`` or ``max_episode_steps < 1``, and as for
        :class:`~numsweeper.envs.MinesweeperEnv`.
    InvalidTypeError
        If ``num_envs`` or ``max_episode_steps`` is not an integer, and as
        for :class:`~numsweeper.envs.MinesweeperEnv`.

    Notes
    -----
    **Autoreset** follows Gymnasium's default, next-step mode
    (``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP``): the
    step that ends an episode returns its final observation with
    ``terminated`` (or ``truncated``) set; on the next step that game
    ignores its action, is dealt a new board (``BatchGame.reset(mask)``) and
    returns the first observation of the new episode with reward 0.

    **Seeding**: slot ``i`` has its own random stream, seeded like sub-env
    ``i`` of ``SyncVectorEnv``: ``reset(seed=s)`` seeds it with ``s + i``, a
    list of seeds gives one per slot, and ``None`` keeps the streams (fresh
    entropy for a slot that has none).  Each board of slot ``i`` is drawn
    from that stream alone, so slot ``i``'s ``k``-th episode is the ``k``-th
    episode of a :class:`~numsweeper.envs.MinesweeperEnv` reset with the
    same seed.  ``reset(options={"reset_mask": mask})`` deals new boards to
    the games in ``mask`` only.

    **Infos** are batched the way ``SyncVectorEnv`` batches them: for each
    key an array with one row per game (``action_mask`` is bool
    ``(num_envs, actions)``), and under ``"_" + key`` a bool mask of the
    games that have it (all of them).

    Examples
    --------
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> import numsweeper.envs
    >>> envs = gym.make_vec(
    ...     "numsweeper/Minesweeper-v0", num_envs=3, vectorization_mode="vector_entry_point",
    ...     preset="expert",
    ... )
    >>> type(envs).__name__, envs.num_envs, envs.single_action_space
    ('MinesweeperVectorEnv', 3, Discrete(480))
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape, info["action_mask"].shape
    ((3, 16, 30), (3, 480))
    >>> obs, rewards, terminated, truncated, info = envs.step(np.array([0, 100, 479]))
    >>> terminated.tolist(), bool((rewards > 0).all())
    ([False, False, False], True)
    """

    # Gymnasium reads it from the class (gymnasium.make_vec checks autoreset_mode in it).
    metadata = {  # noqa: RUF012
        "render_modes": list(RENDER_MODES),
        "render_fps": 4,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int,
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
        max_episode_steps: int | None = None,
    ) -> None:
        self.num_envs = check_at_least(num_envs, "num_envs", 1)
        self.max_episode_steps = (
            None
            if max_episode_steps is None
            else check_at_least(max_episode_steps, "max_episode_steps", 1)
        )
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
        self.single_observation_space = observation_space(self.settings)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = spaces.Discrete(self.settings.actions)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._dealer = SlotPlacement(self.num_envs)
        self._games: BatchGame | None = None
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)

    @property
    def games(self) -> BatchGame | None:
        """The games being played, a :class:`~numsweeper.BatchGame` (None before :meth:`reset`).

        Read it to inspect positions; play through :meth:`step`.
        """
        return self._games

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[NDArray[np.int8], dict[str, Any]]:
        """Deal new boards to every game, or to those of ``options["reset_mask"]``.

        A refused reset changes nothing: every seed is checked before any
        slot is reseeded.

        Parameters
        ----------
        seed : int, list of int or None, optional
            ``s`` seeds slot ``i`` with ``s + i``; a list gives each slot its
            seed (``None`` keeps that slot's stream).
        options : dict, optional
            ``{"reset_mask": mask}``, a bool array of shape ``(num_envs,)``
            with at least one True, resets only those games.

        Returns
        -------
        observations : ndarray of int8
        infos : dict

        Raises
        ------
        InvalidBoardError
            For a negative seed, a seed list of the wrong length, or an
            empty reset mask.
        InvalidTypeError
            For a seed that is not an integer (or a list of them), or a reset
            mask that is not a bool array of shape ``(num_envs,)``.
        ResetNeeded
            For a first reset that does not reset every game.

        Examples
        --------
        >>> import numpy as np
        >>> from numsweeper.envs import MinesweeperVectorEnv
        >>> envs = MinesweeperVectorEnv(3, "beginner")
        >>> obs, infos = envs.reset(seed=[0, None, 2])
        >>> obs.shape, infos["mines_left"].tolist()
        ((3, 9, 9), [10, 10, 10])
        >>> obs, infos = envs.reset(options={"reset_mask": np.array([False, True, False])})
        >>> infos["_mines_left"].tolist()
        [False, True, False]
        >>> envs.reset(seed=[7, -1, 9])
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidBoardError: seed[1] must be >= 0, got -1
        """
        n = self.num_envs
        mask = np.ones(n, dtype=bool)
        if options is not None and not isinstance(options, Mapping):
            raise InvalidTypeError(f"options must be a dict, got {short_repr(options)}")
        if options is not None and "reset_mask" in options:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (n,):
                right_type = isinstance(mask, np.ndarray) and mask.dtype == bool
                raise (InvalidBoardError if right_type else InvalidTypeError)(
                    f"options['reset_mask'] must be a bool array of shape ({n},), "
                    f"got {short_repr(mask)}"
                )
            if not mask.any():
                raise InvalidBoardError("options['reset_mask'] must reset at least one game")
        seeds = _slot_seeds(seed, n)
        if self._games is None and not mask.all():
            raise ResetNeeded("the first reset must reset every game")
        # Every stream is built before any slot's is replaced, so a refused
        # reset changes nothing.
        rngs = self._dealer.rngs
        fresh = {
            i: seeding.np_random(seeds[i])[0]
            for i in np.flatnonzero(mask).tolist()
            if seeds[i] is not None or rngs[i] is None
        }
        for i, rng in fresh.items():
            rngs[i] = rng
        self._deal(mask)
        self._autoreset &= ~mask
        observations, infos = self._observe(self._games_now().visible)
        if not mask.all():
            # As SyncVectorEnv: the infos of a partial reset are those of the games reset.
            for key, value in list(infos.items()):
                if not key.startswith("_"):
                    value[~mask] = 0
                    infos["_" + key] = mask.copy()
        return observations, infos

    def _deal(self, mask: NDArray[np.bool_]) -> None:
        """New boards for the games in ``mask`` (laid now, or at their first reveal)."""
        s = self.settings
        laying = np.flatnonzero(mask) if s.first_click is None else np.zeros(0, dtype=np.intp)
        with self._dealer.dealing(laying):
            if self._games is None:
                self._games = BatchGame.new(
                    self.num_envs,
                    s.rows,
                    s.cols,
                    s.mines,
                    strategy=self._dealer,
                    first_click=s.first_click,
                )
            else:
                self._games.reset(mask)
        self._steps[mask] = 0

    def _games_now(self) -> BatchGame:
        if self._games is None:
            raise ResetNeeded("call reset() before step() or render()")
        return self._games

    def step(
        self, actions: Any
    ) -> tuple[
        NDArray[np.int8], NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]
    ]:
        """Step every game: reveal, toggle a flag, do nothing (masked), or autoreset.

        A refused step changes nothing: the actions are checked first.

        Parameters
        ----------
        actions : array_like of int, shape (num_envs,)
            One action per game (ignored by the games being reset).

        Returns
        -------
        observations, rewards, terminations, truncations, infos

        Raises
        ------
        ResetNeeded
            Before the first :meth:`reset`.
        InvalidTypeError
            If the actions are not integers.
        InvalidBoardError
            For the wrong shape or an action outside the action space.

        Examples
        --------
        >>> import numpy as np
        >>> from numsweeper.envs import MinesweeperVectorEnv
        >>> envs = MinesweeperVectorEnv(2, "beginner")
        >>> _ = envs.reset(seed=7)
        >>> obs, rewards, terminated, truncated, infos = envs.step(np.array([40, 40]))
        >>> int(obs[0, 4, 4]), terminated.tolist(), bool((rewards > 0).all())
        (0, [False, False], True)
        >>> envs.step(np.array([40, 81]))
        Traceback (most recent call last):
            ...
        numsweeper.errors.InvalidBoardError: actions[1] must be in 0..80, got 81
        """
        games = self._games_now()
        s = self.settings
        n = self.num_envs
        try:
            a = np.asarray(actions)
        except ValueError:  # (numpy: a ragged list)
            raise InvalidBoardError(
                f"actions must have shape ({n},), got {short_repr(actions)}"
            ) from None
        if a.shape != (n,):
            raise InvalidBoardError(f"actions must have shape ({n},), got {a.shape}")
        if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
            raise InvalidTypeError(f"actions must be integers, got dtype {a.dtype}")
        off = (a < 0) | (a >= s.actions)
        if off.any():
            i = int(np.argmax(off))
            raise InvalidBoardError(f"actions[{i}] must be in 0..{s.actions - 1}, got {int(a[i])}")
        a = a.astype(np.int64)
        stepping = ~self._autoreset
        flag, row, col = decode(a, s)
        every = np.arange(n)
        # The useful actions of action_masks, read off the game state.
        hidden = ~games.revealed[every, row, col]
        flagged = games.flagged[every, row, col]
        toggling = stepping & flag & hidden
        revealing = stepping & ~flag & hidden & ~flagged
        useless = stepping & ~toggling & ~revealing
        before = games.revealed_count
        if toggling.any():
            games.toggle_flag(row, col, active=toggling)
        if revealing.any():
            with self._dealer.dealing(np.flatnonzero(revealing & ~games.placed)):
                games.reveal(row, col, active=revealing)
        won, lost = games.won & stepping, games.lost & stepping
        rewards = step_rewards(
            s.rewards,
            s.per_cell,
            opened=games.revealed_count - before,
            won=won,
            lost=lost,
            flagged=toggling,
            useless=useless,
        )
        rewards[~stepping] = 0.0
        terminated = won | lost
        self._steps += stepping
        truncated = np.zeros(n, dtype=bool)
        if self.max_episode_steps is not None:
            truncated = stepping & (self._steps >= self.max_episode_steps)
        if self._autoreset.any():
            self._deal(self._autoreset)
        self._autoreset = terminated | truncated
        observations, infos = self._observe(_visible(games))
        return observations, rewards, terminated, truncated, infos

    def _observe(self, codes: NDArray[np.int8]) -> tuple[NDArray[np.int8], dict[str, Any]]:
        games = self._games_now()
        every = np.ones(self.num_envs, dtype=bool)
        infos = {
            "action_mask": action_masks(codes, self.settings.flags),
            "_action_mask": every,
            "mines_left": games.mines_left,
            "_mines_left": every.copy(),
            "won": games.won,
            "_won": every.copy(),
        }
        return observe(codes, self.settings.observation), infos

    def render(self) -> tuple[str | NDArray[np.uint8], ...] | None:
        """One frame per game, as :meth:`MinesweeperEnv.render
        <numsweeper.envs.MinesweeperEnv.render>` draws it, or None without a render mode.

        Returns
        -------
        tuple of (str or ndarray of uint8), or None
            ``num_envs`` frames, in slot order; None when :attr:`render_mode`
            is None.

        Raises
        ------
        ResetNeeded
            Before the first :meth:`reset`.

        Examples
        --------
        >>> from numsweeper.envs import MinesweeperVectorEnv
        >>> envs = MinesweeperVectorEnv(2, rows=2, cols=3, mines=0, render_mode="ansi")
        >>> _ = envs.reset(seed=0)
        >>> envs.render()
        ('###\\n###\\n', '###\\n###\\n')
        """
        if self.render_mode is None:
            return None
        mode = self.render_mode
        return tuple(frame(codes, mode) for codes in self._games_now().visible)


def _visible(games: BatchGame) -> NDArray[np.int8]:
    """``games.visible``, the games over apart: those in progress show no mines,
    which the engine skips gathering when it is asked for them alone."""
    over = np.flatnonzero(~games.in_progress)
    if not over.size:
        return games.visible
    codes = np.empty((len(games), games.rows, games.cols), dtype=np.int8)
    live = np.flatnonzero(games.in_progress)
    codes[live] = games.visible_of(live)
    codes[over] = games.visible_of(over)
    return codes


def _slot_seeds(seed: Any, n: int) -> list[int | None]:
    """The seed of each of ``n`` slots, every one checked: ``seed + i``, or a list's own."""
    if seed is None:
        return [None] * n
    if isinstance(seed, np.ndarray) and seed.ndim == 0:  # (one number, as an array)
        seed = seed.item()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        first = check_seed(seed)
        assert first is not None
        return [first + i for i in range(n)]
    if isinstance(seed, (str, bytes, dict, set, frozenset)) or not isinstance(seed, Iterable):
        raise InvalidTypeError(  # (a set has no order to give each game its seed)
            f"seed must be None, an integer >= 0 or a list of one per game, got {short_repr(seed)}"
        )
    seeds = list(seed)  # (any iterable, as before: a generator too)
    if len(seeds) != n:
        raise InvalidBoardError(
            f"give one seed per game ({n}), got {len(seeds)}: {short_repr(seed)}"
        )
    return [check_seed(s, f"seed[{i}]") for i, s in enumerate(seeds)]
