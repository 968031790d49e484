"""Render episodes of a policy to a GIF or MP4: on the duck with the shoves shown, or on any other task.

``python -m mdvec render --policy runs/duck1/policy.zip --out duck.gif``
``python -m mdvec render --policy hold-pose --out hold.gif --seed 3 --episodes 2``
``python -m mdvec render --policy runs/cartpole1/policy.zip --out cartpole.gif``

On a task other than the duck (``--env``, default: the one the policy was trained on) the episodes run
on one C env and each frame draws its state on its model: the MJCF file it loaded (a Gymnasium task's
``xml_file``), or, for a model built into the library as an MJCF string (``cartpole_swingup``), its
Python reference's model, the same MJCF; the caption shows the task, policy, episode, time and return.
A Gymnasium task is drawn as ``gymnasium.make(id, render_mode="rgb_array")`` draws it (the renderer of
mdvec's Gymnasium envs, ``mdvec._shared.task_frames``: Gymnasium's MujocoRenderer with the task's
DEFAULT_CAMERA_CONFIG, the C env's whole mjData): with ``--no-caption`` each frame equals the reference's.
By default an MP4 has a frame per step, played at the task's ``render_fps`` (round(1 / dt), as Gymnasium's
RecordVideo writes it), and a GIF 25 frames per second (browsers slow GIF frames shorter than 20 ms down).
A Control Suite task (``cheetah-run``) is drawn on dm_control's own model of the task (the suite edits some
models after reading their XML) through the model's camera 0 (``--camera``: another id or a camera's name),
and its policy takes the flat observation (dm_control's flatten_observation order), as ``train`` trains it.

On the duck the episodes run on the C env (``mdvec.Env(seed=--seed)``, episodes back to back) and the frames are
drawn by ``mujoco.Renderer`` from its MuJoCo state (``get_state``, mjSTATE_FULLPHYSICS), with a camera
tracking the trunk. The Python reference env (``mdvec.reference.DuckEnv``) steps alongside with the
same actions: it tells where the shoves land, and its observations are checked equal to the C env's
at every step (the command says so at the end). ``--source reference`` renders the reference's own
state instead (no libmdvec needed; the default when libmdvec cannot be loaded). At each shove a red arrow shows its
direction and strength (0.25 m per m/s, for half a second), the frame border flashes red and the
caption names its speed; the caption also shows the policy, seed, episode, time and return so far,
and "FALLEN" once the duck is down.

Headless by default: unless MUJOCO_GL is set, rendering uses EGL (no display needed). Set
MUJOCO_GL=glfw to render with a display, or MUJOCO_GL=osmesa for software rendering (only where
libOSMesa is installed: without it mujoco 4.0.0 fails already at ``import mujoco``). When no GL
context can be made the command says what to install or set and exits with code 3.
GIFs are written with Pillow (matplotlib's dependency); MP4 needs ffmpeg on PATH or imageio-ffmpeg.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .._gl import NoGLError, make_renderer
from .._mjwarn import collected
from .._paths import writable_file
from .._resources import VARIANTS
from ._args import SEED_MAX, ArgumentRefused, Parser, add_task_option, int_in, policy_path, positive_int, seed_int
from ._args import writable_file as writable_file_arg

ARROW_M_PER_MPS = 0.25  # arrow length per unit shove speed
GIF_FPS = 25  # a GIF's default frames per second (browsers play GIF frames of less than 20 ms slower)
SHOW_STEPS = 25  # steps an arrow stays (0.5 s at 50 Hz)
FLASH_STEPS = 4  # steps the border flashes


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def c_env_available() -> bool:
    """True when libmdvec loads (then the C env can be rendered)."""
    try:
        from ..vecenv import lib

        lib()
    except Exception:  # noqa: BLE001 - any failure to load means no C env
        return False
    return True


class _CState:
    """The C env's state copied into a private MjData for drawing (mj_setState + mj_forward)."""

    def __init__(self, cenv: Any) -> None:
        import mujoco

        self.cenv = cenv
        with collected():  # MuJoCo's load warnings: not into ./MUJOCO_LOG.TXT
            self.model = mujoco.MjModel.from_xml_path(str(cenv.model_path))
        self.data = mujoco.MjData(self.model)
        self.sig = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)

    def sync(self) -> Any:
        import mujoco

        mujoco.mj_setState(self.model, self.data, self.cenv.get_state(self.sig), self.sig)
        mujoco.mj_forward(self.model, self.data)
        return self.data


def render_task_episodes(
    policy: Any | None,
    policy_name: str,
    env: str,
    seed: int = 0,
    episodes: int = 1,
    width: int = 320,
    height: int = 240,
    fps: float | None = None,
    options: dict[str, Any] | None = None,
    camera: int | str | None = None,
    caption: bool = True,
) -> tuple[list[Any], dict[str, Any]]:
    """Run episodes of a task other than the duck on one C env (seeded once with seed, episodes back to back)
    and return (PIL frames drawn from its state every few steps, stats); a caption names the policy,
    the episode, the time and the return so far. ``policy`` None: all-zero actions. The state is drawn on
    the model ``mdvec.vector.render_model`` gives: the MJCF file the env loaded, else (a model built into the
    library as a string) its Python reference's model; a Control Suite task's is dm_control's own. ``camera``:
    None tracks body 1 (a Control Suite task: its camera 0), else a camera id or name of the model; a Gymnasium
    task is drawn as its reference draws it (``task_frames``: None is its default camera, a name camera_name, an
    id camera_id). ``fps``: frames per second of simulated time (None: the task's render_fps, a frame per step).
    ``caption`` False: the frames as drawn, no text."""
    from PIL import Image, ImageDraw

    from .._shared import task_frames
    from ..vecenv import VecEnv
    from ..vector import is_suite_task, render_model

    if camera is None and is_suite_task(env):
        camera = 0  # the model's first camera, as dm_control's videos use
    frames_of, options = task_frames(env, width, height, camera, dict(options or {}))  # the reference's renderer
    with VecEnv(1, task=env, autoreset_mode="disabled", **options) as venv:
        frames_of.model = render_model(venv)  # drawn on: its MJCF file, its reference's model, or dm_control's
        b = venv.buffers()
        if policy is None:
            zeros = np.zeros((1, venv.nu), dtype=np.float32)
            policy = lambda obs: zeros  # noqa: E731
        dt = venv.spec.dt  # seconds of simulated time per env step (the task's frame skip included)
        stride = max(1, round(1.0 / ((fps or venv.spec.render_fps) * dt)))
        font = _font(max(10, height // 22))
        frames: list[Any] = []
        shown = venv.spec.render_fps if fps is None else 1.0 / (stride * dt)  # None: RecordVideo's, the metadata's
        stats: dict[str, Any] = {"episodes": [], "steps": 0, "fps": shown, "source": "mdvec"}
        for ep in range(episodes):
            venv.reset_envs(seeds=[seed] if ep == 0 else None)
            ret, t, done, terminated = 0.0, 0, False, False
            while not done:
                if t % stride == 0:
                    img = Image.fromarray(np.ascontiguousarray(frames_of.render_states(venv, [0])[0]))
                    if caption:
                        ImageDraw.Draw(img).text(
                            (6, 4),
                            f"{env}  {policy_name}  episode {ep + 1}  t={t * dt:.2f} s  return {ret:.1f}",
                            fill=(255, 255, 255),
                            font=font,
                        )
                    frames.append(img)
                venv.step_into_buffers(np.asarray(policy(b["obs"].copy()), dtype=np.float32))
                ret += float(b["reward"][0])
                t += 1
                terminated, done = bool(b["terminated"][0]), bool(b["terminated"][0] or b["truncated"][0])
            stats["episodes"].append({"return": ret, "steps": t, "terminated": terminated})
            stats["steps"] += t
        frames_of.close()
    return frames, stats


def render_episodes(
    policy: Any,
    policy_name: str,
    seed: int = 0,
    episodes: int = 1,
    width: int = 320,
    height: int = 240,
    fps: float | None = None,
    variant: str = "default",
    task: dict[str, Any] | None = None,
    source: str = "mdvec",
    caption: bool = True,
) -> tuple[list[Any], dict[str, Any]]:
    """Run episodes and return (PIL frames, stats); ``policy`` maps obs (1, 48) to actions (1, 14).

    ``source``: "mdvec" draws the C env's state (the reference steps alongside, checked equal),
    "reference" draws the reference env's state. ``fps``: frames per second of simulated time (None: the
    task's render_fps, round(1 / dt): a frame per step). ``caption`` False: no text drawn (the shove arrows
    and the border's flash stay).
    """
    import mujoco
    from PIL import Image, ImageDraw

    from ..reference import DuckEnv

    env = DuckEnv(seed=seed, variant=variant, **(task or {}))
    cstate = None
    if source == "mdvec":
        from ..vecenv import Env

        cstate = _CState(Env(seed=seed, variant=variant, **(task or {})))
    elif source != "reference":
        raise ValueError(f"source: choose mdvec or reference, got {source!r}")
    model = cstate.model if cstate else env.model
    dt = env.model.opt.timestep * env.cfg.substeps
    stride = max(1, round(1.0 / ((fps or round(1.0 / dt)) * dt)))
    renderer = make_renderer(model, width, height, headless_only=False)  # the CLI: EGL unless MUJOCO_GL says
    cam = mujoco.MjvCamera()
    cam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
    cam.trackbodyid = env.info.trunk
    cam.distance = 4.0 * env.info.h_home
    cam.elevation = -25.0
    cam.azimuth = 135.0
    font, small = _font(max(11, height // 18)), _font(max(10, height // 22))
    frames: list[Any] = []
    stats: dict[str, Any] = {
        "episodes": [],
        "frame_stride_steps": stride,
        "fps": round(1.0 / dt) if fps is None else 1.0 / (stride * dt),  # None: the task's render_fps
        "source": source,
        "steps": 0,
        "c_equal_steps": 0,
    }
    try:
        for ep in range(episodes):
            obs = env.reset()
            if cstate:
                c_obs = cstate.cenv.reset()
                stats["c_equal_steps"] += int(np.array_equal(c_obs, obs))
                obs = c_obs
            total, fallen_any, shoves = 0.0, False, []
            active: list[tuple[int, np.ndarray]] = []  # (step of the shove, velocity xy)
            for t in range(env.cfg.episode_len + 1):
                if t > 0:
                    action = np.asarray(policy(obs[None, :]), dtype=np.float32)[0]
                    obs, reward, _done, info = env.step(action)
                    stats["steps"] += 1
                    if cstate:
                        c_obs, c_reward, _, _ = cstate.cenv.step(action)
                        stats["c_equal_steps"] += int(np.array_equal(c_obs, obs) and c_reward == reward)
                        obs, reward = c_obs, c_reward
                    total += reward
                    fallen_any |= bool(info["fallen"])
                    if info["pushed"]:
                        params = env.params
                        assert params is not None  # set by every reset
                        for k in np.flatnonzero(params.push_steps == t - 1):
                            vel = np.array(params.push_vel[k], dtype=np.float64)
                            active.append((t, vel))
                            shoves.append({"step": t - 1, "speed": float(np.hypot(*vel))})
                active = [(s, v) for s, v in active if t - s < SHOW_STEPS]
                if t % stride:
                    continue
                new_shove = any(t - s < max(FLASH_STEPS, stride) for s, _ in active)  # at least one frame
                data = cstate.sync() if cstate else env.data
                renderer.update_scene(data, camera=cam)
                trunk = np.array(data.xpos[env.info.trunk], dtype=float)
                for _, vel in active:
                    _add_arrow(renderer.scene, trunk, vel)
                img = Image.fromarray(renderer.render())
                draw = ImageDraw.Draw(img)
                text = f"{policy_name}  seed {seed}  ep {ep + 1}/{episodes}  t {t * dt:4.2f}s  return {total:6.1f}"
                if caption:
                    draw.text((5, 4), text, fill=(255, 255, 255), font=small, stroke_width=2, stroke_fill=(0, 0, 0))
                if active and caption:
                    speed = max(float(np.hypot(*v)) for _, v in active)
                    draw.text(
                        (5, 4 + small.size + 4),
                        f"SHOVE {speed:.2f} m/s",
                        fill=(255, 60, 40),
                        font=font,
                        stroke_width=2,
                        stroke_fill=(0, 0, 0),
                    )
                    _compass(draw, renderer.scene.camera[0], [v for _, v in active], width, small)
                if t > 0 and info["fallen"] and caption:
                    draw.text(
                        (5, height - font.size - 8),
                        "FALLEN",
                        fill=(255, 200, 0),
                        font=font,
                        stroke_width=2,
                        stroke_fill=(0, 0, 0),
                    )
                if new_shove:
                    draw.rectangle([0, 0, width - 1, height - 1], outline=(255, 40, 30), width=max(3, width // 60))
                frames.append(img)
            stats["episodes"].append({"return": total, "fell": fallen_any, "shoves": shoves})
    finally:
        renderer.close()
        if cstate:
            cstate.cenv.close()
    if cstate:
        stats["steps"] += episodes  # the resets were compared too
    return frames, stats


def _compass(draw: Any, glcam: Any, vels: list[np.ndarray], width: int, font: Any) -> None:
    """Draw the shove directions seen from above in a corner: up = away from the camera."""
    fwd = np.array(glcam.forward, dtype=float)
    fwd = np.array([fwd[0], fwd[1], 0.0])
    fwd /= np.linalg.norm(fwd) or 1.0
    right = np.array([fwd[1], -fwd[0], 0.0])  # forward x up: the screen's right, horizontal
    r = max(18, width // 12)
    cx, cy = width - r - 8, r + 8 + font.size
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=(255, 255, 255), width=1)
    draw.text((cx - r, cy - r - font.size - 3), "top view", fill=(255, 255, 255), font=font)
    for vel in vels:
        d = np.array([vel[0], vel[1], 0.0]) / (np.hypot(*vel) or 1.0)
        x, y = float(d @ right), float(d @ fwd)
        tip = (cx + 0.9 * r * x, cy - 0.9 * r * y)
        tail = (cx - 0.9 * r * x, cy + 0.9 * r * y)
        draw.line([tail, tip], fill=(255, 60, 40), width=3)
        side = np.array([-y, -x]) * 0.35 * r  # arrow head
        back = np.array(tip) - 0.45 * r * np.array([x, -y])
        draw.polygon([tip, tuple(back + side), tuple(back - side)], fill=(255, 60, 40))


def _add_arrow(scene: Any, trunk: np.ndarray, vel: np.ndarray) -> None:
    """Add a red arrow to the scene that ends just short of the trunk, pointing along the shove."""
    import mujoco

    if scene.ngeom >= scene.maxgeom:
        return
    speed = float(np.hypot(*vel))
    if speed <= 0:
        return
    direction = np.array([vel[0] / speed, vel[1] / speed, 0.0])
    end = trunk - 0.10 * direction
    start = end - ARROW_M_PER_MPS * speed * direction
    geom = scene.geoms[scene.ngeom]
    mujoco.mjv_initGeom(
        geom,
        mujoco.mjtGeom.mjGEOM_ARROW,
        np.zeros(3),
        np.zeros(3),
        np.eye(3).ravel(),
        np.array([1.0, 0.15, 0.1, 0.9], dtype=np.float32),
    )
    mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_ARROW, 0.02, start, end)
    scene.ngeom += 1


def video_writer(path: Path) -> str:
    """Check that path can be written as a video before any frame is drawn: a .gif (Pillow) or an .mp4
    (ffmpeg on PATH, else imageio-ffmpeg's), in a folder that exists or can be made and is writable;
    return the ffmpeg executable for an .mp4, "" for a .gif; raise ValueError saying what is missing."""
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"--out: write a .gif or an .mp4, got {path.name}")
    writable_file(path, "--out")
    if suffix == ".gif":
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise ValueError("--out: a GIF needs Pillow (pip install pillow, or the sb3 extra)") from None
        return ""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        try:
            import imageio_ffmpeg  # type: ignore[import-not-found]

            ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
        except (ImportError, RuntimeError):
            raise ValueError(
                "--out: MP4 needs ffmpeg on PATH or the imageio-ffmpeg package "
                "(pip install imageio-ffmpeg); a .gif needs nothing extra"
            ) from None
    return ffmpeg


def write_video(frames: list[Any], path: Path, fps: float, ffmpeg: str | None = None) -> None:
    """Write frames to a .gif (Pillow) or .mp4 (ffmpeg: video_writer's, found again when not given)."""
    ffmpeg = video_writer(path) if ffmpeg is None else ffmpeg
    if path.suffix.lower() == ".gif":
        frames[0].save(
            path, save_all=True, append_images=frames[1:], duration=round(1000 / fps), loop=0, optimize=False
        )
        return
    w, h = frames[0].size
    cmd = [
        ffmpeg,
        "-y",
        "-loglevel",
        "error",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-s",
        f"{w}x{h}",
        "-r",
        f"{fps:g}",
        "-i",
        "-",
        "-an",
        "-vcodec",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-vf",
        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
        str(path),
    ]
    proc = subprocess.run(
        cmd, input=b"".join(np.asarray(f.convert("RGB")).tobytes() for f in frames), capture_output=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"ffmpeg failed: {proc.stderr.decode(errors='replace').strip()}")


def _video_path(text: str) -> Path:
    """A .gif or .mp4 path that can be written (argparse type of --out)."""
    path = writable_file_arg(text)
    if path.suffix.lower() not in (".gif", ".mp4"):
        raise argparse.ArgumentTypeError(f"write a .gif or an .mp4, got {path.name}")
    return path


def _camera(text: str) -> int | str:
    """A camera id (digits, or -1 for the free camera) or a camera's name (argparse type of --camera)."""
    text = text.strip()
    if not text:
        raise argparse.ArgumentTypeError("expected a camera id or name")
    return int(text) if text.lstrip("-").isdigit() else text


def build_parser() -> argparse.ArgumentParser:
    """Return render's argument parser: every value is checked as it is parsed (one line, exit status 2)."""
    from .train import task_option_help

    p = Parser(
        prog="python -m mdvec render",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="task options (-o NAME=VALUE, repeatable; defaults shown):\n" + task_option_help(),
    )
    p.add_argument(
        "--policy",
        type=policy_path,
        required=True,
        help="an SB3 PPO zip (train's policy.zip or a checkpoint), or hold-pose",
    )
    p.add_argument("--out", type=_video_path, required=True, help="video file: .gif (Pillow) or .mp4 (ffmpeg)")
    p.add_argument("--seed", type=seed_int(SEED_MAX), default=0, help="env seed (default %(default)s)")
    add_task_option(p, help="task (default: the policy's training env, else the duck)")
    p.add_argument(
        "--camera",
        type=_camera,
        default=None,
        help="a task other than the duck: the model's camera to draw through, an id or a name (default: a "
        "Gymnasium task's reference camera, its DEFAULT_CAMERA_CONFIG; a Control Suite task's camera 0; else a "
        "camera tracking the body)",
    )
    p.add_argument("--episodes", type=positive_int, default=1, help="episodes, back to back (default %(default)s)")
    p.add_argument("--width", type=int_in(1, 8192), default=320, help="pixels, in [1, 8192] (default %(default)s)")
    p.add_argument("--height", type=int_in(1, 8192), default=240, help="pixels, in [1, 8192] (default %(default)s)")
    p.add_argument(
        "--fps",
        type=positive_int,
        default=None,
        help="frames per second of sim time, played in real time (default: an .mp4 the task's render_fps, "
        "round(1 / dt): a frame per step, as Gymnasium's RecordVideo; a .gif 25, as browsers slow GIF frames "
        "shorter than 20 ms down)",
    )
    p.add_argument(
        "--no-caption",
        dest="caption",
        action="store_false",
        help="draw no text on the frames (a Gymnasium task's frames are then its reference's, byte for byte)",
    )
    p.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="task option (default: the policy's training options)",
    )
    p.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        default=None,
        help="built-in duck model variant (default: the training one)",
    )
    p.add_argument(
        "--source",
        choices=("auto", "mdvec", "reference"),
        default="auto",
        help="whose state to draw: the C env (checked against the reference) or the reference "
        "(default auto: mdvec when libmdvec loads)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    from .evaluate import hold_pose, load_policy, policy_setup
    from .train import DUCK, require_sb3

    try:
        args = build_parser().parse_args(argv)
    except ArgumentRefused:  # its one line is printed
        return 2
    try:
        out = Path(args.out)
        ffmpeg = video_writer(out)  # before any frame is drawn
        fps = args.fps or (None if out.suffix.lower() == ".mp4" else GIF_FPS)  # None: the task's render_fps
        trained = args.policy != "hold-pose"
        saved, env, task = policy_setup(args.policy, args.env, args.option)
        variant = args.variant or (saved.variant if saved else "default")
    except ValueError as exc:
        print(f"render: {exc}", file=sys.stderr)
        return 2
    missing = require_sb3("render") if trained else None  # imports torch: after the checks
    if missing:
        print(missing, file=sys.stderr)
        return 2
    try:
        if env == DUCK:
            policy = load_policy(args.policy) if trained else hold_pose
            name = Path(args.policy).parent.name + "/" + Path(args.policy).stem if trained else "hold-pose"
            source = args.source if args.source != "auto" else "mdvec" if c_env_available() else "reference"
            frames, stats = render_episodes(
                policy,
                name,
                args.seed,
                args.episodes,
                args.width,
                args.height,
                fps,
                variant,
                task,
                source,
                args.caption,
            )
        else:
            task_policy = load_policy(args.policy) if trained else None  # None: zero actions
            name = Path(args.policy).parent.name + "/" + Path(args.policy).stem if trained else "zero actions"
            frames, stats = render_task_episodes(
                task_policy,
                name,
                env,
                args.seed,
                args.episodes,
                args.width,
                args.height,
                fps,
                task,
                args.camera,
                args.caption,
            )
        write_video(frames, out, stats["fps"], ffmpeg)
    except NoGLError as exc:
        print(str(exc), file=sys.stderr)
        return 3
    except ValueError as exc:
        print(f"render: {exc}", file=sys.stderr)
        return 2
    for k, ep in enumerate(stats["episodes"]):
        if "shoves" not in ep:  # a task other than the duck
            print(
                f"episode {k + 1}: return {ep['return']:.1f}, {ep['steps']} steps, "
                f"{'terminated' if ep['terminated'] else 'truncated'}"
            )
            continue
        shoves = ", ".join(f"step {s['step']} {s['speed']:.2f} m/s" for s in ep["shoves"])
        print(f"episode {k + 1}: return {ep['return']:.1f}, {'fell' if ep['fell'] else 'stayed up'}; shoves: {shoves}")
    if env != DUCK:
        print("drawn from the C env's state")
    elif stats["source"] == "mdvec":
        same = stats["c_equal_steps"] == stats["steps"]
        print(
            f"drawn from the C env's state; C env and reference: {stats['c_equal_steps']}/{stats['steps']} "
            f"observations and rewards bit-identical" + ("" if same else "  (NOT EQUAL)")
        )
    else:
        print("drawn from the reference env's state")
    print(f"wrote {out}: {len(frames)} frames at {stats['fps']:g} fps, {args.width}x{args.height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
