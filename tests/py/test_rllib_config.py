"""RLlibVectorEnv's env_config is checked, never truncated or guessed: integers are ints (num_envs=2.9
or 3.0 is refused, as mdvec refuses floats for counts everywhere), ``infos`` is a bool (the text "false"
is refused, not read as true). Needs gymnasium (mdvec.rllib registers the ids), not ray.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'mdvec[gymnasium]')")

from mdvec.adapters.rllib import DEFAULT_ENV_ID, RLlibVectorEnv, parse_env_config

OPTS = {"episode_len": 5, "push_window": (0, 5), "n_pushes": 1}


def test_defaults_and_task_options() -> None:
    cfg = parse_env_config({"num_envs": np.int64(3), "seed": 7, "threads": 2, **OPTS})
    assert cfg["num_envs"] == 3 and type(cfg["num_envs"]) is int
    assert (cfg["env_id"], cfg["backend"], cfg["seed"], cfg["threads"], cfg["infos"]) == (
        DEFAULT_ENV_ID,
        "c",
        7,
        2,
        True,
    )
    assert cfg["options"] == OPTS
    empty = parse_env_config(None)
    assert (empty["num_envs"], empty["seed"], empty["threads"], empty["fault"]) == (1, None, None, None)
    assert parse_env_config({"infos": False})["infos"] is False
    assert parse_env_config({"infos": np.bool_(False)})["infos"] is False


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        ("num_envs", 2.9, TypeError),
        ("num_envs", 3.0, TypeError),
        ("num_envs", True, TypeError),
        ("num_envs", "4", TypeError),
        ("num_envs", 0, ValueError),
        ("threads", 1.5, TypeError),
        ("threads", 0, ValueError),
        ("seed", 2.0, TypeError),
        ("seed", -1, ValueError),
        ("infos", "false", TypeError),
        ("infos", "true", TypeError),
        ("infos", 0, TypeError),
        ("backend", "gpu", ValueError),
        ("env_id", 3, TypeError),
        ("fault", "yes", TypeError),
    ],
)
def test_bad_values_are_refused_naming_the_key(key: str, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error) as e:
        parse_env_config({key: value})
    assert f"env_config[{key!r}]" in str(e.value) and repr(value) in str(e.value), str(e.value)


def test_the_vector_env_refuses_them_before_building() -> None:
    with pytest.raises(TypeError, match="num_envs"):
        RLlibVectorEnv({"num_envs": 2.9, **OPTS})  # was: int(2.9), two envs
    with pytest.raises(TypeError, match="infos"):
        RLlibVectorEnv({"num_envs": 2, "infos": "false", **OPTS})  # was: bool("false"), infos kept
    env = RLlibVectorEnv({"num_envs": 2, "infos": False, "seed": 1, "threads": 1, **OPTS})
    try:
        assert env.num_envs == 2 and env.run_seed == 1
        assert env.reset(seed=1)[1] == {}
        assert env.step(np.zeros(env.action_space.shape, np.float32))[4] == {}
    finally:
        env.close()
