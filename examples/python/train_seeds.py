"""Train PPO on the duck with several seeds, evaluate each, and summarise: one command, resumable.

``python examples/python/train_seeds.py --seeds 1,2,3 --steps 3000000 --out runs/duck``
``python examples/python/train_seeds.py --seeds 1,2,3 --steps 3000000 --out runs/duck -- --ent-coef 0.001``

For each seed k: ``python -m mdvec train --seed k --out OUT/seed_k ...`` (continued with --resume
when OUT/seed_k already holds an unfinished run, skipped when it is finished), then ``python -m mdvec
evaluate`` on its policy.zip (skipped when the evaluation is newer than the policy). Interrupt it
at any time and run the same command again to go on. At the end it writes OUT/seeds.json (every
seed's evaluation, mean and spread across seeds, how many met the goal) and OUT/seeds.png (the
learning curves of all seeds, with the hold-pose return on the evaluation seeds as a line).

Arguments after ``--`` go to ``python -m mdvec train`` unchanged (PPO settings, task options).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if (ROOT / "python" / "mdvec").is_dir() and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

from mdvec.tools import evaluate, train  # noqa: E402

METRICS = ("return_mean", "survival", "upright_share", "median_trunk_height", "episodes_without_fall")


def run_seed(seed: int, folder: Path, args: argparse.Namespace, extra: list[str]) -> int:
    """Train (or resume, or skip) one seed; return train's exit code."""
    summary = folder / "summary.json"
    if summary.is_file() and json.loads(summary.read_text())["timesteps"] >= args.steps:
        print(f"seed {seed}: trained already ({folder})", flush=True)
        return 0
    argv = (
        [
            "--backend",
            args.backend,
            "--envs",
            str(args.envs),
            "--steps",
            str(args.steps),
            "--seed",
            str(seed),
            "--out",
            str(folder),
        ]
        + (["--threads", str(args.threads)] if args.threads else [])
        + extra
    )
    if (folder / "run.json").is_file():
        argv = ["--resume", "--backend", args.backend, "--steps", str(args.steps), "--out", str(folder)] + (
            ["--threads", str(args.threads)] if args.threads else []
        )
    print(f"seed {seed}: python -m mdvec train {' '.join(argv)}", flush=True)
    return train.main(argv)


def evaluate_seed(seed: int, folder: Path, eval_args: list[str]) -> dict:
    policy, result = folder / "policy.zip", folder / "eval_policy.json"
    if not result.is_file() or result.stat().st_mtime < policy.stat().st_mtime:
        print(f"seed {seed}: python -m mdvec evaluate --policy {policy}", flush=True)
        if evaluate.main(["--policy", str(policy), "--out", str(result)] + eval_args) != 0:
            raise SystemExit(f"seed {seed}: evaluation failed")
    return json.loads(result.read_text())


def plot(out: Path, folders: dict[int, Path], hold_return: float | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for seed, folder in folders.items():
        rows = json.loads((folder / "curve.json").read_text())["rows"]
        ax.plot(
            [r["timesteps"] for r in rows],
            [float("nan") if r["ep_return_avg100"] is None else r["ep_return_avg100"] for r in rows],
            lw=1.3,
            label=f"seed {seed} (training episodes, last 100)",
        )
    if hold_return is not None:
        ax.axhline(hold_return, color="k", ls="--", lw=1, label="hold-pose (evaluation seeds)")
        ax.axhline(
            evaluate.GOAL_RETURN_RATIO * hold_return,
            color="tab:red",
            ls=":",
            lw=1,
            label=f"goal: {evaluate.GOAL_RETURN_RATIO}x hold-pose",
        )
    ax.set_xlabel("env steps")
    ax.set_ylabel("episode return")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default="1,2,3", help="training seeds, comma-separated (default %(default)s)")
    p.add_argument("--steps", type=int, default=3_000_000, help="env steps per seed (default %(default)s)")
    p.add_argument("--out", default="runs/duck", help="folder of the seeds' run folders (default %(default)s)")
    p.add_argument("--backend", default="mdvec", choices=train.BACKENDS)
    p.add_argument("--envs", type=int, default=16)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--eval-seeds", default=None, help="evaluation seeds (default: evaluate's)")
    p.add_argument("--eval-episodes", type=int, default=None, help="episodes per evaluation seed (default: evaluate's)")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    out = Path(args.out)
    eval_args = (["--seeds", args.eval_seeds] if args.eval_seeds else []) + (
        ["--episodes", str(args.eval_episodes)] if args.eval_episodes else []
    )
    folders = {s: out / f"seed_{s}" for s in seeds}
    results = {}
    for seed, folder in folders.items():
        code = run_seed(seed, folder, args, extra)
        if code != 0:
            print(f"seed {seed}: train exited with {code}; run the same command again to go on", file=sys.stderr)
            return code
        results[seed] = evaluate_seed(seed, folder, eval_args)

    first = next(iter(results.values()))
    hold = first["hold_pose"]
    summary: dict = {
        "seeds": seeds,
        "steps": args.steps,
        "backend": args.backend,
        "train_args": extra,
        "eval_seeds": first["seeds"],
        "episodes_per_eval_seed": first["episodes_per_seed"],
        "hold_pose": hold,
        "per_seed": {},
        "across_seeds": {},
    }
    for seed, r in results.items():
        summary["per_seed"][seed] = {
            **{m: r["trained"][m] for m in METRICS},
            "return_ratio": r["return_ratio"],
            "goal_met": r["goal"]["met"],
        }
    for m in METRICS + ("return_ratio",):
        values = [v[m] for v in summary["per_seed"].values()]
        summary["across_seeds"][m] = {
            "mean": statistics.fmean(values),
            "std": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values),
            "max": max(values),
        }
    summary["goal_met"] = sum(v["goal_met"] for v in summary["per_seed"].values())
    (out / "seeds.json").write_text(json.dumps(summary, indent=1))
    plot(out / "seeds.png", folders, hold["return_mean"])

    print(f"\n{'seed':>6s} {'return':>8s} {'ratio':>6s} {'survival':>9s} {'upright':>8s} {'height':>7s} {'goal':>5s}")
    for seed, v in summary["per_seed"].items():
        print(
            f"{seed:6d} {v['return_mean']:8.1f} {v['return_ratio']:6.2f} {v['survival']:9.3f} "
            f"{v['upright_share']:8.3f} {v['median_trunk_height']:7.4f} {'yes' if v['goal_met'] else 'no':>5s}"
        )
    print(
        f"{'hold':>6s} {hold['return_mean']:8.1f} {1.0:6.2f} {hold['survival']:9.3f} {hold['upright_share']:8.3f} "
        f"{hold['median_trunk_height']:7.4f}"
    )
    a = summary["across_seeds"]
    print(
        f"across {len(seeds)} seeds: return {a['return_mean']['mean']:.1f} +- {a['return_mean']['std']:.1f}, "
        f"ratio {a['return_ratio']['mean']:.2f} +- {a['return_ratio']['std']:.2f}, survival "
        f"{a['survival']['mean']:.3f} +- {a['survival']['std']:.3f}; goal met by {summary['goal_met']}/{len(seeds)}"
    )
    print(f"wrote {out / 'seeds.json'} and {out / 'seeds.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
