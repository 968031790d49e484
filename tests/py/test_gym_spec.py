"""mdvec's Gymnasium ids serialise as Gymnasium's own do: every id is registered with "module:attr"
entry points (gymnasium.make and make_vec's vector_entry_point), so ``EnvSpec.to_json`` works,
``EnvSpec.from_json`` gives the same spec back, and gymnasium.make / make_vec on the spec read back
from JSON build the env (in this process, and in a fresh one that never imported mdvec).

Skipped when gymnasium is not installed; the v5 ids need Gymnasium's MuJoCo assets (gymnasium[mujoco]).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'mdvec[gymnasium]')")

from gymnasium.envs.registration import EnvSpec  # noqa: E402

import mdvec.gym  # noqa: E402 - registers the ids
from mdvec import dm_tasks  # noqa: E402
from mdvec.gym_tasks import GYM_TASKS, gymnasium_mujoco_unavailable  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
IDS = sorted(mdvec.gym.TASKS)
V5_IDS = {t.env_id for t in GYM_TASKS.values()}


def _needs_assets(env_id: str) -> None:
    why = gymnasium_mujoco_unavailable() if env_id in V5_IDS else dm_tasks.unavailable(mdvec.gym.TASKS[env_id].task)
    if why:
        pytest.skip(why)


def test_every_library_id_is_checked() -> None:
    assert "mdvec/DuckBalance-v0" in IDS and "mdvec/Hopper-v5" in IDS and len(IDS) >= 12, IDS


@pytest.mark.parametrize("env_id", IDS)
def test_registered_spec_round_trips_through_json(env_id: str) -> None:
    spec = gymnasium.spec(env_id)
    entry = mdvec.gym.TASKS[env_id]
    for point, cls in ((spec.entry_point, entry.env_class), (spec.vector_entry_point, entry.vector_class)):
        assert isinstance(point, str), point  # a class object is not JSON
        module, _, attr = point.partition(":")
        assert getattr(__import__(module, fromlist=[attr]), attr) is cls
    text = spec.to_json()
    assert json.loads(text)["entry_point"] == spec.entry_point
    back = EnvSpec.from_json(text)
    assert back == spec and back.to_json() == text


@pytest.mark.parametrize("env_id", IDS)
def test_make_and_make_vec_on_the_spec_read_back_from_json(env_id: str) -> None:
    _needs_assets(env_id)
    entry = mdvec.gym.TASKS[env_id]
    env = gymnasium.make(env_id, backend="c")
    try:
        text = env.spec.to_json()  # the made env's spec (with its kwargs) serialises too
    finally:
        env.close()
    again = gymnasium.make(EnvSpec.from_json(text))
    try:
        assert type(again.unwrapped) is entry.env_class and again.spec.to_json() == text
        again.reset(seed=1)
        again.step(again.action_space.sample())
    finally:
        again.close()
    venv = gymnasium.make_vec(
        EnvSpec.from_json(gymnasium.spec(env_id).to_json()), num_envs=2, vectorization_mode="vector_entry_point"
    )
    try:
        assert type(venv.unwrapped) is entry.vector_class
        venv.reset(seed=1)
    finally:
        venv.close()


def test_a_json_spec_makes_the_env_in_a_process_that_never_imported_mdvec() -> None:
    text = gymnasium.spec("mdvec/DuckBalance-v0").to_json()
    code = (
        "import sys, gymnasium; from gymnasium.envs.registration import EnvSpec\n"
        "env = gymnasium.make(EnvSpec.from_json(sys.argv[1]))\n"
        "print(type(env.unwrapped).__name__, env.reset(seed=0)[0].shape)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code, text], capture_output=True, text=True, env=env, timeout=120)
    assert "DuckBalance_v0Env (48,)" in out.stdout, out.stderr[-2000:]


def test_ids_sharing_a_name_get_classes_of_their_own() -> None:
    """Another namespace's "Hopper-v5" must not replace the class mdvec/Hopper-v5's entry point names."""
    hopper = gymnasium.spec("mdvec/Hopper-v5").entry_point
    entry = mdvec.gym.register_task("mdvec-test/Hopper-v5", "duck", mdvec.gym.TASKS[mdvec.gym.DUCK_ID].reference)
    try:
        spec = gymnasium.spec("mdvec-test/Hopper-v5")
        assert spec.entry_point != hopper and gymnasium.spec("mdvec/Hopper-v5").entry_point == hopper
        module, _, attr = hopper.partition(":")
        assert getattr(__import__(module, fromlist=[attr]), attr) is mdvec.gym.TASKS["mdvec/Hopper-v5"].env_class
        env = gymnasium.make(EnvSpec.from_json(spec.to_json()), backend="c")
        assert type(env.unwrapped) is entry.env_class
        env.close()
    finally:
        del gymnasium.registry["mdvec-test/Hopper-v5"]
        mdvec.gym.TASKS.pop("mdvec-test/Hopper-v5")
