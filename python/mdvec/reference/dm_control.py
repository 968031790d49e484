"""The reference of mdvec's Control Suite tasks: dm_control 1.0.50 itself, seen through Shimmy's API.

mdvec runs the 28 tasks of ``dm_control.suite.BENCHMARKING`` in C (libmdvec/src/tasks/dm_<domain>.c on the
kit dmkit.h), bit for bit. Their reference is no reimplementation: ``DmControlEnv`` builds the task with
``dm_control.suite.load`` and steps dm_control's own ``control.Environment``; what it adds is Shimmy's
mapping (shimmy 2.0.1, ``DmControlCompatibilityV0`` and ``utils/dm_env.py``) and one flat observation:

* ``reset(seed=s)`` gives the task ``np.random.RandomState(s)`` (Shimmy: ``np_random`` is
  ``env.task._random``), then ``env.reset()``; ``reset()`` continues the task's generator. Env ``i`` of a
  ``mdvec.VecEnv(N, task="cheetah-run", seed=s)`` is ``cheetah_run()`` reset with seed ``s + i``.
* ``step(a)``: ``env.step(a)`` (dm_control copies ``a`` into ``data.ctrl`` as it is: no clipping); a LAST
  step is truncated when its discount is > 0 (a time limit), terminated when it is 0.
* observation: one float64 vector, dm_control's ``flatten_observation`` of the task's OrderedDict (each
  value raveled, in order); the OrderedDict itself stays in ``observation``. ``obs_layout`` names its parts
  as libmdvec's ``spec.obs_layout`` does ("position(8),velocity(9)").
* reward: Shimmy's ``timestep.reward or 0`` as a float (0.0 at reset); info: ``{"timestep.discount",
  "timestep.step_type"}`` at a step, ``{"timestep.step_type": 0}`` at a reset.

The C task's options are keywords here: ``time_limit`` (seconds), ``control_timestep`` (seconds per step;
None: the domain's own, as the suite has it; 0: none), ``n_sub_steps`` (0/None: unset; with a control
timestep too, dm_control's ValueError: on a domain with its own, pass control_timestep=0), ``legacy_step``, ``fully_observable`` (manipulator), ``max_episode_steps`` (0/None: none; else
Gymnasium's TimeLimit around Shimmy's env, as ``gymnasium.make(id, max_episode_steps=n)``: truncated once
``n`` steps were taken since ``reset()``, dm_control's step type and discount unchanged); ``suite_dir`` is
accepted and ignored (the C side reads the XML from it; dm_control reads its own). A control timestep or sub-step count other than the
suite's builds dm_control's own ``control.Environment(physics, task, ...)`` around the suite's physics and
task, since the suite's task functions do not take them.

One shim, ``drop_stale_sizes``: dm_control 1.0.50's generated ``mjbindings/sizes.py`` names 9 arrays that
MuJoCo 4.0.0 no longer has (``flex_vertedge``, ...), and no suite task loads until they are dropped. It
drops exactly the names a fresh ``MjModel``/``MjData`` lacks and changes no arithmetic.

dm_control is imported on first use (making an env, reading ``BENCHMARKING``), never by importing this module.
"""

from __future__ import annotations

import collections
import functools
import importlib
import inspect
import math
import warnings
from typing import Any

import numpy as np

__all__ = [  # and, made on first use by __getattr__: BENCHMARKING and the factories <domain>_<task>
    "DmControlEnv",
    "drop_stale_sizes",
    "factory_name",
    "gym_id",
    "make",
    "obs_layout",
    "reference_target",
    "shimmy_id",
    "split_task",
    "task_name",
]

REFERENCE_PREFIX = "mdvec.reference.dm_control:"  # the "reference" metadata of every suite task starts so


def _import(name: str) -> Any:
    """importlib.import_module(name) of a dm_control module; without a display glfw's warning, raised while
    dm_control.mujoco picks a renderer on its first import, is left out (nothing here renders)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="glfw")
        return importlib.import_module(name)


def drop_stale_sizes() -> tuple[str, ...]:
    """Drop from dm_control's ``mjbindings.sizes.array_sizes`` the arrays the installed MuJoCo no longer has.

    dm_control builds an index of every array ``sizes.array_sizes`` names when it makes a ``Physics``, and
    fails on a name ``MjModel``/``MjData`` lacks: on MuJoCo 4.0.0, dm_control 1.0.50 names 9 such arrays
    (mjmodel: flex_vertedge, flex_vertedgeadr, flex_vertedgenum, flex_vertmetric, flexvert_J_colind,
    flexvert_J_rowadr, flexvert_J_rownnz; mjdata: flexvert_J, flexvert_length). Exactly the names whose
    attribute a fresh ``MjModel``/``MjData`` lacks are dropped; every other entry, and every computation,
    stays as dm_control has it. Idempotent: a second call drops nothing. Returns what it dropped, as
    "mjmodel.<name>" / "mjdata.<name>".
    """
    import mujoco

    sizes = _import("dm_control.mujoco.wrapper.mjbindings.sizes")
    model = mujoco.MjModel.from_xml_string("<mujoco/>")
    data = mujoco.MjData(model)
    dropped = []
    for struct, obj in (("mjmodel", model), ("mjdata", data)):
        table = sizes.array_sizes.get(struct, {})
        for name in [n for n in table if not hasattr(obj, n)]:
            del table[name]
            dropped.append(f"{struct}.{name}")
    return tuple(dropped)


@functools.cache
def _suite() -> Any:
    """dm_control.suite, imported once the stale sizes are dropped."""
    drop_stale_sizes()
    return _import("dm_control.suite")


@functools.cache
def _control() -> Any:
    """dm_control.rl.control (Environment, flatten_observation)."""
    _suite()
    return _import("dm_control.rl.control")


def _benchmarking() -> tuple[tuple[str, str], ...]:
    """dm_control.suite.BENCHMARKING as the installed dm_control declares it."""
    return tuple((str(d), str(t)) for d, t in _suite().BENCHMARKING)


# ------------------------------------------------------------------------------------------ name maps


def task_name(domain: str, task: str) -> str:
    """mdvec's task name of a suite task: ("cheetah", "run") -> "cheetah-run"."""
    return f"{domain}-{task}"


def gym_id(domain: str, task: str) -> str:
    """mdvec's Gymnasium id: ("cheetah", "run") -> "mdvec/cheetah-run-v0"."""
    return f"mdvec/{domain}-{task}-v0"


def shimmy_id(domain: str, task: str) -> str:
    """Shimmy's Gymnasium id of the same task: ("cheetah", "run") -> "dm_control/cheetah-run-v0"."""
    return f"dm_control/{domain}-{task}-v0"


def factory_name(domain: str, task: str) -> str:
    """The name of this module's factory: ("ball_in_cup", "catch") -> "ball_in_cup_catch"."""
    return f"{domain}_{task}"


def reference_target(domain: str, task: str) -> str:
    """The task's "reference" metadata: "mdvec.reference.dm_control:cheetah_run"."""
    return REFERENCE_PREFIX + factory_name(domain, task)


def split_task(name: str) -> tuple[str, str]:
    """(domain, task) of an mdvec task name ("cheetah-run"), a Shimmy id or an mdvec id of a BENCHMARKING
    task; ValueError for another name."""
    text = name.removeprefix("dm_control/").removeprefix("mdvec/").removesuffix("-v0")
    for pair in _benchmarking():
        if task_name(*pair) == text:
            return pair
    raise ValueError(f"{name!r} is not a task of dm_control.suite.BENCHMARKING")


# ------------------------------------------------------------------------------------------ the env


def _layout_part(name: str, value: Any) -> str:
    shape = np.shape(value)
    if len(shape) > 2:
        raise ValueError(f"observation {name!r}: shape {shape} has more than 2 dimensions")
    return f"{name}({','.join(str(int(n)) for n in shape)})"


def obs_layout(observation: collections.abc.Mapping) -> str:
    """libmdvec's ``spec.obs_layout`` text of a dm_control observation: its parts in flatten_observation
    order, "name(rows)", "name(rows,cols)" or "name()" (a scalar), ','-separated."""
    keys = observation.keys() if isinstance(observation, collections.OrderedDict) else sorted(observation)
    return ",".join(_layout_part(k, observation[k]) for k in keys)


def _flat(observation: collections.abc.Mapping) -> np.ndarray:
    """dm_control's flatten_observation(observation)["observations"], as float64."""
    control = _control()
    flat = control.flatten_observation(observation)[control.FLAT_OBSERVATION_KEY]
    return np.asarray(flat, np.float64)


def _is_unset(value: Any) -> bool:
    return value is None or value == 0


class DmControlEnv:
    """One dm_control suite task with Gymnasium's API (as Shimmy's DmControlCompatibilityV0) and a flat
    float64 observation. ``seed``: the task's RandomState at construction (None: from the OS, as Shimmy's
    ``gymnasium.make``); ``reset(seed=s)`` replaces it by ``RandomState(s)``."""

    gymnasium_api = True  # reset(seed) -> (obs, info), step -> 5 values: how mdvec.gym wraps this reference

    def __init__(
        self,
        domain: str,
        task: str,
        *,
        seed: int | None = None,
        time_limit: float | None = None,
        control_timestep: float | None = None,
        n_sub_steps: int | None = None,
        legacy_step: bool = True,
        max_episode_steps: int | None = None,
        suite_dir: Any = None,  # the C side's; dm_control reads its own XML
        **task_kwargs: Any,
    ) -> None:
        del suite_dir
        suite = _suite()
        if (domain, task) not in _benchmarking():
            raise ValueError(f"({domain!r}, {task!r}) is not a task of dm_control.suite.BENCHMARKING")
        module = suite._DOMAINS[domain]
        make_task = module.SUITE[task]
        params = inspect.signature(make_task).parameters
        own = {k for k in params if k not in ("time_limit", "random", "environment_kwargs")}
        unknown = sorted(set(task_kwargs) - own)
        if unknown:
            raise TypeError(f"{task_name(domain, task)}: unknown option(s) {unknown}")
        if time_limit is None:
            time_limit = params["time_limit"].default
        # The control timestep: the suite's own (the domain's _CONTROL_TIMESTEP) unless given; 0 or None: none.
        suite_ct = getattr(module, "_CONTROL_TIMESTEP", None) or 0.0
        ct = suite_ct if control_timestep is None else control_timestep
        sub = None if _is_unset(n_sub_steps) else int(n_sub_steps)  # type: ignore[arg-type]
        if sub is not None and not _is_unset(ct):  # control.Environment's rule, as suite.load would raise it
            raise ValueError(
                f"Both n_sub_steps and control_timestep were supplied ({task_name(domain, task)}'s control_timestep "
                f"is {ct}; give control_timestep=0 with n_sub_steps)."
            )
        self.domain, self.task_name = domain, task
        kwargs = dict(task_kwargs, random=seed, time_limit=time_limit)
        env = suite.load(domain, task, task_kwargs=kwargs, environment_kwargs={"legacy_step": bool(legacy_step)})
        if sub is not None or ct != suite_ct:  # what the suite's task function cannot take: dm_control's own
            env = _control().Environment(
                env.physics,
                env.task,
                time_limit=time_limit,
                control_timestep=None if _is_unset(ct) else ct,
                n_sub_steps=sub,
                legacy_step=bool(legacy_step),
            )
        self.env = env  # the dm_control Environment: physics, task, reset(), step()
        self.physics = env.physics
        self.model = env.physics.model.ptr  # mujoco.MjModel
        self.data = env.physics.data.ptr  # mujoco.MjData
        self.dt = float(env.control_timestep())  # seconds per step
        spec = env.action_spec()
        self.action_low = np.broadcast_to(np.asarray(spec.minimum, np.float64), spec.shape).copy()
        self.action_high = np.broadcast_to(np.asarray(spec.maximum, np.float64), spec.shape).copy()
        self.act_low = self.action_low.astype(np.float32)  # Shimmy's Box: the spec's dtype (float64)
        self.act_high = self.action_high.astype(np.float32)
        self.nu = int(spec.shape[0])
        first = env.task.get_observation(env.physics)
        self.obs_layout = obs_layout(first)
        self.obs_dim = int(_flat(first).size)
        self.observation: collections.OrderedDict | None = None  # the last observation as dm_control gives it
        self.timestep: Any = None  # the last dm_env.TimeStep
        # gymnasium.make(..., max_episode_steps=n)'s TimeLimit around Shimmy's env (None or 0: none)
        self.max_episode_steps = None if _is_unset(max_episode_steps) else int(max_episode_steps)  # type: ignore[arg-type]
        self.elapsed_steps = 0  # TimeLimit's _elapsed_steps: steps since the last reset()

    @property
    def np_random(self) -> np.random.RandomState:
        """The task's generator (Shimmy's np_random: ``env.task._random``)."""
        return self.env.task._random

    @np_random.setter
    def np_random(self, value: np.random.RandomState) -> None:
        self.env.task._random = value

    @property
    def step_limit(self) -> float:
        """control.Environment's step limit: time_limit / (timestep * n_sub_steps), or inf."""
        return float(self.env._step_limit)

    @property
    def n_sub_steps(self) -> int:
        """Physics steps per env step."""
        return int(self.env._n_sub_steps)

    def _take(self, timestep: Any) -> np.ndarray:
        self.timestep = timestep
        self.observation = timestep.observation
        return _flat(timestep.observation)

    def reset(self, seed: int | None = None, options: Any = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode (``RandomState(seed)`` first when seed is given); return (obs, info)."""
        del options
        if seed is not None:
            self.np_random = np.random.RandomState(seed=seed)
        self.elapsed_steps = 0
        obs = self._take(self.env.reset())
        return obs, {"timestep.step_type": int(self.timestep.step_type)}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """dm_control's step (after a LAST step dm_control itself resets and returns a FIRST step)."""
        obs = self._take(self.env.step(action))
        ts = self.timestep
        terminated = truncated = False
        if ts.last():
            truncated = bool(ts.discount > 0)
            terminated = not truncated
        self.elapsed_steps += 1
        if self.max_episode_steps is not None and self.elapsed_steps >= self.max_episode_steps:
            truncated = True  # Gymnasium's TimeLimit
        reward = float(ts.reward or 0)  # Shimmy: timestep.reward or 0
        discount = math.nan if ts.discount is None else float(ts.discount)
        return (
            obs,
            reward,
            terminated,
            truncated,
            {"timestep.discount": discount, "timestep.step_type": int(ts.step_type)},
        )

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The parts of a flat observation by name, with their shapes (views)."""
        out, at = {}, 0
        for name, value in (self.observation or self.env.task.get_observation(self.physics)).items():
            shape = np.shape(value)
            size = int(np.prod(shape))
            out[name] = obs[at : at + size].reshape(shape)
            at += size
        return out

    def close(self) -> None:
        """Free dm_control's physics (as Shimmy's close)."""
        self.env.physics.free()
        self.env.close()


def make(domain: str, task: str, **options: Any) -> DmControlEnv:
    """``DmControlEnv(domain, task, **options)``."""
    return DmControlEnv(domain, task, **options)


def _factory(domain: str, task: str) -> Any:
    def factory(**options: Any) -> DmControlEnv:
        return DmControlEnv(domain, task, **options)

    factory.__name__ = factory.__qualname__ = factory_name(domain, task)
    factory.__doc__ = f"dm_control.suite.load({domain!r}, {task!r}) as a DmControlEnv (options: see the module)."
    factory.__module__ = __name__
    factory.gymnasium_api = True  # type: ignore[attr-defined]  # made as factory(**options) (make_entry_point)
    return factory


@functools.cache
def _factories() -> dict[str, Any]:
    return {factory_name(d, t): _factory(d, t) for d, t in _benchmarking()}


def __getattr__(name: str) -> Any:
    """``BENCHMARKING`` and the factories ``<domain>_<task>`` (``cheetah_run``), made on first use from the
    installed dm_control's suite.BENCHMARKING."""
    if name == "BENCHMARKING":
        return _benchmarking()
    if name.startswith("_"):
        raise AttributeError(name)
    try:
        factories = _factories()
    except ImportError as exc:
        raise AttributeError(f"{__name__}.{name}: dm_control is not installed (pip install dm-control): {exc}") from exc
    if name in factories:
        return factories[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
