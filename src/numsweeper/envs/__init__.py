"""Gymnasium environments: one game, and a native vector of games.

Needs the ``rl`` extra (``pip install 'numsweeper[rl]'``, which installs
Gymnasium 1.x); ``import numsweeper`` never imports it.  Importing this
module registers ``numsweeper/Minesweeper-v0``, which
``gymnasium.make`` builds as a :class:`MinesweeperEnv` and
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` as a
:class:`MinesweeperVectorEnv` (``gymnasium.make("numsweeper.envs:numsweeper/Minesweeper-v0")``
imports this module itself).  Both take ``preset=`` or ``rows=, cols=,
mines=``, and ``first_click=``, ``flags=``, ``rewards=``, ``observation=``
and ``render_mode=``.

**Observation.**  What the player sees, nothing more: by default the
visible codes of :class:`~numsweeper.Snapshot` as an int8 ``Box`` of shape
``(rows, cols)``, ``0..8`` for a revealed count and
:data:`~numsweeper.HIDDEN` or :data:`~numsweeper.FLAG` for the others.
The mines show (:data:`~numsweeper.MINE`, :data:`~numsweeper.EXPLODED`,
:data:`~numsweeper.WRONG_FLAG`) only in the final observation of a lost
game, when the game shows them to any player.  With
``observation='onehot'`` it is an int8 0/1 ``Box`` of shape
``(len(ONEHOT_CODES), rows, cols)``, channel ``k`` marking the cells that
show ``ONEHOT_CODES[k]``.  The info holds no hidden information either.

**Actions.**  ``Discrete(rows * cols)``: action ``a`` reveals cell
``divmod(a, cols)`` (row-major).  With ``flags=True`` the space doubles, and
action ``rows * cols + a`` toggles the flag of that cell.

**Action mask.**  ``info["action_mask"]``, bool of shape ``(actions,)``,
marks the useful actions: reveals of the hidden, unflagged cells, and with
flags, toggles of the cells not revealed (to flag or to unflag them).  A
masked action is legal but useless: **it changes nothing and earns the
``useless`` reward** (-0.1 by default); the episode goes on.  In the final
observation of a won game nothing is left to reveal, so the reveal part of
the mask is all False.

**Rewards** (:class:`Rewards`, configurable with ``rewards=``): a step that
reveals ``k`` safe cells earns ``progress * k / (rows * cols - mines)``
(1.0 in all for a cleared board), plus ``win`` (+1) if it clears the board;
a step that reveals a mine earns ``loss`` (-1); a flag toggle earns ``flag``
(0); a masked action earns ``useless`` (-0.1).

**Episodes.**  ``terminated`` is set when the game is won or lost.
``truncated`` comes only from Gymnasium's ``TimeLimit``: the environment
registers no step limit, so pass ``max_episode_steps`` to
``gymnasium.make`` or ``make_vec`` to cut episodes (a policy that keeps
choosing masked actions never ends one).  The first reveal is safe under
``first_click='safe'`` or ``'opening'`` (the default), whose mines are laid
at that reveal; with ``first_click=None`` they are laid at ``reset`` and
the first reveal can lose.

**Seeding.**  ``reset(seed=s)`` reseeds ``np_random``, from which every
board of the following episodes is dealt (one 64-bit word per cell per
board); the same seed and the same actions give the same trajectory on any
machine.

Examples
--------
>>> import gymnasium as gym
>>> import numsweeper.envs
>>> env = gym.make("numsweeper/Minesweeper-v0", preset="expert", first_click="opening")
>>> obs, info = env.reset(seed=0)
>>> env.action_space, obs.shape, info["mines_left"]
(Discrete(480), (16, 30), 99)
>>> obs, reward, terminated, truncated, info = env.step(0)
>>> terminated, bool(reward > 0)
(False, True)
"""

from __future__ import annotations

try:
    from gymnasium.envs.registration import register, registry
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("numsweeper.envs needs Gymnasium 1.x: pip install 'numsweeper[rl]'") from exc

from ._common import ONEHOT_CODES, PIXELS, Rewards, Settings
from .env import MinesweeperEnv
from .vector import MinesweeperVectorEnv

__all__ = [
    "ENV_ID",
    "ONEHOT_CODES",
    "PIXELS",
    "MinesweeperEnv",
    "MinesweeperVectorEnv",
    "Rewards",
    "Settings",
]

#: The id that importing this module registers with Gymnasium.
ENV_ID = "numsweeper/Minesweeper-v0"

if ENV_ID not in registry:  # registering twice would warn (a reload, say)
    register(
        id=ENV_ID,
        entry_point="numsweeper.envs.env:MinesweeperEnv",
        vector_entry_point="numsweeper.envs.vector:MinesweeperVectorEnv",
    )
