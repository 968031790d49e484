"""Env-steps/s sampled per RLlib EnvRunner: mdvec's C VectorEnv (vector_entry_point) vs Gymnasium's
SyncVectorEnv of the reference env, the same RLlib config (mdvec.rllib.ppo_config, only env_config's
backend differs), side by side in alternating rounds; 1 and 2 EnvRunners; plus what docs/rllib.md's
cluster estimate needs: the bare vector envs' rate on one core (no Ray), the share of sampling spent in
the env, the bytes an EnvRunner ships per sampled step, and the learner's update rate.

    MDVEC_LIB=build/libmdvec/libmdvec.so PYTHONPATH=python python bench/rllib_sampling.py --rounds 3

Needs ray[rllib] (its own venv: ci/requirements-rllib.txt). Ray runs on 127.0.0.1 only, no dashboard.
Writes bench/results/rllib_sampling_<date>-<time>.json (--out to change).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before ray is imported: loopback only

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# variant -> env_config: mdvec's C VectorEnv with and without info dicts, and the reference SyncVectorEnv
VARIANTS = {"c": {"backend": "c"}, "c_noinfo": {"backend": "c", "infos": False}, "reference": {"backend": "reference"}}
BACKENDS = tuple(VARIANTS)


def timed_sample(num_timesteps: int) -> Any:
    """A function for foreach_env_runner: sample num_timesteps env steps, return counts and times."""

    def run(runner: Any) -> dict[str, Any]:
        from mdvec.rllib import process_stats

        before = process_stats()
        c0, t0 = time.process_time(), time.perf_counter()
        episodes = runner.sample(num_timesteps=num_timesteps, explore=True)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        after = process_stats()
        steps = sum(len(e) for e in episodes)
        blob = pickle.dumps(episodes, protocol=5)  # what goes through the object store to the learner
        obs_bytes = sum(np.asarray(e.get_observations()).nbytes for e in episodes)
        info_bytes = len(pickle.dumps([e.get_infos() for e in episodes], protocol=5))  # the task's info dicts
        return {
            "worker_index": runner.worker_index,
            "node_id": after["node_id"],
            "steps": steps,
            "seconds": dt,
            "cpu_seconds": cpu,
            "env_step_seconds": after["env_step_s"] - before["env_step_s"],
            "env_steps_counted": after["env_steps"] - before["env_steps"],
            "bytes": len(blob),
            "obs_bytes": obs_bytes,
            "info_bytes": info_bytes,
            "episodes": len(episodes),
        }

    return run


def bare_rate(backend: str, num_envs: int, seconds: float, options: dict[str, Any]) -> dict[str, Any]:
    """Steps/s of the vector env alone (random actions drawn up front), one thread, no Ray, no RLlib."""
    from mdvec.rllib import make_vector_env

    env = make_vector_env(num_envs=num_envs, backend=backend, threads=1, **options)
    try:
        rng = np.random.default_rng(0)
        acts = rng.uniform(-1, 1, (64, num_envs, 14)).astype(np.float32)
        env.reset(seed=0)
        n, c0, t0 = 0, time.process_time(), time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            env.step(acts[n % 64])
            n += 1
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        env.close()
    return {
        "backend": backend,
        "num_envs": num_envs,
        "threads": 1,
        "env_steps": n * num_envs,
        "seconds": dt,
        "cpu_seconds": cpu,
        "env_steps_per_s": n * num_envs / dt,
        "env_steps_per_cpu_s": n * num_envs / cpu,
    }


def learner_rate(algo: Any, iterations: int) -> dict[str, Any]:
    """Train iterations; the learner's share from RLlib's timers (learner_update_timer)."""
    rows = []
    for _ in range(iterations):
        c0, t0 = time.process_time(), time.perf_counter()
        res = algo.train()
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0  # the driver: the local learner's CPU
        timers = res.get("timers", {})
        learners = res.get("learners", {}).get("__all_modules__", {})
        numeric = {k: float(v) for k, v in timers.items() if isinstance(v, (int, float))}
        rows.append(
            {
                "seconds": dt,
                "driver_cpu_seconds": cpu,
                "timers": numeric,
                "env_steps_trained": float(learners.get("num_env_steps_trained", float("nan"))),
                "episode_return_mean": float(res.get("env_runners", {}).get("episode_return_mean", float("nan"))),
            }
        )
    return {"iterations": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--envs-per-runner", type=int, default=16)
    p.add_argument("--timesteps", type=int, default=2000, help="env steps per EnvRunner per sample call")
    p.add_argument("--bare-seconds", type=float, default=3.0)
    p.add_argument("--train-iterations", type=int, default=3)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    import ray

    from mdvec.rllib import ppo_config

    n = args.envs_per_runner
    options = {"episode_len": 250}
    load0 = os.getloadavg()
    bare = []
    for r in range(args.rounds):
        for b in ("c", "reference") if r % 2 == 0 else ("reference", "c"):
            bare.append(bare_rate(b, n, args.bare_seconds, options))
            print("bare", bare[-1], flush=True)

    # Logical CPUs: each algo has 2 EnvRunners of 1 CPU; all algos exist at once (only one samples at a time).
    ray.init(
        num_cpus=2 * len(VARIANTS),
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        object_store_memory=200 * 2**20,
    )
    algos: dict[str, Any] = {}
    try:
        for b in BACKENDS:
            cfg = ppo_config(
                seed=0,
                **VARIANTS[b],
                num_env_runners=2,
                num_envs_per_env_runner=n,
                num_cpus_per_env_runner=1,
                train_batch_size=2 * args.timesteps,
                minibatch_size=500,
                num_epochs=5,
                task_options=dict(options),
            )
            algos[b] = cfg.build_algo()
        # warm-up: one sample on each runner of each backend (first resets, torch's first forward)
        for b in BACKENDS:
            algos[b].env_runner_group.foreach_env_runner(timed_sample(200), local_env_runner=False)
        samples = []
        for r in range(args.rounds):
            order = BACKENDS[r % len(BACKENDS) :] + BACKENDS[: r % len(BACKENDS)]  # rotate: each first in turn
            for ids in ([1], [1, 2]):
                for b in order:
                    t0 = time.perf_counter()
                    out = algos[b].env_runner_group.foreach_env_runner(
                        timed_sample(args.timesteps), remote_worker_ids=ids, local_env_runner=False
                    )
                    wall = time.perf_counter() - t0
                    row = {
                        "round": r,
                        "backend": b,
                        "env_runners": len(ids),
                        "wall_seconds": wall,
                        "steps": sum(o["steps"] for o in out),
                        "runners": out,
                    }
                    row["steps_per_s_total"] = row["steps"] / wall
                    row["steps_per_s_per_runner"] = [o["steps"] / o["seconds"] for o in out]
                    samples.append(row)
                    print(
                        f"round {r} {b:9s} runners={len(ids)}  total {row['steps_per_s_total']:8.0f}/s  per runner "
                        + " ".join(f"{x:8.0f}" for x in row["steps_per_s_per_runner"])
                        + "  env share "
                        + " ".join(f"{o['env_step_seconds'] / o['seconds']:.2f}" for o in out)
                        + "  per runner-CPU-s "
                        + " ".join(f"{o['steps'] / o['cpu_seconds']:6.0f}" for o in out)
                        + f"  bytes/step {out[0]['bytes'] / out[0]['steps']:.0f}",
                        flush=True,
                    )
        train = {}
        for b in BACKENDS:
            train[b] = learner_rate(algos[b], args.train_iterations)
            print(
                "train",
                b,
                [(round(x["seconds"], 2), round(x["driver_cpu_seconds"], 2)) for x in train[b]["iterations"]],
                flush=True,
            )
    finally:
        for a in algos.values():
            a.stop()
        ray.shutdown()

    def med(b: str, k: int, key: str) -> float:
        vals = [
            v
            for s in samples
            if s["backend"] == b and s["env_runners"] == k
            for v in (s["steps_per_s_per_runner"] if key == "per_runner" else [s["steps_per_s_total"]])
        ]
        return statistics.median(vals)

    summary: dict[str, Any] = {}
    for b in BACKENDS:
        kind = VARIANTS[b]["backend"]
        summary[b] = {
            "bare_env_steps_per_s_1_thread": statistics.median(
                x["env_steps_per_s"] for x in bare if x["backend"] == kind
            ),
            "per_runner_1": med(b, 1, "per_runner"),
            "per_runner_2": med(b, 2, "per_runner"),
            "total_1": med(b, 1, "total"),
            "total_2": med(b, 2, "total"),
            "env_share": statistics.median(
                o["env_step_seconds"] / o["seconds"] for s in samples if s["backend"] == b for o in s["runners"]
            ),
            "bytes_per_step": statistics.median(
                o["bytes"] / o["steps"] for s in samples if s["backend"] == b for o in s["runners"]
            ),
            "obs_bytes_per_step": statistics.median(
                o["obs_bytes"] / o["steps"] for s in samples if s["backend"] == b for o in s["runners"]
            ),
            "info_bytes_per_step": statistics.median(
                o["info_bytes"] / o["steps"] for s in samples if s["backend"] == b for o in s["runners"]
            ),
        }
        summary[b]["scaling_1_to_2"] = summary[b]["total_2"] / summary[b]["total_1"]
        # per CPU-second of the EnvRunner process (robust to other load on the machine): the per-core rate
        summary[b]["per_runner_cpu_rate"] = statistics.median(
            o["steps"] / o["cpu_seconds"] for s in samples if s["backend"] == b for o in s["runners"]
        )
        summary[b]["bare_env_steps_per_cpu_s"] = statistics.median(
            x["env_steps_per_cpu_s"] for x in bare if x["backend"] == kind
        )
        its = train[b]["iterations"][1:] or train[b]["iterations"]
        summary[b]["train_driver_cpu_s"] = statistics.median(it["driver_cpu_seconds"] for it in its)
        summary[b]["learner_env_steps_per_driver_cpu_s"] = 2 * args.timesteps / summary[b]["train_driver_cpu_s"]
        timers = [it["timers"] for it in train[b]["iterations"][1:]] or [it["timers"] for it in train[b]["iterations"]]
        for key in ("learner_update_timer", "env_runner_sampling_timer", "training_iteration", "synch_weights"):
            vals = [t[key] for t in timers if key in t]
            if vals:
                summary[b][key + "_s"] = statistics.median(vals)
        if "learner_update_timer_s" in summary[b]:
            summary[b]["learner_env_steps_per_s"] = 2 * args.timesteps / summary[b]["learner_update_timer_s"]
    summary["c_over_reference_per_runner_1"] = summary["c"]["per_runner_1"] / summary["reference"]["per_runner_1"]
    summary["c_over_reference_per_runner_2"] = summary["c"]["per_runner_2"] / summary["reference"]["per_runner_2"]
    summary["c_noinfo_over_reference_per_runner_1"] = (
        summary["c_noinfo"]["per_runner_1"] / summary["reference"]["per_runner_1"]
    )
    print(json.dumps(summary, indent=1))

    import gymnasium
    import torch

    result = {
        "what": "env-steps/s sampled per RLlib EnvRunner (SingleAgentEnvRunner.sample(num_timesteps), explore=True, "
        "PPO's MLP 64x64 on CPU torch): mdvec's C VectorEnv through vector_entry_point (c; c_noinfo: the "
        "same with empty info dicts) vs Gymnasium's SyncVectorEnv of the reference env (reference), same "
        "config; 1 and 2 EnvRunners of 1 CPU each; rounds rotate the order",
        "variants": VARIANTS,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "loadavg_before": load0,
            "loadavg_after": os.getloadavg(),
        },
        "versions": {
            "ray": ray.__version__,
            "gymnasium": gymnasium.__version__,
            "torch": torch.__version__,
            "numpy": np.__version__,
        },
        "config": {
            "envs_per_runner": n,
            "timesteps_per_sample": args.timesteps,
            "rounds": args.rounds,
            "threads_per_runner": 1,
            "task_options": options,
            "train_batch": 2 * args.timesteps,
            "minibatch": 500,
            "epochs": 5,
        },
        "summary": summary,
        "bare": bare,
        "samples": samples,
        "train": train,
    }
    out = args.out or ROOT / "bench" / "results" / f"rllib_sampling_{datetime.now():%Y%m%d-%H%M%S}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str))
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
