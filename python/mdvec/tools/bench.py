"""Side-by-side benchmark: mdvec against the other ways to step many duck-balance envs.

Backends, each built for the same number of envs N = workers x envs-per-worker and the same number
of workers W, and driven with the same uniform random actions in [-1, 1] (float32, pre-generated
per window, outside the timing):

  mdvec         ``mdvec.VecEnv(N, threads=W)``: the C library (``step``, which copies results out)
  processes     ``mdvec.reference.ProcVecEnv(N, workers=W)``: DuckEnvs on W worker processes
  gymnasium     ``gymnasium.vector.AsyncVectorEnv`` (shared memory, spawn) of a gymnasium adapter of
                DuckEnv: one process per env, pinned to W CPUs (``--no-pin`` to leave them free)
  mujoco.batch  MuJoCo 4's own thread pool (``mujoco.batch.Batch``, nthread=W) plus vectorised numpy
                for observations, reward v2, pushes and autoreset: what a MuJoCo 4 user would write
  bare batch    the same Batch doing only the physics: the task's ctrl from the same actions, shoves
                drawn like the task's, ``substeps`` steps: the ceiling for Python-side stacks
  bare C        ``mdvec_bench --mode bare`` (``--c-bench``, ``$MDVEC_BENCH`` or a source checkout's
                ``build*/bench/mdvec_bench``): the same physics per env on the bench's own
                crew of W threads (bench/crew.c), no observation or reward: the physics ceiling (skipped when the
                binary is not built)

Windows alternate A B C D E F A B C ... so that drift of the machine biases every backend alike.
Each window is a fixed number of vector steps per backend, sized once from a warmup to last about
``--window-seconds``. The JSON and the plot (``sidebyside_<date>.*`` in ``--out``, by default
``./mdvec-bench-results``) and the table printed at the end hold
per-window rates, per-cell medians, the ratios of mdvec to each other backend and each backend's
thread efficiency (rate at W / (W x rate at 1), same envs per worker).

Run: ``python -m mdvec bench --workers 1,2 --envs-per-worker 1,8 --window-seconds 2 --rounds 5``.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mujoco
import mujoco.batch
import numpy as np

from ..reference import DuckEnv, ProcVecEnv, TaskConfig, obs_scale
from ..reference.model import inspect, load, resolve_path
from ._args import (
    NUMPY_SEED_MAX,
    ArgumentRefused,
    Parser,
    existing_file,
    int_list,
    positive_float,
    positive_int,
    seed_int,
    writable_folder,
)

try:
    import gymnasium
except ImportError:  # the gymnasium backend is skipped; everything else runs
    gymnasium = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[3]  # the source checkout (bench/, build*/), when run from one
DEFAULT_OUT = Path("mdvec-bench-results")  # relative: under the current directory
C_BENCH_HELP = (
    "set MDVEC_BENCH (or --c-bench) to an mdvec_bench binary, or build one in a source checkout: "
    "meson setup build && ninja -C build bench/mdvec_bench"
)
THREAD_BUDGET = 8  # MDVEC_THREAD_BUDGET: above it mdvec needs allow_overcommit
SPREAD_WARNING = 0.10  # warn when a cell's window rates spread more than this around the median
LOAD_FRACTION = 0.5  # warn when the 1-minute load average exceeds this x cores
DEVICE_SWEEP_WORKERS = (1, 2, 4, 8, 16)
BACKENDS = ("mdvec", "processes", "gymnasium", "mujoco.batch", "bare batch", "bare C")


# --------------------------------------------------------------------------- results
@dataclass
class Window:
    """One timed window of one backend."""

    steps: int  # vector steps
    seconds: float  # wall-clock time
    rate: float  # env-steps per second


@dataclass
class Cell:
    """Every window of one backend on one configuration."""

    backend: str
    workers: int
    envs_per_worker: int
    num_envs: int
    steps_per_window: int = 0
    windows: list[Window] = field(default_factory=list)
    skipped: str | None = None  # why the backend did not run here
    notes: dict[str, Any] = field(default_factory=dict)  # how the backend was built for this config

    @property
    def rates(self) -> list[float]:
        """Return the window rates in time order."""
        return [w.rate for w in self.windows]

    @property
    def median(self) -> float:
        """Return the median window rate (NaN without windows)."""
        return statistics.median(self.rates) if self.windows else math.nan

    @property
    def spread(self) -> float:
        """Return (max - min) / median of the window rates (NaN without windows)."""
        return (max(self.rates) - min(self.rates)) / self.median if self.windows else math.nan

    def to_json(self) -> dict[str, Any]:
        """Return the cell as plain JSON data."""
        return {
            "backend": self.backend,
            "workers": self.workers,
            "envs_per_worker": self.envs_per_worker,
            "num_envs": self.num_envs,
            "steps_per_window": self.steps_per_window,
            "median": _finite_or_none(self.median),
            "spread": _finite_or_none(self.spread),
            "rates": self.rates,
            "windows": [asdict(w) for w in self.windows],
            "skipped": self.skipped,
            "notes": self.notes,
        }


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


# --------------------------------------------------------------------------- backends
class Backend:
    """Something that steps N duck envs with (N, nu) actions; ``run_window`` times a window."""

    name = ""
    notes: dict[str, Any]  # how the backend was built (set by each subclass)

    def reset(self) -> None:
        """Start every env."""

    def step(self, actions: np.ndarray) -> None:
        """Step every env once with (N, nu) float32 actions."""
        raise NotImplementedError

    def close(self) -> None:
        """Free processes, threads and handles."""

    def run_window(self, actions: np.ndarray) -> Window:
        """Step once per row of actions (steps, N, nu); return the window's timing."""
        t0 = time.perf_counter()
        for a in actions:
            self.step(a)
        seconds = time.perf_counter() - t0
        return Window(len(actions), seconds, len(actions) * actions.shape[1] / seconds)

    def calibrate(self, actions: np.ndarray, seconds: float) -> int:
        """Warm up on a few steps, then return how many steps fill ``seconds``."""
        self.step(actions[0])  # untimed: first-call costs
        budget = min(0.5, seconds / 4)
        t0, k = time.perf_counter(), 0
        while k < 2 or time.perf_counter() - t0 < budget:
            self.step(actions[(k + 1) % len(actions)])
            k += 1
        per_step = (time.perf_counter() - t0) / k
        return max(1, round(seconds / per_step))


class VecEnvBackend(Backend):
    """A backend that drives one vector env object (``self.env``) with reset/step/close."""

    env: Any

    def reset(self) -> None:
        self.env.reset()

    def step(self, actions: np.ndarray) -> None:
        self.env.step(actions)

    def close(self) -> None:
        self.env.close()


class MdvecBackend(VecEnvBackend):
    """mdvec.VecEnv on W threads, stepped through ``step`` (results copied out, as the others)."""

    name = "mdvec"

    def __init__(self, num_envs: int, workers: int, seed: int) -> None:
        from ..vecenv import VecEnv, lib

        self.env = VecEnv(num_envs, seed=seed, threads=workers, allow_overcommit=workers > THREAD_BUDGET)
        self.notes = {
            "api": "VecEnv.step (copies obs, reward, done, info out)",
            "threads": self.env.threads,
            "allow_overcommit": workers > THREAD_BUDGET,
            "library_version": lib().mdvec_version(),
        }


class ProcessesBackend(VecEnvBackend):
    """The reference ProcVecEnv: DuckEnvs on W spawned worker processes behind pipes."""

    name = "processes"

    def __init__(self, num_envs: int, workers: int, seed: int) -> None:
        self.env = ProcVecEnv(num_envs, seed=seed, workers=workers)
        self.notes = {"api": "ProcVecEnv.step", "processes": workers, "context": "spawn"}


if gymnasium is not None:

    class DuckGymEnv(gymnasium.Env):
        """A gymnasium.Env around the reference DuckEnv: truncation at episode_len, never terminated."""

        def __init__(self, seed: int = 0) -> None:
            self._env = DuckEnv(seed=seed)
            self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (self._env.obs_dim,), np.float32)
            self.action_space = gymnasium.spaces.Box(-1.0, 1.0, (self._env.nu,), np.float32)

        def reset(
            self, *, seed: int | None = None, options: dict[str, Any] | None = None
        ) -> tuple[np.ndarray, dict[str, Any]]:
            """Start an episode; return the observation and an empty info."""
            return self._env.reset(seed=seed), {}

        def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
            """Step; the episode limit is a truncation."""
            obs, reward, done, info = self._env.step(action)
            return obs, reward, False, done, info


def _gym_env_factory(seed: int) -> Any:
    """Return a picklable constructor of one adapter env (spawned workers import this module)."""
    return functools.partial(DuckGymEnv, seed=seed)


class GymnasiumBackend(VecEnvBackend):
    """gymnasium.vector.AsyncVectorEnv (shared memory, spawn): one process per env.

    Gymnasium has no workers knob, so with more envs than workers its processes are pinned to W
    CPUs (unless ``pin`` is off) to use the same cores as the other backends.
    """

    name = "gymnasium"

    def __init__(self, num_envs: int, workers: int, seed: int, pin: bool) -> None:
        assert gymnasium is not None
        kwargs: dict[str, Any] = {"shared_memory": True, "context": "spawn"}
        mode = getattr(gymnasium.vector, "AutoresetMode", None)
        if mode is not None:
            kwargs["autoreset_mode"] = mode.SAME_STEP
        self.env = gymnasium.vector.AsyncVectorEnv([_gym_env_factory(seed + i) for i in range(num_envs)], **kwargs)
        cpus = _pin(self.env.processes, workers) if pin else None
        self.notes = {
            "api": "AsyncVectorEnv.step",
            "gymnasium_version": gymnasium.__version__,
            "autoreset_mode": "SAME_STEP"
            if mode is not None
            else "default of this gymnasium version (AutoresetMode not available)",
            "shared_memory": True,
            "context": "spawn",
            "processes": num_envs,
            "pinned_cpus": cpus,
        }
        self._seed = seed

    def reset(self) -> None:
        self.env.reset(seed=self._seed)


def _pin(processes: list[Any], workers: int) -> list[int] | None:
    """Pin processes to the first ``workers`` CPUs this process may use; return them (None if not)."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(allowed) <= workers:
        return None  # nothing to restrict
    cpus = allowed[:workers]
    for p in processes:
        os.sched_setaffinity(p.pid, cpus)
    return cpus


class BatchDuck:
    """The duck-balance task on ``mujoco.batch.Batch``: reward v2, pushes and autoreset in numpy.

    Not bit-identical to the reference (one generator draws every env's pushes) but the same work
    per step: substeps of physics, one forward pass, observation, reward, pushes at drawn steps and
    a home-keyframe reset every episode_len steps.
    """

    def __init__(self, num_envs: int, workers: int, seed: int) -> None:
        self.cfg = TaskConfig()
        self.model = load(resolve_path())
        self.info = inspect(self.model)
        self.batch = mujoco.batch.Batch(self.model, nsim=num_envs, nthread=workers)
        b = self.batch
        self.qpos, self.qvel, self.ctrl = b.bind("qpos"), b.bind("qvel"), b.bind("ctrl")
        self.xpos, self.xmat = b.bind("xpos"), b.bind("xmat")
        self.sensordata, self.actuator_force = b.bind("sensordata"), b.bind("actuator_force")
        self.n = num_envs
        self.rng = np.random.default_rng(seed)
        self.scale = obs_scale(self.info.nu)
        self.t = np.zeros(num_envs, np.int64)
        self.prev_action = np.zeros((num_envs, self.info.nu))
        self.push_steps = np.zeros((num_envs, self.cfg.n_pushes), np.int64)
        self.push_vel = np.zeros((num_envs, self.cfg.n_pushes, 2))
        self.obs = np.zeros((num_envs, 6 + 3 * self.info.nu), np.float32)

    def reset(self, ids: np.ndarray | None = None) -> None:
        """Reset envs ids (all when None) to home with fresh push draws; fill their obs rows."""
        ids = np.arange(self.n) if ids is None else ids
        self.batch.reset(ids, keyframe=self.info.home)
        lo, hi = self.cfg.push_window
        k, n_pushes = len(ids), self.cfg.n_pushes
        self.push_steps[ids] = np.sort(self.rng.random((k, hi - lo)).argsort(axis=1)[:, :n_pushes] + lo, axis=1)
        speed = self.rng.uniform(*self.cfg.push_speed, (k, n_pushes))
        theta = self.rng.uniform(0.0, 2 * math.pi, (k, n_pushes))
        self.push_vel[ids] = np.stack([speed * np.cos(theta), speed * np.sin(theta)], axis=-1)
        self.t[ids] = 0
        self.prev_action[ids] = 0.0
        self.obs[ids] = self._observe(ids, np.zeros((k, self.info.nu)))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Step every env; return obs, reward, done, info (with terminal_obs), autoresetting."""
        info, cfg = self.info, self.cfg
        a = np.clip(np.asarray(actions, np.float64), -1.0, 1.0)
        self.ctrl[:] = info.ctrl_home + cfg.action_scale * a
        hit = self.push_steps == self.t[:, None]
        self.qvel[:, info.free_dof : info.free_dof + 2] += (hit[..., None] * self.push_vel).sum(axis=1)
        self.batch.step(nstep=cfg.substeps, stage=mujoco.mjtStage.mjSTAGE_ACC)
        self.t += 1
        all_ids = slice(None)
        obs = self._observe(all_ids, a)
        reward, terms = self._reward(a)
        self.prev_action = a
        done = self.t >= cfg.episode_len
        info_out = {
            "t": self.t.copy(),
            "pushed": hit.any(axis=1),
            **terms,
            "truncated": done,
            "terminated": np.zeros(self.n, bool),
            "terminal_obs": obs.copy(),
        }
        self.obs = obs
        if done.any():
            self.reset(np.flatnonzero(done))
        return self.obs.copy(), reward, done, info_out

    def _observe(self, ids: Any, a: np.ndarray) -> np.ndarray:
        info = self.info
        gyro = self.sensordata[ids, info.gyro_adr : info.gyro_adr + 3]
        gravity = -self.xmat[ids, info.trunk, 6:9]
        q = self.qpos[ids][:, info.qadr] - info.q_home
        qd = self.qvel[ids][:, info.dadr]
        raw = np.concatenate([gyro, gravity, q, qd, a], axis=1)
        return (raw * self.scale).astype(np.float32)

    def _reward(self, a: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        info = self.info
        q = self.qpos[:, info.qadr]
        gyro = self.sensordata[:, info.gyro_adr : info.gyro_adr + 3]
        h = self.xpos[:, info.trunk, 2]
        up = self.xmat[:, info.trunk, 8]
        fallen = h < info.h_home / 3
        r_up = np.maximum(up, 0.0)
        r_height = np.exp(-np.abs(h - info.h_home) / 0.03)
        r_pose = np.exp(-np.mean(np.abs(q - info.q_home), axis=1) / 0.15)
        r_still = np.exp(-np.sum(gyro**2, axis=1) / 4.0)
        r_rate = np.sum((a - self.prev_action) ** 2, axis=1)
        r_effort = np.mean(np.abs(self.actuator_force), axis=1)
        reward = 0.5 * (r_up + r_height + r_pose + r_still) - 0.05 * r_rate - 0.01 * r_effort
        reward[fallen] = 0.0
        terms = {
            "fallen": fallen,
            "trunk_height": h.copy(),
            "upright_cos": up.copy(),
            "r_up": r_up,
            "r_height": r_height,
            "r_pose": r_pose,
            "r_still": r_still,
            "r_rate": r_rate,
            "r_effort": r_effort,
        }
        return reward, terms


class BatchBackend(VecEnvBackend):
    """The task in numpy over ``mujoco.batch.Batch`` (MuJoCo 4's thread pool, nthread=W)."""

    name = "mujoco.batch"

    def __init__(self, num_envs: int, workers: int, seed: int) -> None:
        self.env = BatchDuck(num_envs, workers, seed)
        self.notes = {
            "api": "mujoco.batch.Batch.step(nstep=substeps, stage=mjSTAGE_ACC) + numpy",
            "nthread": self.env.batch.nthread,
            "persistent": False,
            "bit_identical": False,
        }

    def close(self) -> None:
        """Nothing to free: the Batch goes with the object."""


class BareBatchBackend(Backend):
    """Only the physics on ``mujoco.batch.Batch``: the task's ctrl from the same actions, shoves drawn
    like the task's, substeps x mj_step, home resets; no observation, reward or exact draws."""

    name = "bare batch"

    def __init__(self, num_envs: int, workers: int, seed: int) -> None:
        self.cfg = TaskConfig()
        model = load(resolve_path())
        self.info = inspect(model)
        self.batch = mujoco.batch.Batch(model, nsim=num_envs, nthread=workers)
        self.ctrl, self.qvel = self.batch.bind("ctrl"), self.batch.bind("qvel")
        self.rng = np.random.default_rng(seed)
        self.n = num_envs
        self.t = 0
        self.notes = {
            "api": "mujoco.batch.Batch.step(nstep=substeps)",
            "nthread": self.batch.nthread,
            "ctrl": "home ctrl + action_scale * clip(action), as the task",
            "shoves": "n_pushes per episode, same window and speeds, own generator",
        }

    def reset(self) -> None:
        cfg = self.cfg
        self.batch.reset(keyframe=self.info.home)
        self.t = 0
        lo, hi = cfg.push_window
        self.push_steps = self.rng.integers(lo, hi, (self.n, cfg.n_pushes))
        speed = self.rng.uniform(*cfg.push_speed, (self.n, cfg.n_pushes))
        theta = self.rng.uniform(0.0, 2 * math.pi, (self.n, cfg.n_pushes))
        self.push_vel = np.stack([speed * np.cos(theta), speed * np.sin(theta)], axis=-1)

    def step(self, actions: np.ndarray) -> None:
        cfg, info = self.cfg, self.info
        self.ctrl[:] = info.ctrl_home + cfg.action_scale * np.clip(actions, -1.0, 1.0)
        hit = self.push_steps == self.t
        if hit.any():
            self.qvel[:, info.free_dof : info.free_dof + 2] += (hit[..., None] * self.push_vel).sum(axis=1)
        self.batch.step(nstep=cfg.substeps)
        self.t += 1
        if self.t >= cfg.episode_len:
            self.reset()


class CBareBackend(Backend):
    """The C physics ceiling: one ``mdvec_bench --mode bare`` process per window (its own timing)."""

    name = "bare C"  # its own pre-generated uniform actions (same distribution); only their count is used

    def __init__(self, num_envs: int, workers: int, binary: Path) -> None:
        self.binary, self.num_envs, self.workers = binary, num_envs, workers
        self.notes = {
            "api": f"{binary} --mode bare",
            "threads": workers,
            "timing": "the binary's own window timing (process start and model load excluded)",
        }

    def _run(self, window: list[str]) -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "bare.json"
            cmd = [
                str(self.binary),
                "--mode",
                "bare",
                "--threads",
                str(self.workers),
                "--envs",
                str(self.num_envs),
                "--windows",
                "1",
                "--no-reference",
                "--warmup-steps",
                "5",
                "--out",
                str(out),
                *window,
            ]
            if self.workers > THREAD_BUDGET:
                cmd.append("--allow-overcommit")
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0 or not out.is_file():
                raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
            return json.loads(out.read_text())["rows"][0]["windows"][0]

    def run_window(self, actions: np.ndarray) -> Window:
        w = self._run(["--window-steps", str(len(actions))])
        return Window(int(w["steps"]), float(w["seconds"]), float(w["rate"]))

    def calibrate(self, actions: np.ndarray, seconds: float) -> int:
        return int(self._run(["--window-seconds", str(seconds)])["steps"])


# --------------------------------------------------------------------------- machine
def _cpu_model() -> str:
    """Return the CPU model name from /proc/cpuinfo (or platform's guess)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _governor() -> str:
    """Return cpu0's frequency governor, or "unknown"."""
    try:
        return Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").read_text().strip()
    except OSError:
        return "unknown"


def machine_info() -> dict[str, Any]:
    """Return the machine as it is now: cores, load, CPU model, governor, date."""
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cores": os.cpu_count(),
        "cpus_allowed": allowed,
        "loadavg": list(os.getloadavg()),
        "cpu_model": _cpu_model(),
        "governor": _governor(),
        "platform": platform.platform(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def versions() -> dict[str, Any]:
    """Return the versions of everything measured."""
    from .. import __version__

    out: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "mujoco": mujoco.__version__,
        "mdvec": __version__,
        "gymnasium": gymnasium.__version__ if gymnasium is not None else None,
    }
    try:
        from ..vecenv import lib

        out["mdvec_library"] = lib().mdvec_version()
    except (ImportError, OSError) as exc:
        out["mdvec_library"] = f"not loadable: {exc}"
    return out


# --------------------------------------------------------------------------- running
@dataclass(frozen=True)
class Settings:
    """What to run."""

    workers: tuple[int, ...]
    envs_per_worker: tuple[int, ...]
    window_seconds: float
    rounds: int
    seed: int
    backends: tuple[str, ...]
    pin: bool
    c_bench: Path | None


BACKEND_CLASSES: dict[str, type[Backend]] = {
    "mdvec": MdvecBackend,
    "processes": ProcessesBackend,
    "gymnasium": GymnasiumBackend,
    "mujoco.batch": BatchBackend,
    "bare batch": BareBatchBackend,
    "bare C": CBareBackend,
}


def find_c_bench() -> Path | None:
    """Return the mdvec_bench binary to use: $MDVEC_BENCH, else the newest in a source checkout's build folders.

    An installed package (a wheel) has no C benchmark: then None, and the ``bare C`` rows are skipped.
    """
    if os.environ.get("MDVEC_BENCH"):
        return Path(os.environ["MDVEC_BENCH"])
    if not (ROOT / "meson.build").is_file() or not (ROOT / "bench" / "bench_c.c").is_file():
        return None  # not a source checkout: site-packages' parent holds no build folders
    built = [p for p in ROOT.glob("build*/bench/mdvec_bench") if p.is_file() and os.access(p, os.X_OK)]
    return max(built, key=lambda p: p.stat().st_mtime) if built else None


def make_backend(name: str, num_envs: int, workers: int, s: Settings) -> Backend:
    """Construct one backend for N envs and W workers (raises when it cannot run)."""
    if name == "mdvec":
        return MdvecBackend(num_envs, workers, s.seed)
    if name == "processes":
        return ProcessesBackend(num_envs, workers, s.seed)
    if name == "gymnasium":
        if gymnasium is None:
            raise RuntimeError("skipped: gymnasium not installed")
        return GymnasiumBackend(num_envs, workers, s.seed, s.pin)
    if name == "mujoco.batch":
        return BatchBackend(num_envs, workers, s.seed)
    if name == "bare batch":
        return BareBatchBackend(num_envs, workers, s.seed)
    if name == "bare C":
        if s.c_bench is None:
            raise RuntimeError(f"skipped: no mdvec_bench found; {C_BENCH_HELP}")
        if not s.c_bench.is_file():
            raise RuntimeError(f"skipped: {s.c_bench} does not exist; {C_BENCH_HELP}")
        return CBareBackend(num_envs, workers, s.c_bench)
    raise ValueError(f"unknown backend {name!r}; choose from {BACKENDS}")


def _actions(seed: int, config: int, round_: int, steps: int, num_envs: int, nu: int) -> np.ndarray:
    """Return one round's actions, (steps, N, nu) float32 uniform in [-1, 1], the same for every backend."""
    rng = np.random.default_rng([seed, config, round_])
    return rng.uniform(-1.0, 1.0, (steps, num_envs, nu)).astype(np.float32)


def _open_backends(cells: list[Cell], s: Settings) -> dict[str, Backend]:
    """Construct and reset every backend of a config; record why any was skipped."""
    live: dict[str, Backend] = {}
    for cell in cells:
        try:
            backend = make_backend(cell.backend, cell.num_envs, cell.workers, s)
            backend.reset()
            live[cell.backend] = backend
            cell.notes = backend.notes
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run is reported, not fatal
            cell.skipped = str(exc) if str(exc).startswith("skipped") else f"skipped: {type(exc).__name__}: {exc}"
            print(f"  {cell.backend}: {cell.skipped}", flush=True)
    return live


def _drop(live: dict[str, Backend], cell: Cell, why: str, label: str) -> None:
    """Close a backend that failed, record why on its cell and stop running it."""
    cell.skipped = why
    print(f"  [{label}] {cell.backend}: {why}", flush=True)
    live.pop(cell.backend).close()


def run_config(index: int, workers: int, epw: int, s: Settings) -> list[Cell]:
    """Run every backend on one (workers, envs per worker) config in alternating windows."""
    n = workers * epw
    cells = [Cell(name, workers, epw, n) for name in s.backends]
    label = f"W={workers} E/W={epw} N={n}"
    print(f"config {label}", flush=True)
    live = _open_backends(cells, s)
    by_name = {c.backend: c for c in cells}
    nu = DuckEnv().nu
    try:
        probe = _actions(s.seed, index, s.rounds, 8, n, nu)  # the round after the last: warmup only
        for name, backend in list(live.items()):
            try:
                by_name[name].steps_per_window = backend.calibrate(probe, s.window_seconds)
            except Exception as exc:  # noqa: BLE001 - one failing backend must not lose the others' results
                _drop(live, by_name[name], f"failed in warmup: {type(exc).__name__}: {exc}", label)
        longest = max([by_name[k].steps_per_window for k in live] or [1])
        for r in range(s.rounds):
            actions = _actions(s.seed, index, r, longest, n, nu)
            for name, backend in list(live.items()):
                cell = by_name[name]
                try:
                    w = backend.run_window(actions[: cell.steps_per_window])
                except Exception as exc:  # noqa: BLE001 - one failing backend must not lose the others' results
                    _drop(live, cell, f"failed in window {r + 1}: {type(exc).__name__}: {exc}", label)
                    continue
                cell.windows.append(w)
                print(
                    f"  [{label}] {name:13s} window {r + 1}/{s.rounds}: {w.rate:12,.0f} env-steps/s "
                    f"({w.steps} steps, {w.seconds:.2f} s)",
                    flush=True,
                )
    finally:
        for backend in live.values():
            backend.close()
    return cells


# --------------------------------------------------------------------------- summary
def _median_of(cells: list[Cell], backend: str, workers: int, epw: int) -> float:
    for c in cells:
        if (c.backend, c.workers, c.envs_per_worker) == (backend, workers, epw) and c.windows:
            return c.median
    return math.nan


def ratios(cells: list[Cell], s: Settings) -> list[dict[str, Any]]:
    """Return mdvec's median over each other backend's, per config."""
    out = []
    for w in s.workers:
        for e in s.envs_per_worker:
            mine = _median_of(cells, "mdvec", w, e)
            over = {b: _finite_or_none(mine / _median_of(cells, b, w, e)) for b in s.backends if b != "mdvec"}
            out.append({"workers": w, "envs_per_worker": e, "mdvec_over": over})
    return out


def efficiencies(cells: list[Cell], s: Settings) -> list[dict[str, Any]]:
    """Return each backend's thread efficiency: rate at W / (W x rate at 1), same envs per worker."""
    out = []
    for b in s.backends:
        for e in s.envs_per_worker:
            one = _median_of(cells, b, 1, e)
            for w in s.workers:
                eff = _median_of(cells, b, w, e) / (w * one)
                out.append({"backend": b, "workers": w, "envs_per_worker": e, "efficiency": _finite_or_none(eff)})
    return out


def check_warnings(before: dict[str, Any], after: dict[str, Any], cells: list[Cell], s: Settings) -> list[str]:
    """Return what makes these numbers less trustworthy."""
    warnings = []
    cpus = min(before["cores"] or 1, before["cpus_allowed"] or 1)
    for when, m in (("at the start", before), ("at the end", after)):
        if m["loadavg"][0] > LOAD_FRACTION * cpus:
            warnings.append(
                f"load average {m['loadavg'][0]:.2f} {when} is above {LOAD_FRACTION} x {cpus} CPUs: "
                "other work shares the machine"
            )
    warnings += [f"workers {w} exceeds the {cpus} CPUs: workers share CPUs" for w in s.workers if w > cpus]
    if before["governor"] not in ("unknown", "performance"):
        warnings.append(f"CPU frequency governor is {before['governor']!r}, not 'performance'")
    for c in cells:
        if c.windows and c.spread > SPREAD_WARNING:
            warnings.append(
                f"{c.backend} W={c.workers} E/W={c.envs_per_worker}: window rates spread "
                f"{100 * c.spread:.0f}% around the median"
            )
    return warnings


def _fmt(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:,.0f}" if x >= 100 else f"{x:.2f}"


def _print_grid(title: str, columns: list[str], rows: list[tuple[str, list[float | None]]]) -> None:
    """Print one titled table: a config label per row, one value per column."""
    print(f"\n{title}")
    print(f"{'config':>18s} " + " ".join(f"{c:>13s}" for c in columns))
    for label, values in rows:
        print(f"{label:>18s} " + " ".join(f"{_fmt(v):>13s}" for v in values))


def print_table(cells: list[Cell], s: Settings, table_ratios: list[dict[str, Any]]) -> None:
    """Print medians per config and backend, then mdvec's ratios and the thread efficiencies."""
    others = [b for b in s.backends if b != "mdvec"]
    configs = [(w, e) for w in s.workers for e in s.envs_per_worker]
    _print_grid(
        "median env-steps/s (W workers, E envs per worker, N envs)",
        list(s.backends),
        [(f"W={w} E={e} N={w * e}", [_median_of(cells, b, w, e) for b in s.backends]) for w, e in configs],
    )
    if "mdvec" in s.backends and others:
        _print_grid(
            "mdvec / other backend",
            others,
            [
                (f"W={r['workers']} E={r['envs_per_worker']}", [r["mdvec_over"][b] for b in others])
                for r in table_ratios
            ],
        )
    if 1 in s.workers and len(s.workers) > 1:
        eff = {(r["backend"], r["workers"], r["envs_per_worker"]): r["efficiency"] for r in efficiencies(cells, s)}
        _print_grid(
            "thread efficiency: rate at W / (W x rate at 1)",
            list(s.backends),
            [(f"W={w} E={e}", [eff[b, w, e] for b in s.backends]) for w, e in configs],
        )


def plot(cells: list[Cell], s: Settings, table_ratios: list[dict[str, Any]], path: Path) -> str:
    """Draw grouped bars (log scale) per config and backend, mdvec/processes annotated; return a status."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib not installed"
    configs = [(w, e) for w in s.workers for e in s.envs_per_worker]
    medians = {(b, w, e): _median_of(cells, b, w, e) for b in s.backends for w, e in configs}
    finite = [v for v in medians.values() if math.isfinite(v) and v > 0] or [1.0]
    width = 0.8 / len(s.backends)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.4 * len(configs) + 3), 5.0))
    for k, b in enumerate(s.backends):
        xs = [i + (k - (len(s.backends) - 1) / 2) * width for i in range(len(configs))]
        ys = [medians[b, w, e] if math.isfinite(medians[b, w, e]) else 0.0 for w, e in configs]
        ax.bar(xs, ys, width, label=b)
    for i, r in enumerate(table_ratios):
        ratio = r["mdvec_over"].get("processes")
        top = max([v for (b, w, e), v in medians.items() if (w, e) == configs[i] and math.isfinite(v)] or [1.0])
        if ratio is not None:
            ax.annotate(
                f"mdvec/processes\n{ratio:.1f}x",
                (i, top),
                ha="center",
                va="bottom",
                fontsize=8,
                xytext=(0, 4),
                textcoords="offset points",
            )
    ax.set_yscale("log")
    ax.set_ylim(min(finite) / 2, max(finite) * 4)  # headroom for the annotations
    ax.set_xticks(range(len(configs)), [f"W={w}\nE/W={e}" for w, e in configs])
    ax.set_xlabel("W workers (threads or processes), E/W envs per worker")
    ax.set_ylabel("env-steps/s (median of windows)")
    ax.set_title("duck balance: env-steps/s per backend, same envs, workers and actions", fontsize=10)
    ax.legend(fontsize=8, ncol=len(s.backends), loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"wrote {path}"


# --------------------------------------------------------------------------- command line
def default_workers() -> tuple[int, ...]:
    """Return 1, 2 and then 4, 8, 16 up to the number of cores."""
    cores = os.cpu_count() or 1
    return tuple(w for w in DEVICE_SWEEP_WORKERS if w <= max(2, cores))


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line; presets fill what was not given."""
    p = Parser(prog="python -m mdvec bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workers", type=int_list(1), default=None, help="worker counts (default 1,2[,4,8,16 up to cores])")
    p.add_argument("--envs-per-worker", type=int_list(1), default=None, help="envs per worker (default 1,8)")
    p.add_argument("--window-seconds", type=positive_float, default=None, help="target window length (default 2)")
    p.add_argument("--rounds", type=positive_int, default=None, help="windows per backend per config (default 5)")
    p.add_argument("--backends", default=",".join(BACKENDS), help=f"comma-separated subset of {','.join(BACKENDS)}")
    p.add_argument(
        "--seed", type=seed_int(NUMPY_SEED_MAX), default=0, help="seed of the envs and actions (default %(default)s)"
    )
    p.add_argument("--quick", action="store_true", help="tiny settings for tests: W=1, E/W=1, 0.2 s, 2 rounds")
    p.add_argument(
        "--device-sweep",
        action="store_true",
        help=f"preset for a big machine: workers {','.join(map(str, DEVICE_SWEEP_WORKERS))} up to cores, "
        "1 s windows x 3 rounds (explicit flags win)",
    )
    p.add_argument("--no-pin", action="store_true", help="leave gymnasium's per-env processes free to use any CPU")
    p.add_argument(
        "--c-bench",
        type=existing_file,
        default=None,
        help="the mdvec_bench binary for the 'bare C' rows (default: $MDVEC_BENCH, else the newest "
        "build*/bench/mdvec_bench of the source checkout mdvec runs from; none: those rows are skipped)",
    )
    p.add_argument(
        "--out",
        type=writable_folder,
        default=str(DEFAULT_OUT),
        help=f"output folder, created if needed (default ./{DEFAULT_OUT}; the README's runs use bench/results)",
    )
    p.add_argument("--no-plot", action="store_true")
    args = p.parse_args(argv)
    if args.c_bench is not None and not os.access(args.c_bench, os.X_OK):
        p.error(f"argument --c-bench: {args.c_bench} is not executable")
    if args.c_bench is None:
        args.c_bench = find_c_bench()
    quick = {"workers": (1,), "envs_per_worker": (1,), "window_seconds": 0.2, "rounds": 2}
    normal = {"workers": default_workers(), "envs_per_worker": (1, 8), "window_seconds": 2.0, "rounds": 5}
    if args.device_sweep:  # 10 configs x 6 backends: shorter windows keep it to about 4 minutes of windows
        cores = os.cpu_count() or 1
        normal = {
            "workers": tuple(w for w in DEVICE_SWEEP_WORKERS if w <= cores) or (1,),
            "envs_per_worker": (1, 8),
            "window_seconds": 1.0,
            "rounds": 3,
        }
    for key, value in (quick if args.quick else normal).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    names = tuple(b.strip() for b in args.backends.split(",") if b.strip())
    unknown = [b for b in names if b not in BACKENDS]
    if unknown or not names:
        p.error(f"--backends: unknown {unknown}; choose from {','.join(BACKENDS)}")
    args.backends = names
    return args


def estimate_seconds(s: Settings) -> float:
    """Return the time the windows and warmups take (process start-up and model loading not included)."""
    per_backend = s.rounds * s.window_seconds + min(0.5, s.window_seconds / 4)
    return len(s.workers) * len(s.envs_per_worker) * len(s.backends) * per_backend


def main(argv: list[str]) -> int:
    """Run the side-by-side benchmark; write JSON (and PNG) under --out; return 0 on success."""
    try:
        args = parse_args(argv)
    except ArgumentRefused:  # its one line is printed
        return 2
    s = Settings(
        args.workers,
        args.envs_per_worker,
        args.window_seconds,
        args.rounds,
        args.seed,
        args.backends,
        not args.no_pin,
        args.c_bench,
    )
    before = machine_info()
    print(
        f"side-by-side: {before['cores']} cores, load {before['loadavg'][0]:.2f}, {before['cpu_model']}; "
        f"workers {s.workers}, envs per worker {s.envs_per_worker}, {s.window_seconds} s windows x {s.rounds} "
        f"rounds; about {estimate_seconds(s):.0f} s of windows plus process start-up",
        flush=True,
    )
    cells: list[Cell] = []
    configs = [(w, e) for w in s.workers for e in s.envs_per_worker]
    for index, (w, e) in enumerate(configs):
        cells += run_config(index, w, e, s)
    after = machine_info()
    table_ratios = ratios(cells, s)
    skipped = sorted({f"{c.backend}: {c.skipped}" for c in cells if c.skipped})
    args.out.mkdir(parents=True, exist_ok=True)  # checked when parsed: it can be made
    stem = args.out / f"sidebyside_{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
    plot_status = "plot skipped: --no-plot" if args.no_plot else plot(cells, s, table_ratios, stem.with_suffix(".png"))
    report = {
        "tool": "mdvec.bench side-by-side",
        "date": before["date"],
        "machine": before,
        "machine_after": after,
        "versions": versions(),
        "settings": {
            "workers": s.workers,
            "envs_per_worker": s.envs_per_worker,
            "window_seconds": s.window_seconds,
            "rounds": s.rounds,
            "seed": s.seed,
            "quick": args.quick,
            "device_sweep": args.device_sweep,
            "actions": "uniform [-1, 1] float32, pre-generated per window, the same for every backend",
            "order": "alternating windows, one per backend per round",
            "task": asdict(TaskConfig()),
        },
        "backends": {b: (BACKEND_CLASSES[b].__doc__ or "").splitlines()[0] for b in s.backends},
        "skipped": skipped,
        "results": [c.to_json() for c in cells],
        "ratios": table_ratios,
        "efficiency": efficiencies(cells, s),
        "warnings": check_warnings(before, after, cells, s),
        "plot": plot_status,
    }
    print_table(cells, s, table_ratios)
    for w in report["warnings"]:
        print(f"warning: {w}")
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2))
    print(f"wrote {stem.with_suffix('.json')}")
    print(plot_status)
    return 0 if any(c.windows for c in cells if c.backend == "mdvec") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
