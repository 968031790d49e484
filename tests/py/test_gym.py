"""mdvec.gym: the duck task as gymnasium.Env (both backends) and as a C-backed gymnasium VectorEnv.

Equality: the C vector env against Gymnasium's own SyncVectorEnv over the reference single env, bit
for bit, in every autoreset mode (mdvec.tools.contract's gym cases); the C single env against the
reference single env. Skipped when gymnasium is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'mdvec[gymnasium]')")

from gymnasium.vector import AutoresetMode  # noqa: E402

import mdvec.gym  # noqa: E402 - registers the ids
from mdvec import dm_tasks  # noqa: E402
from mdvec.tools import contract  # noqa: E402

ID = "mdvec/DuckBalance-v0"
OPTS = {"episode_len": 12, "push_window": (2, 10), "sensor_noise": True, "init_noise": 0.02}
BACKENDS = ("c", "reference")
MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)
ROOT = Path(__file__).resolve().parents[2]


def short(episode_len: int) -> dict:
    """Options for episodes of episode_len steps (the shoves moved inside them)."""
    return {"episode_len": episode_len, "push_window": (0, episode_len), "n_pushes": min(3, episode_len)}


def make(backend: str = "c", **kw):
    return gymnasium.make(ID, backend=backend, **{**OPTS, **kw})


def make_vec(n: int = 3, mode=AutoresetMode.NEXT_STEP, **kw):
    return gymnasium.make_vec(
        ID, num_envs=n, vectorization_mode="vector_entry_point", autoreset_mode=mode, threads=2, **{**OPTS, **kw}
    )


def sync_ref(n: int = 3, mode=AutoresetMode.NEXT_STEP, **kw):
    return gymnasium.make_vec(
        ID,
        num_envs=n,
        vectorization_mode="sync",
        backend="reference",
        vector_kwargs={"autoreset_mode": mode},
        **{**OPTS, **kw},
    )


def same_step_result(a: tuple, b: tuple) -> bool:
    """Equal single-env step results: obs bytes, reward/flag values and types, info keys/types/values."""
    return (
        contract.same_array(a[0], b[0])
        and all(contract.same_value(x, y) for x, y in zip(a[1:4], b[1:4]))
        and set(a[4]) == set(b[4])
        and all(contract.same_value(a[4][k], b[4][k]) for k in a[4])
    )


# ----------------------------------------------------------------------------------- registration
def test_ids_registered_with_both_entry_points():
    spec = gymnasium.spec(ID)
    assert spec.entry_point == "mdvec.gym:DuckBalance_v0Env"  # "module:attr", as Gymnasium's ids (JSON: test_gym_spec)
    assert spec.vector_entry_point == "mdvec.gym:DuckBalance_v0VectorEnv"
    assert mdvec.gym.DuckBalance_v0Env is mdvec.gym.DuckBalanceEnv
    assert mdvec.gym.DuckBalance_v0VectorEnv is mdvec.gym.DuckBalanceVectorEnv
    assert spec.max_episode_steps is None  # the task truncates itself (episode_len)


def test_import_mdvec_registers_the_ids():
    code = "import mdvec, gymnasium; gymnasium.spec('mdvec/DuckBalance-v0'); print('registered')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert "registered" in out.stdout, out.stderr[-2000:]


def test_module_colon_id_form_needs_no_import():
    code = "import gymnasium; e = gymnasium.make('mdvec.gym:mdvec/DuckBalance-v0', backend='reference'); print(e.reset(seed=1)[0].shape)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert "(48,)" in out.stdout, out.stderr[-2000:]


def test_register_task_hook_makes_a_new_id():
    entry = mdvec.gym.register_task(
        "mdvec-test/DuckCopy-v0", "duck", mdvec.gym.TASKS[mdvec.gym.DUCK_ID].reference, short(7)
    )
    try:
        env = gymnasium.make("mdvec-test/DuckCopy-v0", backend="reference")
        env.reset(seed=0)
        for _ in range(6):
            assert not env.step(env.action_space.sample())[3]
        assert env.step(env.action_space.sample())[3]  # the default episode_len applies
        venv = gymnasium.make_vec("mdvec-test/DuckCopy-v0", num_envs=2, vectorization_mode="vector_entry_point")
        assert isinstance(venv.unwrapped, entry.vector_class)
        venv.close()
    finally:
        del gymnasium.registry["mdvec-test/DuckCopy-v0"]
        mdvec.gym.TASKS.pop("mdvec-test/DuckCopy-v0")


# ---------------------------------------------------------------------------------- single env
@pytest.mark.parametrize("backend", BACKENDS)
def test_spaces(backend):
    env = make(backend)
    assert env.observation_space == gymnasium.spaces.Box(-np.inf, np.inf, (48,), np.float32)
    assert env.action_space == gymnasium.spaces.Box(-1.0, 1.0, (14,), np.float32)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs in env.observation_space and info == {}
    env.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_gymnasium_check_env(backend):
    from gymnasium.utils.env_checker import check_env

    env = make(backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    unexpected = [str(w.message) for w in caught if "infinity" not in str(w.message)]
    assert not unexpected, unexpected  # only the unbounded observation Box is remarked upon
    env.close()


def test_backends_equal_across_episodes_and_reseeds():
    c, r = make("c", seed=3), make("reference", seed=3)
    rng = np.random.default_rng(0)
    for reset_seed in (None, 11, None, 2**64 - 1):
        a, b = c.reset(seed=reset_seed), r.reset(seed=reset_seed)
        assert contract.same_array(a[0], b[0]) and a[1] == b[1] == {}
        for t in range(2 * OPTS["episode_len"] + 3):  # on past the truncation: the env keeps stepping
            act = rng.uniform(-1.2, 1.2, 14)
            act = act.astype(np.float32) if t % 2 else act
            assert same_step_result(c.step(act), r.step(act)), (reset_seed, t)
    c.close()
    r.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_constructor_seed_until_reseeded(backend):
    a, b = make(backend, seed=42), make(backend)
    assert contract.same_array(a.reset()[0], b.reset(seed=42)[0])
    assert contract.same_array(a.reset()[0], b.reset()[0])  # both continue their generators


@pytest.mark.parametrize("backend", BACKENDS)
def test_duck_only_truncates(backend):
    env = make(backend, **short(5))
    env.reset(seed=0)
    flags = [env.step(np.zeros(14, np.float32))[2:4] for _ in range(5)]
    assert flags == [(False, False)] * 4 + [(False, True)]
    _, _, terminated, _, info = env.step(np.zeros(14, np.float32))
    assert info["terminated"] is False and info["truncated"] is True and terminated is False


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_bad_input_changes_nothing(backend):
    env, twin = make(backend), make(backend)
    env.reset(seed=5)
    twin.reset(seed=5)
    bad_steps = [
        (np.zeros(13, np.float32), ValueError),
        (np.zeros((1, 14)), ValueError),
        (np.full(14, np.nan), ValueError),
        (np.array(["a"] * 14), TypeError),
        (np.zeros(14, complex), TypeError),
        (np.zeros(14, bool), TypeError),
    ]
    for action, exc in bad_steps:
        with pytest.raises(exc):
            env.step(action)
    for kw, exc in [
        ({"seed": -1}, ValueError),
        ({"seed": 2**64}, ValueError),
        ({"seed": 1.5}, TypeError),
        ({"seed": "1"}, TypeError),
        ({"seed": True}, TypeError),
        ({"options": {"reset_mask": np.ones(1, bool)}}, ValueError),
        ({"options": [1]}, TypeError),
    ]:
        with pytest.raises(exc):
            env.reset(**kw)
    act = np.full(14, 0.3, np.float32)
    assert same_step_result(env.step(act), twin.step(act))
    env.close()
    twin.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_construction(backend):
    with pytest.raises((TypeError, ValueError), match="not_an_option"):
        gymnasium.make(ID, backend=backend, not_an_option=1)
    with pytest.raises(ValueError, match="episode_len"):
        gymnasium.make(ID, backend=backend, episode_len=0)
    with pytest.raises(ValueError, match="render_mode"):
        mdvec.gym.DuckBalanceEnv(backend=backend, render_mode="human")
    with pytest.raises(ValueError, match="backend"):
        gymnasium.make(ID, backend="cuda")
    with pytest.raises(gymnasium.error.Error):
        gymnasium.make("mdvec/NoSuchTask-v0")


@pytest.mark.parametrize("backend", BACKENDS)
def test_render_without_render_mode_warns(backend):
    env = make(backend)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_single_wrappers_run_unchanged_and_agree():
    from gymnasium.wrappers import (
        ClipAction,
        NormalizeObservation,
        NormalizeReward,
        RecordEpisodeStatistics,
        TransformObservation,
    )

    def wrap(env):
        env = ClipAction(env)
        env = TransformObservation(env, lambda o: o * 2.0, env.observation_space)
        env = NormalizeObservation(env)
        env = NormalizeReward(env)
        return RecordEpisodeStatistics(env)

    c, r = wrap(make("c")), wrap(make("reference"))
    rng = np.random.default_rng(1)
    episodes = 0
    for seed in (0, None):
        a, b = c.reset(seed=seed), r.reset(seed=seed)
        assert np.array_equal(a[0], b[0])
        for _ in range(OPTS["episode_len"]):
            act = rng.uniform(-2, 2, 14).astype(np.float32)
            x, y = c.step(act), r.step(act)
            assert np.array_equal(x[0], y[0]) and x[1] == y[1] and x[2:4] == y[2:4]
            if x[3]:
                episodes += 1
                assert x[4]["episode"]["l"] == y[4]["episode"]["l"] == OPTS["episode_len"]
                assert x[4]["episode"]["r"] == y[4]["episode"]["r"]
    assert episodes == 2


# ---------------------------------------------------------------------------------- vector env
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_vector_equals_sync_vector_env(mode):
    name = {
        AutoresetMode.NEXT_STEP: "next_step",
        AutoresetMode.SAME_STEP: "same_step",
        AutoresetMode.DISABLED: "disabled",
    }[mode]
    case = contract.Case(f"gym {name}", dict(OPTS), 1, seed=7, num_envs=4, threads=2, kind="gym", autoreset=name)
    result = contract.run_case(case)
    assert result.identical, result.first_mismatch
    assert result.steps > 300 and result.episodes >= 16 and result.info_values > 1000
    assert result.obs_identical == result.observations and result.rewards_identical == result.steps


@pytest.mark.parametrize("mode", MODES[:2], ids=lambda m: m.name)
def test_vector_unseeded_first_reset_equals_envs_seeded_seed_plus_i(mode):
    n, seed = 3, 20
    ref = gymnasium.vector.SyncVectorEnv(
        [lambda i=i: gymnasium.make(ID, backend="reference", seed=seed + i, **OPTS) for i in range(n)],
        autoreset_mode=mode,
    )
    got = make_vec(n, mode, seed=seed)
    result = contract.Result("unseeded", contract.DUCK)
    contract.compare_vector_envs(ref, got, [("reset", {}), ("steps", 30)], result)
    assert result.identical and result.steps == 90, result.first_mismatch


def test_vector_comparison_detects_a_difference():
    result = contract.Result("different seeds", contract.DUCK)
    ref, got = sync_ref(3), make_vec(3)
    contract.compare_vector_envs(ref, got, [("reset", {"seed": 1})], result)
    assert result.identical
    got.reset(seed=2)  # the C envs now follow other draws
    contract.compare_vector_envs(ref, got, [("steps", 3)], result)
    assert not result.identical and result.obs_identical < result.observations


def test_vector_spaces_and_metadata():
    venv = make_vec(5)
    assert venv.num_envs == 5
    assert venv.single_observation_space == gymnasium.spaces.Box(-np.inf, np.inf, (48,), np.float32)
    assert venv.single_action_space == gymnasium.spaces.Box(-1.0, 1.0, (14,), np.float32)
    assert venv.observation_space.shape == (5, 48) and venv.observation_space.dtype == np.float32
    assert venv.action_space.shape == (5, 14) and venv.action_space.dtype == np.float32
    assert venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert venv.spec.id == ID
    venv.close()
    default = gymnasium.make_vec(ID, num_envs=2, vectorization_mode="vector_entry_point")
    assert default.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # Gymnasium's default
    default.close()
    for name, mode in (("same_step", AutoresetMode.SAME_STEP), ("Disabled", AutoresetMode.DISABLED)):
        v = make_vec(2, name)
        assert v.metadata["autoreset_mode"] is mode
        v.close()


def test_vector_info_masks_and_dtypes_next_step():
    venv = make_vec(2, **short(3))
    obs, info = venv.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (2, 48) and info == {}
    step = np.zeros((2, 14), np.float32)
    _, reward, terminated, truncated, info = venv.step(step)
    assert info["t"].dtype == np.int64 and info["pushed"].dtype == np.bool_ and info["r_up"].dtype == np.float64
    assert info["_t"].dtype == np.bool_ and info["_t"].all()
    assert reward.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
    venv.reset(options={"reset_mask": np.array([True, False])})  # env 0 one step behind env 1
    venv.step(step)
    _, _, _, truncated, info = venv.step(step)  # env 1 truncates (3 steps); env 0 has 2
    assert truncated.tolist() == [False, True]
    _, reward, terminated, truncated, info = venv.step(step)  # env 1 resets (reward 0, no step info); env 0 truncates
    assert info["_t"].tolist() == [True, False] and info["t"].tolist() == [3, 0]
    assert reward[1] == 0.0 and truncated.tolist() == [True, False] and not terminated.any()
    _, _, _, truncated, info = venv.step(step)  # env 0 resets, env 1 steps
    assert info["_t"].tolist() == [False, True] and info["t"].tolist() == [0, 1] and not truncated.any()
    venv.close()


def test_vector_same_step_final_obs_and_info():
    venv = make_vec(2, AutoresetMode.SAME_STEP, **short(3))
    venv.reset(seed=0)
    step = np.zeros((2, 14), np.float32)
    venv.step(step)
    venv.reset(options={"reset_mask": np.array([True, False])})  # env 0 one step behind env 1
    venv.step(step)
    obs, _, _, truncated, info = venv.step(step)  # env 1 finishes and resets in this step
    assert truncated.tolist() == [False, True]
    assert info["_final_obs"].tolist() == [False, True] and info["final_obs"][0] is None
    assert info["final_obs"].dtype == object and info["final_obs"][1].dtype == np.float32
    assert not np.array_equal(info["final_obs"][1], obs[1])  # obs[1] is the first obs of the next episode
    assert info["final_info"]["t"].tolist() == [0, 3] and info["final_info"]["_t"].tolist() == [False, True]
    assert info["_t"].tolist() == [True, False]  # env 1's top-level info is its (empty) reset info
    venv.close()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_vector_wrappers_run_unchanged_and_agree_with_sync(mode):
    from gymnasium.wrappers.vector import (
        ClipAction,
        NormalizeObservation,
        NormalizeReward,
        RecordEpisodeStatistics,
        TransformObservation,
    )

    def wrap(env):
        env = ClipAction(env)
        if mode is not AutoresetMode.SAME_STEP:  # Gymnasium's vector observation wrappers refuse SAME_STEP
            env = TransformObservation(env, lambda o: o * 2.0, env.observation_space)
        else:  # (a throwaway env: gymnasium 1.2.2's failed wrapper closes the env it wrapped)
            spare = make_vec(2, mode)
            with pytest.raises((ValueError, AssertionError)):  # gymnasium 1.2.2 asserts, 1.4 raises ValueError
                TransformObservation(spare, lambda o: o * 2.0, spare.observation_space)
        if mode is AutoresetMode.NEXT_STEP:  # and NormalizeObservation allows NEXT_STEP only
            env = NormalizeObservation(env)
        env = NormalizeReward(env)
        return RecordEpisodeStatistics(env)

    c, r = wrap(make_vec(3, mode)), wrap(sync_ref(3, mode))
    rng = np.random.default_rng(2)
    a, b = c.reset(seed=4), r.reset(seed=4)
    assert np.array_equal(a[0], b[0])
    episodes = 0
    for _ in range(3 * OPTS["episode_len"]):
        act = rng.uniform(-2, 2, (3, 14)).astype(np.float32)
        x, y = c.step(act), r.step(act)
        for u, v in zip(x[:4], y[:4]):
            assert u.dtype == v.dtype and np.array_equal(u, v)
        if "episode" in x[4]:
            episodes += int(x[4]["_episode"].sum())
            assert np.array_equal(x[4]["episode"]["r"], y[4]["episode"]["r"])
            assert np.array_equal(x[4]["episode"]["l"], y[4]["episode"]["l"])
        done = x[2] | x[3]
        if mode is AutoresetMode.DISABLED and done.any():
            c.reset(options={"reset_mask": done.copy()})
            r.reset(options={"reset_mask": done.copy()})
    assert episodes >= 6
    assert len(c.return_queue) == len(r.return_queue) > 0


def test_vector_bad_input_changes_nothing():
    venv, twin = make_vec(3), make_vec(3)
    venv.reset(seed=9)
    twin.reset(seed=9)
    bad_steps = [
        (np.zeros((3, 13), np.float32), ValueError),
        (np.zeros((2, 14), np.float32), ValueError),
        (np.zeros(14, np.float32), ValueError),
        (np.full((3, 14), np.inf), ValueError),
        (np.zeros((3, 14), complex), TypeError),
        (np.array([["x"] * 14] * 3), TypeError),
    ]
    for action, exc in bad_steps:
        with pytest.raises(exc):
            venv.step(action)
    bad_resets = [
        ({"seed": [1, 2]}, ValueError),
        ({"seed": [1, 2, 3, 4]}, ValueError),
        ({"seed": [1, "2", 3]}, TypeError),
        ({"seed": [1, 2.0, 3]}, TypeError),
        ({"seed": 2.5}, TypeError),
        ({"seed": -1}, ValueError),
        ({"seed": 2**64 - 2}, ValueError),
        ({"seed": [1, -2, 3]}, ValueError),
        ({"seed": {"a": 1}}, TypeError),
        ({"options": {"reset_mask": np.zeros(3, bool)}}, ValueError),
        ({"options": {"reset_mask": np.ones(2, bool)}}, ValueError),
        ({"options": {"reset_mask": np.ones(3, np.int64)}}, TypeError),
        ({"options": {"reset_mask": [True, True, True]}}, TypeError),
        ({"options": {"mask": np.ones(3, bool)}}, ValueError),
    ]
    for kw, exc in bad_resets:
        with pytest.raises(exc):
            venv.reset(**kw)
    act = np.full((3, 14), 0.2, np.float32)
    x, y = venv.step(act), twin.step(act)
    assert all(np.array_equal(u, v) for u, v in zip(x[:4], y[:4]))
    assert contract.diff_vector_info(x[4], y[4])[1] == []
    venv.close()
    twin.close()


def test_vector_bad_construction():
    with pytest.raises(ValueError, match="sync"):
        gymnasium.make_vec(ID, num_envs=2, vectorization_mode="vector_entry_point", backend="reference")
    with pytest.raises(ValueError, match="autoreset_mode"):
        make_vec(2, "sometimes")
    with pytest.raises((TypeError, ValueError), match="not_an_option"):
        make_vec(2, not_an_option=3)
    with pytest.raises(ValueError, match="num_envs"):
        make_vec(0)


def test_vector_disabled_refuses_to_step_a_finished_env():
    venv = make_vec(2, AutoresetMode.DISABLED, **short(2))
    venv.reset(seed=0)
    step = np.zeros((2, 14), np.float32)
    venv.step(step)
    assert venv.step(step)[3].all()
    with pytest.raises(RuntimeError, match="reset_mask"):
        venv.step(step)
    venv.reset(options={"reset_mask": np.array([True, True])})
    assert venv.step(step)[4]["t"].tolist() == [1, 1]
    venv.close()


def test_vector_closed_env_raises():
    venv = make_vec(2)
    venv.reset(seed=0)
    venv.close()
    with pytest.raises(RuntimeError):
        venv.step(np.zeros((2, 14), np.float32))


# ---------------------------------------------------------------------------------- rendering
def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


RENDER_SCRIPT = textwrap.dedent("""
    import warnings, numpy as np, gymnasium, mdvec.gym
    from gymnasium.utils.env_checker import check_env
    opts = dict(episode_len=12, push_window=(2, 10))
    frames = {}
    for backend in ("c", "reference"):
        env = gymnasium.make("mdvec/DuckBalance-v0", backend=backend, render_mode="rgb_array", width=64, height=48, **opts)
        env.reset(seed=3)
        for _ in range(5):
            env.step(np.full(14, 0.5, np.float32))
        try:
            frames[backend] = env.render()
        except RuntimeError as exc:
            print("NOGL", exc)
            raise SystemExit(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_env(env.unwrapped)
    f = frames["c"]
    assert f.shape == (48, 64, 3) and f.dtype == np.uint8 and f.std() > 0, (f.shape, f.dtype)
    assert np.array_equal(frames["c"], frames["reference"]), "backends draw different frames"
    venv = gymnasium.make_vec("mdvec/DuckBalance-v0", num_envs=2, vectorization_mode="vector_entry_point",
                              render_mode="rgb_array", width=64, height=48, **opts)
    venv.reset(seed=3)
    out = venv.render()
    assert isinstance(out, tuple) and len(out) == 2 and out[0].shape == (48, 64, 3)
    try:
        from mdvec.sb3 import make_vec_env
    except ImportError:
        pass
    else:
        s = make_vec_env(2, seed=3, render_mode="rgb_array", width=64, height=48, **opts)
        s.reset()
        big = s.render()
        assert big.ndim == 3 and big.shape[2] == 3 and big.dtype == np.uint8, big.shape
        assert len(s.get_images()) == 2 and len(s.env_method("render", indices=[1])) == 1
    print("RENDER_OK")
""")


def test_render_rgb_array_headless():
    gl = os.environ.get("MUJOCO_GL", "egl")
    out = subprocess.run(
        [sys.executable, "-c", RENDER_SCRIPT], capture_output=True, text=True, env=_env(MUJOCO_GL=gl), timeout=300
    )
    if "NOGL" in out.stdout:
        pytest.skip(f"no OpenGL for MUJOCO_GL={gl} here: {out.stdout.strip()[:300]}")
    assert "RENDER_OK" in out.stdout, (out.stdout + out.stderr)[-3000:]


NO_GL_SCRIPT = textwrap.dedent("""
    import numpy as np, gymnasium, mdvec.gym
    for backend in ("c", "reference"):
        env = gymnasium.make("mdvec/DuckBalance-v0", backend=backend, render_mode="rgb_array")
        env.reset(seed=0)
        try:
            env.render()
        except RuntimeError as exc:
            assert "MUJOCO_GL" in str(exc) and "OpenGL" in str(exc), exc
        else:
            raise SystemExit("render without GL did not raise")
        env.step(np.zeros(14, np.float32))  # the env is intact
    venv = gymnasium.make_vec("mdvec/DuckBalance-v0", num_envs=2, vectorization_mode="vector_entry_point",
                              render_mode="rgb_array")
    venv.reset(seed=0)
    try:
        venv.render()
    except RuntimeError:
        pass
    venv.step(np.zeros((2, 14), np.float32))
    print("NOGL_OK")
""")


def test_render_without_gl_is_a_clear_error():
    out = subprocess.run(
        [sys.executable, "-c", NO_GL_SCRIPT], capture_output=True, text=True, env=_env(MUJOCO_GL="disable"), timeout=300
    )
    assert "NOGL_OK" in out.stdout, (out.stdout + out.stderr)[-3000:]


# ------------------------------------------------------------------ another task through the same classes
def _gymnasium_mujoco_or_skip() -> None:
    from mdvec.gym_tasks import gymnasium_mujoco_unavailable

    if gymnasium_mujoco_unavailable():
        pytest.skip(gymnasium_mujoco_unavailable())


def _hopper_or_skip() -> str:
    import mdvec

    _gymnasium_mujoco_or_skip()

    if "Hopper-v5" not in mdvec.task_names() or "mdvec/Hopper-v5" not in mdvec.gym.TASKS:
        pytest.skip("the Hopper-v5 task is not in this libmdvec")
    return "mdvec/Hopper-v5"


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_hopper_vector_equals_sync_over_gymnasium_hopper(mode):
    hid = _hopper_or_skip()
    ref = gymnasium.make_vec(
        hid, num_envs=4, vectorization_mode="sync", backend="reference", vector_kwargs={"autoreset_mode": mode}
    )
    got = gymnasium.make_vec(hid, num_envs=4, vectorization_mode="vector_entry_point", autoreset_mode=mode, threads=2)
    result = contract.Result("hopper", "Hopper-v5")
    contract.compare_vector_envs(ref, got, contract.vector_script(4, 7), result, actions_seed=3)
    assert result.identical, result.first_mismatch
    assert result.episodes > 0 and result.info_values > 500


def test_hopper_single_env_equals_gymnasium_hopper_with_types():
    hid = _hopper_or_skip()
    c, r = gymnasium.make(hid, reset_noise_scale=0.1), gymnasium.make(hid, backend="reference", reset_noise_scale=0.1)
    a, b = c.reset(seed=3), r.reset(seed=3)
    assert contract.same_array(a[0], b[0]) and set(a[1]) == set(b[1])
    assert all(contract.same_value(a[1][k], b[1][k]) for k in a[1])
    rng = np.random.default_rng(0)
    for t in range(200):
        act = rng.uniform(-1, 1, 3)
        act = act.astype(np.float32) if t % 2 else act
        x, y = c.step(act), r.step(act)
        assert same_step_result(x, y), t
        if x[2] or x[3]:
            c.reset()
            r.reset()


def test_info_keys_groups_array_elements():
    from mdvec._shared import info_keys

    f64 = np.dtype(np.float64)
    keys = info_keys([("x", f64, 3), ("ten[0]", f64, 3), ("ten[1]", f64, 3), ("r", "action", 1), ("t", np.int64, 1)])
    assert [(n, d, b, a) for n, _, d, b, a in keys] == [
        ("x", f64, 3, False),
        ("ten", f64, 3, True),
        ("r", "action", 1, False),
        ("t", np.dtype(np.int64), 1, False),
    ]
    assert keys[0][1] == 0 and keys[1][1].tolist() == [1, 2] and keys[3][1] == 4
    for bad in (
        [("a", f64, 1), ("a", f64, 1)],
        [("a[1]", f64, 1)],
        [("a[0]", f64, 1), ("a[2]", f64, 1)],
        [("a[0]", f64, 1), ("a[1]", np.dtype(bool), 1)],
    ):
        with pytest.raises(ValueError):
            info_keys(bad)


def _gym_task_ids() -> list[str]:
    return sorted(e for e in mdvec.gym.TASKS if e != ID)


@pytest.mark.parametrize("env_id", _gym_task_ids())
def test_every_registered_task_vector_same_step_equals_sync(env_id):
    import mdvec

    _gymnasium_mujoco_or_skip()

    if mdvec.gym.TASKS[env_id].task not in mdvec.task_names():
        pytest.skip(f"{env_id}: task not in this libmdvec")
    if why := dm_tasks.unavailable(mdvec.gym.TASKS[env_id].task):
        pytest.skip(why)
    mode = AutoresetMode.SAME_STEP
    ref = gymnasium.make_vec(
        env_id,
        num_envs=3,
        vectorization_mode="sync",
        backend="reference",
        vector_kwargs={"autoreset_mode": mode},
        max_episode_steps=15,
    )
    got = gymnasium.make_vec(
        env_id,
        num_envs=3,
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode,
        threads=2,
        max_episode_steps=15,
    )
    script = [
        ("reset", {"seed": 3}),
        ("steps", 8),
        ("reset", {"seed": [11, None, 12], "options": {"reset_mask": np.array([True, False, True])}}),
        ("steps", 20),
    ]
    result = contract.Result(env_id, mdvec.gym.TASKS[env_id].task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract.compare_vector_envs(ref, got, script, result, actions_seed=1)
    assert result.identical, result.first_mismatch
    assert result.episodes > 0
    ref.close()
    got.close()
