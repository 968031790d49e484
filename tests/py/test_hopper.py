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
    import gymnasium.envs.mujoco.hopper_v5  # imports mujoco_rendering -> imageio
except ImportError as exc:  # pragma: no cover - depends on the venv
    pytest.skip(
        f"Gymnasium's MuJoCo envs cannot be imported ({exc}): pip install 'gymnasium[mujoco]'", allow_module_level=True
    )

import gymeq
import mdvec
from gymeq import RESET, STEP, field_value, random_actions
from mdvec import gym_tasks

TOTAL = {"values compared": 0, "identical": 0, "steps": 0, "resets": 0, "terminated": 0, "truncated": 0}
ASSETS = Path(gym_tasks.assets_dir())


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest):
    """Print the module's totals after its last test (visible without -s)."""
    yield
    line = (
        f"\ntest_hopper: {TOTAL['values compared']} values compared with Gymnasium's Hopper-v5, "
        f"{TOTAL['identical']} identical ({TOTAL['steps']} env steps, {TOTAL['resets']} resets, "
        f"{TOTAL['terminated']} terminations, {TOTAL['truncated']} truncations)"
    )
    gymeq.print_report(request, line)


class Tally(gymeq.Tally):
    """Counts compared values into the module's totals."""

    def __init__(self) -> None:
        super().__init__(TOTAL)


def gym_make(options: dict[str, Any]) -> Any:
    """gymnasium.make("Hopper-v5") with the same keyword arguments (max_episode_steps as make's)."""
    return gymnasium.make("Hopper-v5", **options)


def check_info_types(info: dict[str, Any], action_dtype: Any, step: bool) -> None:
    """Gymnasium's info value types are the kinds the C task declares (the adapters rely on them):
    reward_survive a Python float, reward_ctrl of the action's dtype, the rest np.float64."""
    for name, value in info.items():
        assert type(value) is gymeq.declared_type("Hopper-v5", name, action_dtype), (name, type(value))
        if name == "reward_survive":
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
            t.same(
                f"{where} reset_info[{name}][{i}]",
                field_value(b["reset_info"][k, i], dtype, np.float64),
                ref_info[name],
            )
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


def run_against_gymnasium(
    options: dict[str, Any],
    *,
    num_envs: int = 3,
    threads: int = 2,
    seed: int = 0,
    steps: int = 120,
    dtypes: tuple = (np.float32, np.float64),
    scale: float = 1.0,
    mode: str = "next_step",
    reseed_every: int = 0,
    rng_seed: int = 0,
) -> Tally:
    """Step N C envs and N gymnasium.make("Hopper-v5") envs with the same seeds and actions; compare all.

    The action dtype cycles through ``dtypes`` step by step; every ``reseed_every`` steps a random
    subset of envs is reset, some with a new seed, some continuing their generator.
    """
    t = Tally()
    venv = mdvec.VecEnv(num_envs, seed=seed, threads=threads, task="Hopper-v5", autoreset_mode=mode, **options)
    refs = [gym_make(options) for _ in range(num_envs)]
    try:
        assert refs[0].observation_space.shape == (venv.spec.obs_dim,)
        gymeq.run_envs(
            t,
            venv,
            refs,
            compare_reset=compare_reset,
            compare_step=compare_step,
            seed=seed,
            steps=steps,
            dtypes=dtypes,
            scale=scale,
            mode=mode,
            reseed_every=reseed_every,
            rng=np.random.default_rng(rng_seed),
        )
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
    for _ in range(kw.get("steps", 120)):
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
        run_against_gymnasium(
            {"max_episode_steps": 30}, num_envs=3, steps=90, scale=25.0, dtypes=dtypes, reseed_every=29, seed=2**63 + 5
        )


def test_every_option_non_default() -> None:
    opts = dict(
        forward_reward_weight=2.5,
        ctrl_cost_weight=0.37,
        healthy_reward=-0.7,
        terminate_when_unhealthy=False,
        healthy_state_range=(-5.0, 5.0),
        healthy_z_range=(0.9, 1.6),
        healthy_angle_range=(-0.4, 0.1),
        reset_noise_scale=0.1,
        exclude_current_positions_from_observation=False,
        frame_skip=2,
        max_episode_steps=75,
    )
    run_against_gymnasium(opts, num_envs=3, steps=160, scale=2.0, reseed_every=41, seed=5)
    run_against_gymnasium(opts, num_envs=3, steps=160, scale=2.0, mode="same_step", seed=6)


@pytest.mark.parametrize(
    "opts",
    [
        {"forward_reward_weight": -1.0, "frame_skip": 1, "max_episode_steps": 25},
        {"ctrl_cost_weight": 1e39, "max_episode_steps": 25},  # NEP 50: float32(1e39) is inf
        {"ctrl_cost_weight": 0.0, "healthy_reward": float("inf"), "max_episode_steps": 25},  # 0 * inf: NaN
        {"healthy_reward": 0.25, "terminate_when_unhealthy": False, "max_episode_steps": 1},
        {
            "healthy_state_range": (-1.0, float("inf")),
            "healthy_z_range": (-float("inf"), 1.3),
            "healthy_angle_range": (-0.05, 0.05),
            "max_episode_steps": 25,
        },
        {"reset_noise_scale": 0.0, "frame_skip": 7, "max_episode_steps": 25},
        {"reset_noise_scale": 0.5, "exclude_current_positions_from_observation": True, "max_episode_steps": 25},
        {"max_episode_steps": -1},  # make's -1: no TimeLimit
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()),
)
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
    text, n = re.subn(
        r'ctrlrange="-1\.0 1\.0" gear="150\.0" joint="leg_joint"',
        'ctrlrange="-0.7 0.9" gear="150.0" joint="leg_joint"',
        text,
    )
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
    t = run_against_gymnasium(
        {"xml_file": "walker2d_v5.xml", "max_episode_steps": 30}, steps=60, reseed_every=19, mode="same_step"
    )
    assert t.compared > 0


def test_strict_health_bounds(tmp_path: Path) -> None:
    """Health bounds are strict (lo < v < hi): a joint that stays exactly 0.0 is unhealthy for lo = 0.0.

    The hopper gets a free-standing y slide (no contact, gravity across its axis) whose qpos and qvel
    stay exactly 0.0 without reset noise; healthy_state_range (0.0, ...) or (..., 0.0) then makes
    every step unhealthy, where lo <= v <= hi would not.
    """
    text = (ASSETS / "hopper.xml").read_text()
    dummy = (
        '    <body name="dummy" pos="0 3 1"><joint name="dummy_y" type="slide" axis="0 1 0" limited="false"/>'
        '<geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body>\n  </worldbody>'
    )
    text = text.replace("  </worldbody>", dummy, 1)
    path = tmp_path / "hopper_dummy.xml"
    path.write_text(text)
    for state_range in ((0.0, 100.0), (-100.0, 0.0)):
        opts = {
            "xml_file": str(path),
            "healthy_state_range": state_range,
            "terminate_when_unhealthy": False,
            "reset_noise_scale": 0.0,
            "max_episode_steps": 50,
        }
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
        fields = [
            (name, dtype if isinstance(dtype, str) else np.dtype(dtype).name, when)
            for name, dtype, when in spec.info_fields
        ]
        assert fields == [
            ("x_position", "float64", STEP | RESET),
            ("z_distance_from_origin", "float64", STEP | RESET),
            ("x_velocity", "float64", STEP),
            ("reward_forward", "float64", STEP),
            ("reward_ctrl", "action", STEP),
            ("reward_survive", "float64", STEP),
        ]
    with mdvec.VecEnv(
        1, task="Hopper-v5", exclude_current_positions_from_observation=False, max_episode_steps=-1
    ) as venv:
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
    with pytest.raises(Exception, match=r"bad\.xml"):
        mdvec.VecEnv(1, task="Hopper-v5", xml_file=str(bad))


def test_resolve_options_like_mujoco_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gymnasium.envs.mujoco.mujoco_env import expand_model_path

    monkeypatch.chdir(tmp_path)
    _modified_hopper(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in (
        "hopper.xml",
        "walker2d_v5.xml",
        "./hopper_mod.xml",
        "~/hopper_mod.xml",
        str(tmp_path / "hopper_mod.xml"),
    ):
        assert gym_tasks.expand_model_path(name) == os.path.abspath(expand_model_path(name))
    r = gym_tasks.resolve_options("Hopper-v5", {"healthy_reward": 2, "healthy_z_range": [0, 3]})
    assert r["max_episode_steps"] == 1000 and r["xml_file"] == str(ASSETS / "hopper.xml")
    assert type(r["healthy_reward"]) is float and r["healthy_z_range"] == (0.0, 3.0)
    assert gym_tasks.resolve_options("Hopper-v5", {"max_episode_steps": -1})["max_episode_steps"] == 0


# --------------------------------------------------------------------------------------------------
# Through Gymnasium: make / make_vec("mdvec/Hopper-v5") against make / make_vec("Hopper-v5")


def _mdvec_gym() -> Any:
    try:
        import mdvec.gym  # registers mdvec/Hopper-v5
    except ImportError as exc:  # pragma: no cover
        pytest.skip(f"mdvec.gym cannot be imported: {exc}")
    if "mdvec/Hopper-v5" not in gymnasium.registry:
        pytest.skip("mdvec/Hopper-v5 is not registered by mdvec.gym")
    return mdvec.gym


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_make_vec_vector_entry_point_vs_sync(mode: str) -> None:
    """make_vec(vector_entry_point) against Gymnasium's SyncVectorEnv of Hopper-v5: every array and info."""
    _mdvec_gym()
    from gymnasium.vector import AutoresetMode

    n = 4
    cases = [
        {"max_episode_steps": 30},
        dict(
            forward_reward_weight=0.5,
            ctrl_cost_weight=0.2,
            healthy_reward=3.0,
            terminate_when_unhealthy=True,
            healthy_state_range=(-20.0, 20.0),
            healthy_z_range=(0.75, 3.0),
            healthy_angle_range=(-0.3, 0.3),
            reset_noise_scale=0.02,
            exclude_current_positions_from_observation=False,
            frame_skip=3,
            xml_file="hopper.xml",
            max_episode_steps=45,
        ),
    ]
    for k, opts in enumerate(cases):
        t = Tally()
        rng = np.random.default_rng(k)
        ours = gymnasium.make_vec(
            "mdvec/Hopper-v5",
            num_envs=n,
            vectorization_mode="vector_entry_point",
            threads=2,
            autoreset_mode=AutoresetMode(mode),
            **opts,
        )
        ref = gymnasium.make_vec(
            "Hopper-v5",
            num_envs=n,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": AutoresetMode(mode)},
            **opts,
        )
        try:
            assert gymeq.run_vector_envs(t, ours, ref, rng, seed=100 + k, steps=150, mask_every=50) > 0
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
            gymeq.run_single_env(t, ours, ref, rng, steps=120, act_dim=3)
        finally:
            ours.close()
            ref.close()
        t.check()
