"""The "Python processes" vector environment: DuckEnvs on worker processes behind pipes."""

from __future__ import annotations

import itertools
import multiprocessing as mp
import numbers
import os
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np

from .duck_env import DuckEnv, info_keys
from .vec_common import check_actions, info_dtypes, same_count


def _worker(conn: Connection, seeds: list[int], env_kwargs: dict[str, Any]) -> None:
    """Serve one block of envs: reset, step with autoreset, close."""
    envs = [DuckEnv(seed=s, **env_kwargs) for s in seeds]
    while True:
        cmd, payload = conn.recv()
        if cmd == "reset":
            conn.send(np.stack([env.reset() for env in envs]))
        elif cmd == "step":
            rows = []
            for env, action in zip(envs, payload):
                obs, reward, done, info = env.step(action)
                terminal = obs
                if done:
                    obs = env.reset()
                rows.append((obs, reward, done, info, terminal))
            conn.send(rows)
        elif cmd == "close":
            conn.close()
            return


class ProcVecEnv:
    """N duck envs on worker processes; env i is seeded ``seed + i``.

    ``step`` pickles each worker's actions out and the results back every step, as a vector
    environment built on ``multiprocessing`` does. Finished envs reset themselves (autoreset).
    ``threads`` is accepted as another name for ``workers`` and ``allow_overcommit`` is accepted and
    ignored, so that code written for ``mdvec.VecEnv`` runs here unchanged (docs/duck_task.md section 6).
    """

    num_envs: int
    nu: int
    obs_dim: int
    info_keys: tuple[str, ...]
    closed: bool

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        workers: int | None = None,
        *,
        threads: int | None = None,
        allow_overcommit: bool = False,
        **cfg: Any,
    ) -> None:
        if not isinstance(num_envs, numbers.Integral) or isinstance(num_envs, bool) or num_envs <= 0:
            raise ValueError(f"num_envs: must be a positive integer, got {num_envs!r}")
        workers = same_count("workers", workers, "threads", threads)
        workers = min(workers or os.cpu_count() or 1, num_envs)
        if workers <= 0:
            raise ValueError(f"workers: must be a positive integer, got {workers!r}")
        probe = DuckEnv(seed=seed, **cfg)  # validates cfg in this process, before any worker starts
        self.num_envs, self.nu, self.obs_dim = num_envs, probe.nu, probe.obs_dim
        self.info_keys = info_keys(probe.cfg.reward)
        self._dtypes: dict[str, type] = info_dtypes(self.info_keys)
        bounds = np.linspace(0, num_envs, workers + 1).astype(int)
        self._blocks: list[tuple[int, int]] = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        ctx = mp.get_context("spawn")
        self._conns: list[Connection] = []
        self._procs: list[BaseProcess] = []
        for lo, hi in self._blocks:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, [int(seed) + i for i in range(lo, hi)], cfg), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        self.closed = False

    def reset(self) -> np.ndarray:
        """Reset every env; return obs (N, obs_dim) float32."""
        self._check_open()
        for conn in self._conns:
            conn.send(("reset", None))
        return np.concatenate([conn.recv() for conn in self._conns])

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Step every env; return obs (N, obs_dim), reward (N,), done (N,), info dict of (N,) arrays."""
        self._check_open()
        actions = check_actions(actions, self.num_envs, self.nu)
        for conn, (lo, hi) in zip(self._conns, self._blocks):
            conn.send(("step", actions[lo:hi]))
        rows = [row for conn in self._conns for row in conn.recv()]
        obs = np.stack([r[0] for r in rows])
        reward = np.array([r[1] for r in rows], dtype=np.float64)
        done = np.array([r[2] for r in rows], dtype=bool)
        info: dict[str, np.ndarray] = {
            k: np.array([r[3][k] for r in rows], dtype=self._dtypes[k]) for k in self.info_keys
        }
        info["terminal_obs"] = np.stack([r[4] for r in rows])
        return obs, reward, done, info

    def close(self) -> None:
        """Stop the workers; further calls raise."""
        if self.closed:
            return
        self.closed = True
        for conn in self._conns:
            try:
                conn.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("ProcVecEnv is closed")

    def __enter__(self) -> ProcVecEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - __del__ must not raise (interpreter shutdown)
            pass
