"""The 1.1 binding: task catalogue and constants against the reference's tables, option checks, spec,
seeded and masked resets, typed steps, buffers, state readout, the error table."""

from __future__ import annotations

import ast
import inspect
from dataclasses import fields

import mujoco
import numpy as np
import pytest

import mdvec
from mdvec import VecEnv, _lib
from mdvec._resources import variant_path
from mdvec.reference import TaskConfig, dr, duck_env
from mdvec.vecenv import OptionInfo, _option_text

NU = 14


# ------------------------------------------------------------------------------------- catalogue


def test_catalogue_lists_the_default_task_first_with_the_reference_defaults() -> None:
    assert mdvec.task_names()[0] == "duck" and mdvec.task_summary()
    opts = {o.name: o for o in mdvec.task_options()}
    assert opts == {o.name: o for o in mdvec.task_options("duck")}
    for f in fields(TaskConfig):
        assert opts[f.name].default == getattr(TaskConfig(), f.name), f.name
    assert opts["reward"].choices == ("v1", "v2") and opts["model_path"].default is None
    with pytest.raises(ValueError, match="no_such_task"):
        mdvec.task_options("no_such_task")


def test_constants_equal_the_reference_tables() -> None:
    c = mdvec.task_constants("duck")
    blocks = (3, 3, NU, NU, NU)
    assert np.repeat(c["obs_scale"], blocks).astype(np.float32).tobytes() == duck_env.obs_scale(NU).tobytes()
    assert np.repeat(c["noise_std"], blocks[:4]).tobytes() == duck_env.noise_std(NU).tobytes()
    # dr.draw's literal ranges, in draw order (the servo ranges come from the fits table, not literals).
    calls = [
        node
        for node in ast.walk(ast.parse(inspect.getsource(dr.draw)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("uniform", "integers")
    ]
    literal = [
        (n.args[0].value, n.args[1].value)
        for n in sorted(calls, key=lambda n: (n.lineno, n.col_offset))
        if all(isinstance(a, ast.Constant) for a in n.args[:2])
    ]
    assert [tuple(p) for p in c["dr_ranges"].reshape(-1, 2).tolist()] == [tuple(map(float, p)) for p in literal]
    for reward in ("v1", "v2"):
        with VecEnv(1, reward=reward) as env:
            assert env.info_keys == duck_env.info_keys(reward)
            assert [name for name, _, _ in env.spec.info_fields] == list(duck_env.info_keys(reward))


# --------------------------------------------------------------------------------------- options


def _info(type_: str, choices: tuple[str, ...] = ()) -> OptionInfo:
    return OptionInfo("opt", type_, None, -np.inf, np.inf, choices, "")


@pytest.mark.parametrize(
    "type_,value,text",
    [
        ("int", 3, "3"),
        ("int", np.int32(-4), "-4"),
        ("float", 0.1, "0.1"),
        ("float", 2, "2.0"),
        ("float", np.float32(0.5), "0.5"),
        ("float", float("inf"), "inf"),
        ("bool", True, "true"),
        ("bool", np.bool_(False), "false"),
        ("range", (1, 2.5), "1.0,2.5"),
        ("range", [-np.inf, 0.7], "-inf,0.7"),
        ("irange", (25, 225), "25,225"),
        ("str", "a b", "a b"),
        ("str", None, None),
    ],
)
def test_option_values_become_the_library_text(type_: str, value: object, text: str | None) -> None:
    assert _option_text(_info(type_), value) == text


@pytest.mark.parametrize(
    "type_,value,error",
    [
        ("int", True, TypeError),
        ("int", 2.0, TypeError),
        ("int", "3", TypeError),
        ("float", True, TypeError),
        ("float", 2**60 + 1, ValueError),
        ("float", "0.5", TypeError),
        ("bool", 1, TypeError),
        ("range", (0.7,), TypeError),
        ("range", "0,1", TypeError),
        ("irange", (1.0, 2), TypeError),
        ("str", 3, TypeError),
    ],
)
def test_option_types_are_checked_before_ctypes(type_: str, value: object, error: type) -> None:
    with pytest.raises(error, match="opt"):
        _option_text(_info(type_), value)


def test_choice_options() -> None:
    assert _option_text(_info("choice", ("v1", "v2")), "v1") == "v1"
    with pytest.raises(ValueError, match="'v1', 'v2'"):
        _option_text(_info("choice", ("v1", "v2")), "v3")


def test_library_refusals_name_the_option_and_map_to_exceptions() -> None:
    with pytest.raises(ValueError, match=r"latency: 300 must be below episode_len=250") as caught:
        VecEnv(1, latency=300)
    assert isinstance(caught.value, mdvec.MdvecError) and caught.value.code == _lib.ERR_CONFIG
    with pytest.raises(ValueError, match=r"substeps: 1000000 is out of range \[1, 10000\]"):
        VecEnv(1, substeps=10**6)  # the reference's checks let it pass; the library's bounds do not
    with pytest.raises(ValueError, match="task: unknown task 'nope'"):
        VecEnv(1, task="nope")
    assert _lib.error(_lib.ERR_PHYSICS, "x").__class__ is mdvec.MdvecError
    assert isinstance(_lib.error(_lib.ERR_ACTION, "x"), ValueError)
    assert not isinstance(_lib.error(_lib.ERR_STATE, "x"), ValueError)


# ------------------------------------------------------------------------------------ spec, state


def test_spec_buffers_and_model_path() -> None:
    with VecEnv(3, seed=1, threads=2, autoreset_mode="next_step", init_noise=0.01) as env:
        s = env.spec
        assert (s.task, s.num_envs, s.threads, s.obs_dim, s.act_dim, s.obs_dtype) == ("duck", 3, 2, 48, NU, np.float32)
        assert s.action_low.dtype == np.float32 and np.all(s.action_low == -1) and np.all(s.action_high == 1)
        assert s.max_episode_steps == 250 and s.autoreset_mode == "next_step" and s.options["init_noise"] == 0.01
        kinds = {name: dtype for name, dtype, _ in s.info_fields}
        assert kinds["t"] == np.int64 and kinds["pushed"] == np.dtype(bool) and kinds["r_up"] == np.float64
        assert all(when == _lib.INFO_STEP for _, _, when in s.info_fields)
        b = env.buffers()
        assert set(b) == {
            "obs",
            "final_obs",
            "terminal_obs",
            "reward",
            "terminated",
            "truncated",
            "done",
            "reset",
            "error",
            "warnings",
            "info",
            "reset_info",
        }
        assert all(not v.flags.writeable for v in b.values()) and b["info"].shape == (13, 3)
        assert env.model_path == variant_path("default")
    with VecEnv(1, variant="backlash") as env:
        assert env.model_path == variant_path("backlash")


def test_state_after_reset_is_the_home_keyframe() -> None:
    model = mujoco.MjModel.from_xml_path(str(variant_path("default")))
    home = model.key("home").qpos
    with VecEnv(2, seed=5) as env:
        env.reset()
        qpos = env.get_state(1, int(mujoco.mjtState.mjSTATE_QPOS))
        assert qpos.tobytes() == home.tobytes()
        full = env.get_state(0)
        assert full.size == mujoco.mj_stateSize(model, mujoco.mjtState.mjSTATE_INTEGRATION) and full[0] == 0.0
        with pytest.raises(ValueError, match="env index"):
            env.get_state(2)


# ---------------------------------------------------------------------------------- reset, step


def test_reset_with_int_seed_list_and_mask() -> None:
    with VecEnv(3, seed=0, init_noise=0.02) as env, VecEnv(3, seed=40, init_noise=0.02) as fresh:
        env.reset()
        first = fresh.reset()
        assert np.array_equal(env.reset(seed=40), first)  # int seed s: env i reseeded with s + i
        env.step(np.zeros((3, NU)))
        before = env.buffers()["obs"].copy()
        obs = env.reset(seed=[None, 41, 7], mask=np.array([False, True, False]))
        assert np.array_equal(obs[[0, 2]], before[[0, 2]]) and np.array_equal(obs[1], first[1])
        assert list(env.buffers()["reset"]) == [False, True, False]
        with pytest.raises(ValueError, match="mask"):
            env.reset(mask=[1, 0, 1])
        with pytest.raises(ValueError, match="seeds"):
            env.reset(seed=[1, 2])


def test_float32_actions_equal_float64_and_keep_their_dtype_in_info() -> None:
    actions = np.random.default_rng(3).uniform(-1.2, 1.2, (30, 4, NU)).astype(np.float32)
    with VecEnv(4, seed=2) as a, VecEnv(4, seed=2) as b:
        a.reset()
        b.reset()
        for act in actions:
            a.step_into_buffers(act)
            b.step_into_buffers(act.astype(np.float64))
            assert all(np.array_equal(x, y) for x, y in zip(a.buffers().values(), b.buffers().values()))
        with pytest.raises(TypeError, match="dtype"):
            a.step_into_buffers(np.zeros((4, NU), np.int64))
        bad = np.zeros((4, NU), np.float32)
        bad[1, 3] = np.nan
        with pytest.raises(ValueError, match="env 1, actuator 3"):
            a.step_into_buffers(bad)


def test_next_step_autoreset_resets_on_the_step_after_the_end() -> None:
    opts = dict(episode_len=3, push_window=(0, 3), n_pushes=1)
    with (
        VecEnv(2, seed=1, autoreset_mode="next_step", **opts) as nxt,
        VecEnv(2, seed=1, autoreset_mode="same_step", **opts) as same,
    ):
        nxt.reset()
        same.reset()
        zero = np.zeros((2, NU), np.float32)
        for _ in range(3):
            nxt.step_into_buffers(zero)
            same.step_into_buffers(zero)
        b = nxt.buffers()
        assert b["truncated"].all() and not b["reset"].any() and np.array_equal(b["obs"], b["final_obs"])
        assert same.buffers()["reset"].all()
        first = same.buffers()["obs"].copy()
        nxt.step_into_buffers(zero)
        assert b["reset"].all() and not b["done"].any() and np.all(b["reward"] == 0) and np.array_equal(b["obs"], first)
