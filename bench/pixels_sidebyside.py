"""Pixel observations side by side (issue 28 item 3): frames/s and env-steps/s of N envs that return a frame per env
step, at 84 x 84 and 64 x 64, at 1 and 2 threads, in one run:

* mdvec: ``mdvec.make(task, N, threads=T, obs_mode="pixels", width=S, height=S)``: libmdvec draws each env's frame
  in C on the worker thread that steps it (one EGL context per thread);
* Gymnasium: ``SyncVectorEnv`` over ``AddRenderObservation(gymnasium.make(task, render_mode="rgb_array", width=S,
  height=S), render_only=True)``, the reference of mdvec's pixel observations (one Python thread; T does not apply);
* EnvPool: ``envpool.make(task, env_type="gymnasium", num_envs=N, num_threads=T, from_pixels=True,
  render_width=S, render_height=S)`` when an interpreter with envpool is found (this one, --envpool-python or
  .venv-envpool). EnvPool 1.2.5 bundles its own libEGL under another name, which MuJoCo's GL loader does not see
  ("an OpenGL platform library has not been loaded into this process", then an abort): its cells load the system's
  libEGL.so.1 and libOpenGL.so.0 first (ctypes, RTLD_GLOBAL), which makes from_pixels run.

The same engines without frames (mdvec and EnvPool state observations, Gymnasium without render_mode) give the
physics alone: render share = 1 - (state seconds / pixel seconds) per env step, each engine against itself.
Every cell runs in a fresh process (its GL contexts its own) after a warm-up (contexts made, shaders compiled);
rounds go through all cells in turn, so drift biases every engine alike; medians over rounds, ratios against
mdvec at the same size and thread count. The renderer is whatever EGL gives (GL_RENDERER recorded: llvmpipe is
software); llvmpipe's own rasteriser threads (LP_NUM_THREADS, recorded) run inside every engine's draws.

Run: PYTHONPATH=python python bench/pixels_sidebyside.py [--quick] [--tasks Hopper-v5,Humanoid-v5]
     [--sizes 84,64] [--threads 1,2] [--envs 8] [--steps 15] [--rounds 3] [--out FILE]
JSON (and a Markdown table beside it) in bench/results/pixels_sidebyside_<stamp>.json.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("mdvec", "gymnasium", "envpool")


# ================================================================================================ one cell
def _preload_system_gl() -> None:
    """EnvPool's from_pixels: the system's libEGL and libOpenGL loaded globally, for MuJoCo's GL loader to find."""
    import ctypes

    for name in ("libEGL.so.1", "libOpenGL.so.0"):
        ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)


def _make(engine: str, task: str, n: int, threads: int, size: int, pixels: bool) -> tuple[Any, Any, str]:
    """(env, action space, renderer) of one engine; the env has Gymnasium's vector reset/step."""
    if engine == "mdvec":
        import mdvec

        kw: dict[str, Any] = {"obs_mode": "pixels", "width": size, "height": size} if pixels else {}
        env = mdvec.make(task, n, threads=threads, **kw)
        spec = getattr(env._env._h, "pixel_spec", None)  # GL_RENDERER of the library's contexts
        return env, env.action_space, spec.renderer if spec is not None else ""
    if engine == "gymnasium":
        import gymnasium

        def one() -> Any:
            if not pixels:
                return gymnasium.make(task)
            env = gymnasium.make(task, render_mode="rgb_array", width=size, height=size)
            return gymnasium.wrappers.AddRenderObservation(env, render_only=True)

        venv = gymnasium.vector.SyncVectorEnv([one for _ in range(n)])
        renderer = ""
        if pixels:
            with contextlib.suppress(Exception):
                from OpenGL import GL  # the context of the last viewer made is current

                venv.reset(seed=0)
                renderer = GL.glGetString(GL.GL_RENDERER).decode()
        return venv, venv.action_space, renderer
    if engine == "envpool":
        if pixels:
            _preload_system_gl()
        import envpool

        kw = {"from_pixels": True, "render_width": size, "render_height": size} if pixels else {}
        env = envpool.make(task, env_type="gymnasium", num_envs=n, num_threads=threads, seed=0, **kw)
        return env, env.action_space, ""
    raise ValueError(f"unknown engine {engine!r}")


def cell(req: dict[str, Any]) -> dict[str, Any]:
    """Time ``steps`` vector steps of one engine after ``warmup`` steps; wall and process CPU seconds."""
    import numpy as np

    env, space, renderer = _make(req["engine"], req["task"], req["n"], req["threads"], req["size"], req["pixels"])
    try:
        rng = np.random.default_rng(0)
        low, high = np.asarray(space.low), np.asarray(space.high)
        if req["engine"] == "envpool":  # its action_space is one env's: a batch of N
            low, high = np.broadcast_to(low, (req["n"], *low.shape)), np.broadcast_to(high, (req["n"], *high.shape))
        acts = [rng.uniform(low, high).astype(space.dtype) for _ in range(req["warmup"] + req["steps"])]
        obs, _ = env.reset() if req["engine"] == "envpool" else env.reset(seed=0)  # EnvPool's seed: make's
        for a in acts[: req["warmup"]]:
            obs, *_ = env.step(a)
        w0, c0 = time.perf_counter(), time.process_time()
        for a in acts[req["warmup"] :]:
            obs, *_ = env.step(a)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        shape = list(np.shape(obs)) if isinstance(obs, np.ndarray) else None
        return {"wall_s": wall, "cpu_s": cpu, "renderer": renderer, "obs_shape": shape}
    finally:
        env.close()


def versions() -> dict[str, Any]:
    out: dict[str, Any] = {"python": platform.python_version(), "executable": sys.executable}
    for name in ("numpy", "mujoco", "gymnasium", "envpool", "mdvec"):
        try:
            out[name] = __import__(name).__version__
        except Exception as exc:  # noqa: BLE001 - absent or broken: say which
            out[name] = f"not importable: {type(exc).__name__}"
    return out


# ================================================================================================ driver
def envpool_python(arg: str | None) -> str | None:
    """The interpreter for EnvPool's cells: this one if it imports envpool, else arg, else .venv-envpool."""
    if importlib.util.find_spec("envpool") is not None:
        return sys.executable
    for cand in (arg, str(ROOT / ".venv-envpool" / "bin" / "python")):
        if cand and Path(cand).is_file():
            return cand
    return None


def run_cell(python: str, req: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One cell in a fresh process of ``python``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH", "")) if p)
    try:
        out = subprocess.run(
            [python, str(Path(__file__).resolve()), "--cell", json.dumps(req)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": f"exit {out.returncode}: {(out.stderr or out.stdout).strip()[-400:]}"}
    return json.loads(lines[-1])


def med(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def machine() -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "bench"))
    import _sidebyside

    out = _sidebyside.machine_info(len(os.sched_getaffinity(0)))
    with contextlib.suppress(OSError):
        out["git"] = _sidebyside.git_describe()
    return out


def summarize(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per task, size, engine and thread count: medians over rounds, ratios against mdvec, render share."""
    rows = []
    args = report["args"]
    for key, windows in report["cells"].items():
        engine, task, size, threads, pixels = key.split("|")
        if pixels != "pixels":
            continue
        ok = [w for w in windows if "error" not in w]
        state = [w for w in report["cells"].get(f"{engine}|{task}|0|{threads}|state", []) if "error" not in w]
        frames = args["envs"] * args["steps"]
        wall, cpu = med([w["wall_s"] for w in ok]), med([w["cpu_s"] for w in ok])
        st_wall = med([w["wall_s"] for w in state])
        rows.append(
            {
                "task": task,
                "size": int(size),
                "engine": engine,
                "threads": int(threads),
                "frames_per_s": frames / wall if wall else None,
                "env_steps_per_s": frames / wall if wall else None,  # a frame per env step
                "state_env_steps_per_s": frames / st_wall if st_wall else None,
                "ms_per_frame": 1e3 * wall / frames if wall else None,
                "cpu_ms_per_frame": 1e3 * cpu / frames if cpu else None,
                "physics_ms_per_env_step": 1e3 * st_wall / frames if st_wall else None,
                "render_share": 1.0 - st_wall / wall if wall and st_wall else None,
                "rounds": len(ok),
                "errors": [w["error"] for w in windows if "error" in w][:2],
                "obs_shape": next((w.get("obs_shape") for w in ok), None),
            }
        )
    for r in rows:  # per round: mdvec's rate over this one's in the same round (drift between rounds cancels)
        mine = {
            th: {
                w["round"]: w["wall_s"]
                for w in report["cells"].get(f"mdvec|{r['task']}|{r['size']}|{th}|pixels", [])
                if "error" not in w
            }
            for th in {x["threads"] for x in rows if x["engine"] == "mdvec"}
        }
        theirs = {
            w["round"]: w["wall_s"]
            for w in report["cells"][f"{r['engine']}|{r['task']}|{r['size']}|{r['threads']}|pixels"]
            if "error" not in w
        }
        r["mdvec_over_this_paired"] = {
            th: statistics.median([theirs[k] / m[k] for k in m if k in theirs]) if set(m) & set(theirs) else None
            for th, m in sorted(mine.items())
        }
    base = {(r["task"], r["size"], r["threads"]): r["frames_per_s"] for r in rows if r["engine"] == "mdvec"}
    for r in rows:  # Gymnasium runs one thread: compared with mdvec at each thread count
        b = base.get((r["task"], r["size"], r["threads"]))
        r["mdvec_over_this"] = (b / r["frames_per_s"]) if b and r["frames_per_s"] else None
        if r["engine"] == "gymnasium":
            r["mdvec_over_this_by_threads"] = {
                th: v / r["frames_per_s"]
                for (t, s, th), v in base.items()
                if t == r["task"] and s == r["size"] and v and r["frames_per_s"]
            }
    rows.sort(key=lambda r: (r["task"], -r["size"], ENGINES.index(r["engine"]), r["threads"]))
    return rows


def markdown(report: dict[str, Any]) -> str:
    m, a = report["machine"], report["args"]
    lines = [
        f"Pixels side by side ({m.get('date', '')}, {m.get('cpu_model', '')}, {m.get('cores')} cores, "
        f"renderer {report.get('renderer') or '?'}, LP_NUM_THREADS={report.get('lp_num_threads') or 'unset'}; "
        f"N={a['envs']} envs, {a['steps']} steps after {a['warmup']}, {a['rounds']} rounds, medians)",
        "",
        "| task | size | engine | threads | frames/s | mdvec / this | mdvec / this, per round | ms/frame "
        "| CPU ms/frame | state env-steps/s | render share |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def f(x: float | None, spec: str) -> str:
        return "-" if x is None else format(x, spec)

    for r in report["rows"]:
        ratio = r["mdvec_over_this"]
        if r["engine"] == "gymnasium":
            ratio_s = ", ".join(f"T{th}: {v:.2f}" for th, v in sorted(r["mdvec_over_this_by_threads"].items()))
        else:
            ratio_s = f(ratio, ".2f")
        threads = "1 (Python)" if r["engine"] == "gymnasium" else str(r["threads"])
        paired = r.get("mdvec_over_this_paired", {})
        if r["engine"] == "gymnasium":
            paired_s = ", ".join(f"T{th}: {f(v, '.2f')}" for th, v in sorted(paired.items()))
        else:
            paired_s = f(paired.get(r["threads"]), ".2f")
        lines.append(
            f"| {r['task']} | {r['size']} | {r['engine']} | {threads} | {f(r['frames_per_s'], ',.1f')} | {ratio_s} "
            f"| {paired_s} "
            f"| {f(r['ms_per_frame'], '.1f')} | {f(r['cpu_ms_per_frame'], '.1f')} "
            f"| {f(r['state_env_steps_per_s'], ',.0f')} | {f(None if r['render_share'] is None else 100 * r['render_share'], '.1f')}% |"
        )
    for name, why in report.get("skipped", {}).items():
        lines.append(f"\n{name}: {why}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cell", default=None, help=argparse.SUPPRESS)
    p.add_argument("--quick", action="store_true", help="Hopper-v5 only, 2 envs, 3 steps, 1 round: a smoke run")
    p.add_argument("--tasks", default="Hopper-v5,Humanoid-v5")
    p.add_argument("--sizes", default="84,64")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--steps", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--envpool-python", default=None, help="interpreter with envpool (default .venv-envpool)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds one cell may run")
    p.add_argument("--out", default=None)
    p.add_argument("--summarize", default=None, metavar="JSON", help="rewrite a run's rows and table from its JSON")
    args = p.parse_args(argv)
    if args.summarize:
        path = Path(args.summarize)
        report = json.loads(path.read_text())
        report["rows"] = summarize(report)
        path.write_text(json.dumps(report, indent=2))
        path.with_suffix(".md").write_text(markdown(report))
        print(markdown(report))
        return 0
    if args.cell is not None:
        req = json.loads(args.cell)
        print(json.dumps(versions() if req.get("op") == "versions" else cell(req)))
        return 0
    if args.quick:
        args.tasks, args.envs, args.steps, args.rounds, args.warmup = "Hopper-v5", 2, 3, 1, 1
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    sizes = [int(s) for s in args.sizes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    pythons = {"mdvec": sys.executable, "gymnasium": sys.executable}
    report: dict[str, Any] = {
        "args": vars(args) | {"quick": bool(args.quick)},
        "machine": machine(),
        "lp_num_threads": os.environ.get("LP_NUM_THREADS"),
        "mujoco_gl": os.environ.get("MUJOCO_GL"),
        "skipped": {},
        "cells": {},
        "note": "software EGL (llvmpipe) unless 'renderer' says otherwise; a GPU EGL is untested here",
    }
    if "envpool" in engines:
        ep = envpool_python(args.envpool_python)
        if ep is None:
            report["skipped"]["envpool"] = "no interpreter with envpool (this one, --envpool-python, .venv-envpool)"
            engines.remove("envpool")
        else:
            pythons["envpool"] = ep
    report["versions"] = {
        py: run_cell(py, {"op": "versions"}, 120) for py in dict.fromkeys(pythons[e] for e in engines)
    }
    plan: list[dict[str, Any]] = []
    for task in tasks:
        for engine in engines:
            ts = [1] if engine == "gymnasium" else threads
            for th in ts:
                plan.append({"engine": engine, "task": task, "size": 0, "threads": th, "pixels": False})
                plan += [{"engine": engine, "task": task, "size": s, "threads": th, "pixels": True} for s in sizes]
    t0 = time.perf_counter()
    for rnd in range(args.rounds):
        for c in plan:
            req = c | {"n": args.envs, "steps": args.steps, "warmup": args.warmup}
            res = run_cell(pythons[c["engine"]], req, args.timeout) | {"round": rnd}
            key = f"{c['engine']}|{c['task']}|{c['size']}|{c['threads']}|{'pixels' if c['pixels'] else 'state'}"
            report["cells"].setdefault(key, []).append(res)
            if res.get("renderer") and not report.get("renderer"):
                report["renderer"] = res["renderer"]
            rate = args.envs * args.steps / res["wall_s"] if "wall_s" in res else None
            print(
                f"round {rnd + 1}/{args.rounds} {key:42s} "
                + (f"{rate:9.1f} env-steps/s" if rate else f"ERROR {res.get('error')}"),
                flush=True,
            )
    report["seconds"] = round(time.perf_counter() - t0, 1)
    report["machine"]["loadavg_after"] = list(os.getloadavg())
    report["rows"] = summarize(report)
    table = markdown(report)
    print()
    print(table)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(
        args.out or ROOT / "bench" / "results" / f"pixels_sidebyside_{'quick_' if args.quick else ''}{stamp}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    out.with_suffix(".md").write_text(table)
    print(f"wrote {out} and {out.with_suffix('.md').name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
