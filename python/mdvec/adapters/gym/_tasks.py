"""The Gymnasium ids of mdvec's tasks, and ``register_task`` for adding one.

A task id maps to a ``TaskEntry``: the libmdvec task name, how to build the reference env, the
default keyword arguments. ``register_task`` makes the task's ``gymnasium.Env`` subclass (both
backends) and its C-backed ``VectorEnv`` subclass and registers them with Gymnasium, so
``gymnasium.make(env_id, backend=...)`` and ``gymnasium.make_vec(env_id, num_envs=...,
vectorization_mode="vector_entry_point" | "sync" | "async")`` work for it.

A Control Suite task is also registered under Shimmy's id ("dm_control/cheetah-run-v0", ``ALIASES``), the same
classes, unless Shimmy is installed or the id is registered already: Shimmy's own registration of its ids (made
by ``import shimmy``: dm_control in Python) is never replaced. ``mdvec.make`` takes Shimmy's ids either way.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from ..._shared import make_entry_point
from ...vecenv import is_gymnasium_id, task_meta, task_names, task_options, task_summary
from ...vector import VECTOR_CLASSES, shimmy_id
from .env import CCore, DuckReferenceCore, GymReferenceCore, MdvecTaskEnv, PlainReferenceCore
from .vector import MdvecVectorEnv

TASKS: dict[str, TaskEntry] = {}
ALIASES: dict[str, str] = {}  # Shimmy's id -> mdvec's id, for the Control Suite ids this module registered
HOME = "mdvec.gym"  # the module whose attributes the registered classes are: entry points "mdvec.gym:<class name>"
DUCK_ID: str = task_meta("duck", "id") or ""  # the duck's id, as its task declares it ("mdvec/DuckBalance-v0")


@dataclass(frozen=True)
class TaskEntry:
    """One registered task id."""

    env_id: str
    task: str  # libmdvec task name (mdvec.VecEnv(task=...))
    reference: Callable[..., Any] | str  # a gymnasium id, or a factory(seed, **options) -> gymnasium.Env or core
    defaults: dict[str, Any] = field(default_factory=dict)
    render_fps: int | None = None  # None: round(1 / dt) of each env (as Gymnasium's MujocoEnv)
    max_episode_steps: int | None = None  # the registration's (gymnasium.make adds a TimeLimit); None for the duck
    render_kwargs: tuple[str, ...] = ()  # rendering-only keywords of the reference env: not task options in C
    reward_threshold: float | None = None  # the registration's (gymnasium's EnvSpec.reward_threshold)
    env_class: type[MdvecTaskEnv] = field(init=False, repr=False, compare=False)  # set by register_task
    vector_class: type[MdvecVectorEnv] = field(init=False, repr=False, compare=False)  # set by register_task

    def make_core(self, backend: str, seed: int, options: dict[str, Any]) -> Any:
        """Return the core of one env: ``CCore`` or the reference core."""
        if backend == "c":
            return CCore(self.task, seed, self.task_options(options))
        if isinstance(self.reference, str):
            return GymReferenceCore(gymnasium.make(self.reference, **options), seed)
        core = self.reference(seed, **options)
        return GymReferenceCore(core, seed) if isinstance(core, gymnasium.Env) else core

    def task_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options the C task takes: ``options`` less the reference's rendering-only keywords."""
        return {k: v for k, v in options.items() if k not in self.render_kwargs}


def _class_name(env_id: str) -> str:
    """The name of an id's classes (``<name>Env``, ``<name>VectorEnv``): "mdvec/Hopper-v5" -> "Hopper_v5", or
    the whole id ("other_ns_Hopper_v5") when that name is another id's."""
    home = _home()
    for part in (env_id.split("/")[-1], env_id):
        name = "".join(ch if ch.isalnum() else "_" for ch in part)
        held = getattr(home, name + "Env", None)
        if held is None or getattr(getattr(held, "entry", None), "env_id", None) == env_id:
            return name
    raise ValueError(f"env_id: {env_id!r} names the same classes as another registered id; rename it")


def _home() -> Any:
    """The module the entry point strings name (``mdvec.adapters.gym``, public name ``mdvec.gym``)."""
    return sys.modules[__name__.rpartition(".")[0]]


def register_task(
    env_id: str,
    task: str,
    reference: Callable[..., Any] | str,
    defaults: dict[str, Any] | None = None,
    render_fps: int | None = None,
    **details: Any,
) -> TaskEntry:
    """Register ``env_id`` with Gymnasium for libmdvec task ``task``.

    ``reference``: what ``backend="reference"`` builds: a Gymnasium id (e.g. "Hopper-v5"; made with
    the task options as keywords) or a factory ``reference(seed, **options)`` returning a
    ``gymnasium.Env`` or a core (see ``mdvec.gym.env``). A gymnasium.Env reference is seeded with the
    constructor seed on its first reset without a seed. ``defaults``: keyword arguments the id
    passes unless overridden (task options). ``render_fps``: None for each env's round(1 / dt).
    ``details``: the other TaskEntry fields (max_episode_steps, render_kwargs, reward_threshold). Registering the same id
    again replaces the entry.
    Return the entry (``entry.env_class`` and ``entry.vector_class`` are the classes).
    """
    if not isinstance(env_id, str) or "/" not in env_id:
        raise ValueError(f"env_id: expected 'namespace/Name-vN', got {env_id!r}")
    entry = TaskEntry(env_id, task, reference, dict(defaults or {}), render_fps, **details)
    name = _class_name(env_id)
    # a Gymnasium MuJoCo env's task renders with Gymnasium's MujocoRenderer, in its off-screen modes
    modes = ["rgb_array", "depth_array", "rgbd_tuple"] if isinstance(reference, str) else ["rgb_array"]
    metadata = {"render_modes": modes, "render_fps": entry.render_fps}
    env_class: type[MdvecTaskEnv] = type(
        name + "Env",
        (MdvecTaskEnv,),
        {
            "entry": entry,
            "metadata": metadata,
            "__doc__": f"{env_id} as one gymnasium.Env (backend 'c' or 'reference', same bits): {task_summary(task)}.\n\n"
            "Keywords: backend, seed (the constructor seed), render_mode (None or 'rgb_array'), width, "
            f"height, camera, and the task options (mdvec.task_options({task!r})).",
        },
    )
    vector_class: type[MdvecVectorEnv] = type(
        name + "VectorEnv",
        (MdvecVectorEnv,),
        {"entry": entry, "__doc__": f"{env_id}: N envs in C as a gymnasium.vector.VectorEnv."},
    )
    object.__setattr__(entry, "env_class", env_class)
    object.__setattr__(entry, "vector_class", vector_class)
    home = _home()
    for cls in (env_class, vector_class):  # importable by name: "mdvec.gym:Hopper_v5Env", as Gymnasium's own ids
        cls.__module__ = HOME
        setattr(home, cls.__name__, cls)
    if env_id in gymnasium.registry:
        del gymnasium.registry[env_id]  # re-registration replaces silently
    gymnasium.register(  # "module:attr" strings, so that EnvSpec.to_json / from_json work (a class is no JSON)
        id=env_id,
        entry_point=f"{HOME}:{env_class.__name__}",
        vector_entry_point=f"{HOME}:{vector_class.__name__}",
        kwargs=dict(entry.defaults),
        max_episode_steps=entry.max_episode_steps,
        reward_threshold=entry.reward_threshold,
    )
    TASKS[env_id] = entry
    VECTOR_CLASSES[env_id] = vector_class  # what mdvec.make builds for the id (the core imports no adapter)
    _register_alias(entry)
    return entry


def shimmy_installed() -> bool:
    """Whether Shimmy is installed (found without importing it)."""
    return importlib.util.find_spec("shimmy") is not None


def _register_alias(entry: TaskEntry) -> None:
    """Register a Control Suite task under Shimmy's id too, with the classes of its mdvec id, unless Shimmy is
    installed (``import shimmy`` registers its own, dm_control in Python) or another registration holds the id."""
    alias = shimmy_id(entry.task)
    if alias is None or alias == entry.env_id:
        return
    if alias in gymnasium.registry:
        point = gymnasium.registry[alias].entry_point
        if ALIASES.get(alias) is None or not (isinstance(point, str) and point.startswith(HOME + ":")):
            return  # Shimmy's own (or someone else's): left alone
        del gymnasium.registry[alias]  # ours, from an earlier registration of the task: replaced
    elif shimmy_installed():
        return
    spec = gymnasium.registry[entry.env_id]
    gymnasium.register(
        id=alias,
        entry_point=spec.entry_point,
        vector_entry_point=spec.vector_entry_point,
        kwargs=dict(spec.kwargs),
        max_episode_steps=spec.max_episode_steps,
        reward_threshold=spec.reward_threshold,
    )
    ALIASES[alias] = entry.env_id


def entry_point_reference(target: str) -> Callable[..., Any]:
    """The reference factory of an entry point "module:attr" (a task's "reference" metadata). An attr with
    ``gymnasium_api = True`` (e.g. ``mdvec.reference.CartPoleSwingup``) is made as ``attr(**options)`` and
    wrapped in a ``PlainReferenceCore``; any other is made as ``attr(seed=seed, **options)``: a
    gymnasium.Env used as is, or an env with the interface of ``mdvec.reference.DuckEnv``, wrapped in a
    ``DuckReferenceCore``."""

    def make(seed: int, **options: Any) -> Any:
        env = make_entry_point(target, seed, options)
        if getattr(env, "gymnasium_api", False):  # reset/step as Gymnasium's, seeded at its first reset
            return PlainReferenceCore(env, seed)
        return env if isinstance(env, gymnasium.Env) else DuckReferenceCore(env)

    make.__qualname__ = make.__name__ = f"reference[{target}]"
    return make


def _register_catalogue_task(task: str) -> None:
    """Register a library task under the id it declares, with its declared reference and registration values."""
    env_id, reference = task_meta(task, "id"), task_meta(task, "reference")
    if not env_id or not reference:
        return
    defaults = {o.name: o.default for o in task_options(task)}
    render_kwargs, threshold = task_meta(task, "render_kwargs"), task_meta(task, "reward_threshold")
    register_task(
        env_id,
        task,
        reference if is_gymnasium_id(reference) else entry_point_reference(reference),
        {},
        max_episode_steps=defaults.get("max_episode_steps") or None,  # 0: no TimeLimit (a Control Suite task)
        render_kwargs=tuple(render_kwargs.split(",")) if render_kwargs else (),
        reward_threshold=None if threshold is None else float(threshold),
    )


def register_builtin() -> None:
    """Register every library task that declares an id (mdvec_task_meta), the duck included."""
    for task in task_names():
        if task_meta(task, "id") in TASKS:
            continue
        try:
            _register_catalogue_task(task)
        except Exception as exc:  # noqa: BLE001 - one task's bad declaration must not break `import mdvec`
            warnings.warn(f"mdvec.gym: could not register task {task!r}: {exc}", stacklevel=2)
