"""The reference of the ``cartpole_swingup`` task (libmdvec/src/tasks/cartpole_swingup.c), numpy + mujoco only.

One env with Gymnasium's API: ``reset(seed=None) -> (obs, info)`` and ``step(action) -> (obs, reward,
terminated, truncated, info)``. The C task gives the same bits (tests/py/test_cartpole_swingup.py), env
``i`` of a ``mdvec.VecEnv(task="cartpole_swingup", seed=s)`` being this class reset with seed ``s + i``.
"""

from __future__ import annotations

import math
from typing import Any

import mujoco
import numpy as np

# The model: the same text as the C file's cartpole_xml (the test compares the two).
XML = (
    "<mujoco model='cartpole_swingup'>"
    "  <option timestep='0.01'/>"
    "  <worldbody>"
    "    <body name='cart'>"
    "      <joint name='slider' type='slide' axis='1 0 0' damping='0.1'/>"
    "      <geom type='box' size='0.2 0.1 0.05' mass='1'/>"
    "      <body name='pole'>"
    "        <joint name='hinge' type='hinge' axis='0 1 0' damping='0.01'/>"
    "        <geom type='capsule' fromto='0 0 0 0 0 0.6' size='0.04' mass='0.1'/>"
    "      </body>"
    "    </body>"
    "  </worldbody>"
    "  <actuator><motor joint='slider' gear='10' ctrlrange='-1 1'/></actuator>"
    "</mujoco>"
)
FRAME_SKIP = 2


class CartPoleSwingup:
    """A cart on a rail with a pole on a hinge (qpos = x, theta; theta 0 upright), one motor on the cart."""

    obs_dim = 5
    gymnasium_api = True  # reset(seed) -> (obs, info), step -> 5 values: how mdvec.gym wraps this reference

    def __init__(
        self,
        max_episode_steps: int = 500,
        reset_noise_scale: float = 0.05,
        ctrl_cost_weight: float = 0.01,
        cart_limit: float = 2.0,
    ) -> None:
        self.max_episode_steps = int(max_episode_steps)
        self.reset_noise_scale = float(reset_noise_scale)
        self.ctrl_cost_weight = float(ctrl_cost_weight)
        self.cart_limit = float(cart_limit)
        self.model = mujoco.MjModel.from_xml_string(XML)
        self.data = mujoco.MjData(self.model)
        self.dt = self.model.opt.timestep * FRAME_SKIP  # seconds per step (render_fps = round(1 / dt))
        self.init_qpos = self.data.qpos.copy()
        self.init_qvel = self.data.qvel.copy()
        self.act_low = self.model.actuator_ctrlrange[:, 0].astype(np.float32)
        self.act_high = self.model.actuator_ctrlrange[:, 1].astype(np.float32)
        self.np_random = np.random.Generator(np.random.PCG64(0))
        self.elapsed = 0

    def _obs(self) -> np.ndarray:
        x, theta = float(self.data.qpos[0]), float(self.data.qpos[1])
        return np.array([x, math.cos(theta), math.sin(theta), self.data.qvel[0], self.data.qvel[1]], np.float64)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: the pole hangs down, qpos and qvel get uniform noise."""
        if seed is not None:
            self.np_random = np.random.Generator(np.random.PCG64(seed))
        self.elapsed = 0
        mujoco.mj_resetData(self.model, self.data)
        s = self.reset_noise_scale
        qpos = self.init_qpos + self.np_random.uniform(-s, s, size=self.model.nq)
        qpos[1] += math.pi
        qvel = self.init_qvel + self.np_random.uniform(-s, s, size=self.model.nv)
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        mujoco.mj_forward(self.model, self.data)
        return self._obs(), {"x_position": float(self.data.qpos[0])}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the action for FRAME_SKIP MuJoCo steps; reward cos(theta) - ctrl_cost_weight * sum(a**2)."""
        a = np.asarray(action, dtype=np.float64)
        self.data.ctrl[:] = a
        for _ in range(FRAME_SKIP):
            mujoco.mj_step(self.model, self.data)
        mujoco.mj_rnePostConstraint(self.model, self.data)
        obs = self._obs()
        upright = math.cos(float(self.data.qpos[1]))
        ctrl_cost = self.ctrl_cost_weight * float(np.sum(np.square(a)))
        terminated = bool(not np.isfinite(obs).all() or abs(float(self.data.qpos[0])) > self.cart_limit)
        self.elapsed += 1
        truncated = self.max_episode_steps > 0 and self.elapsed >= self.max_episode_steps
        info = {"x_position": float(self.data.qpos[0]), "reward_upright": upright, "reward_ctrl": -ctrl_cost}
        return obs, upright - ctrl_cost, terminated, truncated, info
