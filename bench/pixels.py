"""Pixel observations: frames/s of libmdvec's renderer on its worker threads, and what rendering costs next to the
physics. For each task, frame size and thread count, N envs step with obs_mode="pixels" and, alternately, with
obs_mode="state" (the same physics without frames); the difference is the rendering's share. With --anchors, the
references drawing the same frames in Python: Gymnasium's SyncVectorEnv over AddRenderObservation (a v5 task) or
dm_control's step + Physics.render (a Control Suite task), one env after another. With --determinism, the bytes of
a fixed rollout in fresh processes under LP_NUM_THREADS unset, 0 and 1 (llvmpipe's rasteriser threads) at 1 and 2
mdvec threads, compared by hash. The renderer is whatever EGL gives (GL_RENDERER is recorded).

Run: PYTHONPATH=python python bench/pixels.py [--tasks Hopper-v5,cartpole-swingup --sizes 84,64 --threads 1,2
     --envs 4 --steps 20 --rounds 2 --anchors --determinism --out bench/results/pixels_<date>.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import mdvec


def _timed(task: str, n: int, threads: int, size: int, steps: int, pixels: bool) -> tuple[float, float, str]:
    """Return (wall seconds, process CPU seconds) of `steps` vector steps after a warm-up, and GL_RENDERER."""
    kw: dict[str, Any] = {"obs_mode": "pixels", "width": size, "height": size} if pixels else {}
    env = mdvec.VecEnv(n, seed=0, threads=threads, task=task, autoreset_mode="same_step", **kw)
    rng = np.random.default_rng(0)
    actions = [rng.uniform(-1, 1, (n, env.nu)).astype(np.float64) for _ in range(steps + 3)]
    env.reset()
    for a in actions[:3]:  # contexts made, shaders compiled
        env.step_into_buffers(a)
    w0, c0 = time.perf_counter(), time.process_time()
    for a in actions[3:]:
        env.step_into_buffers(a)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    renderer = env._h.pixel_spec.renderer if env._h.pixel_spec is not None else ""
    env.close()
    return wall, cpu, renderer


def _anchor(task: str, n: int, size: int, steps: int) -> dict[str, Any]:
    """Frames/s of the reference drawing the same frames in Python, one env after another."""
    from mdvec.dm_tasks import is_dm_task

    rng = np.random.default_rng(0)
    if is_dm_task(task):
        from mdvec.reference.dm_control import DmControlEnv, split_task

        domain, name = split_task(task)
        envs = [DmControlEnv(domain, name, seed=i) for i in range(n)]
        for e in envs:
            e.reset(seed=0)
            e.physics.render(height=size, width=size, camera_id=0)
        acts = [rng.uniform(-1, 1, (n, envs[0].nu)) for _ in range(steps)]
        t0 = time.perf_counter()
        for a in acts:
            for i, e in enumerate(envs):
                e.step(a[i])
                e.physics.render(height=size, width=size, camera_id=0)
        wall = time.perf_counter() - t0
        for e in envs:
            e.close()
        return {"reference": "dm_control step + Physics.render(camera_id=0)", "frames_per_s": n * steps / wall}
    import gymnasium as gym

    def one(i: int) -> Any:
        return gym.wrappers.AddRenderObservation(gym.make(task, render_mode="rgb_array", width=size, height=size))

    venv = gym.vector.SyncVectorEnv([lambda i=i: one(i) for i in range(n)])
    venv.reset(seed=0)
    acts = [rng.uniform(-1, 1, venv.action_space.shape).astype(np.float32) for _ in range(steps)]
    venv.step(acts[0])
    t0 = time.perf_counter()
    for a in acts:
        venv.step(a)
    wall = time.perf_counter() - t0
    venv.close()
    return {"reference": "gymnasium SyncVectorEnv(AddRenderObservation)", "frames_per_s": n * steps / wall}


_ROLLOUT = """
import hashlib, numpy as np, mdvec
for threads in (1, 2):
    h = hashlib.sha256()
    env = mdvec.VecEnv(2, seed=0, threads=threads, task={task!r}, obs_mode="pixels", width=64, height=64)
    env.reset()
    px = env.buffers()["pixels"]
    h.update(px.tobytes())
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.step_into_buffers(rng.uniform(-1, 1, (2, env.nu)))
        h.update(px.tobytes())
    env.close()
    print(threads, h.hexdigest())
"""


def _determinism(task: str) -> dict[str, Any]:
    """The hash of a fixed rollout's frames at 1 and at 2 threads, in a fresh process per LP_NUM_THREADS."""
    out: dict[str, Any] = {}
    for lp in (None, "0", "1"):
        env = dict(os.environ)
        env.pop("LP_NUM_THREADS", None)
        if lp is not None:
            env["LP_NUM_THREADS"] = lp
        run = subprocess.run(
            [sys.executable, "-c", _ROLLOUT.format(task=task)], env=env, capture_output=True, text=True, timeout=600
        )
        lines = [ln.split() for ln in run.stdout.splitlines() if ln.strip()]
        out["LP_NUM_THREADS=" + (lp or "unset")] = (
            {t: h for t, h in lines} if run.returncode == 0 else run.stderr[-500:]
        )
    digests = {h for d in out.values() for h in (d.values() if isinstance(d, dict) else [d])}
    out["all_equal"] = len(digests) == 1  # one hash: the same bytes at 1 and 2 threads under every setting
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", default="Hopper-v5,cartpole-swingup")
    parser.add_argument("--sizes", default="84,64")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--anchors", action="store_true")
    parser.add_argument("--determinism", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows, renderer = [], ""
    load_before = os.getloadavg()
    for task in args.tasks.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            for threads in (int(t) for t in args.threads.split(",")):
                px, st = [], []
                for _ in range(args.rounds):  # alternate, so drift biases both alike
                    w, c, renderer = _timed(task, args.envs, threads, size, args.steps, True)
                    px.append((w, c))
                    st.append(_timed(task, args.envs, threads, size, args.steps, False)[:2])
                frames = args.envs * args.steps
                pw, sw = float(np.median([w for w, _ in px])), float(np.median([w for w, _ in st]))
                row = {
                    "task": task,
                    "size": size,
                    "threads": threads,
                    "envs": args.envs,
                    "steps": args.steps,
                    "frames_per_s": frames / pw,
                    "state_env_steps_per_s": frames / sw,
                    "ms_per_frame_wall": pw / frames * 1e3,
                    "physics_ms_per_env_step": sw / frames * 1e3,
                    "render_ms_per_frame": (pw - sw) / frames * 1e3,
                    "render_share": (pw - sw) / pw,
                    "cpu_ms_per_frame": float(np.median([c for _, c in px])) / frames * 1e3,
                    "rounds_wall_s": [w for w, _ in px],
                }
                rows.append(row)
                print(
                    f"{task} {size}x{size} T={threads}: {row['frames_per_s']:.1f} frames/s, render "
                    f"{row['render_ms_per_frame']:.1f} ms/frame ({100 * row['render_share']:.1f}%), physics "
                    f"{row['physics_ms_per_env_step']:.3f} ms/env-step",
                    flush=True,
                )
            if args.anchors:
                a = _anchor(task, args.envs, size, args.steps)
                a.update(task=task, size=size, envs=args.envs)
                rows.append(a)
                print(
                    f"{task} {size}x{size} reference: {a['frames_per_s']:.1f} frames/s ({a['reference']})", flush=True
                )
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "renderer": renderer,
        "lp_num_threads": os.environ.get("LP_NUM_THREADS"),
        "mdvec_version": mdvec.vecenv.lib().mdvec_version(),
        "rows": rows,
        "note": "software EGL (llvmpipe) unless renderer says otherwise; a GPU EGL is untested here",
    }
    if args.determinism:
        result["determinism"] = {task: _determinism(task) for task in args.tasks.split(",")}
        print(json.dumps(result["determinism"], indent=1))
    out = args.out or f"bench/results/pixels_{time.strftime('%Y%m%d-%H%M%S')}.json"
    Path(out).write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
