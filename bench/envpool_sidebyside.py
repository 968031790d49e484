"""Async against sync, mdvec against EnvPool 1.2.5 and SB3's SubprocVecEnv, with a policy in the loop (issue 29).

Hopper-v5, ``--threads`` threads (2), for each ``--configs`` pair N:B (8:4, 16:8, 64:32: N envs, async batches of
B):

  mdvec sync      ``mdvec.envpool.make(..., num_envs=N, batch_size=N, num_threads=T)``: ``step`` of every env
  mdvec async     ``mdvec.envpool.make(..., num_envs=N, batch_size=B, num_threads=T)``: ``recv`` / ``send``
                  (deterministic: the next B envs in send order)
  EnvPool sync    ``envpool.make`` (1.2.5) the same way: its own Hopper port on MuJoCo 3.6.0
  EnvPool async   EnvPool's recv / send (the first B envs to finish)
  SB3 subproc     ``stable_baselines3.common.vec_env.SubprocVecEnv`` of N processes over
                  ``gymnasium.make("Hopper-v5")`` (sync only; N processes, not T threads; only where N <=
                  ``--sb3-max-envs``, 16), with a wrapper that
                  gives EnvPool's NEXT_STEP autoreset (SubprocVecEnv would reset at once): the step after an
                  episode ends resets that env, its action ignored

Two measurements, each in alternating windows (each round runs every cell once, the starting cell rotating), so
that the machine's drift hits all cells alike; rates are medians over rounds, ratios the medians of per-round
ratios against mdvec sync:

(a) Policy in the loop. A fixed MLP (11 -> W -> W -> 3, tanh; torch, 1 thread, float32, no grad) runs on each
    batch's observations, ``--widths`` W (0: no network). The actions sent are uniform random ones from a table at
    every width (the MLP's output is computed and dropped): Hopper's step costs depend on its actions, and so every
    width steps the same physics and only the policy's cost changes. Sync cells: per iteration, the policy on N observations, then ``step``. Async cells: per
    iteration, ``recv`` B envs, the policy on them, ``send``. Rate: env steps (rows received) per second. The
    policy's share of the loop is its time over the window's (in mdvec sync: the time nothing steps).
(b) The PPO of examples/ppo_envpool.py (``train``): ``--ppo-updates`` updates of 2048 env steps each
    (num_steps = 2048 / N), default CleanRL settings; the rollout phase's env steps per second (median over the
    updates after the first) and the end-to-end wall clock (env creation + training). SB3 subproc runs the same
    PPO through its sync interface.

Every cell runs in a worker process that keeps its envs between windows (one worker per interpreter: the current
one, and for the EnvPool cells, when this interpreter cannot import envpool, ``--envpool-python``, default
.venv-envpool/bin/python); only one worker measures at a time. Async windows start by sending the envs received
at the end of the previous window and end by receiving every env in flight (untimed), so nothing steps between
windows. The JSON (``bench/results/envpool_sidebyside_<stamp>.json``) holds every window, the medians, the
ratios, the policy shares, the goal's verdict (mdvec async ahead of mdvec sync wherever mdvec sync's policy share
is >= 15%, and ahead of EnvPool async), the machine (CPU, cores, load before and after) and the versions; a
Markdown table goes beside it and to stdout.

Run from a source checkout with a libmdvec built:
  MDVEC_LIB=$PWD/build/libmdvec/libmdvec.so PYTHONPATH=python python bench/envpool_sidebyside.py
(about 10 minutes on 2 cores). ``--quick``: N:B 8:4 only, widths 0 and 256, 2 rounds of 0.3 s windows, one PPO
run per cell of 2 updates with 1 epoch of 4 minibatches (a smoke run, 1-2 minutes). ``--pool A.json B.json``
(alone): the windows of runs made with the same settings, summarized together (rounds renumbered).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if (ROOT / "python" / "mdvec").is_dir() and str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

TASK = "Hopper-v5"
CELLS = (("mdvec", "sync"), ("mdvec", "async"), ("envpool", "sync"), ("envpool", "async"), ("sb3", "sync"))
LABELS = {
    ("mdvec", "sync"): "mdvec sync",
    ("mdvec", "async"): "mdvec async",
    ("envpool", "sync"): "EnvPool sync",
    ("envpool", "async"): "EnvPool async",
    ("sb3", "sync"): "SB3 subproc",
}
BASE = "mdvec sync"
PPO_ROLLOUT = 2048  # env steps per PPO update in every config
GOAL_SHARE = 0.15


# ================================================================================================ worker side
def _ppo_module() -> Any:
    """examples/ppo_envpool.py as a module (its train, Config, make_envs)."""
    if "ppo_envpool" not in sys.modules:
        spec = importlib.util.spec_from_file_location("ppo_envpool", ROOT / "examples" / "ppo_envpool.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["ppo_envpool"] = module
        spec.loader.exec_module(module)
    return sys.modules["ppo_envpool"]


def _gymnasium_hopper() -> Any:
    """One Gymnasium Hopper-v5 with EnvPool's NEXT_STEP autoreset (for SubprocVecEnv's processes)."""
    import gymnasium

    class NextStepAutoreset(gymnasium.Wrapper):  # type: ignore[misc]
        """Hides episode ends from SubprocVecEnv (which would reset at once): the flags go into info, and the
        step after an episode ended resets the env, its action ignored, reward 0 (EnvPool's autoreset)."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            self._ended = False

        def reset(self, **kwargs: Any) -> Any:
            self._ended = False
            return self.env.reset(**kwargs)

        def step(self, action: Any) -> Any:
            if self._ended:
                obs, _ = self.env.reset()
                self._ended = False
                return obs, 0.0, False, False, {"ep_terminated": False, "ep_truncated": False}
            obs, reward, terminated, truncated, _ = self.env.step(action)
            self._ended = bool(terminated or truncated)
            return obs, reward, False, False, {"ep_terminated": bool(terminated), "ep_truncated": bool(truncated)}

    return NextStepAutoreset(gymnasium.make(TASK))


class SB3Pool:
    """SB3's SubprocVecEnv of n Gymnasium Hopper-v5 behind EnvPool's sync gymnasium interface (reset, step)."""

    def __init__(self, n: int, seed: int) -> None:
        from stable_baselines3.common.vec_env import SubprocVecEnv

        self.venv = SubprocVecEnv([_gymnasium_hopper for _ in range(n)])
        self.venv.seed(seed)
        self.observation_space, self.action_space = self.venv.observation_space, self.venv.action_space
        self.ids = np.arange(n, dtype=np.int32)

    def reset(self) -> tuple[np.ndarray, dict[str, Any]]:
        return self.venv.reset(), {"env_id": self.ids}

    def step(self, actions: np.ndarray, env_id: Any = None) -> tuple[Any, ...]:
        obs, reward, _, infos = self.venv.step(actions)
        terminated = np.array([i["ep_terminated"] for i in infos])
        truncated = np.array([i["ep_truncated"] for i in infos])
        return obs, reward, terminated, truncated, {"env_id": self.ids}

    def close(self) -> None:
        self.venv.close()


def make_envs(backend: str, mode: str, n: int, b: int, threads: int, seed: int) -> Any:
    """The cell's vector env (EnvPool's gymnasium interface)."""
    if backend == "sb3":
        return SB3Pool(n, seed)
    return _ppo_module().make_envs(backend, mode, TASK, n, b, seed, threads)


class Policy:
    """A fixed MLP obs -> W -> W -> actions (tanh) in torch (1 thread, no grad), W = 0: none. The envs get actions
    from a table of uniform random ones at every width (the MLP's output is computed, then dropped), so that every
    width steps the same physics and only the policy's cost changes (Hopper's step costs depend on its actions)."""

    def __init__(self, width: int, obs_dim: int, act_dim: int, seed: int = 0) -> None:
        self.width = width
        self.table = np.random.default_rng(seed).uniform(-1.0, 1.0, (4096, act_dim)).astype(np.float32)
        self.k = 0
        self.out: np.ndarray | None = None
        if width:
            import torch
            from torch import nn

            torch.set_num_threads(1)
            torch.manual_seed(seed)
            self.torch = torch
            self.net = nn.Sequential(
                nn.Linear(obs_dim, width),
                nn.Tanh(),
                nn.Linear(width, width),
                nn.Tanh(),
                nn.Linear(width, act_dim),
                nn.Tanh(),
            ).eval()

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        if self.width:
            with self.torch.inference_mode():
                self.out = self.net(self.torch.from_numpy(np.asarray(obs, np.float32))).numpy()
        n = len(obs)
        self.k = (self.k + n) % (len(self.table) - n)
        return self.table[self.k : self.k + n]


class LoopCell:
    """One cell of the policy-in-the-loop benchmark: its envs, kept between windows."""

    def __init__(self, backend: str, mode: str, n: int, b: int, threads: int) -> None:
        self.mode, self.n, self.b = mode, n, b
        self.envs = make_envs(backend, mode, n, b, threads, seed=1)
        self.obs_dim = int(np.prod(self.envs.observation_space.shape))
        self.act_dim = int(np.prod(self.envs.action_space.shape))
        self.held: list[tuple[np.ndarray, np.ndarray]] | None = None  # async: the envs received at a window's end
        self.obs: np.ndarray | None = None  # sync: the last observations

    def window(self, policy: Policy, seconds: float) -> dict[str, Any]:
        """Step for about ``seconds``; return rows, seconds, rate, policy_s, share, cores (this process's CPU
        seconds over the window's: the cores its threads kept busy; SB3's env processes are not counted)."""
        envs, rows, policy_s = self.envs, 0, 0.0
        c0 = time.process_time()
        if self.mode == "sync":
            if self.obs is None:
                self.obs = envs.reset()[0]
            obs = self.obs
            t0 = time.perf_counter()
            while True:
                tp = time.perf_counter()
                actions = policy(obs)
                policy_s += time.perf_counter() - tp
                obs = envs.step(actions)[0]
                rows += self.n
                dt = time.perf_counter() - t0
                if dt >= seconds:
                    break
            self.obs = obs
        else:
            t0 = time.perf_counter()
            if self.held is None:
                envs.async_reset()
            else:
                for obs, ids in self.held:
                    tp = time.perf_counter()
                    actions = policy(obs)
                    policy_s += time.perf_counter() - tp
                    envs.send(actions, ids)
            while True:
                obs, _, _, _, info = envs.recv()
                tp = time.perf_counter()
                actions = policy(obs)
                policy_s += time.perf_counter() - tp
                envs.send(actions, info["env_id"])
                rows += len(obs)
                dt = time.perf_counter() - t0
                if dt >= seconds:
                    break
            self.held = []
            for _ in range(self.n // self.b):  # every env in flight comes back: nothing steps between windows
                obs, _, _, _, info = envs.recv()
                self.held.append((obs, np.asarray(info["env_id"], np.int32)))
        cpu = time.process_time() - c0  # async: includes the untimed drain (a few steps)
        return {
            "rows": rows,
            "seconds": dt,
            "rate": rows / dt,
            "policy_s": policy_s,
            "share": policy_s / dt,
            "cores": cpu / dt,
        }

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.envs.close()


def run_ppo(req: dict[str, Any]) -> dict[str, Any]:
    """A short PPO run of examples/ppo_envpool.py: env creation + ``updates`` updates; timings and the hash."""
    ppo = _ppo_module()
    n, b, mode = req["n"], req["b"], req["mode"]
    config = ppo.Config(
        total_steps=req["updates"] * req["rollout"],
        num_steps=req["rollout"] // n,
        update_epochs=req["update_epochs"],
        num_minibatches=req["num_minibatches"],
        seed=req["seed"],
    )
    t0 = time.perf_counter()
    envs = make_envs(req["backend"], mode, n, b, req["threads"], req["seed"])
    make_s = time.perf_counter() - t0
    try:
        result = ppo.train(envs, config, mode, n, b if mode == "async" else n, log=lambda s: None)
    finally:
        with contextlib.suppress(Exception):
            envs.close()
    rates = [u["rollout_steps_per_s"] for u in result["updates"]]
    timed = rates[1:] if len(rates) > 1 else rates
    return {
        "make_s": make_s,
        "train_s": result["wall_s"],
        "e2e_s": make_s + result["wall_s"],
        "rollout_s": result["rollout_s"],
        "update_s": result["update_s"],
        "rollout_rates": rates,
        "rate": statistics.median(timed),
        "policy_share": statistics.median(u["policy_s"] / u["rollout_s"] for u in result["updates"]),
        "params_sha256": result["params_sha256"],
        "episodes": result["episodes"],
    }


def versions() -> dict[str, Any]:
    """Versions of what this interpreter runs."""
    out: dict[str, Any] = {"python": platform.python_version(), "executable": sys.executable}
    for name in ("numpy", "torch", "mujoco", "gymnasium", "stable_baselines3", "envpool"):
        try:
            out[name] = __import__(name).__version__
        except Exception as exc:  # noqa: BLE001 - absent or broken: say which
            out[name] = f"not importable: {type(exc).__name__}"
    try:
        import mdvec

        out["mdvec"] = mdvec.__version__
        from mdvec.vecenv import lib

        out["libmdvec"] = str(getattr(lib(), "_name", ""))
    except Exception as exc:  # noqa: BLE001
        out["mdvec"] = f"not importable: {type(exc).__name__}: {exc}"
    return out


def worker() -> int:
    """Serve requests, one JSON object per line on stdin, each answered by one line on stdout."""
    out = sys.stdout
    sys.stdout = sys.stderr  # anything else printed goes to stderr, not into the protocol
    cells: dict[tuple[Any, ...], LoopCell] = {}
    policies: dict[tuple[int, int, int], Policy] = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "quit":
                break
            if req["op"] == "versions":
                reply: dict[str, Any] = versions()
            elif req["op"] == "release":  # close every kept env
                for cell in cells.values():
                    cell.close()
                cells.clear()
                reply = {}
            elif req["op"] == "loop":
                key = (req["backend"], req["mode"], req["n"], req["b"], req["threads"])
                if key not in cells:
                    cells[key] = LoopCell(*key)
                    cells[key].window(Policy(0, cells[key].obs_dim, cells[key].act_dim), req["warmup_s"])
                cell = cells[key]
                pk = (req["width"], cell.obs_dim, cell.act_dim)
                if pk not in policies:
                    policies[pk] = Policy(*pk)
                reply = cell.window(policies[pk], req["seconds"])
            elif req["op"] == "ppo":
                reply = run_ppo(req)
            else:
                raise ValueError(f"unknown op {req['op']!r}")
        except Exception as exc:  # noqa: BLE001 - reported to the driver, which records it
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    for cell in cells.values():
        cell.close()
    return 0


# ================================================================================================ driver side
class Worker:
    """A worker process (this script with --worker) under one interpreter."""

    def __init__(self, python: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH", "")) if p)
        self.python = python
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, **req: Any) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            return {"error": f"worker ({self.python}) exited with {self.proc.wait()}"}
        return json.loads(line)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ask(op="quit")
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=30)


def envpool_python(arg: str | None) -> str | None:
    """The interpreter for the EnvPool cells: this one if it imports envpool, else arg, else .venv-envpool."""
    if importlib.util.find_spec("envpool") is not None:
        return sys.executable
    for cand in (arg, str(ROOT / ".venv-envpool" / "bin" / "python")):
        if cand and Path(cand).is_file():
            return cand
    return None


def paired(windows: dict[str, list[dict[str, Any]]], label: str, base: str, key: str = "rate") -> float | None:
    """Median over rounds of label's value / base's in the same round."""
    b = {w["round"]: w[key] for w in windows.get(base, []) if "error" not in w}
    rs = [w[key] / b[w["round"]] for w in windows.get(label, []) if "error" not in w and b.get(w["round"])]
    return statistics.median(rs) if rs else None


def med(ws: list[dict[str, Any]], key: str) -> float | None:
    vals = [w[key] for w in ws if "error" not in w and w.get(key) is not None]
    return statistics.median(vals) if vals else None


def fmt(x: float | None, kind: str = "rate") -> str:
    if x is None:
        return "-"
    return {"rate": f"{x:,.0f}", "ratio": f"{x:.2f}", "pct": f"{100 * x:.0f}%", "s": f"{x:.1f}"}[kind]


def machine() -> dict[str, Any]:
    """CPU, cores, load, platform, date, git."""
    import _sidebyside

    out = _sidebyside.machine_info(len(os.sched_getaffinity(0)))
    with contextlib.suppress(OSError):
        out["git"] = _sidebyside.git_describe()
    with contextlib.suppress(OSError, IndexError, ValueError):
        mem = Path("/proc/meminfo").read_text().split("\n")[0].split()
        out["memory_gib"] = round(int(mem[1]) / 2**20, 1)
    return out


def summarize(report: dict[str, Any]) -> None:
    """Medians, ratios against mdvec sync, shares and the goal's verdict, into report."""
    loop_rows, ppo_rows = [], []
    for group in report["loop"]:
        ws = group["windows"]
        base_share = med(ws.get(BASE, []), "share")
        row: dict[str, Any] = {"n": group["n"], "b": group["b"], "width": group["width"], "policy_share": base_share}
        for label in ws:
            row[label] = {
                "rate": med(ws[label], "rate"),
                "share": med(ws[label], "share"),
                "cores": med(ws[label], "cores"),
                "ratio": paired(ws, label, BASE),
                "vs_envpool_async": paired(ws, label, "EnvPool async") if label == "mdvec async" else None,
            }
        loop_rows.append(row)
    for group in report["ppo"]:
        rs = group["runs"]
        row = {"n": group["n"], "b": group["b"]}
        for label in rs:
            row[label] = {
                "rollout_rate": med(rs[label], "rate"),
                "rollout_ratio": paired(rs, label, BASE),
                "e2e_s": med(rs[label], "e2e_s"),
                "train_s": med(rs[label], "train_s"),
                "e2e_ratio": paired(rs, label, BASE, "e2e_s"),
                "policy_share": med(rs[label], "policy_share"),
                "hashes": sorted({w["params_sha256"] for w in rs[label] if "error" not in w}),
            }
        ppo_rows.append(row)
    report["summary"] = {"loop": loop_rows, "ppo": ppo_rows}

    checks = []
    for row in loop_rows:
        a, s = row.get("mdvec async"), row.get(BASE)
        if not a or not s or a["ratio"] is None:
            continue
        share = row["policy_share"] or 0.0
        checks.append(
            {
                "n": row["n"],
                "b": row["b"],
                "width": row["width"],
                "policy_share": share,
                "async_vs_sync": a["ratio"],
                "async_vs_envpool_async": a["vs_envpool_async"],
                "share_at_least_goal": share >= GOAL_SHARE,
                "ahead_of_sync": a["ratio"] > 1.0,
                "ahead_of_envpool_async": None if a["vs_envpool_async"] is None else a["vs_envpool_async"] > 1.0,
            }
        )
    need = [c for c in checks if c["share_at_least_goal"]]
    report["goal"] = {
        "statement": "mdvec async ahead of mdvec sync wherever mdvec sync's policy share is >= 15%, "
        "and ahead of EnvPool async",
        "points": checks,
        "ahead_of_sync_where_share_ge_15": f"{sum(c['ahead_of_sync'] for c in need)}/{len(need)}",
        "ahead_of_envpool_async": f"{sum(bool(c['ahead_of_envpool_async']) for c in checks)}/"
        f"{sum(c['ahead_of_envpool_async'] is not None for c in checks)}",
        "met": bool(need)
        and all(c["ahead_of_sync"] for c in need)
        and all(c["ahead_of_envpool_async"] for c in checks if c["ahead_of_envpool_async"] is not None),
    }


def markdown(report: dict[str, Any]) -> str:
    """The tables: policy in the loop, then PPO."""
    m, labels = report["machine"], [LABELS[c] for c in CELLS]
    lines = [
        f"envpool_sidebyside {report['stamp']}: {m['cpu_model']}, {m['cores']} cores ({m['cpus_allowed']} allowed), "
        f"load {m['loadavg'][0]:.1f} -> {report['machine_after']['loadavg'][0]:.1f}; {TASK}, "
        f"{report['args']['threads']} threads"
        + (f" (async cells: {report['args']['async_threads']})" if report["args"].get("async_threads") else "")
        + f"; {report['args']['rounds']} rounds (medians; ratios: per-round, vs "
        f"{BASE}).",
        "",
        "Policy in the loop (env steps/s; ratio vs mdvec sync; policy share of the loop in mdvec sync):",
        "",
        "| N:B | MLP width | policy share | " + " | ".join(labels) + " | async/sync | mdvec/EnvPool async |",
        "| --- | --- | --- | " + " | ".join("---" for _ in labels) + " | --- | --- |",
    ]
    for row in report["summary"]["loop"]:
        cells = []
        for label in labels:
            c = row.get(label)
            cells.append("-" if not c else f"{fmt(c['rate'])} ({fmt(c['ratio'], 'ratio')})")
        a = row.get("mdvec async") or {}
        lines.append(
            f"| {row['n']}:{row['b']} | {row['width'] or 'none'} | {fmt(row['policy_share'], 'pct')} | "
            + " | ".join(cells)
            + f" | {fmt(a.get('ratio'), 'ratio')} | {fmt(a.get('vs_envpool_async'), 'ratio')} |"
        )
    lines += [
        "",
        f"PPO (examples/ppo_envpool.py, {report['args']['ppo_updates']} updates of {PPO_ROLLOUT} env steps): rollout "
        "env steps/s (ratio vs mdvec sync), end-to-end wall clock in s (env creation + training):",
        "",
        "| N:B | " + " | ".join(labels) + " |",
        "| --- | " + " | ".join("---" for _ in labels) + " |",
    ]
    for row in report["summary"]["ppo"]:
        cells = []
        for label in labels:
            c = row.get(label)
            cells.append(
                "-"
                if not c
                else f"{fmt(c['rollout_rate'])} ({fmt(c['rollout_ratio'], 'ratio')}), {fmt(c['e2e_s'], 's')} s"
            )
        lines.append(f"| {row['n']}:{row['b']} | " + " | ".join(cells) + " |")
    g = report["goal"]
    lines += [
        "",
        f"Goal ({g['statement']}): ahead of sync at {g['ahead_of_sync_where_share_ge_15']} points with share >= 15%, "
        f"ahead of EnvPool async at {g['ahead_of_envpool_async']}; met: {g['met']}.",
    ]
    return "\n".join(lines) + "\n"


def pool(paths: list[Path], out: Path) -> int:
    """Pool runs made with the same settings: every run's windows (rounds renumbered), summarized again; the
    pooled JSON and Markdown go to out as envpool_sidebyside_pooled_<stamps>."""
    runs = [json.loads(p.read_text()) for p in paths]
    report = json.loads(json.dumps(runs[0]))
    report["stamp"] = "pooled_" + "_".join(r["stamp"] for r in runs)
    report["pooled"] = [{"file": str(p), "stamp": r["stamp"], "machine": r["machine"]} for p, r in zip(paths, runs)]
    report["machine_after"] = runs[-1]["machine_after"]
    report["args"]["rounds"] = sum(r["args"]["rounds"] for r in runs)
    report["args"]["ppo_rounds"] = sum(r["args"]["ppo_rounds"] for r in runs)
    for kind, key, ident in (("loop", "windows", ("n", "b", "width")), ("ppo", "runs", ("n", "b"))):
        groups = {tuple(g[k] for k in ident): g for g in report[kind]}
        for k, run in enumerate(runs[1:], start=1):
            for g in run[kind]:
                mine = groups.get(tuple(g[i] for i in ident))
                if mine is None:
                    continue
                for label, ws in g[key].items():
                    mine[key].setdefault(label, []).extend({**w, "round": 1000 * k + w["round"]} for w in ws)
    summarize(report)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"envpool_sidebyside_{report['stamp']}.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    md = markdown(report)
    path.with_suffix(".md").write_text(md)
    print(md)
    print(f"wrote {path} and {path.with_suffix('.md')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--pool", nargs="+", type=Path, default=None, help="(alone) pool runs' JSON files into one table")
    p.add_argument("--quick", action="store_true", help="smoke run: 8:4, widths 0 and 256, 2 short rounds")
    p.add_argument("--configs", default="8:4,16:8,64:32", help="N:B pairs (envs : async batch)")
    p.add_argument("--sb3-max-envs", type=int, default=16, help="SB3 subproc only where N <= this (N processes)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--async-threads", type=int, default=None, help="num_threads of the async cells (default --threads)")
    p.add_argument("--widths", default="0,64,256,512,1024", help="MLP hidden widths (0: no network)")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--window-s", type=float, default=0.6)
    p.add_argument("--ppo-rounds", type=int, default=3)
    p.add_argument("--ppo-updates", type=int, default=4)
    p.add_argument("--cells", default=",".join(LABELS[c] for c in CELLS), help="labels of the cells to run")
    p.add_argument("--envpool-python", default=None, help="interpreter with envpool (default .venv-envpool)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = p.parse_args(argv)
    if args.worker:
        return worker()
    if args.pool:
        return pool(args.pool, args.out)
    update_epochs, minibatches, rollout = 10, 32, PPO_ROLLOUT
    if args.quick:
        args.configs, args.widths, args.rounds, args.window_s = "8:4", "0,256", 2, 0.3
        args.ppo_rounds, args.ppo_updates = 1, 2
        update_epochs, minibatches = 1, 4
    configs = [tuple(int(v) for v in c.split(":")) for c in args.configs.split(",")]
    widths = [int(w) for w in args.widths.split(",")]
    wanted = {s.strip() for s in args.cells.split(",")}
    cells = [c for c in CELLS if LABELS[c] in wanted]

    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    report: dict[str, Any] = {
        "stamp": stamp,
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "worker"},
        "machine": machine(),
        "task": TASK,
        "skipped": {},
        "loop": [],
        "ppo": [],
        "ppo_settings": {"rollout": rollout, "update_epochs": update_epochs, "num_minibatches": minibatches},
    }
    main_worker = Worker(sys.executable)
    workers: dict[str, Worker] = {"mdvec": main_worker, "sb3": main_worker}
    ep_python = envpool_python(args.envpool_python)
    if ep_python is None:
        report["skipped"]["envpool"] = "envpool is not importable here and no --envpool-python / .venv-envpool"
        cells = [c for c in cells if c[0] != "envpool"]
    else:
        workers["envpool"] = main_worker if ep_python == sys.executable else Worker(ep_python)
    report["versions"] = {w.python: w.ask(op="versions") for w in {id(w): w for w in workers.values()}.values()}
    for c in list(cells):
        if c[0] == "sb3" and str(report["versions"][sys.executable].get("stable_baselines3", "")).startswith("not"):
            report["skipped"]["sb3"] = "stable_baselines3 is not importable"
            cells.remove(c)
    print(
        f"envpool_sidebyside {stamp}: {report['machine']['cpu_model']}, {report['machine']['cores']} cores, load "
        f"{os.getloadavg()[0]:.2f}; configs {args.configs}, widths {args.widths}, {args.rounds} rounds; cells "
        f"{', '.join(LABELS[c] for c in cells)}",
        flush=True,
    )

    def cells_at(n: int) -> list[tuple[str, str]]:
        """The cells run with n envs: SB3's N processes only up to --sb3-max-envs."""
        if n > args.sb3_max_envs and any(c[0] == "sb3" for c in cells):
            report["skipped"][f"sb3 N={n}"] = f"N > --sb3-max-envs {args.sb3_max_envs} (SB3 runs N processes)"
        return [c for c in cells if c[0] != "sb3" or n <= args.sb3_max_envs]

    out_json = args.out / f"envpool_sidebyside_{stamp}.json"
    args.out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    try:
        # (a) policy in the loop
        for n, b in configs:
            here = cells_at(n)
            groups = {w: {"n": n, "b": b, "width": w, "windows": {LABELS[c]: [] for c in here}} for w in widths}
            report["loop"].extend(groups.values())
            for r in range(args.rounds):
                for w in widths:
                    order = here[r % len(here) :] + here[: r % len(here)]
                    for backend, mode in order:
                        res = workers[backend].ask(
                            op="loop",
                            backend=backend,
                            mode=mode,
                            n=n,
                            b=b,
                            threads=args.threads if mode == "sync" else (args.async_threads or args.threads),
                            width=w,
                            seconds=args.window_s,
                            warmup_s=min(0.5, args.window_s),
                        )
                        res["round"] = r
                        groups[w]["windows"][LABELS[(backend, mode)]].append(res)
                    line = ", ".join(
                        f"{lab} {fmt(ws[-1].get('rate'))} ({fmt(ws[-1].get('share'), 'pct')})"
                        if "error" not in ws[-1]
                        else f"{lab} ERROR {ws[-1]['error']}"
                        for lab, ws in groups[w]["windows"].items()
                    )
                    print(f"loop N={n} B={b} round {r + 1}/{args.rounds} width {w}: {line}", flush=True)
            for wk in {id(w): w for w in workers.values()}.values():
                wk.ask(op="release")
            out_json.write_text(json.dumps(report, indent=1) + "\n")
        # (b) PPO
        for n, b in configs:
            here = cells_at(n)
            group: dict[str, Any] = {"n": n, "b": b, "runs": {LABELS[c]: [] for c in here}}
            report["ppo"].append(group)
            for r in range(args.ppo_rounds):
                order = here[r % len(here) :] + here[: r % len(here)]
                for backend, mode in order:
                    res = workers[backend].ask(
                        op="ppo",
                        backend=backend,
                        mode=mode,
                        n=n,
                        b=b,
                        threads=args.threads if mode == "sync" else (args.async_threads or args.threads),
                        updates=args.ppo_updates,
                        rollout=rollout,
                        update_epochs=update_epochs,
                        num_minibatches=minibatches,
                        seed=1,
                    )
                    res["round"] = r
                    group["runs"][LABELS[(backend, mode)]].append(res)
                    msg = (
                        f"rollout {fmt(res['rate'])} steps/s (policy {fmt(res['policy_share'], 'pct')}), "
                        f"end to end {res['e2e_s']:.1f} s"
                        if "error" not in res
                        else f"ERROR {res['error']}"
                    )
                    print(
                        f"ppo N={n} B={b} round {r + 1}/{args.ppo_rounds} {LABELS[(backend, mode)]}: {msg}", flush=True
                    )
            out_json.write_text(json.dumps(report, indent=1) + "\n")
    finally:
        for wk in {id(w): w for w in workers.values()}.values():
            wk.close()
    report["machine_after"] = machine()
    report["elapsed_s"] = time.perf_counter() - t_start
    summarize(report)
    out_json.write_text(json.dumps(report, indent=1) + "\n")
    md = markdown(report)
    (args.out / f"envpool_sidebyside_{stamp}.md").write_text(md)
    print(md)
    print(f"wrote {out_json} and {out_json.with_suffix('.md')} ({report['elapsed_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
