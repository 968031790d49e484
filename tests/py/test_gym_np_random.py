"""The single Gymnasium env's ``np_random`` is in the reference's state: Gymnasium's MujocoEnv seeds it
at ``reset(seed=s)`` and draws each reset's noise from it (reset_model's uniform / standard_normal draws,
Reacher's and Pusher's rejection loops). After mdvec's reset(seed=s), later resets without a seed and
autoresets, ``env.unwrapped.np_random.bit_generator.state`` and ``np_random_seed`` equal those of
``gymnasium.make(ID)`` after the same calls, on both backends. Skipped without gymnasium[mujoco].
"""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")

import mdvec.gym  # noqa: E402, F401 - registers the ids
from mdvec.gym_tasks import gymnasium_mujoco_unavailable  # noqa: E402

TASKS = ["Hopper-v5", "Ant-v5", "Humanoid-v5", "Reacher-v5", "Pusher-v5", "HalfCheetah-v5"]
BACKENDS = ["c", "reference"]


@pytest.fixture(autouse=True)
def _mujoco_envs() -> None:
    why = gymnasium_mujoco_unavailable()
    if why:
        pytest.skip(why)


def _same_rng(ours: gymnasium.Env, ref: gymnasium.Env) -> bool:
    a, b = ours.unwrapped, ref.unwrapped
    return a.np_random.bit_generator.state == b.np_random.bit_generator.state and a.np_random_seed == b.np_random_seed


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("task", TASKS)
def test_np_random_after_seeded_and_unseeded_resets(task: str, backend: str) -> None:
    ours, ref = gymnasium.make(f"mdvec/{task}", backend=backend), gymnasium.make(task)
    try:
        for seed in (3, 12345):
            ours.reset(seed=seed)
            ref.reset(seed=seed)
            assert _same_rng(ours, ref)
            for _ in range(3):  # each reset draws again
                o, _ = ours.reset()
                r, _ = ref.reset()
                assert np.array_equal(o, r) and _same_rng(ours, ref)
    finally:
        ours.close()
        ref.close()


@pytest.mark.parametrize("task", ["Hopper-v5", "Reacher-v5"])
def test_np_random_after_autoresets(task: str) -> None:
    ours = gymnasium.wrappers.Autoreset(gymnasium.make(f"mdvec/{task}", max_episode_steps=2))
    ref = gymnasium.wrappers.Autoreset(gymnasium.make(task, max_episode_steps=2))
    try:
        ours.reset(seed=8)
        ref.reset(seed=8)
        act = np.zeros(ref.action_space.shape, np.float32)
        for _ in range(7):  # truncations at steps 2, 5; the autoresets at steps 3, 6
            ours.step(act)
            ref.step(act)
            assert _same_rng(ours, ref)
    finally:
        ours.close()
        ref.close()


def test_first_reset_without_a_seed_uses_the_constructor_seed() -> None:
    ours, ref = gymnasium.make("mdvec/Hopper-v5", seed=5), gymnasium.make("Hopper-v5")
    try:
        ours.reset()
        ref.reset(seed=5)
        assert _same_rng(ours, ref)
    finally:
        ours.close()
        ref.close()


def test_the_c_envs_generator_cannot_be_replaced() -> None:
    env = gymnasium.make("mdvec/Hopper-v5")
    try:
        with pytest.raises(AttributeError, match="reset\\(seed="):
            env.unwrapped.np_random = np.random.default_rng(1)
    finally:
        env.close()
