"""mdvec.make: every registered task by name or Gymnasium id, as a Gymnasium-style vector env; equal to
Gymnasium's own vector env (terminated and truncated included) where Gymnasium is installed, and the same
results from the core install's VectorEnv (plain Space descriptors) without it."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import mdvec
from mdvec import dm_tasks
from mdvec.tools import contract
from mdvec.vecenv import task_meta
from mdvec.vector import Space, VectorEnv

DUCK_ID = "mdvec/DuckBalance-v0"


def _ids() -> list[str]:
    return [task_meta(t, "id") for t in mdvec.task_names()]


def test_ids_are_declared() -> None:
    """Every task declares its id: the duck's, mdvec/<name>-v0 for the Control Suite's (Shimmy's ids with
    mdvec's prefix), and mdvec/<name> for the others."""
    from mdvec.dm_tasks import is_dm_task

    expected = [
        DUCK_ID if t == "duck" else f"mdvec/{t}-v0" if is_dm_task(t) else "mdvec/" + t for t in mdvec.task_names()
    ]
    assert _ids() == expected


def test_names_and_suggestions() -> None:
    from mdvec.vector import resolve_task

    assert resolve_task("Hopper-v5") == resolve_task("mdvec/Hopper-v5") == ("Hopper-v5", "mdvec/Hopper-v5")
    assert resolve_task("duck") == resolve_task(DUCK_ID) == ("duck", DUCK_ID)
    with pytest.raises(ValueError, match="did you mean 'Hopper-v5'"):
        mdvec.make("Hoper-v5")
    with pytest.raises(ValueError, match="unknown task 'nothing'"):
        mdvec.make("nothing")
    with pytest.raises(TypeError):
        mdvec.make(3)  # type: ignore[arg-type]


def test_a_task_without_an_id_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A task may declare no id: make says so (it raised a bare StopIteration)."""
    from mdvec import vecenv
    from mdvec.vector import resolve_task

    declared = vecenv.task_meta
    monkeypatch.setattr(
        vecenv, "task_meta", lambda t, k: None if (t, k) == ("cartpole_swingup", "id") else declared(t, k)
    )
    with pytest.raises(ValueError, match="'cartpole_swingup' declares no id"):
        resolve_task("cartpole_swingup")


def test_core_vector_env_without_gymnasium(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without Gymnasium, make() gives the core VectorEnv with plain spaces, NEXT_STEP by default."""
    monkeypatch.setitem(sys.modules, "gymnasium", None)  # import gymnasium fails
    # and, as in a process without Gymnasium, its adapter registered no vector class with the core
    monkeypatch.setattr("mdvec.vector.VECTOR_CLASSES", {})
    with mdvec.make("duck", num_envs=3, seed=4, threads=2, episode_len=6, push_window=(1, 5)) as envs:
        assert type(envs) is VectorEnv and envs.metadata["autoreset_mode"] == "next_step"
        space = envs.single_action_space
        assert isinstance(space, Space) and space.shape == (14,) and space.dtype == np.float32
        assert envs.action_space.shape == (3, 14) and envs.single_observation_space.shape == (48,)
        obs, info = envs.reset(seed=1)
        assert obs.shape == (3, 48) and envs.single_observation_space.contains(obs[0])
        rng = np.random.default_rng(0)
        truncs, rewards = [], []
        for _ in range(8):
            obs, reward, _, truncated, info = envs.step(np.stack([space.sample(rng) for _ in range(3)]))
            truncs.append(truncated.copy())
            rewards.append(reward.copy())
        assert truncs[5].all() and not any(truncs[k].any() for k in (0, 1, 2, 3, 4, 6, 7))  # episode_len 6
        assert np.all(rewards[6] == 0) and np.all(rewards[5] != 0)  # NEXT_STEP: the step after the end resets
        assert "_trunk_height" in info and info["trunk_height"].shape == (3,)
        assert "VectorEnv('mdvec/DuckBalance-v0', num_envs=3" in repr(envs)


def _run(envs: object, seed: int, steps: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = [envs.reset(seed=seed)]  # type: ignore[attr-defined]
    for _ in range(steps):
        a = rng.uniform(-1.2, 1.2, envs.action_space.shape).astype(np.float32)  # type: ignore[attr-defined]
        out.append(envs.step(a))  # type: ignore[attr-defined]
    return out


def test_core_and_gymnasium_vector_envs_agree() -> None:
    """The core VectorEnv and the Gymnasium subclass run the same code: the same results, key for key."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    opts = {"episode_len": 7, "push_window": (1, 6), "sensor_noise": True}
    a = VectorEnv("duck", 3, seed=2, threads=2, autoreset_mode="same_step", **opts)
    b = mdvec.make("duck", num_envs=3, seed=2, threads=2, autoreset_mode="same_step", **opts)
    for x, y in zip(_run(a, 5, 20), _run(b, 5, 20)):
        result = contract.Result("core vs gymnasium", "duck")
        assert result.count(x, y) and result.values > 0, (x, y)
    a.close(), b.close()


@pytest.mark.parametrize("env_id", _ids())
def test_every_task_equals_gymnasiums_vector_env(env_id: str) -> None:
    """make(task) against Gymnasium's SyncVectorEnv over the reference (Gymnasium's own env for the v5
    tasks), NEXT_STEP: observations, rewards, terminated, truncated and info bit for bit."""
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    if contract.v5_unavailable() and env_id != DUCK_ID:
        pytest.skip(contract.v5_unavailable())
    import mdvec.gym  # registers the ids

    task = mdvec.gym.TASKS[env_id]
    if why := dm_tasks.unavailable(task.task):
        pytest.skip(why)
    opts = {"max_episode_steps": 15} if env_id != DUCK_ID else {"episode_len": 15, "push_window": (2, 12)}
    if isinstance(task.reference, str):
        ref = gymnasium.make_vec(task.reference, num_envs=3, vectorization_mode="sync", **opts)
    else:
        ref = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="sync", backend="reference", **opts)
    got = mdvec.make(task.task, num_envs=3, seed=0, threads=2, **opts)
    try:
        assert got.single_observation_space == ref.single_observation_space
        assert got.single_action_space == ref.single_action_space
        result = contract.Result(env_id, task.task)
        contract.compare_vector_envs(ref, got, [("reset", {"seed": 3}), ("steps", 40)], result, actions_seed=1)
        assert result.identical, result.first_mismatch
        assert result.episodes > 0 and result.flag_mismatches == 0
    finally:
        got.close()
        ref.close()
