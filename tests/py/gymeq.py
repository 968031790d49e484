"""What the Gymnasium v5 equality tests share (test_hopper.py, test_v5_a.py, test_v5_b.py).

Every comparison is of bits, dtype and shape; a run steps N C envs (mdvec.VecEnv(task=ID)) and N
gymnasium.make(ID) envs with the same seeds and actions and compares each env's results.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from mdvec.tools.contract import count_values, explain

STEP, RESET = 1, 2


class Tally:
    """Counts compared values (and adds them to ``totals``, a dict with "values compared" and "identical")."""

    def __init__(self, totals: dict[str, int]) -> None:
        self.totals = totals
        self.compared = 0
        self.identical = 0
        self.diffs: list[str] = []

    def same(self, what: str, got: Any, want: Any) -> None:
        """Compare got (mdvec's) with want (Gymnasium's) as arrays, element by element, dtype and shape
        included (mdvec.tools.contract.count_values, the contract's own tally); note the first differences."""
        n, same = count_values(np.asarray(want), np.asarray(got))
        self.compared += n
        self.identical += same
        self.totals["values compared"] += n
        self.totals["identical"] += same
        if same != n and len(self.diffs) < 20:
            self.diffs.append(f"{what}: {explain(want, got, ('gymnasium', 'mdvec'))}")

    def check(self) -> None:
        assert not self.diffs, "\n".join(self.diffs)
        assert self.compared == self.identical and self.compared > 0


# The Python type of each kind a task declares (Spec.info_kinds, Spec.reward_kind) for a float64 value.
KIND_TYPE = {"float": float, "numpy": np.float64, "int": int, "bool": bool}


@functools.cache
def _declared(task: str) -> tuple[str, dict[str, tuple[Any, str]]]:
    import mdvec

    with mdvec.VecEnv(1, task=task) as venv:
        spec = venv.spec
    return spec.reward_kind, {n: (d, k) for (n, d, _), k in zip(spec.info_fields, spec.info_kinds)}


def declared_type(task: str, name: str | None, action_dtype: Any) -> type:
    """The Python type the C task declares for the reference's info value ``name`` (None: the reward):
    its kind's type, np.float32 for an "action" field of float32 actions."""
    reward_kind, fields = _declared(task)
    if name is None:
        return KIND_TYPE[reward_kind]
    dtype, kind = fields[name]
    if isinstance(dtype, str) and np.dtype(action_dtype) == np.float32:
        return np.float32
    return KIND_TYPE[kind]


def print_report(request: Any, text: str) -> None:
    """Print a module's totals after its last test, visible without -s."""
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():
            print(text)
    else:  # pragma: no cover
        print(text)


def field_value(value: float, dtype: Any, action_dtype: Any) -> np.ndarray:
    """A C info value (float64 buffer) as the numpy scalar Gymnasium returns."""
    dt = np.dtype(action_dtype) if isinstance(dtype, str) else np.dtype(dtype)
    v = np.asarray(value, np.float64)
    if dt == np.float32:
        assert np.asarray(v.astype(np.float32), np.float64).tobytes() == v.tobytes(), (
            f"a float32 info value {value!r} is not stored as an exact widening"
        )
    if dt.kind in "iu":
        assert float(int(value)) == value, f"an integer info value {value!r} is not integral"
    return v.astype(dt)


def random_actions(
    rng: np.random.Generator, n: int, act_dim: int, dtype: Any, scale: float, one: float = 1.0
) -> np.ndarray:
    """Uniform actions in [-scale, scale], with some exact zeros, -0.0 and ``one`` mixed in."""
    a = rng.uniform(-scale, scale, (n, act_dim))
    special = rng.random((n, act_dim))
    a[special < 0.03] = 0.0
    a[(special >= 0.03) & (special < 0.05)] = -0.0
    a[(special >= 0.05) & (special < 0.07)] = one
    return a.astype(dtype)


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


def run_envs(
    t: Tally,
    venv: Any,
    refs: list,
    *,
    compare_reset: Callable,
    compare_step: Callable,
    seed: int,
    steps: int,
    dtypes: tuple,
    scale: float,
    mode: str,
    reseed_every: int,
    rng: np.random.Generator,
    label: str = "",
    one: float = 1.0,
) -> tuple[int, int]:
    """Drive venv (mdvec) and refs (Gymnasium, one per env) with the same seeds and actions; compare all.

    The action dtype cycles through ``dtypes`` step by step; every ``reseed_every`` steps a random
    subset of envs is reset, some with a new seed, some continuing their generator. Return the
    terminations and truncations Gymnasium had.
    """
    num_envs = len(refs)
    spec = venv.spec
    assert spec.obs_dtype == np.float64
    ref_space = refs[0].action_space
    assert ref_space.dtype == np.float32
    t.same("action_low", np.asarray(spec.action_low, np.float32), ref_space.low)
    t.same("action_high", np.asarray(spec.action_high, np.float32), ref_space.high)

    terms = truncs = 0
    venv.reset_envs()
    for i, ref in enumerate(refs):
        compare_reset(t, venv, i, *ref.reset(seed=seed + i), where="first reset")
    pending = np.zeros(num_envs, bool)  # NEXT_STEP: finished last step, reset on this one
    for step in range(steps):
        if reseed_every and step % reseed_every == reseed_every - 1:
            mask = rng.random(num_envs) < 0.5
            mask[rng.integers(num_envs)] = True
            seeds = [
                int(rng.integers(0, 2**64, dtype=np.uint64)) if rng.random() < 0.6 else None for _ in range(num_envs)
            ]
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
        actions = random_actions(rng, num_envs, spec.act_dim, dtype, scale, one)
        venv.step_into_buffers(actions)
        b = venv.buffers()
        for i, ref in enumerate(refs):
            where = f"{label}step {step} ({np.dtype(dtype).name}, {mode})"
            if pending[i]:
                t.same(f"{where} reset flag[{i}]", bool(b["reset"][i]), True)
                t.same(f"{where} reward[{i}] of a reset", np.float64(b["reward"][i]), np.float64(0.0))
                t.same(f"{where} terminated[{i}] of a reset", bool(b["terminated"][i]), False)
                t.same(f"{where} truncated[{i}] of a reset", bool(b["truncated"][i]), False)
                compare_reset(t, venv, i, *ref.reset(), where=where + " autoreset")
                pending[i] = False
                continue
            result = ref.step(actions[i])
            terms += result[2]
            truncs += result[3]
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
    return terms, truncs


def run_vector_envs(
    t: Tally, ours: Any, ref: Any, rng: np.random.Generator, *, seed: int, steps: int, mask_every: int
) -> int:
    """Step two Gymnasium vector envs (mdvec's and Gymnasium's) alike and compare every result with
    same_tree; every ``mask_every`` steps reset a random subset (reset_mask, some seeded). Return the
    number of episode ends."""
    n = ours.num_envs
    assert ours.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"]
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.single_action_space == ref.single_action_space
    same_tree(t, "reset", ours.reset(seed=seed), ref.reset(seed=seed))
    ends = 0
    for step in range(steps):
        if step % mask_every == mask_every - 1:
            mask = rng.random(n) < 0.5
            mask[0] = True
            seeds = [int(rng.integers(2**32)) if rng.random() < 0.5 else None for _ in range(n)]
            same_tree(
                t,
                f"reset mask step {step}",
                ours.reset(seed=seeds, options={"reset_mask": mask}),
                ref.reset(seed=seeds, options={"reset_mask": mask}),
            )
        dtype = (np.float32, np.float64)[step % 2]
        actions = random_actions(rng, n, ref.single_action_space.shape[0], dtype, 1.5)
        got, want = ours.step(actions), ref.step(actions)
        for name, g, w in zip(("obs", "reward", "terminated", "truncated", "info"), got, want):
            same_tree(t, f"step {step} {name}", g, w)
        ends += int(np.sum(want[2] | want[3]))
    return ends


def run_single_env(
    t: Tally, ours: Any, ref: Any, rng: np.random.Generator, *, steps: int, act_dim: int, gaps: list[str] | None = None
) -> None:
    """Step two single Gymnasium envs alike (seed 7, resets after each episode end) and compare every
    result with same_tree. With ``gaps``, a reward of another type than Gymnasium's but of the same
    value is noted there and compared as Gymnasium's type."""
    assert ours.observation_space == ref.observation_space and ours.action_space == ref.action_space
    same_tree(t, "reset", ours.reset(seed=7), ref.reset(seed=7))
    for step in range(steps):
        a = random_actions(rng, 1, act_dim, (np.float32, np.float64)[step % 2], 1.0)[0]
        got, want = ours.step(a), ref.step(a)
        if gaps is not None and type(got[1]) is not type(want[1]):
            gaps.append(f"{type(got[1]).__name__} for {type(want[1]).__name__}")
            assert float(got[1]) == want[1], (got[1], want[1])
            got = (got[0], type(want[1])(got[1]), *got[2:])
        for name, g, w in zip(("obs", "reward", "terminated", "truncated", "info"), got, want):
            same_tree(t, f"step {step} {name}", g, w)
        if want[2] or want[3]:
            same_tree(t, f"reset after step {step}", ours.reset(), ref.reset())
