"""Train a PPO policy (Stable-Baselines3) on any task of libmdvec's catalogue, on mdvec's C envs or SB3's SubprocVecEnv.

``python -m mdvec train --backend mdvec --envs 16 --threads 2 --steps 2000000 --seed 1 --out runs/duck1``
``python -m mdvec train --env Hopper-v5 --backend mdvec --envs 8 --steps 1000000 --out runs/hopper1``

``--env`` (or ``--task``): ``duck`` (the default) or any other task of the catalogue (``mdvec.task_names()``): a
task's name or the Gymnasium id it declares, as ``mdvec.make`` takes them (``Hopper-v5``, ``mdvec/Hopper-v5``,
``cartpole_swingup``, ``mdvec/DuckBalance-v0``, ``cheetah-run``, Shimmy's ``dm_control/cheetah-run-v0``).

dm_control's Control Suite tasks (``--task cheetah-run``, ``walker-walk``, ...) are trained on their flat
observation: each env built with ``flat_observation=True`` (one float64 vector in dm_control's
flatten_observation order, the same values as Shimmy's Dict observation) and SB3's ``MlpPolicy``. (Shimmy's Dict
would need ``MultiInputPolicy``, which fails on the tasks with a scalar entry, such as walker's "height".) The
policy then takes that flat vector in evaluate and render too. Their episodes end by dm_control's time limit
(``-o time_limit=SECONDS``, default the task's: 1000 steps mostly) and, where the task says so, by termination.

Two backends run the very same PPO:

* ``mdvec``: ``mdvec.sb3.make_vec_env`` (the C envs on worker threads, one process);
* ``processes``: what a user would pick without mdvec, SB3's ``SubprocVecEnv`` (one process per env;
  ``--threads`` does not apply) over the task's reference: Gymnasium's own env for a task whose
  reference is a Gymnasium id, ``gymnasium.make("Hopper-v5", **options)``; else the Python reference,
  ``gymnasium.make(ID, backend="reference", seed=seed + i, **options)`` (ID: the task's declared id,
  ``mdvec/DuckBalance-v0``, ``mdvec/cartpole_swingup``).

Env i is seeded with ``seed + i``; PPO (torch, numpy, the action space) with ``seed``. (Gymnasium's
envs take no constructor seed: SB3 seeds them, PPO's ``env.seed(seed)`` makes the first ``reset``
reseed env i with ``seed + i``; the C envs take the same seeds at the same reset.) With the same
command and seed the two backends end with bit-identical policy parameters (the final line prints
their SHA-256; each update's row in curve.json holds the SHA-256 of its rollout buffer).

Writes into ``--out``: ``run.json`` (the configuration, versions), ``policy.zip`` (SB3's own format,
``PPO.load`` reads it), ``curve.json`` / ``curve.csv`` / ``curve.png`` (one row per PPO update),
``summary.json`` and ``checkpoints/step_<env steps>.zip``; with ``--tensorboard DIR`` also SB3's
TensorBoard logs in ``DIR/<--out's name>_<k>``. ``--resume`` continues the newest checkpoint of ``--out``
up to ``--steps`` (give a larger ``--steps`` to train on); on the mdvec backend it continues bit for bit (a
``step_<env steps>.state`` beside each checkpoint holds the envs' snapshot and the generators; see its help).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import functools
import hashlib
import json
import math
import os
import platform
import signal
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._paths import writable_dir
from .._resources import VARIANTS
from ..reference.config import TaskConfig
from ..vector import is_suite_task
from . import _resume
from ._args import (
    NUMPY_SEED_MAX,
    ArgumentRefused,
    Parser,
    add_task_option,
    finite_float,
    int_list,
    positive_int,
    seed_int,
    writable_folder,
)

BACKENDS = ("mdvec", "processes")
DUCK = "duck"

RESUME_HELP = (
    "continue the newest checkpoint in --out up to --steps. With --backend mdvec it continues exactly: a checkpoint "
    "is taken between PPO updates and holds, beside SB3's zip (the nets, Adam's state, the step and update counts, "
    "the last observations), a .state file with every env's snapshot (physics, random generators, step counts, "
    "pending resets), the torch, numpy and random generators and the curve's episode sums, so the resumed run ends "
    "with the same parameters, bit for bit, as the run that was not stopped (a Ctrl-C checkpoint is the last "
    "update's: the rollout it cut is collected again). With --backend processes (SB3's SubprocVecEnv, which cannot "
    "hand over its envs' states) or a checkpoint without a .state it is reproducible but not exact: every env "
    "starts a new episode, env i seeded with seed + T + i (T: the checkpoint's env steps), and torch, numpy and "
    "random are seeded with seed + T."
)

TORCH_THREADS_HELP = (
    "torch threads (default 1). The policy is tiny (48-128-128-14): a forward pass or a minibatch step is "
    "microseconds of math, and with more threads torch spends its time waking and syncing them, fighting "
    "the env workers for the cores. Measured on this project's 2-core machine under load (16 envs, "
    "n_steps 256): per PPO update the gradient step took 0.6-1.0 s with 1 thread and 10-23 s with 2, the "
    "rollout's policy calls 0.3-0.6 s and 13-33 s. The parameters also depend on the thread count (torch "
    "splits sums differently), so compare runs made with the same value."
)


class TrainError(RuntimeError):
    """A run cannot start: a clash with files in --out, no checkpoint to resume, a missing backend."""


@dataclass
class TrainConfig:
    """One training run: backend, sizes, PPO hyperparameters and task options."""

    backend: str = "mdvec"
    envs: int = 16
    threads: int | None = None  # mdvec worker threads (None: the library's default)
    steps: int = 2_000_000  # total env steps (rounded up to whole PPO updates of n_steps x envs)
    seed: int = 0
    out: str = "runs/duck"
    # PPO (SB3 names)
    n_steps: int = 256
    batch_size: int = 1024
    n_epochs: int = 10
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net: tuple[int, ...] = (128, 128)  # hidden layers of both the policy and the value net
    log_std_init: float = -1.0  # initial action std exp(-1) = 0.37 of the [-1, 1] action range
    # task
    env: str = DUCK  # a task name of the catalogue ("duck", "Hopper-v5", "cartpole_swingup"); see resolve_env
    variant: str = "default"  # duck only
    task: dict[str, Any] = field(default_factory=dict)  # duck: TaskConfig options; else the task's options
    # run
    checkpoint_every: int = 25  # PPO updates between checkpoints
    torch_threads: int = 1
    print_every: float = 5.0  # seconds between progress lines
    tensorboard: str | None = None  # folder of SB3's TensorBoard logs (None: none); needs mdvec[tensorboard]

    # fields a resumed run may change; all others must match the run being resumed
    RESUMABLE = (
        "backend",
        "threads",
        "steps",
        "out",
        "checkpoint_every",
        "torch_threads",
        "print_every",
        "tensorboard",
    )

    def ppo_kwargs(self) -> dict[str, Any]:
        """Return PPO's constructor arguments (besides policy, env, seed and device)."""
        net = list(self.net)
        return dict(
            n_steps=self.n_steps,
            batch_size=self.batch_size,
            n_epochs=self.n_epochs,
            learning_rate=self.learning_rate,
            gamma=self.gamma,
            gae_lambda=self.gae_lambda,
            clip_range=self.clip_range,
            ent_coef=self.ent_coef,
            vf_coef=self.vf_coef,
            max_grad_norm=self.max_grad_norm,
            policy_kwargs=dict(net_arch=dict(pi=net, vf=list(net)), log_std_init=self.log_std_init),
        )

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["net"] = list(self.net)
        d["task"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.task.items()}
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TrainConfig:
        d = dict(d)
        d["net"] = tuple(d["net"])
        d["task"] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.get("task", {}).items()}
        return cls(**{f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d})


# ------------------------------------------------------------------ task options
def task_option_help() -> str:
    """Return one line per duck task option: name, type and default (and a line on the other tasks)."""
    lines = ["  the duck's (defaults shown):"]
    for f in dataclasses.fields(TaskConfig):
        default = f.default
        shown = ",".join(str(v) for v in default) if isinstance(default, tuple) else str(default)
        lines.append(f"    {f.name}={shown}")
    lines.append(
        "  a Gymnasium task's (--env Hopper-v5): gymnasium.make's keywords, e.g. -o max_episode_steps=200 "
        "-o healthy_reward=0.5"
    )
    lines.append(
        "  any other task's (--env cartpole_swingup): its options, mdvec.task_options(TASK), e.g. -o cart_limit=1.5"
    )
    lines.append(
        "  a Control Suite task's (--env cheetah-run): time_limit (seconds), control_timestep, n_sub_steps, "
        "legacy_step, max_episode_steps (fully_observable: manipulator), e.g. -o time_limit=5"
    )
    lines.append(
        "  an option that takes an index or a name (Ant-v5's main_body): digits are an index (-o main_body=1), "
        "other text or quoted text a name (-o main_body=torso, -o \"main_body='3'\" for a body named 3)"
    )
    return "\n".join(lines)


def resolve_env(name: str) -> str:
    """Return the task a ``--env`` value names, a name of ``mdvec.task_names()`` (``"duck"``, ``"Hopper-v5"``).

    Accepts what ``mdvec.make`` accepts (the one resolver, ``mdvec.vector.task_name``): a task's name or the
    Gymnasium id it declares (``duck``, ``mdvec/DuckBalance-v0``, ``Hopper-v5``, ``mdvec/Hopper-v5``,
    ``cartpole_swingup``); raises ValueError suggesting close names and listing the tasks otherwise.
    """
    from ..vector import task_name

    try:
        return task_name(name)
    except ValueError as exc:
        raise ValueError(f"--env: {str(exc).removeprefix('task: ')}") from None


def _option_kinds(env: str) -> dict[str, Any]:
    """A sample value per option of task ``env`` other than the duck (its type is the option's), as the
    library declares them (a Gymnasium task's are gymnasium.make's keywords)."""
    from ..gym_tasks import option_types
    from ..vecenv import task_meta

    sample = {"int": 0, "float": 0.0, "bool": False, "str": "", "range": (0.0, 0.0), "irange": (0, 0), "choice": ""}
    kinds: dict[str, Any] = {name: sample[t] for name, t in option_types(env).items()}
    index_options = task_meta(env, "index_options")
    kinds.update({n: None for n in index_options.split(",")} if index_options else {})  # an int index or a name
    return kinds


def check_task_options(env: str, options: dict[str, Any]) -> None:
    """Raise ValueError naming a bad option of task ``env`` other than the duck (unknown name, bad value, a
    Gymnasium task's missing xml_file): a Gymnasium task's are resolved as gymnasium.make takes them, any
    other task's are checked by the library (one env made with them)."""
    from ..gym_tasks import GYM_TASKS, resolve_options
    from ..vecenv import MdvecError, VecEnv

    kinds = _option_kinds(env)
    unknown = sorted(set(options) - set(kinds))
    if unknown:
        raise ValueError(f"task option {unknown[0]!r}: unknown for {env}; known options are {sorted(kinds)}")
    try:
        if env in GYM_TASKS:
            resolve_options(env, dict(options))
        else:
            VecEnv(1, task=env, **options).close()
    except (TypeError, ValueError, OSError, ImportError, MdvecError) as exc:
        raise ValueError(f"task options of {env}: {exc}") from None


def parse_task_options(items: list[str] | None, env: str = DUCK) -> dict[str, Any]:
    """Parse ``NAME=VALUE`` strings into the options of ``env`` (types from the defaults).

    The duck's are TaskConfig keyword options; a Gymnasium task's are the keywords ``gymnasium.make``
    takes (``max_episode_steps=200``, ``healthy_reward=0.5``, ``xml_file=...``); any other task's are its
    options as the library declares them (``mdvec.task_options(env)``). Pairs are written
    ``lo,hi``; booleans ``true``/``false`` (or 1/0, yes/no). The result is checked (the duck's by building
    a TaskConfig), so a bad name or value raises ValueError naming it.
    """
    if env != DUCK:
        kinds = _option_kinds(env)
        got: dict[str, Any] = {}
        for item in items or []:
            name, sep, text = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep:
                raise ValueError(f"task option {item!r}: write NAME=VALUE")
            if name not in kinds:
                raise ValueError(f"task option {name!r}: unknown for {env}; known options are {sorted(kinds)}")
            text = text.strip()
            if kinds[name] is None:  # an index (digits) or a name; a quoted name stays a name ('3': body "3")
                quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "'\""
                got[name] = text[1:-1] if quoted else int(text) if text.lstrip("-").isdigit() else text
            else:
                got[name] = _parse_value(name, text, kinds[name])
        check_task_options(env, got)
        return got
    defaults = {f.name: f.default for f in dataclasses.fields(TaskConfig)}
    out: dict[str, Any] = {}
    for item in items or []:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep:
            raise ValueError(f"task option {item!r}: write NAME=VALUE")
        if name not in defaults:
            raise ValueError(f"task option {name!r}: unknown; known options are {sorted(defaults)}")
        out[name] = _parse_value(name, text.strip(), defaults[name])
    try:
        TaskConfig.from_kwargs(**out)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"task options: {exc}") from None
    return out


def _parse_value(name: str, text: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            low = text.lower()
            if low in ("true", "1", "yes", "on"):
                return True
            if low in ("false", "0", "no", "off"):
                return False
            raise ValueError(text)
        if isinstance(default, tuple):
            parts = [p.strip() for p in text.split(",")]
            if len(parts) != len(default):
                raise ValueError(text)
            return tuple(type(d)(p) for d, p in zip(default, parts))
        return type(default)(text)
    except ValueError:
        kind = (
            "true/false"
            if isinstance(default, bool)
            else "lo,hi"
            if isinstance(default, tuple)
            else type(default).__name__
        )
        raise ValueError(f"task option {name}: cannot read {text!r} as {kind}") from None


# ------------------------------------------------------------------ environments
def _reference_env_fn(seed: int, task: dict[str, Any], env: str = DUCK) -> Any:
    """Build one reference env of task ``env`` as a user would, with its options ``task``: Gymnasium's own env
    for a task whose reference is a Gymnasium id, ``gymnasium.make("Hopper-v5", **task)`` (no mdvec code in
    it; ``seed`` unused), else ``gymnasium.make(ID, backend="reference", seed=seed, **task)`` with the id the
    task declares (``mdvec/DuckBalance-v0``, ``mdvec/cartpole_swingup``).

    Module level, so SubprocVecEnv pickles it by reference; each worker process registers the ids by
    importing mdvec.gym. ``reset()`` without a seed continues the env's own generator, ``reset(seed=s)``
    reseeds it: the VecEnv's ``seed(s)`` (PPO calls it) makes the next ``reset`` reseed env i with ``s + i``
    (the one way to seed Gymnasium's envs, which take no constructor seed).
    """
    import gymnasium

    from ..vecenv import is_gymnasium_id, task_meta

    reference = task_meta(env, "reference")
    if reference is not None and is_gymnasium_id(reference):
        return gymnasium.make(reference, **task)
    from ..adapters import gym  # noqa: F401 - registers the ids

    env_id = task_meta(env, "id")
    if env_id is None:
        raise ValueError(f"task {env!r} declares no id: it has no reference backend")
    return gymnasium.make(env_id, backend="reference", seed=seed, **task)


def make_env(
    backend: str,
    num_envs: int,
    seed: int,
    threads: int | None = None,
    variant: str = "default",
    task: dict[str, Any] | None = None,
    env: str = DUCK,
) -> Any:
    """Return an SB3 VecEnv of ``num_envs`` envs of task ``env`` (the duck by default), env i seeded
    ``seed + i``, on the given backend (Gymnasium's own envs of ``processes``: at the reset after ``seed()``,
    as SB3 does)."""
    options = dict(task or {})
    if variant != "default":
        if env != DUCK:
            raise ValueError(f"--variant: only the duck has model variants, not {env}")
        options["variant"] = variant
    if is_suite_task(env):  # MlpPolicy on the flat observation (dm_control's flatten_observation order)
        options["flat_observation"] = True
    if backend == "mdvec":
        try:
            from ..adapters.sb3 import make_vec_env
        except ImportError as exc:
            raise TrainError(f"train: backend mdvec needs mdvec.sb3 and libmdvec ({exc})") from None
        return make_vec_env(num_envs, seed=seed, threads=threads, task=env, **options)
    if backend == "processes":
        from stable_baselines3.common.vec_env import SubprocVecEnv

        return SubprocVecEnv([functools.partial(_reference_env_fn, seed + i, options, env) for i in range(num_envs)])
    raise ValueError(f"backend: unknown backend {backend!r}; choose one of {BACKENDS}")


# ------------------------------------------------------------------ timing and digests
class Timers:
    """Seconds spent per phase of one PPO update (filled by the wrappers and the callback)."""

    def __init__(self) -> None:
        self.env = 0.0
        self.forward = 0.0
        self.in_rollout = False

    def reset(self) -> None:
        self.env = self.forward = 0.0


def _timed_vec_env(venv: Any, timers: Timers) -> Any:
    """Wrap a VecEnv so that the seconds spent in step_async + step_wait add to ``timers.env``."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class TimedVecEnv(VecEnvWrapper):
        def reset(self) -> Any:
            return self.venv.reset()

        def step_async(self, actions: np.ndarray) -> None:
            t = time.perf_counter()
            self.venv.step_async(actions)
            timers.env += time.perf_counter() - t

        def step_wait(self) -> Any:
            t = time.perf_counter()
            result = self.venv.step_wait()
            timers.env += time.perf_counter() - t
            return result

    return TimedVecEnv(venv)


def _time_policy(policy: Any, timers: Timers) -> None:
    """Count the rollout's policy calls (forward, value bootstrap) into ``timers.forward``."""
    for name in ("forward", "predict_values"):
        fn = getattr(policy, name)

        def timed(*args: Any, _fn: Callable[..., Any] = fn, **kwargs: Any) -> Any:
            if not timers.in_rollout:
                return _fn(*args, **kwargs)
            t = time.perf_counter()
            try:
                return _fn(*args, **kwargs)
            finally:
                timers.forward += time.perf_counter() - t

        setattr(policy, name, timed)


def params_sha256(policy: Any) -> str:
    """Return the SHA-256 of a policy's parameters and buffers (names, dtypes, shapes and bytes)."""
    h = hashlib.sha256()
    for name, tensor in policy.state_dict().items():
        arr = tensor.detach().cpu().contiguous().numpy()
        h.update(f"{name}:{arr.dtype}:{arr.shape};".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


ROLLOUT_FIELDS = (
    "observations",
    "actions",
    "rewards",
    "episode_starts",
    "values",
    "log_probs",
    "advantages",
    "returns",
)


def rollout_sha256(buffer: Any, fields: tuple[str, ...] = ROLLOUT_FIELDS) -> str:
    """Return the SHA-256 of a RolloutBuffer's arrays (what the update learns from)."""
    h = hashlib.sha256()
    for name in fields:
        arr = np.ascontiguousarray(getattr(buffer, name))
        h.update(f"{name}:{arr.dtype}:{arr.shape};".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


# ------------------------------------------------------------------ the run
# the curve's per-update values also written to TensorBoard (--tensorboard), as rollout/<key>
TENSORBOARD_KEYS = ("ep_return_mean", "ep_return_avg100", "ep_len_mean", "survival", "rollout_steps_per_s")
TRAIN_KEYS = (
    "approx_kl",
    "clip_fraction",
    "entropy_loss",
    "explained_variance",
    "loss",
    "policy_gradient_loss",
    "value_loss",
    "std",
)


def _fmt_time(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class Run:
    """Output files of one training run: the curve, checkpoints, plot and summary."""

    def __init__(self, cfg: TrainConfig, quiet: bool = False, files: bool = True) -> None:
        self.cfg = cfg
        self.files = files
        self.plot_ok = True
        self.dir = Path(cfg.out)
        self.rows: list[dict[str, Any]] = []
        self.quiet = quiet

    @property
    def ckpt_dir(self) -> Path:
        return self.dir / "checkpoints"

    def checkpoint_path(self, timesteps: int) -> Path:
        return self.ckpt_dir / f"step_{timesteps:012d}.zip"

    def latest_checkpoint(self, warn: bool = True) -> Path | None:
        """The newest checkpoint that is a whole SB3 zip; newer damaged ones (a save cut short before
        saves were atomic, a full disk) are skipped, each with a warning on stderr."""
        for path in sorted(self.ckpt_dir.glob("step_*.zip"), reverse=True):
            why = checkpoint_damage(path)
            if not why:
                return path
            if warn:
                print(f"train: skipping damaged checkpoint {path.name}: {why}", file=sys.stderr)
        return None

    def load_curve(self, upto: int) -> None:
        path = self.dir / "curve.json"
        if path.is_file():
            rows = json.loads(path.read_text())["rows"]
            self.rows = [r for r in rows if r["timesteps"] <= upto]

    def write_curve(self, plot: bool = True) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        clean = [{k: _json_value(v) for k, v in r.items()} for r in self.rows]
        doc = {"config": self.cfg.to_json(), "rows": clean}
        _atomic_write(self.dir / "curve.json", json.dumps(doc, indent=1))
        if self.rows:
            keys = list(self.rows[0].keys())
            for r in self.rows:
                keys += [k for k in r if k not in keys]
            tmp = self.dir / "curve.csv.tmp"
            with tmp.open("w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=keys)
                w.writeheader()
                w.writerows(clean)
            os.replace(tmp, self.dir / "curve.csv")
        if plot and self.plot_ok:
            try:
                plot_curve(
                    self.rows,
                    self.dir / "curve.png",
                    title=f"PPO on {_env_name(self.cfg)}, {self.cfg.backend}, "
                    f"{self.cfg.envs} envs, seed {self.cfg.seed}",
                )
            except Exception as exc:  # noqa: BLE001 - a plot is never worth losing a run
                self.plot_ok = False
                print(
                    f"train: no curve.png for this run ({type(exc).__name__}: {exc}); curve.json and "
                    "curve.csv hold the data",
                    file=sys.stderr,
                )


def _env_name(cfg: TrainConfig) -> str:
    return "the duck" if cfg.env == DUCK else cfg.env


def checkpoint_damage(path: Path) -> str:
    """Why path is not a loadable SB3 checkpoint ("" when it looks whole: a zip with data and policy.pth)."""
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            bad = z.testzip()
    except (OSError, zipfile.BadZipFile) as exc:
        return f"not a zip file ({exc})"
    missing = sorted({"data", "policy.pth"} - names)
    if missing:
        return f"it lacks {', '.join(missing)}"
    return f"entry {bad} is corrupt" if bad else ""


def save_model(model: Any, path: Path) -> None:
    """model.save(path) atomically: written to a hidden partial file beside it, then renamed, so that an
    interrupted save (Ctrl-C, a full disk) never leaves a damaged file under the name."""
    tmp = path.with_name(f".{path.name}.partial")
    try:
        with tmp.open("wb") as fh:
            model.save(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def plot_curve(rows: list[dict[str, Any]], path: Path, title: str = "") -> None:
    """Draw episode return and survival against env steps into a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.array([r["timesteps"] for r in rows], dtype=float)
    ret = np.array([np.nan if r.get("ep_return_mean") is None else r["ep_return_mean"] for r in rows], dtype=float)
    avg = np.array([np.nan if r.get("ep_return_avg100") is None else r["ep_return_avg100"] for r in rows], dtype=float)
    surv = np.array([np.nan if r.get("survival") is None else r["survival"] for r in rows], dtype=float)
    lengths = not np.isfinite(surv).any()  # a Gymnasium task: no survival, draw episode lengths instead
    if lengths:
        surv = np.array([np.nan if r.get("ep_len_mean") is None else r["ep_len_mean"] for r in rows], dtype=float)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, height_ratios=[2, 1])
    ax1.plot(x, ret, ".", ms=3, alpha=0.5, label="episodes ended in the update (mean)")
    ax1.plot(x, avg, "-", lw=1.5, label="last 100 episodes (mean)")
    ax1.set_ylabel("episode return")
    ax1.legend(loc="lower right", fontsize=8)
    ax1.grid(alpha=0.3)
    ax2.plot(x, surv, "-", lw=1.2, color="tab:green")
    ax2.set_ylabel("episode length (mean)" if lengths else "survival")
    ax2.set_xlabel("env steps")
    if not lengths:
        ax2.set_ylim(0, 1.02)
    ax2.grid(alpha=0.3)
    if title:
        ax1.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


class Checkpoints:
    """Writes a run's checkpoints: SB3's zip and, where the backend's vector env snapshots its envs (mdvec), the
    update boundary's ``.state`` beside it (tools/_resume.py), which makes ``--resume`` exact."""

    def __init__(self, run: Run, venv: Any) -> None:
        self.run = run
        self.venv = venv
        self.exact = _resume.can_snapshot(venv)
        self.last: _resume.Boundary | None = None  # the latest boundary, for a Ctrl-C checkpoint

    def mark(self, model: Any, rng: tuple[Any, Any, Any], progress: dict[str, Any]) -> None:
        """Keep the run's state at this update boundary (the rollout about to start) in memory."""
        if self.exact:
            self.last = _resume.capture(model, self.venv, rng, progress)

    def save(self, model: Any, rng: tuple[Any, Any, Any], progress: dict[str, Any]) -> Path:
        """Write a checkpoint of the run at this update boundary; return the zip's path."""
        path = self.run.checkpoint_path(model.num_timesteps)
        if self.exact:
            self.last = _resume.capture(model, self.venv, rng, progress)
            _resume.write(path, self.last)  # the state first: a zip never stands without its own
        save_model(model, path)
        return path

    def save_interrupted(self, model: Any) -> Path:
        """Write a checkpoint after a Ctrl-C mid-rollout: the last boundary's (the model's rollout attributes
        put back, the cut rollout left out) where the envs snapshot, else the model as it stands."""
        if self.exact and self.last is not None:
            _resume.rewind_model(model, self.last)
            path = self.run.checkpoint_path(self.last.timesteps)
            _resume.write(path, self.last)
        else:
            path = self.run.checkpoint_path(model.num_timesteps)
        save_model(model, path)
        return path


def _make_callback(run: Run, timers: Timers, on_rollout: Callable[[Any], None] | None, ckpts: Checkpoints) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = run.cfg
    duck = cfg.env == DUCK  # survival (share of steps not fallen) is the duck's; other tasks have none

    class Progress(BaseCallback):
        """Per update: episode stats, timings, rollout digest; checkpoints; progress lines.

        Its state lives across ``learn()`` calls (the benchmark learns in slices).
        """

        total = 0  # env steps the run ends at (for progress and ETA)
        ep_ret: np.ndarray | None = None
        stop = False  # set by the first Ctrl-C (train's SIGINT handler): learn() ends at the next env step
        carried: dict[str, Any] | None = None  # an exact resume's episode accumulators (progress_state())

        def progress_state(self) -> dict[str, Any]:
            """The episode accumulators a checkpoint carries (an exact resume's curve goes on with them)."""
            if self.ep_ret is None:
                return {}
            return {"ep_ret": self.ep_ret, "ep_len": self.ep_len, "ep_up": self.ep_up, "recent": self.recent}

        def _on_training_start(self) -> None:
            if self.ep_ret is None:
                n = self.training_env.num_envs
                self.ep_ret = np.zeros(n)
                self.ep_len = np.zeros(n, dtype=np.int64)
                self.ep_up = np.zeros(n, dtype=np.int64)
                self.recent: list[tuple[float, int, int]] = []  # the last 100 episodes: return, length, upright
                self.update = run.rows[-1]["update"] if run.rows else 0
                self.wall = run.rows[-1]["time_s"] if run.rows else 0.0  # training seconds before this session
                self.last_print = -math.inf
                self.session_steps0 = self.model.num_timesteps
                self.session_s = 0.0
                if self.carried:
                    self.ep_ret = np.asarray(self.carried["ep_ret"], dtype=np.float64)
                    self.ep_len = np.asarray(self.carried["ep_len"], dtype=np.int64)
                    self.ep_up = np.asarray(self.carried["ep_up"], dtype=np.int64)
                    self.recent = [tuple(e) for e in self.carried["recent"]]
            self.pending: dict[str, Any] | None = None
            self.t_last = time.perf_counter()

        def _on_rollout_start(self) -> None:
            now = time.perf_counter()
            if self.pending is not None:
                self._finish(now)
                now = time.perf_counter()  # checkpoints and progress lines count in neither phase
            if run.files:  # an update boundary: what a Ctrl-C checkpoint goes back to
                ckpts.mark(self.model, _global_rng_state(), self.progress_state())
            timers.reset()
            timers.in_rollout = True
            self.t_rollout = now
            self.episodes: list[tuple[float, int, int]] = []

        def _on_step(self) -> bool:
            rewards = self.locals["rewards"]
            dones = self.locals["dones"]
            infos = self.locals["infos"]
            assert self.ep_ret is not None
            # the learner stores rewards as float32: sum what it sees, whatever the backend's dtype
            self.ep_ret += np.asarray(rewards, dtype=np.float32)
            self.ep_len += 1
            if duck:
                self.ep_up += [not info.get("fallen", False) for info in infos]
            if dones.any():
                for i in np.flatnonzero(dones):
                    self.episodes.append((float(self.ep_ret[i]), int(self.ep_len[i]), int(self.ep_up[i])))
                    self.recent.append(self.episodes[-1])
                self.recent = self.recent[-100:]
                self.ep_ret[dones] = 0.0
                self.ep_len[dones] = 0
                self.ep_up[dones] = 0
            return not self.stop  # a Ctrl-C asked to stop: end learn() here (the rollout is dropped)

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            timers.in_rollout = False
            buf = self.model.rollout_buffer  # type: ignore[attr-defined]  # PPO's (an OnPolicyAlgorithm)
            rollout_s = now - self.t_rollout
            eps = self.episodes
            n_steps = buf.buffer_size * buf.n_envs
            self.pending = {
                "update": self.update + 1,
                "timesteps": self.model.num_timesteps,
                "episodes": len(eps),
                "ep_return_mean": float(np.mean([e[0] for e in eps])) if eps else math.nan,
                "ep_return_min": float(np.min([e[0] for e in eps])) if eps else math.nan,
                "ep_return_max": float(np.max([e[0] for e in eps])) if eps else math.nan,
                "ep_return_avg100": float(np.mean([e[0] for e in self.recent])) if self.recent else math.nan,
                "ep_len_mean": float(np.mean([e[1] for e in eps])) if eps else math.nan,
                "survival": float(sum(e[2] for e in eps) / sum(e[1] for e in eps)) if eps and duck else math.nan,
                "rollout_s": rollout_s,
                "env_s": timers.env,
                "forward_s": timers.forward,
                "bookkeeping_s": rollout_s - timers.env - timers.forward,
                "rollout_steps_per_s": n_steps / rollout_s,
                "reward_sha256": rollout_sha256(buf, ("rewards",))[:16],
                "rollout_sha256": rollout_sha256(buf)[:16],
            }
            if cfg.tensorboard:  # the curve's values in TensorBoard too (SB3 dumps them after this rollout)
                for key in TENSORBOARD_KEYS:
                    if math.isfinite(self.pending[key]):
                        self.model.logger.record(f"rollout/{key}", self.pending[key])
            if on_rollout is not None:
                on_rollout(buf)
            self.t_update = now

        def _on_training_end(self) -> None:
            if self.pending is not None:
                self._finish(time.perf_counter())

        def _finish(self, now: float) -> None:
            row = self.pending
            assert row is not None
            self.pending = None
            self.update = row["update"]
            row["update_s"] = now - self.t_update
            row["update_steps_per_s"] = cfg.n_steps * self.training_env.num_envs / (row["rollout_s"] + row["update_s"])
            values = self.model.logger.name_to_value
            for k in TRAIN_KEYS:
                row[k] = float(values[f"train/{k}"]) if f"train/{k}" in values else math.nan
            self.session_s += now - self.t_last
            self.t_last = now
            self.wall += row["rollout_s"] + row["update_s"]
            row["time_s"] = self.wall
            run.rows.append(row)
            done = self.model.num_timesteps
            if run.files and self.update % cfg.checkpoint_every == 0:
                ckpts.save(self.model, _global_rng_state(), self.progress_state())
                run.write_curve()
            total = max(self.total, done)
            if not run.quiet and (now - self.last_print >= cfg.print_every or done >= total or self.update == 1):
                self.last_print = now
                rate = (done - self.session_steps0) / self.session_s if self.session_s > 0 else math.nan
                eta = (total - done) / rate if rate > 0 else math.inf
                print(
                    f"update {self.update:5d} | steps {done:>11,}/{total:,} ({100 * done / total:5.1f}%) | "
                    f"{rate:8,.0f} env-steps/s (rollout {row['rollout_steps_per_s']:,.0f}) | "
                    f"{self._episode_stats()} | update {row['update_s']:.2f}s | ETA {_fmt_time(eta)}",
                    flush=True,
                )

        def _episode_stats(self) -> str:
            """The progress line's episode statistics, every one over the same episodes: the last 100 that
            ended (fewer until 100 have), or what says that none has ended yet."""
            window = self.recent
            if not window:
                return "no episode ended yet"
            n = len(window)
            ret = float(np.mean([e[0] for e in window]))
            tail = (
                f"survival {sum(e[2] for e in window) / sum(e[1] for e in window):5.3f}"
                if duck
                else f"ep len {float(np.mean([e[1] for e in window])):6.1f}"
            )
            return f"last {n} episode{'s' if n > 1 else ''}: ep return {ret:7.1f}, {tail}"

    return Progress()


@dataclass
class TrainResult:
    """What ``train`` returns: the model, its curve rows and the parameters' digest."""

    model: Any
    rows: list[dict[str, Any]]
    params_sha256: str
    timesteps: int
    wall_s: float


def build_model(cfg: TrainConfig, env: Any) -> Any:
    """Return a fresh SB3 PPO for the configuration, seeded with ``cfg.seed``, on the CPU."""
    from stable_baselines3 import PPO

    return PPO(
        "MlpPolicy", env, seed=cfg.seed, device="cpu", verbose=0, tensorboard_log=cfg.tensorboard, **cfg.ppo_kwargs()
    )


def _global_rng_state() -> tuple[Any, Any, Any]:
    import random

    import torch

    return random.getstate(), np.random.get_state(), torch.get_rng_state()


def _set_global_rng_state(state: tuple[Any, Any, Any]) -> None:
    import random

    import torch

    random.setstate(state[0])
    np.random.set_state(state[1])
    torch.set_rng_state(state[2])


class Trainer:
    """One run's env, model and bookkeeping; ``learn_until`` may be called repeatedly (slices).

    ``files=False`` writes nothing (benchmarks); ``on_rollout(buffer)`` sees each full rollout buffer
    before its update (tests).
    """

    def __init__(
        self,
        cfg: TrainConfig,
        resume: bool = False,
        quiet: bool = False,
        files: bool = True,
        on_rollout: Callable[[Any], None] | None = None,
    ) -> None:
        import torch

        torch.set_num_threads(cfg.torch_threads)
        from stable_baselines3 import PPO

        self.cfg, self.quiet = cfg, quiet
        self.run = Run(cfg, quiet=quiet, files=files)
        out = self.run.dir
        if files:
            if not resume and (out / "run.json").exists():
                raise TrainError(f"train: {out} already holds a run; add --resume to continue it or pick another --out")
            self.run.ckpt_dir.mkdir(parents=True, exist_ok=True)
        self.timers = Timers()
        self.wall0 = time.perf_counter()
        env = make_env(cfg.backend, cfg.envs, cfg.seed, cfg.threads, cfg.variant, cfg.task, cfg.env)
        self.env = env
        try:
            self.env = _timed_vec_env(env, self.timers)
            self.checkpoints = Checkpoints(self.run, env)
            boundary: _resume.Boundary | None = None
            if resume:
                ckpt = self.run.latest_checkpoint()
                if ckpt is None:
                    raise TrainError(f"train: --resume: no checkpoint in {self.run.ckpt_dir}")
                exact = self.checkpoints.exact and _resume.state_path(ckpt).is_file()
                # exact: the zip's _last_obs is kept (no reset); the envs come back from the .state
                self.model = PPO.load(
                    ckpt, env=self.env, device="cpu", tensorboard_log=cfg.tensorboard, force_reset=not exact
                )
                T = self.model.num_timesteps
                if exact:
                    try:
                        boundary = _resume.read(ckpt, T)
                        assert boundary is not None
                        env.restore(boundary.envs)
                    except (ValueError, OSError) as exc:
                        raise TrainError(f"train: --resume: {ckpt.name} cannot resume exactly: {exc}") from None
                    how = "exactly: every env, the generators and the episode accumulators as they were"
                else:
                    # RESUME_HELP: every env restarts its episode at the first reset, env i seeded
                    # seed + T + i; torch, numpy and random are seeded with seed + T. Reproducible: the same
                    # checkpoint resumes the same way.
                    self.model.set_random_seed(cfg.seed + T)
                    why = "the backend cannot snapshot its envs" if not self.checkpoints.exact else "it has no .state"
                    how = f"not exactly ({why}): every env starts a new episode"
                self.run.load_curve(T)
                if not quiet:
                    print(f"resuming {ckpt} at {T:,} env steps, {how}", flush=True)
            else:
                self.model = build_model(cfg, self.env)
            if files:
                _write_run_json(cfg, out)
            _time_policy(self.model.policy, self.timers)
            self.callback = _make_callback(self.run, self.timers, on_rollout, self.checkpoints)
            self.resumed = resume
            self._rng = _global_rng_state() if boundary is None else boundary.rng
            if boundary is not None:
                self.callback.carried = boundary.progress
        except BaseException:
            env.close()
            raise

    @property
    def per_update(self) -> int:
        return self.cfg.n_steps * self.cfg.envs

    def learn_until(self, total: int) -> None:
        """Run PPO updates until at least ``total`` env steps (whole updates)."""
        model = self.model
        if total <= model.num_timesteps:
            return
        self.callback.total = total
        first = model._last_obs is None and not self.resumed and model.num_timesteps == 0
        # PPO draws from the process-wide generators (torch: action noise; numpy: minibatch order);
        # each trainer keeps its own streams, so that trainers learning in turns (the benchmark) draw
        # what each would have drawn alone
        _set_global_rng_state(self._rng)
        try:
            # log_interval 1 with --tensorboard: SB3 writes its logger's values once per update (train/ of
            # the update before, time/, and the curve's rollout/ values); without it, nothing is dumped
            model.learn(
                total_timesteps=total - model.num_timesteps,
                callback=self.callback,
                log_interval=1 if self.cfg.tensorboard else None,  # type: ignore[arg-type]  # SB3 reads None as never
                tb_log_name=Path(self.cfg.out).name or "PPO",
                reset_num_timesteps=first,
                progress_bar=False,
            )
        finally:
            self._rng = _global_rng_state()

    def learn_updates(self, updates: int) -> None:
        """Run ``updates`` more PPO updates."""
        self.learn_until(self.model.num_timesteps + updates * self.per_update)

    def finish(self) -> TrainResult:
        """Save the final checkpoint, policy.zip, the curve and summary.json; return the result."""
        model, run, out = self.model, self.run, self.run.dir
        wall = time.perf_counter() - self.wall0
        digest = params_sha256(model.policy)
        if run.files:
            final = run.checkpoint_path(model.num_timesteps)
            if not final.exists():
                self.checkpoints.save(model, self._rng, self.callback.progress_state())
            save_model(model, out / "policy.zip")
            run.write_curve()
            last = run.rows[-1] if run.rows else {}
            summary = {
                "timesteps": int(model.num_timesteps),
                "updates": last.get("update", 0),
                "wall_s_this_session": wall,
                "train_time_s": last.get("time_s", 0.0),
                "params_sha256": digest,
                "last_rollout_sha256": last.get("rollout_sha256"),
                "ep_return_avg100": last.get("ep_return_avg100"),
                "survival_last_update": last.get("survival"),
                "policy": str(out / "policy.zip"),
            }
            _atomic_write(out / "summary.json", json.dumps({k: _json_value(v) for k, v in summary.items()}, indent=1))
        if not self.quiet:
            where = f"; wrote {out / 'policy.zip'}, curve.json/csv/png" if run.files else ""
            print(
                f"done: {model.num_timesteps:,} env steps in {_fmt_time(wall)}{where}; params sha256 {digest}",
                flush=True,
            )
        return TrainResult(
            model=model, rows=run.rows, params_sha256=digest, timesteps=int(model.num_timesteps), wall_s=wall
        )

    def close(self) -> None:
        self.env.close()


def train(
    cfg: TrainConfig,
    resume: bool = False,
    quiet: bool = False,
    on_rollout: Callable[[Any], None] | None = None,
    files: bool = True,
) -> TrainResult:
    """Train (or resume) one run up to ``cfg.steps`` env steps and write its files; see the module docstring."""
    import torch

    trainer = Trainer(cfg, resume=resume, quiet=quiet, files=files, on_rollout=on_rollout)
    try:
        model, per_update = trainer.model, trainer.per_update
        start = model.num_timesteps
        total = start + max(0, math.ceil((cfg.steps - start) / per_update)) * per_update
        if not quiet:
            print(
                f"PPO on {cfg.envs} "
                + ("ducks" if cfg.env == DUCK else f"{cfg.env} envs")
                + f", backend {cfg.backend}"
                + (f" ({cfg.threads} threads)" if cfg.backend == "mdvec" and cfg.threads else "")
                + f", {per_update:,} env steps per update, {total:,} env steps in all, seed {cfg.seed}, "
                f"torch threads {torch.get_num_threads()}" + (f"; writing {cfg.out}" if files else ""),
                flush=True,
            )
        try:
            with _stop_on_sigint(trainer):
                trainer.learn_until(total)
        except KeyboardInterrupt:  # a second Ctrl-C (or one outside the main thread's handler)
            _interrupted(trainer, files, saved=False)
            raise
        if trainer.callback.stop:
            _interrupted(trainer, files, saved=True)
            raise KeyboardInterrupt
        return trainer.finish()
    finally:
        trainer.close()


@contextlib.contextmanager
def _stop_on_sigint(trainer: Trainer) -> Iterator[None]:
    """While learning, the first Ctrl-C asks the trainer to stop after the env step in progress (its state
    is then saved: nothing since the last periodic checkpoint is lost); a second one interrupts at once.
    Outside the main thread (no signal handlers there) Ctrl-C interrupts as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def first(signum: int, frame: Any) -> None:
        trainer.callback.stop = True
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the next Ctrl-C raises KeyboardInterrupt
        print(
            "\ntrain: Ctrl-C: stopping after this env step and saving a checkpoint (Ctrl-C again to stop at "
            "once, without one)",
            file=sys.stderr,
            flush=True,
        )

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted(trainer: Trainer, files: bool, saved: bool) -> None:
    """Write what an interrupted run has: the curve and, after a first Ctrl-C, a checkpoint: where the envs
    snapshot (mdvec), the last update boundary's (the rollout it was collecting is left out and is collected
    again on --resume, exactly); otherwise the model as it stands (its last completed update; the env steps of
    the rollout it was collecting are counted)."""
    model, run = trainer.model, trainer.run
    if files:
        if saved:
            trainer.checkpoints.save_interrupted(model)
        run.write_curve()
    last = run.latest_checkpoint() if files else None
    print(
        f"train: interrupted at {model.num_timesteps:,} env steps"
        + (
            f"; {'saved ' if saved else ''}checkpoint {last.name}; curve written. Resume with the same command and "
            "--resume."
            if last
            else "; no checkpoint yet."
        ),
        file=sys.stderr,
    )


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("numpy", "mujoco", "torch", "stable_baselines3", "gymnasium"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # noqa: BLE001 - versions are informative only
            pass
    try:
        from .. import __version__

        out["mdvec"] = __version__
    except Exception:  # noqa: BLE001
        pass
    return out


def _write_run_json(cfg: TrainConfig, out: Path) -> None:
    path = out / "run.json"
    doc = json.loads(path.read_text()) if path.exists() else {"sessions": []}
    doc["config"] = cfg.to_json()
    doc["sessions"].append(
        {
            "argv": sys.argv,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "host": platform.node(),
            "cpus": os.cpu_count(),
            "versions": _versions(),
        }
    )
    _atomic_write(path, json.dumps(doc, indent=1))


def run_folder(path: Path) -> Path | None:
    """Return the run folder (the one holding run.json) that path is, or holds path (policy.zip) or its folder
    (checkpoints/step_*.zip); None when there is none."""
    for folder in (path, path.parent, path.parent.parent) if path.suffix else (path,):
        if (folder / "run.json").is_file():
            return folder
    return None


def read_run_config(path: Path) -> TrainConfig | None:
    """Return the TrainConfig stored in a run folder's run.json (path: the folder or a file in it)."""
    folder = run_folder(path)
    if folder is None:
        return None
    run_json = folder / "run.json"
    try:
        return TrainConfig.from_json(json.loads(run_json.read_text())["config"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{run_json} is not a readable run.json ({type(exc).__name__}: {exc})") from None


# ------------------------------------------------------------------ command line
def _folder(text: str) -> str:
    """A run or log folder that exists and is writable or can be made (see ``_args.writable_folder``)."""
    return str(writable_folder(text))


def build_parser() -> argparse.ArgumentParser:
    """Return train's argument parser: every value is checked as it is parsed (one line, exit status 2)."""
    p = Parser(
        prog="python -m mdvec train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="task options (-o NAME=VALUE, repeatable):\n" + task_option_help(),
    )
    d = TrainConfig()
    p.add_argument("--backend", choices=BACKENDS, default=None, help=f"env backend (default {d.backend})")
    p.add_argument("--envs", type=positive_int, default=None, help=f"parallel envs (default {d.envs})")
    p.add_argument("--threads", type=positive_int, default=None, help="mdvec worker threads (default: the library's)")
    p.add_argument("--steps", type=positive_int, default=None, help=f"total env steps (default {d.steps:,})")
    p.add_argument(
        "--seed",
        type=seed_int(NUMPY_SEED_MAX),
        default=None,
        help=f"seed of PPO and of env i (seed + i), in [0, 2**32 - 1] (default {d.seed})",
    )
    p.add_argument("--out", type=_folder, default=None, help=f"run folder (default {d.out})")
    p.add_argument("--resume", action="store_true", help=RESUME_HELP)
    g = p.add_argument_group("PPO")
    above0 = finite_float(0.0, low_open=True)
    for name, kind, text in (
        ("n_steps", positive_int, "steps per env per update"),
        ("batch_size", positive_int, "minibatch"),
        ("n_epochs", positive_int, "epochs per update"),
        ("learning_rate", above0, "Adam step, > 0"),
        ("gamma", finite_float(0.0, 1.0), "discount, in [0, 1]"),
        ("gae_lambda", finite_float(0.0, 1.0), "GAE lambda, in [0, 1]"),
        ("clip_range", above0, "PPO clip, > 0"),
        ("ent_coef", finite_float(), "entropy bonus"),
        ("vf_coef", finite_float(0.0), "value loss weight, >= 0"),
        ("max_grad_norm", above0, "gradient clip, > 0"),
        ("log_std_init", finite_float(), "initial log std of the actions"),
    ):
        g.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=kind,
            default=None,
            help=f"{text} (default {getattr(d, name)})",
        )
    g.add_argument(
        "--net", type=int_list(1), default=None, help="hidden layer sizes of policy and value nets (default 128,128)"
    )
    t = p.add_argument_group("task")
    add_task_option(
        t,
        metavar="ENV",
        help="duck (default) or any task of the catalogue (mdvec.task_names()): Hopper-v5, Walker2d-v5, "
        "..., cartpole_swingup, cheetah-run, walker-walk, ... (backend processes then runs its reference: "
        "Gymnasium's own env for Gymnasium's tasks, dm_control itself for the Control Suite's). A Control "
        "Suite task trains MlpPolicy on its flat observation (flat_observation=True, dm_control's "
        "flatten_observation order), not on Shimmy's Dict",
    )
    t.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="task option (the duck's, gymnasium.make's keywords for a Gymnasium task, else the task's)",
    )
    t.add_argument(
        "--variant", choices=sorted(VARIANTS), default=None, help="built-in duck model variant (default: default)"
    )
    r = p.add_argument_group("run")
    r.add_argument(
        "--checkpoint-every",
        type=positive_int,
        default=None,
        help=f"PPO updates between checkpoints (default {d.checkpoint_every})",
    )
    r.add_argument("--torch-threads", type=positive_int, default=None, help=TORCH_THREADS_HELP)
    r.add_argument(
        "--print-every",
        type=finite_float(0.0),
        default=None,
        help=f"seconds between progress lines, >= 0 (default {d.print_every}; 0: every update)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress lines")
    r.add_argument(
        "--tensorboard",
        type=_folder,
        default=None,
        metavar="DIR",
        help="also write SB3's TensorBoard logs into DIR/<--out's name>_<k>, once per update: train/ "
        "(the losses of the update before), time/ and rollout/ (the curve's returns, episode "
        "lengths, survival). Needs the tensorboard package: pip install 'mdvec[tensorboard]'",
    )
    return p


def config_from_args(args: argparse.Namespace, env: str = DUCK) -> tuple[TrainConfig, dict[str, Any]]:
    """Return the configuration the arguments ask for and the fields they gave explicitly.

    ``env``: the env when ``--env`` is not given (a resumed run's), for reading ``-o`` options.
    """
    given: dict[str, Any] = {}
    for f in dataclasses.fields(TrainConfig):
        if f.name in ("task", "net", "env"):
            continue
        value = getattr(args, f.name, None)
        if value is not None:
            given[f.name] = value
    if args.net is not None:
        given["net"] = tuple(args.net)
    if getattr(args, "env", None) is not None:
        given["env"] = env = resolve_env(args.env)
    if args.option:
        given["task"] = parse_task_options(args.option, env)
    cfg = dataclasses.replace(TrainConfig(), **given)
    return cfg, given


def _check(cfg: TrainConfig) -> None:
    for name in ("envs", "steps", "n_steps", "batch_size", "n_epochs", "checkpoint_every", "torch_threads"):
        if getattr(cfg, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')}: must be positive, got {getattr(cfg, name)}")
    if cfg.threads is not None and cfg.threads <= 0:
        raise ValueError(f"--threads: must be positive, got {cfg.threads}")
    if not cfg.net or any(n <= 0 for n in cfg.net):
        raise ValueError(f"--net: need positive layer sizes, got {cfg.net}")
    if resolve_env(cfg.env) != cfg.env:
        raise ValueError(f"env: write {resolve_env(cfg.env)!r}, not {cfg.env!r}")
    if cfg.env == DUCK:
        TaskConfig.from_kwargs(**cfg.task)
        return
    if cfg.variant != "default":
        raise ValueError(f"--variant: only the duck has model variants, not {cfg.env}")
    check_task_options(cfg.env, cfg.task)


SB3_MISSING = (
    "{cmd}: needs torch and stable-baselines3 ({exc}); install a CPU torch first "
    "(e.g. pip install torch==2.13.0, or a build from PyTorch's CPU wheel index), then pip install 'mdvec[sb3]'"
)


def require_sb3(cmd: str) -> str | None:
    """Return a message naming what to install when torch or stable-baselines3 is missing, else None."""
    try:
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        return SB3_MISSING.format(cmd=cmd, exc=exc)
    return None


def require_tensorboard() -> None:
    """Raise ValueError (one line, naming the extra) unless SB3's logger can write TensorBoard files."""
    try:
        from torch.utils.tensorboard import SummaryWriter  # noqa: F401 - what SB3's logger imports
    except ImportError as exc:
        raise ValueError(
            f"--tensorboard needs the tensorboard package ({exc}); install it with pip install 'mdvec[tensorboard]'"
        ) from None


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m mdvec train``: every argument is checked before torch is imported or a run starts."""
    try:
        args = build_parser().parse_args(argv)
    except ArgumentRefused:  # its one line is printed
        return 2
    try:
        if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
            raise ValueError(f"--out: {args.out} is a file, not a run folder")
        saved = read_run_config(Path(args.out or TrainConfig().out)) if args.resume else None
        cfg, given = config_from_args(args, env=saved.env if saved else DUCK)
        if args.resume:
            if saved is None:
                raise ValueError(f"--resume: no run.json in {cfg.out}")
            clash = [
                f"{k} (run: {getattr(saved, k)!r}, asked: {v!r})"
                for k, v in given.items()
                if k not in TrainConfig.RESUMABLE and getattr(saved, k) != v
            ]
            if clash:
                raise ValueError("--resume: these differ from the run being resumed: " + "; ".join(clash))
            cfg = dataclasses.replace(saved, **{k: v for k, v in given.items() if k in TrainConfig.RESUMABLE})
        _check(cfg)
    except ValueError as exc:
        print(f"train: {exc}", file=sys.stderr)
        return 2
    missing = require_sb3("train")  # imports torch: after every check that does not need it
    if missing:
        print(missing, file=sys.stderr)
        return 2
    try:
        if cfg.tensorboard:
            require_tensorboard()
            writable_dir(Path(cfg.tensorboard), "--tensorboard")
        writable_dir(Path(cfg.out), "--out")  # before the run starts, not at its first checkpoint
        if cfg.backend == "processes" and cfg.threads is not None:
            print("train: --threads is ignored by --backend processes (one process per env)", file=sys.stderr)
    except ValueError as exc:
        print(f"train: {exc}", file=sys.stderr)
        return 2
    try:
        train(cfg, resume=args.resume, quiet=args.quiet)
    except TrainError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
