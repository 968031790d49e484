"""Evaluate a trained policy on the Python reference duck, next to the hold-pose policy, or on any other
task next to all-zero actions.

``python -m mdvec evaluate --policy runs/duck1/policy.zip``
``python -m mdvec evaluate --policy runs/hopper1/policy.zip`` (the task is the one the policy was trained on)

On a task other than the duck (any task of ``mdvec.task_names()``: a Gymnasium task, ``cartpole_swingup``)
each seed s gets one C env, reseeded with s once, that runs the episodes back to back (bit for bit its
reference: Gymnasium's env, or the task's Python reference); reported, for the policy and for all-zero
actions: return (mean, std, min, per seed), mean episode length and the share of episodes that ended by
termination. A Control Suite task (``cheetah-run``) runs on its flat observation (dm_control's
flatten_observation order), the one ``train`` trains its MlpPolicy on; its seeds lie in [0, 2**32 - 1]
(np.random.RandomState's).

Each evaluation seed s builds one ``mdvec.reference.DuckEnv(seed=s)`` and runs ``--episodes``
episodes back to back on it (the env's own generator draws every episode: pushes, noise, DR), with
deterministic actions (the policy's mean action, clipped to [-1, 1]). The hold-pose policy (all-zero
actions: hold the home pose) runs on the same seeds, so both meet the same shoves.

Reported per policy: episode return (mean, std, min, per seed), survival (share of steps not
fallen), upright share (share of steps with the trunk's z axis within about 26 degrees of vertical,
``upright_cos > 0.9``), median trunk height, the share of episodes with no fall, and what a step
earns while the duck is up (the reward and each unweighted term, ``r_up``, ``r_pose``, ...: a policy
that survives by leaning shows it there). The task options
(``-o``) default to the ones the policy was trained with (its run folder's run.json).

The JSON goes to ``--out``, else to ``eval_<policy name>.json`` in the policy's train run folder (the one
holding its run.json), else in the current folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._paths import writable_file
from .._resources import VARIANTS
from ._args import SEED_MAX, ArgumentRefused, Parser, add_task_option, int_list, policy_path, positive_int
from ._args import writable_file as writable_file_arg

DEFAULT_SEEDS = (10_000_000, 10_000_001, 10_000_002, 10_000_003, 10_000_004)
DEFAULT_EPISODES = 20
UPRIGHT_COS = 0.9
GOAL_SURVIVAL = 0.9
GOAL_RETURN_RATIO = 1.3

Policy = Callable[[np.ndarray], np.ndarray]


def hold_pose(obs: np.ndarray) -> np.ndarray:
    """The hold-pose policy: all-zero actions (servo targets at the home pose)."""
    return np.zeros((obs.shape[0], 14), dtype=np.float32)


def check_policy_file(path: Path) -> None:
    """Raise ValueError (one line) unless path is an SB3 policy zip that looks whole."""
    from .train import checkpoint_damage

    if not path.is_file():
        raise ValueError(f"--policy: no such file {path}")
    why = checkpoint_damage(path)
    if why:
        raise ValueError(f"--policy: {path} is not a loadable Stable-Baselines3 policy: {why}")


def load_policy(path: str | Path, torch_threads: int = 1) -> Policy:
    """Return a batch policy (obs (n, 48) -> actions (n, 14) float32) from an SB3 PPO zip, deterministic."""
    import torch

    torch.set_num_threads(torch_threads)
    from stable_baselines3 import PPO

    model = PPO.load(str(path), device="cpu")

    def act(obs: np.ndarray) -> np.ndarray:
        action, _ = model.predict(obs, deterministic=True)
        return np.asarray(action, dtype=np.float32)

    return act


def run_episodes(
    policy: Policy, seeds: Sequence[int], episodes: int, variant: str = "default", task: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run ``episodes`` episodes per seed (seeds in lockstep, batched policy calls); return the metrics."""
    from ..reference import DuckEnv

    envs = [DuckEnv(seed=s, variant=variant, **(task or {})) for s in seeds]
    n, length = len(envs), envs[0].cfg.episode_len
    returns = np.zeros((n, episodes))
    fallen = np.zeros((n, episodes, length), dtype=bool)
    up = np.zeros((n, episodes, length))
    height = np.zeros((n, episodes, length))
    term_sums: dict[str, float] = {}  # reward terms (info "r_*") and the reward, summed over steps not fallen
    for ep in range(episodes):
        obs = np.stack([e.reset() for e in envs])
        for t in range(length):
            action = policy(obs)
            for k, env in enumerate(envs):
                o, r, done, info = env.step(action[k])
                obs[k] = o
                returns[k, ep] += r
                fallen[k, ep, t] = info["fallen"]
                up[k, ep, t] = info["upright_cos"]
                height[k, ep, t] = info["trunk_height"]
                if not info["fallen"]:
                    for key, value in info.items():
                        if key.startswith("r_"):
                            term_sums[key] = term_sums.get(key, 0.0) + float(value)
                    term_sums["reward"] = term_sums.get("reward", 0.0) + float(r)
            if done:
                break
    h_home = float(envs[0].info.h_home)
    alive_steps = max(int((~fallen).sum()), 1)
    return {
        "return_mean": float(returns.mean()),
        "return_std": float(returns.std()),
        "return_min": float(returns.min()),
        "return_per_seed": [float(v) for v in returns.mean(axis=1)],
        "survival": float(1.0 - fallen.mean()),
        "upright_share": float((up > UPRIGHT_COS).mean()),
        "median_trunk_height": float(np.median(height)),
        "median_trunk_height_rel": float(np.median(height) / h_home),
        "episodes_without_fall": float((~fallen.any(axis=2)).mean()),
        # what a step earns while the duck is up: the reward and each of its terms (info "r_*"), unweighted
        "alive_step_means": {key: v / alive_steps for key, v in term_sums.items()},
        "episodes": int(n * episodes),
        "steps": int(fallen.size),
    }


def run_task_episodes(
    policy: Policy | None, env: str, seeds: Sequence[int], episodes: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run ``episodes`` episodes per seed of a libmdvec task other than the duck (one C env per seed, seeded
    once with it, then episodes back to back on its generator; seeds in lockstep, batched policy calls).
    ``policy`` None: all-zero actions, the baseline of a task without a hold pose."""
    from ..vecenv import VecEnv

    n = len(seeds)
    returns, lengths = np.zeros((n, episodes)), np.zeros((n, episodes), dtype=np.int64)
    terminated = np.zeros((n, episodes), dtype=bool)
    with VecEnv(n, task=env, autoreset_mode="disabled", **(options or {})) as venv:
        b = venv.buffers()
        if policy is None:
            zeros = np.zeros((n, venv.nu), dtype=np.float32)
            policy = lambda obs: zeros  # noqa: E731
        for ep in range(episodes):
            venv.reset_envs(seeds=list(seeds) if ep == 0 else None)
            active = np.ones(n, dtype=bool)
            while active.any():  # a finished env steps on (its results ignored) until all have finished
                venv.step_into_buffers(np.asarray(policy(b["obs"].copy()), dtype=np.float32))
                returns[active, ep] += b["reward"][active]
                lengths[active, ep] += 1
                terminated[active, ep] = b["terminated"][active]
                active &= ~(b["terminated"] | b["truncated"])
    return {
        "return_mean": float(returns.mean()),
        "return_std": float(returns.std()),
        "return_min": float(returns.min()),
        "return_per_seed": [float(v) for v in returns.mean(axis=1)],
        "episode_len_mean": float(lengths.mean()),
        "terminated_share": float(terminated.mean()),
        "episodes": int(n * episodes),
        "steps": int(lengths.sum()),
    }


def evaluate(
    policy_path: str | Path | None,
    seeds: Sequence[int] = DEFAULT_SEEDS,
    episodes: int = DEFAULT_EPISODES,
    variant: str = "default",
    task: dict[str, Any] | None = None,
    baseline: bool = True,
    env: str = "duck",
) -> dict[str, Any]:
    """Evaluate a policy file (None or "hold-pose": the baseline) and, unless told not to, the baseline: the
    hold-pose policy on the duck (its reference env), all-zero actions on another task (its C envs)."""
    result: dict[str, Any] = {
        "policy": str(policy_path) if policy_path else "hold-pose",
        "seeds": list(seeds),
        "episodes_per_seed": episodes,
        "variant": variant,
        "task": dict(task or {}),
        "deterministic": True,
        "env": env,
    }
    t0 = time.perf_counter()
    if env != "duck":
        if policy_path and str(policy_path) != "hold-pose":
            result["trained"] = run_task_episodes(load_policy(policy_path), env, seeds, episodes, task)
        if baseline or "trained" not in result:
            result["zero_actions"] = run_task_episodes(None, env, seeds, episodes, task)
        if "trained" in result and "zero_actions" in result and result["zero_actions"]["return_mean"]:
            result["return_ratio"] = result["trained"]["return_mean"] / result["zero_actions"]["return_mean"]
        result["wall_s"] = time.perf_counter() - t0
        return result
    if policy_path and str(policy_path) != "hold-pose":
        result["trained"] = run_episodes(load_policy(policy_path), seeds, episodes, variant, task)
    if baseline or "trained" not in result:
        result["hold_pose"] = run_episodes(hold_pose, seeds, episodes, variant, task)
    if "trained" in result and "hold_pose" in result:
        tr, hp = result["trained"], result["hold_pose"]
        ratio = tr["return_mean"] / hp["return_mean"] if hp["return_mean"] else float("nan")
        result["return_ratio"] = ratio
        result["goal"] = {
            "survival_min": GOAL_SURVIVAL,
            "return_ratio_min": GOAL_RETURN_RATIO,
            "met": bool(tr["survival"] >= GOAL_SURVIVAL and ratio >= GOAL_RETURN_RATIO),
        }
    result["wall_s"] = time.perf_counter() - t0
    return result


def format_table(result: dict[str, Any]) -> str:
    """Return the evaluation as a small text table."""
    cols = [
        (name, result[key])
        for name, key in (("trained", "trained"), ("hold-pose", "hold_pose"), ("zero actions", "zero_actions"))
        if key in result
    ]
    lines = [f"{'':28s}" + "".join(f"{name:>14s}" for name, _ in cols)]
    for label, key, fmt in (
        ("return (mean)", "return_mean", "{:14.1f}"),
        ("return (std)", "return_std", "{:14.1f}"),
        ("return (min)", "return_min", "{:14.1f}"),
        ("survival", "survival", "{:14.3f}"),
        ("upright share (cos > 0.9)", "upright_share", "{:14.3f}"),
        ("median trunk height (m)", "median_trunk_height", "{:14.4f}"),
        ("  relative to home", "median_trunk_height_rel", "{:14.3f}"),
        ("episodes without a fall", "episodes_without_fall", "{:14.3f}"),
        ("episode length (mean)", "episode_len_mean", "{:14.1f}"),
        ("episodes terminated", "terminated_share", "{:14.3f}"),
    ):
        if all(key in m for _, m in cols):
            lines.append(f"{label:28s}" + "".join(fmt.format(m[key]) for _, m in cols))
    terms = list(cols[0][1].get("alive_step_means", {}))
    if terms:
        lines.append("per step while up (mean):")
        for key in terms:
            lines.append(
                f"  {key:26s}" + "".join(f"{m['alive_step_means'].get(key, float('nan')):14.3f}" for _, m in cols)
            )
    if "return_ratio" in result and "goal" not in result:
        lines.append(f"return ratio trained / zero actions: {result['return_ratio']:.3f}")
    if "goal" in result:
        g = result["goal"]
        lines.append(
            f"return ratio trained / hold-pose: {result['return_ratio']:.3f}; goal (survival >= "
            f"{g['survival_min']} and ratio >= {g['return_ratio_min']}): {'met' if g['met'] else 'not met'}"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from .train import task_option_help

    p = Parser(
        prog="python -m mdvec evaluate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="task options (-o NAME=VALUE, repeatable; defaults shown):\n" + task_option_help(),
    )
    p.add_argument(
        "--policy",
        type=policy_path,
        required=True,
        help="an SB3 PPO zip (train's policy.zip or a checkpoint), or hold-pose",
    )
    p.add_argument(
        "--seeds",
        type=int_list(0, SEED_MAX),
        default=",".join(map(str, DEFAULT_SEEDS)),
        help="evaluation seeds, comma-separated (default %(default)s)",
    )
    p.add_argument(
        "--episodes", type=positive_int, default=DEFAULT_EPISODES, help="episodes per seed (default %(default)s)"
    )
    p.add_argument(
        "--no-baseline", action="store_true", help="skip the baseline (hold-pose; zero actions off the duck)"
    )
    add_task_option(p, help="task (default: the policy's training env, else the duck)")
    p.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="task option (default: the policy's training options)",
    )
    p.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        default=None,
        help="built-in duck model variant (default: the training one)",
    )
    p.add_argument(
        "--out",
        type=writable_file_arg,
        default=None,
        help="JSON file to write (default: eval_<policy name>.json in the policy's train run folder, the "
        "one holding its run.json, else in the current folder: never beside a policy shipped in a "
        "package or a source tree)",
    )
    return p


def policy_setup(policy: str, env_arg: str | None, options: list[str]) -> tuple[Any, str, dict[str, Any]]:
    """What evaluate and render read off ``--policy``, ``--env`` and ``-o``: the policy's run config (None
    for "hold-pose"), the task (``--env``, else the run's, else the duck) and its options (the run's, with
    ``-o`` over them); raise ValueError (one line) for a damaged policy or a task other than its run's."""
    from .train import DUCK, parse_task_options, read_run_config, resolve_env

    saved = None
    if policy != "hold-pose":
        check_policy_file(Path(policy))
        saved = read_run_config(Path(policy))
    env = resolve_env(env_arg) if env_arg else (saved.env if saved else DUCK)
    if saved is not None and saved.env != env:
        raise ValueError(f"--env: the policy was trained on {saved.env}, not {env}")
    task = dict(saved.task) if saved else {}
    task.update(parse_task_options(options, env))
    return saved, env, task


def main(argv: list[str] | None = None) -> int:
    from .train import DUCK, require_sb3, run_folder

    try:
        args = build_parser().parse_args(argv)
    except ArgumentRefused:  # its one line is printed
        return 2
    try:
        seeds = list(args.seeds)
        trained = args.policy != "hold-pose"
        saved, env, task = policy_setup(args.policy, args.env, args.option)
        variant = args.variant or (saved.variant if saved else "default")
        out = (
            Path(args.out)
            if args.out
            else (
                (run_folder(Path(args.policy)) or Path()) / f"eval_{Path(args.policy).stem}.json"
                if trained
                else Path("eval_hold-pose.json")
            )
        )
        writable_file(out, "--out")  # before the evaluation, not after it
    except ValueError as exc:
        print(f"evaluate: {exc}", file=sys.stderr)
        return 2
    missing = require_sb3("evaluate") if trained else None  # imports torch: after the checks
    if missing:
        print(missing, file=sys.stderr)
        return 2
    where = "the reference duck" if env == DUCK else f"{env} (C envs, equal to its reference)"
    print(
        f"evaluating {args.policy} on {where}: seeds {seeds} x {args.episodes} episodes, "
        f"deterministic actions; task options {task or 'default'}"
        + (f", variant {variant}" if variant != "default" else ""),
        flush=True,
    )
    try:
        result = evaluate(
            args.policy if trained else None,
            seeds,
            args.episodes,
            variant,
            task,
            baseline=not args.no_baseline,
            env=env,
        )
    except (ValueError, TypeError) as exc:  # e.g. an option the task refuses
        print(f"evaluate: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out} ({result['wall_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
