"""Push-speed calibration (docs/duck_task.md section 2): hold-pose return and survival per reward version.

Runs the hold-pose policy (all-zero actions) over seeds x episodes and reports, per reward version,
the return and the survival (fraction of steps not fallen) as mean +/- sd over seeds. ``--scan``
tries several push-speed ranges; the task's default range is the one frozen from such a scan.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from ..reference.config import TaskConfig
from ._args import ArgumentRefused, Parser, finite_float, positive_int, writable_file


def hold_pose(
    push_speed: tuple[float, float], reward: str, seeds: int, episodes: int, backend: str = "c"
) -> dict[str, Any]:
    """Return per-seed returns and survivals of the hold-pose policy."""
    steps = TaskConfig().episode_len * episodes
    returns, survivals = [], []
    for seed in range(seeds):
        cfg: dict[str, Any] = dict(push_speed=push_speed, reward=reward)
        if backend == "c":
            from ..vecenv import VecEnv

            env: Any = VecEnv(1, seed=1000 * seed, threads=1, **cfg)
        else:
            from ..reference import ProcVecEnv

            env = ProcVecEnv(1, seed=1000 * seed, workers=1, **cfg)
        env.reset()
        zeros = np.zeros((1, env.nu))
        total, upright = 0.0, 0
        for _ in range(steps):
            _, reward_t, _, info = env.step(zeros)
            total += float(reward_t[0])
            upright += int(not info["fallen"][0])
        env.close()
        returns.append(total / episodes)
        survivals.append(upright / steps)
    return {
        "push_speed": list(push_speed),
        "reward": reward,
        "seeds": seeds,
        "episodes_per_seed": episodes,
        "return_mean": float(np.mean(returns)),
        "return_sd": float(np.std(returns, ddof=1)) if seeds > 1 else 0.0,
        "survival_mean": float(np.mean(survivals)),
        "survival_sd": float(np.std(survivals, ddof=1)) if seeds > 1 else 0.0,
        "returns": returns,
        "survivals": survivals,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the calibration the command line asks for; return the exit status."""
    parser = Parser(prog="python -m mdvec calibrate", description=__doc__)
    parser.add_argument(
        "--push-speed",
        type=finite_float(0.0),
        nargs=2,
        metavar=("LOW", "HIGH"),
        default=TaskConfig().push_speed,
        help="shove speed range in m/s, LOW <= HIGH (default %(default)s; --scan tries several)",
    )
    parser.add_argument("--scan", action="store_true", help="try several ranges around the default")
    parser.add_argument("--seeds", type=positive_int, default=5, help="seeds, 0 to N-1 (default %(default)s)")
    parser.add_argument("--episodes", type=positive_int, default=20, help="episodes per seed (default %(default)s)")
    parser.add_argument(
        "--backend",
        choices=["c", "reference"],
        default="c",
        help="c: mdvec.VecEnv (bit-identical to the reference, faster)",
    )
    parser.add_argument("--json", type=writable_file, default=None, help="also write the rows to this JSON file")
    try:
        args = parser.parse_args(argv)
        if args.push_speed[0] > args.push_speed[1]:
            low, high = args.push_speed
            parser.error(f"argument --push-speed: LOW must not exceed HIGH, got {low:g} {high:g}")
    except ArgumentRefused:  # its one line is printed
        return 2
    ranges = [tuple(args.push_speed)]
    if args.scan:
        ranges = [(0.1, 0.3), (0.2, 0.6), (0.3, 0.9), (0.4, 1.2), (0.6, 1.6)]
    rows = []
    print(f"hold-pose policy, {args.seeds} seeds x {args.episodes} episodes, backend {args.backend}")
    print(f"{'push_speed':>12s} {'reward':>6s} {'return':>16s} {'survival':>16s} {'secs':>6s}")
    for rng in ranges:
        for reward in ("v1", "v2"):
            t0 = time.perf_counter()
            row = hold_pose(rng, reward, args.seeds, args.episodes, args.backend)
            rows.append(row)
            inside = "  (inside 30-70%)" if 0.3 <= row["survival_mean"] <= 0.7 else ""
            print(
                f"{rng!s:>12s} {reward:>6s} {row['return_mean']:8.1f} +/- {row['return_sd']:5.1f} "
                f"{100 * row['survival_mean']:7.1f}% +/- {100 * row['survival_sd']:4.1f} "
                f"{time.perf_counter() - t0:6.1f}{inside}",
                flush=True,
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)  # checked when parsed: it can be made
        args.json.write_text(json.dumps(rows, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
