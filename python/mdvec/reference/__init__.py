"""The Python references of mdvec's own tasks (numpy + mujoco only): the duck-balance task, and the
others that declare a Python reference (``mdvec_task_meta(task, "reference")``: ``CartPoleSwingup``)."""

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
