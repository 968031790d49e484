"""dm_control's Control Suite in mdvec: every C task whose reference is a factory of mdvec.reference.dm_control
against dm_control 1.0.50 itself, bit for bit; and that reference against a raw dm_control env.

C against dm_control (``test_c_equals_dm_control``): parametrized over the library's catalogue (every task
whose "reference" metadata starts with ``mdvec.reference.dm_control:``), so a new task is covered by its
registration alone. ``mdvec.VecEnv(n, task=..., seed=s)`` (2 envs on 1 thread, 3 on 2; autoreset same_step)
beside the reference env i reset with seed s + i (Shimmy's reset(seed): the task's RandomState(s + i)):
seeds 0, 1 and 2**32 - 3 (the last env's seed is 2**32 - 1, the largest a RandomState takes), random actions
uniform in the action bounds, a short ``time_limit`` (0.1 s: 3 to 10 control steps) so that every env runs through a
time-limit end (LAST, discount 1: truncated), the autoreset after it (reset from the env's own generator, as
Shimmy's reset() without a seed) and another end. Compared by their bits: every observation entry (flat and
split by obs_layout), reward, terminated, truncated, timestep.discount, timestep.step_type, the final
observation and the reset info. A few cheap tasks also run one full-length episode at their default
time_limit, and some options (n_sub_steps, control_timestep, legacy_step, fully_observable,
max_episode_steps) run where the C
task declares them. Every C configuration replays the same seeds and actions, so its env i has the same
history as reference env i. The first configuration also checks what the task declares (names, ids,
obs_layout, action bounds, dt, seed_max 2**32 - 1 and the refusal of larger seeds).

The reference alone (the other tests): ``DmControlEnv`` is dm_control's suite.load stepped by dm_control,
with Shimmy's reset/step mapping; checked against a raw ``suite.load`` env driven as Shimmy drives it.

Everything that needs dm_control skips without it (pip install dm-control).
"""

from __future__ import annotations

import collections
import importlib.util
import math
import os
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mdvec
from mdvec import dm_tasks, vecenv
from mdvec.vecenv import parse_obs_layout, split_obs, task_meta, task_names, task_options

HAVE_DM = importlib.util.find_spec("dm_control") is not None
needs_dm = pytest.mark.skipif(not HAVE_DM, reason="dm_control is not installed (pip install dm-control)")
PREFIX = "mdvec.reference.dm_control:"
DM_TASKS = tuple(t for t in task_names() if (task_meta(t, "reference") or "").startswith(PREFIX))

SEEDS = (0, 1, 2**32 - 3)  # env i gets seed + i: up to 2**32 - 1
CONFIGS = ((2, 1), (3, 2))  # (num_envs, threads): 2 and 3 envs, 1 and 2 threads
TIME_LIMIT = 0.1  # seconds per episode in the short cases: 3 to 10 control steps
FULL_LENGTH = ("cartpole-balance", "pendulum-swingup")  # cheap: one episode of the default length
OPTION_CASES = (  # where the C task declares the options
    ("cheetah-run", {"n_sub_steps": 2, "legacy_step": False}),
    ("finger-spin", {"control_timestep": 0.04}),
    ("ball_in_cup-catch", {"control_timestep": 0.0, "n_sub_steps": 3}),
    ("walker-walk", {"legacy_step": False}),
    ("manipulator-bring_ball", {"fully_observable": False}),
    ("cartpole-swingup", {"max_episode_steps": 4}),  # Gymnasium's TimeLimit before dm_control's 10 steps
)


def bits(x: Any) -> bytes:
    return np.asarray(x, np.float64).tobytes()


def reference_module() -> Any:
    from mdvec.reference import dm_control

    return dm_control


def make_reference(task: str, **options: Any) -> Any:
    target = task_meta(task, "reference")
    assert target and target.startswith(PREFIX)
    return getattr(reference_module(), target[len(PREFIX) :])(**options)


# ----------------------------------------------------------------------------- C against dm_control


def record(refs: list, seeds: tuple[int, ...], actions: list[np.ndarray]) -> list[list[dict]]:
    """What each reference env gives, per seed: its reset, then per step its results (and the reset after
    an end)."""
    out = []
    for j, s in enumerate(seeds):
        per_env = []
        for i, ref in enumerate(refs):
            obs, info = ref.reset(seed=s + i)
            first = {"obs": obs, "info": info, "parts": {k: np.asarray(v) for k, v in ref.observation.items()}}
            steps = []
            for t in range(actions[j].shape[0]):
                o, r, term, trunc, inf = ref.step(actions[j][t, i])
                row = {"obs": o, "reward": r, "terminated": term, "truncated": trunc, "info": inf}
                if term or trunc:
                    row["reset_obs"], row["reset_info"] = ref.reset()
                steps.append(row)
            per_env.append({"reset": first, "steps": steps, "ref": ref})
        out.append(per_env)
    return out


def check_declarations(task: str, venv: mdvec.VecEnv, ref: Any) -> None:
    """Names, ids, the observation's parts, action bounds, dt and seeds as dm_control and Shimmy have them."""
    R = reference_module()
    domain, name = R.split_task(task)
    assert task == R.task_name(domain, name)
    assert task_meta(task, "id") == R.gym_id(domain, name)
    assert task_meta(task, "reference") == R.reference_target(domain, name)
    spec = venv.spec
    assert venv.obs_layout == spec.obs_layout == parse_obs_layout(ref.obs_layout) and spec.obs_dim == ref.obs_dim
    assert spec.act_dim == ref.nu and spec.obs_dtype == np.float64
    assert bits(spec.action_low) == bits(ref.act_low) and bits(spec.action_high) == bits(ref.act_high)
    assert spec.dt == ref.dt and venv.seed_max == spec.seed_max == 2**32 - 1
    with pytest.raises(ValueError):
        venv.reset(seed=2**32 - venv.num_envs + 1)  # the last env would get 2**32


def check_c(task: str, options: dict, seeds: tuple[int, ...], actions: list[np.ndarray], want: list, configs) -> dict:
    """Run each (num_envs, threads) C configuration through the seeds and actions; compare with want."""
    counts = collections.Counter()
    for n, threads in configs:
        venv = mdvec.VecEnv(n, seed=seeds[0], threads=threads, task=task, **options)
        try:
            spec = venv.spec
            if not counts:
                check_declarations(task, venv, want[0][0]["ref"])
            keys = [k for k, _, w in spec.info_fields if w & mdvec._lib.INFO_STEP]
            reset_keys = [(j, k) for j, (k, _, w) in enumerate(spec.info_fields) if w & mdvec._lib.INFO_RESET]
            assert set(keys) == {"timestep.discount", "timestep.step_type"}, keys
            assert [k for _, k in reset_keys] == ["timestep.step_type"], reset_keys
            for j, s in enumerate(seeds):
                # the creation seed serves the first reset of one configuration in two
                obs = venv.reset() if j == 0 and threads == 1 else venv.reset(seed=s)
                parts = venv.split_obs(obs)
                b = venv.buffers()
                for i in range(n):
                    r = want[j][i]["reset"]
                    where = f"{task} n={n} threads={threads} seed={s} env {i} reset"
                    assert bits(obs[i]) == bits(r["obs"]), where
                    assert list(parts) == list(r["parts"]), where
                    for name, value in r["parts"].items():
                        assert parts[name][i].shape == value.shape and bits(parts[name][i]) == bits(value), where
                    for row, k in reset_keys:
                        assert b["reset_info"][row, i] == r["info"][k], where
                    counts["values"] += obs[i].size + len(reset_keys)
                for t in range(actions[j].shape[0]):
                    obs, reward, done, info = venv.step(actions[j][t, :n])
                    b = venv.buffers()
                    for i in range(n):
                        w = want[j][i]["steps"][t]
                        where = f"{task} n={n} threads={threads} seed={s} env {i} step {t}"
                        final = info["terminal_obs"][i]
                        assert bits(final) == bits(w["obs"]), where + ": obs"
                        assert bits(reward[i]) == bits(w["reward"]), where + ": reward"
                        assert (bool(b["terminated"][i]), bool(b["truncated"][i])) == (
                            w["terminated"],
                            w["truncated"],
                        ), where + ": terminated, truncated"
                        assert bits(info["timestep.discount"][i]) == bits(w["info"]["timestep.discount"]), where
                        assert int(info["timestep.step_type"][i]) == w["info"]["timestep.step_type"], where
                        counts["values"] += final.size + 5
                        ended = w["terminated"] or w["truncated"]
                        assert bool(done[i]) == ended and bool(b["reset"][i]) == ended, where + ": reset flag"
                        if ended:
                            assert bits(obs[i]) == bits(w["reset_obs"]), where + ": obs after the autoreset"
                            for row, k in reset_keys:
                                assert b["reset_info"][row, i] == w["reset_info"][k], where + ": reset info"
                            counts["values"] += obs[i].size + len(reset_keys)
                            counts["terminated" if w["terminated"] else "truncated"] += 1
                        else:
                            assert bits(obs[i]) == bits(final), where
        finally:
            venv.close()
    return counts


def c_cases() -> list:
    cases = []
    for task in DM_TASKS:
        cases.append(pytest.param(task, {}, "short", id=f"{task}-short"))
        if task in FULL_LENGTH:
            cases.append(pytest.param(task, {}, "full", id=f"{task}-full"))
    for task, options in OPTION_CASES:
        if task in DM_TASKS:
            cases.append(pytest.param(task, options, "options", id=f"{task}-{'-'.join(options)}"))
    return cases


@needs_dm
@pytest.mark.parametrize("task,options,kind", c_cases())
def test_c_equals_dm_control(task: str, options: dict, kind: str) -> None:
    declared = {o.name for o in task_options(task)}
    missing = sorted(set(options) - declared)
    if missing:
        pytest.skip(f"{task} declares no option {missing}")
    if kind == "full":
        options, seeds, configs = dict(options), (7,), ((2, 2),)
        refs = [make_reference(task, **options) for _ in range(2)]
        steps = math.ceil(refs[0].step_limit) + 2
    else:
        options = dict(options, time_limit=TIME_LIMIT)
        seeds = SEEDS if kind == "short" else (5,)
        configs = CONFIGS if kind == "short" else ((2, 1), (2, 2))
        refs = [make_reference(task, **options) for _ in range(max(n for n, _ in configs))]
        steps = math.ceil(refs[0].step_limit) * 2 + 1  # two time-limit ends and one step more
    rng = np.random.default_rng(zlib.crc32(task.encode()))
    low, high = refs[0].action_low, refs[0].action_high
    low, high = np.where(np.isfinite(low), low, -1.0), np.where(np.isfinite(high), high, 1.0)
    actions = [rng.uniform(low, high, size=(steps, len(refs), low.size)) for _ in seeds]
    want = record(refs, seeds, actions)
    counts = check_c(task, options, seeds, actions, want, configs)
    assert counts["truncated"] >= len(seeds) * 2, counts  # every run went through a time-limit end
    assert counts["values"] > 0
    if kind == "short":
        with pytest.raises(ValueError):  # env 2 would get 2**32
            mdvec.VecEnv(3, task=task, seed=2**32 - 2, **options)
    print(f"{task} {kind}: {counts['values']} values equal, {counts['truncated']} truncations")


def test_the_catalogue_is_the_benchmark() -> None:
    """Once the C tasks are registered, they are dm_control's 28 BENCHMARKING tasks and nothing else."""
    if not DM_TASKS:
        pytest.skip("no Control Suite task is registered in this libmdvec yet")
    if not HAVE_DM:
        pytest.skip("dm_control is not installed (pip install dm-control)")
    R = reference_module()
    assert set(DM_TASKS) <= {R.task_name(d, t) for d, t in R.BENCHMARKING}


# ----------------------------------------------------------------------------- the reference alone

REF_TASKS = ("cartpole-swingup", "finger-turn_hard", "manipulator-bring_ball", "fish-swim", "humanoid-run")


def raw_env(domain: str, task: str, seed: int, **task_kwargs: Any) -> Any:
    from dm_control import suite

    reference_module().drop_stale_sizes()
    return suite.load(domain, task, task_kwargs=dict(task_kwargs, random=seed))


def shimmy_step(env: Any, action: Any) -> tuple:
    """shimmy 2.0.1's DmControlCompatibilityV0.step (dm_env_step2gym_step) on a raw dm_control env."""
    ts = env.step(action)
    terminated = truncated = False
    if ts.last():
        truncated = ts.discount > 0
        terminated = not truncated
    return ts, ts.reward or 0, terminated, truncated


def flat(observation: collections.OrderedDict) -> np.ndarray:
    return np.concatenate([np.asarray(v).ravel() for v in observation.values()])


@needs_dm
@pytest.mark.parametrize("name", REF_TASKS)
def test_reference_is_dm_control_as_shimmy_drives_it(name: str) -> None:
    R = reference_module()
    domain, task = R.split_task(name)
    kwargs = {"time_limit": 0.1}
    ref = getattr(R, R.factory_name(domain, task))(**kwargs)
    raw = raw_env(domain, task, 11, **kwargs)
    rng = np.random.default_rng(3)
    compared = collections.Counter()

    def same_reset(obs: np.ndarray, info: dict, ts: Any) -> None:
        assert ts.first() and info == {"timestep.step_type": 0}
        assert isinstance(ref.observation, collections.OrderedDict)
        assert list(ref.observation) == list(ts.observation)
        assert obs.dtype == np.float64 and obs.shape == (ref.obs_dim,)
        assert bits(obs) == bits(flat(ts.observation))
        compared["values"] += obs.size

    same_reset(*ref.reset(seed=11), raw.reset())  # suite.load(random=11) is RandomState(11)
    for episode in range(3):
        while True:
            a = rng.uniform(ref.action_low, ref.action_high)
            obs, reward, term, trunc, info = ref.step(a)
            ts, raw_reward, raw_term, raw_trunc = shimmy_step(raw, a)
            assert bits(obs) == bits(flat(ts.observation))
            assert type(reward) is float and bits(reward) == bits(raw_reward)
            assert (term, trunc) == (raw_term, raw_trunc)
            assert info == {"timestep.discount": float(ts.discount), "timestep.step_type": int(ts.step_type)}
            compared["values"] += obs.size + 4
            if term or trunc:
                compared["ends"] += 1
                break
        if episode == 0:
            same_reset(*ref.reset(), raw.reset())  # the generator continues
        else:
            raw.task._random = np.random.RandomState(100 + episode)  # Shimmy's reset(seed=...)
            same_reset(*ref.reset(seed=100 + episode), raw.reset())
    assert compared["ends"] == 3 and compared["values"] > 0


@needs_dm
def test_reset_seed_is_a_randomstate() -> None:
    R = reference_module()
    env = R.point_mass_easy()
    a, _ = env.reset(seed=2**32 - 1)
    b, _ = env.reset(seed=2**32 - 1)
    c, _ = env.reset()
    assert bits(a) == bits(b) and bits(a) != bits(c)
    assert isinstance(env.np_random, np.random.RandomState) and env.np_random is env.env.task._random
    env.np_random = np.random.RandomState(5)
    probe = np.random.RandomState(5)
    assert env.np_random.get_state()[1].tobytes() == probe.get_state()[1].tobytes()
    with pytest.raises(ValueError):
        env.reset(seed=2**32)  # a RandomState's seed has 32 bits


@needs_dm
def test_seed_at_construction() -> None:
    R = reference_module()
    a, _ = R.reacher_hard(seed=9).reset()
    b, _ = R.reacher_hard().reset(seed=9)
    assert bits(a) == bits(b)


@needs_dm
def test_step_timing_options() -> None:
    """control_timestep and n_sub_steps as dm_control's control.Environment takes them; the suite's own
    control timestep kept when not given; an Environment rebuilt around the suite's physics and task steps as
    one the suite built with the same settings."""
    R = reference_module()
    env = R.finger_spin()
    ts = env.physics.timestep()
    assert env.n_sub_steps == 2 and env.dt == 2 * ts  # finger's _CONTROL_TIMESTEP .02
    assert R.finger_spin(control_timestep=0.04).n_sub_steps == 4
    assert R.finger_spin(control_timestep=0.02).n_sub_steps == 2
    assert R.finger_spin(control_timestep=0.0).n_sub_steps == 1  # 0: none
    assert R.finger_spin(n_sub_steps=3, control_timestep=0.0).n_sub_steps == 3
    assert R.finger_spin(n_sub_steps=0).n_sub_steps == 2  # 0: unset
    for both in ({"control_timestep": 0.04}, {"control_timestep": 0.02}, {}):  # finger's own .02 counts, as in
        with pytest.raises(ValueError, match="Both n_sub_steps and control_timestep"):  # suite.load(n_sub_steps=)
            R.finger_spin(n_sub_steps=3, **both)
    with pytest.raises(ValueError):
        R.finger_spin(control_timestep=0.015)  # not a multiple of the timestep (compute_n_steps)
    assert R.cheetah_run(control_timestep=0.0, time_limit=0.05).step_limit == 0.05 / 0.01
    assert R.cheetah_run(time_limit=math.inf).step_limit == math.inf
    assert env.physics.legacy_step is True and R.walker_run(legacy_step=False).physics.legacy_step is False

    # cheetah has no control timestep of its own: the suite takes n_sub_steps through environment_kwargs.
    from dm_control import suite

    for settings in ({"n_sub_steps": 3}, {"control_timestep": 0.02, "legacy_step": False}):
        ref = R.cheetah_run(time_limit=0.2, **settings)
        raw = suite.load("cheetah", "run", task_kwargs={"random": 4, "time_limit": 0.2}, environment_kwargs=settings)
        assert bits(ref.reset(seed=4)[0]) == bits(flat(raw.reset().observation))
        rng = np.random.default_rng(0)
        for _ in range(8):
            a = rng.uniform(-1, 1, ref.nu)
            obs, reward, term, trunc, _ = ref.step(a)
            ts, raw_reward, raw_term, raw_trunc = shimmy_step(raw, a)
            assert bits(obs) == bits(flat(ts.observation)) and bits(reward) == bits(raw_reward)
            assert (term, trunc) == (raw_term, raw_trunc)


@needs_dm
def test_max_episode_steps_is_gymnasiums_time_limit() -> None:
    """gymnasium.make(id, max_episode_steps=n) wraps Shimmy's env in TimeLimit: truncated once n steps were
    taken since reset(); dm_control's step type and discount stay as they are."""
    R = reference_module()
    env = R.cartpole_swingup(time_limit=0.1, max_episode_steps=4)  # dm_control's own limit: 10 steps
    plain = R.cartpole_swingup(time_limit=0.1)
    for seed in (0, None):
        a, _ = env.reset(seed=seed)
        b, _ = plain.reset(seed=seed)
        assert bits(a) == bits(b)
        for t in range(1, 5):
            o, r, term, trunc, info = env.step([0.3])
            o2, r2, term2, trunc2, info2 = plain.step([0.3])
            assert (
                bits(o) == bits(o2)
                and bits(r) == bits(r2)
                and info
                == info2
                == {
                    "timestep.discount": 1.0,
                    "timestep.step_type": 1,
                }
            )
            assert (term, trunc) == (False, t == 4) and (term2, trunc2) == (False, False)
    env = R.cartpole_swingup(time_limit=0.1, max_episode_steps=0)  # 0: none
    env.reset(seed=1)
    ends = [env.step([0.0])[3] for _ in range(10)]
    assert ends == [False] * 9 + [True] and env.timestep.last()


@needs_dm
def test_task_options_and_unknown_options() -> None:
    R = reference_module()
    partial = R.manipulator_bring_ball(fully_observable=False)
    full = R.manipulator_bring_ball()
    assert partial.obs_layout == "arm_pos(8,2),arm_vel(8),touch(5)"
    assert full.obs_layout.startswith("arm_pos(8,2),") and full.obs_dim == 44
    raw = raw_env("manipulator", "bring_ball", 2, fully_observable=False)
    assert bits(partial.reset(seed=2)[0]) == bits(flat(raw.reset().observation))
    with pytest.raises(TypeError, match="fully_observable"):
        R.cheetah_run(fully_observable=False)
    R.cheetah_run(suite_dir="/nowhere")  # accepted, ignored: the C side reads the XML from it


@needs_dm
def test_observation_layout_and_split() -> None:
    R = reference_module()
    env = R.fish_swim()
    obs, _ = env.reset(seed=1)
    assert env.obs_layout == "joint_angles(7),upright(),target(3),velocity(13)"
    layout = parse_obs_layout(env.obs_layout, env.obs_dim)
    parts = env.split(obs)
    assert [(k, v.shape) for k, v in parts.items()] == list(layout)
    for name, value in env.observation.items():
        assert bits(parts[name]) == bits(value)
    batch = np.stack([obs, obs + 1])
    split = split_obs(layout, batch)
    assert split["upright"].shape == (2,) and split["target"].shape == (2, 3)
    assert bits(split["velocity"][0]) == bits(env.observation["velocity"])
    arm = R.manipulator_bring_ball()
    arm_obs, _ = arm.reset(seed=0)
    assert bits(split_obs(parse_obs_layout(arm.obs_layout), arm_obs[None])["arm_pos"][0]) == bits(
        arm.observation["arm_pos"]
    )


@needs_dm
def test_benchmarking_names_and_factories() -> None:
    from dm_control import suite

    R = reference_module()
    assert R.BENCHMARKING == tuple(suite.BENCHMARKING) and len(R.BENCHMARKING) == 28
    for domain, task in R.BENCHMARKING:
        factory = getattr(R, R.factory_name(domain, task))
        assert factory.gymnasium_api is True and factory.__name__ == R.factory_name(domain, task)
        assert R.split_task(R.task_name(domain, task)) == (domain, task)
        assert R.split_task(R.shimmy_id(domain, task)) == (domain, task)
        assert R.split_task(R.gym_id(domain, task)) == (domain, task)
    assert R.task_name("ball_in_cup", "catch") == "ball_in_cup-catch"
    assert R.shimmy_id("cheetah", "run") == "dm_control/cheetah-run-v0"
    assert R.gym_id("swimmer", "swimmer6") == "mdvec/swimmer-swimmer6-v0"
    assert R.reference_target("cheetah", "run") == "mdvec.reference.dm_control:cheetah_run"
    with pytest.raises(AttributeError):
        R.lqr_lqr_2_1  # noqa: B018 - not a benchmarking task
    with pytest.raises(ValueError):
        R.split_task("lqr-lqr_2_1")


# ----------------------------------------------------------------------------- the binding's side


def test_prefixes_agree() -> None:
    text = (Path(vecenv.__file__).parent / "reference" / "dm_control.py").read_text()
    assert dm_tasks.REFERENCE_PREFIX == vecenv.DM_REFERENCE_PREFIX == PREFIX
    assert f'REFERENCE_PREFIX = "{PREFIX}"' in text


def test_task_hooks_route_suite_references(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vecenv, "task_meta", lambda task, key: PREFIX + "cheetah_run" if key == "reference" else None)
    assert vecenv.task_hooks("cheetah-run") is dm_tasks
    monkeypatch.setattr(vecenv, "task_meta", lambda task, key: "mdvec.reference:CartPoleSwingup")
    assert vecenv.task_hooks("cartpole_swingup") is None


@needs_dm
def test_prepare_fills_suite_dir_without_importing_dm_control() -> None:
    code = (
        "import sys, os; import mdvec.dm_tasks as d; "
        "c, o = d.prepare('cheetah-run', 'default', None, {'time_limit': 1.0}); "
        "assert c is None and o['time_limit'] == 1.0; "
        "assert os.path.isfile(os.path.join(o['suite_dir'], 'cheetah.xml')), o; "
        "assert os.path.isfile(os.path.join(o['suite_dir'], 'common', 'materials.xml')); "
        "assert 'dm_control' not in sys.modules; print(o['suite_dir'])"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(vecenv.__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith(os.path.join("dm_control", "suite"))
    assert dm_tasks.prepare("x", "default", None, {"suite_dir": "/mine"})[1] == {"suite_dir": "/mine"}


def test_prepare_without_dm_control(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dm_tasks.importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ImportError, match="pip install dm-control"):
        dm_tasks.prepare("cheetah-run", "default", None, {})
    assert dm_tasks.prepare("cheetah-run", "default", None, {"suite_dir": "/s"})[1]["suite_dir"] == "/s"
    with pytest.raises(ValueError, match="variant/model"):
        dm_tasks.prepare("cheetah-run", "big", None, {"suite_dir": "/s"})
    env = mdvec.VecEnv(1, task="cartpole_swingup")  # the other tasks do not need dm_control
    env.close()


def test_parse_obs_layout() -> None:
    assert parse_obs_layout(None) == () and parse_obs_layout("") == ()
    assert parse_obs_layout("position(8),velocity(9)", 17) == (("position", (8,)), ("velocity", (9,)))
    assert parse_obs_layout("arm_pos(8,2),upright(),touch(5)", 22) == (
        ("arm_pos", (8, 2)),
        ("upright", ()),
        ("touch", (5,)),
    )
    for bad in ("position", "position(8", "a(1)b(2)", "a(1),", "a(x)", "a(1),a(2)", "(3)"):
        with pytest.raises(ValueError):
            parse_obs_layout(bad)
    with pytest.raises(ValueError, match="hold 3 values"):
        parse_obs_layout("a(1),b(2)", 4)


def test_split_obs_views() -> None:
    layout = parse_obs_layout("a(2,2),b(),c(3)")
    obs = np.arange(16.0).reshape(2, 8)
    parts = split_obs(layout, obs)
    assert list(parts) == ["a", "b", "c"]
    assert parts["a"].shape == (2, 2, 2) and parts["b"].shape == (2,) and parts["c"].shape == (2, 3)
    assert parts["a"][1].tolist() == [[8, 9], [10, 11]] and parts["b"].tolist() == [4, 12]
    assert all(np.shares_memory(p, obs) for p in parts.values())
    with pytest.raises(ValueError):
        split_obs(layout, np.zeros((2, 7)))
    with pytest.raises(ValueError, match="plain vector"):
        split_obs((), obs)


def test_spec_without_a_layout() -> None:
    """A task with one plain observation vector: obs_layout () and every seed (1.4's spec fields)."""
    env = mdvec.VecEnv(2, task="cartpole_swingup", seed=2**64 - 2)
    try:
        assert env.obs_layout == () == env.spec.obs_layout
        assert env.seed_max == env.spec.seed_max == 2**64 - 1
        with pytest.raises(ValueError, match="plain vector"):
            env.split_obs(env.reset())
    finally:
        env.close()
