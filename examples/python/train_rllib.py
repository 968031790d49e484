"""Train PPO (RLlib, new API stack) on mdvec/DuckBalance-v0 with EnvRunners that step mdvec's C vector env.

Needs the rllib extra in a venv of its own (ray[rllib] pins gymnasium 1.2.2):

    python3 -m venv .venv-ray && . .venv-ray/bin/activate
    pip install torch==2.13.0          # first, on its own: any other spec pulls a multi-GB CUDA build
    pip install '.[rllib]'             # mdvec with ray[rllib] (or, from a checkout: -r ci/requirements-rllib.txt)
    python examples/python/train_rllib.py --env-runners 2 --envs-per-runner 32 --iterations 50

Each EnvRunner builds ``gymnasium.make_vec("mdvec/DuckBalance-v0", num_envs=N,
vectorization_mode="vector_entry_point", threads=T)`` (through ``mdvec.rllib.RLlibVectorEnv``), T being
the CPUs Ray gives it (--cpus-per-runner). Env j of EnvRunner w is seeded from --seed by the rule of
docs/rllib.md, so a run is reproducible from its seed. Without --address the script starts a one-node
Ray on 127.0.0.1 (no dashboard); with --address it joins a running cluster (``ray start --head
--node-ip-address=...`` on each machine). Fault tolerance: an env that raises (a MuJoCo error) is
rebuilt in its EnvRunner (restart_failed_sub_environments), and an EnvRunner that dies is restarted
by Ray and restored by RLlib (restart_failed_env_runners); the run goes on. Prints one line per
iteration and, with --out DIR, writes DIR/progress.json (and a checkpoint with --checkpoint).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before ray is imported: a local Ray on loopback


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0, help="the run's seed (env seeds, torch, RLlib)")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--env-runners", type=int, default=2, help="remote EnvRunners (num_env_runners)")
    p.add_argument("--envs-per-runner", type=int, default=32, help="envs in each EnvRunner's C vector env")
    p.add_argument(
        "--cpus-per-runner",
        type=int,
        default=1,
        help="CPUs Ray gives each EnvRunner = the C worker threads of its vector env",
    )
    p.add_argument(
        "--backend",
        choices=("c", "reference"),
        default="c",
        help="c: mdvec's C VectorEnv (vector_entry_point); reference: SyncVectorEnv of the Python env",
    )
    p.add_argument(
        "--episode-len",
        type=int,
        default=250,
        help="the duck's episode_len task option (shoves then land in its 10%%..90%% window)",
    )
    p.add_argument(
        "--train-batch",
        type=int,
        default=None,
        help="env steps per iteration (default: env runners x envs x 125, at least 4000)",
    )
    p.add_argument("--minibatch", type=int, default=1000)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--address", default=None, help="join this Ray cluster (default: start a local one)")
    p.add_argument(
        "--num-cpus", type=int, default=None, help="CPUs of the local Ray (default: what the runners need + 1)"
    )
    p.add_argument("--out", type=Path, default=None, help="write progress.json here")
    p.add_argument("--checkpoint", action="store_true", help="save a checkpoint in --out at the end")
    return p.parse_args(argv)


def task_options(episode_len: int) -> dict:
    """The duck's options: the default task, or a shorter/longer episode with the shove window scaled
    (the default is steps 25..225 of 250)."""
    if episode_len == 250:
        return {}
    return {"episode_len": episode_len, "push_window": (episode_len // 10, episode_len - episode_len // 10)}


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    import ray

    from mdvec.rllib import ppo_config, runner_report

    n_runners, n_envs = args.env_runners, args.envs_per_runner
    batch = args.train_batch or max(4000, max(1, n_runners) * n_envs * 125)
    if args.address:
        ray.init(address=args.address)
    else:
        cpus = args.num_cpus or max(1, n_runners) * args.cpus_per_runner + 1
        ray.init(num_cpus=cpus, include_dashboard=False, _node_ip_address="127.0.0.1")
    algo = None
    try:
        config = ppo_config(
            seed=args.seed,
            backend=args.backend,
            num_env_runners=n_runners,
            num_envs_per_env_runner=n_envs,
            num_cpus_per_env_runner=args.cpus_per_runner,
            train_batch_size=batch,
            minibatch_size=min(args.minibatch, batch),
            num_epochs=args.epochs,
            lr=args.lr,
            task_options=task_options(args.episode_len),
        )
        config.fault_tolerance(
            restart_failed_env_runners=True,
            restart_failed_sub_environments=True,
            delay_between_env_runner_restarts_s=5.0,
        )
        algo = config.build_algo()
        progress = []
        t_start = time.perf_counter()
        for it in range(1, args.iterations + 1):
            t0 = time.perf_counter()
            res = algo.train()
            dt = time.perf_counter() - t0
            er = res.get("env_runners", {})
            row = {
                "iteration": it,
                "seconds": dt,
                "env_steps": float(er.get("num_env_steps_sampled_lifetime", 0)),
                "episode_return_mean": float(er.get("episode_return_mean", float("nan"))),
                "episode_len_mean": float(er.get("episode_len_mean", float("nan"))),
                "healthy_env_runners": algo.env_runner_group.num_healthy_remote_workers(),
            }
            progress.append(row)
            if it == 1:  # the envs are reset (seeded) on the first sample
                for r in algo.env_runner_group.foreach_env_runner(runner_report, local_env_runner=n_runners == 0):
                    print(
                        f"EnvRunner {r['worker_index']}: {r['env_class']} num_envs={r['num_envs']} "
                        f"threads={r['threads']} node={str(r['node_id'])[:8]} "
                        f"seeds of envs 0, 1: {None if r['seeds'] is None else r['seeds'][:2]}"
                    )
            ended = not math.isnan(row["episode_return_mean"])  # NaN: no episode ended in this iteration
            episodes = (
                f"return {row['episode_return_mean']:8.2f}  len {row['episode_len_mean']:5.0f}"
                if ended
                else "no episode ended yet     "
            )
            print(
                f"iter {it:4d}  steps {row['env_steps']:10.0f}  {episodes}  {batch / dt:8.0f} env-steps/s  "
                f"healthy runners {row['healthy_env_runners']}",
                flush=True,
            )
        total = time.perf_counter() - t_start
        print(f"done: {args.iterations} iterations in {total:.1f} s")
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "progress.json").write_text(
                json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "progress": progress}, indent=1)
            )
            if args.checkpoint:
                print("checkpoint:", algo.save_to_path(str((args.out / "checkpoint").resolve())))
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
