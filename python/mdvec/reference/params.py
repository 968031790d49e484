"""Episode parameters: everything one reset draws (docs/duck_task.md section 7)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SERVO_FIELDS = ("kp", "damping", "armature", "frictionloss", "forcerange")


@dataclass
class DRFactors:
    """The model factors one domain-randomised reset drew (docs/duck_task.md section 8, draws 1-3)."""

    servo: np.ndarray  # (5,) kp, damping, armature, frictionloss, forcerange
    mass_scale: np.ndarray  # (nbody-1,) factor on mass and inertia of bodies 1..nbody-1
    floor_friction: float  # sliding friction of the floor geom


@dataclass
class EpisodeParams:
    """What a reset drew, enough to replay the episode on either backend."""

    init_noise: float  # noise half-width used; qpos/qvel are applied only when > 0
    qpos: np.ndarray  # (nu,) actuated qpos after noise
    qvel: np.ndarray  # (nu,) actuated qvel after noise
    push_steps: np.ndarray  # (n_pushes,) int64, sorted steps a shove lands on
    push_vel: np.ndarray  # (n_pushes, 2) (vx, vy) per shove, m/s
    latency: int  # steps of action delay this episode
    noise_scale: float  # sensor-noise scale k this episode (1.0 without DR)
    dr: DRFactors | None  # model factors, None without DR

    def validate(self, nu: int, nbody: int, episode_len: int) -> None:
        """Raise ValueError naming the first field that is malformed."""
        arrays = {
            "qpos": (self.qpos, (nu,)),
            "qvel": (self.qvel, (nu,)),
            "push_vel": (self.push_vel, (len(self.push_steps), 2)),
        }
        if self.dr is not None:
            arrays["dr.servo"] = (self.dr.servo, (5,))
            arrays["dr.mass_scale"] = (self.dr.mass_scale, (nbody - 1,))
        for name, (value, shape) in arrays.items():
            value = np.asarray(value)
            if value.shape != shape:
                raise ValueError(f"params.{name}: expected shape {shape}, got {value.shape}")
            if not np.all(np.isfinite(value)):
                raise ValueError(f"params.{name}: values must be finite")
        steps = np.asarray(self.push_steps)
        if steps.ndim != 1 or (steps.size and (steps.min() < 0 or steps.max() >= episode_len)):
            raise ValueError(f"params.push_steps: steps must lie in [0, {episode_len})")
        scalars = {"init_noise": self.init_noise, "noise_scale": self.noise_scale}
        if self.dr is not None:
            scalars["dr.floor_friction"] = self.dr.floor_friction
        for name, scalar in scalars.items():
            if not np.isfinite(scalar) or scalar < 0:
                raise ValueError(f"params.{name}: must be finite and >= 0, got {scalar!r}")
        if int(self.latency) != self.latency or self.latency < 0:
            raise ValueError(f"params.latency: must be a non-negative integer, got {self.latency!r}")
