"""Pixel observations drawn by libmdvec on its worker threads (issue 28, item 2): each env's frame equals, byte for
byte, its reference's render of the same state after the same seeds and actions, at 2 threads:

* a Gymnasium v5 task: ``AddRenderObservation(gymnasium.make(id, render_mode="rgb_array", width, height),
  render_only=True)`` (``FrameStackObservation`` around it for ``frame_stack``), vectorised by ``SyncVectorEnv`` in
  the NEXT_STEP autoreset mode, so a truncated episode's reset frame is compared too;
* ``obs_mode="state+pixels"``: AddRenderObservation(render_only=False)'s {"state", "pixels"};
* a Control Suite task: dm_control's own ``Physics.render(height, width, camera_id=0)``.

A Gymnasium viewer sets its free camera up on its first render; the reference env is reset with the env's seed and
rendered once before AddRenderObservation wraps it (whose constructor renders after an unseeded reset), as mdvec
sets each env's camera up on its first reset. Frames are compared with ==, never within a tolerance. Without a
usable EGL every case skips with the library's message; the no-EGL error itself is checked always."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest

import mdvec
from mdvec import MdvecError

gym = pytest.importorskip("gymnasium")

W, H = 64, 64


def _egl_or_skip() -> None:
    try:
        env = mdvec.VecEnv(1, task="duck", obs_mode="pixels", width=8, height=8)
    except MdvecError as exc:
        if exc.code == -11:  # MDVEC_ERR_GL
            pytest.skip(f"no usable EGL here: {exc}")
        raise
    env.close()


def _same(a: Any, b: Any) -> bool:
    """Equal bytes (dtype, shape and values) of two observations, dicts key by key."""
    if isinstance(b, dict):
        return isinstance(a, dict) and set(a) == set(b) and all(_same(a[k], b[k]) for k in b)
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))


def _reference(env_id: str, seed: int, render_only: bool, frame_stack: int | None, **kwargs: Any) -> Any:
    env = gym.make(env_id, render_mode="rgb_array", width=W, height=H, **kwargs)
    env.reset(seed=seed)
    env.render()  # the viewer (its free camera) set up at the seeded reset, as mdvec does at an env's first reset
    env = gym.wrappers.AddRenderObservation(env, render_only=render_only)
    return gym.wrappers.FrameStackObservation(env, frame_stack) if frame_stack else env


def _compare(env_id: str, obs_mode: str, frame_stack: int | None, steps: int, **kwargs: Any) -> int:
    """Step mdvec and the reference side by side; assert every result equal; return the frames compared."""
    _egl_or_skip()
    n = 2
    extra = {} if frame_stack is None else {"frame_stack": frame_stack}
    venv = mdvec.make(env_id, n, seed=3, threads=2, obs_mode=obs_mode, width=W, height=H, **extra, **kwargs)
    ref = gym.vector.SyncVectorEnv(
        [lambda i=i: _reference(env_id, 3 + i, obs_mode == "pixels", frame_stack, **kwargs) for i in range(n)]
    )
    try:
        assert venv.single_observation_space == ref.single_observation_space
        o1, _ = venv.reset(seed=3)
        o2, _ = ref.reset(seed=3)
        assert _same(o1, o2), "reset frames differ"
        rng = np.random.default_rng(0)
        for t in range(steps):
            a = rng.uniform(-1, 1, size=venv.action_space.shape).astype(np.float32)
            r1, r2 = venv.step(a), ref.step(a)
            assert _same(r1[0], r2[0]), f"step {t}: observations differ"
            for k in (1, 2, 3):
                assert np.array_equal(r1[k], r2[k]), f"step {t}: result {k} differs"
        return n * (steps + 1)
    finally:
        venv.close()
        ref.close()


def test_hopper_frames_stacked_through_an_autoreset(gym_frames: None) -> None:
    """Hopper-v5, frame_stack=2, episodes of 1 step: frames after reset, a step that truncates and the NEXT_STEP
    reset that follows it (the stack refilled with the new episode's first frame, as FrameStackObservation)."""
    frames = _compare("Hopper-v5", "pixels", 2, 2, max_episode_steps=1)
    assert frames == 6


def test_state_and_pixels_dict(gym_mujoco: None) -> None:
    """InvertedPendulum-v5, obs_mode="state+pixels": AddRenderObservation(render_only=False)'s Dict."""
    _compare("InvertedPendulum-v5", "state+pixels", None, 2)


def test_control_suite_frames_equal_dm_control_render() -> None:
    """cartpole-swingup: each env's frame equals dm_control's Physics.render on camera 0 of its reference."""
    _egl_or_skip()
    dm = pytest.importorskip("mdvec.reference.dm_control")
    from mdvec.dm_tasks import unavailable

    why = unavailable("cartpole-swingup")
    if why:
        pytest.skip(why)
    venv = mdvec.make("cartpole-swingup", 2, seed=5, threads=2, obs_mode="pixels", width=W, height=H)
    refs = [dm.DmControlEnv("cartpole", "swingup", seed=5 + i) for i in range(2)]
    try:
        assert venv.single_observation_space.shape == (H, W, 3)
        obs, _ = venv.reset(seed=5)
        for i, r in enumerate(refs):
            r.reset(seed=5 + i)
        rng = np.random.default_rng(1)
        for t in range(2):
            for i, r in enumerate(refs):
                assert np.array_equal(obs[i], r.physics.render(height=H, width=W, camera_id=0)), (t, i)
            a = rng.uniform(-1, 1, size=venv.action_space.shape)
            obs = venv.step(a)[0]
            for i, r in enumerate(refs):
                r.step(a[i])
    finally:
        venv.close()
        for r in refs:
            r.close()


def test_spaces_views_and_refusals() -> None:
    """uint8 Box spaces; copy=False gives views of the library's buffer (VecEnv.buffers()["pixels"]); bad
    cameras and sizes are refused by the library, naming them."""
    _egl_or_skip()
    venv = mdvec.make("InvertedPendulum-v5", 2, threads=2, obs_mode="pixels", width=16, height=12, copy=False)
    try:
        space = venv.single_observation_space
        assert (space.shape, space.dtype) == ((12, 16, 3), np.uint8)
        assert int(space.low.min()) == 0 and int(space.high.max()) == 255
        assert venv.observation_space.shape == (2, 12, 16, 3)
        obs, _ = venv.reset(seed=0)
        buf = venv._env.buffers()["pixels"]
        assert np.shares_memory(obs, buf) and not obs.flags.writeable
    finally:
        venv.close()
    with pytest.raises(ValueError, match="camera"):
        mdvec.make("InvertedPendulum-v5", 1, obs_mode="pixels", width=8, height=8, camera=5)
    with pytest.raises(ValueError, match="no camera named 'nope'"):
        mdvec.make("InvertedPendulum-v5", 1, obs_mode="pixels", width=8, height=8, camera="nope")
    with pytest.raises(ValueError, match="frame_stack"):
        mdvec.make("InvertedPendulum-v5", 1, frame_stack=2)
    with pytest.raises(MemoryError, match="bytes"):
        mdvec.make("InvertedPendulum-v5", 100000, obs_mode="pixels", width=16384, height=16384)


def test_gymnasium_rules_follow_the_installed_gymnasium(gym_frames: None) -> None:
    """The option ``gymnasium`` ("1.4" or "1.2": the MujocoEnv renderer's default camera and offscreen buffer) is
    the installed Gymnasium's by default, both of its rules changing together (as they did in 1.4: a Gymnasium
    with one and not the other would draw frames no setting matches, and this fails there); "1.2" draws
    Hopper-v5 through its camera "track", "1.4" through the free camera; the frames of the installed rules equal
    Gymnasium's render (``_compare`` covers the steps); a task not drawn as Gymnasium draws ignores it; a bad value
    is refused."""
    import mujoco

    from mdvec._gl import gymnasium_offscreen_grows, gymnasium_render_rules, gymnasium_track_camera

    _egl_or_skip()
    assert gymnasium_offscreen_grows() != gymnasium_track_camera()
    rules = gymnasium_render_rules()
    assert rules == ("1.4" if gymnasium_offscreen_grows() else "1.2")
    frames, cameras = {}, {}
    for given in ("1.4", "1.2", None):
        extra = {} if given is None else {"gymnasium": given}
        env = mdvec.VecEnv(1, seed=5, task="Hopper-v5", obs_mode="pixels", width=W, height=H, **extra)
        env.reset()
        frames[given], cameras[given] = env.buffers()["pixels"][0].copy(), env._h.pixel_spec.camera_id
        assert env._h.pixel_options["gymnasium"] == (given or rules)
        env.close()
    ref = gym.make("Hopper-v5", render_mode="rgb_array", width=W, height=H)
    ref.reset(seed=5)
    track = mujoco.mj_name2id(ref.unwrapped.model, mujoco.mjtObj.mjOBJ_CAMERA, "track")
    assert track >= 0 and cameras == {"1.4": -1, "1.2": track, None: cameras[rules]}
    assert not np.array_equal(frames["1.4"], frames["1.2"]) and np.array_equal(frames[None], frames[rules])
    assert np.array_equal(frames[None], ref.render())
    ref.close()
    duck = {}
    for given in ("1.4", "1.2"):
        env = mdvec.VecEnv(1, seed=5, task="duck", obs_mode="pixels", width=16, height=16, gymnasium=given)
        env.reset()
        duck[given] = env.buffers()["pixels"].copy()
        env.close()
    assert np.array_equal(duck["1.4"], duck["1.2"])
    with pytest.raises(ValueError, match=r"gymnasium: expected one of '1\.4', '1\.2'"):
        mdvec.VecEnv(1, task="Hopper-v5", obs_mode="pixels", width=8, height=8, gymnasium="1.3")


def test_render_without_gymnasium_mujoco_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """A v5 task's render() reads its camera defaults from Gymnasium's MuJoCo envs: where they cannot be imported
    (gymnasium without its [mujoco] extra: no imageio), an ImportError says what to install, not a bare
    ModuleNotFoundError from deep inside Gymnasium. The env goes on stepping."""
    monkeypatch.setitem(sys.modules, "gymnasium.envs.mujoco.mujoco_env", None)  # its import now fails
    env = mdvec.make("InvertedPendulum-v5", 1, render_mode="rgb_array", width=8, height=8)
    env.reset(seed=0)
    with pytest.raises(ImportError, match=r"pip install 'gymnasium\[mujoco\]'"):
        env.render()
    env.step(np.zeros((1, 1), np.float32))
    env.close()


def test_no_egl_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without libEGL (MDVEC_LIBEGL naming a missing file): MdvecError naming MUJOCO_GL and what to install, and
    state-only envs go on working."""
    monkeypatch.setenv("MDVEC_LIBEGL", "/nonexistent/libEGL.so.1")
    with pytest.raises(MdvecError, match=r"MUJOCO_GL.*apt install libegl1") as info:
        mdvec.make("InvertedPendulum-v5", 2, obs_mode="pixels", width=8, height=8)
    assert info.value.code == -11
    env = mdvec.make("InvertedPendulum-v5", 2)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2, 4)
    env.close()
    assert os.environ["MDVEC_LIBEGL"]  # still set: the library read it at create
