"""The C-backed environments of any libmdvec task: ``VecEnv`` (N envs on worker threads, a drop-in for
``reference.ProcVecEnv`` on the default task) and ``Env`` (one env, a drop-in for the reference's single env).

Task options are keyword arguments, checked here against the task's declared options (types first:
no bool for an int, no float for an int, no value ctypes would truncate) and handed to the library by
name as text, where their bounds are checked. Per-task Python pieces (the default task's reference
checks and episode parameters) live in their own modules and are found through ``TASK_HOOKS``.
"""

from __future__ import annotations

import ctypes
import importlib
import numbers
import operator
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, SupportsInt, cast

import numpy as np

from . import _lib, _pixels
from . import state as _state
from ._calls import CallLock
from ._lib import MdvecError
from .npdot import DOT_CBLAS, DOT_CBLAS64, NumpyDot, numpy_dot

__all__ = [
    "TASK_HOOKS",
    "Env",
    "MdvecError",
    "OptionInfo",
    "Spec",
    "VecEnv",
    "parse_obs_layout",
    "split_obs",
    "task_constants",
    "task_meta",
    "task_names",
    "task_options",
    "task_summary",
]

_LIB: ctypes.CDLL | None = None

# task name -> module with prepare(variant, model, options) -> (config, options), builtin_model(options)
# -> Path, pack_params(params, dims) -> (Params, keep); registered by the package (__init__.py).
# A task's Python side, by task name: a module with ``prepare(task, variant, model, options) -> (config,
# options for C)`` and, optionally, ``pack_params`` (episode parameters) and ``builtin_model``. It is
# imported when an env of the task is first made, so that ``import mdvec`` stays light (the duck's hooks
# import its Python reference and mujoco's bindings). One way for every task; a task not listed whose
# reference is a Gymnasium id (task_meta) takes its options as gymnasium.make does (mdvec.gym_tasks).
# A task whose reference is a factory of mdvec.reference.dm_control (the Control Suite) takes its options
# through mdvec.dm_tasks (suite_dir: the installed dm_control's suite folder).
TASK_HOOKS: dict[str, str] = {"duck": "mdvec.duck"}
GYM_HOOKS = "mdvec.gym_tasks"
DM_HOOKS = "mdvec.dm_tasks"
DM_REFERENCE_PREFIX = "mdvec.reference.dm_control:"


def task_hooks(task: str) -> ModuleType | None:
    """Return the hooks module of a task (imported on first use), or None when it has none."""
    name = TASK_HOOKS.get(task)
    if name is None:
        reference = task_meta(task, "reference")
        if is_gymnasium_id(reference):
            name = GYM_HOOKS
        elif reference is not None and reference.startswith(DM_REFERENCE_PREFIX):
            name = DM_HOOKS
    return importlib.import_module(name) if name else None


_NP_DTYPE: dict[int, Any] = {
    _lib.DTYPE_F32: np.dtype(np.float32),
    _lib.DTYPE_F64: np.dtype(np.float64),
    _lib.DTYPE_I64: np.dtype(np.int64),
    _lib.DTYPE_BOOL: np.dtype(bool),
    _lib.DTYPE_ACTION: "action",
}
_MODE_NAME = {v: k for k, v in _lib.AUTORESET.items()}
_KIND_NAME = {_lib.KIND_FLOAT: "float", _lib.KIND_NUMPY: "numpy", _lib.KIND_INT: "int", _lib.KIND_BOOL: "bool"}


def lib() -> ctypes.CDLL:
    """Return the loaded libmdvec (loaded on first use)."""
    global _LIB
    if _LIB is None:
        _LIB = _lib.load()
    return _LIB


_INT_MAX = 2**31 - 1  # C int: larger Python ints would be truncated by ctypes


def _is_int(value: Any) -> bool:
    """True for Python and numpy integers, False for bools and everything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: Any) -> bool:
    """True for Python and numpy reals (ints included), False for bools."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


# The library's messages name its C calls; the binding's errors name the Python ones.
_PY_NAMES = {
    "mdvec_reset_with_params": "reset_with_params()",
    "mdvec_reset_envs": "reset_envs()",
    "mdvec_reset": "reset()",
    "mdvec_step_typed": "step()",
    "mdvec_step": "step()",
    "mdvec_get_state": "get_state()",
    "mdvec_set_state": "set_state()",
    "mdvec_copy_data": "copy_data()",
    "mdvec_save_model": "model_mjb()",
    "mdvec_snapshot_size": "snapshot()",
    "mdvec_snapshot": "snapshot()",
    "mdvec_restore": "restore()",
    "mdvec_seed": "reset(seed=...)",
    "mdvec_create": "VecEnv()",
    "mdvec_config_default": "VecEnv()",
}


def _python_message(message: str, call: str | None = None) -> str:
    """A library message with Python names: its leading "mdvec_x: " becomes "call: ", other C calls
    (e.g. "call mdvec_reset first") their Python counterparts."""
    if call:
        message = re.sub(r"^mdvec_\w+: ", f"{call}: ", message)
    return re.sub(r"\bmdvec_\w+\b", lambda m: _PY_NAMES.get(m.group(0), m.group(0)), message)


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode()


# ---------------------------------------------------------------------------------------------- catalogue


@dataclass(frozen=True)
class OptionInfo:
    """One option a task declares: name, type ("int", "float", "bool", "str", "range", "irange",
    "choice"), default (typed; None: unset), inclusive bounds of numbers, choices, help."""

    name: str
    type: str
    default: Any
    lo: float
    hi: float
    choices: tuple[str, ...]
    help: str


_TYPE_NAME = {
    _lib.OPT_INT: "int",
    _lib.OPT_DOUBLE: "float",
    _lib.OPT_BOOL: "bool",
    _lib.OPT_STRING: "str",
    _lib.OPT_RANGE: "range",
    _lib.OPT_IRANGE: "irange",
    _lib.OPT_CHOICE: "choice",
}


def _c_task(task: str | None) -> bytes | None:
    return None if task is None else task.encode()


def task_names() -> tuple[str, ...]:
    """Return the names of the library's tasks; the first is the default task."""
    L = lib()
    return tuple(L.mdvec_task_name(k).decode() for k in range(L.mdvec_task_count()))


def _known_task(task: str | None) -> str:
    names = task_names()
    if task is None:
        return names[0]
    if not isinstance(task, str) or task not in names:
        raise ValueError(f"task: unknown task {task!r}; the tasks are {', '.join(names)}")
    return task


def task_summary(task: str | None = None) -> str:
    """Return the one-line summary of a task (None: the default task)."""
    return lib().mdvec_task_summary(_c_task(_known_task(task))).decode()


_NUMPY = tuple(int(v) for v in re.match(r"(\d+)\.(\d+)", np.__version__).groups())  # type: ignore[union-attr]
NUMPY_FLOOR = (2, 1)  # the oldest numpy under which the tasks that follow the action's dtype are proven equal


def numpy_refusal(task: str) -> str:
    """Why a task whose results follow the action's dtype (the Gymnasium v5 tasks) is refused under this
    numpy, or "" when it is not: below NUMPY_FLOOR numpy computes Gymnasium's expressions otherwise."""
    if _NUMPY >= NUMPY_FLOOR:
        return ""
    why = (
        "numpy 1.x's value-based casting turns Gymnasium's float32 terms (weight * "
        "np.sum(np.square(float32_action))) into float64, where numpy 2 (NEP 50) keeps float32"
        if _NUMPY < (2, 0)
        else "numpy 2.0's np.clip(-0.0, 0.0, 0.0) is +0.0 where numpy >= 2.1 keeps -0.0 (the contact costs of "
        "Ant, Humanoid and HumanoidStandup)"
    )
    return (
        f"{task}: equal to its reference bit for bit only under numpy >= {NUMPY_FLOOR[0]}.{NUMPY_FLOOR[1]}, and "
        f"this process runs numpy {np.__version__}: {why}, so rewards and info would differ from Gymnasium's. "
        f"Install a newer numpy (pip install 'numpy>={NUMPY_FLOOR[0]}.{NUMPY_FLOOR[1]}')"
    )


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def stepped_dtype(dtype: np.dtype, follows: bool, task: str, what: str = "actions") -> np.dtype | None:
    """Return the dtype actions of numpy ``dtype`` are stepped in, native float32 or float64, or None for a
    dtype that is no float (the caller refuses or converts it); raise TypeError for a dtype refused.

    float32 and float64 of either byte order step as themselves (the same values, native order). The other
    floats (float16, longdouble) become float64 when the task's results do not follow the actions' dtype
    (``follows`` False: its reference converts actions to float64, as DuckEnv). When they do (the Gymnasium
    v5 tasks: Gymnasium computes the control cost in the actions' dtype), those floats and integers and
    bools are refused: the reference would compute in float16, long double or integer arithmetic, which
    mdvec does not reproduce, so its rewards and info would differ silently.
    """
    if dtype.kind == "f":
        if dtype.itemsize == 4:
            return _F32
        if dtype.itemsize == 8:
            return _F64
        if not follows:
            return _F64
        how = f"it in {dtype}, {'half precision' if dtype.itemsize == 2 else 'long double'}"
    elif dtype.kind in "biu" and follows:
        how = (
            "it in integer arithmetic: Reacher-v5's info['reward_ctrl'] becomes an int64, squares of unsigned "
            "actions wrap around"
        )
    else:
        return None
    raise TypeError(
        f"{what}: dtype {dtype} is refused by task {task!r}, which computes its control cost in the actions' "
        f"dtype as Gymnasium does, reproduced for float32 and float64 only (Gymnasium would compute {how}); "
        "pass float32 or float64 actions (e.g. np.asarray(actions, np.float32))"
    )


def task_uses_numpy_dot(task: str | None = None) -> bool:
    """Return whether a task reproduces numpy's float64 dot (np.linalg.norm): its equality with numpy then
    rests on the dot the binding hands the library (mdvec.npdot)."""
    return bool(lib().mdvec_task_flags(_c_task(_known_task(task))) & _lib.TASK_NUMPY_DOT)


def task_meta(task: str | None, key: str) -> str | None:
    """Return registration metadata ``key`` of a task (None: the default task) as the library declares it
    (mdvec_task_meta: "id", "reference", "reward_threshold", "render_kwargs", "index_options"), or None
    when the task declares none."""
    return _text(lib().mdvec_task_meta(_c_task(_known_task(task)), key.encode()))


def is_gymnasium_id(reference: str | None) -> bool:
    """True when a task's "reference" metadata is a Gymnasium id ("Hopper-v5"), not a Python entry point
    ("module:attr") or None."""
    return reference is not None and reference != "" and ":" not in reference


def _parse_default(type_: str, text: str | None) -> Any:
    """The typed value of a default given as text."""
    if text is None:
        return None
    if type_ == "int":
        return int(text)
    if type_ == "float":
        return float(text)
    if type_ == "bool":
        return text in ("true", "True", "1")
    if type_ in ("range", "irange"):
        conv = int if type_ == "irange" else float
        return tuple(conv(x) for x in text.split(","))
    return text


def task_options(task: str | None = None) -> tuple[OptionInfo, ...]:
    """Return the options a task declares (None: the default task), in declaration order."""
    L = lib()
    task = _known_task(task)
    out = []
    for k in range(L.mdvec_task_option_count(task.encode())):
        o = _lib.OptionInfo(struct_size=ctypes.sizeof(_lib.OptionInfo))
        if L.mdvec_task_option(task.encode(), k, ctypes.byref(o)) != _lib.OK:
            raise MdvecError(_lib.ERR_ARG, f"task_options: option {k} of {task!r} unavailable")
        type_ = _TYPE_NAME[o.type]
        choices = tuple(o.choices.decode().split("|")) if o.choices else ()
        out.append(
            OptionInfo(
                o.name.decode(),
                type_,
                _parse_default(type_, _text(o.default)),
                o.lo,
                o.hi,
                choices,
                _text(o.help) or "",
            )
        )
    return tuple(out)


def task_constants(task: str | None = None) -> dict[str, np.ndarray]:
    """Return a task's constant tables by name (float64 copies), e.g. its observation scales."""
    L = lib()
    task = _known_task(task)
    out = {}
    for k in range(L.mdvec_task_constant_count(task.encode())):
        c = _lib.Constant(struct_size=ctypes.sizeof(_lib.Constant))
        if L.mdvec_task_constant(task.encode(), k, ctypes.byref(c)) != _lib.OK:
            raise MdvecError(_lib.ERR_ARG, f"task_constants: table {k} of {task!r} unavailable")
        out[c.name.decode()] = np.ctypeslib.as_array(c.values, (c.count,)).copy()
    return out


def _option_text(o: OptionInfo, value: Any) -> str | None:
    """Return an option's value as the library's text, or raise TypeError/ValueError naming it."""

    def bad(what: str, exc: type[Exception] = TypeError) -> Exception:
        return exc(f"{o.name}: expected {what}, got {type(value).__name__} {value!r}")

    def number(v: Any, integer: bool, what: str) -> str:
        if integer:
            if not _is_int(v):
                raise bad(what)
            return str(int(v))
        if not _is_real(v):
            raise bad(what)
        f = float(v)
        if _is_int(v) and int(v) != f:
            raise bad(what + " exactly representable as a float64", ValueError)
        return repr(f)

    if o.type == "int":
        return number(value, True, "an integer")
    if o.type == "float":
        return number(value, False, "a number")
    if o.type == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise bad("True or False")
        return "true" if value else "false"
    if o.type == "str":
        if value is None:
            return None
        if not isinstance(value, (str, os.PathLike)):
            raise bad("a string or a path")
        text = os.fspath(value)
        if "\0" in (text if isinstance(text, str) else text.decode(errors="replace")):
            raise bad("text without NUL characters (C would cut it there)", ValueError)
        return text if isinstance(text, str) else text.decode()
    if o.type in ("range", "irange"):
        integer = o.type == "irange"
        what = "a pair of integers (lo, hi)" if integer else "a pair of numbers (lo, hi)"
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
            raise bad(what)
        return ",".join(number(v, integer, what) for v in value)
    if not isinstance(value, str):  # choice
        raise bad("one of " + ", ".join(map(repr, o.choices)))
    if value not in o.choices:
        raise bad("one of " + ", ".join(map(repr, o.choices)), ValueError)
    return value


def _index_option_text(o: OptionInfo, value: Any) -> tuple[str, int]:
    """Return the text and kind (``_lib.VALUE_INT`` or ``_lib.VALUE_STR``) of an option that takes an index
    or a name (the task's "index_options", e.g. Ant-v5's main_body), keeping the caller's type as the
    reference does (``data.body(1)`` is body 1, ``data.body("1")`` the body named "1"); raise TypeError for
    another type, ValueError for text with a NUL."""
    if _is_int(value):
        return str(int(value)), _lib.VALUE_INT
    if isinstance(value, str):
        if "\0" in value:
            raise ValueError(f"{o.name}: expected text without NUL characters (C would cut it there), got {value!r}")
        return value, _lib.VALUE_STR
    raise TypeError(f"{o.name}: expected an int (an index) or a str (a name), got {type(value).__name__} {value!r}")


# ------------------------------------------------------------------------------------------------- spec


@dataclass(frozen=True)
class Spec:
    """What a VecEnv runs: sizes, dtypes, bounds, info fields and modes, as the library declares them.

    ``info_fields``: (name, dtype, when) per info row, dtype a numpy dtype or "action" (the dtype of
    the step's actions), when the bits INFO_STEP (1: in step info) | INFO_RESET (2: in reset info). ``action_low``/``action_high`` are float32
    as a Gymnasium Box holds them. ``options``: every option of the task, as resolved. ``dt``: simulated
    seconds per step. ``info_kinds`` (one per info row) and ``reward_kind``: the Python type of the
    reference's single-env value, "float", "numpy" (a numpy scalar of its dtype), "int" or "bool".
    ``obs_layout``: the observation's named parts in order, ((name, shape), ...) (a scalar's shape is ()),
    as the task declares them (``parse_obs_layout``; () for a task whose observation is one plain vector,
    or a library older than 1.4). ``seed_max``: the largest seed an env accepts (env i gets seed + i):
    2**32 - 1 for the Control Suite tasks (a RandomState's seed), 2**64 - 1 for the others.
    """

    task: str
    num_envs: int
    threads: int
    obs_dim: int
    obs_dtype: np.dtype
    act_dim: int
    action_low: np.ndarray
    action_high: np.ndarray
    info_fields: tuple[tuple[str, Any, int], ...]
    max_episode_steps: int
    nq: int
    nv: int
    autoreset_mode: str
    options: dict[str, Any] = field(default_factory=dict)
    on_error: str = "raise"
    dt: float = 0.0
    info_kinds: tuple[str, ...] = ()
    reward_kind: str = "float"
    obs_layout: tuple[tuple[str, tuple[int, ...]], ...] = ()
    seed_max: int = 2**64 - 1

    @property
    def render_fps(self) -> int:
        """Frames per second of real-time playback, as Gymnasium's MujocoEnv says it: round(1 / dt)."""
        return int(np.round(1.0 / self.dt))

    @property
    def follows_action_dtype(self) -> bool:
        """Whether results follow the actions' dtype (an info field of dtype "action": the Gymnasium v5
        tasks); such a task steps float32 and float64 actions only (``stepped_dtype``)."""
        return any(isinstance(dtype, str) and dtype == "action" for _, dtype, _ in self.info_fields)


_LAYOUT_PART = re.compile(r"([^(),]+)\(((?:\d+(?:,\d+)*)?)\)")


def parse_obs_layout(text: str | None, obs_dim: int | None = None) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Parse a task's ``obs_layout`` text ("position(8),velocity(9)", "arm_pos(8,2)", "upright()": a scalar)
    into ((name, shape), ...); None or "" gives (). With ``obs_dim``, the sizes must add up to it. Raises
    ValueError for text of another form, a repeated name, or sizes that do not add up."""
    if not text:
        return ()
    parts: list[tuple[str, tuple[int, ...]]] = []
    at = 0
    while True:
        m = _LAYOUT_PART.match(text, at)
        if m is None:
            raise ValueError(f"obs_layout: cannot read {text!r} at character {at}")
        shape = tuple(int(n) for n in m.group(2).split(",")) if m.group(2) else ()
        parts.append((m.group(1), shape))
        at = m.end()
        if at == len(text):
            break
        if text[at] != ",":
            raise ValueError(f"obs_layout: expected ',' at character {at} of {text!r}")
        at += 1
    names = [name for name, _ in parts]
    if len(set(names)) != len(names):
        raise ValueError(f"obs_layout: a name appears twice in {text!r}")
    total = sum(int(np.prod(shape)) for _, shape in parts)
    if obs_dim is not None and total != obs_dim:
        raise ValueError(f"obs_layout: the parts of {text!r} hold {total} values, the observation {obs_dim}")
    return tuple(parts)


def split_obs(
    layout: tuple[tuple[str, tuple[int, ...]], ...], obs: Any, task: str = "the task"
) -> dict[str, np.ndarray]:
    """Split observations (..., obs_dim) by ``layout`` into {name: (..., *shape)} views, in layout order."""
    if not layout:
        raise ValueError(f"split_obs: {task}'s observation is one plain vector (no obs_layout)")
    a = np.asarray(obs)
    total = sum(int(np.prod(shape)) for _, shape in layout)
    if a.ndim < 1 or a.shape[-1] != total:
        raise ValueError(f"split_obs: expected observations of shape (..., {total}), got {a.shape}")
    out, at = {}, 0
    lead = a.shape[:-1]
    for name, shape in layout:
        size = int(np.prod(shape))
        out[name] = a[..., at : at + size].reshape(lead + shape)
        at += size
    return out


class _Memory:
    """Owns one libmdvec handle: ``mdvec_destroy`` runs when the last reference to this object goes.

    References are held by the ``_Handle`` (until ``close()``) and by every zero-copy view of the
    handle's buffers (the base of each view is an ``_Exported`` that points here). So a view never
    sees freed memory: closing an env, or losing it to the garbage collector, frees its memory at once
    when no view is alive, and otherwise when the last view goes.
    """

    __slots__ = ("__weakref__", "ptr")

    def __init__(self, ptr: ctypes.c_void_p) -> None:
        self.ptr: ctypes.c_void_p | None = ptr

    def free(self) -> None:
        if self.ptr is not None and _LIB is not None:
            _LIB.mdvec_destroy(self.ptr)
        self.ptr = None

    def __del__(self) -> None:
        self.free()


class _Exported:
    """One library buffer as numpy sees it (``__array_interface__``, read-only), keeping its owner alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, address: int, shape: tuple[int, ...], typestr: str, owner: _Memory) -> None:
        self.__array_interface__ = {"version": 3, "data": (address, True), "shape": shape, "typestr": typestr}
        self.owner = owner


def _view(owner: _Memory, address: int | None, ctype: Any, shape: tuple[int, ...], dtype: Any = None) -> np.ndarray:
    """Return a read-only zero-copy numpy view of a library buffer whose base keeps owner alive."""
    count = int(np.prod(shape))
    if not address or count == 0:
        arr = np.zeros(shape, ctype)
    else:
        arr = np.asarray(_Exported(address, shape, np.dtype(ctype).str, owner))
    if dtype is not None:
        arr = arr.view(dtype)
    arr.flags.writeable = False
    return arr


def _address(ptr: Any) -> int:
    return ctypes.cast(ptr, ctypes.c_void_p).value or 0


class _Handle:
    """One libmdvec handle and its buffers, mapped once into numpy (zero-copy).

    Every reset and step overwrites the arrays' contents. The arrays keep the handle's memory alive
    (see ``_Memory``): after ``close()`` they hold their last contents until they are garbage.
    """

    def __init__(
        self,
        num_envs: int,
        seed: int,
        threads: int | None,
        allow_overcommit: bool,
        autoreset: str,
        task: str | None,
        variant: str,
        model: str | Path | None,
        options: dict[str, Any],
        on_error: str = "raise",
    ) -> None:
        if not _is_int(num_envs) or not 0 < num_envs <= _INT_MAX:
            raise ValueError(f"num_envs: must be an integer in [1, {_INT_MAX}], got {num_envs!r}")
        if threads is not None and (not _is_int(threads) or not 0 < threads <= _INT_MAX):
            raise ValueError(f"threads: must be None or an integer in [1, {_INT_MAX}], got {threads!r}")
        if not _is_int(seed) or not 0 <= int(seed) <= 2**64 - int(num_envs):  # env i's seed + i fits 64 bits
            raise ValueError(f"seed: must be an integer in [0, 2**64 - num_envs], got {seed!r}")
        if autoreset not in _lib.AUTORESET:
            raise ValueError(f"autoreset_mode: expected one of {', '.join(_lib.AUTORESET)}, got {autoreset!r}")
        if on_error not in _lib.ON_ERROR:
            raise ValueError(f"on_error: expected one of {', '.join(_lib.ON_ERROR)}, got {on_error!r}")
        self.on_error = on_error
        self.ptr: ctypes.c_void_p | None = None
        self.lock = CallLock()  # held by every call and by close (see enter); a forked child's is its own
        task = _known_task(task)
        self.hooks = task_hooks(task)
        self.config: Any = None
        pixel_options, options = _pixels.split_options(dict(options))  # the library's own, besides the task's
        wants_frames = pixel_options.get("obs_mode", "state") != "state"
        if wants_frames and "gymnasium" not in pixel_options and is_gymnasium_id(task_meta(task, "reference")):
            from ._gl import gymnasium_render_rules

            pixel_options["gymnasium"] = gymnasium_render_rules()  # drawn as the installed Gymnasium draws
        self.pixel_options = pixel_options
        if self.hooks is not None:
            self.config, options = self.hooks.prepare(task, variant, model, options)
        elif variant != "default" or model is not None:
            raise ValueError(f"variant/model: task {task!r} takes its model through its own options")
        declared = {o.name: o for o in task_options(task)}
        unknown = sorted(set(options) - set(declared))
        if unknown:
            raise TypeError(f"unknown option(s) {unknown} for task {task!r}; its options are {list(declared)}")
        index_options = set((task_meta(task, "index_options") or "").split(",")) - {""}
        texts: dict[str, str | None] = {}
        kinds: dict[str, int] = {}
        for name, value in options.items():
            if name in index_options:
                texts[name], kinds[name] = _index_option_text(declared[name], value)
            else:
                texts[name], kinds[name] = _option_text(declared[name], value), _lib.VALUE_TEXT
        self.options = {name: o.default for name, o in declared.items()}
        self.options.update(
            {name: (tuple(v) if declared[name].type in ("range", "irange") else v) for name, v in options.items()}
        )
        keep = [(name.encode(), None if text is None else text.encode()) for name, text in texts.items()]
        pixel_texts = _pixels.option_texts(pixel_options)
        keep += [(name.encode(), text.encode()) for name, text, _ in pixel_texts]
        opts = (_lib.Option * max(len(keep), 1))(*[_lib.Option(n, v) for n, v in keep])
        all_kinds = [*kinds.values(), *(kind for _, _, kind in pixel_texts)]  # the same order as keep
        opt_kinds = (ctypes.c_int * max(len(keep), 1))(*all_kinds)

        L = lib()
        c = _lib.Config()
        L.mdvec_config_init(ctypes.byref(c), ctypes.sizeof(c))
        c.num_envs, c.threads, c.allow_overcommit = int(num_envs), int(threads or 0), int(bool(allow_overcommit))
        c.autoreset, c.seed, c.on_error = _lib.AUTORESET[autoreset], int(seed), _lib.ON_ERROR[on_error]
        c.task, c.options, c.n_options, c.option_kinds = task.encode(), opts, len(keep), opt_kinds
        self.numpy_dot: NumpyDot | None = None  # how np.linalg.norm is computed, for the tasks that use it
        if task_uses_numpy_dot(task):
            self.numpy_dot = numpy_dot()
            c.dot = self.numpy_dot.mode
            if self.numpy_dot.mode == DOT_CBLAS64:
                c.ddot64 = self.numpy_dot.address
            elif self.numpy_dot.mode == DOT_CBLAS:
                c.ddot = self.numpy_dot.address
            if L.mdvec_version() // 100 % 100 >= 4:  # 1.4's dgemv (a 1.3 library refuses fields it lacks)
                if self.numpy_dot.mode == DOT_CBLAS64:
                    c.dgemv64 = self.numpy_dot.gemv_address
                elif self.numpy_dot.mode == DOT_CBLAS:
                    c.dgemv = self.numpy_dot.gemv_address
        err = ctypes.create_string_buffer(2048)
        handle = ctypes.c_void_p()
        code = L.mdvec_create(ctypes.byref(handle), ctypes.byref(c), err, len(err))
        if code != _lib.OK:
            raise _lib.error(code, _python_message(err.value.decode()))
        self.ptr = handle
        memory = _Memory(handle)
        self.memory: _Memory | None = memory  # None once closed
        self._step_fn = L.mdvec_step_typed
        self._map(task, memory)
        refusal = numpy_refusal(task) if self.spec.follows_action_dtype else ""
        if refusal:
            self.close()
            raise MdvecError(_lib.ERR_CONFIG, refusal)

    def _map(self, task: str, m: _Memory) -> None:
        """Read the spec and map every buffer."""
        L, h = lib(), self.ptr
        # A 1.3 library fills the 1.3 fields of this larger struct and leaves the 1.4 ones as set here.
        s = _lib.Spec(struct_size=ctypes.sizeof(_lib.Spec), obs_layout=None, seed_max=2**64 - 1)
        self.check(L.mdvec_spec(h, ctypes.byref(s)))
        dims = _lib.Dims(struct_size=ctypes.sizeof(_lib.Dims))
        self.check(L.mdvec_dims(h, ctypes.byref(dims)))
        self.dims = dims
        n, d, a = s.num_envs, s.obs_dim, s.act_dim
        fields, kinds = [], []
        for k in range(s.n_info):
            f = _lib.Field(struct_size=ctypes.sizeof(_lib.Field))
            self.check(L.mdvec_info_field(h, k, ctypes.byref(f)))
            fields.append((f.name.decode(), _NP_DTYPE[f.dtype], int(f.when)))
            kinds.append(_KIND_NAME[f.kind])
        low = np.ctypeslib.as_array(L.mdvec_action_low(h), (a,)).astype(np.float32) if a else np.zeros(0, np.float32)
        high = np.ctypeslib.as_array(L.mdvec_action_high(h), (a,)).astype(np.float32) if a else np.zeros(0, np.float32)
        obs_dtype = _NP_DTYPE[s.obs_dtype]
        self.spec = Spec(
            task,
            n,
            s.threads,
            d,
            obs_dtype,
            a,
            low,
            high,
            tuple(fields),
            s.max_episode_steps,
            s.nq,
            s.nv,
            _MODE_NAME[s.autoreset],
            self.options,
            self.on_error,
            s.dt,
            tuple(kinds),
            _KIND_NAME[s.reward_kind],
            parse_obs_layout(_text(s.obs_layout), d),
            int(s.seed_max),
        )
        self.model_file = _text(s.model_path)
        self.info_keys = tuple(name for name, _, _ in fields)
        n_info = len(fields)
        obs_ctype = ctypes.c_float if obs_dtype == np.float32 else ctypes.c_double
        self.obs = _view(m, L.mdvec_obs_data(h), obs_ctype, (n, d))
        self.final_obs = _view(m, L.mdvec_final_obs_data(h), obs_ctype, (n, d))
        self.reward = _view(m, _address(L.mdvec_reward(h)), ctypes.c_double, (n,))
        self.terminated = _view(m, _address(L.mdvec_terminated(h)), ctypes.c_uint8, (n,), bool)
        self.truncated = _view(m, _address(L.mdvec_truncated(h)), ctypes.c_uint8, (n,), bool)
        self.done = _view(m, _address(L.mdvec_done(h)), ctypes.c_uint8, (n,), bool)
        self.reset_flags = _view(m, _address(L.mdvec_reset_flags(h)), ctypes.c_uint8, (n,), bool)
        self.error_flags = _view(m, _address(L.mdvec_error_flags(h)), ctypes.c_uint8, (n,), bool)
        self.warnings = _view(m, _address(L.mdvec_warnings(h)), ctypes.c_uint64, (n,))
        self.info = _view(m, _address(L.mdvec_info(h)), ctypes.c_double, (n_info, n))
        self.reset_info = _view(m, _address(L.mdvec_reset_info(h)), ctypes.c_double, (n_info, n))
        self.act_shape = (n, a)
        # pixel observations (1.4): (N, [frame_stack,] height, width, 3) uint8 views, or None
        self.pixel_spec = _pixels.pixel_spec(L, h, "frame_stack" in self.pixel_options)
        self.pixels: np.ndarray | None = None
        self.final_pixels: np.ndarray | None = None
        if self.pixel_spec is not None:
            shape = (n, *self.pixel_spec.shape)
            self.pixels = _view(m, L.mdvec_pixels(h), ctypes.c_uint8, shape)
            self.final_pixels = _view(m, L.mdvec_final_pixels(h), ctypes.c_uint8, shape)
        self._f32 = np.dtype(np.float32)
        self._f64 = np.dtype(np.float64)

    def check(self, code: int, call: str | None = None) -> None:
        """Raise the handle's message (in Python names, from ``call``) when code is an error."""
        if code != _lib.OK:
            raise _lib.error(code, _python_message(lib().mdvec_errmsg(self.ptr).decode(errors="replace"), call))

    def live(self) -> ctypes.c_void_p:
        """Return the handle, or raise when it was closed."""
        if self.ptr is None:
            raise RuntimeError("mdvec: the environment is closed")
        return self.ptr

    def enter(self, call: str) -> ctypes.c_void_p:
        """Start a call: hold the handle's lock (release it with ``self.lock.release()``) and return the
        handle; raise MdvecError when another thread is in a call or closing (the library's own rule: one
        caller at a time), RuntimeError when closed. close() takes the same lock, so it waits for a call
        running in another thread instead of freeing the envs under it."""
        self.lock.call(call)
        if self.ptr is None:
            self.lock.release()
            raise RuntimeError("mdvec: the environment is closed")
        return self.ptr

    def read(self, call: str, fn: Callable[[], Any]) -> Any:
        """Return fn() run as a call on the handle (``self.ptr`` live, the lock held: a close cannot
        interleave, an overlapping call is refused as in ``enter``)."""
        self.enter(call)
        try:
            return fn()
        finally:
            self.lock.release()

    def step(self, actions: Any, then: Callable[[np.ndarray], Any] | None = None) -> Any:
        """Step every env; float32 actions go to C as float32, float64 as float64, either byte order (other
        floats: ``stepped_dtype``, float64 or refused; integers are refused).
        Return then(actions as stepped), run before another thread may close the handle, or the actions."""
        ptr = self.enter("step")
        try:
            return self._step(ptr, actions, then)
        finally:
            self.lock.release()

    def _step(self, ptr: ctypes.c_void_p, actions: Any, then: Callable[[np.ndarray], Any] | None) -> Any:
        a = actions
        if not (
            type(a) is np.ndarray
            and a.shape == self.act_shape
            and a.flags.c_contiguous
            and a.flags.aligned
            and (a.dtype == self._f32 or a.dtype == self._f64)
        ):
            a = np.asarray(actions)
            dtype = stepped_dtype(a.dtype, self.spec.follows_action_dtype, self.spec.task)
            if dtype is None:  # as ProcVecEnv: ints are refused (Env.step converts them, as DuckEnv)
                raise TypeError(f"actions: expected a float32 or float64 array, got dtype {a.dtype}")
            if a.shape != self.act_shape:
                raise ValueError(f"actions: expected shape {self.act_shape}, got {a.shape}")
            a = np.require(a, dtype, ["C", "A"])  # aligned copy, native byte order
        code = self._step_fn(ptr, a.ctypes.data, _lib.DTYPE_F32 if a.dtype == self._f32 else _lib.DTYPE_F64)
        if code:
            self.check(code, "step")
        return a if then is None else then(a)

    def reset_envs(self, mask: Any = None, seeds: Any = None, then: Callable[[], Any] | None = None) -> Any:
        """Reset the envs of mask ((N,) bool, None: all), env i reseeded with seeds[i] when not None;
        return then() (run before another thread may close the handle) or None."""
        return self.read("reset", lambda: self._reset_envs(mask, seeds, then))

    def _reset_envs(self, mask: Any, seeds: Any, then: Callable[[], Any] | None) -> Any:
        ptr = self.ptr
        n = self.spec.num_envs
        mask_arr = seeds_arr = has_arr = None
        if mask is not None:
            mask_arr = np.asarray(mask)
            if mask_arr.shape != (n,) or mask_arr.dtype != np.bool_:
                raise ValueError(f"mask: expected a bool array of shape ({n},), got {mask_arr.dtype} {mask_arr.shape}")
            mask_arr = np.ascontiguousarray(mask_arr).view(np.uint8)
        if seeds is not None:
            if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__") or len(seeds) != n:
                raise ValueError(f"seeds: expected a sequence of {n} ints or None, got {seeds!r}")
            seeds_arr = np.zeros(n, np.uint64)
            has_arr = np.zeros(n, np.uint8)
            for i, s in enumerate(seeds):
                if s is None:
                    continue
                if not _is_int(s) or not 0 <= int(s) < 2**64:
                    raise ValueError(f"seeds: env {i}'s seed must be None or an integer in [0, 2**64), got {s!r}")
                seeds_arr[i], has_arr[i] = int(s), 1

        def addr(arr: np.ndarray | None) -> int | None:
            return None if arr is None else arr.ctypes.data

        self.check(lib().mdvec_reset_envs(ptr, addr(mask_arr), addr(seeds_arr), addr(has_arr)), "reset")
        return None if then is None else then()

    def reset_with_params(self, i: int, params: Any) -> np.ndarray:
        """Reset env i with a task's episode parameters; return a copy of its first observation."""
        if self.hooks is None or not hasattr(self.hooks, "pack_params"):
            raise ValueError(f"reset_with_params: task {self.spec.task!r} takes no episode parameters")
        if params is None:
            raise TypeError("reset_with_params: params is None; give the episode parameters (mdvec.episode_params)")
        p, keep = self.hooks.pack_params(params, self.dims)  # keep: the arrays p points into, alive past the call

        def reset() -> np.ndarray:
            self.check(lib().mdvec_reset_with_params(self.ptr, int(i), ctypes.byref(p)), "reset_with_params")
            return self.obs[i].copy()

        out = self.read("reset_with_params", reset)
        del keep
        return out

    @staticmethod
    def _sig(sig: Any) -> int:
        """mjtState bits as an int: an int, a numpy int or a mujoco.mjtState member; None: mjSTATE_INTEGRATION
        of the library's MuJoCo."""
        if sig is None:
            return _state.integration()
        try:  # ints, numpy ints and mujoco.mjtState members (which are not ints but have __index__)
            bits = operator.index(sig) if not isinstance(sig, (bool, np.bool_)) else None
        except TypeError:
            bits = None
        if bits is None:
            raise TypeError("sig: expected mjtState bits (an int, mdvec.state.mjSTATE_* or a mujoco.mjtState)")
        if not 0 <= bits < 2**32:
            raise ValueError(f"sig: mjtState bits must fit in 32 bits, got {bits}")
        return bits

    def env_ids(self, env_ids: Any) -> list[int]:
        """The env indices of ``env_ids``: None (all), an int, or a sequence / array of ints (checked)."""
        n = self.spec.num_envs
        if env_ids is None:
            return list(range(n))
        ids = [env_ids] if _is_int(env_ids) else env_ids
        if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
            raise TypeError(f"env_ids: expected None, an int or a sequence of ints, got {env_ids!r}")
        out = []
        for i in np.asarray(ids, dtype=object).ravel().tolist() if isinstance(ids, np.ndarray) else ids:
            if not _is_int(i) or not 0 <= int(i) < n:
                raise ValueError(f"env_ids: env index must be an int in [0, {n}), got {i!r}")
            out.append(int(i))
        return out

    def _need(self, name: str) -> Any:
        """Return the library's function ``name`` (1.4), or raise saying that this library lacks it."""
        fn = getattr(lib(), name, None)
        if fn is None or fn.argtypes is None:
            raise RuntimeError(f"mdvec: {name} needs libmdvec 1.4; the loaded library is {lib().mdvec_version()}")
        return fn

    def get_states(self, ids: list[int], sig: int) -> np.ndarray:
        """Return the MuJoCo states (mj_getState with bits sig) of envs ids, (len(ids), size) float64."""

        def states() -> np.ndarray:
            size = lib().mdvec_state_size(self.ptr, sig)
            out = np.zeros((len(ids), size), np.float64)
            for row, i in enumerate(ids):
                self.check(lib().mdvec_get_state(self.ptr, i, sig, out[row].ctypes.data, size), "get_state")
            return out

        self.live()
        return self.read("get_state", states)

    def set_states(self, states: Any, ids: list[int], sig: int) -> None:
        """Write the states (k, size) (or (size,) for one env) with bits sig into envs ids; every row is checked
        (shape, finite values) before any env changes."""
        self.live()
        unknown = sig & ~_state.known_bits(int(lib().mdvec_mujoco_version()))
        if unknown:
            raise ValueError(f"sig: 0x{sig:x} has mjtState bits (0x{unknown:x}) this MuJoCo does not know")
        size = int(lib().mdvec_state_size(self.ptr, sig))
        a = np.asarray(states)
        if a.dtype.kind not in "fiub":
            raise TypeError(f"state: expected real numbers, got dtype {a.dtype}")
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.ndim == 1 and len(ids) == 1:
            a = a.reshape(1, -1)
        if a.shape != (len(ids), size):
            want = f"({size},) or " if len(ids) == 1 else ""
            raise ValueError(f"state: expected shape {want}({len(ids)}, {size}) for sig 0x{sig:x}, got {a.shape}")
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            row, col = (int(v) for v in bad[0])
            raise ValueError(f"state: env {ids[row]}'s value {col} is {a[row, col]}; every value must be finite")
        fn = self._need("mdvec_set_state")

        def write() -> None:
            for row, i in enumerate(ids):
                self.check(fn(self.ptr, i, sig, a[row].ctypes.data, size), "set_state")

        self.read("set_state", write)

    def copy_data(self, i: int, mjdata: Any) -> None:
        """Copy env i's whole mjData into ``mjdata`` (a mujoco.MjData of this env's model, same MuJoCo)."""
        self.live()
        if not _is_int(i) or not 0 <= i < self.spec.num_envs:
            raise ValueError(f"i: env index must be in [0, {self.spec.num_envs}), got {i!r}")
        address = getattr(mjdata, "_address", None)
        if not _is_int(address) or not address:
            raise TypeError(f"mjdata: expected a mujoco.MjData, got {type(mjdata).__name__}")
        import sys

        mujoco = sys.modules.get("mujoco")  # loaded: mjdata is one of its objects
        theirs = int(mujoco.mj_version()) if mujoco is not None and hasattr(mujoco, "mj_version") else None
        ours = int(lib().mdvec_mujoco_version())
        if theirs != ours:
            raise RuntimeError(
                f"copy_data: the mujoco package runs MuJoCo {theirs}, libmdvec {ours}: their mjData layouts may "
                "differ, so the library cannot write a mujoco.MjData of this package"
            )
        fn = self._need("mdvec_copy_data")
        self.read("copy_data", lambda: self.check(fn(self.ptr, int(i), int(address)), "copy_data"))

    def model_mjb(self, i: int) -> bytes:
        """Return env i's model as MuJoCo's binary model (MJB)."""
        self.live()
        if not _is_int(i) or not 0 <= i < self.spec.num_envs:
            raise ValueError(f"i: env index must be in [0, {self.spec.num_envs}), got {i!r}")
        fn = self._need("mdvec_save_model")

        def save() -> bytes:
            need = ctypes.c_size_t(0)
            self.check(fn(self.ptr, int(i), None, 0, ctypes.byref(need)), "model_mjb")
            buf = ctypes.create_string_buffer(need.value)
            self.check(fn(self.ptr, int(i), buf, need.value, ctypes.byref(need)), "model_mjb")
            return buf.raw

        return self.read("model_mjb", save)

    def snapshot(self) -> bytes:
        """Return a snapshot of every env (mdvec_snapshot)."""
        self.live()
        size_fn, fn = self._need("mdvec_snapshot_size"), self._need("mdvec_snapshot")

        def save() -> bytes:
            size = int(size_fn(self.ptr))
            if size == 0:
                self.check(_lib.ERR_STATE, "snapshot")
            buf = ctypes.create_string_buffer(size)
            self.check(fn(self.ptr, buf, size), "snapshot")
            return buf.raw

        return self.read("snapshot", save)

    def restore(self, blob: Any) -> None:
        """Restore a snapshot of ``snapshot()`` (bytes-like) into every env; refused with the reason otherwise."""
        self.live()
        try:
            view = np.frombuffer(blob, dtype=np.uint8)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"blob: expected bytes of a snapshot, got {type(blob).__name__}") from exc
        from .vector import SNAPSHOT_MAGIC, split_snapshot

        if view[: len(SNAPSHOT_MAGIC)].tobytes() == SNAPSHOT_MAGIC:  # mdvec.make's: its envs' part
            view = np.frombuffer(split_snapshot(view.tobytes())[1], dtype=np.uint8)
        fn = self._need("mdvec_restore")
        self.read("restore", lambda: self.check(fn(self.ptr, view.ctypes.data, view.size), "restore"))

    def get_state(self, i: int, sig: Any) -> np.ndarray:
        """Return env i's MuJoCo state (mj_getState with mjtState bits sig) as float64."""
        self.live()
        if not _is_int(i) or not 0 <= i < self.spec.num_envs:
            raise ValueError(f"i: env index must be in [0, {self.spec.num_envs}), got {i!r}")
        sig = self._sig(sig)

        def state() -> np.ndarray:
            size = lib().mdvec_state_size(self.ptr, int(sig))
            out = np.zeros(size, np.float64)
            self.check(lib().mdvec_get_state(self.ptr, int(i), int(sig), out.ctypes.data, size), "get_state")
            return out

        return self.read("get_state", state)

    def model_path(self) -> Path:
        """Return the MJCF file the envs' model came from."""
        if self.model_file is not None:
            return Path(self.model_file)
        if self.hooks is not None and hasattr(self.hooks, "builtin_model"):
            return Path(self.hooks.builtin_model(self.options))
        raise ValueError(f"model_path: task {self.spec.task!r} runs a built-in model with no file")

    _VIEWS = (
        "pixels",
        "final_pixels",
        "obs",
        "final_obs",
        "reward",
        "terminated",
        "truncated",
        "done",
        "reset_flags",
        "error_flags",
        "warnings",
        "info",
        "reset_info",
    )

    def buffers(self) -> dict[str, np.ndarray]:
        """Return the zero-copy views (see VecEnv.buffers)."""
        return self.read(
            "buffers",
            lambda: {
                "obs": self.obs,
                "final_obs": self.final_obs,
                "terminal_obs": self.final_obs,
                "reward": self.reward,
                "terminated": self.terminated,
                "truncated": self.truncated,
                "done": self.done,
                "reset": self.reset_flags,
                "error": self.error_flags,
                "warnings": self.warnings,
                "info": self.info,
                "reset_info": self.reset_info,
                **({} if self.pixels is None else {"pixels": self.pixels, "final_pixels": self.final_pixels}),
            },
        )

    def error_count(self) -> int:
        """MuJoCo errors raised in the envs since creation."""
        return self.read("error_count", lambda: int(lib().mdvec_error_count(self.ptr)))

    def env_error(self, i: int) -> str:
        """The message of env i's last MuJoCo error ("" when none)."""
        self.live()
        if not _is_int(i) or not 0 <= i < self.spec.num_envs:
            raise ValueError(f"i: env index must be in [0, {self.spec.num_envs}), got {i!r}")
        return self.read("env_error", lambda: lib().mdvec_env_error(self.ptr, int(i)).decode(errors="replace"))

    def close(self) -> None:
        """Close the handle: later calls raise; its memory is freed now, or when the last view goes. A call
        running in another thread is waited for (it completes and returns its results)."""
        with self.lock.closing():  # in a forked child: never waits for a call of the parent's threads
            if self.ptr is None:
                return
            self.ptr = None
            for name in self._VIEWS:
                setattr(self, name, None)
            memory, self.memory = self.memory, None
        del memory  # the last reference unless a caller holds a view: then the free waits for it


class _HandleOwner:
    """Closing, context-manager use and the shared queries of the classes owning a ``_Handle`` as ``self._h``."""

    _h: _Handle

    @property
    def spec(self) -> Spec:
        """What the envs run (task, sizes, dtypes, action bounds, info fields, modes, options)."""
        return self._h.spec

    @property
    def model_path(self) -> Path:
        """The MJCF file the envs' model came from (for rendering with mujoco.Renderer)."""
        return self._h.model_path()

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._h.ptr is None

    def close(self) -> None:
        """Free the envs and threads; later calls raise RuntimeError."""
        self._h.close()

    def __enter__(self):  # returns the subclass
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if hasattr(self, "_h"):
            self._h.close()

    def _not_copyable(self, *args: object) -> Any:
        raise TypeError(
            f"mdvec.{type(self).__name__} cannot be copied or pickled: it owns C envs and worker threads, "
            "and a copy sharing them would close them when it goes. Make another one with the same "
            "arguments (its spec says them); to carry the envs' state over, restore a snapshot() into it"
        )

    __copy__ = __deepcopy__ = __reduce_ex__ = __reduce__ = __getstate__ = _not_copyable


def _same_count(name: str, value: int | None, alias: str, alias_value: int | None) -> int | None:
    """Return the one worker count given under either name; raise when both disagree."""
    if value is not None and alias_value is not None and value != alias_value:
        raise ValueError(f"{name}={value!r} and {alias}={alias_value!r} disagree; give one of them")
    return value if value is not None else alias_value


class VecEnv(_HandleOwner):
    """N envs of a libmdvec task in C on T threads; on the default task the same signature and results as
    ``reference.ProcVecEnv``.

    ``reset()`` returns obs (N, obs_dim). ``step(actions)`` takes (N, act_dim) float32/float64 actions
    and returns ``obs, reward (N,) float64, done (N,) bool, info`` where info holds one (N,) array per
    info field plus ``terminal_obs``. Returned arrays are fresh copies; ``buffers()`` gives the
    library's own zero-copy views, ``step_into_buffers`` steps without copying.

    ``obs_layout`` names the observation's parts ((name, shape), ...; () for one plain vector) and
    ``split_obs(obs)`` gives them as views; ``seed_max`` is the largest seed an env accepts.

    ``task``: a name of ``task_names()`` (None: the default task); ``autoreset_mode``: "same_step"
    (finished envs reset inside the step that finished them), "next_step" (on the next step, their
    action ignored) or "disabled". Other keywords are the task's options (``task_options(task)``).
    ``workers`` (ProcVecEnv's name) is accepted for ``threads``, so either class runs the other's code.

    MuJoCo errors: an error inside one env (mju_error, e.g. an mjData arena too small for the contacts
    of a fall) is trapped on that env's thread; the other envs step on. ``on_error`` says what follows:

    * "raise" (default, as the reference): ``step`` raises ``MdvecError`` naming the env; the other
      envs' results are in ``buffers()``. The env is stopped: ``step`` raises until it is reset
      (``reset()``, or ``reset_envs(mask)`` with its mask bit: reset from its own generator).
    * "end_episode": the env's episode ends in that step: its final observation is its last good one,
      reward 0, truncated (not terminated), its step info 0, and ``info["error"]`` (also
      ``buffers()["error"]``) flags it; then it resets as the autoreset mode says ("disabled": call
      ``reset_envs(mask)`` as for any finished env). ``step`` returns every env's results.
      ``error_count`` counts the errors, ``env_error(i)`` gives env i's last message. An error in a
      reset still raises.

    Threads and processes:

    * One VecEnv serves one thread at a time. A call that overlaps another call on the same VecEnv
      from another Python thread raises ``MdvecError`` ("concurrent call", code ``ERR_STATE``) at once
      and changes nothing; it never races or deadlocks (a non-blocking lock per VecEnv, and the
      library's own atomic flag per call). ``close()`` from another thread waits for a call in
      progress, which completes and returns its results; later calls say the env is closed.
      Different VecEnvs may be stepped from different threads at the same time.
    * A VecEnv cannot be copied or pickled (``copy``, ``deepcopy`` and ``pickle`` raise TypeError):
      it owns C envs and threads. Make another with the same arguments.
    * A VecEnv belongs to the process that created it. After ``os.fork()`` the child's copy has no
      worker threads: its calls raise ``MdvecError`` ("created in another process") instead of
      hanging, and closing or collecting it in the child only frees the child's copy of the memory,
      without waiting, even when another thread of the parent was in a call on it at the fork (the
      lock that thread held is replaced in the child: ``mdvec._calls.CallLock``). Create envs in the process that uses them (after the fork, or with multiprocessing's "spawn"
      or "forkserver" start methods).
    """

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        threads: int | None = None,
        allow_overcommit: bool = False,
        variant: str = "default",
        model: str | Path | None = None,
        *,
        task: str | None = None,
        autoreset_mode: str = "same_step",
        workers: int | None = None,
        on_error: str = "raise",
        **options: Any,
    ) -> None:
        threads = _same_count("threads", threads, "workers", workers)
        self._h = _Handle(
            num_envs, seed, threads, allow_overcommit, autoreset_mode, task, variant, model, options, on_error
        )
        s = self._h.spec
        self.num_envs, self.nu, self.obs_dim, self.threads = s.num_envs, s.act_dim, s.obs_dim, s.threads
        self.info_keys = self._h.info_keys
        self.obs_layout = s.obs_layout  # ((name, shape), ...): the observation's parts (split_obs); () when none
        self.seed_max = s.seed_max  # the largest seed an env accepts (env i gets seed + i)
        self._info_dtypes = [(k, dt) for k, dt, _ in s.info_fields]
        self._error_info = on_error == "end_episode"

    def split_obs(self, obs: Any) -> dict[str, np.ndarray]:
        """Split a batch of flat observations (N, obs_dim) into {name: (N, *shape)} views by ``obs_layout``
        (the task's observation dict, in its order: for the Control Suite tasks Shimmy's Dict entries, a
        scalar entry (N,)); ValueError for a task whose observation is one plain vector."""
        return split_obs(self.obs_layout, obs, repr(self._h.spec.task))

    def reset(self, seed: int | list[int | None] | None = None, mask: Any = None) -> np.ndarray:
        """Reset every env (or those of mask, (N,) bool) from its own generator; return obs (N, obs_dim).

        ``seed``: None (continue each env's generator), an int s (env i reseeded with s + i, as
        Gymnasium's vector envs) or a list of N ints/None.
        """
        seeds: Any = None  # None, or N ints/None
        if seed is not None:
            if not _is_int(seed) and (isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__")):
                raise TypeError(f"seed: expected None, an int or a list of {self.num_envs} ints/None, got {seed!r}")
            if _is_int(seed):
                start = int(cast(SupportsInt, seed))  # a Python or numpy integer
                if not 0 <= start <= 2**64 - self.num_envs:
                    raise ValueError(f"seed: must be an integer in [0, 2**64 - num_envs], got {seed!r}")
                if start > self.seed_max - (self.num_envs - 1):  # a task with fewer seeds (a RandomState's 32 bits)
                    raise ValueError(
                        f"seed: task {self.spec.task!r} takes seeds 0 .. {self.seed_max} and env i gets seed + i, so "
                        f"with {self.num_envs} envs the seed must lie in [0, {self.seed_max - (self.num_envs - 1)}], "
                        f"got {seed!r}"
                    )
                seeds = [start + i for i in range(self.num_envs)]
            else:
                seeds = seed
        return self._h.reset_envs(mask=mask, seeds=seeds, then=lambda: self._h.obs.copy())

    def reset_envs(self, mask: Any = None, seeds: Any = None) -> None:
        """Reset the envs of mask ((N,) bool; None: all), env i first reseeded with seeds[i] (None: not);
        results land in the buffers (obs, reset, reset_info). Envs outside the mask keep their state and
        rows. ``reset_envs(mask)`` without seeds resets those envs from their own generators (the draws
        continue where they were): the way to restart one env, e.g. one stopped by a MuJoCo error."""
        self._h.reset_envs(mask=mask, seeds=seeds)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Step every env; a rejected call (bad shape, dtype or a non-finite value) changes nothing."""
        return self._h.step(actions, self._results)

    def _results(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        h = self._h
        columns = h.info.copy()  # one copy; float64 fields are views of it, the rest converted
        info = {}
        for j, (k, dt) in enumerate(self._info_dtypes):
            dt = a.dtype if isinstance(dt, str) else dt  # "action": the actions' dtype
            info[k] = columns[j] if dt == np.float64 else columns[j].astype(dt)
        info["terminal_obs"] = h.final_obs.copy()
        if self._error_info:
            info["error"] = h.error_flags.copy()
        return h.obs.copy(), h.reward.copy(), h.done.copy(), info

    def step_into_buffers(self, actions: Any) -> None:
        """Step without copying results out (float32 actions stay float32); read them through ``buffers()``."""
        self._h.step(actions)

    def reset_with_params(self, i: int, params: Any) -> np.ndarray:
        """Reset env i alone with the given episode parameters; return its first observation (obs_dim,)."""
        if not _is_int(i) or not 0 <= i < self.num_envs:
            raise ValueError(f"i: env index must be in [0, {self.num_envs}), got {i!r}")
        return self._h.reset_with_params(i, params)

    def buffers(self) -> dict[str, np.ndarray]:
        """Return the library's read-only zero-copy buffers: obs, final_obs (alias terminal_obs), reward,
        terminated, truncated, done, reset (bool (N,): reset during the last call), error (bool (N,):
        raised a MuJoCo error during the last call), warnings (uint64 (N,): MuJoCo warnings each env
        raised since creation), info (n_info, N) and reset_info (n_info, N); every reset and step
        overwrites them in place.

        Lifetime: each view keeps the library's memory alive (its numpy base owns a reference to the
        handle), so a view never reads freed memory. ``close()`` (or losing the env to the garbage
        collector) frees the memory at once when no view is alive; otherwise the memory, envs
        included, stays until the last view is garbage, and the views keep their last contents.
        Drop the views (or copy them) before close() to free the memory at once."""
        return self._h.buffers()

    def get_state(self, env_ids: Any = None, sig: Any = None) -> np.ndarray:
        """Return the MuJoCo state of envs ``env_ids`` (None: all), ``mj_getState`` with mjtState bits ``sig``
        (an int of ``mdvec.state.mjSTATE_*`` bits or a ``mujoco.mjtState``; None: mjSTATE_INTEGRATION): float64
        (k, size) for a sequence of ids or None, (size,) for one int id."""
        h = self._h
        one = _is_int(env_ids)
        out = h.get_states(h.env_ids(env_ids), h._sig(sig))
        return out[0] if one else out

    def set_state(self, state: Any, env_ids: Any = None, sig: Any = None) -> None:
        """Write ``state`` into envs ``env_ids`` (None: all): ``mj_setState`` of the parts ``sig`` names (None:
        mjSTATE_INTEGRATION; other parts keep their values), then ``mj_forward``, as Gymnasium's
        ``MujocoEnv.set_state``; each env's episode goes on (its step count, time limit, pending autoreset).
        ``state`` is (k, size) float64-convertible, or (size,) for one int id; shapes and values (finite) are
        checked before any env changes. The next ``step`` gives the observations of the new states."""
        h = self._h
        h.set_states(state, h.env_ids(env_ids), h._sig(sig))

    def set_qpos_qvel(self, qpos: Any, qvel: Any, env_ids: Any = None) -> None:
        """Gymnasium's ``set_state(qpos, qvel)`` on envs ``env_ids`` (None: all): qpos (k, nq) and qvel (k, nv)
        (or (nq,), (nv,) for one int id); act, time, controls and the warm start keep their values."""
        h = self._h
        ids = h.env_ids(env_ids)
        q, v = np.asarray(qpos, np.float64), np.asarray(qvel, np.float64)
        nq, nv = h.spec.nq, h.spec.nv
        if q.ndim == 1 and v.ndim == 1 and len(ids) == 1:
            q, v = q.reshape(1, -1), v.reshape(1, -1)
        if q.shape != (len(ids), nq) or v.shape != (len(ids), nv):
            raise ValueError(
                f"qpos, qvel: expected shapes ({len(ids)}, {nq}) and ({len(ids)}, {nv}), got {q.shape}, {v.shape}"
            )
        h.set_states(np.concatenate([q, v], axis=1), ids, _state.mjSTATE_QPOS | _state.mjSTATE_QVEL)

    def copy_data(self, i: int, mjdata: Any) -> None:
        """Copy env i's whole mjData (state, controls, every derived array, contacts) into ``mjdata``, a
        ``mujoco.MjData`` of env i's model (e.g. ``mujoco.MjData(mujoco.MjModel.from_binary_path(...))`` of
        ``model_mjb(i)``), made by a mujoco package of the library's MuJoCo version."""
        self._h.copy_data(i, mjdata)

    def model_mjb(self, i: int) -> bytes:
        """Return env i's model as MuJoCo's binary model (MJB): env i's own values where its task changes its
        model (the duck's domain randomisation, a Control Suite task's target); ``mujoco.MjModel`` loads it."""
        return self._h.model_mjb(i)

    def snapshot(self) -> bytes:
        """Return a snapshot of every env: physics (whole mjData), the model values tasks change, generators,
        step counters, episode bookkeeping, pending autoresets, stopped envs and the buffers' last results
        (docs/state.md). ``restore`` puts it back into this env or another of the same task, options and
        num_envs (any thread count)."""
        return self._h.snapshot()

    def restore(self, blob: Any) -> None:
        """Restore a ``snapshot()`` (bytes-like): every later call gives, bit for bit, what it gave after the
        snapshot, and ``buffers()`` hold the snapshot's last results. Refused with the reason (``MdvecError``, a
        ValueError) and nothing changed for another task, other options, another num_envs or library version,
        or a truncated or corrupted blob."""
        self._h.restore(blob)

    @property
    def error_count(self) -> int:
        """MuJoCo errors raised in the envs since creation (see on_error)."""
        return self._h.error_count()

    @property
    def warnings(self) -> np.ndarray:
        """MuJoCo warnings each env raised since creation, (N,) uint64 (a copy). MuJoCo warns when a
        simulation goes unstable (and resets that env's mjData, as the reference does); the library
        counts the warnings per env and never prints them or writes MUJOCO_LOG.TXT."""
        return self._h.read("warnings", lambda: self._h.warnings.copy())

    def env_error(self, i: int) -> str:
        """The message of env i's last MuJoCo error ("" when none)."""
        return self._h.env_error(i)


_PYTHON_TYPE = {np.dtype(np.int64): int, np.dtype(bool): bool, np.dtype(np.float64): float}


class Env(_HandleOwner):
    """One env of a libmdvec task in C; on the default task the same interface and results as
    the reference's single env (no autoreset: ``step`` returns ``obs, reward, done, info``).

    ``on_error``: as for ``VecEnv`` ("end_episode": a MuJoCo error ends the episode, ``info["error"]``
    is True, and the next ``step`` needs a ``reset()`` first).

    Threads and processes: as for ``VecEnv`` (one thread at a time, overlapping calls raise
    ``MdvecError``; an Env created before ``os.fork()`` refuses calls in the child)."""

    def __init__(
        self,
        seed: int = 0,
        variant: str = "default",
        model: str | Path | None = None,
        *,
        task: str | None = None,
        on_error: str = "raise",
        **options: Any,
    ) -> None:
        self._h = _Handle(1, seed, 1, False, "disabled", task, variant, model, options, on_error)
        self._error_info = on_error == "end_episode"
        s = self._h.spec
        self.nu, self.obs_dim, self.nbody = s.act_dim, s.obs_dim, self._h.dims.nbody
        self.cfg = self._h.config
        self.info_keys = self._h.info_keys
        self.obs_layout = s.obs_layout  # as VecEnv's
        self.seed_max = s.seed_max
        self._types = [
            (k, _PYTHON_TYPE.get(np.dtype(np.float32) if dt == "action" else dt, float), w)
            for k, dt, w in s.info_fields
        ]

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start a new episode from the env's generator (reseeded when seed is given)."""
        if seed is not None and (not _is_int(seed) or not 0 <= int(seed) < 2**64):
            raise ValueError(f"seed: must be an integer in [0, 2**64), got {seed!r}")
        return self._h.reset_envs(seeds=None if seed is None else [int(seed)], then=lambda: self._h.obs[0].copy())

    def split_obs(self, obs: Any) -> dict[str, np.ndarray]:
        """Split a flat observation (obs_dim,) into {name: shape} views by ``obs_layout`` (as VecEnv's)."""
        return split_obs(self.obs_layout, obs, repr(self._h.spec.task))

    def reset_with_params(self, params: Any) -> np.ndarray:
        """Start an episode with the given parameters (e.g. a reference env's ``params``)."""
        return self._h.reset_with_params(0, params)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, dict[str, Any]]:
        """Apply one action (act_dim numbers: a list of ints too, as DuckEnv); return obs, reward, done, info."""
        a = np.asarray(action)
        spec = self._h.spec
        dtype = stepped_dtype(a.dtype, spec.follows_action_dtype, spec.task, "action")
        if dtype is None and a.dtype.kind in "biu":  # DuckEnv takes np.asarray(action, np.float64)
            dtype = _F64
        elif dtype is None:
            raise TypeError(f"action: expected numbers, got dtype {a.dtype}")
        a = a.astype(dtype, copy=False)
        if a.shape != (self.nu,):
            raise ValueError(f"action: expected shape ({self.nu},), got {a.shape}")
        return self._h.step(a.reshape(1, self.nu), self._results)

    def _results(self, a: np.ndarray) -> tuple[np.ndarray, float, bool, dict[str, Any]]:
        h = self._h
        info = {k: t(h.info[j, 0]) for j, (k, t, w) in enumerate(self._types) if w & _lib.INFO_STEP}
        if self._error_info:
            info["error"] = bool(h.error_flags[0])
        return h.obs[0].copy(), float(h.reward[0]), bool(h.done[0]), info

    def get_state(self, sig: Any = None) -> np.ndarray:
        """Return the env's MuJoCo state, (size,) float64: mj_getState with mjtState bits sig (None:
        mjSTATE_INTEGRATION; see VecEnv.get_state)."""
        return self._h.get_states([0], self._h._sig(sig))[0]

    def set_state(self, state: Any, sig: Any = None) -> None:
        """Write the env's state (size,) with mjtState bits sig (None: mjSTATE_INTEGRATION), then mj_forward
        (see VecEnv.set_state)."""
        self._h.set_states(state, [0], self._h._sig(sig))

    def set_qpos_qvel(self, qpos: Any, qvel: Any) -> None:
        """Gymnasium's ``set_state(qpos, qvel)`` (see VecEnv.set_qpos_qvel)."""
        q, v = np.asarray(qpos, np.float64), np.asarray(qvel, np.float64)
        spec = self._h.spec
        if q.shape != (spec.nq,) or v.shape != (spec.nv,):
            raise ValueError(f"qpos, qvel: expected shapes ({spec.nq},) and ({spec.nv},), got {q.shape}, {v.shape}")
        self._h.set_states(np.concatenate([q, v]), [0], _state.mjSTATE_QPOS | _state.mjSTATE_QVEL)

    def copy_data(self, mjdata: Any) -> None:
        """Copy the env's whole mjData into ``mjdata`` (see VecEnv.copy_data)."""
        self._h.copy_data(0, mjdata)

    def model_mjb(self) -> bytes:
        """Return the env's model as MJB bytes (see VecEnv.model_mjb)."""
        return self._h.model_mjb(0)

    def snapshot(self) -> bytes:
        """Return a snapshot of the env (see VecEnv.snapshot)."""
        return self._h.snapshot()

    def restore(self, blob: Any) -> None:
        """Restore a snapshot of an Env of the same task and options (see VecEnv.restore)."""
        self._h.restore(blob)
