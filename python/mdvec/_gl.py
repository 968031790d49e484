"""One place that makes mujoco.Renderer for mdvec: the OpenGL backend picked so that headless machines
render, and a failure remembered, never retried.

mujoco chooses its GL context class from MUJOCO_GL when it is imported (GLFW when unset). On a machine
without a display GLFW cannot start, and mujoco cannot survive a second try in the same process (the
second ``mujoco.Renderer`` aborts it: ``__cxa_guard_acquire detected recursive initialization``). So:

* with MUJOCO_GL unset and no display (no DISPLAY or WAYLAND_DISPLAY), EGL's context class is put in
  GLFW's place, as ``MUJOCO_GL=egl`` would have done: rendering just works headless;
* the first failure to make a context is remembered for the process (it is a fact about the process's
  GL, not about one env) and raised again, as :class:`NoGLError`, on every later attempt.
"""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any


class NoGLError(RuntimeError):
    """No OpenGL context could be made for rendering."""


MAX_SIZE = 16384  # pixels per side: the largest framebuffer OpenGL implementations commonly allow
_failure: list[str] = []  # the process's first GL failure (mujoco cannot retry one); empty: none yet


@functools.cache
def gymnasium_offscreen_grows() -> bool:
    """Whether the installed Gymnasium's ``MujocoEnv._initialize_simulation`` only grows the model's offscreen
    buffer to the render size (1.4: ``max(XML's, width)``) or sets it to the render size (1.2.2: ``= width``).
    MuJoCo's picture depends on that buffer, so frames equal to Gymnasium's follow the installed rule."""
    try:
        from gymnasium.envs.mujoco.mujoco_env import MujocoEnv

        source = inspect.getsource(MujocoEnv._initialize_simulation)
    except Exception:  # noqa: BLE001 - no Gymnasium MuJoCo (DependencyNotInstalled is no ImportError), no source
        return True
    return "max(" in source


@functools.cache
def gymnasium_track_camera() -> bool:
    """Whether the installed Gymnasium's ``MujocoRenderer``, given no camera, draws through the model's camera
    "track" when the model has one (Gymnasium 1.0 - 1.3) rather than the free camera with the env's
    ``default_camera_config`` (1.4). Asked of MujocoRenderer itself, on a one-camera model (no GL is made)."""
    try:
        import mujoco
        from gymnasium.envs.mujoco.mujoco_rendering import MujocoRenderer
    except Exception:  # noqa: BLE001 - no Gymnasium MuJoCo rendering here: the current rule
        return False
    model = mujoco.MjModel.from_xml_string('<mujoco><worldbody><camera name="track"/></worldbody></mujoco>')
    return int(MujocoRenderer(model, None, width=1, height=1).camera_id) == 0


def gymnasium_render_rules() -> str:
    """The pixel option ``gymnasium`` that draws as the installed Gymnasium's MujocoEnv: "1.4" (the buffer grown,
    the free camera), or "1.2" (Gymnasium 1.0 - 1.3: the buffer of the frame's size, the camera "track")."""
    return "1.4" if gymnasium_offscreen_grows() and not gymnasium_track_camera() else "1.2"


def grow_offscreen(model: Any, width: int, height: int, gymnasium_rule: bool = True) -> None:
    """Size a model's offscreen framebuffer for width x height: with ``gymnasium_rule`` (a task whose reference is
    Gymnasium's MujocoEnv) as the installed Gymnasium does at construction, grown and never shrunk (Gymnasium 1.4)
    or set to the render size (Gymnasium 1.2.2); otherwise grown (mdvec's own references, mujoco.Renderer)."""
    if not gymnasium_rule or gymnasium_offscreen_grows():
        model.vis.global_.offwidth = max(model.vis.global_.offwidth, int(width))
        model.vis.global_.offheight = max(model.vis.global_.offheight, int(height))
    else:
        model.vis.global_.offwidth = int(width)
        model.vis.global_.offheight = int(height)


def _hint(backend: str, exc: BaseException) -> str:
    return (
        f"render: no OpenGL context could be made with MUJOCO_GL={backend} ({type(exc).__name__}: {exc}). "
        "Rendering needs one of: EGL (libEGL from the GPU driver or Mesa, e.g. apt install libegl1 libgl1; "
        "used when MUJOCO_GL is unset and there is no display), MUJOCO_GL=osmesa (libOSMesa), or "
        "MUJOCO_GL=glfw with a display. The environment was not changed."
    )


def has_display() -> bool:
    """Whether a display server is named in the environment."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def select_gl(headless_only: bool = True) -> str:
    """Make mujoco.Renderer use EGL when MUJOCO_GL is unset (and, with headless_only, no display is
    named); return the backend's name."""
    chosen = os.environ.get("MUJOCO_GL", "").strip().lower()
    if chosen:
        return chosen
    if headless_only and has_display():
        return "glfw"
    os.environ["MUJOCO_GL"] = "egl"
    try:
        import mujoco.egl
        from mujoco.rendering.classic import gl_context
    except Exception as exc:  # any failure here means no EGL
        _failure.append(_hint("egl", exc))
        raise NoGLError(_failure[0]) from exc
    gl_context.GLContext = mujoco.egl.GLContext
    return "egl"


def make_renderer(model: Any, width: int, height: int, headless_only: bool = True) -> Any:
    """Return a mujoco.Renderer of width x height for model (its offscreen buffer enlarged to fit), or
    raise NoGLError saying what to install or set; after one failure every call raises it again."""
    import mujoco

    for name, value in (("width", width), ("height", height)):
        if not 0 < int(value) <= MAX_SIZE:
            raise ValueError(f"{name}: must be in [1, {MAX_SIZE}] pixels, got {value!r}")
    if _failure:
        raise NoGLError(_failure[0] + " (remembered from this process's first attempt: mujoco cannot retry)")
    backend = select_gl(headless_only)
    model.vis.global_.offwidth = max(int(width), model.vis.global_.offwidth)
    model.vis.global_.offheight = max(int(height), model.vis.global_.offheight)
    try:
        return mujoco.Renderer(model, height=int(height), width=int(width))
    except Exception as exc:  # GL failures come as many types
        _failure.append(_hint(backend, exc))
        raise NoGLError(_failure[0]) from exc


def make_context(width: int, height: int, headless_only: bool = True) -> Any:
    """Return a current OpenGL context (mujoco's GLContext of the backend ``select_gl`` picks) for off-screen
    frames of up to width x height, as Gymnasium's OffScreenViewer makes one; or raise NoGLError as
    ``make_renderer`` does (a failure is remembered for the process)."""
    for name, value in (("width", width), ("height", height)):
        if not 0 < int(value) <= MAX_SIZE:
            raise ValueError(f"{name}: must be in [1, {MAX_SIZE}] pixels, got {value!r}")
    if _failure:
        raise NoGLError(_failure[0] + " (remembered from this process's first attempt: mujoco cannot retry)")
    backend = select_gl(headless_only)
    try:
        from mujoco.rendering.classic import gl_context

        context = gl_context.GLContext(int(width), int(height))
        context.make_current()
    except Exception as exc:  # GL failures come as many types
        _failure.append(_hint(backend, exc))
        raise NoGLError(_failure[0]) from exc
    return context
