"""The Python reference implementation of the duck-balance task (numpy + mujoco only)."""

from .config import TaskConfig
from .duck_env import DuckEnv, info_keys, noise_std, obs_scale
from .params import DRFactors, EpisodeParams
from .proc_vec_env import ProcVecEnv

__all__ = ["DRFactors", "DuckEnv", "EpisodeParams", "ProcVecEnv", "TaskConfig", "info_keys",
           "noise_std", "obs_scale"]
