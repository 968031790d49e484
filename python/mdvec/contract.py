"""The equality contract: the C env and the reference env, same draws, same actions, same bits.

``run_case`` plays episodes of one configuration on both backends and counts, per observation,
reward, flag and info value, how many are bit-identical and how many are merely close (obs within
1e-6 absolute, reward within 1e-9 relative). ``default_cases`` covers every feature of the task.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .reference import DuckEnv
from .reference.vec_common import info_dtypes
from .vecenv import Env, VecEnv

OBS_TOL = 1e-6
REWARD_RTOL = 1e-9
# The real Open Duck Mini v2 (test data beside a checkout, never shipped); $MDVEC_REAL_DUCK overrides.
REAL_DUCK = Path(os.environ.get("MDVEC_REAL_DUCK",
                                Path(__file__).resolve().parents[3] / "shared" / "models" / "open_duck_mini_v2"))


@dataclass
class Case:
    """One configuration to compare, and how."""

    name: str
    cfg: dict[str, Any]  # DuckEnv/Env keywords (variant, model and task options)
    episodes: int = 2
    seed: int = 7
    actions: str = "random"  # "zeros", "random" (uniform in [-1.2, 1.2], so clipping is exercised) or "sine"
    replay: bool = False  # True: the C env replays the reference's drawn params via reset_with_params
    num_envs: int = 1  # > 1: compare VecEnv (autoreset, terminal_obs) with reference envs stepped in a loop
    threads: int = 2


@dataclass
class Result:
    """What one case found; ``identical`` means every compared value was equal bit for bit."""

    name: str
    episodes: int = 0
    steps: int = 0
    observations: int = 0
    obs_identical: int = 0
    obs_within_tol: int = 0
    rewards_identical: int = 0
    rewards_within_tol: int = 0
    flag_mismatches: int = 0
    info_mismatches: int = 0
    max_abs_obs_diff: float = 0.0
    max_reward_rel_diff: float = 0.0
    first_mismatch: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return (self.obs_identical == self.observations and self.rewards_identical == self.steps
                and self.flag_mismatches == 0 and self.info_mismatches == 0)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["identical"] = self.identical
        return out


def _action_batch(kind: str, steps: int, shape: tuple[int, ...], seed: int) -> np.ndarray:
    if kind == "zeros":
        return np.zeros((steps, *shape))
    if kind == "sine":
        t = np.arange(steps)[:, None] * 0.1
        phase = np.linspace(0, math.pi, int(np.prod(shape)))[None, :]
        return (1.1 * np.sin(t + phase)).reshape(steps, *shape)
    return np.random.default_rng(seed + 1000).uniform(-1.2, 1.2, (steps, *shape))


class _Tally:
    """Compares one step's outputs and accumulates the counts into a Result."""

    def __init__(self, result: Result) -> None:
        self.r = result

    def _miss(self, what: str) -> None:
        if not self.r.first_mismatch:
            self.r.first_mismatch = what

    def obs(self, ref: np.ndarray, got: np.ndarray, where: str) -> None:
        self.r.observations += 1
        diff = float(np.max(np.abs(ref.astype(np.float64) - got.astype(np.float64)))) if ref.shape == got.shape else math.inf
        self.r.max_abs_obs_diff = max(self.r.max_abs_obs_diff, diff)
        if ref.shape == got.shape and ref.dtype == got.dtype and ref.tobytes() == got.tobytes():
            self.r.obs_identical += 1
        else:
            self._miss(f"obs at {where} (max abs diff {diff:.3g})")
        if diff <= OBS_TOL:
            self.r.obs_within_tol += 1

    def step(self, ref: tuple, got: tuple, where: str) -> None:
        (r_obs, r_rew, r_done, r_info), (g_obs, g_rew, g_done, g_info) = ref, got
        self.r.steps += 1
        self.obs(r_obs, g_obs, where)
        rel = abs(r_rew - g_rew) / max(abs(r_rew), 1e-300)
        self.r.max_reward_rel_diff = max(self.r.max_reward_rel_diff, rel)
        if np.float64(r_rew).tobytes() == np.float64(g_rew).tobytes():
            self.r.rewards_identical += 1
        else:
            self._miss(f"reward at {where}: {r_rew!r} vs {g_rew!r}")
        if rel <= REWARD_RTOL:
            self.r.rewards_within_tol += 1
        if bool(r_done) != bool(g_done):
            self.r.flag_mismatches += 1
            self._miss(f"done at {where}")
        if set(r_info) != set(g_info):
            self.r.info_mismatches += 1
            self._miss(f"info keys at {where}: {sorted(set(r_info) ^ set(g_info))}")
            return
        for key in r_info:
            a, b = r_info[key], g_info[key]
            if type(a) is not type(b) or np.asarray(a).tobytes() != np.asarray(b).tobytes():
                self.r.info_mismatches += 1
                self._miss(f"info[{key!r}] at {where}: {a!r} vs {b!r}")


def _single(case: Case, result: Result) -> None:
    tally = _Tally(result)
    ref = DuckEnv(seed=case.seed, **case.cfg)
    with Env(seed=case.seed, **case.cfg) as env:
        steps = ref.cfg.episode_len
        for ep in range(case.episodes):
            r_obs = ref.reset()
            g_obs = env.reset_with_params(ref.params) if case.replay else env.reset()
            tally.obs(r_obs, g_obs, f"episode {ep} reset")
            actions = _action_batch(case.actions, steps, (ref.nu,), case.seed + ep)
            for t in range(steps):
                tally.step(ref.step(actions[t]), env.step(actions[t]), f"episode {ep} step {t + 1}")
            result.episodes += 1


def _vector(case: Case, result: Result) -> None:
    """VecEnv against reference envs in a loop with the same autoreset rule (ProcVecEnv's)."""
    tally = _Tally(result)
    refs = [DuckEnv(seed=case.seed + i, **case.cfg) for i in range(case.num_envs)]
    steps = refs[0].cfg.episode_len * case.episodes
    cfg = {k: v for k, v in case.cfg.items()}
    with VecEnv(case.num_envs, seed=case.seed, threads=case.threads, **cfg) as venv:
        r_obs = np.stack([e.reset() for e in refs])
        tally.obs(r_obs, venv.reset(), "reset")
        dtypes = info_dtypes(venv.info_keys)
        actions = _action_batch(case.actions, steps, (case.num_envs, refs[0].nu), case.seed)
        for t in range(steps):
            g_obs, g_rew, g_done, g_info = venv.step(actions[t].astype(np.float32))
            for i, env in enumerate(refs):
                obs, rew, done, info = env.step(actions[t, i].astype(np.float32))
                terminal = obs
                if done:
                    obs = env.reset()
                    result.episodes += 1
                where = f"step {t + 1} env {i}"
                row = {k: dtypes[k](g_info[k][i]) for k in venv.info_keys}
                ref_row = {k: dtypes[k](v) for k, v in info.items()}
                tally.step((obs, rew, done, ref_row), (g_obs[i], g_rew[i], g_done[i], row), where)
                tally.obs(terminal, g_info["terminal_obs"][i], where + " terminal_obs")


def run_case(case: Case) -> Result:
    """Play the case on both backends and return the counts."""
    result = Result(case.name)
    (_vector if case.num_envs > 1 else _single)(case, result)
    return result


def default_cases(quick: bool = False) -> list[Case]:
    """Return the cases of the report: every reward, feature and variant, the real duck if present."""
    ep = 1 if quick else 2
    cases = [
        Case("v2 hold-pose", {"reward": "v2"}, ep, actions="zeros"),
        Case("v1 random", {"reward": "v1"}, ep),
        Case("v2 sine", {}, ep, actions="sine"),
        Case("latency 2", {"latency": 2}, ep),
        Case("init noise 0.02", {"init_noise": 0.02}, ep),
        Case("scale 0.5, 5 pushes", {"action_scale": 0.5, "n_pushes": 5}, ep),
        Case("sensor noise v1", {"sensor_noise": True, "reward": "v1"}, ep),
        Case("backlash", {"variant": "backlash"}, ep),
        Case("backlash_lower v1", {"variant": "backlash_lower", "reward": "v1"}, ep),
        Case("dr v2", {"dr": True}, ep, seed=11),
        Case("dr + sensor noise + init noise v1", {"dr": True, "sensor_noise": True, "reward": "v1"}, ep, seed=12),
        Case("replay: dr + init noise 0.02", {"dr": True, "init_noise": 0.02}, ep, replay=True),
        Case("replay: latency 2, 5 pushes", {"latency": 2, "n_pushes": 5}, ep, replay=True),
        Case("vector 4 envs x 2 threads, autoreset", {"sensor_noise": True, "dr": True}, 1 if quick else 2,
             num_envs=4, threads=2),
    ]
    if REAL_DUCK.is_dir():
        cases += [
            Case("real duck", {"model": str(REAL_DUCK / "scene_flat_terrain.xml")}, ep),
            Case("real duck backlash dr", {"model": str(REAL_DUCK / "scene_flat_terrain_backlash.xml"),
                                           "dr": True}, ep),
        ]
    return cases


def report(cases: list[Case], progress: Any = None) -> dict[str, Any]:
    """Run the cases; return the JSON-ready table with totals."""
    rows = []
    for case in cases:
        result = run_case(case)
        rows.append(result.as_dict())
        if progress:
            progress(result)
    keys = ("episodes", "steps", "observations", "obs_identical", "obs_within_tol", "rewards_identical",
            "rewards_within_tol", "flag_mismatches", "info_mismatches")
    total = {k: sum(r[k] for r in rows) for k in keys}
    total["max_abs_obs_diff"] = max(r["max_abs_obs_diff"] for r in rows)
    total["max_reward_rel_diff"] = max(r["max_reward_rel_diff"] for r in rows)
    total["identical"] = all(r["identical"] for r in rows)
    return {"cases": rows, "total": total}
