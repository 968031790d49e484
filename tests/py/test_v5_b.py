"""Ant-v5, Humanoid-v5, HumanoidStandup-v5, Reacher-v5 and Pusher-v5 in C against Gymnasium's own.

``mdvec.VecEnv(N, task=ID, **options)`` is stepped beside one ``gymnasium.make(ID, **options)`` per env
with the same seeds and actions (float32 and float64, some far outside the action bounds), through
terminations, truncations (a small ``max_episode_steps``), the NEXT_STEP / SAME_STEP / DISABLED
autoreset modes and reseeds of random subsets of envs; every observation, reward, flag, info value and
its dtype, and the reset info, are compared by their bits, with the default options and every option
of each task non-default at least once (those that change the observation included; xml_file as a
bare name, an absolute and a ./relative path). Then the registered ids: ``gymnasium.make("mdvec/ID")``
against ``gymnasium.make(ID)``, and ``make_vec("mdvec/ID", vectorization_mode="vector_entry_point",
threads=2)`` against Gymnasium's SyncVectorEnv over ``gymnasium.make(ID)`` (NEXT_STEP and SAME_STEP,
with mdvec.tools.contract's comparison). Each test counts what it compares; the totals per task are printed
at the end of the module.

``np.linalg.norm`` (Ant's and Humanoid's distance_from_origin, Reacher's and Pusher's distances and so
their rewards and resets) is sqrt of numpy's BLAS ddot, whose kernel depends on the CPU: the binding hands
libmdvec numpy's own ddot (mdvec.npdot), so these values are compared bit for bit like every other one,
under whatever kernel OpenBLAS runs (ci/kernels.sh runs this module under each OPENBLAS_CORETYPE).

One thing is not plain equality, and it is said where it applies:

* Humanoid's tendon_length / tendon_velocity are arrays in Gymnasium; an mdvec info field is one number
  per env, so the task has the fields "tendon_length[k]", "tendon_velocity[k]", which the comparisons
  gather back into arrays (``regroup``), in single-env infos and in vector infos alike.

MDVEC_V5_LONG=1 runs longer episodes and more envs. Skipped without gymnasium[mujoco].
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")
try:
    import gymnasium.envs.mujoco.ant_v5  # imports mujoco_rendering -> imageio
except ImportError as exc:  # pragma: no cover - depends on the venv
    pytest.skip(
        f"Gymnasium's MuJoCo envs cannot be imported ({exc}): pip install 'gymnasium[mujoco]'", allow_module_level=True
    )

import gymeq  # noqa: E402
import mdvec  # noqa: E402
from gymeq import RESET, STEP, field_value  # noqa: E402
from mdvec import gym_tasks  # noqa: E402

IDS = ("Ant-v5", "Humanoid-v5", "HumanoidStandup-v5", "Reacher-v5", "Pusher-v5")
LONG = os.environ.get("MDVEC_V5_LONG", "") not in ("", "0")
ASSETS = Path(gym_tasks.assets_dir())
TOTAL: dict[str, dict[str, int]] = {t: {"values compared": 0, "identical": 0} for t in IDS}


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest):
    """Print the module's totals after its last test (visible without -s)."""
    yield
    lines = []
    for task, c in TOTAL.items():
        if c["values compared"]:
            lines.append(
                f"test_v5_b: {task}: {c['values compared']} values compared with Gymnasium's, "
                f"{c['identical']} identical"
            )
    lines.append(f"test_v5_b: {mdvec.numpy_dot().describe()}")
    gymeq.print_report(request, "\n" + "\n".join(lines))


class Tally(gymeq.Tally):
    """Counts compared values into the task's totals."""

    def __init__(self, task: str) -> None:
        super().__init__(TOTAL[task])
        self.task = task


def regroup(info: dict[str, Any]) -> dict[str, Any]:
    """Gather mdvec's "name[k]" info keys (and their "_name[k]" masks) into Gymnasium's arrays.

    Single env: floats "tendon_length[0]", "tendon_length[1]" -> np.array([...]). Vector info: arrays
    (N,) -> one (N, K) array, masks -> one mask. Nested dicts (final_info) likewise.
    """
    out: dict[str, Any] = {}
    groups: dict[str, list[tuple[int, Any]]] = {}
    masks: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = regroup(value)
            continue
        m = re.fullmatch(r"(_?)(\w+)\[(\d+)\]", key)
        if not m:
            out[key] = value
        elif m.group(1):
            masks[m.group(2)] = value
        else:
            groups.setdefault(m.group(2), []).append((int(m.group(3)), value))
    for name, items in groups.items():
        values = [v for _, v in sorted(items, key=lambda kv: kv[0])]
        if np.ndim(values[0]) == 0:  # single env: scalars
            out[name] = np.asarray(values, np.float64)
        else:  # vector env: (N,) each
            out[name] = np.stack(values, axis=1)
            out["_" + name] = masks[name]
    return out


# --------------------------------------------------------------------------------------------------
# The C VecEnv against gymnasium.make(ID), env by env


def check_info_types(task: str, info: dict[str, Any], action_dtype: Any) -> None:
    """Gymnasium's info value types are the kinds the C task declares (np.float64 here, reward_ctrl of
    Ant, Reacher and Pusher of the action's dtype, tendon_* float64 arrays)."""
    for name, value in info.items():
        if not name.startswith("tendon_"):
            assert type(value) is gymeq.declared_type(task, name, action_dtype), (name, type(value))
        if name.startswith("tendon_"):
            assert type(value) is np.ndarray and value.dtype == np.float64, (name, type(value))
        elif name == "reward_ctrl" and task in ("Ant-v5", "Reacher-v5", "Pusher-v5"):
            assert type(value) is np.dtype(action_dtype).type, (name, type(value), action_dtype)
        else:
            assert type(value) is np.float64, (name, type(value))


def compare_info(t: Tally, venv: Any, i: int, ref_info: dict, action_dtype: Any, bit: int, where: str) -> None:
    b = venv.buffers()
    src = b["info"] if bit == STEP else b["reset_info"]
    got: dict[str, Any] = {}
    dtypes: dict[str, Any] = {}
    for k, (name, dtype, when) in enumerate(venv.spec.info_fields):
        if when & bit:
            got[name] = field_value(src[k, i], dtype, action_dtype)
            dtypes[name] = dtype
    got = regroup(got)
    check_info_types(t.task, ref_info, action_dtype)
    assert sorted(got) == sorted(ref_info), (where, sorted(got), sorted(ref_info))
    for name, want in ref_info.items():
        t.same(f"{where} info[{name}][{i}]", got[name], want)


def compare_reset(t: Tally, venv: Any, i: int, ref_obs: np.ndarray, ref_info: dict, where: str) -> None:
    t.same(f"{where} obs[{i}]", venv.buffers()["obs"][i], ref_obs)
    compare_info(t, venv, i, ref_info, np.float64, RESET, where)


def compare_step(t: Tally, venv: Any, i: int, ref: tuple, action_dtype: Any, obs_key: str, where: str) -> None:
    obs, reward, terminated, truncated, info = ref
    b = venv.buffers()
    t.same(f"{where} obs[{i}]", b[obs_key][i], obs)
    assert type(reward) is np.float64, type(reward)
    t.same(f"{where} reward[{i}]", np.float64(b["reward"][i]), reward)
    assert type(terminated) is bool and type(truncated) is bool
    t.same(f"{where} terminated[{i}]", bool(b["terminated"][i]), terminated)
    t.same(f"{where} truncated[{i}]", bool(b["truncated"][i]), truncated)
    compare_info(t, venv, i, info, action_dtype, STEP, where)


def run_against_gymnasium(
    task: str,
    options: dict[str, Any],
    *,
    num_envs: int = 3,
    threads: int = 2,
    seed: int = 0,
    steps: int = 80,
    dtypes: tuple = (np.float32, np.float64),
    scale: float = 1.0,
    mode: str = "next_step",
    reseed_every: int = 0,
    rng_seed: int = 0,
) -> tuple[Tally, int, int]:
    """Step N C envs and N gymnasium.make(task) envs with the same seeds and actions; compare everything.

    The action dtype cycles through ``dtypes`` step by step; every ``reseed_every`` steps a random subset
    of envs is reset, some with a new seed, some continuing their generator. Return the tally and the
    terminations and truncations seen.
    """
    if LONG:
        num_envs, steps = num_envs + 2, steps * 4
    t = Tally(task)
    venv = mdvec.VecEnv(num_envs, seed=seed, threads=threads, task=task, autoreset_mode=mode, **options)
    refs = [gymnasium.make(task, **options) for _ in range(num_envs)]
    try:
        if task not in ("Reacher-v5", "Pusher-v5") or "xml_file" not in options:  # their Box is fixed
            assert refs[0].observation_space.shape == (venv.spec.obs_dim,)
        terms, truncs = gymeq.run_envs(
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
        )
    finally:
        venv.close()
        for ref in refs:
            ref.close()
    t.check()
    return t, terms, truncs


# Per task: short episodes with the default options, and every option non-default at once.
NON_DEFAULT = {
    "Ant-v5": dict(
        forward_reward_weight=2.5,
        ctrl_cost_weight=0.3,
        contact_cost_weight=0.002,
        healthy_reward=0.5,
        main_body="front_left_leg",
        terminate_when_unhealthy=False,
        healthy_z_range=(0.3, 0.9),
        contact_force_range=(-0.5, 2.0),
        reset_noise_scale=0.2,
        exclude_current_positions_from_observation=False,
        include_cfrc_ext_in_observation=False,
        frame_skip=3,
        max_episode_steps=45,
    ),
    "Humanoid-v5": dict(
        forward_reward_weight=0.8,
        ctrl_cost_weight=0.05,
        contact_cost_weight=2e-5,
        contact_cost_range=(0.001, 0.05),
        healthy_reward=2.0,
        terminate_when_unhealthy=False,
        healthy_z_range=(1.1, 1.9),
        reset_noise_scale=0.05,
        exclude_current_positions_from_observation=False,
        include_cinert_in_observation=False,
        include_cvel_in_observation=False,
        include_qfrc_actuator_in_observation=False,
        include_cfrc_ext_in_observation=False,
        frame_skip=3,
        max_episode_steps=40,
    ),
    "HumanoidStandup-v5": dict(
        uph_cost_weight=3.0,
        ctrl_cost_weight=0.2,
        impact_cost_weight=1e-4,
        impact_cost_range=(0.01, 0.2),
        reset_noise_scale=0.05,
        exclude_current_positions_from_observation=False,
        include_cinert_in_observation=False,
        include_cvel_in_observation=False,
        include_qfrc_actuator_in_observation=False,
        include_cfrc_ext_in_observation=False,
        frame_skip=4,
        max_episode_steps=30,
    ),
    "Reacher-v5": dict(reward_dist_weight=2.5, reward_control_weight=0.3, frame_skip=3, max_episode_steps=20),
    "Pusher-v5": dict(
        reward_near_weight=0.25, reward_dist_weight=2.0, reward_control_weight=0.5, frame_skip=2, max_episode_steps=30
    ),
}
SHORT = {"Ant-v5": 35, "Humanoid-v5": 30, "HumanoidStandup-v5": 25, "Reacher-v5": 20, "Pusher-v5": 25}
TERMINATES = ("Ant-v5", "Humanoid-v5")


@pytest.mark.parametrize("task", IDS)
def test_defaults_both_dtypes_next_and_same_step(task: str) -> None:
    """Default options, a short TimeLimit, reseeds; the falling tasks terminate (large actions)."""
    opts = {"max_episode_steps": SHORT[task]}
    scale = 3.0 if task == "Ant-v5" else 1.0
    _, terms1, truncs1 = run_against_gymnasium(task, opts, num_envs=3, steps=90, scale=scale, reseed_every=37, seed=11)
    _, terms2, truncs2 = run_against_gymnasium(
        task, opts, num_envs=2, steps=70, scale=scale, mode="same_step", seed=2**63 + 5, rng_seed=1
    )
    assert truncs1 + truncs2 > 0
    if task in TERMINATES:
        assert terms1 + terms2 > 0, "no termination: the test would not cover them"
    else:
        assert terms1 + terms2 == 0


@pytest.mark.parametrize("task", IDS)
def test_every_option_non_default(task: str) -> None:
    opts = NON_DEFAULT[task]
    run_against_gymnasium(task, opts, num_envs=3, steps=70, scale=2.0, reseed_every=29, seed=5)
    run_against_gymnasium(
        task, opts, num_envs=2, steps=50, scale=2.0, mode="same_step", dtypes=(np.float32,), seed=6, rng_seed=2
    )


def test_default_time_limit_and_disabled_autoreset() -> None:
    """Registration TimeLimits (Reacher 50, Pusher 100); DISABLED: steps after the end go on."""
    run_against_gymnasium("Reacher-v5", {}, num_envs=2, steps=110, seed=3)
    run_against_gymnasium("Pusher-v5", {}, num_envs=2, steps=105, seed=4, scale=0.5)
    run_against_gymnasium("Ant-v5", {"max_episode_steps": 10}, num_envs=2, steps=25, scale=3.0, mode="disabled", seed=8)


OPTION_VALUES = [
    ("Ant-v5", {"main_body": 0, "max_episode_steps": 20}),  # the world: zero velocity
    (
        "Ant-v5",
        {
            "main_body": 4,
            "include_cfrc_ext_in_observation": True,
            "exclude_current_positions_from_observation": False,
            "max_episode_steps": 20,
        },
    ),
    ("Ant-v5", {"ctrl_cost_weight": 1e39, "max_episode_steps": 20}),  # NEP 50: float32(1e39) = inf
    ("Ant-v5", {"healthy_reward": -1.5, "healthy_z_range": (0.45, 0.7), "max_episode_steps": 20}),
    ("Ant-v5", {"contact_force_range": (0.0, 0.0), "contact_cost_weight": -1.0, "max_episode_steps": 20}),
    (
        "Ant-v5",
        {
            "contact_force_range": (-float("inf"), float("inf")),
            "reset_noise_scale": 0.0,
            "frame_skip": 1,
            "max_episode_steps": 20,
        },
    ),
    ("Ant-v5", {"ctrl_cost_weight": 0.0, "healthy_reward": float("inf"), "max_episode_steps": 20}),  # 0 * inf
    ("Humanoid-v5", {"include_cinert_in_observation": False, "max_episode_steps": 15}),
    (
        "Humanoid-v5",
        {"include_cvel_in_observation": False, "include_cfrc_ext_in_observation": False, "max_episode_steps": 15},
    ),
    (
        "Humanoid-v5",
        {
            "include_qfrc_actuator_in_observation": False,
            "contact_cost_range": (0.0, 0.0),
            "contact_cost_weight": -1.0,
            "healthy_reward": -3.0,
            "max_episode_steps": 15,
        },
    ),
    ("Humanoid-v5", {"healthy_z_range": (-float("inf"), float("inf")), "frame_skip": 1, "max_episode_steps": 15}),
    (
        "HumanoidStandup-v5",
        {"include_cvel_in_observation": False, "impact_cost_range": (-float("inf"), 0.0), "max_episode_steps": 15},
    ),
    (
        "HumanoidStandup-v5",
        {"reset_noise_scale": 0.0, "frame_skip": 1, "ctrl_cost_weight": float("inf"), "max_episode_steps": 15},
    ),
    ("Reacher-v5", {"reward_control_weight": 1e39, "max_episode_steps": 15}),
    (
        "Reacher-v5",
        {"reward_dist_weight": -1.0, "reward_control_weight": 0.0, "frame_skip": 1, "max_episode_steps": -1},
    ),  # make's -1: no TimeLimit
    ("Pusher-v5", {"reward_control_weight": -1e39, "reward_near_weight": 0.0, "max_episode_steps": 15}),
    ("Pusher-v5", {"frame_skip": 9, "max_episode_steps": 15}),
]


@pytest.mark.parametrize(
    "task,opts", OPTION_VALUES, ids=[f"{t}:" + ",".join(f"{k}={v}" for k, v in o.items()) for t, o in OPTION_VALUES]
)
def test_option_values(task: str, opts: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # Gymnasium's overflow / inf * 0 warnings
        warnings.filterwarnings("ignore", message=".*reward is an inf value", category=UserWarning)
        run_against_gymnasium(task, opts, num_envs=2, steps=40, scale=1.5, reseed_every=17, seed=17)


def _modified_model(task: str, tmp: Path) -> Path:
    """Gymnasium's model file of task (read from the installed package) with another timestep and ctrlrange."""
    spec = gym_tasks.GYM_TASKS[task]
    text = (ASSETS / spec.xml_file).read_text()
    text, n = re.subn(r'timestep="([0-9.]+)"', lambda m: f'timestep="{float(m.group(1)) * 1.5!r}"', text, count=1)
    assert n == 1
    text, n = re.subn(r'ctrlrange="[^"]*"', 'ctrlrange="-0.7 0.9"', text, count=1)
    assert n == 1
    path = tmp / ("mod_" + spec.xml_file)
    path.write_text(text)
    return path


@pytest.mark.parametrize("task", IDS)
def test_xml_file_paths(task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """xml_file as an absolute and a ./relative path (a modified model), and by bare name."""
    path = _modified_model(task, tmp_path)
    run_against_gymnasium(task, {"xml_file": str(path), "max_episode_steps": 20}, num_envs=2, steps=35, reseed_every=13)
    monkeypatch.chdir(tmp_path)
    run_against_gymnasium(
        task, {"xml_file": "./" + path.name, "max_episode_steps": 20}, num_envs=2, steps=25, mode="same_step"
    )
    run_against_gymnasium(
        task, {"xml_file": gym_tasks.GYM_TASKS[task].xml_file, "max_episode_steps": 20}, num_envs=1, steps=25
    )


def test_spec_and_info_fields() -> None:
    dims = {
        "Ant-v5": (105, 8, 15, 14),
        "Humanoid-v5": (348, 17, 24, 23),
        "HumanoidStandup-v5": (348, 17, 24, 23),
        "Reacher-v5": (10, 2, 4, 4),
        "Pusher-v5": (23, 7, 11, 11),
    }
    for task in IDS:
        with mdvec.VecEnv(1, task=task) as venv:
            spec = venv.spec
            assert (spec.obs_dim, spec.act_dim, spec.nq, spec.nv) == dims[task], task
            assert spec.max_episode_steps == gym_tasks.GYM_TASKS[task].max_episode_steps
            assert Path(venv.model_path) == ASSETS / gym_tasks.GYM_TASKS[task].xml_file
            ref = gymnasium.make(task)
            assert ref.observation_space.shape == (spec.obs_dim,)
            assert ref.spec.reward_threshold == gym_tasks.GYM_TASKS[task].reward_threshold
            assert ref.unwrapped.metadata["render_fps"] == spec.render_fps  # round(1 / dt), dt from C
            assert gymeq.declared_type(task, None, np.float64) is np.float64  # the reward's kind
            ref.close()
    with mdvec.VecEnv(1, task="Humanoid-v5") as venv:
        names = [name for name, _, _ in venv.spec.info_fields]
        assert names[:6] == [
            "x_position",
            "y_position",
            "tendon_length[0]",
            "tendon_length[1]",
            "tendon_velocity[0]",
            "tendon_velocity[1]",
        ]
    with mdvec.VecEnv(
        1, task="Ant-v5", include_cfrc_ext_in_observation=False, exclude_current_positions_from_observation=False
    ) as venv:
        assert venv.spec.obs_dim == 29
    with mdvec.VecEnv(
        1, task="Humanoid-v5", include_cinert_in_observation=False, include_cfrc_ext_in_observation=False
    ) as venv:
        assert venv.spec.obs_dim == 348 - 130 - 78


def test_option_errors(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="main_body"):
        mdvec.VecEnv(1, task="Ant-v5", main_body="no_such_body")
    with pytest.raises(Exception, match="main_body"):
        mdvec.VecEnv(1, task="Ant-v5", main_body=14)  # data.body(14): IndexError in Gymnasium
    with pytest.raises(Exception, match="main_body"):
        mdvec.VecEnv(1, task="Ant-v5", main_body=-1)
    with pytest.raises(TypeError, match="reset_noise_scale"):  # Reacher and Pusher have none
        mdvec.VecEnv(1, task="Reacher-v5", reset_noise_scale=0.1)
    with pytest.raises(TypeError, match="reset_noise_scale"):
        mdvec.VecEnv(1, task="Pusher-v5", reset_noise_scale=0.1)
    with pytest.raises(Exception, match="tips_arm"):
        mdvec.VecEnv(1, task="Pusher-v5", xml_file="reacher.xml")
    with pytest.raises(Exception, match="fingertip"):
        mdvec.VecEnv(1, task="Reacher-v5", xml_file="pusher_v5.xml")
    with pytest.raises(TypeError, match="include_cinert_in_observation"):
        mdvec.VecEnv(1, task="Humanoid-v5", include_cinert_in_observation=1)
    with pytest.raises(Exception, match="contact_force_range"):
        mdvec.VecEnv(1, task="Ant-v5", contact_force_range=(1.0, -1.0))
    r = gym_tasks.resolve_options("Ant-v5", {"main_body": 2, "healthy_z_range": [0, 1]})
    assert r["main_body"] == 2 and r["healthy_z_range"] == (0.0, 1.0)  # an int stays an index


def test_main_body_keeps_the_callers_type(tmp_path: Path) -> None:
    """Issue 25 item 5: Gymnasium's data.body(main_body) takes an int as a body index and a str as a body
    name. On Gymnasium's ant.xml with the torso (body 1) renamed "3", main_body="3" tracks the torso, 3 the
    body aux_1, 1 the torso; "01", "+1" and "1" name no body (Gymnasium: KeyError at the first step, mdvec:
    ValueError at create). Before the fix mdvec read any decimal text as an index, so "3" tracked aux_1."""
    text, n = re.subn(r'<body name="torso"', '<body name="3"', (ASSETS / "ant.xml").read_text())
    assert n == 1
    path = tmp_path / "ant_torso_named_3.xml"
    path.write_text(text)
    base = {"xml_file": str(path), "max_episode_steps": 20}
    run_against_gymnasium("Ant-v5", {**base, "main_body": "3"}, num_envs=2, steps=30, seed=5)
    run_against_gymnasium("Ant-v5", {**base, "main_body": 3}, num_envs=2, steps=30, seed=5)
    run_against_gymnasium("Ant-v5", {**base, "main_body": np.int64(1)}, num_envs=1, steps=20, seed=6)
    for name in ("01", "+1", "1"):
        ref = gymnasium.make("Ant-v5", **base, main_body=name)
        ref.reset(seed=0)
        with pytest.raises(KeyError, match=re.escape(name)):
            ref.step(ref.action_space.sample())
        ref.close()
        with pytest.raises(ValueError, match=f"main_body '{re.escape(name)}' is not a body name"):
            mdvec.VecEnv(1, task="Ant-v5", **base, main_body=name)
    with pytest.raises(TypeError, match="main_body: expected an int"):
        mdvec.VecEnv(1, task="Ant-v5", main_body=1.0)


def test_norm_tasks_get_numpys_own_dot() -> None:
    """The v5 tasks that reproduce np.linalg.norm are flagged, and get numpy's own ddot: proven, not guessed."""
    assert {t for t in mdvec.task_names() if t.endswith("-v5") and mdvec.task_uses_numpy_dot(t)} == {
        "Swimmer-v5",
        "Ant-v5",
        "Humanoid-v5",
        "Reacher-v5",
        "Pusher-v5",
    }
    dot = mdvec.numpy_dot()
    assert dot.proven and dot.mode_name in ("cblas", "cblas64") and dot.address, dot.describe()
    with mdvec.VecEnv(1, task="Reacher-v5") as venv:
        assert venv._h.numpy_dot is dot


# --------------------------------------------------------------------------------------------------
# The registered ids: gymnasium.make("mdvec/ID") and make_vec(vector_entry_point)


@pytest.mark.parametrize("task", IDS)
def test_gymnasium_make_single_env(task: str) -> None:
    """gymnasium.make("mdvec/ID") (TimeLimit from the registration or max_episode_steps) vs gymnasium.make(ID)."""
    import mdvec.gym  # noqa: F401 - registers the ids
    from mdvec.tools import contract

    opts = {"max_episode_steps": 12}
    t = Tally(task)
    got, ref = gymnasium.make("mdvec/" + task, **opts), gymnasium.make(task, **opts)
    try:
        assert (
            got.spec.max_episode_steps == 12
            and gymnasium.spec("mdvec/" + task).max_episode_steps == gym_tasks.GYM_TASKS[task].max_episode_steps
        )
        assert got.observation_space == ref.observation_space and got.action_space == ref.action_space
        rng = np.random.default_rng(3)
        for episode in range(3):
            kw = {"seed": 40 + episode} if episode != 1 else {}
            (o1, i1), (o2, i2) = got.reset(**kw), ref.reset(**kw)
            t.same("reset obs", o1, o2)
            i1 = regroup(i1)
            assert sorted(i1) == sorted(i2)
            for k in i2:
                assert type(i1[k]) is type(i2[k]), (k, type(i1[k]), type(i2[k]))
                t.same(f"reset info {k}", i1[k], i2[k])
            for step in range(20):
                a = rng.uniform(-1.5, 1.5, got.action_space.shape).astype(np.float32 if step % 2 else np.float64)
                r1, r2 = got.step(a), ref.step(a.copy())
                t.same("obs", r1[0], r2[0])
                t.same("reward", np.float64(r1[1]), np.float64(r2[1]))
                assert (r1[2], r1[3]) == (r2[2], r2[3])
                info = regroup(r1[4])
                assert sorted(info) == sorted(r2[4])
                for k in r2[4]:
                    assert type(info[k]) is type(r2[4][k]), (k, type(info[k]), type(r2[4][k]))
                    t.same(f"step {step} info {k}", info[k], r2[4][k])
                if r2[2] or r2[3]:
                    break
        assert contract.same_value(got.reset(seed=5)[0], ref.reset(seed=5)[0])
    finally:
        got.close()
        ref.close()
    t.check()


class _Regrouped:
    """An mdvec vector env whose infos have their "name[k]" fields gathered into Gymnasium's arrays."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.num_envs = env.num_envs
        self.single_action_space = env.single_action_space
        self.metadata = env.metadata

    def reset(self, **kw: Any) -> tuple:
        obs, info = self.env.reset(**kw)
        return obs, regroup(info)

    def step(self, actions: Any) -> tuple:
        *head, info = self.env.step(actions)
        return (*head, regroup(info))


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
@pytest.mark.parametrize("task", IDS)
def test_make_vec_vector_entry_point_equals_sync(task: str, mode: str) -> None:
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    import mdvec.gym  # noqa: F401 - registers the ids
    from mdvec.tools import contract

    autoreset = AutoresetMode[mode]
    n, steps = 3, SHORT[task] // 2
    opts = {"max_episode_steps": steps}
    ref = SyncVectorEnv([lambda: gymnasium.make(task, **opts) for _ in range(n)], autoreset_mode=autoreset)
    got = gymnasium.make_vec(
        "mdvec/" + task,
        num_envs=n,
        vectorization_mode="vector_entry_point",
        autoreset_mode=autoreset,
        threads=2,
        **opts,
    )
    try:
        assert got.single_observation_space == ref.single_observation_space
        assert got.single_action_space == ref.single_action_space
        result = contract.Result(f"{task} {mode}", task)
        contract.compare_vector_envs(ref, _Regrouped(got), contract.vector_script(n, seed=9), result)
        assert result.identical, result.first_mismatch
        assert result.steps == n * (10 + 20 + 33 + 30 + 5) and result.episodes > 0
        obs_dim = got.single_observation_space.shape[0]
        TOTAL[task]["values compared"] += result.observations * obs_dim + result.steps + result.info_values
        TOTAL[task]["identical"] += (
            result.obs_identical * obs_dim + result.rewards_identical + result.info_values - result.info_mismatches
        )
    finally:
        got.close()
        ref.close()
