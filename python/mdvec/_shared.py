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


GYM_RENDER_MODES = ("rgb_array", "depth_array", "rgbd_tuple")  # Gymnasium's MujocoRenderer's off-screen modes
# the rendering keywords of a Gymnasium MuJoCo env besides render_mode, width and height (MujocoEnv.__init__'s)
GYM_RENDER_OPTIONS = ("camera_id", "camera_name", "default_camera_config", "max_geom", "visual_options")


def gym_render_defaults(gym_id: str) -> dict[str, Any]:
    """The keywords Gymnasium's MuJoCo env ``gym_id`` hands its MujocoRenderer when its caller passes none, read
    from Gymnasium at run time: the ``default_camera_config``, ``max_geom`` and ``visual_options`` defaults of the
    class the id names (e.g. Hopper-v5's DEFAULT_CAMERA_CONFIG; InvertedDoublePendulum-v5's is None), else
    MujocoEnv's. Raises ImportError without Gymnasium's MuJoCo envs."""
    import inspect

    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    try:
        from gymnasium.envs.mujoco.mujoco_env import MujocoEnv
    except Exception as exc:  # ImportError, or Gymnasium's DependencyNotInstalled (imageio)
        raise ImportError(
            f"render: {gym_id}'s frames are drawn as Gymnasium's MujocoRenderer draws them, with its defaults read "
            f"from Gymnasium's MuJoCo envs, which cannot be imported here ({type(exc).__name__}: {exc}): pip install "
            "'gymnasium[mujoco]' (pixel observations, obs_mode='pixels', need no more than gymnasium)"
        ) from exc

    base = inspect.signature(MujocoEnv.__init__).parameters
    out = {key: base[key].default for key in ("default_camera_config", "max_geom", "visual_options")}
    point = gymnasium.spec(gym_id).entry_point
    cls: Any = load_env_creator(point) if isinstance(point, str) else point
    own = inspect.signature(cls.__init__).parameters
    for key in out:
        if key in own and own[key].default is not inspect.Parameter.empty:
            out[key] = own[key].default
    out.update({k: v for k, v in gymnasium.spec(gym_id).kwargs.items() if k in out})  # the registration's
    return out


def task_frames(
    task: str, width: int, height: int, camera: Any, options: dict[str, Any], mode: str | None = "rgb_array"
) -> tuple[FrameRenderer, dict[str, Any]]:
    """The FrameRenderer of a task's envs and the task options left once its rendering keywords are taken out.

    A task whose reference is a Gymnasium MuJoCo env (its "reference" metadata a Gymnasium id: the v5 tasks)
    renders as that env's MujocoRenderer does: its ``default_camera_config`` (the option, else the reference
    class's default), ``max_geom`` and ``visual_options``; ``camera_id``/``camera_name`` (also as ``camera``: an
    id or a name; not both); ``mode`` "rgb_array", "depth_array" or "rgbd_tuple". Those keywords are taken out of
    ``options`` (they are no options of the C task). Any other task: FrameRenderer's own camera (``camera``; None:
    a camera tracking body 1), "rgb_array" only."""
    from .vecenv import is_gymnasium_id, task_meta

    declared = task_meta(task, "render_kwargs")  # the reference's rendering keywords, "a,b,c"
    names = tuple(declared.split(",")) if declared else ()
    reference = task_meta(task, "reference")
    rest = {k: v for k, v in options.items() if k not in GYM_RENDER_OPTIONS or k not in names}
    if not is_gymnasium_id(reference):
        if mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: task {task!r} renders 'rgb_array' frames only, got {mode!r}")
        return FrameRenderer(None, width, height, camera), rest
    if mode == "human":
        raise ValueError(
            "render_mode: 'human' opens a window per env; mdvec's vector envs draw off-screen frames only: pass "
            f"one of {list(GYM_RENDER_MODES)} (and show them yourself), or watch one env with "
            f"gymnasium.make({task_meta(task, 'id')!r}, render_mode='human') where a display exists"
        )
    if mode not in (None, *GYM_RENDER_MODES):
        raise ValueError(f"render_mode: expected None or one of {list(GYM_RENDER_MODES)}, got {mode!r}")
    given = {k: options[k] for k in GYM_RENDER_OPTIONS if k in options and k in names}
    camera = render_camera(camera, given, names)
    config = {"reference": str(reference), **{k: v for k, v in given.items() if k not in ("camera_id", "camera_name")}}
    return FrameRenderer(None, width, height, camera, gym=config, mode=mode or "rgb_array"), rest


class FrameRenderer:
    """Frames of one model's states, drawn as the task's reference draws them, made on first use.

    One GL context and one mjrContext for every ``key`` (an env's index; frames equal those of a context per env,
    byte for byte); each key has its own camera and its own mjvScene, as each reference env has its renderer:
    both keep state from one frame to the next (a tracking camera moves a fifth of the way to its body per frame;
    an mjvScene keeps its last camera, under which mjv_updateScene places an infinite plane, the duck's floor,
    before it updates the camera: in a fresh scene the plane is at the origin).

    Without ``gym`` (the duck, cartpole_swingup, the Control Suite): RGB frames as ``mujoco.Renderer`` draws them
    (10000 geoms, default options, no perturbation); ``camera`` None: a camera tracking body 1 (the robot's root),
    an int or a name: that camera of the model (-1 the free camera).

    With ``gym`` (what ``task_frames`` gives for a task whose reference is a Gymnasium MuJoCo env: its id as
    "reference", whose ``gym_render_defaults`` are read at the first frame, and the ``default_camera_config``,
    ``max_geom``, ``visual_options`` given instead): the frames of Gymnasium's MujocoRenderer and
    OffScreenViewer, call for call (mjv_updateScene with mjCAT_ALL, mjr_render, mjr_readPixels of RGB and depth,
    each flipped upside down; depth the raw depth buffer, as Gymnasium 1.x returns it), in ``mode``
    "rgb_array", "depth_array" or "rgbd_tuple" (a tuple (rgb, depth)). ``camera`` None: the free camera (as
    MujocoRenderer with neither camera_id nor camera_name); a name: ``camera_name`` (a name the model lacks
    gives the free camera, as Gymnasium's mj_name2id -1 does); an int: ``camera_id``. The free camera of each
    key is set up as OffScreenViewer sets it up, from the state drawn the first time that key is drawn (lookat
    at the median of geom_xpos, distance model.stat.extent, then the camera config), and kept.

    A missing OpenGL raises NoGLError (a RuntimeError) saying how to get one; the envs themselves are untouched
    by a failed render.
    """

    def __init__(
        self,
        model: Any,
        width: int = 480,
        height: int = 480,
        camera: int | str | None = None,
        *,
        gym: dict[str, Any] | None = None,
        mode: str = "rgb_array",
    ) -> None:
        for name, value in (("width", width), ("height", height)):
            if not is_int(value) or value <= 0:
                raise ValueError(f"{name}: must be a positive integer, got {value!r}")
        if camera is not None and not isinstance(camera, str) and not is_int(camera):
            raise TypeError(f"camera: expected None, a camera id or a camera name, got {camera!r}")
        modes = GYM_RENDER_MODES if gym is not None else ("rgb_array",)
        if mode not in modes:
            raise ValueError(f"mode: expected one of {list(modes)}, got {mode!r}")
        self.model, self.width, self.height, self.camera = model, int(width), int(height), camera
        self.gym, self.mode = (dict(gym) if gym is not None else None), mode
        self.data: Any = None  # scratch MjData for render_states
        self._gl: Any = None  # (GL context, mjrContext, option, perturb, viewport, max_geom)
        self._views: dict[Any, tuple[Any, Any]] = {}  # each key's (camera, scene)
        self._camera_id = -1

    def _camera_of(self) -> int:
        """The camera id drawn through (-1: the free camera; None camera without ``gym``: -2, tracking)."""
        import mujoco

        m = self.model
        if self.gym is not None:  # MujocoRenderer.__init__: "track", then (Gymnasium >= 1.4) forced to -1
            if self.camera is None:
                from ._gl import gymnasium_track_camera

                track = int(mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_CAMERA, "track"))
                return track if gymnasium_track_camera() else -1  # a missing name gives -1
            if isinstance(self.camera, str):
                return int(mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_CAMERA, self.camera))
            return int(self.camera)
        if self.camera is None:
            return -2
        if isinstance(self.camera, str):
            ident = int(mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_CAMERA, self.camera))
            if ident < 0:
                raise ValueError(f"camera: the model has no camera named {self.camera!r}")
            return ident
        if not -1 <= int(self.camera) < m.ncam:
            raise ValueError(f"camera: id must lie in [-1, {m.ncam}), got {self.camera}")
        return int(self.camera)

    def _make(self) -> None:
        """The GL context, mjrContext and options (Gymnasium's BaseRender.__init__, or mujoco.Renderer's)."""
        import mujoco

        from ._gl import grow_offscreen, make_context

        m = self.model
        if self.gym is not None and "reference" in self.gym:  # Gymnasium's defaults, read now (it imports GL)
            given, self.gym = self.gym, gym_render_defaults(self.gym["reference"])
            self.gym.update({k: given[k] for k in self.gym if k in given})
        self._camera_id = self._camera_of()  # before any GL: a bad camera is a ValueError
        grow_offscreen(m, self.width, self.height, gymnasium_rule=self.gym is not None)  # as the reference sizes it
        context = make_context(self.width, self.height)  # NoGLError says what to do
        try:
            context.make_current()
            option = mujoco.MjvOption()
            for flag, value in ((self.gym or {}).get("visual_options") or {}).items():
                option.flags[flag] = value
            con = mujoco.MjrContext(m, mujoco.mjtFontScale.mjFONTSCALE_150)
            mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, con)
        except Exception:
            context.free()
            raise
        perturb = mujoco.MjvPerturb() if self.gym is not None else None  # mujoco.Renderer passes none
        max_geom = int((self.gym.get("max_geom") or 1000) if self.gym is not None else 10000)
        self._gl = (context, con, option, perturb, mujoco.MjrRect(0, 0, self.width, self.height), max_geom)

    def _view(self, key: Any, data: Any) -> tuple[Any, Any]:
        """The camera and scene of ``key``, made the first time it is drawn (from that state's geom_xpos: Gymnasium's
        OffScreenViewer._init_camera, then MujocoRenderer._set_cam_config)."""
        view = self._views.get(key)
        if view is not None:
            return view
        import mujoco

        m, cam = self.model, mujoco.MjvCamera()
        if self.gym is not None:
            cam.type = mujoco.mjtCamera.mjCAMERA_FREE
            cam.fixedcamid = -1
            for i in range(3):
                cam.lookat[i] = np.median(data.geom_xpos[:, i])
            cam.distance = m.stat.extent
            for name, value in (self.gym.get("default_camera_config") or {}).items():
                if isinstance(value, np.ndarray):
                    getattr(cam, name)[:] = value
                else:
                    setattr(cam, name, value)
        elif self._camera_id == -2:  # a camera tracking body 1
            mujoco.mjv_defaultFreeCamera(m, cam)
            cam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
            cam.trackbodyid = 1 if m.nbody > 1 else 0
            cam.distance = 2.2 * float(m.stat.extent)
            cam.elevation = -20.0
            cam.azimuth = 135.0
        elif self._camera_id == -1:  # mujoco.Renderer's free camera
            cam.fixedcamid = -1
            cam.type = mujoco.mjtCamera.mjCAMERA_FREE
            mujoco.mjv_defaultFreeCamera(m, cam)
        else:
            cam.fixedcamid = self._camera_id
            cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
        view = self._views[key] = (cam, mujoco.MjvScene(m, self._gl[5]))
        return view

    def render(self, data: Any, key: Any = 0) -> Any:
        """Return a frame of data (already forwarded) drawn through the camera and scene of ``key``: an (height,
        width, 3) uint8 RGB frame, or with ``gym`` the ``mode``'s (depth (height, width) float32, or the tuple
        (rgb, depth)), flipped views as Gymnasium's OffScreenViewer returns them."""
        import mujoco

        if self._gl is None:
            self._make()
        context, con, option, perturb, viewport, _ = self._gl
        cam, scene = self._view(key, data)
        if self.gym is not None:  # OffScreenViewer.render(mode, camera_id)
            cam.type = mujoco.mjtCamera.mjCAMERA_FREE if self._camera_id == -1 else mujoco.mjtCamera.mjCAMERA_FIXED
            cam.fixedcamid = self._camera_id
        context.make_current()
        mujoco.mjv_updateScene(self.model, data, option, perturb, cam, mujoco.mjtCatBit.mjCAT_ALL, scene)
        mujoco.mjr_render(viewport, scene, con)
        rgb = np.zeros(3 * self.width * self.height, dtype=np.uint8)
        depth = np.zeros(self.width * self.height, dtype=np.float32) if self.gym is not None else None
        mujoco.mjr_readPixels(rgb, depth, viewport, con)
        rgb_img = rgb.reshape((self.height, self.width, 3))[::-1, :]  # GL's rows are bottom first
        if self.gym is None:
            return np.ascontiguousarray(rgb_img)
        assert depth is not None
        depth_img = depth.reshape((self.height, self.width))[::-1, :]
        if self.mode == "rgb_array":
            return rgb_img
        if self.mode == "depth_array":
            return depth_img
        return rgb_img, depth_img

    def render_states(self, venv: Any, indices: Any) -> list[Any]:
        """Return one frame per env index of an ``mdvec.VecEnv``: env i's whole mjData (``copy_data``) drawn on a
        model of its MJCF through env i's own camera and scene. The C env's mjData is its reference's after the
        same calls, kinematics included: Gymnasium's MujocoEnv and the cart-pole's reference end a step with
        mj_step, whose positions are those of the last substep's start, which mj_forward of the state would move
        (their frames then differ)."""
        import mujoco

        if self.model is None:
            self.model = load_model(venv)
        if self.data is None:
            self.data = mujoco.MjData(self.model)
        frames = []
        for i in indices:
            venv.copy_data(int(i), self.data)
            frames.append(self.render(self.data, int(i)))
        return frames

    def close(self) -> None:
        """Free the GL context."""
        gl, self._gl = self._gl, None
        self._views.clear()
        if gl is not None:
            gl[1].free()
            gl[0].free()
