"""Command line: ``python -m mdvec {demo,contract,bench,calibrate,train,evaluate,render,config}``; ``-h`` on each."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

from ._args import ArgumentRefused, Parser, finite_float, positive_int, writable_file


def _contract(args: argparse.Namespace) -> int:
    from . import contract

    try:
        tasks = contract.select_tasks(args.task)
    except ValueError as exc:
        print(f"python -m mdvec contract: {exc}", file=sys.stderr)
        return 2
    cases = contract.default_cases(quick=args.quick, tasks=tasks, frames=args.frames)
    t0 = time.perf_counter()
    print(
        f"equality contract: {len(cases)} cases of {len(tasks)} task{'s' if len(tasks) > 1 else ''}, "
        f"C env vs reference env, same draws and actions"
    )
    dot = contract.dot_report()
    if dot is not None:
        print(dot.describe())
    print(f"{'case':44s} {'episodes':>8s} {'obs identical':>17s} {'rewards identical':>19s} {'info miss':>9s}")

    def progress(r: contract.Result) -> None:
        if r.skipped:
            print(f"{r.name:44s} skipped: {r.skipped}", flush=True)
            return
        print(
            f"{r.name:44s} {r.episodes:8d} {r.obs_identical:>8d}/{r.observations:<8d} "
            f"{r.rewards_identical:>9d}/{r.steps:<9d} {r.info_mismatches:9d}"
            + (f"  first mismatch: {r.first_mismatch}" if r.first_mismatch else ""),
            flush=True,
        )

    table = contract.report(cases, progress)
    seconds = time.perf_counter() - t0
    print()
    print(
        f"{'task':26s} {'cases':>5s} {'episodes':>8s} {'values compared':>15s} {'bit-identical':>13s} "
        f"{'mismatches':>10s}  status"
    )
    for name, row in table["tasks"].items():
        status = (
            "skipped: " + row["skipped"]
            if row["cases_run"] == 0
            else "NOT EQUAL"
            if row["mismatches"]
            else "NOT PROVEN (numpy's dot unknown here)"
            if not row["proven"]
            else "EQUAL"
            if row["passed"]
            else f"{row['cases'] - row['cases_run']} of {row['cases']} cases skipped: {row['skipped']}"
        )
        if row["cases_run"] == 0:
            print(f"{name:26s} {row['cases']:5d} {'-':>8s} {'-':>15s} {'-':>13s} {'-':>10s}  {status}")
        else:
            print(
                f"{name:26s} {row['cases']:5d} {row['episodes']:8d} {row['values']:15d} {row['values_identical']:13d} "
                f"{row['mismatches']:10d}  {status}"
            )
    if args.frames:
        print()
        print(f"{'frames':26s} {'compared':>8s} {'equal':>8s} {'bytes compared':>15s} {'bytes equal':>13s}  status")
        for name, row in table["tasks"].items():
            if row["cases_run"] == 0 or not row["frames"]:
                why = "skipped: " + row["skipped"] if row["skipped"] else "no frames compared"
                print(f"{name:26s} {'-':>8s} {'-':>8s} {'-':>15s} {'-':>13s}  {why}")
                continue
            same = row["frames"] == row["frames_identical"] and row["frame_bytes"] == row["frame_bytes_identical"]
            print(
                f"{name:26s} {row['frames']:8d} {row['frames_identical']:8d} {row['frame_bytes']:15d} "
                f"{row['frame_bytes_identical']:13d}  {'EQUAL' if same else 'NOT EQUAL'}"
            )
    t = table["total"]
    table["total"]["seconds"] = round(seconds, 2)
    pct = 100.0 * t["obs_identical"] / max(t["observations"], 1)
    print(
        f"total: {t['episodes']} episodes, {t['observations']} observations, {pct:.2f}% bit-identical, "
        f"{t['rewards_identical']}/{t['steps']} rewards bit-identical, {t['flag_mismatches']} flag and "
        f"{t['info_mismatches']} info mismatches"
    )
    print(
        f"       {t['values_identical']}/{t['values']} values bit-identical; {t['passed']} of {t['cases']} cases "
        f"passed, {t['skipped']} skipped; {seconds:.1f} s"
    )
    if args.frames:
        print(
            f"       {t['frames_identical']}/{t['frames']} frames and {t['frame_bytes_identical']}/{t['frame_bytes']} "
            "bytes equal to the reference's"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)  # checked when parsed: it can be made
        args.json.write_text(json.dumps(table, indent=2))
        print(f"wrote {args.json}")
    verdict = "EQUAL" if t["identical"] else "NOT EQUAL"
    if t["identical"] and t["not_proven"]:
        verdict = f"NOT PROVEN ({', '.join(t['not_proven'])}: {dot.source if dot else ''})"
    if t["skipped"] == t["cases"]:
        verdict = "NOTHING COMPARED"
    if t["skipped"]:
        verdict += f" ({t['skipped']} of {t['cases']} cases skipped, not passed)"
    print(verdict)
    return 0 if t["identical"] and not t["not_proven"] else 1


def _demo(args: argparse.Namespace) -> int:
    import numpy as np

    from .. import VecEnv
    from ..reference.config import TaskConfig
    from . import contract

    try:  # made first: an env count or thread count the library refuses ends the demo before any work
        env = VecEnv(args.envs, seed=0, threads=args.threads)
    except ValueError as exc:
        print(f"python -m mdvec demo: {exc}", file=sys.stderr)
        return 2
    with env:
        print("1/2 equality: C env vs Python reference on the built-in duck (3 cases)")
        cases = [
            c
            for c in contract.default_cases(quick=True)
            if c.name in ("v1 random", "dr + sensor noise + init noise v1", "vector 4 envs x 2 threads, autoreset")
        ]
        total = contract.report(cases)["total"]
        print(
            f"    {total['observations']} observations, {total['obs_identical']} bit-identical; "
            f"{total['steps']} rewards, {total['rewards_identical']} bit-identical"
        )
        print(f"2/2 throughput: hold-pose policy, {args.envs} envs")
        env.reset()
        zeros = np.zeros((env.num_envs, env.nu))
        steps, t0 = 0, time.perf_counter()
        done_returns, ret = [], np.zeros(env.num_envs)
        while time.perf_counter() - t0 < args.seconds:
            _, reward, done, _ = env.step(zeros)
            ret += reward
            done_returns += ret[done].tolist()
            ret[done] = 0
            steps += 1
        seconds = time.perf_counter() - t0
        rate = steps * env.num_envs / seconds
        episode_len = TaskConfig().episode_len
        returns = (
            f"{len(done_returns)} episode{'s' if len(done_returns) > 1 else ''} ended, mean hold-pose return "
            f"{np.mean(done_returns):.1f} (max {episode_len})"
            if done_returns
            else f"no episode ended in the {seconds:.2g} s window ({steps} steps per env; an episode lasts up to "
            f"{episode_len}), so no mean return"
        )
        print(f"    {rate:,.0f} env-steps/s on {env.threads} threads; {returns}")
    return 0 if total["identical"] else 1


def _version_line() -> str:
    """mdvec's version, and the library's and MuJoCo's where the library loads."""
    from .. import __version__

    try:
        from ..vecenv import lib

        L = lib()
        number, mj = L.mdvec_version(), L.mdvec_mujoco_version()
        where = (
            f"libmdvec {number // 10000}.{number // 100 % 100}.{number % 100} ({L.path}), "
            f"MuJoCo {mj // 1000000}.{mj // 1000 % 1000}.{mj % 1000}"
        )
    except (ImportError, OSError) as exc:
        where = f"libmdvec not loadable: {exc}"
    return f"mdvec {__version__}; {where}"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(
        prog="python -m mdvec",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="mdvec's commands; python -m mdvec COMMAND -h shows a command's options.",
    )
    parser.add_argument("--version", action="version", version=_version_line())
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "demo",
        help="equality check and throughput on the built-in duck",
        description="1/2: the C env against the Python reference on 3 quick cases (counts of "
        "bit-identical observations and rewards); 2/2: hold-pose env-steps/s of "
        "mdvec.VecEnv. Exit status 1 when any value differs.",
    )
    p.add_argument("--envs", type=positive_int, default=16, help="envs in the throughput part (default 16)")
    p.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        help="threads for the throughput part, the caller included (default: min(envs, cores, 8))",
    )
    p.add_argument(
        "--seconds",
        type=finite_float(0.0, 3600.0, low_open=True),
        default=3.0,
        help="how long the throughput part runs, in (0, 3600] (default 3)",
    )
    p.set_defaults(func=_demo)
    p = sub.add_parser(
        "contract",
        help="compare the C env with the reference, every feature, every task",
        description="Per task, the C env against its reference (the duck: the Python reference and "
        "its Gymnasium/SB3 adapters; each Gymnasium MuJoCo v5 task: make_vec('mdvec/ID') "
        "against Gymnasium's own make_vec(ID, 'sync')), same seeds and actions, every "
        "value compared bit for bit. Exit status 1 when any value differs, 2 for an "
        "unknown --task. Without gymnasium the v5 tasks are listed as skipped.",
    )
    p.add_argument("--quick", action="store_true", help="one episode (script run) per case, fewer envs")
    p.add_argument(
        "--task",
        action="append",
        metavar="NAME[,NAME...]",
        help="only these tasks (repeatable or a comma list), by name or id: mdvec.task_names() lists them",
    )
    p.add_argument("--json", type=writable_file, default=None, help="write the table here (a JSON file)")
    p.add_argument(
        "--frames",
        action="store_true",
        help="also compare each task's rendered frames with its reference's, byte for byte (64 x 48, vector and "
        "single env; a v5 task in rgbd_tuple against Gymnasium's, the duck and cart-pole against their Python "
        "reference); needs OpenGL (EGL headless)",
    )
    p.set_defaults(func=_contract)
    for name, text in FORWARDED.items():  # each has its own argparse (and -h): the rest goes to it untouched
        p = sub.add_parser(name, help=text, add_help=False)
        p.set_defaults(func=lambda a, name=name: _forward(name, a))
    try:
        args, rest = parser.parse_known_args(argv)
        if rest and args.command not in FORWARDED:
            parser.error(f"unrecognised arguments: {' '.join(rest)}")
    except ArgumentRefused:  # its one line is printed
        return 2
    args.rest = rest
    return args.func(args)


# Subcommands whose module parses its own arguments: ``python -m mdvec NAME -h`` shows them.
FORWARDED = {
    "bench": "side-by-side benchmark (see python -m mdvec bench -h)",
    "calibrate": "hold-pose return and survival per reward (push-speed calibration)",
    "train": "train a PPO policy (SB3) on any task, --backend mdvec|processes (needs mdvec[sb3])",
    "evaluate": "evaluate a policy vs hold-pose (the duck) or all-zero actions (any other task) (needs mdvec[sb3])",
    "render": "render episodes of a policy or hold-pose to a GIF/MP4 (EGL by default)",
    "config": "C/C++ build flags of the pip-installed libmdvec, Gymnasium's model files (= mdvec-config)",
}


def _forward(name: str, args: argparse.Namespace) -> int:
    """Import the subcommand's module only now (train/evaluate import torch and SB3 lazily too)."""
    module = importlib.import_module(f".{name}", __package__)
    return module.main(args.rest)
