"""Gymnasium's MuJoCo v5 tasks in mdvec: the Python side of their options.

libmdvec runs Gymnasium's own environments (``Hopper-v5``) bit for bit, on the model files of the
installed gymnasium package. What only Python can do lives here, and nothing here imports gymnasium
(it is looked up only when a model file of it is needed):

* ``resolve_options(task, options)``: turn the keyword arguments ``gymnasium.make(...)`` takes into
  the task's mdvec options: ``xml_file`` found exactly as Gymnasium's ``MujocoEnv`` finds it (a name
  not starting with "." "/" or "~" is a file of gymnasium/envs/mujoco/assets/, "~" is expanded, the
  file must exist), made absolute; ``max_episode_steps`` as ``gymnasium.make`` takes it (None: the
  registration's, -1: no time limit, which is mdvec's 0).
* ``GYM_TASKS``: the tasks whose reference is a Gymnasium id, with what the library declares of them
  (ids, registration values: ``mdvec_task_meta`` and the option defaults), for the Gymnasium adapters
  (``mdvec.gym``) and the tools.
"""

from __future__ import annotations

import functools
import importlib.util
import numbers
import os
from dataclasses import dataclass
from typing import Any

from .vecenv import is_gymnasium_id, task_meta, task_names, task_options

__all__ = ["GYM_TASKS", "GymTask", "assets_dir", "expand_model_path", "is_gym_task", "resolve_options"]


@dataclass(frozen=True)
class GymTask:
    """One Gymnasium MuJoCo task that libmdvec implements, as the library declares it."""

    task: str  # libmdvec task name (mdvec.VecEnv(task=...)), = Gymnasium's id
    env_id: str  # mdvec's Gymnasium id ("mdvec/Hopper-v5"): task_meta "id"
    gym_id: str  # Gymnasium's own id, the reference: task_meta "reference"
    xml_file: str  # Gymnasium's default model file (in its assets folder): the option's default
    max_episode_steps: int  # gymnasium.register(max_episode_steps=...): the option's default
    reward_threshold: float | None  # task_meta "reward_threshold"
    index_or_name_options: tuple[str, ...] = ()  # int index or str name (Ant's main_body): the type is kept
    render_kwargs: tuple[str, ...] = ()  # MujocoEnv keywords that only concern rendering (no C option)


def _words(text: str | None) -> tuple[str, ...]:
    return tuple(text.split(",")) if text else ()


def _gym_task(task: str, env_id: str, gym_id: str) -> GymTask:
    """The GymTask of a library task whose reference is a Gymnasium id."""
    defaults = {o.name: o.default for o in task_options(task)}
    threshold = task_meta(task, "reward_threshold")
    return GymTask(
        task=task,
        env_id=env_id,
        gym_id=gym_id,
        xml_file=defaults["xml_file"],
        max_episode_steps=defaults["max_episode_steps"],
        reward_threshold=None if threshold is None else float(threshold),
        index_or_name_options=_words(task_meta(task, "index_options")),
        render_kwargs=_words(task_meta(task, "render_kwargs")),
    )


def _gym_tasks() -> dict[str, GymTask]:
    """Every library task with an id whose reference is a Gymnasium id, in catalogue order."""
    out = {}
    for task in task_names():
        env_id, gym_id = task_meta(task, "id"), task_meta(task, "reference")
        if env_id and gym_id and is_gymnasium_id(gym_id):
            out[task] = _gym_task(task, env_id, gym_id)
    return out


GYM_TASKS: dict[str, GymTask] = _gym_tasks()


@functools.cache
def gymnasium_mujoco_unavailable() -> str:
    """Why Gymnasium's own MuJoCo envs (the references of the v5 tasks) cannot run here, "" when they can.

    Tried for real (imageio imported, one InvertedPendulum-v5 made): an import of their modules is not a
    test, since after one failed import of a v5 env module the next import of mujoco_env succeeds."""
    try:
        import gymnasium
    except ImportError:
        return "gymnasium is not installed (pip install 'gymnasium[mujoco]')"
    try:
        import imageio  # noqa: F401 - what gymnasium.envs.mujoco's renderer imports

        gymnasium.make("InvertedPendulum-v5").close()
    except Exception as exc:  # noqa: BLE001 - any failure means: not usable here
        return f"Gymnasium's MuJoCo envs cannot run here ({type(exc).__name__}: {exc}): pip install 'gymnasium[mujoco]'"
    return ""


def is_gym_task(task: str) -> bool:
    """True when ``task`` is one of libmdvec's Gymnasium tasks."""
    return task in GYM_TASKS


def assets_dir() -> str:
    """Return gymnasium/envs/mujoco/assets of the installed gymnasium (without importing gymnasium).

    Raises ImportError with what to do when gymnasium is not installed.
    """
    spec = importlib.util.find_spec("gymnasium")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "mdvec's Gymnasium tasks (" + ", ".join(GYM_TASKS) + ") load their model files from the "
            "gymnasium package (gymnasium/envs/mujoco/assets/), and gymnasium is not installed: "
            "pip install 'gymnasium[mujoco]', or pass xml_file= the path of a model file"
        )
    return os.path.join(next(iter(spec.submodule_search_locations)), "envs", "mujoco", "assets")


def expand_model_path(model_path: str | os.PathLike[str]) -> str:
    """Gymnasium's ``mujoco_env.expand_model_path``, made absolute.

    A path starting with "." or "/" is taken as is (relative to the working directory), "~" is
    expanded, any other name is a file of gymnasium/envs/mujoco/assets/. Raises OSError("File ...
    does not exist") as Gymnasium does, TypeError for a non-path.
    """
    if isinstance(model_path, os.PathLike):
        model_path = os.fspath(model_path)
    if not isinstance(model_path, str):
        raise TypeError(f"xml_file: expected a str path, got {type(model_path).__name__} {model_path!r}")
    if model_path.startswith(".") or model_path.startswith("/"):
        fullpath = model_path
    elif model_path.startswith("~"):
        fullpath = os.path.expanduser(model_path)
    else:
        fullpath = os.path.join(assets_dir(), model_path)
    if not os.path.exists(fullpath):
        raise OSError(f"File {fullpath} does not exist")
    return os.path.abspath(fullpath)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and type(value).__name__ != "bool_"


def _max_episode_steps(task: GymTask, value: Any) -> int:
    """gymnasium.make's max_episode_steps (None, -1 or a positive int) as mdvec's option (0: none)."""
    if value is None:
        return task.max_episode_steps
    if not _is_int(value):  # TimeLimit: "Expect the `max_episode_steps` to be an integer"
        raise TypeError(
            f"max_episode_steps: expected an integer (or None, or -1 for no time limit), "
            f"got {type(value).__name__} {value!r}"
        )
    value = int(value)
    if value == -1:
        return 0
    if value <= 0:
        raise ValueError(f"max_episode_steps: must be positive (or -1 for no time limit), got {value}")
    return value


def prepare(task: str, variant: str, model: Any, options: dict[str, Any]) -> tuple[None, dict[str, Any]]:
    """The binding's hook for a Gymnasium task (vecenv.TASK_HOOKS): no v1 arguments, options resolved as
    gymnasium.make takes them (resolve_options)."""
    if variant != "default" or model is not None:
        raise ValueError(f"variant/model: task {task!r} takes its model through its own options (xml_file)")
    return None, resolve_options(task, options)


def option_types(task: str) -> dict[str, str]:
    """The type of each option of a task as the C library declares it ("int", "float", "bool", "str",
    "range", "irange", "choice"): the one declaration, read from the catalogue."""
    from .vecenv import task_options

    return {o.name: o.type for o in task_options(task)}


def resolve_options(task: str, options: dict[str, Any]) -> dict[str, Any]:
    """Return the mdvec options of Gymnasium task ``task`` for Gymnasium keyword arguments ``options``.

    ``xml_file`` is always present in the result (a resolved absolute path) and so is
    ``max_episode_steps`` (an int, 0 for none). Float options given as ints become floats (Gymnasium
    would keep a Python int, e.g. an int ``info["reward_survive"]``), ranges become tuples of two
    floats; every other key passes through unchanged for the library to check (an unknown name is
    refused there with the list of the task's options). Rendering-only keywords (``render_mode``,
    ``width``, ...) are not options: the Gymnasium adapters take them off first.
    """
    spec = GYM_TASKS[task]
    out = dict(options)
    out["xml_file"] = expand_model_path(out.get("xml_file", spec.xml_file))
    out["max_episode_steps"] = _max_episode_steps(spec, out.get("max_episode_steps"))
    types = option_types(task)
    for name in (n for n, t in types.items() if t == "float"):
        if name in out and _is_int(out[name]):
            out[name] = float(out[name])
    for name in (n for n, t in types.items() if t == "range"):
        if name in out:
            value = out[name]
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
                raise TypeError(f"{name}: expected a pair (lo, hi) of numbers, got {value!r}")
            lo, hi = value
            for end in (lo, hi):
                if not isinstance(end, numbers.Real) or isinstance(end, bool):
                    raise TypeError(f"{name}: expected a pair (lo, hi) of numbers, got {value!r}")
            out[name] = (float(lo), float(hi))
    return out  # an index option (Ant's main_body) keeps its type: an int is an index, a str a name
