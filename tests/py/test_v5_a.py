"""Walker2d-v5, HalfCheetah-v5, Swimmer-v5, InvertedPendulum-v5 and InvertedDoublePendulum-v5 in C
(mdvec.VecEnv(task=ID)) against Gymnasium's own gymnasium.make(ID).

Equality is bit for bit, with no tolerance: observations, rewards (and their Python type),
terminated, truncated, every info value and its dtype, on resets (first, autoresets of every mode,
reseeds of some envs) and steps, for float32 and float64 actions, with the default options and every
option of each task non-default at least once (xml_file given by bare name, ./relative, ~ and
absolute path, on models modified from the installed gymnasium's). Through Gymnasium too:
make_vec("mdvec/ID", vectorization_mode="vector_entry_point") against make_vec(ID, "sync") in
NextStep and SameStep, and gymnasium.make("mdvec/ID") against gymnasium.make(ID).

Each test counts the values it compares; the totals per task are printed at the end of the module.
The runs are short (CI runs this on 2 cores); MDVEC_V5A_LONG=1 makes every run 5 times longer.

Skipped, with the reason, when gymnasium or its MuJoCo envs (gymnasium[mujoco]) are missing.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")
try:
    import gymnasium.envs.mujoco.walker2d_v5  # imports mujoco_rendering -> imageio
except ImportError as exc:  # pragma: no cover - depends on the venv
    pytest.skip(
        f"Gymnasium's MuJoCo envs cannot be imported ({exc}): pip install 'gymnasium[mujoco]'", allow_module_level=True
    )

import gymeq  # noqa: E402
import mdvec  # noqa: E402
from gymeq import RESET, STEP, field_value  # noqa: E402
from mdvec import gym_tasks  # noqa: E402

ASSETS = Path(gym_tasks.assets_dir())
LONG = 5 if os.environ.get("MDVEC_V5A_LONG", "") not in ("", "0") else 1
INF = float("inf")


@dataclass(frozen=True)
class Case:
    """What the tests need to know of one task."""

    short: dict[str, Any]  # options of the quick runs (a short TimeLimit)
    scale: float  # action scale that ends episodes (where the task terminates)
    dims: tuple[int, int, int, int]  # obs_dim, act_dim, nq, nv with the default model
    fields: list[tuple[str, str, int]]  # (name, dtype name or "action", when)
    reward_type: type  # Gymnasium's reward type
    nondefault: list[dict[str, Any]]  # every option non-default at least once
    edge: list[dict[str, Any]]  # boundary values
    long: dict[str, Any]  # options for a run through the registration's TimeLimit, and "_scale" (the
    #                                actions'), "_zero_gravity" (on the default model without gravity)
    bare_xml: str | None  # another model of the assets folder by bare name (None: none fits)
    terminates: bool = True


F64, ACT, I64 = "float64", "action", "int64"
CASES: dict[str, Case] = {
    "Walker2d-v5": Case(
        short={"max_episode_steps": 25},
        scale=0.4,
        dims=(17, 6, 9, 9),
        fields=[
            ("x_position", F64, STEP | RESET),
            ("z_distance_from_origin", F64, STEP | RESET),
            ("x_velocity", F64, STEP),
            ("reward_forward", F64, STEP),
            ("reward_ctrl", ACT, STEP),
            ("reward_survive", F64, STEP),
        ],
        reward_type=np.float64,
        nondefault=[
            dict(
                forward_reward_weight=2.5,
                ctrl_cost_weight=0.37,
                healthy_reward=-0.7,
                terminate_when_unhealthy=False,
                healthy_z_range=(0.9, 1.6),
                healthy_angle_range=(-0.4, 0.1),
                reset_noise_scale=0.1,
                exclude_current_positions_from_observation=False,
                frame_skip=2,
                max_episode_steps=75,
            ),
            dict(
                healthy_z_range=(1.0, 1.5),
                healthy_angle_range=(-0.3, 0.3),
                healthy_reward=4.0,
                frame_skip=6,
                exclude_current_positions_from_observation=True,
                max_episode_steps=30,
            ),
        ],
        edge=[
            {"forward_reward_weight": -1.0, "frame_skip": 1, "max_episode_steps": 25},
            {"ctrl_cost_weight": 1e39, "max_episode_steps": 25},  # NEP 50: float32(1e39) is inf
            {"ctrl_cost_weight": 0.0, "healthy_reward": INF, "max_episode_steps": 25},  # 0 * inf: NaN
            {"healthy_reward": 0.25, "terminate_when_unhealthy": False, "max_episode_steps": 1},
            {"healthy_z_range": (-INF, 1.3), "healthy_angle_range": (-0.05, INF), "max_episode_steps": 25},
            {"reset_noise_scale": 0.0, "frame_skip": 7, "max_episode_steps": 25},
            {"reset_noise_scale": 0.5, "max_episode_steps": 25},
            {"max_episode_steps": -1},
        ],
        long={"terminate_when_unhealthy": False, "_scale": 0.3},
        bare_xml="walker2d.xml",
    ),
    "HalfCheetah-v5": Case(
        short={"max_episode_steps": 20},
        scale=1.0,
        dims=(17, 6, 9, 9),
        fields=[
            ("x_position", F64, STEP | RESET),
            ("x_velocity", F64, STEP),
            ("reward_forward", F64, STEP),
            ("reward_ctrl", ACT, STEP),
        ],
        reward_type=np.float64,
        nondefault=[
            dict(
                forward_reward_weight=-0.5,
                ctrl_cost_weight=0.8,
                reset_noise_scale=0.5,
                exclude_current_positions_from_observation=False,
                frame_skip=3,
                max_episode_steps=35,
            )
        ],
        edge=[
            {"forward_reward_weight": 0.0, "frame_skip": 1, "max_episode_steps": 25},
            {"ctrl_cost_weight": 1e39, "max_episode_steps": 25},
            {"ctrl_cost_weight": -3.0, "max_episode_steps": 1},
            {"reset_noise_scale": 0.0, "frame_skip": 9, "max_episode_steps": 25},
            {"max_episode_steps": -1},
        ],
        long={"_scale": 1.0},
        bare_xml="hopper.xml",
        terminates=False,
    ),
    "Swimmer-v5": Case(
        short={"max_episode_steps": 20},
        scale=1.0,
        dims=(8, 2, 5, 5),
        fields=[
            ("x_position", F64, STEP | RESET),
            ("y_position", F64, STEP | RESET),
            ("distance_from_origin", F64, STEP | RESET),
            ("x_velocity", F64, STEP),
            ("y_velocity", F64, STEP),
            ("reward_forward", F64, STEP),
            ("reward_ctrl", ACT, STEP),
        ],
        reward_type=np.float64,
        nondefault=[
            dict(
                forward_reward_weight=3.0,
                ctrl_cost_weight=0.05,
                reset_noise_scale=0.3,
                exclude_current_positions_from_observation=False,
                frame_skip=2,
                max_episode_steps=35,
            )
        ],
        edge=[
            {"forward_reward_weight": -1.0, "frame_skip": 1, "max_episode_steps": 25},
            {"ctrl_cost_weight": 1e39, "max_episode_steps": 25},
            {"reset_noise_scale": 0.0, "frame_skip": 7, "max_episode_steps": 25},
            {"reset_noise_scale": 100.0, "max_episode_steps": 3},  # far from the origin at once
            {"max_episode_steps": -1},
        ],
        long={"_scale": 1.0},
        bare_xml="reacher.xml",
        terminates=False,
    ),
    "InvertedPendulum-v5": Case(
        short={"max_episode_steps": 15},
        scale=1.0,
        dims=(4, 1, 2, 2),
        fields=[("reward_survive", I64, STEP)],
        reward_type=int,
        nondefault=[dict(reset_noise_scale=0.15, frame_skip=3, max_episode_steps=12)],
        edge=[
            {"reset_noise_scale": 0.0, "frame_skip": 1, "max_episode_steps": 25},
            {"reset_noise_scale": 0.3, "frame_skip": 8, "max_episode_steps": 25},  # ends at once
            {"max_episode_steps": 1},
            {"max_episode_steps": -1},
        ],
        long={"reset_noise_scale": 0.001, "_scale": 0.0, "_zero_gravity": True},
        bare_xml="inverted_double_pendulum.xml",
    ),
    "InvertedDoublePendulum-v5": Case(
        short={"max_episode_steps": 8},
        scale=1.0,
        dims=(9, 1, 3, 3),
        fields=[("reward_survive", F64, STEP), ("distance_penalty", F64, STEP), ("velocity_penalty", F64, STEP)],
        reward_type=np.float64,
        nondefault=[dict(healthy_reward=-2.5, reset_noise_scale=0.02, frame_skip=2, max_episode_steps=12)],
        edge=[
            {"healthy_reward": INF, "max_episode_steps": 25},  # inf * int(False) = NaN
            {"healthy_reward": 0.0, "frame_skip": 1, "max_episode_steps": 25},
            {"healthy_reward": -1.0, "reset_noise_scale": 0.0, "max_episode_steps": 25},  # -1.0 * 0: -0.0
            {"reset_noise_scale": 1.0, "frame_skip": 9, "max_episode_steps": 25},
            {"max_episode_steps": -1},
        ],
        long={"reset_noise_scale": 0.001, "_scale": 0.0, "_zero_gravity": True},
        bare_xml=None,
    ),
}
IDS = list(CASES)
TOTAL: dict[str, dict[str, int]] = {
    k: {"values compared": 0, "identical": 0, "steps": 0, "resets": 0, "terminations": 0, "truncations": 0} for k in IDS
}


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run each test in its own folder: MuJoCo writes its warnings (half_cheetah.xml's deprecated
    settotalmass, unstable simulations) to ./MUJOCO_LOG.TXT."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest):
    """Print the module's totals per task after its last test (visible without -s)."""
    yield
    lines = [""]
    for k, v in TOTAL.items():
        if v["values compared"]:
            lines.append(
                f"test_v5_a: {k}: {v['values compared']} values compared with Gymnasium's {k}, "
                f"{v['identical']} identical ({v['steps']} steps, {v['resets']} resets, "
                f"{v['terminations']} terminations, {v['truncations']} truncations)"
            )
    gymeq.print_report(request, "\n".join(lines))


class Tally(gymeq.Tally):
    """Counts compared values (and steps, resets, episode ends) into the task's totals."""

    def __init__(self, task: str) -> None:
        super().__init__(TOTAL[task])
        self.task = task

    def count(self, what: str, n: int = 1) -> None:
        TOTAL[self.task][what] += n


def info_type(task: str, name: str, action_dtype: Any) -> type:
    """The Python type of Gymnasium's info value ``name``: what the C task declares (its kinds), checked
    against the field table here."""
    declared = gymeq.declared_type(task, name, action_dtype)
    kind = {n: d for n, d, _ in CASES[task].fields}[name]
    if kind == ACT:
        assert declared is np.dtype(action_dtype).type, (task, name, declared)
    elif kind == I64:
        assert declared is int, (task, name, declared)
    else:
        assert declared in (float, np.float64), (task, name, declared)
    return declared


def check_info_types(task: str, info: dict[str, Any], action_dtype: Any, step: bool) -> None:
    """Gymnasium's info value types are what the task declares (the adapters rely on it)."""
    for name, value in info.items():
        assert type(value) is info_type(task, name, action_dtype), (task, name, type(value), action_dtype)
    want = {n for n, _, w in CASES[task].fields if w & (STEP if step else RESET)}
    assert set(info) == want, (task, sorted(info), sorted(want))


def compare_reset(t: Tally, venv: Any, i: int, ref_obs: np.ndarray, ref_info: dict, where: str) -> None:
    b = venv.buffers()
    t.count("resets")
    t.same(f"{where} obs[{i}]", b["obs"][i], ref_obs)
    check_info_types(t.task, ref_info, np.float64, step=False)
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
    b = venv.buffers()
    t.count("steps")
    t.count("terminations", int(terminated))
    t.count("truncations", int(truncated))
    t.same(f"{where} obs[{i}]", b[obs_key][i], obs)
    assert type(reward) is CASES[t.task].reward_type is gymeq.declared_type(t.task, None, action_dtype), (
        t.task,
        type(reward),
    )
    # an int reward (InvertedPendulum's 0 or 1) is the float64 buffer's 0.0 or 1.0
    t.same(f"{where} reward[{i}]", np.float64(b["reward"][i]), np.float64(reward))
    assert type(terminated) is bool and type(truncated) is bool
    t.same(f"{where} terminated[{i}]", bool(b["terminated"][i]), terminated)
    t.same(f"{where} truncated[{i}]", bool(b["truncated"][i]), truncated)
    check_info_types(t.task, info, action_dtype, step=True)
    names = []
    for k, (name, dtype, when) in enumerate(venv.spec.info_fields):
        if when & STEP:
            names.append(name)
            t.same(f"{where} info[{name}][{i}]", field_value(b["info"][k, i], dtype, action_dtype), info[name])
    assert sorted(names) == sorted(info), (names, list(info))


def run_against_gymnasium(
    task: str,
    options: dict[str, Any],
    *,
    num_envs: int = 3,
    threads: int = 2,
    seed: int = 0,
    steps: int = 100,
    dtypes: tuple = (np.float32, np.float64),
    scale: float | None = None,
    mode: str = "next_step",
    reseed_every: int = 0,
    rng_seed: int = 0,
) -> Tally:
    """Step N C envs and N gymnasium.make(task) envs with the same seeds and actions; compare all.

    The action dtype cycles through ``dtypes`` step by step; every ``reseed_every`` steps a random
    subset of envs is reset, some with a new seed, some continuing their generator.
    """
    t = Tally(task)
    scale = CASES[task].scale if scale is None else scale
    steps *= LONG
    venv = mdvec.VecEnv(num_envs, seed=seed, threads=threads, task=task, autoreset_mode=mode, **options)
    refs = [gymnasium.make(task, **options) for _ in range(num_envs)]
    try:
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
            label=f"{task} ",
            one=min(1.0, scale),
        )
    finally:
        venv.close()
        for ref in refs:
            ref.close()
    t.check()
    return t


def quiet(fn, *args, **kw):
    """Run fn with Gymnasium's overflow / inf * 0 RuntimeWarnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kw)


# --------------------------------------------------------------------------------------------------
# The C VecEnv against gymnasium.make(ID), env by env


@pytest.mark.parametrize("task", IDS)
def test_defaults_both_dtypes_all_autoreset_modes(task: str) -> None:
    """Default options with a short TimeLimit: terminations (where the task has them), truncations, reseeds."""
    case = CASES[task]
    counts = []
    for mode, seed in (("next_step", 11), ("same_step", 12)):
        before = dict(TOTAL[task])
        run_against_gymnasium(task, case.short, num_envs=3, steps=90, mode=mode, reseed_every=37, seed=seed)
        counts.append(
            (TOTAL[task]["terminations"] - before["terminations"], TOTAL[task]["truncations"] - before["truncations"])
        )
    assert all(tr > 0 for _, tr in counts), counts
    assert all((te > 0) == case.terminates for te, _ in counts), counts


def _zero_gravity_model(task: str, tmp: Path) -> Path:
    """The task's default model (read from the installed gymnasium) without gravity: a pendulum stays up."""
    name = gym_tasks.GYM_TASKS[task].xml_file
    text, n = re.subn(r'gravity="[^"]+"', 'gravity="0 0 0"', (ASSETS / name).read_text())
    assert n == 1, (name, n)
    path = tmp / ("zero_gravity_" + name)
    path.write_text(text)
    return path


@pytest.mark.parametrize("task", IDS)
def test_registration_time_limit_and_disabled_autoreset(task: str, tmp_path: Path) -> None:
    """The registration's TimeLimit (1000) reached by one env on one thread; then DISABLED: steps go on after the end."""
    case = CASES[task]
    if "_scale" in case.long:
        opts = {k: v for k, v in case.long.items() if not k.startswith("_")}
        if case.long.get("_zero_gravity"):
            opts["xml_file"] = str(_zero_gravity_model(task, tmp_path))
        before = TOTAL[task]["truncations"]
        run_against_gymnasium(
            task,
            opts,
            num_envs=1,
            threads=1,
            steps=1002 // LONG + 1,
            scale=case.long["_scale"],
            mode="next_step",
            seed=3,
        )
        assert TOTAL[task]["truncations"] > before
    run_against_gymnasium(task, {"max_episode_steps": 6}, num_envs=2, steps=20, scale=2.0, mode="disabled", seed=8)


@pytest.mark.parametrize("task", IDS)
def test_large_actions_float32_and_float64(task: str) -> None:
    """Actions far outside the ctrlrange (clamped by MuJoCo, costed as given), each dtype alone and mixed."""
    for dtypes in ((np.float32,), (np.float64,), (np.float32, np.float64)):
        quiet(
            run_against_gymnasium,
            task,
            {"max_episode_steps": 20},
            num_envs=2,
            steps=30,
            scale=25.0,
            dtypes=dtypes,
            reseed_every=17,
            seed=2**63 + 5,
        )


@pytest.mark.parametrize("task", IDS)
def test_every_option_non_default(task: str) -> None:
    for k, opts in enumerate(CASES[task].nondefault):
        quiet(run_against_gymnasium, task, opts, num_envs=2, steps=80, scale=1.5, reseed_every=29, seed=5 + k)
        quiet(run_against_gymnasium, task, opts, num_envs=2, steps=50, scale=1.5, mode="same_step", seed=6 + k)


@pytest.mark.parametrize(
    "task,k",
    [(task, k) for task in IDS for k in range(len(CASES[task].edge))],
    ids=lambda v: v if isinstance(v, str) else str(v),
)
def test_option_values(task: str, k: int) -> None:
    opts = CASES[task].edge[k]
    quiet(run_against_gymnasium, task, opts, num_envs=2, steps=40, scale=1.5, reseed_every=23, seed=17)


def _modified_model(task: str, tmp: Path) -> Path:
    """The task's default model (read from the installed gymnasium) with another timestep and ctrlranges."""
    name = gym_tasks.GYM_TASKS[task].xml_file
    text = (ASSETS / name).read_text()

    def timestep(m: re.Match) -> str:
        return f'timestep="{float(m.group(1)) * 0.75!r}"'

    def ctrlrange(m: re.Match) -> str:
        lo, hi = (float(v) for v in m.group(1).split())
        return f'ctrlrange="{lo * 0.8!r} {hi * 0.6!r}"'

    text, n = re.subn(r'timestep="([^"]+)"', timestep, text)
    assert n == 1, (name, n)
    text, n = re.subn(r'ctrlrange="([^"]+)"', ctrlrange, text)
    assert n >= 1, (name, n)
    path = tmp / ("mod_" + name)
    path.write_text(text)
    return path


@pytest.mark.parametrize("task", IDS)
def test_xml_file_paths(task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """xml_file resolved as MujocoEnv does: absolute, ./relative, ~, and bare names of the assets folder."""
    short = CASES[task].short
    path = _modified_model(task, tmp_path)
    t = run_against_gymnasium(task, {**short, "xml_file": str(path)}, steps=50, reseed_every=31)
    assert t.compared > 0
    with mdvec.VecEnv(1, task=task, xml_file=str(path)) as venv:  # the bounds changed: the test saw them
        low = np.asarray(venv.spec.action_low)
        assert not np.array_equal(low, -np.asarray(venv.spec.action_high))
    monkeypatch.chdir(tmp_path)
    run_against_gymnasium(task, {**short, "xml_file": "./" + path.name}, steps=20)
    monkeypatch.setenv("HOME", str(tmp_path))
    run_against_gymnasium(task, {**short, "xml_file": "~/" + path.name}, steps=20)
    run_against_gymnasium(task, {**short, "xml_file": gym_tasks.GYM_TASKS[task].xml_file}, steps=20)
    if CASES[task].bare_xml:
        run_against_gymnasium(
            task, {**short, "xml_file": CASES[task].bare_xml}, steps=40, reseed_every=19, mode="same_step"
        )


@pytest.mark.parametrize("task", IDS)
def test_unstable_simulation(task: str, tmp_path: Path) -> None:
    """Gears so strong that MuJoCo finds bad accelerations, warns and resets mjData inside mj_step."""
    name = gym_tasks.GYM_TASKS[task].xml_file
    text, n = re.subn(r'gear="([^"]+)"', lambda m: f'gear="{float(m.group(1)) * 1e7!r}"', (ASSETS / name).read_text())
    assert n >= 1, (name, n)
    (tmp_path / ("wild_" + name)).write_text(text)
    opts = {**CASES[task].short, "xml_file": str(tmp_path / ("wild_" + name))}
    # MuJoCo's own warning handler writes the log; importing dm_control (the Control Suite's tests) replaces
    # it process-wide with one that logs through Python's logging, so it is put back for this test.
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(None)
    try:
        quiet(run_against_gymnasium, task, opts, num_envs=2, steps=30, scale=1.0, reseed_every=17)
        quiet(run_against_gymnasium, task, opts, num_envs=2, steps=20, scale=1.0, mode="same_step")
    finally:
        mujoco.set_mju_user_warning(previous)
    log = tmp_path / "MUJOCO_LOG.TXT"
    assert log.is_file() and "unstable" in log.read_text(), "MuJoCo did not find the simulation unstable"


@pytest.mark.parametrize("task", IDS)
def test_model_path_and_spec(task: str) -> None:
    case = CASES[task]
    with mdvec.VecEnv(2, task=task) as venv:
        spec = venv.spec
        assert spec.task == task
        assert (spec.obs_dim, spec.act_dim, spec.nq, spec.nv) == case.dims
        assert spec.max_episode_steps == 1000
        assert Path(venv.model_path) == ASSETS / gym_tasks.GYM_TASKS[task].xml_file
        fields = [
            (name, dtype if isinstance(dtype, str) else np.dtype(dtype).name, when)
            for name, dtype, when in spec.info_fields
        ]
        assert fields == case.fields
        ref = gymnasium.make(task)
        assert ref.observation_space.shape == (spec.obs_dim,)
        assert ref.spec.max_episode_steps == spec.max_episode_steps
        assert ref.spec.reward_threshold == gym_tasks.GYM_TASKS[task].reward_threshold
        assert ref.metadata["render_fps"] == spec.render_fps  # round(1 / dt), dt from C
        ref.close()
    if any(n == "exclude_current_positions_from_observation" for n in case.nondefault[0]):
        skipped = 2 if task == "Swimmer-v5" else 1
        with mdvec.VecEnv(1, task=task, exclude_current_positions_from_observation=False, max_episode_steps=-1) as venv:
            assert venv.spec.obs_dim == case.dims[0] + skipped and venv.spec.max_episode_steps == 0


# --------------------------------------------------------------------------------------------------
# Refusals: clear messages, as Gymnasium would refuse (or where mdvec is stricter, saying so)


@pytest.mark.parametrize("task", IDS)
def test_option_errors(task: str, tmp_path: Path) -> None:
    with pytest.raises(OSError, match="does not exist"):
        mdvec.VecEnv(1, task=task, xml_file="no_such_model.xml")
    with pytest.raises(ValueError, match="max_episode_steps"):
        mdvec.VecEnv(1, task=task, max_episode_steps=0)
    with pytest.raises(Exception, match="reset_noise_scale"):  # numpy: uniform(high < low) raises
        mdvec.VecEnv(1, task=task, reset_noise_scale=-0.1)
    with pytest.raises(Exception, match="frame_skip"):
        mdvec.VecEnv(1, task=task, frame_skip=0)
    with pytest.raises(Exception, match="no_such_option"):
        mdvec.VecEnv(1, task=task, no_such_option=1.0)
    if task == "Walker2d-v5":
        with pytest.raises(Exception, match="healthy_state_range"):  # Hopper's, not Walker2d's
            mdvec.VecEnv(1, task=task, healthy_state_range=(-1.0, 1.0))
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><geom size='1'/></body></mujoco>")
    with pytest.raises(Exception, match=r"bad\.xml"):
        mdvec.VecEnv(1, task=task, xml_file=str(bad))


def test_models_too_small_are_refused(tmp_path: Path) -> None:
    """A model that lacks what a task reads (qpos[1:3], qpos[0:2], site_xpos[0], qvel[1:3]) is refused, naming it."""
    one = tmp_path / "one_slider.xml"
    one.write_text(
        "<mujoco><worldbody><body><joint name='s' type='slide'/><geom size='0.1'/></body></worldbody>"
        "<actuator><motor joint='s'/></actuator></mujoco>"
    )
    for task in ("Walker2d-v5", "Swimmer-v5", "InvertedDoublePendulum-v5"):
        with pytest.raises(Exception, match="nq = 1"):
            mdvec.VecEnv(1, task=task, xml_file=str(one))
    for task in ("HalfCheetah-v5", "InvertedPendulum-v5"):  # x = qpos[0]; observation[1] = qvel[0]
        with mdvec.VecEnv(1, task=task, xml_file=str(one)) as venv:
            assert venv.spec.obs_dim == (1 if task == "HalfCheetah-v5" else 2)


# --------------------------------------------------------------------------------------------------
# Through Gymnasium: make / make_vec("mdvec/ID") against make / make_vec(ID)


def _mdvec_gym(task: str) -> Any:
    try:
        import mdvec.gym  # noqa: F401  (registers the mdvec/ ids from GYM_TASKS)
    except ImportError as exc:  # pragma: no cover
        pytest.skip(f"mdvec.gym cannot be imported: {exc}")
    env_id = gym_tasks.GYM_TASKS[task].env_id
    if env_id not in gymnasium.registry:
        pytest.skip(f"{env_id} is not registered by mdvec.gym")
    return env_id


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("task", IDS)
def test_make_vec_vector_entry_point_vs_sync(task: str, mode: str) -> None:
    """make_vec(vector_entry_point) against Gymnasium's SyncVectorEnv of ID: every array and info."""
    env_id = _mdvec_gym(task)
    from gymnasium.vector import AutoresetMode

    n = 3
    case = CASES[task]
    last = case.nondefault[-1]
    for k, opts in enumerate([case.short, {**last, "max_episode_steps": min(20, last["max_episode_steps"])}]):
        t = Tally(task)
        rng = np.random.default_rng(k)
        ours = gymnasium.make_vec(
            env_id,
            num_envs=n,
            vectorization_mode="vector_entry_point",
            threads=2,
            autoreset_mode=AutoresetMode(mode),
            **opts,
        )
        ref = gymnasium.make_vec(
            task, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": AutoresetMode(mode)}, **opts
        )
        try:
            assert gymeq.run_vector_envs(t, ours, ref, rng, seed=100 + k, steps=60 * LONG, mask_every=25) > 0
            t.count("steps", n * 60 * LONG)
        finally:
            ours.close()
            ref.close()
        t.check()


@pytest.mark.parametrize("task", IDS)
def test_make_single_env_vs_gymnasium(task: str) -> None:
    """gymnasium.make("mdvec/ID") against gymnasium.make(ID): values and Python types."""
    env_id = _mdvec_gym(task)
    case = CASES[task]
    gaps = []  # the adapter's reward type where Gymnasium's differs (InvertedPendulum's is an int)
    for opts in ({}, case.nondefault[0]):
        t = Tally(task)
        rng = np.random.default_rng(1)
        ours, ref = gymnasium.make(env_id, **opts), gymnasium.make(task, **opts)
        try:
            assert ours.spec.max_episode_steps == ref.spec.max_episode_steps
            gymeq.run_single_env(t, ours, ref, rng, steps=40 * LONG, act_dim=case.dims[1], gaps=gaps)
        finally:
            ours.close()
            ref.close()
        t.check()
    if gaps:
        pytest.xfail(
            f"values equal, but mdvec.gym's single env returns the reward as another type than "
            f"Gymnasium's {task}: " + ", ".join(sorted(set(gaps)))
        )


@pytest.mark.parametrize("task", IDS)
def test_registered_ids_make_and_make_vec_threads(task: str) -> None:
    """mdvec/ID works with gymnasium.make and make_vec(vector_entry_point, threads=T)."""
    env_id = _mdvec_gym(task)
    env = gymnasium.make(env_id)
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == env.observation_space.shape
        env.step(env.action_space.sample())
    finally:
        env.close()
    for threads in (1, 3):
        venv = gymnasium.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", threads=threads)
        try:
            assert venv.num_envs == 4
            obs, _ = venv.reset(seed=1)
            assert obs.shape == (4, CASES[task].dims[0])
            venv.step(np.zeros((4, CASES[task].dims[1]), np.float32))
        finally:
            venv.close()
