#!/usr/bin/env python3
"""Sanity checks of the built-in duck models (needs mujoco and numpy).

    python libmdvec/models/check_duck.py [--real PATH_TO_open_duck_mini_v2/scene_flat_terrain.xml]
    python libmdvec/models/check_duck.py --settle   # print make_duck.SETTLED for the description

For each variant: names and order, sizes, limits, total mass (against the real robot when its
files are at hand), h_home (0.15-0.25 m), and the hold-pose policy (ctrl = home ctrl):
- 2500 mj_step calls unperturbed, and 20 runs with +/-0.02 rad joint noise and a 0.2 m/s sideways
  kick at step 500: must stay up (upright cos > 0.9, trunk height > 0.9 h_home);
- falls: kicks of 1.0 and 1.5 m/s in 8 directions at step 500, then 3000 more steps: in at least
  14 of the 16 runs the task's `fallen` rule (trunk height < h_home / 3) must hold at the end, and
  the duck must lie on the floor, not in it (lowest geom point >= -0.01 m);
- push tolerance: one push at step 50, the smallest speed (0.05 m/s grid) that makes the duck fall
  (trunk height < h_home / 3) within 200 env steps of 10 mj_steps, forward, back and sideways;
  it must lie in (0.2, 1.0] m/s, so the task's shoves topple the hold-pose policy only sometimes.
Exits 1 on any failure.
"""

import math
import os
import sys
import time

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
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
VARIANTS = {"duck.xml": 21, "duck_backlash.xml": 31, "duck_backlash_lower.xml": 25}
DEFAULT_REAL = os.path.join(HERE, "..", "..", "..", "shared", "models", "open_duck_mini_v2", "scene_flat_terrain.xml")

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("  FAIL:", what)


def geom_lowest(m, d):
    """Lowest world z of every non-plane geom."""
    low = np.empty(m.ngeom)
    for g in range(m.ngeom):
        R = d.geom_xmat[g].reshape(3, 3)
        z, size, t = d.geom_xpos[g][2], m.geom_size[g], int(m.geom_type[g])
        if t == mujoco.mjtGeom.mjGEOM_PLANE:
            low[g] = np.inf
        elif t == mujoco.mjtGeom.mjGEOM_BOX:
            low[g] = z - np.abs(R[2, :]) @ size
        elif t in (int(mujoco.mjtGeom.mjGEOM_CAPSULE), int(mujoco.mjtGeom.mjGEOM_CYLINDER)):
            low[g] = (
                z
                - abs(R[2, 2]) * size[1]
                - size[0] * (1.0 if t == mujoco.mjtGeom.mjGEOM_CAPSULE else np.sqrt(max(0.0, 1 - R[2, 2] ** 2)))
            )
        elif t == mujoco.mjtGeom.mjGEOM_SPHERE:
            low[g] = z - size[0]
        else:
            raise ValueError("unexpected geom type %d" % t)
    return low


def run(m, trunk, key, rng=None, noise=0.0, kick_step=None, kick=(0.0, 0.0), nstep=2500):
    """Hold pose from the home keyframe; kick = (vx, vy) is added to the trunk velocity at step
    kick_step. Returns the data, h_home and the lowest geom point seen (every 10 steps)."""
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, key)
    mujoco.mj_forward(m, d)
    h0 = d.xpos[trunk, 2]
    if noise:
        for a in range(m.nu):
            j = m.actuator_trnid[a, 0]
            d.qpos[m.jnt_qposadr[j]] += rng.uniform(-noise, noise)
        mujoco.mj_forward(m, d)
    minlow = np.inf
    for i in range(nstep):
        if i == kick_step:
            d.qvel[0] += kick[0]
            d.qvel[1] += kick[1]
        mujoco.mj_step(m, d)
        if i % 10 == 9:
            minlow = min(minlow, geom_lowest(m, d).min())
    return d, h0, minlow


DIRECTIONS = [
    ("forward", 0),
    ("fwd-left", 45),
    ("left", 90),
    ("back-left", 135),
    ("back", 180),
    ("back-right", 225),
    ("right", 270),
    ("fwd-right", 315),
]


def falls(m, trunk, key):
    """Kicks of 1.0 and 1.5 m/s in 8 directions at step 500, 3000 more steps: must lie fallen."""
    print("  falls (kick at step 500, 3000 more steps):")
    print("    %-10s %5s %8s %8s %7s %8s %8s" % ("direction", "m/s", "final h", "h_home/3", "up", "lowest", "impact"))
    n_fallen = 0
    for speed in (1.0, 1.5):
        for name, deg in DIRECTIONS:
            a = math.radians(deg)
            d, h0, minlow = run(
                m, trunk, key, kick_step=500, kick=(speed * math.cos(a), speed * math.sin(a)), nstep=3500
            )
            h, low = d.xpos[trunk, 2], geom_lowest(m, d).min()
            n_fallen += h < h0 / 3
            print(
                "    %-10s %5.1f %8.4f %8.4f %+7.3f %8.4f %8.4f %s"
                % (name, speed, h, h0 / 3, d.xmat[trunk, 8], low, minlow, "fallen" if h < h0 / 3 else "NOT")
            )
            expect(low >= -0.01 and minlow >= -0.02, "fallen duck lies on the floor (%s %.1f)" % (name, speed))
    print("    fallen in %d of 16" % n_fallen)
    expect(n_fallen >= 14, "a hard kick makes it fall (h < h_home/3) in >= 14 of 16 runs")


def push_tolerance(m, trunk, key):
    """Smallest push at step 50 that makes the hold pose fall within 200 env steps."""
    found = {}
    for name, deg in (("forward", 0), ("back", 180), ("side", 90)):
        a = math.radians(deg)
        found[name] = None
        for k in range(2, 41):
            speed = 0.05 * k
            d = mujoco.MjData(m)
            mujoco.mj_resetDataKeyframe(m, d, key)
            mujoco.mj_forward(m, d)
            h0 = d.xpos[trunk, 2]
            mujoco.mj_step(m, d, nstep=50)
            d.qvel[0] += speed * math.cos(a)
            d.qvel[1] += speed * math.sin(a)
            for _ in range(200):
                mujoco.mj_step(m, d, nstep=10)
                if d.xpos[trunk, 2] < h0 / 3:
                    found[name] = speed
                    break
            if found[name] is not None:
                break
    print(
        "  push tolerance (smallest push at step 50 that fells it within 200 env steps): "
        + "  ".join("%s %s" % (n, "%.2f m/s" % v if v else "> 2 m/s") for n, v in found.items())
    )
    for n, v in found.items():
        expect(v is not None and 0.2 < v <= 1.0, "push tolerance %s within (0.2, 1.0] m/s" % n)


def settle(seconds=5.0):
    """Settled home pose per variant, from the nominal pose, printed as make_duck.SETTLED."""
    sys.path.insert(0, HERE)
    import make_duck

    print("SETTLED = {")
    for fname, backlash_for in make_duck.VARIANTS.items():
        m = mujoco.MjModel.from_xml_string(make_duck.model_xml(fname, backlash_for, settled=False))
        d = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d, m.key("home").id)
        mujoco.mj_forward(m, d)
        d.qpos[2] -= geom_lowest(m, d).min()  # soles just touching the floor
        mujoco.mj_forward(m, d)
        mujoco.mj_step(m, d, nstep=round(seconds / m.opt.timestep))
        tail = [round(float(x), 6) + 0.0 for x in d.qpos[2:]]
        print("    %r: [" % fname)
        for i in range(0, len(tail), 8):
            print("        " + ", ".join(repr(x) for x in tail[i : i + 8]) + ",")
        print("    ],")
        print("    # %s: max |qvel| after %g s: %.1e" % (fname, seconds, np.abs(d.qvel).max()))
    print("}")
    return 0


def main(argv):
    if "--settle" in argv:
        return settle()
    real = argv[argv.index("--real") + 1] if "--real" in argv else DEFAULT_REAL
    real_mass = None
    if os.path.exists(real):
        real_mass = mujoco.MjModel.from_xml_path(real).body_mass.sum()
    rng = np.random.default_rng(0)
    for fname, nq in VARIANTS.items():
        print(fname)
        m = mujoco.MjModel.from_xml_path(os.path.join(HERE, fname))
        expect(m.nq == nq and m.nu == 14, "nq %d (want %d), nu %d" % (m.nq, nq, m.nu))
        expect(m.opt.timestep == 0.002, "timestep")
        trunk = 1
        expect(
            m.body_parentid[trunk] == 0
            and m.jnt_type[m.body_jntadr[trunk]] == 0
            and m.jnt_qposadr[m.body_jntadr[trunk]] == 0,
            "trunk owns the free joint at qpos 0",
        )
        for a in range(m.nu):
            j = m.actuator_trnid[a, 0]
            expect(
                mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a) == NAMES[a]
                and mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) == NAMES[a],
                "actuator/joint %d name" % a,
            )
            expect(
                m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE and m.jnt_limited[j],
                "joint %s hinge and limited" % NAMES[a],
            )
        for j in range(m.njnt):
            if mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j).endswith("_backlash"):
                expect(m.jnt_limited[j] and abs(m.jnt_range[j, 1] - np.radians(0.5)) < 1e-9, "backlash range")
        gyro = m.sensor("gyro")
        expect(
            m.sensor_type[gyro.id] == mujoco.mjtSensor.mjSENS_GYRO and m.site_bodyid[m.sensor_objid[gyro.id]] == trunk,
            "gyro on a trunk site",
        )
        key = m.key("home").id
        m.geom("floor")
        mass = m.body_mass.sum()
        if real_mass is not None:
            print("  total mass %.4f kg (real %.4f kg, %+.2f%%)" % (mass, real_mass, 100 * (mass / real_mass - 1)))
            expect(abs(mass / real_mass - 1) < 0.05, "total mass within 5%")
        else:
            print("  total mass %.4f kg (real model not found)" % mass)
        # every body but the world has a geom that meets the floor
        floor = m.geom("floor").id
        for b in range(1, m.nbody):
            gs = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
            ok = any(
                (m.geom_contype[g] & m.geom_conaffinity[floor]) or (m.geom_contype[floor] & m.geom_conaffinity[g])
                for g in gs
            )
            expect(ok, "body %s collides with the floor" % mujoco.mj_id2name(m, 1, b))

        d, h0, _ = run(m, trunk, key, nstep=0)
        print("  h_home %.5f  (fallen below %.5f)" % (h0, h0 / 3))
        expect(0.15 <= h0 <= 0.25, "h_home within 0.15-0.25 m")
        d, h0, _ = run(m, trunk, key)
        print(
            "  hold:        up %.4f  h %.4f  (h/h_home %.3f)"
            % (d.xmat[trunk, 8], d.xpos[trunk, 2], d.xpos[trunk, 2] / h0)
        )
        expect(d.xmat[trunk, 8] > 0.9 and d.xpos[trunk, 2] > 0.9 * h0, "stands under hold")
        worst = (1.0, 1.0)
        for trial in range(20):
            kick = (0.0, 0.2 * (1 if trial % 2 else -1))
            d, h0, _ = run(m, trunk, key, rng, noise=0.02, kick_step=500, kick=kick)
            worst = (min(worst[0], d.xmat[trunk, 8]), min(worst[1], d.xpos[trunk, 2] / h0))
        print("  noise+0.2 kick x20: worst up %.4f  worst h/h_home %.3f" % worst)
        expect(worst[0] > 0.9 and worst[1] > 0.9, "survives a small kick")
        falls(m, trunk, key)
        push_tolerance(m, trunk, key)
        if fname == "duck.xml":
            d = mujoco.MjData(m)
            mujoco.mj_resetDataKeyframe(m, d, key)
            d.ctrl[:] = m.key_ctrl[key]
            mujoco.mj_step(m, d, nstep=100)
            n = 20000
            t = time.perf_counter()
            mujoco.mj_step(m, d, nstep=n)
            dt = time.perf_counter() - t
            print("  mj_step rate (standing, one thread): %.0f steps/s" % (n / dt))
    print("FAILED: " + "; ".join(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
