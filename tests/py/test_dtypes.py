"""Action dtypes: never a silent difference from the reference.

Gymnasium's v5 tasks compute the control cost in the actions' dtype (``weight * np.sum(np.square(a))``),
so the dtype of their reward's terms and of ``info["reward_ctrl"]`` follows the actions'. mdvec reproduces
float32 and float64: byte-swapped float32 / float64 (``>f4``, ``>f8``) hold the same values and numpy
computes on them in native float32 / float64, so they step as native float32 / float64, equal to
Gymnasium bit for bit (compared here, through every wrapper). float16, long double and integer actions
(Gymnasium computes in float16, 80-bit long double, or integers: Reacher-v5's ``reward_ctrl`` becomes an
int64) are refused with a TypeError naming the dtype and what to pass, by every wrapper. Tasks whose
reference converts actions to float64 (the duck, cartpole_swingup) keep converting them so.

The refusals need no Gymnasium (a small Reacher model of this file); the comparisons need
gymnasium[mujoco] and are skipped without it.
"""

from __future__ import annotations

import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mdvec
from mdvec._shared import as_actions
from mdvec.tools.contract import diff_vector_info, same_array, same_value
from mdvec.vecenv import stepped_dtype

REFUSED = [np.float16, np.longdouble, np.int64, np.int32, np.uint8, np.bool_]
SWAPPED = [np.dtype(">f4"), np.dtype(">f8")] if np.dtype(np.float32).byteorder in "=<" else []
SWAPPED += [np.dtype(np.float32).newbyteorder("S"), np.dtype(np.float64).newbyteorder("S")]
SWAPPED = list(dict.fromkeys(SWAPPED))

# A two-link arm with a target, as Reacher-v5 needs (bodies "fingertip" and "target", nq = nv = 4, two
# motors): enough for a Reacher-v5 env without Gymnasium's model files.
REACHER_XML = """<mujoco model="mini_reacher">
  <option timestep="0.01"/>
  <worldbody>
    <body name="arm0" pos="0 0 .01">
      <joint name="j0" type="hinge" axis="0 0 1" damping="1"/>
      <geom type="capsule" fromto="0 0 0 .1 0 0" size=".01" contype="0" conaffinity="0"/>
      <body name="arm1" pos=".1 0 0">
        <joint name="j1" type="hinge" axis="0 0 1" damping="1" range="-3 3" limited="true"/>
        <geom type="capsule" fromto="0 0 0 .1 0 0" size=".01" contype="0" conaffinity="0"/>
        <body name="fingertip" pos=".11 0 0">
          <geom type="sphere" size=".01" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
    <body name="target" pos=".1 -.1 .01">
      <joint name="tx" type="slide" axis="1 0 0" range="-.27 .27" limited="true"/>
      <joint name="ty" type="slide" axis="0 1 0" range="-.27 .27" limited="true"/>
      <geom type="sphere" size=".009" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="j0" gear="200" ctrlrange="-1 1" ctrllimited="true"/>
    <motor joint="j1" gear="200" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
</mujoco>
"""


@pytest.fixture
def reacher_xml(tmp_path: Path) -> str:
    path = tmp_path / "mini_reacher.xml"
    path.write_text(REACHER_XML)
    return str(path)


# ------------------------------------------------------------------------ the rule (no Gymnasium)
def test_stepped_dtype_rule() -> None:
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    for follows in (True, False):
        for dt in (f32, *[d for d in SWAPPED if d.itemsize == 4]):
            got = stepped_dtype(np.dtype(dt), follows, "T")
            assert got == f32 and got.isnative
        for dt in (f64, *[d for d in SWAPPED if d.itemsize == 8]):
            got = stepped_dtype(np.dtype(dt), follows, "T")
            assert got == f64 and got.isnative
    for dt in REFUSED:
        with pytest.raises(TypeError) as e:
            stepped_dtype(np.dtype(dt), True, "Hopper-v5")
        assert np.dtype(dt).name in str(e.value) and "pass float32 or float64" in str(e.value), str(e.value)
    assert stepped_dtype(np.dtype(np.float16), False, "duck") == f64  # the reference converts to float64
    assert stepped_dtype(np.dtype(np.longdouble), False, "duck") == f64
    assert stepped_dtype(np.dtype(np.int64), False, "duck") is None  # the caller converts or refuses


def test_as_actions_follows_the_spec() -> None:
    follows = types.SimpleNamespace(follows_action_dtype=True, task="Hopper-v5")
    plain = types.SimpleNamespace(follows_action_dtype=False, task="duck")
    a = np.array([[0.25, -0.5]], np.dtype(np.float32).newbyteorder("S"))
    got = as_actions(a, (1, 2), follows)
    assert got.dtype == np.float32 and got.dtype.isnative and got.tobytes() == a.astype(np.float32).tobytes()
    with pytest.raises(TypeError, match="float16"):
        as_actions(a.astype(np.float16), (1, 2), follows)
    assert as_actions(a.astype(np.float16), (1, 2), plain).dtype == np.float64
    assert as_actions(np.ones((1, 2), np.int32), (1, 2), plain).dtype == np.float64
    assert as_actions(a.astype(np.float16), (1, 2), None).dtype == np.float16  # a reference computes itself
    with pytest.raises(TypeError, match="bool"):
        as_actions(np.ones((1, 2), bool), (1, 2), plain)


@pytest.mark.parametrize("dtype", REFUSED, ids=lambda d: np.dtype(d).name)
def test_v5_task_refuses_dtypes_it_would_compute_otherwise(reacher_xml: str, dtype: Any) -> None:
    """VecEnv.step, step_into_buffers, mdvec.Env.step and mdvec.make's step refuse, naming the dtype; nothing is stepped."""
    acts = np.full((2, 2), 0.5).astype(dtype)
    with mdvec.VecEnv(2, seed=1, task="Reacher-v5", xml_file=reacher_xml) as venv:
        venv.reset()
        before = {k: v.copy() for k, v in venv.buffers().items()}
        state = venv.get_state(0)
        for call in (venv.step, venv.step_into_buffers):
            with pytest.raises(TypeError) as e:
                call(acts)
            assert np.dtype(dtype).name in str(e.value) and "float32 or float64" in str(e.value), str(e.value)
        assert all(np.array_equal(before[k], v) for k, v in venv.buffers().items())
        assert np.array_equal(state, venv.get_state(0))
    with mdvec.Env(seed=1, task="Reacher-v5", xml_file=reacher_xml) as env:
        env.reset()
        with pytest.raises(TypeError, match=np.dtype(dtype).name):
            env.step(acts[0])
    envs = mdvec.make("Reacher-v5", num_envs=2, seed=1, threads=1, xml_file=reacher_xml)
    try:
        envs.reset(seed=1)
        with pytest.raises(TypeError, match=np.dtype(dtype).name):
            envs.step(acts)
    finally:
        envs.close()


@pytest.mark.parametrize("dtype", SWAPPED, ids=str)
def test_byte_swapped_actions_step_as_native_ones(reacher_xml: str, dtype: np.dtype) -> None:
    """>f4 / >f8 give the bits of native float32 / float64 actions, info dtype included (no Gymnasium needed)."""
    native = dtype.newbyteorder("=")
    acts = np.random.default_rng(0).uniform(-1, 1, (6, 2, 2)).astype(native)
    with (
        mdvec.VecEnv(2, seed=3, task="Reacher-v5", xml_file=reacher_xml) as a,
        mdvec.VecEnv(2, seed=3, task="Reacher-v5", xml_file=reacher_xml) as b,
    ):
        a.reset()
        b.reset()
        for act in acts:
            ra, rb = a.step(act.astype(dtype)), b.step(act)
            assert all(same_array(x, y) for x, y in zip(ra[:3], rb[:3]))
            assert ra[3]["reward_ctrl"].dtype == native and all(same_array(ra[3][k], rb[3][k]) for k in rb[3])


def test_duck_converts_other_floats_as_its_reference() -> None:
    """The duck's reference (DuckEnv) takes np.asarray(action, np.float64): float16 and ints step as float64."""
    acts = np.random.default_rng(1).uniform(-1, 1, (5, 2, 14)).astype(np.float16)
    with mdvec.VecEnv(2, seed=2, threads=1) as a, mdvec.VecEnv(2, seed=2, threads=1) as b:
        a.reset()
        b.reset()
        for act in acts:
            ra, rb = a.step(act), b.step(act.astype(np.float64))
            assert all(same_array(x, y) for x, y in zip(ra[:3], rb[:3]))


# -------------------------------------------------------------------------- against Gymnasium
def _gymnasium() -> Any:
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed (pip install 'gymnasium[mujoco]')")
    from mdvec.gym_tasks import gymnasium_mujoco_unavailable

    why = gymnasium_mujoco_unavailable()
    if why:
        pytest.skip(why)
    import mdvec.gym  # noqa: F401 - registers the ids

    return gymnasium


TASKS = ["Hopper-v5", "Reacher-v5", "Ant-v5", "Pusher-v5"]


def _same_step(got: tuple, want: tuple) -> list[str]:
    bad = [name for name, x, y in zip(("obs", "reward", "terminated", "truncated"), got, want) if not same_value(x, y)]
    if set(got[4]) != set(want[4]):
        bad.append(f"info keys {sorted(got[4])} != {sorted(want[4])}")
    return bad + [
        f"info[{k!r}]: {got[4][k]!r} != {want[4][k]!r}" for k in want[4] if not same_value(got[4].get(k), want[4][k])
    ]


@pytest.mark.parametrize("dtype", SWAPPED, ids=str)
@pytest.mark.parametrize("task", TASKS)
def test_single_env_with_byte_swapped_actions_equals_gymnasium(task: str, dtype: np.dtype) -> None:
    gymnasium = _gymnasium()
    ref, env = gymnasium.make(task), gymnasium.make(f"mdvec/{task}")
    try:
        shape = env.action_space.shape
        acts = np.random.default_rng(5).uniform(-1, 1, (12, *shape)).astype(dtype)
        assert same_value(env.reset(seed=4)[0], ref.reset(seed=4)[0])
        for act in acts:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the env checker's "not within the action space" dtype note
                want, got = ref.step(act), env.step(act)
            assert not _same_step(got, want), _same_step(got, want)
            assert want[4]["reward_ctrl"].dtype == dtype.newbyteorder("=")  # what Gymnasium computes in
            if want[2] or want[3]:
                env.reset()
                ref.reset()
    finally:
        env.close()
        ref.close()


@pytest.mark.parametrize("task", ["Hopper-v5", "Reacher-v5"])
def test_vector_wrappers_with_byte_swapped_actions_equal_gymnasium(task: str) -> None:
    """make_vec (vector entry point) and mdvec.make against Gymnasium's SyncVectorEnv, >f4 actions."""
    gymnasium = _gymnasium()
    dtype = np.dtype(np.float32).newbyteorder("S")
    ref = gymnasium.make_vec(task, num_envs=2, vectorization_mode="sync")
    ours = [
        gymnasium.make_vec(f"mdvec/{task}", num_envs=2, vectorization_mode="vector_entry_point", threads=1),
        mdvec.make(task, num_envs=2, threads=1),
    ]
    try:
        acts = np.random.default_rng(6).uniform(-1, 1, (10, *ref.action_space.shape)).astype(dtype)
        want = [ref.reset(seed=7)]
        want += [ref.step(a) for a in acts]
        for venv in ours:
            got = [venv.reset(seed=7)] + [venv.step(a) for a in acts]
            for w, g in zip(want, got):
                assert all(same_array(x, y) for x, y in zip(w[:-1], g[:-1]))
                assert not diff_vector_info(w[-1], g[-1])[1], diff_vector_info(w[-1], g[-1])[1]
    finally:
        ref.close()
        for venv in ours:
            venv.close()


def test_sb3_with_byte_swapped_actions_equals_native_float32() -> None:
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    _gymnasium()
    from mdvec.sb3 import MdvecSB3VecEnv

    dtype = np.dtype(np.float32).newbyteorder("S")
    a, b = (MdvecSB3VecEnv(2, seed=1, threads=1, task="Hopper-v5") for _ in range(2))
    try:
        a.reset()
        b.reset()
        for act in np.random.default_rng(2).uniform(-1, 1, (8, 2, 3)).astype(np.float32):
            ra, rb = a.step(act.astype(dtype)), b.step(act)
            assert all(same_array(x, y) for x, y in zip(ra[:3], rb[:3]))
            assert [i["reward_ctrl"] for i in ra[3]] == [i["reward_ctrl"] for i in rb[3]]
            assert all(type(i["reward_ctrl"]) is np.float32 for i in ra[3])
        with pytest.raises(TypeError, match="float16"):
            a.step(np.zeros((2, 3), np.float16))
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble, np.int64], ids=lambda d: np.dtype(d).name)
def test_what_gymnasium_computes_for_the_refused_dtypes(dtype: Any) -> None:
    """Why they are refused: Gymnasium's reward_ctrl is of their dtype (int64 on Reacher, whose weight is
    an int), with other values than float64 actions give; the C backend refuses them and the reference
    backend computes as Gymnasium does."""
    gymnasium = _gymnasium()
    act = np.full(2, 0.3 if np.dtype(dtype).kind == "f" else 1).astype(dtype)
    ref, rb = gymnasium.make("Reacher-v5"), gymnasium.make("mdvec/Reacher-v5", backend="reference")
    c = gymnasium.make("mdvec/Reacher-v5")
    try:
        ref.reset(seed=0)
        rb.reset(seed=0)
        c.reset(seed=0)
        want = ref.step(act)
        assert want[4]["reward_ctrl"].dtype == (np.dtype(np.int64) if np.dtype(dtype).kind == "i" else np.dtype(dtype))
        assert not _same_step(rb.step(act), want)
        with pytest.raises(TypeError, match=np.dtype(dtype).name):
            c.step(act)
    finally:
        for e in (ref, rb, c):
            e.close()
