"""The Python references of mdvec's own tasks (numpy + mujoco only): the duck-balance task, and the
others that declare a Python reference (``mdvec_task_meta(task, "reference")``: ``CartPoleSwingup``).

``mdvec.reference.dm_control`` is the reference of the Control Suite tasks ("cheetah-run", ...): dm_control
itself through Shimmy's API, one factory per task (``mdvec.reference.dm_control:cheetah_run``). It needs
dm_control (pip install dm-control) and is not imported here: import it by its name."""

from .cartpole_swingup import CartPoleSwingup
from .config import TaskConfig
from .duck_env import DuckEnv, info_keys, noise_std, obs_scale
from .params import DRFactors, EpisodeParams
from .proc_vec_env import ProcVecEnv

__all__ = [
    "CartPoleSwingup",
    "DRFactors",
    "DuckEnv",
    "EpisodeParams",
    "ProcVecEnv",
    "TaskConfig",
    "info_keys",
    "noise_std",
    "obs_scale",
]
