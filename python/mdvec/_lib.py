"""ctypes declarations of libmdvec's C ABI (libmdvec/include/mdvec.h), its codes, the one table that maps
result codes to exceptions, and finding the library."""

from __future__ import annotations

import ctypes
import os
from ctypes import (
    POINTER,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint8,
    c_uint64,
    c_void_p,
)
from pathlib import Path

ABI_MAJOR = 1  # the header's MDVEC_VERSION_MAJOR this binding was written for
ABI_MINOR = 3  # the minor version whose calls this binding declares

# Result codes (MDVEC_OK, MDVEC_ERR_*).
OK = 0
ERR_ARG, ERR_CONFIG, ERR_MODEL, ERR_VERSION, ERR_NOMEM, ERR_THREAD = -1, -2, -3, -4, -5, -6
ERR_ACTION, ERR_STATE, ERR_PARAMS, ERR_PHYSICS = -7, -8, -9, -10
ERR_GL = -11  # 1.4: OpenGL (EGL) missing or failed, for pixel observations (the message says what to install)

# Data types (MDVEC_DTYPE_*), info kinds (MDVEC_INFO_*), autoreset modes, option types (MDVEC_OPT_*).
DTYPE_F32, DTYPE_F64, DTYPE_I64, DTYPE_BOOL, DTYPE_ACTION = 1, 2, 3, 4, 5
INFO_STEP, INFO_RESET = 1, 2
AUTORESET = {"disabled": 0, "same_step": 1, "next_step": 2}
ON_ERROR = {"raise": 0, "end_episode": 1}
OPT_INT, OPT_DOUBLE, OPT_BOOL, OPT_STRING, OPT_RANGE, OPT_IRANGE, OPT_CHOICE = 1, 2, 3, 4, 5, 6, 7
# How an option value was given (MDVEC_VALUE_*, 1.3: mdvec_config_t.option_kinds): an index option's int
# (an index) and str (a name) keep their type; other options are text.
VALUE_TEXT, VALUE_INT, VALUE_STR = 0, 1, 2
TASK_NUMPY_DOT = 1  # mdvec_task_flags bit: the task reproduces numpy's float64 dot (cfg.dot: npdot.py)
# The Python type of a reference's single-env value (MDVEC_KIND_*, 1.3): mdvec_spec_t.reward_kind, mdvec_field_t.kind.
KIND_FLOAT, KIND_NUMPY, KIND_INT, KIND_BOOL = 1, 2, 3, 4


class MdvecError(RuntimeError):
    """An error reported by libmdvec; ``code`` is its result code (MDVEC_ERR_*)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class MdvecValueError(MdvecError, ValueError):
    """A libmdvec error about a value the caller gave (also a ValueError)."""


class MdvecMemoryError(MdvecError, MemoryError):
    """libmdvec ran out of memory, or refused sizes that would (also a MemoryError); nothing was leaked."""


# The one table: result code -> exception class (codes not listed: MdvecError).
EXCEPTIONS: dict[int, type[MdvecError]] = {
    ERR_ARG: MdvecValueError,
    ERR_CONFIG: MdvecValueError,
    ERR_MODEL: MdvecValueError,
    ERR_ACTION: MdvecValueError,
    ERR_PARAMS: MdvecValueError,
    ERR_VERSION: MdvecError,
    ERR_NOMEM: MdvecMemoryError,
    ERR_THREAD: MdvecError,
    ERR_STATE: MdvecError,
    ERR_PHYSICS: MdvecError,
    ERR_GL: MdvecError,
}


def error(code: int, message: str) -> MdvecError:
    """Return the exception for a result code and its message."""
    return EXCEPTIONS.get(code, MdvecError)(code, message)


class Option(ctypes.Structure):
    """mdvec_option_t: one task option by name, its value as text."""

    _fields_ = [("name", c_char_p), ("value", c_char_p)]


class Config(ctypes.Structure):
    """mdvec_config_t: how to build a vector of envs."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("num_envs", c_int),
        ("threads", c_int),
        ("allow_overcommit", c_int),
        ("autoreset", c_int),
        ("seed", c_uint64),
        ("variant", c_char_p),
        ("model_path", c_char_p),
        ("substeps", c_int),
        ("episode_len", c_int),
        ("action_scale", c_double),
        ("n_pushes", c_int),
        ("push_window", c_int * 2),
        ("push_speed", c_double * 2),
        ("init_noise", c_double),
        ("latency", c_int),
        ("sensor_noise", c_int),
        ("reward", c_int),
        ("dr", c_int),
        ("task", c_char_p),
        ("options", POINTER(Option)),
        ("n_options", c_int),  # 1.1
        ("on_error", c_int),  # 1.1, in what was the struct's end padding
        ("dot", c_int),
        ("ddot", c_void_p),
        ("ddot64", c_void_p),  # 1.2 (function pointers by address)
        ("option_kinds", POINTER(c_int)),  # 1.3: MDVEC_VALUE_* per option (NULL: all text)
        ("dgemv", c_void_p),
        ("dgemv64", c_void_p),  # 1.4: numpy's cblas_dgemv for np.dot of a vector and a matrix (by address)
    ]


class Dims(ctypes.Structure):
    """mdvec_dims_t: sizes of the handle's buffers."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("num_envs", c_int),
        ("threads", c_int),
        ("nu", c_int),
        ("obs_dim", c_int),
        ("n_info", c_int),
        ("nbody", c_int),
        ("n_pushes", c_int),
        ("max_latency", c_int),
    ]


class Params(ctypes.Structure):
    """mdvec_params_t: what one reset of the default task draws."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("init_noise", c_double),
        ("qpos", POINTER(c_double)),
        ("qvel", POINTER(c_double)),
        ("n_pushes", c_int),
        ("push_steps", POINTER(c_int64)),
        ("push_vel", POINTER(c_double)),
        ("latency", c_int),
        ("noise_scale", c_double),
        ("has_dr", c_int),
        ("servo", c_double * 5),
        ("mass_scale", POINTER(c_double)),
        ("floor_friction", c_double),
    ]


class OptionInfo(ctypes.Structure):
    """mdvec_option_info_t: one declared option of a task."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("type", c_int),
        ("default", c_char_p),
        ("lo", c_double),
        ("hi", c_double),
        ("choices", c_char_p),
        ("help", c_char_p),
    ]


class Constant(ctypes.Structure):
    """mdvec_constant_t: one named table of a task's constants."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("count", c_int),
        ("values", POINTER(c_double)),
        ("help", c_char_p),
    ]


class Spec(ctypes.Structure):
    """mdvec_spec_t: what a handle runs."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("task", c_char_p),
        ("num_envs", c_int),
        ("threads", c_int),
        ("obs_dim", c_int),
        ("obs_dtype", c_int),
        ("act_dim", c_int),
        ("n_info", c_int),
        ("max_episode_steps", c_int),
        ("nq", c_int),
        ("nv", c_int),
        ("autoreset", c_int),
        ("model_path", c_char_p),
        ("dt", c_double),
        ("reward_kind", c_int),  # 1.3
        ("obs_layout", c_char_p),  # 1.4: the observation's parts "name(rows),name(rows,cols),name()"; NULL: none
        ("seed_max", c_uint64),  # 1.4: the largest seed an env accepts (a 1.3 library leaves the caller's value)
    ]


class Field(ctypes.Structure):
    """mdvec_field_t: one info field."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("dtype", c_int),
        ("when", c_int),
        ("kind", c_int),
    ]  # 1.3


class PixelsInfo(ctypes.Structure):
    """mdvec_pixels_info_t (1.4): the frames of a handle (pixel observations)."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("obs_mode", c_int),
        ("width", c_int),
        ("height", c_int),
        ("frame_stack", c_int),
        ("camera_id", c_int),
        ("frame_bytes", c_size_t),
        ("env_bytes", c_size_t),
        ("renderer", c_char_p),
    ]


_U8 = POINTER(c_uint8)
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
    "mdvec_done": (_U8, [c_void_p]),
    "mdvec_info": (POINTER(c_double), [c_void_p]),
    "mdvec_seed": (c_int, [c_void_p, c_uint64]),
    "mdvec_reset": (c_int, [c_void_p]),
    "mdvec_reset_with_params": (c_int, [c_void_p, c_int, POINTER(Params)]),
    "mdvec_step": (c_int, [c_void_p, c_void_p]),  # actions by address: (N x nu) C-contiguous float64
    # 1.1
    "mdvec_task_count": (c_int, []),
    "mdvec_task_name": (c_char_p, [c_int]),
    "mdvec_task_summary": (c_char_p, [c_char_p]),
    "mdvec_task_option_count": (c_int, [c_char_p]),
    "mdvec_task_option": (c_int, [c_char_p, c_int, POINTER(OptionInfo)]),
    "mdvec_task_flags": (c_int, [c_char_p]),  # 1.2
    "mdvec_task_constant_count": (c_int, [c_char_p]),
    "mdvec_task_constant": (c_int, [c_char_p, c_int, POINTER(Constant)]),
    "mdvec_task_meta": (c_char_p, [c_char_p, c_char_p]),  # 1.3
    "mdvec_spec": (c_int, [c_void_p, POINTER(Spec)]),
    "mdvec_action_low": (POINTER(c_double), [c_void_p]),
    "mdvec_action_high": (POINTER(c_double), [c_void_p]),
    "mdvec_info_field": (c_int, [c_void_p, c_int, POINTER(Field)]),
    "mdvec_obs_data": (c_void_p, [c_void_p]),
    "mdvec_final_obs_data": (c_void_p, [c_void_p]),
    "mdvec_terminated": (_U8, [c_void_p]),
    "mdvec_truncated": (_U8, [c_void_p]),
    "mdvec_reset_flags": (_U8, [c_void_p]),
    "mdvec_reset_info": (POINTER(c_double), [c_void_p]),
    "mdvec_error_flags": (_U8, [c_void_p]),
    "mdvec_error_count": (c_uint64, [c_void_p]),
    "mdvec_env_error": (c_char_p, [c_void_p, c_int]),
    "mdvec_warnings": (POINTER(c_uint64), [c_void_p]),
    "mdvec_reset_envs": (c_int, [c_void_p, c_void_p, c_void_p, c_void_p]),  # mask, seeds, has_seed by address
    "mdvec_step_typed": (c_int, [c_void_p, c_void_p, c_int]),  # actions by address, dtype
    "mdvec_state_size": (c_size_t, [c_void_p, c_uint]),
    "mdvec_get_state": (c_int, [c_void_p, c_int, c_uint, c_void_p, c_size_t]),
}

# 1.4's state in and out (docs/state.md), declared when the library has them (a 1.3 library has not: the
# calls then raise, saying so). Buffers by address.
_SIGNATURES_14: dict[str, tuple[object, list[object]]] = {
    "mdvec_set_state": (c_int, [c_void_p, c_int, c_uint, c_void_p, c_size_t]),
    "mdvec_copy_data": (c_int, [c_void_p, c_int, c_void_p]),
    "mdvec_save_model": (c_int, [c_void_p, c_int, c_void_p, c_size_t, POINTER(c_size_t)]),
    "mdvec_snapshot_size": (c_size_t, [c_void_p]),
    "mdvec_snapshot": (c_int, [c_void_p, c_void_p, c_size_t]),
    "mdvec_restore": (c_int, [c_void_p, c_void_p, c_size_t]),
}


# Calls newer than ABI_MINOR, declared when the library has them (1.4: pixel observations, mdvec._pixels).
_OPTIONAL_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "mdvec_pixel_option_count": (c_int, []),
    "mdvec_pixel_option": (c_int, [c_int, POINTER(OptionInfo)]),
    "mdvec_pixels_info": (c_int, [c_void_p, POINTER(PixelsInfo)]),
    "mdvec_pixels": (c_void_p, [c_void_p]),
    "mdvec_final_pixels": (c_void_p, [c_void_p]),
}


def candidates() -> list[Path]:
    """Return where the library is looked for, in order: $MDVEC_LIB, the package, build folders."""
    here = Path(__file__).resolve().parent
    found = []
    if os.environ.get("MDVEC_LIB"):
        found.append(Path(os.environ["MDVEC_LIB"]))
    found += sorted(here.glob("libmdvec.so*"))
    try:  # a meson-python editable install keeps the library in its build folder; its loader maps it here
        from importlib.resources import files

        found += sorted(
            p
            for p in files(__package__).iterdir()
            if isinstance(p, Path) and p.name.startswith("libmdvec.so") and p.parent != here
        )
    except (ImportError, OSError, TypeError):
        pass
    for build in sorted(here.parents[1].glob("build*")):
        found += sorted((build / "libmdvec").glob("libmdvec.so*"))
    return found


def load() -> ctypes.CDLL:
    """Load libmdvec, declare every function, and check the ABI version and struct sizes."""
    paths = candidates()
    if not paths:
        raise ImportError(
            "mdvec: libmdvec not found; build it (meson setup build && ninja -C build), "
            "install the package (pip install .), or set MDVEC_LIB to its path"
        )
    lib = ctypes.CDLL(str(paths[0]))
    version = lib.mdvec_version()
    if version // 10000 != ABI_MAJOR or version // 100 % 100 < ABI_MINOR:
        raise ImportError(
            f"mdvec: {paths[0]} has ABI version {version}, this binding needs "
            f"{ABI_MAJOR}.{ABI_MINOR} or a later {ABI_MAJOR}.x"
        )
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    for name, (restype, argtypes) in _SIGNATURES_14.items():
        if hasattr(lib, name):  # 1.4
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
    for name, (restype, argtypes) in _OPTIONAL_SIGNATURES.items():  # declared where the library has them
        if hasattr(lib, name):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
    probe = Config()
    if lib.mdvec_config_init(ctypes.byref(probe), ctypes.sizeof(Config)) != OK or probe.struct_size != ctypes.sizeof(
        Config
    ):
        raise ImportError(
            f"mdvec: {paths[0]} refuses sizeof(mdvec_config_t) {ctypes.sizeof(Config)} as this binding declares it"
        )
    for name, (restype, argtypes) in _SIGNATURES_ASYNC.items():
        if hasattr(lib, name):  # 1.4's send/recv
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
    lib.path = paths[0]  # type: ignore[attr-defined]  # the file it came from (mdvec-config, tests)
    return lib


# 1.4's asynchronous send/recv (mdvec.envpool), declared when the library has them. Buffers by address:
# actions (n x act_dim), env_ids (n) int32, seeds (n) uint64, has_seed (n) uint8, env_ids_out (n) int32.
_SIGNATURES_ASYNC: dict[str, tuple[object, list[object]]] = {
    "mdvec_send": (c_int, [c_void_p, c_void_p, c_int, c_void_p, c_int]),
    "mdvec_send_reset": (c_int, [c_void_p, c_void_p, c_int, c_void_p, c_void_p]),
    "mdvec_recv": (c_int, [c_void_p, c_int, c_void_p]),
    "mdvec_in_flight": (c_int, [c_void_p]),
}
