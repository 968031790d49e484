"""What the core's vector env (``mdvec.make``) and the adapters (Gymnasium, SB3, RLlib) share: argument checks,
seeds, reset masks, info keys and dtypes, frames.

A core module: nothing here imports gymnasium or an adapter, so the core install uses it too, and the adapters
import it from the core (they depend on the core, never the core on them).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ._gl import make_renderer
from ._mjwarn import collected

SEED_LIMIT = 2**64  # seeds are unsigned 64-bit integers (numpy's PCG64(seed) for each env)
STEP, RESET = 1, 2  # info field bits (MDVEC_INFO_STEP, MDVEC_INFO_RESET)


def is_int(value: Any) -> bool:
    """True for Python and numpy integers, False for bools and everything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_seed(seed: Any, what: str = "seed", span: int = 1) -> int:
    """Return seed as an int in [0, 2**64 - span + 1), or raise TypeError/ValueError naming it."""
    if not is_int(seed):
        raise TypeError(f"{what}: expected an integer or None, got {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not 0 <= seed <= SEED_LIMIT - span:
        limit = "2**64" if span == 1 else f"2**64 - {span - 1}"
        raise ValueError(f"{what}: must lie in [0, {limit}), got {seed}")
    return seed


def vector_seeds(seed: Any, num_envs: int) -> list[int | None] | None:
    """Turn Gymnasium's vector ``seed`` into one entry per env (None: keep the env's generator).

    None -> None; an int s -> [s, s+1, ..., s+N-1]; a sequence of N ints or Nones -> itself.
    Raises TypeError or ValueError naming what is wrong before anything is reset.
    """
    if seed is None:
        return None
    if is_int(seed):
        first = check_seed(seed, "seed", num_envs)
        return [first + i for i in range(num_envs)]
    if isinstance(seed, np.ndarray):
        if seed.ndim != 1:
            raise ValueError(f"seed: a seed array must be one-dimensional, got shape {seed.shape}")
        seed = seed.tolist()
    if not isinstance(seed, (list, tuple)):
        raise TypeError(f"seed: expected None, an int or a list of {num_envs} ints/None, got {type(seed).__name__}")
    if len(seed) != num_envs:
        raise ValueError(f"seed: a list of seeds must hold num_envs={num_envs} entries, got {len(seed)}")
    return [None if s is None else check_seed(s, f"seed[{i}]") for i, s in enumerate(seed)]


def reset_mask(options: Any, num_envs: int, allowed: tuple[str, ...] = ("reset_mask",)) -> np.ndarray | None:
    """Return the ``reset_mask`` of Gymnasium reset options (None: reset every env), checked.

    The mask must be a numpy bool array of shape (N,) with at least one True (as Gymnasium's
    SyncVectorEnv requires). Other option keys are refused: the task has no reset options.
    """
    if options is None:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"options: expected a dict or None, got {type(options).__name__}")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"options: unknown reset option(s) {unknown}; supported: {list(allowed)}")
    if "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"options['reset_mask']: must be a numpy array, got {type(mask).__name__}")
    if mask.shape != (num_envs,):
        raise ValueError(f"options['reset_mask']: must have shape ({num_envs},), got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"options['reset_mask']: must have dtype bool, got {mask.dtype}")
    if not mask.any():
        raise ValueError("options['reset_mask']: must hold at least one True (no env would be reset)")
    return mask.copy()


def as_actions(actions: Any, shape: tuple[int, ...], spec: Any = None) -> np.ndarray:
    """Return actions as a C-contiguous array of the given shape, or raise.

    ``spec``: the ``mdvec.Spec`` of the C envs that step them. float32 and float64 of either byte order
    become native float32 / float64 (the same values; the task computes in the actions' dtype). Other
    floats and integers: as ``mdvec.vecenv.stepped_dtype`` says, refused with a TypeError when the task's
    results follow the actions' dtype (the Gymnasium v5 tasks: Gymnasium would compute in float16, long
    double or integers), else float64 (the reference converts them so). ``spec`` None (a Python reference,
    which computes as it does for any dtype): floats and integers keep their dtype. Anything else (bool,
    complex, object, strings) is a TypeError. Non-finite values are a ValueError. Nothing is stepped when
    this raises.
    """
    arr = np.asarray(actions)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"actions: expected a float32 or float64 array, got dtype {arr.dtype}")
    if spec is not None:
        from .vecenv import stepped_dtype

        dtype = stepped_dtype(arr.dtype, spec.follows_action_dtype, spec.task) or np.dtype(np.float64)
        arr = arr.astype(dtype, copy=False)
    if arr.shape != shape:
        raise ValueError(f"actions: expected shape {shape}, got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError("actions: values must be finite (got NaN or inf); no env was stepped")
    return np.ascontiguousarray(arr)


def render_camera(camera: Any, options: dict[str, Any], render_kwargs: tuple[str, ...]) -> Any:
    """The camera of an env's frames: ``camera`` when given, else, for a task whose reference takes
    Gymnasium's MuJoCo rendering keywords (``render_kwargs``), its ``camera_name`` or ``camera_id``. Both
    of those given is a ValueError, as Gymnasium's MujocoRenderer raises it."""
    if not render_kwargs:
        return camera
    name, ident = options.get("camera_name"), options.get("camera_id")
    if name is not None and ident is not None:
        raise ValueError(
            f"Both `camera_id` and `camera_name` cannot be specified at the same time (got camera_id={ident!r}, "
            f"camera_name={name!r}); pass one of them"
        )
    if camera is None:
        camera = name if name is not None else ident
    return camera


def autoreset_name(mode: Any) -> str:
    """Return "next_step", "same_step" or "disabled" for an AutoresetMode, its value or such a name."""
    value = getattr(mode, "value", mode)
    names = {
        "nextstep": "next_step",
        "next_step": "next_step",
        "samestep": "same_step",
        "same_step": "same_step",
        "disabled": "disabled",
    }
    if isinstance(value, str) and value.lower() in names:
        return names[value.lower()]
    raise ValueError(f"autoreset_mode: expected AutoresetMode.NEXT_STEP, SAME_STEP or DISABLED, got {mode!r}")


def field_bits(when: Any) -> int:
    """Return the STEP/RESET bits of an info field's ``when`` (bits, or a name such as "step|reset")."""
    if is_int(when):
        return int(when)
    text = str(when).lower()
    return (STEP if "step" in text else 0) | (RESET if "reset" in text else 0)


def kind_type(kind: str, dtype: np.dtype) -> Callable[[Any], Any]:
    """How the reference's single env types a value of ``kind`` (``Spec.info_kinds``, ``Spec.reward_kind``)
    and numpy ``dtype``: float32 values (terms of float32 actions) are np.float32; otherwise a Python
    float, int or bool, or for "numpy" the numpy scalar of the dtype (np.float64)."""
    if dtype == np.float32:
        return np.float32
    return {"float": float, "int": int, "bool": bool}.get(kind) or dtype.type


def field_dtype(dtype: Any, action_dtype: np.dtype) -> np.dtype:
    """Return the numpy dtype of an info field ("action": the dtype the last actions had)."""
    if isinstance(dtype, str) and dtype == "action":
        return np.dtype(action_dtype)
    return np.dtype(dtype)


_ELEMENT = re.compile(r"^(.*)\[(\d+)\]$")


def info_keys(fields: Any) -> list[tuple[str, Any, Any, int, bool]]:
    """Group a spec's info rows into info keys: (name, rows, dtype, bits, is_array).

    A row named ``name[k]`` is element k of the array-valued key ``name`` (e.g. Humanoid's
    ``tendon_length``): its rows (an index array) give the array, in order. Other rows are scalar keys
    (rows is the row number). Raises ValueError for a key declared twice or elements out of order.
    """
    keys: list[list[Any]] = []
    where: dict[str, int] = {}
    for k, (name, dtype, when) in enumerate(fields):
        bits = field_bits(when)
        dkey = "action" if isinstance(dtype, str) else np.dtype(dtype)
        m = _ELEMENT.match(name)
        base, element = (m.group(1), int(m.group(2))) if m else (name, None)
        if base in where:
            entry = keys[where[base]]
            if element is None or not entry[4] or element != len(entry[1]) or entry[2] != dkey or entry[3] != bits:
                raise ValueError(f"info field {name!r}: declared twice or out of order")
            entry[1].append(k)
            continue
        if element not in (None, 0):
            raise ValueError(f"info field {name!r}: an array's elements must start at [0]")
        where[base] = len(keys)
        keys.append([base, [k] if element is not None else k, dkey, bits, element is not None])
    return [(n, np.asarray(r, np.intp) if a else r, d, b, a) for n, r, d, b, a in keys]


def load_model(venv: Any) -> Any:
    """Return a ``mujoco.MjModel`` of an ``mdvec.VecEnv``'s envs, to draw their states on (mj_setState).

    From the MJCF file they were loaded from (``venv.model_path``); for a task whose model is built into
    the library with no file (an MJCF string, e.g. ``cartpole_swingup``), the model of its reference (the
    Python entry point its ``reference`` metadata names, made with the envs' options): the same MJCF, as
    each such task's tests check. Raises ValueError for a built-in model without such a reference.
    """
    import mujoco

    from .vecenv import is_gymnasium_id, task_meta

    try:
        path = venv.model_path
    except ValueError:
        path = None
    if path is not None:
        with collected():  # e.g. half_cheetah.xml's deprecated attribute: not into ./MUJOCO_LOG.TXT
            return mujoco.MjModel.from_xml_path(str(path))
    task, options = venv.spec.task, dict(venv.spec.options)
    reference = task_meta(task, "reference")
    if not reference or is_gymnasium_id(reference):
        raise ValueError(f"task {task!r} runs a built-in model with no file and no Python reference to draw it with")
    env = make_entry_point(reference, 0, options)
    return getattr(env, "unwrapped", env).model


def make_entry_point(target: str, seed: int, options: dict[str, Any]) -> Any:
    """Make a task's Python reference, its "reference" metadata "module:attr" (imported now): ``attr(**options)``
    when attr says ``gymnasium_api = True`` (Gymnasium's reset/step, seeded at its first reset), else
    ``attr(seed=seed, **options)`` (e.g. ``mdvec.reference.DuckEnv``)."""
    import importlib

    module, _, attr = target.partition(":")
    factory = getattr(importlib.import_module(module), attr)
    return factory(**options) if getattr(factory, "gymnasium_api", False) else factory(seed=seed, **options)


class FrameRenderer:
    """RGB frames of one model through mujoco.Renderer, made on first use.

    ``camera``: None follows body 1 (the robot's root) with a free camera; an int or a name picks a
    camera of the model. A missing OpenGL raises RuntimeError saying how to get one; the envs
    themselves are untouched by a failed render.
    """

    def __init__(self, model: Any, width: int = 480, height: int = 480, camera: int | str | None = None) -> None:
        for name, value in (("width", width), ("height", height)):
            if not is_int(value) or value <= 0:
                raise ValueError(f"{name}: must be a positive integer, got {value!r}")
        if camera is not None and not isinstance(camera, str) and not is_int(camera):
            raise TypeError(f"camera: expected None, a camera id or a camera name, got {camera!r}")
        self.model, self.width, self.height, self.camera = model, int(width), int(height), camera
        self.data: Any = None  # scratch MjData for render_states
        self._renderer: Any = None
        self._cam: Any = None

    def _make(self) -> None:
        import mujoco

        m = self.model
        self._renderer = make_renderer(m, self.width, self.height)  # NoGLError (a RuntimeError) says what to do
        if self.camera is None:
            cam = mujoco.MjvCamera()
            mujoco.mjv_defaultFreeCamera(m, cam)
            cam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
            cam.trackbodyid = 1 if m.nbody > 1 else 0
            cam.distance = 2.2 * float(m.stat.extent)
            cam.elevation = -20.0
            cam.azimuth = 135.0
            self._cam = cam
        elif isinstance(self.camera, str):
            ident = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_CAMERA, self.camera)
            if ident < 0:
                raise ValueError(f"camera: the model has no camera named {self.camera!r}")
            self._cam = ident
        else:
            if not -1 <= int(self.camera) < m.ncam:
                raise ValueError(f"camera: id must lie in [-1, {m.ncam}), got {self.camera}")
            self._cam = int(self.camera)

    def render(self, data: Any) -> np.ndarray:
        """Return an (height, width, 3) uint8 frame of data (already forwarded)."""
        if self._renderer is None:
            self._make()
        self._renderer.update_scene(data, camera=self._cam)
        return self._renderer.render().copy()

    def render_states(self, venv: Any, indices: Any) -> list[np.ndarray]:
        """Return one frame per env index of an ``mdvec.VecEnv`` (its state drawn on a model of its MJCF)."""
        import mujoco

        if self.model is None:
            self.model = load_model(venv)
        if self.data is None:
            self.data = mujoco.MjData(self.model)
        sig = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
        frames = []
        for i in indices:
            mujoco.mj_setState(self.model, self.data, np.asarray(venv.get_state(int(i), sig), np.float64), sig)
            mujoco.mj_forward(self.model, self.data)
            frames.append(self.render(self.data))
        return frames

    def close(self) -> None:
        """Free the GL context."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
