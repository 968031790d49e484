"""PPO training throughput on both backends: the same SB3 PPO config, alternating slices.

``python bench/train_throughput.py --envs 16 --threads 2 --rounds 3 --updates 2``

Builds one trainer per backend (``mdvec``: the C envs through ``mdvec.sb3``; ``processes``: SB3's
SubprocVecEnv over the Python reference env), same configuration and seed. After one warm-up update
each (not counted), it runs ``--rounds`` rounds; in each round every backend trains ``--updates``
PPO updates, the order alternating between rounds (A B, B A, ...) so that slow drifts of the
machine's load hit both alike. Reported per backend, as JSON and a table:

* env-steps/s over whole updates (rollout + gradient update) and over the rollouts alone;
* the time of one update split into env step (VecEnv step_async + step_wait), policy forward (the
  rollout's policy calls, value bootstrap included), rollout bookkeeping (the rest of the rollout:
  SB3's buffer, GAE, callback) and gradient update (PPO's train());
* the per-round ratio of the rates (mdvec / processes);
* whether both ended with bit-identical parameters (they should: same seed, same data).

The machine's load average before and after is recorded: on a shared machine it explains spread.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if (ROOT / "python" / "mdvec").is_dir() and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

from mdvec.tools.train import BACKENDS, TrainConfig, Trainer, _versions, parse_task_options  # noqa: E402

PHASES = ("env_s", "forward_s", "bookkeeping_s", "update_s")


def summarize(rows: list[dict[str, Any]], per_update: int) -> dict[str, Any]:
    """Return rates and the mean/median time split of the given update rows."""
    total_s = sum(r["rollout_s"] + r["update_s"] for r in rows)
    rollout_s = sum(r["rollout_s"] for r in rows)
    out: dict[str, Any] = {
        "updates": len(rows),
        "env_steps": len(rows) * per_update,
        "seconds": total_s,
        "env_steps_per_s": len(rows) * per_update / total_s,
        "rollout_env_steps_per_s": len(rows) * per_update / rollout_s,
        "per_update_mean_s": {},
        "per_update_median_s": {},
        "share": {},
    }
    for key in ("rollout_s",) + PHASES:
        values = [r[key] for r in rows]
        out["per_update_mean_s"][key] = statistics.fmean(values)
        out["per_update_median_s"][key] = statistics.median(values)
    whole = statistics.fmean([r["rollout_s"] + r["update_s"] for r in rows])
    for key in PHASES:
        out["share"][key] = out["per_update_mean_s"][key] / whole
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    d = TrainConfig()
    p.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated (default %(default)s)")
    p.add_argument("--envs", type=int, default=d.envs)
    p.add_argument("--threads", type=int, default=None, help="mdvec worker threads (default: the library's)")
    p.add_argument("--n-steps", type=int, default=d.n_steps)
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--n-epochs", type=int, default=d.n_epochs)
    p.add_argument("--net", default=",".join(map(str, d.net)))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--updates", type=int, default=2, help="PPO updates per slice (default %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of one slice per backend (default %(default)s)")
    p.add_argument("--warmup", type=int, default=1, help="uncounted updates per backend first (default %(default)s)")
    p.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="duck task option")
    p.add_argument(
        "--out",
        default=None,
        help="JSON file, or a directory to write train_throughput_<time>.json into "
        "(default bench/results/ in the checkout)",
    )
    args = p.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or any(b not in BACKENDS for b in backends):
        p.error(f"--backends: choose from {BACKENDS}")
    task = parse_task_options(args.option)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else ROOT / "bench" / "results"
    if out.is_dir() or not out.suffix:
        out = out / f"train_throughput_{stamp}.json"

    trainers: dict[str, Trainer] = {}
    result: dict[str, Any] = {
        "what": "SB3 PPO training throughput per backend, alternating slices",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "versions": _versions(),
        "loadavg_before": list(os.getloadavg()),
        "config": None,
        "updates_per_slice": args.updates,
        "rounds": args.rounds,
        "warmup_updates": args.warmup,
        "order": [],
    }
    try:
        for b in backends:
            cfg = TrainConfig(
                backend=b,
                envs=args.envs,
                threads=args.threads,
                n_steps=args.n_steps,
                batch_size=args.batch_size,
                n_epochs=args.n_epochs,
                net=tuple(int(v) for v in args.net.split(",")),
                seed=args.seed,
                torch_threads=args.torch_threads,
                task=task,
                out="unused",
            )
            t = time.perf_counter()
            trainers[b] = Trainer(cfg, quiet=True, files=False)
            result.setdefault("startup_s", {})[b] = time.perf_counter() - t
            if b == "mdvec":
                result["mdvec_threads"] = getattr(trainers[b].env.venv, "threads", args.threads)
            cfg_json = cfg.to_json()
            cfg_json.pop("backend"), cfg_json.pop("out")
            result["config"] = cfg_json
            if args.warmup:
                trainers[b].learn_updates(args.warmup)
            print(f"{b}: ready ({result['startup_s'][b]:.1f} s to start, {args.warmup} warm-up update(s))", flush=True)
        per_update = args.n_steps * args.envs
        counted: dict[str, list[dict[str, Any]]] = {b: [] for b in backends}
        ratios = []
        for r in range(args.rounds):
            order = backends if r % 2 == 0 else backends[::-1]
            rates = {}
            for b in order:
                tr = trainers[b]
                n0 = len(tr.run.rows)
                tr.learn_updates(args.updates)
                rows = tr.run.rows[n0:]
                counted[b] += rows
                s = summarize(rows, per_update)
                rates[b] = s["env_steps_per_s"]
                result["order"].append(b)
                print(
                    f"round {r + 1}/{args.rounds} {b:9s}: {s['env_steps_per_s']:8,.0f} env-steps/s "
                    f"(rollout {s['rollout_env_steps_per_s']:,.0f}); per update: env "
                    f"{s['per_update_mean_s']['env_s']:.2f}s, forward {s['per_update_mean_s']['forward_s']:.2f}s, "
                    f"bookkeeping {s['per_update_mean_s']['bookkeeping_s']:.2f}s, "
                    f"gradient {s['per_update_mean_s']['update_s']:.2f}s",
                    flush=True,
                )
            if "mdvec" in rates and "processes" in rates:
                ratios.append(rates["mdvec"] / rates["processes"])
        result["backends"] = {b: summarize(counted[b], per_update) for b in backends}
        result["rows"] = counted
        if ratios:
            result["ratio_per_round"] = ratios
            result["ratio_env_steps_per_s"] = (
                result["backends"]["mdvec"]["env_steps_per_s"] / result["backends"]["processes"]["env_steps_per_s"]
            )
            result["ratio_rollout_env_steps_per_s"] = (
                result["backends"]["mdvec"]["rollout_env_steps_per_s"]
                / result["backends"]["processes"]["rollout_env_steps_per_s"]
            )
        digests = {b: trainers[b].finish().params_sha256 for b in backends}
        result["params_sha256"] = digests
        result["params_identical"] = len(set(digests.values())) == 1
        result["loadavg_after"] = list(os.getloadavg())
    finally:
        for tr in trainers.values():
            tr.close()

    print()
    print(
        f"{'backend':10s} {'env-steps/s':>12s} {'rollout':>10s} | per update (mean s): {'env':>6s} {'forward':>8s} "
        f"{'bookkeep':>9s} {'gradient':>9s}"
    )
    for b, s in result["backends"].items():
        m = s["per_update_mean_s"]
        print(
            f"{b:10s} {s['env_steps_per_s']:12,.0f} {s['rollout_env_steps_per_s']:10,.0f} | {'':20s} "
            f"{m['env_s']:6.2f} {m['forward_s']:8.2f} {m['bookkeeping_s']:9.2f} {m['update_s']:9.2f}"
        )
    if ratios:
        print(
            f"mdvec / processes: {result['ratio_env_steps_per_s']:.2f}x whole updates, "
            f"{result['ratio_rollout_env_steps_per_s']:.2f}x rollouts; per round "
            + ", ".join(f"{x:.2f}" for x in ratios)
        )
    n_updates = trainers[backends[0]].run.rows[-1]["update"]
    if len(backends) == 1:
        print(f"parameters after {n_updates} updates: sha256 {digests[backends[0]]}")
    else:
        print(
            f"parameters after {n_updates} updates: "
            + ("bit-identical on " + " and ".join(backends) if result["params_identical"] else f"DIFFER {digests}")
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
