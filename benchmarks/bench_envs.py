"""Gymnasium environments: the native vector environment against Gymnasium's own.

Side by side in one run, ``num_envs`` expert games (16 x 30, 99 mines, first
click ``'opening'``) stepped with a random useful action each (drawn from
``info["action_mask"]`` by the same vectorized sampler for every case):

- ``native``: ``MinesweeperVectorEnv``, one ``BatchGame`` for all the games
  (``make_vec(..., vectorization_mode="vector_entry_point")``);
- ``sync``: ``SyncVectorEnv`` over ``MinesweeperEnv`` (``vectorization_mode="sync"``);
- ``async``: ``AsyncVectorEnv`` over ``MinesweeperEnv`` (``vectorization_mode="async"``),
  one worker process per game, so on fewer games (``ASYNC_ENVS``): a
  thousand processes do not fit a 2-core machine.

Compare ``us_per_env_step``.  ``test_ratio`` prints the table and, at full
size, requires the native environment to step games at least 10x faster
than ``SyncVectorEnv`` (the target is 20x; the loose bound keeps a loaded
machine from failing the run).

Run: ``pytest benchmarks/bench_envs.py --benchmark-columns=min,median,rounds -s``
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from conftest import SMALL, size

gym = pytest.importorskip("gymnasium")

from numsweeper.envs import ENV_ID, MinesweeperVectorEnv  # noqa: E402

NUM_ENVS = size(1024, 16)
ASYNC_ENVS = size(64, 4)
NATIVE_STEPS = size(200, 5)
SYNC_STEPS = size(10, 2)
ASYNC_STEPS = size(40, 2)

# Seconds per game step of each case that ran, for test_ratio.
PER_STEP: dict[str, float] = {}


def useful_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random useful action per game (0 where none is left).

    A few rounds of uniform draws kept where useful (most are, on expert),
    then a full scan for the rest, as ``ns.RandomPolicy`` does.
    """
    n, actions = masks.shape
    out = rng.integers(0, actions, n)
    every = np.arange(n)
    for _ in range(4):
        bad = np.flatnonzero(~masks[every, out])
        if not bad.size:
            return out
        out[bad] = rng.integers(0, actions, bad.size)
    bad = np.flatnonzero(~masks[every, out])
    keys = rng.random((bad.size, actions), dtype=np.float32)
    keys[~masks[bad]] = -1.0
    out[bad] = keys.argmax(axis=1)
    return out


def play(envs: Any, steps: int) -> int:
    """Reset ``envs`` with seed 0 and take ``steps`` steps; the episodes that ended."""
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    ended = 0
    for _ in range(steps):
        _, _, terminated, truncated, info = envs.step(useful_actions(info["action_mask"], rng))
        ended += int((terminated | truncated).sum())
    return ended


def measure(benchmark: Any, name: str, make: Callable[[], Any], n: int, steps: int) -> None:
    envs = make()
    try:
        ended = benchmark.pedantic(play, args=(envs, steps), rounds=3, warmup_rounds=1)
    finally:
        envs.close()
    assert ended > 0  # games ended and were reset along the way
    if benchmark.stats is not None:  # None under --benchmark-disable
        PER_STEP[name] = benchmark.stats.stats.min / (n * steps)
        benchmark.extra_info["us_per_env_step"] = round(PER_STEP[name] * 1e6, 2)
        benchmark.extra_info["env_steps_per_s"] = round(1 / PER_STEP[name])


@pytest.mark.benchmark(group="expert games, random useful actions (compare us_per_env_step)")
def test_native(benchmark: Any) -> None:
    def make() -> Any:
        return gym.make_vec(
            ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point", preset="expert"
        )

    probe = make()
    assert isinstance(probe, MinesweeperVectorEnv)
    probe.close()
    measure(benchmark, f"native, {NUM_ENVS} games", make, NUM_ENVS, NATIVE_STEPS)


@pytest.mark.benchmark(group="expert games, random useful actions (compare us_per_env_step)")
def test_sync(benchmark: Any) -> None:
    def make() -> Any:
        return gym.make_vec(ENV_ID, num_envs=NUM_ENVS, vectorization_mode="sync", preset="expert")

    measure(benchmark, f"SyncVectorEnv, {NUM_ENVS} games", make, NUM_ENVS, SYNC_STEPS)


@pytest.mark.benchmark(group="expert games, random useful actions (compare us_per_env_step)")
def test_async(benchmark: Any) -> None:
    def make() -> Any:
        return gym.make_vec(
            ENV_ID, num_envs=ASYNC_ENVS, vectorization_mode="async", preset="expert"
        )

    measure(benchmark, f"AsyncVectorEnv, {ASYNC_ENVS} games", make, ASYNC_ENVS, ASYNC_STEPS)


def test_ratio() -> None:
    """The table of the cases that ran; at full size native must be >= 10x SyncVectorEnv."""
    if not PER_STEP:
        pytest.skip("no timings (run without --benchmark-disable)")
    native = next((t for name, t in PER_STEP.items() if name.startswith("native")), None)
    print()
    for name, seconds in PER_STEP.items():
        ratio = f"{seconds / native:6.1f}x slower" if native else ""
        print(f"{name:<28} {seconds * 1e6:9.2f} us/env-step {1 / seconds:12,.0f} steps/s {ratio}")
    sync = next((t for name, t in PER_STEP.items() if name.startswith("SyncVectorEnv")), None)
    if native is None or sync is None or SMALL:
        return
    assert sync / native >= 10, f"native is only {sync / native:.1f}x faster than SyncVectorEnv"
