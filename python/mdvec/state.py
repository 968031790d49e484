"""MuJoCo's state signature bits (``mjtState``), for ``get_state`` / ``set_state`` without the mujoco package.

The numbers are MuJoCo's own (``mujoco/mjtype.h``): an int made of these bits names the parts of an env's
state, as ``mujoco.mj_getState`` / ``mj_setState`` take them (``mujoco.mjtState`` members are accepted as well).
``mjSTATE_PLASTIC`` (and so its part of ``mjSTATE_PHYSICS`` and the other groups) exists from MuJoCo 4.0 on;
:func:`integration` gives the full integration state of the MuJoCo the library runs on, the default of
``get_state`` and ``set_state``. See docs/state.md.
"""

from __future__ import annotations

mjSTATE_TIME = 1 << 0  # time
mjSTATE_QPOS = 1 << 1  # position
mjSTATE_QVEL = 1 << 2  # velocity
mjSTATE_ACT = 1 << 3  # actuator activation
mjSTATE_HISTORY = 1 << 4  # history buffers (control, sensor)
mjSTATE_WARMSTART = 1 << 5  # acceleration used for warmstart
mjSTATE_CTRL = 1 << 6  # control
mjSTATE_QFRC_APPLIED = 1 << 7  # applied generalized force
mjSTATE_XFRC_APPLIED = 1 << 8  # applied Cartesian force/torque
mjSTATE_EQ_ACTIVE = 1 << 9  # enable/disable constraints
mjSTATE_MOCAP_POS = 1 << 10  # positions of mocap bodies
mjSTATE_MOCAP_QUAT = 1 << 11  # orientations of mocap bodies
mjSTATE_USERDATA = 1 << 12  # user data
mjSTATE_PLUGIN = 1 << 13  # plugin state
mjSTATE_PLASTIC = 1 << 14  # plastic state (MuJoCo 4.0)

mjSTATE_PHYSICS = mjSTATE_QPOS | mjSTATE_QVEL | mjSTATE_ACT | mjSTATE_HISTORY | mjSTATE_PLASTIC
mjSTATE_FULLPHYSICS = mjSTATE_TIME | mjSTATE_PHYSICS | mjSTATE_PLUGIN
mjSTATE_USER = (
    mjSTATE_CTRL
    | mjSTATE_QFRC_APPLIED
    | mjSTATE_XFRC_APPLIED
    | mjSTATE_EQ_ACTIVE
    | mjSTATE_MOCAP_POS
    | mjSTATE_MOCAP_QUAT
    | mjSTATE_USERDATA
)
mjSTATE_INTEGRATION = mjSTATE_FULLPHYSICS | mjSTATE_USER | mjSTATE_WARMSTART

_PLASTIC_SINCE = 4_000_000  # mj_version() of MuJoCo 4.0.0, the first with mjSTATE_PLASTIC


def for_mujoco(sig: int, mujoco_version: int) -> int:
    """``sig`` without the bits MuJoCo ``mujoco_version`` (``mj_version()``, e.g. 3017000) lacks: the groups
    above hold mjSTATE_PLASTIC, which MuJoCo before 4.0 does not know (and would refuse)."""
    return sig if mujoco_version >= _PLASTIC_SINCE else sig & ~mjSTATE_PLASTIC


def known_bits(mujoco_version: int) -> int:
    """Every mjtState bit MuJoCo ``mujoco_version`` knows (a sig with others is refused)."""
    return (1 << 15) - 1 if mujoco_version >= _PLASTIC_SINCE else (1 << 14) - 1


def integration(mujoco_version: int | None = None) -> int:
    """mjSTATE_INTEGRATION of the MuJoCo libmdvec runs on (or of ``mujoco_version``): every part of the state
    that ``mj_step`` integrates or reads."""
    if mujoco_version is None:
        from .vecenv import lib

        mujoco_version = int(lib().mdvec_mujoco_version())
    return for_mujoco(mjSTATE_INTEGRATION, mujoco_version)


__all__ = [name for name in dir() if name.startswith("mjSTATE_")] + ["for_mujoco", "integration", "known_bits"]
