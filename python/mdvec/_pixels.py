"""Pixel observations drawn by libmdvec on its worker threads (mdvec.h, "1.4: pixel observations").

The library takes six named options besides each task's own: ``obs_mode`` ("state", "pixels" or
"state+pixels"), ``width``, ``height``, ``camera`` (an id, -1 the free camera, or a name; None: the task's
reference's default camera), ``frame_stack`` and ``gymnasium`` ("1.4" or "1.2": the rules of Gymnasium's
MujocoEnv renderer a v5 task's frames follow, its default camera and offscreen buffer; ``VecEnv`` passes the
installed Gymnasium's, ``mdvec._gl.gymnasium_render_rules``). This module splits them from a task's options, turns them
into the library's text, and maps the frames as zero-copy numpy views (N, [frame_stack,] height, width, 3)
uint8. The library loads EGL itself when asked for frames; importing mdvec needs no GL.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _lib

NAMES = ("obs_mode", "width", "height", "camera", "frame_stack", "gymnasium")  # mdvec_pixel_option's names
OBS_MODES = ("state", "pixels", "state+pixels")  # MDVEC_OBS_STATE, _PIXELS, _STATE_PIXELS
GYMNASIUM_RULES = ("1.4", "1.2")  # the Gymnasium MujocoEnv renderer rules a v5 task's frames follow
MAX_SIDE = 16384  # the option's bound (the GL limit, checked by the library, may be lower)


@dataclass(frozen=True)
class PixelSpec:
    """The frames of a handle: ``obs_mode``, frame ``width`` and ``height``, ``frame_stack`` (frames per env,
    oldest first), ``camera_id`` (the camera drawn: -1 the free camera), ``renderer`` (GL_RENDERER), and
    ``shape``, one env's observation shape: (height, width, 3), or (frame_stack, height, width, 3) when
    frame_stack > 1 (Gymnasium's FrameStackObservation's)."""

    obs_mode: str
    width: int
    height: int
    frame_stack: int
    camera_id: int
    renderer: str
    stacked: bool  # whether the stack axis is kept (frame_stack given explicitly, as FrameStackObservation)

    @property
    def shape(self) -> tuple[int, ...]:
        frame = (self.height, self.width, 3)
        return (self.frame_stack, *frame) if self.stacked else frame


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (pixel options, the other options) of a VecEnv's keywords; a pixel option given as None is left
    out (its default)."""
    pixels = {k: v for k, v in options.items() if k in NAMES and v is not None}
    return pixels, {k: v for k, v in options.items() if k not in NAMES}


def option_texts(pixels: dict[str, Any]) -> list[tuple[str, str, int]]:
    """Return (name, text, MDVEC_VALUE_*) of each pixel option for the library's cfg.options; raise TypeError
    or ValueError naming a bad one (the library checks bounds and cameras again)."""
    out = []
    for name, value in pixels.items():
        if name in ("obs_mode", "gymnasium"):
            choices = OBS_MODES if name == "obs_mode" else GYMNASIUM_RULES
            if not isinstance(value, str) or value not in choices:
                raise ValueError(f"{name}: expected one of {', '.join(map(repr, choices))}, got {value!r}")
            out.append((name, value, _lib.VALUE_TEXT))
        elif name == "camera":
            if _is_int(value):
                out.append((name, str(int(value)), _lib.VALUE_INT))
            elif isinstance(value, str) and "\0" not in value:
                out.append((name, value, _lib.VALUE_STR))
            else:
                raise TypeError(f"camera: expected None, a camera id (int) or a camera name (str), got {value!r}")
        else:  # width, height, frame_stack
            if not _is_int(value):
                raise TypeError(f"{name}: expected a positive integer, got {type(value).__name__} {value!r}")
            hi = 1024 if name == "frame_stack" else MAX_SIDE
            if not 1 <= int(value) <= hi:
                raise ValueError(f"{name}: must be an integer in [1, {hi}], got {value!r}")
            out.append((name, str(int(value)), _lib.VALUE_TEXT))
    return out


def has_pixels(lib: ctypes.CDLL) -> bool:
    """Whether the loaded library draws pixel observations (1.4)."""
    return hasattr(lib, "mdvec_pixels_info")


def pixel_spec(lib: ctypes.CDLL, handle: Any, stacked: bool) -> PixelSpec | None:
    """Return the handle's PixelSpec, or None for obs_mode "state" (or a library without pixels)."""
    if not has_pixels(lib):
        return None
    info = _lib.PixelsInfo(struct_size=ctypes.sizeof(_lib.PixelsInfo))
    if lib.mdvec_pixels_info(handle, ctypes.byref(info)) != _lib.OK or info.obs_mode == 0:
        return None
    renderer = info.renderer.decode(errors="replace") if info.renderer else ""
    return PixelSpec(
        OBS_MODES[info.obs_mode],
        int(info.width),
        int(info.height),
        int(info.frame_stack),
        int(info.camera_id),
        renderer,
        stacked or info.frame_stack > 1,
    )
