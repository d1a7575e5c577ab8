"""numsweeper.envs: the Gymnasium environment, the native vector environment."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import numsweeper as ns

gym = pytest.importorskip("gymnasium")

from gymnasium.error import ResetNeeded  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from gymnasium.wrappers import TimeLimit  # noqa: E402

from numsweeper.envs import (  # noqa: E402
    ENV_ID,
    ONEHOT_CODES,
    PIXELS,
    MinesweeperEnv,
    MinesweeperVectorEnv,
    Rewards,
)
from numsweeper.envs._common import SlotPlacement, lay_by_keys  # noqa: E402
from numsweeper.render import cell_rgb, visible_text  # noqa: E402


def make(**kwargs: Any) -> MinesweeperEnv:
    """The unwrapped single environment, built through the registry."""
    env = gym.make(ENV_ID, **kwargs).unwrapped
    assert isinstance(env, MinesweeperEnv)
    return env


def layout(env: MinesweeperEnv) -> NDArray[np.bool_]:
    """The mines of the episode (the test peeks; the agent cannot)."""
    assert env.game is not None and env.game.board is not None
    return env.game.board.mines


def play_safe(env: MinesweeperEnv, info: dict[str, Any]) -> list[float]:
    """Reveal safe cells (peeking at the mines) until the game is won; the rewards."""
    rewards = []
    terminated = False
    while not terminated:
        safe = np.flatnonzero(info["action_mask"] & ~layout(env).ravel())
        _, reward, terminated, _, info = env.step(int(safe[0]))
        rewards.append(reward)
    return rewards


# -- registration and construction ----------------------------------------------------


def test_importing_registers_the_environment() -> None:
    assert ENV_ID == "numsweeper/Minesweeper-v0"
    assert ENV_ID in gym.registry
    env = gym.make(ENV_ID, preset="expert", first_click="opening")
    assert isinstance(env.unwrapped, MinesweeperEnv)
    assert env.observation_space.shape == (16, 30)
    assert env.action_space == gym.spaces.Discrete(480)


def test_sizes_by_hand_and_default() -> None:
    env = make(rows=5, cols=7, mines=6, first_click=None)
    assert (env.settings.rows, env.settings.cols, env.settings.mines) == (5, 7, 6)
    env.reset(seed=0)
    assert int(layout(env).sum()) == 6
    assert make().settings.mines == ns.PRESETS["beginner"][2]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"preset": "huge"}, ns.InvalidBoardError, "unknown preset 'huge'"),
        (
            {"preset": ["beginner"]},
            ns.InvalidBoardError,
            r"unknown preset \['beginner'\]",
        ),
        ({"preset": "expert", "rows": 3}, ns.InvalidBoardError, "not both .preset='expert'"),
        ({"rows": 3, "cols": 3}, ns.InvalidBoardError, "give all of .*mines=None"),
        ({"rows": 3, "cols": 3, "mines": 9}, ns.InvalidBoardError, "mines must be in"),
        ({"rows": 4, "cols": 4, "mines": 8}, ns.InvalidBoardError, "first_click='opening'"),
        ({"rows": 3.0, "cols": 3, "mines": 1}, ns.InvalidTypeError, "rows must be .*, got 3.0"),
        ({"first_click": "corner"}, ns.InvalidBoardError, "first_click must be .*'corner'"),
        ({"observation": "rgb"}, ns.InvalidBoardError, "observation must be .*, got 'rgb'"),
        ({"observation": ["codes"]}, ns.InvalidBoardError, r"got \['codes'\]"),
        ({"render_mode": "human"}, ns.InvalidBoardError, "render_mode must be .*'human'"),
        ({"render_mode": ["ansi"]}, ns.InvalidBoardError, r"render_mode .*got \['ansi'\]"),
        ({"flags": 1}, ns.InvalidTypeError, "flags must be a bool, got 1"),
        ({"rewards": {"lose": -1}}, ns.InvalidTypeError, "unknown reward 'lose'"),
        ({"rewards": {"win": math.inf}}, ns.InvalidBoardError, "'win' must be finite, got inf"),
        (
            {"rewards": {"flag": -(10**400)}},
            ns.InvalidBoardError,
            "'flag' must be finite, got -1" + "0" * 75 + "[.][.][.]",
        ),
        ({"rewards": {"win": "big"}}, ns.InvalidTypeError, "'win' must be a real .*'big'"),
        ({"rewards": [1.0]}, ns.InvalidTypeError, r"a Rewards or a mapping, got \[1.0\]"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        MinesweeperEnv(**kwargs)
    with pytest.raises(error, match=match):
        MinesweeperVectorEnv(2, **kwargs)


# -- Gymnasium's own checker ------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"preset": "expert", "flags": True},
        {"observation": "onehot", "first_click": "safe"},
        {"rows": 4, "cols": 5, "mines": 15, "first_click": None},
        {"render_mode": "ansi"},
        {"render_mode": "rgb_array"},
    ],
    ids=repr,
)
def test_check_env_passes(kwargs: dict[str, Any]) -> None:
    # Through make, so that the checker has a spec and tries every render
    # mode; on the unwrapped env, as Gymnasium asks.  Any warning fails.
    check_env(make(**kwargs))


# -- observations ---------------------------------------------------------------------


def test_observation_is_the_snapshot_and_the_info_tells_nothing_more() -> None:
    env = make(preset="intermediate", flags=True)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        assert env.game is not None
        snap = env.game.snapshot()
        assert obs.dtype == np.int8 and obs in env.observation_space
        np.testing.assert_array_equal(obs, snap.cells)
        if snap.state is ns.GameState.IN_PROGRESS:
            # nothing but counts, hidden cells and flags while playing
            assert set(np.unique(obs).tolist()) <= {*range(9), int(ns.HIDDEN), int(ns.FLAG)}
            assert info["mines_left"] == 40 - int((obs == ns.FLAG).sum())
        # every item of the info follows from the observation
        assert set(info) == {"action_mask", "mines_left", "won"}
        flat = obs.ravel()
        hidden = flat == ns.HIDDEN
        np.testing.assert_array_equal(
            info["action_mask"], np.concatenate([hidden, hidden | (flat == ns.FLAG)])
        )
        assert info["won"] == (snap.state is ns.GameState.WON)
        if snap.state is not ns.GameState.IN_PROGRESS:
            obs, info = env.reset()
            continue
        useful = np.flatnonzero(info["action_mask"])
        obs, _, _, _, info = env.step(int(rng.choice(useful)))


def test_onehot_observation_marks_each_code_once() -> None:
    codes_env, onehot_env = (
        make(preset="intermediate"),
        make(preset="intermediate", observation="onehot"),
    )
    codes, _ = codes_env.reset(seed=5)
    onehot, _ = onehot_env.reset(seed=5)
    for action in (0, 100, 255):
        codes, *_ = codes_env.step(action)
        onehot, *_ = onehot_env.step(action)
        assert onehot.shape == (len(ONEHOT_CODES), 16, 16) and onehot.dtype == np.int8
        np.testing.assert_array_equal(onehot.sum(axis=0), 1)
        for channel, code in enumerate(ONEHOT_CODES):
            np.testing.assert_array_equal(onehot[channel], codes == code)


# -- actions, the mask and masked actions ------------------------------------------------


def test_actions_are_row_major_and_flags_come_second() -> None:
    env = make(rows=5, cols=7, mines=3, flags=True, first_click=None)
    env.reset(seed=1)
    mines = layout(env)
    row, col = (int(v) for v in np.argwhere(~mines)[-1])
    obs, *_ = env.step(row * 7 + col)
    assert obs[row, col] >= 0
    hidden = np.argwhere(obs == ns.HIDDEN)[0]
    obs, reward, _, _, info = env.step(35 + int(hidden[0]) * 7 + int(hidden[1]))
    assert obs[tuple(hidden)] == ns.FLAG and reward == 0.0
    assert info["mines_left"] == 2
    flat = int(hidden[0]) * 7 + int(hidden[1])
    assert not info["action_mask"][flat] and info["action_mask"][35 + flat]
    obs, *_ = env.step(35 + flat)  # and unflags it
    assert obs[tuple(hidden)] == ns.HIDDEN


def test_flags_before_the_first_reveal() -> None:
    env = make(preset="beginner", flags=True)
    env.reset(seed=0)
    obs, reward, _, _, info = env.step(81 + 40)  # flag the centre: nothing is laid yet
    assert obs[4, 4] == ns.FLAG and reward == 0.0 and info["mines_left"] == 9
    assert env.game is not None and env.game.board is None
    assert not info["action_mask"][40] and info["action_mask"][81 + 40]
    obs, reward, terminated, _, _ = env.step(0)  # the first reveal is still safe
    assert not terminated and reward > 0 and obs[4, 4] == ns.FLAG
    assert env.game.board is not None


def test_action_space_has_no_flags_by_default() -> None:
    env = make(preset="expert")
    assert env.action_space.n == 480
    _, info = env.reset(seed=0)
    assert info["action_mask"].shape == (480,) and info["action_mask"].dtype == bool
    assert info["action_mask"].all()


@pytest.mark.parametrize("kind", ["revealed", "flagged", "flag a revealed cell"])
def test_a_masked_action_changes_nothing_and_costs_the_useless_reward(kind: str) -> None:
    env = make(preset="beginner", flags=True, rewards={"useless": -0.25})
    obs, info = env.reset(seed=2)
    obs, _, _, _, info = env.step(40)
    revealed = int(np.flatnonzero(obs.ravel() >= 0)[0])
    hidden = int(np.flatnonzero(obs.ravel() == ns.HIDDEN)[0])
    if kind == "flagged":
        obs, _, _, _, info = env.step(81 + hidden)
        action = hidden
    elif kind == "revealed":
        action = revealed
    else:
        action = 81 + revealed
    assert not info["action_mask"][action]
    assert env.game is not None
    moves = len(env.game.moves)
    after, reward, terminated, truncated, after_info = env.step(action)
    np.testing.assert_array_equal(after, obs)
    np.testing.assert_array_equal(after_info["action_mask"], info["action_mask"])
    assert (reward, terminated, truncated) == (-0.25, False, False)
    assert len(env.game.moves) == moves  # the game never saw it


def test_bad_actions_raise() -> None:
    env = make()
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ns.InvalidBoardError, match=r"action must be in 0\.\.80, got 81"):
        env.step(81)
    with pytest.raises(ns.InvalidBoardError, match=r"action must be in 0\.\.80, got -1"):
        env.step(-1)
    with pytest.raises(ns.InvalidTypeError, match=r"action must be an integer, got 1\.5"):
        env.step(1.5)
    with pytest.raises(ns.InvalidTypeError, match="action must be an integer, got True"):
        env.step(True)
    with pytest.raises(ns.InvalidTypeError, match=r"got array\(\[3\]\)"):
        env.step(np.array([3]))
    env.step(np.int64(3))  # what Discrete.sample() gives
    env.step(np.array(4))  # and a 0-d array, as an agent's argmax may


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (81, ns.InvalidBoardError, "got 81"),
        (2**70, ns.InvalidBoardError, f"got {2**70}"),
        (1.0, ns.InvalidTypeError, "got 1.0"),
        ("3", ns.InvalidTypeError, "got '3'"),
        (None, ns.InvalidTypeError, "got None"),
    ],
)
def test_a_refused_action_changes_nothing(action: Any, error: type, match: str) -> None:
    env, twin = make(first_click=None), make(first_click=None)
    env.reset(seed=4)
    twin.reset(seed=4)
    env.step(40)
    twin.step(40)
    with pytest.raises(error, match=match):
        env.step(action)
    assert env.game is not None and twin.game is not None
    assert [(m.kind, m.row, m.col) for m in env.game.moves] == [
        (m.kind, m.row, m.col) for m in twin.game.moves
    ]
    # the same next step, and the same next episode
    for a, b in zip(env.step(0), twin.step(0), strict=True):
        np.testing.assert_equal(a, b)
    np.testing.assert_array_equal(env.reset()[0], twin.reset()[0])
    np.testing.assert_array_equal(layout(env), layout(twin))


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        (-1, ns.InvalidBoardError, "seed must be >= 0, got -1"),
        (1.5, ns.InvalidTypeError, "seed must be an integer, got 1.5"),
        (True, ns.InvalidTypeError, "seed must be an integer, got True"),
        ("7", ns.InvalidTypeError, "seed must be an integer, got '7'"),
    ],
)
def test_a_refused_seed_changes_nothing(seed: Any, error: type, match: str) -> None:
    env, twin = make(first_click=None), make(first_click=None)
    env.reset(seed=1)
    twin.reset(seed=1)
    with pytest.raises(error, match=match):
        env.reset(seed=seed)
    np.testing.assert_array_equal(layout(env), layout(twin))  # the episode goes on
    env.reset()
    twin.reset()
    np.testing.assert_array_equal(layout(env), layout(twin))  # and np_random was kept


def test_a_numpy_integer_seed_is_a_seed() -> None:
    env, twin = make(first_click=None), make(first_click=None)
    env.reset(seed=np.int64(5))
    twin.reset(seed=5)
    np.testing.assert_array_equal(layout(env), layout(twin))


# -- first clicks -------------------------------------------------------------------------


@pytest.mark.parametrize("cell", [(0, 0), (0, 4), (2, 2), (4, 4)])
def test_opening_first_click_never_loses_and_opens_its_neighbours(cell: tuple[int, int]) -> None:
    # 5x5 with 16 mines: the 9 cells of the opening are exactly the safe ones
    # when the click is inside; on the edge fewer are kept, so more may be safe.
    row, col = cell
    for seed in range(30):
        env = make(rows=5, cols=5, mines=16)
        env.reset(seed=seed)
        assert env.game is not None and env.game.board is None  # not laid yet
        obs, reward, terminated, _, info = env.step(row * 5 + col)
        assert not (terminated and not info["won"])
        zone = obs[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2]
        assert (zone >= 0).all() and obs[row, col] == 0
        assert reward > 0


def test_safe_first_click_never_loses_and_no_rule_can() -> None:
    losses = {"safe": 0, None: 0}
    for rule in losses:
        for seed in range(40):
            env = make(rows=4, cols=4, mines=12, first_click=rule)
            env.reset(seed=seed)
            _, reward, terminated, _, info = env.step(5)
            if terminated and not info["won"]:
                losses[rule] += 1
                assert reward == -1.0
    assert losses["safe"] == 0
    assert losses[None] > 20  # 12 of 16 cells are mines


def test_the_command_line_spelling_none_is_no_rule() -> None:
    # 'none' was accepted, kept as a string, and then every reset failed
    env = MinesweeperEnv("beginner", first_click="none")
    assert env.settings.first_click is None
    twin = MinesweeperEnv("beginner", first_click=None)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        again, _ = twin.reset(seed=seed)
        np.testing.assert_array_equal(obs, again)
        assert env.step(40)[1:3] == twin.step(40)[1:3]
    envs = MinesweeperVectorEnv(2, "beginner", first_click="none")
    twins = MinesweeperVectorEnv(2, "beginner", first_click=None)
    assert envs.settings.first_click is None
    np.testing.assert_array_equal(envs.reset(seed=3)[0], twins.reset(seed=3)[0])
    moved, twin_moved = envs.step(np.array([0, 80])), twins.step(np.array([0, 80]))
    for got, expected in zip(moved[:3], twin_moved[:3], strict=True):
        np.testing.assert_array_equal(got, expected)


# -- rewards and episode ends ---------------------------------------------------------------


def test_default_rewards() -> None:
    assert Rewards() == Rewards(win=1.0, loss=-1.0, progress=1.0, useless=-0.1, flag=0.0)
    assert Rewards.of(None) == Rewards() and Rewards.of(Rewards(win=2)).win == 2.0


def test_a_won_episode_earns_progress_plus_win() -> None:
    env = make(rows=6, cols=6, mines=5, first_click=None)
    _, info = env.reset(seed=11)
    rewards = play_safe(env, info)
    assert env.game is not None and env.game.state is ns.GameState.WON
    assert math.isclose(sum(rewards), 2.0)  # progress 1 in all, plus the win
    assert all(r > 0 for r in rewards)
    with pytest.raises(ns.GameOverError, match="reset"):
        env.step(0)


def test_progress_is_shared_by_safe_cells() -> None:
    env = make(rows=6, cols=6, mines=5, first_click=None, rewards={"progress": 3.1})
    env.reset(seed=12)
    safe = int(np.flatnonzero(~layout(env).ravel())[-1])
    obs, reward, _, _, info = env.step(safe)
    opened = int((obs >= 0).sum())
    assert 0 < opened < 31 and not info["won"]
    assert math.isclose(reward, 3.1 * opened / 31)


def test_a_lost_episode_earns_the_loss() -> None:
    env = make(rows=6, cols=6, mines=5, first_click=None, rewards={"loss": -7})
    env.reset(seed=13)
    mine = int(np.flatnonzero(layout(env).ravel())[0])
    obs, reward, terminated, truncated, info = env.step(mine)
    assert (reward, terminated, truncated, info["won"]) == (-7.0, True, False, False)
    assert obs.ravel()[mine] == ns.EXPLODED


def test_truncation_comes_from_time_limit_only() -> None:
    env = gym.make(ENV_ID, max_episode_steps=3)
    assert isinstance(env, TimeLimit)
    env.reset(seed=0)
    env.step(40)
    revealed = 40  # a masked action from now on
    results = [env.step(revealed)[2:4] for _ in range(2)]
    assert results == [(False, False), (False, True)]
    unlimited = make()
    unlimited.reset(seed=0)
    unlimited.step(40)
    assert not any(unlimited.step(40)[3] for _ in range(200))


# -- seeding --------------------------------------------------------------------------------


def trajectory(env: Any, seed: int, steps: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
        out.append((obs.tobytes(), reward, terminated))
        if terminated:
            obs, info = env.reset()
    return out


def test_the_same_seed_gives_the_same_trajectory() -> None:
    first = trajectory(make(preset="intermediate"), 21, 80)
    assert first == trajectory(make(preset="intermediate"), 21, 80)
    assert first != trajectory(make(preset="intermediate"), 22, 80)


def test_boards_dealt_by_a_seed_are_pinned() -> None:
    # The same on every machine: one 64-bit word per cell from np_random.
    env = make(first_click=None)
    env.reset(seed=0)
    assert np.flatnonzero(layout(env)).tolist() == [2, 3, 11, 13, 20, 48, 53, 59, 62, 69]
    env.reset()
    assert np.flatnonzero(layout(env)).tolist() == [11, 27, 30, 32, 36, 38, 65, 69, 71, 78]
    # Under the opening rule the same keys decide: the opening's cell 48 moves away.
    env = make(first_click="opening")
    env.reset(seed=0)
    env.step(40)
    assert np.flatnonzero(layout(env)).tolist() == [2, 3, 11, 13, 20, 21, 53, 59, 62, 69]


def test_lay_by_keys_is_uniform() -> None:
    # 2 mines on a 2x3 board with cell 0 kept safe: C(5, 2) = 10 layouts.
    rng = np.random.default_rng(0)
    trials = 20_000
    words = rng.bit_generator.random_raw((trials, 6))
    safe = np.zeros((trials, 6), dtype=bool)
    safe[:, 0] = True
    layouts = lay_by_keys(words, 2, safe)
    assert (layouts.sum(axis=1) == 2).all() and not layouts[:, 0].any()
    _, counts = np.unique(layouts, axis=0, return_counts=True)
    assert len(counts) == 10
    expected = trials / 10
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 27.9  # the 0.999 quantile of chi-square with 9 degrees of freedom


def test_lay_by_keys_settles_ties_on_the_full_keys() -> None:
    high = np.uint64(7) << np.uint64(32)
    words = np.array([[high + 5, high + 1, high + 3, high + 2]], dtype=np.uint64)
    assert lay_by_keys(words, 2, None).tolist() == [[False, True, False, True]]
    # A safe cell never holds a mine, even when its key would win the tie.
    top = np.uint64(0xFFFFFFFF) << np.uint64(32)
    words = np.array([[top, top + 1, 0, top + 9]], dtype=np.uint64)
    safe = np.array([[True, False, False, False]])
    assert lay_by_keys(words, 3, safe).tolist() == [[False, True, True, True]]
    assert lay_by_keys(words, 0, safe).tolist() == [[False] * 4]


def test_slot_placement_refuses_what_it_was_not_told() -> None:
    dealer = SlotPlacement(2)
    dealer.rngs[0] = np.random.default_rng(0)
    with pytest.raises(RuntimeError, match="asked for 1 boards"), dealer.dealing([0, 1]):
        dealer.place(3, 3, 1)
    with pytest.raises(RuntimeError, match="slot 1 has no random stream"), dealer.dealing([1]):
        dealer.place(3, 3, 1)
    with pytest.raises(RuntimeError, match="laid no board"), dealer.dealing([0]):
        pass


# -- rendering -------------------------------------------------------------------------------


def test_render_modes_reuse_the_renderers() -> None:
    assert make().render() is None
    ansi, rgb = make(render_mode="ansi"), make(render_mode="rgb_array")
    with pytest.raises(ResetNeeded):
        ansi.render()
    for env in (ansi, rgb):
        env.reset(seed=4)
        env.step(40)
    assert ansi.game is not None
    cells = ansi.game.snapshot().cells
    assert ansi.render() == visible_text(cells) + "\n"
    image = rgb.render()
    assert isinstance(image, np.ndarray)
    assert image.shape == (9 * PIXELS, 9 * PIXELS, 3) and image.dtype == np.uint8
    colours = cell_rgb(cells)
    np.testing.assert_array_equal(image[::PIXELS, ::PIXELS], colours)
    np.testing.assert_array_equal(image[PIXELS - 1 :: PIXELS, 0], colours[:, 0] // 2)


# -- the vector environment -----------------------------------------------------------------


def test_make_vec_gives_the_native_vector_env() -> None:
    envs = gym.make_vec(
        ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", preset="expert"
    )
    assert isinstance(envs, MinesweeperVectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.single_observation_space.shape == (16, 30)
    assert envs.observation_space.shape == (4, 16, 30)
    assert envs.action_space == gym.spaces.MultiDiscrete([480] * 4)
    obs, info = envs.reset(seed=0)
    assert obs.shape == (4, 16, 30) and obs.dtype == np.int8
    assert info["action_mask"].shape == (4, 480)


def random_actions(
    rng: np.random.Generator, mask: NDArray[np.bool_], junk: float
) -> NDArray[np.int64]:
    """Mostly useful actions; a share ``junk`` of uniformly random (often masked) ones."""
    keys = rng.random(mask.shape) + mask
    actions = keys.argmax(axis=1)
    wild = rng.random(len(mask)) < junk
    actions[wild] = rng.integers(0, mask.shape[1], int(wild.sum()))
    return actions


def assert_same_step(ours: tuple[Any, ...], theirs: tuple[Any, ...], step: int) -> None:
    names = ("observations", "rewards", "terminations", "truncations")
    for name, a, b in zip(names, ours[:-1], theirs[:-1], strict=False):
        assert a.dtype == b.dtype and a.shape == b.shape, (name, step)
        assert np.array_equal(a, b), f"{name} differ at step {step}"
    info_a, info_b = ours[-1], theirs[-1]
    assert info_a.keys() == info_b.keys(), step
    for key in info_a:
        assert info_a[key].dtype == info_b[key].dtype, (key, step)
        assert np.array_equal(info_a[key], info_b[key]), f"info[{key!r}] differs at step {step}"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"preset": "beginner"},
        {"preset": "beginner", "flags": True, "max_episode_steps": 25},
        {"rows": 8, "cols": 8, "mines": 20, "first_click": None},
        {"preset": "intermediate", "first_click": "safe", "observation": "onehot"},
    ],
    ids=repr,
)
def test_native_vector_env_equals_sync_vector_env(kwargs: dict[str, Any]) -> None:
    n, steps, seed = 8, 1000, 17
    native = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)
    sync = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="sync", **kwargs)
    assert isinstance(sync, SyncVectorEnv)
    rng = np.random.default_rng(seed)
    assert_same_step(native.reset(seed=seed), sync.reset(seed=seed), -1)
    info = sync.reset(seed=seed)[1]
    native.reset(seed=seed)
    ended = truncated = 0
    for step in range(steps):
        if step == steps // 2:
            # a partial reset with seeds of our own, in the middle of episodes
            mask = np.arange(n) % 3 == 0
            seeds: list[int | None] = [100 + i if i % 2 else None for i in range(n)]
            options = {"reset_mask": mask}
            ours = native.reset(seed=seeds, options=dict(options))
            theirs = sync.reset(seed=seeds, options=dict(options))
            assert_same_step(ours, theirs, step)
            assert not theirs[1]["_action_mask"][~mask].any()
            # the other games keep the masks of their last step
            masks = np.where(mask[:, None], theirs[1]["action_mask"], info["action_mask"])
            info = {"action_mask": masks}
        actions = random_actions(rng, info["action_mask"], junk=0.1)
        ours = native.step(actions)
        theirs = sync.step(actions)
        assert_same_step(ours, theirs, step)
        info = theirs[-1]
        ended += int((theirs[2] | theirs[3]).sum())
        truncated += int(theirs[3].sum())
    assert ended > 200  # thousands of steps, many episodes and resets
    assert truncated > 0 or "max_episode_steps" not in kwargs


def test_autoreset_is_next_step() -> None:
    envs = MinesweeperVectorEnv(2, rows=4, cols=4, mines=12, first_click=None)
    envs.reset(seed=0)
    mines = np.asarray(envs.games.mines) if envs.games is not None else None
    assert mines is not None
    boom = int(np.flatnonzero(mines[0].ravel())[0])
    safe = int(np.flatnonzero(~mines[1].ravel())[0])
    obs, rewards, terminated, _, info = envs.step(np.array([boom, safe]))
    assert terminated[0] and rewards[0] == -1.0 and not info["won"][0]
    assert obs[0].ravel()[boom] == ns.EXPLODED  # the final observation
    second = envs.step(np.array([boom, safe]))  # game 0's action is ignored
    obs, rewards, terminated = second[0], second[1], second[2]
    assert rewards[0] == 0.0 and not terminated[0]
    assert (obs[0] == ns.HIDDEN).all()
    assert second[-1]["action_mask"][0].all()


def test_vector_env_reset_mask_keeps_the_others() -> None:
    envs = MinesweeperVectorEnv(3, preset="beginner")
    envs.reset(seed=1)
    before, *_ = envs.step(np.array([40, 40, 40]))
    mask = np.array([False, True, False])
    after, info = envs.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(after[~mask], before[~mask])
    assert (after[1] == ns.HIDDEN).all() and info["action_mask"][1].all()


def test_vector_env_refuses_bad_input() -> None:
    with pytest.raises(ns.InvalidBoardError, match="num_envs must be >= 1, got 0"):
        MinesweeperVectorEnv(0)
    with pytest.raises(ns.InvalidTypeError, match=r"num_envs must be an integer, got 2\.0"):
        MinesweeperVectorEnv(2.0)  # type: ignore[arg-type]
    with pytest.raises(ns.InvalidBoardError, match="max_episode_steps must be >= 1, got 0"):
        MinesweeperVectorEnv(2, max_episode_steps=0)
    envs = MinesweeperVectorEnv(2)
    with pytest.raises(ResetNeeded):
        envs.step(np.array([0, 0]))
    with pytest.raises(ResetNeeded, match="first reset"):
        envs.reset(options={"reset_mask": np.array([True, False])})
    envs.reset(seed=0)
    with pytest.raises(ns.InvalidBoardError, match=r"shape \(2,\), got \(3,\)"):
        envs.step(np.array([0, 0, 0]))
    with pytest.raises(ns.InvalidTypeError, match="integers, got dtype float64"):
        envs.step(np.array([0.0, 1.0]))
    with pytest.raises(ns.InvalidBoardError, match=r"actions\[1\] must be in 0\.\.80, got 81"):
        envs.step(np.array([0, 81]))
    with pytest.raises(ns.InvalidBoardError, match=r"actions\[0\] must be .*, got -1"):
        envs.step([-1, 0])
    with pytest.raises(ns.InvalidBoardError, match=r"one seed per game \(2\), got 3"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ns.InvalidTypeError, match=r"reset_mask.*got \[True, False\]"):
        envs.reset(options={"reset_mask": [True, False]})
    with pytest.raises(ns.InvalidBoardError, match="at least one"):
        envs.reset(options={"reset_mask": np.zeros(2, dtype=bool)})
    with pytest.raises(ns.InvalidBoardError, match=r"reset_mask.*shape \(2,\)"):
        envs.reset(options={"reset_mask": np.ones(3, dtype=bool)})
    with pytest.raises(ns.InvalidTypeError, match=r"options must be a dict, got \[1\]"):
        envs.reset(options=[1])  # type: ignore[arg-type]  # (once taken for no options)
    with pytest.raises(ns.InvalidTypeError, match=r"seed must be None, .* got \{1, 2\}"):
        envs.reset(seed={1, 2})  # (a set has no order: which game gets which seed?)


def vector_twins() -> tuple[MinesweeperVectorEnv, MinesweeperVectorEnv]:
    """Two vector envs in the same state, three games each, mines laid at reset."""
    envs = MinesweeperVectorEnv(3, first_click=None), MinesweeperVectorEnv(3, first_click=None)
    for e in envs:
        e.reset(seed=1)
        e.step(np.array([40, 0, 80]))
    return envs


def same_games(a: MinesweeperVectorEnv, b: MinesweeperVectorEnv) -> None:
    assert a.games is not None and b.games is not None
    np.testing.assert_array_equal(a.games.mines, b.games.mines)
    np.testing.assert_array_equal(a.games.visible, b.games.visible)


@pytest.mark.parametrize(
    ("seed", "options", "error", "match"),
    [
        ([7, -1, 9], None, ns.InvalidBoardError, r"seed\[1\] must be >= 0, got -1"),
        ([7, 8, -2], None, ns.InvalidBoardError, r"seed\[2\] must be >= 0, got -2"),
        ([7, 1.5, 9], None, ns.InvalidTypeError, r"seed\[1\] must be an integer, got 1.5"),
        ([7, None, True], None, ns.InvalidTypeError, r"seed\[2\] must be an integer, got True"),
        ([7, 8], None, ns.InvalidBoardError, r"one seed per game \(3\), got 2: \[7, 8\]"),
        (-1, None, ns.InvalidBoardError, "seed must be >= 0, got -1"),
        (1.5, None, ns.InvalidTypeError, "seed must be None, an integer .*, got 1.5"),
        ("789", None, ns.InvalidTypeError, "seed must be None, an integer .*, got '789'"),
        (
            7,
            {"reset_mask": np.zeros(3, dtype=bool)},
            ns.InvalidBoardError,
            "at least one game",
        ),
    ],
)
def test_a_refused_vector_reset_changes_nothing(
    seed: Any, options: Any, error: type, match: str
) -> None:
    envs, twin = vector_twins()
    with pytest.raises(error, match=match):
        envs.reset(seed=seed, options=options)
    same_games(envs, twin)  # the episodes go on
    envs.reset()
    twin.reset()
    same_games(envs, twin)  # and no slot was reseeded


def test_a_vector_reset_takes_numpy_seeds() -> None:
    envs, twin = (
        MinesweeperVectorEnv(2, first_click=None),
        MinesweeperVectorEnv(2, first_click=None),
    )
    envs.reset(seed=np.array([3, 4]))
    twin.reset(seed=[3, None])
    twin.reset(seed=[None, 4], options={"reset_mask": np.array([False, True])})
    same_games(envs, twin)
    # one number as a 0-d array, and seeds from any iterable, as plain ones
    envs.reset(seed=np.array(7))
    twin.reset(seed=7)
    same_games(envs, twin)
    envs.reset(seed=(s for s in (5, 6)))
    twin.reset(seed=[5, 6])
    same_games(envs, twin)


@pytest.mark.parametrize(
    ("actions", "error", "match"),
    [
        ([0, 81, 0], ns.InvalidBoardError, r"actions\[1\] must be in 0\.\.80, got 81"),
        ([0, 0, -1], ns.InvalidBoardError, r"actions\[2\] must be in 0\.\.80, got -1"),
        ([0.0, 1.0, 2.0], ns.InvalidTypeError, "actions must be integers, got dtype float64"),
        ([0, 1], ns.InvalidBoardError, r"actions must have shape \(3,\), got \(2,\)"),
    ],
)
def test_a_refused_vector_step_changes_nothing(actions: Any, error: type, match: str) -> None:
    envs, twin = vector_twins()
    with pytest.raises(error, match=match):
        envs.step(np.array(actions))
    same_games(envs, twin)
    for a, b in zip(envs.step(np.array([1, 2, 3])), twin.step(np.array([1, 2, 3])), strict=True):
        np.testing.assert_equal(a, b)


def test_a_ragged_vector_step_is_ours_and_changes_nothing() -> None:
    envs, twin = vector_twins()
    with pytest.raises(
        ns.InvalidBoardError, match=r"actions must have shape \(3,\), got \[0, \[1, 2\], 3\]"
    ):
        envs.step([0, [1, 2], 3])
    same_games(envs, twin)


def test_vector_env_renders_every_game() -> None:
    envs = MinesweeperVectorEnv(2, render_mode="ansi")
    envs.reset(seed=0)
    frames = envs.render()
    assert frames == (visible_text(np.full((9, 9), ns.HIDDEN, np.int8)) + "\n",) * 2
    assert MinesweeperVectorEnv(2).render() is None
