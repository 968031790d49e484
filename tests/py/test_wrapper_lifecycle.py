"""Hardening, round three (issue 25, items 1-3): the lifecycle promises of ``mdvec.VecEnv`` kept by every
object users get: ``mdvec.make``'s vector env (the core ``VectorEnv`` and Gymnasium's ``MdvecVectorEnv``),
the single env of ``gymnasium.make("mdvec/...")``, SB3's VecEnv and RLlib's vector env.

1. ``close()`` from another thread while a step is inside the library waits for it, and the step returns
   its full results (before: ``KeyError: 'obs'``, the wrapper emptied its buffers under the step).
2. ``copy.copy``, ``copy.deepcopy`` and ``pickle`` are refused, saying what to use instead (before: a copy
   shared the C handle, and closing it closed the original, whose ``closed`` still said False).
3. A forked child whose parent had another thread in a call on an env at the fork: the child's calls
   raise and its ``close()`` returns (before: it waited forever for a lock the parent's thread held).

The step is held inside the library deterministically: the handle's C step function is wrapped so that it
stops (signalling that it is inside) until the test releases it, and the closing thread is seen waiting
(its innermost frame unchanged) before the release.
"""

from __future__ import annotations

import copy
import gc
import pickle
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mdvec
from test_hardening import run_child

N = 2
SEED = 3


def _core_vector() -> Any:
    from mdvec.vector import VectorEnv  # what mdvec.make returns without Gymnasium

    return VectorEnv("duck", N, seed=SEED)


def _gym_vector() -> Any:
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from mdvec.gym import MdvecVectorEnv

    env = mdvec.make("duck", num_envs=N, seed=SEED)
    assert isinstance(env, MdvecVectorEnv)
    return env


def _gym_env() -> Any:
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    import mdvec.gym  # noqa: F401 - registers the ids

    return gymnasium.make("mdvec/Hopper-v5", seed=SEED)


def _sb3() -> Any:
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    import mdvec.sb3

    return mdvec.sb3.make_vec_env(N, seed=SEED)


def _rllib() -> Any:
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from mdvec.rllib import RLlibVectorEnv  # needs no Ray to build

    return RLlibVectorEnv({"num_envs": N, "seed": SEED})


# name: (factory, the core handle under it, reset, step with the test's actions)
WRAPPERS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]] = {
    "core VectorEnv": (
        _core_vector,
        lambda w: w._env._h,
        lambda w: w.reset(seed=SEED),
        lambda w: w.step(np.full((N, 14), 0.1, np.float32)),
    ),
    "mdvec.make (MdvecVectorEnv)": (
        _gym_vector,
        lambda w: w._env._h,
        lambda w: w.reset(seed=SEED),
        lambda w: w.step(np.full((N, 14), 0.1, np.float32)),
    ),
    "gymnasium.make single env": (
        _gym_env,
        lambda w: w.unwrapped._core.venv._h,
        lambda w: w.reset(seed=SEED),
        lambda w: w.step(np.full(3, 0.1, np.float32)),
    ),
    "sb3 VecEnv": (
        _sb3,
        lambda w: w._env._h,
        lambda w: w.reset(),
        lambda w: w.step(np.full((N, 14), 0.1, np.float32)),
    ),
}


def same(a: Any, b: Any) -> bool:
    """Whether two results are equal bit for bit, dtypes and Python types included (nested tuples, lists,
    dicts and arrays, object arrays of arrays or None)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return all(same(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
        return a.tobytes() == b.tobytes()
    return bool(a == b) or (a != a and b != b)


def hold_inside_the_library(handle: Any) -> tuple[threading.Event, threading.Event, list[str]]:
    """Wrap a handle's C step so that the next step, once inside the library, waits for ``release``;
    ``inside`` is set when it got there, and ``order`` records "step left" when the C step returned."""
    inside, release, order = threading.Event(), threading.Event(), []
    real = handle._step_fn

    def step_fn(ptr: Any, address: int, dtype: int) -> int:
        inside.set()
        if not release.wait(30):
            raise AssertionError("the test never released the step")
        code = real(ptr, address, dtype)
        order.append("step left")
        return code

    handle._step_fn = step_fn
    return inside, release, order


def wait_blocked(thread: threading.Thread, timeout: float = 30.0) -> None:
    """Return once ``thread`` has finished or waits in a blocking call: its innermost Python frame is
    unchanged (same code, same instruction) for 0.2 s. No sleep stands in for a guess of how long the
    thread needs to get there."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while thread.is_alive() and time.monotonic() < deadline:
        frame = sys._current_frames().get(thread.ident or -1)
        key = None if frame is None else (frame.f_code, frame.f_lasti)
        if key != last:
            last, since = key, time.monotonic()
        elif time.monotonic() - since >= 0.2:
            return
        time.sleep(0.002)
    if thread.is_alive():
        raise AssertionError("close() neither returned nor waited")


# --------------------------------------------------------------------------- 1. close while a step runs


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_close_from_another_thread_waits_and_the_step_returns_its_results(name: str) -> None:
    """A step held inside the library on one thread; close() on another starts and is seen waiting; the
    step then completes with results equal to an untouched twin's, close returns after it, and a later
    step says the env is closed. Before: KeyError: 'obs' in the stepping thread (mdvec.make's vector env,
    SB3's VecEnv)."""
    factory, handle_of, reset, step = WRAPPERS[name]
    twin, env = factory(), factory()
    reset(twin), reset(env)
    expected = step(twin)
    twin.close()
    inside, release, order = hold_inside_the_library(handle_of(env))
    got: dict[str, Any] = {}

    def stepping() -> None:
        try:
            got["result"] = step(env)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            got["error"] = exc

    def closing() -> None:
        try:
            env.close()
            order.append("close returned")
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            got["close error"] = exc

    stepper, closer = threading.Thread(target=stepping), threading.Thread(target=closing)
    stepper.start()
    try:
        assert inside.wait(30), "the step never reached the library"
        closer.start()
        wait_blocked(closer)
        assert closer.is_alive(), "close() returned while a step was inside the library"
    finally:
        release.set()
        stepper.join(30)
        if closer.ident is not None:
            closer.join(30)
    assert not stepper.is_alive() and not closer.is_alive(), "the step or the close hung"
    assert "error" not in got, f"the step in progress failed: {got['error']!r}"
    assert "close error" not in got, repr(got["close error"])
    assert order == ["step left", "close returned"], order
    assert same(got["result"], expected), "the step's results differ from an untouched twin's"
    with pytest.raises(RuntimeError, match="closed"):
        step(env)


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_a_call_overlapping_a_step_is_refused_as_concurrent(name: str) -> None:
    """While a step is inside the library, a reset from another thread is refused at once with
    MdvecError ("concurrent call") and the step completes unharmed."""
    factory, handle_of, reset, step = WRAPPERS[name]
    env = factory()
    reset(env)
    inside, release, _ = hold_inside_the_library(handle_of(env))
    stepper = threading.Thread(target=lambda: step(env))
    stepper.start()
    try:
        assert inside.wait(30)
        with pytest.raises(mdvec.MdvecError, match="concurrent call"):
            reset(env)
    finally:
        release.set()
        stepper.join(30)
    step(env)
    env.close()


# ------------------------------------------------------------------------------ 2. copies and pickles

COPY_WRAPPERS = {
    **{name: spec[0] for name, spec in WRAPPERS.items()},
    "gymnasium.make single env, unwrapped": lambda: _gym_env().unwrapped,
    "rllib vector env": _rllib,
}
INSTEAD = {
    "core VectorEnv": r"mdvec\.make\('mdvec/DuckBalance-v0', num_envs=2",
    "mdvec.make (MdvecVectorEnv)": r"mdvec\.make\('mdvec/DuckBalance-v0', num_envs=2",
    "gymnasium.make single env": r"gymnasium\.make\('mdvec/Hopper-v5'",
    "gymnasium.make single env, unwrapped": r"gymnasium\.make\('mdvec/Hopper-v5'",
    "sb3 VecEnv": r"mdvec\.sb3\.make_vec_env\(2",
    "rllib vector env": r"RLlibVectorEnv\(env_config\)",
}
HOW = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": pickle.dumps}


# copy.copy of what gymnasium.make returns copies Gymnasium's outer wrapper alone (Gymnasium's own
# behaviour, whatever the env); its .unwrapped, the mdvec env, is the case of that row
COPY_CASES = [
    (name, how) for name in COPY_WRAPPERS for how in HOW if (name, how) != ("gymnasium.make single env", "copy")
]


@pytest.mark.parametrize(("name", "how"), COPY_CASES)
def test_copies_and_pickles_are_refused_saying_what_to_use(name: str, how: str) -> None:
    """Before: copy.copy shared the C handle (closing the copy closed the original, whose ``closed`` said
    False). Now copy, deepcopy and pickle raise TypeError naming what to make instead, and the original
    keeps working."""
    env = COPY_WRAPPERS[name]()
    env.reset()
    pattern = r"cannot be copied or pickled: it owns C envs.*Instead, make another one.*" + INSTEAD[name]
    with pytest.raises(TypeError, match=pattern):
        HOW[how](env)
    gc.collect()
    action = env.action_space.sample() if not hasattr(env, "step_async") else None
    if action is None:  # SB3
        env.step(np.zeros((N, 14), np.float32))
    else:
        env.step(action)
    env.close()


def test_the_reference_backend_still_copies() -> None:
    """The single env's reference backend owns no C env: it copies and deep-copies as any Python env."""
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    import mdvec.gym  # noqa: F401 - registers the ids

    env = gymnasium.make("mdvec/DuckBalance-v0", backend="reference").unwrapped
    env.reset(seed=1)
    twin = copy.deepcopy(env)
    a = np.full(14, 0.1, np.float32)
    assert same(env.step(a), twin.step(a))
    env.close(), twin.close()


# ------------------------------------------------------------------- 3. forks while a thread is in a call

FORK_CASES = {
    "mdvec.VecEnv": ("mdvec.VecEnv(2, seed=3, substeps=2000)", "w._h", "w.reset()", "w.step(np.zeros((2, 14)))"),
    "core VectorEnv": (
        "__import__('mdvec.vector').vector.VectorEnv('duck', 2, seed=3, substeps=2000)",
        "w._env._h",
        "w.reset(seed=3)",
        "w.step(np.zeros((2, 14), np.float32))",
    ),
    "mdvec.make (MdvecVectorEnv)": (
        "mdvec.make('duck', num_envs=2, seed=3, substeps=2000)",
        "w._env._h",
        "w.reset(seed=3)",
        "w.step(np.zeros((2, 14), np.float32))",
    ),
    "gymnasium.make single env": (
        "__import__('gymnasium').make('mdvec/DuckBalance-v0', seed=3, substeps=2000)",
        "w.unwrapped._core.venv._h",
        "w.reset(seed=3)",
        "w.step(np.zeros(14, np.float32))",
    ),
    "sb3 VecEnv": (
        "__import__('mdvec.sb3').sb3.make_vec_env(2, seed=3, substeps=2000)",
        "w._env._h",
        "w.reset()",
        "w.step(np.zeros((2, 14), np.float32))",
    ),
}


@pytest.mark.parametrize("name", list(FORK_CASES))
def test_a_forked_child_closes_an_env_another_thread_was_calling(name: str, tmp_path: Path) -> None:
    """os.fork() while another thread of the parent is inside a step (its locks held): in the child a call
    raises MdvecError ("created in another process"), close() returns and the interpreter exits (collecting
    nothing that waits); the parent's step completes. The parent kills a child that has not exited within
    20 s. Before: the child hung in close() on the lock the parent's stepping thread held."""
    if name != "mdvec.VecEnv" and name != "core VectorEnv":
        pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    if name == "sb3 VecEnv":
        pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    make, handle, reset, step = FORK_CASES[name]
    out = run_child(
        f"""
        import os, sys, threading, time
        import numpy as np, mdvec
        try:
            import mdvec.gym
        except ImportError:
            pass
        w = {make}
        {reset}
        h = {handle}
        parent, inside, real = os.getpid(), threading.Event(), h._step_fn
        def step_fn(ptr, address, dtype):
            if os.getpid() == parent:
                inside.set()
            return real(ptr, address, dtype)
        h._step_fn = step_fn
        result = {{}}
        def stepping():
            result["step"] = {step}
        stepper = threading.Thread(target=stepping)
        stepper.start()
        assert inside.wait(30)
        pid = os.fork()
        if pid == 0:
            try:
                {step}
                print("child stepped", flush=True)
            except mdvec.MdvecError as exc:
                print("child refused:", "created in another process" in str(exc), flush=True)
            w.close()
            print("child closed", flush=True)
            sys.exit(0)  # a normal exit: atexit and the collection of what is left must not wait either
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                print("child exit", os.waitstatus_to_exitcode(status), flush=True)
                break
            time.sleep(0.02)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("child hung", flush=True)
        stepper.join(60)
        print("parent stepped", "step" in result, flush=True)
        w.close()
    """,
        tmp_path,
        timeout=120,
    )
    lines = [line for line in out.stdout.splitlines() if line]
    assert lines == ["child refused: True", "child closed", "child exit 0", "parent stepped True"], (
        out.stdout,
        out.stderr[-3000:],
    )
