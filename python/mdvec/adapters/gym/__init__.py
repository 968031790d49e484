"""mdvec's tasks as Gymnasium environments (needs ``pip install 'mdvec[gymnasium]'``).

Importing this package registers the id every library task declares (``mdvec/DuckBalance-v0``,
``mdvec/Hopper-v5``, ...: ``mdvec_task_meta``), and ``register_task`` adds others::

    env = gymnasium.make("mdvec/DuckBalance-v0", backend="c")           # or backend="reference"
    envs = gymnasium.make_vec("mdvec/DuckBalance-v0", num_envs=64,
                              vectorization_mode="vector_entry_point", threads=4)

``import mdvec`` registers them too when gymnasium is installed. dm_control's Control Suite tasks
(``mdvec/cheetah-run-v0``, ...) also get Shimmy's ids (``dm_control/cheetah-run-v0``, ``ALIASES``) unless Shimmy
is installed (its own registration of them, dm_control in Python, is never replaced). The entry points are "module:attr"
strings, as Gymnasium's own ids' (``"mdvec.gym:Hopper_v5Env"``, ``"mdvec.gym:Hopper_v5VectorEnv"``: the
classes are attributes of this module), so specs serialise (``EnvSpec.to_json``).
"""

from __future__ import annotations

try:
    import gymnasium as _gymnasium  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a venv without gymnasium
    raise ImportError(
        "mdvec.gym needs gymnasium (1.2.2 or later), which is not installed: "
        "pip install 'mdvec[gymnasium]' (or pip install 'gymnasium>=1.2.2')"
    ) from exc

from gymnasium.vector import AutoresetMode

from ._tasks import ALIASES, DUCK_ID, TASKS, TaskEntry, register_builtin, register_task
from .env import CCore, DuckReferenceCore, GymReferenceCore, MdvecTaskEnv
from .vector import MdvecVectorEnv

register_builtin()
DuckBalanceEnv = TASKS[DUCK_ID].env_class
DuckBalanceVectorEnv = TASKS[DUCK_ID].vector_class

__all__ = [
    "ALIASES",
    "DUCK_ID",
    "TASKS",
    "AutoresetMode",
    "CCore",
    "DuckBalanceEnv",
    "DuckBalanceVectorEnv",
    "DuckReferenceCore",
    "GymReferenceCore",
    "MdvecTaskEnv",
    "MdvecVectorEnv",
    "TaskEntry",
    "register_task",
]
