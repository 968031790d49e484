"""A training-style loop written against the reference's process vector env, nothing else.

It imports ``ProcVecEnv`` the way a training script imports its vector env. To run it on mdvec, swap
that one name (``train_linear.ProcVecEnv = mdvec.VecEnv``, or ``from mdvec import VecEnv as
ProcVecEnv`` in your own script): the loop itself is not edited, and with the same seeds it computes
the same numbers, bit for bit (tests/py/test_binding.py checks this).

Run: ``python examples/python/train_linear.py [--mdvec]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from mdvec.reference import ProcVecEnv


def train(iterations: int = 3, num_envs: int = 4, seed: int = 21) -> tuple[float, np.ndarray]:
    """Improve a linear tanh policy with a crude advantage-weighted update; return (return sum, weights)."""
    env = ProcVecEnv(num_envs, seed=seed, dr=True, sensor_noise=True)
    weights = np.zeros((env.obs_dim, env.nu))
    total = 0.0
    obs = env.reset()
    for _ in range(iterations):
        batch_obs, batch_rew = [], []
        for _ in range(100):
            action = np.tanh(obs @ weights).astype(np.float32)
            obs, reward, _done, info = env.step(action)
            batch_obs.append(info["terminal_obs"])
            batch_rew.append(reward)
        advantage = np.array(batch_rew) - np.mean(batch_rew)
        weights += 1e-3 * np.einsum("tno,tn->o", np.array(batch_obs), advantage)[:, None]
        total += float(np.sum(batch_rew))
    env.close()
    return total, weights


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mdvec", action="store_true", help="swap in mdvec.VecEnv")
    if parser.parse_args().mdvec:
        import mdvec

        ProcVecEnv = mdvec.VecEnv  # the one-line swap
    print(f"summed reward over 3 x 100 steps x 4 envs: {train()[0]:.6f}")
