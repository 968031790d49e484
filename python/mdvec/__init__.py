"""mdvec: many MuJoCo environments stepped by a C library on worker threads.

``mdvec.make(task, num_envs=..., seed=..., threads=..., **options)`` gives any task's envs as a
Gymnasium-style vector env (a ``gymnasium.vector.VectorEnv`` when Gymnasium is installed).
``mdvec.VecEnv`` is the C-backed vector env of any libmdvec task (``task_names()``), a drop-in for
``mdvec.reference.ProcVecEnv`` on the default task (the duck); ``mdvec.Env`` is one C-backed env, a
drop-in for ``mdvec.reference.DuckEnv``. ``task_options(task)`` lists a task's options; ``numpy_dot()`` says
how the tasks that reproduce ``np.linalg.norm`` follow numpy's BLAS on this machine. The reference
package (numpy + mujoco only) imports without the C library.
"""

from typing import Any

from ._version import __version__ as __version__
from .npdot import NumpyDot, NumpyDotWarning, numpy_dot
from .vecenv import (
    Env,
    MdvecError,
    OptionInfo,
    Spec,
    VecEnv,
    task_constants,
    task_names,
    task_options,
    task_summary,
    task_uses_numpy_dot,
)
from .vector import make


def episode_params(env: Any) -> Any:
    """Return what a reference duck env's last reset drew, for ``reset_with_params`` (see mdvec.duck;
    imported on first use: it loads the Python reference and mujoco's bindings)."""
    from .duck import episode_params as params

    return params(env)


def _register_gymnasium_ids() -> None:
    """Register the Gymnasium ids (mdvec.gym) when gymnasium is installed; nothing otherwise."""
    import importlib.util

    if importlib.util.find_spec("gymnasium") is not None:
        try:
            from . import gym  # noqa: F401 - importing it registers the ids
        except ImportError:  # e.g. a gymnasium too old: `import mdvec.gym` says why
            pass


_register_gymnasium_ids()

__all__ = [
    "Env",
    "MdvecError",
    "NumpyDot",
    "NumpyDotWarning",
    "OptionInfo",
    "Spec",
    "VecEnv",
    "episode_params",
    "make",
    "numpy_dot",
    "task_constants",
    "task_names",
    "task_options",
    "task_summary",
    "task_uses_numpy_dot",
]
