"""mdvec's own tasks besides the duck and Gymnasium's v5 tasks, and where their Python references live.

``OWN_TASKS`` maps each task name to its reference class as ``"module:Class"``; the class is imported on
first use (``reference_class``), so that ``import mdvec`` stays light. A reference class has Gymnasium's
``reset(seed=None) -> (obs, info)`` and ``step(action) -> (obs, reward, terminated, truncated, info)``,
``obs_dim``, ``act_low``/``act_high`` and ``model``/``data``; ``mdvec.gym`` registers each task as
``mdvec/<name>`` and the contract compares it with its reference.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["OWN_TASKS", "reference_class"]

OWN_TASKS: dict[str, str] = {
    "cartpole_swingup": "mdvec.reference.cartpole_swingup:CartPoleSwingup",
}


def reference_class(task: str) -> Any:
    """Return the reference class of own task ``task`` (a key of OWN_TASKS), importing its module."""
    module, _, name = OWN_TASKS[task].partition(":")
    return getattr(importlib.import_module(module), name)
