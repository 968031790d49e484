"""State in and out (issue 27 items 1 and 2; docs/state.md): set_state against the reference's set_state, and
snapshots of whole vector envs.

* set_state: for a Gymnasium v5 task (Ant-v5), a Control Suite task (cheetah-run), the duck with domain
  randomisation and the cart-pole, the reference and mdvec are reset alike, stepped alike, given the same new
  qpos/qvel (the reference by its own means: Gymnasium's MujocoEnv.set_state, dm_control's data + mj_forward,
  the duck's and cart-pole's data + mj_forward), and stepped alike again: every observation, reward, flag and
  info value is equal bit for bit, and so is the whole physics state.
* snapshots: taken mid-episode, K steps run (through SAME_STEP and NEXT_STEP autoresets), restored, the same
  steps rerun: the same bytes in every buffer; restored into a second handle with another thread count and
  seed: the same bytes; restoring is refused (env unchanged) for damaged blobs and other configurations.
"""

from __future__ import annotations

import importlib.util
import math
import os
from typing import Any

import numpy as np
import pytest

import mdvec
from mdvec import state as S
from mdvec.vecenv import MdvecError

os.environ.setdefault("MUJOCO_GL", "disable")  # dm_control's suite imports a renderer; none is needed here

HAVE_GYM = importlib.util.find_spec("gymnasium") is not None
HAVE_DM = importlib.util.find_spec("dm_control") is not None
QPOS_QVEL = S.mjSTATE_QPOS | S.mjSTATE_QVEL


def bits(x: Any) -> bytes:
    return np.asarray(x).tobytes()


def same_info(got: dict, want: dict) -> None:
    for k, v in want.items():
        assert k in got, k
        assert bits(np.float64(got[k])) == bits(np.float64(v)), (k, got[k], v)


def new_state(rng: np.random.Generator, qpos: np.ndarray, qvel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A nearby state: qpos + N(0, 0.05), qvel + N(0, 0.3)."""
    return qpos + 0.05 * rng.standard_normal(qpos.shape), qvel + 0.3 * rng.standard_normal(qvel.shape)


# ---------------------------------------------------------------------------------------- set_state


@pytest.mark.skipif(not HAVE_GYM, reason="gymnasium is not installed (its Hopper-v5 is the reference)")
def test_set_state_equals_gymnasium_set_state(gym_mujoco: None) -> None:
    """Ant-v5: Gymnasium's unwrapped MujocoEnv.set_state(qpos, qvel) then steps, against VecEnv.set_qpos_qvel
    then the same steps. Ant's step reads the torso's xpos before simulating (x_velocity): a derived array, which
    set_state's mj_forward brings up to date in both."""
    import gymnasium
    import mujoco

    ref = gymnasium.make("Ant-v5")
    rng = np.random.default_rng(5)
    with mdvec.VecEnv(1, seed=7, task="Ant-v5") as env:
        want, _ = ref.reset(seed=7)
        assert bits(env.reset()[0]) == bits(want)
        acts = rng.uniform(-1, 1, (8, 8))
        for t in range(8):
            if t == 3:  # mid-episode: both get the same new state
                u = ref.unwrapped
                qpos, qvel = new_state(rng, u.data.qpos.copy(), u.data.qvel.copy())
                u.set_state(qpos, qvel)
                env.set_qpos_qvel(qpos, qvel, env_ids=0)
                sig = int(mujoco.mjtState.mjSTATE_INTEGRATION)
                full = np.empty(mujoco.mj_stateSize(u.model, sig))
                mujoco.mj_getState(u.model, u.data, full, sig)
                assert bits(env.get_state(0, sig)) == bits(full)
                assert bits(env.get_state(0)) == bits(full)  # the default: mjSTATE_INTEGRATION
            o, r, term, trunc, info = ref.step(acts[t])
            obs, rew, done, got = env.step(acts[t : t + 1])
            assert bits(obs[0]) == bits(o) and bits(rew[0]) == bits(np.float64(r))
            assert bool(done[0]) == (term or trunc)
            same_info({k: v[0] for k, v in got.items() if k != "terminal_obs"}, info)
    ref.close()


@pytest.mark.skipif(not HAVE_DM, reason="dm_control is not installed (pip install dm-control)")
def test_set_state_equals_dm_control() -> None:
    """cheetah-run: dm_control's physics given qpos/qvel and mj_forward, then steps, against set_state with
    mjSTATE_QPOS | mjSTATE_QVEL (time and act kept), then the same steps."""
    import mujoco

    from mdvec.reference import dm_control

    ref = dm_control.DmControlEnv("cheetah", "run", time_limit=1.0)
    rng = np.random.default_rng(3)
    with mdvec.VecEnv(1, seed=11, task="cheetah-run", time_limit=1.0) as env:
        want, _ = ref.reset(seed=11)
        assert bits(env.reset()[0]) == bits(want)
        acts = rng.uniform(-1, 1, (6, 6))
        for t in range(6):
            if t == 2:
                qpos, qvel = new_state(rng, ref.data.qpos.copy(), ref.data.qvel.copy())
                ref.data.qpos[:], ref.data.qvel[:] = qpos, qvel
                mujoco.mj_forward(ref.model, ref.data)
                env.set_state(np.concatenate([qpos, qvel]), [0], QPOS_QVEL)
            o, r, term, trunc, info = ref.step(acts[t])
            obs, rew, done, got = env.step(acts[t : t + 1])
            assert bits(obs[0]) == bits(o) and bits(rew[0]) == bits(np.float64(r))
            assert bool(done[0]) == (term or trunc)
            same_info({k: v[0] for k, v in got.items() if k != "terminal_obs"}, info)
        sig = S.integration()
        full = np.empty(mujoco.mj_stateSize(ref.model, sig))
        mujoco.mj_getState(ref.model, ref.data, full, sig)
        assert bits(env.get_state(0, sig)) == bits(full)
    ref.close()


def duck_reference_set(ref: Any, qpos: np.ndarray, qvel: np.ndarray) -> None:
    import mujoco

    ref.data.qpos[:], ref.data.qvel[:] = qpos, qvel
    mujoco.mj_forward(ref.model, ref.data)


@pytest.mark.parametrize("task", ["duck", "cartpole_swingup"])
def test_set_state_equals_reference(task: str) -> None:
    """The duck (domain randomisation, latency and sensor noise: the episode's queue, last action and shoves go
    on) and the cart-pole: the reference's data.qpos/qvel written and mj_forward, then steps, against
    mdvec.Env.set_qpos_qvel then the same steps."""
    from mdvec.reference import DuckEnv
    from mdvec.reference.cartpole_swingup import CartPoleSwingup

    options: dict[str, Any] = {"dr": True, "sensor_noise": True, "n_pushes": 3} if task == "duck" else {}
    rng = np.random.default_rng(1)
    if task == "duck":
        ref: Any = DuckEnv(seed=4, **options)
        want = ref.reset()
    else:
        ref = CartPoleSwingup()
        want, _ = ref.reset(seed=4)
    with mdvec.Env(seed=4, task=task, **options) as env:
        assert bits(env.reset()) == bits(want)
        nu = env.nu
        for t in range(40):
            if t in (5, 30):
                qpos, qvel = new_state(rng, ref.data.qpos.copy(), ref.data.qvel.copy())
                duck_reference_set(ref, qpos, qvel)
                env.set_qpos_qvel(qpos, qvel)
                assert bits(env.get_state(QPOS_QVEL)) == bits(np.concatenate([qpos, qvel]))
            a = rng.uniform(-1, 1, nu)
            got = env.step(a)
            out = ref.step(a)
            assert bits(got[0]) == bits(out[0]) and bits(np.float64(got[1])) == bits(np.float64(out[1])), t
            same_info(got[3], out[-1])


def test_set_state_sig_parts_and_default() -> None:
    """set_state writes only the parts sig names (mj_setState); None is mjSTATE_INTEGRATION, whose round trip
    changes nothing; a batch over env ids."""
    with mdvec.VecEnv(3, seed=2, task="cartpole_swingup", threads=2) as env:
        env.reset()
        env.step(np.full((3, 1), 0.5))
        full = env.get_state()
        assert full.shape == (3, env.get_state(0).size)
        before = env.snapshot()
        env.set_state(full)  # the whole integration state, then mj_forward: nothing changes
        env2 = mdvec.VecEnv(3, seed=2, task="cartpole_swingup", threads=1)
        env2.restore(before)
        a = np.full((3, 1), -0.25)
        assert bits(env.step(a)[0]) == bits(env2.step(a)[0])
        env2.close()
        t0 = env.get_state([1], S.mjSTATE_TIME)
        env.set_state(np.array([[1.0, 2.0]]), env_ids=[1], sig=S.mjSTATE_QPOS)
        assert bits(env.get_state(1, S.mjSTATE_QPOS)) == bits(np.array([1.0, 2.0]))
        assert bits(env.get_state([1], S.mjSTATE_TIME)) == bits(t0)  # time kept
        qvel = env.get_state([0, 2], S.mjSTATE_QVEL)
        env.set_state(qvel[::-1], env_ids=[0, 2], sig=S.mjSTATE_QVEL)
        assert bits(env.get_state([2, 0], S.mjSTATE_QVEL)) == bits(qvel)


def test_set_state_refusals_leave_the_env_unchanged() -> None:
    """Bad index, unknown sig bits, a wrong size, NaN or inf, wrong dtype: refused before any env changes (a batch
    with one bad row changes no env)."""
    with mdvec.VecEnv(2, seed=0, task="cartpole_swingup") as env:
        env.reset()
        env.step(np.zeros((2, 1)))
        blob = env.snapshot()
        qq = env.get_state(None, QPOS_QVEL)
        bad = qq.copy()
        bad[1, 2] = math.nan
        cases = [
            (lambda: env.set_state(qq[0], env_ids=2, sig=QPOS_QVEL), ValueError, "env index"),
            (lambda: env.set_state(qq, sig=1 << 20), ValueError, "mjtState bits"),
            (lambda: env.set_state(qq[:, :3], sig=QPOS_QVEL), ValueError, "shape"),
            (lambda: env.set_state(bad, sig=QPOS_QVEL), ValueError, "finite"),
            (lambda: env.set_state(np.where(np.isnan(bad), np.inf, bad), sig=QPOS_QVEL), ValueError, "finite"),
            (lambda: env.set_state(qq.astype(str), sig=QPOS_QVEL), TypeError, "real numbers"),
            (lambda: env.set_state(qq, sig="qpos"), TypeError, "mjtState"),
            (lambda: env.set_qpos_qvel(qq[:, :1], qq[:, 2:]), ValueError, "shapes"),
        ]
        for call, exc, text in cases:
            with pytest.raises(exc, match=text):
                call()
            assert env.snapshot() == blob


def test_c_refuses_bad_states() -> None:
    """The library's own checks (what a C caller meets): size other than mj_stateSize, NaN, index, sig."""
    import ctypes

    from mdvec.vecenv import lib

    with mdvec.VecEnv(1, seed=0, task="cartpole_swingup") as env:
        env.reset()
        blob = env.snapshot()
        L, h = lib(), env._h.ptr
        s = np.zeros(4)
        for args, text in [
            ((0, QPOS_QVEL, s.ctypes.data, 3), b"exactly 4 doubles"),
            ((1, QPOS_QVEL, s.ctypes.data, 4), b"out of range"),
            ((0, 1 << 20, s.ctypes.data, 4), b"unknown mjtState bits"),
            ((0, QPOS_QVEL, None, 4), b"NULL"),
            ((0, QPOS_QVEL, np.array([0, math.nan, 0, 0.0]).ctypes.data, 4), b"state[1] is nan"),
        ]:
            assert L.mdvec_set_state(h, *args) == -1
            assert text in L.mdvec_errmsg(h), L.mdvec_errmsg(h)
        assert L.mdvec_set_state(None, 0, 0, None, 0) == -1
        assert env.snapshot() == blob
        assert L.mdvec_copy_data(h, 0, None) == -1 and L.mdvec_copy_data(h, 1, None) == -1
        need = ctypes.c_size_t()
        assert L.mdvec_save_model(h, 0, None, 0, ctypes.byref(need)) == 0 and need.value > 0
        small = ctypes.create_string_buffer(8)
        assert L.mdvec_save_model(h, 0, small, 8, None) == -1 and b"needs" in L.mdvec_errmsg(h)


# ---------------------------------------------------------------------------------------- model and data


def test_model_mjb_and_copy_data_of_a_randomised_duck(tmp_path: Any) -> None:
    """model_mjb gives each env's own model (the duck's domain randomisation: the envs' masses differ from the
    file's and from each other); copy_data fills a mujoco.MjData of it with the env's whole mjData."""
    import mujoco

    with mdvec.VecEnv(2, seed=3, dr=True) as env:
        env.reset()
        env.step(np.zeros((2, env.nu)))
        models = []
        for i in range(2):
            path = tmp_path / f"env{i}.mjb"
            path.write_bytes(env.model_mjb(i))
            models.append(mujoco.MjModel.from_binary_path(str(path)))
        plain = mujoco.MjModel.from_xml_path(str(env.model_path))
        assert bits(models[0].body_mass) != bits(plain.body_mass)
        assert bits(models[0].body_mass) != bits(models[1].body_mass)
        data = mujoco.MjData(models[1])
        env.copy_data(1, data)
        assert bits(data.qpos) == bits(env.get_state(1, S.mjSTATE_QPOS))
        assert data.time == env.get_state(1, S.mjSTATE_TIME)[0] and data.time > 0
        snap = mujoco.MjData(models[1])
        mujoco.mj_copyData(snap, models[1], data)
        mujoco.mj_forward(models[1], snap)  # derived arrays of the copied state: MuJoCo's own recomputation
        assert bits(snap.xpos) == bits(data.xpos) and bits(snap.sensordata) == bits(data.sensordata)
        assert data.ncon == snap.ncon and data.ncon > 0
        with pytest.raises(MdvecError, match="another model"):
            env.copy_data(0, mujoco.MjData(mujoco.MjModel.from_xml_string("<mujoco/>")))
        with pytest.raises(TypeError, match="MjData"):
            env.copy_data(0, object())


# ---------------------------------------------------------------------------------------- snapshots

# (task, options): an autoreset within the few steps after the snapshot, in every mode
SNAP_CASES = [
    ("duck", {"dr": True, "sensor_noise": True, "latency": 2, "episode_len": 9, "push_window": (1, 8), "n_pushes": 2}),
    ("cartpole_swingup", {"max_episode_steps": 7}),
]
if HAVE_GYM:
    SNAP_CASES.append(("Hopper-v5", {"max_episode_steps": 8}))
if HAVE_DM:
    SNAP_CASES.append(("reacher-hard", {"time_limit": 0.14}))  # 7 steps; its reset moves the target (model)


def record(env: mdvec.VecEnv, acts: list[np.ndarray]) -> list[bytes]:
    """Every buffer after each step, as bytes (the last row: how many envs were reset meanwhile)."""
    out, resets = [], 0
    for a in acts:
        env.step_into_buffers(a)
        b = env.buffers()
        resets += int(b["reset"].sum())
        out.append(b"".join(bits(v) for _, v in sorted(b.items())))
    return out + [str(resets).encode()]


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
@pytest.mark.parametrize("task,options", SNAP_CASES, ids=[c[0] for c in SNAP_CASES])
def test_snapshot_restore_replays_bit_for_bit(task: str, options: dict, mode: str) -> None:
    """Mid-episode snapshot, K steps through autoresets, restore, the same K steps: identical bytes; the same in a
    second handle (another seed and thread count: both come from the snapshot), and in a third (branching)."""
    rng = np.random.default_rng(0)
    with mdvec.VecEnv(3, seed=1, threads=2, task=task, autoreset_mode=mode, **options) as env:
        env.reset()
        low, high = np.maximum(env.spec.action_low, -1), np.minimum(env.spec.action_high, 1)
        acts = [rng.uniform(low, high, (3, env.nu)) for _ in range(20)]
        record(env, acts[:4])
        blob = env.snapshot()
        first = b"".join(bits(v) for _, v in sorted(env.buffers().items()))
        want = record(env, acts[4:])
        assert int(want[-1]) >= 3, "every env resets after the snapshot"
        env.restore(blob)
        assert b"".join(bits(v) for _, v in sorted(env.buffers().items())) == first  # the snapshot's last results
        assert env.snapshot() == blob
        assert record(env, acts[4:]) == want
        for seed, threads in ((9, 1), (2, 3)):
            with mdvec.VecEnv(3, seed=seed, threads=threads, task=task, autoreset_mode=mode, **options) as other:
                other.restore(blob)
                assert record(other, acts[4:]) == want


def test_restore_refusals_leave_the_env_unchanged() -> None:
    """Damaged blobs and other configurations are refused, with the reason; the env is unchanged."""
    opts = {"max_episode_steps": 7}
    with mdvec.VecEnv(2, seed=0, task="cartpole_swingup", **opts) as env:
        env.reset()
        env.step(np.zeros((2, 1)))
        mine = env.snapshot()
        env.step(np.ones((2, 1)))
        now = env.snapshot()
        flipped = bytearray(mine)
        flipped[len(mine) // 2] ^= 0x10
        with mdvec.VecEnv(2, seed=0, task="cartpole_swingup", ctrl_cost_weight=0.5, **opts) as opt_env:
            opt_env.reset()
            other_options = opt_env.snapshot()
        with mdvec.VecEnv(3, seed=0, task="cartpole_swingup", **opts) as n_env:
            other_n = n_env.snapshot()
        with mdvec.VecEnv(2, seed=0) as duck:
            other_task = duck.snapshot()
        with mdvec.VecEnv(2, seed=0, task="cartpole_swingup", autoreset_mode="next_step", **opts) as mode_env:
            other_mode = mode_env.snapshot()
        cases = [
            (mine[:-1], "truncated"),
            (mine[:100], "truncated"),
            (mine + b"\0", "extended"),
            (bytes(flipped), "corrupted"),
            (b"", "not an mdvec snapshot"),
            (b"x" * 300, "not an mdvec snapshot"),
            (other_options, "option 'ctrl_cost_weight' .this env's is 0.01"),
            (other_n, "3 envs"),
            (other_task, "task 'duck'"),
            (other_mode, "autoreset mode"),
        ]
        for blob, text in cases:
            with pytest.raises(MdvecError, match=text) as e:
                env.restore(blob)
            assert isinstance(e.value, ValueError)
            assert env.snapshot() == now
        with pytest.raises(TypeError, match="bytes"):
            env.restore(12)
        env.restore(mine)
        assert env.snapshot() == mine


def test_env_snapshot_and_state() -> None:
    """mdvec.Env: snapshot/restore, get_state/set_state of its one env."""
    with mdvec.Env(seed=2, task="cartpole_swingup") as env:
        env.reset()
        env.step([0.3])
        blob = env.snapshot()
        want = [env.step([0.1 * t]) for t in range(5)]
        env.restore(blob)
        got = [env.step([0.1 * t]) for t in range(5)]
        assert [bits(g[0]) for g in got] == [bits(w[0]) for w in want] and [g[1] for g in got] == [w[1] for w in want]
        s = env.get_state()
        env.set_state(s)
        assert bits(env.get_state()) == bits(s)


@pytest.mark.parametrize("mode", ["disabled", "next_step"])
def test_make_vector_env_restores_its_bookkeeping(mode: str) -> None:
    """mdvec.make's vector env: its snapshot carries the envs a "disabled" autoreset holds finished; restored
    into another make() of the same task, the steps that follow are equal; a bare VecEnv snapshot restores the
    envs too."""
    kw = {"max_episode_steps": 3, "autoreset_mode": mode}
    envs = mdvec.make("cartpole_swingup", num_envs=2, seed=1, **kw)
    envs.reset(seed=1)
    for _ in range(3):
        envs.step(np.zeros((2, 1), np.float32))
    blob = envs.snapshot()
    other = mdvec.make("cartpole_swingup", num_envs=2, seed=5, threads=1, **kw)
    other.restore(blob)
    if mode == "disabled":
        for e in (envs, other):
            with pytest.raises(RuntimeError, match="finished"):
                e.step(np.zeros((2, 1), np.float32))
            e.reset(options={"reset_mask": np.array([True, True])})
    a = np.full((2, 1), 0.5, np.float32)
    for _ in range(2):
        got, want = other.step(a), envs.step(a)
        assert all(bits(x) == bits(y) for x, y in zip(got[:4], want[:4]))
    assert bits(other.get_state()) == bits(envs.get_state())
    assert other.np_random_seed == envs.np_random_seed
    with mdvec.VecEnv(2, seed=0, task="cartpole_swingup", max_episode_steps=3, autoreset_mode=mode) as plain:
        plain.restore(blob)  # the wrapper's blob: its envs' part
        envs.restore(blob)
        assert bits(plain.get_state()) == bits(envs.get_state())
    envs.close()
    other.close()
