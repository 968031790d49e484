"""Command line: ``python -m mdvec {demo,contract,bench,calibrate}``; ``-h`` on each for options."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def _contract(args: argparse.Namespace) -> int:
    from . import contract

    cases = contract.default_cases(quick=args.quick)
    print(f"equality contract: {len(cases)} cases, C env vs reference env, same draws and actions")
    print(f"{'case':44s} {'episodes':>8s} {'obs identical':>17s} {'rewards identical':>19s} {'info miss':>9s} {'max |dobs|':>10s}")

    def progress(r: contract.Result) -> None:
        print(f"{r.name:44s} {r.episodes:8d} {r.obs_identical:>8d}/{r.observations:<8d} "
              f"{r.rewards_identical:>9d}/{r.steps:<9d} {r.info_mismatches:9d} {r.max_abs_obs_diff:10.3g}"
              + (f"  first mismatch: {r.first_mismatch}" if r.first_mismatch else ""), flush=True)

    table = contract.report(cases, progress)
    t = table["total"]
    pct = 100.0 * t["obs_identical"] / max(t["observations"], 1)
    print(f"total: {t['episodes']} episodes, {t['observations']} observations, {pct:.2f}% bit-identical, "
          f"{t['rewards_identical']}/{t['steps']} rewards bit-identical, {t['flag_mismatches']} flag and "
          f"{t['info_mismatches']} info mismatches, max |dobs| {t['max_abs_obs_diff']:.3g}, "
          f"max reward rel diff {t['max_reward_rel_diff']:.3g}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(table, indent=2))
        print(f"wrote {args.json}")
    print("EQUAL" if t["identical"] else "NOT EQUAL")
    return 0 if t["identical"] else 1


def _demo(args: argparse.Namespace) -> int:
    import numpy as np

    from . import VecEnv, contract

    print("1/2 equality: C env vs Python reference on the built-in duck (3 cases)")
    cases = [c for c in contract.default_cases(quick=True) if c.name in ("v1 random", "dr + sensor noise + init noise v1", "vector 4 envs x 2 threads, autoreset")]
    total = contract.report(cases)["total"]
    print(f"    {total['observations']} observations, {total['obs_identical']} bit-identical; "
          f"{total['steps']} rewards, {total['rewards_identical']} bit-identical")
    print(f"2/2 throughput: hold-pose policy, {args.envs} envs")
    with VecEnv(args.envs, seed=0, threads=args.threads) as env:
        env.reset()
        zeros = np.zeros((env.num_envs, env.nu))
        steps, t0 = 0, time.perf_counter()
        returns, done_returns, ret = [], [], np.zeros(env.num_envs)
        while time.perf_counter() - t0 < args.seconds:
            _, reward, done, info = env.step(zeros)
            ret += reward
            done_returns += ret[done].tolist()
            ret[done] = 0
            steps += 1
        rate = steps * env.num_envs / (time.perf_counter() - t0)
        print(f"    {rate:,.0f} env-steps/s on {env.threads} threads; {len(done_returns)} episodes, "
              f"mean hold-pose return {np.mean(done_returns) if done_returns else float('nan'):.1f} (max 500)")
    return 0 if total["identical"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mdvec", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="equality check and throughput on the built-in duck")
    p.add_argument("--envs", type=int, default=16)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--seconds", type=float, default=3.0)
    p.set_defaults(func=_demo)
    p = sub.add_parser("contract", help="compare the C env with the reference, every feature")
    p.add_argument("--quick", action="store_true", help="one episode per case")
    p.add_argument("--json", default=None, help="write the table here")
    p.set_defaults(func=_contract)
    p = sub.add_parser("bench", help="side-by-side benchmark (see python -m mdvec bench -h)", add_help=False)
    p.set_defaults(func=lambda a: _forward("bench", a))
    p = sub.add_parser("calibrate", help="hold-pose return and survival per reward (push-speed calibration)", add_help=False)
    p.set_defaults(func=lambda a: _forward("calibrate", a))
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in ("bench", "calibrate"):
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    args.rest = rest
    return args.func(args)


def _forward(name: str, args: argparse.Namespace) -> int:
    if name == "bench":
        from .bench import main as run
    else:
        from .calibrate import main as run
    return run(args.rest)


if __name__ == "__main__":
    sys.exit(main())
