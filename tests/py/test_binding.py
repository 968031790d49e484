"""The C-backed envs: equality with the reference, drop-in behaviour, refusals that change nothing."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import mujoco
import numpy as np
import pytest

import mdvec
from mdvec import Env, VecEnv
from mdvec.reference import DuckEnv, ProcVecEnv
from mdvec.tools import contract

CASES = contract.default_cases(quick=True)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_contract_case_is_bit_identical(case: contract.Case) -> None:
    result = contract.run_case(case)
    if result.skipped:  # a case of an optional extra that is not installed (gymnasium, SB3)
        pytest.skip(result.skipped)
    assert result.observations > 250 and result.identical, result.first_mismatch


def test_contract_notices_a_push_shifted_by_one_step() -> None:
    ref = DuckEnv(seed=3)
    ref.reset()
    params = mdvec.episode_params(ref)
    params.push_steps = params.push_steps.copy()
    params.push_steps[0] += 1
    tally = contract._Tally(contract.Result("shifted", contract.DUCK))
    with Env(seed=3) as env:
        tally.obs(ref.params and ref.reset(seed=3), env.reset_with_params(params), "reset")
        for t in range(250):
            tally.step(ref.step(np.zeros(14)), env.step(np.zeros(14)), f"step {t + 1}")
    assert not tally.r.identical and tally.r.info_mismatches > 0
    assert "pushed" in tally.r.first_mismatch or "obs" in tally.r.first_mismatch


def test_versions_agree() -> None:
    lib = mdvec.vecenv.lib()
    assert lib.mdvec_mujoco_version() == mujoco.mj_version() == 4000000
    assert lib.mdvec_version() // 10000 == mdvec._lib.ABI_MAJOR


def _hooks() -> ctypes.CDLL:
    path = os.environ.get("MDVEC_TESTHOOKS")
    if not path:
        pytest.skip("MDVEC_TESTHOOKS not set (run through ninja -C build test)")
    hooks = ctypes.CDLL(path)
    hooks.hook_pcg64_size.restype = ctypes.c_size_t
    hooks.hook_pcg64_seed.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    hooks.hook_pcg64_state.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_uint32),
    ]
    hooks.hook_pcg64_draw.argtypes = [
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_double,
        ctypes.c_double,
        ctypes.POINTER(ctypes.c_double),
    ]
    hooks.hook_pcg64_choice.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
    return hooks


def _state(hooks: ctypes.CDLL, g: ctypes.Array) -> dict:
    words, has, buf = (ctypes.c_uint64 * 4)(), ctypes.c_int(), ctypes.c_uint32()
    hooks.hook_pcg64_state(g, words, ctypes.byref(has), ctypes.byref(buf))
    return {
        "state": (words[0] << 64) | words[1],
        "inc": (words[2] << 64) | words[3],
        "has_uint32": has.value,
        "uinteger": buf.value,
    }


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_pcg64_follows_numpy_state(seed: int) -> None:
    """After 1,000 outputs of each draw the C side reproduces, the generator state equals numpy's."""
    hooks = _hooks()
    g = ctypes.create_string_buffer(hooks.hook_pcg64_size())
    hooks.hook_pcg64_seed(g, seed)
    rng = np.random.Generator(np.random.PCG64(seed))

    def same_state() -> bool:
        s = rng.bit_generator.state
        return _state(hooks, g) == {
            "state": s["state"]["state"],
            "inc": s["state"]["inc"],
            "has_uint32": s["has_uint32"],
            "uinteger": s["uinteger"],
        }

    assert same_state()
    out = np.empty(1000)
    ptr = out.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    draws = [
        (0, -0.3, 0.7, lambda: rng.uniform(-0.3, 0.7, 1000)),
        (1, 0, 0, lambda: rng.standard_normal(1000)),
        (2, 0, 3, lambda: np.array([rng.integers(0, 3) for _ in range(1000)], float)),
    ]
    for kind, a, b, numpy_draw in draws:
        hooks.hook_pcg64_draw(g, kind, 1000, a, b, ptr)
        assert out.tobytes() == numpy_draw().tobytes()
        assert same_state()
    picks = np.empty(3, np.int64)
    for _ in range(1000):
        hooks.hook_pcg64_choice(g, 200, 3, picks.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)))
        assert np.array_equal(picks, rng.choice(np.arange(200), size=3, replace=False))
    assert same_state()


def test_drop_in_matches_proc_vec_env() -> None:
    actions = np.random.default_rng(0).uniform(-1, 1, (3, 4, 14)).astype(np.float32)
    with ProcVecEnv(4, seed=9, workers=2) as ref, VecEnv(4, seed=9, threads=2) as env:
        assert np.array_equal(ref.reset(), env.reset())
        for a in actions:
            r, g = ref.step(a), env.step(a)
            for x, y in zip(r[:3], g[:3]):
                assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
            assert list(r[3]) == list(g[3])
            for key in r[3]:
                assert r[3][key].dtype == g[3][key].dtype and np.array_equal(r[3][key], g[3][key]), key


def test_training_loop_runs_unchanged_on_mdvec(monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/python/train_linear.py is written against ProcVecEnv; swapping the name is all it takes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import train_linear

    ref_total, ref_weights = train_linear.train()
    monkeypatch.setattr(train_linear, "ProcVecEnv", VecEnv)
    total, weights = train_linear.train()
    assert total == ref_total and np.array_equal(weights, ref_weights)
    assert np.any(weights != 0)  # the loop really learned something from the rewards


def test_actions_in_any_layout_or_float_dtype() -> None:
    a = np.random.default_rng(1).uniform(-1, 1, (4, 14))
    outs = []
    for arr in (a, a.astype(np.float32).astype(np.float64), np.asfortranarray(a)):
        with VecEnv(4, seed=2) as env:
            env.reset()
            outs.append(env.step(arr)[0])
    assert np.array_equal(outs[0], outs[2])


@pytest.mark.parametrize(
    "bad,error,match",
    [
        (np.zeros((4, 13)), ValueError, "shape"),
        (np.zeros((3, 14)), ValueError, "shape"),
        (np.zeros((4, 14), np.int64), TypeError, "dtype"),
        (np.full((4, 14), np.nan), ValueError, "non-finite"),
    ],
)
def test_bad_actions_raise_and_change_nothing(bad: np.ndarray, error: type, match: str) -> None:
    good = np.random.default_rng(5).uniform(-1, 1, (4, 14))
    with VecEnv(4, seed=3) as env, VecEnv(4, seed=3) as twin:
        env.reset()
        twin.reset()
        env.step(good)
        twin.step(good)
        before = {k: v.copy() for k, v in env.buffers().items()}
        with pytest.raises(error, match=match):
            env.step(bad)
        assert all(np.array_equal(before[k], v) for k, v in env.buffers().items())
        r, g = env.step(good), twin.step(good)
        assert np.array_equal(r[0], g[0]) and np.array_equal(r[1], g[1])


def test_one_nan_in_the_last_env_stops_all_envs() -> None:
    with VecEnv(3, seed=3, threads=2) as env:
        env.reset()
        bad = np.zeros((3, 14))
        bad[2, 13] = np.inf
        with pytest.raises(ValueError, match="env 2"):
            env.step(bad)
        _, _, _, info = env.step(np.zeros((3, 14)))
        assert list(info["t"]) == [1, 1, 1]


def test_closed_env_raises() -> None:
    env = VecEnv(2)
    env.reset()
    env.close()
    env.close()  # closing twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros((2, 14)))
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()
    single = Env()
    single.close()
    with pytest.raises(RuntimeError, match="closed"):
        single.reset()


def test_bad_construction_names_the_problem() -> None:
    with pytest.raises(ValueError, match="allow_overcommit"):
        VecEnv(16, threads=9)
    assert VecEnv(16, threads=9, allow_overcommit=True).threads == 9
    with pytest.raises(ValueError, match="num_envs"):
        VecEnv(0)
    with pytest.raises(ValueError, match="reward"):
        VecEnv(2, reward="v9")
    with pytest.raises(ValueError, match="variant"):
        VecEnv(2, variant="giraffe")
    with pytest.raises(ValueError, match="num_envs"):
        VecEnv(True)
    with pytest.raises(ValueError, match="seed"):
        VecEnv(2, seed=-1)
    with VecEnv(np.int64(2), seed=np.uint32(5), threads=np.int32(2)) as env:  # numpy integers are integers
        assert env.reset().shape == (2, 48) and env.threads == 2


def test_env_matches_duck_env_types() -> None:
    ref, env = DuckEnv(seed=4), Env(seed=4)
    assert np.array_equal(ref.reset(), env.reset())
    r, g = ref.step(np.ones(14)), env.step(np.ones(14))
    assert [type(x) for x in r[1:3]] == [type(x) for x in g[1:3]]
    assert {k: type(v) for k, v in r[3].items()} == {k: type(v) for k, v in g[3].items()}
    assert r[3] == g[3]
    assert np.array_equal(ref.reset(seed=8), env.reset(seed=8))


def test_c_defaults_equal_the_reference_defaults() -> None:
    """mdvec_config_default and TaskConfig must never drift apart."""
    from mdvec.reference import TaskConfig

    c = mdvec._lib.Config()
    mdvec.vecenv.lib().mdvec_config_default(ctypes.byref(c))
    t = TaskConfig()
    assert (c.substeps, c.episode_len, c.action_scale, c.n_pushes) == (
        t.substeps,
        t.episode_len,
        t.action_scale,
        t.n_pushes,
    )
    assert (tuple(c.push_window), tuple(c.push_speed)) == (t.push_window, t.push_speed)
    assert (c.init_noise, c.latency, bool(c.sensor_noise), bool(c.dr)) == (
        t.init_noise,
        t.latency,
        t.sensor_noise,
        t.dr,
    )
    assert c.reward == {"v1": 1, "v2": 2}[t.reward] and c.variant == b"default" and c.autoreset == 1


def test_a_mujoco_error_stops_one_env_not_the_process(tmp_path: Path) -> None:
    """An mjData arena too small for a fall: the reference raises MuJoCo's error, mdvec reports it."""
    from mdvec._resources import variant_path

    xml = (
        variant_path("default")
        .read_text()
        .replace('<mujoco model="duck">', '<mujoco model="duck"><size memory="40K"/>', 1)
    )
    model = tmp_path / "duck_small_arena.xml"
    model.write_text(xml)
    cfg = dict(model=str(model), n_pushes=1, push_window=(10, 11), push_speed=(2.0, 2.0))
    ref = DuckEnv(seed=1, **cfg)
    ref.reset()
    with pytest.raises(mujoco.FatalError, match="mj_stackAlloc"):
        for _ in range(250):
            ref.step(np.zeros(14))
    with VecEnv(2, seed=1, threads=2, **cfg) as env:
        env.reset()
        with pytest.raises(mdvec.MdvecError, match="mj_stackAlloc") as caught:
            for _ in range(250):
                env.step(np.zeros((2, 14)))
        assert caught.value.code == -10
        with pytest.raises(mdvec.MdvecError, match="reset it"):
            env.step(np.zeros((2, 14)))
        env.reset()
        assert list(env.step(np.zeros((2, 14)))[3]["t"]) == [1, 1]


def test_vec_env_replays_one_env_with_params() -> None:
    """VecEnv.reset_with_params(i, ...) restarts env i alone, as the reference drew it."""
    ref = DuckEnv(seed=30, dr=True, init_noise=0.02)
    first = ref.reset()
    with VecEnv(3, seed=0, threads=2, dr=True, init_noise=0.02) as env:
        before = env.reset()
        assert np.array_equal(env.reset_with_params(2, mdvec.episode_params(ref)), first)
        obs, _, _, info = env.step(np.zeros((3, 14)))
        r_obs, _, _, r_info = ref.step(np.zeros(14))
        assert np.array_equal(obs[2], r_obs) and info["trunk_height"][2] == r_info["trunk_height"]
        assert not np.array_equal(before[2], first)
        with pytest.raises(ValueError, match="env index"):
            env.reset_with_params(3, ref.params)


def test_constructors_take_each_others_worker_keywords() -> None:
    """Code written for either vector env constructs the other unchanged (docs/duck_task.md section 6)."""
    with VecEnv(2, workers=1) as env:
        assert env.threads == 1
    with ProcVecEnv(2, threads=1, allow_overcommit=False) as ref:
        assert len(ref._procs) == 1
    with pytest.raises(ValueError, match="disagree"):
        VecEnv(2, threads=2, workers=1)
