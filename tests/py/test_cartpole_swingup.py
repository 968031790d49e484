"""cartpole_swingup (the worked example of docs/adding_a_task.md) in C against its Python reference.

``mdvec.VecEnv(N, task="cartpole_swingup", seed=s, **options)`` beside N ``CartPoleSwingup(**options)``
reset with seeds s + i: every observation, reward, terminated/truncated flag and info value (step and
reset) is compared by its bits, through terminations (a narrow cart_limit), truncations (a short
max_episode_steps), resets from each env's own generator and reseeds, with float32 and float64 actions
(some beyond the bounds). The test counts what it compared and asserts that terminations, truncations
and resets all happened.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import mdvec
from mdvec.reference.cartpole_swingup import XML, CartPoleSwingup

TASK = "cartpole_swingup"
C_FILE = Path(__file__).resolve().parents[2] / "libmdvec" / "src" / "tasks" / "cartpole_swingup.c"


def bits(x: object) -> bytes:
    return np.asarray(x, np.float64).tobytes()


def test_model_text_is_the_c_files() -> None:
    """The reference's MJCF is the C file's cartpole_xml, string for string."""
    src = C_FILE.read_text()
    body = src[src.index("cartpole_xml[] =") : src.index(";", src.index("cartpole_xml[] ="))]
    assert "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body)) == XML


@pytest.mark.parametrize(
    "options,dtype,seed",
    [
        ({}, np.float64, 0),
        ({"max_episode_steps": 25, "cart_limit": 0.3}, np.float32, 7),
        (
            {"max_episode_steps": 40, "reset_noise_scale": 0.5, "ctrl_cost_weight": 0.3, "cart_limit": 0.8},
            np.float64,
            123,
        ),
    ],
)
def test_bit_identical_to_reference(options: dict, dtype: type, seed: int) -> None:
    n, steps = 4, 160
    venv = mdvec.VecEnv(n, seed=seed, task=TASK, autoreset_mode="disabled", **options)
    refs = [CartPoleSwingup(**options) for _ in range(n)]
    rng = np.random.default_rng(seed)
    compared = {"values": 0, "terminated": 0, "truncated": 0, "resets": 0}

    def check_reset(i: int, ref_obs: np.ndarray, ref_info: dict) -> None:
        b = venv.buffers()
        assert bits(b["obs"][i]) == bits(ref_obs), f"env {i}: reset obs"
        assert bits(b["reset_info"][0, i]) == bits(ref_info["x_position"]), f"env {i}: reset info"
        compared["values"] += ref_obs.size + 1

    venv.reset(seed=seed)
    for i, r in enumerate(refs):
        check_reset(i, *r.reset(seed=seed + i))
    for t in range(steps):
        actions = rng.uniform(-1.5, 1.5, size=(n, 1)).astype(dtype)
        obs, reward, done, info = venv.step(actions)
        b = venv.buffers()
        for i, r in enumerate(refs):
            o, rew, term, trunc, inf = r.step(actions[i])
            assert bits(obs[i]) == bits(o), f"step {t} env {i}: obs"
            assert bits(reward[i]) == bits(rew), f"step {t} env {i}: reward"
            assert (bool(b["terminated"][i]), bool(b["truncated"][i])) == (term, trunc), f"step {t} env {i}: flags"
            for k in ("x_position", "reward_upright", "reward_ctrl"):
                assert bits(info[k][i]) == bits(inf[k]), f"step {t} env {i}: info {k}"
            compared["values"] += o.size + 3 + 3
            compared["terminated"] += term
            compared["truncated"] += trunc and not term
        finished = np.asarray(done, bool)
        if finished.any():  # reset the finished envs: from their own generators, every third one reseeded
            seeds = [seed + 1000 + t if finished[i] and (t + i) % 3 == 0 else None for i in range(n)]
            venv.reset_envs(mask=finished, seeds=seeds)
            for i in np.flatnonzero(finished):
                check_reset(i, *refs[i].reset(seed=seeds[i]))
                compared["resets"] += 1
    print(f"{TASK} {options} {np.dtype(dtype).name}: {compared}")
    assert compared["resets"] > 0
    if options:
        assert compared["terminated"] > 0 and compared["truncated"] > 0, compared
    venv.close()


def test_reference_backend_has_the_c_backends_render_fps() -> None:
    """``metadata["render_fps"]`` of ``gymnasium.make("mdvec/cartpole_swingup", backend="reference")`` is the C
    backend's, round(1 / dt) (it was None: the plain reference core read no dt)."""
    gymnasium = pytest.importorskip("gymnasium")
    import mdvec.gym  # noqa: F401 - registers the ids

    fps = {}
    for backend in ("c", "reference"):
        env = gymnasium.make("mdvec/cartpole_swingup", backend=backend)
        fps[backend] = env.metadata["render_fps"]
        env.close()
    ref = CartPoleSwingup()
    assert fps["c"] == round(1 / (ref.model.opt.timestep * 2)) == 50  # 2: the C file's frame_skip
    assert fps["reference"] == fps["c"]
