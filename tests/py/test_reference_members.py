"""Every task whose ``reference`` metadata names a Python entry point ("module:attr": the duck's
``mdvec.reference:DuckEnv``, the cart-pole's ``mdvec.reference:CartPoleSwingup``, any task added by
docs/adding_a_task.md) has a reference that the adapters can make and wrap.

``gymnasium.make(ID, backend="reference")`` makes the reference with ``mdvec._shared.make_entry_point``
and wraps it in ``PlainReferenceCore`` (``gymnasium_api = True``) or ``DuckReferenceCore`` (the others), which
read the members checked here; render and ``load_model`` read ``model`` and ``data``. The tests that go
through Gymnasium skip where it is not installed, so this module checks the same members with numpy and
mujoco alone: ``ninja -C build test`` fails on a reference that lacks one, with or without Gymnasium.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import mujoco
import numpy as np
import pytest

import mdvec
from mdvec import dm_tasks
from mdvec._shared import make_entry_point
from mdvec.vecenv import is_gymnasium_id, task_meta, task_names, task_options

ENTRY_POINT_TASKS = tuple(
    t for t in task_names() if task_meta(t, "reference") and not is_gymnasium_id(task_meta(t, "reference"))
)


def _spec(task: str) -> Any:
    env = mdvec.VecEnv(1, task=task, seed=0, threads=1)
    try:
        return env.spec
    finally:
        env.close()


def _missing(obj: Any, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if not hasattr(obj, n)]


def reference_problems(task: str, target: str | None = None) -> list[str]:
    """What the adapters would miss in ``task``'s reference (``target``: its "module:attr", by default the
    task's own metadata), one line each; [] when nothing is missing. Imports no Gymnasium."""
    target = target or task_meta(task, "reference") or ""
    module, _, attr = target.partition(":")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        return [
            f"{target}: cannot be imported ({type(exc).__name__}: {exc}); name the module that defines the class "
            "('mdvec.reference.<file>:<Class>') or export the class from that package's __init__.py"
        ]
    spec = _spec(task)
    if getattr(factory, "gymnasium_api", False):
        # PlainReferenceCore: attr(**options); obs_dim, act_low, act_high at construction; reset(seed=),
        # step(action) as Gymnasium's; model and data to render (and load_model for a built-in MJCF).
        options = {o.name: o.default for o in task_options(task)}
        try:
            env = make_entry_point(target, 0, options)
        except TypeError as exc:
            return [f"{target}(**options) with every option of the task at its default raised TypeError: {exc}"]
        gone = _missing(env, ("obs_dim", "act_low", "act_high", "model", "data", "reset", "step"))
        if gone:
            return [f"{target}: no {', '.join(gone)} (PlainReferenceCore and render read them)"]
        problems = []
        if env.obs_dim != spec.obs_dim:
            problems.append(f"{target}: obs_dim {env.obs_dim!r}, the C task's is {spec.obs_dim}")
        for name, want in (("act_low", spec.action_low), ("act_high", spec.action_high)):
            got = np.asarray(getattr(env, name), np.float32)
            if got.shape != want.shape or got.tobytes() != want.tobytes():
                problems.append(f"{target}: {name} {got!r} is not the C task's action bound {want!r}")
        obs_info = env.reset(seed=0)
        if not (isinstance(obs_info, tuple) and len(obs_info) == 2 and isinstance(obs_info[1], dict)):
            problems.append(f"{target}: reset(seed=0) must return (obs, info), got {type(obs_info).__name__}")
        elif np.shape(obs_info[0]) != (spec.obs_dim,):
            problems.append(f"{target}: reset's obs has shape {np.shape(obs_info[0])}, not ({spec.obs_dim},)")
        out = env.step(np.zeros(spec.act_dim))
        if not (isinstance(out, tuple) and len(out) == 5 and isinstance(out[4], dict)):
            problems.append(f"{target}: step must return (obs, reward, terminated, truncated, info)")
    else:
        # attr(seed=seed, **options): a gymnasium.Env is used as is; anything else goes to DuckReferenceCore,
        # which reads model (opt.timestep), data, cfg.substeps, obs_dim and nu; reset(seed=) -> obs,
        # step(action) -> (obs, reward, done, info) with info["terminated"] and info["truncated"].
        env = make_entry_point(target, 0, {})
        gym = sys.modules.get("gymnasium")
        if gym is not None and isinstance(env, gym.Env):
            gone = _missing(env, ("observation_space", "action_space", "metadata"))
            return [f"{target}: a gymnasium.Env without {', '.join(gone)}"] if gone else []
        gone = _missing(env, ("obs_dim", "nu", "model", "data", "cfg", "reset", "step"))
        if gone:
            return [f"{target}: no {', '.join(gone)} (DuckReferenceCore and render read them)"]
        problems = []
        if (env.obs_dim, env.nu) != (spec.obs_dim, spec.act_dim):
            problems.append(
                f"{target}: obs_dim, nu {env.obs_dim}, {env.nu}; the C task's {spec.obs_dim}, {spec.act_dim}"
            )
        if not hasattr(env.cfg, "substeps"):
            problems.append(f"{target}: cfg has no substeps (DuckReferenceCore's render_fps)")
        if np.shape(env.reset(seed=0)) != (spec.obs_dim,):
            problems.append(f"{target}: reset(seed=0) must return the observation ({spec.obs_dim},)")
        out = env.step(np.zeros(spec.act_dim))
        if not (isinstance(out, tuple) and len(out) == 4 and {"terminated", "truncated"} <= set(out[3])):
            problems.append(f"{target}: step must return (obs, reward, done, info with terminated, truncated)")
    if not isinstance(env.model, mujoco.MjModel) or not isinstance(env.data, mujoco.MjData):
        problems.append(f"{target}: model and data must be a mujoco.MjModel and its mujoco.MjData (render draws them)")
    return problems


def test_the_catalogue_names_entry_point_references() -> None:
    """The check below has tasks to check: the duck and the cart-pole at least."""
    assert {"duck", "cartpole_swingup"} <= set(ENTRY_POINT_TASKS)


@pytest.mark.parametrize("task", ENTRY_POINT_TASKS)
def test_reference_has_what_the_adapters_read(task: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """mdvec's own references are numpy + mujoco only (the Control Suite's: + dm_control, whose tasks they are):
    checked with ``import gymnasium`` failing."""
    if why := dm_tasks.unavailable(task):
        pytest.skip(why)
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    assert reference_problems(task) == []


def test_a_reference_without_the_members_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not vacuous: a cart-pole reference that lost act_low and model is named, without Gymnasium."""
    from mdvec.reference import cartpole_swingup

    class Bare(cartpole_swingup.CartPoleSwingup):
        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            del self.act_low, self.model

    monkeypatch.setitem(sys.modules, "gymnasium", None)
    monkeypatch.setattr(cartpole_swingup, "Bare", Bare, raising=False)
    problems = reference_problems("cartpole_swingup", "mdvec.reference.cartpole_swingup:Bare")
    assert problems == [
        "mdvec.reference.cartpole_swingup:Bare: no act_low, model (PlainReferenceCore and render read them)"
    ]
    assert "cannot be imported" in reference_problems("cartpole_swingup", "mdvec.reference:NoSuchClass")[0]


def test_an_entry_point_may_name_the_defining_module() -> None:
    """docs/adding_a_task.md: "mdvec.reference.<file>:<Class>" needs no export from mdvec.reference."""
    made = make_entry_point("mdvec.reference.cartpole_swingup:CartPoleSwingup", 0, {})
    assert type(made) is importlib.import_module("mdvec.reference").CartPoleSwingup
    assert reference_problems("cartpole_swingup", "mdvec.reference.cartpole_swingup:CartPoleSwingup") == []
