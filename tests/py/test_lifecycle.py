"""Hardening, round two (issue 19): closing while another thread steps, copies and pickles of an env,
unaligned actions, and the smaller items. Scenarios that could crash the interpreter before their fix
run in a subprocess (``run_child``)."""

from __future__ import annotations

import copy
import gc
import pickle
from pathlib import Path

import numpy as np
import pytest

import mdvec
from test_hardening import run_child


def test_close_while_another_thread_steps_waits_for_the_step(tmp_path: Path) -> None:
    """close() from the main thread during a long step in another thread: the step completes with its
    results, close returns after it, later calls say "closed". Before the fix: use after free (a crash
    or an AttributeError in the stepping thread)."""
    out = run_child("""
        import threading, time
        import numpy as np, mdvec
        venv = mdvec.VecEnv(2, seed=1, threads=1, substeps=4000)
        venv.reset()
        got, errors, t_step = {}, [], {}
        def work():
            try:
                t_step["start"] = time.perf_counter()
                got["r"] = venv.step(np.zeros((2, venv.nu)))
                t_step["end"] = time.perf_counter()
            except BaseException as exc:
                errors.append(repr(exc))
        t = threading.Thread(target=work)
        t.start()
        time.sleep(0.05)
        venv.close()
        t_closed = time.perf_counter()
        t.join()
        assert not errors, errors
        obs, reward, done, info = got["r"]
        assert obs.shape == (2, venv.obs_dim) and np.isfinite(obs).all() and reward.shape == (2,)
        assert t_step["end"] <= t_closed, "close returned before the step"
        try:
            venv.step(np.zeros((2, venv.nu)))
        except RuntimeError as exc:
            assert "closed" in str(exc)
        else:
            raise SystemExit("a step after close ran")
        print("ok", round(t_closed - t_step["start"], 3))
    """, tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("ok"), (out.returncode, out.stdout, out.stderr)


def test_a_call_overlapping_a_step_is_refused_not_raced(tmp_path: Path) -> None:
    out = run_child("""
        import threading, time
        import numpy as np, mdvec
        venv = mdvec.VecEnv(2, seed=1, threads=1, substeps=4000)
        venv.reset()
        t = threading.Thread(target=lambda: venv.step(np.zeros((2, venv.nu))))
        t.start()
        time.sleep(0.05)
        refused = []
        for call in (lambda: venv.reset(), lambda: venv.buffers(), lambda: venv.get_state(0), lambda: venv.warnings):
            try:
                call()
            except mdvec.MdvecError as exc:
                refused.append("concurrent call" in str(exc))
        t.join()
        venv.close()
        print("refused", refused)
    """, tmp_path)
    assert out.returncode == 0 and "refused [True, True, True, True]" in out.stdout, (out.stdout, out.stderr)


def test_a_huge_num_envs_is_refused_before_memory_is_touched(tmp_path: Path) -> None:
    """20 million envs: refused with MemoryError naming num_envs, and the attempt barely moves the peak RSS
    (before: the env block, 20M x its stride, was zero-filled first: 4.9 GB for a refusal)."""
    out = run_child("""
        import mdvec
        def hwm():
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        before = hwm()
        try:
            mdvec.VecEnv(20_000_000, threads=1)
        except MemoryError as exc:
            assert "num_envs" in str(exc), exc
            print("refused", (hwm() - before) // 2**20)
    """, tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("refused"), (out.stdout, out.stderr)
    assert int(out.stdout.split()[1]) < 256, out.stdout  # MB of peak RSS the attempt added
