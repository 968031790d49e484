"""``python -m mdvec CMD``: every command checks its arguments before any work and refuses a bad one in one
line with exit status 2 (no traceback, no progress output); the task names every command takes go through
mdvec.make's one resolver; the demo says what it measured instead of a bare nan.

Each case runs the command in a subprocess, as a user does. A check that came after the work (the issue's
``demo --envs 0`` after the 20-30 s equality part, ``calibrate --json`` to an unwritable place after the whole
calibration) shows as progress output on stdout, which these tests refuse.
"""

from __future__ import annotations

import pytest

import mdvec


# ------------------------------------------------------------------ one resolver of task names
def test_unknown_task_message_is_sentences() -> None:
    with pytest.raises(ValueError) as err:
        mdvec.make("nothing-like-a-task")
    assert "unknown task 'nothing-like-a-task'. The tasks are duck, " in str(err.value)


@pytest.mark.parametrize("name", ["HOPPER-V5", "hopper-v5", "MDVEC/HOPPER-V5"])
def test_case_insensitive_suggestion(name: str) -> None:
    with pytest.raises(ValueError, match=r"did you mean 'Hopper-v5' or 'mdvec/Hopper-v5'\? The tasks are"):
        mdvec.make(name)


def test_every_command_takes_the_names_make_takes() -> None:
    """train/evaluate/render (resolve_env, --env) and contract (--task) accept exactly what mdvec.make accepts."""
    from mdvec.tools.contract import TASKS, select_tasks
    from mdvec.tools.train import resolve_env
    from mdvec.vecenv import task_meta
    from mdvec.vector import resolve_task

    names = [*mdvec.task_names(), "DuckBalance-v0", "Hopper-V5", "hopper-v5", " Hopper-v5", "cartpole-swingup"]
    names += [i for t in mdvec.task_names() if (i := task_meta(t, "id")) is not None]
    for name in names:
        try:
            expected: str | None = resolve_task(name)[0]
        except ValueError:
            expected = None
        try:
            got: str | None = resolve_env(name)
        except ValueError:
            got = None
        assert got == expected, name
        if expected in TASKS and "," not in name:
            assert select_tasks([name]) == [expected], name
    assert resolve_env("mdvec/DuckBalance-v0") == "duck"
    with pytest.raises(ValueError, match="did you mean 'mdvec/DuckBalance-v0'"):
        resolve_env("DuckBalance-v0")
    with pytest.raises(ValueError, match=r"'HOPPER-V5' \(did you mean 'Hopper-v5' or 'mdvec/Hopper-v5'\?\)"):
        select_tasks(["HOPPER-V5"])
