"""The task configuration (docs/duck_task.md section 2) and its validation."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields
from typing import Any

REWARDS = ("v1", "v2")


@dataclass(frozen=True)
class TaskConfig:
    """Every tunable of the duck-balance task; defaults are the task's."""

    substeps: int = 10  # mj_step calls per env step (50 Hz control at timestep 0.002)
    episode_len: int = 250  # steps per episode; every episode ends on this limit
    action_scale: float = 0.3  # rad of servo target per unit action
    n_pushes: int = 3  # shoves per episode
    push_window: tuple[int, int] = (25, 225)  # steps a shove may land on, [lo, hi)
    push_speed: tuple[float, float] = (0.3, 0.9)  # shove speed range, m/s (calibrated: python -m mdvec calibrate)
    init_noise: float = 0.0  # half-width of uniform noise on actuated qpos/qvel at reset
    latency: int = 0  # steps of action delay
    sensor_noise: bool = False  # Gaussian observation noise
    reward: str = "v2"  # reward version, "v1" or "v2"
    dr: bool = False  # domain randomisation

    def __post_init__(self) -> None:
        """Refuse bad values with a message naming the field."""
        for name in ("substeps", "episode_len"):
            value = getattr(self, name)
            if not _is_int(value) or value <= 0:
                raise ValueError(f"{name}: must be a positive integer, got {value!r}")
        if not _is_int(self.n_pushes) or self.n_pushes < 0:
            raise ValueError(f"n_pushes: must be a non-negative integer, got {self.n_pushes!r}")
        if not _is_int(self.latency) or self.latency < 0:
            raise ValueError(f"latency: must be a non-negative integer, got {self.latency!r}")
        if not _finite(self.action_scale) or self.action_scale <= 0:
            raise ValueError(f"action_scale: must be a positive finite number, got {self.action_scale!r}")
        if not _finite(self.init_noise) or self.init_noise < 0:
            raise ValueError(f"init_noise: must be a non-negative finite number, got {self.init_noise!r}")
        lo, hi = _pair("push_window", self.push_window, _is_int)
        if lo < 0 or hi > self.episode_len or hi - lo < self.n_pushes:
            raise ValueError(
                f"push_window: [{lo}, {hi}) must lie inside [0, episode_len={self.episode_len}] "
                f"and hold n_pushes={self.n_pushes} distinct steps"
            )
        vmin, vmax = _pair("push_speed", self.push_speed, _finite)
        if vmin < 0 or vmax < vmin:
            raise ValueError(f"push_speed: need 0 <= min <= max, got {self.push_speed!r}")
        if self.reward not in REWARDS:
            raise ValueError(f"reward: unknown reward {self.reward!r}; choose one of {REWARDS}")
        for name in ("sensor_noise", "dr"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: must be True or False, got {getattr(self, name)!r}")

    @classmethod
    def from_kwargs(cls, **cfg: Any) -> TaskConfig:
        """Build a config from keyword arguments, naming any unknown keyword."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(cfg) - known)
        if unknown:
            raise TypeError(f"unknown task option(s) {unknown}; known options are {sorted(known)}")
        for name in ("push_window", "push_speed"):
            if name in cfg and not isinstance(cfg[name], tuple):
                try:
                    cfg[name] = tuple(cfg[name])
                except TypeError:
                    raise ValueError(f"{name}: must be a pair, got {cfg[name]!r}") from None
        return cls(**cfg)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _pair(name: str, value: Any, check: Any) -> tuple[Any, Any]:
    if not isinstance(value, tuple) or len(value) != 2 or not all(check(v) for v in value):
        raise ValueError(
            f"{name}: must be a pair of {'integers' if check is _is_int else 'finite numbers'}, got {value!r}"
        )
    return value
