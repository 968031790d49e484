"""Hardening (issue 13): bounded sizes, out of memory as MemoryError, views that never see freed memory,
forked and concurrent use refused, physics errors that end one episode, no MuJoCo log in the working
directory, values ctypes would truncate refused. Scenarios that may exhaust memory, end the process or
hang (before the fixes) run in a subprocess with an address-space limit and a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mdvec
from mdvec import _lib

ROOT = Path(__file__).resolve().parents[2]
GB = 1 << 30


def run_child(code: str, tmp_path: Path, limit: int | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter (cwd tmp_path, RLIMIT_AS = limit bytes) and return the result; the
    code prints what the test checks."""
    prelude = "import resource\n"
    if limit:
        prelude += f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python")] + [p for p in [env.get("PYTHONPATH")] if p])
    if env.get("MDVEC_LIB"):  # the child runs elsewhere
        env["MDVEC_LIB"] = str(Path(env["MDVEC_LIB"]).resolve())
    try:
        return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child hung for {timeout} s: {e.stdout!r} {e.stderr!r}")


# ------------------------------------------------------------------------------------------------- 1. sizes

def test_latency_that_overflowed_is_refused() -> None:
    with pytest.raises(ValueError, match="latency"):
        mdvec.VecEnv(4, threads=2, latency=306783379)


def test_size_options_are_bounded(tmp_path: Path) -> None:
    r = run_child("""
        import mdvec
        for kw in (dict(episode_len=10**9, latency=10**8),
                   dict(episode_len=10**9, push_window=(0, 10**9), n_pushes=10**6)):
            try:
                mdvec.VecEnv(2, threads=1, **kw).reset()
                print("accepted", kw)
            except ValueError as e:
                print("ValueError", e)
            except Exception as e:
                print(type(e).__name__, e)
    """, tmp_path, limit=2 * GB, timeout=60)
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout + r.stderr
    assert lines[0].startswith("ValueError latency") and "10000" in lines[0], lines[0]
    assert lines[1].startswith("ValueError n_pushes") and "100000" in lines[1], lines[1]


def test_a_million_envs_fail_fast_as_nomem(tmp_path: Path) -> None:
    r = run_child("""
        import time, mdvec
        t = time.monotonic()
        try:
            mdvec.VecEnv(10**6, threads=1)
            print("built")
        except mdvec.MdvecError as e:
            print(e.code, round(time.monotonic() - t), e)
    """, tmp_path, limit=4 * GB)
    assert r.returncode == 0, r.stdout + r.stderr
    code, seconds, message = r.stdout.split(" ", 2)
    assert int(code) == _lib.ERR_NOMEM and "num_envs" in message and int(seconds) < 10, r.stdout
