"""Rendering that never aborts (issue 19): EGL picked headless, a GL failure remembered instead of retried
(mujoco aborts the process on a second try), frames larger than a model's offscreen buffer, and the video
writer checked before any frame is drawn. GL scenarios run in a fresh interpreter (mujoco picks its GL
class at import, and a crash must not take pytest with it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODEL = """<mujoco><worldbody><light pos="0 0 3"/><geom type="plane" size="2 2 .1"/>
<body pos="0 0 .5"><freejoint/><geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>"""


def _run(code: str, **env_changes: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    script = f"import mujoco\nMODEL = {MODEL!r}\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)


def test_a_failed_context_is_raised_again_not_retried() -> None:
    """MUJOCO_GL=glfw without a display: every render raises the same clear RuntimeError; before the fix the
    second one (any env) killed the process with SIGABRT."""
    out = _run(
        """
        from mdvec._gl import make_renderer  # what every renderer of mdvec (adapters, CLI) is made by
        m = mujoco.MjModel.from_xml_string(MODEL)
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        seen = []
        for k in range(3):
            try:
                make_renderer(m, 64, 48)
            except RuntimeError as exc:
                seen.append(str(exc))
        assert len(seen) == 3, seen
        assert "MUJOCO_GL=glfw" in seen[0] and "remembered" in seen[1] and "remembered" in seen[2], seen
        print("RAISED_3_TIMES")
    """,
        MUJOCO_GL="glfw",
        DISPLAY=None,
        WAYLAND_DISPLAY=None,
    )
    assert out.returncode == 0 and "RAISED_3_TIMES" in out.stdout, (out.returncode, out.stdout, out.stderr[-2000:])


def test_headless_without_mujoco_gl_renders_with_egl() -> None:
    out = _run(
        """
        import os
        from mdvec._gl import make_renderer
        m = mujoco.MjModel.from_xml_string(MODEL)
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        try:
            r = make_renderer(m, 800, 600)  # larger than the model's 640x480 offscreen buffer
            r.update_scene(d)
            f = r.render()
        except RuntimeError as exc:
            print("NOGL", exc)
        else:
            assert f.shape == (600, 800, 3) and f.std() > 0, f.shape
            print("RENDERED", os.environ["MUJOCO_GL"])
    """,
        MUJOCO_GL=None,
        DISPLAY=None,
        WAYLAND_DISPLAY=None,
    )
    if "NOGL" in out.stdout:
        pytest.skip(f"no EGL here: {out.stdout.strip()[:300]}")
    assert "RENDERED egl" in out.stdout, (out.stdout, out.stderr[-2000:])


def test_render_cli_800x600(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """render --width 800 --height 600: the duck's 640x480 offscreen buffer is enlarged to fit."""
    from mdvec.tools import render

    pytest.importorskip("PIL", reason="GIFs are written with Pillow (the sb3 extra's matplotlib brings it)")
    out = tmp_path / "big.gif"
    code = render.main(
        [
            "--policy",
            "hold-pose",
            "--out",
            str(out),
            "--width",
            "800",
            "--height",
            "600",
            "--fps",
            "10",
            "-o",
            "episode_len=5",
            "-o",
            "push_window=1,4",
            "--source",
            "reference",
        ]
    )
    if code == 3:
        pytest.skip("no OpenGL context for rendering here: " + capsys.readouterr().err)
    assert code == 0, capsys.readouterr().err
    from PIL import Image

    with Image.open(out) as im:
        assert im.size == (800, 600)


def test_mp4_without_ffmpeg_fails_before_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mdvec.tools import render

    monkeypatch.setattr(render.shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # import fails

    def no_frames(*args: object, **kwargs: object) -> None:
        raise AssertionError("frames were rendered before the writer was checked")

    monkeypatch.setattr(render, "render_episodes", no_frames)
    t0 = time.perf_counter()
    assert render.main(["--policy", "hold-pose", "--out", str(tmp_path / "x.mp4")]) == 2
    assert "MP4 needs ffmpeg" in capsys.readouterr().err and time.perf_counter() - t0 < 30
    assert not (tmp_path / "x.mp4").exists()


@pytest.mark.parametrize("where", ["file", "unwritable"])
def test_render_out_checked_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    from mdvec.tools import render

    monkeypatch.setattr(render, "render_episodes", lambda *a, **k: (_ for _ in ()).throw(AssertionError("rendered")))
    if where == "file":
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "x.gif"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only folders")
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        out = ro / "x.gif"
    assert render.main(["--policy", "hold-pose", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err, err


def test_rendering_halfcheetah_writes_no_mujoco_log(tmp_path: Path) -> None:
    """Gymnasium's half_cheetah.xml makes MuJoCo warn when Python loads it for drawing: the warning must not
    land in ./MUJOCO_LOG.TXT (before: it did)."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    code = """
        import gymnasium, mdvec.gym
        env = gymnasium.make("mdvec/HalfCheetah-v5", render_mode="rgb_array", width=32, height=24)
        env.reset(seed=0)
        try:
            env.render()
        except RuntimeError as exc:
            print("NOGL", exc)
        env.close()
        print("DONE")
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    if "No module named" in out.stderr and "imageio" in out.stderr:
        pytest.skip("Gymnasium's MuJoCo envs need gymnasium[mujoco]")
    assert "DONE" in out.stdout, out.stderr[-2000:]
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())


def test_render_a_gymnasium_task_with_the_zero_action_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """render --policy hold-pose --env Hopper-v5: the baseline (all-zero actions) drawn from the C env."""
    from mdvec.gym_tasks import gymnasium_mujoco_unavailable
    from mdvec.tools import render

    pytest.importorskip("PIL", reason="GIFs are written with Pillow (the sb3 extra's matplotlib brings it)")
    if gymnasium_mujoco_unavailable():
        pytest.skip(gymnasium_mujoco_unavailable())
    gif = tmp_path / "hopper.gif"
    code = render.main(
        [
            "--policy",
            "hold-pose",
            "--env",
            "Hopper-v5",
            "--out",
            str(gif),
            "--width",
            "48",
            "--height",
            "32",
            "--fps",
            "25",
            "-o",
            "max_episode_steps=10",
        ]
    )
    if code == 3:
        pytest.skip("no OpenGL context for rendering here: " + capsys.readouterr().err)
    printed = capsys.readouterr().out
    assert code == 0 and "episode 1: return" in printed and "10 steps, truncated" in printed, printed
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (48, 32) and im.n_frames >= 2


def test_a_string_model_task_renders_on_its_reference_model(tmp_path: Path) -> None:
    """cartpole_swingup's model is an MJCF string inside libmdvec (no file): mdvec.gym's C backend draws its
    state on the reference's model (before: ValueError, "runs a built-in model with no file"), and the frames
    follow the state (the cart driven to one side moves in the picture)."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    code = """
        import gymnasium, numpy as np, mdvec, mdvec.gym
        from mdvec._shared import load_model
        from mdvec.reference.cartpole_swingup import CartPoleSwingup
        with mdvec.VecEnv(1, task="cartpole_swingup") as venv:
            model = load_model(venv)
            print("SIZES", (model.nq, model.nv, model.nu) == (venv.spec.nq, venv.spec.nv, venv.nu),
                  model.opt.timestep == CartPoleSwingup().model.opt.timestep)
        env = gymnasium.make("mdvec/cartpole_swingup", render_mode="rgb_array", width=64, height=48)
        env.reset(seed=0)
        try:
            first = env.render()
        except RuntimeError as exc:
            print("NOGL", exc)
            raise SystemExit
        for _ in range(20):
            env.step(np.ones(1, np.float32))
        last = env.render()
        print("FRAMES", first.shape, first.max() > 0, not np.array_equal(first, last))
        env.close()
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert "SIZES True True" in out.stdout, out.stdout + out.stderr[-2000:]
    if "NOGL" in out.stdout:
        pytest.skip(f"no OpenGL context for rendering here: {out.stdout.strip()[:300]}")
    assert "FRAMES (48, 64, 3) True True" in out.stdout, out.stdout + out.stderr[-2000:]
