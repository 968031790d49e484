"""mdvec: many MuJoCo duck-balance environments stepped by a C library on worker threads.

``mdvec.VecEnv`` is the C-backed vector env, a drop-in for ``mdvec.reference.ProcVecEnv``;
``mdvec.Env`` is one C-backed env, a drop-in for ``mdvec.reference.DuckEnv``. The reference package
(numpy + mujoco only) imports without the C library.
"""

from .vecenv import Env, MdvecError, VecEnv, episode_params

__version__ = "1.0.0"
__all__ = ["Env", "MdvecError", "VecEnv", "episode_params"]
