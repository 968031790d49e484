"""dm_control's Control Suite tasks through mdvec's adapters: names, spaces, seeding, SB3, RLlib and the tools.

What ``test_dm_control`` proves bit for bit is the C library against dm_control; here the layers above it:

* names: Shimmy's ids (``dm_control/cheetah-run-v0``) as aliases in ``mdvec.make``, ``resolve_task`` and
  ``gymnasium.make`` (registered only where Shimmy is not installed and nobody holds the id), close-name
  suggestions for misspelt names, Shimmy-style ids and bare domains;
* spaces and values: Shimmy's Dict observation (sorted keys, Box(-inf, inf, shape, float64), scalars of shape
  ()) by default, the flat float64 vector with ``flat_observation=True``; the dict equals the flat observation
  split by ``obs_layout`` and, on the reference backend, dm_control's own observation bit for bit; the action
  space is Box(float64) with dm_control's action_spec bounds;
* seeding as Shimmy's: ``reset(seed=s)`` twice gives the same episode, vector env i is the single env seeded
  s + i, seeds beyond a RandomState's 2**32 - 1 are refused before anything is reset;
* without dm_control: a clear ImportError naming ``pip install dm-control``;
* SB3's VecEnv and RLlib's vector env on a suite task (skipped without stable-baselines3; RLlib's env needs no
  ray, its PPO config does), the contract's make_vec case with dict observations, and ``python -m mdvec train
  --task cheetah-run`` with evaluate and render (skipped without torch/SB3; render without OpenGL).

Everything skips without dm_control (pip install dm-control) or gymnasium.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="gymnasium is not installed")
if importlib.util.find_spec("dm_control") is None:
    pytest.skip("dm_control is not installed (pip install dm-control)", allow_module_level=True)

import gymnasium

import mdvec
import mdvec.gym
from mdvec.vector import resolve_task, task_name, task_suggestions

if "cheetah-run" not in mdvec.task_names():
    pytest.skip("this libmdvec has no Control Suite tasks", allow_module_level=True)

WALKER = "walker-walk"  # a task with a scalar entry ("height", shape ())
LAYOUT = (("orientations", (14,)), ("height", ()), ("velocity", (9,)))  # dm_control's order
SUITE = [t for t in mdvec.task_names() if mdvec.vector.is_suite_task(t)]


def _same(a: Any, b: Any) -> bool:
    """Bit for bit: the same keys in the same order, dtypes, shapes and bytes."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# ------------------------------------------------------------------ names
def test_shimmy_ids_are_aliases() -> None:
    assert len(SUITE) == 28
    assert resolve_task("dm_control/cheetah-run-v0") == ("cheetah-run", "mdvec/cheetah-run-v0")
    assert task_name("dm_control/ball_in_cup-catch-v0") == "ball_in_cup-catch"
    assert mdvec.vector.shimmy_id("cheetah-run") == "dm_control/cheetah-run-v0"
    assert mdvec.vector.shimmy_id("Hopper-v5") is None
    with pytest.raises(ValueError, match="unknown task 'dm_control/Hopper-v5-v0'"):
        task_name("dm_control/Hopper-v5-v0")  # Shimmy's form names suite tasks only
    envs = mdvec.make("dm_control/cheetah-run-v0", 2, seed=0)
    assert envs.env_id == "mdvec/cheetah-run-v0" and envs.task == "cheetah-run"
    envs.close()
    if mdvec.gym._tasks.shimmy_installed():
        assert not mdvec.gym.ALIASES  # Shimmy's own registration of its ids stays
        return
    assert mdvec.gym.ALIASES == {mdvec.vector.shimmy_id(t): f"mdvec/{t}-v0" for t in SUITE}
    env = gymnasium.make("dm_control/cheetah-run-v0")
    assert type(env.unwrapped) is type(gymnasium.make("mdvec/cheetah-run-v0").unwrapped)
    env.close()


def test_an_alias_never_replaces_shimmys_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    from mdvec.adapters.gym import _tasks

    alias, entry = "dm_control/cheetah-run-v0", mdvec.gym.TASKS["mdvec/cheetah-run-v0"]
    saved = gymnasium.registry.get(alias)
    saved_aliases = dict(_tasks.ALIASES)
    try:
        gymnasium.registry.pop(alias, None)
        _tasks.ALIASES.pop(alias, None)
        gymnasium.register(alias, entry_point="shimmy.registration:_make_dm_control_suite_env")  # Shimmy's
        _tasks._register_alias(entry)
        assert gymnasium.registry[alias].entry_point == "shimmy.registration:_make_dm_control_suite_env"
        del gymnasium.registry[alias]
        monkeypatch.setattr(_tasks, "shimmy_installed", lambda: True)  # installed, not yet imported
        _tasks._register_alias(entry)
        assert alias not in gymnasium.registry and alias not in _tasks.ALIASES
        assert resolve_task(alias)[0] == "cheetah-run"  # mdvec.make takes it anyway
    finally:
        gymnasium.registry.pop(alias, None)
        if saved is not None:
            gymnasium.registry[alias] = saved
        _tasks.ALIASES.clear()
        _tasks.ALIASES.update(saved_aliases)


def test_close_names_are_suggested() -> None:
    assert task_suggestions("cheetah-runn")[0] == "cheetah-run"
    assert task_suggestions("dm_control/cheetah-runn-v0") == ["cheetah-run"]
    assert task_suggestions("dm_control/walker-v0") == ["walker-stand", "walker-walk", "walker-run"]
    assert task_suggestions("cheetah")[0] == "cheetah-run"
    assert task_suggestions("walker")[:3] == ["walker-stand", "walker-walk", "walker-run"]
    assert task_suggestions("ball-in-cup") == ["ball_in_cup-catch"]
    assert task_suggestions("DM_CONTROL/Cheetah-Run-V0")[0] == "cheetah-run"
    for name in ("cheetah-runn", "dm_control/cheetah-runn-v0", "cheetah"):
        with pytest.raises(ValueError, match=f"unknown task '{name}'; did you mean 'cheetah-run'"):
            mdvec.make(name)


# ------------------------------------------------------------------ spaces and values
def test_dict_and_flat_spaces() -> None:
    from gymnasium import spaces

    env = gymnasium.make(f"mdvec/{WALKER}-v0")
    space = env.observation_space
    assert isinstance(space, spaces.Dict) and list(space.keys()) == sorted(n for n, _ in LAYOUT)
    for name, shape in LAYOUT:
        assert space[name] == spaces.Box(-np.inf, np.inf, shape, np.float64), name
    act = env.action_space
    assert act == spaces.Box(-1.0, 1.0, (6,), np.float64) and act.dtype == np.float64
    obs, info = env.reset(seed=1)
    assert list(obs) == [n for n, _ in LAYOUT] and obs["height"].shape == () and info == {"timestep.step_type": 0}
    assert space.contains(obs)
    env.close()
    flat = gymnasium.make(f"mdvec/{WALKER}-v0", flat_observation=True)
    assert flat.observation_space == spaces.Box(-np.inf, np.inf, (24,), np.float64)
    assert flat.action_space == act
    flat.close()
    envs = mdvec.make(WALKER, 3, seed=0)
    assert envs.single_observation_space == space and envs.single_action_space == act
    assert {k: s.shape for k, s in envs.observation_space.items()} == {
        "height": (3,),
        "orientations": (3, 14),
        "velocity": (3, 9),
    }
    assert envs.observation_space.contains(envs.reset(seed=0)[0])
    envs.close()
    # the reference's spaces are the C env's, its bounds dm_control's action_spec
    ref = gymnasium.make(f"mdvec/{WALKER}-v0", backend="reference")
    assert ref.observation_space == space and ref.action_space == act
    spec = ref.unwrapped._core.env.env.action_spec()
    assert np.array_equal(act.low, np.broadcast_to(spec.minimum, spec.shape))
    assert np.array_equal(act.high, np.broadcast_to(spec.maximum, spec.shape))
    ref.close()


def test_dict_obs_are_the_flat_obs_split_and_dm_controls_own() -> None:
    """C dict == C flat split by obs_layout == the reference's dict (dm_control's observation) bit for bit,
    through a time-limit end (time_limit 0.1 s: 4 steps of 0.025 s) and a reset."""
    kw = {"time_limit": 0.1}
    c = gymnasium.make(f"mdvec/{WALKER}-v0", **kw)
    flat = gymnasium.make(f"mdvec/{WALKER}-v0", flat_observation=True, **kw)
    ref = gymnasium.make(f"mdvec/{WALKER}-v0", backend="reference", **kw)
    layout = mdvec.VecEnv(1, task=WALKER).obs_layout
    assert layout == LAYOUT
    rng = np.random.default_rng(4)
    results = [e.reset(seed=7) for e in (c, flat, ref)]
    compared = ends = 0
    for t in range(10):
        (co, *crest), (fo, *frest), (ro, *rrest) = results
        split = mdvec.vecenv.split_obs(layout, fo)
        assert _same(co, split) and _same(co, ro), t
        assert crest == frest == rrest, t
        compared += 1
        a = rng.uniform(-1, 1, 6)
        results = [e.step(a) for e in (c, flat, ref)]
        if results[0][2] or results[0][3]:
            ends += 1
            assert results[0][3] and not results[0][2]  # a time limit: truncated (discount 1)
            assert all(_same(r[0], results[0][0]) for r in results[::2])
            results = [e.reset() for e in (c, flat, ref)]
    assert ends == 2 and compared == 10
    for e in (c, flat, ref):
        e.close()


def test_vector_dict_is_the_flat_vector_split() -> None:
    d = mdvec.make(WALKER, 3, seed=5, autoreset_mode="same_step", time_limit=0.05)
    f = mdvec.make(WALKER, 3, seed=5, autoreset_mode="same_step", time_limit=0.05, flat_observation=True)
    do, _ = d.reset()
    fo, _ = f.reset()
    for t in range(4):
        split = f._env.split_obs(fo)
        assert _same(do, {k: split[k] for k in do}) and list(do) == sorted(do), t
        a = np.random.default_rng(t).uniform(-1, 1, (3, 6))
        do, dr, dte, dtr, dinfo = d.step(a)
        fo, fr, fte, ftr, finfo = f.step(a)
        assert _same(dr, fr) and _same(dtr, ftr) and _same(dte, fte)
        if dtr.any():
            for i in np.flatnonzero(dtr):
                want = mdvec.vecenv.split_obs(LAYOUT, finfo["final_obs"][i])
                assert _same(dinfo["final_obs"][i], want)  # each env's own dict, dm_control's order
    d.close()
    f.close()


def test_the_core_install_gives_the_same_structure(tmp_path: Path) -> None:
    """Without Gymnasium, mdvec.make's core VectorEnv gives the dict too (its own DictSpace, keys sorted)."""
    from test_hardening import run_child

    out = run_child(
        """
        import sys
        sys.modules["gymnasium"] = None  # import gymnasium fails
        import numpy as np
        import mdvec
        envs = mdvec.make("dm_control/walker-walk-v0", num_envs=2, seed=0)
        obs, _ = envs.reset(seed=1)
        space = envs.single_observation_space
        print(type(envs).__name__, type(space).__name__, list(space.keys()), {k: v.shape for k, v in obs.items()},
              envs.single_action_space.dtype, envs.observation_space.contains(obs))
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == (
        "VectorEnv DictSpace ['height', 'orientations', 'velocity'] "
        "{'height': (2,), 'orientations': (2, 14), 'velocity': (2, 9)} float64 True"
    )


# ------------------------------------------------------------------ seeding
def test_reset_seed_replays_the_episode_and_vector_env_i_is_seed_plus_i() -> None:
    env = gymnasium.make("mdvec/cheetah-run-v0")
    runs = []
    for _ in range(2):
        obs, _ = env.reset(seed=11)
        steps = [obs] + [env.step(np.full(6, 0.3))[:2] for _ in range(4)]
        runs.append(steps)
    assert all(_same(a if isinstance(a, dict) else a[0], b if isinstance(b, dict) else b[0]) for a, b in zip(*runs))
    assert [s[1] for s in runs[0][1:]] == [s[1] for s in runs[1][1:]]
    env.close()
    n, seed = 3, 2**32 - 3  # env 2's seed is 2**32 - 1, the largest a RandomState takes
    singles = [gymnasium.make("mdvec/cheetah-run-v0") for _ in range(n)]
    envs = mdvec.make("cheetah-run", n, seed=0)
    vo, _ = envs.reset(seed=seed)
    so = [s.reset(seed=seed + i)[0] for i, s in enumerate(singles)]
    for t in range(3):
        for i in range(n):
            assert _same({k: vo[k][i] for k in so[i]}, so[i]), (t, i)
        a = np.random.default_rng(t).uniform(-1, 1, (n, 6))
        vo, vr, *_ = envs.step(a)
        outs = [s.step(a[i]) for i, s in enumerate(singles)]
        so = [o[0] for o in outs]
        assert [o[1] for o in outs] == vr.tolist()
    envs.close()
    for s in singles:
        s.close()


def test_seeds_beyond_a_randomstate_are_refused() -> None:
    n = 3
    envs = mdvec.make("cheetah-run", n, seed=0)
    envs.reset(seed=2**32 - n)  # the last seed that fits
    with pytest.raises(ValueError, match=r"RandomState.*with 3 envs the seed must lie in \[0, 4294967293\]"):
        envs.reset(seed=2**32 - n + 1)
    with pytest.raises(ValueError, match=r"seed\[1\].*RandomState"):
        envs.reset(seed=[0, 2**32, None])
    envs.close()
    with pytest.raises(ValueError, match="4294967293"):
        mdvec.make("cheetah-run", n, seed=2**32 - 2)
    for backend in ("c", "reference"):
        env = gymnasium.make("mdvec/cheetah-run-v0", backend=backend)
        env.reset(seed=2**32 - 1)
        with pytest.raises(ValueError, match=r"RandomState.*\[0, 4294967295\]"):
            env.reset(seed=2**32)
        env.close()
        with pytest.raises(ValueError, match="RandomState"):
            gymnasium.make("mdvec/cheetah-run-v0", backend=backend, seed=2**32)


def test_without_dm_control_the_message_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name.split(".")[0] == "dm_control" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ImportError, match="pip install dm-control"):
        mdvec.make("cheetah-run", 2)
    with pytest.raises(ImportError, match="pip install dm-control"):
        gymnasium.make("mdvec/cheetah-run-v0")
    mdvec.make("duck", 1).close()  # the other tasks do not need it


# ------------------------------------------------------------------ SB3, RLlib, the contract
def test_sb3_vec_env_on_a_suite_task() -> None:
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 not installed (pip install 'mdvec[sb3]')")
    from gymnasium import spaces

    from mdvec.sb3 import make_vec_env

    venv = make_vec_env(2, seed=3, task="dm_control/walker-walk-v0", time_limit=0.05)
    flat = make_vec_env(2, seed=3, task=WALKER, time_limit=0.05, flat_observation=True)
    assert isinstance(venv.observation_space, spaces.Dict) and venv.action_space.dtype == np.float64
    assert flat.observation_space == spaces.Box(-np.inf, np.inf, (24,), np.float64)
    do, fo = venv.reset(), flat.reset()
    ends = 0
    for t in range(4):
        assert _same(do, {k: mdvec.vecenv.split_obs(LAYOUT, fo)[k] for k in sorted(do)}), t
        a = np.zeros((2, 6))
        do, dr, dd, dinfo = venv.step(a)
        fo, fr, fd, finfo = flat.step(a)
        assert _same(dr, fr) and _same(dd, fd)
        for i in np.flatnonzero(dd):
            ends += 1
            term = dinfo[i]["terminal_observation"]
            assert list(term) == [n for n, _ in LAYOUT]
            assert _same(term, mdvec.vecenv.split_obs(LAYOUT, finfo[i]["terminal_observation"]))
            assert dinfo[i]["TimeLimit.truncated"] is True
    assert ends == 4  # 2 envs x episodes of 2 steps
    venv.close()
    flat.close()


def test_rllib_vector_env_on_a_suite_task() -> None:
    from mdvec.rllib import RLlibVectorEnv, env_seeds

    for cfg in (
        {"env_id": "dm_control/cheetah-run-v0", "seed": 3, "num_envs": 2},
        {"env_id": "mdvec/cheetah-run-v0", "seed": 3, "num_envs": 2, "flat_observation": True, "backend": "reference"},
    ):
        env = RLlibVectorEnv(cfg)
        assert env.env_id == "mdvec/cheetah-run-v0" and env.seed_bits == 32
        obs, _ = env.reset(seed=5)  # RLlib's per-EnvRunner seed: 32-bit env seeds
        assert env.last_seeds == env_seeds(3, 2, 2, bits=32) and max(env.last_seeds) < 2**32
        for _ in range(3):
            obs, reward, *_ = env.step(env.action_space.sample())
        assert isinstance(obs, dict) != bool(cfg.get("flat_observation")) and reward.shape == (2,)
        env.close()


def test_rllib_ppo_config_flattens_a_suite_task() -> None:
    pytest.importorskip("ray", reason="ray not installed (pip install 'mdvec[rllib]')")
    from mdvec.rllib import ppo_config

    assert ppo_config(env_id="dm_control/cheetah-run-v0").env_config["flat_observation"] is True


def test_contract_compares_dict_observations_entry_by_entry() -> None:
    from mdvec.tools.contract import run_case, same_obs, v5_cases

    a = {"x": np.zeros(2), "h": np.asarray(1.0)}
    assert same_obs(a, {"x": np.zeros(2), "h": np.asarray(1.0)})
    assert not same_obs(a, {"h": np.asarray(1.0), "x": np.zeros(2)})  # another order
    assert not same_obs(a, {"x": np.zeros(2), "h": np.asarray(np.nextafter(1.0, 2.0))})  # one ulp
    assert not same_obs(a, {"x": np.zeros(2)})
    case = v5_cases(WALKER, quick=True)[1]  # SAME_STEP: final_obs dicts in info too
    result = run_case(case)
    assert result.identical and not result.skipped, result.first_mismatch
    assert result.observations > 300 and result.values == result.values_identical > 9000


# ------------------------------------------------------------------ train, evaluate, render
def test_train_evaluate_and_render_a_suite_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="torch not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 not installed (pip install 'mdvec[sb3]')")
    from mdvec.tools import evaluate, render
    from mdvec.tools import train as train_mod

    out = tmp_path / "cheetah"
    argv = ["--task", "dm_control/cheetah-run-v0", "--envs", "2", "--n-steps", "32", "--batch-size", "32"]
    argv += ["--n-epochs", "1", "--net", "8", "--steps", "64", "-o", "time_limit=0.2", "--out", str(out), "--quiet"]
    assert train_mod.main(argv) == 0
    run = json.loads((out / "run.json").read_text())["config"]
    assert run["env"] == "cheetah-run" and run["task"] == {"time_limit": 0.2}
    rows = json.loads((out / "curve.json").read_text())["rows"]
    assert [r["timesteps"] for r in rows] == [64] and rows[0]["ep_len_mean"] == 20.0  # 0.2 s of 0.01 s steps
    from stable_baselines3 import PPO

    model = PPO.load(str(out / "policy.zip"), device="cpu")
    assert model.observation_space.shape == (17,) and model.observation_space.dtype == np.float64
    capsys.readouterr()
    eval_json = tmp_path / "eval.json"
    argv = ["--policy", str(out / "policy.zip"), "--seeds", "1,2", "--episodes", "1", "--out", str(eval_json)]
    assert evaluate.main(argv) == 0
    result = json.loads(eval_json.read_text())
    assert result["env"] == "cheetah-run" and result["trained"]["episode_len_mean"] == 20.0
    assert evaluate.main([*argv[:4], "--seeds", str(2**32), "--episodes", "1", "--out", str(eval_json)]) == 2
    assert "4294967295" in capsys.readouterr().err
    gif = tmp_path / "c.gif"
    code = render.main(["--policy", str(out / "policy.zip"), "--out", str(gif), "--width", "64", "--height", "48"])
    if code == 3:
        pytest.skip("no OpenGL context for rendering here: " + capsys.readouterr().err)
    printed = capsys.readouterr().out
    assert code == 0 and "20 steps, truncated" in printed, printed
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (64, 48) and im.n_frames == 5  # every 4th of 20 steps of 0.01 s at 25 fps
        im.seek(2)
        assert np.asarray(im.convert("RGB"))[12:].max() > 0


def test_train_on_both_backends_gives_the_same_policy(tmp_path: Path) -> None:
    """PPO on walker-walk (a scalar "height" entry) on the C envs and on SB3's SubprocVecEnv over dm_control
    itself (gymnasium.make(..., backend="reference", flat_observation=True)): the same rollouts and
    parameters, bit for bit; episodes of 0.5 s (20 steps) end inside each rollout."""
    pytest.importorskip("torch", reason="torch not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 not installed (pip install 'mdvec[sb3]')")
    from mdvec.tools import train as train_mod

    digests = []
    for backend in ("mdvec", "processes"):
        out = tmp_path / backend
        argv = ["--task", WALKER, "--backend", backend, "--envs", "2", "--n-steps", "32", "--batch-size", "32"]
        argv += ["--n-epochs", "1", "--net", "8", "--steps", "64", "-o", "time_limit=0.5", "--out", str(out)]
        assert train_mod.main([*argv, "--quiet"]) == 0
        rows = json.loads((out / "curve.json").read_text())["rows"]
        summary = json.loads((out / "summary.json").read_text())
        assert rows[0]["episodes"] == 2  # one per env in the first rollout (20 steps of 32)
        digests.append(([r["rollout_sha256"] for r in rows], summary["params_sha256"]))
    assert digests[0] == digests[1]
