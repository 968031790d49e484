"""mdvec's adapters: its envs in the shapes other frameworks take.

* ``gym`` (public name ``mdvec.gym``): ``gymnasium.Env`` / ``gymnasium.vector.VectorEnv`` and the ``mdvec/`` ids;
* ``sb3`` (``mdvec.sb3``): a Stable-Baselines3 ``VecEnv``;
* ``rllib`` (``mdvec.rllib``): RLlib's vector entry point and a PPO config.

Adapters depend on the core only (``mdvec.vecenv``, ``mdvec.vector``, and ``mdvec._shared``: the checks, seeds,
info keys and frames they share with the core's ``mdvec.make``), and SB3's and RLlib's on the Gymnasium
adapter; no core module imports an adapter (tests/py/test_layering.py). ``mdvec.make`` returns the Gymnasium
class because the Gymnasium adapter registers it with the core (``mdvec.vector.VECTOR_CLASSES``) when imported.

Importing this package imports nothing: each adapter loads its framework when it is imported, and none
imports a reference backend (``mdvec.reference``, Gymnasium's MuJoCo envs, the ``mujoco`` bindings)
before an env asks for one.
"""

from __future__ import annotations

import importlib
import sys


def publish(name: str, adapter: str) -> None:
    """Make ``sys.modules[name]`` (and its submodules) the adapter ``mdvec.adapters.<adapter>`` itself.

    ``mdvec/gym.py`` and its siblings call it so that ``import mdvec.gym`` gives the one module object
    ``mdvec.adapters.gym``: never a second copy of a module (or of its classes) under the old name.
    """
    module = importlib.import_module(f"{__name__}.{adapter}")
    prefix = module.__name__ + "."
    for key, sub in list(sys.modules.items()):
        if key.startswith(prefix):
            sys.modules[name + "." + key[len(prefix) :]] = sub
    sys.modules[name] = module
