"""Per-step Python overhead of mdvec.VecEnv.step: the same trajectory stepped through VecEnv.step and
through the bare ctypes call to mdvec_step, 1 env on 1 thread; the difference is the binding's cost.
Also the rate of one reference DuckEnv stepped in a plain loop in this process, for scale.
The env runs 1 substep per step (--substeps) so that the physics, identical on both paths, does not
drown the difference in the machine's noise; the binding's cost does not depend on it.

Run: PYTHONPATH=python python bench/python_overhead.py [--steps 2000 --rounds 5 --out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import mdvec


def timed(use_binding: bool, steps: int, actions: np.ndarray, substeps: int) -> float:
    """Return seconds per step for one fresh env (seed 0) over the given actions."""
    env = mdvec.VecEnv(1, seed=0, threads=1, substeps=substeps)
    env.reset()
    lib, ptr = mdvec.vecenv.lib(), env._h.ptr
    addresses = [a.ctypes.data for a in actions]  # the raw path gets its pointers for free
    t0 = time.perf_counter()
    if use_binding:
        for a in actions:
            env.step(a)
    else:
        for address in addresses:
            lib.mdvec_step(ptr, address)
    seconds = time.perf_counter() - t0
    env.close()
    return seconds / steps


def duckenv_rate(seconds: float, actions: list[np.ndarray]) -> float:
    """Return env-steps/s of one reference DuckEnv (task defaults) in a plain loop, resetting when done."""
    from mdvec.reference import DuckEnv

    env = DuckEnv(seed=0)
    env.reset()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, _, done, _ = env.step(actions[steps % len(actions)][0])
        steps += 1
        if done:
            env.reset()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--substeps", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    actions = list(np.random.default_rng(0).uniform(-1, 1, (args.steps, 1, 14)))
    raw, bound = [], []
    for r in range(args.rounds):  # alternate, so drift biases both alike
        raw.append(timed(False, args.steps, actions, args.substeps))
        bound.append(timed(True, args.steps, actions, args.substeps))
        print(
            f"round {r + 1}/{args.rounds}: C step {raw[-1] * 1e6:.1f} us, VecEnv.step {bound[-1] * 1e6:.1f} us",
            flush=True,
        )
    overhead = [b - c for b, c in zip(bound, raw)]
    duck = [duckenv_rate(3.0, actions) for _ in range(3)]
    print(f"one DuckEnv in this process: {', '.join(f'{r:,.0f}' for r in duck)} env-steps/s")
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "load": os.getloadavg()[0],
        "steps": args.steps,
        "substeps": args.substeps,
        "c_step_us": [x * 1e6 for x in raw],
        "vecenv_step_us": [x * 1e6 for x in bound],
        "overhead_us": [x * 1e6 for x in overhead],
        "median_overhead_us": float(np.median(overhead) * 1e6),
        "median_c_step_us": float(np.median(raw) * 1e6),
        "duckenv_env_steps_per_s": duck,
        "duckenv_substeps": 10,
    }
    print(
        f"median: C step {result['median_c_step_us']:.1f} us, Python overhead {result['median_overhead_us']:.1f} us/step"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
