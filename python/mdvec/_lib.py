"""ctypes declarations of libmdvec's C ABI (libmdvec/include/mdvec.h), and finding the library."""

from __future__ import annotations

import ctypes
import os
from ctypes import POINTER, c_char, c_char_p, c_double, c_float, c_int, c_int64, c_size_t, c_uint8, c_uint64, c_void_p
from pathlib import Path

ABI_MAJOR = 1  # the header's MDVEC_VERSION_MAJOR this binding was written for

OK = 0
ERR_ACTION = -7


class Config(ctypes.Structure):
    """mdvec_config_t: how to build a vector of envs."""

    _fields_ = [
        ("struct_size", c_size_t), ("num_envs", c_int), ("threads", c_int), ("allow_overcommit", c_int),
        ("autoreset", c_int), ("seed", c_uint64), ("variant", c_char_p), ("model_path", c_char_p),
        ("substeps", c_int), ("episode_len", c_int), ("action_scale", c_double), ("n_pushes", c_int),
        ("push_window", c_int * 2), ("push_speed", c_double * 2), ("init_noise", c_double),
        ("latency", c_int), ("sensor_noise", c_int), ("reward", c_int), ("dr", c_int),
        ("task", c_char_p), ("options", c_void_p), ("n_options", c_int),  # 1.1
    ]


class Dims(ctypes.Structure):
    """mdvec_dims_t: sizes of the handle's buffers."""

    _fields_ = [("struct_size", c_size_t), ("num_envs", c_int), ("threads", c_int), ("nu", c_int),
                ("obs_dim", c_int), ("n_info", c_int), ("nbody", c_int), ("n_pushes", c_int),
                ("max_latency", c_int)]


class Params(ctypes.Structure):
    """mdvec_params_t: what one reset draws."""

    _fields_ = [
        ("struct_size", c_size_t), ("init_noise", c_double), ("qpos", POINTER(c_double)),
        ("qvel", POINTER(c_double)), ("n_pushes", c_int), ("push_steps", POINTER(c_int64)),
        ("push_vel", POINTER(c_double)), ("latency", c_int), ("noise_scale", c_double), ("has_dr", c_int),
        ("servo", c_double * 5), ("mass_scale", POINTER(c_double)), ("floor_friction", c_double),
    ]


_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "mdvec_version": (c_int, []),
    "mdvec_mujoco_version": (c_int, []),
    "mdvec_strerror": (c_char_p, [c_int]),
    "mdvec_config_default": (None, [POINTER(Config)]),  # fills the 1.0 layout only
    "mdvec_config_init": (c_int, [POINTER(Config), c_size_t]),
    "mdvec_create": (c_int, [POINTER(c_void_p), POINTER(Config), POINTER(c_char), c_size_t]),
    "mdvec_destroy": (None, [c_void_p]),
    "mdvec_errmsg": (c_char_p, [c_void_p]),
    "mdvec_dims": (c_int, [c_void_p, POINTER(Dims)]),
    "mdvec_info_name": (c_char_p, [c_void_p, c_int]),
    "mdvec_obs": (POINTER(c_float), [c_void_p]),
    "mdvec_terminal_obs": (POINTER(c_float), [c_void_p]),
    "mdvec_reward": (POINTER(c_double), [c_void_p]),
    "mdvec_done": (POINTER(c_uint8), [c_void_p]),
    "mdvec_info": (POINTER(c_double), [c_void_p]),
    "mdvec_seed": (c_int, [c_void_p, c_uint64]),
    "mdvec_reset": (c_int, [c_void_p]),
    "mdvec_reset_with_params": (c_int, [c_void_p, c_int, POINTER(Params)]),
    "mdvec_step": (c_int, [c_void_p, c_void_p]),  # actions by address: (N x nu) C-contiguous float64
}


def candidates() -> list[Path]:
    """Return where the library is looked for, in order: $MDVEC_LIB, the package, build folders."""
    here = Path(__file__).resolve().parent
    found = []
    if os.environ.get("MDVEC_LIB"):
        found.append(Path(os.environ["MDVEC_LIB"]))
    found += sorted(here.glob("libmdvec.so*"))
    for build in sorted(here.parents[1].glob("build*")):
        found += sorted((build / "libmdvec").glob("libmdvec.so*"))
    return found


def load() -> ctypes.CDLL:
    """Load libmdvec, declare every function, and check the ABI version and struct sizes."""
    paths = candidates()
    if not paths:
        raise ImportError("mdvec: libmdvec not found; build it (meson setup build && ninja -C build), "
                          "install the package (pip install .), or set MDVEC_LIB to its path")
    lib = ctypes.CDLL(str(paths[0]))
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    if lib.mdvec_version() // 10000 != ABI_MAJOR:
        raise ImportError(f"mdvec: {paths[0]} has ABI version {lib.mdvec_version()}, this binding needs major {ABI_MAJOR}")
    probe = Config()
    if lib.mdvec_config_init(ctypes.byref(probe), ctypes.sizeof(Config)) != OK or \
            probe.struct_size != ctypes.sizeof(Config):
        raise ImportError(f"mdvec: {paths[0]} has sizeof(mdvec_config_t) {probe.struct_size}, "
                          f"this binding declares {ctypes.sizeof(Config)}")
    lib.path = paths[0]
    return lib
