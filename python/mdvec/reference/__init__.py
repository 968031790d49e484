"""The Python references of mdvec's own tasks (numpy + mujoco only): the duck-balance task, and
``TASK_REFERENCES``, the reference class of each other task that is not one of Gymnasium's."""

from .cartpole_swingup import CartPoleSwingup
from .config import TaskConfig
from .duck_env import DuckEnv, info_keys, noise_std, obs_scale
from .params import DRFactors, EpisodeParams
from .proc_vec_env import ProcVecEnv

# Task name -> its reference class (Gymnasium's reset/step API, obs_dim, act_low/act_high, model/data).
TASK_REFERENCES = {"cartpole_swingup": CartPoleSwingup}

__all__ = ["CartPoleSwingup", "DRFactors", "DuckEnv", "EpisodeParams", "ProcVecEnv", "TASK_REFERENCES", "TaskConfig",
           "info_keys", "noise_std", "obs_scale"]
