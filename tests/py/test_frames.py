"""Frames equal to the reference's, byte for byte (issue 28 item 1).

Every Gymnasium v5 task, in "rgb_array", "depth_array" and "rgbd_tuple": mdvec's single env
(``gymnasium.make("mdvec/<Task>-v5")``) against ``gymnasium.make("<Task>-v5")``, and its vector env (``make_vec(...,
"vector_entry_point")``, the class ``mdvec.make`` returns) against Gymnasium's ``SyncVectorEnv`` over the reference
(whose ``render()`` is a tuple of one frame per env); with the reference's camera config, a custom
``default_camera_config``, ``camera_id``/``camera_name``, sizes other than 480 and one larger than the models'
640 x 480 offscreen buffer; after the same seed, random actions and ``set_state``. The duck and cart-pole: the C
env's frames against their Python reference's. No tolerance: type, dtype, shape and every byte.

Cost. On a software GL (llvmpipe) a new GL context costs about 0.5 s of CPU (its code is compiled per context)
and the models' 4096 x 4096 shadow map about 0.1 s per frame; Gymnasium makes a context per env and mode. So the
task x mode matrix runs under ``shared_gl``: every renderer of the test, Gymnasium's and mdvec's alike, draws in
one GL context, with the shadow map made 512 x 512 (``MjrContext`` patched: both sides get the same model change).
The bytes do not depend on the context (one context per env gives the same frames); what the defaults give, each
viewer's own context and the 4096 shadow map, is checked by ``test_defaults_in_a_fresh_process``, which also
draws mdvec's frames in another process (a new EGL display and context) than the reference's.

Skipped, with the reason, without Gymnasium's MuJoCo envs or when no OpenGL context can be made (conftest sets
MUJOCO_GL=egl unless the caller set a backend).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")

import mdvec  # noqa: E402
from mdvec.gym_tasks import gymnasium_mujoco_unavailable  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TASKS = [
    "Ant-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
    "InvertedDoublePendulum-v5",
    "InvertedPendulum-v5",
    "Pusher-v5",
    "Reacher-v5",
    "Swimmer-v5",
    "Walker2d-v5",
]
MODES = ["rgb_array", "depth_array", "rgbd_tuple"]
W, H = 64, 48  # not Gymnasium's 480: small frames keep the file cheap
STEPS = 3
SEED = 7
SHADOW = 512  # shared_gl's shadow map side
CUSTOM = {"distance": 2.5, "azimuth": 60.0, "elevation": -35.0, "lookat": np.array((0.3, -0.2, 0.5))}


@pytest.fixture(scope="module")
def gl_context() -> Iterator[Any]:
    """One real GL context for the module (skips, with the reason, without Gymnasium's MuJoCo envs or GL)."""
    why = gymnasium_mujoco_unavailable()
    if why:
        pytest.skip(why)
    from mdvec._gl import NoGLError, make_context

    try:
        context = make_context(W, H)
    except NoGLError as exc:
        pytest.skip(f"no OpenGL context can be made here: {exc}")
    yield context
    context.free()


class Borrowed:
    """The module's context lent to a renderer: made current on demand, never freed by it."""

    def __init__(self, context: Any) -> None:
        self.context = context

    def make_current(self) -> None:
        self.context.make_current()

    def free(self) -> None:
        pass


@pytest.fixture
def shared_gl(gl_context: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every renderer made in the test (Gymnasium's OffScreenViewer, mdvec's FrameRenderer) draws in the module's
    GL context, and every mjrContext gets a SHADOW x SHADOW shadow map (see the module docstring). Each draw binds its own
    mjrContext's offscreen buffer first (a context per viewer keeps that binding apart; one context does not)."""
    import mujoco
    from gymnasium.envs.mujoco import mujoco_rendering

    import mdvec._gl

    lent = Borrowed(gl_context)
    monkeypatch.setitem(mujoco_rendering._ALL_RENDERERS, os.environ["MUJOCO_GL"], lambda width, height: lent)
    monkeypatch.setattr(mdvec._gl, "make_context", lambda width, height, headless_only=True: lent)
    made = mujoco.MjrContext

    def small_shadows(model: Any, font: Any) -> Any:
        model.vis.quality.shadowsize = min(int(model.vis.quality.shadowsize), SHADOW)
        return made(model, font)

    monkeypatch.setattr(mujoco, "MjrContext", small_shadows)
    draw = mujoco.mjr_render

    def own_buffer(viewport: Any, scene: Any, con: Any) -> None:  # many mjrContexts in one GL context: bind its own
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, con)
        draw(viewport, scene, con)

    monkeypatch.setattr(mujoco, "mjr_render", own_buffer)


def same(ours: Any, theirs: Any) -> bool:
    """Whether two frames (arrays, or tuples of them) have the same type, dtype, shape and bytes."""
    if isinstance(theirs, tuple):
        return isinstance(ours, tuple) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    return (
        isinstance(ours, np.ndarray)
        and ours.dtype == theirs.dtype
        and ours.shape == theirs.shape
        and ours.tobytes() == theirs.tobytes()
    )


def batches(space: Any) -> list[np.ndarray]:
    """STEPS random action batches (N, nu) of a vector action space."""
    rng = np.random.default_rng(SEED)
    return [rng.uniform(space.low, space.high).astype(space.dtype) for _ in range(STEPS)]


def moved_state(ref: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(qpos, qvel) batches (n, nq), (n, nv) away from the reference's initial state, one per env."""
    u = ref.envs[0].unwrapped
    qpos = np.stack([u.init_qpos + 0.1 * np.sin(np.arange(u.model.nq) + i) for i in range(n)])
    return qpos, np.full((n, u.model.nv), 0.05)


def compare(task: str, mode: str, n: int = 2, single: bool = True, full: bool = True, **kwargs: Any) -> int:
    """Frames of mdvec's vector env (n envs) and, with ``single``, of its single env (env 0's seed and actions)
    against SyncVectorEnv over the reference after reset(seed=SEED) and STEPS random steps; with ``full`` also
    right after the reset (each env's camera is then set up there) and after a set_state. Asserted equal; returns
    the number of frames compared."""
    import mujoco

    kw = dict(render_mode=mode, **kwargs)
    ref = gymnasium.make_vec(task, num_envs=n, vectorization_mode="sync", **kw)
    ours = gymnasium.make_vec("mdvec/" + task, num_envs=n, vectorization_mode="vector_entry_point", **kw)
    one = gymnasium.make("mdvec/" + task, **kw) if single else None
    compared = 0

    def check(when: str) -> None:
        nonlocal compared
        theirs, mine = ref.render(), ours.render()
        assert isinstance(theirs, tuple) and len(theirs) == n
        assert same(mine, theirs), f"{task} {mode} {kwargs}: the vector env's frames differ {when}"
        compared += n
        if one is not None:
            assert same(one.render(), theirs[0]), f"{task} {mode} {kwargs}: the single env's frame differs {when}"
            compared += 1

    try:
        for env in (ref, ours, one):
            if env is not None:
                env.reset(seed=SEED)
        if full:
            check("after the reset")
        ended = False  # the single env's episode ended: reset where SyncVectorEnv's env 0 autoresets (NEXT_STEP)
        for actions in batches(ref.action_space):
            ref.step(actions)
            ours.step(actions)
            if one is not None and ended:
                one.reset()
                ended = False
            elif one is not None:
                _, _, terminated, truncated, _ = one.step(actions[0])
                ended = bool(terminated or truncated)
        check(f"after {STEPS} steps")
        if not full:
            return compared
        qpos, qvel = moved_state(ref, n)
        for i, env in enumerate(ref.envs):
            env.unwrapped.set_state(qpos[i], qvel[i])
        ours.set_state(
            np.concatenate([qpos, qvel], axis=1), None, int(mujoco.mjtState.mjSTATE_QPOS | mujoco.mjtState.mjSTATE_QVEL)
        )
        if one is not None:
            one.unwrapped.set_state(qpos[0], qvel[0])
        check("after set_state")
        return compared
    finally:
        for env in (ref, ours, one):
            if env is not None:
                env.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task", TASKS)
def test_task_and_mode(task: str, mode: str, shared_gl: None, gym_frames: None) -> None:
    """Each task and mode: the single env and the vector env; in rgbd_tuple (both arrays) 2 envs, and frames after
    the reset and after a set_state too."""
    full = mode == "rgbd_tuple"
    n = 2 if full else 1
    assert compare(task, mode, n=n, full=full, width=W, height=H) == (3 if full else 1) * (n + 1)


@pytest.mark.parametrize("task", ["Hopper-v5", "InvertedDoublePendulum-v5"])  # a config with lookat; a None one
def test_custom_camera_config(task: str, shared_gl: None, gym_frames: None) -> None:
    compare(task, "rgb_array", full=False, width=W, height=H, default_camera_config={"trackbodyid": 1, **CUSTOM})


@pytest.mark.parametrize(
    ("task", "camera"),
    [("Walker2d-v5", {"camera_name": "track"}), ("Humanoid-v5", {"camera_id": 1}), ("Ant-v5", {"camera_id": -1})],
)
def test_model_cameras(task: str, camera: dict[str, Any], shared_gl: None) -> None:
    compare(task, "rgbd_tuple", full=False, width=W, height=H, **camera)


def test_frame_wider_than_the_offscreen_buffer(shared_gl: None, gym_frames: None) -> None:
    """1000 > the models' 640 offscreen width: the buffer grows as MujocoEnv grows it (20 rows: cheap)."""
    compare("Swimmer-v5", "rgb_array", n=1, full=False, width=1000, height=20)


def test_sb3_vec_env(shared_gl: None) -> None:
    """mdvec.sb3's VecEnv: get_images() gives the frames of SB3's DummyVecEnv over the reference env."""
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from stable_baselines3.common.vec_env import DummyVecEnv

    from mdvec.sb3 import make_vec_env

    kw = dict(render_mode="rgb_array", width=W, height=H)
    ours = make_vec_env(2, seed=SEED, task="Walker2d-v5", **kw)
    theirs = DummyVecEnv([lambda: gymnasium.make("Walker2d-v5", **kw) for _ in range(2)])
    try:
        theirs.seed(SEED)
        theirs.reset()
        ours.reset()
        space = ours.action_space
        rng = np.random.default_rng(SEED)
        for _ in range(STEPS):
            actions = rng.uniform(space.low, space.high, (2, *space.shape)).astype(space.dtype)
            ours.step(actions)
            theirs.step(actions)
        mine, ref = ours.get_images(), theirs.get_images()
        assert len(mine) == len(ref) == 2 and all(same(a, b) for a, b in zip(mine, ref))
    finally:
        ours.close()
        theirs.close()


def test_core_make_is_the_vector_entry_point() -> None:
    """``mdvec.make`` returns the class make_vec's vector entry point builds: the frames above are its frames."""
    from mdvec.gym import MdvecVectorEnv

    env = mdvec.make("Hopper-v5", 1, render_mode="depth_array", width=W, height=H)
    try:
        assert isinstance(env, MdvecVectorEnv)
        assert env.metadata["render_modes"] == MODES
    finally:
        env.close()


def test_vector_env_refuses_human_with_the_reason() -> None:
    with pytest.raises(ValueError, match="off-screen frames only"):
        mdvec.make("Hopper-v5", 2, render_mode="human")


OWN = ["mdvec/DuckBalance-v0", "mdvec/cartpole_swingup"]  # tasks whose reference is mdvec's own Python env


def own_actions(space: Any) -> list[np.ndarray]:
    rng = np.random.default_rng(SEED)
    return [rng.uniform(-1, 1, space.shape).astype(np.float32) for _ in range(STEPS)]


@pytest.mark.parametrize("env_id", OWN)
def test_own_tasks_vector_env(env_id: str, shared_gl: None) -> None:
    """The duck and cart-pole: the C vector env's frames equal SyncVectorEnv's over their Python reference
    (``backend="reference"``), drawn by the same FrameRenderer camera on the reference's own data."""
    kw = dict(num_envs=2, render_mode="rgb_array", width=W, height=H)
    ref = gymnasium.make_vec(env_id, vectorization_mode="sync", backend="reference", **kw)
    ours = gymnasium.make_vec(env_id, vectorization_mode="vector_entry_point", **kw)
    try:
        ref.reset(seed=SEED)
        ours.reset(seed=SEED)
        rounds = [(ours.render(), ref.render())]
        for actions in own_actions(ref.action_space):
            ours.step(actions)
            ref.step(actions)
            rounds.append((ours.render(), ref.render()))
        assert [same(a, b) for a, b in rounds] == [True] * len(rounds)
        assert rounds[0][0][0].shape == (H, W, 3) and rounds[0][0][0].any()
    finally:
        ours.close()
        ref.close()


def test_duck_single_env(shared_gl: None) -> None:
    """The duck's single env: the C backend's frames equal the reference backend's."""
    ours = gymnasium.make(OWN[0], render_mode="rgb_array", width=W, height=H)
    ref = gymnasium.make(OWN[0], render_mode="rgb_array", width=W, height=H, backend="reference")
    try:
        ours.reset(seed=SEED)
        ref.reset(seed=SEED)
        pairs = [(ours.render(), ref.render())]
        for action in own_actions(ours.action_space):
            ours.step(action)
            ref.step(action)
            pairs.append((ours.render(), ref.render()))
        assert [same(a, b) for a, b in pairs] == [True] * len(pairs)
    finally:
        ours.close()
        ref.close()


DIGESTS = """
import hashlib, json, sys
import gymnasium, numpy as np, mdvec
task, n, seed, steps, w, h = sys.argv[1:7]
n, seed, steps, w, h = int(n), int(seed), int(steps), int(w), int(h)
kw = dict(render_mode="rgbd_tuple", width=w, height=h)
ours = gymnasium.make_vec("mdvec/" + task, num_envs=n, vectorization_mode="vector_entry_point", **kw)
one = gymnasium.make("mdvec/" + task, **kw)
ours.reset(seed=seed)
one.reset(seed=seed)
for actions in json.loads(sys.stdin.read()):
    actions = np.asarray(actions, ours.action_space.dtype)
    ours.step(actions)
    one.step(actions[0])
digest = lambda f: hashlib.sha256(f[0].tobytes() + f[1].tobytes()).hexdigest()
print(json.dumps({"vector": [digest(f) for f in ours.render()], "single": digest(one.render())}))
"""


def test_defaults_in_a_fresh_process(gl_context: Any, gym_frames: None) -> None:
    """Gymnasium's defaults untouched (each viewer its own GL context, the models' 4096 shadow map) and mdvec's
    frames drawn in another process, a fresh EGL display and context: the same bytes as the reference's here."""
    task, n = "Hopper-v5", 1
    ref = gymnasium.make_vec(task, num_envs=n, vectorization_mode="sync", render_mode="rgbd_tuple", width=W, height=H)
    try:
        ref.reset(seed=SEED)
        actions = batches(ref.action_space)
        for batch in actions:
            ref.step(batch)
        theirs = [hashlib.sha256(f[0].tobytes() + f[1].tobytes()).hexdigest() for f in ref.render()]
    finally:
        ref.close()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    argv = [sys.executable, "-c", textwrap.dedent(DIGESTS), task, str(n), str(SEED), str(STEPS), str(W), str(H)]
    payload = json.dumps([a.tolist() for a in actions])
    out = subprocess.run(argv, input=payload, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    mine = json.loads(out.stdout.strip().splitlines()[-1])
    assert mine["vector"] == theirs
    assert mine["single"] == theirs[0]


# ------------------------------------------------------------------------------------------------ videos
@pytest.mark.parametrize("task", TASKS)
def test_render_fps_is_the_references(task: str, gym_mujoco: None) -> None:
    """metadata["render_fps"]: round(1 / dt), as the reference's, on the single env and the vector env."""
    ours = gymnasium.make("mdvec/" + task)
    ref = gymnasium.make(task)
    vec = gymnasium.make_vec("mdvec/" + task, num_envs=2, vectorization_mode="vector_entry_point")
    ref_vec = gymnasium.make_vec(task, num_envs=2, vectorization_mode="sync")
    try:
        fps = ref.metadata["render_fps"]
        assert fps == round(1.0 / ref.unwrapped.dt)
        assert ours.metadata["render_fps"] == fps and ours.unwrapped.dt == ref.unwrapped.dt
        assert vec.metadata["render_fps"] == ref_vec.metadata["render_fps"] == fps
    finally:
        for env in (ours, ref, vec, ref_vec):
            env.close()


class Clips:
    """What Gymnasium's RecordVideo hands moviepy (``ImageSequenceClip(frames, fps=...).write_videofile(path)``),
    recorded instead of encoded: moviepy is not installed here (Gymnasium's own writer is moviepy's), and an
    MP4's lossy frames could not be compared byte for byte anyway."""

    def __init__(self) -> None:
        self.written: list[tuple[str, list[np.ndarray], float]] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import types

        outer = self

        class ImageSequenceClip:
            def __init__(self, frames: list[np.ndarray], fps: float) -> None:
                self.frames, self.fps = [np.array(f) for f in frames], fps

            def write_videofile(self, path: str, logger: Any = None) -> None:
                outer.written.append((os.path.basename(path), self.frames, self.fps))

        names = ["moviepy", "moviepy.video", "moviepy.video.io", "moviepy.video.io.ImageSequenceClip"]
        modules = {name: types.ModuleType(name) for name in names}
        modules[names[-1]].ImageSequenceClip = ImageSequenceClip  # type: ignore[attr-defined]
        for name, module in modules.items():
            monkeypatch.setitem(sys.modules, name, module)


def record(env: Any, wrapper: Any, folder: Path, steps: int, vector: bool) -> list[tuple[str, list[np.ndarray], float]]:
    """Record the first episode's first ``steps`` steps of env (wrapped by Gymnasium's RecordVideo) and return
    what was written."""
    clips = Clips()
    with pytest.MonkeyPatch.context() as mp:
        clips.install(mp)
        env = wrapper(env, str(folder), episode_trigger=lambda episode: episode == 0, video_length=steps)
        env.reset(seed=SEED)
        space = env.action_space
        rng = np.random.default_rng(SEED)
        for _ in range(steps):
            env.step(rng.uniform(space.low, space.high).astype(space.dtype))
        env.close()
    return clips.written


def test_record_video_single_env(tmp_path: Path, shared_gl: None) -> None:
    """gymnasium.wrappers.RecordVideo over mdvec's single env: the frames and fps of the reference's video."""
    from gymnasium.wrappers import RecordVideo

    kw = dict(render_mode="rgb_array", width=W, height=H)
    mine = record(gymnasium.make("mdvec/Hopper-v5", **kw), RecordVideo, tmp_path / "mdvec", STEPS, False)
    theirs = record(gymnasium.make("Hopper-v5", **kw), RecordVideo, tmp_path / "ref", STEPS, False)
    assert len(mine) == len(theirs) == 1
    (name, frames, fps), (ref_name, ref_frames, ref_fps) = mine[0], theirs[0]
    assert name == ref_name == "rl-video-episode-0.mp4" and fps == ref_fps == 125
    assert len(frames) == len(ref_frames) == STEPS + 1
    assert all(same(a, b) for a, b in zip(frames, ref_frames))


def test_record_video_vector_env(tmp_path: Path, shared_gl: None, gym_frames: None) -> None:
    """gymnasium.wrappers.vector.RecordVideo over mdvec's vector env (its frames tiled): the reference's video."""
    from gymnasium.wrappers.vector import RecordVideo

    kw = dict(num_envs=2, render_mode="rgb_array", width=W, height=H)
    ours = gymnasium.make_vec("mdvec/Walker2d-v5", vectorization_mode="vector_entry_point", **kw)
    mine = record(ours, RecordVideo, tmp_path / "mdvec", STEPS, True)
    theirs = record(
        gymnasium.make_vec("Walker2d-v5", vectorization_mode="sync", **kw), RecordVideo, tmp_path / "r", STEPS, True
    )
    assert len(mine) == len(theirs) == 1
    (_, frames, fps), (_, ref_frames, ref_fps) = mine[0], theirs[0]
    assert fps == ref_fps == 125 and len(frames) == len(ref_frames) == STEPS + 1
    assert frames[0].shape == (H, 2 * W, 3)  # two envs side by side
    assert all(same(a, b) for a, b in zip(frames, ref_frames))


def test_render_command_draws_the_references_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_gl: None, gym_frames: None
) -> None:
    """``python -m mdvec render --env Hopper-v5 --no-caption --out v.mp4``: a frame per step at the task's render_fps,
    each the reference's frame (gymnasium.make("Hopper-v5", render_mode="rgb_array")) after the same reset and actions."""
    pytest.importorskip("PIL", reason="the render command builds its frames with Pillow")
    from mdvec.tools import render

    written: list[tuple[list[Any], float]] = []
    monkeypatch.setattr(render, "video_writer", lambda path: "ffmpeg")  # no encoder needed: the frames are kept
    monkeypatch.setattr(render, "write_video", lambda frames, path, fps, ffmpeg=None: written.append((frames, fps)))
    argv = ["--policy", "hold-pose", "--env", "Hopper-v5", "--out", str(tmp_path / "v.mp4"), "--no-caption"]
    argv += ["--width", str(W), "--height", str(H), "--seed", str(SEED), "-o", f"max_episode_steps={STEPS}"]
    assert render.main(argv) == 0
    ((frames, fps),) = written
    ref = gymnasium.make("Hopper-v5", render_mode="rgb_array", width=W, height=H)
    try:
        ref.reset(seed=SEED)
        theirs = [ref.render()]
        for _ in range(STEPS - 1):  # a frame before each step: the truncating step's state is not drawn
            ref.step(np.zeros(ref.action_space.shape, np.float32))
            theirs.append(ref.render())
        assert fps == ref.metadata["render_fps"]
    finally:
        ref.close()
    assert len(frames) == STEPS
    assert all(same(np.asarray(a), b) for a, b in zip(frames, theirs))


# ------------------------------------------------------------------------------------------- the contract
def test_contract_counts_frames_like_values(shared_gl: None) -> None:
    """``python -m mdvec contract --frames``: a task's frames case compares every frame of its vector and single
    env with the reference's and counts equal bytes."""
    from mdvec.tools import contract

    (case,) = contract.frames_cases("InvertedPendulum-v5", quick=True)
    result = contract.run_case(case)
    assert not result.skipped and result.identical, result.first_mismatch
    rounds = 1 + 3 + 1  # the reset, 3 steps, a set_state
    assert result.frames == result.frames_identical == rounds * (case.num_envs + 1)
    per_frame = contract.FRAME_WIDTH * contract.FRAME_HEIGHT * (3 + 4)  # rgb uint8 and depth float32
    assert result.frame_bytes == result.frame_bytes_identical == result.frames * per_frame
    table = contract.task_table([result.as_dict()])["InvertedPendulum-v5"]
    assert (table["frames"], table["frame_bytes_identical"]) == (result.frames, result.frame_bytes)


def test_contract_counts_differing_bytes() -> None:
    from mdvec.tools import contract

    rgb, depth = np.zeros((4, 5, 3), np.uint8), np.ones((4, 5), np.float32)
    result = contract.Result("x", "Hopper-v5")
    contract.count_frame(result, (rgb, depth), (rgb.copy(), depth.copy()), "a")
    moved = rgb.copy()
    moved[1, 2] = 7
    contract.count_frame(result, (rgb, depth), (moved, depth), "b")
    contract.count_frame(result, rgb, rgb.astype(np.int16), "c")  # another dtype: every byte differs
    assert (result.frames, result.frames_identical) == (3, 1)
    assert result.frame_bytes == 2 * (60 + 80) + 60
    assert result.frame_bytes_identical == 140 + 137 + 0
    assert result.first_mismatch == "b: 3 of 140 bytes differ" and not result.identical


def test_contract_frames_of_the_control_suite_are_skipped_with_the_reason() -> None:
    from mdvec.tools import contract

    (case,) = contract.frames_cases("cheetah-run", quick=True)
    assert "Physics.render" in contract.run_case(case).skipped
