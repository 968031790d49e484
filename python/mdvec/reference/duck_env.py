"""The duck-balance task on one environment: the executable definition (docs/duck_task.md sections 3-8)."""

from __future__ import annotations

import math
from collections import deque
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from .. import _resources
from . import dr
from .config import TaskConfig
from .model import inspect, load, resolve_path
from .params import EpisodeParams


def obs_scale(nu: int) -> np.ndarray:
    """Return the observation scale table (float32, length 6 + 3*nu)."""
    return np.concatenate([np.full(3, 0.25), np.ones(3), np.ones(nu), np.full(nu, 0.05), np.ones(nu)]).astype(
        np.float32
    )


def noise_std(nu: int) -> np.ndarray:
    """Return the sensor-noise standard deviations (float64, length 6 + 2*nu)."""
    return np.concatenate([np.full(3, 0.1), np.full(3, 0.05), np.full(nu, 0.01), np.full(nu, 0.5)])


def info_keys(reward: str) -> tuple[str, ...]:
    """Return the info keys of one step, in order, for a reward version."""
    terms = (
        ("r_up", "r_height", "r_pose", "r_rate")
        if reward == "v1"
        else ("r_up", "r_height", "r_pose", "r_still", "r_rate", "r_effort")
    )
    return ("t", "pushed", "fallen", "trunk_height", "upright_cos", "truncated", "terminated") + terms


class DuckEnv:
    """One Microduck balance environment on its own MuJoCo model and data.

    ``reset()`` returns the first observation; ``step(action)`` returns
    ``(obs, reward, done, info)``. Episodes last ``episode_len`` steps and never terminate early.
    """

    def __init__(self, seed: int = 0, variant: str = "default", model: str | Path | None = None, **cfg: Any) -> None:
        self.cfg = TaskConfig.from_kwargs(**cfg)
        self.model_path = resolve_path(variant, model)
        self.model = load(self.model_path)
        self.data = mujoco.MjData(self.model)
        self.info = inspect(self.model)
        nu = self.info.nu
        self.nu = nu
        self.obs_dim = 6 + 3 * nu
        self._scale = obs_scale(nu)
        self._std = noise_std(nu)
        self._proto = dr.snapshot(self.model)
        self._fits = _resources.servo_fits() if self.cfg.dr else None
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self.params: EpisodeParams | None = None  # what the last reset drew
        self._t = 0

    # ----------------------------------------------------------------- reset
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start a new episode from the env's generator (reseeded when seed is given)."""
        if seed is not None:
            self._rng = np.random.Generator(np.random.PCG64(seed))
        return self.reset_with_params(self.draw_params())

    def draw_params(self) -> EpisodeParams:
        """Draw one episode's parameters from the env's generator, in the task's order."""
        rng, cfg, info = self._rng, self.cfg, self.info
        factors, latency, init_noise, noise_scale = None, cfg.latency, cfg.init_noise, 1.0
        if cfg.dr:
            assert self._fits is not None  # loaded with cfg.dr
            factors, latency, init_noise, noise_scale = dr.draw(rng, self._fits, self.model.nbody)
        qpos, qvel = info.q_home.copy(), np.zeros(info.nu)
        if init_noise > 0:
            qn = rng.uniform(-init_noise, init_noise, info.nu)
            vn = rng.uniform(-init_noise, init_noise, info.nu)
            qpos = np.clip(qpos + qn, info.range_lo, info.range_hi)
            qvel = vn
        lo, hi = cfg.push_window
        steps = np.sort(rng.choice(np.arange(lo, hi), size=cfg.n_pushes, replace=False))
        speed = rng.uniform(cfg.push_speed[0], cfg.push_speed[1], cfg.n_pushes)
        theta = rng.uniform(0.0, 2 * math.pi, cfg.n_pushes)
        vel = np.array([[s * math.cos(th), s * math.sin(th)] for s, th in zip(speed.tolist(), theta.tolist())])
        return EpisodeParams(
            init_noise=init_noise,
            qpos=qpos,
            qvel=qvel,
            push_steps=steps.astype(np.int64),
            push_vel=vel.reshape(cfg.n_pushes, 2),
            latency=latency,
            noise_scale=noise_scale,
            dr=factors,
        )

    def reset_with_params(self, params: EpisodeParams) -> np.ndarray:
        """Start a new episode with the given parameters instead of drawing them."""
        m, d, info = self.model, self.data, self.info
        params.validate(info.nu, m.nbody, self.cfg.episode_len)
        if self.cfg.dr:
            if params.dr is None:
                raise ValueError("params.dr: this env randomises its model; factors are required")
            dr.restore(m, self._proto)
            dr.apply(m, info, params.dr)
        mujoco.mj_resetDataKeyframe(m, d, info.home)
        mujoco.mj_forward(m, d)
        if params.init_noise > 0:
            d.qpos[info.qadr] = params.qpos
            d.qvel[info.dadr] = params.qvel
            mujoco.mj_forward(m, d)
        self.params = params
        self._t = 0
        self._prev_action = np.zeros(info.nu)
        self._queue = deque([np.zeros(info.nu)] * params.latency)
        return self._observe(np.zeros(info.nu))

    # ------------------------------------------------------------------ step
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, dict[str, Any]]:
        """Apply one action (nu values in [-1, 1]; clipped) for ``substeps`` physics steps."""
        if self.params is None:
            raise RuntimeError("step: call reset() before step()")
        a = np.asarray(action, np.float64)
        if a.shape != (self.nu,):
            raise ValueError(f"action: expected shape ({self.nu},), got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError("action: values must be finite (got NaN or inf)")
        a = np.clip(a, -1.0, 1.0)
        m, d, info, cfg = self.model, self.data, self.info, self.cfg
        self._queue.append(a)
        applied = self._queue.popleft()
        d.ctrl[:] = info.ctrl_home + cfg.action_scale * applied
        pushed = False
        for k in np.flatnonzero(self.params.push_steps == self._t):
            d.qvel[info.free_dof] += self.params.push_vel[k, 0]
            d.qvel[info.free_dof + 1] += self.params.push_vel[k, 1]
            pushed = True
        for _ in range(cfg.substeps):
            mujoco.mj_step(m, d)
        mujoco.mj_forward(m, d)
        self._t += 1
        obs = self._observe(a)
        reward, terms = self._reward(a)
        self._prev_action = a
        truncated = self._t >= cfg.episode_len
        step_info = {
            "t": self._t,
            "pushed": pushed,
            "fallen": terms.pop("fallen"),
            "trunk_height": terms.pop("h"),
            "upright_cos": terms.pop("up"),
            "truncated": truncated,
            "terminated": False,
            **terms,
        }
        return obs, reward, truncated, step_info

    def _observe(self, a: np.ndarray) -> np.ndarray:
        d, info, nu = self.data, self.info, self.nu
        raw = np.empty(self.obs_dim)
        raw[0:3] = d.sensordata[info.gyro_adr : info.gyro_adr + 3]
        raw[3:6] = -d.xmat[info.trunk].reshape(3, 3)[2, :]
        raw[6 : 6 + nu] = d.qpos[info.qadr] - info.q_home
        raw[6 + nu : 6 + 2 * nu] = d.qvel[info.dadr]
        raw[6 + 2 * nu :] = a
        if self.cfg.sensor_noise:
            assert self.params is not None  # set by every reset
            raw[: 6 + 2 * nu] += self.params.noise_scale * self._std * self._rng.standard_normal(6 + 2 * nu)
        return (raw * self._scale).astype(np.float32)

    def _reward(self, a: np.ndarray) -> tuple[float, dict[str, Any]]:
        d, info = self.data, self.info
        q = d.qpos[info.qadr]
        gyro = d.sensordata[info.gyro_adr : info.gyro_adr + 3]
        h = float(d.xpos[info.trunk, 2])
        up = float(d.xmat[info.trunk, 8])
        fallen = h < info.h_home / 3
        h_home, q_home, a_prev = info.h_home, info.q_home, self._prev_action
        if self.cfg.reward == "v1":
            r_up = up
            r_height = math.exp(-(((h - h_home) / 0.03) ** 2))
            r_pose = math.exp(-float(np.mean((q - q_home) ** 2)) / 0.1)
            r_rate = float(np.sum((a - a_prev) ** 2))
            reward = 0.5 * r_up + 0.75 * r_height + 0.75 * r_pose - 0.05 * r_rate
            terms = {"r_up": r_up, "r_height": r_height, "r_pose": r_pose, "r_rate": r_rate}
        else:
            r_up = max(up, 0.0)
            r_height = math.exp(-abs(h - h_home) / 0.03)
            r_pose = math.exp(-float(np.mean(np.abs(q - q_home))) / 0.15)
            r_still = math.exp(-float(np.sum(gyro**2)) / 4.0)
            r_rate = float(np.sum((a - a_prev) ** 2))
            r_effort = float(np.mean(np.abs(d.actuator_force)))
            reward = 0.5 * (r_up + r_height + r_pose + r_still) - 0.05 * r_rate - 0.01 * r_effort
            if fallen:
                reward = 0.0
            terms = {
                "r_up": r_up,
                "r_height": r_height,
                "r_pose": r_pose,
                "r_still": r_still,
                "r_rate": r_rate,
                "r_effort": r_effort,
            }
        return reward, {"fallen": fallen, "h": h, "up": up, **terms}
