"""Python cost per step of the Gymnasium and SB3 adapters over the raw C VecEnv.

``python bench/adapter_overhead.py [--envs 1 64] [--calls 2000] [--out bench/results/...json]``

For each env count N, one raw ``mdvec.VecEnv`` per autoreset mode and each adapter are built with
the same task; their steps are timed call by call, interleaved (raw, adapter, raw, adapter, ...) so
that load drifts hit both alike. Reported per adapter and N: the median time of one adapter step,
the median of one raw ``VecEnv.step_into_buffers`` (same mode, same actions), and their difference,
the adapter's Python cost per step (copies of the results, the info dict, masks, SB3's list of
dicts). The median of the per-pair differences is reported too (steadier when the machine's load
drifts), and so is the adapter timed alone with the C step made a no-op (the library's buffers
then hold the last real step's results): its Python cost without the physics' noise. The task
runs with ``substeps=1`` so that the physics, the same on both sides and not what is measured,
adds little noise to the differences. Adapters:

* gym.Env        -- ``gymnasium.make("mdvec/DuckBalance-v0")`` unwrapped (one env; N=1 only)
* gym NEXT_STEP  -- ``make_vec(..., vectorization_mode="vector_entry_point")``, NEXT_STEP
* gym SAME_STEP  -- the same, SAME_STEP (final_obs / final_info when envs finish)
* sb3            -- ``mdvec.sb3.make_vec_env`` (step_async + step_wait)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if (ROOT / "python" / "mdvec").is_dir() and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

import numpy as np  # noqa: E402

ID = "mdvec/DuckBalance-v0"


def _interleaved(
    raw: Callable[[], Any], adapter: Callable[[], Any], calls: int, warmup: int = 50
) -> tuple[list[float], list[float]]:
    """Time raw and adapter calls alternately; return the two lists of seconds per call."""
    for _ in range(warmup):
        raw()
        adapter()
    t_raw, t_ad = [], []
    clock = time.perf_counter
    for _ in range(calls):
        t0 = clock()
        raw()
        t1 = clock()
        adapter()
        t2 = clock()
        t_raw.append(t1 - t0)
        t_ad.append(t2 - t1)
    return t_raw, t_ad


class _NoStep:
    """An mdvec.VecEnv whose step_into_buffers does nothing (everything else is the real env's)."""

    def __init__(self, env: Any) -> None:
        self._real = env

    def step_into_buffers(self, actions: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _python_only(adapter: Any, attr: str, step: Callable[[], Any], calls: int) -> float:
    """Median seconds of ``step`` with the adapter's C step made a no-op."""
    holder = adapter
    for part in attr.split(".")[:-1]:
        holder = getattr(holder, part)
    name = attr.split(".")[-1]
    real = getattr(holder, name)
    setattr(holder, name, _NoStep(real))
    try:
        for _ in range(50):
            step()
        times = []
        clock = time.perf_counter
        for _ in range(calls):
            t0 = clock()
            step()
            times.append(clock() - t0)
    finally:
        setattr(holder, name, real)
    return statistics.median(times)


def measure(num_envs: int, calls: int, threads: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    import gymnasium

    import mdvec
    import mdvec.gym  # registers the ids
    from mdvec.sb3 import make_vec_env

    rows = []
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (num_envs, 14)).astype(np.float32)

    def raw_env(mode: str) -> Any:
        env = mdvec.VecEnv(num_envs, seed=0, threads=threads, autoreset_mode=mode, **options)
        env.reset_envs()
        return env

    adapters: list[tuple[str, str, Any, str, Callable[[], Any]]] = []
    if num_envs == 1:
        single = gymnasium.make(ID, **options).unwrapped
        single.reset(seed=0)
        a1 = actions[0].copy()
        adapters.append(("gym.Env", "disabled", single, "_core.venv", lambda: single.step(a1)))
    for name, mode in (("gym NEXT_STEP", "next_step"), ("gym SAME_STEP", "same_step")):
        venv = gymnasium.make_vec(
            ID,
            num_envs=num_envs,
            vectorization_mode="vector_entry_point",
            threads=threads,
            autoreset_mode=mode,
            **options,
        ).unwrapped
        venv.reset(seed=0)
        adapters.append((name, mode, venv, "_env", lambda v=venv: v.step(actions)))
    sb3 = make_vec_env(num_envs, seed=0, threads=threads, **options)
    sb3.reset()
    adapters.append(("sb3", "same_step", sb3, "_env", lambda: sb3.step(actions)))

    for name, mode, adapter, attr, step in adapters:
        raw = raw_env(mode)
        t_raw, t_ad = _interleaved(lambda r=raw: r.step_into_buffers(actions), step, calls)
        raw.close()
        med_raw, med_ad = statistics.median(t_raw), statistics.median(t_ad)
        paired = statistics.median(b - a for a, b in zip(t_raw, t_ad))
        alone = _python_only(adapter, attr, step, calls)
        rows.append(
            {
                "adapter": name,
                "num_envs": num_envs,
                "autoreset_mode": mode,
                "calls": calls,
                "raw_step_median_us": med_raw * 1e6,
                "adapter_step_median_us": med_ad * 1e6,
                "overhead_us": (med_ad - med_raw) * 1e6,
                "overhead_per_env_us": (med_ad - med_raw) * 1e6 / num_envs,
                "paired_difference_median_us": paired * 1e6,
                "python_only_median_us": alone * 1e6,
                "raw_step_mean_us": statistics.fmean(t_raw) * 1e6,
                "adapter_step_mean_us": statistics.fmean(t_ad) * 1e6,
            }
        )
        print(
            f"{name:14s} N={num_envs:3d}  raw {med_raw * 1e6:8.1f} us  adapter {med_ad * 1e6:8.1f} us  "
            f"overhead {(med_ad - med_raw) * 1e6:7.1f} us/step (paired {paired * 1e6:7.1f}, "
            f"python alone {alone * 1e6:6.1f})",
            flush=True,
        )
    sb3.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per adapter and env count")
    parser.add_argument("--threads", type=int, default=1, help="worker threads (the Python cost does not depend on it)")
    parser.add_argument("--substeps", type=int, default=1)
    parser.add_argument("--out", default=None, help="JSON path (default bench/results/adapter_overhead_<date>.json)")
    args = parser.parse_args(argv)
    options = {"substeps": args.substeps}
    rows = []
    for n in args.envs:
        rows += measure(n, args.calls, args.threads, options)
    import gymnasium
    import stable_baselines3

    out = Path(args.out or ROOT / "bench" / "results" / f"adapter_overhead_{time.strftime('%Y-%m-%d')}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    table = {
        "what": "adapter step time minus raw VecEnv.step_into_buffers time, medians of interleaved calls",
        "task_options": options,
        "threads": args.threads,
        "rows": rows,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "loadavg": os.getloadavg(),
        },
        "versions": {
            "numpy": np.__version__,
            "gymnasium": gymnasium.__version__,
            "stable_baselines3": stable_baselines3.__version__,
        },
    }
    out.write_text(json.dumps(table, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
