"""Gymnasium's MuJoCo v5 tasks in mdvec: the Python side of their options.

libmdvec runs Gymnasium's own environments (``Hopper-v5``) bit for bit, on the model files of the
installed gymnasium package. What only Python can do lives here, and nothing here imports gymnasium
(it is looked up only when a model file of it is needed):

* ``resolve_options(task, options)``: turn the keyword arguments ``gymnasium.make(...)`` takes into
  the task's mdvec options: ``xml_file`` found exactly as Gymnasium's ``MujocoEnv`` finds it (a name
  not starting with "." "/" or "~" is a file of gymnasium/envs/mujoco/assets/, "~" is expanded, the
  file must exist), made absolute; ``max_episode_steps`` as ``gymnasium.make`` takes it (None: the
  registration's, -1: no time limit, which is mdvec's 0).
* ``GYM_TASKS``: each task's Gymnasium id, registration values and the Python types of its info
  values, for the Gymnasium adapters (``mdvec.gym``).
"""

from __future__ import annotations

import functools
import importlib.util
import numbers
import os
from dataclasses import dataclass
from typing import Any

__all__ = ["GYM_TASKS", "GymTask", "assets_dir", "expand_model_path", "is_gym_task", "resolve_options"]


@dataclass(frozen=True)
class GymTask:
    """One Gymnasium MuJoCo task that libmdvec implements."""

    task: str                    # libmdvec task name (mdvec.VecEnv(task=...)), = Gymnasium's id
    env_id: str                  # mdvec's Gymnasium id ("mdvec/Hopper-v5")
    gym_id: str                  # Gymnasium's own id, the reference
    xml_file: str                # Gymnasium's default model file (in its assets folder)
    max_episode_steps: int       # gymnasium.register(max_episode_steps=...)
    reward_threshold: float | None
    python_float_info: tuple[str, ...] = ()  # info keys whose value is a Python float (not np.float64)
    render_fps: int | None = None  # metadata["render_fps"] with the default model and frame_skip: round(1 / dt)
    index_or_name_options: tuple[str, ...] = ()  # int index or str name (Ant's main_body): an int goes as its text
    int_reward: bool = False     # the single env's reward is a Python int (InvertedPendulum: int(not terminated))
    # MujocoEnv keywords that only concern rendering (no effect on the simulation); the C task has none.
    render_kwargs: tuple[str, ...] = ("render_mode", "width", "height", "camera_id", "camera_name",
                                      "default_camera_config", "max_geom", "visual_options")


GYM_TASKS: dict[str, GymTask] = {
    "Hopper-v5": GymTask(
        task="Hopper-v5", env_id="mdvec/Hopper-v5", gym_id="Hopper-v5", xml_file="hopper.xml",
        max_episode_steps=1000, reward_threshold=3800.0,
        python_float_info=("reward_survive",),  # hopper_v5.py: is_healthy * healthy_reward
        render_fps=125,  # dt = 0.002 * 4
    ),
    "Walker2d-v5": GymTask(
        task="Walker2d-v5", env_id="mdvec/Walker2d-v5", gym_id="Walker2d-v5", xml_file="walker2d_v5.xml",
        max_episode_steps=1000, reward_threshold=None,
        render_fps=125,  # dt = 0.002 * 4; reward_survive: np.bool_ * float, an np.float64
    ),
    "HalfCheetah-v5": GymTask(
        task="HalfCheetah-v5", env_id="mdvec/HalfCheetah-v5", gym_id="HalfCheetah-v5",
        xml_file="half_cheetah.xml", max_episode_steps=1000, reward_threshold=4800.0, render_fps=20,  # dt = 0.01 * 5
    ),
    "Swimmer-v5": GymTask(
        task="Swimmer-v5", env_id="mdvec/Swimmer-v5", gym_id="Swimmer-v5", xml_file="swimmer.xml",
        max_episode_steps=1000, reward_threshold=360.0, render_fps=25,  # dt = 0.01 * 4
    ),
    "InvertedPendulum-v5": GymTask(
        task="InvertedPendulum-v5", env_id="mdvec/InvertedPendulum-v5", gym_id="InvertedPendulum-v5",
        xml_file="inverted_pendulum.xml", max_episode_steps=1000, reward_threshold=950.0,
        render_fps=25,  # dt = 0.02 * 2; reward and info["reward_survive"]: int(not terminated), a Python int
        int_reward=True,
    ),
    "InvertedDoublePendulum-v5": GymTask(
        task="InvertedDoublePendulum-v5", env_id="mdvec/InvertedDoublePendulum-v5",
        gym_id="InvertedDoublePendulum-v5", xml_file="inverted_double_pendulum.xml",
        max_episode_steps=1000, reward_threshold=9100.0, render_fps=20,  # dt = 0.01 * 5
        python_float_info=("reward_survive",),  # healthy_reward * int(not terminated)
    ),
    "Ant-v5": GymTask(
        task="Ant-v5", env_id="mdvec/Ant-v5", gym_id="Ant-v5", xml_file="ant.xml",
        max_episode_steps=1000, reward_threshold=6000.0,
        render_fps=20,  # dt = 0.01 * 5
        index_or_name_options=("main_body",),  # data.body(main_body): an index or a body name
    ),  # reward_survive: np.bool_ * float, an np.float64
    "Humanoid-v5": GymTask(
        task="Humanoid-v5", env_id="mdvec/Humanoid-v5", gym_id="Humanoid-v5", xml_file="humanoid.xml",
        max_episode_steps=1000, reward_threshold=None,
        render_fps=67,  # dt = 0.003 * 5
    ),  # info tendon_length/tendon_velocity (arrays in Gymnasium) are the C fields "tendon_length[k]", ...
    "HumanoidStandup-v5": GymTask(
        task="HumanoidStandup-v5", env_id="mdvec/HumanoidStandup-v5", gym_id="HumanoidStandup-v5",
        xml_file="humanoidstandup.xml", max_episode_steps=1000, reward_threshold=None,
        render_fps=67,  # dt = 0.003 * 5
    ),
    "Reacher-v5": GymTask(
        task="Reacher-v5", env_id="mdvec/Reacher-v5", gym_id="Reacher-v5", xml_file="reacher.xml",
        max_episode_steps=50, reward_threshold=-3.75, render_fps=50,  # dt = 0.01 * 2
    ),
    "Pusher-v5": GymTask(
        task="Pusher-v5", env_id="mdvec/Pusher-v5", gym_id="Pusher-v5", xml_file="pusher_v5.xml",
        max_episode_steps=100, reward_threshold=0.0, render_fps=20,  # dt = 0.01 * 5
    ),
}


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
        return (f"Gymnasium's MuJoCo envs cannot run here ({type(exc).__name__}: {exc}): "
                "pip install 'gymnasium[mujoco]'")
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
            "pip install 'gymnasium[mujoco]', or pass xml_file= the path of a model file")
    return os.path.join(list(spec.submodule_search_locations)[0], "envs", "mujoco", "assets")


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
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and \
        type(value).__name__ != "bool_"


def _max_episode_steps(task: GymTask, value: Any) -> int:
    """gymnasium.make's max_episode_steps (None, -1 or a positive int) as mdvec's option (0: none)."""
    if value is None:
        return task.max_episode_steps
    if not _is_int(value):  # TimeLimit: "Expect the `max_episode_steps` to be an integer"
        raise TypeError(f"max_episode_steps: expected an integer (or None, or -1 for no time limit), "
                        f"got {type(value).__name__} {value!r}")
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
    for name in spec.index_or_name_options:
        if name in out and isinstance(out[name], numbers.Integral):
            out[name] = str(int(out[name]))
    return out
