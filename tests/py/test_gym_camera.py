"""Gymnasium's MuJoCo rendering keywords: ``camera_id`` and ``camera_name`` together are refused as
Gymnasium's MujocoRenderer refuses them (ValueError "Both `camera_id` and `camera_name` cannot be
specified at the same time."), by the single env, make_vec's vector env and the SB3 VecEnv; each alone
is accepted. Skipped without gymnasium[mujoco].
"""

from __future__ import annotations

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")

import mdvec.gym  # noqa: E402, F401 - registers the ids
from mdvec.gym_tasks import gymnasium_mujoco_unavailable  # noqa: E402

BOTH = "Both `camera_id` and `camera_name` cannot be specified at the same time"


@pytest.fixture(autouse=True)
def _mujoco_envs() -> None:
    why = gymnasium_mujoco_unavailable()
    if why:
        pytest.skip(why)


def test_gymnasium_refuses_both() -> None:
    with pytest.raises(ValueError, match=BOTH):
        gymnasium.make("Hopper-v5", camera_id=0, camera_name="track")


@pytest.mark.parametrize("backend", ["c", "reference"])
def test_single_env_refuses_both(backend: str) -> None:
    with pytest.raises(ValueError, match=BOTH):
        gymnasium.make("mdvec/Hopper-v5", backend=backend, camera_id=0, camera_name="track")
    for kw in ({"camera_id": 0}, {"camera_name": "track"}, {"camera_id": None, "camera_name": "track"}):
        gymnasium.make("mdvec/Hopper-v5", backend=backend, render_mode="rgb_array", **kw).close()


def test_vector_env_refuses_both() -> None:
    with pytest.raises(ValueError, match=BOTH):
        gymnasium.make_vec(
            "mdvec/Hopper-v5", num_envs=2, vectorization_mode="vector_entry_point", camera_id=0, camera_name="track"
        )
    venv = gymnasium.make_vec("mdvec/Hopper-v5", num_envs=2, vectorization_mode="vector_entry_point", camera_id=0)
    venv.close()


def test_sb3_vec_env_refuses_both() -> None:
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from mdvec.sb3 import MdvecSB3VecEnv

    with pytest.raises(ValueError, match=BOTH):
        MdvecSB3VecEnv(2, task="Hopper-v5", camera_id=0, camera_name="track")
    MdvecSB3VecEnv(2, task="Hopper-v5", camera_name="track").close()
