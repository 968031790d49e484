"""The built-in duck meets docs/duck_task.md section 1: names, sizes, mass, collisions, it stands and it falls."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from mdvec.reference import DuckEnv
from mdvec.reference.model import inspect, load, resolve_path

NAMES = [
    "left_hip_yaw",
    "left_hip_roll",
    "left_hip_pitch",
    "left_knee",
    "left_ankle",
    "neck_pitch",
    "head_pitch",
    "head_yaw",
    "head_roll",
    "right_hip_yaw",
    "right_hip_roll",
    "right_hip_pitch",
    "right_knee",
    "right_ankle",
]


@pytest.mark.parametrize("variant,nq", [("default", 21), ("backlash", 31), ("backlash_lower", 25)])
def test_variant_structure(variant: str, nq: int) -> None:
    m = load(resolve_path(variant))
    info = inspect(m)
    assert m.nq == nq and m.nu == 14 and m.opt.timestep == 0.002
    assert [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, i) for i in range(m.nu)] == NAMES
    joints = [int(m.actuator_trnid[i, 0]) for i in range(m.nu)]
    assert [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in joints] == NAMES
    assert info.trunk == 1 and info.free_dof == 0


def test_backlash_indices_are_strided() -> None:
    """A passive hinge after each leg joint shifts the actuated addresses; they are not contiguous."""
    plain, backlash = inspect(load(resolve_path("default"))), inspect(load(resolve_path("backlash")))
    assert list(plain.qadr) == list(range(7, 21))
    assert np.any(np.diff(backlash.qadr) == 2)
    m = load(resolve_path("backlash"))
    actuated = set(int(m.actuator_trnid[i, 0]) for i in range(m.nu))
    passive = [j for j in range(1, m.njnt) if j not in actuated]
    assert len(passive) == 10
    assert all(abs(m.jnt_range[j, 1] - np.deg2rad(0.5)) < 1e-9 for j in passive)


def test_mass_close_to_real_robot(real_duck) -> None:
    real = mujoco.MjModel.from_xml_path(str(real_duck / "scene_flat_terrain.xml"))
    ours = load(resolve_path("default"))
    assert abs(ours.body_mass.sum() / real.body_mass.sum() - 1) < 0.05


def test_every_link_collides_with_floor() -> None:
    m = load(resolve_path("default"))
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    for body in range(1, m.nbody):
        geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == body]
        assert any(
            (m.geom_contype[g] & m.geom_conaffinity[floor]) or (m.geom_conaffinity[g] & m.geom_contype[floor])
            for g in geoms
        ), f"body {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, body)} never touches the floor"


@pytest.mark.parametrize("variant", ["default", "backlash", "backlash_lower"])
def test_stands_under_hold_pose(variant: str) -> None:
    env = DuckEnv(variant=variant, n_pushes=0)
    env.reset()
    for _ in range(250):
        _, _, done, info = env.step(np.zeros(14))
        assert not info["fallen"]
    assert done and info["upright_cos"] > 0.9 and info["trunk_height"] > 0.9 * env.info.h_home


def test_a_hard_shove_topples_it_onto_the_floor() -> None:
    env = DuckEnv(n_pushes=1, push_speed=(2.0, 2.0), push_window=(10, 11))
    env.reset()
    for _ in range(250):
        _, _, _, info = env.step(np.zeros(14))
    assert info["fallen"] and info["upright_cos"] < 0.5
    d = env.data
    assert d.ncon > 0 and d.contact.dist[: d.ncon].min() > -0.01  # it lies on the floor, not in it
    assert env.info.h_home / 3 > d.xpos[env.info.trunk, 2] > 0.0
