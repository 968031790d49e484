"""What following numpy's BLAS costs per step: each task that computes np.linalg.norm, stepped with the
dot the binding hands libmdvec (numpy's own ddot by pointer, ``cfg.dot = cblas64``) against the built-in
plain arithmetic (``cfg.dot = plain``, what libmdvec 1.1 hard-coded), in alternating windows in one
process, one thread, the same actions. Prints per task the median step time of each and their ratio,
and writes the raw figures as JSON.

    python bench/dot_cost.py [--envs 8] [--rounds 15] [--steps 400] [--out bench/results]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import mdvec
from mdvec import npdot, vecenv


def make(task: str, n: int, dot: npdot.NumpyDot) -> mdvec.VecEnv:
    """A VecEnv of task whose numpy dot is ``dot`` (vecenv asks numpy_dot() at create)."""
    real = vecenv.numpy_dot
    vecenv.numpy_dot = lambda: dot  # type: ignore[assignment]
    try:
        venv = mdvec.VecEnv(n, seed=1, threads=1, task=task, autoreset_mode="next_step")
    finally:
        vecenv.numpy_dot = real  # type: ignore[assignment]
    assert venv._h.numpy_dot is dot
    return venv


def window(venv: mdvec.VecEnv, actions: np.ndarray) -> float:
    """Seconds per vector step over the actions."""
    t0 = time.perf_counter()
    for a in actions:
        venv.step_into_buffers(a)
    return (time.perf_counter() - t0) / len(actions)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--steps", type=int, default=400, help="vector steps per window")
    ap.add_argument("--out", type=Path, default=Path("bench/results"))
    args = ap.parse_args()
    own = npdot.numpy_dot()
    plain = dataclasses.replace(own, mode=npdot.DOT_PLAIN, address=0)
    tasks = [t for t in mdvec.task_names() if mdvec.task_uses_numpy_dot(t)]
    rows = {}
    print(f"{own.describe()}\n{'task':12s} {'numpy ddot us/step':>18s} {'plain us/step':>14s} {'ratio':>6s}")
    for task in tasks:
        envs = {"cblas": make(task, args.envs, own), "plain": make(task, args.envs, plain)}
        spec = envs["cblas"].spec
        rng = np.random.default_rng(0)
        low, high = spec.action_low.astype(np.float64), spec.action_high.astype(np.float64)
        actions = rng.uniform(low, high, (args.steps, args.envs, spec.act_dim)).astype(np.float32)
        for v in envs.values():
            v.reset()
            window(v, actions[:50])  # warm up
        times: dict[str, list[float]] = {k: [] for k in envs}
        for r in range(args.rounds):
            order = list(envs) if r % 2 == 0 else list(envs)[::-1]
            for k in order:
                times[k].append(window(envs[k], actions))
        ratios = [a / b for a, b in zip(times["cblas"], times["plain"])]
        row = {k: statistics.median(v) * 1e6 for k, v in times.items()}
        row |= {
            "ratio_median": statistics.median(ratios),
            "ratio_min": min(ratios),
            "ratio_max": max(ratios),
            "raw_us": {k: [x * 1e6 for x in v] for k, v in times.items()},
        }
        rows[task] = row
        print(f"{task:12s} {row['cblas']:18.2f} {row['plain']:14.2f} {row['ratio_median']:6.3f}", flush=True)
        for v in envs.values():
            v.close()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"dot_cost_{stamp}.json"
    path.write_text(
        json.dumps(
            {
                "machine": platform.processor() or platform.machine(),
                "cpus": os.cpu_count(),
                "load": os.getloadavg(),
                "numpy": np.__version__,
                "numpy_dot": own.describe(),
                "envs": args.envs,
                "threads": 1,
                "steps_per_window": args.steps,
                "rounds": args.rounds,
                "tasks": rows,
            },
            indent=2,
        )
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
