"""mdvec.sb3: the C envs as a Stable-Baselines3 VecEnv, equal to DummyVecEnv over the reference env.

Skipped when stable-baselines3 (or gymnasium) is not installed.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'mdvec[sb3]')")
pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed (pip install 'mdvec[sb3]')")

import gymnasium
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor, VecNormalize

from mdvec.sb3 import MdvecSB3VecEnv, make_vec_env
from mdvec.tools import contract

ID = "mdvec/DuckBalance-v0"
OPTS = {"episode_len": 12, "push_window": (2, 10), "sensor_noise": True, "init_noise": 0.02}


def dummy(n: int, seed: int = 0, **kw) -> DummyVecEnv:
    """SB3's DummyVecEnv over the reference single env, env i constructed with seed + i."""
    return DummyVecEnv(
        [lambda i=i: gymnasium.make(ID, backend="reference", seed=seed + i, **{**OPTS, **kw}) for i in range(n)]
    )


def mdvec_env(n: int, seed: int = 0, **kw) -> MdvecSB3VecEnv:
    return make_vec_env(n, seed=seed, threads=2, **{**OPTS, **kw})


@pytest.mark.parametrize("backend", ("c", "reference"))
def test_sb3_check_env(backend):
    from stable_baselines3.common.env_checker import check_env

    env = gymnasium.make(ID, backend=backend, **OPTS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True, skip_render_check=True)
    unexpected = [str(w.message) for w in caught if "infinity" not in str(w.message)]
    assert not unexpected, unexpected
    env.close()


def test_equals_dummy_vec_env_bit_for_bit():
    case = contract.Case("sb3", dict(OPTS), 1, seed=5, num_envs=4, threads=2, kind="sb3")
    result = contract.run_case(case)
    assert result.identical, result.first_mismatch
    assert result.steps > 300 and result.episodes >= 16 and result.info_values > 3000


def test_infos_as_sb3_expects():
    venv = mdvec_env(2, episode_len=3, push_window=(0, 3))
    obs = venv.reset()
    assert obs.shape == (2, 48) and obs.dtype == np.float32 and venv.reset_infos == [{}, {}]
    act = np.zeros((2, 14), np.float32)
    for t in range(1, 4):
        obs, reward, done, infos = venv.step(act)
        assert reward.dtype == np.float32 and done.dtype == np.bool_ and len(infos) == 2
        assert done.tolist() == [t == 3] * 2
        for info in infos:
            assert info["TimeLimit.truncated"] is (t == 3) and info["t"] == t and type(info["t"]) is int
            assert ("terminal_observation" in info) == (t == 3)
    terminal = infos[0]["terminal_observation"]
    assert terminal.dtype == np.float32 and terminal.shape == (48,) and not np.array_equal(terminal, obs[0])
    venv.close()


def test_seed_reseeds_at_the_next_reset():
    a, b = mdvec_env(3, seed=0), mdvec_env(3, seed=40)
    assert a.seed(40) == [40, 41, 42]
    assert np.array_equal(a.reset(), b.reset())
    act = np.full((3, 14), 0.1, np.float32)
    assert np.array_equal(a.step(act)[0], b.step(act)[0])
    a.seed(7)
    a.reset()
    c = mdvec_env(3, seed=7)
    assert np.array_equal(a.step(act)[0], (c.reset(), c.step(act))[1][0])
    for bad in (-1, 2**64):
        a.seed(bad)
        with pytest.raises(ValueError, match="seed"):
            a.reset()
        a._reset_seeds()
    a.set_options({"reset_mask": 1})
    with pytest.raises(ValueError, match="options"):
        a.reset()


def test_vec_monitor_and_vec_normalize_agree_with_dummy():
    def wrap(v):
        return VecNormalize(VecMonitor(v), gamma=0.9)

    c, r = wrap(mdvec_env(3, seed=2)), wrap(dummy(3, seed=2))
    assert np.array_equal(c.reset(), r.reset())
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(2 * OPTS["episode_len"] + 1):
        act = rng.uniform(-1, 1, (3, 14)).astype(np.float32)
        x, y = c.step(act), r.step(act)
        for u, v in zip(x[:3], y[:3]):
            assert u.dtype == v.dtype and np.array_equal(u, v)
        for i in range(3):
            if x[2][i]:
                episodes += 1
                assert x[3][i]["episode"]["r"] == y[3][i]["episode"]["r"]
                assert x[3][i]["episode"]["l"] == y[3][i]["episode"]["l"] == OPTS["episode_len"]
                assert np.array_equal(x[3][i]["terminal_observation"], y[3][i]["terminal_observation"])
    assert episodes == 6


def test_attributes_and_methods():
    venv = mdvec_env(2)
    assert venv.get_attr("render_mode") == [None, None]
    assert venv.get_attr("action_space", indices=[1]) == [venv.action_space]
    assert venv.has_attr("observation_space") and not venv.has_attr("model")
    with pytest.raises(AttributeError, match="supported"):
        venv.get_attr("model")
    with pytest.raises(AttributeError, match="no settable attributes"):
        venv.set_attr("episode_len", 5)
    with pytest.raises(AttributeError, match="supported"):
        venv.env_method("reset")
    assert venv.env_is_wrapped(gymnasium.Wrapper) == [False, False]
    venv.reset()
    state = venv.env_method("get_state", indices=1)
    assert len(state) == 1 and state[0].dtype == np.float64 and state[0].size > 0
    with pytest.raises(IndexError):
        venv.get_attr("render_mode", indices=[5])
    with pytest.warns(UserWarning):
        assert venv.render() is None  # made without render_mode
    venv.close()


def test_bad_actions_change_nothing():
    venv, twin = mdvec_env(2, seed=1), mdvec_env(2, seed=1)
    venv.reset()
    twin.reset()
    for action, exc in [
        (np.zeros((2, 13), np.float32), ValueError),
        (np.zeros((3, 14)), ValueError),
        (np.full((2, 14), np.nan), ValueError),
        (np.zeros((2, 14), complex), TypeError),
    ]:
        with pytest.raises(exc):
            venv.step(action)
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()
    act = np.full((2, 14), -0.4)
    assert np.array_equal(venv.step(act)[0], twin.step(act)[0])


def test_ppo_learns_a_few_steps():
    from stable_baselines3 import PPO

    venv = VecMonitor(mdvec_env(4))
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=64)
    venv.close()


def test_sb3_progress_bar_runs_on_mdvec_envs(capsys):
    """The sb3 extra brings tqdm and rich: SB3's own learn(progress_bar=True) draws its bar over mdvec's envs."""
    pytest.importorskip("tqdm", reason="tqdm not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("rich", reason="rich not installed (pip install 'mdvec[sb3]')")
    from stable_baselines3 import PPO

    venv = mdvec_env(4)
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128, progress_bar=True)
    venv.close()
    shown = capsys.readouterr()
    assert model.num_timesteps == 128 and "128/128" in shown.out + shown.err


@pytest.mark.parametrize("task", ["Hopper-v5", "Humanoid-v5"])
def test_gymnasium_tasks_equal_dummy_vec_env_over_gymnasium(task):
    import mdvec

    if task not in mdvec.task_names():
        pytest.skip(f"the {task} task is not in this libmdvec")
    from gymnasium.envs.mujoco import humanoid_v5

    if task == "Humanoid-v5" and "ten_length.copy()" not in Path(humanoid_v5.__file__).read_text():
        pytest.skip(
            "this gymnasium's Humanoid-v5 returns live views of MjData as tendon info (reset overwrites "
            "a finished env's step info inside DummyVecEnv); fixed in later gymnasium"
        )
    env_id = f"mdvec/{task}"  # the reference backend is Gymnasium's own env
    ref = DummyVecEnv(
        [lambda i=i: gymnasium.make(env_id, backend="reference", seed=5 + i, max_episode_steps=30) for i in range(3)]
    )
    got = make_vec_env(3, seed=5, threads=2, task=task, max_episode_steps=30)
    result = contract.Result(task, task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract.compare_sb3_envs(ref, got, contract.sb3_script(5), result, 1)
    assert result.identical, result.first_mismatch
    assert result.episodes > 0


def _same_infos(a: list[dict], b: list[dict]) -> bool:
    """The same keys and, bit for bit, the same values (arrays such as terminal_observation included)."""
    return len(a) == len(b) and all(
        x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x) for x, y in zip(a, b)
    )


def test_snapshot_restore_continues_bit_for_bit_with_pending_seeds():
    """snapshot() holds the envs and the seeds seed() left for the next reset(): restored into another VecEnv of
    the same task (another thread count), the steps and the seeded reset after it are the original's."""
    rng = np.random.default_rng(4)
    acts = [rng.uniform(-1, 1, (3, 14)).astype(np.float32) for _ in range(30)]
    a, b = mdvec_env(3, seed=11), make_vec_env(3, seed=99, threads=1, **OPTS)
    try:
        a.reset()
        for act in acts[:10]:
            a.step(act)
        a.seed(123)
        blob = a.snapshot()
        b.restore(blob)
        for env in (a, b):
            env.step_async(acts[10])
        ra, rb = a.step_wait(), b.step_wait()
        assert all(np.array_equal(x, y) for x, y in zip(ra[:3], rb[:3])) and _same_infos(ra[3], rb[3])
        assert np.array_equal(a.reset(), b.reset())  # seed(123) was pending in the snapshot
        for act in acts[11:]:
            oa, ra_, da, ia = a.step(act)
            ob, rb_, db, ib = b.step(act)
            assert np.array_equal(oa, ob) and np.array_equal(ra_, rb_) and np.array_equal(da, db)
            assert _same_infos(ia, ib)
        with pytest.raises(ValueError, match="restore"):
            mdvec_env(2).restore(blob)  # another num_envs: refused, nothing changed
    finally:
        a.close()
        b.close()
