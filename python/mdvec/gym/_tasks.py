"""The Gymnasium ids of mdvec's tasks, and ``register_task`` for adding one.

A task id maps to a ``TaskEntry``: the libmdvec task name, how to build the reference env, the
default keyword arguments. ``register_task`` makes the task's ``gymnasium.Env`` subclass (both
backends) and its C-backed ``VectorEnv`` subclass and registers them with Gymnasium, so
``gymnasium.make(env_id, backend=...)`` and ``gymnasium.make_vec(env_id, num_envs=...,
vectorization_mode="vector_entry_point" | "sync" | "async")`` work for it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import gymnasium
import numpy as np

from ..vector import DUCK_ID
from .env import CCore, DuckReferenceCore, GymReferenceCore, MdvecTaskEnv, PlainReferenceCore
from .vector import MdvecVectorEnv

TASKS: dict[str, TaskEntry] = {}


@dataclass(frozen=True)
class TaskEntry:
    """One registered task id."""

    env_id: str
    task: str  # libmdvec task name (mdvec.VecEnv(task=...))
    reference: Callable[..., Any] | str  # a gymnasium id, or a factory(seed, **options) -> gymnasium.Env or core
    defaults: dict[str, Any] = field(default_factory=dict)
    render_fps: int | None = 50
    max_episode_steps: int | None = None  # the registration's (gymnasium.make adds a TimeLimit); None for the duck
    render_kwargs: tuple[str, ...] = ()  # rendering-only keywords of the reference env: not task options in C
    numpy_info: bool = False  # single env reward and info floats as np.float64 (Gymnasium's MuJoCo envs) or Python float
    python_float_info: tuple[str, ...] = ()  # with numpy_info: keys whose value is a Python float
    int_reward: bool = False  # the single env's reward is a Python int (InvertedPendulum-v5)

    def make_core(self, backend: str, seed: int, options: dict[str, Any]) -> Any:
        """Return the core of one env: ``CCore`` or the reference core."""
        if backend == "c":
            reward_type = int if self.int_reward else np.float64 if self.numpy_info else float
            return CCore(self.task, seed, self.task_options(options), self.info_type, reward_type)
        if isinstance(self.reference, str):
            return GymReferenceCore(gymnasium.make(self.reference, **options), seed)
        core = self.reference(seed, **options)
        return GymReferenceCore(core, seed) if isinstance(core, gymnasium.Env) else core

    def task_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options the C task takes: ``options`` less the reference's rendering-only keywords."""
        return {k: v for k, v in options.items() if k not in self.render_kwargs}

    def info_type(self, name: str, dtype: Any) -> Callable[[Any], Any]:
        """How the single env gives info value ``name`` (of numpy dtype ``dtype``)."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return bool
        if dtype.kind in "iu":
            return int
        if dtype == np.float32:
            return np.float32
        if self.numpy_info and name not in self.python_float_info:
            return np.float64
        return float


def _class_name(env_id: str) -> str:
    name = env_id.split("/")[-1]
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def register_task(env_id: str, task: str, reference: Callable[..., Any] | str,
                  defaults: dict[str, Any] | None = None, render_fps: int | None = 50, **details: Any) -> TaskEntry:
    """Register ``env_id`` with Gymnasium for libmdvec task ``task``.

    ``reference``: what ``backend="reference"`` builds: a Gymnasium id (e.g. "Hopper-v5"; made with
    the task options as keywords) or a factory ``reference(seed, **options)`` returning a
    ``gymnasium.Env`` or a core (see ``mdvec.gym.env``). A gymnasium.Env reference is seeded with the
    constructor seed on its first reset without a seed. ``defaults``: keyword arguments the id
    passes unless overridden (task options). ``details``: the other TaskEntry fields
    (max_episode_steps, render_kwargs, numpy_info, python_float_info). Registering the same id again
    replaces the entry.
    Return the entry (``entry.env_class`` and ``entry.vector_class`` are the classes).
    """
    if not isinstance(env_id, str) or "/" not in env_id:
        raise ValueError(f"env_id: expected 'namespace/Name-vN', got {env_id!r}")
    entry = TaskEntry(env_id, task, reference, dict(defaults or {}), render_fps, **details)
    name = _class_name(env_id)
    metadata = {"render_modes": ["rgb_array"], "render_fps": entry.render_fps}
    env_class = type(name + "Env", (MdvecTaskEnv,), {"entry": entry, "metadata": metadata,
                                                       "__doc__": f"{env_id} as one gymnasium.Env."})
    vector_class = type(name + "VectorEnv", (MdvecVectorEnv,), {
        "entry": entry, "__doc__": f"{env_id}: N envs in C as a gymnasium.vector.VectorEnv."})
    object.__setattr__(entry, "env_class", env_class)
    object.__setattr__(entry, "vector_class", vector_class)
    if env_id in gymnasium.registry:
        del gymnasium.registry[env_id]  # re-registration replaces silently
    gymnasium.register(id=env_id, entry_point=env_class, vector_entry_point=vector_class,
                       kwargs=dict(entry.defaults), max_episode_steps=entry.max_episode_steps)
    TASKS[env_id] = entry
    return entry


def _duck_reference(seed: int, **options: Any) -> DuckReferenceCore:
    return DuckReferenceCore(seed, options)




def _own_reference(task: str) -> Callable[..., PlainReferenceCore]:
    def make(seed: int, **options: Any) -> PlainReferenceCore:
        from ..own_tasks import reference_class

        return PlainReferenceCore(reference_class(task)(**options), seed)

    return make


def register_builtin() -> None:
    """Register the built-in ids (the duck), Gymnasium's MuJoCo tasks, and mdvec's own tasks
    (``mdvec.own_tasks.OWN_TASKS``) as ``mdvec/<name>`` (each truncates itself: no TimeLimit added)."""
    if DUCK_ID not in TASKS:
        entry = register_task(DUCK_ID, "duck", _duck_reference, {}, render_fps=50)
        entry.env_class.__doc__ = (  # type: ignore[attr-defined]
            "The duck balance task as one gymnasium.Env (backend 'c' or 'reference', same bits).\n\n"
            "Observation Box(-inf, inf, (48,), float32), action Box(-1, 1, (14,), float32). The task only "
            "truncates: terminated is always False, truncated is True at t == episode_len (a fall is not "
            "terminal; info['fallen'] flags it), so bootstrap from the final observation. Keywords: "
            "backend, seed (the constructor seed), render_mode (None or 'rgb_array'), width, height, camera, "
            "and the task options (mdvec.task_options('duck')).")
    _register_gym_tasks()
    from ..own_tasks import OWN_TASKS

    for name in OWN_TASKS:
        if "mdvec/" + name not in TASKS:
            register_task("mdvec/" + name, name, _own_reference(name), {}, render_fps=None)


def _register_gym_tasks() -> None:
    try:
        from ..gym_tasks import GYM_TASKS  # Gymnasium's MuJoCo tasks that libmdvec implements
    except ImportError:
        return
    for t in GYM_TASKS.values():
        if t.env_id in TASKS:
            continue
        try:
            register_task(t.env_id, t.task, t.gym_id, {}, render_fps=getattr(t, "render_fps", None),
                          max_episode_steps=t.max_episode_steps, render_kwargs=tuple(t.render_kwargs),
                          numpy_info=True, python_float_info=tuple(t.python_float_info),
                          int_reward=getattr(t, "int_reward", False))
        except Exception as exc:  # one task's bad declaration must not break `import mdvec`
            warnings.warn(f"mdvec.gym: could not register {getattr(t, 'env_id', t)!r}: {exc}", stacklevel=2)
