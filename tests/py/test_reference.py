"""The reference environment does what docs/duck_task.md sections 2-8 say."""

from __future__ import annotations

import numpy as np
import pytest

from mdvec.reference import DuckEnv, ProcVecEnv, info_keys
from mdvec.reference import dr as dr_fields


def run_episode(env: DuckEnv, actions: np.ndarray | None = None) -> tuple[list, list, list]:
    obs = [env.reset()]
    rewards, infos = [], []
    for t in range(env.cfg.episode_len):
        a = np.zeros(env.nu) if actions is None else actions[t]
        o, r, done, info = env.step(a)
        obs.append(o)
        rewards.append(r)
        infos.append(info)
    assert done
    return obs, rewards, infos


def test_shapes_dtypes_and_info_keys() -> None:
    env = DuckEnv()
    obs = env.reset()
    assert obs.shape == (48,) and obs.dtype == np.float32
    o, r, done, info = env.step(np.zeros(14, np.float32))
    assert o.shape == (48,) and o.dtype == np.float32 and isinstance(r, float) and done is False
    assert tuple(info) == info_keys("v2")
    assert isinstance(info["t"], int) and isinstance(info["pushed"], bool)
    assert tuple(DuckEnv(reward="v1").reset() is not None and info_keys("v1")) == (
        "t",
        "pushed",
        "fallen",
        "trunk_height",
        "upright_cos",
        "truncated",
        "terminated",
        "r_up",
        "r_height",
        "r_pose",
        "r_rate",
    )


def test_same_seed_same_episode_other_seed_differs() -> None:
    cfg = dict(init_noise=0.02, sensor_noise=True, dr=True)
    rng = np.random.default_rng(3)
    actions = rng.uniform(-1, 1, (250, 14))
    a, b, c = (run_episode(DuckEnv(seed=s, **cfg), actions) for s in (5, 5, 6))
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and a[1] == b[1]
    assert not np.array_equal(a[0][0], c[0][0])


def test_episodes_last_250_steps_and_pushes_land_in_window() -> None:
    env = DuckEnv(n_pushes=4, push_window=(30, 200))
    for _ in range(3):
        _, _, infos = run_episode(env)
        pushed = [i["t"] - 1 for i in infos if i["pushed"]]  # info t counts after the step
        assert len(infos) == 250 and infos[-1]["truncated"] and not any(i["terminated"] for i in infos)
        assert len(pushed) == 4 and all(30 <= s < 200 for s in pushed)
        assert pushed == list(env.params.push_steps)


def test_latency_delays_control_by_l_steps() -> None:
    L = 2
    env = DuckEnv(latency=L, n_pushes=0)
    env.reset()
    ctrls = []
    actions = np.random.default_rng(0).uniform(-1, 1, (6, 14))
    for a in actions:
        env.step(a)
        ctrls.append(env.data.ctrl.copy())
    home = env.info.ctrl_home
    assert np.array_equal(ctrls[0], home) and np.array_equal(ctrls[1], home)
    for t in range(L, 6):
        assert np.array_equal(ctrls[t], home + 0.3 * actions[t - L])


def test_init_noise_respects_joint_ranges() -> None:
    env = DuckEnv(init_noise=0.5)  # wide noise so the clip at the limits matters
    hits = 0
    for _ in range(20):
        env.reset()
        q = env.data.qpos[env.info.qadr]
        assert np.all(q >= env.info.range_lo) and np.all(q <= env.info.range_hi)
        hits += int(np.sum((q == env.info.range_lo) | (q == env.info.range_hi)))
        assert np.all(np.abs(env.data.qvel[env.info.dadr]) <= 0.5)
    assert hits > 0


def test_dr_changes_only_listed_fields_and_restores_exactly() -> None:
    env = DuckEnv(dr=True, seed=1)
    import mujoco

    pristine = DuckEnv(seed=1).model
    names = [n for n in dir(pristine) if not n.startswith("_")]
    arrays = {n: getattr(pristine, n) for n in names if isinstance(getattr(pristine, n), np.ndarray)}
    for _ in range(100):
        env.reset()
    changed = {n for n, v in arrays.items() if not np.array_equal(getattr(env.model, n), v, equal_nan=True)}
    assert changed and changed <= set(dr_fields.FIELDS)
    dr_fields.restore(env.model, env._proto)
    for n, v in arrays.items():
        assert getattr(env.model, n).tobytes() == v.tobytes(), n
    assert isinstance(env.model, mujoco.MjModel)


def test_each_env_owns_its_model() -> None:
    a, b = DuckEnv(dr=True, seed=1), DuckEnv(dr=True, seed=2)
    a.reset()
    b.reset()
    assert a.model is not b.model
    assert a.model.body_mass[1] != b.model.body_mass[1]


def test_real_open_duck_runs(real_duck) -> None:
    for scene in ("scene_flat_terrain.xml", "scene_flat_terrain_backlash.xml"):
        env = DuckEnv(model=str(real_duck / scene), dr=True, init_noise=0.01)
        obs, rewards, _ = run_episode(env)
        assert len(rewards) == 250 and obs[-1].shape == (48,)


@pytest.mark.parametrize(
    "cfg,field",
    [
        ({"reward": "v3"}, "reward"),
        ({"substeps": 0}, "substeps"),
        ({"episode_len": -1}, "episode_len"),
        ({"n_pushes": 5, "push_window": (10, 12)}, "push_window"),
        ({"init_noise": -0.1}, "init_noise"),
        ({"latency": -1}, "latency"),
        ({"push_speed": (0.5, 0.1)}, "push_speed"),
        ({"variant": "nope"}, "variant"),
        ({"action_scale": float("nan")}, "action_scale"),
    ],
)
def test_bad_config_names_the_field(cfg: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        DuckEnv(**cfg)


def test_unknown_option_is_named() -> None:
    with pytest.raises(TypeError, match="rewrd"):
        DuckEnv(rewrd="v1")


def test_bad_actions_raise() -> None:
    env = DuckEnv()
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(13))
    with pytest.raises(ValueError, match="finite"):
        env.step(np.full(14, np.nan))


def test_proc_vec_env_autoreset_and_terminal_obs() -> None:
    with ProcVecEnv(3, seed=4, workers=2, episode_len=5, n_pushes=0, push_window=(0, 5)) as venv:
        obs = venv.reset()
        assert obs.shape == (3, 48) and obs.dtype == np.float32
        for _ in range(5):
            obs, reward, done, info = venv.step(np.zeros((3, 14), np.float32))
        assert done.all() and reward.dtype == np.float64 and info["t"].dtype == np.int64
        refs = [DuckEnv(seed=4 + i, episode_len=5, n_pushes=0, push_window=(0, 5)) for i in range(3)]
        for i, ref in enumerate(refs):
            ref.reset()
            for _ in range(5):
                last, _, _, _ = ref.step(np.zeros(14))
            assert np.array_equal(info["terminal_obs"][i], last)
            assert np.array_equal(obs[i], ref.reset())
    with pytest.raises(RuntimeError, match="closed"):
        venv.step(np.zeros((3, 14)))
