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

import os
from typing import Any


class NoGLError(RuntimeError):
    """No OpenGL context could be made for rendering."""


MAX_SIZE = 16384  # pixels per side: the largest framebuffer OpenGL implementations commonly allow
_failure: list[str] = []  # the process's first GL failure (mujoco cannot retry one); empty: none yet


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
