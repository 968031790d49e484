"""Gymnasium's MujocoEnv surface on mdvec's single env and Gymnasium's conventions (issue 27, items 4 and 5).

``gymnasium.make("mdvec/Hopper-v5").unwrapped`` is a ``gymnasium.envs.mujoco.MujocoEnv`` whose members are views of
the C env: ``model`` (the C env's own model: the same MJB bytes as the reference's), ``data`` (the C env's whole
mjData: every array equal to the reference's after the same reset, steps and set_state), ``dt``, ``frame_skip``,
``init_qpos``, ``init_qvel``, ``observation_structure`` (the reference's, read from it), ``set_state``,
``state_vector``, ``get_body_com`` and ``mujoco_renderer`` (Gymnasium's renderer: frames equal the reference's byte
for byte). Every value is compared with Gymnasium's own env (the reference) at run time. Conventions: a closed env
raises ClosedEnvironmentError, ``step(0)`` raises what Gymnasium's envs raise, the vector env's ``np_random_seed``
is SyncVectorEnv's per-env tuple, and a pickle names the snapshot to use instead.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")
mujoco = pytest.importorskip("mujoco", reason="mujoco's Python package is not installed")

import mdvec  # noqa: E402
import mdvec.gym  # noqa: E402 - registers the ids
from mdvec.gym_tasks import gymnasium_mujoco_unavailable  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
V5 = sorted(e.task for e in mdvec.gym.TASKS.values() if isinstance(e.reference, str))  # Gymnasium's v5 tasks


@pytest.fixture(autouse=True)
def _mujoco_envs() -> None:
    why = gymnasium_mujoco_unavailable()
    if why:
        pytest.skip(why)


def pair(task: str, **kw: Any) -> tuple[Any, Any]:
    """(mdvec's env, Gymnasium's own) of a v5 task, unwrapped."""
    return gymnasium.make(f"mdvec/{task}", **kw).unwrapped, gymnasium.make(task, **kw).unwrapped


def mjb(model: Any) -> bytes:
    out = np.zeros(mujoco.mj_sizeModel(model), np.uint8)
    mujoco.mj_saveModel(model, None, out)
    return out.tobytes()


SPARSE_ONLY = {"efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper", "efc_J_colind"}  # unwritten by a dense Jacobian


def data_diff(a: Any, b: Any, model: Any) -> list[str]:
    """The MjData arrays (every one mujoco exposes) that differ between a and b, bit for bit; with a dense
    constraint Jacobian (mj_isSparse false) MuJoCo leaves the sparse layout's arrays unwritten (arena memory,
    whatever was there before), so those are left out."""
    names = [n for n in dir(b) if not n.startswith("_") and isinstance(getattr(b, n, None), np.ndarray)]
    assert len(names) > 50
    if not mujoco.mj_isSparse(model):
        names = [n for n in names if n not in SPARSE_ONLY]
    return [n for n in names if getattr(a, n).tobytes() != getattr(b, n).tobytes()]


def same_step(x: tuple, y: tuple) -> bool:
    return x[0].tobytes() == y[0].tobytes() and x[1:4] == y[1:4] and x[4] == y[4]


# ------------------------------------------------------------------------------------------ the class
@pytest.mark.parametrize("backend", ["c", "reference"])
def test_unwrapped_is_a_mujoco_env(backend: str) -> None:
    from gymnasium.envs.mujoco import MujocoEnv

    for env_id in ("mdvec/Hopper-v5", "mdvec/DuckBalance-v0", "mdvec/cartpole_swingup"):
        env = gymnasium.make(env_id, backend=backend)
        u = env.unwrapped
        assert isinstance(u, MujocoEnv) and isinstance(u, gymnasium.Env), type(u).__mro__
        assert type(u) is mdvec.gym.TASKS[env_id].env_class  # the registered class itself
        assert isinstance(u.model, mujoco.MjModel) and isinstance(u.data, mujoco.MjData)
        env.close()


def test_core_imports_no_mujoco_package() -> None:
    """``import mdvec`` and ``mdvec.make`` of a v5 task step without importing mujoco's Python package or GL."""
    code = textwrap.dedent("""
        import sys, numpy as np, mdvec
        env = mdvec.make("Hopper-v5", num_envs=2)
        env.reset(seed=0)
        env.step(np.zeros((2, 3), np.float32))
        env.close()
        found = sorted(m for m in sys.modules if m.split(".")[0] in ("mujoco", "glfw", "OpenGL"))
        print("LOADED", found)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "LOADED []" in out.stdout, (out.stdout + out.stderr)[-2000:]


# --------------------------------------------------------------------------------- members at rest
@pytest.mark.parametrize("task", V5)
def test_members_equal_the_reference(task: str) -> None:
    env, ref = pair(task)
    assert env.dt == ref.dt and env.frame_skip == ref.frame_skip
    assert env.init_qpos.tobytes() == ref.init_qpos.tobytes() and env.init_qvel.tobytes() == ref.init_qvel.tobytes()
    assert mjb(env.model) == mjb(ref.model)  # the C env's own model, offscreen buffer grown as MujocoEnv grows it
    assert hasattr(env, "observation_structure") == hasattr(ref, "observation_structure")
    if hasattr(ref, "observation_structure"):
        assert env.observation_structure == ref.observation_structure
    assert (env.width, env.height, env.camera_id, env.camera_name) == (ref.width, ref.height, None, None)
    env.close()


def test_members_follow_the_options() -> None:
    env, ref = pair("Ant-v5", frame_skip=2, include_cfrc_ext_in_observation=False, width=200, height=120)
    assert (env.dt, env.frame_skip, env.observation_structure) == (ref.dt, ref.frame_skip, ref.observation_structure)
    assert mjb(env.model) == mjb(ref.model)
    env2, ref2 = pair("Hopper-v5", exclude_current_positions_from_observation=False)
    assert env2.observation_structure == ref2.observation_structure


# ------------------------------------------------------------------------------------ data, moving
@pytest.mark.parametrize("task", ["Hopper-v5", "Ant-v5"])
def test_data_is_the_c_envs_field_for_field(task: str) -> None:
    env, ref = pair(task)
    actions = np.random.default_rng(1).uniform(-0.4, 0.4, (3, env.action_space.shape[0])).astype(np.float32)
    env.reset(seed=5)
    ref.reset(seed=5)
    assert data_diff(env.data, ref.data, ref.model) == []
    for a in actions:
        assert same_step(env.step(a), ref.step(a))
        assert data_diff(env.data, ref.data, ref.model) == []  # the last substep's stale xpos too, as the reference's
        assert env.state_vector().tobytes() == ref.state_vector().tobytes()
        body = mujoco.mj_id2name(ref.model, mujoco.mjtObj.mjOBJ_BODY, 1)
        assert env.get_body_com(body).tobytes() == ref.get_body_com(body).tobytes()


def test_data_writes_stay_in_the_copy() -> None:
    env, ref = pair("Hopper-v5")
    env.reset(seed=2)
    ref.reset(seed=2)
    data = env.data
    data.qpos[1] = 5.0  # not the C env's
    mujoco.mj_kinematics(env.model, env.data)
    assert env.data is data and env.data.qpos[1] == 5.0  # kept until the env moves
    a = np.full(3, 0.2, np.float32)
    assert same_step(env.step(a), ref.step(a))  # the write did not reach the C env
    assert env.data is data and data_diff(env.data, ref.data, ref.model) == []  # refreshed in place
    env.model.opt.timestep = 0.05  # the copy only: physics and dt stay the C env's
    assert env.dt == ref.dt
    assert same_step(env.step(a), ref.step(a))


def test_set_state_is_gymnasiums() -> None:
    env, ref = pair("Walker2d-v5")
    rng = np.random.default_rng(3)
    env.reset(seed=1)
    ref.reset(seed=1)
    a = np.full(6, 0.3, np.float32)
    env.step(a)
    ref.step(a)
    qpos, qvel = ref.init_qpos + rng.uniform(-0.1, 0.1, 9), rng.uniform(-0.5, 0.5, 9)
    env.set_state(qpos, qvel)
    ref.set_state(qpos, qvel)
    assert data_diff(env.data, ref.data, ref.model) == []
    assert same_step(env.step(a), ref.step(a))
    for bad in ((qpos[:-1], qvel), (qpos, qvel[None])):  # Gymnasium's assertion; the env untouched
        with pytest.raises(AssertionError):
            ref.set_state(*bad)
        with pytest.raises(AssertionError, match="shape"):
            env.set_state(*bad)
    assert same_step(env.step(a), ref.step(a))


def test_pusher_init_qpos_as_its_reset_model_writes_it() -> None:
    """Pusher-v5's reset_model writes each reset's cylinder and goal positions into its init_qpos (an alias)."""
    env, ref = pair("Pusher-v5")
    for seed in (4, None, None):
        env.reset(seed=seed)
        ref.reset(seed=seed)
        assert env.init_qpos.tobytes() == ref.init_qpos.tobytes()
        assert env.np_random.bit_generator.state == ref.np_random.bit_generator.state
    env.reset()
    ref.reset()
    assert env.np_random.bit_generator.state == ref.np_random.bit_generator.state  # np_random first, then init_qpos
    assert env.init_qpos.tobytes() == ref.init_qpos.tobytes()


def test_each_env_has_its_own_model_and_data() -> None:
    a, b = (gymnasium.make("mdvec/Hopper-v5").unwrapped for _ in range(2))
    a.reset(seed=0)
    b.reset(seed=1)
    assert a.model is not b.model and a.data is not b.data
    assert a.data.qpos.tobytes() != b.data.qpos.tobytes()


def test_do_simulation_is_refused_in_c() -> None:
    env = gymnasium.make("mdvec/Hopper-v5").unwrapped
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="set_state"):
        env.do_simulation(np.zeros(3), 1)


def test_other_tasks_state_equals_their_reference() -> None:
    """The duck and cartpole_swingup: model and state as the reference's; no observation_structure (their reference
    has none). The duck's data holds the physics the C step leaves: its acceleration-stage arrays are the last
    substep's, where the reference runs one more mj_forward (docs/gymnasium.md)."""
    sig = mujoco.mjtState.mjSTATE_FULLPHYSICS
    for env_id, nu in (("mdvec/DuckBalance-v0", 14), ("mdvec/cartpole_swingup", 1)):
        c, r = (gymnasium.make(env_id, backend=b).unwrapped for b in ("c", "reference"))
        for e in (c, r):
            e.reset(seed=3)
            e.step(np.full(nu, 0.3, np.float32))
        assert mjb(c.model) == mjb(r.model)
        states = []
        for e in (c, r):
            state = np.zeros(mujoco.mj_stateSize(e.model, sig))
            mujoco.mj_getState(e.model, e.data, state, sig)
            states.append(state.tobytes())
        assert states[0] == states[1]
        assert (c.dt, c.frame_skip) == (r.dt, r.frame_skip)
        assert not hasattr(c, "observation_structure") and not hasattr(r, "observation_structure")
        c.close()


def test_a_control_suite_env_is_a_mujoco_env() -> None:
    from gymnasium.envs.mujoco import MujocoEnv

    from mdvec.dm_tasks import unavailable

    why = unavailable("cheetah-run")
    if why:
        pytest.skip(why)
    c, r = (gymnasium.make("mdvec/cheetah-run-v0", backend=b).unwrapped for b in ("c", "reference"))
    assert isinstance(c, MujocoEnv) and isinstance(r, MujocoEnv)
    assert c.dt == r.dt == r._core.env.dt  # dm_control's control timestep
    assert not hasattr(c, "observation_structure")
    # model and data: the env's own (its MJB loads: its model copy shares dm_control's textures), equal to
    # dm_control's physics after the same seed and action
    physics = r._core.env.physics
    action = np.linspace(-0.5, 0.5, c.action_space.shape[0])
    for env in (c, r):
        env.reset(seed=3)
        env.step(action)
    assert c.model.nq == physics.model.nq and c.model.ntex == physics.model.ntex
    for name in ("qpos", "qvel", "xpos", "ctrl"):
        assert np.array_equal(getattr(c.data, name), getattr(physics.data, name)), name
    c.close()
    r.close()


# ------------------------------------------------------------------------------------------ frames
RENDER = textwrap.dedent("""
    import numpy as np, gymnasium, mdvec.gym
    cfg = {"distance": 2.5, "elevation": -10.0, "azimuth": 60.0, "trackbodyid": 1}
    frames = {}
    for name, kw in (("default", {}), ("cfg", {"default_camera_config": cfg})):
        for env_id in ("Hopper-v5", "mdvec/Hopper-v5"):
            env = gymnasium.make(env_id, render_mode="rgb_array", width=64, height=48, **kw)
            env.reset(seed=4)
            for _ in range(2):
                env.step(np.full(3, 0.5, np.float32))
            try:
                frames[name, env_id] = env.render()
            except RuntimeError as exc:
                print("NOGL", exc)
                raise SystemExit(0)
            env.close()
    f = frames["default", "mdvec/Hopper-v5"]
    assert f.shape == (48, 64, 3) and f.dtype == np.uint8 and f.std() > 0
    for name in ("default", "cfg"):
        assert frames[name, "Hopper-v5"].tobytes() == frames[name, "mdvec/Hopper-v5"].tobytes(), name
    # default_camera_config changes the picture exactly where the reference's changes: Gymnasium 1.4 draws through the
    # free camera it configures; 1.0 - 1.3 through Hopper's camera "track", which it leaves as it is
    moved = frames["cfg", "Hopper-v5"].tobytes() != frames["default", "Hopper-v5"].tobytes()
    assert (frames["cfg", "mdvec/Hopper-v5"].tobytes() != f.tobytes()) == moved
    from mdvec._gl import gymnasium_track_camera
    assert moved != gymnasium_track_camera()
    print("FRAMES_EQUAL")
""")


def test_frames_equal_the_reference(gym_frames: None) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", RENDER], capture_output=True, text=True, env=env, timeout=300)
    if "NOGL" in out.stdout:
        pytest.skip(f"no OpenGL here: {out.stdout.strip()[:300]}")
    assert "FRAMES_EQUAL" in out.stdout, (out.stdout + out.stderr)[-3000:]


# ------------------------------------------------------------------------------------ conventions
@pytest.mark.parametrize("backend", ["c", "reference"])
def test_a_closed_single_env_raises_closed_environment_error(backend: str) -> None:
    env = gymnasium.make("mdvec/Hopper-v5", backend=backend, render_mode="rgb_array")
    env.reset(seed=0)
    env.close()
    env.close()  # closing again is allowed
    u = env.unwrapped
    calls = [
        lambda: u.reset(),
        lambda: u.step(np.zeros(3, np.float32)),
        lambda: u.render(),
        lambda: u.data,
        lambda: u.set_state(np.zeros(6), np.zeros(6)),
    ]
    for call in calls:
        with pytest.raises(gymnasium.error.ClosedEnvironmentError, match="close"):
            call()
    with pytest.raises(RuntimeError, match="closed"):  # what mdvec raised before, still caught
        u.reset()


def test_a_closed_vector_env_raises_closed_environment_error() -> None:
    for env in (
        gymnasium.make_vec("mdvec/Hopper-v5", num_envs=2, vectorization_mode="vector_entry_point"),
        mdvec.make("Hopper-v5", num_envs=2),
    ):
        env.reset(seed=0)
        env.close()
        for call in (lambda: env.reset(), lambda: env.step(np.zeros((2, 3), np.float32))):  # noqa: B023
            with pytest.raises(gymnasium.error.ClosedEnvironmentError):
                call()


def _raised(call: Any) -> type:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - its type is what is compared
        return type(exc)
    return type(None)


def test_step_zero_raises_what_gymnasium_raises() -> None:
    ref = gymnasium.make("Hopper-v5")
    ref.reset(seed=0)
    env = gymnasium.make("mdvec/Hopper-v5")
    env.reset(seed=0)
    for action in (0, 0.0, np.float32(0)):
        expected = _raised(lambda: ref.step(action))  # noqa: B023
        assert expected is ValueError  # MujocoEnv.do_simulation's "Action dimension mismatch"
        assert issubclass(_raised(lambda: env.step(action)), expected)  # noqa: B023
    sync = gymnasium.make_vec("Hopper-v5", num_envs=2, vectorization_mode="sync")
    sync.reset(seed=0)
    venv = gymnasium.make_vec("mdvec/Hopper-v5", num_envs=2, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    for action in (0, 0.0):
        expected = _raised(lambda: sync.step(action))  # noqa: B023
        assert expected is TypeError
        assert issubclass(_raised(lambda: venv.step(action)), expected)  # noqa: B023


def test_vector_np_random_seed_is_sync_vector_envs() -> None:
    mdv = gymnasium.make_vec("mdvec/Hopper-v5", num_envs=3, vectorization_mode="vector_entry_point", seed=5)
    assert mdv.np_random_seed == (5, 6, 7)  # the constructor's seed + i (SyncVectorEnv's envs start unseeded)
    sync = gymnasium.make_vec("Hopper-v5", num_envs=3, vectorization_mode="sync")
    mask = np.array([True, True, False])
    for kw in ({"seed": 7}, {}, {"seed": [None, 11, 12], "options": {"reset_mask": mask}}, {"seed": 3}):
        mdv.reset(**kw)
        sync.reset(**kw)
        assert mdv.np_random_seed == sync.np_random_seed, kw
        assert isinstance(mdv.np_random_seed, tuple)
    assert mdvec.make("Hopper-v5", num_envs=2, seed=9).np_random_seed == (9, 10)


def test_pickle_names_the_snapshot_and_the_snapshot_carries_the_episode() -> None:
    env = gymnasium.make("mdvec/Hopper-v5")
    env.reset(seed=3)
    for env_like in (env, mdvec.make("Hopper-v5", num_envs=2)):
        with pytest.raises(TypeError, match=r"cannot be copied or pickled.*snapshot\(\).*restore"):
            pickle.dumps(env_like)
    actions = np.random.default_rng(0).uniform(-1, 1, (12, 3)).astype(np.float32)
    for a in actions[:4]:
        env.step(a)
    blob = pickle.loads(pickle.dumps(env.unwrapped.snapshot()))
    other = gymnasium.make("mdvec/Hopper-v5")
    other.reset(seed=99)
    other.unwrapped.restore(blob)
    for a in actions[4:]:
        assert same_step(env.step(a), other.step(a))
    assert env.unwrapped.np_random.bit_generator.state == other.unwrapped.np_random.bit_generator.state
    assert data_diff(env.unwrapped.data, other.unwrapped.data, env.unwrapped.model) == []
