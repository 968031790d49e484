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
    out = run_child(
        """
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
    """,
        tmp_path,
    )
    assert out.returncode == 0 and out.stdout.startswith("ok"), (out.returncode, out.stdout, out.stderr)


def test_a_call_overlapping_a_step_is_refused_not_raced(tmp_path: Path) -> None:
    out = run_child(
        """
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
    """,
        tmp_path,
    )
    assert out.returncode == 0 and "refused [True, True, True, True]" in out.stdout, (out.stdout, out.stderr)


def test_a_huge_num_envs_is_refused_before_memory_is_touched(tmp_path: Path) -> None:
    """20 million envs: refused with MemoryError naming num_envs, and the attempt barely moves the peak RSS
    (before: the env block, 20M x its stride, was zero-filled first: 4.9 GB for a refusal)."""
    out = run_child(
        """
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
    """,
        tmp_path,
    )
    assert out.returncode == 0 and out.stdout.startswith("refused"), (out.stdout, out.stderr)
    assert int(out.stdout.split()[1]) < 256, out.stdout  # MB of peak RSS the attempt added


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_copies_and_pickles_are_refused_and_the_original_survives(how: str) -> None:
    """copy.copy(VecEnv) shared the handle and closed the original when the copy was collected; now a copy
    or pickle is refused with what to do instead."""
    for make in (lambda: mdvec.VecEnv(2, seed=1), lambda: mdvec.Env(seed=1)):
        env = make()
        env.reset()
        with pytest.raises(TypeError, match=r"cannot be copied or pickled.*same arguments"):
            {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": pickle.dumps}[how](env)
        gc.collect()
        assert not env.closed
        env.step(np.zeros((2, env.nu)) if isinstance(env, mdvec.VecEnv) else np.zeros(env.nu))
        env.close()


def test_unaligned_actions_are_copied_to_an_aligned_array(monkeypatch: pytest.MonkeyPatch) -> None:
    """An action array at an odd address (np.frombuffer with offset=1) reached C as is (UBSan: misaligned
    loads in api.c and duck.c); now C gets an aligned copy, with the same results."""
    n, nu = 3, 14
    values = np.random.default_rng(0).uniform(-1, 1, (n, nu))
    raw = bytearray(values.nbytes + 1)
    unaligned = np.frombuffer(raw, dtype=np.float64, count=n * nu, offset=1).reshape(n, nu)
    unaligned[...] = values
    assert not unaligned.flags.aligned
    a, b = mdvec.VecEnv(n, seed=4), mdvec.VecEnv(n, seed=4)
    a.reset(), b.reset()
    seen = []
    step_fn = b._h._step_fn
    b._h._step_fn = lambda ptr, addr, dtype: (seen.append(addr), step_fn(ptr, addr, dtype))[1]
    ra, rb = a.step(values), b.step(unaligned)
    assert seen and seen[0] % 8 == 0
    assert all(np.array_equal(x, y) for x, y in zip(ra[:3], rb[:3]))
    a.close(), b.close()


def test_smaller_items() -> None:
    """The last seed's envs fit 64 bits (2**64 - 2 for 2 envs was refused); a NUL inside a string option is
    refused (ctypes cut it); a float seed is named as such; reset_with_params without params is a
    TypeError; a Gymnasium DISABLED-mode step after close says "closed"."""
    with mdvec.VecEnv(2, seed=2**64 - 2) as venv:
        venv.reset()
    with pytest.raises(ValueError, match="seed"):
        mdvec.VecEnv(2, seed=2**64 - 1)
    from mdvec import vecenv

    text_option = next(o for o in mdvec.task_options("Hopper-v5") if o.type == "str")  # xml_file
    with pytest.raises(ValueError, match="NUL"):
        vecenv._option_text(text_option, "/tmp/hopper\0.xml")  # what every string option goes through
    with mdvec.VecEnv(2) as venv:
        with pytest.raises(TypeError, match="seed: expected None, an int or a list of 2"):
            venv.reset(seed=1.5)
        with pytest.raises(TypeError, match="params is None"):
            venv.reset_with_params(0, None)


def test_gymnasium_disabled_step_after_close_says_closed() -> None:
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    import mdvec.gym  # noqa: F401 - registers the ids

    envs = gymnasium.make_vec(
        "mdvec/DuckBalance-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        autoreset_mode=gymnasium.vector.AutoresetMode.DISABLED,
        episode_len=2,
        n_pushes=1,
        push_window=(0, 2),
    )
    envs.reset(seed=0)
    for _ in range(2):
        envs.step(np.zeros((2, 14), np.float32))  # both envs finish
    envs.close()
    with pytest.raises(RuntimeError, match="closed"):
        envs.step(np.zeros((2, 14), np.float32))


def test_import_mdvec_is_light(tmp_path: Path) -> None:
    """``import mdvec`` loads neither the duck's Python reference nor mujoco's bindings (they come with the
    first duck env or the reference itself)."""
    out = run_child(
        """
        import sys
        import mdvec
        print(sorted(m for m in ("mujoco", "mdvec.reference", "mdvec.duck") if m in sys.modules))
        mdvec.VecEnv(1).close()
        print("mdvec.duck" in sys.modules)
    """,
        tmp_path,
    )
    assert out.returncode == 0 and out.stdout.split("\n")[:2] == ["[]", "True"], (out.stdout, out.stderr)


def test_import_adapters_is_light(tmp_path: Path) -> None:
    """``import mdvec.gym`` and ``import mdvec.sb3`` load no reference backend (mdvec.reference, mujoco's
    bindings) until an env asks for one; their public names are the modules of mdvec.adapters themselves
    (no module imported twice under two names)."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    out = run_child(
        """
        import sys
        import mdvec.gym, mdvec.sb3
        import mdvec.adapters.gym.env, mdvec.adapters.sb3
        print(sorted(m for m in ("mujoco", "mdvec.reference", "mdvec.duck") if m in sys.modules))
        print(mdvec.gym is mdvec.adapters.gym is sys.modules["mdvec.gym"],
              mdvec.sb3 is mdvec.adapters.sb3 is sys.modules["mdvec.sb3"],
              sys.modules["mdvec.gym.env"] is mdvec.adapters.gym.env,
              mdvec.gym.MdvecTaskEnv is mdvec.adapters.gym.env.MdvecTaskEnv)
        import mdvec.gym.env as again
        print(again is mdvec.adapters.gym.env, mdvec.gym.MdvecTaskEnv.__module__)
    """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["[]", "True True True True", "True mdvec.adapters.gym.env"], (
        out.stdout,
        out.stderr,
    )
