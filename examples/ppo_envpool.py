"""PPO on Hopper-v5, CleanRL style, in one file, written against EnvPool's API: synchronous or async send/recv.

``python examples/ppo_envpool.py --mode sync --backend mdvec --total-steps 100000``
``python examples/ppo_envpool.py --mode async --num-envs 8 --batch-size 4 --backend envpool``

The environments come from ``envpool.make(task, env_type="gymnasium", num_envs=N, batch_size=B, seed=S,
num_threads=T)``, where ``envpool`` is mdvec's drop-in (``--backend mdvec``: ``import mdvec.envpool as envpool``)
or EnvPool itself (``--backend envpool``: ``import envpool``): that one import is the whole switch.

The agent is CleanRL's ``ppo_continuous_action``: a Gaussian policy (tanh MLPs 64-64 for the mean and the value,
a state-independent log std), actions sampled and clipped to the action box, observations normalised and rewards
scaled by running statistics (as Gymnasium's NormalizeObservation / NormalizeReward wrappers do), GAE, the clipped
surrogate with a clipped value loss, Adam with a linearly annealed learning rate, gradient norm clipping.

Modes (``--mode``):

- ``sync``: ``reset()``, then every iteration the policy acts on all N envs and ``step(actions, env_id)`` steps
  them all (``batch_size = N``).
- ``async``: ``async_reset()``, then every iteration ``recv()`` returns ``batch_size < N`` envs, the policy acts on
  them and ``send(actions, env_id)`` hands them back; the envs in flight are stepped while the policy computes. As
  in CleanRL's EnvPool async variants, the rollout is kept per env by ``info["env_id"]``: an env's transition is
  completed by that env's next arrival, and GAE runs along each env's own sequence.

Both modes share the bookkeeping: each arrival (observation, the reward and flags of the step that led to it)
becomes an entry with the action, log-probability and value computed for it; its successor is the same env's
next entry. A rollout is ``num_steps * N / batch_size`` iterations (``num_steps * N`` env steps); each env's last
entry, whose action is already sent, is carried over to the next rollout and bootstraps the values. Autoreset is
EnvPool's (Gymnasium's NEXT_STEP): an entry whose observation ended an episode is not trained on (its action is
ignored by the env, which resets); a truncated episode bootstraps from the value of its final observation, a
terminated one from zero. ``--total-steps`` counts env steps (rows returned by ``recv`` / ``step``).

At the end the script prints the SHA-256 of the policy's parameters (names and float32 bytes in state_dict order).

What is reproducible:

- On mdvec, both modes: the same arguments give the same parameters, bit for bit, run after run and at any
  ``--num-threads``. mdvec's ``recv`` returns envs in send order (fixed groups ``[0, B)``, ``[B, 2B)``, ... in a
  fixed rotation), each env's results equal synchronous steps with the same actions, and torch runs on one thread
  with seeded generators. The two modes give different parameters (different data: the policy acts on different
  groups at different times), each reproducible.
- On EnvPool, sync: EnvPool steps each env deterministically from its seed, so a sync run repeats itself as long
  as EnvPool returns the batch in the same env order (it does here, ``env_id`` 0..N-1). Its numbers differ from
  mdvec's: EnvPool's Hopper is its own port on MuJoCo 3.6.0 (float32 rewards), within tolerances of Gymnasium's.
- On EnvPool, async: not reproducible. ``recv`` returns the first ``batch_size`` envs to finish, so which envs
  the policy sees together, and so every later action, depends on thread timing. Each env's own physics given its
  actions stays deterministic, but the actions do not.

``--json PATH`` writes the result (hash, per-update timings, returns); ``train(envs, config)`` is importable
(bench/envpool_sidebyside.py uses it with other vector envs).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
if (ROOT / "python" / "mdvec").is_dir() and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))


@dataclasses.dataclass
class Config:
    """PPO settings (CleanRL's ppo_continuous_action defaults, num_steps per env per rollout)."""

    total_steps: int = 100_000
    num_steps: int = 256
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 32
    update_epochs: int = 10
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 1


# ------------------------------------------------------------------------------------------------ the agent
def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> nn.Linear:
    """Orthogonal weights with gain std, constant bias (CleanRL's init)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """CleanRL's continuous-action agent: value MLP, mean MLP, state-independent log std."""

    def __init__(self, obs_dim: int, act_dim: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, act_dim), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

    def act(self, obs: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample actions for obs with the generator gen: (action, log-probability, value)."""
        mean = self.actor_mean(obs)
        std = torch.exp(self.actor_logstd.expand_as(mean))
        action = mean + std * torch.randn(mean.shape, generator=gen)
        logprob = torch.distributions.Normal(mean, std).log_prob(action).sum(1)
        return action, logprob, self.critic(obs).flatten()

    def evaluate(self, obs: torch.Tensor, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(log-probability of action, entropy, value) under the current parameters."""
        mean = self.actor_mean(obs)
        dist = torch.distributions.Normal(mean, torch.exp(self.actor_logstd.expand_as(mean)))
        return dist.log_prob(action).sum(1), dist.entropy().sum(1), self.critic(obs).flatten()


def params_sha256(agent: nn.Module) -> str:
    """SHA-256 over the state_dict's names and the raw bytes of its tensors, in order."""
    h = hashlib.sha256()
    for name, tensor in agent.state_dict().items():
        h.update(name.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


# ------------------------------------------------------------------------------------------------ normalisation
class RunningMeanStd:
    """Running mean and variance over batches (Gymnasium's RunningMeanStd), float64."""

    def __init__(self, shape: tuple[int, ...] = ()) -> None:
        self.mean = np.zeros(shape)
        self.var = np.ones(shape)
        self.count = 1e-4

    def update(self, x: np.ndarray) -> None:
        """Fold the batch x (rows) into the statistics."""
        batch_mean, batch_var, n = np.mean(x, axis=0), np.var(x, axis=0), x.shape[0]
        delta, total = batch_mean - self.mean, self.count + n
        m2 = self.var * self.count + batch_var * n + np.square(delta) * self.count * n / total
        self.mean, self.var, self.count = self.mean + delta * n / total, m2 / total, total


class Normalizer:
    """Observation normalisation and per-env reward scaling by running statistics, updated at every arrival."""

    def __init__(self, num_envs: int, obs_dim: int, gamma: float) -> None:
        self.obs_rms, self.ret_rms = RunningMeanStd((obs_dim,)), RunningMeanStd()
        self.returns = np.zeros(num_envs)
        self.gamma = gamma

    def obs(self, obs: np.ndarray) -> np.ndarray:
        """Update with the batch and return it normalised and clipped to [-10, 10], float32."""
        self.obs_rms.update(obs)
        out = np.clip((obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + 1e-8), -10.0, 10.0)
        return out.astype(np.float32)

    def reward(self, reward: np.ndarray, done: np.ndarray, env_id: np.ndarray) -> np.ndarray:
        """Scale the rewards of envs env_id by the std of their discounted returns, clipped to [-10, 10]."""
        self.returns[env_id] = self.returns[env_id] * self.gamma + reward
        self.ret_rms.update(self.returns[env_id])
        self.returns[env_id] = np.where(done, 0.0, self.returns[env_id])
        return np.clip(reward / np.sqrt(self.ret_rms.var + 1e-8), -10.0, 10.0)


# ------------------------------------------------------------------------------------------------ stepping
class Stepper:
    """One interface over both modes: ``start()``, then ``recv()`` -> (obs, reward, terminated, truncated,
    env_id) and ``send(actions, env_id)``. Sync: reset/step of every env (the step's results wait for the next
    recv); async: EnvPool's async_reset/recv/send."""

    def __init__(self, envs: Any, mode: str) -> None:
        self.envs, self.mode = envs, mode
        self._next: tuple[np.ndarray, ...] | None = None

    def start(self) -> None:
        if self.mode == "async":
            self.envs.async_reset()
            return
        obs, info = self.envs.reset()
        n = len(obs)
        self._next = (obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), np.asarray(info["env_id"]))

    def recv(self) -> tuple[np.ndarray, ...]:
        if self.mode == "async":
            obs, reward, terminated, truncated, info = self.envs.recv()
            return obs, reward, terminated, truncated, np.asarray(info["env_id"])
        assert self._next is not None
        return self._next

    def send(self, actions: np.ndarray, env_id: np.ndarray) -> None:
        if self.mode == "async":
            self.envs.send(actions, env_id)
            return
        obs, reward, terminated, truncated, info = self.envs.step(actions, env_id)
        self._next = (obs, reward, terminated, truncated, np.asarray(info["env_id"]))


class Rollout:
    """Entries in arrival order, kept in blocks (one per recv; block 0: the entries carried over)."""

    KEYS = ("obs", "action", "logprob", "value", "env_id", "reward", "terminated", "truncated")

    def __init__(self) -> None:
        self.blocks: list[dict[str, np.ndarray]] = []

    def add(self, **block: np.ndarray) -> None:
        self.blocks.append(block)

    def flat(self) -> tuple[dict[str, np.ndarray], list[slice]]:
        """The entries as one array per key, and each block's slice."""
        out = {k: np.concatenate([b[k] for b in self.blocks]) for k in self.KEYS}
        slices, start = [], 0
        for b in self.blocks:
            slices.append(slice(start, start + len(b["env_id"])))
            start += len(b["env_id"])
        return out, slices


def advantages(
    data: dict[str, np.ndarray], slices: list[slice], num_envs: int, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GAE along each env's own entries: (advantages, trained mask, index of each env's last entry).

    Entry j's successor s is the next entry of the same env. Its transition has s's reward; it bootstraps from
    s's value unless s terminated; the GAE chain stops where s ended an episode. Entries whose observation ended
    an episode (their action is ignored: the env resets) and each env's last entry (no successor yet) are not
    trained."""
    n = len(data["env_id"])
    succ = np.full(n, -1)
    last = np.full(num_envs, -1)
    for sl in slices:
        idx = np.arange(sl.start, sl.stop)
        ids = data["env_id"][sl]
        prev = last[ids]
        succ[prev[prev >= 0]] = idx[prev >= 0]
        last[ids] = idx
    value = data["value"].astype(np.float64)
    term = data["terminated"].astype(np.float64)
    ended = (data["terminated"] | data["truncated"]).astype(np.float64)
    adv = np.zeros(n)
    for sl in reversed(slices):
        idx = np.arange(sl.start, sl.stop)
        s = succ[sl]
        j, s = idx[s >= 0], s[s >= 0]
        delta = data["reward"][s] + gamma * value[s] * (1.0 - term[s]) - value[j]
        adv[j] = delta + gamma * lam * (1.0 - ended[s]) * adv[s]
    trained = (succ >= 0) & ~(data["terminated"] | data["truncated"])
    return adv, trained, last[last >= 0]


def train(
    envs: Any,
    config: Config,
    mode: str,
    num_envs: int,
    batch_size: int,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train on envs (EnvPool-shaped, gymnasium type) in mode "sync" or "async"; return the result dict."""
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    gen = torch.Generator().manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    obs_dim = int(np.prod(envs.observation_space.shape))
    act_dim = int(np.prod(envs.action_space.shape))
    low, high = envs.action_space.low.astype(np.float32), envs.action_space.high.astype(np.float32)
    agent = Agent(obs_dim, act_dim)
    optimizer = torch.optim.Adam(agent.parameters(), lr=config.learning_rate, eps=1e-5)
    norm = Normalizer(num_envs, obs_dim, config.gamma)

    per_rollout = config.num_steps * num_envs
    iterations = per_rollout // batch_size
    updates = max(1, config.total_steps // per_rollout)
    stepper = Stepper(envs, mode)
    ep_return, ep_length = np.zeros(num_envs), np.zeros(num_envs, np.int64)
    finished: list[float] = []
    rows: list[dict[str, Any]] = []
    carried: dict[str, np.ndarray] | None = None
    global_step = 0
    t_start = time.perf_counter()
    stepper.start()
    for update in range(1, updates + 1):
        if config.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / updates) * config.learning_rate
        rollout = Rollout()
        if carried is not None:
            rollout.add(**carried)
        t0 = time.perf_counter()
        policy_s = 0.0
        for _ in range(iterations):
            obs, reward, terminated, truncated, env_id = stepper.recv()
            reward = np.asarray(reward, np.float64)
            terminated, truncated = np.asarray(terminated, bool), np.asarray(truncated, bool)
            done = terminated | truncated
            global_step += len(env_id)
            ep_return[env_id] += reward
            ep_length[env_id] += 1
            finished.extend(ep_return[env_id][done].tolist())
            ep_return[env_id[done]], ep_length[env_id[done]] = 0.0, 0
            tp = time.perf_counter()
            obs_n = norm.obs(np.asarray(obs, np.float64))
            with torch.no_grad():
                action, logprob, value = agent.act(torch.from_numpy(obs_n), gen)
            action_np = action.numpy()
            policy_s += time.perf_counter() - tp
            stepper.send(np.clip(action_np, low, high), env_id)
            rollout.add(
                obs=obs_n,
                action=action_np,
                logprob=logprob.numpy(),
                value=value.numpy(),
                env_id=env_id.astype(np.int64),
                reward=norm.reward(reward, done, env_id),
                terminated=terminated,
                truncated=truncated,
            )
        rollout_s = time.perf_counter() - t0

        t1 = time.perf_counter()
        data, slices = rollout.flat()
        adv, trained, last = advantages(data, slices, num_envs, config.gamma, config.gae_lambda)
        carried = {k: v[last] for k, v in data.items()}
        b_obs = torch.from_numpy(data["obs"][trained])
        b_actions = torch.from_numpy(data["action"][trained])
        b_logprobs = torch.from_numpy(data["logprob"][trained])
        b_values = torch.from_numpy(data["value"][trained])
        b_adv = torch.from_numpy(adv[trained].astype(np.float32))
        b_returns = b_adv + b_values
        clipfracs: list[float] = []
        for _epoch in range(config.update_epochs):
            for mb in np.array_split(rng.permutation(len(b_obs)), config.num_minibatches):
                mbt = torch.from_numpy(mb)
                newlogprob, entropy, newvalue = agent.evaluate(b_obs[mbt], b_actions[mbt])
                logratio = newlogprob - b_logprobs[mbt]
                ratio = logratio.exp()
                with torch.no_grad():
                    clipfracs.append(((ratio - 1.0).abs() > config.clip_coef).float().mean().item())
                mb_adv = b_adv[mbt]
                if config.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef)
                ).mean()
                if config.clip_vloss:
                    v_unclipped = (newvalue - b_returns[mbt]) ** 2
                    v_clipped = b_values[mbt] + torch.clamp(
                        newvalue - b_values[mbt], -config.clip_coef, config.clip_coef
                    )
                    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_returns[mbt]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mbt]) ** 2).mean()
                loss = pg_loss - config.ent_coef * entropy.mean() + v_loss * config.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
                optimizer.step()
        update_s = time.perf_counter() - t1
        steps = iterations * batch_size
        recent = finished[-20:]
        row = {
            "update": update,
            "global_step": global_step,
            "rollout_s": rollout_s,
            "policy_s": policy_s,
            "update_s": update_s,
            "rollout_steps_per_s": steps / rollout_s,
            "trained_samples": int(trained.sum()),
            "episodes": len(finished),
            "return_recent": float(np.mean(recent)) if recent else None,
            "clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
        }
        rows.append(row)
        ret = f"{row['return_recent']:.1f}" if recent else "-"
        log(
            f"update {update}/{updates} step {global_step} rollout {steps / rollout_s:,.0f} steps/s "
            f"(policy {policy_s / rollout_s:.0%}) update {update_s:.2f} s, return (last 20 episodes) {ret}, "
            f"episodes {len(finished)}"
        )
    wall_s = time.perf_counter() - t_start
    return {
        "params_sha256": params_sha256(agent),
        "mode": mode,
        "num_envs": num_envs,
        "batch_size": batch_size,
        "global_step": global_step,
        "wall_s": wall_s,
        "rollout_s": sum(r["rollout_s"] for r in rows),
        "update_s": sum(r["update_s"] for r in rows),
        "episodes": len(finished),
        "updates": rows,
        "config": dataclasses.asdict(config),
    }


def make_envs(backend: str, mode: str, task: str, num_envs: int, batch_size: int, seed: int, threads: int) -> Any:
    """The vector env: EnvPool's ``make`` from mdvec's drop-in or from EnvPool (the one import swapped)."""
    if backend == "mdvec":
        import mdvec.envpool as envpool
    else:
        import envpool  # type: ignore[import-not-found,no-redef]
    return envpool.make(
        task,
        env_type="gymnasium",
        num_envs=num_envs,
        batch_size=batch_size if mode == "async" else num_envs,
        seed=seed,
        num_threads=threads,
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=("sync", "async"), default="sync")
    p.add_argument("--backend", choices=("mdvec", "envpool"), default="mdvec")
    p.add_argument("--task", default="Hopper-v5", help="EnvPool's task id (default Hopper-v5)")
    p.add_argument("--total-steps", type=int, default=Config.total_steps, help="env steps in all")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=None, help="async: envs per recv (default num_envs / 2)")
    p.add_argument("--num-threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=Config.seed)
    p.add_argument("--num-steps", type=int, default=Config.num_steps, help="env steps per env per rollout")
    p.add_argument("--update-epochs", type=int, default=Config.update_epochs)
    p.add_argument("--num-minibatches", type=int, default=Config.num_minibatches)
    p.add_argument("--learning-rate", type=float, default=Config.learning_rate)
    p.add_argument("--json", type=Path, default=None, help="write the result here")
    args = p.parse_args(argv)
    if args.mode == "sync":
        args.batch_size = args.num_envs
    elif args.batch_size is None:
        args.batch_size = max(1, args.num_envs // 2)
    if args.mode == "async" and not 0 < args.batch_size < args.num_envs:
        p.error(f"--mode async needs 0 < --batch-size < --num-envs, got {args.batch_size} of {args.num_envs}")
    if (args.num_steps * args.num_envs) % args.batch_size:
        p.error("--num-steps x --num-envs must be a multiple of --batch-size")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the script with argv; return the result dict (also printed: its hash; --json: written)."""
    args = parse(argv)
    config = Config(
        total_steps=args.total_steps,
        num_steps=args.num_steps,
        update_epochs=args.update_epochs,
        num_minibatches=args.num_minibatches,
        learning_rate=args.learning_rate,
        seed=args.seed,
    )
    envs = make_envs(args.backend, args.mode, args.task, args.num_envs, args.batch_size, args.seed, args.num_threads)
    print(
        f"PPO {args.task} on {args.backend}, {args.mode}: {args.num_envs} envs, batch {args.batch_size}, "
        f"{args.num_threads} threads, seed {args.seed}",
        flush=True,
    )
    try:
        result = train(envs, config, args.mode, args.num_envs, args.batch_size, log=lambda s: print(s, flush=True))
    finally:
        close = getattr(envs, "close", None)
        if close is not None:
            close()
    result.update(backend=args.backend, task=args.task, num_threads=args.num_threads)
    print(f"params sha256 {result['params_sha256']}  ({result['global_step']} env steps, {result['wall_s']:.1f} s)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
