"""The duck task's Python pieces for the binding: option checks as the reference does them
(``TaskConfig``), the v1 ``variant``/``model`` arguments, the built-in model path, and the packing of
``EpisodeParams`` for ``reset_with_params``. The generic binding (vecenv.py) finds them through
``TASK_HOOKS``; nothing here runs on the step path."""

from __future__ import annotations

import ctypes
import numbers
from pathlib import Path
from typing import Any

import numpy as np

from . import _lib
from ._resources import variant_path
from .reference.config import TaskConfig
from .reference.model import resolve_path
from .reference.params import EpisodeParams

TASK = "duck"


def prepare(task: str, variant: str, model: str | Path | None, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Check options as the reference env does (same errors) and return (TaskConfig, options for C).

    ``variant`` and ``model`` (the v1 arguments) become the options ``variant`` and ``model_path``.
    """
    config = TaskConfig.from_kwargs(**options)
    out = dict(options)
    if model is not None and Path(model).exists() and not Path(model).is_file():
        path = Path(model)  # a directory or a FIFO: say so (MuJoCo would read "over 2GB" or block)
        if path.is_dir():
            raise IsADirectoryError(f"model: {path} is a directory, not an MJCF file")
        raise ValueError(f"model: {path} is not a regular file (a FIFO or a device), not an MJCF file")
    if model is not None:
        out["model_path"] = str(resolve_path(variant, model))
    else:
        variant_path(variant)  # unknown variants: the reference's ValueError
        out["variant"] = variant
    return config, out


def builtin_model(options: dict[str, Any]) -> Path:
    """Return the MJCF file of the built-in model the options pick (for rendering)."""
    return variant_path(options.get("variant", "default"))


_INT_MAX = 2**31 - 1  # C int


def _numbers(name: str, value: Any, kinds: str = "iuf") -> np.ndarray:
    """value as an array, refused (TypeError naming the field) unless its dtype kind is in kinds: no
    strings, objects or bools that numpy would convert or ctypes would truncate."""
    arr = np.asarray(value)
    if arr.dtype.kind not in kinds and not (arr.size == 0 and arr.dtype.kind in "iuf"):  # [] is float64
        what = "integers" if kinds == "iu" else "numbers"
        raise TypeError(f"params.{name}: expected {what}, got an array of dtype {arr.dtype}")
    return arr


def _real(name: str, value: Any) -> float:
    """A real scalar as float, refused (TypeError naming the field) for strings, bools and the like."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"params.{name}: expected a number, got {type(value).__name__} {value!r}")
    return float(value)


def pack_params(params: EpisodeParams, dims: _lib.Dims) -> tuple[_lib.Params, list[np.ndarray]]:
    """Return mdvec_params_t for params and the arrays it points into (keep them alive over the call).

    Types and C ranges are checked here, before ctypes could convert or truncate anything (a latency of
    2**32 + 1 or 1.5, a qpos of strings, push steps of floats); values are checked by the library."""
    nu, nbody = dims.nu, dims.nbody
    latency = params.latency
    if not isinstance(latency, numbers.Integral) or isinstance(latency, (bool, np.bool_)):
        raise TypeError(f"params.latency: expected an integer, got {type(latency).__name__} {latency!r}")
    if not 0 <= int(latency) <= _INT_MAX:
        raise ValueError(f"params.latency: must be in [0, {dims.max_latency}], got {latency!r}")
    keep = [
        np.require(_numbers("qpos", params.qpos), np.float64, ["C", "A"]),  # C-contiguous and aligned
        np.require(_numbers("qvel", params.qvel), np.float64, ["C", "A"]),
        np.require(_numbers("push_steps", params.push_steps, "iu"), np.int64, ["C", "A"]),
        np.require(_numbers("push_vel", params.push_vel), np.float64, ["C", "A"]),
    ]
    for name, arr in (("qpos", keep[0]), ("qvel", keep[1])):
        if arr.size != nu:
            raise ValueError(f"params.{name}: expected shape ({nu},), got {arr.shape}")
    if keep[2].size > _INT_MAX or keep[3].size != 2 * keep[2].size:
        raise ValueError(f"params.push_vel: expected shape ({keep[2].size}, 2), got {keep[3].shape}")
    dbl = ctypes.POINTER(ctypes.c_double)
    p = _lib.Params(
        struct_size=ctypes.sizeof(_lib.Params),
        init_noise=_real("init_noise", params.init_noise),
        qpos=keep[0].ctypes.data_as(dbl),
        qvel=keep[1].ctypes.data_as(dbl),
        n_pushes=keep[2].size,
        push_steps=keep[2].ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
        push_vel=keep[3].ctypes.data_as(dbl),
        latency=int(latency),
        noise_scale=_real("noise_scale", params.noise_scale),
        has_dr=params.dr is not None,
    )
    if params.dr is not None:
        servo = _numbers("dr.servo", params.dr.servo).astype(np.float64)
        mass = np.require(_numbers("dr.mass_scale", params.dr.mass_scale), np.float64, ["C", "A"])
        if servo.shape != (5,) or mass.shape != (nbody - 1,):
            raise ValueError(
                f"params.dr: expected servo (5,) and mass_scale ({nbody - 1},), got {servo.shape} and {mass.shape}"
            )
        p.servo[:] = servo.tolist()
        p.mass_scale = mass.ctypes.data_as(dbl)
        p.floor_friction = _real("dr.floor_friction", params.dr.floor_friction)
        keep.append(mass)
    return p, keep


def episode_params(reference_env: Any) -> EpisodeParams:
    """Return what the reference env's last reset drew, ready for ``Env.reset_with_params``."""
    if reference_env.params is None:
        raise RuntimeError("episode_params: the reference env has not been reset")
    return reference_env.params
