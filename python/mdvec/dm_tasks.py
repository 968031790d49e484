"""dm_control's Control Suite tasks in mdvec: the Python side of their options (the binding's task hooks).

libmdvec runs the 28 tasks of ``dm_control.suite.BENCHMARKING`` ("cheetah-run", "ball_in_cup-catch", ...)
bit for bit against dm_control itself (their reference: ``mdvec.reference.dm_control``), reading each
domain's XML from the installed dm_control package at run time (the library cannot know where it lives).
What only Python can do lives here, and nothing here imports dm_control:

* ``prepare(task, variant, model, options)`` (vecenv.task_hooks' protocol): fill the option ``suite_dir``,
  when not given, with the folder dm_control/suite of the installed dm_control, found by
  ``importlib.util.find_spec`` without importing it. Without dm_control it raises ImportError naming
  ``pip install dm-control``; the other tasks do not need it.
* ``is_dm_task(task)``: whether a task is one of them (its "reference" metadata starts with
  ``mdvec.reference.dm_control:``).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

__all__ = ["REFERENCE_PREFIX", "is_dm_reference", "is_dm_task", "prepare", "suite_dir", "unavailable"]

REFERENCE_PREFIX = "mdvec.reference.dm_control:"  # the "reference" metadata of every suite task starts so


def is_dm_reference(reference: str | None) -> bool:
    """True when a task's "reference" metadata names a factory of mdvec.reference.dm_control."""
    return bool(reference) and reference.startswith(REFERENCE_PREFIX)  # type: ignore[union-attr]


def is_dm_task(task: str) -> bool:
    """True when ``task`` is one of libmdvec's Control Suite tasks."""
    from .vecenv import task_meta

    return is_dm_reference(task_meta(task, "reference"))


def suite_dir(task: str | None = None) -> str:
    """Return the folder dm_control/suite of the installed dm_control (its domain XML and common/), found
    without importing dm_control. Raises ImportError saying what to do when dm_control is not installed."""
    spec = importlib.util.find_spec("dm_control")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        folder = os.path.join(location, "suite")
        if os.path.isdir(folder):
            return os.path.abspath(folder)
    what = f"task {task!r}" if task else "mdvec's Control Suite tasks"
    raise ImportError(
        f"{what} reads the model files of dm_control's suite (dm_control/suite/*.xml) from the installed "
        "dm_control package, and dm_control is not installed: pip install dm-control "
        "(or pass suite_dir= the path of a dm_control/suite folder)"
    )


def unavailable(task: str) -> str:
    """Why ``task`` cannot run here ("" when it can, or when it is not a Control Suite task): dm_control is not
    installed. For tests and tools that skip such tasks with the reason."""
    if not is_dm_task(task):
        return ""
    try:
        suite_dir(task)
    except ImportError as exc:
        return str(exc)
    return ""


def prepare(task: str, variant: str, model: Any, options: dict[str, Any]) -> tuple[None, dict[str, Any]]:
    """The binding's hook for a Control Suite task (vecenv.task_hooks): no v1 arguments; ``suite_dir``
    filled in when not given (or None), every other option passed on for the library to check."""
    if variant != "default" or model is not None:
        raise ValueError(f"variant/model: task {task!r} takes its model from dm_control's suite (option suite_dir)")
    out = dict(options)
    if out.get("suite_dir") is None:
        out["suite_dir"] = suite_dir(task)
    return None, out
