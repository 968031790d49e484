"""mdvec's tasks in RLlib (``pip install 'mdvec[rllib]'``, Ray's new API stack): each EnvRunner steps
the C vector env that ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` builds.

    from mdvec.rllib import ppo_config
    config = ppo_config(seed=0, num_env_runners=2, num_envs_per_env_runner=32, num_cpus_per_env_runner=2)
    algo = config.build_algo()
    algo.train()

or, with a config of your own::

    config.environment(mdvec.rllib.RLlibVectorEnv,
                       env_config={"env_id": "mdvec/DuckBalance-v0", "seed": 0, "episode_len": 250})
    config.env_runners(gym_env_vectorize_mode="vector_entry_point", num_envs_per_env_runner=32,
                       num_cpus_per_env_runner=2)
    config.debugging(seed=0)  # equal to env_config["seed"]

RLlib builds a callable env on each EnvRunner through a vector entry point of its own, so with
``gym_env_vectorize_mode="vector_entry_point"`` it calls ``RLlibVectorEnv(env_config | {"num_envs": N})``
once per EnvRunner, which makes ``gymnasium.make_vec(env_id, num_envs=N,
vectorization_mode="vector_entry_point", threads=T, ...)``: N envs in libmdvec on T worker threads,
T being the CPUs Ray assigned to the EnvRunner (``num_cpus_per_env_runner``; at most N).
``backend="reference"`` in env_config makes Gymnasium's ``SyncVectorEnv`` of the Python reference env
instead (the comparison of bench/rllib_sampling.py); everything else is the same.

Seeds (the rule; docs/rllib.md): RLlib resets EnvRunner w (``worker_index``, 0 for the local one,
1..R for the remote ones) once, with the integer ``s = S + w`` (plus 10**6 on evaluation
EnvRunners), S being ``config.debugging(seed=S)``. ``RLlibVectorEnv`` turns it into one seed per env:

    seed of env j = SeedSequence(entropy=S, spawn_key=(s - S, j)).generate_state(1, uint64)[0]

so every env of every EnvRunner has its own seed, evaluation EnvRunners differ from training ones,
runs with different S share no seed (SeedSequence hashes its entropy), and a run is reproducible
from S: the same S, R and N give the same env seeds, on either backend. Without a seed
(``config.seed`` None) each env draws fresh OS entropy, as RLlib itself does then. Later resets
continue each env's own generator (``reset(seed=None)``).

dm_control's Control Suite tasks (``env_id="mdvec/cheetah-run-v0"``, or Shimmy's ``"dm_control/cheetah-run-v0"``,
taken as its alias) take ``np.random.RandomState`` seeds, 32 bits: their env seeds are the same SeedSequence's
``generate_state(1, uint32)[0]``. Their observation is Shimmy's Dict unless ``flat_observation=True`` is in
env_config; RLlib's default encoders take a Box, so ``ppo_config`` puts ``flat_observation=True`` in the
env_config of a Control Suite task unless told otherwise (one float64 vector, dm_control's flatten_observation
order).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import mdvec.adapters.gym  # registers the mdvec/ ids with Gymnasium on every EnvRunner

from .._calls import NoCopy
from .._shared import is_int
from ..vector import is_suite_task, resolve_task

DEFAULT_ENV_ID = mdvec.adapters.gym.DUCK_ID  # "mdvec/DuckBalance-v0", as the duck declares it
BACKENDS = ("c", "reference")
EVAL_SEED_OFFSET = 10**6  # what RLlib adds to the seed of an evaluation EnvRunner (ray/rllib/env/env_runner.py)

# What this process's RLlibVectorEnvs did (tests and logs: which EnvRunner sampled how much).
_STATS: dict[str, Any] = {"envs_built": 0, "env_steps": 0, "env_step_s": 0.0, "physics_errors": 0}

# env_config keys that are ours; every other key is a task option (a make_vec keyword).
_OWN_KEYS = ("env_id", "backend", "threads", "seed", "infos", "fault")


def parse_env_config(env_config: dict[str, Any] | None) -> dict[str, Any]:
    """Check an ``RLlibVectorEnv`` env_config and return its values: ``num_envs``, ``env_id``, ``backend``,
    ``threads`` (None: Ray's CPUs), ``seed`` (None: OS entropy), ``infos``, ``fault`` and ``options`` (every
    other key: task options). Raises TypeError or ValueError naming the key: integers must be ints (no
    floats such as 2.9 or 3.0, no bools), ``infos`` a bool (the text "false" is no False); nothing is truncated
    or guessed."""
    if env_config is not None and not isinstance(env_config, Mapping):
        raise TypeError(f"env_config: expected a dict, got {type(env_config).__name__}")
    cfg = dict(env_config or {})

    def integer(key: str, value: Any, low: int, none: bool = False) -> int | None:
        if value is None and none:
            return None
        if not is_int(value):
            raise TypeError(
                f"env_config[{key!r}]: expected an integer{' or None' if none else ''}, got {type(value).__name__} {value!r}"
            )
        if int(value) < low:
            raise ValueError(f"env_config[{key!r}]: must be at least {low}, got {value!r}")
        return int(value)

    backend = cfg.get("backend", "c")
    if backend not in BACKENDS:
        raise ValueError(f"env_config['backend']: expected one of {BACKENDS}, got {backend!r}")
    env_id = cfg.get("env_id", DEFAULT_ENV_ID)
    if not isinstance(env_id, str):
        raise TypeError(f"env_config['env_id']: expected a str id, got {type(env_id).__name__} {env_id!r}")
    infos = cfg.get("infos", True)
    if not isinstance(infos, (bool, np.bool_)):
        raise TypeError(f"env_config['infos']: expected True or False, got {type(infos).__name__} {infos!r}")
    fault = cfg.get("fault")
    if fault is not None and not isinstance(fault, Mapping):
        raise TypeError(f"env_config['fault']: expected None or a dict, got {type(fault).__name__} {fault!r}")
    return {
        "num_envs": integer("num_envs", cfg.get("num_envs", 1), 1),
        "env_id": env_id,
        "backend": backend,
        "threads": integer("threads", cfg.get("threads"), 1, none=True),
        "seed": integer("seed", cfg.get("seed"), 0, none=True),
        "infos": bool(infos),
        "fault": fault,
        "options": {k: v for k, v in cfg.items() if k not in (*_OWN_KEYS, "num_envs")},
    }


def env_seed(run_seed: int, key: int, env_index: int, bits: int = 64) -> int:
    """The seed of env ``env_index`` of the EnvRunner whose RLlib seed is ``run_seed + key``.

    ``key`` is the EnvRunner's ``worker_index`` w (0 local, 1..R remote), plus 10**6 on evaluation
    EnvRunners (RLlib's offsets, ray/rllib/env/env_runner.py). ``bits``: 64, or 32 for a task whose envs take
    32-bit seeds (a Control Suite task's RandomState).
    """
    ss = np.random.SeedSequence(entropy=int(run_seed), spawn_key=(int(key), int(env_index)))
    return int(ss.generate_state(1, np.uint32 if bits == 32 else np.uint64)[0])


def env_seeds(run_seed: int | None, key: int, num_envs: int, bits: int = 64) -> list[int]:
    """``env_seed`` of envs 0..num_envs-1; ``run_seed`` None draws fresh OS entropy (not reproducible)."""
    if run_seed is None:
        run_seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    return [env_seed(run_seed, key, j, bits) for j in range(num_envs)]


def mdvec_id(env_id: str) -> str:
    """mdvec's id of a Control Suite task named by Shimmy's id ("dm_control/cheetah-run-v0" ->
    "mdvec/cheetah-run-v0": Shimmy's own registration of it, when installed, has no vector entry point); any
    other id as it is."""
    if env_id.startswith("dm_control/"):
        try:
            return resolve_task(env_id)[1]
        except ValueError:
            return env_id
    return env_id


def seed_bits(env_id: str) -> int:
    """32 for a Control Suite task's id (RandomState seeds), else 64."""
    entry = mdvec.adapters.gym.TASKS.get(env_id)
    return 32 if entry is not None and is_suite_task(entry.task) else 64


class RLlibVectorEnv(NoCopy, gymnasium.vector.VectorWrapper):
    """The vector env of one EnvRunner: ``config.environment(RLlibVectorEnv, env_config={...})``.

    RLlib (a callable env, ``gym_env_vectorize_mode="vector_entry_point"``) calls
    ``RLlibVectorEnv(env_config | {"num_envs": N})`` once per EnvRunner. This builds the task's vector
    env with ``make_vector_env`` and seeds its envs by the rule of this module:

    ``reset(seed=s)`` (RLlib's integer ``s = S + key``) reseeds env j with ``env_seed(S, s - S, j)``,
    where ``S = env_config["seed"]`` (set it equal to ``config.debugging(seed=...)``; ``ppo_config``
    does). ``reset(seed=None)`` continues the generators, except on the first reset of an env never
    seeded, which takes fresh OS entropy. A list of seeds passes through.

    env_config keys: ``env_id`` (default mdvec/DuckBalance-v0), ``backend`` ("c": the C VectorEnv
    through Gymnasium's vector entry point; "reference": Gymnasium's SyncVectorEnv of the Python env),
    ``threads`` (C worker threads; default: the CPUs Ray gave this EnvRunner, at most N), ``seed``
    (S, above), ``infos`` (default True; False gives RLlib empty info dicts: the task's info fields
    are a third of what an EnvRunner ships per step and PPO never reads them), ``fault`` (a
    fault-injection hook for tests and demos, see ``_fault_options``); every other key is a task
    option (e.g. ``episode_len``).
    """

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        cfg = parse_env_config(env_config)  # checked: a bad key raises naming it, before anything is built
        num_envs, env_id, backend = cfg["num_envs"], mdvec_id(cfg["env_id"]), cfg["backend"]
        options = dict(cfg["options"])
        options.update(_fault_options(cfg["fault"], env_id))
        threads = runner_threads(cfg, num_envs) if backend == "c" else None
        super().__init__(make_vector_env(env_id, num_envs, backend, threads, **options))
        self.run_seed = cfg["seed"]
        self.backend, self.env_id = backend, env_id
        self.infos = cfg["infos"]
        self.seed_bits = seed_bits(env_id)  # 32 for a Control Suite task
        self.last_seeds: list[int] | None = None  # the seeds of the last seeded reset (tests, logs)
        self._seeded = False
        _STATS["envs_built"] += 1

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is None and not self._seeded:
            seed = env_seeds(None, 0, self.num_envs, self.seed_bits)
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seed = self.seeds_for(int(seed))
        if seed is not None:
            self._seeded = True
            self.last_seeds = list(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, (info if self.infos else {})

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        t0 = time.perf_counter()
        try:
            out = self.env.step(actions)
        except Exception as exc:
            from .._lib import ERR_PHYSICS

            if getattr(exc, "code", None) == ERR_PHYSICS:
                _STATS["physics_errors"] += 1
            raise
        _STATS["env_step_s"] += time.perf_counter() - t0
        _STATS["env_steps"] += self.num_envs
        return out if self.infos else (*out[:4], {})

    def _holds_c_envs(self) -> bool:  # backend "c": refuse copies (they would share the C envs); NoCopy
        return getattr(self, "backend", "c") == "c"

    def _copy_instead(self) -> str:
        return "make another one from the same env_config (RLlibVectorEnv(env_config), as RLlib does per EnvRunner)"

    def seeds_for(self, rllib_seed: int) -> list[int]:
        """The env seeds for RLlib's per-EnvRunner seed ``rllib_seed`` (the rule above)."""
        if self.run_seed is None:  # no run seed given: the EnvRunner's integer alone (see docs/rllib.md)
            return env_seeds(rllib_seed, 0, self.num_envs, self.seed_bits)
        key = rllib_seed - self.run_seed
        if key < 0:
            raise ValueError(
                f"seed: RLlib reset this EnvRunner with seed {rllib_seed}, below env_config['seed']="
                f"{self.run_seed}; set env_config['seed'] equal to config.debugging(seed=...)"
            )
        return env_seeds(self.run_seed, key, self.num_envs, self.seed_bits)


def process_stats() -> dict[str, Any]:
    """What the RLlibVectorEnvs of this process did: envs built, env steps (actions sent, times envs),
    seconds spent in the vector env's step, MuJoCo errors raised; with the process id and, inside Ray,
    the node id."""
    out: dict[str, Any] = {**_STATS, "pid": os.getpid(), "node_id": None}
    try:
        import ray

        if ray.is_initialized():
            out["node_id"] = ray.get_runtime_context().get_node_id()
    except ImportError:  # pragma: no cover
        pass
    return out


def runner_report(env_runner: Any) -> dict[str, Any]:
    """What one EnvRunner holds and did (``algo.env_runner_group.foreach_env_runner(runner_report)``):
    its worker_index, the vector env's class, num_envs and threads, the seeds of its last seeded
    reset, and ``process_stats()`` (node, pid, env steps)."""
    env = env_runner.env
    wrapper = env
    while wrapper is not None and not isinstance(wrapper, RLlibVectorEnv):
        wrapper = getattr(wrapper, "env", None)
    inner = env.unwrapped if env is not None else None
    return {
        "worker_index": int(env_runner.worker_index),
        "env_class": type(inner).__name__,
        "num_envs": getattr(inner, "num_envs", None),
        "threads": getattr(inner, "threads", None),
        "seeds": None if wrapper is None else wrapper.last_seeds,
        "assigned_cpus": assigned_cpus(),
        **process_stats(),
    }


def env_creator(env_config: dict[str, Any]) -> RLlibVectorEnv:
    """``RLlibVectorEnv(env_config)``, for ``ray.tune.registry.register_env(name, env_creator)``."""
    return RLlibVectorEnv(env_config)


def assigned_cpus() -> int | None:
    """The CPUs Ray assigned to the calling actor or task (None outside a Ray worker)."""
    try:
        import ray
    except ImportError:  # pragma: no cover - mdvec.rllib is only used with ray installed
        return None
    if not ray.is_initialized():
        return None
    ctx = ray.get_runtime_context()
    if getattr(ctx.worker, "mode", None) != getattr(ray, "WORKER_MODE", 1):  # the driver: nothing assigned to it
        return None
    cpus = ctx.get_assigned_resources().get("CPU")
    return None if not cpus else max(1, int(cpus))


def runner_threads(env_config: dict[str, Any], num_envs: int) -> int:
    """Worker threads of one EnvRunner's C vector env: env_config["threads"], else the CPUs Ray gave it
    (num_cpus_per_env_runner), else 1 (the local EnvRunner in the driver); never more than num_envs."""
    threads = env_config.get("threads")
    if threads is None:
        threads = assigned_cpus() or 1
    return max(1, min(int(threads), int(num_envs)))


def make_vector_env(
    env_id: str = DEFAULT_ENV_ID, num_envs: int = 1, backend: str = "c", threads: int | None = None, **options: Any
) -> gymnasium.vector.VectorEnv:
    """The vector env one EnvRunner steps: mdvec's C VectorEnv through Gymnasium's vector entry point
    (backend "c"), or Gymnasium's SyncVectorEnv of the Python reference env (backend "reference")."""
    if backend == "c":
        return gymnasium.make_vec(
            env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", threads=threads, **options
        )
    if backend == "reference":
        return gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync", backend="reference", **options)
    raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")


def _fault_options(fault: dict[str, Any] | None, env_id: str) -> dict[str, Any]:
    """Task options that make one EnvRunner hit a genuine MuJoCo error, once.

    ``fault = {"marker": path}``: the first vector env built inside a Ray actor (an EnvRunner) while
    ``marker`` does not exist (it is created then, atomically) gets the duck with an mjData arena of 40K and a
    2 m/s shove at step 10, so the duck falls and the contacts of the fall overflow the arena:
    MuJoCo's mj_stackAlloc error, which libmdvec traps and reports as ``mdvec.MdvecError``
    (MDVEC_ERR_PHYSICS) from ``step``. Every later env (the restarted EnvRunner's) is the normal
    task. Only for the duck id; used by tests/py/test_rllib.py and docs/rllib.md.
    """
    if not fault or assigned_cpus() is None:  # not in an EnvRunner actor (the driver's local EnvRunner)
        return {}
    marker = Path(fault["marker"])
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # once, across processes and restarts
    except FileExistsError:
        return {}
    os.close(fd)
    if env_id != DEFAULT_ENV_ID:
        raise ValueError(f"fault: only {DEFAULT_ENV_ID} has a fault model, not {env_id!r}")
    from .._resources import variant_path

    xml = variant_path("default").read_text()
    xml = xml.replace('<mujoco model="duck">', '<mujoco model="duck"><size memory="40K"/>', 1)
    path = Path(tempfile.mkdtemp(prefix="mdvec_fault_")) / "duck_small_arena.xml"
    path.write_text(xml)
    return {"model": str(path), "n_pushes": 1, "push_window": (10, 11), "push_speed": (2.0, 2.0)}


def ppo_config(
    *,
    seed: int = 0,
    env_id: str = DEFAULT_ENV_ID,
    backend: str = "c",
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 16,
    num_cpus_per_env_runner: int = 1,
    rollout_fragment_length: int | str = "auto",
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 5,
    lr: float = 3e-4,
    hidden: tuple[int, ...] = (64, 64),
    task_options: dict[str, Any] | None = None,
    threads: int | None = None,
    custom_resources_per_env_runner: dict[str, float] | None = None,
    **env_config: Any,
) -> Any:
    """A PPOConfig (new API stack, torch) for an mdvec task: the one config of the example, the test and
    the benchmark. ``backend`` "c" (mdvec's VectorEnv) or "reference" (SyncVectorEnv of the Python
    env); ``threads`` None: one per CPU Ray gives each EnvRunner. Returns the config, not built."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    config_env = {"env_id": env_id, "backend": backend, "seed": seed, **(task_options or {}), **env_config}
    if seed_bits(mdvec_id(env_id)) == 32:  # a Control Suite task: RLlib's default encoders take a Box
        config_env.setdefault("flat_observation", True)
    if threads is not None:
        config_env["threads"] = int(threads)
    config = (
        PPOConfig()
        .environment(RLlibVectorEnv, env_config=config_env)
        .framework("torch")
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            num_cpus_per_env_runner=num_cpus_per_env_runner,
            rollout_fragment_length=rollout_fragment_length,
            gym_env_vectorize_mode="vector_entry_point",
            custom_resources_per_env_runner=custom_resources_per_env_runner or {},
        )
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=0.99,
            lambda_=0.95,
        )
        .rl_module(rl_module_spec=RLModuleSpec(model_config={"fcnet_hiddens": list(hidden), "vf_share_layers": False}))
        .debugging(seed=seed)
    )
    return config
