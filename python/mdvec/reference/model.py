"""Loading a task model and resolving what the task needs from it (docs/duck_task.md section 1)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from .._resources import variant_path


@dataclass(frozen=True)
class ModelInfo:
    """Indices and constants the task derives once per model."""

    nu: int  # number of actuators (= actuated joints)
    trunk: int  # body id of the root body that owns the free joint
    free_dof: int  # dof address of the trunk's free joint (qvel[free_dof:free_dof+2] get pushes)
    qadr: np.ndarray  # (nu,) qpos address of each actuated joint, actuator order
    dadr: np.ndarray  # (nu,) dof address of each actuated joint
    range_lo: np.ndarray  # (nu,) actuated joint lower limits
    range_hi: np.ndarray  # (nu,) actuated joint upper limits
    gyro_adr: int  # sensordata address of the 3-axis gyro named "gyro"
    home: int  # keyframe id of "home"
    floor: int  # geom id of "floor"
    q_home: np.ndarray  # (nu,) home qpos at the actuated joints
    ctrl_home: np.ndarray  # (nu,) home ctrl
    h_home: float  # trunk height after resetting to home and mj_forward


def resolve_path(variant: str = "default", model: str | Path | None = None) -> Path:
    """Return the MJCF to load: an explicit model path, or a built-in variant."""
    if model is None:
        return variant_path(variant)
    if variant != "default":
        raise ValueError(f"model: give either model={str(model)!r} or variant={variant!r}, not both")
    path = Path(model)
    if not path.is_file():
        raise FileNotFoundError(f"model: no such file {path}")
    return path


def load(path: Path) -> mujoco.MjModel:
    """Load an MJCF file into a fresh MjModel."""
    return mujoco.MjModel.from_xml_path(str(path))


def inspect(m: mujoco.MjModel) -> ModelInfo:
    """Check the model meets docs/duck_task.md section 1 and derive the task's indices and constants."""
    free = [j for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    roots = [j for j in free if m.body_parentid[m.jnt_bodyid[j]] == 0]
    if len(roots) != 1:
        raise ValueError("model: need exactly one root body owning a free joint (the trunk)")
    trunk = int(m.jnt_bodyid[roots[0]])
    if m.nu == 0:
        raise ValueError("model: no actuators")
    joints = []
    for i in range(m.nu):
        j = int(m.actuator_trnid[i, 0])
        if m.actuator_trntype[i] != mujoco.mjtTrn.mjTRN_JOINT or m.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
            raise ValueError(f"model: actuator {i} does not drive a hinge joint")
        if not m.jnt_limited[j]:
            raise ValueError(f"model: actuated joint {j} is not limited")
        joints.append(j)
    gyro = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, "gyro")
    home = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, "home")
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    for name, ident in (("sensor 'gyro'", gyro), ("keyframe 'home'", home), ("geom 'floor'", floor)):
        if ident < 0:
            raise ValueError(f"model: no {name}")
    if m.sensor_type[gyro] != mujoco.mjtSensor.mjSENS_GYRO:
        raise ValueError("model: sensor 'gyro' is not a gyro")
    qadr = m.jnt_qposadr[joints].astype(np.int64)
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, home)
    mujoco.mj_forward(m, d)
    return ModelInfo(
        nu=int(m.nu),
        trunk=trunk,
        free_dof=int(m.jnt_dofadr[roots[0]]),
        qadr=qadr,
        dadr=m.jnt_dofadr[joints].astype(np.int64),
        range_lo=m.jnt_range[joints, 0].copy(),
        range_hi=m.jnt_range[joints, 1].copy(),
        gyro_adr=int(m.sensor_adr[gyro]),
        home=home,
        floor=floor,
        q_home=m.key_qpos[home][qadr].copy(),
        ctrl_home=m.key_ctrl[home].copy(),
        h_home=float(d.xpos[trunk, 2]),
    )
