"""Hopper-v5 in C (mdvec.VecEnv(task="Hopper-v5")) against Gymnasium's own gymnasium.make("Hopper-v5").

Equality is bit for bit, with no tolerance: observations, rewards, terminated, truncated, every info
value and its dtype, on resets (first, autoresets of every mode, reseeds of some envs) and steps,
for float32 and float64 actions, with the default options and every option non-default at least
once (xml_file given by bare name, ./relative, ~ and absolute path). Each test counts the values it
compares; the totals are printed at the end of the module.

Skipped, with the reason, when gymnasium or its MuJoCo envs (gymnasium[mujoco]: imageio) are missing.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

try:
    import gymnasium
except ImportError as exc:  # pragma: no cover - depends on the venv
    pytest.skip(f"gymnasium cannot be imported ({exc}): pip install 'gymnasium[mujoco]'", allow_module_level=True)
try:
    import gymnasium.envs.mujoco.hopper_v5  # noqa: F401  (imports mujoco_rendering -> imageio)
except ImportError as exc:  # pragma: no cover - depends on the venv
    pytest.skip(f"Gymnasium's MuJoCo envs cannot be imported ({exc}): pip install 'gymnasium[mujoco]'",
                allow_module_level=True)

import mdvec  # noqa: E402
from mdvec import gym_tasks  # noqa: E402

STEP, RESET = 1, 2
TOTAL = {"values compared": 0, "identical": 0, "steps": 0, "resets": 0, "terminated": 0, "truncated": 0}
ASSETS = Path(gym_tasks.assets_dir())


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest):
    """Print the module's totals after its last test (visible without -s)."""
    yield
    line = (f"\ntest_hopper: {TOTAL['values compared']} values compared with Gymnasium's Hopper-v5, "
            f"{TOTAL['identical']} identical ({TOTAL['steps']} env steps, {TOTAL['resets']} resets, "
            f"{TOTAL['terminated']} terminations, {TOTAL['truncated']} truncations)")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():
            print(line)
    else:  # pragma: no cover
        print(line)


class Tally:
    """Counts compared values; every comparison is of bits and dtype (a Python float is float64)."""

    def __init__(self) -> None:
        self.compared = 0
        self.identical = 0
        self.diffs: list[str] = []

    def same(self, what: str, got: Any, want: Any) -> None:
        g, w = np.asarray(got), np.asarray(want)
        n = max(int(w.size), 1)
        self.compared += n
        TOTAL["values compared"] += n
        if g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes():
            self.identical += n
            TOTAL["identical"] += n
        elif len(self.diffs) < 20:
            self.diffs.append(f"{what}: mdvec {g!r} ({g.dtype}) != gymnasium {w!r} ({w.dtype})")

    def check(self) -> None:
        assert not self.diffs, "\n".join(self.diffs)
        assert self.compared == self.identical and self.compared > 0


def gym_make(options: dict[str, Any]) -> Any:
    """gymnasium.make("Hopper-v5") with the same keyword arguments (max_episode_steps as make's)."""
    return gymnasium.make("Hopper-v5", **options)


def field_value(value: float, dtype: Any, action_dtype: Any) -> np.ndarray:
    """A C info value (float64 buffer) as the numpy scalar Gymnasium returns."""
    dt = np.dtype(action_dtype) if isinstance(dtype, str) else np.dtype(dtype)
    v = np.asarray(value, np.float64)
    if dt == np.float32:
        assert np.asarray(v.astype(np.float32), np.float64).tobytes() == v.tobytes(), \
            f"a float32 info value {value!r} is not stored as an exact widening"
    return v.astype(dt)


def check_info_types(info: dict[str, Any], action_dtype: Any, step: bool) -> None:
    """What GYM_TASKS says of Gymnasium's info value types still holds (the adapters rely on it)."""
    spec = gym_tasks.GYM_TASKS["Hopper-v5"]
    for name, value in info.items():
        if name in spec.python_float_info:
            assert type(value) is float, (name, type(value))
        elif name == "reward_ctrl":
            assert type(value) is np.dtype(action_dtype).type, (name, type(value), action_dtype)
        else:
            assert type(value) is np.float64, (name, type(value))
    assert step or set(info) == {"x_position", "z_distance_from_origin"}


def compare_reset(t: Tally, venv: Any, i: int, ref_obs: np.ndarray, ref_info: dict, where: str) -> None:
    TOTAL["resets"] += 1
    b = venv.buffers()
    t.same(f"{where} obs[{i}]", b["obs"][i], ref_obs)
    check_info_types(ref_info, np.float64, step=False)
    names = []
    for k, (name, dtype, when) in enumerate(venv.spec.info_fields):
        if when & RESET:
            names.append(name)
            t.same(f"{where} reset_info[{name}][{i}]", field_value(b["reset_info"][k, i], dtype, np.float64),
                   ref_info[name])
    assert sorted(names) == sorted(ref_info), (names, list(ref_info))


def compare_step(t: Tally, venv: Any, i: int, ref: tuple, action_dtype: Any, obs_key: str, where: str) -> None:
    obs, reward, terminated, truncated, info = ref
    TOTAL["steps"] += 1
    TOTAL["terminated"] += terminated
    TOTAL["truncated"] += truncated
    b = venv.buffers()
    t.same(f"{where} obs[{i}]", b[obs_key][i], obs)
    assert type(reward) is np.float64
    t.same(f"{where} reward[{i}]", np.float64(b["reward"][i]), reward)
    assert type(terminated) is bool and type(truncated) is bool
    t.same(f"{where} terminated[{i}]", bool(b["terminated"][i]), terminated)
    t.same(f"{where} truncated[{i}]", bool(b["truncated"][i]), truncated)
    check_info_types(info, action_dtype, step=True)
    names = []
    for k, (name, dtype, when) in enumerate(venv.spec.info_fields):
        if when & STEP:
            names.append(name)
            t.same(f"{where} info[{name}][{i}]", field_value(b["info"][k, i], dtype, action_dtype), info[name])
    assert sorted(names) == sorted(info), (names, list(info))


def random_actions(rng: np.random.Generator, n: int, act_dim: int, dtype: Any, scale: float) -> np.ndarray:
    """Uniform actions in [-scale, scale], with some exact zeros, -0.0 and bounds mixed in."""
    a = rng.uniform(-scale, scale, (n, act_dim))
    special = rng.random((n, act_dim))
    a[special < 0.03] = 0.0
    a[(special >= 0.03) & (special < 0.05)] = -0.0
    a[(special >= 0.05) & (special < 0.07)] = 1.0
    return a.astype(dtype)


def run_against_gymnasium(options: dict[str, Any], *, num_envs: int = 3, threads: int = 2, seed: int = 0,
                          steps: int = 120, dtypes: tuple = (np.float32, np.float64), scale: float = 1.0,
                          mode: str = "next_step", reseed_every: int = 0, rng_seed: int = 0) -> Tally:
    """Step N C envs and N gymnasium.make("Hopper-v5") envs with the same seeds and actions; compare all.

    The action dtype cycles through ``dtypes`` step by step; every ``reseed_every`` steps a random
    subset of envs is reset, some with a new seed, some continuing their generator.
    """
    t = Tally()
    rng = np.random.default_rng(rng_seed)
    venv = mdvec.VecEnv(num_envs, seed=seed, threads=threads, task="Hopper-v5", autoreset_mode=mode, **options)
    refs = [gym_make(options) for _ in range(num_envs)]
    try:
        spec = venv.spec
        act_dim = spec.act_dim
        assert spec.obs_dtype == np.float64
        ref_space = refs[0].action_space
        assert ref_space.dtype == np.float32
        t.same("action_low", np.asarray(spec.action_low, np.float32), ref_space.low)
        t.same("action_high", np.asarray(spec.action_high, np.float32), ref_space.high)
        assert refs[0].observation_space.shape == (spec.obs_dim,)

        venv.reset_envs()
        for i, ref in enumerate(refs):
            compare_reset(t, venv, i, *ref.reset(seed=seed + i), where="first reset")
        pending = np.zeros(num_envs, bool)  # NEXT_STEP: finished last step, reset on this one
        for step in range(steps):
            if reseed_every and step % reseed_every == reseed_every - 1:
                mask = rng.random(num_envs) < 0.5
                mask[rng.integers(num_envs)] = True
                seeds = [int(rng.integers(0, 2**64, dtype=np.uint64)) if rng.random() < 0.6 else None
                         for _ in range(num_envs)]
                before = venv.buffers()["obs"].copy()
                venv.reset_envs(mask=mask, seeds=seeds)
                b = venv.buffers()
                for i in range(num_envs):
                    t.same(f"reseed reset flag[{i}]", bool(b["reset"][i]), bool(mask[i]))
                    if mask[i]:
                        compare_reset(t, venv, i, *refs[i].reset(seed=seeds[i]), where=f"reseed step {step}")
                        pending[i] = False
                    else:
                        t.same(f"kept obs[{i}]", b["obs"][i], before[i])
            dtype = dtypes[step % len(dtypes)]
            actions = random_actions(rng, num_envs, act_dim, dtype, scale)
            venv.step_into_buffers(actions)
            b = venv.buffers()
            for i, ref in enumerate(refs):
                where = f"step {step} ({np.dtype(dtype).name}, {mode})"
                if pending[i]:
                    t.same(f"{where} reset flag[{i}]", bool(b["reset"][i]), True)
                    t.same(f"{where} reward[{i}] of a reset", np.float64(b["reward"][i]), np.float64(0.0))
                    t.same(f"{where} terminated[{i}] of a reset", bool(b["terminated"][i]), False)
                    t.same(f"{where} truncated[{i}] of a reset", bool(b["truncated"][i]), False)
                    compare_reset(t, venv, i, *ref.reset(), where=where + " autoreset")
                    pending[i] = False
                    continue
                result = ref.step(actions[i])
                done = result[2] or result[3]
                obs_key = "final_obs" if (mode == "same_step" and done) else "obs"
                compare_step(t, venv, i, result, dtype, obs_key, where)
                if done and mode == "same_step":
                    t.same(f"{where} reset flag[{i}]", bool(b["reset"][i]), True)
                    compare_reset(t, venv, i, *ref.reset(), where=where + " autoreset")
                elif done and mode == "next_step":
                    t.same(f"{where} reset flag[{i}]", bool(b["reset"][i]), False)
                    pending[i] = True
                else:
                    t.same(f"{where} reset flag[{i}]", bool(b["reset"][i]), False)
    finally:
        venv.close()
        for ref in refs:
            ref.close()
    t.check()
    return t


def episode_counts(options: dict[str, Any], **kw: Any) -> tuple[int, int]:
    """(terminations, truncations) Gymnasium's own Hopper-v5 has over the same run (to show coverage)."""
    rng = np.random.default_rng(kw.get("rng_seed", 0))
    env = gym_make(options)
    terms = truncs = 0
    env.reset(seed=kw.get("seed", 0))
    for step in range(kw.get("steps", 120)):
        a = random_actions(rng, 1, env.action_space.shape[0], np.float64, kw.get("scale", 1.0))[0]
        _, _, te, tr, _ = env.step(a)
        terms += te
        truncs += tr
        if te or tr:
            env.reset()
    env.close()
    return terms, truncs


# --------------------------------------------------------------------------------------------------
# The C VecEnv against gymnasium.make("Hopper-v5"), env by env


def test_defaults_both_dtypes_all_autoreset_modes() -> None:
    """Default options: terminations (falls) and truncations (a short TimeLimit), reseeds."""
    opts = {"max_episode_steps": 40}
    terms, truncs = episode_counts(opts, steps=200, scale=1.0)
    assert terms > 0 and truncs > 0, (terms, truncs)
    for mode in ("next_step", "same_step"):
        run_against_gymnasium(opts, num_envs=4, steps=200, scale=1.0, mode=mode, reseed_every=37, seed=11)


def test_defaults_full_time_limit_and_disabled_autoreset() -> None:
    """The registration's TimeLimit (1000), reached without terminations; then DISABLED: steps after the end go on."""
    opts = {"terminate_when_unhealthy": False}
    assert episode_counts(opts, steps=1010, scale=0.3, seed=3) == (0, 1)
    run_against_gymnasium(opts, num_envs=2, threads=1, steps=1010, scale=0.3, mode="next_step", seed=3)
    run_against_gymnasium({"max_episode_steps": 15}, num_envs=2, steps=60, scale=2.0, mode="disabled", seed=8)


def test_large_actions_float32_and_float64() -> None:
    """Actions far outside the ctrlrange (clamped by MuJoCo, costed as given), both dtypes each step."""
    for dtypes in ((np.float32,), (np.float64,), (np.float32, np.float64)):
        run_against_gymnasium({"max_episode_steps": 30}, num_envs=3, steps=90, scale=25.0, dtypes=dtypes,
                              reseed_every=29, seed=2**63 + 5)


def test_every_option_non_default() -> None:
    opts = dict(forward_reward_weight=2.5, ctrl_cost_weight=0.37, healthy_reward=-0.7,
                terminate_when_unhealthy=False, healthy_state_range=(-5.0, 5.0), healthy_z_range=(0.9, 1.6),
                healthy_angle_range=(-0.4, 0.1), reset_noise_scale=0.1,
                exclude_current_positions_from_observation=False, frame_skip=2, max_episode_steps=75)
    run_against_gymnasium(opts, num_envs=3, steps=160, scale=2.0, reseed_every=41, seed=5)
    run_against_gymnasium(opts, num_envs=3, steps=160, scale=2.0, mode="same_step", seed=6)


@pytest.mark.parametrize("opts", [
    {"forward_reward_weight": -1.0, "frame_skip": 1, "max_episode_steps": 25},
    {"ctrl_cost_weight": 1e39, "max_episode_steps": 25},           # NEP 50: float32(1e39) is inf
    {"ctrl_cost_weight": 0.0, "healthy_reward": float("inf"), "max_episode_steps": 25},  # 0 * inf: NaN
    {"healthy_reward": 0.25, "terminate_when_unhealthy": False, "max_episode_steps": 1},
    {"healthy_state_range": (-1.0, float("inf")), "healthy_z_range": (-float("inf"), 1.3),
     "healthy_angle_range": (-0.05, 0.05), "max_episode_steps": 25},
    {"reset_noise_scale": 0.0, "frame_skip": 7, "max_episode_steps": 25},
    {"reset_noise_scale": 0.5, "exclude_current_positions_from_observation": True, "max_episode_steps": 25},
    {"max_episode_steps": -1},                                          # make's -1: no TimeLimit
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_option_values(opts: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # Gymnasium's overflow / inf * 0 warnings
        run_against_gymnasium(opts, num_envs=2, steps=60, scale=1.5, reseed_every=23, seed=17)


def _modified_hopper(tmp: Path) -> Path:
    """Gymnasium's hopper.xml (read from the installed package) with another timestep, gears, ctrlrange."""
    text = (ASSETS / "hopper.xml").read_text()
    text, n = re.subn(r'timestep="0\.002"', 'timestep="0.003"', text)
    assert n == 1
    text, n = re.subn(r'gear="200\.0"', 'gear="150.0"', text)
    assert n >= 1
    text, n = re.subn(r'ctrlrange="-1\.0 1\.0" gear="150\.0" joint="leg_joint"',
                      'ctrlrange="-0.7 0.9" gear="150.0" joint="leg_joint"', text)
    assert n == 1
    path = tmp / "hopper_mod.xml"
    path.write_text(text)
    return path


def test_xml_file_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """xml_file resolved as MujocoEnv does: absolute, ./relative, ~, and bare names of the assets folder."""
    path = _modified_hopper(tmp_path)
    run_against_gymnasium({"xml_file": str(path), "max_episode_steps": 30}, steps=70, reseed_every=31)
    monkeypatch.chdir(tmp_path)
    run_against_gymnasium({"xml_file": "./hopper_mod.xml", "max_episode_steps": 30}, steps=40)
    monkeypatch.setenv("HOME", str(tmp_path))
    run_against_gymnasium({"xml_file": "~/hopper_mod.xml", "max_episode_steps": 30}, steps=40)
    # Another model of Gymnasium's assets by its bare name: nq = nv = 9, six actuators.
    t = run_against_gymnasium({"xml_file": "walker2d_v5.xml", "max_episode_steps": 30}, steps=60,
                              reseed_every=19, mode="same_step")
    assert t.compared > 0


def test_strict_health_bounds(tmp_path: Path) -> None:
    """Health bounds are strict (lo < v < hi): a joint that stays exactly 0.0 is unhealthy for lo = 0.0.

    The hopper gets a free-standing y slide (no contact, gravity across its axis) whose qpos and qvel
    stay exactly 0.0 without reset noise; healthy_state_range (0.0, ...) or (..., 0.0) then makes
    every step unhealthy, where lo <= v <= hi would not.
    """
    text = (ASSETS / "hopper.xml").read_text()
    dummy = ('    <body name="dummy" pos="0 3 1"><joint name="dummy_y" type="slide" axis="0 1 0" limited="false"/>'
             '<geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body>\n  </worldbody>')
    text = text.replace("  </worldbody>", dummy, 1)
    path = tmp_path / "hopper_dummy.xml"
    path.write_text(text)
    for state_range in ((0.0, 100.0), (-100.0, 0.0)):
        opts = {"xml_file": str(path), "healthy_state_range": state_range, "terminate_when_unhealthy": False,
                "reset_noise_scale": 0.0, "max_episode_steps": 50}
        env = gym_make(opts)
        env.reset(seed=0)
        survive = [env.step(np.zeros(3))[4]["reward_survive"] for _ in range(20)]
        env.close()
        assert survive == [0.0] * 20  # Gymnasium: never healthy
        run_against_gymnasium(opts, num_envs=2, steps=60, scale=0.3)


def test_unstable_simulation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gears so strong that MuJoCo finds bad accelerations, warns and resets mjData inside mj_step."""
    monkeypatch.chdir(tmp_path)  # MuJoCo's warnings also go to ./MUJOCO_LOG.TXT
    text = (ASSETS / "hopper.xml").read_text()
    text, n = re.subn(r'gear="200\.0"', 'gear="2e8"', text)
    assert n == 3
    (tmp_path / "hopper_wild.xml").write_text(text)
    opts = {"xml_file": str(tmp_path / "hopper_wild.xml"), "max_episode_steps": 30}
    run_against_gymnasium(opts, steps=60, scale=1.0, reseed_every=17)
    run_against_gymnasium(opts, steps=60, scale=1.0, mode="same_step")


def test_model_path_and_spec() -> None:
    with mdvec.VecEnv(2, task="Hopper-v5") as venv:
        spec = venv.spec
        assert spec.task == "Hopper-v5"
        assert (spec.obs_dim, spec.act_dim, spec.nq, spec.nv) == (11, 3, 6, 6)
        assert spec.max_episode_steps == 1000
        assert Path(venv.model_path) == ASSETS / "hopper.xml"
        fields = [(name, dtype if isinstance(dtype, str) else np.dtype(dtype).name, when)
                  for name, dtype, when in spec.info_fields]
        assert fields == [("x_position", "float64", STEP | RESET), ("z_distance_from_origin", "float64", STEP | RESET),
                          ("x_velocity", "float64", STEP), ("reward_forward", "float64", STEP),
                          ("reward_ctrl", "action", STEP), ("reward_survive", "float64", STEP)]
    with mdvec.VecEnv(1, task="Hopper-v5", exclude_current_positions_from_observation=False,
                      max_episode_steps=-1) as venv:
        assert venv.spec.obs_dim == 12 and venv.spec.max_episode_steps == 0


# --------------------------------------------------------------------------------------------------
# Refusals: clear messages, as Gymnasium would refuse (or where mdvec is stricter, saying so)


def test_option_errors(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="does not exist"):
        mdvec.VecEnv(1, task="Hopper-v5", xml_file="no_such_model.xml")
    with pytest.raises(ValueError, match="max_episode_steps"):
        mdvec.VecEnv(1, task="Hopper-v5", max_episode_steps=0)
    with pytest.raises(TypeError, match="max_episode_steps"):
        mdvec.VecEnv(1, task="Hopper-v5", max_episode_steps=10.0)
    with pytest.raises(Exception, match="reset_noise_scale"):  # numpy: uniform(high < low) raises
        mdvec.VecEnv(1, task="Hopper-v5", reset_noise_scale=-0.1)
    with pytest.raises(Exception, match="frame_skip"):
        mdvec.VecEnv(1, task="Hopper-v5", frame_skip=0)
    with pytest.raises(Exception, match="healthy_z_range"):
        mdvec.VecEnv(1, task="Hopper-v5", healthy_z_range=(0.7,))
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><geom size='1'/></body></mujoco>")
    with pytest.raises(Exception, match="bad.xml"):
        mdvec.VecEnv(1, task="Hopper-v5", xml_file=str(bad))


def test_resolve_options_like_mujoco_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gymnasium.envs.mujoco.mujoco_env import expand_model_path

    monkeypatch.chdir(tmp_path)
    _modified_hopper(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("hopper.xml", "walker2d_v5.xml", "./hopper_mod.xml", "~/hopper_mod.xml", str(tmp_path / "hopper_mod.xml")):
        assert gym_tasks.expand_model_path(name) == os.path.abspath(expand_model_path(name))
    r = gym_tasks.resolve_options("Hopper-v5", {"healthy_reward": 2, "healthy_z_range": [0, 3]})
    assert r["max_episode_steps"] == 1000 and r["xml_file"] == str(ASSETS / "hopper.xml")
    assert type(r["healthy_reward"]) is float and r["healthy_z_range"] == (0.0, 3.0)
    assert gym_tasks.resolve_options("Hopper-v5", {"max_episode_steps": -1})["max_episode_steps"] == 0


# --------------------------------------------------------------------------------------------------
# Through Gymnasium: make / make_vec("mdvec/Hopper-v5") against make / make_vec("Hopper-v5")


def _mdvec_gym() -> Any:
    try:
        import mdvec.gym  # noqa: F401  (registers mdvec/Hopper-v5)
    except ImportError as exc:  # pragma: no cover
        pytest.skip(f"mdvec.gym cannot be imported: {exc}")
    if "mdvec/Hopper-v5" not in gymnasium.registry:
        pytest.skip("mdvec/Hopper-v5 is not registered by mdvec.gym")
    return mdvec.gym


def same_tree(t: Tally, what: str, got: Any, want: Any) -> None:
    """Compare Gymnasium results recursively: dict keys, object arrays, types and bits."""
    if isinstance(want, dict):
        assert isinstance(got, dict), (what, type(got))
        assert sorted(got) == sorted(want), (what, sorted(got), sorted(want))
        for k in want:
            same_tree(t, f"{what}[{k}]", got[k], want[k])
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (what, type(got), got)
        for i, (g, w) in enumerate(zip(got, want)):
            same_tree(t, f"{what}[{i}]", g, w)
    elif isinstance(want, np.ndarray) and want.dtype == object:
        assert isinstance(got, np.ndarray) and got.dtype == object and got.shape == want.shape, (what, got)
        for i, (g, w) in enumerate(zip(got, want)):
            same_tree(t, f"{what}[{i}]", g, w)
    elif want is None:
        assert got is None, (what, got)
    else:
        assert type(got) is type(want), (what, type(got), type(want))
        t.same(what, got, want)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_make_vec_vector_entry_point_vs_sync(mode: str) -> None:
    """make_vec(vector_entry_point) against Gymnasium's SyncVectorEnv of Hopper-v5: every array and info."""
    _mdvec_gym()
    from gymnasium.vector import AutoresetMode

    n = 4
    cases = [{"max_episode_steps": 30},
             dict(forward_reward_weight=0.5, ctrl_cost_weight=0.2, healthy_reward=3.0, terminate_when_unhealthy=True,
                  healthy_state_range=(-20.0, 20.0), healthy_z_range=(0.75, 3.0), healthy_angle_range=(-0.3, 0.3),
                  reset_noise_scale=0.02, exclude_current_positions_from_observation=False, frame_skip=3,
                  xml_file="hopper.xml", max_episode_steps=45)]
    for k, opts in enumerate(cases):
        t = Tally()
        rng = np.random.default_rng(k)
        ours = gymnasium.make_vec("mdvec/Hopper-v5", num_envs=n, vectorization_mode="vector_entry_point",
                                  threads=2, autoreset_mode=AutoresetMode(mode), **opts)
        ref = gymnasium.make_vec("Hopper-v5", num_envs=n, vectorization_mode="sync",
                                 vector_kwargs={"autoreset_mode": AutoresetMode(mode)}, **opts)
        try:
            assert ours.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"]
            assert ours.single_observation_space == ref.single_observation_space
            assert ours.single_action_space == ref.single_action_space
            same_tree(t, "reset", ours.reset(seed=100 + k), ref.reset(seed=100 + k))
            ends = 0
            for step in range(150):
                if step % 50 == 49:
                    mask = rng.random(n) < 0.5
                    mask[0] = True
                    seeds = [int(rng.integers(2**32)) if rng.random() < 0.5 else None for _ in range(n)]
                    same_tree(t, f"reset mask step {step}", ours.reset(seed=seeds, options={"reset_mask": mask}),
                              ref.reset(seed=seeds, options={"reset_mask": mask}))
                dtype = (np.float32, np.float64)[step % 2]
                actions = random_actions(rng, n, ref.single_action_space.shape[0], dtype, 1.5)
                got, want = ours.step(actions), ref.step(actions)
                for name, g, w in zip(("obs", "reward", "terminated", "truncated", "info"), got, want):
                    same_tree(t, f"step {step} {name}", g, w)
                ends += int(np.sum(want[2] | want[3]))
            assert ends > 0
        finally:
            ours.close()
            ref.close()
        t.check()


def test_make_single_env_vs_gymnasium() -> None:
    """gymnasium.make("mdvec/Hopper-v5") against gymnasium.make("Hopper-v5"): values and Python types."""
    _mdvec_gym()
    for opts in ({}, {"max_episode_steps": 20, "healthy_reward": 0.5, "frame_skip": 5}, {"max_episode_steps": -1}):
        t = Tally()
        rng = np.random.default_rng(1)
        ours, ref = gymnasium.make("mdvec/Hopper-v5", **opts), gymnasium.make("Hopper-v5", **opts)
        try:
            assert ours.observation_space == ref.observation_space and ours.action_space == ref.action_space
            same_tree(t, "reset", ours.reset(seed=7), ref.reset(seed=7))
            for step in range(120):
                a = random_actions(rng, 1, 3, (np.float32, np.float64)[step % 2], 1.0)[0]
                got, want = ours.step(a), ref.step(a)
                for name, g, w in zip(("obs", "reward", "terminated", "truncated", "info"), got, want):
                    same_tree(t, f"step {step} {name}", g, w)
                if want[2] or want[3]:
                    same_tree(t, f"reset after step {step}", ours.reset(), ref.reset())
        finally:
            ours.close()
            ref.close()
        t.check()
