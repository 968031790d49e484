"""Domain randomisation on one env's own model copy (docs/duck_task.md section 8)."""

from __future__ import annotations

import mujoco
import numpy as np

from .model import ModelInfo
from .params import DRFactors

# The model fields DR writes; restore copies exactly these back from the prototype.
FIELDS = (
    "actuator_gainprm",
    "actuator_biasprm",
    "actuator_forcerange",
    "dof_damping",
    "dof_armature",
    "dof_frictionloss",
    "body_mass",
    "body_inertia",
    "geom_friction",
)


def snapshot(m: mujoco.MjModel) -> dict[str, np.ndarray]:
    """Copy the fields DR touches, as the prototype to restore from."""
    return {name: getattr(m, name).copy() for name in FIELDS}


def restore(m: mujoco.MjModel, proto: dict[str, np.ndarray]) -> None:
    """Write every DR field back from the prototype, so nothing compounds across episodes."""
    for name, value in proto.items():
        getattr(m, name)[...] = value


def draw(rng: np.random.Generator, fits: np.ndarray, nbody: int) -> tuple[DRFactors, int, float, float]:
    """Draw one episode's factors in the task's order; return (factors, latency, init_noise, noise_scale)."""
    lo, hi = fits.min(axis=0), fits.max(axis=0)
    servo = np.array([rng.uniform(lo[k], hi[k]) for k in range(5)])
    mass_scale = rng.uniform(0.9, 1.1, nbody - 1)
    floor_friction = float(rng.uniform(0.4, 1.0))
    latency = int(rng.integers(0, 3))
    init_noise = float(rng.uniform(0.0, 0.03))
    noise_scale = float(rng.uniform(0.5, 1.5))
    return DRFactors(servo, mass_scale, floor_friction), latency, init_noise, noise_scale


def apply(m: mujoco.MjModel, info: ModelInfo, f: DRFactors) -> None:
    """Write the factors into the model (prototype values must be in place first)."""
    kp, damping, armature, frictionloss, forcerange = (float(v) for v in f.servo)
    m.actuator_gainprm[:, 0] = kp
    m.actuator_biasprm[:, 1] = -kp
    m.actuator_forcerange[:, 0] = -forcerange
    m.actuator_forcerange[:, 1] = forcerange
    m.dof_damping[info.dadr] = damping
    m.dof_armature[info.dadr] = armature
    m.dof_frictionloss[info.dadr] = frictionloss
    m.body_mass[1:] *= f.mass_scale
    m.body_inertia[1:] *= f.mass_scale[:, None]
    m.geom_friction[info.floor, 0] = f.floor_friction
