"""One environment as a ``gymnasium.Env``: the C task (backend="c") or its Python reference (backend="reference").

The Gymnasium class (``MdvecTaskEnv``, one subclass per registered task) checks arguments and
delegates to a *core*: ``CCore`` (one env of ``mdvec.VecEnv`` with autoreset disabled) or a
reference core (``DuckReferenceCore`` for the duck, ``GymReferenceCore`` around any gymnasium.Env).
A core has ``observation_space``, ``action_space``, ``reset(seed) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``, ``physics() -> (model, data)``
(forwarded, for rendering) and ``close()``.

Seeding: an env is seeded from its constructor ``seed`` (default 0) until ``reset(seed=...)``
reseeds it; ``reset()`` without a seed continues the env's own generator. Both backends do this,
so ``reset()`` is deterministic from construction on.

A Control Suite task ("mdvec/cheetah-run-v0") is Shimmy's ``DmControlCompatibilityV0`` around
``dm_control.suite.load``: ``reset(seed=s)`` gives the task ``np.random.RandomState(s)`` (s in [0, 2**32 - 1]),
the observation is a dict of float64 arrays in dm_control's order, its space a Dict of Box(-inf, inf, shape,
float64), the action space Box(float64) with the action spec's bounds; ``flat_observation=True`` gives one
float64 vector in dm_control's flatten_observation order instead (``mdvec.vector``'s module docstring). The
C backend cuts its dict from the library's flat observation by the task's obs_layout; the reference backend
gives dm_control's own observation OrderedDict (each value copied), so comparing them compares like with like.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import load_env_creator
from gymnasium.utils import seeding

from ..._calls import CallLock, NoCopy
from ..._gl import make_renderer
from ..._shared import (
    RESET,
    STEP,
    FrameRenderer,
    as_actions,
    check_seed,
    field_dtype,
    info_keys,
    kind_type,
    render_camera,
)
from ..._shared import reset_mask as _check_reset_options
from ...vector import RANDOMSTATE_SEED_MAX, DictObs, check_suite_seed, is_suite_task, render_model, suite_action_bounds
from ._mujoco import MujocoMembers, add_mujoco_base, mjb_digest, model_from_mjb

if TYPE_CHECKING:
    from ._tasks import TaskEntry

BACKENDS = ("c", "reference")


def gym_reset_draws(gym_id: str, nq: int, nv: int, noise_scale: float) -> Callable[..., None]:
    """Return draws(rng, init=None): the random draws one reset of Gymnasium's ``gym_id`` env makes, made on rng.

    Gymnasium's own code makes them: the ``reset_model`` of the class the id names, run on a stand-in env
    that only draws (its np_random is rng; set_state and _get_obs do nothing). So the count and kind of
    the draws (uniform, standard_normal, Reacher's and Pusher's rejection loops) are the reference's.
    ``init``: the stand-in's (init_qpos, init_qvel), which reset_model may write into as the reference's does
    (Pusher-v5's aliases its init_qpos); None: read-only zeros, so that such a write raises ValueError (the
    caller then restores rng and draws again with arrays to write into).
    Raises ImportError when Gymnasium's MuJoCo envs cannot be imported."""
    point = gymnasium.spec(gym_id).entry_point  # e.g. "gymnasium.envs.mujoco.hopper_v5:HopperEnv"
    cls: Any = load_env_creator(point) if isinstance(point, str) else point
    zeros = np.zeros(nq), np.zeros(nv)
    for a in zeros:
        a.flags.writeable = False

    def draws(rng: np.random.Generator, init: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        qpos0, qvel0 = zeros if init is None else init
        stand_in = types.SimpleNamespace(
            np_random=rng,
            _reset_noise_scale=noise_scale,
            init_qpos=qpos0,
            init_qvel=qvel0,
            model=types.SimpleNamespace(nq=nq, nv=nv),
            set_state=lambda qpos, qvel: None,
            _get_obs=lambda: None,
        )
        cls.reset_model(stand_in)

    return draws


class EnvClosedError(gymnasium.error.ClosedEnvironmentError, RuntimeError):
    """A call on an env after its ``close()``: Gymnasium's ClosedEnvironmentError (and a RuntimeError, what mdvec
    raised before)."""


def closed_error(owner: Any, call: str) -> EnvClosedError:
    """The error of ``call`` on a closed env."""
    return EnvClosedError(
        f"{call}: trying to operate on {type(owner).__name__} after a call to close(): the environment is closed "
        "(its C envs are freed); make a new one"
    )


def obs_box(dim: int, dtype: Any = np.float32) -> spaces.Box:
    """The observation space of a task: unbounded, (obs_dim,), of the task's obs dtype."""
    return spaces.Box(-np.inf, np.inf, (int(dim),), np.dtype(dtype))


def action_box(low: Any, high: Any) -> spaces.Box:
    """The action space of a task: float32 bounds as the task declares them."""
    low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
    return spaces.Box(low, high, low.shape, np.float32)


class CCore:
    """One env of the C task (an ``mdvec.VecEnv`` of one env, autoreset disabled); rewards and info values
    have the Python types of the reference's (the kinds the task declares: Spec.reward_kind, info_kinds)."""

    def __init__(self, task: str, seed: int, options: dict[str, Any]) -> None:
        from ...vecenv import VecEnv, is_gymnasium_id, task_meta

        self.venv = VecEnv(1, seed=seed, threads=1, task=task, autoreset_mode="disabled", **options)
        spec = self.venv.spec
        self.spec = spec
        self.observation_space = obs_box(spec.obs_dim, spec.obs_dtype)
        self.action_space = action_box(spec.action_low, spec.action_high)
        self._buf = self.venv.buffers()
        keys = info_keys(spec.info_fields)
        self._step_fields = [(rows, n, d, a) for n, rows, d, bits, a in keys if bits & STEP]
        self._reset_fields = [(rows, n, d, a) for n, rows, d, bits, a in keys if bits & RESET]
        self.render_fps = spec.render_fps
        self._kinds = {name: kind for (name, _, _), kind in zip(spec.info_fields, spec.info_kinds)}
        self._reward_type = kind_type(spec.reward_kind, np.dtype(np.float64))
        self._types: dict[tuple[str, Any], Callable[[Any], Any]] = {}
        self._model: Any = None
        self._data: Any = None
        # the MujocoEnv members' views of the C env (mdvec.gym._mujoco): model and data copies, made on first read
        self.dt = float(spec.dt)
        frame_skip = spec.options.get("frame_skip")
        self.frame_skip = int(frame_skip) if isinstance(frame_skip, (int, np.integer)) else None
        self.offscreen = (480, 480)  # the env's width and height: the model's offscreen buffer grows to them
        reference = task_meta(task, "reference")
        self.model_varies = not is_gymnasium_id(reference)  # a Gymnasium env's model never changes at reset
        self._mj_model: Any = None
        self._mj_data: Any = None
        self._mjb_digest: bytes | None = None
        self._model_stale = False  # reset since the model was read (a model that may change at reset)
        self._data_stale = True  # the env moved since data was copied

    def reference_env(self) -> Any:
        """The reference env whose MujocoEnv members are forwarded (none: the physics is in C)."""
        return None

    def nq_nv(self) -> tuple[int, int]:
        return int(self.spec.nq), int(self.spec.nv)

    def changed(self, reset: bool) -> None:
        """The env moved (stepped, reset, set): data is copied again when next read, the model too after a reset
        of a task whose model may change then."""
        self._data_stale = True
        if reset and self.model_varies:
            self._model_stale = True

    def mj_model(self) -> Any:
        """The C env's model as a mujoco.MjModel (its MJB), made on first read; read again after a reset of a task
        whose model may change at reset, a new object only when it did (data is then a new object too)."""
        if self._mj_model is None or self._model_stale:
            import mujoco

            blob = self.venv.model_mjb(0)
            digest = mjb_digest(blob)
            if self._mj_model is None or digest != self._mjb_digest:
                self._mj_model = model_from_mjb(blob, *self.offscreen, gymnasium_rule=not self.model_varies)
                self._mj_data = mujoco.MjData(self._mj_model)
                self._mjb_digest = digest
                self._data_stale = True
            self._model_stale = False
        return self._mj_model

    def mj_data(self) -> Any:
        """A mujoco.MjData holding the C env's whole mjData as of its last reset, step or set_state (copied when
        the env moved since the last read)."""
        self.mj_model()
        if self._data_stale:
            self.venv.copy_data(0, self._mj_data)
            self._data_stale = False
        return self._mj_data

    def set_qpos_qvel(self, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """The C env's qpos and qvel set (mj_setState), then mj_forward: MujocoEnv.set_state."""
        self.venv.set_qpos_qvel(qpos, qvel, 0)
        self.changed(False)

    def _info(self, buf: np.ndarray, fields: list, action_dtype: Any) -> dict[str, Any]:
        column = buf[:, 0].tolist()
        out = {}
        for rows, name, dtype, is_array in fields:
            dt = field_dtype(dtype, action_dtype)
            if is_array:  # an array-valued key: a fresh array of its dtype
                out[name] = buf[rows, 0].astype(dt)
                continue
            conv = self._types.get((name, dt))
            if conv is None:
                conv = self._types[(name, dt)] = kind_type(self._kinds[name], dt)
            out[name] = conv(column[rows])
        return out

    def reset(self, seed: int | None) -> tuple[np.ndarray, dict[str, Any]]:
        self.venv.reset_envs(seeds=None if seed is None else [seed])
        return self._buf["obs"][0].copy(), self._info(self._buf["reset_info"], self._reset_fields, np.float64)

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.venv.step_into_buffers(action.reshape(1, -1))
        b = self._buf
        info = self._info(b["info"], self._step_fields, action.dtype)
        return (
            b["obs"][0].copy(),
            self._reward_type(b["reward"][0]),
            bool(b["terminated"][0]),
            bool(b["truncated"][0]),
            info,
        )

    def physics(self) -> tuple[Any, Any]:
        import mujoco

        if self._model is None:
            self._model = render_model(self.venv)  # a Control Suite task's: dm_control's own model
            self._data = mujoco.MjData(self._model)
        # the env's whole mjData, as its step left it (what the reference draws): a state set back and run through
        # mj_forward moves what a step leaves stale (the cart-pole's frames differed after steps)
        self.venv.copy_data(0, self._data)
        return self._model, self._data

    def close(self) -> None:
        self._buf = {}  # drop the buffer views first, so that close() frees the memory at once
        self.venv.close()


class LiveCore:
    """What the reference cores share for the MujocoEnv members (mdvec.gym._mujoco): the reference's own model and
    data, live (``physics()``), set as MujocoEnv.set_state sets them."""

    env: Any

    def physics(self) -> tuple[Any, Any]:
        raise NotImplementedError

    def reference_env(self) -> Any:
        """The reference env whose MujocoEnv members are forwarded (None: built here on model and data)."""
        return None

    def mj_model(self) -> Any:
        return self.physics()[0]

    def mj_data(self) -> Any:
        return self.physics()[1]

    def nq_nv(self) -> tuple[int, int]:
        model = self.mj_model()
        return int(model.nq), int(model.nv)

    def changed(self, reset: bool) -> None:
        """Nothing to do: model and data are the reference's own."""

    def set_qpos_qvel(self, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """MujocoEnv.set_state on the reference's model and data."""
        import mujoco

        model, data = self.physics()
        data.qpos[:] = qpos
        data.qvel[:] = qvel
        mujoco.mj_forward(model, data)


class DuckReferenceCore(LiveCore):
    """One ``mdvec.reference.DuckEnv`` (or an env with its interface, made by the caller): info as DuckEnv
    gives it (Python int/bool/float), reset info empty."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.dt = float(env.model.opt.timestep * env.cfg.substeps)
        self.frame_skip = int(env.cfg.substeps)
        self.render_fps = int(np.round(1.0 / (env.model.opt.timestep * env.cfg.substeps)))  # round(1 / dt)
        self.observation_space = obs_box(self.env.obs_dim)
        self.action_space = action_box(-np.ones(self.env.nu), np.ones(self.env.nu))

    def reset(self, seed: int | None) -> tuple[np.ndarray, dict[str, Any]]:
        return self.env.reset(seed=seed), {}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, _, info = self.env.step(action)
        return obs, reward, info["terminated"], info["truncated"], info

    def physics(self) -> tuple[Any, Any]:
        return self.env.model, self.env.data

    def close(self) -> None:
        pass


class PlainReferenceCore(LiveCore):
    """A reference with Gymnasium's reset/step API, ``obs_dim``, ``act_low``/``act_high`` and
    ``model``/``data``, without being a gymnasium.Env (e.g. ``mdvec.reference.CartPoleSwingup``); seeded
    from the constructor seed until reseeded."""

    def __init__(self, env: Any, seed: int) -> None:
        self.env = env
        self._seed: int | None = seed  # None once used
        dt = getattr(env, "dt", None)  # seconds per step, as Gymnasium's MujocoEnv.dt
        self.dt = dt
        self.frame_skip = getattr(env, "n_sub_steps", None)  # a Control Suite reference's physics steps per step
        self.render_fps = int(np.round(1.0 / dt)) if dt else None  # round(1 / dt), as Gymnasium's MujocoEnv
        self.observation_space = obs_box(env.obs_dim, np.float64)
        self.action_space = action_box(env.act_low, env.act_high)

    def reset(self, seed: int | None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is None and self._seed is not None:
            seed = self._seed  # the first reset without a seed uses the constructor's
        self._seed = None
        return self.env.reset(seed=seed)

    def step(self, action: np.ndarray) -> tuple[Any, ...]:
        return self.env.step(action)

    def physics(self) -> tuple[Any, Any]:
        return self.env.model, self.env.data

    def close(self) -> None:
        pass


class GymReferenceCore(LiveCore):
    """Any gymnasium.Env as a reference core, seeded from the constructor seed until reseeded."""

    def __init__(self, env: gymnasium.Env, seed: int) -> None:
        self.env = env
        self._seed: int | None = seed  # None once used
        self.render_fps = env.metadata.get("render_fps")
        self.observation_space, self.action_space = env.observation_space, env.action_space
        self.frame_skip = getattr(env.unwrapped, "frame_skip", None)

    @property
    def dt(self) -> float:
        return float(self.env.unwrapped.dt)

    def reference_env(self) -> Any:
        """The reference env (Gymnasium's MujocoEnv, e.g. Hopper-v5's HopperEnv): its members are forwarded."""
        return self.env.unwrapped

    def set_qpos_qvel(self, qpos: np.ndarray, qvel: np.ndarray) -> None:
        u = self.env.unwrapped
        if hasattr(u, "set_state"):
            u.set_state(qpos, qvel)
        else:
            super().set_qpos_qvel(qpos, qvel)

    def reset(self, seed: int | None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is None and self._seed is not None:
            seed = self._seed  # the first reset without a seed uses the constructor's
        self._seed = None
        return self.env.reset(seed=seed)

    def step(self, action: np.ndarray) -> tuple[Any, ...]:
        return self.env.step(action)

    def physics(self) -> tuple[Any, Any]:
        u = self.env.unwrapped
        if not hasattr(u, "model") or not hasattr(u, "data"):
            raise RuntimeError(f"render: the reference env {type(u).__name__} has no MuJoCo model/data to draw")
        return u.model, u.data

    def close(self) -> None:
        self.env.close()


class MdvecTaskEnv(MujocoMembers, NoCopy, gymnasium.Env):
    """A registered mdvec task as one ``gymnasium.Env`` (see the subclasses made by ``register_task``).

    ``backend``: "c" (libmdvec) or "reference" (the Python reference); both give the same bits.
    ``seed``: the constructor seed (reset() without a seed starts from it). ``render_mode``: None or one of
    ``metadata["render_modes"]``. A task whose reference is a Gymnasium MuJoCo env ("mdvec/Hopper-v5") renders as
    it does, with Gymnasium's MujocoRenderer ("rgb_array", "depth_array", "rgbd_tuple"; ``width``, ``height``,
    ``camera_id``/``camera_name`` and the ``default_camera_config``, ``max_geom`` and ``visual_options`` options,
    their defaults the reference's), so frames equal the reference's byte for byte. Other tasks render "rgb_array"
    frames as their reference does (``width``, ``height``, ``camera``; ``camera`` None: a camera tracking body 1,
    or a Control Suite task's camera 0). ``camera``: an id or name, as camera_id or camera_name.
    ``flat_observation``: a Control Suite task's observation as one float64 vector (dm_control's
    flatten_observation order) instead of Shimmy's dict (see the module docstring); no effect on other tasks.
    Other keywords are task options.

    The env is a ``gymnasium.envs.mujoco.MujocoEnv`` (``isinstance`` is true: ``mdvec.gym._mujoco.add_mujoco_base``
    makes MujocoEnv a base of this class when the first env is made) with its
    members ``model``, ``data``, ``dt``, ``frame_skip``, ``init_qpos``, ``init_qvel``, ``set_state``,
    ``state_vector``, ``get_body_com``, ``observation_structure`` and ``mujoco_renderer``: with backend "c" views of
    the C env (``data`` a copy of its mjData; writes to model or data never reach the C env: use
    ``set_state(qpos, qvel)``); see ``mdvec.gym._mujoco``.

    A call after ``close()`` raises ``EnvClosedError`` (Gymnasium's ClosedEnvironmentError, also a RuntimeError).
    ``step`` takes an action of the action space's shape: another shape (``step(0)``) is a ValueError, as
    Gymnasium's MujocoEnv raises it.

    Threads and processes, as ``mdvec.VecEnv``: one thread at a time (a call overlapping another raises
    ``MdvecError``, "concurrent call"); ``close()`` from another thread waits for a call in progress, which
    completes and returns its results. With backend "c", copies and pickles are refused (TypeError: they
    would share the C env) and after ``os.fork()`` the child's calls raise; the reference backend copies
    as any Python env.
    """

    entry: TaskEntry  # set on each registered subclass
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 50}  # noqa: RUF012 - as gymnasium.Env

    def __init__(
        self,
        backend: str = "c",
        render_mode: str | None = None,
        seed: int = 0,
        width: int = 480,
        height: int = 480,
        camera: int | str | None = None,
        flat_observation: bool = False,
        **options: Any,
    ) -> None:
        add_mujoco_base(MdvecTaskEnv)  # a gymnasium.envs.mujoco.MujocoEnv from the first env made on (see there)
        self._calls = CallLock()  # every call holds it; close() waits for it
        self._closed = False
        self._init_mujoco_members()
        if not isinstance(flat_observation, (bool, np.bool_)):
            raise TypeError(f"flat_observation: expected True or False, got {flat_observation!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode: expected None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        seed = check_seed(seed)
        self._suite = is_suite_task(self.entry.task)
        if self._suite:  # np.random.RandomState(seed): 32 bits, on both backends
            check_suite_seed(seed, 1, self.entry.task, RANDOMSTATE_SEED_MAX)
        camera = render_camera(camera, options, self.entry.render_kwargs)  # Gymnasium's camera_name / camera_id
        self.backend, self.render_mode, self.task_options = backend, render_mode, dict(options)
        # MujocoEnv's rendering attributes (Gymnasium's MujocoRenderer draws with them)
        self.width, self.height = width, height
        self.camera_name = camera if isinstance(camera, str) else None
        self.camera_id = None if camera is None or isinstance(camera, str) else camera
        # a Gymnasium MuJoCo env's task renders as it does (MujocoRenderer); others as their reference (FrameRenderer)
        self._gym_renderer = isinstance(self.entry.reference, str)
        self._core = self.entry.make_core(backend, seed, dict(options))
        if isinstance(self._core, CCore):
            self._core.offscreen = (width, height)
        if self.metadata.get("render_fps") is None:  # as Gymnasium's MujocoEnv: round(1 / dt) of this env
            self.metadata = {**self.metadata, "render_fps": getattr(self._core, "render_fps", None)}
        self.observation_space = self._core.observation_space
        self.action_space = self._core.action_space
        self.flat_observation = bool(flat_observation)
        self._dict_obs: DictObs | None = None  # a Control Suite task's dict observation (C backend: cut from flat)
        self._dm_reference: Any = None  # backend "reference" of a Control Suite task: its DmControlEnv
        if self._suite:
            self._shimmy_spaces(bool(flat_observation))
            if camera is None:
                camera = 0  # the model's first camera, as dm_control's videos use
        self._frames = FrameRenderer(None, width, height, camera)
        self._shape = cast(tuple[int, ...], self.action_space.shape)  # a Box's
        # np_random of the C backend: the C env's generator, mirrored (see the np_random property)
        self._ctor_seed, self._c_seeded, self._rng_behind = seed, False, 0
        self._draws: Callable[..., None] | None = None

    def _shimmy_spaces(self, flat: bool) -> None:
        """A Control Suite task's spaces as Shimmy's: the action spec's bounds as Box(float64); the observation
        a Dict of Box(-inf, inf, shape, float64) unless ``flat`` (then Box(-inf, inf, (obs_dim,), float64))."""
        from ...vecenv import parse_obs_layout

        if isinstance(self._core, CCore):
            low, high = suite_action_bounds(self._core.venv)
            layout = self._core.spec.obs_layout
        else:
            self._dm_reference = getattr(self._core, "env", None)  # mdvec.reference.dm_control.DmControlEnv
            low = np.asarray(self._dm_reference.action_low, np.float64)
            high = np.asarray(self._dm_reference.action_high, np.float64)
            layout = parse_obs_layout(self._dm_reference.obs_layout)
        self.action_space = spaces.Box(low, high, low.shape, np.float64)
        self._shape = cast(tuple[int, ...], self.action_space.shape)
        if flat:
            self._dm_reference = None
            return
        self._dict_obs = DictObs(layout)
        self.observation_space = spaces.Dict(
            {name: spaces.Box(-np.inf, np.inf, shape, np.float64) for name, shape in layout}
        )  # keys sorted by gymnasium.spaces.Dict, as Shimmy's dm_spec2gym_space gets them

    def _obs(self, flat: np.ndarray) -> Any:
        """The observation handed out: the core's, or a Control Suite task's dict (dm_control's own with the
        reference backend, cut from the flat observation with the C backend)."""
        if self._dict_obs is None:
            return flat
        if self._dm_reference is not None:  # Shimmy's dm_obs2gym_obs of dm_control's observation, copied
            return {key: np.array(value) for key, value in self._dm_reference.observation.items()}
        return self._dict_obs.one(flat)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            seed = check_seed(seed)
            if self._suite:  # np.random.RandomState(seed): 32 bits, on both backends
                check_suite_seed(seed, 1, self.entry.task, RANDOMSTATE_SEED_MAX)
        _check_reset_options(options, 1, allowed=())
        with self._calls.call("reset"):  # a close() from another thread waits for the results
            self._check_open("reset")
            self._seed_np_random(seed)
            self._core.changed(True)
            obs, info = self._core.reset(seed)
            return self._obs(obs), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        shape = np.shape(action)
        if shape != self._shape:  # before the dtype: step(0) is a ValueError, as MujocoEnv.do_simulation raises it
            raise ValueError(f"action: expected shape {self._shape} (the action space's), got {shape}")
        action = as_actions(action, self._shape, getattr(self._core, "spec", None))  # None: the reference's own
        with self._calls.call("step"):  # a close() from another thread waits for the results
            self._check_open("step")
            self._core.changed(False)
            obs, *rest = self._core.step(action)
            return (self._obs(obs), *rest)

    def _check_open(self, call: str) -> None:
        """Raise EnvClosedError (Gymnasium's ClosedEnvironmentError) when the env was closed."""
        if self._closed:
            raise closed_error(self, call)

    def _seed_np_random(self, seed: int | None) -> None:
        """Before a reset: seed np_random as gymnasium.Env.reset does; with the C backend also with the
        constructor seed on the first reset without one (the C env's seed then), and count the reset, whose
        draws np_random replays when it is next read."""
        gymnasium.Env.reset(self, seed=seed)  # not MujocoEnv.reset (a base once made): the physics is the core's
        if not isinstance(getattr(self, "_core", None), CCore):
            return
        if seed is None and not self._c_seeded:
            self._np_random, self._np_random_seed = seeding.np_random(self._ctor_seed)
        if seed is not None or not self._c_seeded:
            self._c_seeded, self._rng_behind = True, 0
        self._rng_behind += 1

    def _reference_rng_owner(self) -> Any:
        """The reference env whose np_random this env's is (reference backend), or None (C backend)."""
        core = getattr(self, "_core", None)
        if isinstance(core, GymReferenceCore):
            return core.env.unwrapped
        if isinstance(core, PlainReferenceCore):
            return core.env
        return None

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator, in the reference's state: Gymnasium's MujocoEnv seeds it at reset(seed=s) and
        draws each reset's noise from it. Backend "reference": the reference env's own. Backend "c": the C
        env's generator mirrored: seeded as the C env is, advanced by each reset's draws, which Gymnasium's
        own reset_model makes again (``gym_reset_draws``, when it is read). Drawing from it does not change
        the C env's draws (reseed those with reset(seed=...)). Tasks whose reference is no Gymnasium id (the
        duck, cartpole_swingup): seeded only."""
        owner = self._reference_rng_owner()
        if owner is not None:
            return owner.np_random
        if self._rng_behind:
            self._catch_up()
        return gymnasium.Env.np_random.fget(self)  # type: ignore[attr-defined]

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        owner = self._reference_rng_owner()
        if owner is not None:
            owner.np_random = value
        elif isinstance(getattr(self, "_core", None), CCore):
            raise AttributeError(
                "np_random: the C env draws from its own generator, which a Python generator cannot replace; "
                "reseed it with reset(seed=...)"
            )
        else:
            gymnasium.Env.np_random.fset(self, value)  # type: ignore[attr-defined]

    @property
    def np_random_seed(self) -> int:
        """The seed of np_random (-1 when unknown), the reference env's with backend "reference"."""
        owner = self._reference_rng_owner()
        if owner is not None:
            return int(owner.np_random_seed) if hasattr(owner, "np_random_seed") else -1
        return gymnasium.Env.np_random_seed.fget(self)  # type: ignore[attr-defined]

    def _catch_up(self) -> None:
        """Replay on np_random the draws of the C env's resets since it was last read."""
        if self._draws is None and isinstance(self.entry.reference, str):  # a Gymnasium id
            spec = self._core.spec
            scale = float(spec.options.get("reset_noise_scale", 0.0))
            self._draws = gym_reset_draws(self.entry.reference, spec.nq, spec.nv, scale)
        rng = gymnasium.Env.np_random.fget(self)  # type: ignore[attr-defined]
        if self._draws is not None:
            for _ in range(self._rng_behind):
                init = self._init_q  # None: init_qpos and init_qvel not made yet
                if init is None:
                    state = rng.bit_generator.state
                    try:
                        self._draws(rng)  # read-only zeros: the reset_model of most references only reads them
                        continue
                    except ValueError:  # it writes into its init_qpos (Pusher-v5): again, with the env's arrays
                        rng.bit_generator.state = state
                        init = self._initial_state()
                self._draws(rng, init)
        self._rng_behind = 0

    def _replay_resets(self) -> None:
        """Bring np_random (and what the reference's reset_model writes into init_qpos) up to the C env's resets."""
        if self._rng_behind and isinstance(self._core, CCore):
            self._catch_up()

    def render(self) -> np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render: the env was made without render_mode; pass render_mode='rgb_array'")
            return None
        with self._calls.call("render"):  # a close() from another thread waits for the frame
            self._check_open("render")
            if self._gym_renderer:  # Gymnasium's MujocoRenderer on data brought up to date: the reference's frames
                if self._renderer is None:  # GL made first as mdvec makes it (EGL headless, a failure remembered)
                    import mujoco

                    make_renderer(mujoco.MjModel.from_xml_string("<mujoco/>"), 1, 1).close()  # an empty model: cheap
                return self._mj_renderer().render(self.render_mode)
            model, data = self._core.physics()
            if self._frames.model is None:
                self._frames.model = model
            return self._frames.render(data)

    def close(self) -> None:
        """Free the env and renderer, once a call in progress in another thread has returned; later calls raise
        EnvClosedError. Closing again does nothing."""
        if not hasattr(self, "_calls"):
            return
        with self._calls.closing():
            self._closed = True
            self._close_renderer()
            if hasattr(self, "_frames"):
                self._frames.close()
            if getattr(self, "_core", None) is not None:
                self._core.close()

    # ---------------------------------------------------------------- snapshots
    def snapshot(self) -> bytes:
        """The env's state as bytes (backend "c"): its C env's snapshot (``mdvec.VecEnv.snapshot``: physics,
        generator, step count, episode bookkeeping) and this env's own (np_random's mirror, init_qpos). ``restore``
        puts it back into this env or another made with the same arguments: the steps that follow are the same,
        bit for bit. The wrappers of ``gymnasium.make`` (TimeLimit's step count) are not in it. Backend
        "reference" copies and pickles as a Python env instead (TypeError here)."""
        import json

        from ...vector import SNAPSHOT_MAGIC

        if not isinstance(self._core, CCore):
            raise TypeError("snapshot: backend 'reference' is a Python env: copy or pickle it instead")
        with self._calls.call("snapshot"):
            self._check_open("snapshot")
            if self._rng_behind:
                self._catch_up()
            rng = gymnasium.Env.np_random.fget(self)  # type: ignore[attr-defined]
            extras: dict[str, Any] = {
                "env": "single",
                "np_random": rng.bit_generator.state,
                "np_random_seed": self._np_random_seed,
                "c_seeded": self._c_seeded,
                "init": None if self._init_q is None else [a.tolist() for a in self._init_q],
            }
            head = json.dumps(extras, separators=(",", ":")).encode()
            return SNAPSHOT_MAGIC + len(head).to_bytes(8, "little") + head + self._core.venv.snapshot()

    def restore(self, blob: Any) -> None:
        """Restore a ``snapshot()`` (backend "c"), refused with the reason and nothing changed for another task,
        other options or damaged bytes (``mdvec.VecEnv.restore``)."""
        from ...vector import split_snapshot

        if not isinstance(self._core, CCore):
            raise TypeError("restore: backend 'reference' is a Python env: copy or pickle it instead")
        extras, core_blob = split_snapshot(bytes(blob))
        if extras is None or extras.get("env") != "single":
            raise ValueError("restore: not a snapshot of a single env (take it with env.unwrapped.snapshot())")
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = extras["np_random"]
        init = extras.get("init")
        with self._calls.call("restore"):
            self._check_open("restore")
            self._core.venv.restore(core_blob)  # checks everything first; refused: nothing changed
            self._core.changed(True)
            self._np_random, self._np_random_seed = rng, extras.get("np_random_seed")
            self._c_seeded, self._rng_behind = bool(extras.get("c_seeded")), 0
            if init is not None:
                self._init_q = (np.asarray(init[0], np.float64), np.asarray(init[1], np.float64))

    def _holds_c_envs(self) -> bool:
        return isinstance(getattr(self, "_core", None), CCore)

    def _copy_instead(self) -> str:
        return (
            f"make another one with the same arguments (gymnasium.make({self.entry.env_id!r}, ...)); behind "
            "gymnasium.make's wrappers the snapshot is env.unwrapped.snapshot()"
        )
