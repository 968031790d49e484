"""The registration metadata each task declares in C (mdvec_task_meta, the spec's dt and kinds), as the
binding reads it and mdvec.gym registers it, against Gymnasium's own registrations and envs."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import mdvec
from mdvec import _resources
from mdvec.gym_tasks import gymnasium_mujoco_unavailable
from mdvec.vecenv import task_meta

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")

# The tests that make Gymnasium's own MuJoCo envs (the references) need them to run here (imageio: [mujoco]).
needs_gym_mujoco = pytest.mark.skipif(
    bool(gymnasium_mujoco_unavailable()), reason=gymnasium_mujoco_unavailable() or "-"
)


def test_task_meta_lookup() -> None:
    assert task_meta("duck", "id") == "mdvec/DuckBalance-v0"
    assert task_meta(None, "id") == task_meta("duck", "id")
    assert task_meta("duck", "reference") == "mdvec.reference:DuckEnv"
    assert task_meta("duck", "reward_threshold") is None
    assert task_meta("Hopper-v5", "no_such_key") is None
    with pytest.raises(ValueError, match="unknown task"):
        task_meta("nope", "id")


def test_every_declared_id_is_registered() -> None:
    """mdvec.gym registers each task under its declared id, with the option default as the TimeLimit and,
    for a Gymnasium reference, the very registration values Gymnasium gives that id."""
    import mdvec.gym

    for task in mdvec.task_names():
        env_id, ref = task_meta(task, "id"), task_meta(task, "reference")
        assert env_id in mdvec.gym.TASKS and mdvec.gym.TASKS[env_id].task == task
        ours = gymnasium.spec(env_id)
        defaults = {o.name: o.default for o in mdvec.task_options(task)}
        assert ours.max_episode_steps == (defaults.get("max_episode_steps") or None)  # 0: no TimeLimit
        if ":" not in ref:
            theirs = gymnasium.spec(ref)
            assert (ours.max_episode_steps, ours.reward_threshold) == (
                theirs.max_episode_steps,
                theirs.reward_threshold,
            ), task


def test_duck_dt_and_render_fps() -> None:
    """The duck's dt is its model's timestep times substeps; render_fps follows it."""
    timestep = mujoco.MjModel.from_xml_path(str(_resources.variant_path("default"))).opt.timestep
    for substeps in (10, 4):
        with mdvec.VecEnv(1, task="duck", substeps=substeps) as venv:
            assert venv.spec.dt == timestep * substeps
            assert venv.spec.render_fps == round(1 / (timestep * substeps))
            assert venv.spec.reward_kind == "float"
    env = gymnasium.make("mdvec/DuckBalance-v0")
    assert env.metadata["render_fps"] == 50
    env.close()


@needs_gym_mujoco
@pytest.mark.parametrize("frame_skip", [None, 2])
def test_render_fps_equals_gymnasiums(frame_skip: int | None) -> None:
    """mdvec/Hopper-v5's render_fps (round(1 / dt) of the C env) is Gymnasium's Hopper-v5's."""
    kw = {} if frame_skip is None else {"frame_skip": frame_skip}
    ours, theirs = gymnasium.make("mdvec/Hopper-v5", **kw), gymnasium.make("Hopper-v5", **kw)
    try:
        assert ours.metadata["render_fps"] == theirs.unwrapped.metadata["render_fps"]
        ref = gymnasium.make("mdvec/Hopper-v5", backend="reference", **kw)
        assert ref.metadata["render_fps"] == theirs.unwrapped.metadata["render_fps"]
        ref.close()
    finally:
        ours.close()
        theirs.close()


@needs_gym_mujoco
def test_single_env_types_follow_the_kinds() -> None:
    """The C single env types its reward and info values as the reference does (the declared kinds)."""
    for task, reward_type in (("InvertedPendulum-v5", int), ("Hopper-v5", np.float64), ("duck", float)):
        env_id = task_meta(task, "id")
        ours = gymnasium.make(env_id)
        ref = gymnasium.make(env_id, backend="reference")
        try:
            ours.reset(seed=3)
            ref.reset(seed=3)
            a = np.zeros(ours.action_space.shape, np.float64)
            got, want = ours.step(a), ref.step(a)
            assert type(got[1]) is type(want[1]) is reward_type, task
            assert {k: type(v) for k, v in got[4].items()} == {k: type(v) for k, v in want[4].items()}, task
        finally:
            ours.close()
            ref.close()
